//! `toolhost mcp serve` over a third-party server that changes its tool
//! list (the pinned Python `mcp` SDK fixture of tool-mcp): the served list
//! follows, and toolhost tells its own client with
//! `notifications/tools/list_changed`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_mcp::{McpManager, McpServerConfig, McpTransport, map_call_result};

#[path = "../../../.ci/fixtures.rs"]
mod setup;

fn python_fixture() -> (PathBuf, PathBuf) {
    setup::ensure("30-mcp.sh");
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tool-mcp/tests/fixtures/python");
    let python = dir.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing after `.ci/setup.d/30-mcp.sh` ran",
        python.display()
    );
    (python, dir.join("server.py"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_mcp_servers_list_changes_reach_toolhosts_clients() {
    let (python, script) = python_fixture();
    let cwd = tempfile::tempdir().unwrap();
    let upstream = format!("{} {} stdio", python.display(), script.display());
    let manager = Arc::new(McpManager::default());
    manager
        .upsert(
            McpServerConfig::new(
                "host",
                McpTransport::stdio(
                    env!("CARGO_BIN_EXE_toolhost"),
                    [
                        "--cwd".to_owned(),
                        cwd.path().display().to_string(),
                        "--mode".into(),
                        "auto-run".into(),
                        "--mcp-stdio".into(),
                        upstream,
                        "mcp".into(),
                        "serve".into(),
                    ],
                ),
            )
            .with_startup_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    let mut changes = manager.tool_list_changes();
    let before = manager.catalog("host").await.unwrap();
    assert!(before.tool("mcp1____grow").is_some(), "{:?}", before.tools);
    assert!(before.tool("mcp1____shout").is_none());

    let args = |v: serde_json::Value| v.as_object().unwrap().clone();
    let grown = manager
        .call_tool("host", "mcp1____grow", args(json!({"name": "shout"})))
        .await
        .unwrap();
    assert_eq!(
        map_call_result("host", "grow", grown).content,
        "added shout"
    );
    let told = tokio::time::timeout(Duration::from_secs(15), changes.recv())
        .await
        .expect("toolhost announced the change")
        .unwrap();
    assert_eq!(told, "host");

    let after = manager.catalog("host").await.unwrap();
    assert!(after.tool("mcp1____shout").is_some(), "{:?}", after.tools);
    let shout = manager
        .call_tool("host", "mcp1____shout", args(json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(map_call_result("host", "shout", shout).content, "shout: hi");
    assert_eq!(manager.status("host").await.unwrap().sessions_started, 1);
    manager.shutdown().await;
}
