//! Durable approvals: a turn survives the process.
//!
//! An [`Asker`](crate::Asker) answers while the call waits, in the same
//! process: right for a terminal. A chat server, a queue worker or a bot
//! cannot hold a request open for a person who answers an hour later,
//! maybe on another instance. For them, what the gate could not settle is
//! data:
//!
//! 1. [`Invoker::invoke_turn`](crate::Invoker::invoke_turn) runs what may
//!    run and returns a [`Turn`]: the outputs so far and a [`Pending`] for
//!    the calls that wait for a person (or for answers to a tool's
//!    questions, [`InputRequest`]). Each [`PendingItem`] is bound
//!    ([`Binding`]: tool, API, canonical-arguments digest, manifest and
//!    policy fingerprints, the host's [`Scope`], expiry) and MAC'd with the
//!    host's key ([`KeyRing`]). The host stores the pending JSON next to
//!    the message and shows each item ([`Pending::interventions`] gives
//!    LobeHub's `{status, rejectedReason}`).
//! 2. Where the person answers, the host turns the click into a signed
//!    [`Resolution`] ([`Pending::answer`]), bound to that one item.
//! 3. Any process holding the same tools, gate, keys and ledger calls
//!    [`Invoker::resume`](crate::Invoker::resume): approved calls run once
//!    (the [`UseOnceLedger`] is claimed as each starts), declines get their
//!    declined output, and anything whose binding changed fails closed
//!    with `approval_stale` naming the [`BindingPart`].
//! 4. Once [`Turn::is_settled`], [`Turn::tool_results`] builds what goes
//!    back to the model: every result of the batch, in order.
//!
//! What the MACs stop: a forged or altered turn (an argument, the tool's
//! state, the decision) is refused as a whole; an answer made without the
//! key (a client approving its own call in the history it sends), or made
//! for another call or turn, settles nothing; a replayed answer finds the
//! item used. What they do not stop: a person with access to the host's
//! answer endpoint — authenticate it.
//!
//! # Store, restart, resume
//!
//! ```
//! use std::sync::Arc;
//! use async_trait::async_trait;
//! use tool_core::durable::{Durable, KeyRing, MacKey, Pending, Reply, Scope};
//! use tool_core::{ApiDefinition, Gate, GateDecision, Invoker, OfferedTools, ProviderFormat, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry, pipeline::PreparedCall};
//!
//! /// Asks before `delete`, runs the rest.
//! struct AskDeletes;
//! #[async_trait]
//! impl Gate for AskDeletes {
//!     async fn decide(&self, calls: &[PreparedCall], _: &OfferedTools, _: &ToolContext) -> Vec<GateDecision> {
//!         calls.iter().map(|c| if c.api == "delete" { GateDecision::ask("deleting needs a yes") } else { GateDecision::run() }).collect()
//!     }
//! }
//!
//! fn host() -> Result<(OfferedTools, Invoker, Durable, ToolContext), tool_core::Error> {
//!     let mut registry = ToolRegistry::new();
//!     let mut tool = ToolBuilder::new("disk");
//!     for api in ["list", "delete"] {
//!         tool = tool.api(ApiDefinition::new(api, "A disk operation."), move |_, _| async move { Ok(ToolOutput::text(format!("{api}: done"))) });
//!     }
//!     registry.register(tool.build()?)?;
//!     // The key comes from the host's secret store; the same in every process.
//!     let keys = KeyRing::new(MacKey::new("2026-12", *b"a 32-byte secret from the vault!")?);
//!     let ctx = ToolContext::new().with_extension(Scope::new().with(Scope::CONVERSATION, "c-42"));
//!     let offered = registry.offer(&ctx);
//!     // No asker: what needs a person waits as data.
//!     Ok((offered, Invoker::default().with_gate(Arc::new(AskDeletes)), Durable::new(keys), ctx))
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // Process 1: the model's batch; `list` runs, `delete` waits.
//! let (offered, invoker, durable, ctx) = host()?;
//! let calls = [ToolCall::new("disk____list", "{}").with_id("c1"), ToolCall::new("disk____delete", "{}").with_id("c2")];
//! let turn = invoker.invoke_turn(&durable, &offered, &calls, &ctx).await;
//! assert_eq!(turn.outputs[0].as_ref().unwrap().content, "list: done");
//! assert!(turn.outputs[1].is_none());
//! let stored: String = serde_json::to_string(&turn.pending.unwrap()).unwrap(); // into the database
//!
//! // Later, anywhere: the person approves on a page; the host signs the answer.
//! let (offered, invoker, durable, ctx) = host()?;
//! let pending = Pending::from_json(&stored)?;
//! let answer = pending.answer("c2", Reply::approve(), durable.keys())?;
//! let resumed = invoker.resume(&durable, &offered, pending.clone(), &[answer.clone()], &ctx).await?;
//! assert!(resumed.is_settled());
//! let messages = resumed.tool_results(ProviderFormat::OpenAiChat)?; // both results, in order
//! assert_eq!(messages[1]["content"], "delete: done");
//!
//! // The same answer again: used once already.
//! let replay = invoker.resume(&durable, &offered, pending, &[answer], &ctx).await?;
//! assert_eq!(replay.outputs[1].as_ref().unwrap().error_code().unwrap(), "approval_used");
//! # Ok::<(), tool_core::Error>(())
//! # }).unwrap();
//! ```
//!
//! # Keys
//!
//! HMAC-SHA-256 with keys of at least 32 bytes the host keeps; see
//! [`KeyRing`] for rotation.

mod encode;
mod input;
mod ledger;
mod mac;
mod pending;
mod remember;
mod run;
mod settings;
mod turn;

pub use input::{INPUT_REQUIRED_CONTENT, InputRequest, InputResponse};
pub use ledger::{Claim, MemoryLedger, UseOnceLedger, UseState};
pub use mac::{KeyRing, MIN_SECRET_LEN, MacKey, canonical_json, digest};
pub use pending::{
    Asked, Binding, BindingPart, DecisionRecord, InputAction, Intervention, InterventionStatus,
    PENDING_VERSION, Pending, PendingItem, Reply, Resolution, Scope,
};
pub use remember::{RememberedAnswers, RememberedRule};
pub use settings::{DEFAULT_PENDING_TTL, Durable};
pub use turn::{RefusedAnswer, Turn};
