//! Cancellation over MCP, both ways, with real processes.
//!
//! Serving side: an rmcp client calls tool-runtime's `runCommand` through
//! `RegistryServer` on 127.0.0.1; the command (a shell and its `sleep`)
//! writes its pids into a temp dir. The client's `notifications/cancelled`
//! cancels the call's context and the process tree goes with it.
//!
//! Client side: a call through `McpManager` to the same served registry is
//! cancelled by the host's token (or dropped); the manager sends the
//! server `notifications/cancelled`, so the remote command is killed too.

#[path = "../../../.ci/process_tree.rs"]
mod process_tree;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use process_tree::{alive, gone, read_pids};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;
use tool_core::{ToolContext, ToolRegistry};
use tool_mcp::{McpManager, McpServerConfig, McpTransport, RegistryServer, RunEverything};
use tool_runtime::{LocalComputer, LocalConfig, local_system_tool};

/// A shell that starts a child `sleep` and waits; both pids end up in `pids`.
const TREE: &str = "sleep 30 & child=$!; echo $$ $child > pids.tmp && mv pids.tmp pids; wait";

const RUN: &str = "local-system____runCommand";

/// tool-runtime's local-system tool served over streamable HTTP on
/// 127.0.0.1, commands running in `dir`.
async fn serve(dir: &Path) -> (std::net::SocketAddr, CancellationToken) {
    let mut registry = ToolRegistry::new();
    registry
        .register(local_system_tool(
            LocalComputer::new(LocalConfig::default()),
        ))
        .unwrap();
    let server = RegistryServer::new(
        Arc::new(registry),
        Arc::new(RunEverything),
        ToolContext::new().with_cwd(dir),
    );
    let stop = CancellationToken::new();
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    (addr, stop)
}

fn tree_args() -> Map<String, serde_json::Value> {
    serde_json::from_value(json!({"command": TREE, "timeout": 60_000})).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_clients_cancellation_kills_the_process_a_served_call_started() {
    let dir = tempfile::tempdir().unwrap();
    let (addr, stop) = serve(dir.path()).await;
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = ().serve(transport).await.unwrap();

    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(RUN).with_arguments(tree_args()),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let pids = read_pids(dir.path()).await;
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} not running");

    handle
        .cancel(Some("the user pressed stop".into()))
        .await
        .unwrap();
    assert!(
        gone(&pids).await,
        "{pids:?} still running after notifications/cancelled"
    );

    // The session goes on: the next call runs.
    let next =
        client
            .peer()
            .call_tool(CallToolRequestParams::new(RUN).with_arguments(
                serde_json::from_value(json!({"command": "echo still-here"})).unwrap(),
            ))
            .await
            .unwrap();
    assert_eq!(next.is_error, Some(false), "{next:?}");
    assert!(format!("{:?}", next.content).contains("still-here"));
    let _ = client.cancel().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_through_the_manager_kills_the_remote_process() {
    let dir = tempfile::tempdir().unwrap();
    let (addr, stop) = serve(dir.path()).await;
    let manager = Arc::new(McpManager::default());
    manager
        .upsert(McpServerConfig::new(
            "served",
            McpTransport::http(format!("http://{addr}/mcp")),
        ))
        .unwrap();
    let load = tool_mcp::McpProvider::new(Arc::clone(&manager))
        .load_all()
        .await;
    let mut registry = ToolRegistry::new().with_name_rules(tool_core::manifest::NameRules::Foreign);
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }

    // The host's stop button: the context's token, through the pipeline.
    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let offered = registry.offer(&ctx);
    let call = tool_core::ToolCall::new(
        format!("served____{RUN}"),
        serde_json::Value::Object(tree_args()).to_string(),
    );
    let run = tokio::spawn(async move {
        tool_core::Invoker::default()
            .invoke(&offered, &call, &ctx)
            .await
    });
    let pids = read_pids(dir.path()).await;
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} not running");
    token.cancel();
    let out = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.error_code().unwrap(), "cancelled", "{}", out.content);
    assert!(
        gone(&pids).await,
        "{pids:?} still running: the server was not told"
    );

    // Dropping the manager's call future (a host's own timeout) does the same.
    std::fs::remove_file(dir.path().join("pids")).unwrap();
    let call = tokio::spawn({
        let manager = Arc::clone(&manager);
        async move { manager.call_tool("served", RUN, tree_args()).await }
    });
    let pids = read_pids(dir.path()).await;
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} not running");
    assert!(!call.is_finished(), "the command ended by itself");
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    assert!(
        gone(&pids).await,
        "{pids:?} still running after the call future was dropped"
    );
    manager.shutdown().await;
    stop.cancel();
}
