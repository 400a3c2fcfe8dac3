//! Tools that talk while they run, both ways over MCP.
//!
//! Client side, against server-everything (stdio): a long remote call's
//! `notifications/progress` and the server's log lines reach the host's
//! `CallEvents` through the calling context, and the server's
//! `elicitation/create` reaches the host's handler with its schema as sent.
//!
//! Serving side, an rmcp client against `RegistryServer` on 127.0.0.1: a
//! served tool's `ctx.progress` arrives as `notifications/progress` for
//! the request's token, `ctx.log` as `notifications/message` honouring
//! `logging/setLevel`, `ctx.elicit` as `elicitation/create` with the
//! SEP-1330 / SEP-1034 forms intact, and `tools/list` gives `outputSchema`
//! and bare names. On 2026-07-28 (a stateless client): the same question,
//! and the host's approval asks, come back as `input_required` with a
//! sealed `requestState`; calling again with the answers completes; a state
//! altered, replayed for other arguments or another tool, or made by
//! another server is refused before anything runs; an ask for a capability
//! the client did not declare fails with -32021.
#![allow(deprecated)] // MCP logging types: deprecated by rmcp for a later revision.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
    ClientRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    Implementation, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProtocolVersion, ServerResult, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::{
    ApiDefinition, CallEvents, Elicitation, Gate, GateDecision, Invoker, LogLevel, OfferedTools,
    Progress, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry, pipeline::PreparedCall,
};
use tool_mcp::{
    ClientAsk, ClientCapability, ClientLine, ElicitationHandler, Elicited, ManagerOptions,
    McpManager, McpProtocol, McpProvider, McpServerConfig, McpTransport, RegistryServer,
    RunEverything,
};

/// The host's events: what a call reported.
#[derive(Default)]
struct Recorded {
    progress: Mutex<Vec<Progress>>,
    logs: Mutex<Vec<(LogLevel, String)>>,
}

impl CallEvents for Recorded {
    fn progress(&self, _: Option<&str>, progress: &Progress) {
        self.progress.lock().unwrap().push(progress.clone());
    }

    fn log(&self, _: Option<&str>, level: LogLevel, message: &str, _: Option<&Value>) {
        self.logs.lock().unwrap().push((level, message.to_owned()));
    }
}

/// The host's user: records the schema, answers with a name.
#[derive(Default)]
struct User {
    schemas: Mutex<Vec<Value>>,
}

#[async_trait]
impl ElicitationHandler for User {
    async fn elicit(&self, _server: &str, _message: &str, schema: &Value) -> Elicited {
        self.schemas.lock().unwrap().push(schema.clone());
        Elicited::Accept(json!({"name": "Ada Lovelace"}))
    }
}

async fn everything(user: Arc<User>) -> (Arc<McpManager>, ToolRegistry) {
    let manager = Arc::new(McpManager::new(
        ManagerOptions::default().elicitation(user as Arc<dyn ElicitationHandler>),
    ));
    manager
        .upsert(crate::common::everything_stdio("everything"))
        .unwrap();
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    assert_eq!(load.failures().count(), 0, "{load:?}");
    // One line, and no name rules to know: MCP tools declare theirs
    // (server-everything's names such as `get-tiny-image` are foreign).
    let mut registry = ToolRegistry::new();
    let Ok(tools) = load.into_partial().into_complete() else {
        panic!("every server loads");
    };
    let registered = registry.register_all(tools);
    assert!(registered.is_complete(), "{:?}", registered.failed());
    (manager, registry)
}

/// Waits up to 2 s for `done` (rmcp hands notifications to handlers on
/// tasks of their own, so one may be handled just after the answer).
async fn wait_for(done: impl Fn() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(done(), "not within 2 s");
}

async fn invoke(registry: &ToolRegistry, ctx: &ToolContext, api: &str, args: &str) -> ToolOutput {
    let offered = registry.offer(ctx);
    let wire = offered
        .resolve_pair("everything", api)
        .unwrap()
        .wire_name
        .to_owned();
    Invoker::default()
        .invoke(&offered, &ToolCall::new(wire, args), ctx)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_remote_call_drives_the_hosts_progress_and_gets_the_servers_log_lines() {
    let (manager, registry) = everything(Arc::default()).await;
    let events = Arc::new(Recorded::default());
    let ctx = ToolContext::new().with_events(Arc::clone(&events) as Arc<dyn CallEvents>);
    // Logs every 5 s from now on; the 6 s operation below is in flight for one.
    let toggled = invoke(
        &registry,
        &ToolContext::new(),
        "toggle-simulated-logging",
        "{}",
    )
    .await;
    assert!(toggled.success, "{toggled:?}");
    let output = invoke(
        &registry,
        &ctx,
        "trigger-long-running-operation",
        r#"{"duration": 6, "steps": 3}"#,
    )
    .await;
    assert!(output.success, "{output:?}");
    let steps = || -> Vec<(f64, Option<f64>)> {
        let progress = events.progress.lock().unwrap();
        progress.iter().map(|p| (p.progress, p.total)).collect()
    };
    assert!(
        steps().starts_with(&[(1.0, Some(3.0)), (2.0, Some(3.0))]),
        "the steps before the last came during the call: {:?}",
        steps()
    );
    // The last one, sent just before the answer, may be handled just after it.
    wait_for(|| steps().len() == 3).await;
    assert_eq!(steps()[2], (3.0, Some(3.0)), "every step, in order");
    let logs = events.logs.lock().unwrap().clone();
    assert!(
        // server-everything picks one of eight lines at random, spelled
        // `Debug-level message` … and once `Alert level-message`.
        logs.iter()
            .any(|(_, line)| line.contains("level") && line.contains("message")),
        "the server's simulated log line arrived during the call: {logs:?}"
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_elicitation_reaches_the_hosts_handler_with_its_enum_forms() {
    let user = Arc::new(User::default());
    let (manager, registry) = everything(Arc::clone(&user)).await;
    let output = invoke(
        &registry,
        &ToolContext::new(),
        "trigger-elicitation-request",
        "{}",
    )
    .await;
    assert!(output.success, "{output:?}");
    assert!(
        output.content.contains("Ada Lovelace"),
        "the answer went back: {}",
        output.content
    );
    let schemas = user.schemas.lock().unwrap().clone();
    let properties = &schemas[0]["properties"];
    let kinds: Vec<&str> = properties
        .as_object()
        .unwrap()
        .values()
        .filter_map(|p| {
            Some(if p.get("oneOf").is_some() {
                "titled"
            } else if p.get("enum").is_some() {
                "enum"
            } else if p["type"] == "array" {
                "multi"
            } else {
                return None;
            })
        })
        .collect();
    for kind in ["titled", "enum", "multi"] {
        assert!(kinds.contains(&kind), "{kind} form kept: {properties:#}");
    }
    manager.shutdown().await;
}

/// An rmcp client recording what the served calls said.
#[derive(Clone, Default)]
struct Observer {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Observer {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        {
            self.asked
                .lock()
                .unwrap()
                .push(serde_json::to_value(requested_schema).unwrap());
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"branch": "dev"})))
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(ElicitationCapability::new());
        ClientConfig::new(capabilities, Implementation::new("observer", "1"))
    }
}

fn talking_registry() -> ToolRegistry {
    let question = json!({"type": "object", "properties": {
        "branch": {"type": "string", "default": "main"},
        "mode": {"type": "string", "oneOf": [
            {"const": "fast", "title": "Fast"}, {"const": "safe", "title": "Safe"}]},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
        "tags": {"type": "array", "items": {"anyOf": [
            {"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}}
    }});
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("build")
                .api(
                    ApiDefinition::new("run", "Builds, saying how far it got.")
                        .with_output_schema(json!({"type": "object", "properties": {
                            "branch": {"type": "string"}}})),
                    move |_, ctx| {
                        let question = question.clone();
                        async move {
                            ctx.log(LogLevel::Debug, "starting");
                            ctx.progress(Progress::of(1.0, 2.0).with_message("compiling"));
                            ctx.log(LogLevel::Warning, "slow disk");
                            let answer = ctx
                                .elicit(Elicitation::new("Which branch?", question))
                                .await;
                            ctx.progress(Progress::of(2.0, 2.0));
                            let branch = match answer {
                                tool_core::Elicited::Accept(v) => v["branch"].clone(),
                                other => json!(format!("{other:?}")),
                            };
                            Ok(ToolOutput::with_state("built", json!({"branch": branch})))
                        }
                    },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_tool_talks_to_the_mcp_client_while_it_runs() {
    let server = crate::common::served(talking_registry()).with_bare_names(true);
    let stop = CancellationToken::new();
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    let observer = Observer::default();
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = observer.clone().serve(transport).await.unwrap();

    let listed = client.peer().list_all_tools().await.unwrap();
    assert_eq!(listed[0].name, "run", "bare name: no other tool has `run`");
    assert_eq!(
        listed[0]
            .output_schema
            .as_deref()
            .map(|s| Value::Object(s.clone())),
        Some(json!({"type": "object", "properties": {"branch": {"type": "string"}}}))
    );

    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    // rmcp's client gives every request its own progress token.
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("run")));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let answer = tokio::time::timeout(Duration::from_secs(20), handle.await_response())
        .await
        .unwrap()
        .unwrap();
    let ServerResult::CallToolResult(result) = answer else {
        panic!("{answer:?}");
    };
    assert_eq!(result.structured_content, Some(json!({"branch": "dev"})));

    // The server sends both before the result; rmcp's client handles
    // notifications on tasks of their own, so they may be handled after it.
    wait_for(|| observer.progress.lock().unwrap().len() == 2).await;
    wait_for(|| !observer.logs.lock().unwrap().is_empty()).await;
    let progress = observer.progress.lock().unwrap().clone();
    assert!(progress.iter().all(|p| p.progress_token == token));
    assert_eq!(progress[0].message.as_deref(), Some("compiling"));
    assert_eq!((progress[1].progress, progress[1].total), (2.0, Some(2.0)));

    let logs = observer.logs.lock().unwrap().clone();
    let lines: Vec<(LoggingLevel, Value)> =
        logs.iter().map(|l| (l.level, l.data.clone())).collect();
    assert_eq!(
        lines,
        [(LoggingLevel::Warning, json!("slow disk"))],
        "the debug line is under the level the client set"
    );
    assert_eq!(logs[0].logger.as_deref(), Some("run"));

    let asked = observer.asked.lock().unwrap().clone();
    let properties = &asked[0]["properties"];
    assert_eq!(properties["branch"]["default"], "main", "SEP-1034 default");
    assert_eq!(
        properties["mode"]["oneOf"][1]["title"], "Safe",
        "SEP-1330 titled"
    );
    assert_eq!(
        properties["legacy"]["enumNames"][0], "A",
        "legacy enumNames"
    );
    assert_eq!(
        properties["tags"]["items"]["anyOf"][0]["const"], "x",
        "multi-select"
    );

    let by_wire_name = client
        .peer()
        .call_tool(CallToolRequestParams::new("build____run"))
        .await
        .unwrap();
    assert_eq!(by_wire_name.is_error, Some(false), "wire names still call");
    let _ = client.cancel().await;
    stop.cancel();
}

// --- 2026-07-28: no server→client requests; asks come back as
// `input_required` and the client calls again (multi-round-trip, SEP-2322).

/// A 2026-07-28 client (`server/discover`, per-request `_meta`) of `server`
/// served on 127.0.0.1, declaring elicitation (the [`Observer`]).
async fn stateless_client(
    server: RegistryServer,
) -> (
    rmcp::service::RunningService<RoleClient, Observer>,
    Observer,
    CancellationToken,
) {
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let observer = Observer::default();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let client = observer
        .clone()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    (client, observer, stop)
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_2026_07_28_a_served_tools_question_comes_back_as_input_required_and_the_call_again_completes()
 {
    let server = crate::common::served(talking_registry()).with_bare_names(true);
    let (client, observer, stop) = stateless_client(server).await;

    let CallToolResponse::InputRequired(asked) = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("run"))
        .await
        .unwrap()
    else {
        panic!("the question must come back as input_required");
    };
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicitation-1"]);
    let question = serde_json::to_value(&requests["elicitation-1"]).unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Which branch?");
    assert_eq!(
        question["params"]["requestedSchema"]["properties"]["branch"]["default"], "main",
        "the tool's schema is asked as it is"
    );
    let state = asked.request_state.clone().unwrap();

    let again = CallToolRequestParams::new("run")
        .with_input_responses(
            [("elicitation-1".to_owned(), accept(json!({"branch": "dev"})))].into(),
        )
        .with_request_state(state);
    let CallToolResponse::Complete(done) = client.peer().call_tool_once(again).await.unwrap()
    else {
        panic!("answered, the call completes");
    };
    assert_eq!(done.structured_content, Some(json!({"branch": "dev"})));

    // rmcp's own round driver answers through the client's elicitation
    // handler and calls again: the same outcome without a session.
    let driven = client
        .call_tool(CallToolRequestParams::new("run"))
        .await
        .unwrap();
    assert_eq!(driven.structured_content, Some(json!({"branch": "dev"})));
    assert_eq!(observer.asked.lock().unwrap().len(), 1);
    client.cancel().await.unwrap();
    stop.cancel();
}

/// A registry whose `ask` API asks one question and counts the runs that
/// got past it.
fn counting_registry(ran: Arc<AtomicUsize>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("guarded")
                .api(
                    ApiDefinition::new("ask", "Asks, then acts.").with_parameters(
                        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
                    ),
                    move |args, ctx| {
                        let ran = Arc::clone(&ran);
                        async move {
                            let answer = ctx
                                .elicit(Elicitation::new(
                                    "Go on?",
                                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                                ))
                                .await;
                            ran.fetch_add(1, Ordering::SeqCst);
                            Ok(ToolOutput::text(format!("{args} {answer:?}")))
                        }
                    },
                )
                .api(
                    ApiDefinition::new("other", "Asks the same, elsewhere."),
                    |_, ctx| async move {
                        let answer = ctx
                            .elicit(Elicitation::new(
                                "Go on?",
                                json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                            ))
                            .await;
                        Ok(ToolOutput::text(format!("other {answer:?}")))
                    },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

fn ask_with(n: i64) -> CallToolRequestParams {
    CallToolRequestParams::new("ask").with_arguments(json!({"n": n}).as_object().cloned().unwrap())
}

async fn first_state(
    client: &rmcp::service::RunningService<RoleClient, Observer>,
    params: CallToolRequestParams,
) -> String {
    match client.peer().call_tool_once(params).await.unwrap() {
        CallToolResponse::InputRequired(asked) => asked.request_state.unwrap(),
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn refused_code(result: Result<CallToolResponse, rmcp::ServiceError>) -> i32 {
    match result {
        Err(rmcp::ServiceError::McpError(error)) => error.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_altered_or_made_for_another_call_is_refused_and_nothing_runs() {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = crate::common::served(counting_registry(Arc::clone(&ran))).with_bare_names(true);
    let (client, _observer, stop) = stateless_client(server).await;
    let state = first_state(&client, ask_with(1)).await;
    let answered = |params: CallToolRequestParams, state: &str| {
        params
            .with_input_responses(
                [("elicitation-1".to_owned(), accept(json!({"ok": true})))].into(),
            )
            .with_request_state(state.to_owned())
    };

    let mut flipped: Vec<char> = state.chars().collect();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == 'A' { 'B' } else { 'A' };
    let flipped: String = flipped.into_iter().collect();
    let other_state = first_state(&client, CallToolRequestParams::new("other")).await;
    // Another server (another key) handed this one out.
    let (stranger, _o, stranger_stop) = stateless_client(
        RegistryServer::new(
            Arc::new(counting_registry(Arc::new(AtomicUsize::new(0)))),
            Arc::new(RunEverything),
            ToolContext::new(),
        )
        .with_bare_names(true),
    )
    .await;
    let foreign = first_state(&stranger, ask_with(1)).await;
    let attacks: Vec<(&str, CallToolRequestParams)> = vec![
        (
            "appended",
            answered(ask_with(1), &format!("{state}-TAMPERED")),
        ),
        ("one character changed", answered(ask_with(1), &flipped)),
        ("other arguments", answered(ask_with(2), &state)),
        ("other tool's state", answered(ask_with(1), &other_state)),
        ("another server's state", answered(ask_with(1), &foreign)),
        ("empty", answered(ask_with(1), "")),
        ("forged format", answered(ask_with(1), "rs2.AAAA.BBBB.CCCC")),
    ];
    for (attack, params) in attacks {
        let code = refused_code(client.peer().call_tool_once(params).await);
        assert_eq!(code, -32602, "{attack}: invalid_params");
    }
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "no refused state ran the tool"
    );

    // The state as handed out, for the call it was made for, runs it once.
    let done = client
        .peer()
        .call_tool_once(answered(ask_with(1), &state))
        .await
        .unwrap();
    assert!(matches!(done, CallToolResponse::Complete(_)), "{done:?}");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    // An answer that is not an elicitation result is refused, not run.
    let bad = ask_with(1).with_input_responses([("elicitation-1".to_owned(), json!(12345))].into());
    assert_eq!(
        refused_code(client.peer().call_tool_once(bad).await),
        -32602
    );
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
    stranger.cancel().await.unwrap();
    stop.cancel();
    stranger_stop.cancel();
}

/// A gate that asks about every call.
struct AskEverything;

#[async_trait]
impl Gate for AskEverything {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|_| GateDecision::ask("every call is asked"))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_2026_07_28_an_approval_is_asked_by_input_required_and_a_decline_does_not_run() {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = RegistryServer::new(
        Arc::new(counting_registry(Arc::clone(&ran))),
        Arc::new(AskEverything),
        ToolContext::new(),
    )
    .with_bare_names(true);
    let (client, _observer, stop) = stateless_client(server).await;
    let CallToolResponse::InputRequired(asked) =
        client.peer().call_tool_once(ask_with(7)).await.unwrap()
    else {
        panic!("the approval comes back as input_required");
    };
    let requests = asked.input_requests.unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["approval-1"]);
    let message = serde_json::to_value(&requests["approval-1"]).unwrap()["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains(r#"{"n":7}"#),
        "the arguments are shown: {message}"
    );
    let state = asked.request_state.unwrap();

    let declined = ask_with(7)
        .with_input_responses([("approval-1".to_owned(), json!({"action": "decline"}))].into())
        .with_request_state(state.clone());
    let CallToolResponse::Complete(result) = client.peer().call_tool_once(declined).await.unwrap()
    else {
        panic!("a decline completes the call");
    };
    assert_eq!(result.is_error, Some(true));
    assert_eq!(ran.load(Ordering::SeqCst), 0);

    // Approved, the tool runs and asks its own question next.
    let approved = ask_with(7)
        .with_input_responses([("approval-1".to_owned(), accept(json!({})))].into())
        .with_request_state(state);
    let CallToolResponse::InputRequired(next) =
        client.peer().call_tool_once(approved).await.unwrap()
    else {
        panic!("the tool's own question follows");
    };
    assert_eq!(
        next.input_requests.unwrap().keys().collect::<Vec<_>>(),
        ["elicitation-2"]
    );
    let last = ask_with(7)
        .with_input_responses([("elicitation-2".to_owned(), accept(json!({"ok": true})))].into())
        .with_request_state(next.request_state.unwrap());
    let CallToolResponse::Complete(result) = client.peer().call_tool_once(last).await.unwrap()
    else {
        panic!("both answered, the call completes");
    };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_2026_07_28_a_call_needing_an_undeclared_client_capability_fails_with_32021() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("writer")
                .api(
                    ApiDefinition::new("draft", "Drafts with the client's model."),
                    |_, ctx| async move {
                        let line = ClientLine::of(&ctx).unwrap();
                        assert!(line.is_multi_round_trip());
                        assert!(!line.declares(ClientCapability::Sampling));
                        let params = rmcp::model::CreateMessageRequestParams::new(
                            vec![rmcp::model::SamplingMessage::user_text("Draft it.")],
                            50,
                        );
                        let reply = line
                            .ask("draft", ClientAsk::Sample(Box::new(params)), &ctx)
                            .await;
                        Ok(ToolOutput::text(format!("{reply:?}")))
                    },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let server = crate::common::served(registry).with_bare_names(true);
    let (client, _observer, stop) = stateless_client(server).await;
    match client
        .peer()
        .call_tool_once(CallToolRequestParams::new("draft"))
        .await
    {
        Err(rmcp::ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32021);
            let data = error.data.unwrap();
            assert!(
                data["requiredCapabilities"]["sampling"].is_object(),
                "{data}"
            );
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    client.cancel().await.unwrap();
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_answers_a_2026_07_28_servers_questions_through_the_hosts_handler_and_calls_again()
 {
    let server = crate::common::served(talking_registry()).with_bare_names(true);
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let user = Arc::new(User::default());
    let manager = McpManager::new(
        ManagerOptions::default().elicitation(Arc::clone(&user) as Arc<dyn ElicitationHandler>),
    );
    // Auto (the default) finds 2026-07-28 by `server/discover`.
    manager
        .upsert(McpServerConfig::new(
            "current",
            McpTransport::http(url.clone()),
        ))
        .unwrap();
    // Pinned to 2025-11-25: the same call by a session and `elicitation/create`.
    manager
        .upsert(
            McpServerConfig::new("legacy", McpTransport::http(url.clone()))
                .with_protocol(McpProtocol::V2025_11_25),
        )
        .unwrap();
    for server in ["current", "legacy"] {
        let result = manager
            .call_tool(server, "run", Default::default())
            .await
            .unwrap();
        assert_eq!(
            result.structured_content,
            Some(json!({"branch": "main"})),
            "{server}: the host's answer left `branch` out; its default is filled in (SEP-1034)"
        );
    }
    let schemas = user.schemas.lock().unwrap().clone();
    assert_eq!(schemas.len(), 2, "asked once per call: {schemas:?}");
    assert_eq!(schemas[0], schemas[1], "the same question both ways");
    assert_eq!(schemas[0]["properties"]["branch"]["default"], "main");
    manager.shutdown().await;
    stop.cancel();
}
