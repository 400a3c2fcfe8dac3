//! What a person's answer covers when a pending turn resumes with a
//! session: the decision they were shown, not a newer one.
//!
//! On `resume` the gate re-decides every answered call against the
//! session as it is now. Between `call --pending` and `resume` other calls
//! may have run in the session (untrusted content read, a definition
//! changed), so the re-decision can name a session rule
//! ([`SESSION_RULES`]: `taint/trifecta`, `pin/changed`) that the pending
//! item did not. The person approved without knowing it, so such a call
//! is blocked with that rule, and the person asks again (a new
//! `call --pending` shows the new reason). A re-decision naming the rule
//! the person saw stands: their approval answered it.
//!
//! The same rules are never covered by a remembered "always": an "always"
//! given for a call before the session tainted it does not let it through
//! after ([`held_by_session`] tells `call --pending` to leave the
//! remembered answers out).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tool_core::taint::{PIN_RULE, TRIFECTA_RULE};
use tool_core::{
    Gate, GateAction, GateDecision, OfferedTools, ToolContext, pipeline::PreparedCall,
};

/// The rules of a taint session that hold back a call on their own.
pub const SESSION_RULES: &[&str] = &[TRIFECTA_RULE, PIN_RULE];

/// Whether `decision` is a session rule's ask or block.
pub fn held_by_session(decision: &GateDecision) -> bool {
    decision.action != GateAction::Run
        && decision
            .rule
            .as_deref()
            .is_some_and(|rule| SESSION_RULES.contains(&rule))
}

/// The session's gate on resume: a session rule the person was not shown
/// blocks (see the module docs).
pub struct ResumeGate {
    inner: Arc<dyn Gate>,
    /// Call id → the rule of the decision the person answered.
    shown: HashMap<String, Option<String>>,
}

impl ResumeGate {
    /// `inner` (the taint gate), knowing what each pending call was asked with.
    pub fn new(inner: Arc<dyn Gate>, shown: HashMap<String, Option<String>>) -> Self {
        Self { inner, shown }
    }
}

#[async_trait]
impl Gate for ResumeGate {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let decisions = self.inner.decide(calls, offered, ctx).await;
        calls
            .iter()
            .zip(decisions)
            .map(|(call, decision)| {
                let shown = call
                    .call_id
                    .as_deref()
                    .and_then(|id| self.shown.get(id))
                    .cloned()
                    .flatten();
                if !held_by_session(&decision) || decision.rule == shown {
                    return decision;
                }
                let rule = decision.rule.clone().unwrap_or_default();
                let message = format!(
                    "{} (the approval was given before this was known: ask again)",
                    decision.message
                );
                GateDecision {
                    action: GateAction::Block,
                    message: message.clone(),
                    rule: decision.rule.clone(),
                    confinement: decision.confinement.clone(),
                    details: json!({
                        "reason": { "level": "session", "rule": rule, "message": message },
                        "shown": shown,
                        "now": decision.details,
                    }),
                }
            })
            .collect()
    }

    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        self.inner.remember(call, decision);
    }

    fn fingerprint(&self) -> Option<String> {
        self.inner.fingerprint()
    }
}
