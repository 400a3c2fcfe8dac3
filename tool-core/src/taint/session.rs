//! One conversation's taint session: the host's settings and the
//! serialisable state the pipeline keeps as calls complete.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::boundary::Boundary;
use super::capability::CapabilityMap;
use super::ledger::Ledger;
use super::ledger_index::PendingOutput;
use super::pin::{PinPolicy, PinReport, PinStore};
use super::quota::{QuotaCounts, QuotaSettings};
use super::redact::{Redactions, Redactor};
use super::trifecta::TrifectaSettings;
use crate::capability::Capabilities;
use crate::error::Error;
use crate::output::ToolOutput;
use crate::prepared::PreparedCall;

/// What a session keeps between turns and processes: store it beside the
/// conversation (and its [durable](crate::durable) pending turn) and give
/// it back with [`Session::with_state`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionState {
    /// What has entered the context.
    #[serde(default)]
    pub ledger: Ledger,
    /// What the quotas have counted.
    #[serde(default)]
    pub quotas: QuotaCounts,
    /// The pinned tool definitions.
    #[serde(default)]
    pub pins: PinStore,
}

impl SessionState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a stored state; a bad one is [`Error::Session`] naming what.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        serde_json::from_str(text).map_err(|e| Error::Session {
            message: format!("the stored session state does not read: {e}"),
        })
    }

    /// The state as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// One conversation's taint session, shared by the [`Invoker`](crate::Invoker)
/// that keeps its ledger ([`Invoker::with_session`](crate::Invoker::with_session))
/// and the [`TaintGate`](super::TaintGate) that reads it.
///
/// Settings (fixed once built): the [`CapabilityMap`], the
/// [`TrifectaSettings`], the [`Redactor`] (none by default) and whether it
/// also redacts `state` (yes by default). State (changing): a
/// [`SessionState`].
///
/// # What the pipeline does with each completed call
///
/// 1. With a redactor: the secrets in its content and error message (and
///    its state, unless [`redact_state(false)`](Self::redact_state)) are
///    replaced by named placeholders; the state gets
///    `"redacted": {rule: count}` (a state that is not an object becomes
///    `{"value": state, "redacted": …}`).
/// 2. The call is counted by the quotas that apply to it.
/// 3. The call is recorded in the ledger with its capabilities; a secret
///    found makes its output private data.
/// 4. When it read private data or took in untrusted content, its
///    (redacted) output is recorded: the values it delivered, up to
///    [`MAX_VALUES_PER_CALL`](super::MAX_VALUES_PER_CALL), except the
///    values its own arguments carry (what a call sends is not data it
///    read, even when its output echoes it: a command's text in its
///    result), read when the ledger is next read (an egress call judged,
///    the state stored; see [`Ledger`]), not on the call's path.
/// 5. With a [boundary](Self::with_boundary), an untrusted output's
///    content is wrapped and its state gets its provenance.
#[derive(Debug)]
pub struct Session {
    capabilities: CapabilityMap,
    trifecta: TrifectaSettings,
    redactor: Option<Redactor>,
    redact_state: bool,
    quotas: QuotaSettings,
    pin_policy: PinPolicy,
    boundary: Option<Boundary>,
    state: Mutex<Inner>,
}

/// The state, and the calls whose outputs are the user's delegated words.
#[derive(Debug, Default)]
pub(crate) struct Inner {
    state: SessionState,
    /// Ids of running calls directed at a source the user named, while
    /// the user's words hand the choice of actions to such a source: their
    /// outputs' words are recorded as delegated.
    delegated: std::collections::HashSet<String>,
}

/// The locked state of a session.
pub(crate) struct StateGuard<'a>(MutexGuard<'a, Inner>);

impl StateGuard<'_> {
    /// Records the pending outputs' values (before the ledger is read).
    pub(crate) fn flush(&mut self) {
        self.0.state.ledger.index_pending();
    }

    /// Notes that call `id` is directed at a source the user named: when
    /// the user's words delegate to such a source
    /// ([`delegates`](super::delegates)), its output's words are recorded
    /// as delegated once it completes.
    pub(crate) fn delegate(&mut self, id: &str) {
        if self.0.state.ledger.delegating() {
            self.0.delegated.insert(id.to_owned());
        }
    }
}

impl std::ops::Deref for StateGuard<'_> {
    type Target = SessionState;
    fn deref(&self) -> &SessionState {
        &self.0.state
    }
}

impl std::ops::DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut SessionState {
        &mut self.0.state
    }
}

impl Default for Session {
    fn default() -> Self {
        Self {
            capabilities: CapabilityMap::default(),
            trifecta: TrifectaSettings::default(),
            redactor: None,
            redact_state: true,
            quotas: QuotaSettings::default(),
            pin_policy: PinPolicy::default(),
            boundary: None,
            state: Mutex::new(Inner::default()),
        }
    }
}

/// What the pipeline notes about a call before it runs, to record it once
/// it completes.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    call_id: String,
    identifier: String,
    api: String,
    capabilities: Capabilities,
    /// The arguments, kept only when the output will feed the ledger
    /// (their values are left out of it).
    arguments: serde_json::Value,
}

impl Session {
    /// A fresh session: no overrides, default trifecta settings, empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same session with `state` (a stored one).
    pub fn with_state(self, state: SessionState) -> Self {
        Self {
            state: Mutex::new(Inner {
                state,
                ..Inner::default()
            }),
            ..self
        }
    }

    /// The same session with the host's capability overrides.
    pub fn with_capabilities(mut self, capabilities: CapabilityMap) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The same session with `settings` for the trifecta rule.
    pub fn with_trifecta(mut self, settings: TrifectaSettings) -> Self {
        self.trifecta = settings;
        self
    }

    /// The same session redacting secrets from every output with
    /// `redactor` (e.g. [`Redactor::builtin`] plus the host's own values).
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Whether the redactor also scans `state` (default yes: a UI showing
    /// the state to the user is not the model, but a host that sends the
    /// state to the model, or stores it, wants it clean).
    pub fn redact_state(mut self, yes: bool) -> Self {
        self.redact_state = yes;
        self
    }

    /// The same session with `quotas` (checked: see
    /// [`QuotaSettings::check`]).
    pub fn with_quotas(mut self, quotas: QuotaSettings) -> Result<Self, Error> {
        quotas.check()?;
        self.quotas = quotas;
        Ok(self)
    }

    /// The quotas.
    pub fn quotas(&self) -> &QuotaSettings {
        &self.quotas
    }

    /// Starts a new turn (a new user message): per-turn quotas count from 0.
    pub fn begin_turn(&self) {
        self.lock_unflushed().quotas.begin_turn();
    }

    /// The same session pinning the tools `policy` names (default: the
    /// remote kinds `mcp`, `api`, `skill`).
    pub fn with_pin_policy(mut self, policy: PinPolicy) -> Self {
        self.pin_policy = policy;
        self
    }

    /// The same session marking untrusted content: the content of every
    /// `untrusted_source` output is wrapped in `boundary` (make one per
    /// turn, [`Boundary::random`]) and its state gets `"provenance":
    /// {"source": "identifier/api", "untrusted": true}`. Send
    /// [`Boundary::note`] in the system prompt. Off by default.
    pub fn with_boundary(mut self, boundary: Boundary) -> Self {
        self.boundary = Some(boundary);
        self
    }

    /// The pin policy.
    pub fn pin_policy(&self) -> &PinPolicy {
        &self.pin_policy
    }

    /// Checks the definitions of `offered` against the pins (see
    /// [`PinStore::check`]): call it when tools are loaded or their lists
    /// change, and show the host the report. Calls of a changed
    /// definition ask (`pin/changed`) until accepted.
    pub fn check_pins(&self, offered: &crate::OfferedTools) -> PinReport {
        self.lock_unflushed().pins.check(offered, &self.pin_policy)
    }

    /// Accepts the definition `call`'s API has now: its calls no longer
    /// ask for `pin/changed`.
    pub fn accept_definition(&self, call: &PreparedCall) {
        let manifest = call.tool.manifest();
        if let Some(api) = manifest.api(&call.api) {
            self.lock_unflushed().pins.accept(manifest, api);
        }
    }

    /// The changes of `call`'s API against its pin, pinning it when new;
    /// `None` when unchanged or not pinned by the policy.
    pub(crate) fn pin_changes(
        &self,
        state: &mut SessionState,
        call: &PreparedCall,
    ) -> Option<Vec<super::pin::Change>> {
        let manifest = call.tool.manifest();
        if !self.pin_policy.pins(manifest) {
            return None;
        }
        let api = manifest.api(&call.api)?;
        state.pins.changes(manifest, api)
    }

    /// The capability overrides.
    pub fn capability_map(&self) -> &CapabilityMap {
        &self.capabilities
    }

    /// The trifecta settings.
    pub fn trifecta(&self) -> &TrifectaSettings {
        &self.trifecta
    }

    /// A copy of the state, to store.
    pub fn state(&self) -> SessionState {
        self.lock().clone()
    }

    /// Records a user message (its values count as named by the user).
    pub fn user_said(&self, text: &str) {
        self.lock().ledger.user_said(text);
    }

    /// The capabilities of `call`'s API (see [`CapabilityMap`]).
    pub fn capabilities_of(&self, call: &PreparedCall) -> Capabilities {
        let manifest = call.tool.manifest();
        match manifest.api(&call.api) {
            Some(api) => self.capabilities.resolve(manifest, api).0,
            // A tool that lost the API it was called with: assume the worst.
            None => Capabilities {
                reads_private: true,
                untrusted_source: true,
                egress: true,
                writes_private: true,
            },
        }
    }

    /// The state with every pending output's values recorded.
    pub(crate) fn lock(&self) -> StateGuard<'_> {
        let mut guard = self.lock_unflushed();
        guard.flush();
        guard
    }

    /// The state, pending outputs left pending (for what does not read
    /// the ledger's values: quotas, pins, recording a call).
    pub(crate) fn lock_unflushed(&self) -> StateGuard<'_> {
        // A panic while holding the lock leaves a state that is still
        // whole (every update is one insert); keep using it.
        StateGuard(self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Noted before `call` runs.
    pub(crate) fn observe(&self, call: &PreparedCall) -> Observed {
        let capabilities = self.capabilities_of(call);
        let arguments = if capabilities.feeds_ledger() {
            call.arguments.clone()
        } else {
            serde_json::Value::Null
        };
        Observed {
            call_id: call.call_id.clone().unwrap_or_default(),
            identifier: call.identifier.clone(),
            api: call.api.clone(),
            capabilities,
            arguments,
        }
    }

    /// Once `observed`'s call completed with `output`: records the call,
    /// and the values its output delivered when it read private data or
    /// took in untrusted content.
    pub(crate) fn completed(&self, observed: Observed, output: &mut ToolOutput) {
        let found = self.redact(output);
        {
            let mut state = self.lock_unflushed();
            if !self.quotas.quotas.is_empty() || self.quotas.budget.is_some() {
                let now = now_ms();
                state
                    .quotas
                    .record(&self.quotas, &observed.identifier, &observed.api, now);
            }
            let index = state.ledger.record_call(
                &observed.call_id,
                &observed.identifier,
                &observed.api,
                observed.capabilities,
                output.success,
            );
            if !found.is_empty() {
                state.ledger.record_secrets(index, found.counts.into_keys());
            }
            if !state.0.delegated.is_empty() && state.0.delegated.remove(&observed.call_id) {
                state.ledger.record_delegated(&output.content);
            }
            if observed.capabilities.feeds_ledger() {
                // The output as the model will see it (redacted, before
                // any boundary); the ledger reads its values when it is
                // next read (an egress call judged, the state stored),
                // not on the call's path.
                state.ledger.record_pending(PendingOutput {
                    index,
                    content: output.content.clone(),
                    state: output.state.clone(),
                    message: output.error.as_ref().map(|e| e.message.clone()),
                    arguments: Some(observed.arguments),
                });
            }
        }
        if observed.capabilities.untrusted_source
            && let Some(boundary) = &self.boundary
        {
            let source = format!("{}/{}", observed.identifier, observed.api);
            output.content = boundary.wrap(&source, &output.content);
            let provenance = serde_json::json!({ "source": source, "untrusted": true });
            match &mut output.state {
                Some(serde_json::Value::Object(map)) => {
                    map.insert("provenance".into(), provenance);
                }
                Some(other) => {
                    let value = other.take();
                    *other = serde_json::json!({ "value": value, "provenance": provenance });
                }
                None => output.state = Some(serde_json::json!({ "provenance": provenance })),
            }
        }
    }
}

impl Session {
    /// Redacts `output` in place (step 1 of the pipeline's record).
    fn redact(&self, output: &mut ToolOutput) -> Redactions {
        let Some(redactor) = &self.redactor else {
            return Redactions::default();
        };
        let mut found = Redactions::default();
        let mut merge = |more: Redactions| {
            for (id, n) in more.counts {
                *found.counts.entry(id).or_default() += n;
            }
        };
        if let Some((text, here)) = redactor.redact(&output.content) {
            output.content = text;
            merge(here);
        }
        if let Some(error) = &mut output.error
            && let Some((text, here)) = redactor.redact(&error.message)
        {
            error.message = text;
            merge(here);
        }
        if self.redact_state
            && let Some(state) = &mut output.state
        {
            merge(redactor.redact_json(state));
        }
        if !found.is_empty() {
            let counts = serde_json::to_value(&found.counts).unwrap_or_default();
            match &mut output.state {
                Some(serde_json::Value::Object(map)) => {
                    map.insert("redacted".into(), counts);
                }
                Some(other) => {
                    let value = other.take();
                    *other = serde_json::json!({ "value": value, "redacted": counts });
                }
                None => output.state = Some(serde_json::json!({ "redacted": counts })),
            }
        }
        found
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A shared session, as the invoker and the gate hold it.
pub type SharedSession = Arc<Session>;
