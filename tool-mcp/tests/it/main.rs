//! tool-mcp's integration tests, in one binary (one link instead of
//! fifteen): a module per behaviour, each saying what it covers. Run one
//! with its path, e.g. `cargo test -p tool-mcp --test it real_servers::`.
//!
//! `in_process::traces` installs the process's global `tracing` subscriber
//! (once, for the whole binary); the tools it traces have names no other
//! module uses, so the other modules' spans do not disturb it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Where the pinned real servers live, free ports, HTTP servers.
mod common;

mod cancel;
mod config;
mod durable_questions;
mod faults;
mod handshake;
mod http_guard;
mod in_process;
mod library;
mod list_changed;
mod module_graph;
mod oauth;
mod real_servers;
mod serve_content;
mod serve_pages;
mod skills;
mod talk;
