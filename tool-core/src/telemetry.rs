//! Traces and metrics in the OpenTelemetry GenAI conventions, through
//! [`tracing`].
//!
//! The crates emit `tracing` spans and events only; exporting them is the
//! host's subscriber's job (`tracing-opentelemetry` with an OTLP exporter
//! turns the spans below into OpenTelemetry spans: it reads `otel.name`,
//! `otel.kind` and `otel.status_code`, and its metrics layer turns the
//! `monotonic_counter.*` and `histogram.*` fields of the metric events into
//! instruments). Names follow the GenAI semantic conventions (development
//! status) as of 2026: span `execute_tool {gen_ai.tool.name}`, metric
//! `gen_ai.execute_tool.duration`.
//!
//! # Spans
//!
//! | span (`tracing` name) | where | attributes |
//! |---|---|---|
//! | `execute_tool` (`otel.name` = `execute_tool {gen_ai.tool.name}`, kind internal) | every call through an [`Invoker`](crate::Invoker), refused ones included | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name` (the wire name), `gen_ai.tool.call.id`, `gen_ai.tool.type` (`function`; `extension` for HTTP and MCP tools), `gen_ai.tool.description`, `error.type` (the output's error code) and `otel.status_code` = `ERROR` on failure; and, kept from the earlier `tool_call` span: `tool`, `api`, `call_id`, `timeout_ms`, `duration_ms`, `outcome` |
//! | `http_request` (`otel.name` = `{method} {url.template}`, kind client) | tool-openapi, one per API request | `http.request.method`, `url.template` (the operation's path template, e.g. `/users/{id}`), `http.response.status_code`, `error.type` |
//! | `load_skill`, `read_skill_resource` | tool-skills' `activateSkill` and `readReference` | `gen_ai.skill.name` (a registered skill's name), `gen_ai.skill.resource.name` (the resolved file, relative to the skill's folder), `error.type` |
//!
//! # Events on the `execute_tool` span
//!
//! | event | fields |
//! |---|---|
//! | `gate.decision` | `action` (`run`, `ask`, `block`), `rule`, `level` (tool-approval's), `confinement` (`full_access`, `workspace_write`, `read_only`, or `none`), `network` |
//! | `gate.quota` | `rule` (`quota/turn`, `quota/session`, `quota/window`, `quota/budget`): a quota held the call |
//! | `gate.answer` | `answer` (`approved`, `declined`, `unanswered`, `pending`): what the person (the [`Asker`](crate::Asker)) said to an ask |
//! | `gate.remembered` | a person approved with "always" and the gate was told |
//! | `tool.run` | `confinement`, `network`, `timeout_ms`: the call starts |
//! | `tool.sandbox` | `policy`, `network`: the command ran in the runtime's sandbox (its state says so) |
//! | `tool.refused` | `wall` (`sandbox`, `ssrf`, `path`), `error.type`: a wall refused the call (see [`REFUSALS`]) |
//! | `tool.redacted` | `rules` (comma-separated rule ids), `count`: secrets were redacted from the output |
//!
//! # Metric events (target [`METRICS_TARGET`])
//!
//! | field | kind | attributes |
//! |---|---|---|
//! | `histogram.gen_ai.execute_tool.duration` | seconds, one per call | `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.type`, `error.type` (empty on success) |
//! | `monotonic_counter.tool.gate.decisions` | 1 per decision | `action`, `rule` (empty when none), `level` |
//!
//! # What is never recorded
//!
//! Argument values, output content or state, the gate's message (it may
//! quote an argument), the person's reason for a decline, request URLs
//! (only the route template), query strings, headers, bodies and
//! credentials. The tool name, the call id, rule ids and error codes are
//! recorded: they come from the host's catalog and policy or the model's
//! call envelope, never from argument values. A host that wants arguments
//! on record keeps decision records with its opt-in (tool-approval's
//! `record` module), not traces.
//!
//! This holds for the spans and events of this crate family. Libraries
//! below it log at their own levels: rmcp's `debug` and `trace` events
//! carry whole MCP requests, arguments included, and hyper's name the
//! addresses it connects to. A production subscriber keeps those targets
//! at `info` or above.

use std::time::Instant;

use tracing::Span;
use tracing::field::Empty;

use crate::confine::Confinement;
use crate::context::ToolContext;
use crate::gate::{Gate, GateAction, GateDecision};
use crate::offered::OfferedTools;
use crate::output::ToolOutput;
use crate::prepared::PreparedCall;

/// The target of the metric events: filter on it to route metrics.
pub const METRICS_TARGET: &str = "tool_layer::metrics";

/// Which wall refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Wall {
    /// The OS sandbox or the runtime's own confinement checks.
    Sandbox,
    /// The network guard (a private address, a redirect past the cap).
    Ssrf,
    /// A path check (a skill file outside its folder).
    Path,
}

impl Wall {
    /// The spelling in the `tool.refused` event.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Ssrf => "ssrf",
            Self::Path => "path",
        }
    }
}

/// The error codes that mean a wall refused the call, and which wall: a
/// failed output with one of these codes gets a `tool.refused` event.
/// Codes of the capability crates are listed here by spelling (tool-core
/// does not depend on them).
pub const REFUSALS: &[(&str, Wall)] = &[
    ("confinement_refused", Wall::Sandbox),
    ("sandbox_unavailable", Wall::Sandbox),
    ("sandbox_setup_failed", Wall::Sandbox),
    ("protected_symlink", Wall::Sandbox),
    ("ssrf_blocked", Wall::Ssrf),
    ("too_many_redirects", Wall::Ssrf),
    ("path_not_allowed", Wall::Path),
];

/// The wall that refused a call failing with `code`, if a wall did.
///
/// ```
/// use tool_core::telemetry::{Wall, refusal_wall};
/// assert_eq!(refusal_wall("ssrf_blocked"), Some(Wall::Ssrf));
/// assert_eq!(refusal_wall("timeout"), None);
/// ```
pub fn refusal_wall(code: &str) -> Option<Wall> {
    REFUSALS
        .iter()
        .find(|(known, _)| *known == code)
        .map(|(_, wall)| *wall)
}

/// The longest tool name put on a span (a model can send any name).
const MAX_NAME_CHARS: usize = 200;

/// The `execute_tool` span of one call and when it started.
#[derive(Debug, Clone)]
pub(crate) struct CallTrace {
    pub(crate) span: Span,
    started: Option<Instant>,
    tool_type: &'static str,
    /// `gen_ai.tool.name`, kept for the duration metric (empty when the
    /// call is not timed).
    name: String,
}

impl CallTrace {
    /// The span of a prepared call.
    pub(crate) fn prepared(call: &PreparedCall) -> Self {
        let span = execute_tool_span(&call.wire_name);
        let manifest = call.tool.manifest();
        let tool_type = tool_type(manifest.kind);
        if span.is_disabled() {
            return Self::quiet(span, tool_type, &call.wire_name);
        }
        span.record("gen_ai.tool.type", tool_type);
        span.record("tool", call.identifier.as_str());
        span.record("api", call.api.as_str());
        span.record("timeout_ms", call.timeout.as_millis() as u64);
        if let Some(id) = call.call_id.as_deref() {
            span.record("gen_ai.tool.call.id", id);
            span.record("call_id", id);
        }
        if let Some(api) = manifest.api(&call.api) {
            span.record("gen_ai.tool.description", api.description.as_str());
        }
        Self {
            span,
            started: Some(Instant::now()),
            tool_type,
            name: call.wire_name.clone(),
        }
    }

    /// The span of a call the pipeline refused before it was prepared (an
    /// unknown name, arguments that do not parse or validate).
    pub(crate) fn refused(name: &str, call_id: Option<&str>) -> Self {
        let name: String = name.chars().take(MAX_NAME_CHARS).collect();
        let span = execute_tool_span(&name);
        if span.is_disabled() {
            return Self::quiet(span, "function", &name);
        }
        if let Some(id) = call_id.filter(|id| !id.is_empty()) {
            span.record("gen_ai.tool.call.id", id);
            span.record("call_id", id);
        }
        span.record("gen_ai.tool.type", "function");
        Self {
            span,
            started: Some(Instant::now()),
            tool_type: "function",
            name,
        }
    }

    /// A trace whose span nobody listens to: timed only when the metric
    /// events are listened to.
    fn quiet(span: Span, tool_type: &'static str, name: &str) -> Self {
        let metrics = tracing::enabled!(target: METRICS_TARGET, tracing::Level::INFO);
        Self {
            span,
            started: metrics.then(Instant::now),
            tool_type,
            name: if metrics {
                name.to_owned()
            } else {
                String::new()
            },
        }
    }

    /// Whether the span is listened to.
    pub(crate) fn is_enabled(&self) -> bool {
        !self.span.is_disabled()
    }

    /// The call starts under `confinement`.
    pub(crate) fn run(&self, call: &PreparedCall, confinement: Option<&Confinement>) {
        if !self.is_enabled() {
            return;
        }
        tracing::info!(
            name: "tool.run",
            parent: &self.span,
            confinement = confinement.map_or("none", Confinement::name),
            network = confinement.is_some_and(Confinement::network),
            timeout_ms = call.timeout.as_millis() as u64,
            "tool.run"
        );
    }

    /// The gate decided.
    pub(crate) fn decision(&self, decision: &GateDecision) {
        let action = action_str(decision.action);
        let rule = decision.rule.as_deref().unwrap_or("");
        let level = decision
            .details
            .pointer("/reason/level")
            .and_then(|l| l.as_str())
            .unwrap_or("");
        tracing::event!(
            target: METRICS_TARGET,
            parent: &self.span,
            tracing::Level::INFO,
            monotonic_counter.tool.gate.decisions = 1u64,
            action,
            rule,
            level,
        );
        if !self.is_enabled() {
            return;
        }
        let confinement = decision.confinement.as_ref();
        tracing::info!(
            name: "gate.decision",
            parent: &self.span,
            action,
            rule,
            level,
            confinement = confinement.map_or("none", Confinement::name),
            network = confinement.is_some_and(Confinement::network),
            "gate.decision"
        );
        if rule.starts_with("quota/") {
            tracing::info!(name: "gate.quota", parent: &self.span, rule, "gate.quota");
        }
    }

    /// What became of an ask.
    pub(crate) fn answer(&self, answer: &'static str) {
        if self.is_enabled() {
            tracing::info!(name: "gate.answer", parent: &self.span, answer, "gate.answer");
        }
    }

    /// A person's "always" was reported to the gate.
    pub(crate) fn remembered(&self) {
        if self.is_enabled() {
            tracing::info!(name: "gate.remembered", parent: &self.span, "gate.remembered");
        }
    }

    /// The call ended with `output`: records the outcome and its duration,
    /// and the walls, sandbox and redactions the output reports.
    pub(crate) fn finish(&self, output: &ToolOutput) {
        let Some(started) = self.started else {
            return;
        };
        let span = &self.span;
        let code = output.error_code().map(|c| c.as_str());
        let elapsed = started.elapsed();
        span.record("duration_ms", elapsed.as_millis() as u64);
        span.record("outcome", code.unwrap_or("success"));
        if let Some(code) = code {
            span.record("error.type", code);
            span.record("otel.status_code", "ERROR");
            if let Some(wall) = refusal_wall(code) {
                tracing::info!(
                    name: "tool.refused",
                    parent: span,
                    wall = wall.as_str(),
                    error.type = code,
                    "tool.refused"
                );
            }
        }
        let state = output.state.as_ref();
        if let Some(sandbox) = state.and_then(|s| s.get("sandbox")) {
            tracing::info!(
                name: "tool.sandbox",
                parent: span,
                policy = sandbox.get("policy").and_then(|p| p.as_str()).unwrap_or(""),
                network = sandbox.get("network").and_then(|n| n.as_bool()).unwrap_or(false),
                "tool.sandbox"
            );
        }
        if let Some(redacted) = state
            .and_then(|s| s.get("redacted"))
            .and_then(|r| r.as_object())
        {
            let rules: Vec<&str> = redacted.keys().map(String::as_str).collect();
            let count: u64 = redacted.values().filter_map(|n| n.as_u64()).sum();
            tracing::info!(
                name: "tool.redacted",
                parent: span,
                rules = rules.join(",").as_str(),
                count,
                "tool.redacted"
            );
        }
        tracing::event!(
            target: METRICS_TARGET,
            parent: span,
            tracing::Level::INFO,
            histogram.gen_ai.execute_tool.duration = elapsed.as_secs_f64(),
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = self.name.as_str(),
            gen_ai.tool.type = self.tool_type,
            error.type = code.unwrap_or(""),
        );
        tracing::debug!(parent: span, success = output.success, "tool call finished");
    }
}

/// The gate of a batch, putting each decision on its call's span (and a
/// person's "always" too).
pub(crate) struct TracedGate<'a> {
    inner: &'a dyn Gate,
    calls: &'a [PreparedCall],
    traces: &'a [CallTrace],
    asked: std::sync::Mutex<Vec<bool>>,
}

impl<'a> TracedGate<'a> {
    pub(crate) fn new(
        inner: &'a dyn Gate,
        calls: &'a [PreparedCall],
        traces: &'a [CallTrace],
    ) -> Self {
        Self {
            inner,
            calls,
            traces,
            asked: std::sync::Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn as_gate(&self) -> &dyn Gate {
        self
    }

    /// Which calls the gate asked about, by index.
    pub(crate) fn asked(&self) -> Vec<bool> {
        self.asked
            .lock()
            .map(|asked| asked.clone())
            .unwrap_or_default()
    }
}

#[async_trait::async_trait]
impl Gate for TracedGate<'_> {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        offered: &OfferedTools,
        ctx: &ToolContext,
    ) -> Vec<GateDecision> {
        let decisions = self.inner.decide(calls, offered, ctx).await;
        for (trace, decision) in self.traces.iter().zip(&decisions) {
            trace.decision(decision);
        }
        if let Ok(mut asked) = self.asked.lock() {
            *asked = decisions
                .iter()
                .map(|d| d.action == GateAction::Ask)
                .collect();
        }
        decisions
    }

    fn remember(&self, call: &PreparedCall, decision: &GateDecision) {
        let index = self.calls.iter().position(|c| std::ptr::eq(c, call));
        if let Some(trace) = index.and_then(|i| self.traces.get(i)) {
            trace.remembered();
        }
        self.inner.remember(call, decision);
    }

    fn fingerprint(&self) -> Option<String> {
        self.inner.fingerprint()
    }
}

/// The `execute_tool` span with its fields declared (empty ones recorded
/// later), or a disabled span when nothing listens.
fn execute_tool_span(name: &str) -> Span {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = Empty,
        gen_ai.tool.type = Empty,
        gen_ai.tool.description = Empty,
        error.type = Empty,
        tool = Empty,
        api = Empty,
        call_id = Empty,
        timeout_ms = Empty,
        duration_ms = Empty,
        outcome = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("execute_tool {name}").as_str());
    }
    span
}

/// `gen_ai.tool.type` of a tool of `kind`: `extension` for tools that
/// reach an external service (HTTP APIs, MCP servers), else `function`.
fn tool_type(kind: Option<crate::ToolKind>) -> &'static str {
    match kind {
        Some(crate::ToolKind::Api | crate::ToolKind::Mcp) => "extension",
        _ => "function",
    }
}

fn action_str(action: GateAction) -> &'static str {
    match action {
        GateAction::Run => "run",
        GateAction::Ask => "ask",
        GateAction::Block => "block",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_table_has_one_row_per_code_in_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for (code, _) in REFUSALS {
            assert!(seen.insert(*code), "{code} listed twice");
            assert!(
                code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{code}"
            );
        }
        assert_eq!(refusal_wall("confinement_refused"), Some(Wall::Sandbox));
        assert_eq!(refusal_wall("path_not_allowed"), Some(Wall::Path));
        assert_eq!(refusal_wall("declined_by_user"), None);
    }

    #[test]
    fn http_and_mcp_tools_are_extensions_the_rest_functions() {
        assert_eq!(tool_type(Some(crate::ToolKind::Api)), "extension");
        assert_eq!(tool_type(Some(crate::ToolKind::Mcp)), "extension");
        assert_eq!(tool_type(Some(crate::ToolKind::Builtin)), "function");
        assert_eq!(tool_type(None), "function");
    }
}
