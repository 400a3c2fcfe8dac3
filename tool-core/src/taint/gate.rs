//! The taint gate: any gate, plus the session's trifecta rule.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::json;

use super::ledger::Ledger;
use super::pin::{Change, PIN_RULE};
use super::pointed::{Pointed, follows_user_source, names_user_source};
use super::quota::QuotaHit;
use super::session::Session;
use super::trifecta::{TRIFECTA_RULE, TrifectaHit, judge_call_in};
use crate::context::ToolContext;
use crate::gate::{Gate, GateAction, GateDecision};
use crate::offered::OfferedTools;
use crate::prepared::PreparedCall;

/// A [`Gate`] that asks the inner gate first, then holds back each action
/// (egress, or a write to the user's data) the session's ledger says
/// would close the trifecta or was not asked for (rule `taint/trifecta`,
/// see [`judge_call`](super::judge_call)).
///
/// 1. The inner gate decides every call (tool-approval's `PolicyEngine`,
///    or [`RunAll`](super::RunAll) when there is no other policy).
/// 2. A `block` stays a block. A call past one of the session's quotas
///    is blocked with the quota's rule (`quota/turn`, `quota/session`,
///    `quota/window`, `quota/budget`); the calls of one batch count
///    against each other in order.
/// 3. A call of a pinned tool whose definition changed since it was
///    pinned asks (blocks when headless) with rule `pin/changed` and the
///    diff under `details.changes`; an unpinned one is pinned now.
/// 4. For a call whose API has `egress` or `writes_private`
///    ([`Session::capabilities_of`]), the trifecta rule
///    judges its arguments against the ledger; a hit turns the decision
///    into an ask (a block with [`headless`](super::TrifectaSettings::headless)),
///    with the hit's message, the rule, and `details.taint` naming the
///    calls each value came from. The inner decision is kept under
///    `details.inner`; its confinement is kept.
/// 5. So a remembered "always" of the inner gate does not let a tainted
///    call, or a call of a changed definition, through: both are judged
///    after it. A person's "always" on a `pin/changed` ask accepts the new
///    definition; on a `taint/trifecta` ask it is not remembered.
///
/// The ledger is read as it was when the batch was decided: the calls of
/// one batch do not see each other's outputs.
///
/// The gate also notes which calls of untrusted sources were directed at
/// a source the user named (the file or page the user gave), or followed
/// a link one of the user's own named sources gave (a page linked from
/// the inbox the user pointed at): what such a call returns is what the
/// user pointed at (see [`judge_call`](super::judge_call)), and when the
/// user handed the choice of actions to a source they named, its words
/// are recorded as delegated ([`Ledger::record_delegated`](super::Ledger::record_delegated)).
/// The note is kept by this gate (and its clones) for the life of the
/// process, not in the stored session: a session restored elsewhere asks
/// for those destinations again.
#[derive(Clone)]
pub struct TaintGate {
    inner: Arc<dyn Gate>,
    session: Arc<Session>,
    /// Ids of the calls directed at a source the user pointed at, and how.
    directed: Arc<Mutex<HashMap<String, Pointed>>>,
}

impl std::fmt::Debug for TaintGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaintGate")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl TaintGate {
    /// `inner`, then the trifecta rule of `session`.
    pub fn new(inner: Arc<dyn Gate>, session: Arc<Session>) -> Self {
        Self {
            inner,
            session,
            directed: Arc::default(),
        }
    }

    /// The session read.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }
}

/// How call `index` of `ledger` was directed, as noted in `directed`.
fn pointed_of(ledger: &Ledger, directed: &HashMap<String, Pointed>, index: u32) -> Option<Pointed> {
    let call = ledger.call(index)?;
    if call.call_id.is_empty() {
        return None;
    }
    directed.get(&call.call_id).copied()
}

/// Turns `decision` into the hit's ask (or block).
fn held(decision: GateDecision, hit: TrifectaHit, action: GateAction) -> GateDecision {
    let inner = json!({
        "action": decision.action,
        "message": decision.message,
        "rule": decision.rule,
        "details": decision.details,
    });
    GateDecision {
        action,
        message: hit.message.clone(),
        rule: Some(TRIFECTA_RULE.to_owned()),
        confinement: decision.confinement,
        details: json!({
            "reason": { "level": "session", "rule": TRIFECTA_RULE, "message": hit.message },
            "taint": hit.details,
            "inner": inner,
        }),
    }
}

/// Turns `decision` into the changed definition's ask (or block).
fn changed(
    decision: GateDecision,
    call: &PreparedCall,
    changes: Vec<Change>,
    action: GateAction,
) -> GateDecision {
    let pointers: Vec<&str> = changes.iter().map(|c| c.pointer.as_str()).collect();
    let message = format!(
        "the definition of `{}/{}` changed since it was pinned ({}); its calls ask until the change is accepted",
        call.identifier,
        call.api,
        pointers.join(", ")
    );
    GateDecision {
        action,
        message: message.clone(),
        rule: Some(PIN_RULE.to_owned()),
        confinement: decision.confinement,
        details: json!({
            "reason": { "level": "session", "rule": PIN_RULE, "message": message },
            "changes": changes,
        }),
    }
}

/// Turns `decision` into the quota's block.
fn over_quota(decision: GateDecision, hit: QuotaHit) -> GateDecision {
    GateDecision {
        action: GateAction::Block,
        message: hit.message.clone(),
        rule: Some(hit.rule.to_owned()),
        confinement: decision.confinement,
        details: json!({
            "reason": { "level": "session", "rule": hit.rule, "message": hit.message },
            "quota": { "scope": hit.scope },
        }),
    }
}

#[async_trait]
impl Gate for TaintGate {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let mut decisions = self.inner.decide(calls, offered, ctx).await;
        decisions.truncate(calls.len());
        let settings = self.session.trifecta();
        let quotas = self.session.quotas();
        let counting = !quotas.quotas.is_empty() || quotas.budget.is_some();
        let now = super::session::now_ms();
        // The ledger's values are brought up to date only when an egress
        // call is judged.
        let mut state = self.session.lock_unflushed();
        let mut let_through: Vec<(String, String)> = Vec::new();
        let mut out = Vec::with_capacity(calls.len());
        for (call, decision) in calls.iter().zip(decisions) {
            if decision.action == GateAction::Block {
                out.push(decision);
                continue;
            }
            if counting
                && let Some(hit) =
                    state
                        .quotas
                        .check(quotas, &call.identifier, &call.api, &let_through, now)
            {
                out.push(over_quota(decision, hit));
                continue;
            }
            let_through.push((call.identifier.clone(), call.api.clone()));
            if let Some(changes) = self.session.pin_changes(&mut state, call) {
                out.push(changed(decision, call, changes, settings.action()));
                continue;
            }
            let caps = self.session.capabilities_of(call);
            if caps.untrusted_source
                && let Some(id) = call.call_id.as_deref().filter(|id| !id.is_empty())
            {
                let mut directed = self.directed.lock().unwrap_or_else(|p| p.into_inner());
                let how = if names_user_source(&state.ledger, &call.arguments) {
                    state.delegate(id);
                    Some(Pointed::Named)
                } else if directed.values().any(|p| *p == Pointed::Named) {
                    // Only once the user named a source is there a link
                    // to follow from it; the values are read then.
                    state.flush();
                    let ledger = &state.ledger;
                    let pointed = |i: u32| pointed_of(ledger, &directed, i);
                    follows_user_source(ledger, &call.arguments, &pointed)
                        .then_some(Pointed::Linked)
                } else {
                    None
                };
                if let Some(how) = how {
                    directed.insert(id.to_owned(), how);
                }
            }
            if !caps.acts() {
                out.push(decision);
                continue;
            }
            state.flush();
            let api = format!("{}/{}", call.identifier, call.api);
            let directed = self.directed.lock().unwrap_or_else(|p| p.into_inner());
            let ledger = &state.ledger;
            let pointed = |i: u32| pointed_of(ledger, &directed, i);
            let hit = judge_call_in(ledger, &api, caps, &call.arguments, settings, &pointed);
            drop(directed);
            match hit {
                Some(hit) => out.push(held(decision, hit, settings.action())),
                None => out.push(decision),
            }
        }
        out
    }

    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        // A trifecta ask is never remembered: the next call is judged
        // against the ledger again. The inner gate remembers its own.
        if decision.rule.as_deref() == Some(TRIFECTA_RULE) {
            return;
        }
        // "Always" on a changed definition accepts the new definition.
        if decision.rule.as_deref() == Some(PIN_RULE) {
            self.session.accept_definition(call);
            return;
        }
        self.inner.remember(call, decision);
    }

    fn remembers(&self, decision: &GateDecision) -> bool {
        // The ledger's and the pins' asks depend on the session, not on
        // the call: no remembered answer covers them.
        let session_rule = matches!(decision.rule.as_deref(), Some(TRIFECTA_RULE | PIN_RULE));
        !session_rule && self.inner.remembers(decision)
    }

    fn fingerprint(&self) -> Option<String> {
        use sha2::{Digest, Sha256};
        let settings = serde_json::to_string(self.session.trifecta()).unwrap_or_default();
        let inner = self.inner.fingerprint().unwrap_or_default();
        let digest = Sha256::digest(format!("{inner}\ntaint:{settings}").as_bytes());
        Some(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// A gate that runs every call: the inner gate of a [`TaintGate`] for a
/// host with no other policy.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunAll;

#[async_trait]
impl Gate for RunAll {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls.iter().map(|_| GateDecision::run()).collect()
    }
}
