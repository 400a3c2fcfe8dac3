//! MCP servers as agent tools, through `rmcp` — and any tool registry served over MCP.
//!
//! A host needs one import, [`prelude`]: servers go into an [`McpManager`],
//! [`McpProvider::load_all`] turns them into tools (a `tool_core::Partial`
//! through [`McpLoad::into_partial`]), [`RegistryServer`] serves a registry.
//!
//! # Overview of the roles
//!
//! - [`McpServerConfig`]: what a host stores per server (stdio or streamable
//!   HTTP, timeouts, `updatedAt`, approval overrides); secrets redacted, and
//!   sealable at rest through a [`SecretCipher`].
//! - [`McpManager`]: one shared live session per configuration (stdio child
//!   in its own process group with bounded stderr, or streamable HTTP), a
//!   handshake budget, one transparent reconnect when a session died,
//!   discovery into a [`McpCatalog`] cached per `id` + `updatedAt` and dropped
//!   on `notifications/tools/list_changed`.
//! - [`HttpGuard`]: the host's SSRF policy for streamable HTTP servers (URL
//!   check before sending, its client for every request, refusals behind
//!   names and redirects reported as [`Error::UrlRefused`]); set it with
//!   [`ManagerOptions::http_guard`] whenever URLs are not fully trusted.
//! - [`McpTool`] / [`McpProvider`]: a server as one tool with one API per
//!   remote tool, approval defaults from annotations ([`default_policy`]),
//!   results mapped by [`map_call_result`]; references of type `mcp`.
//!   [`McpProvider::load_live`] loads every server into a
//!   [`tool_core::LiveRegistry`] and rebuilds a server's tool there when its
//!   list changes ([`LiveSync`]); a call to a remote tool the server removed
//!   fails with `mcp_tool_removed`.
//! - Protocol revisions: the client speaks 2026-07-28 (`server/discover`,
//!   stateless requests with per-request `_meta`) and 2025-11-25
//!   (`initialize`, a session), choosing per server ([`McpProtocol`]:
//!   discover first, `initialize` when the server does not know it); a
//!   2026-07-28 server's `input_required` questions are answered by the
//!   host's [`ElicitationHandler`] (or the call's asker) and the call is
//!   made again with the server's request state; with
//!   [`ManagerOptions::pending_questions`] the questions nobody here answers
//!   become the call's pending item in tool-core's durable turn
//!   ([`tool_core::durable`]), resumed in any process with the answers and
//!   the state intact, once. With [`ManagerOptions::tasks`] the client
//!   declares the tasks extension (SEP-2663) and a call the server makes a
//!   task is followed to its end (polled, its questions answered, cancelled
//!   when the call is dropped); with [`ManagerOptions::task_keys`] a task
//!   can instead be handed back as data ([`McpManager::start_task`]): a
//!   MAC'd [`McpTaskHandle`] bound to the server, the call and the host's
//!   approval record, looked at, waited for or cancelled by any process
//!   holding the keys ([`McpManager::task_status`], [`McpManager::wait_task`],
//!   [`McpManager::cancel_task`]). The server serves both on one endpoint.
//! - Skills (SEP-2640): [`McpManager::list_skills`] lists the skills a
//!   server serves through the skills extension without reading a file;
//!   [`McpManager::load_skill`] reads them only then, `SKILL.md` first, each
//!   checked against the server's entry (size, `sha256:` digest, the
//!   frontmatter field by field) into a [`McpLoadedSkill`]; the first file
//!   that fails stops the load ([`Error::SkillIntegrity`]). With the
//!   `skills` feature, [`McpSkillSource`] makes a server's skills one more
//!   source of a `tool_skills::SkillRegistry`: listed from `skills/list`,
//!   each file fetched (and checked the same way) only when the model
//!   activates the skill or reads the file.
//! - [`RegistryServer`]: the other direction — a [`tool_core::ToolRegistry`]
//!   served over MCP, each call through the [`tool_core::Invoker`] pipeline
//!   gated by the host's [`tool_core::Gate`], `ask`s put to the client by
//!   elicitation (an [`tool_core::Asker`]) or to the host's fallback asker,
//!   `tools/list` in pages of [`DEFAULT_PAGE_SIZE`] (cursor-linked);
//!   [`RegistryServer::live`] serves a [`tool_core::LiveRegistry`] and tells
//!   clients when it changes ([`RegistryServer::notify_tools_changed`]).
//!   On 2026-07-28 a served call asks its client by multi-round-trip
//!   ([`ClientLine`]: `input_required` with a sealed, call-bound request
//!   state, refused when altered); `completion/complete` is answered by the
//!   resource and prompt sources; `subscriptions/listen` streams get the
//!   tool list changes.
//! - Traces: each `tools/call` request is a `tracing` span on both sides
//!   in the OpenTelemetry MCP conventions (`tools/call {tool}`, attribute
//!   names in [`semconv`]; never an argument value), and the client's
//!   trace context travels in the request's `_meta` (`traceparent`,
//!   `tracestate`), so the server span is the client span's child across
//!   processes. A [`TracePropagator`] decides the ids: [`SpanFields`] by
//!   default, a host's OpenTelemetry SDK bridge otherwise
//!   ([`ManagerOptions::trace_propagator`],
//!   [`RegistryServer::with_trace_propagator`]).
//!
//! # Example
//!
//! A registry served over streamable HTTP, consumed through the manager:
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
//! use tool_mcp::{McpManager, McpServerConfig, McpTransport, RegistryServer, RunEverything};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let mut registry = ToolRegistry::new();
//! registry.register(ToolBuilder::new("clock")
//!     .api(ApiDefinition::new("now", "The time."), |_, _| async { Ok(ToolOutput::text("noon")) })
//!     .build()?)?;
//! let server = RegistryServer::new(Arc::new(registry), Arc::new(RunEverything), ToolContext::new());
//! let stop = tokio_util::sync::CancellationToken::new();
//! let (addr, _task) = server.serve_http("127.0.0.1:0".parse().unwrap(), stop.clone()).await.unwrap();
//!
//! let manager = McpManager::default();
//! manager.upsert(McpServerConfig::new("local", McpTransport::http(format!("http://{addr}/mcp")))).unwrap();
//! let catalog = manager.catalog("local").await.unwrap();
//! assert_eq!(catalog.tools[0].name, "clock____now");
//! let result = manager.call_tool("local", "clock____now", Default::default()).await.unwrap();
//! assert_eq!(tool_mcp::map_call_result("local", "clock____now", result).content, "noon");
//! stop.cancel();
//! # Ok::<(), tool_core::Error>(())
//! # }).unwrap();
//! ```
//!
//! MCP tools declare [`tool_core::manifest::NameRules::Foreign`] themselves
//! ([`McpTool`]'s `Tool::name_rules`), so any registry takes them: remote
//! names such as `files/read` are kept and made provider-safe by wire
//! naming. Loading every configured server is one line:
//! `registry.register_all(McpProvider::new(manager).load_all().await.into_partial().into_complete()?)`
//! (or keep the [`tool_core::Partial`] to report failed servers and go on).
//!
//! # Crate features
//!
//! The client and server halves are additive features, both on by default;
//! a host that only consumes servers, or only serves a registry, turns
//! defaults off and picks one. Result content conversion both ways
//! ([`map_call_result`], [`to_result`]) and [`Error`] are always there.
//!
//! - `client` (default): MCP servers as tools — [`McpManager`] with its
//!   stdio and streamable HTTP transports, OAuth ([`OAuthOptions`]), the
//!   HTTP guard ([`HttpGuard`]), [`McpTool`] / [`McpProvider`], remote
//!   resources and prompts, server configurations and their secrets. Pulls
//!   reqwest, http, process-wrap, tool-core's `net` and rmcp's client,
//!   streamable HTTP client and auth.
//! - `server` (default): [`RegistryServer`], a registry served over stdio
//!   or streamable HTTP. Pulls axum, tokio-util and rmcp's server and
//!   streamable HTTP server.
//! - `skills` (default; implies `client`): [`McpSkillSource`], a server's
//!   skills as a `tool_skills::RemoteSkills` source. Pulls tool-skills.
//! - `encryption` (off by default; implies `client`): [`XChaChaCipher`], an
//!   XChaCha20-Poly1305 [`SecretCipher`] for sealing `env` / `headers`
//!   secrets at rest.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "client")]
mod client;
mod content;
mod error;
#[cfg(any(feature = "client", feature = "server"))]
mod level;
#[cfg(feature = "server")]
mod server;
mod trace;

#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::catalog::{McpCatalog, McpCatalogTool};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::cipher::SecretCipher;
#[cfg(feature = "encryption")]
#[cfg_attr(docsrs, doc(cfg(feature = "encryption")))]
pub use client::cipher::XChaChaCipher;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::config::{
    ApprovalOverrides, DEFAULT_STARTUP_TIMEOUT_MS, MAX_STARTUP_TIMEOUT_MS, MIN_STARTUP_TIMEOUT_MS,
    McpProtocol, McpServerConfig, McpTransport, RESERVED_HEADERS, parse_server_list,
};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::elicit::{ElicitationHandler, Elicited};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::http::{HttpGuard, SsrfHttpGuard};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::live::{LiveLoad, LiveSync};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::manager::{MAX_LIST_PAGES, McpManager, ServerStatus};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::oauth::{Authorizer, InMemoryTokenStore, OAuthOptions, TokenStore};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::options::{
    DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_RESTART_AFTER_TIMEOUTS, ManagerOptions,
};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::policy::{default_policy, effective_policy};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::provider::{ALL_TOOLS, McpLoad, McpProvider, ServerReport};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::remote_skills::{McpLoadedSkill, McpSkillFile};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::secret::{McpSecret, SEALED_PREFIX};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::session::PROTOCOL_VERSION;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use client::skill_source::McpSkillSource;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::stderr::DEFAULT_STDERR_LIMIT;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::task_control::{CANCEL_SETTLE, McpTaskStart, McpTaskStatus};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::task_handle::{
    HANDLE_DOMAIN, MIN_TASK_SECRET_LEN, McpTaskHandle, TaskKey, TaskKeys,
};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use client::tool::{MCP_TOOL_KIND, McpTool};
pub use content::{ERROR_META_KEY, MCP_TOOL_ERROR, STATE_META_KEY, map_call_result, to_result};
pub use error::Error;
/// The rmcp this crate speaks: its model types (`CallToolResult`,
/// `Resource`, `Prompt`…) appear in this crate's API.
pub use rmcp;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::client_input::{
    ClientAsk, ClientCapability, ClientLine, ClientReply, REQUEST_STATE_TTL,
};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::gate::RunEverything;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::serve::{DEFAULT_PAGE_SIZE, FIXED_LIST_TTL, RegistryServer};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::serve_tasks::TaskSupport;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::served::{
    PromptSource, RESOURCE_NOT_FOUND, ResourceSource, SkillSource, SourceError,
};
pub use trace::{SpanFields, TraceContext, TracePropagator, semconv};

/// What a host uses, in one import: `use tool_mcp::prelude::*;` — servers
/// and their manager ([`McpServerConfig`], [`McpTransport`],
/// [`McpManager`], [`ManagerOptions`]), loading their tools
/// ([`McpProvider`], whose [`McpLoad`] becomes a `tool_core::Partial`),
/// serving a registry over MCP ([`RegistryServer`]) and OAuth
/// ([`OAuthOptions`]). Names do not clash with `tool_core::prelude`.
///
/// ```
/// use tool_mcp::prelude::*;
/// let manager = McpManager::default();
/// let server = McpServerConfig::new("files", McpTransport::stdio("mcp-files", ["--root", "."]));
/// manager.upsert(server).unwrap();
/// let provider = McpProvider::new(std::sync::Arc::new(manager));
/// # let _ = provider;
/// ```
pub mod prelude {
    #[cfg(feature = "server")]
    #[doc(no_inline)]
    pub use crate::RegistryServer;
    #[cfg(feature = "client")]
    #[doc(no_inline)]
    pub use crate::{
        ManagerOptions, McpLoad, McpManager, McpProvider, McpServerConfig, McpTransport,
        OAuthOptions,
    };
}
