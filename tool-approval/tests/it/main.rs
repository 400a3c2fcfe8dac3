//! tool-approval's integration tests, in one binary (one link instead of
//! fifteen): a module per behaviour, each saying what it covers. Run one
//! with its path, e.g. `cargo test -p tool-approval --test it corpus::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Engines, policies and calls shared by the modules.
mod common;

mod adversarial;
mod confinement;
mod corpus;
mod crash_regressions;
mod gate;
mod host_tables;
mod limits;
mod modes;
mod module_graph;
mod path_classes;
mod policy_file;
mod probe_budget;
mod properties;
mod unread_code;
mod worst_case;
