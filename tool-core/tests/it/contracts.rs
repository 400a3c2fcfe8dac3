//! Typed contracts shared across crates: API keys, tool kinds, audit kinds, error codes.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;
use tool_core::{
    ApiDefinition, ApiKey, ErrorCode, HumanIntervention, Invoker, Tool, ToolBuilder, ToolCall,
    ToolContext, ToolKind, ToolManifest, ToolOutput, ToolRegistry,
    approval::PATH_SCOPE_AUDIT,
    assembly::{Assembler, BuiltinProvider, ToolReference},
    manifest::DynamicIntervention,
};

fn clock() -> Arc<dyn Tool> {
    Arc::new(
        ToolBuilder::new("clock")
            .tool_kind(ToolKind::Builtin)
            .api(ApiDefinition::new("now", "Time."), |_, _| async {
                Ok(ToolOutput::text("noon"))
            })
            .build()
            .unwrap(),
    )
}

#[test]
fn api_keys_parse_sort_and_serialise_as_written() {
    let keys: BTreeSet<ApiKey> = serde_json::from_value(json!(["b/x", "a/y", "a/x"])).unwrap();
    let written: Vec<String> = keys.iter().map(ToString::to_string).collect();
    assert_eq!(written, ["a/x", "a/y", "b/x"]);
    let error = serde_json::from_value::<Vec<ApiKey>>(json!(["a/x", "a x/y"])).unwrap_err();
    assert!(error.to_string().contains("a x/y"), "{error}");
}

#[test]
fn a_prepared_call_and_a_resolved_name_give_the_same_key() {
    let mut registry = ToolRegistry::new();
    registry.register_arc(clock()).unwrap();
    let offered = registry.offer(&ToolContext::new());
    let prepared = Invoker::default()
        .prepare(&offered, &ToolCall::new("clock____now", ""))
        .unwrap();
    assert_eq!(prepared.api_key(), "clock/now".parse().unwrap());
    assert_eq!(
        offered.resolve("now").unwrap().api_key(),
        prepared.api_key()
    );
}

#[test]
fn one_spelling_of_builtin_with_older_ones_still_read() {
    assert_eq!(
        ToolReference::new(ToolKind::Builtin, "p", "t"),
        ToolReference::new("builtin", "p", "t")
    );
    assert_eq!(clock().manifest().kind, Some(ToolKind::Builtin));
    assert_eq!(clock().manifest().tool_kind(), Some(ToolKind::Builtin));
    for kind in ToolKind::ALL {
        assert_eq!(ToolKind::parse(kind.as_str()), Some(kind));
        for alias in kind.aliases() {
            assert_eq!(ToolKind::parse(alias), Some(kind));
        }
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
    }
    let error = "robot".parse::<ToolKind>().unwrap_err();
    assert!(error.to_string().contains("robot"));
    // Manifests carry the kind typed: stored older spellings still load,
    // one written as the workspace spells it, and an unknown one is an
    // error naming it, never dropped.
    let stored: ToolManifest =
        serde_json::from_value(json!({"identifier": "x", "type": "builtin_tool"})).unwrap();
    assert_eq!(stored.tool_kind(), Some(ToolKind::Builtin));
    assert_eq!(serde_json::to_value(&stored).unwrap()["type"], "builtin");
    let error = serde_json::from_value::<ToolManifest>(json!({"identifier": "x", "type": "robot"}))
        .unwrap_err();
    assert!(error.to_string().contains("robot"), "{error}");
    assert_eq!(ToolManifest::new("x").tool_kind(), None);
}

#[tokio::test]
async fn references_under_any_spelling_of_a_kind_reach_its_provider() {
    let mut builtin = BuiltinProvider::new();
    builtin
        .factory("core", "clock", json!({"type": "object"}), |_| Ok(clock()))
        .unwrap();
    let assembler = Assembler::new().with_provider(builtin);
    let assembled = assembler
        .assemble(&[
            ToolReference::new("builtin", "core", "clock"),
            ToolReference::new("builtin_tool", "core", "clock"),
            ToolReference::new("mcp", "core", "clock"),
        ])
        .await;
    assert_eq!(assembled.tools.len(), 2);
    assert_eq!(assembled.failures.len(), 1, "no mcp provider registered");
    assert!(assembler.provider_for("builtin_tool").is_some());
    assert!(assembler.provider_for("nonsense").is_none());
}

#[test]
fn audit_kind_and_blocked_code_are_constants() {
    let dynamic = DynamicIntervention::path_scope_audit();
    assert_eq!(dynamic.kind, PATH_SCOPE_AUDIT);
    assert!(dynamic.is_path_scope_audit());
    let parsed: HumanIntervention =
        serde_json::from_value(json!({"dynamic": {"type": "pathScopeAudit"}})).unwrap();
    assert_eq!(parsed, HumanIntervention::Dynamic { dynamic });
    assert_eq!(
        ErrorCode::BLOCKED_BY_SECURITY_PRIVACY,
        "blocked_by_security_privacy"
    );
}

#[tokio::test]
async fn a_tool_called_directly_with_an_unknown_api_names_the_nearest() {
    let tool = clock();
    let error = tool
        .call("nwo", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::UNKNOWN_API);
    assert!(
        error.message.contains("did you mean `now`?"),
        "{}",
        error.message
    );
    let details = error.details.unwrap();
    assert_eq!(details["available"], json!(["now"]));
    let error = tool
        .call("teleport", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        error.message.ends_with("its APIs: now"),
        "{}",
        error.message
    );
}
