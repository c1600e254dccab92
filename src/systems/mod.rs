//! Each seed system as a thin layer over the engine.

pub mod flow;
pub mod fluid;
