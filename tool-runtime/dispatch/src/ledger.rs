//! The use-once ledger of durable approvals over Redis (feature `redis`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tool_core::Error;
use tool_core::durable::{Claim, UseOnceLedger, UseState};

/// Sets the entry only if absent (`NX`), expiring at the item's expiry
/// (`PXAT`, Redis 6.2+), and tells a loser what the winner wrote: one
/// atomic step, so two resumers never both see "first".
const CLAIM_SCRIPT: &str = r"
local ok = redis.call('SET', KEYS[1], 'claimed', 'NX', 'PXAT', ARGV[1])
if ok then return 'first' end
return redis.call('GET', KEYS[1]) or 'started'
";

/// The shortest time an entry is kept, so a claim on an item that expires
/// right now still stops a racing second resumer.
const MIN_KEEP: Duration = Duration::from_secs(60);

/// A [`UseOnceLedger`] in Redis, shared by every process that resumes a
/// host's pending turns: two instances resuming the same turn run each
/// approved call exactly once.
///
/// `claim` is `SET key claimed NX PXAT expiry` (in a script that returns
/// the winner's state to the loser); `mark_started` is `SET key started XX
/// KEEPTTL`. Each command is bounded by the response timeout (2 s by
/// default); an unreachable server is [`Error::Ledger`], and the call it
/// guards does not run. Single servers only (not Redis Cluster).
#[derive(Clone)]
pub struct RedisLedger {
    commands: ConnectionManager,
    claim: Script,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLedger")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn ledger_error(what: &str, error: impl std::fmt::Display) -> Error {
    Error::Ledger {
        message: format!("{what}: {error}"),
    }
}

impl RedisLedger {
    /// Connects to the Redis at `url` (`redis://host:port/db`), with keys
    /// prefixed `tool-ledger:`.
    pub async fn connect(url: &str) -> Result<Self, Error> {
        let timeout = Duration::from_secs(2);
        let client = redis::Client::open(url).map_err(|e| ledger_error("invalid Redis URL", e))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1);
        let commands = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| ledger_error("cannot connect to Redis", e))?;
        Ok(Self {
            commands,
            claim: Script::new(CLAIM_SCRIPT),
            prefix: "tool-ledger:".to_owned(),
            timeout,
        })
    }

    /// The same ledger with keys prefixed `prefix` (one Redis shared by
    /// several hosts).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    async fn bounded<T>(
        &self,
        what: &str,
        work: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, Error> {
        match tokio::time::timeout(self.timeout, work).await {
            Ok(result) => result.map_err(|e| ledger_error(what, e)),
            Err(_) => Err(ledger_error(
                what,
                format!("no answer within {:?}", self.timeout),
            )),
        }
    }
}

#[async_trait]
impl UseOnceLedger for RedisLedger {
    async fn claim(&self, key: &str, expires_at: SystemTime) -> Result<Claim, Error> {
        let keep_until = expires_at.max(SystemTime::now() + MIN_KEEP);
        let at_ms = keep_until
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut commands = self.commands.clone();
        let full = format!("{}{key}", self.prefix);
        let mut call = self.claim.key(&full);
        call.arg(at_ms);
        let state: String = self
            .bounded("claim", call.invoke_async(&mut commands))
            .await?;
        Ok(match state.as_str() {
            "first" => Claim::First,
            "claimed" => Claim::Taken(UseState::Claimed),
            _ => Claim::Taken(UseState::Started),
        })
    }

    async fn mark_started(&self, key: &str) -> Result<(), Error> {
        let mut commands = self.commands.clone();
        let full = format!("{}{key}", self.prefix);
        let mut cmd = redis::cmd("SET");
        cmd.arg(&full).arg("started").arg("XX").arg("KEEPTTL");
        let set: Option<String> = self
            .bounded("mark started", cmd.query_async(&mut commands))
            .await?;
        match set {
            Some(_) => Ok(()),
            None => Err(Error::Ledger {
                message: format!("`{key}` was never claimed (or its entry expired)"),
            }),
        }
    }
}
