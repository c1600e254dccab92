//! Each seed system as a thin layer over the engine (`sched`).

pub mod flow;
pub mod fluid;
pub mod gang;
pub mod topology;
