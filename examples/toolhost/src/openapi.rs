//! API tools in the reference host: `--openapi FILE` (narrow protocol or
//! OpenAPI 3, JSON or YAML), `--allow-host HOST_OR_CIDR`, `--server URL`
//! (the base URL, replacing an OpenAPI document's `servers`), credentials
//! for secured operations (`--openapi-secret SCHEME=ENV_VAR`,
//! `--openapi-credentials FILE`, see [`credentials`]), `toolhost openapi
//! validate|tools`, and the demo step. File arguments of API tools
//! (multipart uploads, binary bodies) are read from the host's workspace.
//!
//! The host owns one SSRF guard ([`guard`]); every HTTP tool sends through
//! clients built from it, and other transports (MCP over HTTP) can be handed
//! the same guard's client.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};
use tool_core::{
    Invoker, ToolCall, ToolContext, ToolRegistry,
    manifest::{NameRules, is_valid_name},
    pipeline::Violation,
};
use tool_openapi::{
    ApiDocument, ApiSecret, Credentials, DocumentKind, Error, ImportOptions, OpenApiTool,
    OpenApiToolBuilder, SchemeKind, SsrfGuard, SsrfPolicy, load_document, validate_narrow,
};

use crate::host::Host;
use crate::{Failure, Format};

/// `--openapi` and `--allow-host` from the command line.
#[derive(Debug, Default, Clone)]
pub struct OpenApiOptions {
    /// Documents to load tools from.
    pub files: Vec<PathBuf>,
    /// Hosts, addresses or CIDRs the SSRF guard lets through.
    pub allow_hosts: Vec<String>,
    /// `--server`: the base URL replacing the documents' `servers`.
    pub server: Option<String>,
    /// `--openapi-secret SCHEME=ENV_VAR` entries (the values are read
    /// from the environment, never from the command line).
    pub secrets: Vec<String>,
    /// `--openapi-credentials FILE`: a JSON file of credentials by scheme.
    pub credentials_file: Option<PathBuf>,
}

impl OpenApiOptions {
    /// The import options these command-line options mean.
    fn import(&self) -> ImportOptions {
        match &self.server {
            Some(server) => ImportOptions::new().server(server.clone()),
            None => ImportOptions::new(),
        }
    }
}

/// `toolhost openapi …`.
#[derive(Debug, Subcommand)]
pub enum OpenapiCommand {
    /// Validate a document: `{"ok", "errors": [{"path", "message"}], "warnings": [...]}` (exit 0 either way).
    Validate {
        /// A narrow-protocol or OpenAPI 3 document (JSON or YAML).
        file: PathBuf,
    },
    /// Print the tool compiled from a document: `{"tools": [...]}`.
    Tools {
        /// A narrow-protocol or OpenAPI 3 document (JSON or YAML).
        file: PathBuf,
        /// Shape of each entry.
        #[arg(long, value_enum, default_value_t = Format::Manifest)]
        format: Format,
    },
}

/// The host's SSRF guard: default policy plus `--allow-host` entries.
pub fn guard(options: &OpenApiOptions) -> Result<SsrfGuard, Failure> {
    let mut policy = SsrfPolicy::default();
    for entry in &options.allow_hosts {
        policy = policy
            .allow(entry)
            .map_err(|e| Failure::Usage(format!("--allow-host: {e}")))?;
    }
    Ok(SsrfGuard::new(policy))
}

fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::Source(format!("{}: {e}", path.display())))
}

/// The tool identifier for a file: its stem, made a valid name.
fn identifier(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("api");
    let mut id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.insert_str(0, "api_");
    }
    if is_valid_name(&id) { id } else { "api".into() }
}

/// One credential as the host was given it, before a document says which
/// kind of scheme it is for.
#[derive(Clone)]
enum Given {
    /// `--openapi-secret SCHEME=ENV_VAR`: the variable's value.
    Value(String),
    /// From the credentials file.
    Secret(ApiSecret),
}

/// The credentials of `--openapi-secret` and `--openapi-credentials`, by
/// scheme name (the document's `securitySchemes` keys).
///
/// `--openapi-secret SCHEME=ENV_VAR` (repeatable) reads the value of the
/// environment variable `ENV_VAR`, never a value on the command line (it
/// would show in the process list and shell history). What the value is
/// depends on the scheme's kind in the document:
///
/// | scheme | value of `ENV_VAR` |
/// |---|---|
/// | `apiKey` (header, query, cookie), `http` bearer, `oauth2` without a client credentials flow, `openIdConnect` | the key or token |
/// | `http` basic | `USER:PASSWORD` |
/// | `oauth2` with a client credentials flow | `CLIENT_ID:CLIENT_SECRET` (exchanged for a token at the flow's `tokenUrl`, through the SSRF guard) |
///
/// `--openapi-credentials FILE` is a JSON object by scheme name, each
/// `{"token": "…"}`, `{"username": "…", "password": "…"}` or
/// `{"clientId": "…", "clientSecret": "…"}`; a scheme given both ways
/// takes `--openapi-secret`. Secrets never appear in tool schemas, outputs
/// or errors (an error names the scheme or the variable, not the value).
#[derive(Clone, Default)]
pub struct HostCredentials {
    given: Vec<(String, Given)>,
}

/// Reads the credentials options (environment variables and the file).
pub fn credentials(options: &OpenApiOptions) -> Result<HostCredentials, Failure> {
    let mut given: Vec<(String, Given)> = Vec::new();
    if let Some(path) = &options.credentials_file {
        let text = read(path)?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            // serde_json's message names a position, never the text.
            Failure::Source(format!(
                "--openapi-credentials {}: not JSON: {e}",
                path.display()
            ))
        })?;
        let Value::Object(map) = value else {
            return Err(Failure::Source(format!(
                "--openapi-credentials {}: must be a JSON object of credentials by scheme name",
                path.display()
            )));
        };
        for (scheme, entry) in map {
            let field = |name: &str| entry.get(name).and_then(Value::as_str).map(str::to_owned);
            let secret = match (
                field("token"),
                field("username").zip(field("password")),
                field("clientId").zip(field("clientSecret")),
            ) {
                (Some(token), None, None) => ApiSecret::Token(token),
                (None, Some((username, password)), None) => ApiSecret::Basic { username, password },
                (None, None, Some((client_id, client_secret))) => ApiSecret::ClientCredentials {
                    client_id,
                    client_secret,
                },
                _ => {
                    return Err(Failure::Source(format!(
                        "--openapi-credentials {}: `{scheme}` must be one of {{\"token\"}}, \
                         {{\"username\", \"password\"}} or {{\"clientId\", \"clientSecret\"}} (strings)",
                        path.display()
                    )));
                }
            };
            given.push((scheme, Given::Secret(secret)));
        }
    }
    for entry in &options.secrets {
        let Some((scheme, variable)) = entry.split_once('=') else {
            return Err(Failure::Usage(format!(
                "--openapi-secret `{entry}`: expected SCHEME=ENV_VAR (the value is read from the environment)"
            )));
        };
        if scheme.is_empty() || variable.is_empty() {
            return Err(Failure::Usage(format!(
                "--openapi-secret `{entry}`: expected SCHEME=ENV_VAR, both non-empty"
            )));
        }
        let value = std::env::var(variable).map_err(|_| {
            Failure::Usage(format!(
                "--openapi-secret {scheme}: the environment variable `{variable}` is not set (or not UTF-8)"
            ))
        })?;
        given.retain(|(s, _)| s != scheme);
        given.push((scheme.to_owned(), Given::Value(value)));
    }
    Ok(HostCredentials { given })
}

impl HostCredentials {
    /// The credentials for `document`'s schemes: each value read as its
    /// scheme's kind says (see [`credentials`]); schemes the document does
    /// not have are left out.
    fn for_document(&self, document: &ApiDocument) -> Result<Credentials, Failure> {
        let mut out = Credentials::new();
        for (name, given) in &self.given {
            let Some(scheme) = document.security_schemes.iter().find(|s| &s.name == name) else {
                continue;
            };
            let secret = match given {
                Given::Secret(secret) => secret.clone(),
                Given::Value(value) => {
                    let pair = |what: &str| {
                        value.split_once(':').map(|(a, b)| (a.to_owned(), b.to_owned())).ok_or_else(|| {
                            Failure::Usage(format!(
                                "--openapi-secret {name}: the scheme is {what}: its variable must hold `{}`",
                                if what == "http basic" { "USER:PASSWORD" } else { "CLIENT_ID:CLIENT_SECRET" }
                            ))
                        })
                    };
                    match &scheme.kind {
                        SchemeKind::Basic => {
                            let (username, password) = pair("http basic")?;
                            ApiSecret::Basic { username, password }
                        }
                        SchemeKind::OAuth2ClientCredentials { .. } => {
                            let (client_id, client_secret) = pair("oauth2 client credentials")?;
                            ApiSecret::ClientCredentials {
                                client_id,
                                client_secret,
                            }
                        }
                        _ => ApiSecret::Token(value.clone()),
                    }
                }
            };
            out.insert(name.clone(), secret);
        }
        Ok(out)
    }

    /// Scheme names no document of `documents` has.
    fn unknown<'a>(&'a self, documents: &[&ApiDocument]) -> Vec<&'a str> {
        self.given
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| {
                !documents
                    .iter()
                    .any(|d| d.security_schemes.iter().any(|s| s.name == *name))
            })
            .collect()
    }
}

/// The file's document, loaded.
fn load(path: &Path, options: &OpenApiOptions) -> Result<(ApiDocument, Vec<Violation>), Failure> {
    let text = read(path)?;
    let loaded = load_document(&text, &options.import())
        .map_err(|e| Failure::Source(format!("--openapi {}: {e}", path.display())))?;
    Ok((loaded.import.document, loaded.import.warnings))
}

/// The file's tool, ready to register (registering compiles each
/// operation's schema once: the import's compilation is reused).
fn builder(
    path: &Path,
    document: ApiDocument,
    guard: &SsrfGuard,
    credentials: &HostCredentials,
) -> Result<OpenApiToolBuilder, Failure> {
    let credentials = credentials.for_document(&document)?;
    Ok(OpenApiTool::builder(document, identifier(path))
        .guard(guard.clone())
        .credentials(credentials))
}

/// Registers one tool per `--openapi` file; a file that does not load is a
/// source failure (exit 1).
pub fn attach(host: &mut Host, options: &OpenApiOptions) -> Result<(), Failure> {
    let guard = guard(options)?;
    let credentials = credentials(options)?;
    let mut loaded = Vec::with_capacity(options.files.len());
    for path in &options.files {
        loaded.push((path, load(path, options)?));
    }
    let documents: Vec<&ApiDocument> = loaded.iter().map(|(_, (d, _))| d).collect();
    for scheme in credentials.unknown(&documents) {
        crate::report(
            &json!({"warning": {"openapi": "credentials", "message": format!(
                "no --openapi document has a security scheme `{scheme}`: its credential is not used"
            )}}),
        );
    }
    for (path, (document, warnings)) in loaded {
        let builder = builder(path, document, &guard, &credentials)?;
        // The tools compile without a base URL; say so, or their calls
        // fail (`no_base_url`) with nobody having been told.
        for warning in warnings
            .iter()
            .filter(|w| w.message.contains("needs a base URL"))
        {
            let message = format!("{} (give --server URL)", warning.message);
            crate::report(
                &serde_json::json!({"warning": {"openapi": path.display().to_string(), "message": message}}),
            );
        }
        builder
            .register(host.registry_mut())
            .map_err(|e| Failure::Source(format!("--openapi: {e}")))?;
    }
    Ok(())
}

fn problems_json(problems: &[Violation]) -> Vec<Value> {
    problems
        .iter()
        .map(|p| json!({"path": p.pointer, "message": p.message}))
        .collect()
}

/// Runs `toolhost openapi …`.
pub fn run(command: OpenapiCommand, options: &OpenApiOptions) -> Result<Value, Failure> {
    match command {
        OpenapiCommand::Validate { file } => {
            let text = read(&file)?;
            Ok(validate(&text, &options.import()))
        }
        OpenapiCommand::Tools { file, format } => {
            let (document, warnings) = load(&file, options)?;
            let builder = builder(
                &file,
                document,
                &guard(options)?,
                &HostCredentials::default(),
            )?;
            let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
            builder
                .register(&mut registry)
                .map_err(|e| Failure::Source(format!("{}: {e}", file.display())))?;
            let offered = registry.offer(&ToolContext::new());
            let tools = match format {
                Format::Manifest => offered
                    .manifests()
                    .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
                    .collect(),
                Format::Openai => offered.openai_chat_tools(),
                Format::OpenaiResponses => offered.openai_responses_tools(),
                Format::Anthropic => offered.anthropic_tools(),
            };
            Ok(json!({"tools": tools, "warnings": problems_json(&warnings)}))
        }
    }
}

/// `{"ok", "errors", "warnings"}` for a narrow or OpenAPI document; an
/// OpenAPI operation that cannot be imported is an error at its pointer.
fn validate(text: &str, options: &ImportOptions) -> Value {
    let parsed = tool_openapi::parse_text(text, tool_openapi::DEFAULT_MAX_DOCUMENT_BYTES);
    let standard = parsed
        .as_ref()
        .is_ok_and(|v| v.get("openapi").is_some() || v.get("swagger").is_some());
    if !standard {
        // JSON text is validated as written (so syntax errors get their
        // position); YAML is parsed first.
        let validation = match &parsed {
            Ok(value) if !text.trim_start().starts_with(['{', '[']) => {
                tool_openapi::validate_narrow_value(value)
            }
            _ => validate_narrow(text),
        };
        return json!({
            "ok": validation.is_ok(),
            "kind": "narrow",
            "errors": problems_json(&validation.errors),
            "warnings": problems_json(&validation.warnings),
        });
    }
    match load_document(text, options) {
        Ok(loaded) => {
            let errors: Vec<Value> = loaded
                .import
                .failures
                .iter()
                .map(|f| json!({"path": f.pointer, "message": format!("{}: {}", f.operation, f.message)}))
                .collect();
            json!({
                "ok": errors.is_empty(),
                "kind": match loaded.kind { DocumentKind::OpenApi31 => "openapi-3.1", _ => "openapi-3.0" },
                "operations": loaded.document().operations.len(),
                "errors": errors,
                "warnings": problems_json(&loaded.import.warnings),
            })
        }
        Err(error) => {
            let errors = match &error {
                Error::Invalid { problems } => problems_json(problems),
                other => vec![json!({"path": "", "message": other.to_string()})],
            };
            json!({"ok": false, "errors": errors, "warnings": []})
        }
    }
}

/// The demo: a small HTTP server on 127.0.0.1 in this process, a narrow
/// document for it, two calls, and one refusal by the SSRF guard.
pub async fn demo_steps() -> Vec<(String, String, Value)> {
    match demo().await {
        Ok(steps) => steps,
        Err(message) => vec![(
            "HTTP tools from a narrow API document".into(),
            "The demo server could not start here.".into(),
            json!({"error": message}),
        )],
    }
}

async fn demo() -> Result<Vec<(String, String, Value)>, String> {
    use axum::extract::{Path as UrlPath, Query};
    use axum::routing::get;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let router = axum::Router::new()
        .route(
            "/weather/{city}",
            get(|UrlPath(city): UrlPath<String>, Query(q): Query<std::collections::HashMap<String, String>>| async move {
                let units = q.get("units").cloned().unwrap_or_else(|| "metric".into());
                axum::Json(json!({"city": city, "temperature": if units == "imperial" { 64 } else { 18 }, "units": units}))
            }),
        )
        .route(
            "/notes",
            axum::routing::post(|axum::Json(body): axum::Json<Value>| async move {
                (axum::http::StatusCode::CREATED, axum::Json(json!({"id": 1, "saved": body})))
            }),
        );
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let document = json!({
        "server": format!("http://{addr}"),
        "description": "A local weather and notes service.",
        "paths": {
            "/weather/{city}": {"get": {"operationId": "getWeather", "description": "Current weather of a city.", "parameters": [
                {"name": "city", "in": "path", "type": "str", "description": "City name"},
                {"name": "units", "in": "query", "type": "str", "description": "metric or imperial"}
            ]}},
            "/notes": {"post": {"operationId": "addNote", "description": "Saves a note.", "parameters": [
                {"name": "text", "in": "request_body", "type": "str", "required": true},
                {"name": "pinned", "in": "request_body", "type": "bool"}
            ]}}
        }
    })
    .to_string();
    let (doc, _) = tool_openapi::parse_narrow(&document).map_err(|e| e.to_string())?;
    // The host allows its own demo server; everything else private stays refused.
    let allowed = SsrfGuard::new(
        SsrfPolicy::default()
            .allow("127.0.0.1")
            .map_err(|e| e.to_string())?,
    );
    let tool = OpenApiTool::builder(doc.clone(), "weather")
        .guard(allowed)
        .build()
        .map_err(|e| e.to_string())?;
    let guarded = OpenApiTool::builder(doc, "weather_default_guard")
        .build()
        .map_err(|e| e.to_string())?;
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).map_err(|e| e.to_string())?;
    registry.register(guarded).map_err(|e| e.to_string())?;
    let ctx = ToolContext::new();
    let invoker = Invoker::default();
    let mut steps = Vec::new();
    let compiled = registry
        .get("weather")
        .map(|t| serde_json::to_value(&t.manifest().api).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    steps.push((
        "Compile a narrow API document".to_owned(),
        "Each operation becomes one API; its schema comes from the parameters; GET runs without asking (`never`), POST asks (`required`).".to_owned(),
        compiled,
    ));
    for (name, args, explanation) in [
        (
            "weather____getWeather",
            r#"{"city": "Lyon / Rhône", "units": "imperial"}"#,
            "A GET with a path value holding `/` (percent-encoded as one segment) and a query value.",
        ),
        (
            "weather____addNote",
            r#"{"text": "buy bread", "pinned": true}"#,
            "A POST whose `request_body` arguments become the JSON body.",
        ),
        (
            "weather_default_guard____getWeather",
            r#"{"city": "Lyon"}"#,
            "The same API behind the default SSRF guard: 127.0.0.1 is loopback, so the request is refused before anything is sent.",
        ),
    ] {
        let output = invoker
            .invoke_in(&registry, &ToolCall::new(name, args), &ctx)
            .await;
        steps.push((
            format!("Call `{name}`"),
            explanation.to_owned(),
            json!({"call": {"name": name, "arguments": args}, "output": output}),
        ));
    }
    server.abort();
    Ok(steps)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const RELATIVE: &str = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "/v1"}],
        "paths": {"/items": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}}}"#;

    #[test]
    fn server_option_gives_a_relative_document_its_base_url() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("relative.json");
        std::fs::write(&file, RELATIVE).unwrap();
        let without = OpenApiOptions::default();
        let out = run(OpenapiCommand::Validate { file: file.clone() }, &without).unwrap();
        assert_eq!(out["ok"], true, "{out}");
        assert!(
            out["warnings"].to_string().contains("needs a base URL"),
            "{out}"
        );
        let with = OpenApiOptions {
            server: Some("https://api.example.com/v1".into()),
            ..Default::default()
        };
        let out = run(OpenapiCommand::Validate { file: file.clone() }, &with).unwrap();
        assert!(
            !out["warnings"].to_string().contains("needs a base URL"),
            "{out}"
        );
        let tools = OpenapiCommand::Tools {
            file,
            format: Format::Manifest,
        };
        let out = run(tools, &with).unwrap();
        assert_eq!(out["tools"][0]["api"][0]["name"], "list", "{out}");
        let bad = OpenApiOptions {
            server: Some("/v1".into()),
            ..Default::default()
        };
        let out = run(
            OpenapiCommand::Validate {
                file: dir.path().join("relative.json"),
            },
            &bad,
        )
        .unwrap();
        assert_eq!(out["ok"], false, "{out}");
        assert_eq!(out["errors"][0]["path"], "/servers", "{out}");
    }
}
