//! Registry: registration rules, per-context manifests, wire names, exports, lookups.

use proptest::prelude::*;
use serde_json::json;
use tool_core::{
    ApiDefinition, Error, FnTool, ToolBuilder, ToolContext, ToolManifest, ToolOutput, ToolRegistry,
    export::{SurfaceTable, is_provider_safe, wire_name},
    manifest::{NameRules, RenderDisplayControl},
};

fn tool(identifier: &str, apis: &[&str]) -> FnTool {
    tool_with_rules(identifier, apis, NameRules::Strict)
}

fn tool_with_rules(identifier: &str, apis: &[&str], rules: NameRules) -> FnTool {
    let mut builder = ToolBuilder::new(identifier).name_rules(rules);
    for api in apis {
        let reply = format!("{identifier}/{api}");
        builder = builder.api(
            ApiDefinition::new(*api, format!("Does {api}.")),
            move |_, _| {
                let reply = reply.clone();
                async move { Ok(ToolOutput::text(reply)) }
            },
        );
    }
    builder.build().unwrap()
}

#[test]
fn duplicate_identifiers_are_rejected() {
    let mut registry = ToolRegistry::new();
    registry.register(tool("calc", &["add"])).unwrap();
    let error = registry.register(tool("calc", &["sub"])).unwrap_err();
    assert_eq!(
        error,
        Error::DuplicateTool {
            identifier: "calc".into()
        }
    );
    assert_eq!(registry.len(), 1);
}

#[test]
fn wire_names_round_trip_for_awkward_names() {
    let awkward = [
        ("my.server", "files/read"),
        ("数据工具", "读取文件"),
        ("server one", "tool.v2"),
        ("a", &"very_long_api_name_".repeat(6)),
        (&"very-long-identifier-".repeat(5), "x"),
        (&"i".repeat(100), &"a".repeat(100)),
        ("9starts-with-digit", "ok"),
        ("_leading", "trailing_"),
        ("x", "a____b"),
    ];
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for (id, api) in &awkward {
        registry
            .register(tool_with_rules(id, &[api], NameRules::Foreign))
            .unwrap();
    }
    let offered = registry.offer(&ToolContext::new());
    for (id, api) in &awkward {
        let name = wire_name(id, api);
        assert!(is_provider_safe(&name), "{name:?} is not provider safe");
        assert!(name.len() <= 63);
        let resolved = offered.resolve(&name).unwrap();
        assert_eq!(
            (resolved.identifier(), resolved.api.name.as_str()),
            (*id, *api)
        );
    }
    for tool in offered.openai_chat_tools() {
        let name = tool["function"]["name"].as_str().unwrap();
        assert!(is_provider_safe(name), "{name}");
    }
}

#[test]
fn strict_rules_refuse_what_foreign_rules_accept() {
    let built = ToolBuilder::new("my.server")
        .api(ApiDefinition::new("x", ""), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .build();
    assert!(matches!(built, Err(Error::InvalidManifest { field, .. }) if field == "/identifier"));
    let control = ToolBuilder::new("a\u{7}b")
        .name_rules(NameRules::Foreign)
        .api(ApiDefinition::new("x", ""), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .build();
    assert!(control.is_err(), "control characters are never accepted");
}

#[test]
fn bare_api_names_resolve_only_when_unambiguous() {
    let mut registry = ToolRegistry::new();
    registry
        .register(tool("files", &["read", "write"]))
        .unwrap();
    registry.register(tool("web", &["read", "search"])).unwrap();
    let offered = registry.offer(&ToolContext::new());

    let unique = offered.resolve("search").unwrap();
    assert_eq!(unique.identifier(), "web");

    match offered.resolve("read").unwrap_err() {
        Error::AmbiguousName { name, candidates } => {
            assert_eq!(name, "read");
            assert_eq!(candidates, vec!["files____read", "web____read"]);
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    let code = offered.resolve("read").unwrap_err().to_tool_error().code;
    assert_eq!(code, "ambiguous_tool_name");
}

#[test]
fn unknown_tool_and_unknown_api_are_told_apart() {
    let mut registry = ToolRegistry::new();
    registry.register(tool("files", &["read"])).unwrap();
    let offered = registry.offer(&ToolContext::new());
    let unknown_api = offered.resolve("files____delete").unwrap_err();
    assert_eq!(unknown_api.to_tool_error().code, "unknown_api");
    let unknown_tool = offered.resolve("nope____read").unwrap_err();
    assert_eq!(unknown_tool.to_tool_error().code, "tool_not_found");
    let nothing = offered.resolve("delete").unwrap_err();
    assert_eq!(nothing.to_tool_error().code, "tool_not_found");
}

#[test]
fn a_tool_can_hide_itself_or_trim_its_apis_in_a_sub_agent() {
    let mut registry = ToolRegistry::new();
    let agent = ToolBuilder::new("agent")
        .api(
            ApiDefinition::new("spawnSubAgent", "Spawn."),
            |_, _| async { Ok(ToolOutput::text("spawned")) },
        )
        .api(ApiDefinition::new("status", "Status."), |_, _| async {
            Ok(ToolOutput::text("ok"))
        })
        .resolver(|manifest: &ToolManifest, ctx: &ToolContext| {
            let mut trimmed = manifest.clone();
            if ctx.is_sub_agent() {
                trimmed.api.retain(|api| api.name != "spawnSubAgent");
            }
            Some(trimmed)
        })
        .build()
        .unwrap();
    let secret = ToolBuilder::new("secret")
        .api(ApiDefinition::new("reveal", "Reveal."), |_, _| async {
            Ok(ToolOutput::text("42"))
        })
        .resolver(|m: &ToolManifest, ctx: &ToolContext| (!ctx.is_sub_agent()).then(|| m.clone()))
        .build()
        .unwrap();
    registry.register(agent).unwrap();
    registry.register(secret).unwrap();

    let main = registry.offer(&ToolContext::new());
    assert_eq!(main.api_count(), 3);
    let sub = registry.offer(&ToolContext::new().with_sub_agent(true));
    assert_eq!(sub.api_count(), 1);
    assert!(sub.get("secret").is_none());
    assert_eq!(
        sub.resolve("agent____spawnSubAgent")
            .unwrap_err()
            .to_tool_error()
            .code,
        "unknown_api"
    );
    assert_eq!(
        sub.resolve("secret____reveal")
            .unwrap_err()
            .to_tool_error()
            .code,
        "tool_not_found"
    );
}

#[test]
fn an_invalid_resolved_manifest_is_left_out_and_reported() {
    let mut registry = ToolRegistry::new();
    let shifty = ToolBuilder::new("shifty")
        .api(ApiDefinition::new("a", "A."), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .resolver(|m: &ToolManifest, _| {
            let mut m = m.clone();
            m.api[0].parameters =
                json!({"type": "object", "properties": {"x": {"type": 5}}}).into();
            Some(m)
        })
        .build()
        .unwrap();
    registry.register(shifty).unwrap();
    let offered = registry.offer(&ToolContext::new());
    assert!(offered.get("shifty").is_none());
    assert_eq!(offered.problems().len(), 1);
    assert!(offered.problems()[0].is_invalid_manifest());
}

#[test]
fn exports_have_each_providers_shape() {
    let mut registry = ToolRegistry::new();
    registry.register(tool("calc", &["add"])).unwrap();
    let offered = registry.offer(&ToolContext::new());
    let params = json!({"type": "object", "properties": {}});
    assert_eq!(
        offered.openai_chat_tools(),
        vec![json!({"type": "function", "function": {
            "name": "calc____add", "description": "Does add.", "parameters": params}})]
    );
    assert_eq!(
        offered.openai_responses_tools(),
        vec![json!({"type": "function", "name": "calc____add",
            "description": "Does add.", "parameters": params, "strict": false})]
    );
    assert_eq!(
        offered.anthropic_tools(),
        vec![json!({"name": "calc____add", "description": "Does add.", "input_schema": params})]
    );
}

#[test]
fn system_prompt_combines_the_offered_tools_roles() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("web")
                .title("Web \"Search\"")
                .system_role("Cite your sources.")
                .api(ApiDefinition::new("search", ""), |_, _| async {
                    Ok(ToolOutput::text(""))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry.register(tool("calc", &["add"])).unwrap();
    let prompt = registry.offer(&ToolContext::new()).system_prompt().unwrap();
    assert!(prompt.contains("<tool identifier=\"web\" title=\"Web &quot;Search&quot;\">"));
    assert!(prompt.contains("Cite your sources."));
    assert!(!prompt.contains("calc"));

    let mut plain = ToolRegistry::new();
    plain.register(tool("calc", &["add"])).unwrap();
    assert_eq!(plain.offer(&ToolContext::new()).system_prompt(), None);
}

#[test]
fn display_control_lookup_falls_back_to_collapsed() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("web")
                .api(
                    ApiDefinition::new("search", "")
                        .with_display_control(RenderDisplayControl::Expand),
                    |_, _| async { Ok(ToolOutput::text("")) },
                )
                .api(ApiDefinition::new("crawl", ""), |_, _| async {
                    Ok(ToolOutput::text(""))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        registry.display_control("web", "search"),
        RenderDisplayControl::Expand
    );
    assert_eq!(
        registry.display_control("web", "crawl"),
        RenderDisplayControl::Collapsed
    );
    assert_eq!(
        registry.display_control("nope", "x"),
        RenderDisplayControl::Collapsed
    );
    let offered = registry.offer(&ToolContext::new());
    assert_eq!(
        offered.display_control("web", "search"),
        RenderDisplayControl::Expand
    );
}

#[test]
fn surface_tables_look_up_exact_then_tool_then_fallback() {
    let mut table: SurfaceTable<&str> = SurfaceTable::new();
    assert_eq!(table.get("a", "b"), None);
    table.insert("web", "search", "SearchCard");
    table.extend([("calc".to_owned(), vec![("add".to_owned(), "Sum")])]);
    assert_eq!(table.get("calc", "add"), Some(&"Sum"));
    assert_eq!(table.get("web", "crawl"), None);
    table.insert_tool("web", "WebCard");
    table.set_fallback("Json");
    assert_eq!(table.get("web", "search"), Some(&"SearchCard"));
    assert_eq!(table.get("web", "crawl"), Some(&"WebCard"));
    assert_eq!(table.get("calc", "sub"), Some(&"Json"));
    assert!(table.has_tool("web") && !table.has_tool("x"));
    assert_eq!(table.insert("web", "search", "New"), Some("SearchCard"));
}

proptest! {
    #[test]
    fn any_pair_gets_a_provider_safe_deterministic_name(id in "\\PC{0,80}", api in "\\PC{0,80}") {
        let name = wire_name(&id, &api);
        prop_assert!(is_provider_safe(&name), "{:?}", name);
        prop_assert_eq!(name.matches("____").count(), 1);
        prop_assert_eq!(name, wire_name(&id, &api));
    }

    #[test]
    fn distinct_foreign_pairs_get_distinct_names(a in "[a-z./ ]{1,70}", b in "[a-z./ ]{1,70}") {
        prop_assume!(a != b);
        prop_assert_ne!(wire_name("t", &a), wire_name("t", &b));
    }
}
