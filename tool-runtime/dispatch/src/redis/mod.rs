//! The Redis result store: several server instances, one Redis or one
//! Redis Cluster, a bounded number of connections however many calls wait.

mod backend;
mod config;
mod subscriber;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use redis::Script;
use tokio::sync::{Notify, Semaphore, SemaphorePermit};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};
use tool_core::ToolOutput;

use self::backend::{Backend, Commands, unavailable};
pub use self::config::RedisStoreConfig;
#[cfg(feature = "redis-tls")]
pub use self::config::RedisTls;
use self::subscriber::{Registration, Shared, SubState};
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

/// The put script on a cluster: the same, but it returns the wake channel
/// instead of publishing on it (the channel's slot is on another node, and
/// a script only reaches its own keys' node); the store then `SPUBLISH`es.
const PUT_SCRIPT_SHARDED: &str = r"
local channel = redis.call('GET', KEYS[1])
if not channel then return false end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return channel
";

/// The check script: takes the result if it is there, else says whether
/// the slot still exists (a slot gone without a result was lost: a Redis
/// restart without persistence, an eviction).
const CHECK_SCRIPT: &str = r"
local result = redis.call('GETDEL', KEYS[1])
if result then return {1, result} end
return {0, redis.call('EXISTS', KEYS[2])}
";

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
/// | a burst: more commands at once than [`RedisStoreConfig::max_in_flight`] (256) | the rest wait for their turn in the store before being sent, bounded by the call's deadline (10 000 calls at once on a 3-master cluster: all succeed; without the bound most timed out) |
#[derive(Clone)]
pub struct RedisResultStore {
    inner: Arc<Inner>,
}

struct Inner {
    config: RedisStoreConfig,
    backend: Arc<Backend>,
    commands: Vec<CommandSlot>,
    /// How many times a stuck cluster connection was replaced.
    renewals: AtomicUsize,
    /// Servers one command connection reaches (masters on a cluster).
    servers: usize,
    next: AtomicUsize,
    /// Turns for commands awaiting a reply (`max_in_flight`).
    in_flight: Semaphore,
    put_script: Script,
    check_script: Script,
    wake_channel: String,
    shared: Arc<Shared>,
    subscriber: OnceLock<()>,
    _shutdown: DropGuard,
    shutdown: CancellationToken,
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
        let backend = Backend::new(&config)?;
        let mut commands = Vec::with_capacity(config.command_connections.max(1));
        for _ in 0..config.command_connections.max(1) {
            commands.push(backend.commands(&config).await?);
        }
        let servers = match commands.first_mut() {
            Some(first) => backend.servers(first).await?,
            None => 1,
        };
        let cluster = matches!(commands.first(), Some(c) if !matches!(c, Commands::Single(_)));
        let commands = commands.into_iter().map(CommandSlot::new).collect();
        // `{…}`: on a cluster the channel's slot is its own, not a call's.
        let wake_channel = format!("{}:wake:{{{}}}", config.namespace, random_prefix());
        let shutdown = CancellationToken::new();
        Ok(Self {
            inner: Arc::new(Inner {
                backend: Arc::new(backend),
                commands,
                renewals: AtomicUsize::new(0),
                servers,
                next: AtomicUsize::new(0),
                in_flight: Semaphore::new(config.max_in_flight.clamp(1, Semaphore::MAX_PERMITS)),
                put_script: Script::new(if cluster {
                    PUT_SCRIPT_SHARDED
                } else {
                    PUT_SCRIPT
                }),
                check_script: Script::new(CHECK_SCRIPT),
                wake_channel,
                shared: Arc::new(Shared::new()),
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
    /// subscriber, on each server (each master node of a cluster, counted
    /// when the store connected).
    pub fn connection_bound(&self) -> usize {
        (self.inner.commands.len() + 1) * self.inner.servers
    }

    /// Whether the store runs on a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        !matches!(
            self.inner.commands.first().map(CommandSlot::get),
            Some(Commands::Single(_))
        )
    }

    /// How many times a command connection to the cluster was replaced
    /// because it stopped answering (see the fault table).
    pub fn renewed_connections(&self) -> usize {
        self.inner.renewals.load(Ordering::Relaxed)
    }

    /// How many wake-ups the subscriber has received (only this store's
    /// own results are published on its channel).
    pub fn wakeups(&self) -> u64 {
        self.inner.shared.wakeups()
    }

    /// How many waits are registered now.
    pub fn waiting(&self) -> usize {
        self.inner.shared.waiters().len()
    }

    fn pending_key(&self, id: &str) -> String {
        // `{id}`: both keys of a call hash to one cluster slot, so the
        // scripts that touch both run on one node.
        format!("{}:pending:{{{id}}}", self.inner.config.namespace)
    }

    fn result_key(&self, id: &str) -> String {
        format!("{}:result:{{{id}}}", self.inner.config.namespace)
    }

    /// A command connection, and this command's turn among at most
    /// [`max_in_flight`](RedisStoreConfig::max_in_flight) awaiting a reply:
    /// a burst waits here (bounded by the call's deadline, which the
    /// dispatcher puts on every step) instead of queueing behind the
    /// connection, where the wait would count against `response_timeout`.
    async fn connection(&self) -> Result<(usize, Commands, SemaphorePermit<'_>)> {
        let turn = self
            .inner
            .in_flight
            .acquire()
            .await
            .map_err(|_| Error::StoreUnavailable {
                message: "the Redis store is shutting down".into(),
            })?;
        let index = self.inner.next.fetch_add(1, Ordering::Relaxed) % self.inner.commands.len();
        Ok((index, self.inner.commands[index].get(), turn))
    }

    /// A cluster command that timed out or lost its connection: the
    /// connection is replaced in the background by a fresh one, which reads
    /// the topology anew. (The cluster client can keep a node connection
    /// that no longer answers scripts after a failover; a new one does.)
    fn failed(&self, index: usize, what: &str, error: &redis::RedisError) -> Error {
        let stuck = error.is_timeout() || error.is_io_error() || error.is_connection_dropped();
        let slot = &self.inner.commands[index];
        if stuck && self.is_cluster() && !slot.renewing.swap(true, Ordering::SeqCst) {
            let inner = Arc::downgrade(&self.inner);
            tokio::spawn(async move {
                let Some(strong) = inner.upgrade() else {
                    return;
                };
                let (backend, config) = (Arc::clone(&strong.backend), strong.config.clone());
                drop(strong);
                let fresh = backend.commands(&config).await;
                let Some(strong) = inner.upgrade() else {
                    return;
                };
                let slot = &strong.commands[index];
                if let Ok(fresh) = fresh {
                    slot.set(fresh);
                    strong.renewals.fetch_add(1, Ordering::Relaxed);
                }
                // At most one renewal per connection every 500 ms.
                tokio::time::sleep(Duration::from_millis(500)).await;
                slot.renewing.store(false, Ordering::SeqCst);
            });
        }
        unavailable(what, error)
    }

    /// Starts the subscriber task once.
    fn ensure_subscriber(&self) {
        self.inner.subscriber.get_or_init(|| {
            tokio::spawn(subscriber::run(
                Arc::clone(&self.inner.backend),
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
                        .last_error()
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
        let (index, mut connection, _turn) = self.connection().await?;
        redis::cmd("SET")
            .arg(self.pending_key(id))
            .arg(&self.inner.wake_channel)
            .arg("PX")
            .arg(ms)
            .query_async::<()>(&mut connection)
            .await
            .map_err(|e| self.failed(index, "cannot open the result slot in Redis", &e))
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
        let mut invocation = self.inner.put_script.prepare_invoke();
        invocation
            .key(self.pending_key(id))
            .key(self.result_key(id))
            .arg(json)
            .arg(ttl)
            .arg(id);
        let (index, mut connection, _turn) = self.connection().await?;
        if !self.is_cluster() {
            let taken: i64 = invocation
                .invoke_async(&mut connection)
                .await
                .map_err(|e| self.failed(index, "cannot store the result in Redis", &e))?;
            return Ok(taken == 1);
        }
        let channel: Option<String> = invocation
            .invoke_async(&mut connection)
            .await
            .map_err(|e| self.failed(index, "cannot store the result in Redis", &e))?;
        let Some(channel) = channel else {
            return Ok(false);
        };
        // The result is stored: a lost wake-up only delays it to the
        // waiter's next re-check (a resubscription or `recheck_interval`).
        if let Err(error) = redis::cmd("SPUBLISH")
            .arg(&channel)
            .arg(id)
            .query_async::<i64>(&mut connection)
            .await
        {
            tracing::warn!(%channel, %error, "dispatch wake-up not published; the waiter re-checks");
        }
        Ok(true)
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
            let wake_by = match self.inner.config.recheck_interval {
                Some(every) => deadline.min(Instant::now() + every),
                None => deadline,
            };
            if tokio::time::timeout_at(wake_by, notify.notified())
                .await
                .is_err()
                && wake_by >= deadline
            {
                return Ok(None);
            }
        }
    }

    async fn discard(&self, id: &str) -> Result<()> {
        let (index, mut connection, _turn) = self.connection().await?;
        redis::cmd("DEL")
            .arg(self.pending_key(id))
            .arg(self.result_key(id))
            .query_async::<()>(&mut connection)
            .await
            .map_err(|e| self.failed(index, "cannot discard the result slot in Redis", &e))
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
        let (index, mut connection, _turn) = self.connection().await?;
        let reply: Vec<redis::Value> = self
            .inner
            .check_script
            .key(result_key)
            .key(pending_key)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| self.failed(index, "cannot read the result from Redis", &e))?;
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

/// One command connection, replaceable when a cluster connection is stuck.
struct CommandSlot {
    current: std::sync::Mutex<Commands>,
    renewing: std::sync::atomic::AtomicBool,
}

impl CommandSlot {
    fn new(commands: Commands) -> Self {
        Self {
            current: std::sync::Mutex::new(commands),
            renewing: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn get(&self) -> Commands {
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set(&self, commands: Commands) {
        *self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = commands;
    }
}
