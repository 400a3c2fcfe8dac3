//! The error codes of failed HTTP tool calls (beside the pipeline's own).

use tool_core::ErrorCode;

/// The server answered with a status outside 2xx; the message names it and
/// the state keeps `{status, headers, body}`.
pub const HTTP_STATUS: ErrorCode = ErrorCode::from_static("http_status");
/// Nothing listens at the address.
pub const CONNECTION_REFUSED: ErrorCode = ErrorCode::from_static("connection_refused");
/// The host name did not resolve.
pub const DNS_FAILURE: ErrorCode = ErrorCode::from_static("dns_failure");
/// The request ran past the call's deadline (the pipeline's own code).
pub const TIMEOUT: ErrorCode = ErrorCode::TIMEOUT;
/// The redirect chain was longer than the guard allows.
pub const TOO_MANY_REDIRECTS: ErrorCode = ErrorCode::from_static("too_many_redirects");
/// The response body was larger than the cap.
pub const BODY_TOO_LARGE: ErrorCode = ErrorCode::from_static("body_too_large");
/// The SSRF guard refused an address; the message names it.
pub const SSRF_BLOCKED: ErrorCode = ErrorCode::from_static("ssrf_blocked");
/// The arguments cannot be sent (a type that cannot be coerced, a path
/// value of `.` or `..`, a header value with control characters).
pub const INVALID_ARGUMENTS: ErrorCode = ErrorCode::INVALID_ARGUMENTS;
/// Any other transport failure (TLS, a reset connection…).
pub const REQUEST_FAILED: ErrorCode = ErrorCode::from_static("request_failed");
/// The API has no absolute base URL (its `servers` are missing or
/// relative and the host gave none); nothing was sent.
pub const NO_BASE_URL: ErrorCode = ErrorCode::from_static("no_base_url");
/// A file argument names a path outside the workspace, or there is no
/// workspace to read it from; nothing was sent.
pub const FILE_REFUSED: ErrorCode = ErrorCode::from_static("file_refused");
/// A file argument names a file that is missing, not a regular file,
/// larger than the upload cap, or unreadable; nothing was sent.
pub const FILE_UNREADABLE: ErrorCode = ErrorCode::from_static("file_unreadable");
/// Not a failure: the code a successful call's summary starts with when
/// the response was binary of a type no model takes (not an image or a
/// PDF); the state keeps the bytes as base64 under `body.base64`, with
/// `body.code` set to this code (see the crate docs, "Responses").
pub const BINARY_RESPONSE: ErrorCode = ErrorCode::from_static("binary_response");
/// An OAuth2 access token could not be had from the scheme's token URL
/// (refused, unreachable, or an answer without a bearer token); nothing
/// was sent to the API. A token URL the SSRF guard refuses is
/// [`SSRF_BLOCKED`].
pub const TOKEN_REQUEST_FAILED: ErrorCode = ErrorCode::from_static("token_request_failed");
