//! Restarting a server whose calls keep timing out.
//!
//! A call whose future is dropped before the server answered (the
//! invoker's deadline passed, or the host cancelled it) counts against its
//! server; an answer of any kind (a result, a tool error, a refusal) sets
//! the count back to zero. When [`ManagerOptions::restart_after_timeouts`]
//! calls in a row went unanswered, the server's session is let go: the next
//! request opens a new one (a new process for stdio), and the old process
//! is stopped once the calls still holding it end. A timed-out call is
//! never sent again: the server may have run it.
//!
//! [`ManagerOptions::restart_after_timeouts`]: crate::ManagerOptions::restart_after_timeouts

use std::sync::Arc;

use crate::client::manager::Slot;

/// Watches one call; see the module docs.
pub(crate) struct TimeoutWatch {
    slot: Arc<Slot>,
    limit: u32,
    answered: bool,
}

impl TimeoutWatch {
    /// Starts watching a call to `slot`'s server (`limit` 0: never restart).
    pub(crate) fn new(slot: &Arc<Slot>, limit: u32) -> Self {
        Self {
            slot: Arc::clone(slot),
            limit,
            answered: false,
        }
    }

    /// The server answered: the count starts again.
    pub(crate) fn answered(mut self) {
        self.answered = true;
        self.slot.timeouts_answered();
    }
}

impl Drop for TimeoutWatch {
    fn drop(&mut self) {
        if self.answered || self.limit == 0 {
            return;
        }
        let in_a_row = self.slot.timeout_unanswered();
        if in_a_row >= self.limit && self.slot.let_session_go() {
            tracing::warn!(
                name: "mcp.restart",
                server = %self.slot.config.id,
                unanswered = in_a_row,
                "restarting an MCP server after calls in a row went unanswered"
            );
        }
    }
}
