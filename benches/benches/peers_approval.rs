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
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use regex::Regex;
use serde_json::{Value, json};
use tool_approval::{Action, CallRef, PolicyEngine, PolicyFile};
use tool_core::{
    ApiDefinition, DynamicIntervention, HumanIntervention, InterventionPolicy, ToolContext,
    ToolManifest,
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
    let simples: Vec<String> = (0..16)
        .map(|i| format!("git diff --stat src/m{i}.rs"))
        .collect();
    let simple_args: Vec<Value> = simples.iter().map(|c| json!({ "command": c })).collect();
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
    let commands: Vec<String> = (0..16)
        .map(|i| {
            format!(
                "git add -A src/m{i} && cargo test -p tool-core; ls -la src | grep lib && echo done {i}"
            )
        })
        .collect();
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
criterion_main!(benches);
