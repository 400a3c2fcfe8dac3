//! tool-openapi's integration tests, in one binary (one link instead of
//! ten): a module per behaviour, each saying what it covers. Run one with
//! its path, e.g. `cargo test -p tool-openapi --test it corpus::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The test HTTP server and the synthetic documents.
mod common;

mod bodies;
mod corpus;
mod http;
mod import;
mod import_properties;
mod module_graph;
mod narrow;
mod properties;
mod servers;
mod size;

// `.ci/setup.d` fixtures (the npm corpus, Prism), set up on first use.
use test_support::fixtures as setup;
