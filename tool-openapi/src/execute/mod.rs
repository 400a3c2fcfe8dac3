//! Executing an operation over HTTP: arguments → request → `ToolOutput`.
//!
//! See [`request`] for how arguments are placed, and the crate docs for
//! what the state and the failure codes are.

mod binary;
mod body;
mod coerce;
mod request;
mod response;
mod scalar;
mod security;
mod style;

use std::path::PathBuf;

use http::{HeaderName, HeaderValue};
use serde_json::{Value, json};
use tool_core::{Confinement, ErrorCode, ToolContext, ToolError, ToolOutput};
use tracing::Instrument;
use tracing::field::Empty;

use crate::codes;
use crate::credentials::Credentials;
use crate::document::ApiDocument;
use tool_core::net::{SsrfGuard, read_body};

use body::{FileProblem, Part, PartSource, multipart_body, read_workspace_file};
pub use coerce::coerce;
use request::{PlannedBody, RequestParts, plan};
use response::Redactor;
pub(crate) use security::TokenCache;

/// Everything a call needs besides the document.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub client: reqwest::Client,
    pub guard: SsrfGuard,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub credentials: Credentials,
    /// Extra texts to redact (secret provider headers).
    pub secret_texts: Vec<String>,
    /// Where file arguments are read (else the call's `cwd`).
    pub workspace: Option<PathBuf>,
    /// The largest file a call uploads, in bytes.
    pub max_upload_bytes: u64,
    /// The home directory secret classes anchor at (else `HOME`).
    pub home: Option<PathBuf>,
    /// OAuth2 access tokens fetched for these credentials.
    pub tokens: TokenCache,
}

impl HttpSettings {
    /// Redacts the configured secrets and `resolved` (tokens fetched for
    /// this call).
    fn redactor(
        &self,
        resolved: &[(&crate::document::SecurityScheme, crate::ApiSecret)],
    ) -> Redactor {
        let mut texts = self.credentials.redaction_texts();
        texts.extend(self.secret_texts.iter().cloned());
        for (_, secret) in resolved {
            if let crate::ApiSecret::Token(token) = secret {
                texts.push(token.clone());
            }
        }
        Redactor::new(texts)
    }
}

/// Runs operation `index` of `document` with `args`; `arguments` is its
/// arguments schema when its parameters hold none (see
/// [`RequestParts::arguments`]).
///
/// The request runs in an `http_request` span (OpenTelemetry HTTP client
/// conventions): `http.request.method`, `url.template` (the operation's
/// path template, never the filled-in URL), `http.response.status_code`
/// and `error.type`. Argument values, query strings, headers, bodies and
/// credentials are never recorded.
pub(crate) async fn run(
    document: &ApiDocument,
    index: usize,
    arguments: Option<&Value>,
    args: Value,
    settings: &HttpSettings,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let operation = &document.operations[index];
    let method = operation.method.as_str().to_ascii_uppercase();
    let span = tracing::info_span!(
        "http_request",
        otel.name = Empty,
        otel.kind = "client",
        otel.status_code = Empty,
        http.request.method = method.as_str(),
        url.template = operation.path.as_str(),
        http.response.status_code = Empty,
        error.type = Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("{method} {}", operation.path).as_str());
    }
    let result = send(document, index, arguments, args, settings, ctx)
        .instrument(span.clone())
        .await;
    if !span.is_disabled() {
        let code = match &result {
            Ok(output) => output.error_code().map(|c| c.as_str().to_owned()),
            Err(error) => Some(error.code.as_str().to_owned()),
        };
        if let Some(code) = code {
            span.record("error.type", code.as_str());
            span.record("otel.status_code", "ERROR");
        }
    }
    result
}

async fn send(
    document: &ApiDocument,
    index: usize,
    arguments: Option<&Value>,
    args: Value,
    settings: &HttpSettings,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let operation = &document.operations[index];
    let what = format!(
        "{} {}",
        operation.method.as_str().to_ascii_uppercase(),
        operation.path
    );
    let args = match args {
        Value::Object(map) => map,
        Value::Null => Default::default(),
        other => {
            return Err(ToolError::new(
                codes::INVALID_ARGUMENTS,
                format!("arguments must be an object, got {other}"),
            ));
        }
    };
    if !document.has_base_url() {
        let shown = if document.server.is_empty() {
            "none".to_owned()
        } else {
            format!("`{}`, relative", document.server)
        };
        return Err(ToolError::new(
            codes::NO_BASE_URL,
            format!(
                "{what}: the API has no base URL (its server: {shown}); the host must give one \
                 (ImportOptions::base_url or server, ApiDocument::resolve_server). Nothing was sent."
            ),
        )
        .with_details(json!({"server": document.server})));
    }
    let chosen = security::choose(operation, &document.security_schemes, &settings.credentials);
    let uses_tokens = chosen
        .iter()
        .any(|c| matches!(c.secret, crate::ApiSecret::ClientCredentials { .. }));
    let source = security::TokenSource {
        client: &settings.client,
        guard: &settings.guard,
        cache: &settings.tokens,
        server: &document.server,
    };
    let resolved = security::resolve(chosen, &source, &what).await?;
    let parts = RequestParts {
        server: &document.server,
        operation,
        headers: &settings.headers,
        security: &resolved,
        arguments,
    };
    let planned = plan(&parts, &args).map_err(|problems| {
        let list: Vec<String> = problems
            .iter()
            .map(|p| {
                if p.argument.is_empty() {
                    p.message.clone()
                } else {
                    format!("`{}` {}", p.argument, p.message)
                }
            })
            .collect();
        ToolError::new(
            codes::INVALID_ARGUMENTS,
            format!(
                "the arguments for {what} cannot be sent: {}. Nothing was sent.",
                list.join("; ")
            ),
        )
        .with_details(json!({
            "problems": problems.iter().map(|p| json!({"argument": p.argument, "message": p.message})).collect::<Vec<_>>()
        }))
    })?;
    let redactor = settings.redactor(&resolved);
    if let Err(blocked) = settings.guard.check_parsed(&planned.url) {
        return Err(
            ToolError::new(codes::SSRF_BLOCKED, format!("{what}: {blocked}"))
                .with_details(json!({"host": blocked.host(), "address": blocked.address()})),
        );
    }
    let mut request = settings
        .client
        .request(planned.method.to_reqwest(), planned.url.clone())
        .headers(planned.headers);
    if let Some(body) = planned.body {
        request = attach_body(request, body, settings, ctx, &what).await?;
    }
    if let Some(remaining) = ctx.remaining() {
        if remaining.is_zero() {
            return Err(ToolError::new(
                codes::TIMEOUT,
                format!("{what}: the call's time budget was already spent; nothing was sent."),
            ));
        }
        request = request.timeout(remaining);
    }
    tracing::debug!("sending API request");
    let response = tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => {
            return Err(ToolError::new(tool_core::ErrorCode::CANCELLED, format!("{what} was cancelled.")));
        }
        sent = request.send() => sent.map_err(|e| response::send_failure(&e, &what, &redactor))?,
    };
    let status = response.status();
    if uses_tokens && status == http::StatusCode::UNAUTHORIZED {
        // The token may have been revoked: the next call asks again.
        settings.tokens.forget();
    }
    let headers = response::headers_state(response.headers(), &redactor);
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let disposition = response
        .headers()
        .get(http::header::CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    tracing::Span::current().record("http.response.status_code", status.as_u16());
    tracing::debug!(status = status.as_u16(), "API response");
    let limit = settings.guard.policy().body_limit();
    let bytes = read_body(response, limit)
        .await
        .map_err(|e| response::body_failure(&e, &what, &redactor))?;
    let body = response::body_value(
        &bytes,
        content_type.as_deref(),
        disposition.as_deref(),
        &redactor,
    );
    Ok(response::output(status, headers, body, &what))
}

/// Puts the planned body on `request`, reading workspace files.
async fn attach_body(
    request: reqwest::RequestBuilder,
    body: PlannedBody,
    settings: &HttpSettings,
    ctx: &ToolContext,
    what: &str,
) -> Result<reqwest::RequestBuilder, ToolError> {
    let content_type = |request: reqwest::RequestBuilder, value: &str| {
        let value = if value.contains('*') || value.trim().is_empty() {
            "application/octet-stream"
        } else {
            value
        };
        request.header(http::header::CONTENT_TYPE, value)
    };
    Ok(match body {
        PlannedBody::Json(value, None) => request.json(&value),
        PlannedBody::Json(value, Some(media)) => {
            content_type(request, &media).body(value.to_string())
        }
        // A multipart type whose body is not an object: one part, so the
        // body is still framed with a boundary.
        PlannedBody::Text(text, media) if media.trim_start().starts_with("multipart/") => {
            let (boundary, bytes) = multipart_body(&[Part {
                name: "body".into(),
                filename: None,
                content_type: None,
                headers: Vec::new(),
                bytes: text.into_bytes(),
            }]);
            let essence = media
                .split(';')
                .next()
                .unwrap_or("multipart/form-data")
                .trim();
            content_type(request, &format!("{essence}; boundary={boundary}")).body(bytes)
        }
        PlannedBody::Form(text) => {
            content_type(request, "application/x-www-form-urlencoded").body(text)
        }
        PlannedBody::Text(text, media) => content_type(request, &media).body(text),
        PlannedBody::File(path, media) => {
            let mut files = read_files(vec![path], settings, ctx, what).await?;
            let bytes = files.pop().map(|(_, bytes)| bytes).unwrap_or_default();
            content_type(request, &media).body(bytes)
        }
        PlannedBody::Multipart(plans) => {
            let paths: Vec<String> = plans
                .iter()
                .filter_map(|p| match &p.source {
                    PartSource::File(path) => Some(path.clone()),
                    PartSource::Text(_) => None,
                })
                .collect();
            let mut files = read_files(paths, settings, ctx, what).await?.into_iter();
            let mut parts = Vec::with_capacity(plans.len());
            for plan in plans {
                let (filename, bytes) = match plan.source {
                    PartSource::Text(text) => (None, text.into_bytes()),
                    PartSource::File(_) => match files.next() {
                        Some((filename, bytes)) => (Some(filename), bytes),
                        None => (Some("file".to_owned()), Vec::new()),
                    },
                };
                parts.push(Part {
                    name: plan.name,
                    filename,
                    content_type: plan.content_type,
                    headers: plan.headers,
                    bytes,
                });
            }
            let (boundary, bytes) = multipart_body(&parts);
            content_type(
                request,
                &format!("multipart/form-data; boundary={boundary}"),
            )
            .body(bytes)
        }
    })
}

/// Reads workspace files in order (off the async threads); the first
/// problem fails the call before anything is sent.
async fn read_files(
    paths: Vec<String>,
    settings: &HttpSettings,
    ctx: &ToolContext,
    what: &str,
) -> Result<Vec<(String, Vec<u8>)>, ToolError> {
    let Some(root) = settings
        .workspace
        .clone()
        .or_else(|| ctx.cwd().map(PathBuf::from))
    else {
        return Err(ToolError::new(
            codes::FILE_REFUSED,
            format!(
                "{what}: a file argument needs a workspace (the tool's workspace or the call's cwd), and there is none. Nothing was sent."
            ),
        ));
    };
    let limit = settings.max_upload_bytes;
    // Under a confinement that keeps secrets unreadable, so do file
    // arguments (the same classes the runtime and the approval layer use).
    let confinement = ctx.extension::<Confinement>();
    let confined = matches!(
        confinement,
        Some(Confinement::ReadOnly { .. } | Confinement::WorkspaceWrite { .. })
    );
    let mode = confinement.map(confinement_name).unwrap_or("full_access");
    let home = settings.home.clone().or_else(home_dir);
    let read = tokio::task::spawn_blocking(move || {
        let secrets = confined.then_some(home.as_deref());
        paths
            .iter()
            .map(|path| read_workspace_file(&root, path, limit, secrets))
            .collect::<Result<Vec<_>, FileProblem>>()
    })
    .await
    .map_err(|e| {
        ToolError::new(
            codes::FILE_UNREADABLE,
            format!("{what}: reading files failed: {e}"),
        )
    })?;
    read.map_err(|problem| match problem {
        FileProblem::Refused(message) => ToolError::new(
            codes::FILE_REFUSED,
            format!("{what}: {message}. Nothing was sent."),
        ),
        FileProblem::Unreadable(message) => ToolError::new(
            codes::FILE_UNREADABLE,
            format!("{what}: {message}. Nothing was sent."),
        ),
        FileProblem::Secret(message) => ToolError::new(
            ErrorCode::CONFINEMENT_REFUSED,
            format!("{what}: {message} (this call runs under {mode}). Nothing was sent."),
        ),
    })
}

/// The host's home directory (`HOME`, when set and not empty).
fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn confinement_name(confinement: &Confinement) -> &'static str {
    match confinement {
        Confinement::ReadOnly { .. } => "read_only",
        Confinement::WorkspaceWrite { .. } => "workspace_write",
        _ => "full_access",
    }
}
