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
//! ends the task `cancelled`.
//!
//! A task tool the host lets ask first
//! ([`RegistryServer::with_questions_before_task`](crate::RegistryServer::with_questions_before_task))
//! composes the two (SEP-2322 with SEP-2663): called on 2026-07-28 by a
//! client that declared the extension, it runs as a plain
//! multi-round-trip call, its questions answered by `input_required`
//! rounds, until it calls [`ClientLine::start_task`](crate::ClientLine::start_task);
//! that round answers with the task, and the call goes on in it, its
//! cancellation now the task's. A call that ends before it says so is
//! answered with a task already completed (a [`TaskSupport::Required`]
//! tool) or with its result (an optional one). Not offered yet: the
//! `notifications/tasks` status stream.

use std::collections::{BTreeMap, BTreeSet};
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    CreateTaskResult, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use tokio::sync::{Notify, watch};
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

impl TaskSupport {
    /// The wire word of a tool's `execution.taskSupport` (`optional`,
    /// `required`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// The served tools that run as tasks, and their tasks.
#[derive(Clone, Default)]
pub(crate) struct ServedTasks {
    tools: Arc<BTreeMap<String, TaskSupport>>,
    /// Task tools that ask by `input_required` before they become a task.
    ask_first: Arc<BTreeSet<String>>,
    manager: TaskManager,
}

impl ServedTasks {
    pub(crate) fn new(tools: BTreeMap<String, TaskSupport>) -> Self {
        Self {
            tools: Arc::new(tools),
            ask_first: Arc::default(),
            manager: TaskManager::new(),
        }
    }

    /// The same tasks, with `tools` asking before they become a task.
    pub(crate) fn asking_first(&self, tools: BTreeSet<String>) -> Self {
        Self {
            tools: Arc::clone(&self.tools),
            ask_first: Arc::new(tools),
            manager: self.manager.clone(),
        }
    }

    /// How a 2026-07-28 call of `name` from a client that declared the
    /// extension (`declared`) may become a task mid-call: `Some` with the
    /// tool's support when it asks first.
    pub(crate) fn escalates(&self, name: &str, declared: bool) -> Option<TaskSupport> {
        if !declared || !self.ask_first.contains(name) {
            return None;
        }
        self.support(name)
    }

    /// Whether any tool runs as a task (the extension is declared).
    pub(crate) fn offered(&self) -> bool {
        !self.tools.is_empty()
    }

    /// How the tool served as `name` runs as a task, if it is a task tool.
    pub(crate) fn support(&self, name: &str) -> Option<TaskSupport> {
        self.tools.get(name).copied()
    }
}

impl std::fmt::Debug for ServedTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedTasks")
            .field("tools", &self.tools)
            .field("ask_first", &self.ask_first)
            .finish_non_exhaustive()
    }
}

/// Whether the client of `context` declared the tasks extension.
pub(crate) fn declared(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks())
}

/// Whether `context` is a stateless (2026-07-28) request.
pub(crate) fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// What a `tools/call` of `request` comes to: `None` when it is called at
/// once (not a task tool, optional without the extension, or a tool that
/// asks first on 2026-07-28); else a task running `run` (the served call,
/// its asks put in the task) or `-32021`.
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
    let declared = declared(context);
    if stateless(context) && tasks.escalates(&request.name, declared).is_some() {
        return None;
    }
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
            settle(&task, &stop, call).await
        })
    });
    Some(Ok(CallToolResponse::Task(CreateTaskResult::new(task))))
}

/// A served call that runs on after its request was answered.
pub(crate) type Running = Pin<Box<dyn Future<Output = CallToolResult> + Send>>;

/// Makes the running `call` of a tool that asked first a task (it called
/// [`ClientLine::start_task`](crate::ClientLine::start_task)): its line
/// asks in the task from now on, `stop` is its cancellation.
pub(crate) fn escalate(
    tasks: &ServedTasks,
    escalation: Arc<Escalation>,
    stop: CancellationToken,
    call: Running,
) -> CallToolResponse {
    let task = tasks.manager.spawn(TaskOptions::new(), move |task| {
        escalation.become_task(task.clone());
        Box::pin(async move { settle(&task, &stop, async move { Ok(call.await.into()) }).await })
    });
    CallToolResponse::Task(CreateTaskResult::new(task))
}

/// A task already completed with `result`: a required task tool that asked
/// first and ended before it said where its long part starts.
pub(crate) fn completed(tasks: &ServedTasks, result: CallToolResult) -> CallToolResponse {
    let stop = CancellationToken::new();
    let task = tasks.manager.spawn(TaskOptions::new(), move |task| {
        Box::pin(async move { settle(&task, &stop, async move { Ok(result.into()) }).await })
    });
    CallToolResponse::Task(CreateTaskResult::new(task))
}

/// Runs a task's `call` to its end: its result, its failure, or
/// `cancelled` when `tasks/cancel` came first (`stop` fired, a moment's
/// grace for the call to stop on its own, then dropped).
async fn settle(
    task: &TaskContext,
    stop: &CancellationToken,
    call: impl Future<Output = Result<CallToolResponse, ErrorData>>,
) -> Result<CallToolResult, TaskExit> {
    tokio::pin!(call);
    let response = tokio::select! {
        biased;
        () = task.cancelled() => {
            stop.cancel();
            let _ = tokio::time::timeout(CANCEL_GRACE, &mut call).await;
            return Err(TaskExit::Cancelled);
        }
        response = &mut call => response,
    };
    match response {
        Ok(CallToolResponse::Complete(result)) if panicked(&result) => Err(TaskExit::Error(
            ErrorData::internal_error("the tool's executor panicked", None),
        )),
        Ok(CallToolResponse::Complete(result)) => Ok(result),
        Ok(_) => Err(TaskExit::Error(ErrorData::internal_error(
            "the task's call ended without a result",
            None,
        ))),
        Err(error) => Err(TaskExit::Error(error)),
    }
}

/// A call of a tool that asks first, on its way to becoming a task: the
/// tool says when ([`Escalation::start`]), the server makes the task and
/// hands its context over ([`Escalation::become_task`]).
pub(crate) struct Escalation {
    asked: Notify,
    task: watch::Sender<Option<TaskContext>>,
}

impl std::fmt::Debug for Escalation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Escalation")
            .field(
                "task",
                &self.task.borrow().as_ref().map(TaskContext::task_id),
            )
            .finish_non_exhaustive()
    }
}

impl Escalation {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            asked: Notify::new(),
            task: watch::Sender::new(None),
        })
    }

    /// The task the call became, if it did.
    pub(crate) fn task(&self) -> Option<TaskContext> {
        self.task.borrow().clone()
    }

    /// The tool's word: returns once the call is a task.
    pub(crate) async fn start(&self) {
        let mut made = self.task.subscribe();
        if made.borrow().is_some() {
            return;
        }
        self.asked.notify_one();
        let _ = made.wait_for(Option::is_some).await;
    }

    /// Resolves once the tool said its long part starts.
    pub(crate) async fn asked(&self) {
        self.asked.notified().await;
    }

    fn become_task(&self, task: TaskContext) {
        self.task.send_replace(Some(task));
    }
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
