//! What a tool knows about the call's surroundings. Models cannot set it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// The host-provided context of a call: working directory, who is asking,
/// whether this is a sub-agent, free metadata and a cancellation token.
///
/// Cloning is cheap; clones share the cancellation token.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    cwd: Option<PathBuf>,
    user_id: Option<String>,
    agent_id: Option<String>,
    topic_id: Option<String>,
    sub_agent: bool,
    metadata: Arc<Map<String, Value>>,
    cancel: CancellationToken,
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
}
