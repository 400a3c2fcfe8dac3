//! 2025-11-25 tasks (experimental in that revision, SEP-1686), client
//! side: a tool a 2025-11-25 server lists with `execution.taskSupport:
//! "required"` (or `"optional"`, with
//! [`ManagerOptions::tasks`](crate::ManagerOptions::tasks)) is called as a
//! task: `tools/call` with `task: {"ttl"}`, answered by a
//! `CreateTaskResult`; then `tasks/get` at the server's `pollInterval`
//! (kept between [`MIN_POLL`] and [`MAX_POLL`]) while it is `working`, and
//! `tasks/result` once it is not (that request waits for the end and
//! carries the task's questions, `elicitation/create` with the related
//! task, to the session's handler as any other). A call dropped before the
//! task ends cancels it (`tasks/cancel`). rmcp 3.11 knows none of this
//! revision's task requests nor the listing's `execution` (read by
//! [`listed_execution`](crate::client::listed_execution)): they go as
//! custom requests and their answers are read as JSON.
//!
//! Detached ([`McpManager::start_task`](crate::McpManager::start_task)
//! and the calls by handle): [`start`] sends the call as a task and hands
//! back what the server made of it without following it; [`look`] is one
//! `tasks/get` (and, once the task is no longer `working`, the
//! `tasks/result` that brings its questions to the session's handler and
//! its end); [`cancel`] is `tasks/cancel`. A 2025-11-25 server keeps a
//! task in the session that made it, so a handle of such a server is used
//! on the session that started it (a new session finds no task).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest, TASKS_EXTENSION_ID, Task,
    TaskStatus,
};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleClient, ServiceError};
use serde_json::{Value, json};

use crate::client::abandon::OnAbandon;
use crate::client::listed_execution::ListedTaskSupport;
use crate::client::remote_rounds::{Reached, Rounds};
use crate::client::remote_tasks::{MAX_POLL, MIN_POLL};
use crate::client::session::{Lifecycle, Session};

/// How long the server is asked to keep a task (`task.ttl`): five minutes.
pub(crate) const TASK_TTL_MS: u64 = 5 * 60 * 1000;

/// The wait between two `tasks/get` when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

fn failed(message: String) -> ServiceError {
    ServiceError::McpError(ErrorData::internal_error(message, None))
}

/// Whether a call of `tool` on `session` goes as a 2025-11-25 task: the
/// server lists it with task support and keeps its tasks by this revision
/// ([`uses_2025_tasks`]; a server that declared the tasks extension makes
/// a task of a plain call itself, on either revision).
pub(crate) fn wanted(session: &Session, tool: &str) -> bool {
    uses_2025_tasks(session)
        && match session.hooks().listed.task_support(tool) {
            Some(ListedTaskSupport::Required) => true,
            Some(ListedTaskSupport::Optional) => session.hooks().tasks,
            None => false,
        }
}

/// One request rmcp has no type for; its answer as JSON.
async fn send(peer: &Peer<RoleClient>, method: &str, params: Value) -> Result<Value, ServiceError> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    let answer = peer.send_request(request).await?;
    serde_json::to_value(answer).map_err(|e| failed(format!("{method}: {e}")))
}

fn poll_of(task: &Value) -> Duration {
    task.get("pollInterval")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

fn tool_result(method: &str, answer: Value) -> Result<CallToolResult, ServiceError> {
    serde_json::from_value(answer)
        .map_err(|e| failed(format!("{method} answered with no tool result: {e}")))
}

/// Calls `params` as a task and follows it to its end (see the module guide).
pub(crate) async fn call_as_task(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
) -> Result<CallToolResult, ServiceError> {
    let mut raw = serde_json::to_value(&params).map_err(|e| failed(e.to_string()))?;
    raw["task"] = json!({ "ttl": TASK_TTL_MS });
    let created = send(peer, "tools/call", raw).await?;
    let Some(task) = created.get("task").filter(|t| t.is_object()) else {
        // The server ran the call at once.
        return tool_result("tools/call", created);
    };
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| failed("tools/call made a task without a `taskId`".to_owned()))?
        .to_owned();
    let mut poll = poll_of(task);
    let task_id = id.clone();
    let mut guard = OnAbandon::new(peer, move |peer| async move {
        if let Err(error) = send(&peer, "tasks/cancel", json!({"taskId": task_id})).await {
            tracing::debug!(task = %task_id, %error, "tasks/cancel of an abandoned task failed");
        }
    });
    loop {
        let got = send(peer, "tasks/get", json!({ "taskId": id })).await?;
        match got.get("status").and_then(Value::as_str) {
            Some("working") => {
                poll = got.get("pollInterval").map_or(poll, |_| poll_of(&got));
                tokio::time::sleep(poll).await;
            }
            Some("cancelled") => {
                guard.disarm();
                return Err(failed(format!("the server cancelled task `{id}`")));
            }
            Some("input_required" | "completed" | "failed") => {
                // Waits for the end; the task's questions come through it.
                let result = send(peer, "tasks/result", json!({ "taskId": id })).await;
                guard.disarm();
                return tool_result("tasks/result", result?);
            }
            other => {
                return Err(failed(format!(
                    "tasks/get of `{id}` answered with status {other:?}, which this client does not know"
                )));
            }
        }
    }
}

/// A 2025-11-25 task as [`look`] saw it (the fields of
/// [`McpTaskStatus`](crate::McpTaskStatus), which has no questions here:
/// they go to the session's handler).
#[derive(Debug)]
pub(crate) struct Looked {
    pub task_id: String,
    pub status: String,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
    pub result: Option<CallToolResult>,
    pub error: Option<Value>,
}

/// Whether `session` lists `tool` with task support (required or
/// optional): a detached start asks for a task only then.
pub(crate) fn supports_tasks(session: &Session, tool: &str) -> bool {
    session.hooks().listed.task_support(tool).is_some()
}

/// Sends `params` as a task and returns at once: the task the server made
/// of it (`Reached::Task`, its id and ttl), or the result when it ran the
/// call at once.
pub(crate) async fn start(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    as_task: bool,
) -> Result<Reached, ServiceError> {
    let mut raw = serde_json::to_value(&params).map_err(|e| failed(e.to_string()))?;
    if as_task {
        raw["task"] = json!({ "ttl": TASK_TTL_MS });
    }
    let created = send(peer, "tools/call", raw).await?;
    let Some(task) = created.get("task").filter(|t| t.is_object()) else {
        return tool_result("tools/call", created).map(|r| Reached::Rounds(Rounds::Done(r)));
    };
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| failed("tools/call made a task without a `taskId`".to_owned()))?;
    let text = |key: &str| task.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut made = Task::new(
        id,
        TaskStatus::Working,
        text("createdAt"),
        text("lastUpdatedAt"),
    );
    made.ttl_ms = task.get("ttl").and_then(Value::as_u64);
    made.poll_interval_ms = task.get("pollInterval").and_then(Value::as_u64);
    Ok(Reached::Task(made))
}

/// Task `id` as the server sees it: one `tasks/get`; when it is no longer
/// `working` (questions waiting, or ended), `tasks/result` too, which
/// carries its questions to the session's handler and answers with its
/// end: the call's result, or the error it failed with.
pub(crate) async fn look(peer: &Peer<RoleClient>, id: &str) -> Result<Looked, ServiceError> {
    let got = send(peer, "tasks/get", json!({ "taskId": id })).await?;
    let text = |key: &str| got.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut status = Looked {
        task_id: text("taskId").unwrap_or_else(|| id.to_owned()),
        status: text("status").unwrap_or_else(|| "unknown".to_owned()),
        status_message: text("statusMessage"),
        poll_interval_ms: got.get("pollInterval").and_then(Value::as_u64),
        ttl_ms: got.get("ttl").and_then(Value::as_u64),
        result: None,
        error: None,
    };
    if matches!(
        status.status.as_str(),
        "input_required" | "completed" | "failed"
    ) {
        match send(peer, "tasks/result", json!({ "taskId": id })).await {
            Ok(answer) => {
                let result = tool_result("tasks/result", answer)?;
                status.status = if result.is_error == Some(true) {
                    "failed"
                } else {
                    "completed"
                }
                .to_owned();
                status.result = Some(result);
            }
            Err(ServiceError::McpError(error)) => {
                status.status = "failed".to_owned();
                status.error = serde_json::to_value(&error).ok();
            }
            Err(other) => return Err(other),
        }
    }
    Ok(status)
}

/// `tasks/cancel` of task `id`.
pub(crate) async fn cancel(peer: &Peer<RoleClient>, id: &str) -> Result<(), ServiceError> {
    send(peer, "tasks/cancel", json!({ "taskId": id }))
        .await
        .map(drop)
}

/// Whether a detached task on `session` is this module's: the session
/// speaks 2025-11-25 and the server did not declare the tasks extension
/// (a server that did, such as ours, keeps its tasks by that extension on
/// either revision).
pub(crate) fn uses_2025_tasks(session: &Session) -> bool {
    session.lifecycle() == Lifecycle::Initialize
        && !session.peer().peer_info().is_some_and(|info| {
            info.capabilities
                .extensions
                .as_ref()
                .is_some_and(|declared| declared.contains_key(TASKS_EXTENSION_ID))
        })
}
