//! A pending turn as data: the calls a batch could not settle, each bound
//! to its exact call and MAC'd, and the answers that settle them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::confine::Confinement;
use crate::durable::mac::{KeyRing, hash_encoded_hex, sort_keys};
use crate::error::Error;
use crate::gate::{GateAction, GateDecision};
use crate::invoke::ToolCall;
use crate::output::ToolOutput;
use crate::talk::Elicitation;

/// The version of the [`Pending`] JSON shape this crate writes and reads.
pub const PENDING_VERSION: u32 = 1;

// The domains name the layout of what each MAC covers: v2 is one MAC
// over the whole turn (items in full), fields encoded by position.
const PENDING_DOMAIN: &str = "tool-core/pending/v2";
const ITEM_DOMAIN: &str = "tool-core/pending-item/v2";
const ANSWER_DOMAIN: &str = "tool-core/answer/v2";
const LEDGER_DOMAIN: &str = "tool-core/ledger/v2";

/// The host's scope of a turn: named ids the host supplies
/// (`conversation`, `session`, `workspace`, `user`, or its own). A pending
/// item is bound to the scope it was made in; a resume in another scope
/// fails closed. Put it in the turn's context:
/// `ctx.with_extension(Scope::new().with(Scope::WORKSPACE, "w-1"))`.
///
/// Serialised as a JSON object of strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Scope(BTreeMap<String, String>);

/// The scope of a context that set none.
pub(crate) static NO_SCOPE: Scope = Scope(BTreeMap::new());

impl Scope {
    /// The conventional key of a conversation (topic) id.
    pub const CONVERSATION: &'static str = "conversation";
    /// The conventional key of a session id.
    pub const SESSION: &'static str = "session";
    /// The conventional key of a workspace (project, repository) id.
    pub const WORKSPACE: &'static str = "workspace";
    /// The conventional key of a user id.
    pub const USER: &'static str = "user";

    /// An empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same scope with `key` = `value`.
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.insert(key.into(), value.into());
        self
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every `(key, value)`, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether every entry of `self` is in `other` with the same value.
    pub fn is_within(&self, other: &Scope) -> bool {
        self.0.iter().all(|(k, v)| other.0.get(k) == Some(v))
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(no scope)");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// What a pending item is bound to. A resume re-computes each part from
/// the tools, gate and context it holds; any difference fails closed with
/// `approval_stale` naming the [`BindingPart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    /// The tool's identifier.
    pub tool: String,
    /// The API name.
    pub api: String,
    /// [`digest`](crate::durable::digest) of the parsed, validated arguments.
    pub arguments_digest: String,
    /// [`digest`](crate::durable::digest) of the tool's manifest as offered.
    pub manifest_fingerprint: String,
    /// The gate's policy fingerprint (`"none"` when nobody supplied one).
    pub policy_fingerprint: String,
    /// The host's scope when the item was made.
    pub scope: Scope,
    /// Milliseconds since the Unix epoch after which the item is refused.
    pub expires_at_ms: u64,
}

/// The part of a [`Binding`] that no longer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BindingPart {
    /// The tool or API is no longer offered.
    Tool,
    /// The arguments no longer parse, validate or digest the same (the
    /// schema changed under them).
    Arguments,
    /// The tool's manifest changed.
    Manifest,
    /// The gate's policy changed.
    Policy,
    /// The resume happens in another scope.
    Scope,
    /// The item expired.
    Expiry,
    /// The gate, deciding again, asks by another rule than the one the
    /// person answered (the session took in untrusted content, a
    /// definition changed): the answer was not given to that question.
    Decision,
}

impl BindingPart {
    /// The name as serialised (`arguments`, `policy`…).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Arguments => "arguments",
            Self::Manifest => "manifest",
            Self::Policy => "policy",
            Self::Scope => "scope",
            Self::Expiry => "expiry",
            Self::Decision => "decision",
        }
    }
}

/// The gate's decision for a pending item, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRecord {
    /// `ask` for an approval; `run` for a tool that asked questions.
    pub action: GateAction,
    /// Why, for people.
    pub message: String,
    /// The rule that decided.
    #[serde(default)]
    pub rule: Option<String>,
    /// What the call runs under once approved (an answer may widen it).
    #[serde(default)]
    pub confinement: Option<Confinement>,
    /// The decision's `reason` object (for the blocked / declined states).
    #[serde(default)]
    pub reason: Value,
}

impl DecisionRecord {
    pub(crate) fn of(decision: &GateDecision) -> Self {
        Self {
            action: decision.action,
            message: decision.message.clone(),
            rule: decision.rule.clone(),
            confinement: decision.confinement.clone(),
            reason: decision.reason(),
        }
    }
}

/// What a pending item waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Asked {
    /// A person's approval of the call.
    Approval,
    /// Answers to the tool's questions; `state` is the tool's own opaque
    /// state, handed back to it on resume (MAC'd with the item, so a
    /// client cannot alter it).
    Input {
        /// The questions, each with the schema of its answer.
        questions: Vec<Elicitation>,
        /// The tool's state.
        #[serde(default)]
        state: Value,
    },
}

/// One call of a turn that waits for a person (or for answers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingItem {
    /// The call's position in the turn's batch.
    pub index: usize,
    /// The call as the model made it (id, wire name, raw arguments).
    pub call: ToolCall,
    /// The gate's decision.
    pub decision: DecisionRecord,
    /// What is asked.
    pub asked: Asked,
    /// What the item is bound to.
    pub binding: Binding,
    /// The item's id: HMAC-SHA-256 (hex) over the item and the turn's id,
    /// made with the turn's key when the item was made. Answers name the
    /// item by it ([`Resolution::item_mac`]); the turn's MAC covers it with
    /// the rest of the item.
    pub mac: String,
}

impl PendingItem {
    /// The call id (always set on a pending item).
    pub fn call_id(&self) -> &str {
        self.call.id.as_deref().unwrap_or_default()
    }

    /// The parsed arguments, as bound (re-parsed from the raw call text).
    pub fn arguments(&self) -> Value {
        serde_json::from_str(&self.call.arguments).unwrap_or(Value::Null)
    }

    /// What the item's MAC covers: the item without its MAC, and the turn.
    fn signed<'a>(&'a self, pending_id: &'a str) -> ItemSigned<'a> {
        ItemSigned {
            pending_id,
            index: self.index,
            call: &self.call,
            decision: &self.decision,
            asked: &self.asked,
            binding: &self.binding,
        }
    }

    pub(crate) fn sign(&mut self, pending_id: &str, keys: &KeyRing) {
        self.mac = keys.sign_serialized(ITEM_DOMAIN, &self.signed(pending_id));
    }

    /// Sorts the keys of every free-form value, so the item serialises
    /// canonically (see [`Pending::from_json`]).
    fn normalize(&mut self) {
        sort_keys(&mut self.decision.reason);
        if let Asked::Input { questions, state } = &mut self.asked {
            sort_keys(state);
            for question in questions {
                sort_keys(&mut question.requested_schema);
            }
        }
    }

    /// The key of this item in the use-once ledger.
    ///
    /// Made of what the turn's MAC covers and does not change on re-signing:
    /// the turn, the call's position and id, and what is asked (a tool's
    /// second round of questions for the same call is another item). A
    /// fixed-size digest, so a key costs no allocation and a model's call
    /// id cannot shape it.
    pub(crate) fn ledger_key(&self, pending_id: &str) -> LedgerKey {
        let mut key = LedgerKey::EMPTY;
        let (prefix, digest) = key.0.split_at_mut(LedgerKey::PREFIX.len());
        prefix.copy_from_slice(LedgerKey::PREFIX.as_bytes());
        if let Ok(digest) = <&mut [u8; 64]>::try_from(digest) {
            hash_encoded_hex(
                &(
                    LEDGER_DOMAIN,
                    pending_id,
                    self.index,
                    self.call_id(),
                    &self.asked,
                ),
                digest,
            );
        }
        key
    }
}

/// An item's key in the use-once ledger: `tool-core:pending:` and 64 hex
/// digits, held inline.
#[derive(Clone, Copy)]
pub(crate) struct LedgerKey([u8; LedgerKey::LEN]);

impl LedgerKey {
    const PREFIX: &'static str = "tool-core:pending:";
    const LEN: usize = Self::PREFIX.len() + 64;
    const EMPTY: Self = Self([b'0'; Self::LEN]);

    /// The key as text (ASCII by construction).
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or(Self::PREFIX)
    }
}

/// The fields an item's MAC covers, in a fixed order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemSigned<'a> {
    pending_id: &'a str,
    index: usize,
    call: &'a ToolCall,
    decision: &'a DecisionRecord,
    asked: &'a Asked,
    binding: &'a Binding,
}

/// The fields a turn's MAC covers, in a fixed order: the whole turn but
/// its MAC.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PendingSigned<'a> {
    version: u32,
    id: &'a str,
    key_id: &'a str,
    created_at_ms: u64,
    expires_at_ms: u64,
    scope: &'a Scope,
    calls: &'a [ToolCall],
    outputs: &'a [Option<ToolOutput>],
    items: ItemsInTurn<'a>,
}

/// The items as the turn's MAC covers them: each in full, its call by
/// position (the batch's call at its index, checked equal by
/// [`Pending::verify`]), its id included.
struct ItemsInTurn<'a>(&'a [PendingItem]);

/// One item as the turn's MAC covers it.
#[derive(Serialize)]
struct ItemInTurn<'a> {
    index: usize,
    id: &'a str,
    decision: &'a DecisionRecord,
    asked: &'a Asked,
    binding: &'a Binding,
}

impl Serialize for ItemsInTurn<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|item| ItemInTurn {
            index: item.index,
            id: &item.mac,
            decision: &item.decision,
            asked: &item.asked,
            binding: &item.binding,
        }))
    }
}

/// A turn that could not be settled in the process that ran it: the batch's
/// calls, the outputs of those that did settle, and an item for each call
/// that waits. Plain, versioned JSON a host stores next to the message and
/// resumes anywhere with [`Invoker::resume`](crate::Invoker::resume).
///
/// # The JSON shape (version 1)
///
/// ```text
/// { "version": 1, "id": "pend_…", "keyId": "…",
///   "createdAtMs": …, "expiresAtMs": …, "scope": {"workspace": "…"},
///   "calls":   [ {"id", "name", "arguments"} … ],       // the whole batch
///   "outputs": [ ToolOutput | null … ],                  // null = pending
///   "items":   [ { "index", "call", "decision", "asked": {"kind": "approval"}
///                  | {"kind": "input", "questions", "state"},
///                  "binding": { "tool", "api", "argumentsDigest",
///                    "manifestFingerprint", "policyFingerprint", "scope",
///                    "expiresAtMs" },
///                  "mac" } … ],
///   "mac": "…" }
/// ```
///
/// The turn's `mac` is HMAC-SHA-256 over a canonical binary form of all
/// the fields above (free-form objects with sorted keys), items in full:
/// a store that reorders keys (`jsonb`) does not break it; any other
/// change does (an argument, an item moved, swapped in from another turn,
/// dropped or spliced). An item's `mac` is its id, made with the key when
/// the item was made; the answers name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    /// [`PENDING_VERSION`].
    pub version: u32,
    /// The turn's id (`pend_` + hex).
    pub id: String,
    /// The id of the key the MACs were made with.
    pub key_id: String,
    /// When the turn was made (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// When its items expire (ms since the Unix epoch).
    pub expires_at_ms: u64,
    /// The host's scope.
    pub scope: Scope,
    /// Every call of the batch, in order, ids filled in.
    pub calls: Vec<ToolCall>,
    /// The output of each call that settled; `null` for those pending.
    pub outputs: Vec<Option<ToolOutput>>,
    /// The calls that wait.
    pub items: Vec<PendingItem>,
    /// HMAC-SHA-256 (hex) over everything above.
    pub mac: String,
}

fn refused(id: &str, pointer: impl Into<String>, message: impl Into<String>) -> Error {
    Error::PendingRefused {
        pending_id: id.to_owned(),
        pointer: pointer.into(),
        message: message.into(),
    }
}

impl Pending {
    /// Reads a stored turn, checking its shape and version (not its MAC:
    /// [`verify`](Self::verify) does, and resume always does). Read stored
    /// turns with this (not a bare `serde_json::from_str`): it puts the
    /// keys of free-form values back in canonical order, so a store that
    /// reorders them (`jsonb`) does not break the MACs.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| refused("", "", format!("not JSON: {e}")))?;
        Self::from_value(value)
    }

    /// [`from_json`](Self::from_json) from a parsed value.
    pub fn from_value(value: Value) -> Result<Self, Error> {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match value.get("version").and_then(Value::as_u64) {
            Some(v) if v == u64::from(PENDING_VERSION) => {}
            Some(v) => {
                return Err(refused(
                    &id,
                    "/version",
                    format!("version {v} is not known here (this crate reads {PENDING_VERSION})"),
                ));
            }
            None => return Err(refused(&id, "/version", "no version")),
        }
        let mut pending: Pending = serde_json::from_value(value)
            .map_err(|e| refused(&id, "", format!("not a pending turn: {e}")))?;
        pending.normalize();
        if pending.outputs.len() != pending.calls.len() {
            return Err(refused(
                &id,
                "/outputs",
                "one output slot per call is needed",
            ));
        }
        for (i, item) in pending.items.iter().enumerate() {
            if pending.calls.get(item.index) != Some(&item.call) {
                return Err(refused(
                    &id,
                    format!("/items/{i}/index"),
                    "the item's call is not the batch's call at its index",
                ));
            }
        }
        Ok(pending)
    }

    /// The turn as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// What the turn's MAC covers: everything but the turn's MAC.
    fn signed(&self) -> PendingSigned<'_> {
        PendingSigned {
            version: self.version,
            id: &self.id,
            key_id: &self.key_id,
            created_at_ms: self.created_at_ms,
            expires_at_ms: self.expires_at_ms,
            scope: &self.scope,
            calls: &self.calls,
            outputs: &self.outputs,
            items: ItemsInTurn(&self.items),
        }
    }

    /// Sorts the keys of every free-form value (tools' states, the gate's
    /// reasons, questions' schemas), so the turn serialises canonically:
    /// its MACs then hold whatever key order a store gives it back in.
    pub(crate) fn normalize(&mut self) {
        for item in &mut self.items {
            item.normalize();
        }
        for output in self.outputs.iter_mut().flatten() {
            if let Some(state) = &mut output.state {
                sort_keys(state);
            }
            if let Some(details) = output.error.as_mut().and_then(|e| e.details.as_mut()) {
                sort_keys(details);
            }
        }
    }

    /// Signs every item and the whole turn with the ring's current key.
    pub(crate) fn sign(&mut self, keys: &KeyRing) {
        // Items keep their MACs (answers made for them stay valid) unless
        // the signing key changed since.
        self.normalize();
        let rotated = self.key_id != keys.current().id();
        self.key_id = keys.current().id().to_owned();
        let id = self.id.clone();
        for item in &mut self.items {
            if rotated || item.mac.is_empty() {
                item.sign(&id, keys);
            }
        }
        self.mac = keys.sign_serialized(PENDING_DOMAIN, &self.signed());
    }

    /// Checks the turn's MAC (which covers every item) and that each item's
    /// call is the batch's call at its index: `Err` names the first part
    /// that was forged or altered, or the key that is not held.
    pub fn verify(&self, keys: &KeyRing) -> Result<(), Error> {
        if self.version != PENDING_VERSION {
            return Err(refused(&self.id, "/version", "unknown version"));
        }
        keys.verify_serialized(PENDING_DOMAIN, &self.key_id, &self.signed(), &self.mac)
            .map_err(|m| refused(&self.id, "/mac", m))?;
        for (i, item) in self.items.iter().enumerate() {
            if self.calls.get(item.index) != Some(&item.call) {
                return Err(refused(
                    &self.id,
                    format!("/items/{i}/call"),
                    "the item's call is not the batch's call at its index (altered)",
                ));
            }
        }
        Ok(())
    }

    /// The item waiting for the call `call_id`.
    pub fn item(&self, call_id: &str) -> Option<&PendingItem> {
        self.items.iter().find(|item| item.call_id() == call_id)
    }

    /// The host's signed answer to the item of `call_id`: what a host makes
    /// where the person answered (an authenticated page, a CLI), and hands
    /// to [`Invoker::resume`](crate::Invoker::resume), here or elsewhere.
    /// The answer is bound to that item only: it settles no other call.
    ///
    /// Fails when the turn does not verify or has no such item.
    pub fn answer(&self, call_id: &str, reply: Reply, keys: &KeyRing) -> Result<Resolution, Error> {
        self.verify(keys)?;
        let item = self.item(call_id).ok_or_else(|| {
            refused(
                &self.id,
                "/items",
                format!("no item waits for the call `{call_id}`"),
            )
        })?;
        let mut resolution = Resolution {
            pending_id: self.id.clone(),
            call_id: call_id.to_owned(),
            item_mac: item.mac.clone(),
            reply,
            key_id: String::new(),
            mac: String::new(),
        };
        resolution.key_id = keys.current().id().to_owned();
        resolution.mac = keys.sign_serialized(ANSWER_DOMAIN, &resolution.signed());
        Ok(resolution)
    }

    /// What a UI shows for each call of the batch, LobeHub's
    /// `pluginIntervention`: `pending` for the calls that wait, `None` for
    /// those that settled (see [`Turn::interventions`](crate::durable::Turn::interventions)
    /// for the states after a resume).
    pub fn interventions(&self) -> Vec<Option<Intervention>> {
        let mut states = vec![None; self.calls.len()];
        for item in &self.items {
            if let Some(slot) = states.get_mut(item.index) {
                *slot = Some(Intervention::pending());
            }
        }
        states
    }
}

/// A person's reply to a pending item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reply {
    /// Run it.
    Approve {
        /// Remember: record an "always" for this call in the host's scope
        /// (see [`RememberedAnswers`](crate::durable::RememberedAnswers)).
        #[serde(default)]
        always: bool,
        /// Run under this instead of the decision's confinement (a person
        /// may widen).
        #[serde(default)]
        confinement: Option<Confinement>,
    },
    /// Do not run it.
    Decline {
        /// Why, when the person said.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Answers to a tool's questions.
    Input {
        /// `accept`, `decline` or `cancel` (MCP's elicitation actions).
        action: InputAction,
        /// The answers, following the questions' schema (for `accept`).
        #[serde(default)]
        content: Value,
    },
}

impl Reply {
    /// Yes, once.
    pub fn approve() -> Self {
        Self::Approve {
            always: false,
            confinement: None,
        }
    }

    /// Yes, and remember it in the host's scope.
    pub fn approve_always() -> Self {
        Self::Approve {
            always: true,
            confinement: None,
        }
    }

    /// No.
    pub fn decline(reason: Option<String>) -> Self {
        Self::Decline { reason }
    }

    /// Answers to a tool's questions.
    pub fn input(content: Value) -> Self {
        Self::Input {
            action: InputAction::Accept,
            content,
        }
    }
}

/// What a person did with a tool's questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputAction {
    /// They answered.
    Accept,
    /// They refused to answer.
    Decline,
    /// They dismissed the questions.
    Cancel,
}

/// A host's signed answer to one pending item ([`Pending::answer`]):
/// serialisable, so it can travel from the page a person clicked to the
/// worker that resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolution {
    /// The turn it answers.
    pub pending_id: String,
    /// The call it answers.
    pub call_id: String,
    /// The id of the item it answers, its [`PendingItem::mac`] (binds the
    /// answer to that exact item).
    pub item_mac: String,
    /// The reply.
    pub reply: Reply,
    /// The id of the key the MAC was made with.
    pub key_id: String,
    /// HMAC-SHA-256 (hex) over the fields above.
    pub mac: String,
}

/// The fields an answer's MAC covers, in a fixed order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnswerSigned<'a> {
    pending_id: &'a str,
    call_id: &'a str,
    item_mac: &'a str,
    reply: Cow<'a, Reply>,
}

impl Resolution {
    /// What the answer's MAC covers (a tool's answers with sorted keys).
    fn signed(&self) -> AnswerSigned<'_> {
        let reply = match &self.reply {
            Reply::Input { .. } => {
                let mut reply = self.reply.clone();
                if let Reply::Input { content, .. } = &mut reply {
                    sort_keys(content);
                }
                Cow::Owned(reply)
            }
            reply => Cow::Borrowed(reply),
        };
        AnswerSigned {
            pending_id: &self.pending_id,
            call_id: &self.call_id,
            item_mac: &self.item_mac,
            reply,
        }
    }

    pub(crate) fn verify(&self, keys: &KeyRing) -> Result<(), String> {
        keys.verify_serialized(ANSWER_DOMAIN, &self.key_id, &self.signed(), &self.mac)
    }
}

/// LobeHub's per-call intervention state, for a UI:
/// `{"status": "pending" | "approved" | "rejected", "rejectedReason"?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Intervention {
    /// `pending`, `approved` or `rejected`.
    pub status: InterventionStatus,
    /// Why it was rejected (the person's reason, or what went stale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected_reason: Option<String>,
}

/// The status of an [`Intervention`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterventionStatus {
    /// Waiting for a person.
    Pending,
    /// Approved (and run).
    Approved,
    /// Declined, or refused on resume.
    Rejected,
}

impl Intervention {
    /// Waiting.
    pub fn pending() -> Self {
        Self {
            status: InterventionStatus::Pending,
            rejected_reason: None,
        }
    }

    /// Approved.
    pub fn approved() -> Self {
        Self {
            status: InterventionStatus::Approved,
            rejected_reason: None,
        }
    }

    /// Rejected, because `reason`.
    pub fn rejected(reason: Option<String>) -> Self {
        Self {
            status: InterventionStatus::Rejected,
            rejected_reason: reason,
        }
    }
}
