//! What a tool knows about the call's surroundings. Models cannot set it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::extensions::Extensions;

/// The host-provided context of a call: working directory, who is asking,
/// whether this is a sub-agent, free metadata, typed [`Extensions`] and a
/// cancellation token; and, once the [`Invoker`](crate::Invoker) runs a
/// call, the call itself: its id and its deadlines.
///
/// Cloning is cheap; clones share the cancellation token.
///
/// # What the Invoker fills in
///
/// The host builds one context per turn. For each call, the
/// [`Invoker`](crate::Invoker) hands the tool a [`child`](Self::child) of it
/// with:
///
/// 1. [`call_id`](Self::call_id): the provider's call id, or one minted with
///    [`mint_call_id`](crate::pipeline::mint_call_id) when the model sent none;
/// 2. [`deadline`](Self::deadline): when this call's time budget ends; the
///    earlier of *now + resolved timeout* and a deadline the host set on the
///    turn's context with [`with_deadline`](Self::with_deadline);
/// 3. [`batch_deadline`](Self::batch_deadline): when the whole batch this
///    call belongs to has to be over (the latest deadline among its calls;
///    the call's own deadline for a single call), for tools that dispatch
///    elsewhere and share one wait;
/// 4. a child cancellation token, cancelled when the call ends.
///
/// Everything else (cwd, ids, metadata, extensions) is passed through as the
/// host set it.
///
/// ```
/// use std::time::Duration;
/// use tool_core::ToolContext;
///
/// struct Session(&'static str);
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let ctx = ToolContext::new()
///     .with_user_id("u-1")
///     .with_extension(Session("device-42"))
///     .with_timeout(Duration::from_secs(30)); // the whole turn may take 30 s
/// assert_eq!(ctx.extension::<Session>().unwrap().0, "device-42");
/// assert!(ctx.remaining().unwrap() <= Duration::from_secs(30));
/// assert_eq!(ctx.call_id(), None); // set by the Invoker, per call
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    cwd: Option<PathBuf>,
    user_id: Option<String>,
    agent_id: Option<String>,
    topic_id: Option<String>,
    sub_agent: bool,
    metadata: Arc<Map<String, Value>>,
    cancel: CancellationToken,
    call_id: Option<Arc<str>>,
    deadline: Option<Instant>,
    batch_deadline: Option<Instant>,
    extensions: Extensions,
}

impl ToolContext {
    /// An empty context: no working directory, no ids, a fresh token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the user id.
    pub fn with_user_id(mut self, id: impl Into<String>) -> Self {
        self.user_id = Some(id.into());
        self
    }

    /// Sets the agent id.
    pub fn with_agent_id(mut self, id: impl Into<String>) -> Self {
        self.agent_id = Some(id.into());
        self
    }

    /// Sets the topic (conversation) id.
    pub fn with_topic_id(mut self, id: impl Into<String>) -> Self {
        self.topic_id = Some(id.into());
        self
    }

    /// Marks the call as made inside a sub-agent.
    pub fn with_sub_agent(mut self, sub_agent: bool) -> Self {
        self.sub_agent = sub_agent;
        self
    }

    /// Replaces the metadata map.
    pub fn with_metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.metadata = Arc::new(metadata);
        self
    }

    /// Uses `token` for cancellation (e.g. a child of the host's turn token).
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// The working directory, if the host set one.
    pub fn cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The user id.
    pub fn user_id(&self) -> Option<&str> {
        self.user_id.as_deref()
    }

    /// The agent id.
    pub fn agent_id(&self) -> Option<&str> {
        self.agent_id.as_deref()
    }

    /// The topic id.
    pub fn topic_id(&self) -> Option<&str> {
        self.topic_id.as_deref()
    }

    /// Whether the call happens inside a sub-agent.
    pub fn is_sub_agent(&self) -> bool {
        self.sub_agent
    }

    /// Free metadata.
    pub fn metadata(&self) -> &Map<String, Value> {
        &self.metadata
    }

    /// The cancellation token tools should watch.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the host has cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// A context for one call: same values, a child token so cancelling one
    /// call (e.g. on timeout) does not cancel its siblings.
    pub fn child(&self) -> Self {
        let mut child = self.clone();
        child.cancel = self.cancel.child_token();
        child
    }

    /// Sets the call id (the [`Invoker`](crate::Invoker) does this per call).
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// The id of the call being run: the provider's, or a minted one. `None`
    /// on a context the Invoker has not handed to a tool.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// Sets a deadline. On the host's turn context it bounds every call
    /// (a call's deadline is the earlier of its own budget and this); the
    /// Invoker sets the resolved deadline of each call on the call's context.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// [`with_deadline`](Self::with_deadline) at now + `timeout`.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        self.with_deadline(Instant::now() + timeout)
    }

    /// When this call's time budget ends (see the type's docs for how it is
    /// resolved). A tool that waits on something else (an HTTP server, a
    /// remote device) passes this on instead of rolling its own timeout.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The time left until [`deadline`](Self::deadline) (zero once passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    /// The deadline as wall-clock time, for a deadline that has to travel
    /// to another machine (a dispatched call, an HTTP header): now + the
    /// time [`remaining`](Self::remaining).
    pub fn deadline_system_time(&self) -> Option<std::time::SystemTime> {
        self.remaining()
            .map(|left| std::time::SystemTime::now() + left)
    }

    /// Sets the batch deadline (the Invoker does this per call).
    pub fn with_batch_deadline(mut self, deadline: Instant) -> Self {
        self.batch_deadline = Some(deadline);
        self
    }

    /// When the batch this call belongs to has to be over: the latest
    /// deadline among the batch's calls.
    pub fn batch_deadline(&self) -> Option<Instant> {
        self.batch_deadline
    }

    /// Adds a typed value (replacing one of the same type).
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Replaces the whole extension map.
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }

    /// The typed value of type `T`, if the host attached one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }

    /// All typed values.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// All typed values, to change in place.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }
}
