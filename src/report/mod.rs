//! Renderers: tables for people, JSON/YAML contracts for scripts.

pub mod plan;
