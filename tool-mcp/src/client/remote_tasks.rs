//! A remote server's tasks (SEP-2663, `io.modelcontextprotocol/tasks`),
//! client side: with [`ManagerOptions::tasks`](crate::ManagerOptions::tasks)
//! the client declares the extension, and a `tools/call` the server
//! answers with a task (`resultType: "task"`) is followed to its end
//! within the same call: `tasks/get` at the server's `pollIntervalMs`
//! (kept between [`MIN_POLL`] and [`MAX_POLL`]); the questions a task
//! asks (`input_required`, its `inputRequests`) answered by the same
//! answerer as a multi-round-trip call's and sent by `tasks/update`; the
//! task's result is the call's result, a `failed` task the server's error,
//! a task the server cancelled an error saying so. A call dropped before
//! its task settles (cancelled, timed out) cancels the task
//! (`tasks/cancel`): a task never runs on unwatched. Questions nobody here
//! answers cancel the task too, with an error naming them: a task's
//! handle is not kept in tool-core's durable turn (yet): a host that
//! needs the task to outlive the call starts it detached
//! ([`McpManager::start_task`](crate::McpManager::start_task)). With task
//! keys, a call through the pipeline tells its events the task's handle
//! as soon as the server makes it (see `McpManager::task_teller`), so a
//! host that keeps it finds the task again after a crash. Each change
//! of the task's status reaches the call's events as a log line (`task
//! `ID`: working: message`, data `{"taskId", "status", "statusMessage"}`).

use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleClient, ServiceError};
use serde_json::Value;

use crate::client::abandon::OnAbandon;
use crate::client::remote_rounds::Answerer;

/// The shortest wait between two `tasks/get` of one task.
pub(crate) const MIN_POLL: Duration = Duration::from_millis(50);
/// The longest wait between two `tasks/get` of one task.
pub(crate) const MAX_POLL: Duration = Duration::from_secs(5);
/// The wait when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

fn failed(message: String) -> ServiceError {
    ServiceError::McpError(ErrorData::internal_error(message, None))
}

/// Follows the task `task` a server made of a call to its end (see the
/// module guide).
pub(crate) async fn follow(
    peer: &Peer<RoleClient>,
    answerer: &impl Answerer,
    task: Task,
    events: &dyn tool_core::CallEvents,
) -> Result<CallToolResult, ServiceError> {
    let id = task.task_id.clone();
    let poll = task
        .poll_interval_ms
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL);
    let task_id = id.clone();
    let mut guard = OnAbandon::new(peer, move |peer| async move {
        if let Err(error) = peer
            .cancel_task(CancelTaskParams::new(task_id.clone()))
            .await
        {
            tracing::debug!(task = %task_id, %error, "tasks/cancel of an abandoned task failed");
        }
    });
    // Questions answered already (a poll may see them before the server
    // took the answers in): never put to the user twice.
    let mut answered = std::collections::BTreeSet::new();
    let mut last_status = None;
    loop {
        let detailed = peer.get_task(GetTaskParams::new(id.clone())).await?.task;
        // Each change of status (or of its message) reaches the host as a
        // log line of the call, with the task's data.
        let status = (detailed.task.status, detailed.task.status_message.clone());
        if last_status.as_ref() != Some(&status) {
            let name = serde_json::to_value(status.0)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let message = match &status.1 {
                Some(text) => format!("task `{id}`: {name}: {text}"),
                None => format!("task `{id}`: {name}"),
            };
            let data = serde_json::json!({
                "taskId": id,
                "status": status.0,
                "statusMessage": status.1,
            });
            events.log(None, tool_core::LogLevel::Info, &message, Some(&data));
            last_status = Some(status);
        }
        match detailed.payload {
            TaskPayload::InputRequired { mut input_requests } => {
                input_requests.retain(|key, _| !answered.contains(key));
                if input_requests.is_empty() {
                    tokio::time::sleep(poll).await;
                    continue;
                }
                let Some(responses) = answerer.answer(&input_requests).await? else {
                    let keys: Vec<&String> = input_requests.keys().collect();
                    return Err(failed(format!(
                        "task `{id}` asks {keys:?}, which nobody here answers; the task was cancelled"
                    )));
                };
                answered.extend(responses.keys().cloned());
                peer.update_task(UpdateTaskParams::new(id.clone(), responses))
                    .await?;
            }
            TaskPayload::Completed { result } => {
                guard.disarm();
                let result: CallToolResult = serde_json::from_value(Value::Object(result))
                    .map_err(|e| {
                        failed(format!(
                            "task `{id}` completed with a result that is no tool result: {e}"
                        ))
                    })?;
                return Ok(result);
            }
            TaskPayload::Failed { error } => {
                guard.disarm();
                let error: ErrorData = serde_json::from_value(Value::Object(error.clone()))
                    .unwrap_or_else(|_| {
                        ErrorData::internal_error(
                            format!("task `{id}` failed with an error of no JSON-RPC shape"),
                            Some(Value::Object(error)),
                        )
                    });
                return Err(ServiceError::McpError(error));
            }
            TaskPayload::Cancelled => {
                guard.disarm();
                return Err(failed(format!("the server cancelled task `{id}`")));
            }
            // Working, and whatever later revisions add: wait and look again.
            _ => tokio::time::sleep(poll).await,
        }
    }
}
