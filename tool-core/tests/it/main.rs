//! tool-core's integration tests, in one binary (one link instead of
//! twenty-one): a module per behaviour, each saying what it covers. Run one
//! with its path, e.g. `cargo test -p tool-core --test it durable::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod arguments;
mod assembly;
mod context;
mod contracts;
mod durable;
mod gate;
mod live_registry;
mod manifest;
mod module_graph;
mod net;
mod outputs;
mod pipeline;
mod provider_properties;
mod providers;
mod registry;
mod shared_defs;
mod synthetic;
mod taint;
mod talk;
mod tool_search;
mod tracing_span;
