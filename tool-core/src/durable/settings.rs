//! A host's settings for durable turns: keys, ledger, expiry, policy
//! fingerprint, remembered answers.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use crate::durable::ledger::{MemoryLedger, UseOnceLedger};
use crate::durable::mac::KeyRing;
use crate::durable::pending::PendingItem;
use crate::durable::remember::{RememberedAnswers, RememberedRule};
use crate::error::Error;
use crate::gate::Gate;

/// How long a pending item stays answerable by default: 24 hours.
pub const DEFAULT_PENDING_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What a host holds to make and resume pending turns
/// ([`Invoker::invoke_turn`](crate::Invoker::invoke_turn),
/// [`Invoker::resume`](crate::Invoker::resume)). Every process that resumes
/// a host's turns needs the same keys, ledger and policy fingerprint.
///
/// Defaults, each changed by its `with_` method:
///
/// 1. ledger: a [`MemoryLedger`] (use once within this process only; give
///    every instance the same shared ledger, e.g. tool-runtime's
///    `RedisLedger`, when turns resume on several);
/// 2. time to live: [`DEFAULT_PENDING_TTL`];
/// 3. policy fingerprint: the gate's ([`Gate::fingerprint`]), else
///    `"none"`;
/// 4. remembered answers: an empty store; an "always" is scoped by every
///    key of the turn's [`Scope`](crate::durable::Scope) unless
///    [`with_remember_scope`](Self::with_remember_scope) picks fewer.
#[derive(Clone)]
pub struct Durable {
    keys: KeyRing,
    ledger: Arc<dyn UseOnceLedger>,
    ttl: Duration,
    policy_fingerprint: Option<String>,
    remembered: Arc<RememberedAnswers>,
    remember_scope: Option<Vec<String>>,
}

impl std::fmt::Debug for Durable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Durable")
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .field("policy_fingerprint", &self.policy_fingerprint)
            .field("remember_scope", &self.remember_scope)
            .finish_non_exhaustive()
    }
}

impl Durable {
    /// Settings signing with `keys`, with the defaults above.
    pub fn new(keys: KeyRing) -> Self {
        Self {
            keys,
            ledger: Arc::new(MemoryLedger::new()),
            ttl: DEFAULT_PENDING_TTL,
            policy_fingerprint: None,
            remembered: Arc::new(RememberedAnswers::new()),
            remember_scope: None,
        }
    }

    /// The same settings with another use-once ledger.
    pub fn with_ledger(mut self, ledger: Arc<dyn UseOnceLedger>) -> Self {
        self.ledger = ledger;
        self
    }

    /// The same settings with pending items answerable for `ttl`.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The same settings binding items to `fingerprint` (a digest of the
    /// policy the host's gate decides by), instead of the gate's own.
    pub fn with_policy_fingerprint(mut self, fingerprint: impl Into<String>) -> Self {
        self.policy_fingerprint = Some(fingerprint.into());
        self
    }

    /// The same settings reading and recording "always" answers in `store`.
    pub fn with_remembered(mut self, store: Arc<RememberedAnswers>) -> Self {
        self.remembered = store;
        self
    }

    /// The same settings scoping an "always" by these keys of the turn's
    /// scope (e.g. `["workspace"]`), instead of all of them.
    pub fn with_remember_scope<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.remember_scope = Some(keys.into_iter().map(Into::into).collect());
        self
    }

    /// The keys.
    pub fn keys(&self) -> &KeyRing {
        &self.keys
    }

    /// The ledger.
    pub fn ledger(&self) -> &Arc<dyn UseOnceLedger> {
        &self.ledger
    }

    /// How long items stay answerable.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The remembered answers.
    pub fn remembered(&self) -> &Arc<RememberedAnswers> {
        &self.remembered
    }

    /// The rule an "always" on `item` would record: show
    /// [`RememberedRule::describe`] to the person before they pick it.
    pub fn always_rule(&self, item: &PendingItem) -> Result<RememberedRule, Error> {
        let keys: Vec<String> = match &self.remember_scope {
            Some(keys) => keys.clone(),
            None => item
                .binding
                .scope
                .iter()
                .map(|(k, _)| k.to_owned())
                .collect(),
        };
        RememberedRule::for_item(item, &keys)
    }

    /// The policy fingerprint items are bound to (borrowed when it is
    /// these settings' own).
    pub(crate) fn policy_fingerprint(&self, gate: Option<&Arc<dyn Gate>>) -> Cow<'_, str> {
        match &self.policy_fingerprint {
            Some(own) => Cow::Borrowed(own),
            None => gate
                .and_then(|g| g.fingerprint())
                .map_or(Cow::Borrowed("none"), Cow::Owned),
        }
    }
}
