//! A computer for LLM agents: files, search and shell behind one template
//! trait, with a real local implementation and adapters for remote ones.
//!
//! A host needs one import, [`prelude`] (the local computer, its tool and
//! the sandbox); what follows is for building other computers. Remote
//! dispatch (a call sent to an executor elsewhere) is the crate
//! `tool-dispatch`.
//!
//! # Overview of the roles
//!
//! - [`ComputerRuntime`]: the template. One required method,
//!   [`call_service`](ComputerRuntime::call_service), sends a typed
//!   [`Request`] to an executor and returns a typed [`Response`]; every
//!   operation (`listFiles`, `readFile`, `readFiles`, `writeFile`, `editFile`,
//!   `moveFiles`, `renameFile`, `searchFiles`, `globFiles`, `grepContent`,
//!   `runCommand`, `getCommandOutput`, `killCommand`) is provided on top and
//!   returns a [`ToolOutput`](tool_core::ToolOutput) whose `state` is the
//!   typed result and whose `content` is the compact text from [`format`](mod@format).
//! - [`LocalComputer`]: this machine. Atomic writes, literal edits that
//!   refuse ambiguity and stale views, ripgrep's crates for search, and a
//!   shell process manager with process groups, background ids and bounded
//!   output buffers.
//! - [`adapter`]: [`ForeignComputer`] maps our shapes to another dialect
//!   (the snake_case desktop IPC is built in); [`RemoteComputer`] reaches an
//!   executor over any async [`Transport`].
//! - [`LocalSystemTool`]: the `local-system` builtin tool over any runtime,
//!   with schemas, time budgets, system role and approval config.
//! - [`sandbox`]: commands confined by the OS ([`SandboxPolicy`]: Landlock
//!   and seccomp on Linux), so writes stay in the workspace, `.git` stays
//!   read-only and the network stays off unless the host allows more: all
//!   of it, or only names through an egress proxy ([`EgressOptions`]), with
//!   secrets brokered so the command sees dummies.
//!
//! # Example
//!
//! ```
//! use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry};
//! use tool_runtime::{LocalComputer, LocalConfig, local_system_tool};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("README.md"), "# Hello\nworld\n").unwrap();
//!
//! let mut registry = ToolRegistry::new();
//! registry.register(local_system_tool(LocalComputer::new(LocalConfig::default()))).unwrap();
//!
//! let ctx = ToolContext::new().with_cwd(dir.path());
//! let offered = registry.offer(&ctx);
//! let call = ToolCall::new("local-system____readFile", r#"{"path":"README.md"}"#);
//! let out = Invoker::default().invoke(&offered, &call, &ctx).await;
//!
//! assert!(out.success);
//! assert!(out.content.contains("# Hello"));
//! assert_eq!(out.state.unwrap()["totalLines"], 2);
//! # });
//! ```
//!
//! # Platform
//!
//! Unix: commands run through `sh` in their own process groups and are
//! killed with `killpg`.
//!
//! # Crate features
//!
//! - `egress` (default): egress by name, the proxy a confined command's
//!   network goes through when its confinement carries an allow-list
//!   (hyper; rustls, rcgen and the system's roots for the credential
//!   broker's HTTPS). Without it such a confinement fails with
//!   `sandbox_unavailable`.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod adapter;
#[cfg(target_os = "linux")]
mod beneath;
mod error;
pub mod format;
mod local;
mod local_system;
mod operation;
mod request;
mod response;
mod runtime;
pub mod sandbox;

pub use adapter::{
    ForeignCall, ForeignComputer, ForeignExecutor, ForeignProtocol, RemoteComputer, Transport,
};
pub use error::{Error, Result};
pub use local::{LocalComputer, LocalConfig, ShellConfig};
pub use local_system::{
    IDENTIFIER, LocalSystemTool, RUN_COMMAND_TIMEOUT_MS, local_system_tool, manifest,
};
pub use request::{
    EditFileParams, EntryKind, GetCommandOutputParams, GlobFilesParams, GrepContentParams,
    GrepOutputMode, KillCommandParams, ListFilesParams, MoveFilesParams, MoveItem, OPERATIONS,
    ReadFileParams, ReadFilesParams, RenameFileParams, Request, RunCommandParams,
    SearchFilesParams, SortBy, WriteFileParams,
};
pub use response::{
    CommandOutput, EditFileResult, FileEntry, GlobFilesResult, GrepContentResult, GrepCount,
    GrepLine, ItemError, KillCommandResult, ListFilesResult, MoveFilesResult, MoveOutcome,
    ReadFileResult, ReadFilesItem, ReadFilesResult, RenameFileResult, Response, SearchFilesResult,
    WriteFileResult,
};
pub use runtime::{ComputerRuntime, failure};
pub use sandbox::{
    AppliedSandbox, BlockedConnection, CredentialBinding, DEFAULT_SCAN_LIMIT, EgressOptions,
    KernelSupport, LimitHit, Limits, ProtectedCreated, SandboxFallback, SandboxOptions,
    SandboxPolicy, confinement_support, probe_kernel,
};

/// What a host uses, in one import: `use tool_runtime::prelude::*;` — the
/// local computer and its tool ([`LocalComputer`], [`LocalConfig`],
/// [`local_system_tool`], [`LocalSystemTool`]), the OS sandbox
/// ([`SandboxPolicy`], [`SandboxOptions`], [`confinement_support`] for the
/// approval engine) and the trait other computers implement
/// ([`ComputerRuntime`]). Names do not clash with `tool_core::prelude`.
///
/// ```
/// use tool_runtime::prelude::*;
/// let computer = LocalComputer::new(LocalConfig::default());
/// let tool = local_system_tool(computer);
/// let support = confinement_support(&SandboxOptions::default());
/// # let _ = (tool, support, SandboxPolicy::default());
/// ```
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        ComputerRuntime, LocalComputer, LocalConfig, LocalSystemTool, SandboxOptions,
        SandboxPolicy, confinement_support, local_system_tool,
    };
}
