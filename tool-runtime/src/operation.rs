//! The local computer's operations, listed once.
//!
//! Each row names an operation's [`Request`](crate::Request) variant, its
//! parameters, its [`Response`](crate::Response) result and its API name.
//! [`request`](crate::request) and [`response`](crate::response) build their
//! enums, their `operation()` names and [`OPERATIONS`](crate::OPERATIONS)
//! from this table, so a new operation is one row here (and its manifest
//! entry, which a test holds to the same order).

/// Calls `$then!` with every operation: `Variant(Params) -> Result =
/// "apiName"`, each row with the request variant's doc.
macro_rules! for_each_operation {
    ($then:ident) => {
        $then! {
            /// List a directory.
            ListFiles(ListFilesParams) -> ListFilesResult = "listFiles";
            /// Read one file (a line range).
            ReadFile(ReadFileParams) -> ReadFileResult = "readFile";
            /// Read several files.
            ReadFiles(ReadFilesParams) -> ReadFilesResult = "readFiles";
            /// Write a whole file.
            WriteFile(WriteFileParams) -> WriteFileResult = "writeFile";
            /// Replace text in a file.
            EditFile(EditFileParams) -> EditFileResult = "editFile";
            /// Move files or directories.
            MoveFiles(MoveFilesParams) -> MoveFilesResult = "moveFiles";
            /// Rename one file in place.
            RenameFile(RenameFileParams) -> RenameFileResult = "renameFile";
            /// Find files by name.
            SearchFiles(SearchFilesParams) -> SearchFilesResult = "searchFiles";
            /// Find files by glob.
            GlobFiles(GlobFilesParams) -> GlobFilesResult = "globFiles";
            /// Search file contents.
            GrepContent(GrepContentParams) -> GrepContentResult = "grepContent";
            /// Run a shell command.
            RunCommand(RunCommandParams) -> CommandOutput = "runCommand";
            /// Read new output of a command.
            GetCommandOutput(GetCommandOutputParams) -> CommandOutput = "getCommandOutput";
            /// Kill a command and its children.
            KillCommand(KillCommandParams) -> KillCommandResult = "killCommand";
        }
    };
}

pub(crate) use for_each_operation;

/// An operation's parameters know their API name (from the table above),
/// so the manifest names each API by its parameter type, not by a string
/// written again.
pub(crate) trait Operation {
    /// The API name (`"readFile"`).
    const API: &'static str;
    /// The result type, whose JSON is the successful output's `state`
    /// (the API's declared `output_schema`).
    type Result: schemars::JsonSchema;
}

/// Implements [`Operation`] for every parameter type (invoked where both
/// the parameter and the result types are, in [`response`](crate::response)).
macro_rules! operation_names {
    ($($(#[$doc:meta])* $variant:ident($params:ty) -> $result:ty = $name:literal;)*) => {
        $(impl crate::operation::Operation for $params {
            const API: &'static str = $name;
            type Result = $result;
        })*
    };
}

pub(crate) use operation_names;
