//! `toolhost tools --search QUERY` and `--defer-over CHARS`, and the demo
//! turn where a model searches, loads and calls a deferred tool.

use serde_json::{Value, json};
use tool_core::search::{Budget, DeferPolicy, SearchIndex, SearchStyle, ToolSearch};
use tool_core::{
    ApiDefinition, Invoker, OfferedTools, ProviderFormat, ToolBuilder, ToolCall, ToolContext,
    ToolOutput, ToolRegistry,
};

use crate::Failure;

/// `{"results": [{"name", "score", "description"}]}`: the `limit` best
/// offered APIs for `query` (BM25 over words; see `tool_core::search`).
pub fn search(offered: &OfferedTools, query: &str, limit: usize) -> Result<Value, Failure> {
    let index = SearchIndex::from_offered(offered);
    let hits = index
        .search(query, limit)
        .map_err(|e| Failure::Usage(format!("--search: {e}")))?;
    let results: Vec<Value> = hits
        .iter()
        .map(|h| json!({"name": h.name, "score": h.score, "description": h.description}))
        .collect();
    Ok(json!({ "results": results }))
}

/// `{"tools": [...], "deferral": ExportReport}`: the tool list of `format`
/// with every API over `chars` characters deferred (first fit in offered
/// order), found through the provider's own search where it has one.
pub fn deferred(
    offered: &OfferedTools,
    format: ProviderFormat,
    chars: usize,
) -> Result<Value, Failure> {
    let search = ToolSearch::new(DeferPolicy::over_budget(Budget::Chars(chars)));
    let export = search.export(offered, format);
    Ok(json!({
        "tools": export.tools,
        "deferral": export.report,
        "systemNote": search.system_note(offered, format),
    }))
}

/// The demo: a deferred tool searched for, loaded and called over two turns
/// with the portable `tool_search` (OpenAI Chat shapes).
pub async fn demo_step() -> (String, String, Value) {
    let title = "Thousands of tools: search, load, call".to_owned();
    let explanation = "Only a few definitions are shown in full; the rest are deferred and searchable. Turn 1 offers the loaded tools and `tool_search`; the model searches; turn 2 offers what the search found, and the model calls it. The loaded set is plain data stored with the conversation.".to_owned();
    match demo_turns().await {
        Ok(result) => (title, explanation, result),
        Err(e) => (title, explanation, json!({ "error": e })),
    }
}

async fn demo_turns() -> Result<Value, String> {
    let mut registry = ToolRegistry::new();
    let mut builder = ToolBuilder::new("crm");
    for (name, description) in [
        ("listOpenOrders", "List open orders for a customer ID."),
        ("getCustomer", "Get a customer's profile by ID."),
        ("refundOrder", "Refund an order, in full or in part."),
        ("listInvoices", "List a customer's invoices."),
    ] {
        let api = ApiDefinition::new(name, description).with_parameters(json!({
            "type": "object",
            "properties": {"customer_id": {"type": "string", "description": "The customer ID."}},
        }));
        builder = builder.api(api, move |args: Value, _| async move {
            Ok(ToolOutput::text(format!("{name}: {args}")))
        });
    }
    registry
        .register(builder.build().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let format = ProviderFormat::OpenAiChat;
    let mut search = ToolSearch::new(
        DeferPolicy::default()
            .defer_tool("crm")
            .with_search(SearchStyle::Portable),
    );
    search.sync(&offered);

    let turn1 = search.export(&offered, format);
    let offered1: Vec<Value> = turn1
        .tools
        .iter()
        .map(|t| t["function"]["name"].clone())
        .collect();
    let call = ToolCall::new(
        "tool_search",
        r#"{"query": "open orders of a customer", "limit": 2}"#,
    )
    .with_id("call_1");
    let found = search
        .run_calls(
            &invoker,
            &offered,
            format,
            std::slice::from_ref(&call),
            &ctx,
        )
        .await;
    let stored = serde_json::to_value(search.loaded()).map_err(|e| e.to_string())?;

    let turn2 = search.export(&offered, format);
    let offered2: Vec<Value> = turn2
        .tools
        .iter()
        .map(|t| t["function"]["name"].clone())
        .collect();
    let call2 = ToolCall::new("crm____listOpenOrders", r#"{"customer_id": "CUST-12345"}"#)
        .with_id("call_2");
    let ran = search
        .run_calls(
            &invoker,
            &offered,
            format,
            std::slice::from_ref(&call2),
            &ctx,
        )
        .await;
    Ok(json!({
        "turn1": {"offered": offered1, "report": turn1.report, "call": call, "output": found[0].content},
        "loadedSet": stored,
        "turn2": {"offered": offered2, "report": turn2.report, "call": call2, "output": ran[0].content},
    }))
}
