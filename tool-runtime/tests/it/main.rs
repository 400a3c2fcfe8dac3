//! tool-runtime's integration tests, in one binary (one link instead of
//! sixteen): a module per behaviour, each saying what it covers, with the
//! shared helpers in `common`. Run one with its path, e.g.
//! `cargo test -p tool-runtime --test it sandbox_git::`. `sandbox_user`
//! runs some of its tests again in a child process of this binary, by
//! their full name, as another user.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Helpers shared by the modules: a computer, contexts, outputs.
mod common;

mod adapters;
mod cancel;
mod confined_files;
mod confinement;
mod daemons;
mod files;
mod module_graph;
mod sandbox;
mod sandbox_git;
mod sandbox_guide_rows;
mod sandbox_new_repos;
mod sandbox_process_limit;
mod sandbox_protected;
mod sandbox_stand_ins;
mod sandbox_tmp;
mod sandbox_user;
mod search;
mod shell;
mod tool;
