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
//! state is the `structuredContent`). Tools are listed under their wire
//! names (`identifier____api`), or under their bare API names where those
//! resolve to the same API ([`RegistryServer::with_bare_names`]).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

#[allow(deprecated)]
// MCP logging: deprecated by rmcp for a later revision, current in 2025-11-25.
use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CallToolResponse, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, Implementation, InputResponses,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
    ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, PromptsCapability, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference,
    RequestParamsMeta, ResourcesCapability, ServerCapabilities, ServerConfig, ServerNotification,
    SetLevelRequestParams, SubscriptionFilter, ToolAnnotations,
};
use rmcp::model::{
    CancelTaskParams, GetTaskParams, GetTaskResult, TASKS_EXTENSION_ID, UpdateTaskParams,
};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, SubscriptionContext, SubscriptionSink,
};
use rmcp::task_manager::TaskContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::{
    Asker, Gate, HumanIntervention, InterventionPolicy, Invoker, LiveRegistry, OfferedTools,
    ToolCall, ToolContext, ToolRegistry,
};

use crate::client_input::{ClientCapability, ClientLine, Raced, Round, StateSeal, binding};
use crate::content::to_result;
use crate::error::Error;
use crate::gate::{ClientAsker, NoOneToAsk};
use crate::serve_talk::{SessionLog, served_events};
use crate::serve_tasks::{self, Escalation, Running, ServedTasks, TaskSupport, call_as_task};
use crate::served::{PromptSource, ResourceSource, SourceError, page_of};
use crate::trace::{SpanFields, TracePropagator, record_response, server_span};
use tracing::Instrument;

/// The browser origins `mcp serve` over HTTP accepts (any port).
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Tools per `tools/list` page unless [`RegistryServer::with_page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// What is served: a fixed registry, or one that changes while serving.
#[derive(Clone)]
enum Source {
    Fixed(Arc<ToolRegistry>),
    Live(LiveRegistry),
}

impl Source {
    fn offer(&self, ctx: &ToolContext) -> OfferedTools {
        match self {
            Self::Fixed(registry) => registry.offer(ctx),
            Self::Live(live) => live.offer(ctx),
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Fixed(registry) => registry.len(),
            Self::Live(live) => live.read(ToolRegistry::len),
        }
    }
}

struct Inner {
    registry: Source,
    /// Clients that completed the handshake (told of list changes).
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Open 2026-07-28 `subscriptions/listen` streams (told of list changes).
    listeners: Arc<Mutex<Vec<SubscriptionSink>>>,
    invoker: Invoker,
    ctx: ToolContext,
    gate: Arc<dyn Gate>,
    fallback: Option<Arc<dyn Asker>>,
    name: String,
    page_size: usize,
    bare_names: bool,
    resources: Option<Arc<dyn ResourceSource>>,
    prompts: Option<Arc<dyn PromptSource>>,
    /// Seals the `requestState` of 2026-07-28 multi-round-trip calls.
    seal: StateSeal,
    /// Reads the trace context of a call's `_meta` into its span.
    propagator: Arc<dyn TracePropagator>,
    /// The tools that run as tasks (SEP-2663), and their tasks.
    tasks: ServedTasks,
}

/// An MCP server over a registry. Cheap to clone (one per HTTP session).
#[derive(Clone)]
pub struct RegistryServer {
    inner: Arc<Inner>,
    /// This MCP session's `logging/setLevel` (a new one per HTTP session).
    log: Arc<SessionLog>,
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
                bare_names: false,
                resources: None,
                prompts: None,
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
            bare_names: shared.bare_names,
            resources: shared.resources.clone(),
            prompts: shared.prompts.clone(),
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
    fn for_new_session(&self) -> Self {
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
    /// remote dispatch). Replaces an earlier list.
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
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self
                .inner
                .peers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
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
        let running = self
            .serve(rmcp::transport::stdio())
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
    /// drive the server through the user's browser.
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
        axum::Router::new().nest_service("/mcp", service)
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

    /// One `tools/list` page: the tools from the cursor's offset on.
    fn page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let offered = self.inner.registry.offer(&self.inner.ctx);
        let generation = list_stamp(&offered);
        let total: usize = offered.tools().iter().map(|t| t.apis().count()).sum();
        let start = match cursor {
            None => 0,
            Some(cursor) => parse_cursor(cursor, generation, total)?,
        };
        let end = start.saturating_add(self.inner.page_size).min(total);
        let mut result =
            ListToolsResult::with_all_items(tools(&offered, start, end, self.inner.bare_names));
        if end < total {
            result.next_cursor = Some(format!("{generation}:{end}"));
        }
        Ok(result)
    }

    /// The line of a request to the client, and on 2026-07-28 its round
    /// (with the binding of its request state); `Err` when the request's
    /// `requestState` does not open.
    fn line_for(
        &self,
        context: &RequestContext<RoleServer>,
        bound: &Bound<'_>,
        escalation: Option<&Arc<Escalation>>,
    ) -> Result<(ClientLine, Option<Arc<Round>>), ErrorData> {
        let caps = context.client_capabilities().unwrap_or_default();
        if !serve_tasks::stateless(context) {
            return Ok((ClientLine::session(context.peer.clone(), caps), None));
        }
        let round = Round::open(
            &self.inner.seal,
            &bound.binding,
            bound.state,
            bound.responses.clone(),
        )?;
        let line = ClientLine::rounds(Arc::clone(&round), escalation.cloned(), caps);
        Ok((line, Some(round)))
    }

    /// A served call; in `task`, its asks wait in the task.
    async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        task: Option<TaskContext>,
    ) -> Result<CallToolResponse, ErrorData> {
        let inner = &self.inner;
        let bound = Bound {
            binding: binding("tools/call", &request.name, request.arguments.as_ref()),
            state: request.request_state.as_deref(),
            responses: request.input_responses.clone(),
        };
        // A tool that asks first may become a task mid-call (2026-07-28).
        let escalates = match task {
            Some(_) => None,
            None if serve_tasks::stateless(&context) => inner
                .tasks
                .escalates(&request.name, serve_tasks::declared(&context))
                .map(|support| (support, Escalation::new(), CancellationToken::new())),
            None => None,
        };
        let (line, round) = match task {
            Some(task) => (
                ClientLine::task(task, context.client_capabilities().unwrap_or_default()),
                None,
            ),
            None => self.line_for(&context, &bound, escalates.as_ref().map(|(_, e, _)| e))?,
        };
        let token = request
            .progress_token()
            .or_else(|| context.meta.get_progress_token());
        let log = if round.is_some() {
            Arc::new(SessionLog::for_request(context.meta.log_level()))
        } else {
            Arc::clone(&self.log)
        };
        let (events, forwarder) = served_events(context.peer.clone(), token, log, &request.name);
        // A call that may outlive its request has a cancellation of its
        // own, fired by the request's until it becomes a task.
        let cancellation = match &escalates {
            Some((_, _, stop)) => stop.clone(),
            None => context.ct.child_token(),
        };
        let ctx = inner
            .ctx
            .clone()
            .with_cancellation(cancellation)
            .with_events(events)
            .with_extension(line.clone());
        let offered = inner.registry.offer(&ctx);
        // An unknown tool is a bad request (-32602), not a tool's failure.
        if let Err(error) = offered.resolve(&request.name) {
            drop(ctx);
            forwarder.finish().await;
            return Err(ErrorData::invalid_params(
                error.to_string(),
                Some(json!({"name": request.name})),
            ));
        }
        let arguments = request
            .arguments
            .as_ref()
            .map(|a| Value::Object(a.clone()).to_string())
            .unwrap_or_default();
        let call = ToolCall::new(request.name.to_string(), arguments);
        let can_elicit = line.declares(ClientCapability::Elicitation)
            && context
                .client_capabilities()
                .and_then(|caps| caps.elicitation)
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let asker = ClientAsker {
            line: can_elicit.then(|| line.clone()),
            fallback: inner.fallback.clone(),
        };
        let invoker = if asker.can_ask() {
            inner
                .invoker
                .clone()
                .with_gate(Arc::clone(&inner.gate))
                .with_asker(Arc::new(asker))
        } else {
            inner
                .invoker
                .clone()
                .with_gate(Arc::new(NoOneToAsk(Arc::clone(&inner.gate))))
        };
        if let (Some((support, escalation, stop)), Some(round)) = (escalates, &round) {
            let running: Running = Box::pin(
                async move {
                    let output = invoker.invoke(&offered, &call, &ctx).await;
                    drop(ctx);
                    forwarder.finish().await;
                    to_result(output)
                }
                .in_current_span(),
            );
            return self
                .race_to_task(running, round, &bound, &context, support, escalation, stop)
                .await;
        }
        let invoked = invoker.invoke(&offered, &call, &ctx);
        let output = match &round {
            None => invoked.await,
            Some(round) => match round.race(&inner.seal, &bound.binding, invoked).await {
                Raced::Done(output) => output,
                Raced::Stopped(stopped) => {
                    drop(ctx);
                    forwarder.finish().await;
                    return stopped.map(CallToolResponse::InputRequired);
                }
            },
        };
        drop(ctx);
        forwarder.finish().await;
        Ok(to_result(output).into())
    }
}

impl RegistryServer {
    /// Runs the call of a tool that asks first until it ends, stops to
    /// ask (`input_required`) or says its long part starts (the task).
    #[allow(clippy::too_many_arguments)]
    async fn race_to_task(
        &self,
        mut running: Running,
        round: &Round,
        bound: &Bound<'_>,
        context: &RequestContext<RoleServer>,
        support: TaskSupport,
        escalation: Arc<Escalation>,
        stop: CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let seal = &self.inner.seal;
        let raced = round.race(seal, &bound.binding, async {
            tokio::select! {
                biased;
                result = &mut running => Some(result),
                () = escalation.asked() => None,
                () = context.ct.cancelled() => {
                    stop.cancel();
                    Some((&mut running).await)
                }
            }
        });
        match raced.await {
            Raced::Stopped(stopped) => stopped.map(CallToolResponse::InputRequired),
            Raced::Done(Some(result)) => Ok(match support {
                TaskSupport::Required => serve_tasks::completed(&self.inner.tasks, result),
                _ => result.into(),
            }),
            Raced::Done(None) => Ok(serve_tasks::escalate(
                &self.inner.tasks,
                escalation,
                stop,
                running,
            )),
        }
    }
}

/// A request's binding of its `requestState`, the state and the answers.
struct Bound<'a> {
    binding: Vec<u8>,
    state: Option<&'a str>,
    responses: Option<InputResponses>,
}

/// The served tools `start..end` (in offer order, one per API).
fn tools(offered: &OfferedTools, start: usize, end: usize, bare: bool) -> Vec<rmcp::model::Tool> {
    let mut tools = Vec::with_capacity(end.saturating_sub(start));
    let mut index = 0;
    for tool in offered.tools() {
        let manifest = tool.manifest();
        for (wire, api) in tool.apis() {
            let here = index;
            index += 1;
            if here < start {
                continue;
            }
            if here >= end {
                return tools;
            }
            let schema = match api.parameters_schema().into_owned() {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            let name = if bare
                && offered
                    .resolve(&api.name)
                    .is_ok_and(|resolved| resolved.wire_name == wire)
            {
                api.name.clone()
            } else {
                wire.to_owned()
            };
            let mut remote =
                rmcp::model::Tool::new(name, api.description.clone(), Arc::new(schema));
            if let Some(Value::Object(output)) = &api.output_schema {
                remote = remote.with_raw_output_schema(Arc::new(output.clone()));
            }
            if let Some(title) = &manifest.meta.title {
                remote = remote.with_title(format!("{title}: {}", api.name));
            }
            let policy = match manifest.intervention_for(&api.name) {
                Some(HumanIntervention::Policy(p)) => Some(*p),
                None => Some(InterventionPolicy::Never),
                _ => None,
            };
            if policy == Some(InterventionPolicy::Never) {
                let mut hints = ToolAnnotations::default();
                hints.destructive_hint = Some(false);
                remote = remote.with_annotations(hints);
            }
            tools.push(remote);
        }
    }
    tools
}

/// What a `tools/list` cursor is made for: a digest of the served names in
/// order. A registry rebuilt with the same tools (a `list_changed` that
/// changed nothing) keeps it, so paging goes on; a list that changed does
/// not, and its old cursors are refused.
fn list_stamp(offered: &OfferedTools) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same list gives the same stamp in every
    // process (cursors are not secrets; a forged one only pages).
    let mut hasher = std::hash::DefaultHasher::new();
    for tool in offered.tools() {
        for (wire, _) in tool.apis() {
            wire.hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// The offset a `tools/list` cursor (`stamp:offset`) points at.
fn parse_cursor(cursor: &str, generation: u64, total: usize) -> Result<usize, ErrorData> {
    let shown: String = cursor.chars().take(64).collect();
    let invalid = |why: &str| {
        ErrorData::invalid_params(
            format!("tools/list cursor `{shown}` {why}"),
            Some(json!({"cursor": shown})),
        )
    };
    let (made_at, offset) = cursor
        .split_once(':')
        .and_then(|(g, o)| Some((g.parse::<u64>().ok()?, o.parse::<usize>().ok()?)))
        .filter(|(g, o)| format!("{g}:{o}") == cursor)
        .ok_or_else(|| invalid("is not one this server handed out"))?;
    if made_at != generation {
        return Err(invalid(
            "is from before the tool list changed; list again from the start",
        ));
    }
    if offset == 0 || offset >= total {
        return Err(invalid("is past the end of the tool list"));
    }
    Ok(offset)
}

impl ServerHandler for RegistryServer {
    #[allow(deprecated)] // `logging`: see the import.
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = match self.inner.registry {
            Source::Fixed(_) => ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .build(),
            Source::Live(_) => ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        };
        if self.inner.resources.is_some() {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        if self.inner.prompts.is_some() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if self.inner.prompts.is_some() || self.inner.resources.is_some() {
            capabilities.completions = Some(Map::new());
        }
        if self.inner.tasks.offered() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Map::new());
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.inner.name.clone(),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self
            .inner
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Only tool list changes are ever sent (a live registry's); rmcp
        // keeps what was both asked for and declared.
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sink);
        context.cancelled().await;
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|s| *s.id() != id);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.page(request.as_ref().and_then(|r| r.cursor.as_deref()))
    }

    #[allow(deprecated)] // `logging/setLevel`: see the import.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (span, own) = server_span(&*self.inner.propagator, &request.name, &context);
        let server = self.clone();
        let run = move |request, context, task| async move {
            server.run_call(request, context, Some(task)).await
        };
        if let Some(response) = call_as_task(&self.inner.tasks, &request, &context, run) {
            record_response(&span, &response);
            return response;
        }
        let call = self.run_call(request, context, None);
        let recorded = span.clone();
        async move {
            let response = match own {
                Some(own) => own.scope(call).await,
                None => call.await,
            };
            record_response(&recorded, &response);
            response
        }
        .instrument(span)
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        serve_tasks::get(&self.inner.tasks, &request)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        serve_tasks::update(&self.inner.tasks, request)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        serve_tasks::cancel(&self.inner.tasks, &request)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<ListResourcesRequestMethod>());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of("resources/list", all, cursor, self.inner.page_size)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<
                ListResourceTemplatesRequestMethod,
            >());
        };
        let all = source.templates().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of(
            "resources/templates/list",
            all,
            cursor,
            self.inner.page_size,
        )?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(source) = &self.inner.resources else {
            return Err(ErrorData::method_not_found::<ReadResourceRequestMethod>());
        };
        let contents = source
            .read(&request.uri)
            .await
            .map_err(SourceError::into_mcp)?;
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let Some(source) = &self.inner.prompts else {
            return Err(ErrorData::method_not_found::<ListPromptsRequestMethod>());
        };
        let all = source.list().await.map_err(SourceError::into_mcp)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = page_of("prompts/list", all, cursor, self.inner.page_size)?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(source) = &self.inner.prompts else {
            return Err(ErrorData::method_not_found::<GetPromptRequestMethod>());
        };
        let bound = Bound {
            binding: binding("prompts/get", &request.name, request.arguments.as_ref()),
            state: request.request_state.as_deref(),
            responses: request.input_responses.clone(),
        };
        let (line, round) = self.line_for(&context, &bound, None)?;
        let ctx = self
            .inner
            .ctx
            .clone()
            .with_cancellation(context.ct.child_token())
            .with_extension(line.clone());
        let arguments = request.arguments.clone().unwrap_or_default();
        let rendered = source.get_asking(&request.name, &arguments, &line, &ctx);
        let result = match &round {
            None => rendered.await,
            Some(round) => match round.race(&self.inner.seal, &bound.binding, rendered).await {
                Raced::Done(result) => result,
                Raced::Stopped(stopped) => return stopped.map(GetPromptResponse::InputRequired),
            },
        };
        result.map(Into::into).map_err(SourceError::into_mcp)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let resolved: Map<String, Value> = request
            .context
            .and_then(|c| c.arguments)
            .map(|chosen| {
                chosen
                    .into_iter()
                    .map(|(name, value)| (name, Value::String(value)))
                    .collect()
            })
            .unwrap_or_default();
        let ArgumentInfo { name, value, .. } = &request.argument;
        let values = match &request.r#ref {
            Reference::Prompt(prompt) => match &self.inner.prompts {
                Some(source) => source.complete(&prompt.name, name, value, &resolved).await,
                None => return Err(ErrorData::method_not_found::<CompleteRequestMethod>()),
            },
            Reference::Resource(template) => match &self.inner.resources {
                Some(source) => source.complete(&template.uri, name, value, &resolved).await,
                None => return Err(ErrorData::method_not_found::<CompleteRequestMethod>()),
            },
            _ => {
                return Err(ErrorData::invalid_params(
                    "completion/complete: only prompt and resource template references are completed",
                    None,
                ));
            }
        };
        let mut values = values.map_err(SourceError::into_mcp)?;
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let total_sent = u32::try_from(total).ok();
        let completion =
            CompletionInfo::with_pagination(values, total_sent, total > CompletionInfo::MAX_VALUES)
                .map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;
    use proptest::prelude::*;

    #[test]
    fn cursors_point_inside_the_list_they_were_made_for() {
        assert_eq!(parse_cursor("7:40", 7, 250).unwrap(), 40);
        assert_eq!(parse_cursor("7:249", 7, 250).unwrap(), 249);
        for (cursor, why) in [
            ("6:40", "before the tool list changed"),
            ("7:250", "past the end"),
            ("7:0", "past the end"),
            ("7:-1", "not one this server"),
            ("7", "not one this server"),
            ("", "not one this server"),
            (":40", "not one this server"),
            ("7:40:1", "not one this server"),
            ("+7:40", "not one this server"),
            ("7:040", "not one this server"),
            ("7:99999999999999999999999", "not one this server"),
        ] {
            let error = parse_cursor(cursor, 7, 250).unwrap_err();
            assert!(error.message.contains(why), "{cursor}: {}", error.message);
        }
        let long = "x".repeat(10_000);
        let error = parse_cursor(&long, 7, 250).unwrap_err();
        assert!(
            error.message.len() < 200,
            "a huge cursor is not echoed whole"
        );
    }

    proptest! {
        #[test]
        fn only_handed_out_cursors_parse(cursor in ".{0,40}", generation in 0u64..4, total in 0usize..300) {
            if let Ok(offset) = parse_cursor(&cursor, generation, total) {
                prop_assert!(offset > 0 && offset < total);
                prop_assert_eq!(cursor, format!("{generation}:{offset}"));
            }
        }
    }
}
