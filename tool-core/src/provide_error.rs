//! Why a provider could not turn a reference into a tool.

use std::error::Error as StdError;
use std::sync::Arc;

use crate::violation::Violation;

/// The underlying cause of a provider failure, shared so the error stays `Clone`.
pub type ErrorSource = Arc<dyn StdError + Send + Sync + 'static>;

/// Why a provider could not resolve a reference.
///
/// Besides saying *what* went wrong, an error says whether trying again can
/// help ([`is_retryable`](Self::is_retryable)) and carries its cause
/// ([`std::error::Error::source`]): an MCP server that refused the
/// connection is worth a retry, a spec that does not parse is not.
///
/// ```
/// use std::error::Error as _;
/// use tool_core::assembly::ProvideError;
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = ProvideError::transient("the MCP server `files` is not reachable").with_source(io);
/// assert!(error.is_retryable());
/// assert_eq!(error.source().unwrap().to_string(), "refused");
///
/// let error = ProvideError::permanent("the OpenAPI document has no paths");
/// assert!(!error.is_retryable());
/// assert!(!ProvideError::NotFound("no tool `x`".into()).is_retryable());
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ProvideError {
    /// No such provider id or tool id. Never retryable.
    #[error("{0}")]
    NotFound(String),
    /// The params are invalid; every violation with its pointer. Never retryable.
    #[error("invalid params")]
    InvalidParams(Vec<Violation>),
    /// Anything else, described by a message only. Not retryable; prefer
    /// [`ProvideError::transient`] / [`ProvideError::permanent`], which say
    /// so explicitly and can carry a cause.
    #[error("{0}")]
    Failed(String),
    /// The provider failed (a spec that no longer loads, a server that is
    /// down…), saying whether a retry can help and, when known, why.
    #[error("{message}")]
    Unavailable {
        /// What failed, for a person.
        message: String,
        /// The cause.
        #[source]
        source: Option<ErrorSource>,
        /// Whether trying the same reference again later can succeed.
        retryable: bool,
    },
}

impl ProvideError {
    /// A failure a retry can fix (a timeout, a refused connection, a 503).
    pub fn transient(message: impl Into<String>) -> Self {
        Self::Unavailable {
            message: message.into(),
            source: None,
            retryable: true,
        }
    }

    /// A failure a retry cannot fix (a document that does not parse, a
    /// server that answers with an error about the request itself).
    pub fn permanent(message: impl Into<String>) -> Self {
        Self::Unavailable {
            message: message.into(),
            source: None,
            retryable: false,
        }
    }

    /// Attaches the cause. A [`Failed`](Self::Failed) becomes a permanent
    /// [`Unavailable`](Self::Unavailable); `NotFound` and `InvalidParams`
    /// have no cause and are returned unchanged.
    pub fn with_source(self, source: impl StdError + Send + Sync + 'static) -> Self {
        self.with_shared_source(Arc::new(source))
    }

    /// [`with_source`](Self::with_source) for a cause that is already shared.
    pub fn with_shared_source(self, source: ErrorSource) -> Self {
        match self {
            Self::Failed(message) => Self::Unavailable {
                message,
                source: Some(source),
                retryable: false,
            },
            Self::Unavailable {
                message, retryable, ..
            } => Self::Unavailable {
                message,
                source: Some(source),
                retryable,
            },
            other => other,
        }
    }

    /// Whether trying the same reference again later can succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Unavailable {
                retryable: true,
                ..
            }
        )
    }

    /// Whether the provider knows no such provider id or tool id.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound(_))
    }
}

/// Errors compare by message, retryability and the text of their causes.
impl PartialEq for ProvideError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::NotFound(a), Self::NotFound(b)) | (Self::Failed(a), Self::Failed(b)) => a == b,
            (Self::InvalidParams(a), Self::InvalidParams(b)) => a == b,
            (
                Self::Unavailable {
                    message: m1,
                    source: s1,
                    retryable: r1,
                },
                Self::Unavailable {
                    message: m2,
                    source: s2,
                    retryable: r2,
                },
            ) => {
                m1 == m2
                    && r1 == r2
                    && s1.as_ref().map(ToString::to_string) == s2.as_ref().map(ToString::to_string)
            }
            _ => false,
        }
    }
}
