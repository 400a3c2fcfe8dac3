//! HTTP tools for LLM agents from API descriptions: a narrow OpenAPI-like
//! protocol and real OpenAPI 3.0/3.1 documents become one tool each (one
//! API per operation), called over an SSRF-guarded HTTP client.
//!
//! A host needs one import, [`prelude`]: [`load_document`] with
//! [`ImportOptions`], then [`OpenApiTool::builder`] and `register`; the
//! rest is for validating, filtering and compiling documents by hand.
//!
//! # Overview of the roles
//!
//! - [`validate_narrow`]: the narrow protocol → every problem with its JSON
//!   pointer, or a normalised [`ApiDocument`] plus warnings.
//! - [`import_openapi`] / [`load_document`]: OpenAPI 3.0/3.1 (JSON or YAML)
//!   into the same form, with per-operation failures and filters
//!   ([`ImportOptions`]).
//! - [`compile_manifest`]: an [`ApiDocument`] → a `tool-core` manifest, one
//!   API per [`Operation`], approval defaults by [`Method`].
//! - [`OpenApiTool`]: the runtime tool; sends each call over HTTP (JSON,
//!   form, multipart with workspace files, text or binary bodies, by the
//!   operation's [`BodyFormat`]) and returns `state = {status, headers,
//!   body}` and compact content (see "Responses" below).
//!   [`OpenApiToolBuilder::register`] builds and registers it with each
//!   operation's schema compiled once (an import's compilation is reused).
//! - [`Credentials`]: the host's secrets by security scheme; each call
//!   sends the first alternative of its operation's `security` the host
//!   has every credential for (API keys in a header, the query or a
//!   cookie; HTTP basic and bearer; OAuth2 client credentials exchanged
//!   at the token URL through the same SSRF guard, the token cached until
//!   it expires), none where it says `security: []`. Parameters are
//!   written by their `style` and `explode` (form, spaceDelimited,
//!   pipeDelimited, deepObject, simple, label, matrix); an empty query
//!   value is sent only where `allowEmptyValue` (or the style, for arrays)
//!   says so. Form and multipart fields follow their `encoding`
//!   (`contentType`, `style`, `explode`, and part `headers` whose value
//!   the document fixes), and the body's media type is the only
//!   `Content-Type` sent.
//! - [`SsrfGuard`]: builds a guarded `reqwest::Client` under an
//!   [`SsrfPolicy`]; it lives in `tool_core::net` (feature `net`) so
//!   tool-mcp's HTTP transport uses the same guard, and is re-exported here.
//! - [`OpenApiProvider`]: serves stored references of type `"api"` to a
//!   `tool-core` [`Assembler`](tool_core::assembly::Assembler).
//!
//! # Responses
//!
//! A 2xx answer's body is the content: JSON as JSON, text types (and any
//! UTF-8 body) as text. A binary body reaches the model as itself where
//! providers take it, and as a named summary where they do not:
//!
//! | response type | content | content part ([`tool_core::ContentPart`]) |
//! |---|---|---|
//! | `image/png`, `jpeg`, `gif`, `webp` | `[image: image/png, 12.0 KiB]` | `Image` (base64) |
//! | `application/pdf` | `[file: report.pdf, application/pdf, 80.0 KiB]` | `File` (named from `Content-Disposition`) |
//! | any other binary | `binary_response: 2.0 MiB of application/zip (…)` | none; `state.body` keeps `{code, contentType, bytes, base64}` |
//!
//! `binary_response` ([`codes::BINARY_RESPONSE`]) is a stable code, not a
//! failure: the request was sent and answered.
//!
//! # Failure codes
//!
//! A failed call carries one of the [`codes`]: `http_status`,
//! `connection_refused`, `dns_failure`, `timeout`, `too_many_redirects`,
//! `body_too_large`, `ssrf_blocked`, `invalid_arguments`, `request_failed`,
//! `no_base_url`, `file_refused`, `file_unreadable`,
//! `token_request_failed`, and tool-core's
//! `confinement_refused` for a secret file argument of a confined call.
//!
//! # Example
//!
//! ```
//! use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry, manifest::NameRules};
//! use tool_openapi::{OpenApiTool, SsrfGuard, SsrfPolicy, validate_narrow};
//!
//! let validation = validate_narrow(r#"{"server": "http://10.0.0.8", "description": "Internal.",
//!   "paths": {"/status": {"get": {"operationId": "status", "description": "Status."}}}}"#);
//! assert!(validation.is_ok());
//! let tool = OpenApiTool::builder(validation.document.unwrap(), "internal")
//!     .guard(SsrfGuard::new(SsrfPolicy::default()))
//!     .build()?;
//! let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
//! registry.register(tool)?;
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let ctx = ToolContext::new();
//! let out = Invoker::default().invoke_in(&registry, &ToolCall::new("internal____status", "{}"), &ctx).await;
//! assert_eq!(out.error_code().unwrap(), "ssrf_blocked"); // 10.0.0.8 is private
//! assert!(out.content.contains("10.0.0.8"));
//! # });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! None.
#![deny(missing_docs)]

mod client;
pub mod codes;
mod compile;
mod credentials;
mod document;
mod error;
mod execute;
mod fingerprint;
mod import;
mod interned;
mod method;
mod narrow;
mod pointer;
mod provider;
mod sendable;
mod server;
mod tool;

pub use compile::{MANIFEST_KIND, api_definition, compile_manifest, parameters_schema};
#[allow(deprecated)]
pub use credentials::Secret;
pub use credentials::{ApiSecret, Credentials};
pub use document::{
    ApiDocument, BodyFormat, BodyKind, FieldEncoding, KeyLocation, Location, Operation, Parameter,
    ParameterStyle, SchemeKind, SecurityRequirement, SecurityScheme, ServerTemplate,
    ServerVariable,
};
pub use error::Error;
pub use execute::coerce;
pub use import::{
    ARGUMENT_DESCRIPTION, BatchImport, DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_DOCUMENT_CHARS,
    DEFAULT_MAX_TOOL_CHARS, DocumentKind, Import, ImportOptions, Loaded, NESTED_DESCRIPTION,
    OperationFailure, Shortened, TOOL_DESCRIPTION, import_batch, import_openapi, import_value,
    load_document, load_value, parse_text,
};
pub use method::Method;
pub use narrow::{Validation, parse_narrow, validate_narrow, validate_narrow_value};
pub use provider::{ALL_OPERATIONS, OpenApiProvider};
pub use tool::{DEFAULT_MAX_UPLOAD_BYTES, OpenApiTool, OpenApiToolBuilder};

/// What a host uses, in one import: `use tool_openapi::prelude::*;` —
/// loading a document ([`load_document`], [`ImportOptions`]), the tool and
/// its builder ([`OpenApiTool`]), credentials ([`Credentials`]), the
/// network guard ([`SsrfGuard`], [`SsrfPolicy`]) and references resolved
/// by the assembler ([`OpenApiProvider`]). Names do not clash with
/// `tool_core::prelude`.
///
/// ```
/// use tool_openapi::prelude::*;
/// let options = ImportOptions::new().server("https://api.example.com");
/// let guard = SsrfGuard::new(SsrfPolicy::default());
/// # let _ = (options, guard);
/// ```
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        Credentials, ImportOptions, OpenApiProvider, OpenApiTool, SsrfGuard, SsrfPolicy,
        load_document,
    };
}
/// The network guard, from tool-core's `net` module (one guard for every
/// crate that sends HTTP for a model); re-exported under the names this
/// crate has always had.
#[doc(no_inline)]
pub use tool_core::net::{
    AddressClass, BodyError, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REDIRECTS, DnsFailure,
    RedirectRule, SsrfBlocked, SsrfGuard, SsrfPolicy, TooManyRedirects, classify, read_body,
};
