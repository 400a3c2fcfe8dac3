//! The crate's error type.

use std::path::PathBuf;

use crate::finding::Finding;
use crate::remote::RemoteError;

/// What can go wrong in this crate's host-facing APIs (the registry and the
/// maintenance functions). Problems of a model's call become failed
/// `ToolOutput`s with their own codes instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A skill failed validation; nothing was written.
    #[error("{file}: the skill is not valid: {}", summary(findings))]
    Invalid {
        /// The file (or would-be file) checked.
        file: String,
        /// The error findings.
        findings: Vec<Finding>,
    },
    /// No skill has this name.
    #[error("no skill is named {name:?}")]
    UnknownSkill {
        /// The name asked for.
        name: String,
    },
    /// The target already exists.
    #[error("{} already exists", path.display())]
    AlreadyExists {
        /// The existing path.
        path: PathBuf,
    },
    /// The path is not a skill folder this crate may change (no `SKILL.md`,
    /// a symbolic link, or outside the folder it was asked to work in).
    #[error("{}: {reason}", path.display())]
    NotASkill {
        /// The path.
        path: PathBuf,
        /// Why it does not qualify.
        reason: String,
    },
    /// A stored trust store does not read.
    #[error("{message}")]
    TrustStore {
        /// What is wrong with it.
        message: String,
    },
    /// A folder was expected (a workspace root to open or trust).
    #[error("{}: not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// A skill of a remote source could not be fetched, or what the source
    /// handed over failed a check (its size, digest or frontmatter against
    /// the listing, a cap, the Agent Skills format). Nothing of it was used.
    #[error("skill {skill:?} of source `{source_label}`: {error}")]
    Remote {
        /// The skill's name.
        skill: String,
        /// The label of its source.
        source_label: String,
        /// What went wrong, and with which file.
        error: RemoteError,
    },
}

fn summary(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| format!("{} ({})", f.code, f.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    /// Whether this is an I/O failure.
    pub fn is_io(&self) -> bool {
        matches!(self, Self::Io { .. })
    }

    /// What went wrong with a remote skill ([`Error::Remote`]).
    pub fn remote(&self) -> Option<&RemoteError> {
        match self {
            Self::Remote { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The findings of an [`Error::Invalid`], empty otherwise.
    pub fn findings(&self) -> &[Finding] {
        match self {
            Self::Invalid { findings, .. } => findings,
            _ => &[],
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
