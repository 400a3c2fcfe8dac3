//! toolhost's integration tests, in one binary (one link instead of
//! fifteen): a module per command family, each running the real
//! `toolhost` binary (`CARGO_BIN_EXE_toolhost`) as users and outside test
//! suites do. Run one with its path, e.g.
//! `cargo test -p toolhost --test it pending::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cli;
mod closed_pipe;
mod mcp;
mod mcp_conformance;
mod mcp_live;
mod mcp_skills;
mod mcp_ssrf;
mod module_graph;
mod openapi;
mod pending;
mod sandbox;
mod skills;
mod skills_scripts;
mod workspace_trust;
