//! The in-memory result store: one process, no setup.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::Notify;
use tokio::time::Instant;
use tool_core::ToolOutput;

use super::store::ResultStore;
use crate::error::Result;

/// How many [`expect`](ResultStore::expect)s between two sweeps of expired slots.
const SWEEP_EVERY: u64 = 1_024;

/// A [`ResultStore`] in this process's memory: the default when the
/// dispatcher and its executors share one process (executors as tasks, or
/// behind a channel whose replies this process receives).
///
/// Each waiting dispatch costs one map entry and one [`Notify`]; expired
/// slots are swept as new ones open. Cheap to clone; clones share the
/// slots.
#[derive(Debug, Clone, Default)]
pub struct MemoryResultStore {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    slots: HashMap<String, Slot>,
    opened: u64,
}

#[derive(Debug)]
struct Slot {
    result: Option<ToolOutput>,
    notify: Arc<Notify>,
    expires_at: Instant,
}

impl MemoryResultStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many ids are expected or hold an uncollected result.
    pub fn len(&self) -> usize {
        self.lock().slots.len()
    }

    /// Whether no id is expected and no result is uncollected.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a slot half-written
        // (every critical section is a single map operation), so the data
        // is still consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl ResultStore for MemoryResultStore {
    async fn expect(&self, id: &str, expires_in: Duration) -> Result<()> {
        let now = Instant::now();
        let mut state = self.lock();
        state.opened += 1;
        if state.opened.is_multiple_of(SWEEP_EVERY) {
            state.slots.retain(|_, slot| slot.expires_at > now);
        }
        state.slots.entry(id.to_owned()).or_insert_with(|| Slot {
            result: None,
            notify: Arc::new(Notify::new()),
            expires_at: now + expires_in,
        });
        Ok(())
    }

    async fn put(&self, id: &str, output: &ToolOutput) -> Result<bool> {
        let mut state = self.lock();
        match state.slots.get_mut(id) {
            Some(slot) if slot.result.is_none() && slot.expires_at > Instant::now() => {
                slot.result = Some(output.clone());
                // Stores a permit when nobody waits yet: the wait that comes
                // later finds the result without a lost wake-up.
                slot.notify.notify_one();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn wait(&self, id: &str, deadline: Instant) -> Result<Option<ToolOutput>> {
        loop {
            let notify = {
                let mut state = self.lock();
                let Some(slot) = state.slots.get_mut(id) else {
                    return Ok(None);
                };
                if slot.result.is_some() {
                    let result = state.slots.remove(id).and_then(|slot| slot.result);
                    return Ok(result);
                }
                Arc::clone(&slot.notify)
            };
            if tokio::time::timeout_at(deadline, notify.notified())
                .await
                .is_err()
            {
                return Ok(None);
            }
        }
    }

    async fn discard(&self, id: &str) -> Result<()> {
        self.lock().slots.remove(id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_result_put_before_the_wait_is_found() {
        let store = MemoryResultStore::new();
        store.expect("a", Duration::from_secs(5)).await.unwrap();
        assert!(store.put("a", &ToolOutput::text("1")).await.unwrap());
        assert!(!store.put("a", &ToolOutput::text("2")).await.unwrap());
        let got = store
            .wait("a", Instant::now() + Duration::from_secs(1))
            .await
            .unwrap();
        assert_eq!(got.unwrap().content, "1");
        assert!(store.is_empty());
        assert!(!store.put("a", &ToolOutput::text("3")).await.unwrap());
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn a_result_for_an_unexpected_id_is_dropped() {
        let store = MemoryResultStore::new();
        assert!(!store.put("nobody", &ToolOutput::text("x")).await.unwrap());
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn expired_slots_refuse_results_and_are_swept() {
        let store = MemoryResultStore::new();
        store
            .expect("old", Duration::from_millis(10))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!store.put("old", &ToolOutput::text("late")).await.unwrap());
        for i in 0..SWEEP_EVERY {
            store
                .expect(&format!("n{i}"), Duration::from_secs(60))
                .await
                .unwrap();
        }
        assert_eq!(store.len() as u64, SWEEP_EVERY);
    }
}
