//! The use-once ledger: each answered pending item is settled once, by
//! whichever process claims it first.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// How far an item got in the process that claimed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UseState {
    /// Claimed, and the call not (yet) recorded as started: the claiming
    /// process is starting it right now, or crashed between the claim and
    /// the start. Either way it is not run again here; the outcome is
    /// `approval_interrupted`.
    Claimed,
    /// Claimed and started (or settled without running: a decline, a
    /// stale binding).
    Started,
}

/// The answer of [`UseOnceLedger::claim`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Claim {
    /// This caller is the first: it settles the item.
    First,
    /// Someone claimed it before; how far they got.
    Taken(UseState),
}

/// Where a host records which pending items were settled, shared by every
/// process that may resume its turns.
///
/// The pipeline calls [`claim`](Self::claim) for an item once every check
/// has passed, right before it runs (or declines) it, and
/// [`mark_started`](Self::mark_started) just before the call starts. So an
/// approval is consumed when its resumed call starts, not when the answer
/// is recorded; two processes resuming the same turn run the call exactly
/// once; and a crash between the claim and the start leaves
/// [`UseState::Claimed`], a named outcome, never a silent second run.
///
/// The wrong way: "check, then set" in two steps (two resumers both see
/// "unused"), or recording use when the person answers (a resume that never
/// happens burns the approval; one that happens twice runs twice).
///
/// The right way: one atomic step that sets the entry only if it is
/// absent (`SET key claimed NX PX ttl` in Redis, an insert under a lock in
/// memory) and tells the loser what the winner wrote.
///
/// Implementations: [`MemoryLedger`] (one process; tests) and
/// tool-runtime's `RedisLedger` (feature `redis`).
#[async_trait]
pub trait UseOnceLedger: Send + Sync {
    /// Claims `key` until `expires_at` (the pending item's expiry; the entry
    /// may be forgotten after it, since an expired item never runs).
    async fn claim(&self, key: &str, expires_at: SystemTime) -> Result<Claim, Error>;

    /// Records that the call claimed under `key` starts now.
    async fn mark_started(&self, key: &str) -> Result<(), Error>;
}

/// A [`UseOnceLedger`] in this process's memory: use once within one
/// process (tests, a single-instance host). Entries are dropped once
/// expired, on the next claim.
#[derive(Debug, Default)]
pub struct MemoryLedger {
    entries: Mutex<HashMap<String, (UseState, SystemTime)>>,
}

impl MemoryLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many entries are held.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn poisoned() -> Error {
    Error::Ledger {
        message: "the in-memory ledger's lock was poisoned by a panic".to_owned(),
    }
}

#[async_trait]
impl UseOnceLedger for MemoryLedger {
    async fn claim(&self, key: &str, expires_at: SystemTime) -> Result<Claim, Error> {
        let mut entries = self.entries.lock().map_err(|_| poisoned())?;
        let now = SystemTime::now();
        entries.retain(|_, (_, until)| *until > now);
        if let Some((state, _)) = entries.get(key) {
            return Ok(Claim::Taken(*state));
        }
        // Keep the entry at least a minute, so a claim on an item that
        // expires right now still stops a racing second resumer.
        let until = expires_at.max(now + Duration::from_secs(60));
        entries.insert(key.to_owned(), (UseState::Claimed, until));
        Ok(Claim::First)
    }

    async fn mark_started(&self, key: &str) -> Result<(), Error> {
        let mut entries = self.entries.lock().map_err(|_| poisoned())?;
        match entries.get_mut(key) {
            Some((state, _)) => {
                *state = UseState::Started;
                Ok(())
            }
            None => Err(Error::Ledger {
                message: format!("`{key}` was never claimed"),
            }),
        }
    }
}

/// Milliseconds since the Unix epoch (0 before it).
pub(crate) fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The time `ms` milliseconds after the Unix epoch.
pub(crate) fn from_unix_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}
