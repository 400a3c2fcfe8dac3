//! The subscriber: one connection (one per master on a cluster) subscribed
//! to the store's wake channel, waking the waiters it names, and saying
//! when it was lost so they re-check.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use redis::{AsyncConnectionConfig, PushInfo, PushKind};
use tokio::sync::{Notify, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::backend::Backend;
use super::config::RedisStoreConfig;

/// What the subscriber task and the waiters share.
pub(super) struct Shared {
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// Bumped each time the subscriber connection is lost.
    pub(super) epoch: AtomicU64,
    pub(super) state: watch::Sender<SubState>,
    last_error: Mutex<Option<String>>,
    wakeups: AtomicU64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SubState {
    Connecting,
    Up(u64),
    Down,
}

impl Shared {
    pub(super) fn new() -> Self {
        let (state, _) = watch::channel(SubState::Connecting);
        Self {
            waiters: Mutex::new(HashMap::new()),
            epoch: AtomicU64::new(0),
            state,
            last_error: Mutex::new(None),
            wakeups: AtomicU64::new(0),
        }
    }

    pub(super) fn waiters(&self) -> MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        // Single map operations: a poisoned map is still consistent.
        self.waiters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn wakeups(&self) -> u64 {
        self.wakeups.load(Ordering::Relaxed)
    }

    pub(super) fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set_last_error(&self, reason: String) {
        *self
            .last_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(reason);
    }

    fn wake(&self, id: &str) {
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        if let Some(notify) = self.waiters().get(id) {
            notify.notify_one();
        }
    }

    fn up(&self) {
        let epoch = self.epoch.load(Ordering::SeqCst);
        self.state.send_replace(SubState::Up(epoch));
    }

    /// The subscriber connection is gone: every current wait must end.
    fn lost(&self, reason: String) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.set_last_error(reason);
        self.state.send_replace(SubState::Down);
        for notify in self.waiters().values() {
            notify.notify_one();
        }
    }

    fn failed_to_connect(&self, reason: String) {
        self.set_last_error(reason);
        if self.state.borrow().ne(&SubState::Down) {
            self.state.send_replace(SubState::Down);
        }
    }

    /// Wakes the waiter a (sharded) message names.
    fn message(&self, push: &PushInfo) {
        if let Some(redis::Value::BulkString(id)) = push.data.get(1) {
            self.wake(&String::from_utf8_lossy(id));
        }
    }
}

/// A registered wait; unregisters when the wait ends or is dropped.
pub(super) struct Registration<'a> {
    shared: &'a Shared,
    id: String,
}

impl<'a> Registration<'a> {
    pub(super) fn new(shared: &'a Shared, id: &str, notify: Arc<Notify>) -> Self {
        shared.waiters().insert(id.to_owned(), notify);
        Self {
            shared,
            id: id.to_owned(),
        }
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.shared.waiters().remove(&self.id);
    }
}

/// Runs the subscriber of `backend` until the store is dropped.
pub(super) async fn run(
    backend: Arc<Backend>,
    channel: String,
    shared: Weak<Shared>,
    config: RedisStoreConfig,
    shutdown: CancellationToken,
) {
    match &*backend {
        Backend::Single(client) => single(client, &channel, &shared, &config, &shutdown).await,
        #[cfg(feature = "redis-cluster")]
        Backend::Cluster(nodes) => cluster(nodes, &channel, &shared, &config, &shutdown).await,
    }
}

/// One server: one RESP3 connection subscribed to the wake channel,
/// reconnected with back-off.
async fn single(
    client: &redis::Client,
    channel: &str,
    shared: &Weak<Shared>,
    config: &RedisStoreConfig,
    shutdown: &CancellationToken,
) {
    let mut backoff = Duration::from_millis(50);
    loop {
        let (sender, mut pushes) = mpsc::unbounded_channel();
        let connection_config = AsyncConnectionConfig::new()
            .set_push_sender(sender)
            .set_connection_timeout(Some(config.connect_timeout))
            .set_response_timeout(Some(config.response_timeout));
        let connect = async {
            let mut connection = client
                .get_multiplexed_async_connection_with_config(&connection_config)
                .await?;
            connection.subscribe(channel).await?;
            Ok::<_, redis::RedisError>(connection)
        };
        let connected = tokio::select! {
            () = shutdown.cancelled() => return,
            connected = connect => connected,
        };
        match connected {
            Ok(connection) => {
                backoff = Duration::from_millis(50);
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                strong.up();
                drop(strong);
                let reason = loop {
                    let push = tokio::select! {
                        () = shutdown.cancelled() => return,
                        push = pushes.recv() => push,
                    };
                    let Some(push) = push else {
                        break "the subscriber connection closed".to_owned();
                    };
                    let Some(strong) = shared.upgrade() else {
                        return;
                    };
                    match push.kind {
                        PushKind::Message => strong.message(&push),
                        PushKind::Disconnection => {
                            break "the subscriber connection to Redis was lost".to_owned();
                        }
                        _ => {}
                    }
                };
                drop(connection);
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                tracing::warn!(%channel, %reason, "dispatch result subscriber disconnected");
                strong.lost(reason);
            }
            Err(error) => {
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                strong.failed_to_connect(error.to_string());
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}

/// A cluster: the cluster client's connections with a push sender, the
/// wake channel subscribed with `SSUBSCRIBE` on the master of its slot.
/// Any lost node connection or `sunsubscribe` (the slot moved, a failover)
/// counts as a loss: waiters re-check while the channel is subscribed
/// again, wherever its slot now lives.
#[cfg(feature = "redis-cluster")]
async fn cluster(
    nodes: &[redis::ConnectionInfo],
    channel: &str,
    shared: &Weak<Shared>,
    config: &RedisStoreConfig,
    shutdown: &CancellationToken,
) {
    let mut backoff = Duration::from_millis(50);
    loop {
        let (sender, mut pushes) = mpsc::unbounded_channel();
        let connect = async {
            let client = super::backend::cluster_client(nodes, config, Some(sender))
                .map_err(|e| e.to_string())?;
            tokio::time::timeout(config.connect_timeout, client.get_async_connection())
                .await
                .map_err(|_| "the cluster did not answer in time".to_owned())?
                .map_err(|e| e.to_string())
        };
        let connected = tokio::select! {
            () = shutdown.cancelled() => return,
            connected = connect => connected,
        };
        let mut connection = match connected {
            Ok(connection) => connection,
            Err(reason) => {
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                strong.failed_to_connect(reason);
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        // Subscribed (again) on the connection; `true` once it is.
        let mut subscribed = false;
        let mut retry_at = tokio::time::Instant::now();
        loop {
            if !subscribed && tokio::time::Instant::now() >= retry_at {
                let attempt = tokio::select! {
                    () = shutdown.cancelled() => return,
                    attempt = tokio::time::timeout(config.response_timeout, connection.ssubscribe(channel)) => attempt,
                };
                let Some(strong) = shared.upgrade() else {
                    return;
                };
                match attempt {
                    Ok(Ok(())) => {
                        backoff = Duration::from_millis(50);
                        subscribed = true;
                        strong.up();
                    }
                    Ok(Err(error)) => strong.failed_to_connect(error.to_string()),
                    Err(_) => strong.failed_to_connect("SSUBSCRIBE got no reply in time".into()),
                }
                if !subscribed {
                    retry_at = tokio::time::Instant::now() + backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                }
            }
            let push = tokio::select! {
                () = shutdown.cancelled() => return,
                push = pushes.recv() => push,
                () = tokio::time::sleep_until(retry_at), if !subscribed => continue,
            };
            let Some(strong) = shared.upgrade() else {
                return;
            };
            let Some(push) = push else {
                strong.lost("the cluster subscriber closed".into());
                break;
            };
            match push.kind {
                PushKind::SMessage | PushKind::Message => strong.message(&push),
                PushKind::Disconnection | PushKind::SUnsubscribe => {
                    let reason = format!("the cluster subscriber saw {}", push.kind);
                    tracing::warn!(%channel, %reason, "dispatch result subscriber lost");
                    strong.lost(reason);
                    subscribed = false;
                    retry_at = tokio::time::Instant::now();
                }
                _ => {}
            }
        }
    }
}
