//! Helpers shared by the integration tests of the tool-layer crates.
//!
//! Not published: each crate's tests depend on it by path (a path
//! dev-dependency without a version is dropped when a crate is packaged).
//!
//! - [`Collected`]: a `tracing` layer that keeps every span and event in
//!   memory, so a test can check names, fields and parents, and search
//!   everything recorded for a value that must never be traced.
//! - [`Seen::from_json_lines`]: the same records read from another process
//!   (`toolhost` writes its spans as JSON lines when `TOOLHOST_TRACE_FILE`
//!   names a file), so one test can join both sides of a call.
//! - [`cannot_check`]: where a test cannot do its job on this machine,
//!   it fails under CI instead of returning early as passed.
//! - [`fixtures`]: `.ci/fixtures.rs`, the fixtures from outside cargo
//!   (`fixtures::ensure("20-openapi.sh")` runs that `.ci/setup.d` script
//!   once per process, under a lock shared by every test process).
//! - [`module_graph`]: `.ci/module_graph.rs`, the reader that finds import
//!   circles between a crate's modules.
//!
//! Both `.ci` files are also included by path (`#[path = …] mod …;`) by the
//! crates that do not use this crate yet; a crate's tests move over by
//! replacing that with `use test_support::fixtures as setup;`.
//!
//! ```
//! let (collected, _guard) = test_support::Collected::install();
//! tracing::info_span!("execute_tool", gen_ai.tool.name = "clock____now").in_scope(|| {
//!     tracing::info!(name: "tool.run", "ran");
//! });
//! let span = &collected.spans("execute_tool")[0];
//! assert_eq!(span.get("gen_ai.tool.name"), Some("clock____now"));
//! assert_eq!(collected.events("tool.run")[0].parent.as_deref(), Some("execute_tool"));
//! ```
#![deny(missing_docs)]

mod machine;
mod spans;

pub use machine::{cannot_check, under_ci};
pub use spans::{Collected, Seen};

#[allow(missing_docs, missing_debug_implementations)]
#[path = "../../../.ci/fixtures.rs"]
pub mod fixtures;

#[allow(missing_docs, missing_debug_implementations)]
#[path = "../../../.ci/module_graph.rs"]
pub mod module_graph;
