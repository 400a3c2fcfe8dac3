//! Typed responses: what an executor returns for each operation.
//!
//! Each result struct is also the `state` of the successful output (camelCase
//! JSON), so a UI gets the whole value while the model gets the compact
//! content made from it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::operation::operation_names;
use crate::request::{
    EditFileParams, GetCommandOutputParams, GlobFilesParams, GrepContentParams, GrepOutputMode,
    KillCommandParams, ListFilesParams, MoveFilesParams, ReadFileParams, ReadFilesParams,
    RenameFileParams, RunCommandParams, SearchFilesParams, WriteFileParams,
};

macro_rules! response_enum {
    ($($(#[$doc:meta])* $variant:ident($params:ty) -> $result:ty = $name:literal;)*) => {
        /// The result of one operation, variant for variant with [`Request`](crate::Request).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "op", content = "result", rename_all = "camelCase")]
        #[non_exhaustive]
        pub enum Response {
            $(#[doc = concat!("Result of `", $name, "`.")] $variant($result),)*
        }

        impl Response {
            /// The operation's API name.
            pub fn operation(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)*
                }
            }
        }
    };
}

crate::operation::for_each_operation!(response_enum);
crate::operation::for_each_operation!(operation_names);

/// A per-item failure inside a batch result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ItemError {
    /// Stable machine code (see [`Error::code`](crate::Error::code)).
    pub code: String,
    /// What went wrong and what to do.
    pub message: String,
}

impl From<&crate::Error> for ItemError {
    fn from(error: &crate::Error) -> Self {
        Self {
            code: error.code().as_str().to_owned(),
            message: error.to_string(),
        }
    }
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// File name.
    pub name: String,
    /// Path, relative to the working directory when inside it.
    pub path: String,
    /// Whether it is a directory.
    pub is_directory: bool,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Last modification, milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<u64>,
}

/// Result of `listFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListFilesResult {
    /// The directory, as reported to the model.
    pub path: String,
    /// The entries returned.
    pub entries: Vec<FileEntry>,
    /// Entries in the directory (after the hidden filter).
    pub total: usize,
    /// Secret entries left out because the call runs confined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub secrets_skipped: usize,
}

/// Result of `readFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFileResult {
    /// The file, as reported to the model.
    pub path: String,
    /// The text of the returned lines (line endings kept, long lines cut).
    pub content: String,
    /// First returned line, 0-based.
    pub start_line: usize,
    /// Line after the last returned one (exclusive).
    pub end_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Characters in the whole file.
    pub total_characters: usize,
    /// Bytes in the whole file.
    pub total_bytes: u64,
    /// Whether the content was cut by the size cap before `endLine` was reached.
    pub truncated: bool,
    /// How many lines were cut because they were too long.
    pub long_lines_cut: usize,
    /// `utf-8`, `utf-16le` or `utf-16be`.
    pub encoding: String,
    /// Fingerprint of the whole file; pass it to editFile as `expectedHash`.
    pub content_hash: String,
}

/// One file of `readFiles`: its result or why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFilesItem {
    /// The path as given.
    pub path: String,
    /// The read, when it worked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<ReadFileResult>,
    /// The failure, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ItemError>,
}

/// Result of `readFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFilesResult {
    /// One item per requested path, in order.
    pub files: Vec<ReadFilesItem>,
}

/// Result of `writeFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteFileResult {
    /// The file, as reported to the model.
    pub path: String,
    /// Bytes written.
    pub bytes_written: u64,
    /// Whether the file did not exist before.
    pub created: bool,
}

/// Result of `editFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditFileResult {
    /// The file, as reported to the model.
    pub path: String,
    /// Occurrences replaced.
    pub replacements: usize,
    /// Unified diff of the change.
    pub diff: String,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
    /// Bytes of the new file.
    pub bytes_written: u64,
    /// Fingerprint of the new content.
    pub content_hash: String,
}

/// One move of `moveFiles` and how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveOutcome {
    /// Source, as given.
    pub old_path: String,
    /// Destination, as given.
    pub new_path: String,
    /// Whether it moved.
    pub success: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ItemError>,
}

/// Result of `moveFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveFilesResult {
    /// One outcome per item, in order.
    pub results: Vec<MoveOutcome>,
    /// How many moved.
    pub moved: usize,
    /// How many failed.
    pub failed: usize,
}

/// Result of `renameFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenameFileResult {
    /// Old path, as reported to the model.
    pub old_path: String,
    /// New path, as reported to the model.
    pub new_path: String,
}

/// Result of `searchFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchFilesResult {
    /// The keyword searched.
    pub keyword: String,
    /// The directory searched, as reported to the model.
    pub directory: String,
    /// Matching entries, sorted by path.
    pub results: Vec<FileEntry>,
    /// All matches found (before the limit).
    pub total: usize,
    /// Secret entries left out because the call runs confined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub secrets_skipped: usize,
}

/// Result of `globFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GlobFilesResult {
    /// The glob.
    pub pattern: String,
    /// The directory searched, as reported to the model.
    pub directory: String,
    /// Matching files, sorted by path.
    pub files: Vec<String>,
    /// All matches found (before the limit).
    pub total: usize,
    /// Secret entries left out because the call runs confined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub secrets_skipped: usize,
}

/// One line of `grepContent` content output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepLine {
    /// File, as reported to the model.
    pub path: String,
    /// 1-based line number.
    pub line_number: u64,
    /// The line (without its line ending; long lines cut).
    pub text: String,
    /// Whether this is a context line rather than a match.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub context: bool,
}

/// Matching-line count of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepCount {
    /// File, as reported to the model.
    pub path: String,
    /// Matching lines.
    pub count: u64,
}

/// Result of `grepContent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepContentResult {
    /// The pattern.
    pub pattern: String,
    /// The path searched, as reported to the model.
    pub path: String,
    /// The output mode used.
    pub output_mode: GrepOutputMode,
    /// Whether content lines show their line numbers.
    pub line_numbers: bool,
    /// Content mode: matching (and context) lines, sorted by path then line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<GrepLine>,
    /// Files-with-matches mode: the files, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Count mode: per-file counts, sorted by path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<GrepCount>,
    /// Matching lines in all searched files.
    pub total_matches: u64,
    /// Files with at least one match.
    pub total_files: usize,
    /// Results left out by the limit.
    pub omitted: usize,
    /// Secret files not searched because the call runs confined.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub secrets_skipped: usize,
}

/// State of a command: `runCommand` and `getCommandOutput` both return it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandOutput {
    /// The command's id (`sh-N`), for getCommandOutput and killCommand.
    pub shell_id: String,
    /// The command line.
    pub command: String,
    /// Whether it is still running.
    pub running: bool,
    /// Exit code, once it exited normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Signal number, when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Signal name (`SIGKILL`, …), when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_name: Option<String>,
    /// Standard output produced since the previous read.
    pub stdout: String,
    /// Standard error produced since the previous read.
    pub stderr: String,
    /// Bytes of output produced since the previous read (both streams).
    pub new_bytes: u64,
    /// Of those, bytes not kept by the bounded buffers (replaced by a marker).
    pub dropped_bytes: u64,
    /// Bytes written to stdout since the start.
    pub stdout_total_bytes: u64,
    /// Bytes written to stderr since the start.
    pub stderr_total_bytes: u64,
    /// Milliseconds since the command started.
    pub elapsed_ms: u64,
    /// Whether the call returned while the command kept running in the background.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// The line filter applied, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The sandbox the command ran under (always set by
    /// [`LocalComputer`](crate::LocalComputer); other executors may omit it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::AppliedSandbox>,
    /// Protected entries the confined command created where none existed
    /// (the names without a stand-in: `rust-toolchain.toml`, `.npmrc`,
    /// `*.code-workspace`…, and any name under the Landlock fallback;
    /// see the sandbox guide), each moved out of the workspace into the
    /// computer's quarantine folder once the command's process group
    /// ended (or when it was killed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protected_created: Vec<crate::sandbox::ProtectedCreated>,
    /// Connections the egress proxy refused (egress by name): host, port,
    /// why, how often.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_blocked: Vec<crate::sandbox::BlockedConnection>,
}

/// Result of `killCommand`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KillCommandResult {
    /// The command's id.
    pub shell_id: String,
    /// The command line.
    pub command: String,
    /// Whether it was still running when asked.
    pub was_running: bool,
    /// Whether the process group is gone now.
    pub killed: bool,
    /// The last signal sent to the group (`SIGTERM`, then `SIGKILL` if needed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// How the command ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
