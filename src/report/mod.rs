//! Renderers: turn reports into text, JSON, SARIF and workflow commands.

pub mod lint;
