//! The runtime manager: one shared live session per server configuration,
//! discovery into a cached catalog, and calls.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, CallToolResult, PaginatedRequestParams};
use serde_json::{Map, Value};

use crate::client::catalog::{McpCatalog, McpCatalogTool};
use crate::client::config::{McpProtocol, McpServerConfig, McpTransport};
use crate::client::options::ManagerOptions;
use crate::client::remote_pending::ForTool;
use crate::client::remote_rounds::Rounds;
use crate::client::remote_talk::{Unheard, call_rounds_telling_task};
use crate::client::session::{ConnectOptions, Hooks, Lifecycle, Session};
use crate::client::slot::Slot;
use crate::error::Error;
use crate::trace::ClientTrace;

/// The most `tools/list` pages followed before discovery gives up (a server
/// handing out cursors forever is reported, not followed forever).
pub const MAX_LIST_PAGES: usize = 1_000;

/// What a server's slot knows, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerStatus {
    /// The server id.
    pub id: String,
    /// Whether it is enabled.
    pub enabled: bool,
    /// Whether a live session exists now.
    pub connected: bool,
    /// Sessions opened so far (1 after the first connect; 2 after one reconnect).
    pub sessions_started: u64,
    /// `notifications/tools/list_changed` received so far.
    pub list_changes: u64,
    /// Whether a catalog is cached.
    pub catalog_cached: bool,
    /// The stdio server's stderr tail, scrubbed of secrets.
    pub stderr: String,
    /// The protocol version the live session's handshake settled on (the
    /// client proposes [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION)).
    pub protocol_version: Option<String>,
}

/// How long [`McpProtocol::Auto`] waits for a `server/discover` answer
/// before it tries the `initialize` handshake instead.
pub const DISCOVER_PROBE_BUDGET: Duration = Duration::from_secs(5);

/// Holds the configured servers and their sessions.
///
/// - One live session per configuration, shared by every concurrent call;
///   it is opened on first use (with the configuration's startup budget).
/// - A session found dead before a request is sent (the process exited,
///   the connection closed) is re-established once, transparently.
/// - When it dies while a request is in flight, listing requests are sent
///   again on a new session, once; a `tools/call` is **never** sent again
///   (it may have run: a payment, a delete): it fails with
///   [`Error::Disconnected`] (`mcp_disconnected`) and the next call
///   reconnects. Other errors are returned, never retried. Streamable HTTP
///   sessions the server expired (it answers 404, so it ran nothing) are
///   re-initialised by the transport, once.
/// - An answer longer than [`ManagerOptions::max_message_bytes`] fails the
///   request it answers at once with [`Error::MessageTooLarge`]
///   (`mcp_message_too_large`), and the session goes on.
/// - Catalogs are cached per `id` + `updatedAt` ([`McpManager::catalog`]);
///   [`McpManager::invalidate`], [`McpManager::refresh`] and a
///   `notifications/tools/list_changed` from the server drop the cache.
///
/// ```no_run
/// # async fn run() -> Result<(), tool_mcp::Error> {
/// use tool_mcp::{McpManager, McpServerConfig, McpTransport};
/// let manager = McpManager::default();
/// manager.upsert(McpServerConfig::new("everything", McpTransport::stdio("mcp-server-everything", ["stdio"])))?;
/// let catalog = manager.catalog("everything").await?;
/// println!("{} tools", catalog.tools.len());
/// # Ok(()) }
/// ```
pub struct McpManager {
    servers: RwLock<BTreeMap<String, Arc<Slot>>>,
    options: ManagerOptions,
    /// The id of every server whose `notifications/tools/list_changed` arrived.
    changes: tokio::sync::broadcast::Sender<String>,
}

impl Default for McpManager {
    fn default() -> Self {
        Self::new(ManagerOptions::default())
    }
}

/// How many list changes a slow [`McpManager::tool_list_changes`] receiver
/// may fall behind before it is told it lagged.
const CHANGE_BACKLOG: usize = 64;

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.ids())
            .finish_non_exhaustive()
    }
}

impl McpManager {
    /// A manager with `options` and no servers.
    pub fn new(options: ManagerOptions) -> Self {
        Self {
            servers: RwLock::new(BTreeMap::new()),
            options,
            changes: tokio::sync::broadcast::channel(CHANGE_BACKLOG).0,
        }
    }

    /// The ids of servers that sent `notifications/tools/list_changed`, from
    /// now on, each after its cached catalog was dropped (so the next
    /// [`catalog`](Self::catalog) lists again). A receiver that falls more
    /// than 64 changes behind gets `RecvError::Lagged` and should treat
    /// every server as changed. [`McpProvider::load_live`](crate::McpProvider::load_live)
    /// uses this to rebuild tools.
    pub fn tool_list_changes(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    /// Adds or replaces a configuration (validated first). An identical
    /// configuration keeps its session and catalog; a changed one (e.g. a new
    /// `updatedAt`) starts afresh, and the old session closes when its last
    /// call finishes.
    pub fn upsert(&self, config: McpServerConfig) -> Result<(), Error> {
        config.validate()?;
        let mut servers = self.servers.write().unwrap_or_else(PoisonError::into_inner);
        if servers.get(&config.id).is_some_and(|s| s.config == config) {
            return Ok(());
        }
        servers.insert(config.id.clone(), Arc::new(Slot::new(config)));
        Ok(())
    }

    /// Removes a server; its session closes when its last call finishes.
    pub fn remove(&self, id: &str) -> bool {
        self.servers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
            .is_some()
    }

    /// The configured ids, sorted.
    pub fn ids(&self) -> Vec<String> {
        self.servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// The configuration of `id`.
    pub fn config(&self, id: &str) -> Option<McpServerConfig> {
        self.slot(id).ok().map(|s| s.config.clone())
    }

    fn slot(&self, id: &str) -> Result<Arc<Slot>, Error> {
        self.servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| Error::UnknownServer { server: id.into() })
    }

    pub(crate) fn enabled_slot(&self, id: &str) -> Result<Arc<Slot>, Error> {
        let slot = self.slot(id)?;
        if !slot.config.enabled {
            return Err(Error::Disabled { server: id.into() });
        }
        Ok(slot)
    }

    async fn session(&self, slot: &Slot) -> Result<Arc<Session>, Error> {
        self.session_after(slot, None).await
    }

    /// The live session, or a new one; after `challenge` (a 401 or 403
    /// mid-session) the new one is authorized first.
    async fn session_after(
        &self,
        slot: &Slot,
        challenge: Option<&str>,
    ) -> Result<Arc<Session>, Error> {
        if let Some(session) = slot.live_session() {
            return Ok(session);
        }
        let _connecting = slot.connecting.lock().await;
        if let Some(session) = slot.live_session() {
            return Ok(session);
        }
        drop(slot.set_live(None));
        let catalog = Arc::clone(&slot.catalog);
        let changes = Arc::clone(&slot.list_changes);
        let announce = self.changes.clone();
        let id = slot.config.id.clone();
        let hooks = Hooks {
            server: slot.config.id.clone(),
            elicitation: self.options.elicitation.clone(),
            pending_questions: self.options.pending_questions,
            tasks: self.options.tasks,
            in_flight: Arc::clone(&slot.in_flight),
            listed: Arc::clone(&slot.listed),
            on_tools_changed: Arc::new(move || {
                changes.fetch_add(1, Ordering::SeqCst);
                *catalog.lock().unwrap_or_else(PoisonError::into_inner) = None;
                // No receiver is not an error: nobody follows changes.
                let _ = announce.send(id.clone());
            }),
        };
        let options = ConnectOptions {
            http_client: self.options.http_client.clone(),
            http_guard: self.options.http_guard.clone(),
            stderr_limit: self.options.stderr_limit,
            max_message_bytes: self.options.max_message_bytes,
            oauth: self.options.oauth.clone(),
        };
        let session = Arc::new(self.open(slot, &options, hooks, challenge).await?);
        slot.sessions_started.fetch_add(1, Ordering::SeqCst);
        slot.set_live(Some(Arc::clone(&session)));
        Ok(session)
    }

    /// Opens a session to `slot`'s server in the revision its configuration
    /// asks for; [`McpProtocol::Auto`] tries `server/discover` (within
    /// [`DISCOVER_PROBE_BUDGET`]; `initialize` on the same connection when
    /// the server answers it with an error, on a new one when the probe
    /// fails otherwise) and remembers which worked.
    async fn open(
        &self,
        slot: &Slot,
        options: &ConnectOptions,
        hooks: Hooks,
        challenge: Option<&str>,
    ) -> Result<Session, Error> {
        let remembered = *slot
            .lifecycle
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let lifecycle = match (slot.config.protocol, remembered) {
            (McpProtocol::V2026_07_28, _) => Lifecycle::Discover,
            (McpProtocol::Auto, Some(known)) => known,
            (McpProtocol::Auto, None) => {
                // Discover, falling back to `initialize` on the same
                // connection when the server answers with an error; a
                // server that fails the probe otherwise (an HTTP refusal
                // without JSON-RPC, no answer in time) gets a fresh
                // `initialize` session.
                let mut probe = slot.config.clone();
                let budget = slot.config.startup_timeout().min(DISCOVER_PROBE_BUDGET);
                probe.startup_timeout_ms = Some(budget.as_millis().try_into().unwrap_or(u64::MAX));
                match Session::connect(&probe, options, hooks.clone(), challenge, Lifecycle::Auto)
                    .await
                {
                    Ok(session) => {
                        *slot
                            .lifecycle
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner) = Some(session.lifecycle());
                        return Ok(session);
                    }
                    Err(
                        Error::Handshake { .. }
                        | Error::HandshakeTimeout { .. }
                        | Error::Disconnected { .. },
                    ) => Lifecycle::Initialize,
                    Err(other) => return Err(other),
                }
            }
            _ => Lifecycle::Initialize,
        };
        let session = Session::connect(&slot.config, options, hooks, challenge, lifecycle).await?;
        *slot
            .lifecycle
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(lifecycle);
        Ok(session)
    }

    fn forget_session(&self, slot: &Slot, dead: &Arc<Session>) {
        let mut live = slot.live.write().unwrap_or_else(PoisonError::into_inner);
        if live.as_ref().is_some_and(|s| Arc::ptr_eq(s, dead)) {
            *live = None;
        }
    }

    /// Runs `op` on the live session. A session found dead before `op`
    /// runs is replaced first. When the session dies while `op` is in
    /// flight, a [`Resend::Idempotent`] request is sent once more on a new
    /// session; a [`Resend::Never`] one fails with [`Error::Disconnected`]
    /// (it may have reached the server) and the next request reconnects.
    pub(crate) async fn with_session<T, F, Fut>(
        &self,
        slot: &Slot,
        operation: &str,
        resend: Resend,
        op: F,
    ) -> Result<T, Error>
    where
        F: Fn(Arc<Session>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let session = self.session(slot).await?;
        match op(Arc::clone(&session)).await {
            Ok(value) => Ok(value),
            // A 401 or 403 (a scope the token lacks) mid-session: the server
            // refused the request, so it did not run; authorize (once) on a
            // new session and send it there.
            Err(_) if self.options.oauth.is_some() && session.challenge().is_some() => {
                let challenge = session.challenge().unwrap_or_default();
                tracing::debug!(server = %slot.config.id, %operation, "authorization asked mid-session");
                self.forget_session(slot, &session);
                let fresh = self.session_after(slot, Some(&challenge)).await?;
                op(Arc::clone(&fresh)).await.map_err(|e| {
                    match fresh.challenge() {
                        Some(again) => Error::Unauthorized {
                            server: slot.config.id.clone(),
                            message: format!(
                                "{operation} was refused again after authorizing ({again}); not retried"
                            ),
                        },
                        None => request_error(&slot.config.id, operation, &e, &fresh),
                    }
                })
            }
            Err(error) if session.refusal().is_some() => {
                Err(request_error(&slot.config.id, operation, &error, &session))
            }
            Err(error) if (is_dead(&error) || session.is_closed()) && resend == Resend::Never => {
                tracing::debug!(server = %slot.config.id, %operation, "session lost with a request in flight; not sent again");
                self.forget_session(slot, &session);
                Err(Error::Disconnected {
                    server: slot.config.id.clone(),
                    message: format!(
                        "the session ended while {operation} was in flight ({}); it was not \
                         sent again, since the server may have run it; the next request reconnects",
                        session.scrub(&error.to_string())
                    ),
                    stderr: session.stderr(),
                })
            }
            Err(error) if is_dead(&error) || session.is_closed() => {
                tracing::debug!(server = %slot.config.id, %operation, "session lost; reconnecting once");
                self.forget_session(slot, &session);
                let fresh = self.session(slot).await.map_err(|e| match e {
                    Error::Handshake {
                        server,
                        message,
                        stderr,
                    } => Error::Disconnected {
                        server,
                        message: format!(
                            "the session ended ({}) and reconnecting failed: {message}",
                            session.scrub(&error.to_string())
                        ),
                        stderr,
                    },
                    other => other,
                })?;
                op(Arc::clone(&fresh))
                    .await
                    .map_err(|e| request_error(&slot.config.id, operation, &e, &fresh))
            }
            Err(error) => Err(request_error(&slot.config.id, operation, &error, &session)),
        }
    }

    /// Runs a request that may be sent again on a new session (listing,
    /// reading) on `id`'s session, with errors named for `operation`.
    pub(crate) async fn idempotent<T, F, Fut>(
        &self,
        id: &str,
        operation: &str,
        op: F,
    ) -> Result<T, Error>
    where
        F: Fn(Arc<Session>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let slot = self.enabled_slot(id)?;
        self.with_session(&slot, operation, Resend::Idempotent, op)
            .await
    }

    /// The catalog of `id`: cached per `id` + `updatedAt`, else listed now,
    /// following every `tools/list` page. The cache holds until the server
    /// says its list changed (`notifications/tools/list_changed`) or
    /// [`invalidate`](Self::invalidate); when the listing carried a
    /// `ttlMs` above 0 (2026-07-28 cache hints; the shortest of its
    /// pages), also only that long. A `ttlMs` of 0, which rmcp servers send
    /// when they state none, keeps the first rule alone, so a call never
    /// waits for a listing the list-change notice would have announced.
    pub async fn catalog(&self, id: &str) -> Result<Arc<McpCatalog>, Error> {
        let slot = self.enabled_slot(id)?;
        if let Some(catalog) = slot.cached_catalog() {
            return Ok(catalog);
        }
        let _listing = slot.listing.lock().await;
        if let Some(catalog) = slot.cached_catalog() {
            return Ok(catalog);
        }
        let changes_before = slot.list_changes.load(Ordering::SeqCst);
        let ((tools, pages, ttl), server_name, instructions) = self
            .with_session(
                &slot,
                "tools/list",
                Resend::Idempotent,
                |session| async move {
                    let listed = list_every_page(&session).await?;
                    Ok((listed, session.server_name(), session.instructions()))
                },
            )
            .await?;
        let catalog = Arc::new(McpCatalog {
            server: id.to_owned(),
            updated_at: slot.config.updated_at.clone(),
            server_name,
            instructions,
            pages,
            tools,
        });
        // A list_changed that arrived while listing makes this list suspect: don't cache it.
        if slot.list_changes.load(Ordering::SeqCst) == changes_before {
            // A `ttlMs` above 0 (2026-07-28) bounds the cache; 0 or none
            // keeps it until the server says its list changed.
            *slot
                .fresh_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = ttl
                .filter(|ms| *ms > 0)
                .map(|ms| std::time::Instant::now() + Duration::from_millis(ms));
            slot.set_catalog(Some(Arc::clone(&catalog)));
        }
        Ok(catalog)
    }

    /// Drops the cached catalog of `id` (the next [`catalog`](Self::catalog) lists again).
    pub fn invalidate(&self, id: &str) {
        if let Ok(slot) = self.slot(id) {
            slot.set_catalog(None);
        }
    }

    /// The options the manager was made with.
    pub(crate) fn options(&self) -> &ManagerOptions {
        &self.options
    }

    /// Lists `id`'s tools again now.
    pub async fn refresh(&self, id: &str) -> Result<Arc<McpCatalog>, Error> {
        self.invalidate(id);
        self.catalog(id).await
    }

    /// Calls remote tool `name` on `id` with `arguments`. Dropping the
    /// returned future (a timeout, a cancellation) sends the server an MCP
    /// `notifications/cancelled` for the request.
    pub async fn call_tool(
        &self,
        id: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_with_events(id, name, arguments, Arc::new(Unheard))
            .await
    }

    /// [`call_tool`](Self::call_tool), with what the server reports while
    /// the call runs handed to `events`: its `notifications/progress` for
    /// this call (its request's `progressToken`), and
    /// its `notifications/message` log lines while the call is in flight
    /// (MCP does not tie log lines to a request: every call with events in
    /// flight on the server gets them). A long call can drive a progress
    /// bar this way; [`McpTool`](crate::McpTool) calls hand them to their
    /// context's events ([`ToolContext::with_events`](tool_core::ToolContext::with_events)).
    pub async fn call_tool_with_events(
        &self,
        id: &str,
        name: &str,
        arguments: Map<String, Value>,
        events: Arc<dyn tool_core::CallEvents>,
    ) -> Result<CallToolResult, Error> {
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        self.call_in_rounds(id, params, events, None, |rounds| match rounds {
            Rounds::Done(result) => Ok(result),
            // The hooks answer every question, so no call here ends asked.
            Rounds::Asked(_) => Err(ServiceError::UnexpectedResponse),
        })
        .await
    }

    /// A [`McpTool`](crate::McpTool) call: [`call_tool_with_events`](Self::call_tool_with_events)
    /// whose questions may wait ([`ManagerOptions::pending_questions`]),
    /// sent with `resumed` answers and request state when it is the resume
    /// of such a call.
    pub(crate) async fn call_tool_in_turn(
        &self,
        id: &str,
        name: &str,
        arguments: Map<String, Value>,
        events: Arc<dyn tool_core::CallEvents>,
        resumed: Option<crate::client::remote_pending::Resumed>,
        ctx: &tool_core::ToolContext,
    ) -> Result<Rounds, Error> {
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        if let Some(resumed) = resumed {
            params.input_responses = Some(resumed.responses);
            params.request_state = resumed.request_state;
        }
        self.call_in_rounds(id, params, events, Some(ctx), Ok).await
    }

    /// The one `tools/call` path of [`call_tool_with_events`](Self::call_tool_with_events)
    /// and [`call_tool_in_turn`](Self::call_tool_in_turn): `params` sent on
    /// `id`'s session, never re-sent, watched for timeouts; as a 2025-11-25
    /// task when the server wants one; else in `input_required` rounds
    /// answered for `ctx` (`None`: by the hooks; see
    /// [`ForTool`](crate::client::remote_pending::ForTool)), the task the
    /// server makes of it told to the call's events when there is a `ctx`
    /// ([`task_teller`](Self::task_teller)) and followed. `finish` makes
    /// the caller's answer of where the rounds ended.
    async fn call_in_rounds<T>(
        &self,
        id: &str,
        params: CallToolRequestParams,
        events: Arc<dyn tool_core::CallEvents>,
        ctx: Option<&tool_core::ToolContext>,
        finish: fn(Rounds) -> Result<T, ServiceError>,
    ) -> Result<T, Error> {
        let slot = self.enabled_slot(id)?;
        let in_flight = Arc::clone(&slot.in_flight);
        let watch = slot.watch_call(self.options.restart_after_timeouts);
        let result = self
            .with_session(&slot, "tools/call", Resend::Never, |session| {
                let (params, in_flight, events) =
                    (params.clone(), Arc::clone(&in_flight), Arc::clone(&events));
                let trace = self.trace(&slot, &session);
                let tell = ctx
                    .map(|ctx| self.task_teller(&slot.config, &params, ctx, Arc::clone(&events)));
                async move {
                    if crate::client::remote_tasks_2025::wanted(&session, &params.name) {
                        return crate::client::remote_tasks_2025::call_as_task(
                            session.peer(),
                            params,
                        )
                        .await
                        .map(Rounds::Done)
                        .and_then(finish);
                    }
                    let answerer = ForTool::new(session.hooks(), session.peer(), ctx);
                    call_rounds_telling_task(
                        session.peer(),
                        &answerer,
                        &in_flight,
                        params,
                        events,
                        &trace,
                        |task| {
                            if let Some(tell) = tell {
                                tell(task);
                            }
                        },
                    )
                    .await
                    .and_then(finish)
                }
            })
            .await;
        watch.answered();
        result
    }

    /// What the client spans of `session` record.
    pub(crate) fn trace(&self, slot: &Slot, session: &Session) -> ClientTrace {
        ClientTrace::new(
            Arc::clone(&self.options.propagator),
            match &slot.config.transport {
                McpTransport::Http { url, .. } => Some(url.as_str()),
                _ => None,
            },
            session.protocol_version(),
            session.session_id().as_deref(),
        )
    }

    /// Opens the session of `id` now (instead of on first use).
    pub async fn connect(&self, id: &str) -> Result<(), Error> {
        let slot = self.enabled_slot(id)?;
        self.session(&slot).await.map(|_| ())
    }

    /// Closes the session of `id` (a stdio server's process group is killed).
    pub async fn disconnect(&self, id: &str) {
        if let Ok(slot) = self.slot(id) {
            let _connecting = slot.connecting.lock().await;
            drop(slot.set_live(None));
        }
    }

    /// Closes every session.
    pub async fn shutdown(&self) {
        for id in self.ids() {
            self.disconnect(&id).await;
        }
    }

    /// What the manager knows about `id`.
    pub async fn status(&self, id: &str) -> Result<ServerStatus, Error> {
        let slot = self.slot(id)?;
        let session = slot
            .live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Ok(ServerStatus {
            id: id.to_owned(),
            enabled: slot.config.enabled,
            connected: session.as_ref().is_some_and(|s| !s.is_closed()),
            sessions_started: slot.sessions_started.load(Ordering::SeqCst),
            list_changes: slot.list_changes.load(Ordering::SeqCst),
            catalog_cached: slot.cached_catalog().is_some(),
            stderr: session.as_ref().map(|s| s.stderr()).unwrap_or_default(),
            protocol_version: session.and_then(|s| s.protocol_version()),
        })
    }

    /// The process id of a stdio server's live session (diagnostics, tests).
    pub async fn process_id(&self, id: &str) -> Option<u32> {
        let slot = self.slot(id).ok()?;
        let live = slot.live.read().unwrap_or_else(PoisonError::into_inner);
        live.as_ref().and_then(|s| s.process_id())
    }
}

/// Whether a request may be sent again on a new session when the one it
/// was sent on died before answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resend {
    /// Listing, reading: running it twice changes nothing.
    Idempotent,
    /// `tools/call`: a payment or a delete must not run twice.
    Never,
}

fn is_dead(error: &ServiceError) -> bool {
    matches!(
        error,
        ServiceError::TransportClosed | ServiceError::TransportSend(_)
    )
}

fn request_error(server: &str, operation: &str, error: &ServiceError, session: &Session) -> Error {
    if let Some((url, reason)) = session.refusal() {
        return Error::UrlRefused {
            server: server.to_owned(),
            url,
            reason,
        };
    }
    if is_dead(error) || session.is_closed() {
        Error::Disconnected {
            server: server.to_owned(),
            message: session.scrub(&error.to_string()),
            stderr: session.stderr(),
        }
    } else if let Some(limit) = too_large_limit(error) {
        Error::MessageTooLarge {
            server: server.to_owned(),
            operation: operation.to_owned(),
            limit,
        }
    } else {
        let message = match error {
            ServiceError::McpError(data) => data.message.to_string(),
            other => other.to_string(),
        };
        Error::Request {
            server: server.to_owned(),
            operation: operation.to_owned(),
            message: session.scrub(&message),
        }
    }
}

/// The limit, when `error` is the transport's stand-in for an answer over it.
fn too_large_limit(error: &ServiceError) -> Option<usize> {
    let ServiceError::McpError(data) = error else {
        return None;
    };
    let data = data.data.as_ref()?;
    if data.get("toolMcp")?.as_str()? != crate::client::stdio::TOO_LARGE_MARK {
        return None;
    }
    usize::try_from(data.get("limit")?.as_u64()?).ok()
}

/// Every page of `tools/list`: the tools, the number of pages and the
/// shortest `ttlMs` the pages gave.
async fn list_every_page(
    session: &Session,
) -> Result<(Vec<McpCatalogTool>, usize, Option<u64>), ServiceError> {
    let mut tools = Vec::new();
    let mut ttl: Option<u64> = None;
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for page in 1..=MAX_LIST_PAGES {
        let params = cursor.take().map(|c| {
            let mut params = PaginatedRequestParams::default();
            params.cursor = Some(c);
            params
        });
        let result = session.peer().list_tools(params).await?;
        if let Some(ms) = result.ttl_ms {
            ttl = Some(ttl.map_or(ms, |t| t.min(ms)));
        }
        // The transport read each tool's `execution` from the raw answer
        // before rmcp decoded it (rmcp's `Tool` has no such field).
        let listed = &session.hooks().listed;
        tools.extend(result.tools.into_iter().map(|tool| {
            let mut tool = McpCatalogTool::from_remote(tool);
            tool.execution = listed.execution(&tool.name);
            tool
        }));
        match result.next_cursor {
            Some(next) if !next.is_empty() => {
                if !seen.insert(next.clone()) {
                    return Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
                        format!(
                            "tools/list repeated cursor `{next}` (page {page}); the list never ends"
                        ),
                        None,
                    )));
                }
                cursor = Some(next);
            }
            _ => return Ok((tools, page, ttl)),
        }
    }
    Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
        format!("tools/list had more than {MAX_LIST_PAGES} pages"),
        None,
    )))
}
