//! The one error type of `tool-openapi`.

use tool_core::pipeline::Violation;

/// Everything that can go wrong loading, compiling or configuring API tools.
/// (Failures of a *call* are [`ToolOutput`](tool_core::ToolOutput)s with
/// their own codes, see [`codes`](crate::codes).)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not JSON (or YAML); where it broke.
    #[error("not valid {format} at line {line}, column {column}: {message}")]
    Syntax {
        /// `JSON` or `YAML`.
        format: &'static str,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The document broke rules; every problem, each with its JSON pointer.
    #[error("invalid document ({} problem{}): {}", problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// Every problem found.
        problems: Vec<Violation>,
    },
    /// The text is larger than the loader accepts.
    #[error("document of {size} bytes is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The text's size in bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Nothing could be imported (every operation failed or was filtered out).
    #[error("no operation could be imported: {reason}")]
    NothingImported {
        /// Why (filters, failures).
        reason: String,
    },
    /// The compiled manifest was refused by `tool-core`.
    #[error(transparent)]
    Manifest(tool_core::Error),
    /// An allow-list entry is neither a host name, an IP address nor a CIDR.
    #[error("invalid allow-list entry `{entry}`: {message}")]
    InvalidAllowEntry {
        /// The entry as given.
        entry: String,
        /// What is wrong.
        message: String,
    },
    /// A credential or header a host configured cannot be sent.
    #[error("invalid configuration `{field}`: {message}")]
    InvalidConfig {
        /// What was configured (`headers.X-Key`, `credentials.petstore_auth`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// A file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The OS message.
        message: String,
    },
}

/// tool-core's errors; the network guard's own (an allow-list entry, the
/// client) keep this crate's variants.
impl From<tool_core::Error> for Error {
    fn from(error: tool_core::Error) -> Self {
        match error {
            tool_core::Error::InvalidAllowEntry { entry, message } => {
                Self::InvalidAllowEntry { entry, message }
            }
            tool_core::Error::HttpClient { message } => Self::Client(message),
            other => Self::Manifest(other),
        }
    }
}

impl Error {
    /// Whether the document itself is invalid (as opposed to unreadable text).
    pub fn is_invalid(&self) -> bool {
        matches!(self, Self::Invalid { .. })
    }

    /// Whether the text did not parse.
    pub fn is_syntax(&self) -> bool {
        matches!(self, Self::Syntax { .. })
    }

    /// The problems of an invalid document (empty for other errors).
    pub fn problems(&self) -> &[Violation] {
        match self {
            Self::Invalid { problems } => problems,
            _ => &[],
        }
    }
}
