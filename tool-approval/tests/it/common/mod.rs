//! Shared fixtures for the behaviour tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use tool_approval::{ApprovalMode, CallRef, Decision, PolicyEngine, PolicyFile};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest,
    manifest::DynamicIntervention,
};

pub fn policy_file() -> PolicyFile {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/policy.json");
    PolicyFile::load(std::path::Path::new(path)).expect("fixture policy loads")
}

pub fn engine(mode: ApprovalMode) -> PolicyEngine {
    PolicyEngine::builder()
        .policy_file(&policy_file())
        .mode(mode)
        .build()
        .unwrap()
}

fn path_scope() -> HumanIntervention {
    HumanIntervention::Dynamic {
        dynamic: DynamicIntervention {
            kind: "pathScopeAudit".into(),
            policy: InterventionPolicy::Required,
            default: InterventionPolicy::Never,
        },
    }
}

/// A local-system-like manifest: file APIs behind pathScopeAudit, runCommand required.
pub fn local_system() -> ToolManifest {
    let mut m = ToolManifest::new("local-system");
    let path = json!({"type": "string", "format": "path"});
    for name in [
        "readFile",
        "writeFile",
        "listFiles",
        "globFiles",
        "grepContent",
        "moveFiles",
    ] {
        let params = match name {
            "moveFiles" => {
                json!({"type": "object", "properties": {"items": {"type": "array", "items": {
                "type": "object", "properties": {"oldPath": path, "newPath": path}}}}})
            }
            "globFiles" | "grepContent" => {
                json!({"type": "object", "properties": {"pattern": {"type": "string"}, "scope": path}})
            }
            _ => json!({"type": "object", "properties": {"path": path, "target_file": path,
                "nested": {"type": "object", "properties": {"deep": {"type": "array", "items": {"type": "string", "x-path": true}}}}}}),
        };
        m.api.push(
            ApiDefinition::new(name, "file api")
                .with_parameters(params)
                .with_intervention(path_scope()),
        );
    }
    m.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_parameters(
                json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            )
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
    );
    m
}

pub fn decide(
    engine: &PolicyEngine,
    manifest: &ToolManifest,
    api: &str,
    args: &Value,
    ctx: &ToolContext,
) -> Decision {
    let call = CallRef::new(&manifest.identifier, api, args).with_manifest(manifest);
    engine.evaluate(&[call], ctx).decisions()[0].clone()
}

pub fn run_command(engine: &PolicyEngine, command: &str) -> Decision {
    let manifest = local_system();
    decide(
        engine,
        &manifest,
        "runCommand",
        &json!({ "command": command }),
        &ToolContext::new(),
    )
}
