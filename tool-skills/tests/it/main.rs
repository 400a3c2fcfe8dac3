//! tool-skills' integration tests, in one binary (one link instead of
//! fourteen): a module per behaviour, each saying what it covers. Run one
//! with its path, e.g. `cargo test -p tool-skills --test it escapes::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Writing skill files, reading findings.
mod common;

mod catalog;
mod corpus;
mod escapes;
mod findings;
mod maintain;
mod module_graph;
mod parser_props;
mod reference_validator;
mod registry;
#[cfg(all(feature = "scripts", target_os = "linux"))]
mod script_confinement;
#[cfg(feature = "scripts")]
mod scripts;
mod skill_spans;
mod tool;
mod workspace_trust;
