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
use std::sync::atomic::{AtomicU32, Ordering};

/// One server's count of calls in a row left unanswered.
#[derive(Debug, Default)]
pub(crate) struct Unanswered(AtomicU32);

/// Watches one call; `restart` runs when it is dropped unanswered and the
/// count reaches the limit.
pub(crate) struct TimeoutWatch<F: FnOnce(u32)> {
    count: Arc<Unanswered>,
    limit: u32,
    restart: Option<F>,
}

impl<F: FnOnce(u32)> TimeoutWatch<F> {
    /// Starts watching a call (`limit` 0: never restart); `restart` gets
    /// how many calls in a row went unanswered.
    pub(crate) fn new(count: &Arc<Unanswered>, limit: u32, restart: F) -> Self {
        Self {
            count: Arc::clone(count),
            limit,
            restart: Some(restart),
        }
    }

    /// The server answered: the count starts again.
    pub(crate) fn answered(mut self) {
        self.restart = None;
        self.count.0.store(0, Ordering::SeqCst);
    }
}

impl<F: FnOnce(u32)> Drop for TimeoutWatch<F> {
    fn drop(&mut self) {
        let Some(restart) = self.restart.take() else {
            return;
        };
        if self.limit == 0 {
            return;
        }
        let in_a_row = self.count.0.fetch_add(1, Ordering::SeqCst) + 1;
        if in_a_row >= self.limit {
            self.count.0.store(0, Ordering::SeqCst);
            restart(in_a_row);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::{TimeoutWatch, Unanswered};

    #[test]
    fn the_limit_counts_unanswered_calls_in_a_row_and_an_answer_resets_it() {
        let count = Arc::new(Unanswered::default());
        let restarts = AtomicU32::new(0);
        let call = |answered: bool| {
            let watch = TimeoutWatch::new(&count, 2, |_| {
                restarts.fetch_add(1, Ordering::SeqCst);
            });
            if answered {
                watch.answered();
            }
        };
        call(false);
        call(true);
        call(false);
        assert_eq!(restarts.load(Ordering::SeqCst), 0);
        call(false);
        assert_eq!(restarts.load(Ordering::SeqCst), 1);
        call(false);
        assert_eq!(
            restarts.load(Ordering::SeqCst),
            1,
            "counted from zero again"
        );
        let never = TimeoutWatch::new(&count, 0, |_| panic!("0 never restarts"));
        drop(never);
    }
}
