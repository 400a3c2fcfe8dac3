//! A live registry: replace and remove while calls are in flight; cached snapshots; per-tool name rules.

use std::sync::Arc;

use tokio::sync::Notify;
use tool_core::{
    ApiDefinition, Error, FnTool, Invoker, LiveRegistry, ToolBuilder, ToolCall, ToolContext,
    ToolOutput, ToolRegistry, manifest::NameRules,
};

/// `srv____ping` answering `version`, after `gate` is notified when one is given.
fn server(version: &'static str, gate: Option<Arc<Notify>>) -> FnTool {
    ToolBuilder::new("srv")
        .api(ApiDefinition::new("ping", "Pings."), move |_, _| {
            let gate = gate.clone();
            async move {
                if let Some(gate) = gate {
                    gate.notified().await;
                }
                Ok(ToolOutput::text(version))
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_replace_while_a_call_runs_leaves_that_call_on_the_old_tool() {
    let live = LiveRegistry::new();
    let gate = Arc::new(Notify::new());
    live.register(server("v1", Some(Arc::clone(&gate))))
        .unwrap();
    let ctx = ToolContext::new();
    let before = live.offer(&ctx);

    let in_flight = tokio::spawn({
        let before = before.clone();
        let ctx = ctx.clone();
        async move {
            Invoker::default()
                .invoke(&before, &ToolCall::new("srv____ping", ""), &ctx)
                .await
        }
    });
    tokio::task::yield_now().await;

    let old = live.replace(server("v2", None)).unwrap();
    assert!(old.is_some(), "the replaced tool is handed back");
    let after = live.offer(&ctx);
    assert!(!after.shares_snapshot_with(&before));
    let now = Invoker::default()
        .invoke(&after, &ToolCall::new("srv____ping", ""), &ctx)
        .await;
    assert_eq!(now.content, "v2", "new calls see the replacement");

    gate.notify_one();
    let finished = in_flight.await.unwrap();
    assert_eq!(
        finished.content, "v1",
        "the running call finished on the tool it started with"
    );
    gate.notify_one(); // a permit for the next call on the old tool
    let again = Invoker::default()
        .invoke(&before, &ToolCall::new("srv____ping", ""), &ctx)
        .await;
    assert!(
        again.is_success(),
        "the old snapshot stays usable: {again:?}"
    );
}

#[tokio::test]
async fn a_removed_tool_finishes_its_running_call_and_is_offered_no_more() {
    let live = LiveRegistry::new();
    let gate = Arc::new(Notify::new());
    live.register(server("v1", Some(Arc::clone(&gate))))
        .unwrap();
    let ctx = ToolContext::new();
    let before = live.offer(&ctx);
    let in_flight = tokio::spawn({
        let ctx = ctx.clone();
        async move {
            Invoker::default()
                .invoke(&before, &ToolCall::new("srv____ping", ""), &ctx)
                .await
        }
    });
    tokio::task::yield_now().await;
    assert!(live.remove("srv").is_some());
    assert!(live.remove("srv").is_none());
    let after = live.offer(&ctx);
    let out = Invoker::default()
        .invoke(&after, &ToolCall::new("srv____ping", ""), &ctx)
        .await;
    assert_eq!(out.error_code().unwrap(), "tool_not_found");
    gate.notify_one();
    assert_eq!(in_flight.await.unwrap().content, "v1");
}

#[test]
fn offer_reuses_the_snapshot_until_something_changes() {
    let mut registry = ToolRegistry::new();
    registry.register(server("v1", None)).unwrap();
    let ctx = ToolContext::new();
    let a = registry.offer(&ctx);
    let b = registry.offer(&ctx.clone().with_user_id("someone else"));
    assert!(
        a.shares_snapshot_with(&b),
        "nothing changed, nothing rebuilt"
    );
    let generation = registry.generation();
    registry.replace(server("v2", None)).unwrap();
    assert_eq!(registry.generation(), generation + 1);
    let c = registry.offer(&ctx);
    assert!(!c.shares_snapshot_with(&a));
    assert_eq!(c.generation(), registry.generation());
    assert!(registry.offer(&ctx).shares_snapshot_with(&c));
}

#[test]
fn tools_that_resolve_per_context_are_rebuilt_each_offer() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("moody")
                .api(ApiDefinition::new("a", "A."), |_, _| async {
                    Ok(ToolOutput::text("a"))
                })
                .api(ApiDefinition::new("b", "B."), |_, _| async {
                    Ok(ToolOutput::text("b"))
                })
                .resolver(|manifest, ctx| {
                    let mut trimmed = manifest.clone();
                    if ctx.is_sub_agent() {
                        trimmed.api.retain(|api| api.name == "a");
                    }
                    Some(trimmed)
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let main = registry.offer(&ToolContext::new());
    let sub = registry.offer(&ToolContext::new().with_sub_agent(true));
    assert_eq!((main.api_count(), sub.api_count()), (2, 1));
    assert!(!main.shares_snapshot_with(&registry.offer(&ToolContext::new())));
}

#[test]
fn a_failed_replace_changes_nothing() {
    let mut registry = ToolRegistry::new();
    registry.register(server("v1", None)).unwrap();
    registry
        .register(
            ToolBuilder::new("other")
                .api(ApiDefinition::new("x", "X."), |_, _| async {
                    Ok(ToolOutput::text("x"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let generation = registry.generation();
    // `other` renamed so that one of its APIs collides with `srv____ping`.
    let colliding = ToolBuilder::new("other")
        .api(ApiDefinition::new("x", "X."), |_, _| async {
            Ok(ToolOutput::text("x"))
        })
        .build()
        .unwrap();
    assert!(
        registry.replace(colliding).unwrap().is_some(),
        "same names: fine"
    );
    let bad = ToolBuilder::new("srv")
        .name_rules(NameRules::Foreign)
        .api(ApiDefinition::new("p i n g", "Bad."), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .build()
        .unwrap();
    registry.replace(bad).unwrap();
    let strict_again = ToolBuilder::new("srv")
        .api(ApiDefinition::new("ping", "P."), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .build()
        .unwrap();
    registry.replace(strict_again).unwrap();
    assert_eq!(registry.generation(), generation + 3);
    assert_eq!(
        registry.identifiers().collect::<Vec<_>>(),
        ["srv", "other"],
        "positions kept"
    );
    let offered = registry.offer(&ToolContext::new());
    assert!(offered.resolve("srv____ping").is_ok());
    assert!(offered.resolve("other____x").is_ok());
}

#[test]
fn retain_removes_a_servers_tools_at_once() {
    let mut registry = ToolRegistry::new();
    for id in ["mcp-a-1", "mcp-a-2", "local"] {
        registry
            .register(
                ToolBuilder::new(id)
                    .api(ApiDefinition::new("x", "X."), |_, _| async {
                        Ok(ToolOutput::text("x"))
                    })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    let generation = registry.generation();
    assert_eq!(registry.retain(|m| !m.identifier.starts_with("mcp-a-")), 2);
    assert_eq!(registry.generation(), generation + 1);
    assert_eq!(registry.identifiers().collect::<Vec<_>>(), ["local"]);
    assert!(registry.get("local").is_some());
    // The freed wire names can be registered again.
    registry
        .register(
            ToolBuilder::new("mcp-a-1")
                .api(ApiDefinition::new("x", "X."), |_, _| async {
                    Ok(ToolOutput::text("x"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(registry.offer(&ToolContext::new()).api_count(), 2);
}

#[test]
fn name_rules_travel_with_the_tool_not_the_registry() {
    let foreign = ToolBuilder::new("my.server/v2")
        .name_rules(NameRules::Foreign)
        .api(ApiDefinition::new("files/read", "Reads."), |_, _| async {
            Ok(ToolOutput::text("read"))
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new(); // strict
    registry.register(foreign).unwrap();

    // A builtin with a foreign-looking name still needs strict rules: the
    // builder refuses it, and a hand-written Tool is refused at registration.
    let error = ToolBuilder::new("bad name")
        .api(ApiDefinition::new("x", "X."), |_, _| async {
            Ok(ToolOutput::text("x"))
        })
        .build()
        .unwrap_err();
    assert!(matches!(error, Error::InvalidManifest { .. }));

    struct Handwritten(tool_core::ToolManifest);
    #[async_trait::async_trait]
    impl tool_core::Tool for Handwritten {
        fn manifest(&self) -> &tool_core::ToolManifest {
            &self.0
        }
        async fn call(
            &self,
            _: &str,
            _: serde_json::Value,
            _: &ToolContext,
        ) -> Result<ToolOutput, tool_core::ToolError> {
            Ok(ToolOutput::text(""))
        }
    }
    let mut manifest = tool_core::ToolManifest::new("also bad");
    manifest.api.push(ApiDefinition::new("x", "X."));
    let error = registry
        .register(Handwritten(manifest.clone()))
        .unwrap_err();
    assert!(error.is_invalid_manifest(), "{error}");

    // A registry opened to foreign names accepts it for every tool.
    let mut open = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    open.register(Handwritten(manifest)).unwrap();
}

#[test]
fn exported_tool_lists_are_built_once_per_snapshot() {
    let mut registry = ToolRegistry::new();
    registry.register(server("v1", None)).unwrap();
    let ctx = ToolContext::new();
    let first = registry
        .offer(&ctx)
        .tools_shared(tool_core::ProviderFormat::Anthropic);
    let again = registry
        .offer(&ctx)
        .tools_shared(tool_core::ProviderFormat::Anthropic);
    assert!(Arc::ptr_eq(&first, &again), "same snapshot, same list");
    assert_eq!(first.to_vec(), registry.offer(&ctx).anthropic_tools());
    registry.remove("srv");
    let after = registry
        .offer(&ctx)
        .tools_shared(tool_core::ProviderFormat::Anthropic);
    assert!(after.is_empty());
    assert_eq!(first.len(), 1, "the earlier list is unchanged");
}
