//! From an HTTP response (or a failure to get one) to a `ToolOutput`.

use std::error::Error as StdError;

use http::HeaderMap;
use serde_json::{Map, Value, json};
use tool_core::{ContentPart, ToolError, ToolOutput};

use super::binary::{Binary, binary};
use crate::codes;
use tool_core::net::{BodyError, DnsFailure, SsrfBlocked, TooManyRedirects, find_source};

/// The most characters of a failed response's body quoted in its message.
const QUOTED_BODY_CHARS: usize = 2_000;

/// Replaces every secret text with `[redacted]`.
pub(crate) struct Redactor {
    texts: Vec<String>,
}

impl Redactor {
    pub(crate) fn new(mut texts: Vec<String>) -> Self {
        texts.retain(|t| !t.is_empty());
        // Longest first, so a secret containing another is replaced whole.
        texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
        Self { texts }
    }

    pub(crate) fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.texts {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }

    fn contains_secret(&self, text: &str) -> bool {
        self.texts.iter().any(|s| text.contains(s.as_str()))
    }
}

/// Response headers kept in state: credentials and cookies redacted.
pub(crate) fn headers_state(headers: &HeaderMap, redactor: &Redactor) -> Value {
    let mut map = Map::new();
    for (name, value) in headers {
        let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
        let sensitive = matches!(
            name.as_str(),
            "set-cookie" | "authorization" | "proxy-authorization" | "cookie"
        ) || value.is_sensitive()
            || redactor.contains_secret(&text);
        let text = if sensitive {
            "[redacted]".to_owned()
        } else {
            text
        };
        match map.get_mut(name.as_str()) {
            Some(Value::String(existing)) => {
                existing.push_str(", ");
                existing.push_str(&text);
            }
            _ => {
                map.insert(name.as_str().to_owned(), Value::String(text));
            }
        }
    }
    Value::Object(map)
}

/// A response body as kept in state, the line the model reads instead
/// when the body is not text, and the content part a binary body becomes.
pub(crate) struct Body {
    pub value: Value,
    pub summary: Option<String>,
    pub part: Option<ContentPart>,
}

/// The body by its `Content-Type`: JSON (or no type) when it parses, else
/// text; text types as text (lossy UTF-8); any other type as text when it
/// is UTF-8 without NUL bytes, else binary (see the binary module: an
/// image or a PDF becomes a content part, anything else a summary with
/// the code `binary_response`). Text is redacted.
pub(crate) fn body_value(
    bytes: &[u8],
    content_type: Option<&str>,
    disposition: Option<&str>,
    redactor: &Redactor,
) -> Body {
    let essence = content_type
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let jsonish = essence.is_empty() || essence == "application/json" || essence.ends_with("+json");
    let textual = jsonish
        || essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence.ends_with("/xml")
        || essence.contains("yaml")
        || essence == "application/javascript"
        || essence == "application/x-www-form-urlencoded";
    if !textual && (bytes.contains(&0) || std::str::from_utf8(bytes).is_err()) {
        let Binary {
            value,
            summary,
            part,
        } = binary(bytes, &essence, disposition);
        return Body {
            value,
            summary: Some(summary),
            part,
        };
    }
    let text = redactor.text(&String::from_utf8_lossy(bytes));
    let value = if text.trim().is_empty() {
        Value::Null
    } else if jsonish {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    } else {
        Value::String(text)
    };
    Body {
        value,
        summary: None,
        part: None,
    }
}

/// `{status, headers, body}` → the output: content is the body for 2xx,
/// a failure with code `http_status` otherwise.
pub(crate) fn output(
    status: http::StatusCode,
    headers: Value,
    body: Body,
    what: &str,
) -> ToolOutput {
    let Body {
        value: body,
        summary,
        part,
    } = body;
    let rendered = match (&summary, &body) {
        (Some(summary), _) => summary.clone(),
        (None, Value::Null) => String::new(),
        (None, Value::String(text)) => text.clone(),
        (None, other) => other.to_string(),
    };
    let state = json!({ "status": status.as_u16(), "headers": headers, "body": body });
    let status_line = format!(
        "HTTP {}{}",
        status.as_u16(),
        status
            .canonical_reason()
            .map(|r| format!(" {r}"))
            .unwrap_or_default()
    );
    if status.is_success() {
        let content = if rendered.is_empty() {
            status_line
        } else {
            rendered
        };
        let output = ToolOutput::with_state(content, state);
        return match part {
            Some(part) => output.with_parts([part]),
            None => output,
        };
    }
    let quoted: String = rendered.chars().take(QUOTED_BODY_CHARS).collect();
    let message = if quoted.is_empty() {
        format!("{what} answered {status_line}.")
    } else {
        format!("{what} answered {status_line}: {quoted}")
    };
    ToolOutput::failure(
        ToolError::new(codes::HTTP_STATUS, message)
            .with_details(json!({ "status": status.as_u16() })),
    )
    .state(state)
}

/// A transport failure → a typed error; the message never carries the URL
/// (a query can hold an API key) and is redacted.
pub(crate) fn send_failure(error: &reqwest::Error, what: &str, redactor: &Redactor) -> ToolError {
    let root: &(dyn StdError + 'static) = error;
    if let Some(blocked) = SsrfBlocked::find_in(root) {
        return ToolError::new(codes::SSRF_BLOCKED, format!("{what}: {blocked}")).with_details(
            json!({
                "host": blocked.host(),
                "address": blocked.address(),
                "class": blocked.class().map(|c| c.as_str()),
            }),
        );
    }
    if let Some(too_many) = find_source::<TooManyRedirects>(root) {
        return ToolError::new(codes::TOO_MANY_REDIRECTS, format!("{what}: {too_many}"))
            .with_details(json!({ "limit": too_many.limit }));
    }
    if let Some(dns) = find_source::<DnsFailure>(root) {
        return ToolError::new(codes::DNS_FAILURE, format!("{what}: {dns}"))
            .with_details(json!({ "host": dns.host }));
    }
    if error.is_timeout() {
        return ToolError::new(
            codes::TIMEOUT,
            format!("{what} did not answer within the call's time budget."),
        );
    }
    if let Some(io) = find_source::<std::io::Error>(root)
        && io.kind() == std::io::ErrorKind::ConnectionRefused
    {
        return ToolError::new(
            codes::CONNECTION_REFUSED,
            format!("{what}: connection refused (nothing listens there)"),
        );
    }
    ToolError::new(
        codes::REQUEST_FAILED,
        redactor.text(&format!("{what}: {}", causes(error))),
    )
}

/// A body-read failure → a typed error.
pub(crate) fn body_failure(error: &BodyError, what: &str, redactor: &Redactor) -> ToolError {
    match error {
        BodyError::TooLarge { limit, announced } => ToolError::new(
            codes::BODY_TOO_LARGE,
            format!("{what}: {error}; nothing was returned. Ask for less (a filter, a page size)."),
        )
        .with_details(json!({ "limit": limit, "announced": announced })),
        BodyError::Transport(e) if e.is_timeout() => ToolError::new(
            codes::TIMEOUT,
            format!("{what}: the body did not arrive within the call's time budget."),
        ),
        BodyError::Transport(e) => ToolError::new(
            codes::REQUEST_FAILED,
            redactor.text(&format!("{what}: reading the body failed: {}", causes(e))),
        ),
        other => ToolError::new(
            codes::REQUEST_FAILED,
            redactor.text(&format!("{what}: {other}")),
        ),
    }
}

/// The error's sources joined, without reqwest's URL.
fn causes(error: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut current = error.source();
    while let Some(e) = current {
        parts.push(e.to_string());
        current = e.source();
    }
    if parts.is_empty() {
        parts.push(if error.is_connect() {
            "cannot connect".to_owned()
        } else {
            "the request failed".to_owned()
        });
    }
    parts.join(": ")
}
