//! The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), server
//! side: a served tool the host marks as long-running runs as a task.
//!
//! A `tools/call` of such a tool from a client that declared the
//! extension (for its session or in the request's `_meta`) starts the
//! call through the same pipeline as any other (the gate, the invoker)
//! in the background and answers at once with a `CreateTaskResult`
//! (`resultType: "task"`, the task id, `ttlMs`, `pollIntervalMs`). The
//! client polls `tasks/get`, whose answer carries the tool's result once
//! it completes (a tool's own failure is a completed task whose result
//! has `isError`; a panicking executor is the server's failure, a
//! `failed` task with a `-32603` error), and may `tasks/cancel` it: the call's cancellation
//! token fires and the task settles as `cancelled`. A client without the
//! extension gets the call at once for [`TaskSupport::Optional`] tools
//! and `-32021` (missing required client capability) for
//! [`TaskSupport::Required`] ones. rmcp's `TaskManager` keeps the tasks
//! (in memory, `ttlMs` five minutes). Task ids are random UUIDs: whoever
//! holds one may read the task, as the extension allows.
//!
//! A task's call asks its client the way a 2026-07-28 call does, as data:
//! an elicitation (a tool's question, an approval ask of the gate) waits
//! in the task's `inputRequests` (`tasks/get` reports `input_required`)
//! until the client answers it by `tasks/update`; a cancel while it waits
//! ends the task `cancelled`. Not offered yet: the `notifications/tasks`
//! status stream, and a 2026-07-28 call that first asks by
//! `input_required` and then becomes a task (SEP-2322 with SEP-2663).

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    CreateTaskResult, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use tokio_util::sync::CancellationToken;
use tool_core::ErrorCode;

use crate::content::ERROR_META_KEY;

/// How long a cancelled task's call may take to stop by itself before it
/// is dropped.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// How a served tool takes part in the tasks extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// A task when the client declared the extension, else called at once.
    Optional,
    /// Only as a task: a client without the extension gets `-32021`.
    Required,
}

/// The served tools that run as tasks, and their tasks.
#[derive(Clone, Default)]
pub(crate) struct ServedTasks {
    tools: Arc<BTreeMap<String, TaskSupport>>,
    manager: TaskManager,
}

impl ServedTasks {
    pub(crate) fn new(tools: BTreeMap<String, TaskSupport>) -> Self {
        Self {
            tools: Arc::new(tools),
            manager: TaskManager::new(),
        }
    }

    /// Whether any tool runs as a task (the extension is declared).
    pub(crate) fn offered(&self) -> bool {
        !self.tools.is_empty()
    }

    fn support(&self, name: &str) -> Option<TaskSupport> {
        self.tools.get(name).copied()
    }
}

impl std::fmt::Debug for ServedTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedTasks")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

/// What a `tools/call` of `request` comes to: `None` when it is called at
/// once (not a task tool, or optional without the extension); else a task
/// running `run` (the served call, its asks put in the task) or `-32021`.
pub(crate) fn call_as_task<F, Fut>(
    tasks: &ServedTasks,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    run: F,
) -> Option<Result<CallToolResponse, ErrorData>>
where
    F: FnOnce(CallToolRequestParams, RequestContext<RoleServer>, TaskContext) -> Fut
        + Send
        + 'static,
    Fut: Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'static,
{
    let support = tasks.support(&request.name)?;
    let declared = context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks());
    if !declared {
        return match support {
            TaskSupport::Optional => None,
            TaskSupport::Required => Some(Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))),
        };
    }
    let (request, mut context) = (request.clone(), context.clone());
    // The task outlives the request: its own cancellation, fired by `tasks/cancel`.
    let stop = CancellationToken::new();
    context.ct = stop.clone();
    let task = tasks.manager.spawn(TaskOptions::new(), move |task| {
        Box::pin(async move {
            let call = run(request, context, task.clone());
            tokio::pin!(call);
            let response = tokio::select! {
                biased;
                () = task.cancelled() => {
                    // The call hears its cancellation and gets a moment to
                    // stop on its own before it is dropped.
                    stop.cancel();
                    let _ = tokio::time::timeout(CANCEL_GRACE, &mut call).await;
                    return Err(TaskExit::Cancelled);
                }
                response = &mut call => response,
            };
            match response {
                Ok(CallToolResponse::Complete(result)) if panicked(&result) => {
                    Err(TaskExit::Error(ErrorData::internal_error(
                        "the tool's executor panicked",
                        None,
                    )))
                }
                Ok(CallToolResponse::Complete(result)) => Ok(result),
                Ok(_) => Err(TaskExit::Error(ErrorData::internal_error(
                    "the task's call ended without a result",
                    None,
                ))),
                Err(error) => Err(TaskExit::Error(error)),
            }
        })
    });
    Some(Ok(CallToolResponse::Task(CreateTaskResult::new(task))))
}

/// Whether `result` is tool-core's report of a panicking executor: a
/// failure of the server, not of the tool, so the task settles `failed`
/// (the extension keeps `completed` with `isError` for a tool's own
/// failure).
fn panicked(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
        && result
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(ERROR_META_KEY))
            .and_then(|error| error.get("code"))
            .and_then(serde_json::Value::as_str)
            == Some(ErrorCode::EXECUTOR_PANIC.as_str())
}

/// `tasks/get`.
pub(crate) fn get(
    tasks: &ServedTasks,
    request: &GetTaskParams,
) -> Result<GetTaskResult, ErrorData> {
    tasks
        .manager
        .get_task(&request.task_id)
        .map(GetTaskResult::new)
}

/// `tasks/update`: answers to the questions a task's call asked.
pub(crate) fn update(tasks: &ServedTasks, request: UpdateTaskParams) -> Result<(), ErrorData> {
    tasks
        .manager
        .update_task(&request.task_id, request.input_responses)
}

/// `tasks/cancel`: the task's call is cancelled; the ack is at once.
pub(crate) fn cancel(tasks: &ServedTasks, request: &CancelTaskParams) -> Result<(), ErrorData> {
    tasks.manager.cancel_task(&request.task_id)
}
