//! The pipeline's durable side: a batch that returns a pending turn
//! instead of waiting, and the resume of such a turn in any process.

use std::borrow::Cow;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::confine::Confinement;
use crate::context::ToolContext;
use crate::durable::input::{InputRequest, InputResponse};
use crate::durable::ledger::{Claim, UseState, from_unix_ms, unix_ms};
use crate::durable::mac::{digest, digest_is};
use crate::durable::pending::{
    Asked, Binding, BindingPart, DecisionRecord, Intervention, NO_SCOPE, PENDING_VERSION, Pending,
    PendingItem, Reply, Scope,
};
use crate::durable::settings::Durable;
use crate::durable::turn::{RefusedAnswer, Turn};
use crate::error::Error;
use crate::gate::{GateAction, GateDecision, Verdict, judge};
use crate::invoke::{Invoker, ToolCall, batch_context, cap_content, mint_call_id};
use crate::offered::OfferedTools;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::prepared::PreparedCall;

/// The host's scope of `ctx` (empty when it set none).
fn scope_of(ctx: &ToolContext) -> &Scope {
    ctx.extension::<Scope>().unwrap_or(&NO_SCOPE)
}

/// The digest of the offered manifest of `identifier`, made once per
/// offered snapshot.
fn manifest_fingerprint<'a>(offered: &'a OfferedTools, identifier: &str) -> Option<&'a str> {
    let tool = offered.get(identifier)?;
    Some(tool.fingerprint_with(|manifest| {
        serde_json::to_value(manifest)
            .map(|value| digest(&value))
            .unwrap_or_default()
    }))
}

/// One call to run in a step: where its output goes, what it runs under,
/// and (for a resumed tool) the answers it gets.
struct ToRun {
    index: usize,
    call: PreparedCall,
    confinement: Option<Confinement>,
    decision: DecisionRecord,
    input: Option<InputResponse>,
}

/// What building a turn needs besides the items.
struct Frame<'a> {
    offered: &'a OfferedTools,
    scope: &'a Scope,
    policy: Cow<'a, str>,
    expires_at_ms: u64,
}

impl Frame<'_> {
    /// The binding of `call`; `arguments_digest` when already made.
    fn binding(&self, call: &PreparedCall, arguments_digest: Option<String>) -> Binding {
        Binding {
            tool: call.identifier.clone(),
            api: call.api.clone(),
            arguments_digest: arguments_digest.unwrap_or_else(|| digest(&call.arguments)),
            manifest_fingerprint: manifest_fingerprint(self.offered, &call.identifier)
                .unwrap_or_default()
                .to_owned(),
            policy_fingerprint: self.policy.clone().into_owned(),
            scope: self.scope.clone(),
            expires_at_ms: self.expires_at_ms,
        }
    }

    fn item(
        &self,
        index: usize,
        raw: &ToolCall,
        call: &PreparedCall,
        decision: DecisionRecord,
        asked: Asked,
        arguments_digest: Option<String>,
    ) -> PendingItem {
        PendingItem {
            index,
            call: raw.clone(),
            decision,
            asked,
            binding: self.binding(call, arguments_digest),
            mac: String::new(),
        }
    }
}

impl Invoker {
    /// A batch that never waits for a person: the calls that may run, run;
    /// blocked and refused calls get their outputs; a call the gate asks
    /// about — when there is no asker, or the asker answers
    /// [`Answer::Later`](crate::Answer::Later) — and a tool that answers
    /// [`input_required`](ToolOutput::input_required) become items of the
    /// returned [`Turn`]'s [`Pending`], bound and MAC'd with `durable`'s
    /// keys. Store it; [`resume`](Self::resume) it anywhere.
    ///
    /// An ask covered by a remembered "always" in the context's scope
    /// ([`Durable::with_remembered`]) runs under the decision's confinement
    /// instead of waiting.
    pub async fn invoke_turn(
        &self,
        durable: &Durable,
        offered: &OfferedTools,
        calls: &[ToolCall],
        ctx: &ToolContext,
    ) -> Turn {
        let calls: Vec<ToolCall> = calls
            .iter()
            .map(|call| {
                let mut call = call.clone();
                call.ensure_id();
                call
            })
            .collect();
        let frame = Frame {
            offered,
            scope: scope_of(ctx),
            policy: durable.policy_fingerprint(self.gate()),
            expires_at_ms: unix_ms(SystemTime::now() + durable.ttl()),
        };
        let mut outputs: Vec<Option<ToolOutput>> = vec![None; calls.len()];
        // The prepared calls and their positions, side by side (the gate
        // reads the calls; they move on to run without a copy).
        let mut ready: Vec<usize> = Vec::with_capacity(calls.len());
        let mut prepared: Vec<PreparedCall> = Vec::with_capacity(calls.len());
        for (index, call) in calls.iter().enumerate() {
            match self.prepare(offered, call) {
                Ok(call) => {
                    ready.push(index);
                    prepared.push(call);
                }
                Err(refused) => {
                    outputs[index] = Some(cap_content(refused, self.config().max_content_chars))
                }
            }
        }
        let verdicts: Vec<(Verdict, DecisionRecord)> = match self.gate() {
            Some(gate) => {
                let asker = self.asker().map(|a| a.as_ref());
                let decisions = judge(gate.as_ref(), asker, &prepared, offered, ctx, true).await;
                decisions
                    .into_iter()
                    .map(|v| {
                        let record = match &v {
                            Verdict::Defer(d) => DecisionRecord::of(d),
                            Verdict::Run(c) => DecisionRecord::of(&run_decision(c.clone())),
                            Verdict::Done(_) => DecisionRecord::of(&GateDecision::block("settled")),
                        };
                        (v, record)
                    })
                    .collect()
            }
            None => prepared
                .iter()
                .map(|_| (Verdict::Run(None), DecisionRecord::of(&GateDecision::run())))
                .collect(),
        };
        let mut items = Vec::new();
        let mut interventions = vec![None; calls.len()];
        let mut to_run = Vec::new();
        for ((index, call), (verdict, record)) in ready.into_iter().zip(prepared).zip(verdicts) {
            match verdict {
                Verdict::Done(output) => {
                    outputs[index] = Some(cap_content(output, self.config().max_content_chars))
                }
                Verdict::Run(confinement) => to_run.push(ToRun {
                    index,
                    call,
                    confinement,
                    decision: record,
                    input: None,
                }),
                Verdict::Defer(decision) => {
                    let args = digest(&call.arguments);
                    let rememberable = self.gate().is_none_or(|g| g.remembers(&decision));
                    let remembered = rememberable
                        .then(|| {
                            durable.remembered().find(
                                &call.identifier,
                                &call.api,
                                &args,
                                frame.scope,
                            )
                        })
                        .flatten();
                    if remembered.is_some() {
                        to_run.push(ToRun {
                            index,
                            confinement: decision.confinement.clone(),
                            call,
                            decision: record,
                            input: None,
                        });
                        interventions[index] = Some(Intervention::approved());
                    } else {
                        items.push(frame.item(
                            index,
                            &calls[index],
                            &call,
                            record,
                            Asked::Approval,
                            Some(args),
                        ));
                        interventions[index] = Some(Intervention::pending());
                    }
                }
            }
        }
        if !to_run.is_empty() {
            // Not boxed: the step's future is over a kilobyte, and a
            // kilobyte-sized allocation costs more (the allocator merges
            // its free lists) than carrying it.
            self.run_step(
                &frame,
                &calls,
                to_run,
                &mut outputs,
                &mut items,
                &mut interventions,
                ctx,
            )
            .await;
        }
        let pending = (!items.is_empty()).then(|| {
            let created = unix_ms(SystemTime::now());
            let mut pending = Pending {
                version: PENDING_VERSION,
                id: mint_call_id().replacen("call_", "pend_", 1),
                key_id: String::new(),
                created_at_ms: created,
                expires_at_ms: frame.expires_at_ms,
                scope: frame.scope.clone(),
                calls: calls.clone(),
                outputs: outputs.clone(),
                items,
                mac: String::new(),
            };
            pending.sign(durable.keys());
            pending
        });
        Turn {
            calls,
            outputs,
            pending,
            interventions,
            refused: Vec::new(),
        }
    }

    /// Runs `to_run` concurrently; an `input_required` output becomes an
    /// item instead of an output.
    #[allow(clippy::too_many_arguments)]
    async fn run_step(
        &self,
        frame: &Frame<'_>,
        calls: &[ToolCall],
        to_run: Vec<ToRun>,
        outputs: &mut [Option<ToolOutput>],
        items: &mut Vec<PendingItem>,
        interventions: &mut [Option<Intervention>],
        ctx: &ToolContext,
    ) {
        let batch_ctx = &batch_context(ctx, to_run.iter().map(|r| &r.call));
        // The call moves into the run (no copy): the rare tool that asks
        // questions has its call prepared again from the raw one for the
        // item's binding.
        let one = |run: ToRun| async move {
            let ToRun {
                index,
                call,
                confinement,
                decision,
                input,
            } = run;
            let output = if confinement.is_none() && input.is_none() {
                self.execute(call, batch_ctx).await
            } else {
                let mut ctx = batch_ctx.clone();
                if let Some(confinement) = confinement {
                    ctx = ctx.with_extension(confinement);
                }
                if let Some(input) = input {
                    ctx = ctx.with_extension(input);
                }
                self.execute(call, &ctx).await
            };
            (index, decision, output)
        };
        let ran = if to_run.len() == 1 {
            let mut ran = Vec::with_capacity(1);
            for run in to_run {
                ran.push(one(run).await);
            }
            ran
        } else {
            futures::future::join_all(to_run.into_iter().map(one)).await
        };
        for (index, decision, output) in ran {
            let request = InputRequest::from_output(&output);
            let raw = calls.get(index);
            let call = match (&request, raw) {
                (Some(_), Some(raw)) => self.prepare(frame.offered, raw).ok(),
                _ => None,
            };
            match (request, raw, call) {
                (Some(request), Some(raw), Some(call)) => {
                    let asked = Asked::Input {
                        questions: request.questions,
                        state: request.state,
                    };
                    items.push(frame.item(index, raw, &call, decision, asked, None));
                    interventions[index] = Some(Intervention::pending());
                }
                _ => outputs[index] = Some(output),
            }
        }
    }

    /// Resumes a stored turn with the host's signed answers
    /// ([`Pending::answer`]), in any process holding the same tools, gate
    /// and `durable` keys and ledger.
    ///
    /// 1. The turn's MAC (one over the whole turn, every item in full) must
    ///    verify, and each item's call be the batch's call at its index, or
    ///    the whole turn is refused ([`Error::PendingRefused`]).
    /// 2. Each answer must verify and name an item of this turn (its call
    ///    and its item id); others are [refused](Turn::refused) and settle
    ///    nothing. Items without an answer stay pending.
    /// 3. Each answered item's binding is re-computed here: expiry, scope,
    ///    tool, manifest, arguments (re-prepared from the raw call), policy.
    ///    The gate re-decides every answered approval. Anything no longer
    ///    bound fails closed with `approval_stale` naming the part (a gate
    ///    that now blocks gives the blocked output).
    /// 4. The item is claimed in the use-once ledger; a call already
    ///    claimed gets `approval_used` (or `approval_interrupted` when its
    ///    claimer never started it), an unreachable ledger
    ///    `approval_ledger_unavailable`.
    /// 5. Approvals run under the decision's confinement, or the one the
    ///    reply gave (only a person widens); the call is marked started in
    ///    the ledger just before. Declines get the declined output; a
    ///    tool's answers go to the tool with its state.
    pub async fn resume(
        &self,
        durable: &Durable,
        offered: &OfferedTools,
        pending: Pending,
        answers: &[crate::durable::Resolution],
        ctx: &ToolContext,
    ) -> Result<Turn, Error> {
        let mut pending = pending;
        pending.normalize();
        pending.verify(durable.keys())?;
        let mut refused = Vec::new();
        // The reply for each item, by the item's position.
        let mut replies: Vec<Option<Reply>> = vec![None; pending.items.len()];
        for answer in answers {
            let reason = if let Err(m) = answer.verify(durable.keys()) {
                Some(format!("the answer's MAC: {m}"))
            } else if answer.pending_id != pending.id {
                Some(format!(
                    "the answer is for another turn (`{}`)",
                    answer.pending_id
                ))
            } else {
                match pending
                    .items
                    .iter()
                    .position(|i| i.call_id() == answer.call_id && i.mac == answer.item_mac)
                {
                    None => Some("the answer names no waiting item of this turn (another call, or an item settled before)".to_owned()),
                    Some(pos) if replies[pos].is_some() => Some("a second answer for the same call".to_owned()),
                    Some(pos) => {
                        let fits = matches!(
                            (&pending.items[pos].asked, &answer.reply),
                            (Asked::Approval, Reply::Approve { .. } | Reply::Decline { .. })
                                | (Asked::Input { .. }, Reply::Input { .. })
                        );
                        if fits {
                            replies[pos] = Some(answer.reply.clone());
                            None
                        } else {
                            Some("the reply does not fit what the item asks (an approval for questions, or answers for an approval)".to_owned())
                        }
                    }
                }
            };
            if let Some(reason) = reason {
                refused.push(RefusedAnswer {
                    call_id: answer.call_id.clone(),
                    reason,
                });
            }
        }

        let frame = Frame {
            offered,
            scope: scope_of(ctx),
            policy: durable.policy_fingerprint(self.gate()),
            expires_at_ms: pending.expires_at_ms,
        };
        let now = unix_ms(SystemTime::now());
        let mut outputs = std::mem::take(&mut pending.outputs);
        let mut interventions: Vec<Option<Intervention>> = vec![None; pending.calls.len()];
        let mut remaining = Vec::new();
        // Each answered item: bound (re-prepared) or stale (which part).
        let mut answered: Vec<(PendingItem, Reply, Checked)> = Vec::with_capacity(answers.len());
        for (item, reply) in std::mem::take(&mut pending.items).into_iter().zip(replies) {
            let Some(reply) = reply else {
                interventions[item.index] = Some(Intervention::pending());
                remaining.push(item);
                continue;
            };
            let checked = self.check_binding(&frame, &item, now);
            answered.push((item, reply, checked));
        }

        // The gate re-decides every answered approval it can re-prepare
        // (the calls lent to it and taken back, not copied).
        let mut redecided: Vec<Option<GateDecision>> = Vec::new();
        if let Some(gate) = self.gate() {
            let mut lent: Vec<(usize, Option<BindingPart>)> = Vec::with_capacity(answered.len());
            let mut calls: Vec<PreparedCall> = Vec::with_capacity(answered.len());
            for (i, (item, _, checked)) in answered.iter_mut().enumerate() {
                if !matches!(item.asked, Asked::Approval) {
                    continue;
                }
                match std::mem::replace(checked, Checked::Stale(BindingPart::Tool, None)) {
                    Checked::Bound(call) => {
                        lent.push((i, None));
                        calls.push(*call);
                    }
                    Checked::Stale(part, Some(call)) => {
                        lent.push((i, Some(part)));
                        calls.push(*call);
                    }
                    unpreparable => *checked = unpreparable,
                }
            }
            if !calls.is_empty() {
                let mut decisions = gate.decide(&calls, offered, ctx).await;
                decisions.resize_with(calls.len(), || {
                    GateDecision::block("the approval gate gave no decision for this call")
                });
                redecided.resize_with(answered.len(), || None);
                for (((i, part), call), decision) in lent.into_iter().zip(calls).zip(decisions) {
                    if let Some((_, _, checked)) = answered.get_mut(i) {
                        *checked = match part {
                            None => Checked::Bound(Box::new(call)),
                            Some(part) => Checked::Stale(part, Some(Box::new(call))),
                        };
                    }
                    redecided[i] = Some(decision);
                }
            }
        }

        let mut to_run = Vec::with_capacity(answered.len());
        for (i, (item, reply, checked)) in answered.into_iter().enumerate() {
            let index = item.index;
            let decision = redecided.get(i).and_then(Option::as_ref);
            // What this answer settles to, before the ledger has its say:
            // the call to run (with its confinement and the tool's
            // answers), or the output.
            type Settled =
                Result<(PreparedCall, Option<Confinement>, Option<InputResponse>), ToolOutput>;
            let settled: Settled = match (checked, decision) {
                (Checked::Stale(part, _), decision) => Err(stale_output(&item, part, decision)),
                (Checked::Bound(_), Some(d)) if d.action == GateAction::Block => {
                    Err(ToolOutput::blocked(d.message.clone(), d.reason()))
                }
                (Checked::Bound(_), Some(d))
                    if d.action == GateAction::Ask && d.rule != item.decision.rule =>
                {
                    Err(stale_output(&item, BindingPart::Decision, Some(d)))
                }
                (Checked::Bound(call), _) => match &reply {
                    Reply::Approve { confinement, .. } => Ok((
                        *call,
                        confinement
                            .clone()
                            .or_else(|| item.decision.confinement.clone()),
                        None,
                    )),
                    Reply::Decline { reason } => Err(ToolOutput::declined(
                        reason.as_deref(),
                        item.decision.reason.clone(),
                    )),
                    Reply::Input { action, content } => {
                        let state = match &item.asked {
                            Asked::Input { state, .. } => state.clone(),
                            Asked::Approval => Value::Null,
                        };
                        Ok((
                            *call,
                            item.decision.confinement.clone(),
                            Some(InputResponse {
                                action: *action,
                                content: content.clone(),
                                state,
                            }),
                        ))
                    }
                },
            };
            let key = item.ledger_key(&pending.id);
            let key = key.as_str();
            let claim = durable
                .ledger()
                .claim(key, from_unix_ms(item.binding.expires_at_ms))
                .await;
            let outcome: Result<ToRun, ToolOutput> = match claim {
                Err(error) => Err(ledger_output(&error)),
                Ok(Claim::Taken(state)) => Err(used_output(state)),
                Ok(Claim::First) => match settled {
                    Err(output) => {
                        let _ = durable.ledger().mark_started(key).await;
                        Err(output)
                    }
                    Ok((call, confinement, input)) => {
                        if matches!(reply, Reply::Approve { always: true, .. }) {
                            // The approval still holds once; a missing
                            // "always" is said, not dropped.
                            let kept = match (self.gate(), decision) {
                                (Some(gate), Some(d)) if !gate.remembers(d) => Err(format!(
                                    "the gate does not keep answers to its rule `{}`",
                                    d.rule.as_deref().unwrap_or("-")
                                )),
                                _ => Ok(()),
                            };
                            let recorded = kept.and_then(|()| {
                                durable
                                    .always_rule(&item)
                                    .and_then(|rule| durable.remembered().add(rule))
                                    .map_err(|e| e.to_string())
                            });
                            if let Err(e) = recorded {
                                refused.push(RefusedAnswer {
                                    call_id: item.call_id().to_owned(),
                                    reason: format!(
                                        "approved once; \"always\" was not recorded: {e}"
                                    ),
                                });
                            }
                        }
                        match durable.ledger().mark_started(key).await {
                            Ok(()) => Ok(ToRun {
                                index,
                                call,
                                confinement,
                                decision: item.decision,
                                input,
                            }),
                            Err(error) => Err(ledger_output(&error)),
                        }
                    }
                },
            };
            match outcome {
                Ok(run) => {
                    interventions[index] = Some(Intervention::approved());
                    to_run.push(run);
                }
                Err(output) => {
                    interventions[index] = Some(match output.error_code() {
                        Some(code) if *code == ErrorCode::DECLINED_BY_USER => {
                            let reason = match reply {
                                Reply::Decline { reason } => reason,
                                _ => None,
                            };
                            Intervention::rejected(reason)
                        }
                        _ => Intervention::rejected(Some(output.content.clone())),
                    });
                    outputs[index] = Some(cap_content(output, self.config().max_content_chars));
                }
            }
        }
        let calls = std::mem::take(&mut pending.calls);
        if !to_run.is_empty() {
            self.run_step(
                &frame,
                &calls,
                to_run,
                &mut outputs,
                &mut remaining,
                &mut interventions,
                ctx,
            )
            .await;
        }
        let next = (!remaining.is_empty()).then(|| {
            let mut next = Pending {
                calls: calls.clone(),
                outputs: outputs.clone(),
                items: remaining,
                mac: String::new(),
                ..pending
            };
            next.sign(durable.keys());
            next
        });
        Ok(Turn {
            calls,
            outputs,
            pending: next,
            interventions,
            refused,
        })
    }

    /// Re-computes `item`'s binding here: the re-prepared call when every
    /// part holds, else the first part that does not (with the call when it
    /// could still be prepared, for the gate to re-decide).
    fn check_binding(&self, frame: &Frame<'_>, item: &PendingItem, now_ms: u64) -> Checked {
        let binding = &item.binding;
        if now_ms > binding.expires_at_ms {
            return Checked::Stale(BindingPart::Expiry, None);
        }
        if *frame.scope != binding.scope {
            return Checked::Stale(BindingPart::Scope, None);
        }
        let Some(manifest) = manifest_fingerprint(frame.offered, &binding.tool) else {
            return Checked::Stale(BindingPart::Tool, None);
        };
        let call = match self.prepare(frame.offered, &item.call) {
            Ok(call) if call.identifier == binding.tool && call.api == binding.api => call,
            Ok(_) => return Checked::Stale(BindingPart::Tool, None),
            Err(_) if manifest != binding.manifest_fingerprint => {
                return Checked::Stale(BindingPart::Manifest, None);
            }
            Err(_) => return Checked::Stale(BindingPart::Arguments, None),
        };
        if manifest != binding.manifest_fingerprint {
            return Checked::Stale(BindingPart::Manifest, Some(Box::new(call)));
        }
        if !digest_is(&call.arguments, &binding.arguments_digest) {
            return Checked::Stale(BindingPart::Arguments, Some(Box::new(call)));
        }
        if frame.policy != binding.policy_fingerprint {
            return Checked::Stale(BindingPart::Policy, Some(Box::new(call)));
        }
        Checked::Bound(Box::new(call))
    }
}

/// An answered item's binding, re-computed: bound (the re-prepared call),
/// or stale in one part (with the call when it could still be prepared).
enum Checked {
    Bound(Box<PreparedCall>),
    Stale(BindingPart, Option<Box<PreparedCall>>),
}

fn run_decision(confinement: Option<Confinement>) -> GateDecision {
    match confinement {
        Some(c) => GateDecision::run().with_confinement(c),
        None => GateDecision::run(),
    }
}

fn stale_output(
    item: &PendingItem,
    part: BindingPart,
    redecided: Option<&GateDecision>,
) -> ToolOutput {
    let what = match part {
        BindingPart::Tool => "the tool or API is no longer offered",
        BindingPart::Arguments => "the arguments no longer match what was approved",
        BindingPart::Manifest => "the tool's definition changed since it was asked",
        BindingPart::Policy => "the approval policy changed since it was asked",
        BindingPart::Scope => "it is resumed in another conversation, session or workspace",
        BindingPart::Expiry => "the approval expired",
        BindingPart::Decision => "the gate now asks a different question about it",
    };
    let message = format!(
        "The approval of `{}` no longer holds ({what}); the call did not run. Call it again to be asked anew.",
        item.call.name
    );
    let redecided =
        redecided.map(|d| json!({ "action": d.action, "message": d.message, "rule": d.rule }));
    ToolOutput {
        content: message.clone(),
        state: Some(json!({ "type": "approval_stale", "part": part, "redecided": redecided })),
        success: false,
        error: Some(
            ToolError::new(ErrorCode::APPROVAL_STALE, message)
                .with_details(json!({ "part": part, "redecided": redecided })),
        ),
    }
}

fn used_output(state: UseState) -> ToolOutput {
    let (code, message) = match state {
        UseState::Started => (
            ErrorCode::APPROVAL_USED,
            "This approval was already used: the call ran (or was settled) once and does not run again.",
        ),
        UseState::Claimed => (
            ErrorCode::APPROVAL_INTERRUPTED,
            "This approval was claimed by another resume that has not recorded the call as started (it is starting it, or it stopped in between); the call is not run here.",
        ),
    };
    ToolOutput::failure(ToolError::new(code, message))
}

fn ledger_output(error: &Error) -> ToolOutput {
    ToolOutput::failure(ToolError::new(
        ErrorCode::APPROVAL_LEDGER_UNAVAILABLE,
        format!("The approval could not be recorded as used ({error}); the call did not run."),
    ))
}
