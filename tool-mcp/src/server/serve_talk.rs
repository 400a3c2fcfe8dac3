//! What a served call says while it runs, sent to the MCP client:
//! [`ToolContext::progress`](tool_core::ToolContext::progress) becomes
//! `notifications/progress` (only when the client's request carried a
//! `progressToken`), [`ToolContext::log`](tool_core::ToolContext::log)
//! becomes `notifications/message` at or above the session's
//! `logging/setLevel` (everything until the client sets one).
//!
//! [`CallEvents`] are called on the tool's task and must not block, so a
//! call's notes go through a queue to one forwarding task per call, which
//! sends them in order; the call's result waits for the queue to drain, so
//! every note reaches the client before the result does.

// MCP logging is deprecated in rmcp for a later protocol revision (SEP-2577);
// it is current in 2025-11-25, the revision served and proposed here.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::mpsc;
use tool_core::{CallEvents, LogLevel, Progress};

use crate::level::to_mcp_level;

/// How long a finished call waits for its last notes to be sent.
const DRAIN_BUDGET: Duration = Duration::from_secs(2);

/// One MCP session's logging threshold (`logging/setLevel`).
#[derive(Debug, Default)]
pub(crate) struct SessionLog {
    /// The lowest level sent, as [`rank`]; 0 (debug) until set.
    threshold: AtomicU8,
}

/// A threshold above every level: nothing is sent.
const OFF: u8 = 8;

impl SessionLog {
    /// One 2026-07-28 request's log threshold: its `_meta` `logLevel`, or
    /// nothing at all when the request set none (the revision forbids
    /// unrequested log lines).
    pub(crate) fn for_request(level: Option<LoggingLevel>) -> Self {
        Self {
            threshold: AtomicU8::new(level.map_or(OFF, rank)),
        }
    }

    pub(crate) fn set(&self, level: LoggingLevel) {
        self.threshold.store(rank(level), Ordering::Relaxed);
    }

    fn allows(&self, level: LoggingLevel) -> bool {
        rank(level) >= self.threshold.load(Ordering::Relaxed)
    }
}

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

enum Note {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    Done,
}

/// The [`CallEvents`] of one served call.
pub(crate) struct ServedEvents {
    queue: mpsc::UnboundedSender<Note>,
    token: Option<ProgressToken>,
    log: Arc<SessionLog>,
    logger: String,
}

/// The forwarding task of one call; [`finish`](Self::finish) it once the
/// call has its output.
pub(crate) struct Forwarder {
    queue: mpsc::UnboundedSender<Note>,
    task: tokio::task::JoinHandle<()>,
}

impl Forwarder {
    /// Sends what is queued, then ends (at most [`DRAIN_BUDGET`]).
    pub(crate) async fn finish(self) {
        let _ = self.queue.send(Note::Done);
        let _ = tokio::time::timeout(DRAIN_BUDGET, self.task).await;
    }
}

/// The events of a call to `tool` (the logger name of its log lines) for
/// the client `peer`.
pub(crate) fn served_events(
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    log: Arc<SessionLog>,
    tool: &str,
) -> (Arc<ServedEvents>, Forwarder) {
    let (queue, mut notes) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            // A client that left makes these fail; the call goes on.
            match note {
                Note::Progress(progress) => {
                    let _ = peer.notify_progress(progress).await;
                }
                Note::Log(line) => {
                    let _ = peer.notify_logging_message(line).await;
                }
                Note::Done => break,
            }
        }
    });
    let events = Arc::new(ServedEvents {
        queue: queue.clone(),
        token,
        log,
        logger: tool.to_owned(),
    });
    (events, Forwarder { queue, task })
}

impl CallEvents for ServedEvents {
    fn progress(&self, _call_id: Option<&str>, progress: &Progress) {
        let Some(token) = &self.token else {
            return;
        };
        let mut note = ProgressNotificationParam::new(token.clone(), progress.progress);
        note.total = progress.total;
        note.message = progress.message.clone();
        let _ = self.queue.send(Note::Progress(note));
    }

    fn log(&self, _call_id: Option<&str>, level: LogLevel, message: &str, data: Option<&Value>) {
        let level = to_mcp_level(level);
        if !self.log.allows(level) {
            return;
        }
        let data = data
            .cloned()
            .unwrap_or_else(|| Value::String(message.to_owned()));
        let mut line = LoggingMessageNotificationParam::new(level, data);
        line.logger = Some(self.logger.clone());
        let _ = self.queue.send(Note::Log(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_lets_its_level_and_above_through() {
        let log = SessionLog::default();
        assert!(log.allows(LoggingLevel::Debug), "everything until set");
        log.set(LoggingLevel::Warning);
        assert!(!log.allows(LoggingLevel::Info));
        assert!(log.allows(LoggingLevel::Warning));
        assert!(log.allows(LoggingLevel::Emergency));
    }
}
