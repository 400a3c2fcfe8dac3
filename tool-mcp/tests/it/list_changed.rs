//! `notifications/tools/list_changed` from a real server (the pinned Python
//! `mcp` SDK fixture, whose `grow` / `shrink` tools add and remove a tool
//! and notify) rebuilds that server's tool in a `LiveRegistry`; a call to a
//! removed tool through an older snapshot gets a typed error. The SDK
//! speaks 2026-07-28, where the change arrives on the client's
//! `subscriptions/listen` stream; pinned to 2025-11-25, on the session.

use std::sync::Arc;
use std::time::Duration;

use crate::common::*;
use tool_core::{
    Invoker, LiveRegistry, OfferedTools, ToolCall, ToolContext, ToolOutput, ToolRegistry,
    manifest::NameRules,
};
use tool_mcp::{McpManager, McpProtocol, McpProvider, McpServerConfig, McpTransport, ServerReport};

async fn invoke(offered: &OfferedTools, api: &str, args: &str) -> ToolOutput {
    let wire = offered
        .resolve_pair("py", api)
        .unwrap()
        .wire_name
        .to_owned();
    Invoker::default()
        .invoke(offered, &ToolCall::new(wire, args), &ToolContext::new())
        .await
}

async fn grow_and_shrink(config: McpServerConfig) {
    let manager = Arc::new(McpManager::default());
    manager.upsert(config).unwrap();
    let live = LiveRegistry::from(ToolRegistry::new().with_name_rules(NameRules::Foreign));
    let load = McpProvider::new(Arc::clone(&manager))
        .load_live(&live)
        .await;
    assert!(
        matches!(load.reports[0], ServerReport::Loaded { .. }),
        "{:?}",
        load.reports
    );
    assert!(load.not_registered.is_empty());
    let sync = load.sync;
    let ctx = ToolContext::new();
    let before = live.offer(&ctx);
    assert!(before.resolve_pair("py", "shout").is_err());

    let grown = invoke(&before, "grow", r#"{"name": "shout"}"#).await;
    assert_eq!(grown.content, "added shout", "{grown:?}");
    tokio::time::timeout(Duration::from_secs(10), sync.rebuilt_after(0))
        .await
        .expect("list_changed rebuilt the tool");
    assert!(sync.errors().is_empty(), "{:?}", sync.errors());
    let grown_snapshot = live.offer(&ctx);
    assert_ne!(grown_snapshot.generation(), before.generation());
    let shout = invoke(&grown_snapshot, "shout", r#"{"text": "hi"}"#).await;
    assert_eq!(shout.content, "shout: hi", "{shout:?}");
    let api = grown_snapshot.resolve_pair("py", "shout").unwrap();
    assert_eq!(api.api.description, "Added at run time as shout.");

    let shrunk = invoke(&grown_snapshot, "shrink", r#"{"name": "shout"}"#).await;
    assert_eq!(shrunk.content, "removed shout", "{shrunk:?}");
    tokio::time::timeout(Duration::from_secs(10), sync.rebuilt_after(1))
        .await
        .expect("the second list_changed rebuilt the tool");
    let now = live.offer(&ctx);
    assert!(
        now.resolve_pair("py", "shout").is_err(),
        "removed from the offer"
    );
    assert!(now.resolve_pair("py", "echo").is_ok(), "the others stay");

    // The older snapshot still names `shout`; calling it is a typed error,
    // never a call the server would have to refuse.
    let stale = invoke(&grown_snapshot, "shout", r#"{"text": "late"}"#).await;
    assert!(!stale.success);
    assert_eq!(stale.error_code().unwrap(), "mcp_tool_removed", "{stale:?}");
    assert!(stale.content.contains("shout"), "{stale:?}");

    let status = manager.status("py").await.unwrap();
    assert_eq!(status.list_changes, 2);
    assert_eq!(status.sessions_started, 1, "one session throughout");
    drop(sync);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_over_stdio_rebuilds_the_servers_tool() {
    grow_and_shrink(python_stdio("py", "stdio")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_on_a_2025_11_25_session_rebuilds_the_servers_tool() {
    grow_and_shrink(python_stdio("py", "stdio").with_protocol(McpProtocol::V2025_11_25)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_over_streamable_http_rebuilds_the_servers_tool() {
    let server = python_http().await;
    grow_and_shrink(McpServerConfig::new(
        "py",
        McpTransport::http(server.url.clone()),
    ))
    .await;
}
