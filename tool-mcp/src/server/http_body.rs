//! What `mcp serve --http` answers to a body that is not a JSON-RPC
//! message, before the MCP service sees it: the status and the JSON-RPC
//! error the transport spec asks for, instead of the SDK's plain-text 415.
//!
//! | body (with a JSON content type) | status | JSON-RPC error |
//! |---|---|---|
//! | not JSON (cut off, not a value) | 400 | -32700 parse error |
//! | JSON but not a message object (`[]`, `1`, an object without `"jsonrpc": "2.0"`) | 400 | -32600 invalid request |
//! | longer than [`MAX_BODY_BYTES`] | 413 | -32600 invalid request |
//!
//! A body of another content type is left to the service (415), and a
//! well-formed message passes unchanged. The check reads the body once
//! without building a value (`serde` skips what it does not keep).

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

/// The largest request body `mcp serve` reads: 16 MiB, the client's
/// default message limit.
pub(crate) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC's "Parse error".
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request".
const INVALID_REQUEST: i64 = -32600;

/// Only the envelope's version is kept; every other member is checked for
/// syntax and skipped.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
}

/// The axum middleware (`axum::middleware::from_fn(check_body)`).
pub(crate) async fn check_body(request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !is_json(&request) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                INVALID_REQUEST,
                format!("request body longer than {MAX_BODY_BYTES} bytes"),
            );
        }
    };
    if let Err((code, message)) = judge(&bytes) {
        return refuse(StatusCode::BAD_REQUEST, code, message);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn is_json(request: &Request) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// `Ok` for a JSON object with `"jsonrpc": "2.0"`; else the JSON-RPC code
/// and what was wrong, with where.
fn judge(bytes: &[u8]) -> Result<(), (i64, String)> {
    // A struct also reads from a JSON array: anything but an object is
    // judged as a value first.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(
            match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Ok(_) => (
                    INVALID_REQUEST,
                    "a JSON-RPC message is an object (batches are not part of MCP)".to_owned(),
                ),
                Err(e) => parse_error(&e),
            },
        );
    }
    match serde_json::from_slice::<Envelope<'_>>(bytes) {
        Ok(Envelope { jsonrpc: Some(v) }) if v == "2.0" => Ok(()),
        Ok(Envelope { jsonrpc: Some(v) }) => Err((
            INVALID_REQUEST,
            format!("`jsonrpc` is `{v}`, expected `2.0`"),
        )),
        Ok(Envelope { jsonrpc: None }) => Err((INVALID_REQUEST, "no `jsonrpc` member".to_owned())),
        Err(e) if e.is_syntax() || e.is_eof() || e.is_io() => Err(parse_error(&e)),
        Err(e) => Err((
            INVALID_REQUEST,
            format!("not a JSON-RPC message object: {e}"),
        )),
    }
}

fn parse_error(e: &serde_json::Error) -> (i64, String) {
    (PARSE_ERROR, format!("not JSON: {e}"))
}

fn refuse(status: StatusCode, code: i64, message: String) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (status, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::{INVALID_REQUEST, PARSE_ERROR, judge};

    fn code(body: &str) -> Option<i64> {
        judge(body.as_bytes()).err().map(|(code, _)| code)
    }

    #[test]
    fn a_message_object_passes_and_anything_else_gets_its_json_rpc_code() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            " \n{\"method\":\"x\",\"jsonrpc\":\"2.0\",\"params\":{\"a\":[1,{\"b\":null}]}}",
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#,
        ] {
            assert_eq!(code(ok), None, "{ok}");
        }
        for (body, want) in [
            (r#"{"jsonrpc":"2.0","id":1,"#, PARSE_ERROR),
            ("not json", PARSE_ERROR),
            ("", PARSE_ERROR),
            (r#"{"jsonrpc":"2.0"} trailing"#, PARSE_ERROR),
            (r#"{"jsonrpc":"2.0","params":{"a":tru}}"#, PARSE_ERROR),
            ("[]", INVALID_REQUEST),
            (r#"["2.0"]"#, INVALID_REQUEST),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
            ),
            ("1", INVALID_REQUEST),
            (r#""2.0""#, INVALID_REQUEST),
            (r#"{"id":1,"method":"ping"}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"1.0","id":1}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":2.0,"id":1}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","jsonrpc":"2.0"}"#, INVALID_REQUEST),
        ] {
            assert_eq!(code(body), Some(want), "{body}");
        }
    }

    #[test]
    fn a_parse_error_says_where() {
        let (_, message) = judge(br#"{"jsonrpc":"2.0","id":1,"#).unwrap_err();
        assert!(message.contains("line 1 column"), "{message}");
    }
}
