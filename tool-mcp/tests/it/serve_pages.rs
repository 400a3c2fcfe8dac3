//! `tools/list` served. The serving side pages it when a registry has more
//! tools than a page holds; two real clients follow the cursors to the
//! end: tool-mcp's own (rmcp) and the pinned Python `mcp` SDK's. Its cache
//! hints bound how long tool-mcp's catalog keeps it. And a tool the server
//! runs as a task (`RegistryServer::with_task_tools`) is listed with its
//! `execution.taskSupport`, on stdio (raw JSON-RPC lines) and streamable
//! HTTP (tool-mcp's client on both revisions, the Python SDK's client).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
use tool_mcp::{
    McpManager, McpProtocol, McpServerConfig, McpTransport, RegistryServer, RunEverything,
};

/// 25 tools × 10 APIs = 250 served tools, `t00____a0` … `t24____a9`.
fn big_registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in 0..25 {
        let mut builder = ToolBuilder::new(format!("t{t:02}"));
        for a in 0..10 {
            let answer = format!("t{t:02}/a{a}");
            builder = builder.api(
                ApiDefinition::new(format!("a{a}"), format!("API {a} of tool {t}.")),
                move |_, _| {
                    let answer = answer.clone();
                    async move { Ok(ToolOutput::text(answer)) }
                },
            );
        }
        registry.register(builder.build().unwrap()).unwrap();
    }
    registry
}

fn expected_names() -> Vec<String> {
    (0..25)
        .flat_map(|t| (0..10).map(move |a| format!("t{t:02}____a{a}")))
        .collect()
}

async fn serve(page_size: Option<usize>, stop: CancellationToken) -> String {
    let mut server = crate::common::served(big_registry());
    if let Some(size) = page_size {
        server = server.with_page_size(size);
    }
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop)
        .await
        .unwrap();
    format!("http://{addr}/mcp")
}

async fn catalog_pages(url: &str) -> (usize, Vec<String>) {
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new("big", McpTransport::http(url)))
        .unwrap();
    let catalog = manager.catalog("big").await.unwrap();
    let names = catalog.tools.iter().map(|t| t.name.clone()).collect();
    manager.shutdown().await;
    (catalog.pages, names)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_mcp_follows_the_pages_of_a_served_registry() {
    let stop = CancellationToken::new();
    // 250 tools: the default page (100) gives 3 pages, 40 gives 7 (the last
    // one short), 50 gives exactly 5 (no cursor after the last full page).
    for (size, pages) in [
        (None, 3),
        (Some(40), 7),
        (Some(50), 5),
        (Some(250), 1),
        (Some(0), 250),
    ] {
        let url = serve(size, stop.clone()).await;
        let (got_pages, names) = catalog_pages(&url).await;
        assert_eq!(got_pages, pages, "page size {size:?}");
        assert_eq!(names, expected_names(), "page size {size:?}");
    }
    stop.cancel();
}

/// What the pinned Python SDK's client saw of the server at `url`, calling
/// `tool` (`tests/fixtures/python/client.py` says what it prints).
async fn python_client(url: &str, tool: &str) -> Value {
    let output = tokio::process::Command::new(crate::common::python())
        .arg(crate::common::fixtures().join("python/client.py"))
        .arg(url)
        .arg(tool)
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_follows_the_pages_and_a_made_up_cursor_is_refused() {
    let stop = CancellationToken::new();
    let url = serve(Some(40), stop.clone()).await;
    let out = python_client(&url, "t24____a9").await;
    assert_eq!(out["pages"], 7, "{out}");
    let names: Vec<String> = out["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, expected_names());
    assert_eq!(out["cursors"].as_array().unwrap().len(), 6);
    assert_eq!(out["call"], "t24/a9", "the last page's tool is callable");
    let refused = out["badCursor"].as_str().unwrap();
    assert!(refused.contains("not-a-cursor"), "{refused}");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_survive_a_rebuild_that_changes_nothing_and_not_a_real_change() {
    use rmcp::ServiceExt;
    use rmcp::model::PaginatedRequestParams;

    let live = tool_core::LiveRegistry::from(big_registry());
    let server = RegistryServer::live(live.clone(), Arc::new(RunEverything), ToolContext::new())
        .with_page_size(100);
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let client = ()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
            url.clone(),
        ))
        .await
        .unwrap();
    let page = |cursor: Option<String>| {
        let peer = client.peer().clone();
        async move {
            peer.list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                .await
        }
    };
    let first = page(None).await.unwrap();
    let cursor = first.next_cursor.clone().unwrap();
    // Every tool replaced by an equal one: a new generation, the same list.
    let before = live.generation();
    for t in 0..25 {
        let tool = live.read(|r| r.get(&format!("t{t:02}")).cloned()).unwrap();
        live.replace_arc(tool).unwrap();
    }
    assert_ne!(live.generation(), before, "the registry was rebuilt");
    let second = page(Some(cursor.clone())).await.unwrap();
    assert_eq!(second.tools[0].name, "t10____a0", "paging goes on");
    // A tool removed: the list changed, the old cursor is refused.
    live.remove("t24");
    let refused = page(Some(cursor)).await.unwrap_err().to_string();
    assert!(
        refused.contains("before the tool list changed"),
        "{refused}"
    );
    client.cancel().await.unwrap();
    stop.cancel();
}

/// A served list's `ttlMs` (2026-07-28) bounds how long tool-mcp's catalog
/// keeps it: the same catalog before it runs out, a new listing after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_is_listed_again_once_the_servers_ttl_runs_out_and_not_before() {
    let stop = CancellationToken::new();
    let server = crate::common::served(big_registry())
        .with_list_ttl(std::time::Duration::from_millis(1_500));
    let url = crate::common::serve_http_until(server, &stop).await;
    let manager = crate::common::http_manager("big", &url);
    let first = manager.catalog("big").await.unwrap();
    assert_eq!(first.tools.len(), 250);
    let again = manager.catalog("big").await.unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "listed again before the ttl ran out"
    );
    tokio::time::sleep(std::time::Duration::from_millis(1_700)).await;
    let later = manager.catalog("big").await.unwrap();
    assert!(
        !Arc::ptr_eq(&first, &later),
        "not listed again after the ttl"
    );
    assert_eq!(later.tools.len(), 250);
    let status = manager.status("big").await.unwrap();
    assert_eq!(status.sessions_started, 1, "one session for both listings");
    manager.shutdown().await;
    stop.cancel();
}

/// Without a ttl of its own, a fixed registry's `tools/list` says an
/// hour, `private`, to a 2026-07-28 client (one raw stateless request).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_registry_lists_with_an_hours_ttl_and_private_scope() {
    let stop = CancellationToken::new();
    let url = serve(None, stop.clone()).await;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    let message: Value = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .chain(std::iter::once(text.as_str()))
        .find_map(|data| serde_json::from_str(data.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {text}"));
    let result = &message["result"];
    assert_eq!(result["ttlMs"], 3_600_000, "{message}");
    assert_eq!(result["cacheScope"], "private", "{message}");
    assert_eq!(
        tool_mcp::FIXED_LIST_TTL.as_millis(),
        3_600_000,
        "the documented default"
    );
    stop.cancel();
}

/// `jobs`: `quick` and `slow` run as tasks (required, optional), `plain`
/// never; `stated` states its own task support (`forbidden`, as a proxied
/// tool would), and `overridden` states `forbidden` but is named a task
/// tool (optional) here.
fn task_server() -> RegistryServer {
    use tool_core::manifest::TaskSupport as Stated;
    let done = |_, _| async { Ok(ToolOutput::text("done")) };
    let tool = ToolBuilder::new("jobs")
        .api(ApiDefinition::new("quick", "Quick."), done)
        .api(ApiDefinition::new("slow", "Slow."), done)
        .api(ApiDefinition::new("plain", "Plain."), done)
        .api(
            ApiDefinition::new("stated", "Stated.").with_task_support(Stated::Forbidden),
            done,
        )
        .api(
            ApiDefinition::new("overridden", "Overridden.").with_task_support(Stated::Forbidden),
            done,
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    crate::common::served(registry).with_task_tools([
        ("jobs____quick", tool_mcp::TaskSupport::Required),
        ("jobs____slow", tool_mcp::TaskSupport::Optional),
        ("jobs____overridden", tool_mcp::TaskSupport::Optional),
    ])
}

/// Each tool's `execution.taskSupport` as `task_server` lists it (none for
/// `plain`).
fn listed_task_support() -> BTreeMap<String, String> {
    [
        ("jobs____quick", "required"),
        ("jobs____slow", "optional"),
        ("jobs____stated", "forbidden"),
        ("jobs____overridden", "optional"),
    ]
    .into_iter()
    .map(|(name, word)| (name.to_owned(), word.to_owned()))
    .collect()
}

/// The `execution.taskSupport` of each tool in a raw `tools/list` result,
/// checking that no tool keeps the private key `execution` travels under.
fn raw_task_support(result: &Value) -> BTreeMap<String, String> {
    let tools = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {result}"));
    assert_eq!(tools.len(), 5, "{result}");
    let mut support = BTreeMap::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap().to_owned();
        assert!(
            !tool.to_string().contains("toolLayer/execution"),
            "the private key left on {tool}"
        );
        if let Some(execution) = tool.get("execution") {
            let word = execution["taskSupport"].as_str().unwrap().to_owned();
            support.insert(name, word);
        }
    }
    support
}

/// `requests` written as lines to `task_server` served on an in-process
/// stdio pair (`RegistryServer::serve_io`, what `serve_stdio` runs); the
/// answer to the request with id `"list"`. The server stops when the
/// client's end closes.
async fn over_stdio(requests: &[Value]) -> Value {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(task_server().serve_io(server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    for request in requests {
        let line = format!("{request}\n");
        client_write.write_all(line.as_bytes()).await.unwrap();
    }
    let mut lines = BufReader::new(client_read).lines();
    let answer = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == "list" {
                return message;
            }
        }
        panic!("the server closed before answering tools/list");
    })
    .await
    .expect("tools/list answered within 10 s");
    drop(client_write);
    drop(lines);
    let served = tokio::time::timeout(std::time::Duration::from_secs(10), serving).await;
    assert!(
        served.is_ok_and(|joined| joined.is_ok()),
        "the server ends with its client"
    );
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_task_tools_list_their_task_support_on_stdio() {
    // 2025-11-25: the handshake, then tools/list.
    let answer = over_stdio(&[
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}),
    ])
    .await;
    assert_eq!(
        raw_task_support(&answer["result"]),
        listed_task_support(),
        "2025-11-25: {answer}"
    );
    // 2026-07-28: one stateless request, no handshake.
    let answer = over_stdio(&[serde_json::json!({
        "jsonrpc": "2.0", "id": "list", "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    })])
    .await;
    assert_eq!(
        raw_task_support(&answer["result"]),
        listed_task_support(),
        "2026-07-28: {answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_task_tools_list_their_task_support_over_http_to_both_sdks() {
    let stop = CancellationToken::new();
    let (addr, _task) = task_server()
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    let url = format!("http://{addr}/mcp");
    // tool-mcp's client, on each revision: the catalog keeps `execution`
    // as listed.
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let manager = McpManager::default();
        manager
            .upsert(
                McpServerConfig::new("jobs", McpTransport::http(url.clone()))
                    .with_protocol(protocol),
            )
            .unwrap();
        let catalog = manager.catalog("jobs").await.unwrap();
        let listed: BTreeMap<String, String> = catalog
            .tools
            .iter()
            .filter_map(|tool| {
                let word = tool.execution.as_ref()?["taskSupport"].as_str()?;
                Some((tool.name.clone(), word.to_owned()))
            })
            .collect();
        assert_eq!(listed, listed_task_support(), "{protocol:?}");
        assert_eq!(catalog.tools.len(), 5, "{protocol:?}");
        manager.shutdown().await;
    }
    // The Python SDK's client reads the same (its `Tool.execution`).
    let out = python_client(&url, "jobs____plain").await;
    let listed: BTreeMap<String, String> =
        serde_json::from_value(out["executions"].clone()).unwrap();
    assert_eq!(listed, listed_task_support(), "{out}");
    assert_eq!(out["call"], "done", "{out}");
    stop.cancel();
}
