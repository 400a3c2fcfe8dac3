//! The approval seam of the serving side: tool-core's [`Gate`] decides,
//! tool-core's [`Asker`] answers. tool-mcp depends on no policy engine: the
//! host hands [`RegistryServer`](crate::RegistryServer) its gate (e.g.
//! tool-approval's `PolicyEngine`) and, optionally, a fallback asker.
//!
//! Asking the MCP client's user is one more [`Asker`]: [`ClientAsker`] turns
//! each ask into an `elicitation/create` request (form mode) when the client
//! declared elicitation, and hands the asks to the host's fallback asker
//! otherwise. A running tool's own question
//! ([`ToolContext::elicit`]) takes the same way: `elicitation/create` with
//! the tool's schema as it is (the enum, titled-enum, multi-select and
//! default forms of SEP-1330 and SEP-1034 pass through), or the fallback's
//! [`Asker::elicit`].

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tool_core::{
    Answer, Ask, Asker, Elicitation, Elicited, Gate, GateAction, GateDecision, OfferedTools,
    ToolContext, pipeline::PreparedCall,
};

use crate::server::client_input::{ClientAsk, ClientLine, ClientReply, form_schema};

/// A gate that runs everything, with nothing confined (for trusted, local
/// use only: tests, a registry of pure functions).
#[derive(Debug, Clone, Copy, Default)]
pub struct RunEverything;

#[async_trait]
impl Gate for RunEverything {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls.iter().map(|_| GateDecision::run()).collect()
    }
}

/// The most characters of a call's arguments shown in an elicitation.
const MAX_SHOWN_ARGUMENTS: usize = 2_000;

/// The question put to the client's user for one ask: the tool, its
/// arguments (capped), the gate's reason and what an approval runs under.
pub(crate) fn question(ask: &Ask<'_>) -> String {
    let arguments = ask.call.arguments.to_string();
    let mut shown: String = arguments.chars().take(MAX_SHOWN_ARGUMENTS).collect();
    if shown.len() < arguments.len() {
        shown.push('…');
    }
    let mut question = format!(
        "Allow `{}` with {shown}? ({})",
        ask.call.wire_name, ask.decision.message
    );
    if let Some(confinement) = &ask.decision.confinement
        && confinement.is_confined()
    {
        let _ = write!(
            question,
            " It would run confined ({}, network {}).",
            confinement.name(),
            if confinement.network() { "on" } else { "off" }
        );
    }
    question
}

/// Puts the asks of one served call to the MCP client's user by
/// elicitation (accept → approve, decline → decline, cancel → decline
/// saying it was dismissed), or to the host's fallback asker when the
/// client declared no elicitation. The elicitation travels on the call's
/// [`ClientLine`]: a request on a 2025-11-25 session, a multi-round-trip
/// question (`approval-N`, `elicitation-N`) on 2026-07-28.
pub(crate) struct ClientAsker {
    /// The client's line, when it declared elicitation.
    pub(crate) line: Option<ClientLine>,
    /// The host's asker for clients without elicitation.
    pub(crate) fallback: Option<Arc<dyn Asker>>,
}

impl ClientAsker {
    /// Whether anyone can be asked.
    pub(crate) fn can_ask(&self) -> bool {
        self.line.is_some() || self.fallback.is_some()
    }

    async fn approve(line: &ClientLine, ask: &Ask<'_>, ctx: &ToolContext) -> Answer {
        let question = Elicitation::new(question(ask), json!({"type": "object", "properties": {}}));
        let key = line.next_key("approval");
        let answer = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => {
                return Answer::decline_because("the call was cancelled while its approval was asked");
            }
            answer = line.ask(&key, ClientAsk::Elicit(question), ctx) => answer,
        };
        match answer {
            Ok(ClientReply::Elicited(Elicited::Accept(_))) => Answer::approve(),
            Ok(ClientReply::Elicited(Elicited::Decline)) => Answer::decline(),
            Ok(ClientReply::Elicited(Elicited::Cancel)) => {
                Answer::decline_because("the user dismissed the question")
            }
            Ok(other) => Answer::decline_because(format!(
                "the MCP client answered the question with `{other:?}`, which is not an approval"
            )),
            Err(e) => Answer::decline_because(format!(
                "asking the MCP client's user failed ({e}), so the call did not run"
            )),
        }
    }
}

/// Puts a running tool's question to the client's user. A schema MCP form
/// elicitation cannot carry (not an object of flat properties) is
/// [`Elicited::Unsupported`], never sent.
async fn ask_client(line: &ClientLine, question: &Elicitation, ctx: &ToolContext) -> Elicited {
    if let Err(message) = form_schema(question) {
        tracing::warn!(%message, "a tool's elicitation is not an MCP form; not asked");
        return Elicited::Unsupported;
    }
    let key = line.next_key("elicitation");
    let answer = tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => return Elicited::Cancel,
        answer = line.ask(&key, ClientAsk::Elicit(question.clone()), ctx) => answer,
    };
    match answer {
        Ok(ClientReply::Elicited(answer)) => answer,
        Ok(_) => Elicited::Cancel,
        Err(error) => {
            tracing::debug!(%error, "elicitation failed; counted as dismissed");
            Elicited::Cancel
        }
    }
}

#[async_trait]
impl Asker for ClientAsker {
    async fn elicit(&self, question: &Elicitation, ctx: &ToolContext) -> Elicited {
        match (&self.line, &self.fallback) {
            (Some(line), _) => ask_client(line, question, ctx).await,
            (None, Some(fallback)) => fallback.elicit(question, ctx).await,
            (None, None) => Elicited::Unsupported,
        }
    }

    async fn ask(&self, asks: &[Ask<'_>], ctx: &ToolContext) -> Vec<Answer> {
        match (&self.line, &self.fallback) {
            (Some(line), _) => {
                let mut answers = Vec::with_capacity(asks.len());
                for ask in asks {
                    answers.push(Self::approve(line, ask, ctx).await);
                }
                answers
            }
            (None, Some(fallback)) => fallback.ask(asks, ctx).await,
            (None, None) => asks
                .iter()
                .map(|_| Answer::decline_because("no one can be asked"))
                .collect(),
        }
    }
}

/// The host's gate, with a note on every `ask` saying why no one will be
/// asked: used when the client declared no elicitation and the host gave
/// no fallback asker, so the `approval_required` output tells the model
/// (and the person reading the log) what to change.
pub(crate) struct NoOneToAsk(pub(crate) Arc<dyn Gate>);

#[async_trait]
impl Gate for NoOneToAsk {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let mut decisions = self.0.decide(calls, offered, ctx).await;
        for decision in &mut decisions {
            if decision.action == GateAction::Ask {
                decision.message = format!(
                    "{}; this MCP client did not declare elicitation and the server has no fallback asker: allow the tool in the server's policy or use a client with elicitation",
                    decision.message
                );
            }
        }
        decisions
    }

    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        self.0.remember(call, decision);
    }
}
