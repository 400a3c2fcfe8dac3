//! Approval engine: evaluate() on simple and compound commands, and a path-scope audit.
#![allow(clippy::panic)] // a bench with a broken fixture should stop loudly

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tool_approval::{CallRef, PolicyEngine, PolicyFile};
use tool_core::{
    ApiDefinition, DynamicIntervention, HumanIntervention, InterventionPolicy, ToolContext,
    ToolManifest,
};

fn manifest() -> ToolManifest {
    let mut m = ToolManifest::new("local-system");
    m.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
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

fn engine() -> PolicyEngine {
    let file = PolicyFile::from_json(
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "git status:*"}, "policy": "never"},
            {"match": {"command": "git add:*"}, "policy": "never"},
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"match": {"command": "git push:*"}, "policy": "deny"},
            {"policy": "required"}
        ]}}"#,
    );
    match file.and_then(|f| f.engine()) {
        Ok(engine) => engine,
        Err(e) => panic!("bench policy: {e}"),
    }
}

fn bench(c: &mut Criterion) {
    let engine = engine();
    let manifest = manifest();
    let ctx = ToolContext::new();
    // Eight spellings of each command (a trailing comment), more than the
    // parser's per-thread reuse keeps, so every evaluation parses afresh.
    let variants = |command: &str| -> Vec<serde_json::Value> {
        (0..8)
            .map(|i| json!({ "command": format!("{command} # {i}") }))
            .collect()
    };
    let simple = variants("git status -s");
    let compound = variants("git add -A src && git status; ls -la | ls && git push origin main");
    for (name, args) in [
        ("approval/evaluate_simple_command", &simple),
        ("approval/evaluate_compound_command", &compound),
    ] {
        let mut next = args.iter().cycle();
        c.bench_function(name, |b| {
            b.iter(|| {
                let args = next.next().unwrap_or(&args[0]);
                let call =
                    CallRef::new("local-system", "runCommand", args).with_manifest(&manifest);
                black_box(engine.evaluate(black_box(&[call]), &ctx))
            })
        });
    }
    let dir = std::env::temp_dir();
    let ctx = ToolContext::new().with_cwd(&dir);
    let path = json!({"path": "some/dir/../file.txt"});
    c.bench_function("approval/evaluate_path_scope", |b| {
        b.iter(|| {
            let call = CallRef::new("local-system", "readFile", &path).with_manifest(&manifest);
            black_box(engine.evaluate(black_box(&[call]), &ctx))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
