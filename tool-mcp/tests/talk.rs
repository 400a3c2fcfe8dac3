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
//! and bare names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(deprecated)] // MCP logging types: deprecated by rmcp for a later revision.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, Implementation,
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ServerResult,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::{
    ApiDefinition, CallEvents, Elicitation, Invoker, LogLevel, Progress, ToolBuilder, ToolCall,
    ToolContext, ToolOutput, ToolRegistry,
};
use tool_mcp::{
    ElicitationHandler, Elicited, ManagerOptions, McpManager, McpProvider, RegistryServer,
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
        .upsert(common::everything_stdio("everything"))
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
    let server = RegistryServer::new(
        Arc::new(talking_registry()),
        Arc::new(RunEverything),
        ToolContext::new(),
    )
    .with_bare_names(true);
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
