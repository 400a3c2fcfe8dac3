//! The one error type of `tool-core`.

use serde_json::Value;

use crate::manifest_problem::ManifestProblem;
use crate::output::{ErrorCode, ToolError};
use crate::provide_error::ProvideError;
use crate::violation::Violation;

/// Everything that can go wrong while declaring, registering, naming or
/// assembling tools. (Failures of a *call* are [`ToolOutput`](crate::ToolOutput)s,
/// not errors.)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A manifest broke a rule; names the tool, the API (if any) and the field.
    #[error("invalid manifest for tool `{tool}`{}: field `{field}`: {message}", api.as_ref().map(|a| format!(", api `{a}`")).unwrap_or_default())]
    InvalidManifest {
        /// The tool's identifier (as given).
        tool: String,
        /// The API, when the problem is inside one.
        api: Option<String>,
        /// The field, as a JSON pointer into the manifest (`/api/2/parameters`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A manifest broke several rules; every one, each at its JSON pointer.
    #[error("invalid manifest for tool `{tool}` ({} problems): {}", problems.len(), problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    InvalidManifestProblems {
        /// The tool's identifier (as given).
        tool: String,
        /// Every problem, in manifest order.
        problems: Vec<ManifestProblem>,
    },
    /// A JSON Schema does not compile.
    #[error("the schema does not compile at {}: {message}", if pointer.is_empty() { "/" } else { pointer })]
    InvalidSchema {
        /// JSON pointer into the schema (`""` for its root).
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A tool with this identifier is already registered.
    #[error("a tool with identifier `{identifier}` is already registered")]
    DuplicateTool {
        /// The identifier.
        identifier: String,
    },
    /// Two APIs would share one wire name.
    #[error("wire name `{name}` would name both `{first}` and `{second}`")]
    WireNameCollision {
        /// The wire name.
        name: String,
        /// `identifier/api` of the one already registered.
        first: String,
        /// `identifier/api` of the newcomer.
        second: String,
    },
    /// A wire name names no offered tool.
    #[error("no offered tool is called `{name}`")]
    UnknownToolName {
        /// The name as the model sent it.
        name: String,
    },
    /// The tool exists but has no such API in this context.
    #[error("tool `{tool}` has no API `{api}` here")]
    UnknownApi {
        /// The tool identifier.
        tool: String,
        /// The API name as sent.
        api: String,
    },
    /// A bare API name matches several offered tools.
    #[error("`{name}` is ambiguous: it could be any of {}", candidates.join(", "))]
    AmbiguousName {
        /// The name as the model sent it.
        name: String,
        /// The wire names it could mean.
        candidates: Vec<String>,
    },
    /// A tool reference names a type no provider handles.
    #[error("reference #{index} ({reference}): no provider for type `{kind}`")]
    MissingProvider {
        /// Position of the reference in the list.
        index: usize,
        /// `type/provider_id/tool_id`.
        reference: String,
        /// The reference's type.
        kind: String,
    },
    /// The provider knows no such provider id / tool id.
    #[error("reference #{index} ({reference}): {message}")]
    MissingTool {
        /// Position of the reference in the list.
        index: usize,
        /// `type/provider_id/tool_id`.
        reference: String,
        /// What was not found.
        message: String,
    },
    /// The reference's instance params violate the factory's params schema.
    #[error("reference #{index} ({reference}): invalid params: {}", violations.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; "))]
    InvalidParams {
        /// Position of the reference in the list.
        index: usize,
        /// `type/provider_id/tool_id`.
        reference: String,
        /// Every violation, with its JSON pointer.
        violations: Vec<Violation>,
    },
    /// An `identifier/apiName` key is malformed.
    #[error("invalid API key `{key}`: {message}")]
    InvalidApiKey {
        /// The key as written.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// A tool kind has no known spelling.
    #[error("unknown tool kind `{kind}` (expected builtin, api, mcp, skill or function)")]
    UnknownToolKind {
        /// The kind as written.
        kind: String,
    },
    /// A provider's message (an assistant turn, a tool call) does not have
    /// the shape that provider documents.
    #[error("{format} message: at {pointer}: {message}")]
    ProviderMessage {
        /// The provider format (`openai-chat`, `openai-responses`, `anthropic`).
        format: String,
        /// JSON pointer into the message.
        pointer: String,
        /// What is wrong there.
        message: String,
    },
    /// A provider could not build the tool, with the provider's typed error
    /// (its cause and whether a retry can help; see [`Error::is_retryable`]).
    #[error("reference #{index} ({reference}): {source}")]
    Provider {
        /// Position of the reference in the list.
        index: usize,
        /// `type/provider_id/tool_id`.
        reference: String,
        /// The provider's error.
        #[source]
        source: ProvideError,
    },
    /// A provider could not build the tool.
    #[error("reference #{index} ({reference}): {message}")]
    ProviderFailed {
        /// Position of the reference in the list.
        index: usize,
        /// `type/provider_id/tool_id`.
        reference: String,
        /// The provider's explanation.
        message: String,
    },
    /// A network allow-list entry (`net::SsrfPolicy::allow`,
    /// feature `net`) is neither a host name, an IP address nor a CIDR.
    #[error("invalid allow-list entry `{entry}`: {message}")]
    InvalidAllowEntry {
        /// The entry as given.
        entry: String,
        /// What is wrong.
        message: String,
    },
    /// A MAC key cannot be used (an empty or odd id, a short secret).
    #[error("MAC key `{key_id}`: {message}")]
    InvalidMacKey {
        /// The key id as given.
        key_id: String,
        /// What is wrong.
        message: String,
    },
    /// A stored pending turn, or an answer to one, is refused as a whole:
    /// not JSON of the documented shape, an unknown version, a MAC that
    /// does not verify (forged or altered), a key the host does not hold.
    #[error("pending turn `{pending_id}` refused at {pointer}: {message}")]
    PendingRefused {
        /// The turn's id, as far as it could be read (`""` when not).
        pending_id: String,
        /// JSON pointer into the turn (`/mac`, `/items/0/call`, `""`).
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// The use-once ledger could not answer (a Redis error, a poisoned
    /// lock). The call it guards does not run.
    #[error("use-once ledger: {message}")]
    Ledger {
        /// What went wrong.
        message: String,
    },
    /// A remembered answer ("always") cannot be recorded or loaded.
    #[error("remembered answer: {message}")]
    Remembered {
        /// What is wrong.
        message: String,
    },
    /// A guarded HTTP client could not be built (feature `net`).
    #[error("cannot build the HTTP client: {message}")]
    HttpClient {
        /// reqwest's message.
        message: String,
    },
    /// A tool search query (from a model or a host) cannot be run: an
    /// empty query, or a regular expression that does not compile or is
    /// too large.
    #[error("tool search query `{query}`: {message}")]
    InvalidSearchQuery {
        /// The query as given.
        query: String,
        /// What is wrong with it.
        message: String,
    },
    /// A stored taint session state (ledger, pins, quota counts) does not
    /// read.
    #[error("taint session: {message}")]
    Session {
        /// What is wrong.
        message: String,
    },
    /// A rule of a data table (a secret-redaction rule, a quota) is
    /// refused at load: a pattern that does not compile, an example it does
    /// not match, a counter-example it does match.
    #[error("rule `{rule}` of {table}: {message}")]
    InvalidRule {
        /// The table (`secret rules`, `quotas`…) or its file.
        table: String,
        /// The rule's id (`""` when it has none).
        rule: String,
        /// What is wrong.
        message: String,
    },
    /// A confinement read from JSON (a policy file, a stored decision, a
    /// host's setting) has a field of the wrong shape: an unknown mode or
    /// key, `network` neither a flag nor an allow-list object, an egress
    /// entry that is not a host name.
    #[error("invalid confinement at {}: {message}", if field.is_empty() { "/" } else { field })]
    InvalidConfinement {
        /// The field, as a JSON pointer into the confinement
        /// (`/network/allow/1`).
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// Whether this is a manifest validation error (one problem or several).
    pub fn is_invalid_manifest(&self) -> bool {
        matches!(
            self,
            Self::InvalidManifest { .. } | Self::InvalidManifestProblems { .. }
        )
    }

    /// Every manifest problem this error reports (empty for other errors).
    pub fn manifest_problems(&self) -> Vec<ManifestProblem> {
        match self {
            Self::InvalidManifest {
                api,
                field,
                message,
                ..
            } => vec![ManifestProblem {
                pointer: field.clone(),
                api: api.clone(),
                message: message.clone(),
            }],
            Self::InvalidManifestProblems { problems, .. } => problems.clone(),
            _ => Vec::new(),
        }
    }

    /// Whether trying again later can succeed (a provider that was
    /// unavailable and said a retry can help).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Provider { source, .. } if source.is_retryable())
    }

    /// Whether this error concerns resolving a model-provided name.
    pub fn is_name_error(&self) -> bool {
        matches!(
            self,
            Self::UnknownToolName { .. } | Self::UnknownApi { .. } | Self::AmbiguousName { .. }
        )
    }

    /// The position of the stored reference this error is about (errors of
    /// an [`Assembler`](crate::assembly::Assembler) run), if it is about one.
    pub fn reference_index(&self) -> Option<usize> {
        match self {
            Self::MissingProvider { index, .. }
            | Self::MissingTool { index, .. }
            | Self::InvalidParams { index, .. }
            | Self::Provider { index, .. }
            | Self::ProviderFailed { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// The call-level error a model should see for a name error.
    pub fn to_tool_error(&self) -> ToolError {
        let (code, details) = match self {
            Self::UnknownToolName { name } => (
                ErrorCode::TOOL_NOT_FOUND,
                serde_json::json!({ "name": name }),
            ),
            Self::UnknownApi { tool, api } => (
                ErrorCode::UNKNOWN_API,
                serde_json::json!({ "tool": tool, "api": api }),
            ),
            Self::AmbiguousName { name, candidates } => (
                ErrorCode::AMBIGUOUS_TOOL_NAME,
                serde_json::json!({ "name": name, "candidates": candidates }),
            ),
            other => (
                ErrorCode::EXECUTION_FAILED,
                Value::String(other.to_string()),
            ),
        };
        ToolError::new(code, self.to_string()).with_details(details)
    }
}
