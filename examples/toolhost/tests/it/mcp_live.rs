//! `toolhost mcp serve` over a third-party server that changes its tool
//! list (the pinned Python `mcp` SDK fixture of tool-mcp): the served list
//! follows, and toolhost tells its own client with
//! `notifications/tools/list_changed`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_mcp::{McpManager, McpServerConfig, McpTransport, map_call_result};

use test_support::fixtures as setup;

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

/// A rug pull through a real MCP server (`fixtures/rug_pull/server.py` on
/// the pinned Python `mcp` SDK): toolhost pins the definitions the first
/// time they are listed (`toolhost --session S tools`); when the server
/// later offers a changed `add` (a description that addresses the model
/// about other tools, a new argument) and `lookup` under a new name, the
/// next run reports the diff, the rename and the addressing, and the
/// changed tool's call asks with `pin/changed` instead of running.
#[test]
fn a_changed_mcp_definition_asks_with_its_diff_and_a_renamed_one_is_reported() {
    let (python, _) = python_fixture();
    let dir = tempfile::tempdir().unwrap();
    let server =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rug_pull/server.py");
    let upstream = format!(
        "{} {} {}",
        python.display(),
        server.display(),
        dir.path().join("listed").display()
    );
    let session = dir.path().join("session.json");
    let toolhost = |args: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .arg("--cwd")
            .arg(dir.path())
            .arg("--session")
            .arg(&session)
            // The approval policy runs every call: what asks is the pin.
            .arg("--mode")
            .arg("auto-run")
            .arg("--mcp-stdio")
            .arg(&upstream)
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    };

    let first = toolhost(&["tools"]);
    assert!(
        first["session"].get("pins").is_none(),
        "first listing: pinned quietly: {}",
        first["session"]
    );
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    let pinned = stored["state"]["pins"].to_string();
    assert!(
        pinned.contains("add") && pinned.contains("lookup"),
        "{pinned}"
    );

    // The server starts again, its definitions changed.
    let second = toolhost(&["call", "mcp1____add", r#"{"a": 1, "b": 2}"#]);
    // The approval policy let it run; the session's gate held it.
    let output = &second["output"];
    assert_eq!(output["error"]["code"], "approval_required", "{second}");
    assert_eq!(
        output["state"]["decision"]["rule"], "pin/changed",
        "{second}"
    );
    assert!(
        output["content"]
            .as_str()
            .unwrap()
            .contains("/parameters/properties/sidenote"),
        "the held call names what changed: {second}"
    );
    let pins = &second["session"]["pins"];
    let changed = pins["changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{pins}");
    assert!(
        changed[0]["api"].as_str().unwrap().ends_with("/add"),
        "{pins}"
    );
    let pointers: Vec<&str> = changed[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["pointer"].as_str())
        .collect();
    assert!(pointers.contains(&"/description"), "{pins}");
    assert!(
        pointers.iter().any(|p| p.contains("sidenote")),
        "the new argument is in the diff: {pins}"
    );
    let renamed = pins["renamed"].as_array().unwrap();
    assert_eq!(renamed.len(), 1, "{pins}");
    assert!(
        renamed[0]["from"].as_str().unwrap().ends_with("/lookup"),
        "{pins}"
    );
    assert!(
        renamed[0]["to"].as_str().unwrap().ends_with("/lookup_v2"),
        "{pins}"
    );
    assert!(
        pins["addressing"].to_string().contains("before using"),
        "{pins}"
    );
}
