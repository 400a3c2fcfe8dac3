//! The Redis result store: several server instances, one Redis, a bounded
//! number of connections however many calls wait.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncConnectionConfig, IntoConnectionInfo, ProtocolVersion, PushKind, Script};
use tokio::sync::{Notify, mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};
use tool_core::ToolOutput;

use super::dispatcher::random_prefix;
use super::store::ResultStore;
use crate::error::{Error, Result};

/// The put script: first result of an expected id wins, then wakes its waiter.
const PUT_SCRIPT: &str = r"
local channel = redis.call('GET', KEYS[1])
if not channel then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', channel, ARGV[3])
return 1
";

/// The check script: takes the result if it is there, else says whether
/// the slot still exists (a slot gone without a result was lost: a Redis
/// restart without persistence, an eviction).
const CHECK_SCRIPT: &str = r"
local result = redis.call('GETDEL', KEYS[1])
if result then return {1, result} end
return {0, redis.call('EXISTS', KEYS[2])}
";

/// Settings of a [`RedisResultStore`].
///
/// Defaults: namespace `tool-dispatch`, uncollected results expire after
/// 10 minutes, one command connection, 2 s to connect and 5 s for a reply,
/// 3 s to recover a lost subscriber or store before a wait fails.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisStoreConfig {
    /// The server, `redis://host:port/db` (RESP3 is always used).
    pub url: String,
    /// Prefix of every key and channel (`<namespace>:pending:<id>`, …).
    pub namespace: String,
    /// How long an uncollected result stays in Redis.
    pub result_ttl: Duration,
    /// How many multiplexed command connections the store opens (at least
    /// 1). With the subscriber, the store uses at most this + 1
    /// connections whatever the number of concurrent waits.
    pub command_connections: usize,
    /// How long to wait for a connection (and, when a wait starts, for the
    /// subscriber to be subscribed).
    pub connect_timeout: Duration,
    /// How long to wait for one command's reply.
    pub response_timeout: Duration,
    /// How long a wait keeps trying when the subscriber connection was lost
    /// or the store does not answer (resubscribing, re-checking the stored
    /// result) before it fails with `store_unavailable`; never past the
    /// call's deadline.
    pub recovery_timeout: Duration,
}

impl RedisStoreConfig {
    /// The defaults for the server at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            namespace: "tool-dispatch".into(),
            result_ttl: Duration::from_secs(600),
            command_connections: 1,
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(5),
            recovery_timeout: Duration::from_secs(3),
        }
    }

    /// Sets how long a wait tries to recover before failing.
    pub fn recovery_timeout(mut self, timeout: Duration) -> Self {
        self.recovery_timeout = timeout;
        self
    }

    /// Sets the namespace.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// Sets the expiry of uncollected results.
    pub fn result_ttl(mut self, ttl: Duration) -> Self {
        self.result_ttl = ttl;
        self
    }

    /// Sets the number of command connections (at least 1).
    pub fn command_connections(mut self, count: usize) -> Self {
        self.command_connections = count.max(1);
        self
    }

    /// Sets the connect timeout.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the reply timeout.
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }
}

/// A [`ResultStore`] in Redis, for hosts whose executors answer a
/// different server instance than the one waiting. Needs Redis 6.2 or
/// later (`GETDEL`).
///
/// Cheap to clone; clones share the connections. Dropping the last clone
/// closes the subscriber.
///
/// # How a wait works
///
/// Per store (one per process, typically):
///
/// - `command_connections` multiplexed connections (default 1) carry every
///   command of every dispatch, concurrently;
/// - one RESP3 connection, opened at the first wait, is subscribed to this
///   store's own wake channel `<namespace>:wake:<instance>`.
///
/// Per dispatch id:
///
/// 1. `expect`: `SET <ns>:pending:<id> <wake channel> PX <ms>`;
/// 2. the executor's `put` runs one script: if the pending key exists, it is
///    deleted, `SET <ns>:result:<id> <json> PX <result ttl>` and the id is
///    published on the wake channel named by the pending key; otherwise the
///    result is dropped (a duplicate, a late result, an unknown id);
/// 3. `wait` registers the id with the subscriber, checks with one script
///    (`GETDEL` of the result, else `EXISTS` of the slot) so a result
///    stored before the wait began is not missed, then sleeps until the
///    subscriber wakes it and checks again;
/// 4. `discard`: `DEL` of both keys.
///
/// Nothing is left behind: a collected result is deleted as it is read, a
/// pending key is deleted by the first result or the discard, and whatever
/// a crash leaves expires.
///
/// # Faults
///
/// | fault | what a wait does |
/// |---|---|
/// | the subscriber connection alone is lost (`CLIENT KILL TYPE pubsub`, a proxy's idle timeout, an output-buffer limit) | the subscriber reconnects with back-off (50 ms doubling to 1 s); every wait, once it is subscribed again, re-checks its slot, so results published while nobody listened are still delivered |
/// | Redis restarted and lost the data | the re-check finds neither result nor slot: `store_unavailable` ("the result slot is gone") at once |
/// | Redis unreachable | waits retry for [`RedisStoreConfig::recovery_timeout`] (3 s), then `store_unavailable` |
/// | Redis stalled (`CLIENT PAUSE`, `DEBUG SLEEP`) | commands wait for the reply (up to `response_timeout`); the dispatcher's deadline bounds the call |
#[derive(Clone)]
pub struct RedisResultStore {
    inner: Arc<Inner>,
}

struct Inner {
    config: RedisStoreConfig,
    client: redis::Client,
    commands: Vec<ConnectionManager>,
    next: AtomicUsize,
    put_script: Script,
    check_script: Script,
    wake_channel: String,
    shared: Arc<Shared>,
    subscriber: OnceLock<()>,
    _shutdown: DropGuard,
    shutdown: CancellationToken,
}

/// What the subscriber task and the waiters share.
struct Shared {
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// Bumped each time the subscriber connection is lost.
    epoch: AtomicU64,
    state: watch::Sender<SubState>,
    last_error: Mutex<Option<String>>,
    wakeups: AtomicU64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubState {
    Connecting,
    Up(u64),
    Down,
}

impl std::fmt::Debug for RedisResultStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisResultStore")
            .field("namespace", &self.inner.config.namespace)
            .field("wake_channel", &self.inner.wake_channel)
            .field("command_connections", &self.inner.commands.len())
            .finish_non_exhaustive()
    }
}

impl RedisResultStore {
    /// Connects the command connections. The subscriber connects at the
    /// first wait (a store that only puts, on an executor, needs none).
    ///
    /// Errors: [`Error::StoreUnavailable`] when the URL is invalid or the
    /// server cannot be reached.
    pub async fn connect(config: RedisStoreConfig) -> Result<Self> {
        let info = config
            .url
            .as_str()
            .into_connection_info()
            .map_err(|e| unavailable("the Redis URL is invalid", &e))?;
        let redis_settings = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(redis_settings))
            .map_err(|e| unavailable("the Redis URL is invalid", &e))?;
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.connect_timeout))
            .set_response_timeout(Some(config.response_timeout))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500));
        let mut commands = Vec::with_capacity(config.command_connections.max(1));
        for _ in 0..config.command_connections.max(1) {
            let manager = client
                .get_connection_manager_with_config(manager_config.clone())
                .await
                .map_err(|e| unavailable("cannot connect to Redis", &e))?;
            commands.push(manager);
        }
        let wake_channel = format!("{}:wake:{}", config.namespace, random_prefix());
        let (state, _) = watch::channel(SubState::Connecting);
        let shutdown = CancellationToken::new();
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                commands,
                next: AtomicUsize::new(0),
                put_script: Script::new(PUT_SCRIPT),
                check_script: Script::new(CHECK_SCRIPT),
                wake_channel,
                shared: Arc::new(Shared {
                    waiters: Mutex::new(HashMap::new()),
                    epoch: AtomicU64::new(0),
                    state,
                    last_error: Mutex::new(None),
                    wakeups: AtomicU64::new(0),
                }),
                subscriber: OnceLock::new(),
                _shutdown: shutdown.clone().drop_guard(),
                shutdown,
                config,
            }),
        })
    }

    /// The settings.
    pub fn config(&self) -> &RedisStoreConfig {
        &self.inner.config
    }

    /// The channel this store's waiters are woken on.
    pub fn wake_channel(&self) -> &str {
        &self.inner.wake_channel
    }

    /// How many connections this store may open: command connections + 1
    /// subscriber.
    pub fn connection_bound(&self) -> usize {
        self.inner.commands.len() + 1
    }

    /// How many wake-ups the subscriber has received (only this store's
    /// own results are published on its channel).
    pub fn wakeups(&self) -> u64 {
        self.inner.shared.wakeups.load(Ordering::Relaxed)
    }

    /// How many waits are registered now.
    pub fn waiting(&self) -> usize {
        self.inner.shared.waiters().len()
    }

    fn pending_key(&self, id: &str) -> String {
        format!("{}:pending:{id}", self.inner.config.namespace)
    }

    fn result_key(&self, id: &str) -> String {
        format!("{}:result:{id}", self.inner.config.namespace)
    }

    fn connection(&self) -> ConnectionManager {
        let index = self.inner.next.fetch_add(1, Ordering::Relaxed) % self.inner.commands.len();
        self.inner.commands[index].clone()
    }

    /// Starts the subscriber task once.
    fn ensure_subscriber(&self) {
        self.inner.subscriber.get_or_init(|| {
            tokio::spawn(subscribe_loop(
                self.inner.client.clone(),
                self.inner.wake_channel.clone(),
                Arc::downgrade(&self.inner.shared),
                self.inner.config.clone(),
                self.inner.shutdown.clone(),
            ));
        });
    }

    /// Waits until the subscriber is subscribed (on its current
    /// connection); returns its epoch.
    async fn subscribed(&self, limit: Instant) -> Result<u64> {
        let mut state = self.inner.shared.state.subscribe();
        loop {
            if let SubState::Up(epoch) = *state.borrow_and_update()
                && epoch == self.inner.shared.epoch.load(Ordering::SeqCst)
            {
                return Ok(epoch);
            }
            // Re-read at least every 50 ms: a loss bumps the epoch before
            // the state says so.
            let step = limit.min(Instant::now() + Duration::from_millis(50));
            match tokio::time::timeout_at(step, state.changed()).await {
                Ok(Ok(())) => {}
                Err(_) if step < limit => {}
                _ => {
                    let reason = self
                        .inner
                        .shared
                        .last_error
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .clone()
                        .unwrap_or_else(|| "not subscribed in time".into());
                    return Err(Error::StoreUnavailable {
                        message: format!("cannot subscribe to Redis for results: {reason}"),
                    });
                }
            }
        }
    }
}

#[async_trait]
impl ResultStore for RedisResultStore {
    async fn expect(&self, id: &str, expires_in: Duration) -> Result<()> {
        let ms = expires_in.as_millis().clamp(1, u64::MAX as u128) as u64;
        redis::cmd("SET")
            .arg(self.pending_key(id))
            .arg(&self.inner.wake_channel)
            .arg("PX")
            .arg(ms)
            .query_async::<()>(&mut self.connection())
            .await
            .map_err(|e| unavailable("cannot open the result slot in Redis", &e))
    }

    async fn put(&self, id: &str, output: &ToolOutput) -> Result<bool> {
        let json = serde_json::to_string(output).map_err(|e| Error::Protocol {
            message: format!("cannot encode the result: {e}"),
        })?;
        let ttl = self
            .inner
            .config
            .result_ttl
            .as_millis()
            .clamp(1, u64::MAX as u128) as u64;
        let taken: i64 = self
            .inner
            .put_script
            .key(self.pending_key(id))
            .key(self.result_key(id))
            .arg(json)
            .arg(ttl)
            .arg(id)
            .invoke_async(&mut self.connection())
            .await
            .map_err(|e| unavailable("cannot store the result in Redis", &e))?;
        Ok(taken == 1)
    }

    async fn wait(&self, id: &str, deadline: Instant) -> Result<Option<ToolOutput>> {
        self.ensure_subscriber();
        let notify = Arc::new(Notify::new());
        let _registered = Registration::new(&self.inner.shared, id, Arc::clone(&notify));
        let recovery = self.inner.config.recovery_timeout;
        let limit = deadline.min(Instant::now() + self.inner.config.connect_timeout);
        let mut epoch = self.subscribed(limit).await?;
        let (result_key, pending_key) = (self.result_key(id), self.pending_key(id));
        // Since when the store has not answered, while it keeps failing.
        let mut failing_since: Option<Instant> = None;
        let mut backoff = Duration::from_millis(25);
        loop {
            // Checked after subscribing and registering: a result stored
            // before this point is found here, one stored after wakes us.
            match self.check(&result_key, &pending_key).await {
                Ok(Check::Result(text)) => {
                    return serde_json::from_str(&text)
                        .map(Some)
                        .map_err(|e| Error::Protocol {
                            message: format!("the stored result is not a tool output: {e}"),
                        });
                }
                Ok(Check::Pending) => {
                    failing_since = None;
                    backoff = Duration::from_millis(25);
                }
                Ok(Check::Lost) => {
                    return Err(Error::StoreUnavailable {
                        message: "the result slot is gone from Redis (the server restarted without its data, or the key was evicted); the result is lost".into(),
                    });
                }
                Err(error) => {
                    let since = *failing_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= recovery {
                        return Err(error);
                    }
                    tokio::time::sleep_until(deadline.min(Instant::now() + backoff)).await;
                    backoff = (backoff * 2).min(Duration::from_millis(500));
                    if Instant::now() >= deadline {
                        return Ok(None);
                    }
                    continue;
                }
            }
            if self.inner.shared.epoch.load(Ordering::SeqCst) != epoch {
                // Only the subscriber was lost, perhaps: wait for it to be
                // back, then check again (a wake-up published meanwhile
                // reached nobody).
                let limit = deadline.min(Instant::now() + recovery);
                epoch = match self.subscribed(limit).await {
                    Ok(epoch) => epoch,
                    Err(_) if Instant::now() >= deadline => return Ok(None),
                    Err(error) => return Err(error),
                };
                continue;
            }
            if tokio::time::timeout_at(deadline, notify.notified())
                .await
                .is_err()
            {
                return Ok(None);
            }
        }
    }

    async fn discard(&self, id: &str) -> Result<()> {
        redis::cmd("DEL")
            .arg(self.pending_key(id))
            .arg(self.result_key(id))
            .query_async::<()>(&mut self.connection())
            .await
            .map_err(|e| unavailable("cannot discard the result slot in Redis", &e))
    }
}

/// What the check script found.
enum Check {
    Result(String),
    Pending,
    Lost,
}

impl RedisResultStore {
    /// Takes the result of a slot, or says whether the slot still exists.
    async fn check(&self, result_key: &str, pending_key: &str) -> Result<Check> {
        let reply: Vec<redis::Value> = self
            .inner
            .check_script
            .key(result_key)
            .key(pending_key)
            .invoke_async(&mut self.connection())
            .await
            .map_err(|e| unavailable("cannot read the result from Redis", &e))?;
        let odd = || Error::Protocol {
            message: format!("the result check returned an unexpected reply: {reply:?}"),
        };
        match reply.as_slice() {
            [redis::Value::Int(1), redis::Value::BulkString(bytes)] => {
                String::from_utf8(bytes.clone())
                    .map(Check::Result)
                    .map_err(|_| Error::Protocol {
                        message: "the stored result is not UTF-8".into(),
                    })
            }
            [redis::Value::Int(0), redis::Value::Int(0)] => Ok(Check::Lost),
            [redis::Value::Int(0), redis::Value::Int(_)] => Ok(Check::Pending),
            _ => Err(odd()),
        }
    }
}

impl Shared {
    fn waiters(&self) -> MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        // Single map operations: a poisoned map is still consistent.
        self.waiters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wake(&self, id: &str) {
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        if let Some(notify) = self.waiters().get(id) {
            notify.notify_one();
        }
    }

    /// The subscriber connection is gone: every current wait must end.
    fn lost(&self, reason: String) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        *self
            .last_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(reason);
        self.state.send_replace(SubState::Down);
        for notify in self.waiters().values() {
            notify.notify_one();
        }
    }
}

/// A registered wait; unregisters when the wait ends or is dropped.
struct Registration<'a> {
    shared: &'a Shared,
    id: String,
}

impl<'a> Registration<'a> {
    fn new(shared: &'a Shared, id: &str, notify: Arc<Notify>) -> Self {
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

/// The subscriber: one RESP3 connection subscribed to the wake channel,
/// reconnected with back-off until the store is dropped.
async fn subscribe_loop(
    client: redis::Client,
    channel: String,
    shared: Weak<Shared>,
    config: RedisStoreConfig,
    shutdown: CancellationToken,
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
            connection.subscribe(&channel).await?;
            Ok::<_, redis::RedisError>(connection)
        };
        let connected = tokio::select! {
            () = shutdown.cancelled() => return,
            connected = connect => connected,
        };
        match connected {
            Ok(connection) => {
                backoff = Duration::from_millis(50);
                {
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    let epoch = shared.epoch.load(Ordering::SeqCst);
                    shared.state.send_replace(SubState::Up(epoch));
                }
                let reason = loop {
                    let push = tokio::select! {
                        () = shutdown.cancelled() => return,
                        push = pushes.recv() => push,
                    };
                    let Some(push) = push else {
                        break "the subscriber connection closed".to_owned();
                    };
                    match push.kind {
                        PushKind::Message => {
                            let Some(shared) = shared.upgrade() else {
                                return;
                            };
                            if let Some(redis::Value::BulkString(id)) = push.data.get(1) {
                                shared.wake(&String::from_utf8_lossy(id));
                            }
                        }
                        PushKind::Disconnection => {
                            break "the subscriber connection to Redis was lost".to_owned();
                        }
                        _ => {}
                    }
                };
                drop(connection);
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                tracing::warn!(%channel, %reason, "dispatch result subscriber disconnected");
                shared.lost(reason);
            }
            Err(error) => {
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                *shared
                    .last_error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(error.to_string());
                if shared.state.borrow().ne(&SubState::Down) {
                    shared.state.send_replace(SubState::Down);
                }
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}

fn unavailable(what: &str, error: &redis::RedisError) -> Error {
    Error::StoreUnavailable {
        message: format!("{what}: {error}"),
    }
}
