//! Serving a [`ToolRegistry`] over MCP (stdio or streamable HTTP).
//!
//! Every `tools/call` goes through the same [`Invoker`] pipeline as a direct
//! call (name resolution, argument parsing with truncation diagnosis, schema
//! validation, the host's [`Gate`], timeout, cancellation, content cap):
//! the invoker is built with [`Invoker::with_gate`] and
//! [`Invoker::with_asker`], so a call that runs gets the decision's
//! [`Confinement`](tool_core::Confinement) in its context, and blocked,
//! declined and unanswerable calls get tool-core's ready outputs. Every
//! output, refusals included, comes back as an MCP result (`isError` when it
//! failed); the [`ToolOutput`]'s error and state ride along in `_meta` /
//! `structuredContent` so a tool-mcp client gets them back whole.
//!
//! Who answers an `ask`:
//!
//! 1. the client's user, through MCP elicitation, when the client declared
//!    it (accept → run; decline → `declined_by_user`; cancel → declined,
//!    saying it was dismissed);
//! 2. else the host's fallback [`Asker`]
//!    ([`RegistryServer::with_asker`]);
//! 3. else no one: the call does not run and gets `approval_required`,
//!    saying the client declared no elicitation.
//!
//! A running tool talks to the client through its context (see
//! tool-core's `talk` guide): [`ToolContext::elicit`] becomes
//! `elicitation/create` by the same way (1. client, 2. fallback asker,
//! 3. [`Elicited::Unsupported`](tool_core::Elicited::Unsupported));
//! [`ToolContext::progress`] becomes `notifications/progress` when the
//! request carried a `progressToken`; [`ToolContext::log`] becomes
//! `notifications/message` at or above the session's `logging/setLevel`
//! (the server declares `logging`). Every note of a call reaches the
//! client before its result.
//!
//! `tools/list` gives each API's `outputSchema` when its
//! [`ApiDefinition`](tool_core::ApiDefinition) declares one (the output's
//! state is the `structuredContent`), its stated hints as `annotations`
//! (without any, `destructiveHint: false` for an API that runs without
//! asking), its task support as `execution.taskSupport` (for a tool named
//! in [`RegistryServer::with_task_tools`], how this server runs it) and
//! its `_meta`:
//! a tool proxied from another MCP server is listed as that server listed
//! it. A proxied result's blocks are served in the server's order. Tools are listed under their wire
//! names (`identifier____api`), or under their bare API names where those
//! resolve to the same API ([`RegistryServer::with_bare_names`]).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ServerNotification;
use rmcp::service::{Peer, SubscriptionSink};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{RoleServer, ServiceExt};
use tokio_util::sync::CancellationToken;
use tool_core::{Asker, Gate, Invoker, LiveRegistry, OfferedTools, ToolContext, ToolRegistry};

use super::client_input::StateSeal;
use super::serve_talk::SessionLog;
use super::serve_tasks::{ServedTasks, TaskSupport};
use super::served::{PromptSource, ResourceSource};
use super::wire::OnTheWire;
use crate::error::Error;
use crate::trace::{SpanFields, TracePropagator};

/// The browser origins `mcp serve` over HTTP accepts (any port).
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The `ttlMs` of a fixed registry's `tools/list` (one hour) unless
/// [`RegistryServer::with_list_ttl`] says otherwise.
pub const FIXED_LIST_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// Tools per `tools/list` page unless [`RegistryServer::with_page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// What is served: a fixed registry, or one that changes while serving.
#[derive(Clone)]
pub(super) enum Source {
    Fixed(Arc<ToolRegistry>),
    Live(LiveRegistry),
}

impl Source {
    pub(super) fn offer(&self, ctx: &ToolContext) -> OfferedTools {
        match self {
            Self::Fixed(registry) => registry.offer(ctx),
            Self::Live(live) => live.offer(ctx),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Self::Fixed(registry) => registry.len(),
            Self::Live(live) => live.read(ToolRegistry::len),
        }
    }
}

pub(super) struct Inner {
    pub(super) registry: Source,
    /// Clients that completed the handshake (told of list changes).
    pub(super) peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Open 2026-07-28 `subscriptions/listen` streams (told of list changes).
    pub(super) listeners: Arc<Mutex<Vec<SubscriptionSink>>>,
    pub(super) invoker: Invoker,
    pub(super) ctx: ToolContext,
    pub(super) gate: Arc<dyn Gate>,
    pub(super) fallback: Option<Arc<dyn Asker>>,
    pub(super) name: String,
    pub(super) page_size: usize,
    /// `ttlMs` of `tools/list` on 2026-07-28 (`None`: from the source).
    pub(super) list_ttl: Option<std::time::Duration>,
    pub(super) bare_names: bool,
    pub(super) resources: Option<Arc<dyn ResourceSource>>,
    pub(super) prompts: Option<Arc<dyn PromptSource>>,
    /// The skills served by the skills extension (SEP-2640).
    pub(super) skills: Option<Arc<dyn crate::server::served::SkillSource>>,
    /// Seals the `requestState` of 2026-07-28 multi-round-trip calls.
    pub(super) seal: StateSeal,
    /// Reads the trace context of a call's `_meta` into its span.
    pub(super) propagator: Arc<dyn TracePropagator>,
    /// The tools that run as tasks (SEP-2663), and their tasks.
    pub(super) tasks: ServedTasks,
}

impl Inner {
    /// The clients that completed the handshake, those that left forgotten.
    pub(super) fn live_peers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|p| !p.is_transport_closed());
        peers
    }
}

/// An MCP server over a registry. Cheap to clone (one per HTTP session).
#[derive(Clone)]
pub struct RegistryServer {
    pub(super) inner: Arc<Inner>,
    /// This MCP session's `logging/setLevel` (a new one per HTTP session).
    pub(super) log: Arc<SessionLog>,
}

impl std::fmt::Debug for RegistryServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryServer")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.registry.len())
            .finish_non_exhaustive()
    }
}

impl RegistryServer {
    /// Serves `registry` with `gate` deciding each call; `ctx` is the
    /// context every call runs in (its working directory, ids…).
    pub fn new(registry: Arc<ToolRegistry>, gate: Arc<dyn Gate>, ctx: ToolContext) -> Self {
        Self::from_source(Source::Fixed(registry), gate, ctx)
    }

    /// Serves a registry that may change while serving (e.g. MCP servers'
    /// tools kept in step by [`McpProvider::load_live`](crate::McpProvider::load_live)):
    /// every `tools/list` and call sees the registry as it is then, the
    /// server declares `tools.listChanged`, and
    /// [`notify_tools_changed`](Self::notify_tools_changed) tells the
    /// connected clients to list again.
    pub fn live(registry: LiveRegistry, gate: Arc<dyn Gate>, ctx: ToolContext) -> Self {
        Self::from_source(Source::Live(registry), gate, ctx)
    }

    fn from_source(registry: Source, gate: Arc<dyn Gate>, ctx: ToolContext) -> Self {
        // Without randomness a fixed key would let anyone forge states:
        // such a server refuses every multi-round-trip continuation instead.
        let seal = StateSeal::random().unwrap_or_else(|error| {
            tracing::error!(%error, "no request state key; 2026-07-28 questions cannot be answered");
            StateSeal::refusing()
        });
        Self {
            inner: Arc::new(Inner {
                registry,
                peers: Mutex::new(Vec::new()),
                listeners: Arc::default(),
                invoker: Invoker::default(),
                ctx,
                gate,
                fallback: None,
                name: "tool-layer".into(),
                page_size: DEFAULT_PAGE_SIZE,
                list_ttl: None,
                bare_names: false,
                resources: None,
                prompts: None,
                skills: None,
                seal,
                propagator: Arc::new(SpanFields),
                tasks: ServedTasks::default(),
            }),
            log: Arc::default(),
        }
    }

    fn edit(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            registry: shared.registry.clone(),
            peers: Mutex::new(Vec::new()),
            listeners: Arc::clone(&shared.listeners),
            invoker: shared.invoker.clone(),
            ctx: shared.ctx.clone(),
            gate: Arc::clone(&shared.gate),
            fallback: shared.fallback.clone(),
            name: shared.name.clone(),
            page_size: shared.page_size,
            list_ttl: shared.list_ttl,
            bare_names: shared.bare_names,
            resources: shared.resources.clone(),
            prompts: shared.prompts.clone(),
            skills: shared.skills.clone(),
            seal: shared.seal.clone(),
            propagator: Arc::clone(&shared.propagator),
            tasks: shared.tasks.clone(),
        });
        f(&mut inner);
        Self {
            inner: Arc::new(inner),
            log: self.log,
        }
    }

    /// The same server for a new MCP session (its own logging level).
    pub(super) fn for_new_session(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            log: Arc::default(),
        }
    }

    /// Uses this pipeline configuration (content cap, timeouts). Give it no
    /// gate or asker of its own: the server builds every call's invoker
    /// from it with the gate given to [`new`](Self::new) /
    /// [`live`](Self::live) and the asker chosen per call (see the
    /// crate guide).
    pub fn with_invoker(self, invoker: Invoker) -> Self {
        self.edit(|i| i.invoker = invoker)
    }

    /// Puts the asks of clients that declared no elicitation to `asker`
    /// (a terminal prompt, a host UI). Without one, such asks get
    /// `approval_required`.
    pub fn with_asker(self, asker: Arc<dyn Asker>) -> Self {
        self.edit(|i| i.fallback = Some(asker))
    }

    /// Seals the `requestState` of 2026-07-28 multi-round-trip calls with
    /// `key` (at least 32 bytes) instead of a random key made at start: give
    /// the same key to every instance behind one endpoint, and keep it to
    /// accept states handed out before a restart. States are accepted for
    /// [`REQUEST_STATE_TTL`](crate::REQUEST_STATE_TTL).
    ///
    /// # Errors
    ///
    /// [`Error::Serve`] when the key is shorter than 32 bytes.
    pub fn with_request_state_key(self, key: &[u8]) -> Result<Self, Error> {
        let seal = StateSeal::new(key)?;
        Ok(self.edit(|i| i.seal = seal))
    }

    /// Who turns the trace context a call carries in `_meta` into its
    /// span's parent (default [`SpanFields`]; see [`TracePropagator`]).
    pub fn with_trace_propagator(self, propagator: Arc<dyn TracePropagator>) -> Self {
        self.edit(|i| i.propagator = propagator)
    }

    /// Runs the served tools `tools` (by the name clients call them) as
    /// tasks of the tasks extension (SEP-2663), which the server then
    /// declares: a call from a client that declared the extension answers
    /// at once with a task the client polls (`tasks/get`) or cancels
    /// (`tasks/cancel`); without it, an [`Optional`](TaskSupport::Optional)
    /// tool is called at once and a [`Required`](TaskSupport::Required)
    /// one is refused with `-32021`. For long-running tools (a build, a
    /// remote dispatch). `tools/list` gives each of them that
    /// `execution.taskSupport` (over the API's own, if it states one).
    /// Replaces an earlier list.
    pub fn with_task_tools<S: Into<String>>(
        self,
        tools: impl IntoIterator<Item = (S, TaskSupport)>,
    ) -> Self {
        let tasks = ServedTasks::new(tools.into_iter().map(|(n, s)| (n.into(), s)).collect());
        self.edit(|i| i.tasks = tasks)
    }

    /// Lets the task tools `tools` (named in
    /// [`with_task_tools`](Self::with_task_tools)) ask their questions
    /// before they become a task: called on 2026-07-28 by a client that
    /// declared the tasks extension, such a tool runs as a plain
    /// multi-round-trip call (its questions answered by `input_required`
    /// rounds) until it calls
    /// [`ClientLine::start_task`](crate::ClientLine::start_task); that
    /// round is answered with the task and the call goes on in it. A call
    /// that ends first is answered with a task already completed
    /// ([`Required`](TaskSupport::Required)) or its result
    /// ([`Optional`](TaskSupport::Optional)). On a session, a task from
    /// the first request as before. Replaces an earlier list.
    pub fn with_questions_before_task<S: Into<String>>(
        self,
        tools: impl IntoIterator<Item = S>,
    ) -> Self {
        let tools = tools.into_iter().map(Into::into).collect();
        self.edit(|i| i.tasks = i.tasks.asking_first(tools))
    }

    /// The server name announced in the handshake.
    pub fn with_name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.edit(|i| i.name = name)
    }

    /// At most `size` tools per `tools/list` page (at least 1; default
    /// [`DEFAULT_PAGE_SIZE`]). Longer lists come in pages linked by an
    /// opaque `nextCursor`; a cursor that is malformed, past the end or from
    /// before the tool list changed is an `invalid_params` error (a registry
    /// rebuilt with the same tools keeps its cursors).
    pub fn with_page_size(self, size: usize) -> Self {
        self.edit(|i| i.page_size = size.max(1))
    }

    /// How long a 2026-07-28 client may use a `tools/list` answer without
    /// listing again (its `ttlMs`, SEP-2549). By default from the source: a
    /// fixed registry ([`new`](Self::new)) never changes while served, so
    /// [`FIXED_LIST_TTL`]; a live one ([`live`](Self::live)) may change at
    /// any moment, so 0 (its changes are also announced by
    /// `notifications/tools/list_changed` and on `subscriptions/listen`).
    /// `cacheScope` is `private` either way: what a registry offers may
    /// depend on the host's context.
    pub fn with_list_ttl(self, ttl: std::time::Duration) -> Self {
        self.edit(|i| i.list_ttl = Some(ttl))
    }

    /// Lists each tool under its bare API name (`evaluate` rather than
    /// `calculator____evaluate`) when that name resolves to the same API,
    /// i.e. no other offered tool has an API of that name and it is no
    /// other tool's wire name; the others keep their wire names. Calls
    /// accept both names either way. Off by default.
    pub fn with_bare_names(self, bare: bool) -> Self {
        self.edit(|i| i.bare_names = bare)
    }

    /// Serves `source`'s resources next to the tools: the server declares
    /// `resources`, pages `resources/list` (the page size of
    /// [`with_page_size`](Self::with_page_size)) and answers
    /// `resources/read` from it (see [`ResourceSource`]).
    pub fn with_resources(self, source: Arc<dyn ResourceSource>) -> Self {
        self.edit(|i| i.resources = Some(source))
    }

    /// Serves `source`'s prompts next to the tools: the server declares
    /// `prompts`, pages `prompts/list` and answers `prompts/get` from it
    /// (see [`PromptSource`]).
    pub fn with_prompts(self, source: Arc<dyn PromptSource>) -> Self {
        self.edit(|i| i.prompts = Some(source))
    }

    /// Serves `source`'s skills through the skills extension (SEP-2640):
    /// the server declares `io.modelcontextprotocol/skills` and answers
    /// `skills/list` (paged) and `skills/get` (an unknown URI is
    /// `-32602`). Only with [`with_resources`](Self::with_resources)
    /// serving the skills' files (the extension needs `resources`); without
    /// it the skills are not declared.
    pub fn with_skills(self, source: Arc<dyn crate::server::served::SkillSource>) -> Self {
        self.edit(|i| i.skills = Some(source))
    }

    /// Sends `notifications/tools/list_changed` to every connected client
    /// that completed the handshake and on every open `subscriptions/listen`
    /// stream that asked for tool list changes (2026-07-28); returns how
    /// many were told (clients that left are forgotten).
    pub async fn notify_tools_changed(&self) -> usize {
        let listeners: Vec<SubscriptionSink> = self
            .inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut streams = 0;
        for sink in listeners {
            if sink.accepted().tools_list_changed == Some(true)
                && sink
                    .send(ServerNotification::ToolListChangedNotification(
                        Default::default(),
                    ))
                    .await
                    .is_ok()
            {
                streams += 1;
            }
        }
        let peers: Vec<Peer<RoleServer>> = self.inner.live_peers().clone();
        let mut told = streams;
        for peer in peers {
            if peer.notify_tool_list_changed().await.is_ok() {
                told += 1;
            }
        }
        told
    }

    /// Serves over this process's stdin/stdout until the client leaves.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (stdin, stdout) = rmcp::transport::stdio();
        self.serve_io(stdin, stdout).await
    }

    /// Serves as over stdio (newline-delimited JSON-RPC) on `read` and
    /// `write` until the client leaves: a pipe, a socket, or an in-process
    /// stream (`tokio::io::duplex`) whose other end is the client.
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let running = OnTheWire(self)
            .serve((read, write))
            .await
            .map_err(|e| Error::Serve(format!("stdio handshake: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Serve(format!("stdio session: {e}")))?;
        Ok(())
    }

    /// An axum router serving streamable HTTP at `/mcp` (2025-11-25
    /// sessions kept in memory; 2026-07-28 requests stateless). Only
    /// loopback `Host`s are accepted, and a request carrying an `Origin`
    /// must come from a loopback origin (else 403): a web page cannot
    /// drive the server through the user's browser. A JSON body that is
    /// not a JSON-RPC message is answered before the MCP service sees it:
    /// 400 with a JSON-RPC parse error (-32700) or invalid request
    /// (-32600), 413 past 16 MiB (the table of the private `http_body`
    /// module).
    pub fn http_router(self, shutdown: CancellationToken) -> axum::Router {
        let mut config =
            StreamableHttpServerConfig::default().with_allowed_origins(LOOPBACK_ORIGINS);
        config.cancellation_token = shutdown;
        let service: StreamableHttpService<RegistryServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(self.for_new_session()),
                Default::default(),
                config,
            );
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(crate::server::wire::finish_http))
            .layer(axum::middleware::from_fn(
                crate::server::http_body::check_body,
            ))
    }

    /// Binds `addr` and serves streamable HTTP at `/mcp` until `shutdown`;
    /// returns the bound address once listening and the serving task.
    pub async fn serve_http(
        self,
        addr: SocketAddr,
        shutdown: CancellationToken,
    ) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), Error> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::Serve(format!("cannot bind {addr}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| Error::Serve(format!("bound address: {e}")))?;
        let router = self.http_router(shutdown.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
                .await;
        });
        Ok((bound, task))
    }
}
