//! Manifests round-trip through serde and are validated when registered.

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Error, HumanIntervention, InterventionPolicy, ToolBuilder, ToolManifest,
    ToolOutput, ToolRegistry,
    manifest::{ArgMatcher, Executor, RenderDisplayControl, validate_manifest},
};

fn fixture() -> Value {
    serde_json::from_str(include_str!("../fixtures/local-system.manifest.json")).unwrap()
}

#[test]
fn lobehub_shaped_manifest_round_trips_unchanged() {
    let raw = fixture();
    let manifest: ToolManifest = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(manifest.identifier, "local-system");
    assert_eq!(manifest.kind, Some(tool_core::ToolKind::Builtin));
    assert_eq!(manifest.executors(), &[Executor::Client, Executor::Server]);
    assert_eq!(manifest.api[0].default_timeout_ms, Some(30_000));
    assert_eq!(
        manifest.api[1].render_display_control,
        Some(RenderDisplayControl::AlwaysExpand)
    );
    assert_eq!(serde_json::to_value(&manifest).unwrap(), raw);
}

#[test]
fn absent_executors_mean_server_only() {
    let manifest: ToolManifest = serde_json::from_value(json!({"identifier": "x"})).unwrap();
    assert_eq!(manifest.executors(), &[Executor::Server]);
    assert!(manifest.api.is_empty());
}

#[test]
fn intervention_accepts_all_three_forms() {
    let manifest: ToolManifest = serde_json::from_value(fixture()).unwrap();
    let HumanIntervention::Dynamic { dynamic } =
        manifest.api[0].human_intervention.clone().unwrap()
    else {
        panic!("readFile should be dynamic");
    };
    assert_eq!(dynamic.kind, "pathScopeAudit");
    assert_eq!(dynamic.policy, InterventionPolicy::Required);
    assert_eq!(dynamic.default, InterventionPolicy::Never);

    let HumanIntervention::Rules(rules) = manifest.api[1].human_intervention.clone().unwrap()
    else {
        panic!("runCommand should have rules");
    };
    assert_eq!(rules.len(), 3);
    assert_eq!(
        rules[0].matches.as_ref().unwrap()["command"],
        ArgMatcher::Pattern("git add:*".into())
    );
    assert_eq!(
        rules[1].matches.as_ref().unwrap()["command"],
        ArgMatcher::Regex {
            regex: "rm .*".into()
        }
    );
    assert!(rules[2].matches.is_none());
    assert_eq!(
        manifest.human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Required))
    );
}

#[test]
fn dynamic_intervention_defaults_to_always_and_never() {
    let parsed: HumanIntervention =
        serde_json::from_value(json!({"dynamic": {"type": "pathScopeAudit"}})).unwrap();
    assert_eq!(
        parsed,
        HumanIntervention::Dynamic {
            dynamic: tool_core::manifest::DynamicIntervention {
                kind: "pathScopeAudit".into(),
                policy: InterventionPolicy::Always,
                default: InterventionPolicy::Never,
            }
        }
    );
}

#[test]
fn api_level_intervention_shadows_tool_level() {
    let manifest: ToolManifest = serde_json::from_value(fixture()).unwrap();
    assert!(matches!(
        manifest.intervention_for("runCommand"),
        Some(HumanIntervention::Rules(_))
    ));
    assert_eq!(
        manifest.intervention_for("listFiles"),
        Some(&HumanIntervention::Policy(InterventionPolicy::Required))
    );
}

#[test]
fn bad_intervention_forms_are_errors_that_say_what_was_wrong() {
    let unknown: Result<HumanIntervention, _> = serde_json::from_value(json!("sometimes"));
    assert!(unknown.unwrap_err().to_string().contains("unknown policy"));

    let bad_rule: Result<HumanIntervention, _> =
        serde_json::from_value(json!([{"policy": "never"}, {"polcy": "never"}]));
    let message = bad_rule.unwrap_err().to_string();
    assert!(message.contains("humanIntervention[1]"), "{message}");

    let number: Result<HumanIntervention, _> = serde_json::from_value(json!(3));
    assert!(number.unwrap_err().to_string().contains("a number"));

    let dynamic_typo: Result<HumanIntervention, _> =
        serde_json::from_value(json!({"dynamic": {"type": "x", "polcy": "never"}}));
    assert!(
        dynamic_typo
            .unwrap_err()
            .to_string()
            .contains("humanIntervention.dynamic")
    );
}

fn manifest_with(api: Vec<ApiDefinition>) -> ToolManifest {
    let mut manifest = ToolManifest::new("tool");
    manifest.api = api;
    manifest
}

fn invalid_field(error: Error) -> (String, Option<String>, String) {
    match error {
        Error::InvalidManifest {
            tool, api, field, ..
        } => (tool, api, field),
        other => panic!("expected InvalidManifest, got {other:?}"),
    }
}

#[test]
fn invalid_identifier_is_named() {
    let (tool, api, field) =
        invalid_field(validate_manifest(&ToolManifest::new("my tool")).unwrap_err());
    assert_eq!(
        (tool.as_str(), api, field.as_str()),
        ("my tool", None, "/identifier")
    );
}

#[test]
fn invalid_and_duplicate_api_names_are_named() {
    let error =
        validate_manifest(&manifest_with(vec![ApiDefinition::new("read.file", "")])).unwrap_err();
    assert_eq!(
        invalid_field(error),
        (
            "tool".into(),
            Some("read.file".into()),
            "/api/0/name".into()
        )
    );
    let error = validate_manifest(&manifest_with(vec![
        ApiDefinition::new("a", ""),
        ApiDefinition::new("a", ""),
    ]))
    .unwrap_err();
    assert_eq!(invalid_field(error).2, "/api/1/name");
}

#[test]
fn parameters_must_be_an_object_schema_that_compiles() {
    let not_object = manifest_with(vec![ApiDefinition::new("a", "").with_parameters(json!([]))]);
    let error = validate_manifest(&not_object).unwrap_err();
    assert_eq!(invalid_field(error.clone()).2, "/api/0/parameters");
    assert!(error.to_string().contains("an array"));

    let string_type = manifest_with(vec![
        ApiDefinition::new("a", "").with_parameters(json!({"type": "string"})),
    ]);
    assert_eq!(
        invalid_field(validate_manifest(&string_type).unwrap_err()).2,
        "/api/0/parameters/type"
    );

    let broken = manifest_with(vec![
        ApiDefinition::new("ok", ""),
        ApiDefinition::new("b", "")
            .with_parameters(json!({"type": "object", "properties": {"x": {"type": "strang"}}})),
    ]);
    let error = validate_manifest(&broken).unwrap_err();
    assert_eq!(
        invalid_field(error.clone()),
        (
            "tool".into(),
            Some("b".into()),
            "/api/1/parameters/properties/x/type".into()
        )
    );
    assert!(error.to_string().contains("does not compile"));
}

#[test]
fn registering_an_invalid_manifest_fails_and_leaves_registry_empty() {
    struct Raw(ToolManifest);
    #[async_trait::async_trait]
    impl tool_core::Tool for Raw {
        fn manifest(&self) -> &ToolManifest {
            &self.0
        }
        async fn call(
            &self,
            _: &str,
            _: Value,
            _: &tool_core::ToolContext,
        ) -> Result<ToolOutput, tool_core::ToolError> {
            Ok(ToolOutput::text(""))
        }
    }
    let mut registry = ToolRegistry::new();
    let error = registry
        .register(Raw(manifest_with(vec![ApiDefinition::new("", "")])))
        .unwrap_err();
    assert!(error.is_invalid_manifest());
    assert!(registry.is_empty());
}

#[test]
fn builder_refuses_an_api_without_handler() {
    let mut manifest = ToolManifest::new("t");
    manifest.api.push(ApiDefinition::new("a", "a"));
    manifest.api.push(ApiDefinition::new("b", "b"));
    let error = ToolBuilder::from_manifest(manifest)
        .handler("a", |_, _| async { Ok(ToolOutput::text("a")) })
        .build()
        .unwrap_err();
    assert_eq!(
        invalid_field(error),
        ("t".into(), Some("b".into()), "/api/1".into())
    );
}

#[test]
fn typed_api_schema_comes_from_the_rust_type_with_doc_comments() {
    /// Arguments of the search.
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct SearchArgs {
        /// The query text.
        query: String,
        /// How many results (default 10).
        limit: Option<u32>,
        /// Filters.
        filter: Filter,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Filter {
        /// Only these languages.
        languages: Vec<String>,
    }
    let tool = ToolBuilder::new("search")
        .typed(
            ApiDefinition::new("search", "Search."),
            |_: SearchArgs, _| async { Ok(ToolOutput::text("")) },
        )
        .build()
        .unwrap();
    let schema = &tool_core::Tool::manifest(&tool).api[0].parameters;
    assert_eq!(schema["type"], "object");
    assert!(schema.get("$schema").is_none());
    assert_eq!(
        schema["properties"]["query"]["description"],
        "The query text."
    );
    assert_eq!(schema["required"], json!(["query", "filter"]));
    // Nested types are inlined, not `$ref`s.
    assert_eq!(
        schema["properties"]["filter"]["properties"]["languages"]["description"],
        "Only these languages."
    );
    assert!(!schema.to_string().contains("$ref"));
}

#[test]
fn every_problem_is_reported_each_at_its_pointer() {
    let mut manifest = ToolManifest::new("bad id");
    manifest.api.push(ApiDefinition::new("a b", ""));
    manifest
        .api
        .push(ApiDefinition::new("ok", "").with_parameters(json!({"type": "string"})));
    manifest.api.push(
        ApiDefinition::new("ok", "")
            .with_parameters(json!({"type": "object", "properties": {"n": {"minimum": "x"}}})),
    );
    let error = validate_manifest(&manifest).unwrap_err();
    assert!(error.is_invalid_manifest());
    let pointers: Vec<String> = error
        .manifest_problems()
        .into_iter()
        .map(|p| p.pointer)
        .collect();
    assert_eq!(
        pointers,
        [
            "/identifier",
            "/api/0/name",
            "/api/1/parameters/type",
            "/api/2/name",
            "/api/2/parameters/properties/n/minimum"
        ]
    );
    assert_eq!(
        tool_core::manifest::manifest_problems(&manifest, tool_core::manifest::NameRules::Strict)
            .len(),
        5
    );
    assert!(error.to_string().contains("5 problems"), "{error}");
    assert!(
        tool_core::manifest::manifest_problems(
            &ToolManifest::new("fine"),
            tool_core::manifest::NameRules::Strict
        )
        .is_empty()
    );
}
