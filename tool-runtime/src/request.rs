//! Typed requests: one variant per operation, one parameter struct per variant.
//!
//! The parameter structs are also what the model sees: their JSON Schemas
//! (camelCase names, doc comments as descriptions, and each argument's role
//! declared by a [`tool_core::approval::role`] type: `"x-role": "path"` on every path,
//! `working-directory`, `shell-command`, `environment`) are the
//! local-system tool's API parameters.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::approval::role;

macro_rules! request_enum {
    ($($(#[$doc:meta])* $variant:ident($params:ty) -> $result:ty = $name:literal;)*) => {
        /// One operation, with its typed parameters, sent to whatever executes it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "op", content = "params", rename_all = "camelCase")]
        #[non_exhaustive]
        pub enum Request {
            $($(#[$doc])* $variant($params),)*
        }

        /// The API names of every operation, in manifest order.
        pub const OPERATIONS: [&str; [$($name),*].len()] = [$($name),*];

        impl Request {
            /// The operation's API name (`readFile`, `runCommand`, …).
            pub fn operation(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)*
                }
            }
        }
    };
}

crate::operation::for_each_operation!(request_enum);

impl Request {
    /// Builds the request for API `operation` from its JSON arguments.
    pub fn from_api(operation: &str, args: serde_json::Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(serde_json::json!({ "op": operation, "params": args }))
    }

    /// The parameters as JSON (the request's context, kept in failed states).
    pub fn params_json(&self) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.remove("params").unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::Value::Null,
        }
    }
}

/// How `listFiles` orders entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SortBy {
    /// Directories first, then by name (the default).
    #[default]
    Name,
    /// Newest first.
    Modified,
    /// Largest first.
    Size,
}

/// Parameters of `listFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListFilesParams {
    /// Directory to list (absolute, relative to the working directory, or starting with ~).
    #[schemars(with = "role::Path")]
    pub path: String,
    /// Include entries whose name starts with a dot. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_hidden: Option<bool>,
    /// Order of entries: name (directories first), modified (newest first) or size. Default name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<SortBy>,
    /// Maximum number of entries returned. Default 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// Parameters of `readFile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFileParams {
    /// File to read.
    #[schemars(with = "role::Path")]
    pub path: String,
    /// First line to return, 0-based. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Line after the last one to return (0-based, exclusive). Default startLine + 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Return the whole file, ignoring startLine/endLine (still capped in size). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_content: Option<bool>,
}

impl ReadFileParams {
    /// Reads `path` with the default range.
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            start_line: None,
            end_line: None,
            full_content: None,
        }
    }
}

/// Parameters of `readFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFilesParams {
    /// Files to read (the first 200 lines of each).
    #[schemars(with = "role::Paths")]
    pub paths: Vec<String>,
}

/// Parameters of `writeFile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteFileParams {
    /// File to create or overwrite. Missing parent directories are created.
    #[schemars(with = "role::Path")]
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// Parameters of `editFile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditFileParams {
    /// File to edit.
    #[schemars(with = "role::Path")]
    pub path: String,
    /// Exact text to replace (literal, not a regex), including whitespace. Must occur exactly once unless replaceAll is set.
    pub old_string: String,
    /// Text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring a unique one. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_all: Option<bool>,
    /// The contentHash that readFile reported; the edit is refused if the file changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_hash: Option<String>,
}

/// One move of `moveFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveItem {
    /// Current path.
    #[schemars(with = "role::Path")]
    pub old_path: String,
    /// New path (its parent directories are created).
    #[schemars(with = "role::Path")]
    pub new_path: String,
}

/// Parameters of `moveFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveFilesParams {
    /// The moves to make, in order.
    pub items: Vec<MoveItem>,
    /// Replace existing destinations. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite: Option<bool>,
}

/// Parameters of `renameFile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenameFileParams {
    /// File or directory to rename.
    #[schemars(with = "role::Path")]
    pub path: String,
    /// New name (a bare name, no directory separators); it stays in the same directory.
    pub new_name: String,
}

/// Which kinds of entries `searchFiles` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    /// Files only (the default).
    #[default]
    File,
    /// Directories only.
    Directory,
    /// Both.
    Any,
}

/// Parameters of `searchFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchFilesParams {
    /// Words that must all appear in the file name (case-insensitive).
    pub keyword: String,
    /// Directory to search. Default: the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<role::Path>")]
    pub directory: Option<String>,
    /// Only files with these extensions (without the dot), e.g. ["rs", "md"].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_types: Option<Vec<String>>,
    /// Only entries modified at or after this time (ISO 8601, e.g. 2025-01-31 or 2025-01-31T12:00:00Z).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_after: Option<String>,
    /// Only entries modified before this time (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_before: Option<String>,
    /// file, directory or any. Default file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<EntryKind>,
    /// Include files ignored by .gitignore and similar. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_ignored: Option<bool>,
    /// Include hidden files and directories. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_hidden: Option<bool>,
    /// Maximum number of results. Default 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// Parameters of `globFiles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GlobFilesParams {
    /// Glob relative to the search directory, e.g. "**/*.rs" or "src/{a,b}/*.md".
    pub pattern: String,
    /// Directory to search. Default: the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<role::Path>")]
    pub path: Option<String>,
    /// Include files ignored by .gitignore and similar. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_ignored: Option<bool>,
    /// Include hidden files and directories. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_hidden: Option<bool>,
    /// Maximum number of results. Default 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// What `grepContent` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum GrepOutputMode {
    /// Matching lines (with context lines if asked).
    Content,
    /// Only the paths of files that match (the default).
    #[default]
    FilesWithMatches,
    /// The number of matching lines per file.
    Count,
}

/// Parameters of `grepContent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepContentParams {
    /// Regular expression (Rust/ripgrep syntax) to search for.
    pub pattern: String,
    /// File or directory to search. Default: the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<role::Path>")]
    pub path: Option<String>,
    /// content, filesWithMatches or count. Default filesWithMatches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<GrepOutputMode>,
    /// Only search files whose path matches this glob, e.g. "*.rs" or "src/**/*.ts".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// Only search files of this ripgrep type, e.g. rust, py, js, md.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "type")]
    pub file_type: Option<String>,
    /// Match case-insensitively. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers in content mode. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_numbers: Option<bool>,
    /// Lines of context before each match (content mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_before: Option<usize>,
    /// Lines of context after each match (content mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_after: Option<usize>,
    /// Lines of context before and after (content mode); contextBefore/contextAfter win.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<usize>,
    /// Let the pattern span lines (`.` matches newlines too). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Include files ignored by .gitignore and similar. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_ignored: Option<bool>,
    /// Include hidden files and directories. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_hidden: Option<bool>,
    /// Maximum number of results (lines, files or counts). Default 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl GrepContentParams {
    /// A search for `pattern` with every option at its default.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            pattern: pattern.into(),
            path: None,
            output_mode: None,
            glob: None,
            file_type: None,
            case_insensitive: None,
            line_numbers: None,
            context_before: None,
            context_after: None,
            context: None,
            multiline: None,
            include_ignored: None,
            include_hidden: None,
            limit: None,
        }
    }
}

/// Parameters of `runCommand`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCommandParams {
    /// The shell command line (run with sh -c).
    #[schemars(with = "role::ShellCommand")]
    pub command: String,
    /// One short sentence saying what the command does, for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Working directory. Default: the working directory of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<role::WorkingDirectory>")]
    pub cwd: Option<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<role::Environment>")]
    pub env: Option<BTreeMap<String, String>>,
    /// How long to wait for the command, in milliseconds (default 30000, max 120000). A command still running afterwards keeps running in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 120000))]
    pub timeout: Option<u64>,
    /// Return at once and let the command run in the background. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
}

impl RunCommandParams {
    /// Runs `command` with every option at its default.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            description: None,
            cwd: None,
            env: None,
            timeout: None,
            run_in_background: None,
        }
    }
}

/// Parameters of `getCommandOutput`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetCommandOutputParams {
    /// The id runCommand returned, e.g. sh-1.
    pub shell_id: String,
    /// Only return new output lines matching this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

/// Parameters of `killCommand`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KillCommandParams {
    /// The id runCommand returned, e.g. sh-1.
    pub shell_id: String,
}

#[cfg(test)]
mod tests {
    use super::{OPERATIONS, Request};

    /// Each row's API name is the one serde reads for its variant (a row
    /// whose name and variant disagree would build requests nobody decodes).
    #[test]
    fn every_row_name_is_the_serde_name_of_its_variant() {
        for name in OPERATIONS {
            let error = Request::from_api(name, serde_json::json!({"__": 1}))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(!error.contains("unknown variant"), "{name}: {error}");
        }
        let error = Request::from_api("formatDisk", serde_json::json!({})).unwrap_err();
        assert!(error.to_string().contains("unknown variant"), "{error}");
    }
}
