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
    let simple = json!({"command": "git status -s"});
    let compound =
        json!({"command": "git add -A src && git status; ls -la | ls && git push origin main"});
    c.bench_function("approval/evaluate_simple_command", |b| {
        b.iter(|| {
            let call = CallRef::new("local-system", "runCommand", &simple).with_manifest(&manifest);
            black_box(engine.evaluate(black_box(&[call]), &ctx))
        })
    });
    c.bench_function("approval/evaluate_compound_command", |b| {
        b.iter(|| {
            let call =
                CallRef::new("local-system", "runCommand", &compound).with_manifest(&manifest);
            black_box(engine.evaluate(black_box(&[call]), &ctx))
        })
    });
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
