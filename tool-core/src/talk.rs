//! Tools that talk to the user while they run: progress, log lines, and
//! questions with a schema (form elicitation).
//!
//! A tool calls [`ToolContext::progress`], [`ToolContext::log`] and
//! [`ToolContext::elicit`]; where they go is the host's business:
//!
//! - progress and logs go to the [`CallEvents`] the host put in the
//!   context ([`ToolContext::with_events`]): a progress bar, a log pane, or
//!   `notifications/progress` and `notifications/message` when the tools
//!   are served over MCP; without one they go nowhere;
//! - a question goes to the [`Asker`](crate::Asker)'s
//!   [`elicit`](crate::Asker::elicit): the invoker built
//!   [`with_asker`](crate::Invoker::with_asker) hands its asker to every
//!   call; over MCP it becomes `elicitation/create`. Without an asker the
//!   answer is [`Elicited::Unsupported`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::ToolContext;

/// How far a call has got: `progress` of `total` (when known), with an
/// optional message. Both numbers only grow within a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Work done so far.
    pub progress: f64,
    /// Work in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is happening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Progress {
    /// `progress` of `total`.
    pub fn of(progress: f64, total: f64) -> Self {
        Self {
            progress,
            total: Some(total),
            message: None,
        }
    }

    /// The same progress with a message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// The severity of a log line (the syslog levels MCP uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// Receives what running calls report. Called on the tool's task: keep it
/// quick (queue, don't block).
pub trait CallEvents: Send + Sync {
    /// The call `call_id` reported progress.
    fn progress(&self, call_id: Option<&str>, progress: &Progress);

    /// The call `call_id` logged a line.
    fn log(&self, call_id: Option<&str>, level: LogLevel, message: &str, data: Option<&Value>);
}

/// A question for the user with the shape of the answer: a JSON Schema
/// object of flat properties (strings, numbers, booleans, enums with
/// optional titles and defaults), as MCP form elicitation takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Elicitation {
    /// What to ask.
    pub message: String,
    /// The schema of the answer.
    pub requested_schema: Value,
}

impl Elicitation {
    /// A question with the schema of its answer.
    pub fn new(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            message: message.into(),
            requested_schema,
        }
    }
}

/// The user's answer to an [`Elicitation`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicited {
    /// They answered; the value follows the requested schema.
    Accept(Value),
    /// They said no.
    Decline,
    /// They dismissed the question.
    Cancel,
    /// Nobody can be asked here (no asker, or it does not take questions).
    Unsupported,
}

#[derive(Clone)]
pub(crate) struct EventsHandle(pub(crate) Arc<dyn CallEvents>);

#[derive(Clone)]
pub(crate) struct AskerHandle(pub(crate) Arc<dyn crate::Asker>);

impl ToolContext {
    /// The same context reporting progress and logs of its calls to `events`.
    pub fn with_events(self, events: Arc<dyn CallEvents>) -> Self {
        self.with_extension(EventsHandle(events))
    }

    /// The same context answering calls' questions ([`elicit`](Self::elicit))
    /// with `asker` (the [`Invoker`](crate::Invoker) does this for its own
    /// asker).
    pub fn with_asker(self, asker: Arc<dyn crate::Asker>) -> Self {
        self.with_extension(AskerHandle(asker))
    }

    /// Reports progress of this call (nowhere, when the host set no events).
    pub fn progress(&self, progress: Progress) {
        if let Some(events) = self.extension::<EventsHandle>() {
            events.0.progress(self.call_id(), &progress);
        }
    }

    /// Logs a line for this call (nowhere, when the host set no events).
    pub fn log(&self, level: LogLevel, message: &str) {
        if let Some(events) = self.extension::<EventsHandle>() {
            events.0.log(self.call_id(), level, message, None);
        }
    }

    /// Logs a line for this call with its structured data (a remote
    /// server's log data, a task's id and handle), nowhere when the host
    /// set no events.
    pub fn log_with_data(&self, level: LogLevel, message: &str, data: Option<&Value>) {
        if let Some(events) = self.extension::<EventsHandle>() {
            events.0.log(self.call_id(), level, message, data);
        }
    }

    /// Asks the user `question` and waits for the answer, at most until
    /// this call's deadline (then [`Elicited::Cancel`]).
    ///
    /// ```
    /// use tool_core::{Elicitation, Elicited, ToolContext};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let question = Elicitation::new("Which branch?", serde_json::json!({
    ///     "type": "object", "properties": {"branch": {"type": "string", "default": "main"}}
    /// }));
    /// // Nobody to ask in a bare context:
    /// assert_eq!(ToolContext::new().elicit(question).await, Elicited::Unsupported);
    /// # });
    /// ```
    pub async fn elicit(&self, question: Elicitation) -> Elicited {
        let Some(asker) = self.extension::<AskerHandle>().cloned() else {
            return Elicited::Unsupported;
        };
        let asked = asker.0.elicit(&question, self);
        match self.deadline() {
            Some(deadline) => tokio::time::timeout_at(deadline, asked)
                .await
                .unwrap_or(Elicited::Cancel),
            None => asked.await,
        }
    }
}
