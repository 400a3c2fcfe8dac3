//! Decisions on record: every decision as a [`DecisionRecord`] written to
//! a host's [`RecordSink`] (a JSON Lines file, [`JsonLinesFile`], is
//! included), and read back for review and replay.
//!
//! A record names the call (tool, API, call id), a digest of its canonical
//! arguments, the decision (action, rule, level, policy, confinement), the
//! fingerprint of the policy that decided ([`PolicyEngine::fingerprint`](crate::PolicyEngine::fingerprint))
//! and the time. The argument **values** are kept only when the host opts
//! in ([`Keep::Arguments`]): they may hold personal data or secrets, and a
//! record file is kept longer than a trace. Replaying a record under
//! another policy (`toolhost replay`) needs the values; a digest-only
//! record can be matched against a call but not re-decided.
//!
//! Two ways to record:
//!
//! - wrap the pipeline's gate in a [`RecordingGate`]: every decision it
//!   makes is recorded, whatever the gate (the policy engine, a taint gate
//!   over it);
//! - or, where a host evaluates itself ([`PolicyEngine::evaluate_one`](crate::PolicyEngine::evaluate_one)),
//!   build the record with [`DecisionRecord::of`] and write it.
//!
//! ```
//! use std::sync::Arc;
//! use tool_approval::record::{DecisionRecord, Keep, MemorySink, RecordSink, RecordingGate};
//! use tool_approval::{CallRef, PolicyEngine};
//! use tool_core::ToolContext;
//!
//! let engine = PolicyEngine::default();
//! let args = serde_json::json!({"command": "ls"});
//! let call = CallRef::new("shell", "run", &args);
//! let decision = engine.evaluate_one(&call, &ToolContext::new());
//! let record = DecisionRecord::of(&call, Some("call_1"), &decision, engine.fingerprint(), Keep::Digest);
//! assert_eq!(record.arguments, None);
//! assert_eq!(record.arguments_digest.len(), 64);
//!
//! let sink = Arc::new(MemorySink::default());
//! sink.write(&record)?;
//! assert_eq!(sink.records()[0].call_id.as_deref(), Some("call_1"));
//!
//! // Or record every decision of the pipeline's gate.
//! let gate = RecordingGate::new(Arc::new(engine), sink.clone()).keep(Keep::Arguments);
//! # let _ = gate;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # The record (one JSON object per line)
//!
//! ```json
//! {"version": 1, "timeMs": 1765000000000, "callId": "call_1",
//!  "tool": "local-system", "api": "runCommand",
//!  "argumentsDigest": "<sha-256 of the canonical arguments, hex>",
//!  "arguments": {"command": "git status"},
//!  "action": "run", "rule": "rules[0] (command ~ \"git status:*\")",
//!  "level": "host_policy", "policy": "never",
//!  "confinement": {"mode": "workspace_write", "writable_roots": [], "network": false},
//!  "policyFingerprint": "<the engine's fingerprint>"}
//! ```
//!
//! `arguments` is present only with [`Keep::Arguments`]; `callId`, `rule`,
//! `level`, `policy` and `confinement` only when known.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{
    Confinement, Gate, GateAction, GateDecision, InterventionPolicy, OfferedTools, ToolContext,
    pipeline::PreparedCall,
};

use crate::call::CallRef;
use crate::decision::{Action, Decision, Level};

/// The version of the record shape written by this crate.
pub const RECORD_VERSION: u32 = 1;

/// What a record keeps of the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Keep {
    /// Only the digest of the canonical arguments (the default).
    #[default]
    Digest,
    /// The digest and the values (needed to replay the record).
    Arguments,
}

/// One decision on record (see the [module docs](self) for the shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DecisionRecord {
    /// The record shape's version ([`RECORD_VERSION`]).
    pub version: u32,
    /// When the decision was made, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The provider's call id, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The tool identifier.
    pub tool: String,
    /// The API name.
    pub api: String,
    /// SHA-256 of the canonical arguments, hex
    /// ([`tool_core::durable::digest`]).
    pub arguments_digest: String,
    /// The arguments, only when the host opted in ([`Keep::Arguments`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// What was decided.
    pub action: Action,
    /// The rule that decided, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The level that decided, when the gate is tool-approval's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The policy that applied, when the gate is tool-approval's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<InterventionPolicy>,
    /// What the call runs (or would run, once approved) under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<Confinement>,
    /// The fingerprint of the policy that decided (empty when the gate
    /// has none).
    pub policy_fingerprint: String,
}

impl DecisionRecord {
    /// The record of `decision`, made by an engine with `fingerprint`, for
    /// `call`.
    pub fn of(
        call: &CallRef<'_>,
        call_id: Option<&str>,
        decision: &Decision,
        fingerprint: &str,
        keep: Keep,
    ) -> Self {
        Self {
            version: RECORD_VERSION,
            time_ms: now_ms(),
            call_id: call_id.map(str::to_owned),
            tool: call.identifier.to_owned(),
            api: call.api.to_owned(),
            arguments_digest: tool_core::durable::digest(call.arguments),
            arguments: (keep == Keep::Arguments).then(|| call.arguments.clone()),
            action: decision.action,
            rule: decision.reason.rule.clone(),
            level: Some(decision.reason.level),
            policy: Some(decision.policy),
            confinement: decision.confinement.clone(),
            policy_fingerprint: fingerprint.to_owned(),
        }
    }

    /// The record of a gate's `decision` for a prepared `call`. The level
    /// and policy are read from the decision's details when the gate is
    /// tool-approval's (they are `None` otherwise).
    pub fn of_gate(
        call: &PreparedCall,
        decision: &GateDecision,
        fingerprint: &str,
        keep: Keep,
    ) -> Self {
        let details = &decision.details;
        Self {
            version: RECORD_VERSION,
            time_ms: now_ms(),
            call_id: call.call_id.clone(),
            tool: call.identifier.clone(),
            api: call.api.clone(),
            arguments_digest: tool_core::durable::digest(&call.arguments),
            arguments: (keep == Keep::Arguments).then(|| call.arguments.clone()),
            action: match decision.action {
                GateAction::Run => Action::Run,
                GateAction::Ask => Action::Ask,
                GateAction::Block => Action::Block,
            },
            rule: decision.rule.clone(),
            level: details
                .pointer("/reason/level")
                .and_then(|l| serde_json::from_value(l.clone()).ok()),
            policy: details
                .get("policy")
                .and_then(|p| serde_json::from_value(p.clone()).ok()),
            confinement: decision.confinement.clone(),
            policy_fingerprint: fingerprint.to_owned(),
        }
    }

    /// Whether the record kept the argument values and they still match
    /// its digest: only then can it be replayed.
    pub fn replayable(&self) -> Result<&Value, NotReplayable> {
        let arguments = self
            .arguments
            .as_ref()
            .ok_or(NotReplayable::ArgumentsNotKept)?;
        if tool_core::durable::digest(arguments) != self.arguments_digest {
            return Err(NotReplayable::DigestMismatch);
        }
        Ok(arguments)
    }
}

/// Why a record cannot be re-decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotReplayable {
    /// The record has only the digest: the host did not opt in to keeping
    /// argument values ([`Keep::Arguments`]).
    ArgumentsNotKept,
    /// The kept values do not match the record's digest (the record was
    /// edited or damaged).
    DigestMismatch,
}

impl NotReplayable {
    /// The stable spelling (`arguments_not_kept`, `digest_mismatch`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ArgumentsNotKept => "arguments_not_kept",
            Self::DigestMismatch => "digest_mismatch",
        }
    }
}

/// Where records go. Called once per decision, on the deciding task:
/// keep it quick (buffer, or hand off to a writer task).
///
/// The wrong way: a sink that drops records silently when its store is
/// down. The right way: return the error; the [`RecordingGate`] counts it
/// and, when asked to ([`RecordingGate::fail_closed`]), blocks the call
/// rather than let it run off the record.
pub trait RecordSink: Send + Sync {
    /// Writes one record.
    fn write(&self, record: &DecisionRecord) -> std::io::Result<()>;
}

/// Records kept in memory (tests, or a host that ships them elsewhere).
#[derive(Debug, Default)]
pub struct MemorySink {
    records: Mutex<Vec<DecisionRecord>>,
}

impl MemorySink {
    /// The records written so far.
    pub fn records(&self) -> Vec<DecisionRecord> {
        self.records.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl RecordSink for MemorySink {
    fn write(&self, record: &DecisionRecord) -> std::io::Result<()> {
        self.records
            .lock()
            .map_err(|_| std::io::Error::other("the record list is poisoned"))?
            .push(record.clone());
        Ok(())
    }
}

/// A JSON Lines file of records: one record per line, appended and
/// flushed as each is written (a crash loses at most the line being
/// written).
#[derive(Debug)]
pub struct JsonLinesFile {
    file: Mutex<std::fs::File>,
}

impl JsonLinesFile {
    /// Opens `path` for appending, creating it when missing.
    pub fn append(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Self {
            file: Mutex::new(file),
        })
    }
}

impl RecordSink for JsonLinesFile {
    fn write(&self, record: &DecisionRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("the record file is poisoned"))?;
        // One write per line, so lines of concurrent writers never interleave.
        file.write_all(&line)?;
        file.flush()
    }
}

/// A line of a record file that is not a record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnreadableLine {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Reads a JSON Lines text of records: what read, with its 1-based line
/// number, and the lines that did not (blank lines are skipped).
///
/// ```
/// let text = "{\"version\":1,\"timeMs\":1,\"tool\":\"t\",\"api\":\"a\",\"argumentsDigest\":\"d\",\"action\":\"run\",\"policyFingerprint\":\"f\"}\nnot json\n";
/// let (records, bad) = tool_approval::record::read_records(text);
/// assert_eq!(records.len(), 1);
/// assert_eq!(bad[0].line, 2);
/// ```
pub fn read_records(text: &str) -> (Vec<(usize, DecisionRecord)>, Vec<UnreadableLine>) {
    let mut records = Vec::new();
    let mut unreadable = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<DecisionRecord>(line) {
            Ok(record) => records.push((index + 1, record)),
            Err(e) => unreadable.push(UnreadableLine {
                line: index + 1,
                message: format!("not a decision record: {e}"),
            }),
        }
    }
    (records, unreadable)
}

/// A gate that records every decision of the gate it wraps.
///
/// Decisions are the wrapped gate's, unchanged, except with
/// [`fail_closed`](Self::fail_closed): a decision that could not be
/// recorded becomes a block. Failed writes are counted
/// ([`failures`](Self::failures)).
pub struct RecordingGate {
    inner: Arc<dyn Gate>,
    sink: Arc<dyn RecordSink>,
    keep: Keep,
    fail_closed: bool,
    failures: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for RecordingGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingGate")
            .field("keep", &self.keep)
            .field("fail_closed", &self.fail_closed)
            .field("failures", &self.failures())
            .finish_non_exhaustive()
    }
}

impl RecordingGate {
    /// Records `inner`'s decisions to `sink`, digests only.
    pub fn new(inner: Arc<dyn Gate>, sink: Arc<dyn RecordSink>) -> Self {
        Self {
            inner,
            sink,
            keep: Keep::Digest,
            fail_closed: false,
            failures: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The same, keeping what `keep` says of the arguments.
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }

    /// The same, blocking a call whose decision could not be recorded.
    pub fn fail_closed(mut self, yes: bool) -> Self {
        self.fail_closed = yes;
        self
    }

    /// How many records could not be written.
    pub fn failures(&self) -> u64 {
        self.failures.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[async_trait]
impl Gate for RecordingGate {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let mut decisions = self.inner.decide(calls, offered, ctx).await;
        let fingerprint = self.inner.fingerprint().unwrap_or_default();
        for (call, decision) in calls.iter().zip(decisions.iter_mut()) {
            let record = DecisionRecord::of_gate(call, decision, &fingerprint, self.keep);
            if let Err(error) = self.sink.write(&record) {
                self.failures
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if self.fail_closed {
                    *decision = GateDecision::block(format!(
                        "the decision could not be recorded ({error}); the host keeps no call off the record"
                    ))
                    .with_rule("record/unwritable");
                }
            }
        }
        decisions
    }

    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        self.inner.remember(call, decision);
    }

    fn fingerprint(&self) -> Option<String> {
        self.inner.fingerprint()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_without_kept_arguments_is_not_replayable() {
        let args = json!({"command": "ls"});
        let call = CallRef::new("shell", "run", &args);
        let engine = crate::PolicyEngine::default();
        let decision = engine.evaluate_one(&call, &ToolContext::new());
        let digest_only = DecisionRecord::of(&call, None, &decision, "fp", Keep::Digest);
        assert_eq!(
            digest_only.replayable(),
            Err(NotReplayable::ArgumentsNotKept)
        );
        let mut kept = DecisionRecord::of(&call, None, &decision, "fp", Keep::Arguments);
        assert_eq!(kept.replayable(), Ok(&args));
        kept.arguments = Some(json!({"command": "rm -rf /"}));
        assert_eq!(kept.replayable(), Err(NotReplayable::DigestMismatch));
    }

    struct Broken;

    impl RecordSink for Broken {
        fn write(&self, _: &DecisionRecord) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    fn clock() -> tool_core::ToolRegistry {
        let mut registry = tool_core::ToolRegistry::new();
        let tool = tool_core::ToolBuilder::new("clock")
            .api(tool_core::ApiDefinition::new("now", "Now."), |_, _| async {
                Ok(tool_core::ToolOutput::text("noon"))
            })
            .build();
        if let Ok(tool) = tool {
            let _ = registry.register(tool);
        }
        registry
    }

    #[tokio::test]
    async fn a_recording_gate_records_each_decision_of_the_pipeline_digest_only() {
        let sink = Arc::new(MemorySink::default());
        let engine = Arc::new(crate::PolicyEngine::default());
        let fingerprint = engine.fingerprint().to_owned();
        let gate = Arc::new(RecordingGate::new(engine, sink.clone()));
        let invoker = tool_core::Invoker::default().with_gate(gate.clone());
        let registry = clock();
        let ctx = ToolContext::new();
        let offered = registry.offer(&ctx);
        let calls = [
            tool_core::ToolCall::new("clock____now", r#"{"secret": "s3cr3t-value"}"#).with_id("c1"),
            tool_core::ToolCall::new("clock____now", "{}").with_id("c2"),
        ];
        let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
        assert_eq!(outputs.len(), 2);
        let records = sink.records();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].call_id.as_deref(), Some("c1"));
        assert_eq!(records[0].tool, "clock");
        assert_eq!(records[0].policy_fingerprint, fingerprint);
        assert_eq!(records[0].level, Some(Level::Default));
        assert_eq!(records[0].arguments, None);
        let line = serde_json::to_string(&records[0]).unwrap_or_default();
        assert!(!line.contains("s3cr3t-value"), "{line}");
        assert_eq!(
            records[0].arguments_digest,
            tool_core::durable::digest(&json!({"secret": "s3cr3t-value"}))
        );
        assert_eq!(gate.failures(), 0);
    }

    #[tokio::test]
    async fn a_decision_that_cannot_be_recorded_blocks_only_when_failing_closed() {
        let registry = clock();
        let ctx = ToolContext::new();
        let offered = registry.offer(&ctx);
        let call = tool_core::ToolCall::new("clock____now", "{}");
        for closed in [false, true] {
            let engine = Arc::new(crate::PolicyEngine::default());
            let gate = Arc::new(RecordingGate::new(engine, Arc::new(Broken)).fail_closed(closed));
            let invoker = tool_core::Invoker::default().with_gate(gate.clone());
            let out = invoker.invoke(&offered, &call, &ctx).await;
            assert_eq!(gate.failures(), 1);
            assert_eq!(
                out.error_code().map(|c| c.as_str()) == Some("blocked_by_security_privacy"),
                closed,
                "{out:?}"
            );
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let args = json!({"b": 1, "a": "x"});
        let call = CallRef::new("t", "a", &args);
        let decision = crate::PolicyEngine::default().evaluate_one(&call, &ToolContext::new());
        let record = DecisionRecord::of(&call, Some("c1"), &decision, "fp", Keep::Arguments);
        let text = format!("{}\n\n", serde_json::to_string(&record).unwrap_or_default());
        let (records, bad) = read_records(&text);
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(records, vec![(1, record)]);
    }
}
