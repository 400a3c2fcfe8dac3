//! Detached remote tasks (SEP-2663): a call started as a task and handed
//! back as a [`McpTaskHandle`] at once ([`McpManager::start_task`]),
//! then looked at, waited for or cancelled by handle — in this process or
//! in another one, after a restart: nothing of the task lives in the
//! manager (a 2025-11-25 server's own tasks live in its session: see
//! [`McpManager::start_task`]). Every use checks the handle first (its MAC, key, expiry and
//! server: see [`task_handle`](crate::client::task_handle)), so a forged
//! or edited handle never reaches the server.
//!
//! A task asking questions (`input_required`) reports their keys in
//! [`McpTaskStatus::questions`]; [`McpManager::wait_task`] stops there
//! (the questions are the host's to put to its user; an in-process call
//! answers them as [`ManagerOptions::tasks`](crate::ManagerOptions::tasks)
//! says).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelTaskParams, DetailedTask, GetTaskParams, Task,
    TaskPayload,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::client::config::McpServerConfig;
use crate::client::manager::{McpManager, Resend};
use crate::client::remote_rounds::{ByHooks, Reached, Rounds};
use crate::client::remote_talk::{Unheard, call_reaching};
use crate::client::remote_tasks::{MAX_POLL, MIN_POLL};
use crate::client::remote_tasks_2025;
use crate::client::task_handle::{McpTaskHandle, NewHandle, TaskKeys};
use crate::error::Error;

/// The wait between two looks at a task whose server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// How long [`McpManager::cancel_task`] looks for the task's end.
pub const CANCEL_SETTLE: Duration = Duration::from_secs(10);

/// What [`McpManager::start_task`] came to.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpTaskStart {
    /// The server answered the call at once (it did not make it a task).
    Done(CallToolResult),
    /// The server made the call a task: its handle.
    Task(McpTaskHandle),
}

/// A remote task as `tasks/get` last saw it. Its JSON (camelCase):
/// `{"taskId", "status", "statusMessage"?, "pollIntervalMs"?, "ttlMs"?,
/// "questions"?, "result"?, "error"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpTaskStatus {
    /// The server's task id.
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's message about the task, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// How often the server asks to be polled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// How long the server keeps the task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// The keys of the questions an `input_required` task waits on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
    /// A `completed` task's result (the call's result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// A `failed` task's JSON-RPC error, as the server sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

impl McpTaskStatus {
    /// Whether the task has ended (`completed`, `failed` or `cancelled`).
    pub fn is_settled(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }

    fn of(detailed: DetailedTask) -> Result<Self, String> {
        let task = detailed.task;
        let mut status = Self {
            task_id: task.task_id.clone(),
            status: serde_json::to_value(task.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "unknown".to_owned()),
            status_message: task.status_message,
            poll_interval_ms: task.poll_interval_ms,
            ttl_ms: task.ttl_ms,
            questions: Vec::new(),
            result: None,
            error: None,
        };
        match detailed.payload {
            TaskPayload::InputRequired { input_requests } => {
                status.questions = input_requests.keys().cloned().collect();
            }
            TaskPayload::Completed { result } => {
                status.result =
                    Some(serde_json::from_value(Value::Object(result)).map_err(|e| {
                        format!(
                            "task `{}` completed with a result that is no tool result: {e}",
                            task.task_id
                        )
                    })?);
            }
            TaskPayload::Failed { error } => status.error = Some(Value::Object(error)),
            _ => {}
        }
        Ok(status)
    }

    fn looked(looked: remote_tasks_2025::Looked) -> Self {
        Self {
            task_id: looked.task_id,
            status: looked.status,
            status_message: looked.status_message,
            poll_interval_ms: looked.poll_interval_ms,
            ttl_ms: looked.ttl_ms,
            questions: Vec::new(),
            result: looked.result,
            error: looked.error,
        }
    }

    fn poll(&self) -> Duration {
        self.poll_interval_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .clamp(MIN_POLL, MAX_POLL)
    }
}

impl McpManager {
    fn task_keys(&self) -> Result<&TaskKeys, Error> {
        self.options()
            .task_keys
            .as_ref()
            .ok_or_else(|| Error::TaskHandle {
                message: "no task keys were given (ManagerOptions::task_keys): task handles can be neither made nor checked".to_owned(),
            })
    }

    /// For a call through the pipeline ([`McpTool`](crate::McpTool)): with
    /// [`ManagerOptions::task_keys`](crate::ManagerOptions::task_keys),
    /// what tells the call's events the handle of the task the server makes
    /// of the call, as soon as it does (a log line `task `ID`: handle` whose
    /// data is `{"taskId", "handle"}`). A host that keeps it finds the task
    /// by handle ([`task_status`](Self::task_status),
    /// [`wait_task`](Self::wait_task)) after losing the call to a crash; a
    /// call dropped in process still cancels its task. The approval bound
    /// into the handle is the call's: `{"via": "pipeline", "callId",
    /// "confinement"}` (the confinement the gate ran it under, if any).
    pub(crate) fn task_teller(
        &self,
        config: &McpServerConfig,
        params: &CallToolRequestParams,
        ctx: &tool_core::ToolContext,
        events: Arc<dyn tool_core::CallEvents>,
    ) -> impl FnOnce(&Task) + Send + 'static + use<> {
        let keys = self.options().task_keys.clone();
        let config = config.clone();
        let tool = params.name.to_string();
        let arguments = params.arguments.clone().unwrap_or_default();
        let approval = serde_json::json!({
            "via": "pipeline",
            "callId": ctx.call_id(),
            "confinement": ctx.extension::<tool_core::Confinement>(),
        });
        move |task: &Task| {
            let Some(keys) = keys else {
                return;
            };
            let signed = keys.sign(NewHandle {
                config: &config,
                tool: &tool,
                arguments: &arguments,
                task_id: task.task_id.clone(),
                ttl_ms: task.ttl_ms,
                approval,
            });
            match signed {
                Ok(handle) => events.log(
                    None,
                    tool_core::LogLevel::Info,
                    &format!("task `{}`: handle", task.task_id),
                    Some(&serde_json::json!({"taskId": task.task_id, "handle": handle})),
                ),
                Err(error) => {
                    tracing::debug!(task = %task.task_id, %error, "no handle for a pipeline task");
                }
            }
        }
    }

    /// Checks `handle` (MAC, key, expiry, its server configured here at
    /// the same place).
    pub fn check_task_handle(&self, handle: &McpTaskHandle) -> Result<(), Error> {
        self.task_keys()?
            .verify(handle, self.config(&handle.server).as_ref())
    }

    /// Calls remote tool `tool` on `id` and, when the server makes the
    /// call a task, returns its handle at once instead of following it
    /// (the task runs on at the server). `approval` is the host's record
    /// of what let the call run (its decision, who approved): it goes into
    /// the handle verbatim, under its MAC. Questions before the task are
    /// answered as [`call_tool`](Self::call_tool)'s are. Needs
    /// [`ManagerOptions::task_keys`](crate::ManagerOptions::task_keys), and
    /// [`ManagerOptions::tasks`](crate::ManagerOptions::tasks) for the
    /// server to know it may make a task (without it the call runs at once).
    ///
    /// A 2025-11-25 server without the tasks extension gets that revision's
    /// task (`tools/call` with `task`, for a tool it lists with task
    /// support; see `remote_tasks_2025`); it keeps the task in the session
    /// that made it, so such a handle is used on the same session (this
    /// manager, while the server runs), and a task waiting on input is
    /// followed through `tasks/result`, which brings its questions to the
    /// manager's elicitation handler.
    pub async fn start_task(
        &self,
        id: &str,
        tool: &str,
        arguments: Map<String, Value>,
        approval: Value,
    ) -> Result<McpTaskStart, Error> {
        let keys = self.task_keys()?.clone();
        let slot = self.enabled_slot(id)?;
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.clone());
        let in_flight = Arc::clone(&slot.in_flight);
        let reached = self
            .with_session(&slot, "tools/call", Resend::Never, |session| {
                let (params, in_flight) = (params.clone(), Arc::clone(&in_flight));
                let trace = self.trace(&slot, &session);
                async move {
                    if remote_tasks_2025::uses_2025_tasks(&session) {
                        // A 2025-11-25 server: the call goes as that
                        // revision's task, handed back unfollowed.
                        let as_task = remote_tasks_2025::supports_tasks(&session, tool);
                        return remote_tasks_2025::start(session.peer(), params, as_task).await;
                    }
                    let answerer = ByHooks {
                        hooks: session.hooks(),
                        peer: session.peer(),
                    };
                    call_reaching(
                        session.peer(),
                        &answerer,
                        &in_flight,
                        params,
                        Arc::new(Unheard),
                        &trace,
                    )
                    .await
                }
            })
            .await?;
        match reached {
            Reached::Task(task) => keys
                .sign(NewHandle {
                    config: &slot.config,
                    tool,
                    arguments: &arguments,
                    task_id: task.task_id,
                    ttl_ms: task.ttl_ms,
                    approval,
                })
                .map(McpTaskStart::Task),
            Reached::Rounds(Rounds::Done(result)) => Ok(McpTaskStart::Done(result)),
            Reached::Rounds(Rounds::Asked(_)) => Err(Error::Request {
                server: id.to_owned(),
                operation: "tools/call".to_owned(),
                message: "the server's questions were left unanswered".to_owned(),
            }),
        }
    }

    /// The task of `handle` as the server sees it now (one `tasks/get`),
    /// after checking the handle.
    pub async fn task_status(&self, handle: &McpTaskHandle) -> Result<McpTaskStatus, Error> {
        self.check_task_handle(handle)?;
        let task_id = handle.task_id.clone();
        let got = self
            .idempotent(&handle.server, "tasks/get", |session| {
                let task_id = task_id.clone();
                async move {
                    if remote_tasks_2025::uses_2025_tasks(&session) {
                        return remote_tasks_2025::look(session.peer(), &task_id)
                            .await
                            .map(|looked| Ok(McpTaskStatus::looked(looked)));
                    }
                    let got = session.peer().get_task(GetTaskParams::new(task_id)).await?;
                    Ok(McpTaskStatus::of(got.task))
                }
            })
            .await?;
        got.map_err(|message| Error::Request {
            server: handle.server.clone(),
            operation: "tasks/get".to_owned(),
            message,
        })
    }

    /// Polls the task of `handle` (at the server's interval, kept between
    /// 50 ms and 5 s) until it settles or waits on questions; `on_status`
    /// sees each status that differs from the one before (the host's
    /// progress display). Bound it with a timeout as the host needs.
    pub async fn wait_task(
        &self,
        handle: &McpTaskHandle,
        mut on_status: impl FnMut(&McpTaskStatus) + Send,
    ) -> Result<McpTaskStatus, Error> {
        let mut last: Option<(String, Option<String>)> = None;
        loop {
            let status = self.task_status(handle).await?;
            let seen = (status.status.clone(), status.status_message.clone());
            if last.as_ref() != Some(&seen) {
                on_status(&status);
                last = Some(seen);
            }
            if status.is_settled() || !status.questions.is_empty() {
                return Ok(status);
            }
            tokio::time::sleep(status.poll()).await;
        }
    }

    /// Asks the server to cancel the task of `handle` (`tasks/cancel`,
    /// after checking the handle), then returns its status once it has
    /// ended (or after [`CANCEL_SETTLE`], as it is then). A task that had
    /// already ended keeps its end (the server says how).
    pub async fn cancel_task(&self, handle: &McpTaskHandle) -> Result<McpTaskStatus, Error> {
        self.check_task_handle(handle)?;
        let task_id = handle.task_id.clone();
        self.idempotent(&handle.server, "tasks/cancel", |session| {
            let task_id = task_id.clone();
            async move {
                if remote_tasks_2025::uses_2025_tasks(&session) {
                    return remote_tasks_2025::cancel(session.peer(), &task_id).await;
                }
                session
                    .peer()
                    .cancel_task(CancelTaskParams::new(task_id))
                    .await
                    .map(drop)
            }
        })
        .await?;
        // Cancelling is eventually consistent: look until the task has
        // ended, within a bound.
        let deadline = tokio::time::Instant::now() + CANCEL_SETTLE;
        loop {
            let status = self.task_status(handle).await?;
            if status.is_settled() || tokio::time::Instant::now() >= deadline {
                return Ok(status);
            }
            tokio::time::sleep(MIN_POLL.max(Duration::from_millis(100))).await;
        }
    }
}
