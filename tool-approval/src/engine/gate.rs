//! [`PolicyEngine`] as the pipeline's [`Gate`]: a batch is evaluated as
//! [`PolicyEngine::evaluate`] evaluates it, and each [`Decision`] becomes a
//! [`GateDecision`].

use async_trait::async_trait;
use tool_core::{
    Gate, GateAction, GateDecision, OfferedTools, ToolContext, pipeline::PreparedCall,
};

use super::PolicyEngine;
use crate::call::CallRef;
use crate::decision::{Action, Decision};

impl Decision {
    /// The decision as a [`GateDecision`]: the same action and
    /// confinement, `message` and `rule` from the reason, `details` the
    /// decision serialised (the shape `toolhost check` prints).
    ///
    /// ```
    /// use tool_approval::{CallRef, PolicyEngine};
    /// use tool_core::{GateAction, ToolContext};
    ///
    /// let args = serde_json::json!({});
    /// let d = PolicyEngine::default().evaluate_one(&CallRef::new("nobody", "x", &args), &ToolContext::new());
    /// let gate = d.to_gate_decision();
    /// assert_eq!(gate.action, GateAction::Ask);
    /// assert_eq!(gate.details["reason"]["level"], "unknown_tool");
    /// assert_eq!(gate.confinement, d.confinement);
    /// ```
    pub fn to_gate_decision(&self) -> GateDecision {
        let action = match self.action {
            Action::Run => GateAction::Run,
            Action::Ask => GateAction::Ask,
            Action::Block => GateAction::Block,
        };
        GateDecision {
            action,
            message: self.reason.message.clone(),
            rule: self.reason.rule.clone(),
            confinement: self.confinement.clone(),
            details: serde_json::to_value(self).unwrap_or_default(),
        }
    }
}

#[async_trait]
impl Gate for PolicyEngine {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let refs: Vec<CallRef<'_>> = calls
            .iter()
            .map(|c| CallRef::from_prepared(c, offered))
            .collect();
        self.evaluate(&refs, ctx)
            .decisions()
            .iter()
            .map(Decision::to_gate_decision)
            .collect()
    }

    /// Remembers the approved call for the engine's lifetime: its key, or
    /// for a shell command its command prefix (see
    /// [remembered approvals](crate::PolicyEngine#remembered-approvals)).
    fn remember(&self, call: &PreparedCall, _: &GateDecision) {
        let call = CallRef::new(&call.identifier, &call.api, &call.arguments);
        self.remember_call(&call, &ToolContext::new());
    }

    /// [`PolicyEngine::fingerprint`]: a pending approval made under
    /// another policy (or another version of the engine's tables) is stale.
    fn fingerprint(&self) -> Option<String> {
        Some(self.fingerprint.clone())
    }
}
