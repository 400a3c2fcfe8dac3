//! The small builtin tools the reference host ships besides the capability crates.

pub mod calculator;
pub mod clock;

/// What both builtins truthfully say of themselves: they read nothing
/// outside their arguments, change nothing and reach nothing.
fn pure_hints() -> tool_core::manifest::ApiHints {
    tool_core::manifest::ApiHints::default()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}
