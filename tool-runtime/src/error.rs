//! The crate's one error type: what a computer can report back instead of a result.

use std::path::PathBuf;

use serde_json::{Value, json};
use tool_core::{ErrorCode, ToolError};

/// Why an operation on a computer did not produce its result.
///
/// Every variant has a stable machine [`code`](Error::code) and a message
/// written for the model: it says what went wrong *and what to do next*.
/// [`Error::to_tool_error`] turns it into the [`ToolError`] of a failed
/// output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path does not exist.
    #[error("`{}` does not exist; check the path (list the parent directory or glob for the name)", path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A file was expected and a directory was found (or the reverse).
    #[error("`{}` is {found}, expected {expected}", path.display())]
    WrongKind {
        /// The path as given.
        path: PathBuf,
        /// What the operation needs (`a file`, `a directory`).
        expected: &'static str,
        /// What is there.
        found: &'static str,
    },
    /// The file is larger than the operation accepts.
    #[error("`{}` is {size} bytes, over the {limit}-byte limit; search it with grepContent or read a copy of the part you need", path.display())]
    TooLarge {
        /// The path as given.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file's content is binary, not text.
    #[error("`{}` looks like a binary file ({reason}); it cannot be shown as text", path.display())]
    Binary {
        /// The path as given.
        path: PathBuf,
        /// What gave it away.
        reason: String,
    },
    /// The text to replace is not in the file.
    #[error("the text to replace was not found in `{}`; read the file again and copy the exact text, including whitespace", path.display())]
    EditNotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// The text to replace occurs more than once and `replaceAll` was not set.
    #[error("the text to replace occurs {count} times in `{}` (lines {}); add surrounding lines to make it unique, or set replaceAll to change every occurrence", path.display(), lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    EditAmbiguous {
        /// The path as given.
        path: PathBuf,
        /// How many times it occurs.
        count: usize,
        /// 1-based line numbers where the occurrences start.
        lines: Vec<usize>,
    },
    /// The file changed between the read the edit was based on and the write.
    #[error("`{}` changed since it was read ({reason}); read it again and redo the edit on the new content", path.display())]
    FileChanged {
        /// The path as given.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// A destination exists and overwriting was not asked for.
    #[error("`{}` already exists; choose another name or set overwrite", path.display())]
    AlreadyExists {
        /// The path as given.
        path: PathBuf,
    },
    /// An argument is unusable (a bad regex or glob, a bad date, a bad name…).
    #[error("invalid {argument} `{value}`: {message}")]
    InvalidArgument {
        /// The argument's name.
        argument: &'static str,
        /// The offending value.
        value: String,
        /// Why it is invalid and what would work.
        message: String,
    },
    /// No shell has this id (never started, or cleaned up after it finished).
    #[error(
        "no command with id `{id}`; ids look like sh-1 and finished commands are forgotten after a while, run it again if needed"
    )]
    ShellNotFound {
        /// The id as given.
        id: String,
    },
    /// Too many commands are running at once.
    #[error(
        "{running} commands are already running (limit {limit}); kill one with killCommand or wait for one to finish"
    )]
    TooManyShells {
        /// Commands running now.
        running: usize,
        /// The limit.
        limit: usize,
    },
    /// The command could not be started.
    #[error("could not start `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error on a path.
    #[error("I/O error on `{}`: {source}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The executor answered with something this side does not understand.
    #[error("the executor sent an unexpected reply: {message}")]
    Protocol {
        /// What was wrong with it.
        message: String,
    },
    /// The transport to a remote executor failed.
    #[error("the remote computer could not be reached: {message}; retry later")]
    Transport {
        /// What the transport reported.
        message: String,
    },
    /// The executor does not implement this operation.
    #[error("this computer does not support `{operation}`")]
    Unsupported {
        /// The operation's API name.
        operation: String,
    },
    /// The call was cancelled before the executor answered.
    #[error("the operation was cancelled")]
    Cancelled,
    /// The sandbox policy cannot be enforced on this machine and the host
    /// did not allow running unconfined.
    #[error(
        "commands cannot run under the `{policy}` sandbox here: {reason}; the command was not run (a host can choose another policy or allow unconfined execution)"
    )]
    SandboxUnavailable {
        /// The policy (or the part of it) that cannot be enforced.
        policy: String,
        /// Why: what the kernel probe found.
        reason: String,
    },
    /// The sandbox of a command could not be built (a bad root, an
    /// unreadable directory on the way to an excluded path).
    #[error("the sandbox could not be set up at `{}`: {message}; the command was not run", path.display())]
    SandboxSetup {
        /// The path involved.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A protected entry of the workspace is a symlink whose target does
    /// not exist: the command could create the target and so write the
    /// protected entry. The command is not run.
    #[error("`{}` is a protected entry and a symlink to `{}`, which does not exist; the command was not run (remove or fix the symlink)", path.display(), target.display())]
    ProtectedSymlink {
        /// The protected entry.
        path: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// The call runs confined and its confinement does not allow this
    /// operation on this path (see the `local` file wall in the
    /// [sandbox guide](crate::sandbox)).
    #[error("`{}` cannot be {operation} under this call's `{policy}` confinement: {reason}. It allows {allowed}. Only the host (or a person approving the call) can widen it; do not try to work around it", path.display())]
    ConfinementRefused {
        /// The path as given.
        path: PathBuf,
        /// What was refused: `read`, `written`, `moved`…
        operation: &'static str,
        /// Why: the path reached and the rule or class it hit.
        reason: String,
        /// The confinement's name (`workspace_write`, `read_only`).
        policy: String,
        /// What the confinement allows, in words.
        allowed: String,
    },
    /// An error reported by a remote executor, code and message as sent.
    #[error("{message}")]
    Remote {
        /// The remote's error code.
        code: String,
        /// The remote's message.
        message: String,
    },
}

impl Error {
    /// The stable machine code of this error.
    ///
    /// | code | variant |
    /// |---|---|
    /// | `file_not_found` | [`Error::NotFound`] |
    /// | `wrong_file_kind` | [`Error::WrongKind`] |
    /// | `file_too_large` | [`Error::TooLarge`] |
    /// | `binary_file` | [`Error::Binary`] |
    /// | `edit_text_not_found` | [`Error::EditNotFound`] |
    /// | `edit_ambiguous` | [`Error::EditAmbiguous`] |
    /// | `file_changed` | [`Error::FileChanged`] |
    /// | `already_exists` | [`Error::AlreadyExists`] |
    /// | `invalid_argument` | [`Error::InvalidArgument`] |
    /// | `shell_not_found` | [`Error::ShellNotFound`] |
    /// | `too_many_shells` | [`Error::TooManyShells`] |
    /// | `spawn_failed` | [`Error::Spawn`] |
    /// | `io_error` / `permission_denied` | [`Error::Io`] |
    /// | `protocol_error` | [`Error::Protocol`] |
    /// | `transport_error` | [`Error::Transport`] |
    /// | `unsupported_operation` | [`Error::Unsupported`] |
    /// | `cancelled` | [`Error::Cancelled`] |
    /// | `sandbox_unavailable` | [`Error::SandboxUnavailable`] |
    /// | `sandbox_setup_failed` | [`Error::SandboxSetup`] |
    /// | `protected_symlink` | [`Error::ProtectedSymlink`] |
    /// | `confinement_refused` | [`Error::ConfinementRefused`] |
    /// | (as sent) | [`Error::Remote`] |
    pub fn code(&self) -> ErrorCode {
        let code = match self {
            Self::NotFound { .. } => "file_not_found",
            Self::WrongKind { .. } => "wrong_file_kind",
            Self::TooLarge { .. } => "file_too_large",
            Self::Binary { .. } => "binary_file",
            Self::EditNotFound { .. } => "edit_text_not_found",
            Self::EditAmbiguous { .. } => "edit_ambiguous",
            Self::FileChanged { .. } => "file_changed",
            Self::AlreadyExists { .. } => "already_exists",
            Self::InvalidArgument { .. } => "invalid_argument",
            Self::ShellNotFound { .. } => "shell_not_found",
            Self::TooManyShells { .. } => "too_many_shells",
            Self::Spawn { .. } => "spawn_failed",
            Self::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                "permission_denied"
            }
            Self::Io { .. } => "io_error",
            Self::Protocol { .. } => "protocol_error",
            Self::Transport { .. } => "transport_error",
            Self::Unsupported { .. } => "unsupported_operation",
            Self::Cancelled => "cancelled",
            Self::SandboxUnavailable { .. } => "sandbox_unavailable",
            Self::SandboxSetup { .. } => "sandbox_setup_failed",
            Self::ProtectedSymlink { .. } => "protected_symlink",
            Self::ConfinementRefused { .. } => return ErrorCode::CONFINEMENT_REFUSED,
            Self::Remote { code, .. } => return ErrorCode::new(code.clone()),
        };
        ErrorCode::from_static(code)
    }

    /// Whether the error says the path does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }

    /// Structured details (the offending input), for the failed output.
    pub fn details(&self) -> Option<Value> {
        match self {
            Self::NotFound { path }
            | Self::EditNotFound { path }
            | Self::AlreadyExists { path }
            | Self::Io { path, .. } => Some(json!({ "path": path })),
            Self::WrongKind {
                path,
                expected,
                found,
            } => Some(json!({ "path": path, "expected": expected, "found": found })),
            Self::TooLarge { path, size, limit } => {
                Some(json!({ "path": path, "size": size, "limit": limit }))
            }
            Self::Binary { path, reason } | Self::FileChanged { path, reason } => {
                Some(json!({ "path": path, "reason": reason }))
            }
            Self::EditAmbiguous { path, count, lines } => {
                Some(json!({ "path": path, "count": count, "lines": lines }))
            }
            Self::InvalidArgument {
                argument, value, ..
            } => Some(json!({ "argument": argument, "value": value })),
            Self::ShellNotFound { id } => Some(json!({ "shellId": id })),
            Self::TooManyShells { running, limit } => {
                Some(json!({ "running": running, "limit": limit }))
            }
            Self::Spawn { command, .. } => Some(json!({ "command": command })),
            Self::SandboxUnavailable { policy, reason } => {
                Some(json!({ "policy": policy, "reason": reason }))
            }
            Self::SandboxSetup { path, .. } => Some(json!({ "path": path })),
            Self::ProtectedSymlink { path, target } => {
                Some(json!({ "path": path, "target": target }))
            }
            Self::ConfinementRefused {
                path,
                operation,
                reason,
                policy,
                ..
            } => Some(json!({
                "path": path,
                "operation": operation,
                "reason": reason,
                "confinement": policy,
            })),
            _ => None,
        }
    }

    /// The [`ToolError`] of a failed output: code, message and details.
    pub fn to_tool_error(&self) -> ToolError {
        let error = ToolError::new(self.code(), self.to_string());
        match self.details() {
            Some(details) => error.with_details(details),
            None => error,
        }
    }

    /// An I/O error on `path`, classified: a missing path becomes [`Error::NotFound`].
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Self::NotFound { path }
        } else {
            Self::Io { path, source }
        }
    }

    /// An [`Error::InvalidArgument`].
    pub(crate) fn invalid(
        argument: &'static str,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::InvalidArgument {
            argument,
            value: value.into(),
            message: message.into(),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_edit_message_names_count_and_lines() {
        let e = Error::EditAmbiguous {
            path: "a.txt".into(),
            count: 3,
            lines: vec![2, 5, 9],
        };
        let msg = e.to_string();
        assert!(msg.contains("3 times"));
        assert!(msg.contains("lines 2, 5, 9"));
        assert!(msg.contains("replaceAll"));
        assert_eq!(e.code(), "edit_ambiguous");
        assert_eq!(e.to_tool_error().details.unwrap()["lines"][2], 9);
    }

    #[test]
    fn missing_path_io_error_becomes_not_found() {
        let e = Error::io("x", std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(e.is_not_found());
        assert_eq!(e.code(), "file_not_found");
    }

    #[test]
    fn remote_error_keeps_its_code() {
        let e = Error::Remote {
            code: "sandbox_expired".into(),
            message: "gone".into(),
        };
        assert_eq!(e.code(), "sandbox_expired");
    }
}
