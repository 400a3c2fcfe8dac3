//! Misbehaving servers, as real processes: the hand-written `faults` mode of
//! the Python fixture (`tests/fixtures/python/server.py`), which logs every
//! request it receives, with its process id, to a file.
//!
//! - a `tools/call` whose server died or closed stdout is never sent to the
//!   respawned server: it fails with `mcp_disconnected`, the next call
//!   reconnects; listing is retried;
//! - an answer over the message limit fails its call at once with
//!   `mcp_message_too_large`, and the session goes on;
//! - duplicate and invalid remote tool names are skipped with a finding,
//!   the server's other tools load;
//! - a flood of log notifications ahead of an answer does not lose it, and
//!   every line reaches the call before the answer does.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{python, python_script};
use serde_json::{Map, Value, json};
use tool_mcp::{Error, ManagerOptions, McpManager, McpProvider, McpServerConfig, McpTransport};

/// The `faults` server, logging to `log` and listing the tools in `tools` too.
fn faults(id: &str, log: &Path, tools: Option<&Path>) -> McpServerConfig {
    let mut transport = McpTransport::stdio(
        python().display().to_string(),
        [python_script(), "faults".to_owned()],
    );
    if let McpTransport::Stdio { env, .. } = &mut transport {
        env.insert(
            "TOOL_MCP_FAULT_LOG".into(),
            log.display().to_string().into(),
        );
        if let Some(tools) = tools {
            env.insert(
                "TOOL_MCP_FAULT_TOOLS".into(),
                tools.display().to_string().into(),
            );
        }
    }
    McpServerConfig::new(id, transport).with_startup_timeout(Duration::from_secs(20))
}

/// Every request the server processes received, in order.
fn received(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("{other}"),
    }
}

fn manager(options: ManagerOptions, config: McpServerConfig) -> Arc<McpManager> {
    let manager = Arc::new(McpManager::new(options));
    manager.upsert(config).unwrap();
    manager
}

/// A call that ended its server is not sent again: exactly one process
/// received it, the call fails as disconnected, and the next call runs
/// on a new process.
async fn a_call_that_ends_its_server_is_never_sent_twice(tool: &str) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manager = manager(ManagerOptions::default(), faults("f", &log, None));
    let echo = manager
        .call_tool("f", "echo", args(json!({"message": "before"})))
        .await
        .unwrap();
    assert!(format!("{echo:?}").contains("Echo: before"));
    let first_pid = manager.process_id("f").await.unwrap();

    let started = Instant::now();
    let error = manager
        .call_tool("f", tool, Map::new())
        .await
        .expect_err("the server ended without answering");
    assert!(
        matches!(&error, Error::Disconnected { server, message, .. }
            if server == "f" && message.contains("not sent again")),
        "{error}"
    );
    assert_eq!(error.code(), "mcp_disconnected");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "failed at once"
    );

    let after = manager
        .call_tool("f", "echo", args(json!({"message": "after"})))
        .await
        .unwrap();
    assert!(format!("{after:?}").contains("Echo: after"));
    let second_pid = manager.process_id("f").await.unwrap();
    assert_ne!(first_pid, second_pid, "the next call reconnected");
    assert_eq!(manager.status("f").await.unwrap().sessions_started, 2);

    let requests = received(&log);
    let fatal: Vec<&Value> = requests.iter().filter(|r| r["name"] == tool).collect();
    assert_eq!(
        fatal.len(),
        1,
        "`{tool}` reached one process: {requests:#?}"
    );
    assert_eq!(fatal[0]["pid"], first_pid);
    let after_pids: Vec<&Value> = requests
        .iter()
        .filter(|r| r["name"] == "echo")
        .map(|r| &r["pid"])
        .collect();
    assert_eq!(after_pids, [&json!(first_pid), &json!(second_pid)]);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_server_died_is_not_sent_to_the_respawned_server() {
    a_call_that_ends_its_server_is_never_sent_twice("die").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_server_closed_stdout_is_not_sent_to_the_respawned_server() {
    a_call_that_ends_its_server_is_never_sent_twice("close_stdout").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_after_a_server_died_reconnects_and_lists() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manager = manager(ManagerOptions::default(), faults("f", &log, None));
    manager.catalog("f").await.unwrap();
    let _ = manager.call_tool("f", "die", Map::new()).await.unwrap_err();
    let catalog = manager.refresh("f").await.unwrap();
    assert!(catalog.tool("echo").is_some());
    let lists = received(&log)
        .iter()
        .filter(|r| r["method"] == "tools/list")
        .count();
    assert_eq!(lists, 2, "one listing per process");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_limit_fails_its_call_at_once_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let limit = 64 * 1024;
    let manager = manager(
        ManagerOptions::default().max_message_bytes(limit),
        faults("f", &log, None).with_call_timeout(Duration::from_secs(60)),
    );
    for id_last in [false, true] {
        let started = Instant::now();
        let error = manager
            .call_tool(
                "f",
                "huge",
                args(json!({"bytes": 4 * limit, "id_last": id_last})),
            )
            .await
            .expect_err("over the limit");
        assert!(
            matches!(&error, Error::MessageTooLarge { server, operation, limit: l }
                if server == "f" && operation == "tools/call" && *l == limit),
            "{error}"
        );
        assert_eq!(error.code(), "mcp_message_too_large");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "failed at once, not after the 60 s timeout"
        );
    }
    // Just under the limit passes; the same session served everything.
    let fits = manager
        .call_tool("f", "huge", args(json!({"bytes": limit - 200})))
        .await
        .unwrap();
    assert!(serde_json::to_string(&fits).unwrap().len() > limit - 200);
    assert_eq!(manager.status("f").await.unwrap().sessions_started, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_and_invalid_remote_names_are_skipped_and_the_other_tools_load() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let tools = dir.path().join("tools.json");
    let long = "n".repeat(300);
    let obj = json!({"type": "object"});
    std::fs::write(
        &tools,
        serde_json::to_vec(&json!([
            {"name": "echo", "description": "a second echo", "inputSchema": obj},
            {"name": "", "inputSchema": obj},
            {"name": "bell\u{7}", "inputSchema": obj},
            {"name": long, "inputSchema": obj},
            {"name": "bad_schema", "inputSchema": {"type": "string"}},
            {"name": "files/read ünïcode", "inputSchema": obj},
        ]))
        .unwrap(),
    )
    .unwrap();
    let manager = manager(ManagerOptions::default(), faults("f", &log, Some(&tools)));
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    assert_eq!(load.tools.len(), 1);
    let manifest = load.tools[0].manifest();
    let names: Vec<&str> = manifest.api.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "die",
            "close_stdout",
            "huge",
            "flood",
            "files/read ünïcode"
        ]
    );
    assert_eq!(
        manifest.api[0].description, "Echoes the message back.",
        "the first `echo` is kept"
    );
    let skipped = match &load.reports[0] {
        tool_mcp::ServerReport::Loaded { skipped, .. } => skipped,
        other => panic!("{other:?}"),
    };
    assert_eq!(skipped.len(), 5, "{skipped:#?}");
    let text: Vec<String> = skipped.iter().map(ToString::to_string).collect();
    assert!(text[0].contains("twice"), "{}", text[0]);
    // Any registry takes what loaded, whole: the tool declares foreign
    // name rules itself (`files/read ünïcode` is no strict name).
    let mut registry = tool_core::ToolRegistry::new();
    let registered = registry.register_all(load.tools);
    assert!(registered.is_complete(), "{:?}", registered.failed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_behind_a_flood_of_log_notifications_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manager = manager(ManagerOptions::default(), faults("f", &log, None));
    let result = manager
        .call_tool("f", "flood", args(json!({"count": 20_000})))
        .await
        .unwrap();
    assert!(format!("{result:?}").contains("flooded 20000"));
    let echo = manager
        .call_tool("f", "echo", args(json!({"message": "still here"})))
        .await
        .unwrap();
    assert!(format!("{echo:?}").contains("still here"));
}

/// Counts the log lines a call hears.
#[derive(Default)]
struct Heard(std::sync::atomic::AtomicUsize);

impl tool_core::CallEvents for Heard {
    fn progress(&self, _: Option<&str>, _: &tool_core::Progress) {}

    fn log(&self, _: Option<&str>, level: tool_core::LogLevel, message: &str, _: Option<&Value>) {
        assert_eq!((level, message), (tool_core::LogLevel::Info, "tick"));
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_log_line_of_a_flood_reaches_the_call_before_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manager = manager(ManagerOptions::default(), faults("f", &log, None));
    let heard = Arc::new(Heard::default());
    let result = manager
        .call_tool_with_events(
            "f",
            "flood",
            args(json!({"count": 5_000})),
            Arc::clone(&heard) as Arc<dyn tool_core::CallEvents>,
        )
        .await
        .unwrap();
    assert!(format!("{result:?}").contains("flooded 5000"));
    assert_eq!(heard.0.load(std::sync::atomic::Ordering::Relaxed), 5_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_know_discover_is_initialized_on_the_same_process() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let manager = McpManager::default();
    manager.upsert(faults("old", &log, None)).unwrap();
    manager.catalog("old").await.unwrap();
    let seen = received(&log);
    let methods: Vec<&str> = seen.iter().filter_map(|r| r["method"].as_str()).collect();
    assert_eq!(
        &methods[..3],
        ["server/discover", "initialize", "notifications/initialized"],
        "{seen:?}"
    );
    let pids: std::collections::BTreeSet<i64> =
        seen.iter().filter_map(|r| r["pid"].as_i64()).collect();
    assert_eq!(pids.len(), 1, "one process: {seen:?}");
    let status = manager.status("old").await.unwrap();
    assert_eq!(status.protocol_version.as_deref(), Some("2025-11-25"));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stays_after_its_input_closes_gets_sigterm_before_it_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("received.jsonl");
    let mut config = faults("lingering", &log, None);
    if let McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("TOOL_MCP_FAULT_LINGER".into(), "1".to_owned().into());
    }
    let manager = McpManager::default();
    manager.upsert(config).unwrap();
    manager.catalog("lingering").await.unwrap();
    let closed = Instant::now();
    manager.disconnect("lingering").await;
    let mut seen = Vec::new();
    for _ in 0..300 {
        seen = received(&log);
        if seen.iter().any(|r| r["signal"] == "SIGTERM") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let after = closed.elapsed();
    assert!(
        seen.iter().any(|r| r["stdin"] == "closed"),
        "its input was closed first: {seen:?}"
    );
    assert!(
        seen.iter().any(|r| r["signal"] == "SIGTERM"),
        "SIGTERM, not only SIGKILL: {seen:?}"
    );
    assert!(
        after >= Duration::from_millis(400),
        "it had its grace before SIGTERM ({after:?})"
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_once_fails_the_handshake_with_its_stderr_tail() {
    let manager = McpManager::default();
    // Lines before the tail are cut to the kept limit; the last one is
    // what the user needs to see.
    let script = "for i in $(seq 1 2000); do echo \"noise line $i\" >&2; done; \
                  echo 'fatal: missing API token' >&2; exit 3";
    manager
        .upsert(
            McpServerConfig::new("quits", McpTransport::stdio("sh", ["-c", script]))
                .with_startup_timeout(Duration::from_secs(10)),
        )
        .unwrap();
    let error = manager.connect("quits").await.unwrap_err();
    let Error::Handshake { stderr, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(
        stderr.trim_end().ends_with("fatal: missing API token"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("noise line 1\n"),
        "the tail only: {stderr}"
    );
    assert!(
        error.to_string().contains("fatal: missing API token"),
        "{error}"
    );
}
