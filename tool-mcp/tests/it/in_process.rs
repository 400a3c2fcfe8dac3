//! Pagination, list_changed and the serving side against in-process rmcp
//! servers on 127.0.0.1.
#![allow(clippy::field_reassign_with_default)]

mod task_client;
mod tasks;
mod traces;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Confinement, ErrorCode, Gate, GateDecision, OfferedTools,
    ToolBuilder, ToolContext, ToolError, ToolOutput, ToolRegistry, pipeline::PreparedCall,
};
use tool_mcp::{
    ElicitationHandler, Elicited, ManagerOptions, McpManager, McpServerConfig, McpTransport,
    RegistryServer,
};

/// Lists `total` tools, `per_page` at a time; the `grow` tool adds one and
/// notifies list_changed.
#[derive(Clone)]
struct Paged {
    total: Arc<AtomicUsize>,
    per_page: usize,
}

impl ServerHandler for Paged {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .map(|c| c.parse().unwrap())
            .unwrap_or(0);
        let total = self.total.load(Ordering::SeqCst);
        let end = (start + self.per_page).min(total);
        let mut result = ListToolsResult::default();
        result.tools = (start..end)
            .map(|i| {
                let name = if i == 0 {
                    "grow".to_owned()
                } else {
                    format!("tool.{i}")
                };
                rmcp::model::Tool::new(name, "a tool", Arc::new(serde_json::Map::new()))
            })
            .collect();
        result.next_cursor = (end < total).then(|| end.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "grow" {
            self.total.fetch_add(1, Ordering::SeqCst);
            context.peer.notify_tool_list_changed().await.unwrap();
        }
        Ok(
            CallToolResult::success(vec![ContentBlock::text(format!("called {}", request.name))])
                .into(),
        )
    }
}

async fn serve_router(router: axum::Router) -> (String, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let ct = CancellationToken::new();
    let stop = ct.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await;
    });
    (format!("http://{addr}/mcp"), ct)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_follows_every_page_and_list_changed_invalidates_the_catalog() {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let server = Paged {
        total: Arc::new(AtomicUsize::new(23)),
        per_page: 5,
    };
    let service: StreamableHttpService<Paged, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(server.clone()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let (url, stop) = serve_router(axum::Router::new().nest_service("/mcp", service)).await;
    let manager = Arc::new(McpManager::default());
    manager
        .upsert(McpServerConfig::new("paged", McpTransport::http(url)))
        .unwrap();
    let catalog = manager.catalog("paged").await.unwrap();
    assert_eq!(catalog.tools.len(), 23);
    assert_eq!(catalog.pages, 5);
    assert_eq!(catalog.tools[22].name, "tool.22");

    // Names with dots go through foreign naming and wire names.
    let registry = crate::common::registry_of(&manager).await;
    let out = crate::common::call(&registry, "paged", "tool.7", "{}").await;
    assert_eq!(out.content, "called tool.7");

    let grown = crate::common::call(&registry, "paged", "grow", "{}").await;
    assert!(grown.success);
    let mut invalidated = false;
    for _ in 0..50 {
        let status = manager.status("paged").await.unwrap();
        if status.list_changes >= 1 && !status.catalog_cached {
            invalidated = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(invalidated, "list_changed dropped the cached catalog");
    let fresh = manager.catalog("paged").await.unwrap();
    assert_eq!(fresh.tools.len(), 24, "a fresh list, not rmcp's cached one");
    stop.cancel();
}

/// Asks for `note____write` (confined read-only once approved), blocks
/// `note____erase`, runs the rest under `workspace_write`.
struct TestGate;

#[async_trait]
impl Gate for TestGate {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|call| match call.api.as_str() {
                "write" => {
                    GateDecision::ask("notes need a yes").with_confinement(Confinement::read_only())
                }
                "erase" => GateDecision::block("erasing is never allowed").with_rule("no-erase"),
                _ => GateDecision::run().with_confinement(Confinement::workspace_write()),
            })
            .collect()
    }
}

/// The host's own asker, for clients without elicitation.
struct HostAsker {
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl Asker for HostAsker {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        let mut asked = self.asked.lock().unwrap();
        asks.iter()
            .map(|ask| {
                asked.push(ask.call.wire_name.clone());
                Answer::approve()
            })
            .collect()
    }
}

struct Answers {
    accept: bool,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl ElicitationHandler for Answers {
    async fn elicit(&self, _server: &str, message: &str, _schema: &Value) -> Elicited {
        self.asked.lock().unwrap().push(message.to_owned());
        if self.accept {
            Elicited::Accept(json!({}))
        } else {
            Elicited::Decline
        }
    }
}

fn note_registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let params =
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    registry
        .register(
            ToolBuilder::new("note")
                .api(
                    ApiDefinition::new("read", "Reads.")
                        .with_parameters(json!({"type":"object","properties":{}})),
                    |_, ctx| async move {
                        let confinement = ctx.extension::<Confinement>().map(Confinement::name);
                        Ok(ToolOutput::with_state(
                            "the note",
                            json!({"lines": 1, "confinement": confinement}),
                        ))
                    },
                )
                .api(
                    ApiDefinition::new("write", "Writes.").with_parameters(params.clone()),
                    |args, ctx| async move {
                        let confinement = ctx.extension::<Confinement>().map(Confinement::name);
                        Ok(ToolOutput::text(format!(
                            "wrote {} ({})",
                            args["text"].as_str().unwrap_or_default(),
                            confinement.unwrap_or("unconfined")
                        )))
                    },
                )
                .api(
                    ApiDefinition::new("erase", "Erases.")
                        .with_parameters(json!({"type":"object","properties":{}})),
                    |_, _| async { Ok(ToolOutput::text("erased")) },
                )
                .api(
                    ApiDefinition::new("broken", "Fails.")
                        .with_parameters(json!({"type":"object","properties":{}})),
                    |_, _| async {
                        Err(ToolError::new(
                            ErrorCode::new("disk_full"),
                            "No space left.",
                        ))
                    },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

async fn served(
    accept: Option<bool>,
) -> (Arc<McpManager>, Option<Arc<Answers>>, CancellationToken) {
    served_by(
        RegistryServer::new(
            Arc::new(note_registry()),
            Arc::new(TestGate),
            ToolContext::new(),
        ),
        accept,
    )
    .await
}

async fn served_by(
    server: RegistryServer,
    accept: Option<bool>,
) -> (Arc<McpManager>, Option<Arc<Answers>>, CancellationToken) {
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let answers = accept.map(|accept| {
        Arc::new(Answers {
            accept,
            asked: Mutex::new(Vec::new()),
        })
    });
    let mut options = ManagerOptions::default();
    if let Some(answers) = &answers {
        options = options.elicitation(Arc::clone(answers) as Arc<dyn ElicitationHandler>);
    }
    let manager = Arc::new(McpManager::new(options));
    manager
        .upsert(McpServerConfig::new(
            "host",
            McpTransport::http(url.clone()),
        ))
        .unwrap();
    (manager, answers, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_registry_round_trips_state_errors_and_refusals() {
    let (manager, _, stop) = served(Some(true)).await;
    let registry = crate::common::registry_of(&manager).await;
    let read = crate::common::call(&registry, "host", "note____read", "{}").await;
    assert_eq!(read.content, "the note");
    let state = read.state.unwrap();
    assert_eq!(state["structuredContent"]["lines"], 1);
    assert_eq!(
        state["structuredContent"]["confinement"], "workspace_write",
        "a call that runs gets the decision's confinement in its context"
    );
    let broken = crate::common::call(&registry, "host", "note____broken", "{}").await;
    assert_eq!(
        broken.error_code().unwrap(),
        "disk_full",
        "the pipeline's code survives the trip"
    );
    let blocked = crate::common::call(&registry, "host", "note____erase", "{}").await;
    assert_eq!(blocked.error_code().unwrap(), "blocked_by_security_privacy");
    assert_eq!(blocked.content, tool_core::approval::BLOCKED_CONTENT);
    let result = manager
        .call_tool("host", "note____erase", serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(
        result.is_error,
        Some(true),
        "a blocked call is an isError result"
    );
    assert_eq!(
        result.structured_content.unwrap()["reason"]["rule"],
        "no-erase",
        "the blocked state names the rule"
    );
    // Refusals of the serving pipeline come back as isError results.
    let result = manager
        .call_tool("host", "note____write", serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let mapped = tool_mcp::map_call_result("host", "note____write", result);
    assert_eq!(mapped.error_code().unwrap(), "invalid_arguments");
    // An unknown tool is a bad request (-32602), not a tool's failure.
    let unknown = manager
        .call_tool("host", "nope____nothing", serde_json::Map::new())
        .await
        .unwrap_err();
    match unknown {
        tool_mcp::Error::Request { message, .. } => {
            assert!(
                message.contains("-32602") || message.contains("nope____nothing"),
                "{message}"
            );
        }
        other => panic!("expected a refused request, got {other:?}"),
    }
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_schemas_carry_the_shared_definitions_they_reach() {
    let defs = tool_core::manifest::SharedDefs::new(
        json!({"Pet": {"type": "object", "properties": {"owner": {"$ref": "#/$defs/Person"}}},
               "Person": {"type": "object"}, "Unused": {"type": "string"}})
        .as_object()
        .cloned()
        .unwrap(),
    );
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("pets")
                .api(
                    ApiDefinition::new("add", "Adds a pet.")
                        .with_parameters(json!({"type": "object",
                            "properties": {"pet": {"$ref": "#/$defs/Pet"}}}))
                        .with_shared_defs(defs),
                    |_, _| async { Ok(ToolOutput::text("added")) },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let server = RegistryServer::new(Arc::new(registry), Arc::new(TestGate), ToolContext::new());
    let (manager, _, stop) = served_by(server, None).await;
    let catalog = manager.catalog("host").await.unwrap();
    let tool = catalog
        .tools
        .iter()
        .find(|t| t.name.ends_with("add"))
        .unwrap();
    let defs: Vec<&String> = tool.input_schema["$defs"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(defs, ["Person", "Pet"], "what a client sees is whole");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_goes_to_the_client_through_elicitation() {
    let (manager, answers, stop) = served(Some(true)).await;
    let registry = crate::common::registry_of(&manager).await;
    let wrote =
        crate::common::call(&registry, "host", "note____write", r#"{"text":"hello"}"#).await;
    assert_eq!(
        wrote.content, "wrote hello (read_only)",
        "an approved call runs under the ask's confinement: {wrote:?}"
    );
    assert_eq!(
        answers.unwrap().asked.lock().unwrap().as_slice(),
        [
            r#"Allow `note____write` with {"text":"hello"}? (notes need a yes) It would run confined (read_only, network off)."#
        ]
    );
    stop.cancel();

    let (manager, _, stop) = served(Some(false)).await;
    let registry = crate::common::registry_of(&manager).await;
    let declined =
        crate::common::call(&registry, "host", "note____write", r#"{"text":"hello"}"#).await;
    assert_eq!(declined.error_code().unwrap(), "declined_by_user");
    assert!(
        declined
            .content
            .starts_with(tool_core::approval::DECLINED_CONTENT)
    );
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_the_host_asker_answers_or_no_one_can_and_nothing_runs() {
    let host = Arc::new(HostAsker {
        asked: Mutex::new(Vec::new()),
    });
    let server = RegistryServer::new(
        Arc::new(note_registry()),
        Arc::new(TestGate),
        ToolContext::new(),
    )
    .with_asker(Arc::clone(&host) as Arc<dyn Asker>);
    let (manager, _, stop) = served_by(server, None).await;
    let registry = crate::common::registry_of(&manager).await;
    let wrote = crate::common::call(&registry, "host", "note____write", r#"{"text":"hi"}"#).await;
    assert_eq!(wrote.content, "wrote hi (read_only)", "{wrote:?}");
    assert_eq!(host.asked.lock().unwrap().as_slice(), ["note____write"]);
    stop.cancel();

    let (manager, _, stop) = served(None).await;
    let registry = crate::common::registry_of(&manager).await;
    let refused =
        crate::common::call(&registry, "host", "note____write", r#"{"text":"hello"}"#).await;
    assert_eq!(
        refused.error_code().unwrap(),
        "approval_required",
        "{refused:?}"
    );
    assert!(
        refused.content.contains("did not declare elicitation"),
        "{refused:?}"
    );
    stop.cancel();
}

/// `mcp serve --http` of an empty registry on a free 127.0.0.1 port: its
/// address, and the token that stops it.
async fn empty_http_server() -> (std::net::SocketAddr, CancellationToken) {
    let server = crate::common::served(ToolRegistry::new());
    let stop = CancellationToken::new();
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    (addr, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_a_json_rpc_message_gets_400_and_its_json_rpc_error() {
    let (addr, stop) = empty_http_server().await;
    let post = |body: &'static str, content_type: &'static str| {
        reqwest::Client::new()
            .post(format!("http://{addr}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    for (body, code) in [
        (r#"{"jsonrpc": "2.0", "id": 1, "#, -32700),
        ("not json", -32700),
        ("[]", -32600),
        (r#"{"id": 1, "method": "initialize"}"#, -32600),
    ] {
        let answer = post(body, "application/json").await.unwrap();
        assert_eq!(answer.status(), 400, "{body}");
        let error: Value = answer.json().await.unwrap();
        assert_eq!(error["jsonrpc"], "2.0", "{error}");
        assert_eq!(error["id"], Value::Null, "{error}");
        assert_eq!(error["error"]["code"], code, "{body}: {error}");
    }
    // Another content type is still the service's answer (415), and a
    // message passes.
    let answer = post("{}", "text/plain").await.unwrap();
    assert_eq!(answer.status(), 415);
    let initialize = r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#;
    let answer = post(initialize, "application/json").await.unwrap();
    assert!(answer.status().is_success(), "{}", answer.status());
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_from_a_foreign_browser_origin_is_refused_with_403() {
    let (addr, stop) = empty_http_server().await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "browser", "version": "1"}}});
    let post = |origin: Option<&'static str>| {
        let mut request = reqwest::Client::new()
            .post(format!("http://{addr}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    for origin in [
        "http://evil.example",
        "https://attacker.test:8443",
        "null",
        "http://localhost.evil.example",
        "http://127.0.0.1.nip.io",
    ] {
        let status = post(Some(origin)).await.unwrap().status();
        assert_eq!(status, 403, "{origin}");
    }
    for origin in [
        None,
        Some("http://localhost:5173"),
        Some("http://127.0.0.1:3000"),
    ] {
        let status = post(origin).await.unwrap().status();
        assert!(status.is_success(), "{origin:?}: {status}");
    }
    stop.cancel();
}
