//! The server side: send a call to an executor and wait for its one result.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use tool_core::{CancellationToken, ErrorCode, ToolError, ToolOutput};

use super::channel::DispatchChannel;
use super::message::{
    CHANNEL_UNAVAILABLE, ChannelMessage, DISPATCH_FAILED, STORE_UNAVAILABLE, ToolExecute,
};
use super::store::ResultStore;
use crate::error::Error;

/// How long a failed dispatch waits at most for the store to forget its id
/// before returning (the rest of the clean-up runs detached).
pub const CLEANUP_MARGIN: Duration = Duration::from_millis(25);

/// How long an expected id outlives its deadline in the store by default.
pub const DEFAULT_SLOT_GRACE: Duration = Duration::from_secs(10);

/// One call to dispatch: which tool and API, and the arguments as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchCall {
    /// The model's call id, passed on to the executor.
    pub tool_call_id: Option<String>,
    /// The tool identifier.
    pub identifier: String,
    /// The API name.
    pub api: String,
    /// The arguments exactly as text.
    pub arguments: String,
}

impl DispatchCall {
    /// A call of `identifier`/`api` with `arguments` text.
    pub fn new(
        identifier: impl Into<String>,
        api: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            tool_call_id: None,
            identifier: identifier.into(),
            api: api.into(),
            arguments: arguments.into(),
        }
    }

    /// Sets the model's call id.
    pub fn with_tool_call_id(mut self, id: impl Into<String>) -> Self {
        self.tool_call_id = Some(id.into());
        self
    }
}

/// Sends calls to executors over a [`DispatchChannel`] and waits for their
/// results in a [`ResultStore`].
///
/// Every dispatch ends in exactly one [`ToolOutput`], never an error and
/// never a hang:
///
/// | what happened | output |
/// |---|---|
/// | the executor's result arrived | that result (first one wins) |
/// | no channel configured, or it reports nobody connected | `channel_unavailable` |
/// | no store configured, or it cannot be reached | `store_unavailable` |
/// | the channel failed to send | `dispatch_failed` |
/// | nothing arrived by the deadline | `timeout` (the executor is told to abort) |
/// | the store (opening the slot) or the channel (taking the call) did not answer by the deadline | `timeout`, `details.step` `expect` or `send`: the call never reached an executor |
/// | the cancellation token fired | `cancelled` at once (the executor is told to abort) |
///
/// # Deadline
///
/// Every step (opening the slot, sending, waiting) runs under the call's
/// deadline, so the output comes back by the deadline plus a margin of at
/// most 50 ms (timer and scheduling delay; measured at a few milliseconds
/// on a loaded 2-core machine against a stalled redis-server and a full
/// channel), whatever the store or the channel do. After a failure the
/// slot is forgotten for at most [`CLEANUP_MARGIN`] (25 ms) before the
/// output returns, so a late result is dropped; what is not done by then,
/// and telling the executor to stop, continues in a task of its own (a
/// second at most each). The margin is thus timer delay + 25 ms.
///
/// Each dispatch gets its own id (`<prefix>-<n>`, the prefix random per
/// dispatcher), so two dispatchers sharing a store never see each other's
/// results, even for equal model call ids.
///
/// Cheap to clone; clones share the channel, the store and the id counter.
#[derive(Clone)]
pub struct Dispatcher {
    channel: Option<Arc<dyn DispatchChannel>>,
    store: Option<Arc<dyn ResultStore>>,
    slot_grace: Duration,
    prefix: Arc<str>,
    counter: Arc<AtomicU64>,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("channel", &self.channel.is_some())
            .field("store", &self.store.is_some())
            .field("slot_grace", &self.slot_grace)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl Default for Dispatcher {
    fn default() -> Self {
        Self::new()
    }
}

impl Dispatcher {
    /// A dispatcher with neither channel nor store: every dispatch fails
    /// with `channel_unavailable` until both are set.
    pub fn new() -> Self {
        Self {
            channel: None,
            store: None,
            slot_grace: DEFAULT_SLOT_GRACE,
            prefix: random_prefix().into(),
            counter: Arc::new(AtomicU64::new(0)),
        }
    }

    /// A dispatcher over `channel` and `store`.
    pub fn with(channel: Arc<dyn DispatchChannel>, store: Arc<dyn ResultStore>) -> Self {
        Self::new().channel(channel).store(store)
    }

    /// Sets the channel.
    pub fn channel(mut self, channel: Arc<dyn DispatchChannel>) -> Self {
        self.channel = Some(channel);
        self
    }

    /// Sets the result store.
    pub fn store(mut self, store: Arc<dyn ResultStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How long an expected id stays in the store after its deadline
    /// (default [`DEFAULT_SLOT_GRACE`]); a result arriving later is dropped.
    pub fn slot_grace(mut self, grace: Duration) -> Self {
        self.slot_grace = grace;
        self
    }

    /// Dispatches one call with the time `budget`.
    pub async fn dispatch(
        &self,
        call: DispatchCall,
        budget: Duration,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        self.dispatch_until(call, Instant::now() + budget, cancel)
            .await
    }

    /// Dispatches calls concurrently under **one** deadline, now + `budget`:
    /// the whole batch takes at most `budget`, not one budget per call.
    /// Outputs come back in input order, one per call.
    pub async fn dispatch_batch(
        &self,
        calls: Vec<DispatchCall>,
        budget: Duration,
        cancel: &CancellationToken,
    ) -> Vec<ToolOutput> {
        let deadline = Instant::now() + budget;
        futures::future::join_all(
            calls
                .into_iter()
                .map(|call| self.dispatch_until(call, deadline, cancel)),
        )
        .await
    }

    /// Dispatches one call that must be over by `deadline` (for example the
    /// deadline a batch shares).
    pub async fn dispatch_until(
        &self,
        call: DispatchCall,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let label = format!("`{}/{}`", call.identifier, call.api);
        let Some(channel) = self.channel.clone() else {
            return failure(
                CHANNEL_UNAVAILABLE,
                format!(
                    "{label} runs on a remote executor, and no dispatch channel is configured on this server."
                ),
            );
        };
        let Some(store) = self.store.clone() else {
            return failure(
                STORE_UNAVAILABLE,
                format!(
                    "{label} runs on a remote executor, and no result store is configured on this server."
                ),
            );
        };
        let id = format!(
            "{}-{}",
            self.prefix,
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let budget_ms = deadline
            .saturating_duration_since(Instant::now())
            .as_millis() as u64;
        let message_id = id.clone();
        let message = ChannelMessage::ToolExecute(ToolExecute {
            id: id.clone(),
            tool_call_id: call.tool_call_id,
            identifier: call.identifier,
            api_name: call.api,
            arguments: call.arguments,
            execution_timeout_ms: budget_ms,
        });
        // If this future is dropped mid-way (the pipeline's own timeout or
        // cancellation got there first), the guard cleans up from a task.
        let guard = Cleanup {
            store: Arc::clone(&store),
            channel: Arc::clone(&channel),
            id: id.clone(),
            armed: true,
        };
        // Which step the dispatch is at, for the failure's message.
        let mut step = Step::Expect;
        let attempt = async {
            store
                .expect(&id, Duration::from_millis(budget_ms) + self.slot_grace)
                .await
                .map_err(Stage::Store)?;
            step = Step::Send;
            channel.send(message).await.map_err(Stage::Channel)?;
            step = Step::Wait;
            store.wait(&id, deadline).await.map_err(Stage::Store)
        };
        // Every step is bounded by the deadline, whatever the store or the
        // channel do (a full channel nobody reads, a stalled Redis).
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => Outcome::Cancelled,
            result = tokio::time::timeout_at(deadline, attempt) => match result {
                Ok(Ok(Some(output))) => {
                    guard.disarm();
                    return output;
                }
                Ok(Ok(None)) | Err(_) => Outcome::TimedOut,
                Ok(Err(stage)) => Outcome::Failed(stage),
            },
        };
        // Nobody will collect this id any more: forget it (late results are
        // dropped), for at most CLEANUP_MARGIN here, and tell the executor
        // to stop from a task of its own, so a store or a channel slow to
        // answer does not hold the output up.
        guard.disarm();
        let tell_abort = step == Step::Wait;
        let discarded = tokio::time::timeout(CLEANUP_MARGIN, store.discard(&id))
            .await
            .is_ok_and(|done| done.is_ok());
        tokio::spawn(async move {
            if !discarded {
                let _ = tokio::time::timeout(Duration::from_secs(1), store.discard(&id)).await;
            }
            if tell_abort {
                let abort = ChannelMessage::ToolAbort { id: id.clone() };
                let _ = tokio::time::timeout(Duration::from_secs(1), channel.send(abort)).await;
            }
        });
        let id = &message_id;
        match outcome {
            Outcome::Cancelled => failure(
                ErrorCode::CANCELLED,
                format!("{label} was cancelled while its executor was running it."),
            ),
            Outcome::TimedOut => ToolError::new(
                ErrorCode::TIMEOUT,
                match step {
                    Step::Wait => format!(
                        "{label} ran on a remote executor and no result arrived within {budget_ms} ms; the executor was told to stop."
                    ),
                    Step::Send => format!(
                        "{label} could not be handed to its executor within {budget_ms} ms: the dispatch channel did not take it (nobody reading?). It never ran."
                    ),
                    Step::Expect => format!(
                        "{label} could not be dispatched within {budget_ms} ms: the result store did not answer. It never ran."
                    ),
                },
            )
            .with_details(json!({ "timeoutMs": budget_ms, "dispatchId": id, "step": step.name() }))
            .into(),
            Outcome::Failed(Stage::Store(error)) => {
                let code = match error {
                    Error::Protocol { .. } => error.code(),
                    _ => STORE_UNAVAILABLE,
                };
                failure(
                    code,
                    format!("{label} could not be dispatched or its result not collected: {error}"),
                )
            }
            Outcome::Failed(Stage::Channel(error)) => {
                let code = match error {
                    Error::ChannelUnavailable { .. } => CHANNEL_UNAVAILABLE,
                    _ => DISPATCH_FAILED,
                };
                failure(code, format!("{label}: {error}"))
            }
        }
    }
}

/// Forgets `id` in the store and (when `tell_abort`) tells the executor to
/// stop; best effort, a second at most each (run detached after a failed
/// dispatch: it never delays the output).
async fn clean_up(
    store: &dyn ResultStore,
    channel: &dyn DispatchChannel,
    id: &str,
    tell_abort: bool,
) {
    let _ = tokio::time::timeout(Duration::from_secs(1), store.discard(id)).await;
    if tell_abort {
        let abort = ChannelMessage::ToolAbort { id: id.to_owned() };
        let _ = tokio::time::timeout(Duration::from_secs(1), channel.send(abort)).await;
    }
}

/// Cleans up a dispatch whose future was dropped before it ended.
struct Cleanup {
    store: Arc<dyn ResultStore>,
    channel: Arc<dyn DispatchChannel>,
    id: String,
    armed: bool,
}

impl Cleanup {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (store, channel) = (Arc::clone(&self.store), Arc::clone(&self.channel));
        let id = std::mem::take(&mut self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                clean_up(store.as_ref(), channel.as_ref(), &id, true).await;
            });
        }
    }
}

enum Stage {
    Store(Error),
    Channel(Error),
}

/// The step a dispatch reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Opening the result slot in the store.
    Expect,
    /// Handing the call to the channel.
    Send,
    /// Waiting for the result.
    Wait,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Expect => "expect",
            Step::Send => "send",
            Step::Wait => "wait",
        }
    }
}

enum Outcome {
    Cancelled,
    TimedOut,
    Failed(Stage),
}

fn failure(code: ErrorCode, message: String) -> ToolOutput {
    ToolOutput::failure(ToolError::new(code, message))
}

/// A short random hex prefix (no RNG dependency: std's hasher keys are
/// random per process, mixed with the time and a counter).
pub(crate) fn random_prefix() -> String {
    use std::hash::{BuildHasher, Hasher};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(SEQ.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    format!("{:012x}", hasher.finish() & 0xffff_ffff_ffff)
}
