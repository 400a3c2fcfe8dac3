//! One MCP call across two processes: our client (tool-mcp, in this test's
//! process, its spans collected in memory) calls `toolhost mcp serve
//! --http` (our server, in its own process, writing its spans to
//! `TOOLHOST_TRACE_FILE`). The trace context crosses in the request's
//! `_meta` (`traceparent`): both sides' `tools/call` spans carry the MCP and
//! GenAI convention names and attributes and the same trace id, the
//! server's span is the child of the client's, and the served call's
//! `execute_tool` span and gate decision sit under it. The call is gated
//! on both sides (here a manual-mode policy asks and a person approves;
//! there the serving host's policy runs it). No argument value, result or
//! credential appears on either side. A second call, to an API tool the
//! serving host loaded with `--openapi`, puts that host's `http_request`
//! span (method, route template, status) under the served call's span.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use test_support::{Collected, Seen};
use tool_core::{
    Answer, Ask, Asker, Invoker, ToolCall, ToolContext, ToolRegistry, manifest::NameRules,
};
use tool_mcp::{McpManager, McpProvider, McpSecret, McpServerConfig, McpTransport};

/// The file's name is an argument value; its text is the result.
const FILE_NAME: &str = "private-notes-5b1e.txt";
const FILE_TEXT: &str = "content-private-value";
/// The credential the client sends with every request.
const TOKEN: &str = "token-private-9c2d";

/// A person who says yes.
struct Yes;

#[async_trait]
impl Asker for Yes {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

/// `toolhost mcp serve --http 127.0.0.1:0`, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(cwd: &std::path::Path, trace_file: &std::path::Path, extra: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("--cwd")
        .arg(cwd)
        .args(extra)
        .args(["mcp", "serve", "--http", "127.0.0.1:0"])
        .env("TOOLHOST_TRACE_FILE", trace_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let server = Server(child);
    let url = loop {
        let line = lines
            .next()
            .expect("toolhost mcp serve ended before listening")
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        if let Some(url) = value["listening"].as_str() {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (server, url)
}

/// The server's records once its `tools/call` span has closed (it closes
/// after the response is on its way, so the client may be done first).
fn server_records(trace_file: &std::path::Path) -> Vec<Seen> {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(trace_file).unwrap_or_default();
        let seen = Seen::from_json_lines(&text).unwrap();
        if seen
            .iter()
            .any(|s| !s.event && s.name == "tools/call" && s.get("otel.kind") == Some("server"))
        {
            return seen;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no server tools/call span in {}: {text}",
            trace_file.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn one_mcp_call_is_one_trace_across_client_and_server_processes() {
    let (collected, _guard) = Collected::install();
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    std::fs::create_dir(&cwd).unwrap();
    std::fs::write(cwd.join(FILE_NAME), FILE_TEXT).unwrap();
    let trace_file = dir.path().join("server-spans.jsonl");
    let (_server, url) = serve(&cwd, &trace_file, &[]);

    let manager = Arc::new(McpManager::default());
    let mut transport = McpTransport::http(url);
    if let McpTransport::Http { headers, .. } = &mut transport {
        headers.insert(
            "Authorization".into(),
            McpSecret::new(format!("Bearer {TOKEN}")),
        );
    }
    manager
        .upsert(
            McpServerConfig::new("host", transport).with_startup_timeout(Duration::from_secs(20)),
        )
        .unwrap();
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    assert_eq!(load.failures().count(), 0, "{load:?}");
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let wire = offered
        .resolve_pair("host", "local-system____readFile")
        .unwrap()
        .wire_name
        .to_owned();
    let args = serde_json::json!({ "path": FILE_NAME }).to_string();
    // Gated on this side too: the host's rule asks first (the served tool
    // says it is read-only, which alone would let it run unasked).
    let policy = tool_approval::PolicyFile::from_json(
        r#"{"mode": "manual", "rules": {"host/local-system____readFile": [{"policy": "required"}]}}"#,
    )
    .unwrap();
    let out = Invoker::default()
        .with_gate(Arc::new(policy.engine().unwrap()))
        .with_asker(Arc::new(Yes))
        .invoke(&offered, &ToolCall::new(wire, args).with_id("c-mcp"), &ctx)
        .await;
    assert!(out.content.contains(FILE_TEXT), "{out:?}");
    let server = server_records(&trace_file);
    manager.shutdown().await;

    // The client's side: execute_tool, and the MCP client span under it.
    let tools = collected.spans("execute_tool");
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0].get("gen_ai.tool.call.id"), Some("c-mcp"));
    assert_eq!(tools[0].get("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(tools[0].get("gen_ai.tool.type"), Some("extension"));
    assert_eq!(tools[0].get("outcome"), Some("success"));
    let asked: Vec<Seen> = collected
        .events("gate.decision")
        .into_iter()
        .filter(|d| d.get("action") == Some("ask"))
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].parent.as_deref(), Some("execute_tool"));
    let answers = collected.events("gate.answer");
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].get("answer"), Some("approved"));
    let calls = collected.spans("tools/call");
    assert_eq!(calls.len(), 1, "{calls:?}");
    let client = &calls[0];
    assert_eq!(client.parent.as_deref(), Some("execute_tool"));
    assert_eq!(client.get("otel.kind"), Some("client"));
    assert_eq!(client.get("network.transport"), Some("tcp"));
    assert_eq!(client.get("server.address"), Some("127.0.0.1"));

    // The server's side, from the other process.
    let served: Vec<&Seen> = server
        .iter()
        .filter(|s| !s.event && s.name == "tools/call")
        .collect();
    assert_eq!(served.len(), 1, "{server:?}");
    let served = served[0];
    assert_eq!(served.get("otel.kind"), Some("server"));
    for span in [client, served] {
        assert_eq!(
            span.get("otel.name"),
            Some("tools/call local-system____readFile"),
            "{span:?}"
        );
        assert_eq!(span.get("mcp.method.name"), Some("tools/call"));
        assert_eq!(span.get("gen_ai.operation.name"), Some("execute_tool"));
        assert_eq!(
            span.get("gen_ai.tool.name"),
            Some("local-system____readFile")
        );
        assert!(span.get("mcp.protocol.version").is_some(), "{span:?}");
        assert!(span.get("jsonrpc.request.id").is_some(), "{span:?}");
        assert_eq!(span.get("error.type"), None, "{span:?}");
    }
    let trace_id = client.get("trace_id").unwrap();
    assert_eq!(trace_id.len(), 32, "{client:?}");
    assert_eq!(
        served.get("trace_id"),
        Some(trace_id),
        "one trace: {served:?}"
    );
    assert_eq!(served.get("parent_span_id"), client.get("span_id"));
    assert_ne!(served.get("span_id"), client.get("span_id"));
    // A session (2025-11-25 over HTTP) is named alike on both sides by a
    // digest; 2026-07-28 has none.
    assert_eq!(served.get("mcp.session.id"), client.get("mcp.session.id"));

    // The served call: its own execute_tool span under the server span,
    // with the serving host's gate decision on it.
    let run = server
        .iter()
        .find(|s| !s.event && s.name == "execute_tool")
        .unwrap_or_else(|| panic!("{server:?}"));
    assert_eq!(run.parent.as_deref(), Some("tools/call"));
    assert_eq!(
        run.get("otel.name"),
        Some("execute_tool local-system____readFile")
    );
    assert_eq!(
        run.get("gen_ai.tool.name"),
        Some("local-system____readFile")
    );
    assert!(run.get("gen_ai.tool.description").is_some(), "{run:?}");
    assert_eq!(run.get("outcome"), Some("success"));
    let decision = server
        .iter()
        .find(|s| s.event && s.name == "gate.decision")
        .unwrap_or_else(|| panic!("{server:?}"));
    assert_eq!(decision.parent.as_deref(), Some("execute_tool"));
    assert_eq!(decision.get("action"), Some("run"));

    let ours = collected.text_where(|e| e.target.starts_with("tool_"));
    let theirs = std::fs::read_to_string(&trace_file).unwrap();
    for value in [FILE_NAME, FILE_TEXT, TOKEN] {
        assert!(
            !ours.contains(value),
            "{value} was traced by the client: {ours}"
        );
        assert!(
            !theirs.contains(value),
            "{value} was traced by the server: {theirs}"
        );
    }
}

/// The value of the API call's path argument (never on a span: the route
/// template is).
const NAME_VALUE: &str = "name-private-4e1a";

#[tokio::test]
async fn an_api_call_served_over_mcp_has_its_http_request_span_in_the_servers_trace() {
    let (collected, _guard) = Collected::install();
    // The API the serving host calls: GET /hello/{name}.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = listener.local_addr().unwrap();
    let router = axum::Router::new().route(
        "/hello/{name}",
        axum::routing::get(|| async { axum::Json(serde_json::json!({"hello": "you"})) }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("hello.json");
    std::fs::write(
        &doc,
        serde_json::json!({"server": format!("http://{api}"), "description": "Greets.",
            "paths": {"/hello/{name}": {"get": {"operationId": "hello", "description": "Greets.",
                "parameters": [{"name": "name", "in": "path", "type": "str"}]}}}})
        .to_string(),
    )
    .unwrap();
    let trace_file = dir.path().join("server-spans.jsonl");
    let doc = doc.display().to_string();
    let (_server, url) = serve(
        dir.path(),
        &trace_file,
        &["--openapi", &doc, "--allow-host", "127.0.0.1"],
    );

    let manager = Arc::new(McpManager::default());
    manager
        .upsert(
            McpServerConfig::new("host", McpTransport::http(url))
                .with_startup_timeout(Duration::from_secs(20)),
        )
        .unwrap();
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    assert_eq!(load.failures().count(), 0, "{load:?}");
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let wire = offered
        .resolve_pair("host", "hello____hello")
        .unwrap()
        .wire_name
        .to_owned();
    let args = serde_json::json!({ "name": NAME_VALUE }).to_string();
    let out = Invoker::default()
        .invoke(&offered, &ToolCall::new(wire, args).with_id("c-api"), &ctx)
        .await;
    assert!(out.content.contains("you"), "{out:?}");
    let server = server_records(&trace_file);
    manager.shutdown().await;

    let client = collected.spans("tools/call");
    assert_eq!(client.len(), 1, "{client:?}");
    let served = server
        .iter()
        .find(|s| !s.event && s.name == "tools/call")
        .unwrap_or_else(|| panic!("{server:?}"));
    assert_eq!(served.get("gen_ai.tool.name"), Some("hello____hello"));
    assert_eq!(
        served.get("trace_id"),
        client[0].get("trace_id"),
        "one trace"
    );
    assert_eq!(served.get("parent_span_id"), client[0].get("span_id"));
    let run = server
        .iter()
        .find(|s| !s.event && s.name == "execute_tool")
        .unwrap_or_else(|| panic!("{server:?}"));
    assert_eq!(run.parent.as_deref(), Some("tools/call"));
    assert_eq!(run.get("otel.name"), Some("execute_tool hello____hello"));
    assert_eq!(run.get("gen_ai.tool.type"), Some("extension"));
    // The HTTP client span of the API call, under the served call's span:
    // the route template and the status, never the path's value.
    let request = server
        .iter()
        .find(|s| !s.event && s.name == "http_request")
        .unwrap_or_else(|| panic!("{server:?}"));
    assert_eq!(request.parent.as_deref(), Some("execute_tool"));
    assert_eq!(request.get("otel.name"), Some("GET /hello/{name}"));
    assert_eq!(request.get("otel.kind"), Some("client"));
    assert_eq!(request.get("http.request.method"), Some("GET"));
    assert_eq!(request.get("url.template"), Some("/hello/{name}"));
    assert_eq!(request.get("http.response.status_code"), Some("200"));
    assert_eq!(request.get("error.type"), None);

    let ours = collected.text_where(|e| e.target.starts_with("tool_"));
    let theirs = std::fs::read_to_string(&trace_file).unwrap();
    assert!(!ours.contains(NAME_VALUE), "traced by the client: {ours}");
    assert!(
        !theirs.contains(NAME_VALUE),
        "traced by the server: {theirs}"
    );
}
