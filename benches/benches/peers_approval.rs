//! Our side of the approval pairs run by `benches/run`: decisions of the
//! policy engine | one compiled regex match per decision as the floor.
//!
//! - static: an API with a static policy, no shell, no path arguments;
//! - simple: one-part shell commands against the same 50-rule policy
//!   (16 spellings);
//! - compound: 5-part shell commands against a 50-rule policy (fresh
//!   spellings every iteration, so no parse is reused);
//! - path scope: `pathScopeAudit` on a real tree with symlinks (inside and
//!   pointing out of the working directory).
//!
//! Before criterion runs, an instruction guard counts the instructions of
//! one static, simple and compound decision under callgrind (this binary
//! run again as a probe, once with 1 and once with 101 decisions; the
//! difference over 100); when one is over its budget the run fails after
//! the timings: a count does not move with the machine's load, where a
//! wall-clock margin does.
//! Where valgrind is missing, `.ci/setup.d/75-valgrind.sh` installs it
//! (Debian's package, through `.ci/fixtures.rs`); if it still cannot be
//! run, the guard says so and is skipped, except under `CI=true`, where
//! it fails.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;

#[path = "../../.ci/fixtures.rs"]
mod fixtures;

use criterion::{Criterion, criterion_group};
use regex::Regex;
use serde_json::{Value, json};
use tool_approval::{Action, CallRef, PolicyEngine, PolicyFile};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest,
    manifest::DynamicIntervention,
};

/// Command prefixes the policy approves (49 rules + a catch-all = 50).
/// Command prefixes the 50-rule policy approves, (48, plus a deny and a catch-all = 50
/// rules), shared with `tool-approval/examples/decision_probe.rs`.
const PREFIX_LINES: &str = include_str!("../../tool-approval/examples/approved_prefixes.txt");

fn prefixes() -> impl Iterator<Item = &'static str> {
    PREFIX_LINES
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

fn manifest() -> ToolManifest {
    let mut m = ToolManifest::new("local-system");
    m.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
    );
    m.api.push(
        ApiDefinition::new("searchWeb", "search")
            .with_parameters(json!({"type": "object", "properties": {"query": {"type": "string"}}}))
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
    );
    m.api.push(
        ApiDefinition::new("readFile", "read")
            .with_parameters(json!({"type": "object", "properties": {"path": {"type": "string", "format": "path"}}}))
            .with_intervention(HumanIntervention::Dynamic {
                dynamic: DynamicIntervention {
                    kind: "pathScopeAudit".into(),
                    policy: InterventionPolicy::Required,
                    default: InterventionPolicy::Never,
                },
            }),
    );
    m
}

/// 50 rules: 48 approved prefixes, one deny, one catch-all.
fn engine() -> PolicyEngine {
    let mut rules: Vec<Value> = prefixes()
        .map(|p| json!({"match": {"command": format!("{p}:*")}, "policy": "never"}))
        .collect();
    rules.push(json!({"match": {"command": "git push:*"}, "policy": "deny"}));
    rules.push(json!({"policy": "required"}));
    assert_eq!(rules.len(), 50);
    let file = PolicyFile::from_value(&json!({"rules": {"local-system/runCommand": rules}}));
    match file.and_then(|f| f.engine()) {
        Ok(engine) => engine,
        Err(e) => panic!("bench policy: {e}"),
    }
}

/// The floor: the 48 approved prefixes as one anchored alternation.
fn floor_regex() -> Regex {
    let alternatives: Vec<String> = prefixes().map(regex::escape).collect();
    Regex::new(&format!(r"^(?:{})(?:\s|$)", alternatives.join("|"))).expect("floor regex")
}

/// The simple commands: one part, approved by the policy, 16 spellings.
fn simple_args() -> Vec<Value> {
    (0..16)
        .map(|i| json!({ "command": format!("git diff --stat src/m{i}.rs") }))
        .collect()
}

/// The compound commands: 5 parts, all approved by the policy, 16 spellings.
fn compound_commands() -> Vec<String> {
    (0..16)
        .map(|i| {
            format!(
                "git add -A src/m{i} && cargo test -p tool-core; ls -la src | grep lib && echo done {i}"
            )
        })
        .collect()
}

/// What one decision may cost, in instructions (callgrind's `Ir`): on the
/// machines the figures were taken on, 5 µs of this work is about 56 000
/// instructions and 1 µs about 11 000 (benches/RESULTS.md). The targets
/// (issue 17 §4): static ≤ 1 µs, simple and 5-part compound ≤ 5 µs. The
/// compound's budget is held below the 5 µs figure, at what it costs
/// (53 693 on 2026-12-07, issue 36) with a small margin, so the cuts
/// made stay made.
/// Each guard is named after the benchmark it stands beside, with
/// `_instructions` added, so a filter that picks the one picks the other.
const BUDGETS: &[(&str, &str, u64)] = &[
    ("static", "static_decision", 11_000),
    ("simple", "simple_command_50_rules", 56_000),
    ("compound", "compound_5_parts_50_rules", 54_500),
];

/// The variable that makes this binary a probe: `KIND:N` evaluates N
/// decisions of that kind (after one warm-up round) and exits.
const PROBE_VAR: &str = "PEERS_APPROVAL_PROBE";

/// The probe: the bench's engine, manifest and calls of `kind`, one warm-up
/// round (tables built on first use are not a decision's cost), then `n`
/// decisions.
fn probe(spec: &str) {
    let (kind, n) = spec.split_once(':').expect("KIND:N");
    let n: usize = n.parse().expect("a count");
    let engine = engine();
    let manifest = manifest();
    let ctx = ToolContext::new();
    let (api, args): (&str, Vec<Value>) = match kind {
        "static" => ("searchWeb", vec![json!({"query": "weather in Paris"})]),
        "simple" => ("runCommand", simple_args()),
        "compound" => (
            "runCommand",
            compound_commands()
                .iter()
                .map(|c| json!({ "command": c }))
                .collect(),
        ),
        other => panic!("unknown probe kind {other}"),
    };
    for a in &args {
        let call = CallRef::new("local-system", api, a).with_manifest(&manifest);
        assert_eq!(engine.evaluate_one(&call, &ctx).action, Action::Run);
    }
    for a in args.iter().cycle().take(n) {
        let call = CallRef::new("local-system", api, a).with_manifest(&manifest);
        black_box(engine.evaluate_one(black_box(&call), &ctx));
    }
}

/// The instructions callgrind counts in a probe run of `n` decisions.
fn probe_instructions(valgrind: &str, kind: &str, n: usize) -> u64 {
    let exe = std::env::current_exe().expect("this bench's path");
    let out = std::process::Command::new(valgrind)
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env(PROBE_VAR, format!("{kind}:{n}"))
        .output()
        .expect("valgrind runs");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the {kind} probe failed:\n{text}");
    text.lines()
        .find_map(|l| {
            l.split_once("Collected :")
                .map(|(_, n)| n.trim().to_owned())
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in callgrind's output:\n{text}"))
}

/// Counts one decision of each kind; says which are over their budget
/// (see [`BUDGETS`]).
fn instruction_guard() -> Vec<String> {
    let guarded: Vec<(&str, u64, String)> = BUDGETS
        .iter()
        .map(|(kind, bench, budget)| {
            (
                *kind,
                *budget,
                format!("peers_approval/{bench}_instructions"),
            )
        })
        .filter(|(_, _, name)| tool_benches::guard::selected(name))
        .collect();
    if guarded.is_empty() {
        return Vec::new();
    }
    if !tool_benches::guard::valgrind_runs() {
        // The setup script installs it where it can (it panics with what
        // failed where it cannot; that message is printed either way).
        let setup = std::panic::catch_unwind(|| fixtures::ensure("75-valgrind.sh"));
        if setup.is_err() || !tool_benches::guard::valgrind_runs() {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(
                !ci,
                "the instruction guard needs valgrind (CI=true), and \
                 .ci/setup.d/75-valgrind.sh could not install it"
            );
            println!("peers_approval instruction guard: skipped, valgrind not found");
            return Vec::new();
        }
    }
    let mut over = Vec::new();
    for (kind, budget, name) in guarded {
        let one = probe_instructions("valgrind", kind, 1);
        let many = probe_instructions("valgrind", kind, 101);
        let per = many.saturating_sub(one) / 100;
        println!("{name}: {per} instructions per decision (budget {budget})");
        if per > budget {
            over.push(format!("{name}: {per} > {budget}"));
        }
    }
    over
}

fn bench(c: &mut Criterion) {
    let engine = engine();
    let manifest = manifest();
    let floor = floor_regex();
    let ctx = ToolContext::new();

    // Static: no shell, no paths.
    let query = json!({"query": "weather in Paris"});
    let call = CallRef::new("local-system", "searchWeb", &query).with_manifest(&manifest);
    assert_eq!(engine.evaluate_one(&call, &ctx).action, Action::Run);
    let key_floor = Regex::new(r"^local-system/(?:searchWeb|readFile|listFiles)$").unwrap();
    let mut group = c.benchmark_group("peers_approval");
    group.bench_function("static_decision", |b| {
        b.iter(|| {
            let call = CallRef::new("local-system", "searchWeb", black_box(&query))
                .with_manifest(&manifest);
            black_box(engine.evaluate_one(&call, &ctx))
        })
    });
    group.bench_function("static_regex_floor", |b| {
        b.iter(|| key_floor.is_match(black_box("local-system/searchWeb")))
    });

    // Simple: one part, approved by the policy, 16 spellings.
    let simple_args = simple_args();
    let simples: Vec<String> = simple_args
        .iter()
        .map(|a| a["command"].as_str().unwrap().to_owned())
        .collect();
    for a in &simple_args {
        let call = CallRef::new("local-system", "runCommand", a).with_manifest(&manifest);
        let decision = engine.evaluate_one(&call, &ctx);
        assert_eq!(decision.action, Action::Run, "{decision:?}");
    }
    let mut next = simple_args.iter().cycle();
    group.bench_function("simple_command_50_rules", |b| {
        b.iter(|| {
            let a = next.next().unwrap();
            let call = CallRef::new("local-system", "runCommand", a).with_manifest(&manifest);
            black_box(engine.evaluate_one(&call, &ctx))
        })
    });
    let mut next = simples.iter().cycle();
    group.bench_function("simple_regex_floor", |b| {
        b.iter(|| floor.is_match(black_box(next.next().unwrap())))
    });

    // Compound: 5 parts, all approved by the policy, 16 spellings.
    let commands = compound_commands();
    let args: Vec<Value> = commands.iter().map(|c| json!({ "command": c })).collect();
    for a in &args {
        let call = CallRef::new("local-system", "runCommand", a).with_manifest(&manifest);
        let decision = engine.evaluate_one(&call, &ctx);
        assert_eq!(decision.action, Action::Run, "{decision:?}");
    }
    let mut next = args.iter().cycle();
    group.bench_function("compound_5_parts_50_rules", |b| {
        b.iter(|| {
            let a = next.next().unwrap();
            let call = CallRef::new("local-system", "runCommand", a).with_manifest(&manifest);
            black_box(engine.evaluate_one(&call, &ctx))
        })
    });
    let mut next = commands.iter().cycle();
    group.bench_function("compound_regex_floor", |b| {
        b.iter(|| floor.is_match(black_box(next.next().unwrap())))
    });

    // Path scope on a real tree: links that stay inside and one that leaves.
    let tree = tempfile::tempdir().unwrap();
    let work = tree.path().join("work");
    let outside = tree.path().join("outside");
    std::fs::create_dir_all(work.join("src/a/b")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(work.join("src/a/b/file.txt"), "x").unwrap();
    std::fs::write(outside.join("secret.txt"), "x").unwrap();
    std::os::unix::fs::symlink(work.join("src/a"), work.join("link_in")).unwrap();
    std::os::unix::fs::symlink(&outside, work.join("link_out")).unwrap();
    let ctx = ToolContext::new().with_cwd(&work);
    let paths: Vec<(Value, Action)> = [
        ("src/a/b/file.txt", Action::Run),
        ("link_in/b/file.txt", Action::Run),
        ("link_in/b/../b/new.txt", Action::Run),
        ("link_out/secret.txt", Action::Ask),
        ("link_in/../../../outside/secret.txt", Action::Ask),
        ("src/./a//b/missing/deeper.txt", Action::Run),
    ]
    .into_iter()
    .map(|(p, action)| (json!({ "path": p }), action))
    .collect();
    for (a, action) in &paths {
        let call = CallRef::new("local-system", "readFile", a).with_manifest(&manifest);
        assert_eq!(engine.evaluate_one(&call, &ctx).action, *action, "{a}");
    }
    let mut next = paths.iter().cycle();
    group.bench_function("path_scope_symlinks", |b| {
        b.iter(|| {
            let (a, _) = next.next().unwrap();
            let call = CallRef::new("local-system", "readFile", a).with_manifest(&manifest);
            black_box(engine.evaluate_one(&call, &ctx))
        })
    });
    let path_floor = Regex::new(r"^(?:/|~|\.\./)|/\.\./").unwrap();
    let spelled: Vec<&str> = paths
        .iter()
        .map(|(a, _)| a["path"].as_str().unwrap())
        .collect();
    let mut next = spelled.iter().cycle();
    group.bench_function("path_scope_regex_floor", |b| {
        b.iter(|| path_floor.is_match(black_box(next.next().unwrap())))
    });
    group.finish();
}

criterion_group!(benches, bench);

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
