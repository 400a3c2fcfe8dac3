//! Deferred tool definitions and tool search through the public API: the
//! index (BM25, regex, incremental updates), the three provider exports
//! against fixtures written from the providers' docs and SDK types, and a
//! deferred tool found, loaded and called end to end for each provider.

use serde_json::{Value, json};
use tool_core::search::{
    AnthropicSearch, Budget, DeferPolicy, DeferReason, LoadedSet, SearchIndex, SearchQuery,
    SearchStyle, ToolSearch, terms,
};
use tool_core::{
    ApiDefinition, Error, Invoker, OfferedTools, ProviderFormat, ToolBuilder, ToolCall,
    ToolContext, ToolKind, ToolOutput, ToolRegistry,
};

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers/tool_search")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn echo(
    name: &'static str,
) -> impl Fn(Value, ToolContext) -> futures::future::Ready<Result<ToolOutput, tool_core::ToolError>>
+ Send
+ Sync
+ 'static {
    move |args: Value, _| futures::future::ready(Ok(ToolOutput::text(format!("{name} {args}"))))
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn github() -> tool_core::FnTool {
    ToolBuilder::new("github")
        .tool_kind(ToolKind::Api)
        .title("GitHub REST")
        .api(
            ApiDefinition::new("listRepoIssues", "List issues in a repository.").with_parameters(
                object(json!({
                    "owner": {"type": "string", "description": "The account owner."},
                    "state": {"type": "string", "description": "open, closed or all."}
                })),
            ),
            echo("listRepoIssues"),
        )
        .api(
            ApiDefinition::new("createIssue", "Create an issue.").with_parameters(object(
                json!({"title": {"type": "string", "description": "The title of the issue."}}),
            )),
            echo("createIssue"),
        )
        .api(
            ApiDefinition::new("listPullRequests", "List pull requests.").with_parameters(object(
                json!({"base": {"type": "string", "description": "Filter by base branch name."}}),
            )),
            echo("listPullRequests"),
        )
        .api(
            ApiDefinition::new("getRepository", "Get a repository.").with_parameters(object(
                json!({"repo": {"type": "string", "description": "The name of the repository."}}),
            )),
            echo("getRepository"),
        )
        .build()
        .unwrap()
}

fn weather() -> tool_core::FnTool {
    ToolBuilder::new("weather")
        .api(
            ApiDefinition::new("forecast", "Weather forecast for a city.")
                .with_parameters(json!({
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name."}},
                    "required": ["city"]
                }))
                .deferred(),
            |args: Value, _| async move {
                Ok(ToolOutput::text(format!(
                    "rain in {}",
                    args["city"].as_str().unwrap_or("?")
                )))
            },
        )
        .build()
        .unwrap()
}

fn clock() -> tool_core::FnTool {
    ToolBuilder::new("clock")
        .api(ApiDefinition::new("now", "Current time."), |_, _| async {
            Ok(ToolOutput::text("12:00"))
        })
        .build()
        .unwrap()
}

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(clock()).unwrap();
    registry.register(github()).unwrap();
    registry.register(weather()).unwrap();
    registry
}

fn offered() -> OfferedTools {
    registry().offer(&ToolContext::new())
}

fn names(hits: &[tool_core::search::SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

#[test]
fn bm25_finds_apis_by_name_words_description_and_parameters() {
    let index = SearchIndex::from_offered(&offered());
    assert_eq!(index.len(), 6);
    assert_eq!(
        index.search("repo issues", 3).unwrap()[0].name,
        "github____listRepoIssues"
    );
    assert_eq!(
        index.search("pull requests", 1).unwrap()[0].name,
        "github____listPullRequests"
    );
    // Only a parameter description says "branch".
    assert_eq!(
        names(&index.search("branch", 5).unwrap()),
        ["github____listPullRequests"]
    );
    // The tool identifier is searchable: every github API matches.
    assert_eq!(index.search("github", 10).unwrap().len(), 4);
    let hit = &index.search("forecast", 1).unwrap()[0];
    assert_eq!(
        (hit.identifier.as_str(), hit.api.as_str()),
        ("weather", "forecast")
    );
    assert_eq!(hit.description, "Weather forecast for a city.");
    assert!(index.search("teleport", 5).unwrap().is_empty());
}

#[test]
fn equal_scores_are_ordered_by_wire_name_every_time() {
    let mut registry = ToolRegistry::new();
    for id in ["zeta", "alpha", "mid"] {
        registry
            .register(
                ToolBuilder::new(id)
                    .api(ApiDefinition::new("ping", "Ping a host."), |_, _| async {
                        Ok(ToolOutput::text("pong"))
                    })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    let index = SearchIndex::from_offered(&registry.offer(&ToolContext::new()));
    let hits = index.search("ping host", 10).unwrap();
    assert_eq!(
        names(&hits),
        ["alpha____ping", "mid____ping", "zeta____ping"]
    );
    assert!(hits.windows(2).all(|w| w[0].score == w[1].score));
    assert_eq!(
        names(&index.search("ping", 2).unwrap()),
        ["alpha____ping", "mid____ping"]
    );
}

#[test]
fn regex_queries_match_names_descriptions_and_parameters() {
    let index = SearchIndex::from_offered(&offered());
    let hits = index.search_regex("(?i)pull", 5).unwrap();
    assert_eq!(names(&hits), ["github____listPullRequests"]);
    // A name match outranks a parameter-description match.
    let hits = index.search_regex("repo", 5).unwrap();
    assert_eq!(hits[0].name, "github____getRepository");
    assert!(names(&hits).contains(&"github____listRepoIssues"));
    let words = index
        .query(&SearchQuery::Words("weather".into()), 5)
        .unwrap();
    assert_eq!(words[0].name, "weather____forecast");
}

#[test]
fn bad_queries_are_typed_errors_naming_the_query() {
    let index = SearchIndex::from_offered(&offered());
    for (result, query) in [
        (index.search_regex("(unclosed", 5), "(unclosed"),
        (index.search_regex("", 5), ""),
        (index.search("the of a", 5), "the of a"),
        (index.search("", 5), ""),
    ] {
        match result {
            Err(Error::InvalidSearchQuery { query: q, .. }) => assert_eq!(q, query),
            other => panic!("{query:?}: {other:?}"),
        }
    }
    let long = "a".repeat(201);
    assert!(matches!(
        index.search_regex(&long, 5),
        Err(Error::InvalidSearchQuery { message, .. }) if message.contains("200")
    ));
    // A pattern that compiles into too large a program is refused, not built.
    assert!(matches!(
        index.search_regex("\\w{1000}\\w{1000}\\w{1000}", 5),
        Err(Error::InvalidSearchQuery { .. })
    ));
}

#[test]
fn list_changed_reindexes_only_the_changed_tool_and_drops_removed_ones() {
    let mut registry = registry();
    let ctx = ToolContext::new();
    let mut index = SearchIndex::new();
    let report = index.sync(&registry.offer(&ctx));
    assert_eq!((report.added, report.unchanged), (3, 0));
    let report = index.sync(&registry.offer(&ctx));
    assert_eq!((report.added, report.replaced, report.unchanged), (0, 0, 3));

    // The MCP server behind "weather" says tools/list_changed: one tool is replaced.
    registry
        .replace(
            ToolBuilder::new("weather")
                .api(
                    ApiDefinition::new("radar", "Rain radar images."),
                    |_, _| async { Ok(ToolOutput::text("radar")) },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let report = index.sync(&registry.offer(&ctx));
    assert_eq!(
        (report.replaced, report.unchanged, report.removed),
        (1, 2, 0)
    );
    assert!(index.search("forecast", 5).unwrap().is_empty());
    assert_eq!(
        index.search("radar", 5).unwrap()[0].name,
        "weather____radar"
    );

    registry.remove("github");
    let report = index.sync(&registry.offer(&ctx));
    assert_eq!(report.removed, 1);
    assert!(!index.contains_tool("github"));
    assert!(index.search("issues", 5).unwrap().is_empty());

    // The updated index ranks exactly like one built from scratch.
    registry.register(github()).unwrap();
    index.sync(&registry.offer(&ctx));
    let fresh = SearchIndex::from_offered(&registry.offer(&ctx));
    for query in [
        "issues",
        "repository owner",
        "rain",
        "time",
        "list",
        "create title",
    ] {
        assert_eq!(
            index.search(query, 10).unwrap(),
            fresh.search(query, 10).unwrap(),
            "{query}"
        );
    }
}

#[test]
fn tokenizer_rules_hold_for_queries_and_text_alike() {
    assert_eq!(terms("listRepoIssues"), terms("list repo issues"));
    assert_eq!(terms("HTTPServer"), ["http", "server"]);
}

/// Every key `ours` uses is one the documented object has.
fn keys_documented(ours: &Value, documented: &Value, what: &str) {
    let documented: Vec<&String> = documented.as_object().unwrap().keys().collect();
    for key in ours.as_object().unwrap().keys() {
        assert!(
            documented.contains(&key),
            "{what}: `{key}` is not in the documented shape"
        );
    }
}

#[test]
fn anthropic_native_export_has_the_documented_shape() {
    let doc = fixture("anthropic.request.json");
    let mut search = ToolSearch::new(DeferPolicy::default());
    let offered = offered();
    search.sync(&offered);
    let export = search.export(&offered, ProviderFormat::Anthropic);
    let deferred = export
        .tools
        .iter()
        .find(|t| t["name"] == "weather____forecast")
        .unwrap();
    assert_eq!(deferred["defer_loading"], true);
    keys_documented(deferred, &doc["tools"][0], "deferred tool");
    let loaded = export
        .tools
        .iter()
        .find(|t| t["name"] == "clock____now")
        .unwrap();
    assert!(loaded.get("defer_loading").is_none());
    assert_eq!(export.tools.last().unwrap(), &doc["tools"][2]);
    assert_eq!(
        export.deferred["weather____forecast"],
        DeferReason::Manifest
    );

    let mut policy = DeferPolicy::default();
    policy.anthropic = AnthropicSearch::Regex;
    let export = ToolSearch::new(policy).export(&offered, ProviderFormat::Anthropic);
    assert_eq!(export.tools.last().unwrap(), &doc["tools"][1]);
}

#[test]
fn openai_responses_native_export_has_the_documented_shape() {
    let doc = fixture("openai_responses.request.json");
    let mut policy = DeferPolicy::default().defer_tool("github");
    policy.namespaces = true;
    let search = ToolSearch::new(policy);
    let offered = offered();
    let export = search.export(&offered, ProviderFormat::OpenAiResponses);
    let namespace = export
        .tools
        .iter()
        .find(|t| t["type"] == "namespace" && t["name"] == "github")
        .unwrap();
    keys_documented(namespace, &doc["tools"][0], "namespace");
    let member = &namespace["tools"][0];
    assert_eq!(member["name"], "listRepoIssues");
    assert_eq!(member["defer_loading"], true);
    keys_documented(member, &doc["tools"][0]["tools"][0], "namespace member");
    assert_eq!(export.tools.last().unwrap(), &doc["tools"][2]);
    assert_eq!(export.report.deferred, 5);

    // Without namespaces, deferred functions stand alone.
    let export =
        ToolSearch::new(DeferPolicy::default()).export(&offered, ProviderFormat::OpenAiResponses);
    let deferred = export
        .tools
        .iter()
        .find(|t| t["name"] == "weather____forecast")
        .unwrap();
    keys_documented(deferred, &doc["tools"][1], "deferred function");
}

/// Every `function` tool in a Responses tool list, namespace members included.
fn responses_functions(tools: &[Value]) -> Vec<&Value> {
    let mut functions = Vec::new();
    for tool in tools {
        match tool["type"].as_str() {
            Some("function") => functions.push(tool),
            Some("namespace") => functions.extend(tool["tools"].as_array().unwrap().iter()),
            _ => {}
        }
    }
    functions
}

#[test]
fn every_responses_function_carries_the_keys_the_sdk_requires() {
    let doc = fixture("openai_responses.request.json");
    let required: Vec<&str> = doc["_function_tool_param_required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let mut registry = registry();
    let strict_api =
        ApiDefinition::new("exact", "Takes exactly one code.").with_parameters(json!({
            "type": "object",
            "properties": {"code": {"type": "string"}},
            "required": ["code"],
            "additionalProperties": false
        }));
    let mut hints = tool_core::manifest::ProviderHints::default();
    hints.strict = Some(true);
    let strict_api = strict_api.with_provider_hints(hints);
    registry
        .register(
            ToolBuilder::new("codes")
                .api(strict_api, |_, _| async { Ok(ToolOutput::text("ok")) })
                .build()
                .unwrap(),
        )
        .unwrap();
    let offered = registry.offer(&ToolContext::new());
    let mut namespaced = DeferPolicy::default().defer_tool("github");
    namespaced.namespaces = true;
    let exports: Vec<(&str, Vec<Value>)> = vec![
        ("plain", offered.openai_responses_tools()),
        ("strict", offered.openai_responses_tools_strict().tools),
        (
            "native",
            ToolSearch::new(DeferPolicy::default())
                .export(&offered, ProviderFormat::OpenAiResponses)
                .tools,
        ),
        (
            "namespaces",
            ToolSearch::new(namespaced)
                .export(&offered, ProviderFormat::OpenAiResponses)
                .tools,
        ),
        (
            "portable",
            ToolSearch::new(
                DeferPolicy::default()
                    .defer_tool("github")
                    .with_search(SearchStyle::Portable),
            )
            .export(&offered, ProviderFormat::OpenAiResponses)
            .tools,
        ),
    ];
    for (what, tools) in &exports {
        let functions = responses_functions(tools);
        assert!(!functions.is_empty(), "{what}");
        for function in functions {
            for key in &required {
                assert!(
                    function.get(*key).is_some(),
                    "{what}: `{key}` missing from {function}"
                );
            }
            assert!(function["strict"].is_boolean(), "{what}: {function}");
        }
    }
    // Without a strict export, `strict` is what the manifest says, else false.
    let plain = &exports[0].1;
    let strict_of = |name: &str| {
        plain.iter().find(|t| t["name"] == name).unwrap()["strict"]
            .as_bool()
            .unwrap()
    };
    assert!(strict_of("codes____exact"));
    assert!(!strict_of("clock____now"));
    assert!(!strict_of("weather____forecast"));
    // The strict export keeps deciding per schema.
    let strict = &exports[1].1;
    let forecast = strict
        .iter()
        .find(|t| t["name"] == "weather____forecast")
        .unwrap();
    assert_eq!(forecast["strict"], true, "{forecast}");
    // Our portable search tool's optional `limit` is not a strict schema.
    let portable = exports[4].1.last().unwrap();
    assert_eq!(portable["name"], "tool_search");
    assert_eq!(portable["strict"], false);
}

#[test]
fn portable_export_sends_only_loaded_definitions_and_our_search_tool() {
    let offered = offered();
    let policy = DeferPolicy::default()
        .defer_tool("github")
        .with_search(SearchStyle::Portable);
    let search = ToolSearch::new(policy);
    for format in ProviderFormat::ALL {
        let export = search.export(&offered, format);
        assert_eq!(export.tools.len(), 2, "{format}: clock and tool_search");
        let text = Value::Array(export.tools.clone()).to_string();
        assert!(
            !text.contains("forecast") && !text.contains("listRepoIssues"),
            "{format}"
        );
        assert!(
            text.contains("tool_search") && text.contains("5 more tools"),
            "{format}"
        );
        assert_eq!(export.report.chars_sent, text.len());
        assert_eq!(export.report.chars_in_context, text.len());
        assert!(export.report.chars_without_deferral > export.report.chars_sent);
        assert!(
            search
                .system_note(&offered, format)
                .unwrap()
                .contains("5 more tools")
        );
    }
    // Chat has no native search: the native style falls back to ours.
    let export =
        ToolSearch::new(DeferPolicy::default()).export(&offered, ProviderFormat::OpenAiChat);
    assert_eq!(
        export.tools.last().unwrap()["function"]["name"],
        "tool_search"
    );
}

#[test]
fn a_budget_defers_what_does_not_fit_and_keeps_always_loaded_apis() {
    let offered = offered();
    let full = ToolSearch::new(DeferPolicy::default().with_search(SearchStyle::Portable))
        .export(&offered, ProviderFormat::OpenAiChat);
    let plain = Value::Array(offered.openai_chat_tools()).to_string();
    assert_eq!(full.report.chars_without_deferral, plain.len());

    let policy = DeferPolicy::over_budget(Budget::Chars(800))
        .keep_loaded("github/createIssue")
        .with_search(SearchStyle::Portable);
    let search = ToolSearch::new(policy);
    let export = search.export(&offered, ProviderFormat::OpenAiChat);
    let report = &export.report;
    assert!(report.chars_in_context <= 800, "{report:?}");
    assert!(!report.deferred_by_budget.is_empty());
    assert!(
        !report
            .deferred_by_budget
            .contains(&"github____createIssue".to_owned())
    );
    assert!(
        !report
            .deferred_by_budget
            .contains(&"weather____forecast".to_owned()),
        "deferred by its manifest"
    );
    assert!(
        export
            .tools
            .iter()
            .any(|t| t["function"]["name"] == "github____createIssue")
    );
    assert_eq!(report.loaded + report.deferred, offered.api_count());
    assert_eq!(
        report.tokens_in_context,
        tool_core::search::estimate_tokens(ProviderFormat::OpenAiChat, report.chars_in_context)
    );

    let tokens = ToolSearch::new(DeferPolicy::over_budget(Budget::Tokens(1)))
        .export(&offered, ProviderFormat::Anthropic);
    assert_eq!(tokens.report.deferred, offered.api_count());
}

#[tokio::test]
async fn anthropic_native_search_result_loads_and_the_call_runs_through_the_invoker() {
    let offered = offered();
    let ctx = ToolContext::new();
    let mut search = ToolSearch::new(DeferPolicy::default());
    search.sync(&offered);
    let answer = fixture("anthropic.answer.json");
    let found = search.absorb(ProviderFormat::Anthropic, &answer).unwrap();
    assert_eq!(found[0].id.as_deref(), Some("srvtoolu_01"));
    assert_eq!(found[0].found, ["weather____forecast"]);
    let calls = ProviderFormat::Anthropic.tool_calls(&answer).unwrap();
    assert_eq!(calls.len(), 1, "the server-run search is not a client call");
    let outputs = search
        .run_calls(
            &Invoker::default(),
            &offered,
            ProviderFormat::Anthropic,
            &calls,
            &ctx,
        )
        .await;
    assert_eq!(outputs[0].content, "rain in San Francisco");
    let results = ProviderFormat::Anthropic
        .tool_results(&calls, &outputs)
        .unwrap();
    assert_eq!(results[0]["content"][0]["tool_use_id"], "toolu_01");
    let next = search.export(&offered, ProviderFormat::Anthropic);
    assert!(next.deferred.is_empty());
}

#[tokio::test]
async fn responses_native_search_output_loads_and_the_namespaced_call_runs() {
    let offered = offered();
    let ctx = ToolContext::new();
    let mut policy = DeferPolicy::default();
    policy.namespaces = true;
    let mut search = ToolSearch::new(policy);
    let answer = fixture("openai_responses.answer.json");
    let found = search
        .absorb(ProviderFormat::OpenAiResponses, &answer)
        .unwrap();
    assert_eq!(found[0].found, ["weather____forecast"]);
    assert!(search.loaded().contains("weather____forecast"));
    let calls = ProviderFormat::OpenAiResponses.tool_calls(&answer).unwrap();
    assert_eq!(calls[0].name, "weather____forecast");
    let outputs = search
        .run_calls(
            &Invoker::default(),
            &offered,
            ProviderFormat::OpenAiResponses,
            &calls,
            &ctx,
        )
        .await;
    assert_eq!(outputs[0].content, "rain in San Francisco");
}

#[tokio::test]
async fn chat_portable_search_finds_loads_and_calls_across_a_stored_conversation() {
    let offered = offered();
    let ctx = ToolContext::new();
    let invoker = Invoker::default();
    let policy = DeferPolicy::default().defer_tool("github");
    let mut search = ToolSearch::new(policy.clone());
    search.sync(&offered);
    let format = ProviderFormat::OpenAiChat;

    // Turn 1: the model asks our tool_search.
    let answer = json!({"role": "assistant", "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "tool_search", "arguments": "{\"query\":\"open issues of a repository\",\"limit\":1}"}
    }]});
    let calls = format.tool_calls(&answer).unwrap();
    let outputs = search
        .run_calls(&invoker, &offered, format, &calls, &ctx)
        .await;
    assert!(outputs[0].success, "{}", outputs[0].content);
    assert!(
        outputs[0].content.contains("github____listRepoIssues"),
        "{}",
        outputs[0].content
    );
    assert_eq!(
        outputs[0].state.as_ref().unwrap()["results"][0]["name"],
        "github____listRepoIssues"
    );

    // The conversation is stored and resumed in another process.
    let stored = serde_json::to_string(search.loaded()).unwrap();
    let loaded: LoadedSet = serde_json::from_str(&stored).unwrap();
    let mut search = ToolSearch::new(policy).with_loaded(loaded);
    search.sync(&offered);

    // Turn 2: the found API is offered in full and called.
    let export = search.export(&offered, format);
    assert!(
        export
            .tools
            .iter()
            .any(|t| t["function"]["name"] == "github____listRepoIssues")
    );
    let calls =
        [ToolCall::new("github____listRepoIssues", r#"{"owner":"octo"}"#).with_id("call_2")];
    let outputs = search
        .run_calls(&invoker, &offered, format, &calls, &ctx)
        .await;
    assert_eq!(outputs[0].content, r#"listRepoIssues {"owner":"octo"}"#);
}

#[tokio::test]
async fn a_deferred_api_never_loaded_still_runs_and_the_output_says_so() {
    let offered = offered();
    let ctx = ToolContext::new();
    let mut search = ToolSearch::new(DeferPolicy::default().with_search(SearchStyle::Portable));
    search.sync(&offered);
    let calls = [ToolCall::new("weather____forecast", r#"{"city":"Oslo"}"#)];
    let outputs = search
        .run_calls(
            &Invoker::default(),
            &offered,
            ProviderFormat::OpenAiChat,
            &calls,
            &ctx,
        )
        .await;
    assert!(outputs[0].content.starts_with("rain in Oslo"));
    assert!(
        outputs[0].content.contains("was not loaded"),
        "{}",
        outputs[0].content
    );
    assert!(search.loaded().contains("weather____forecast"));
    // Loaded now: a second call carries no note.
    let outputs = search
        .run_calls(
            &Invoker::default(),
            &offered,
            ProviderFormat::OpenAiChat,
            &calls,
            &ctx,
        )
        .await;
    assert_eq!(outputs[0].content, "rain in Oslo");
}

#[tokio::test]
async fn bad_tool_search_arguments_are_an_invalid_arguments_output() {
    let offered = offered();
    let mut search = ToolSearch::new(DeferPolicy::default());
    search.sync(&offered);
    for arguments in [
        "{\"q\":1}",
        "not json",
        "{\"query\":\"\"}",
        "{\"query\":\"x\",\"limit\":-1}",
    ] {
        let output = search.answer(&offered, &ToolCall::new("tool_search", arguments));
        assert!(!output.success, "{arguments}");
        assert_eq!(
            output.error_code().unwrap(),
            "invalid_arguments",
            "{arguments}"
        );
    }
}

#[test]
fn malformed_provider_search_blocks_are_errors_with_their_pointer() {
    let mut loaded = LoadedSet::default();
    let bad = json!({"content": [{"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
        "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference"}]}}]});
    match loaded.absorb(ProviderFormat::Anthropic, &bad) {
        Err(Error::ProviderMessage { pointer, .. }) => {
            assert_eq!(pointer, "/content/0/content/tool_references/0/tool_name")
        }
        other => panic!("{other:?}"),
    }
    let bad = json!({"output": [{"type": "tool_search_output", "tools": "all"}]});
    assert!(matches!(
        loaded.absorb(ProviderFormat::OpenAiResponses, &bad),
        Err(Error::ProviderMessage { pointer, .. }) if pointer == "/output/0/tools"
    ));
    let bad =
        json!({"output": [{"type": "function_call", "call_id": "c", "name": "f", "namespace": 3}]});
    assert!(matches!(
        ProviderFormat::OpenAiResponses.tool_calls(&bad),
        Err(Error::ProviderMessage { pointer, .. }) if pointer == "/output/0/namespace"
    ));
    let error = json!({"content": [{"type": "tool_search_tool_result", "tool_use_id": "s",
        "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"}}]});
    assert!(
        loaded.absorb(ProviderFormat::Anthropic, &error).unwrap()[0]
            .found
            .is_empty()
    );
    assert!(loaded.is_empty());
}

#[test]
fn provider_metadata_in_the_manifest_is_exported_where_the_provider_takes_it() {
    let api: ApiDefinition = serde_json::from_value(json!({
        "name": "forecast",
        "description": "Weather forecast for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        "deferLoading": true,
        "examples": [{"city": "Oslo"}],
        "provider": {"allowedCallers": ["direct"], "strict": true}
    }))
    .unwrap();
    let stored = serde_json::to_value(&api).unwrap();
    assert_eq!(stored["examples"], json!([{"city": "Oslo"}]));
    assert_eq!(stored["provider"]["allowedCallers"], json!(["direct"]));
    assert_eq!(stored["deferLoading"], true);
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("weather")
                .api(api, |_, _| async { Ok(ToolOutput::text("rain")) })
                .build()
                .unwrap(),
        )
        .unwrap();
    let offered = registry.offer(&ToolContext::new());
    let anthropic = &offered.anthropic_tools()[0];
    assert_eq!(anthropic["input_examples"], json!([{"city": "Oslo"}]));
    assert_eq!(anthropic["allowed_callers"], json!(["direct"]));
    assert_eq!(anthropic["strict"], true);
    keys_documented(
        anthropic,
        &fixture("anthropic.request.json")["tools"][0],
        "anthropic tool with metadata",
    );
    assert_eq!(offered.openai_chat_tools()[0]["function"]["strict"], true);
    let responses = &offered.openai_responses_tools()[0];
    assert_eq!(responses["strict"], true);
    assert!(responses.get("input_examples").is_none());

    // An example that is not an object is refused when the manifest is read.
    let bad = serde_json::from_value::<ApiDefinition>(json!({"name": "f", "examples": ["Oslo"]}));
    assert!(bad.unwrap_err().to_string().contains("map"));
}

use test_support::fixtures;
#[path = "../../../benches/peers/retrieval/ours.rs"]
mod retrieval;

/// Retrieval quality on a public labelled benchmark (BFCL, from PyPI's
/// `bfcl-eval`), against a reference BM25 (PyPI's `rank-bm25`) on the same
/// pool and queries: ours must be at least as good.
#[test]
fn bfcl_recall_is_at_least_the_reference_bm25() {
    fixtures::ensure("60-retrieval.sh");
    let out = tempfile_path("bfcl.json");
    let document = retrieval::bfcl_document(&fixtures::repo_root(), &out);
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
    let document = document.unwrap();
    let reference = retrieval::reference(&document);
    let ours = retrieval::ours(&document).unwrap();
    assert!(reference.queries > 1000, "{reference:?}");
    assert!(
        ours.at1 >= reference.at1 && ours.at5 >= reference.at5,
        "ours {ours:?} vs reference {reference:?}"
    );
}

/// The official Python SDKs' own types (PyPI `anthropic`, `openai`, pinned)
/// accept every tool list we export, deferred or not, and the provider
/// answers our fixtures hold.
#[test]
fn the_official_sdks_types_accept_our_exports_and_answer_fixtures() {
    fixtures::ensure("61-provider-sdks.sh");
    let offered = offered();
    let exported = |policy: DeferPolicy, format: ProviderFormat| -> Vec<Value> {
        let mut search = ToolSearch::new(policy);
        search.sync(&offered);
        search.export(&offered, format).tools
    };
    let mut regex = DeferPolicy::default();
    regex.anthropic = AnthropicSearch::Regex;
    let mut namespaces = DeferPolicy::default().defer_tool("github");
    namespaces.namespaces = true;
    let mut anthropic = exported(DeferPolicy::default(), ProviderFormat::Anthropic);
    anthropic.extend(exported(regex, ProviderFormat::Anthropic));
    anthropic.extend(offered.anthropic_tools());
    let mut responses = exported(DeferPolicy::default(), ProviderFormat::OpenAiResponses);
    responses.extend(exported(namespaces, ProviderFormat::OpenAiResponses));
    responses.extend(offered.openai_responses_tools());
    let mut chat = exported(DeferPolicy::default(), ProviderFormat::OpenAiChat);
    chat.extend(offered.openai_chat_tools());
    let document = json!({
        "anthropic_tools": anthropic,
        "anthropic_answers": [fixture("anthropic.answer.json")],
        "responses_tools": responses,
        "responses_answers": [fixture("openai_responses.answer.json")],
        "chat_tools": chat,
    });
    // A folder of its own: the BFCL test removes the shared one when done.
    let dir = std::env::temp_dir().join(format!("tool-search-sdk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("sdk.json");
    std::fs::write(&input, document.to_string()).unwrap();
    let sdk = fixtures::repo_root().join("tool-core/tests/fixtures/providers/sdk");
    let ran = std::process::Command::new(sdk.join(".venv/bin/python"))
        .arg(sdk.join("validate.py"))
        .arg(&input)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let report = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(report.contains("failed 0"), "{report}");
}

fn tempfile_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tool-search-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

mod incremental {
    use proptest::prelude::*;
    use tool_core::search::SearchIndex;
    use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};

    const WORDS: [&str; 8] = [
        "issue",
        "repository",
        "weather",
        "invoice",
        "deploy",
        "comment",
        "user",
        "branch",
    ];

    /// A tool `t{id}` with `apis` APIs whose text is drawn from WORDS by `seed`.
    fn tool(id: u8, apis: u8, seed: u8) -> tool_core::FnTool {
        let mut builder = ToolBuilder::new(format!("t{id}"));
        for a in 0..apis.max(1) {
            let w = |k: u8| WORDS[usize::from(seed.wrapping_add(a).wrapping_mul(k)) % WORDS.len()];
            let api = ApiDefinition::new(
                format!("{}{}", w(1), a),
                format!("Does {} with the {} of a {}.", w(3), w(5), w(7)),
            );
            builder = builder.api(api, |_, _| async { Ok(ToolOutput::text("")) });
        }
        builder.build().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever the sequence of registrations, replacements and
        /// removals, the index kept up to date by `sync` ranks every query
        /// exactly like an index built from scratch.
        #[test]
        fn synced_index_equals_a_fresh_one(ops in proptest::collection::vec((0u8..3, 0u8..5, 1u8..4, any::<u8>()), 1..24)) {
            let ctx = ToolContext::new();
            let mut registry = ToolRegistry::new();
            let mut index = SearchIndex::new();
            for (op, id, apis, seed) in ops {
                let name = format!("t{id}");
                match op {
                    0 if !index.contains_tool(&name) && registry.offer(&ctx).get(&name).is_none() => {
                        registry.register(tool(id, apis, seed)).unwrap();
                    }
                    0 | 1 => {
                        registry.replace(tool(id, apis, seed)).unwrap();
                    }
                    _ => {
                        registry.remove(&name);
                    }
                }
                index.sync(&registry.offer(&ctx));
            }
            let fresh = SearchIndex::from_offered(&registry.offer(&ctx));
            prop_assert_eq!(index.len(), fresh.len());
            for word in WORDS {
                prop_assert_eq!(index.search(word, 50).unwrap(), fresh.search(word, 50).unwrap());
            }
            for query in ["issue of a repository user", "deploy the branch comment", "weather invoice user branch"] {
                prop_assert_eq!(index.search(query, 50).unwrap(), fresh.search(query, 50).unwrap());
            }
            prop_assert_eq!(
                index.search_regex("(?i)o", 50).unwrap(),
                fresh.search_regex("(?i)o", 50).unwrap()
            );
        }
    }
}
