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

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleClient, ServiceError};
use serde_json::{Value, json};

use crate::client::listed_execution::ListedTaskSupport;
use crate::client::remote_tasks::{MAX_POLL, MIN_POLL};
use crate::client::session::{Lifecycle, Session};

/// How long the server is asked to keep a task (`task.ttl`): five minutes.
pub(crate) const TASK_TTL_MS: u64 = 5 * 60 * 1000;

/// The wait between two `tasks/get` when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

fn failed(message: String) -> ServiceError {
    ServiceError::McpError(ErrorData::internal_error(message, None))
}

/// Whether a call of `tool` on `session` goes as a 2025-11-25 task.
pub(crate) fn wanted(session: &Session, tool: &str) -> bool {
    session.lifecycle() == Lifecycle::Initialize
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

/// Cancels the task it holds when dropped before [`disarm`](Self::disarm).
struct CancelTaskOnDrop {
    peer: Peer<RoleClient>,
    id: Option<String>,
}

impl CancelTaskOnDrop {
    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            if let Err(error) = send(&peer, "tasks/cancel", json!({"taskId": id})).await {
                tracing::debug!(task = %id, %error, "tasks/cancel of an abandoned task failed");
            }
        });
    }
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
    let mut guard = CancelTaskOnDrop {
        peer: peer.clone(),
        id: Some(id.clone()),
    };
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
