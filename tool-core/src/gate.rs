//! The approval step of the pipeline: the gate, the asker, ready outputs.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::confine::Confinement;
use crate::context::ToolContext;
use crate::offered::OfferedTools;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::prepared::PreparedCall;
use crate::talk::{Elicitation, Elicited};

/// The content of a blocked call's output.
pub const BLOCKED_CONTENT: &str = "Blocked by security/privacy.";

/// The content of a declined call's output (a reason may follow).
pub const DECLINED_CONTENT: &str = "The user declined this call; it did not run.";

/// The content of an ask that no one could answer.
pub const APPROVAL_REQUIRED_CONTENT: &str =
    "This call needs a person's approval and none could be asked; it did not run.";

/// What a gate decided for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateAction {
    /// Run it, under the decision's confinement.
    Run,
    /// Ask a person first.
    Ask,
    /// Never run it.
    Block,
}

/// A gate's decision for one prepared call.
///
/// `confinement` is what the call runs under: for `run`, now; for `ask`,
/// once approved (a person's answer may widen it). `None` means the tool
/// touches nothing on this machine that could be confined (an HTTP API, a
/// remote MCP tool).
#[derive(Debug, Clone, PartialEq)]
pub struct GateDecision {
    /// Run, ask or block.
    pub action: GateAction,
    /// Why, for people (and the blocked output's error message).
    pub message: String,
    /// The rule that decided, when one did.
    pub rule: Option<String>,
    /// What the call runs under.
    pub confinement: Option<Confinement>,
    /// The gate's own full record of the decision (tool-approval puts its
    /// whole decision here). A `reason` object in it becomes the `reason`
    /// of the blocked and declined states.
    pub details: Value,
}

impl GateDecision {
    fn new(action: GateAction, message: impl Into<String>) -> Self {
        Self {
            action,
            message: message.into(),
            rule: None,
            confinement: None,
            details: Value::Null,
        }
    }

    /// Run, with nothing to confine.
    pub fn run() -> Self {
        Self::new(GateAction::Run, "allowed")
    }

    /// Ask a person, with `message` as the question's reason.
    pub fn ask(message: impl Into<String>) -> Self {
        Self::new(GateAction::Ask, message)
    }

    /// Block, with `message` as the reason.
    pub fn block(message: impl Into<String>) -> Self {
        Self::new(GateAction::Block, message)
    }

    /// The same decision with `confinement`.
    pub fn with_confinement(mut self, confinement: Confinement) -> Self {
        self.confinement = Some(confinement);
        self
    }

    /// The same decision naming the rule that decided.
    pub fn with_rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(rule.into());
        self
    }

    /// The same decision with the gate's own record.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// The same decision with another message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// The `reason` of the blocked, declined and approval-required states:
    /// the `reason` object of [`details`](Self::details) when the gate put
    /// one there (tool-approval does: `{level, rule, message}`), else
    /// `{message, rule}`.
    pub(crate) fn reason(&self) -> Value {
        match self.details.get("reason") {
            Some(reason) if reason.is_object() => reason.clone(),
            _ => json!({ "message": self.message, "rule": self.rule }),
        }
    }
}

/// The approval step of the pipeline: a [`Gate`] decides every prepared
/// call (run, ask, block), an [`Asker`] puts the asks to a person, and the
/// [`Invoker`](crate::Invoker) built with them returns exactly one output
/// per call, ready blocked and declined outputs included.
///
/// # The flow of a batch through a gated invoker
///
/// 1. Every call is prepared (name, arguments, schema, time budget); a call
///    the pipeline refuses gets its refusal and is never shown to the gate.
/// 2. The gate decides the prepared calls in one go
///    ([`Gate::decide`]): one [`GateDecision`] per call, in order. A
///    missing decision counts as a block (a gate that loses a call never
///    lets it run).
/// 3. The `ask`s of the batch go to the asker together ([`Asker::ask`]),
///    bounded by the context's deadline. Without an asker an ask is not run
///    and gets [`ToolOutput::approval_required`]; a missing or late answer
///    counts as a decline.
/// 4. An approval with `remember` is reported back to the gate
///    ([`Gate::remember`]) before anything runs, so the gate can record its
///    "always".
/// 5. Calls that run, run concurrently, each with its
///    [`Confinement`](crate::Confinement) in its context
///    (`ctx.extension::<Confinement>()`): the decision's, or the one the
///    person's answer gave. The batch deadline is the latest deadline of the
///    calls that run, counted from when they start.
/// 6. Blocked calls get [`ToolOutput::blocked`], declined ones
///    [`ToolOutput::declined`]; outputs come back in input order.
///
/// # Widening
///
/// Only a person's answer can widen a confinement: an
/// [`Answer::approve`] may carry another confinement
/// ([`Answer::with_confinement`]), and the call runs under it. A gate's
/// `run` is never widened by the invoker.
///
/// # The wrong way and the right way
///
/// The wrong way: every host writing prepare → evaluate → run itself, and
/// each forgetting a case (a declined call with no output, a batch that
/// loses its shared deadline, a run without its confinement).
///
/// The right way: build the invoker with the gate and the asker once.
///
/// ```
/// use std::sync::Arc;
/// use async_trait::async_trait;
/// use tool_core::{Answer, ApiDefinition, Ask, Asker, Gate, GateDecision, Invoker, OfferedTools, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry, pipeline::PreparedCall};
///
/// /// Asks before every `delete`, blocks `format`, runs the rest.
/// struct ByName;
/// #[async_trait]
/// impl Gate for ByName {
///     async fn decide(&self, calls: &[PreparedCall], _: &OfferedTools, _: &ToolContext) -> Vec<GateDecision> {
///         calls.iter().map(|c| match c.api.as_str() {
///             "delete" => GateDecision::ask("deleting needs a yes"),
///             "format" => GateDecision::block("formatting is never allowed"),
///             _ => GateDecision::run(),
///         }).collect()
///     }
/// }
///
/// /// A person who says no.
/// struct No;
/// #[async_trait]
/// impl Asker for No {
///     async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
///         asks.iter().map(|_| Answer::decline()).collect()
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut registry = ToolRegistry::new();
/// let mut tool = ToolBuilder::new("disk");
/// for api in ["list", "delete", "format"] {
///     tool = tool.api(ApiDefinition::new(api, "A disk operation."), |_, _| async { Ok(ToolOutput::text("done")) });
/// }
/// registry.register(tool.build()?)?;
/// let ctx = ToolContext::new();
/// let offered = registry.offer(&ctx);
///
/// let invoker = Invoker::default().with_gate(Arc::new(ByName)).with_asker(Arc::new(No));
/// let calls = [ToolCall::new("disk____list", ""), ToolCall::new("disk____delete", ""), ToolCall::new("disk____format", "")];
/// let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
/// assert_eq!(outputs[0].content, "done");
/// assert_eq!(outputs[1].error_code().unwrap(), "declined_by_user");
/// assert_eq!(outputs[2].error_code().unwrap(), "blocked_by_security_privacy");
/// # Ok::<(), tool_core::Error>(())
/// # }).unwrap();
/// ```
///
/// # The contract
///
/// The wrong way: a gate that decides from the call's raw text (the
/// pipeline has already parsed and validated it: use
/// [`PreparedCall::arguments`]), or one that returns fewer decisions than
/// calls (the missing ones are blocked).
///
/// The right way: one decision per call, in order, each saying why; a
/// `run` for a tool that touches the host carries its
/// [`Confinement`]. tool-approval's `PolicyEngine` is the full
/// implementation.
#[async_trait]
pub trait Gate: Send + Sync {
    /// One decision per call of `calls`, in order. Calls of one batch come
    /// together so the gate can judge them as a whole.
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision>;

    /// A person approved `call` and asked to remember it ("always"). The
    /// gate may record it so that later calls like it run without asking.
    /// Does nothing by default.
    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        let _ = (call, decision);
    }

    /// Whether a remembered "always" may answer `decision`, and whether an
    /// "always" given to it may be kept. An ask that depends on what the
    /// session took in rather than on the call itself (the taint gate's
    /// trifecta and changed-definition rules) says no: a remembered answer
    /// never covers it, and "always" on it approves this call once. `true`
    /// by default.
    fn remembers(&self, decision: &GateDecision) -> bool {
        let _ = decision;
        true
    }

    /// A fingerprint of the policy this gate decides by (a digest of its
    /// rules and mode), recorded in the binding of every pending approval:
    /// a turn resumed after the policy changed is re-decided and fails
    /// closed (`approval_stale`, part `policy`). `None` by default: the
    /// host then supplies one ([`Durable::with_policy_fingerprint`](crate::durable::Durable::with_policy_fingerprint)),
    /// or policy changes go unnoticed by the binding.
    fn fingerprint(&self) -> Option<String> {
        None
    }
}

/// One ask put to a person: the call and the gate's decision (its message
/// says why, its confinement what an approval would run under).
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The call, parsed and validated.
    pub call: &'a PreparedCall,
    /// The gate's decision (action `ask`).
    pub decision: &'a GateDecision,
}

/// A person's answer to an [`Ask`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// Run it.
    Approve {
        /// Run under this instead of the decision's confinement (a person
        /// may widen; see the [`Gate`] flow).
        confinement: Option<Confinement>,
        /// Tell the gate to remember ("always").
        remember: bool,
    },
    /// Do not run it.
    Decline {
        /// Why, when the person said (shown to the model).
        reason: Option<String>,
    },
    /// Nobody can answer now; someone will, later and maybe elsewhere. A
    /// durable turn ([`Invoker::invoke_turn`](crate::Invoker::invoke_turn))
    /// keeps the call pending; a plain batch gives it
    /// [`ToolOutput::approval_required`].
    Later,
}

impl Answer {
    /// Yes, this once, under the decision's confinement.
    pub fn approve() -> Self {
        Self::Approve {
            confinement: None,
            remember: false,
        }
    }

    /// Yes, and remember it.
    pub fn approve_always() -> Self {
        Self::Approve {
            confinement: None,
            remember: true,
        }
    }

    /// No.
    pub fn decline() -> Self {
        Self::Decline { reason: None }
    }

    /// No, because `reason`.
    pub fn decline_because(reason: impl Into<String>) -> Self {
        Self::Decline {
            reason: Some(reason.into()),
        }
    }

    /// An approval that runs under `confinement`; no effect on a decline.
    pub fn with_confinement(mut self, confinement: Confinement) -> Self {
        if let Self::Approve { confinement: c, .. } = &mut self {
            *c = Some(confinement);
        }
        self
    }

    /// Whether this is an approval.
    pub fn is_approve(&self) -> bool {
        matches!(self, Self::Approve { .. })
    }

    /// Not now: keep the call pending (see [`Answer::Later`]).
    pub fn later() -> Self {
        Self::Later
    }
}

/// Puts asks to a person (a terminal prompt, a web page, an MCP client by
/// elicitation) and returns their answers.
///
/// The wrong way: blocking a runtime thread on a prompt, or answering fewer
/// asks than given (the missing ones count as declined).
///
/// The right way: one answer per ask, in order; the asks of one batch may be
/// shown together. The invoker bounds the wait by the context's deadline.
#[async_trait]
pub trait Asker: Send + Sync {
    /// One answer per ask, in order.
    async fn ask(&self, asks: &[Ask<'_>], ctx: &ToolContext) -> Vec<Answer>;

    /// A question a running tool puts to the user
    /// ([`ToolContext::elicit`]); `ctx` is the asking call's. Answers
    /// [`Elicited::Unsupported`] by default.
    async fn elicit(&self, question: &Elicitation, ctx: &ToolContext) -> Elicited {
        let _ = (question, ctx);
        Elicited::Unsupported
    }
}

/// An asker that approves everything (for tests and trusted local use).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

#[async_trait]
impl Asker for ApproveAll {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

/// An asker that declines everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAll;

#[async_trait]
impl Asker for DeclineAll {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::decline()).collect()
    }
}

impl ToolOutput {
    /// The output of a blocked call: content `Blocked by security/privacy.`,
    /// error code `blocked_by_security_privacy` with `message`, state
    /// `{"type": "blocked", "reason": reason}`.
    ///
    /// ```
    /// let out = tool_core::ToolOutput::blocked("never on prod", serde_json::json!({"rule": "r1"}));
    /// assert_eq!(out.content, "Blocked by security/privacy.");
    /// assert_eq!(out.state.unwrap()["type"], "blocked");
    /// ```
    pub fn blocked(message: impl Into<String>, reason: Value) -> Self {
        Self {
            content: BLOCKED_CONTENT.to_owned(),
            state: Some(json!({ "type": "blocked", "reason": reason.clone() })),
            success: false,
            error: Some(
                ToolError::new(ErrorCode::BLOCKED_BY_SECURITY_PRIVACY, message)
                    .with_details(json!({ "reason": reason })),
            ),
        }
    }

    /// The output of a call a person declined: error code
    /// `declined_by_user`, state `{"type": "declined", "reason": …}`; the
    /// person's reason, when given, follows the content.
    ///
    /// ```
    /// let out = tool_core::ToolOutput::declined(Some("not today"), serde_json::Value::Null);
    /// assert_eq!(out.error_code().unwrap(), "declined_by_user");
    /// assert!(out.content.ends_with("not today"));
    /// ```
    pub fn declined(reason: Option<&str>, decision: Value) -> Self {
        let content = match reason {
            Some(reason) if !reason.trim().is_empty() => {
                format!("{DECLINED_CONTENT} Their reason: {reason}")
            }
            _ => DECLINED_CONTENT.to_owned(),
        };
        Self {
            content: content.clone(),
            state: Some(json!({ "type": "declined", "reason": reason, "decision": decision })),
            success: false,
            error: Some(
                ToolError::new(ErrorCode::DECLINED_BY_USER, content)
                    .with_details(json!({ "reason": reason })),
            ),
        }
    }

    /// The output of an ask no one could answer (no asker, or none before
    /// the deadline): error code `approval_required`, state `{"type":
    /// "approval_required", "reason": …}`.
    pub fn approval_required(why: impl Into<String>, decision: Value) -> Self {
        let why = why.into();
        Self {
            content: format!("{APPROVAL_REQUIRED_CONTENT} ({why})"),
            state: Some(
                json!({ "type": "approval_required", "reason": why, "decision": decision }),
            ),
            success: false,
            error: Some(ToolError::new(ErrorCode::APPROVAL_REQUIRED, why)),
        }
    }
}

/// What the invoker does with one prepared call once the gate and the
/// asker have spoken.
pub(crate) enum Verdict {
    Run(Option<Confinement>),
    Done(ToolOutput),
    /// Nobody answered now (no asker, or [`Answer::Later`]), and the caller
    /// keeps such calls pending.
    Defer(GateDecision),
}

/// Decides a batch: the gate, then the asker for the asks. One verdict per
/// call, in order.
/// With `defer`, an ask nobody answers now becomes [`Verdict::Defer`].
pub(crate) async fn judge(
    gate: &dyn Gate,
    asker: Option<&dyn Asker>,
    calls: &[PreparedCall],
    offered: &OfferedTools,
    ctx: &ToolContext,
    defer: bool,
) -> Vec<Verdict> {
    if calls.is_empty() {
        return Vec::new();
    }
    let mut decisions = gate.decide(calls, offered, ctx).await;
    decisions.truncate(calls.len());
    while decisions.len() < calls.len() {
        decisions.push(GateDecision::block(
            "the approval gate gave no decision for this call",
        ));
    }
    let asks: Vec<Ask<'_>> = calls
        .iter()
        .zip(&decisions)
        .filter(|(_, d)| d.action == GateAction::Ask)
        .map(|(call, decision)| Ask { call, decision })
        .collect();
    let mut answers: std::vec::IntoIter<Option<Answer>> = match (asks.is_empty(), asker) {
        (true, _) | (false, None) => Vec::new().into_iter(),
        (false, Some(asker)) => {
            let asked = asker.ask(&asks, ctx);
            let answered = match ctx.deadline() {
                Some(deadline) => tokio::time::timeout_at(deadline, asked).await.ok(),
                None => Some(asked.await),
            };
            let mut answers: Vec<Option<Answer>> =
                answered.unwrap_or_default().into_iter().map(Some).collect();
            answers.resize(asks.len(), None);
            answers.into_iter()
        }
    };
    let mut verdicts = Vec::with_capacity(calls.len());
    for (call, decision) in calls.iter().zip(&decisions) {
        let verdict = match decision.action {
            GateAction::Run => Verdict::Run(decision.confinement.clone()),
            GateAction::Block => Verdict::Done(ToolOutput::blocked(
                decision.message.clone(),
                decision.reason(),
            )),
            GateAction::Ask => match (asker, answers.next().flatten()) {
                (None, _) | (Some(_), Some(Answer::Later)) if defer => {
                    Verdict::Defer(decision.clone())
                }
                (Some(_), Some(Answer::Later)) => Verdict::Done(ToolOutput::approval_required(
                    format!("{}; the person will answer later", decision.message),
                    decision.reason(),
                )),
                (None, _) => Verdict::Done(ToolOutput::approval_required(
                    format!("{}; the host has no one to ask", decision.message),
                    decision.reason(),
                )),
                (
                    Some(_),
                    Some(Answer::Approve {
                        confinement,
                        remember,
                    }),
                ) => {
                    if remember {
                        gate.remember(call, decision);
                    }
                    Verdict::Run(confinement.or_else(|| decision.confinement.clone()))
                }
                (Some(_), Some(Answer::Decline { reason })) => {
                    Verdict::Done(ToolOutput::declined(reason.as_deref(), decision.reason()))
                }
                (Some(_), None) => Verdict::Done(ToolOutput::declined(
                    Some("no answer came before the deadline"),
                    decision.reason(),
                )),
            },
        };
        verdicts.push(verdict);
    }
    verdicts
}
