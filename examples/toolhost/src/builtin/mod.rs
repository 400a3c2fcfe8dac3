//! The small builtin tools the reference host ships besides the capability crates.

pub mod calculator;
pub mod clock;
