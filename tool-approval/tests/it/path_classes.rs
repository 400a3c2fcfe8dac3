//! The approval wall reads the same named path classes as the sandbox
//! (`tool_core::approval::PathClass`): secret locations are asked about on any call,
//! protected entries on calls that write them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use tool_approval::{Action, CallRef, Level, PolicyEngine};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest,
    manifest::DynamicIntervention,
};

fn files() -> ToolManifest {
    let mut m = ToolManifest::new("files");
    let audited = HumanIntervention::Dynamic {
        dynamic: DynamicIntervention {
            kind: "pathScopeAudit".into(),
            policy: InterventionPolicy::Required,
            default: InterventionPolicy::Never,
        },
    };
    for name in ["readFile", "writeFile", "moveFiles"] {
        m.api.push(
            ApiDefinition::new(name, "A file operation.")
                .with_intervention(audited.clone())
                .touching_host(),
        );
    }
    m
}

fn decide(api: &str, args: serde_json::Value) -> tool_approval::Decision {
    let dir = tempfile::tempdir().unwrap();
    let engine = PolicyEngine::builder()
        .blacklist(None)
        .confinement_support(tool_core::ConfinementSupport::Available {
            mechanism: "test".into(),
        })
        .build()
        .unwrap();
    let manifest = files();
    let ctx = ToolContext::new().with_cwd(dir.path());
    engine.evaluate_one(
        &CallRef::new("files", api, &args).with_manifest(&manifest),
        &ctx,
    )
}

#[test]
fn secret_classes_are_flagged_on_any_call_inside_the_workspace() {
    for path in ["infra/terraform.tfstate", "prod.tfvars", ".env.local"] {
        let d = decide("readFile", json!({ "path": path }));
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::ApiDynamic),
            "{path}"
        );
        assert!(d.reason.message.contains("secret"), "{}", d.reason.message);
    }
    let d = decide("readFile", json!({"path": ".env.example"}));
    assert_eq!(d.action, Action::Run, "{d:?}");
}

#[test]
fn protected_classes_are_flagged_only_when_written() {
    for path in [
        ".git/hooks/pre-commit",
        ".envrc",
        ".github/workflows/ci.yml",
        "a/../.GIT/config",
    ] {
        let d = decide("writeFile", json!({ "path": path }));
        assert_eq!(d.action, Action::Ask, "{path}: {d:?}");
        assert!(
            d.reason.message.contains("protected"),
            "{}",
            d.reason.message
        );
    }
    // A destination argument is a write whatever the API is called.
    let d = decide(
        "moveFiles",
        json!({"source": "a.txt", "destination": ".husky/pre-push"}),
    );
    assert_eq!(d.action, Action::Ask, "{d:?}");
    // Reading a protected entry, or writing an ordinary file, is fine.
    assert_eq!(
        decide("readFile", json!({"path": ".git/config"})).action,
        Action::Run
    );
    assert_eq!(
        decide("writeFile", json!({"path": "src/main.rs"})).action,
        Action::Run
    );
}

#[test]
fn the_blacklist_reads_secret_classes_too() {
    let engine = PolicyEngine::default();
    let manifest = files();
    for path in ["deploy/terraform.tfstate", "~/.codex/auth.json"] {
        let args = json!({ "path": path });
        let d = engine.evaluate_one(
            &CallRef::new("files", "readFile", &args).with_manifest(&manifest),
            &ToolContext::new(),
        );
        assert_eq!(
            (d.action, d.reason.rule.as_deref()),
            (Action::Ask, Some("blacklist/read-secrets")),
            "{path}"
        );
    }
}
