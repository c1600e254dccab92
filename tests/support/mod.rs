pub mod apiserver;
