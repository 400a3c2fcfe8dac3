//! The executor side: run dispatched calls and put exactly one result each.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{CancellationToken, ErrorCode, Tool, ToolContext, ToolError, ToolOutput};

use super::channel::Inbox;
use super::message::{
    ARGUMENTS_PARSE_ERROR, CLIENT_EXECUTOR_NO_RESULT, CLIENT_EXECUTOR_TIMEOUT, ChannelMessage,
    EXECUTOR_NOT_FOUND, ToolExecute,
};
use super::store::ResultStore;

/// How much earlier than the server the executor stops: 500 ms.
pub const EXECUTOR_SAFETY_MARGIN: Duration = Duration::from_millis(500);
/// The least time the executor gives a call: 100 ms.
pub const MIN_EXECUTOR_BUDGET: Duration = Duration::from_millis(100);

/// The executor's own budget for a call sent with `execution_timeout`:
/// 500 ms less, at least 100 ms, so the server receives a named
/// `client_executor_timeout` before its own wait ends.
///
/// ```
/// use std::time::Duration;
/// use tool_dispatch::executor_budget;
/// assert_eq!(executor_budget(Duration::from_secs(30)), Duration::from_millis(29_500));
/// assert_eq!(executor_budget(Duration::from_millis(400)), Duration::from_millis(100));
/// ```
pub fn executor_budget(execution_timeout: Duration) -> Duration {
    execution_timeout
        .saturating_sub(EXECUTOR_SAFETY_MARGIN)
        .max(MIN_EXECUTOR_BUDGET)
}

/// Runs the calls a [`Dispatcher`](super::Dispatcher) sends and puts exactly
/// one result for each into the [`ResultStore`].
///
/// Whatever happens, one result goes back:
///
/// | what happened | result |
/// |---|---|
/// | the tool returned | its output (or its error as a failed output) |
/// | the arguments text is not a JSON object | `arguments_parse_error` |
/// | no such tool or API here | `executor_not_found` |
/// | the tool ran past budget − 500 ms (min 100 ms) | `client_executor_timeout` (the tool is stopped) |
/// | the tool panicked | `executor_panic` |
/// | a `tool_abort` arrived | `cancelled` (the tool is stopped) |
/// | the work ended without a result (task aborted, future dropped, a [`Responder`] dropped unsent) | `client_executor_no_result` |
///
/// Tools are ordinary [`tool_core::Tool`]s. Cheap to clone; clones share
/// the tools and the running calls.
#[derive(Clone)]
pub struct ExecutorClient {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn ResultStore>,
    tools: HashMap<String, Arc<dyn Tool>>,
    context: ToolContext,
    running: Mutex<HashMap<String, CancellationToken>>,
}

impl std::fmt::Debug for ExecutorClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut tools: Vec<&String> = self.inner.tools.keys().collect();
        tools.sort();
        f.debug_struct("ExecutorClient")
            .field("tools", &tools)
            .finish_non_exhaustive()
    }
}

/// Builds an [`ExecutorClient`].
pub struct ExecutorClientBuilder {
    store: Arc<dyn ResultStore>,
    tools: HashMap<String, Arc<dyn Tool>>,
    context: ToolContext,
}

impl std::fmt::Debug for ExecutorClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorClientBuilder")
            .finish_non_exhaustive()
    }
}

impl ExecutorClientBuilder {
    /// Adds a tool (replacing one with the same identifier).
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.insert(tool.manifest().identifier.clone(), tool);
        self
    }

    /// The context every call runs in (working directory, ids…); each call
    /// gets a child of it with its own cancellation token. Default: empty.
    pub fn context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The client.
    pub fn build(self) -> ExecutorClient {
        ExecutorClient {
            inner: Arc::new(Inner {
                store: self.store,
                tools: self.tools,
                context: self.context,
                running: Mutex::new(HashMap::new()),
            }),
        }
    }
}

impl ExecutorClient {
    /// A builder whose client puts results into `store`.
    pub fn builder(store: Arc<dyn ResultStore>) -> ExecutorClientBuilder {
        ExecutorClientBuilder {
            store,
            tools: HashMap::new(),
            context: ToolContext::new(),
        }
    }

    /// Serves `inbox` until every sender is gone: each `tool_execute` runs
    /// in its own task, each `tool_abort` stops its call.
    pub async fn serve(&self, mut inbox: Inbox) {
        while let Some(message) = inbox.recv().await {
            match message {
                ChannelMessage::ToolExecute(call) => {
                    let client = self.clone();
                    tokio::spawn(async move {
                        client.execute(call).await;
                    });
                }
                ChannelMessage::ToolAbort { id } => {
                    self.abort(&id);
                }
            }
        }
    }

    /// Handles one message from any channel: runs a `tool_execute` to its
    /// end (returning the output that was sent), stops the call of a
    /// `tool_abort` (returning `None`).
    pub async fn handle(&self, message: ChannelMessage) -> Option<ToolOutput> {
        match message {
            ChannelMessage::ToolExecute(call) => Some(self.execute(call).await),
            ChannelMessage::ToolAbort { id } => {
                self.abort(&id);
                None
            }
        }
    }

    /// Stops the running call with dispatch id `id`; `false` when none runs.
    pub fn abort(&self, id: &str) -> bool {
        match self.running().get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// How many calls are running now.
    pub fn running_calls(&self) -> usize {
        self.running().len()
    }

    /// A [`Responder`] for `id`, for hosts that run a call their own way
    /// (forwarding it to IPC, a worker…) and answer later.
    pub fn responder(&self, id: impl Into<String>) -> Responder {
        Responder {
            store: Some(Arc::clone(&self.inner.store)),
            id: id.into(),
        }
    }

    /// Runs one call and puts its one result; returns what was put.
    ///
    /// If this future is dropped before the end, the tool is stopped and
    /// `client_executor_no_result` is put instead.
    pub async fn execute(&self, call: ToolExecute) -> ToolOutput {
        let responder = self.responder(call.id.clone());
        let token = CancellationToken::new();
        let _running = RunningGuard::register(self, &call.id, token.clone());
        let output = self.run(&call, token).await;
        responder.send(output.clone()).await;
        output
    }

    async fn run(&self, call: &ToolExecute, token: CancellationToken) -> ToolOutput {
        let label = format!("`{}/{}`", call.identifier, call.api_name);
        let args = match tool_core::pipeline::parse_arguments(&call.arguments) {
            Ok(map) => Value::Object(map),
            Err(error) => {
                return ToolOutput::failure(
                    ToolError::new(
                        ARGUMENTS_PARSE_ERROR,
                        format!(
                            "the executor could not parse the arguments of {label}: {}",
                            error.message
                        ),
                    )
                    .with_details(json!({ "cause": error.code, "arguments": call.arguments })),
                );
            }
        };
        let Some(tool) = self
            .inner
            .tools
            .get(&call.identifier)
            .filter(|tool| tool.manifest().api(&call.api_name).is_some())
            .cloned()
        else {
            return ToolOutput::failure(
                ToolError::new(
                    EXECUTOR_NOT_FOUND,
                    format!("this executor cannot run {label}: it has no such tool or API"),
                )
                .with_details(json!({ "identifier": call.identifier, "api": call.api_name })),
            );
        };
        let budget = executor_budget(Duration::from_millis(call.execution_timeout_ms));
        let ctx = self
            .inner
            .context
            .clone()
            .with_cancellation(token.child_token());
        let api = call.api_name.clone();
        let task_ctx = ctx.clone();
        let mut handle = tokio::spawn(async move { tool.call(&api, args, &task_ctx).await });
        let abort_if_dropped = AbortOnDrop(Some(handle.abort_handle()));
        let outcome = tokio::select! {
            biased;
            () = token.cancelled() => None,
            joined = tokio::time::timeout(budget, &mut handle) => Some(joined),
        };
        abort_if_dropped.disarm();
        // Whatever happened, the tool's own tasks learn the call is over; a
        // tool still running gets a moment to wind down, then is aborted.
        ctx.cancellation().cancel();
        if !handle.is_finished() {
            tokio::spawn(async move {
                if tokio::time::timeout(WIND_DOWN, &mut handle).await.is_err() {
                    handle.abort();
                }
            });
        }
        match outcome {
            None => ToolOutput::failure(ToolError::new(
                ErrorCode::CANCELLED,
                format!("{label} was stopped: the dispatcher stopped waiting for it"),
            )),
            Some(Err(_elapsed)) => ToolOutput::failure(
                ToolError::new(
                    CLIENT_EXECUTOR_TIMEOUT,
                    format!(
                        "{label} did not finish within the executor's {} ms budget and was stopped",
                        budget.as_millis()
                    ),
                )
                .with_details(json!({ "budgetMs": budget.as_millis() as u64 })),
            ),
            Some(Ok(Ok(Ok(output)))) => output,
            Some(Ok(Ok(Err(error)))) => ToolOutput::failure(error),
            Some(Ok(Err(join))) if join.is_panic() => ToolOutput::failure(ToolError::from_panic(
                format_args!("{label} crashed on the executor"),
                join.into_panic().as_ref(),
            )),
            Some(Ok(Err(_aborted))) => no_result(&call.id),
        }
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        // Critical sections are single map operations: a poisoned map is consistent.
        self.inner
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Puts the one result of a dispatch id, once.
///
/// [`send`](Self::send) consumes it, so a second send does not compile;
/// dropping it unsent puts `client_executor_no_result` (from a task on the
/// current Tokio runtime), so the dispatcher never waits for nothing.
pub struct Responder {
    store: Option<Arc<dyn ResultStore>>,
    id: String,
}

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Responder")
            .field("id", &self.id)
            .field("sent", &self.store.is_none())
            .finish()
    }
}

impl Responder {
    /// The dispatch id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Puts `output`. `true` when the store took it, `false` when it was a
    /// late or duplicate result, or the store could not be reached (logged).
    pub async fn send(mut self, output: ToolOutput) -> bool {
        let Some(store) = self.store.take() else {
            return false;
        };
        put_logged(store.as_ref(), &self.id, &output).await
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        let Some(store) = self.store.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    put_logged(store.as_ref(), &id, &no_result(&id)).await;
                });
            }
            Err(_) => tracing::warn!(
                dispatch_id = %id,
                "a dispatch responder was dropped outside a Tokio runtime; no result was sent"
            ),
        }
    }
}

/// Pauses before each new try of a put the store could not take (a Redis
/// restart, a dropped connection). Together 375 ms: inside the
/// [`EXECUTOR_SAFETY_MARGIN`] the executor keeps before the dispatcher's
/// deadline, so a retried result still arrives in time. A put is
/// first-wins, so a try whose reply was lost and is repeated stores
/// nothing twice.
const PUT_RETRY_DELAYS: [Duration; 4] = [
    Duration::from_millis(25),
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
];

async fn put_logged(store: &dyn ResultStore, id: &str, output: &ToolOutput) -> bool {
    let mut delays = PUT_RETRY_DELAYS.iter();
    loop {
        match store.put(id, output).await {
            Ok(taken) => {
                if !taken {
                    tracing::debug!(dispatch_id = %id, "result dropped: duplicate, late or unknown id");
                }
                return taken;
            }
            Err(error) => match delays.next() {
                Some(delay) => {
                    tracing::debug!(dispatch_id = %id, %error, "could not put a dispatch result; trying again");
                    tokio::time::sleep(*delay).await;
                }
                None => {
                    tracing::warn!(dispatch_id = %id, %error, "could not put a dispatch result");
                    return false;
                }
            },
        }
    }
}

fn no_result(id: &str) -> ToolOutput {
    ToolOutput::failure(
        ToolError::new(
            CLIENT_EXECUTOR_NO_RESULT,
            "the executor's work ended without producing a result",
        )
        .with_details(json!({ "dispatchId": id })),
    )
}

/// How long a stopped tool may take to wind down after its cancellation
/// before its task is aborted.
const WIND_DOWN: Duration = Duration::from_secs(1);

/// Aborts the tool's task when the execution future is dropped mid-way.
struct AbortOnDrop(Option<tokio::task::AbortHandle>);

impl AbortOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.abort();
        }
    }
}

/// Registers a running call for [`ExecutorClient::abort`]; unregisters on drop.
struct RunningGuard<'a> {
    client: &'a ExecutorClient,
    id: String,
}

impl<'a> RunningGuard<'a> {
    fn register(client: &'a ExecutorClient, id: &str, token: CancellationToken) -> Self {
        client.running().insert(id.to_owned(), token);
        Self {
            client,
            id: id.to_owned(),
        }
    }
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        self.client.running().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::error::{Error, Result};

    /// A store that cannot be reached for its first `failures` puts.
    struct Flaky {
        failures: usize,
        puts: AtomicUsize,
    }

    #[async_trait::async_trait]
    impl ResultStore for Flaky {
        async fn expect(&self, _: &str, _: Duration) -> Result<()> {
            Ok(())
        }
        async fn put(&self, _: &str, _: &ToolOutput) -> Result<bool> {
            let n = self.puts.fetch_add(1, Ordering::SeqCst);
            if n < self.failures {
                Err(Error::StoreUnavailable {
                    message: "connection refused".into(),
                })
            } else {
                Ok(true)
            }
        }
        async fn wait(&self, _: &str, _: tokio::time::Instant) -> Result<Option<ToolOutput>> {
            Ok(None)
        }
        async fn discard(&self, _: &str) -> Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_put_the_store_could_not_take_is_tried_again_within_the_margin() {
        let store = Flaky {
            failures: 3,
            puts: AtomicUsize::new(0),
        };
        assert!(put_logged(&store, "d1", &ToolOutput::text("ok")).await);
        assert_eq!(store.puts.load(Ordering::SeqCst), 4);
        // All the pauses together stay inside the executor's margin.
        let total: Duration = PUT_RETRY_DELAYS.iter().sum();
        assert!(total < EXECUTOR_SAFETY_MARGIN);
    }

    #[tokio::test]
    async fn a_store_that_stays_away_gets_five_tries_then_the_put_is_given_up() {
        let store = Flaky {
            failures: usize::MAX,
            puts: AtomicUsize::new(0),
        };
        assert!(!put_logged(&store, "d1", &ToolOutput::text("ok")).await);
        assert_eq!(store.puts.load(Ordering::SeqCst), 5);
    }
}
