//! tool-core: cost of the pipeline around a trivial tool, and of its parts.
//!
//! Before criterion runs, an instruction guard counts what a taint session
//! (redaction with the built-in rules, then the ledger) adds to a call with
//! a 1 KB private output, under callgrind (this binary run again as a
//! probe, with 1 and with 101 calls, with a session and without; the
//! difference over 100): a count does not move with the machine's load,
//! where a wall-clock margin does. Over its budget, the run fails after the
//! timings. Where valgrind is missing, `.ci/setup.d/75-valgrind.sh`
//! installs it; if it still cannot run, the guard says so and is skipped,
//! except under `CI=true`, where it fails.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;

#[path = "../../.ci/fixtures.rs"]
mod fixtures;

use criterion::{Criterion, criterion_group};
use serde_json::json;
use tool_core::taint::TaintGate;
use tool_core::{
    ApiDefinition, Invoker, ProviderFormat, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, export::wire_name, pipeline::parse_arguments,
};

fn registry() -> ToolRegistry {
    registry_of(20)
}

fn registry_of(tools: usize) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in 0..tools {
        let mut builder = ToolBuilder::new(format!("tool{t}"));
        for a in 0..5 {
            builder = builder.api(
                ApiDefinition::new(format!("api{a}"), "Does a thing.").with_parameters(json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "limit": {"type": "integer", "minimum": 0},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["path"]
                })),
                |_, _| async { Ok(ToolOutput::text("ok")) },
            );
        }
        registry
            .register(builder.build().expect("valid tool"))
            .expect("registers");
    }
    registry
}

fn bench_core(c: &mut Criterion) {
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let call = ToolCall::new(
        "tool7____api3",
        r#"{"path": "src/lib.rs", "limit": 20, "tags": ["a", "b"]}"#,
    );

    c.bench_function("invoke/trivial tool, 100 offered APIs", |b| {
        b.iter(|| runtime.block_on(invoker.invoke(&offered, black_box(&call), &ctx)))
    });
    c.bench_function("prepare/resolve+parse+validate", |b| {
        b.iter(|| invoker.prepare(&offered, black_box(&call)).is_ok())
    });
    c.bench_function("offer/20 tools x 5 APIs", |b| {
        b.iter(|| registry.offer(black_box(&ctx)))
    });
    c.bench_function("export/openai chat tools, 100 APIs", |b| {
        b.iter(|| offered.openai_chat_tools())
    });
    c.bench_function("parse_arguments/small object", |b| {
        b.iter(|| parse_arguments(black_box(&call.arguments)))
    });
    c.bench_function("parse_arguments/truncated diagnosis", |b| {
        b.iter(|| parse_arguments(black_box(r#"{"path": "src/lib.rs", "tags": ["a", "b"#)))
    });
    c.bench_function("wire_name/plain", |b| {
        b.iter(|| wire_name(black_box("local-system"), black_box("readFile")))
    });
    c.bench_function("wire_name/hashed", |b| {
        b.iter(|| {
            wire_name(
                black_box("my.mcp.server/with/a/long/name"),
                black_box("读取文件"),
            )
        })
    });
    let calls: Vec<ToolCall> = (0..1000).map(|_| call.clone()).collect();
    c.bench_function("invoke_batch/1000 calls", |b| {
        b.iter(|| runtime.block_on(invoker.invoke_batch(&offered, black_box(&calls), &ctx)))
    });
}

/// A gate deciding by API name: `api3` asks, the rest run.
struct AskApi3;

#[async_trait::async_trait]
impl tool_core::Gate for AskApi3 {
    async fn decide(
        &self,
        calls: &[tool_core::pipeline::PreparedCall],
        _: &tool_core::OfferedTools,
        _: &ToolContext,
    ) -> Vec<tool_core::GateDecision> {
        calls
            .iter()
            .map(|c| {
                if c.api == "api3" {
                    tool_core::GateDecision::ask("api3 asks")
                } else {
                    tool_core::GateDecision::run()
                }
            })
            .collect()
    }
}

/// Durable approvals: producing a pending turn (bind, digest, MAC) and
/// resuming it (verify, re-bind, re-decide, claim, run), against a gated
/// call that runs. Target: each within 2x of the gated run.
fn bench_durable(c: &mut Criterion) {
    use std::sync::Arc;
    use tool_core::durable::{Durable, KeyRing, MacKey, Reply, Scope};

    let registry = registry();
    let ctx = ToolContext::new().with_extension(Scope::new().with(Scope::CONVERSATION, "c-1"));
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default().with_gate(Arc::new(AskApi3));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let args = r#"{"path": "src/lib.rs", "limit": 20, "tags": ["a", "b"]}"#;
    let runs = ToolCall::new("tool7____api2", args).with_id("c1");
    let asks = ToolCall::new("tool7____api3", args).with_id("c1");
    let keys = KeyRing::new(MacKey::new("bench", [7u8; 32]).expect("key"));
    let durable = Durable::new(keys.clone());

    c.bench_function("durable/gated call that runs (baseline)", |b| {
        b.iter(|| runtime.block_on(invoker.invoke(&offered, black_box(&runs), &ctx)))
    });
    c.bench_function("durable/produce a pending turn (1 ask)", |b| {
        b.iter(|| {
            runtime.block_on(invoker.invoke_turn(
                &durable,
                &offered,
                std::slice::from_ref(black_box(&asks)),
                &ctx,
            ))
        })
    });
    c.bench_function(
        "durable/resume an approved call (verify, claim, run)",
        |b| {
            b.iter_batched(
                || {
                    // A fresh ledger each time: an item is used once.
                    let durable = Durable::new(keys.clone());
                    let turn = runtime.block_on(invoker.invoke_turn(
                        &durable,
                        &offered,
                        std::slice::from_ref(&asks),
                        &ctx,
                    ));
                    let pending = turn.pending.expect("pending");
                    let answer = pending
                        .answer("c1", Reply::approve(), durable.keys())
                        .expect("answer");
                    (durable, pending, answer)
                },
                |(durable, pending, answer)| {
                    let turn = runtime
                        .block_on(invoker.resume(&durable, &offered, pending, &[answer], &ctx))
                        .expect("resumed");
                    assert!(turn.is_settled());
                    turn
                },
                criterion::BatchSize::SmallInput,
            )
        },
    );
}

/// A registry of 100 tools x 5 APIs: export, cached offer, provider messages.
fn bench_large(c: &mut Criterion) {
    let registry = registry_of(100);
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    c.bench_function(
        "offer/100 tools x 5 APIs, unchanged (cached snapshot)",
        |b| b.iter(|| registry.offer(black_box(&ctx))),
    );
    c.bench_function("export/openai chat tools, 500 APIs", |b| {
        b.iter(|| offered.openai_chat_tools())
    });
    c.bench_function(
        "export/openai chat tools shared, 500 APIs, cached snapshot",
        |b| {
            b.iter(|| {
                registry
                    .offer(black_box(&ctx))
                    .tools_shared(ProviderFormat::OpenAiChat)
            })
        },
    );
    c.bench_function("export/anthropic tools, 500 APIs", |b| {
        b.iter(|| offered.anthropic_tools())
    });
    c.bench_function("export/openai chat strict tools, 500 APIs", |b| {
        b.iter(|| offered.openai_chat_tools_strict())
    });
    let answer = json!({"role": "assistant", "content": null, "tool_calls": (0..20).map(|i| json!({
        "id": format!("call_{i}"), "type": "function",
        "function": {"name": format!("tool{i}____api1"), "arguments": r#"{"path": "src/lib.rs", "limit": 20}"#}
    })).collect::<Vec<_>>()});
    c.bench_function("provider/openai chat: 20 tool calls parsed", |b| {
        b.iter(|| ProviderFormat::OpenAiChat.tool_calls(black_box(&answer)))
    });
    let calls = ProviderFormat::OpenAiChat
        .tool_calls(&answer)
        .expect("valid answer");
    let outputs: Vec<ToolOutput> = (0..20)
        .map(|i| ToolOutput::text(format!("result {i}")))
        .collect();
    c.bench_function("provider/anthropic: 20 tool results", |b| {
        b.iter(|| ProviderFormat::Anthropic.tool_results(black_box(&calls), black_box(&outputs)))
    });
}

/// About 1 KB of a mailbox listing: addresses, amounts, ids, links.
fn mailbox_1kb() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 1024 {
        text.push_str(&format!(
            "From: user{i}@corp.example | Subject: Invoice {i}042 for 1,250.00 EUR | IBAN DE89370400440532013{i:03} | https://portal.corp.example/inv/{i}\n"
        ));
        i += 1;
    }
    text.truncate(1024);
    text
}

/// How many distinct 1 KB outputs `mail/next` cycles through (the most
/// a deferred-judgement bench records before its egress call).
const DEFERRED_OUTPUTS: usize = 20;

/// The taint benches' call: `mail/read`, a private read whose output is
/// [`mailbox_1kb`], and what it runs in. For the deferred judgement, a
/// second registry: `mail/next`, a private read answering one of
/// [`DEFERRED_OUTPUTS`] distinct 1 KB listings in turn, and `mail/send`,
/// an egress call the [`TaintGate`](tool_core::taint::TaintGate) judges.
struct TaintFixture {
    text: String,
    offered: tool_core::OfferedTools,
    ctx: ToolContext,
    runtime: tokio::runtime::Runtime,
    call: ToolCall,
    redactor: tool_core::taint::Redactor,
    deferred: tool_core::OfferedTools,
    next: ToolCall,
    send: tool_core::pipeline::PreparedCall,
}

impl TaintFixture {
    fn new() -> Self {
        use tool_core::taint::{Capabilities, Redactor};
        let text = mailbox_1kb();
        let mut registry = ToolRegistry::new();
        let body = text.clone();
        registry
            .register(
                ToolBuilder::new("mail")
                    .api(
                        ApiDefinition::new("read", "Reads the inbox.")
                            .with_capabilities(Capabilities::private_read()),
                        move |_, _| {
                            let body = body.clone();
                            async move { Ok(ToolOutput::text(body)) }
                        },
                    )
                    .build()
                    .expect("valid tool"),
            )
            .expect("registers");
        let ctx = ToolContext::new();
        let offered = registry.offer(&ctx);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let deferred = deferred_registry(&text).offer(&ctx);
        let send = Invoker::default()
            .prepare(
                &deferred,
                &ToolCall::new(
                    "mail____send",
                    r#"{"to":"someone@else.example","body":"Invoice 3042 for 1,250.00 EUR"}"#,
                )
                .with_id("send"),
            )
            .expect("a valid call");
        Self {
            text,
            offered,
            ctx,
            runtime,
            call: ToolCall::new("mail____read", "{}"),
            redactor: Redactor::builtin().expect("built-in rules load"),
            deferred,
            next: ToolCall::new("mail____next", "{}"),
            send,
        }
    }

    /// A fresh session as [`session`](Self::session) makes it, with its
    /// taint gate.
    fn gated(
        &self,
    ) -> (
        Invoker,
        std::sync::Arc<tool_core::taint::Session>,
        TaintGate,
    ) {
        let (invoker, session) = self.session();
        let gate = TaintGate::new(
            std::sync::Arc::new(tool_core::taint::RunAll),
            std::sync::Arc::clone(&session),
        );
        (invoker, session, gate)
    }

    /// `outputs` calls of `mail/next` (each output recorded, its values
    /// pending).
    fn read_outputs(&self, invoker: &Invoker, outputs: usize) {
        for _ in 0..outputs {
            let output = self.runtime.block_on(invoker.invoke(
                &self.deferred,
                black_box(&self.next),
                &self.ctx,
            ));
            black_box(output);
        }
    }

    /// The gate's judgement of `mail/send` (egress): what reads the
    /// pending outputs' values.
    fn judge(&self, gate: &TaintGate) -> tool_core::GateDecision {
        use tool_core::Gate;
        let calls = std::slice::from_ref(&self.send);
        let mut decisions =
            self.runtime
                .block_on(gate.decide(black_box(calls), &self.deferred, &self.ctx));
        decisions.pop().expect("one decision")
    }

    /// An invoker keeping a fresh session that redacts with the built-in
    /// rules, and the session.
    fn session(&self) -> (Invoker, std::sync::Arc<tool_core::taint::Session>) {
        let session = std::sync::Arc::new(
            tool_core::taint::Session::new().with_redactor(self.redactor.clone()),
        );
        (
            Invoker::default().with_session(std::sync::Arc::clone(&session)),
            session,
        )
    }

    fn invoke(&self, invoker: &Invoker) -> ToolOutput {
        self.runtime
            .block_on(invoker.invoke(&self.offered, black_box(&self.call), &self.ctx))
    }
}

/// `mail/next` (a private read answering [`DEFERRED_OUTPUTS`] distinct 1 KB
/// listings in turn) and `mail/send` (egress).
fn deferred_registry(text: &str) -> ToolRegistry {
    use tool_core::taint::Capabilities;
    let pages: std::sync::Arc<Vec<String>> = std::sync::Arc::new(
        (0..DEFERRED_OUTPUTS)
            .map(|i| text.replace("user", &format!("u{i}x")))
            .collect(),
    );
    let turn = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("mail")
                .api(
                    ApiDefinition::new("next", "Reads the next page of the inbox.")
                        .with_capabilities(Capabilities::private_read()),
                    move |_, _| {
                        let at = turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let body = pages[at % pages.len()].clone();
                        async move { Ok(ToolOutput::text(body)) }
                    },
                )
                .api(
                    ApiDefinition::new("send", "Sends mail.")
                        .with_parameters(json!({"type": "object", "properties": {
                            "to": {"type": "string"}, "body": {"type": "string"}}}))
                        .with_capabilities(Capabilities::egress()),
                    |_, _| async { Ok(ToolOutput::text("sent")) },
                )
                .build()
                .expect("valid tool"),
        )
        .expect("registers");
    registry
}

/// What the taint session may add to one call with a 1 KB private output,
/// in instructions (callgrind's `Ir`): on the machines the figures were
/// taken on, 1 µs is about 11 000 instructions (benches/RESULTS.md); the
/// target (issue 39) is 2 µs.
///
/// - `session`: on the call's path (redaction, the call recorded, its
///   output kept for the ledger, its values left to be read when the
///   ledger is read), over a call without a session; held to its figure
///   and about 10 % (18 200 once the ledger itself read values lazily;
///   12 800 once redaction stopped running the rules of keywords that
///   were not there and searched fewer keywords).
/// - `recorded`: the same with the output's values read at once (the
///   whole cost, on the call's path or not: what a call pays in all once
///   an egress judgement reads its values), held to its last figure and
///   about 10 % (about 80 000 instructions when this guard was written,
///   69 000 once URLs and ids were read in one pass, 63 000 with the
///   cheaper redaction: the value scan is
///   the part over the target, so this budget only keeps it from growing
///   back; benches/ANALYSIS.md has where the instructions go).
/// - `judged`, `judged20`: the deferred cost, the gate's judgement of one
///   egress call after 1 (20) recorded 1 KB outputs whose values it reads
///   first, over the same session without the judgement; held to their
///   figures and about 10 % (181 000 and 1 395 000: reading one output's
///   values about 50 000, the judgement of a held call and its
///   explanation about 130 000; benches/ANALYSIS.md).
///
/// Each guard is named after the benchmark it stands beside, with
/// `_instructions` added, so a filter that picks the one picks the other.
/// Columns: probe kind, benchmark, budget, the probe kind counted as zero.
const TAINT_BUDGETS: &[(&str, &str, Option<u64>, &str)] = &[
    (
        "session",
        "taint/1 KB private read, session (redact + ledger)",
        Some(14_500),
        "plain",
    ),
    (
        "recorded",
        "taint/1 KB private read, session, values recorded",
        Some(70_000),
        "plain",
    ),
    (
        "judged",
        "taint/egress judged after 1 recorded 1 KB output",
        Some(JUDGED_BUDGET),
        "session",
    ),
    (
        "judged20",
        "taint/egress judged after 20 recorded 1 KB outputs",
        Some(JUDGED20_BUDGET),
        "calls20",
    ),
];

/// The budget of the `judged` guard (see [`TAINT_BUDGETS`]).
const JUDGED_BUDGET: u64 = 199_000;
/// The budget of the `judged20` guard (see [`TAINT_BUDGETS`]).
const JUDGED20_BUDGET: u64 = 1_535_000;

/// The variable that makes this binary a probe: `KIND:N` makes N calls of
/// that kind (after one warm-up call) and exits.
const PROBE_VAR: &str = "CORE_TAINT_PROBE";

/// The probe: N fresh sessions made, each with its gate (whatever the
/// kind, so making them is no part of the difference), then N calls:
/// `plain` without a session, `session` each with its own, `recorded` the
/// same, its values then recorded; `judged` the `session` call then the
/// gate's judgement of an egress call; `calls20` 20 calls of `mail/next`
/// in one session, `judged20` the same then the judgement. Nothing is
/// dropped (a conversation's teardown is not a call's cost).
fn probe(spec: &str) {
    let (kind, n) = spec.split_once(':').expect("KIND:N");
    let n: usize = n.parse().expect("a count");
    let fixture = TaintFixture::new();
    let plain = Invoker::default();
    // Warm-up: the built-in rules, the runtime, the first allocations.
    for _ in 0..2 {
        let (invoker, session) = fixture.session();
        black_box(fixture.invoke(&invoker));
        session.user_said("");
        black_box(fixture.invoke(&plain));
    }
    {
        let (invoker, _, gate) = fixture.gated();
        fixture.read_outputs(&invoker, 1);
        black_box(fixture.judge(&gate));
    }
    let sessions: Vec<_> = (0..n).map(|_| fixture.gated()).collect();
    let mut outputs = Vec::with_capacity(n);
    let mut decisions = Vec::with_capacity(n);
    for (invoker, session, gate) in &sessions {
        match kind {
            "plain" => outputs.push(fixture.invoke(&plain)),
            "session" => outputs.push(fixture.invoke(invoker)),
            "recorded" => {
                outputs.push(fixture.invoke(invoker));
                session.user_said("");
            }
            "judged" => {
                outputs.push(fixture.invoke(invoker));
                decisions.push(fixture.judge(gate));
            }
            "calls20" => fixture.read_outputs(invoker, DEFERRED_OUTPUTS),
            "judged20" => {
                fixture.read_outputs(invoker, DEFERRED_OUTPUTS);
                decisions.push(fixture.judge(gate));
            }
            other => panic!("unknown probe kind {other}"),
        }
    }
    black_box(&outputs);
    black_box(&decisions);
    std::mem::forget(outputs);
    std::mem::forget(decisions);
    std::mem::forget(sessions);
}

/// The instructions callgrind counts in a probe run of `spec`.
fn probe_instructions(spec: &str) -> u64 {
    let exe = std::env::current_exe().expect("this bench's path");
    let out = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env(PROBE_VAR, spec)
        .output()
        .expect("valgrind runs");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the {spec} probe failed:\n{text}");
    text.lines()
        .find_map(|l| {
            l.split_once("Collected :")
                .map(|(_, n)| n.trim().to_owned())
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in callgrind's output:\n{text}"))
}

/// The instructions of one call of `kind`: (101 calls - 1 call) / 100.
fn per_call(kind: &str) -> u64 {
    let one = probe_instructions(&format!("{kind}:1"));
    let many = probe_instructions(&format!("{kind}:101"));
    many.saturating_sub(one) / 100
}

/// Counts what a session adds to one call; says which are over their
/// budget (see [`TAINT_BUDGETS`]).
fn instruction_guard() -> Vec<String> {
    let guarded: Vec<(&str, Option<u64>, String, &str)> = TAINT_BUDGETS
        .iter()
        .map(|(kind, bench, budget, zero)| (*kind, *budget, format!("{bench}_instructions"), *zero))
        .filter(|(_, _, name, _)| tool_benches::guard::selected(name))
        .collect();
    if guarded.is_empty() {
        return Vec::new();
    }
    if !tool_benches::guard::valgrind_runs() {
        let setup = std::panic::catch_unwind(|| fixtures::ensure("75-valgrind.sh"));
        if setup.is_err() || !tool_benches::guard::valgrind_runs() {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(
                !ci,
                "the instruction guard needs valgrind (CI=true), and \
                 .ci/setup.d/75-valgrind.sh could not install it"
            );
            println!("core taint instruction guard: skipped, valgrind not found");
            return Vec::new();
        }
    }
    let mut zeros: Vec<(&str, u64)> = Vec::new();
    let mut over = Vec::new();
    for (kind, budget, name, zero) in guarded {
        let base = match zeros.iter().find(|(k, _)| *k == zero) {
            Some((_, n)) => *n,
            None => {
                let n = per_call(zero);
                zeros.push((zero, n));
                n
            }
        };
        let added = per_call(kind).saturating_sub(base);
        let limit = budget.map_or_else(|| "none".to_owned(), |b| b.to_string());
        println!(
            "{name}: {added} instructions added (budget {limit}; {base} for `{zero}`, which counts as zero)"
        );
        if let Some(budget) = budget
            && added > budget
        {
            over.push(format!("{name}: {added} > {budget}"));
        }
    }
    over
}

/// Trust and taint: what a session (secret redaction with the built-in
/// rules, then the ledger's record of the values) adds to a call whose
/// 1 KB output is a private read, against the same call without a
/// session; and the parts alone. Target: <= 2 us per call added.
fn bench_taint(c: &mut Criterion) {
    use tool_core::taint::{Capabilities, Ledger, TrifectaSettings};

    let fixture = TaintFixture::new();
    let text = fixture.text.clone();
    let redactor = fixture.redactor.clone();
    let plain = Invoker::default();
    c.bench_function("taint/1 KB private read, no session", |b| {
        b.iter(|| fixture.invoke(&plain))
    });
    // A fresh session per call, so the ledger does not grow without end:
    // every value is new to it (the costlier case). The session is handed
    // back, so its teardown (once per conversation) is not timed.
    c.bench_function("taint/1 KB private read, session (redact + ledger)", |b| {
        b.iter_batched(
            || fixture.session(),
            |(invoker, session)| (fixture.invoke(&invoker), invoker, session),
            criterion::BatchSize::SmallInput,
        )
    });
    // The same, with the output's values recorded in the ledger at once
    // (what the first egress call judged, or storing the state, does for
    // every output still pending): the whole cost, on the call's path or
    // not.
    c.bench_function("taint/1 KB private read, session, values recorded", |b| {
        b.iter_batched(
            || fixture.session(),
            |(invoker, session)| {
                let output = fixture.invoke(&invoker);
                // Reading the ledger records what is pending.
                session.user_said("");
                (output, invoker, session)
            },
            criterion::BatchSize::SmallInput,
        )
    });
    // The deferred cost: the gate's judgement of one egress call, which
    // first reads the values of the outputs recorded since the ledger was
    // last read (1, or 20 distinct ones), in a fresh session each time.
    for (outputs, name) in [
        (1, "taint/egress judged after 1 recorded 1 KB output"),
        (
            DEFERRED_OUTPUTS,
            "taint/egress judged after 20 recorded 1 KB outputs",
        ),
    ] {
        c.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let (invoker, session, gate) = fixture.gated();
                    fixture.read_outputs(&invoker, outputs);
                    (invoker, session, gate)
                },
                |(invoker, session, gate)| (fixture.judge(&gate), invoker, session, gate),
                criterion::BatchSize::SmallInput,
            )
        });
    }
    c.bench_function("taint/ledger records 1 KB", |b| {
        b.iter_batched(
            Ledger::new,
            |mut ledger| {
                let index =
                    ledger.record_call("c", "mail", "read", Capabilities::private_read(), true);
                ledger.record_text(index, black_box(&text));
                ledger
            },
            criterion::BatchSize::SmallInput,
        )
    });
    // The same, the values then read (what a read of the ledger does).
    c.bench_function("taint/ledger records and reads 1 KB", |b| {
        b.iter_batched(
            Ledger::new,
            |mut ledger| {
                let index =
                    ledger.record_call("c", "mail", "read", Capabilities::private_read(), true);
                ledger.record_text(index, black_box(&text));
                ledger.index_pending();
                ledger
            },
            criterion::BatchSize::SmallInput,
        )
    });
    c.bench_function("taint/redact 1 KB, no secret", |b| {
        b.iter(|| redactor.redact(black_box(&text)).is_none())
    });
    let mut with_secret = text.clone();
    with_secret.replace_range(100..140, "ghp_0123456789abcdefghijABCDEFGHIJ012345");
    c.bench_function("taint/redact 1 KB, one token", |b| {
        b.iter(|| redactor.redact(black_box(&with_secret)).is_some())
    });
    let big = text.repeat(1024);
    c.bench_function("taint/redact 1 MB, no secret", |b| {
        b.iter(|| redactor.redact(black_box(&big)).is_none())
    });
    c.bench_function("taint/values of 1 KB", |b| {
        b.iter(|| {
            let mut n = 0usize;
            tool_core::taint::values_in(black_box(&text), &mut |_, _| n += 1);
            n
        })
    });
    // The trifecta judge of one egress call against a ledger of 1000
    // recorded 1 KB outputs.
    let mut ledger = Ledger::new();
    for i in 0..1000 {
        let index = ledger.record_call(
            &format!("c{i}"),
            "mail",
            "read",
            Capabilities::private_read(),
            true,
        );
        ledger.record_text(index, &text.replace("user", &format!("u{i}x")));
    }
    ledger.index_pending();
    let args = json!({"to": "someone@else.example", "body": "Invoice 3042 for 1,250.00 EUR"});
    let settings = TrifectaSettings::default();
    c.bench_function("taint/judge one egress call, 1000-call ledger", |b| {
        b.iter(|| {
            tool_core::taint::judge(&ledger, "mail/send", black_box(&args), &settings).is_some()
        })
    });
}

criterion_group!(benches, bench_core, bench_durable, bench_large, bench_taint);

fn main() {
    if let Ok(spec) = std::env::var(PROBE_VAR) {
        probe(&spec);
        return;
    }
    // The timings are taken either way; a count over its budget then
    // fails the run.
    let over = instruction_guard();
    benches();
    Criterion::default().configure_from_args().final_summary();
    assert!(
        over.is_empty(),
        "over the instruction budget: {}",
        over.join("; ")
    );
}
