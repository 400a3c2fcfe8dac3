//! What a host's subscriber sees of one gated call, one HTTP API call and
//! one MCP call (our client against our server over HTTP on 127.0.0.1):
//! an in-memory `tracing` layer collects the spans and events of a batch
//! decided by tool-approval's policy engine (the API call asks, a person
//! approves; a second API call is refused by the SSRF guard) and checks the OpenTelemetry names and attributes
//! (`execute_tool` with the GenAI attributes, `http_request` with the
//! HTTP client attributes under it; `tools/call` client and server spans
//! in one trace, the server's the child of the client's through the
//! `traceparent` the request carried in `_meta`), and that no argument
//! value and no credential appears anywhere.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use test_support::{Collected, Seen};
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Invoker, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, manifest::NameRules,
};
use tool_openapi::{OpenApiTool, SsrfGuard, SsrfPolicy, parse_narrow};

/// A person who says yes.
struct Yes;

#[async_trait]
impl Asker for Yes {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

const API_KEY: &str = "provider-secret-42";
const NAME_VALUE: &str = "alice-private-name";
const QUERY_VALUE: &str = "query-private-value";
const NOTE_VALUE: &str = "note-private-value";
const MCP_VALUE: &str = "memo-private-value";

#[tokio::test]
async fn traces_of_gated_api_and_mcp_calls_carry_the_conventions_and_no_values() {
    let (collected, _guard) = Collected::install();

    let addr = crate::common::start().await;
    let (doc, _) = parse_narrow(&crate::common::narrow_doc(addr)).unwrap();
    let api = OpenApiTool::builder(doc, "test")
        .guard(SsrfGuard::new(
            SsrfPolicy::default().allow("127.0.0.1").unwrap(),
        ))
        .secret_header("X-Api-Key", API_KEY)
        .unwrap()
        .build()
        .unwrap();
    // The same API behind the default guard: loopback is refused.
    let (doc, _) = parse_narrow(&crate::common::narrow_doc(addr)).unwrap();
    let guarded = OpenApiTool::builder(doc, "guarded").build().unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(api).unwrap();
    registry.register(guarded).unwrap();
    registry
        .register(
            ToolBuilder::new("notes")
                .api(
                    ApiDefinition::new("add", "Adds a note.").with_parameters(json!({
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"]
                    })),
                    |_, _| async { Ok(ToolOutput::text("added")) },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    // An MCP server of ours, serving a memo tool, and our client's tools
    // from it in the same registry.
    let mut served = ToolRegistry::new();
    served
        .register(
            ToolBuilder::new("memo")
                .api(
                    ApiDefinition::new("keep", "Keeps a memo.").with_parameters(json!({
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"]
                    })),
                    |_, _| async { Ok(ToolOutput::text("kept")) },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let server = tool_mcp::RegistryServer::new(
        Arc::new(served),
        Arc::new(tool_mcp::RunEverything),
        ToolContext::new(),
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let (mcp_addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    let manager = Arc::new(tool_mcp::McpManager::default());
    manager
        .upsert(tool_mcp::McpServerConfig::new(
            "remote",
            tool_mcp::McpTransport::http(format!("http://{mcp_addr}/mcp")),
        ))
        .unwrap();
    let load = tool_mcp::McpProvider::new(Arc::clone(&manager))
        .load_all()
        .await;
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }

    let policy = tool_approval::PolicyFile::from_json(
        r#"{"mode": "manual", "rules": {"test/echoGet": [{"policy": "required"}]}}"#,
    )
    .unwrap();
    let invoker = Invoker::default()
        .with_gate(Arc::new(policy.engine().unwrap()))
        .with_asker(Arc::new(Yes));
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let calls = [
        ToolCall::new("notes____add", json!({"text": NOTE_VALUE}).to_string()).with_id("c-note"),
        ToolCall::new(
            "test____echoGet",
            json!({"name": NAME_VALUE, "q": QUERY_VALUE}).to_string(),
        )
        .with_id("c-api"),
        ToolCall::new(
            "guarded____echoGet",
            json!({"name": NAME_VALUE, "q": QUERY_VALUE}).to_string(),
        )
        .with_id("c-ssrf"),
        ToolCall::new(
            offered
                .resolve_pair("remote", "memo____keep")
                .unwrap()
                .wire_name
                .to_owned(),
            json!({"text": MCP_VALUE}).to_string(),
        )
        .with_id("c-mcp"),
    ];
    let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
    assert_eq!(outputs[0].content, "added");
    assert!(outputs[1].success, "{:?}", outputs[1]);
    assert_eq!(outputs[2].error_code().unwrap().as_str(), "ssrf_blocked");
    assert_eq!(outputs[3].content, "kept", "{:?}", outputs[3]);
    stop.cancel();
    manager.shutdown().await;

    // Ours: the four calls; the MCP server's: the memo call it ran.
    let tools = collected.spans("execute_tool");
    assert_eq!(tools.len(), 5, "{tools:?}");
    let tool = |id: &str| {
        tools
            .iter()
            .find(|s| s.get("gen_ai.tool.call.id") == Some(id))
            .unwrap_or_else(|| panic!("no execute_tool span for {id}: {tools:?}"))
    };
    let note = tool("c-note");
    assert_eq!(note.get("otel.name"), Some("execute_tool notes____add"));
    assert_eq!(note.get("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(note.get("gen_ai.tool.name"), Some("notes____add"));
    assert_eq!(note.get("gen_ai.tool.type"), Some("function"));
    assert_eq!(note.get("gen_ai.tool.description"), Some("Adds a note."));
    let call = tool("c-api");
    assert_eq!(call.get("otel.name"), Some("execute_tool test____echoGet"));
    assert_eq!(call.get("gen_ai.tool.name"), Some("test____echoGet"));
    assert_eq!(call.get("gen_ai.tool.type"), Some("extension"));
    assert_eq!(call.get("gen_ai.tool.description"), Some("Echo."));
    assert_eq!(call.get("outcome"), Some("success"));
    assert_eq!(call.get("error.type"), None);

    let refused = tool("c-ssrf");
    assert_eq!(refused.get("error.type"), Some("ssrf_blocked"));
    assert_eq!(refused.get("otel.status_code"), Some("ERROR"));
    let walls = collected.events("tool.refused");
    assert_eq!(walls.len(), 1, "{walls:?}");
    assert_eq!(walls[0].get("wall"), Some("ssrf"));
    assert_eq!(walls[0].get("error.type"), Some("ssrf_blocked"));

    let remote = tool("c-mcp");
    assert_eq!(remote.get("gen_ai.tool.type"), Some("extension"));
    assert_eq!(remote.get("outcome"), Some("success"));

    // The MCP call: a client span under our execute_tool span, a server
    // span in the same trace, its parent the client span, and the served
    // call's own execute_tool span under the server span.
    let mcp = collected.spans("tools/call");
    let side = |kind: &str| {
        let spans: Vec<&Seen> = mcp
            .iter()
            .filter(|s| s.get("otel.kind") == Some(kind))
            .collect();
        assert_eq!(spans.len(), 1, "{kind} spans: {mcp:?}");
        spans[0].clone()
    };
    let (client, served) = (side("client"), side("server"));
    assert_eq!(client.parent.as_deref(), Some("execute_tool"), "{client:?}");
    for span in [&client, &served] {
        assert_eq!(span.get("otel.name"), Some("tools/call memo____keep"));
        assert_eq!(span.get("mcp.method.name"), Some("tools/call"));
        assert_eq!(span.get("gen_ai.operation.name"), Some("execute_tool"));
        assert_eq!(span.get("gen_ai.tool.name"), Some("memo____keep"));
    }
    assert!(client.get("trace_id").is_some(), "{client:?}");
    assert_eq!(served.get("trace_id"), client.get("trace_id"), "one trace");
    assert_eq!(served.get("parent_span_id"), client.get("span_id"));
    assert!(
        tools
            .iter()
            .any(|s| s.get("gen_ai.tool.name") == Some("memo____keep")
                && s.parent.as_deref() == Some("tools/call")),
        "the served call's span: {tools:?}"
    );

    let decisions = collected.events("gate.decision");
    assert!(decisions.len() >= 4, "{decisions:?}");
    assert!(
        decisions
            .iter()
            .all(|d| d.parent.as_deref() == Some("execute_tool"))
    );
    let asked = decisions
        .iter()
        .find(|d| {
            d.get("action") == Some("ask")
                && d.get("rule").is_some_and(|r| r.contains("test/echoGet"))
        })
        .unwrap_or_else(|| panic!("{decisions:?}"));
    assert_eq!(asked.get("level"), Some("host_policy"));
    assert!(
        asked.get("rule").unwrap().contains("test/echoGet"),
        "{asked:?}"
    );
    assert_eq!(asked.get("confinement"), Some("none"));
    assert!(decisions.iter().any(|d| d.get("action") == Some("run")));
    // The API call and the MCP call (a remote tool asks in manual mode).
    let answers = collected.events("gate.answer");
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(answers.iter().all(|a| a.get("answer") == Some("approved")));

    let requests = collected.spans("http_request");
    assert_eq!(requests.len(), 2, "{requests:?}");
    let blocked = requests
        .iter()
        .find(|r| r.get("error.type").is_some())
        .unwrap_or_else(|| panic!("{requests:?}"));
    assert_eq!(blocked.get("error.type"), Some("ssrf_blocked"));
    assert_eq!(
        blocked.get("http.response.status_code"),
        None,
        "nothing was sent"
    );
    let request = requests
        .iter()
        .find(|r| r.get("error.type").is_none())
        .unwrap_or_else(|| panic!("{requests:?}"));
    assert_eq!(request.parent.as_deref(), Some("execute_tool"));
    assert_eq!(request.get("otel.name"), Some("GET /echo/{name}"));
    assert_eq!(request.get("otel.kind"), Some("client"));
    assert_eq!(request.get("http.request.method"), Some("GET"));
    assert_eq!(request.get("url.template"), Some("/echo/{name}"));
    assert_eq!(request.get("http.response.status_code"), Some("200"));
    assert_eq!(request.get("error.type"), None);

    // Every span, and every event of our crates. (rmcp's own debug and
    // trace events log whole requests, arguments included: a host keeps
    // `rmcp` at `info` or above.)
    assert!(
        !collected
            .events_where(|e| e.target.starts_with("tool_"))
            .is_empty()
    );
    let text = collected.text_where(|e| e.target.starts_with("tool_"));
    for value in [API_KEY, NAME_VALUE, QUERY_VALUE, NOTE_VALUE, MCP_VALUE] {
        assert!(!text.contains(value), "{value} was traced: {text}");
    }
}
