//! Our client (`ManagerOptions::tasks`) following the tasks a server of
//! the tasks extension (SEP-2663; `RegistryServer::with_task_tools`, on
//! real HTTP at 127.0.0.1) makes of its calls, on both revisions: in
//! process, detached and taken up by handle from a fresh manager, and
//! through the pipeline (`McpTool`), whose events get the handle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::{Elicited, ToolContext};
use tool_mcp::{
    ManagerOptions, McpManager, McpProtocol, McpServerConfig, McpTransport, TaskSupport,
};

use super::tasks::{jobs, stops_within, text};

/// The log lines a call's events get.
#[derive(Default)]
struct StatusLines(std::sync::Mutex<Vec<String>>);

impl tool_core::CallEvents for StatusLines {
    fn progress(&self, _: Option<&str>, _: &tool_core::Progress) {}

    fn log(
        &self,
        _: Option<&str>,
        _: tool_core::LogLevel,
        message: &str,
        _: Option<&serde_json::Value>,
    ) {
        self.0.lock().unwrap().push(message.to_owned());
    }
}

/// Accepts every question with `{"go": true}`, counting them.
#[derive(Default)]
struct SaysGo(std::sync::atomic::AtomicUsize);

#[async_trait::async_trait]
impl tool_mcp::ElicitationHandler for SaysGo {
    async fn elicit(&self, _server: &str, _message: &str, _schema: &serde_json::Value) -> Elicited {
        self.0.fetch_add(1, Ordering::SeqCst);
        Elicited::Accept(json!({"go": true}))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_follows_the_tasks_a_server_makes_of_its_calls_on_both_revisions() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped))).with_task_tools([
        ("jobs____quick", TaskSupport::Required),
        ("jobs____boom", TaskSupport::Required),
        ("jobs____panics", TaskSupport::Required),
        ("jobs____asks", TaskSupport::Required),
        ("jobs____sleep", TaskSupport::Required),
    ]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let config = |id: &str| {
            McpServerConfig::new(id, McpTransport::http(url.clone()))
                .with_protocol(protocol)
                .with_call_timeout(Duration::from_secs(10))
        };
        // Without the option the client declares no tasks: a tool the
        // server runs only as a task is refused with -32021.
        let plain = McpManager::default();
        plain.upsert(config("plain")).unwrap();
        let refused = plain
            .call_tool("plain", "jobs____quick", Default::default())
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("Missing required client capability"),
            "{protocol:?}: {refused}"
        );

        let asked = Arc::new(SaysGo::default());
        let manager = McpManager::new(
            ManagerOptions::default()
                .tasks(true)
                .elicitation(Arc::clone(&asked) as Arc<dyn tool_mcp::ElicitationHandler>),
        );
        manager.upsert(config("tasks")).unwrap();

        // The task's result is the call's result; its status reaches the
        // call's events.
        let lines = Arc::new(StatusLines::default());
        let done = manager
            .call_tool_with_events("tasks", "jobs____quick", Default::default(), lines.clone())
            .await
            .unwrap();
        assert_eq!(text(&done), "done", "{protocol:?}");
        let seen = lines.0.lock().unwrap().clone();
        assert!(
            seen.iter()
                .any(|l| l.starts_with("task `") && l.ends_with(": completed")),
            "{protocol:?}: {seen:?}"
        );

        // A tool's own failure: a result with isError.
        let failed = manager
            .call_tool("tasks", "jobs____boom", Default::default())
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true), "{protocol:?}");

        // A failed task is the server's error.
        let broken = manager
            .call_tool("tasks", "jobs____panics", Default::default())
            .await
            .unwrap_err();
        assert!(
            broken.to_string().contains("panicked"),
            "{protocol:?}: {broken}"
        );

        // The task's question goes to the host's handler, once, and its
        // answer back by tasks/update.
        let answered = manager
            .call_tool("tasks", "jobs____asks", Default::default())
            .await
            .unwrap();
        assert_eq!(text(&answered), r#"answered {"go":true}"#, "{protocol:?}");
        assert_eq!(asked.0.swap(0, Ordering::SeqCst), 1, "asked once");

        // A call dropped before its task settles cancels the task: the
        // tool's call stops.
        stopped.store(false, Ordering::SeqCst);
        let dropped = tokio::time::timeout(
            Duration::from_millis(700),
            manager.call_tool("tasks", "jobs____sleep", Default::default()),
        )
        .await;
        assert!(dropped.is_err(), "the sleep task outlasts the wait");
        assert!(
            stops_within(&stopped, Duration::from_millis(2000)).await,
            "{protocol:?}: the abandoned task was cancelled and its call stopped"
        );
        manager.shutdown().await;
        plain.shutdown().await;
    }
    stop.cancel();
}

fn task_keys(byte: u8) -> tool_mcp::TaskKeys {
    tool_mcp::TaskKeys::new(tool_mcp::TaskKey::new(format!("k{byte}"), [byte; 32]).unwrap())
}

/// A manager as a fresh process would make it: nothing shared with the
/// one that started the task but the configuration and the keys.
fn fresh_manager(url: &str, protocol: McpProtocol, keys: Option<u8>) -> McpManager {
    let mut options = ManagerOptions::default().tasks(true);
    if let Some(byte) = keys {
        options = options.task_keys(task_keys(byte));
    }
    let manager = McpManager::new(options);
    manager
        .upsert(
            McpServerConfig::new("tasks", McpTransport::http(url.to_owned()))
                .with_protocol(protocol)
                .with_call_timeout(Duration::from_secs(10)),
        )
        .unwrap();
    manager
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_task_is_read_waited_for_and_cancelled_by_handle_from_a_fresh_manager() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped))).with_task_tools([
        ("jobs____quick", TaskSupport::Required),
        ("jobs____sleep", TaskSupport::Required),
    ]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let approval = json!({"action": "run", "rule": "jobs are fine"});
        // No keys: no handle is made, and nothing is sent.
        let keyless = fresh_manager(&url, protocol, None);
        let err = keyless
            .start_task(
                "tasks",
                "jobs____quick",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.code(), "mcp_task_handle", "{protocol:?}: {err}");

        let starter = fresh_manager(&url, protocol, Some(1));
        let started = starter
            .start_task(
                "tasks",
                "jobs____quick",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap();
        let tool_mcp::McpTaskStart::Task(handle) = started else {
            panic!("{protocol:?}: the server made no task: {started:?}");
        };
        assert_eq!(handle.approval, approval);
        // The starter goes away; the handle travels as text.
        starter.shutdown().await;
        drop(starter);
        let text_form = handle.to_json();

        let resumed = fresh_manager(&url, protocol, Some(1));
        let handle = tool_mcp::McpTaskHandle::from_json(&text_form).unwrap();
        let mut seen = Vec::new();
        let done = resumed
            .wait_task(&handle, |s| seen.push(s.status.clone()))
            .await
            .unwrap();
        assert_eq!(done.status, "completed", "{protocol:?}");
        assert_eq!(text(done.result.as_ref().unwrap()), "done", "{protocol:?}");
        assert_eq!(seen.last().map(String::as_str), Some("completed"));

        // A long task, cancelled by handle from yet another manager: the
        // tool's call stops.
        stopped.store(false, Ordering::SeqCst);
        let starter = fresh_manager(&url, protocol, Some(1));
        let tool_mcp::McpTaskStart::Task(sleeping) = starter
            .start_task(
                "tasks",
                "jobs____sleep",
                Default::default(),
                approval.clone(),
            )
            .await
            .unwrap()
        else {
            panic!("{protocol:?}: no task for sleep");
        };
        starter.shutdown().await;
        let canceller = fresh_manager(&url, protocol, Some(1));
        let working = canceller.task_status(&sleeping).await.unwrap();
        assert_eq!(working.status, "working", "{protocol:?}");
        // Edited handles and foreign keys are refused before anything is
        // sent: the task keeps running.
        let mut edited = sleeping.clone();
        edited.approval = json!({"action": "run", "rule": "anything goes"});
        let err = canceller.cancel_task(&edited).await.unwrap_err();
        assert_eq!(err.code(), "mcp_task_handle", "{protocol:?}: {err}");
        let foreign = fresh_manager(&url, protocol, Some(2));
        let err = foreign.cancel_task(&sleeping).await.unwrap_err();
        assert!(err.to_string().contains("no key with id `k1`"), "{err}");
        // The same id configured somewhere else now.
        let moved = McpManager::new(ManagerOptions::default().task_keys(task_keys(1)));
        moved
            .upsert(McpServerConfig::new(
                "tasks",
                McpTransport::http("http://127.0.0.1:9/mcp"),
            ))
            .unwrap();
        let err = moved.task_status(&sleeping).await.unwrap_err();
        assert!(err.to_string().contains("somewhere else"), "{err}");
        assert!(
            !stopped.load(Ordering::SeqCst),
            "{protocol:?}: still running"
        );

        let cancelled = canceller.cancel_task(&sleeping).await.unwrap();
        assert_eq!(cancelled.status, "cancelled", "{protocol:?}");
        assert!(
            stops_within(&stopped, Duration::from_millis(2000)).await,
            "{protocol:?}: the cancelled task's call stopped"
        );
        canceller.shutdown().await;
        foreign.shutdown().await;
        resumed.shutdown().await;
    }
    stop.cancel();
}

/// The data of the log lines a call's events get.
#[derive(Default)]
struct LogData(std::sync::Mutex<Vec<serde_json::Value>>);

impl tool_core::CallEvents for LogData {
    fn progress(&self, _: Option<&str>, _: &tool_core::Progress) {}

    fn log(
        &self,
        _: Option<&str>,
        _: tool_core::LogLevel,
        _: &str,
        data: Option<&serde_json::Value>,
    ) {
        self.0.lock().unwrap().extend(data.cloned());
    }
}

impl LogData {
    fn handle(&self) -> Option<tool_mcp::McpTaskHandle> {
        let data = self.0.lock().unwrap();
        let handle = data.iter().find_map(|d| d.get("handle"))?;
        Some(serde_json::from_value(handle.clone()).unwrap())
    }
}

/// A call through the pipeline (`McpTool`) that the server makes a task
/// tells the call's events the task's handle as soon as it is made (with
/// task keys), bound to the call; another manager holding the same keys
/// (a process after a crash) finds the task by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_call_made_a_task_tells_its_events_the_handle() {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = crate::common::served(jobs(Arc::clone(&stopped)))
        .with_task_tools([("jobs____quick", TaskSupport::Required)]);
    let (url, stop) = crate::common::serve_http(server).await;
    for protocol in [McpProtocol::V2026_07_28, McpProtocol::V2025_11_25] {
        let manager = Arc::new(fresh_manager(&url, protocol, Some(3)));
        let registry = crate::common::registry_of(&manager).await;
        let data = Arc::new(LogData::default());
        let ctx = ToolContext::new().with_events(data.clone());
        let out = crate::common::call_in(&registry, "tasks", "jobs____quick", "{}", &ctx).await;
        assert!(
            out.success && out.content == "done",
            "{protocol:?}: {out:?}"
        );
        let handle = data
            .handle()
            .unwrap_or_else(|| panic!("{protocol:?}: no handle in {:?}", data.0.lock()));
        assert_eq!(
            (handle.server.as_str(), handle.tool.as_str()),
            ("tasks", "jobs____quick")
        );
        assert_eq!(handle.approval["via"], "pipeline", "{protocol:?}");
        // The pipeline's own id of the call.
        assert!(
            handle.approval["callId"]
                .as_str()
                .is_some_and(|id| !id.is_empty()),
            "{protocol:?}: {:?}",
            handle.approval
        );
        let later = fresh_manager(&url, protocol, Some(3));
        let status = later.task_status(&handle).await.unwrap();
        assert_eq!(status.status, "completed", "{protocol:?}: {status:?}");
        assert_eq!(text(status.result.as_ref().unwrap()), "done");
        // Other keys: the handle is refused before the server hears of it.
        let other = fresh_manager(&url, protocol, Some(4));
        let refused = other.task_status(&handle).await.unwrap_err();
        assert_eq!(refused.code(), "mcp_task_handle", "{protocol:?}: {refused}");
        manager.shutdown().await;

        // Without keys no handle is made; the call is the same.
        let keyless = Arc::new(fresh_manager(&url, protocol, None));
        let registry = crate::common::registry_of(&keyless).await;
        let data = Arc::new(LogData::default());
        let ctx = ToolContext::new().with_events(data.clone());
        let out = crate::common::call_in(&registry, "tasks", "jobs____quick", "{}", &ctx).await;
        assert!(out.success, "{protocol:?}: {out:?}");
        assert!(data.handle().is_none(), "{protocol:?}");
        keyless.shutdown().await;
    }
    stop.cancel();
}
