//! The result store: where executors put results and dispatchers wait.

use std::time::Duration;

use async_trait::async_trait;
use tokio::time::Instant;
use tool_core::ToolOutput;

use crate::error::Result;

/// Where executors put results and dispatchers wait for them.
///
/// The life of one dispatch id:
///
/// 1. the dispatcher [`expect`](Self::expect)s it before sending the call,
///    so a result that comes back at once is not lost;
/// 2. the executor [`put`](Self::put)s one result; the first put of an
///    expected id wins, every later one (a duplicate, or one after the
///    dispatcher gave up) returns `false` and is dropped;
/// 3. the dispatcher [`wait`](Self::wait)s until the result arrives or the
///    deadline passes, and the result is removed as it is taken;
/// 4. on timeout or cancellation the dispatcher [`discard`](Self::discard)s
///    the id so nothing is left behind and late results are dropped.
///
/// An expected id that is never collected expires after `expires_in`.
///
/// Failures to reach the store are [`Error::StoreUnavailable`](crate::Error::StoreUnavailable).
#[async_trait]
pub trait ResultStore: Send + Sync {
    /// Opens the slot of `id` for one result, for at most `expires_in`.
    async fn expect(&self, id: &str, expires_in: Duration) -> Result<()>;

    /// Puts the result of `id`. `Ok(true)` when it was taken (the first
    /// result of an expected id), `Ok(false)` when it was dropped.
    async fn put(&self, id: &str, output: &ToolOutput) -> Result<bool>;

    /// Waits for the result of an expected `id` until `deadline`; `Ok(None)`
    /// when the deadline passed first. Dropping the future stops waiting.
    async fn wait(&self, id: &str, deadline: Instant) -> Result<Option<ToolOutput>>;

    /// Forgets `id` and any uncollected result of it.
    async fn discard(&self, id: &str) -> Result<()>;
}
