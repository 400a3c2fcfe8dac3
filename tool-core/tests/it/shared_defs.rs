//! Definitions held once for many APIs: what leaves the process is whole.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Invoker, ToolBuilder, ToolCall, ToolContext, ToolManifest, ToolOutput,
    ToolRegistry,
    export::StrictExport,
    manifest::{NameRules, SharedDefs},
    pipeline::CompiledSchema,
};

fn shared() -> SharedDefs {
    SharedDefs::new(
        json!({
            "Pet": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/$defs/Person"}},
                "required": ["name"],
                "additionalProperties": false
            },
            "Person": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}},
            "Order": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}}
        })
        .as_object()
        .cloned()
        .unwrap(),
    )
}

fn api(name: &str, def: &str, defs: &SharedDefs) -> ApiDefinition {
    ApiDefinition::new(name, format!("Takes a {def}."))
        .with_parameters(json!({
            "type": "object",
            "properties": {"body": {"$ref": format!("#/$defs/{def}")}},
            "required": ["body"]
        }))
        .with_shared_defs(defs.clone())
}

fn registry() -> ToolRegistry {
    let defs = shared();
    let tool = ToolBuilder::new("store")
        .api(api("add_pet", "Pet", &defs), |args, _| async move {
            Ok(ToolOutput::text(
                args["body"]["name"].as_str().unwrap_or("").to_owned(),
            ))
        })
        .api(api("place_order", "Order", &defs), |_, _| async {
            Ok(ToolOutput::text("placed"))
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry
}

fn defs_of(schema: &Value) -> Vec<String> {
    schema["$defs"]
        .as_object()
        .map(|defs| defs.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn provider_exports_carry_exactly_the_definitions_each_api_reaches() {
    let offered = registry().offer(&ToolContext::new());
    let chat = offered.openai_chat_tools();
    let by_name = |tools: &[Value], name: &str, field: &str| -> Value {
        tools
            .iter()
            .find(|t| {
                t.pointer("/function/name")
                    .or(t.get("name"))
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .ends_with(name)
            })
            .and_then(|t| t.pointer(field))
            .cloned()
            .unwrap()
    };
    assert_eq!(
        defs_of(&by_name(&chat, "add_pet", "/function/parameters")),
        ["Person", "Pet"]
    );
    assert_eq!(
        defs_of(&by_name(&chat, "place_order", "/function/parameters")),
        ["Order"]
    );
    let anthropic = offered.anthropic_tools();
    assert_eq!(
        defs_of(&by_name(&anthropic, "add_pet", "/input_schema")),
        ["Person", "Pet"]
    );
    let responses = offered.openai_responses_tools();
    assert_eq!(
        defs_of(&by_name(&responses, "place_order", "/parameters")),
        ["Order"]
    );
    let strict: StrictExport = offered.openai_chat_tools_strict();
    assert!(
        strict
            .tools
            .iter()
            .all(|t| !defs_of(&t["function"]["parameters"]).is_empty())
    );
}

#[tokio::test]
async fn arguments_are_validated_against_the_shared_definitions() {
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let wire = |api: &str| {
        offered
            .openai_chat_tools()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .find(|n| n.ends_with(api))
            .unwrap()
    };
    let invoker = Invoker::default();
    let good = ToolCall::new(
        wire("add_pet"),
        r#"{"body": {"name": "Rex", "owner": {"email": "a@b.c"}}}"#,
    );
    let out = invoker.invoke_in(&registry, &good, &ctx).await;
    assert_eq!(out.content, "Rex", "{out:?}");
    let bad = ToolCall::new(
        wire("add_pet"),
        r#"{"body": {"owner": {}, "colour": "red"}}"#,
    );
    let out = invoker.invoke_in(&registry, &bad, &ctx).await;
    assert!(out.error.is_some(), "{out:?}");
    assert!(
        out.content.contains("/body"),
        "the violation names where: {}",
        out.content
    );
    let zero = ToolCall::new(wire("place_order"), r#"{"body": {"count": 0}}"#);
    let out = invoker.invoke_in(&registry, &zero, &ctx).await;
    assert!(out.content.contains("/body/count"), "{}", out.content);
}

#[test]
fn a_stored_api_is_self_contained_and_loads_back_equal_in_behaviour() {
    let defs = shared();
    let api = api("add_pet", "Pet", &defs);
    let stored = serde_json::to_value(&api).unwrap();
    assert_eq!(defs_of(&stored["parameters"]), ["Person", "Pet"]);
    assert!(api.parameters.get("$defs").is_none());
    let loaded: ApiDefinition = serde_json::from_value(stored.clone()).unwrap();
    assert!(loaded.shared_defs().is_none());
    assert_eq!(loaded.parameters_schema(), api.parameters_schema());
    assert_eq!(serde_json::to_value(&loaded).unwrap(), stored);
}

#[test]
fn a_reference_to_a_missing_definition_is_a_manifest_problem() {
    let mut manifest = ToolManifest::new("store");
    manifest.api.push(api("adopt", "Cat", &shared()));
    let error = CompiledSchema::for_manifest(&manifest, NameRules::Strict, vec![None]).unwrap_err();
    assert!(error.to_string().contains("/api/0/parameters"), "{error}");
}

#[test]
fn shared_and_own_definitions_meet_with_the_own_one_winning() {
    let defs = shared();
    let api = ApiDefinition::new("add", "Adds.")
        .with_parameters(json!({
            "type": "object",
            "properties": {"pet": {"$ref": "#/$defs/Pet"}, "order": {"$ref": "#/$defs/Order"}},
            "$defs": {"Order": {"type": "string"}}
        }))
        .with_shared_defs(defs);
    let whole = api.parameters_schema();
    assert_eq!(whole["$defs"]["Order"], json!({"type": "string"}));
    assert_eq!(defs_of(&whole), ["Order", "Person", "Pet"]);
    let compiled = CompiledSchema::try_compile(&whole).unwrap();
    assert!(
        compiled
            .violations(&json!({"order": "x", "pet": {"name": "a"}}))
            .is_empty()
    );
}

#[test]
fn one_allocation_for_many_apis() {
    let defs = shared();
    let a = api("a", "Pet", &defs);
    let b = api("b", "Order", &defs);
    assert!(a.shared_defs().unwrap().same_as(b.shared_defs().unwrap()));
    let manifest = Arc::new({
        let mut m = ToolManifest::new("many");
        m.api.extend([a, b]);
        m
    });
    let compiled =
        CompiledSchema::for_shared_manifest(&manifest, NameRules::Strict, vec![None, None])
            .unwrap();
    assert!(compiled[0].violations(&json!({"body": {"name": 3}})).len() == 1);
}

#[test]
fn own_definitions_and_the_shared_ones_they_add_come_out_in_name_order() {
    // An importer that cut `Person` to `{}` for one API keeps that stub as
    // its own and shares the rest: written out, `$defs` reads as if all
    // were its own, by name.
    let api = ApiDefinition::new("add_pet", "Adds a pet with an order.")
        .with_parameters(json!({
            "type": "object",
            "properties": {"pet": {"$ref": "#/$defs/Pet"}, "order": {"$ref": "#/$defs/Order"}},
            "$defs": {"Person": {}}
        }))
        .with_shared_defs(shared());
    let schema = api.parameters_schema();
    assert_eq!(defs_of(&schema), ["Order", "Person", "Pet"]);
    assert_eq!(schema["$defs"]["Person"], json!({}), "its own wins");
    // Without own definitions the added ones are in name order too.
    let defs = shared();
    let schema = self::api("add_pet", "Pet", &defs)
        .parameters_schema()
        .into_owned();
    assert_eq!(defs_of(&schema), ["Person", "Pet"]);
}
