//! Executing an operation over HTTP: arguments → request → `ToolOutput`.
//!
//! See [`request`] for how arguments are placed, and the crate docs for
//! what the state and the failure codes are.

mod coerce;
mod request;
mod response;

use http::{HeaderName, HeaderValue};
use serde_json::{Value, json};
use tool_core::{ToolContext, ToolError, ToolOutput};

use crate::codes;
use crate::credentials::Credentials;
use crate::document::ApiDocument;
use crate::ssrf::{SsrfGuard, read_body};

pub use coerce::coerce;
use request::{RequestParts, plan};
use response::Redactor;

/// Everything a call needs besides the document.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub client: reqwest::Client,
    pub guard: SsrfGuard,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub credentials: Credentials,
    /// Extra texts to redact (secret provider headers).
    pub secret_texts: Vec<String>,
}

impl HttpSettings {
    fn redactor(&self) -> Redactor {
        let mut texts = self.credentials.redaction_texts();
        texts.extend(self.secret_texts.iter().cloned());
        Redactor::new(texts)
    }
}

/// Runs operation `index` of `document` with `args`.
pub(crate) async fn run(
    document: &ApiDocument,
    index: usize,
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
    let parts = RequestParts {
        server: &document.server,
        operation,
        schemes: &document.security_schemes,
        headers: &settings.headers,
        credentials: &settings.credentials,
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
    let redactor = settings.redactor();
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
    if let Some(body) = &planned.body {
        request = request.json(body);
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
    tracing::debug!(method = %planned.method, path = %planned.url.path(), "sending API request");
    let response = tokio::select! {
        biased;
        () = ctx.cancellation().cancelled() => {
            return Err(ToolError::new(tool_core::ErrorCode::CANCELLED, format!("{what} was cancelled.")));
        }
        sent = request.send() => sent.map_err(|e| response::send_failure(&e, &what, &redactor))?,
    };
    let status = response.status();
    let headers = response::headers_state(response.headers(), &redactor);
    tracing::debug!(status = status.as_u16(), path = %planned.url.path(), "API response");
    let limit = settings.guard.policy().body_limit();
    let bytes = read_body(response, limit)
        .await
        .map_err(|e| response::body_failure(&e, &what, &redactor))?;
    let body = response::body_value(&bytes, &redactor);
    Ok(response::output(status, headers, body, &what))
}
