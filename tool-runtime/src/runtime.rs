//! The `ComputerRuntime` template: one required method, every operation provided.

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::{ToolContext, ToolOutput};

use crate::error::{Error, Result};
use crate::format;
use crate::request::{
    EditFileParams, GetCommandOutputParams, GlobFilesParams, GrepContentParams, KillCommandParams,
    ListFilesParams, MoveFilesParams, ReadFileParams, ReadFilesParams, RenameFileParams, Request,
    RunCommandParams, SearchFilesParams, WriteFileParams,
};
use crate::response::Response;

/// A computer an agent can use: files, search and shell.
///
/// Implementors fill one hole, [`call_service`](ComputerRuntime::call_service):
/// send a typed [`Request`] to whatever executes it (this process, a sandbox
/// over HTTP, a user's device) and return its typed [`Response`]. Every
/// operation is provided on top of it and follows the same template:
///
/// 1. call the service;
/// 2. on failure, a failed [`ToolOutput`] with the error's specific code, a
///    message telling the model what to do next, and a state that still
///    carries the request (operation and parameters);
/// 3. on success, the result struct as `state` and the compact text made
///    from it by [`format`](crate::format) as `content`.
///
/// ```
/// use tool_runtime::{ComputerRuntime, Error, Request, Response, ReadFileParams, ReadFileResult};
/// use tool_core::ToolContext;
///
/// /// A computer with one file whose content is its path.
/// struct Echo;
///
/// #[async_trait::async_trait]
/// impl ComputerRuntime for Echo {
///     async fn call_service(&self, request: Request, _ctx: &ToolContext) -> Result<Response, Error> {
///         match request {
///             Request::ReadFile(p) => Ok(Response::ReadFile(ReadFileResult {
///                 content: p.path.clone(), path: p.path, start_line: 0, end_line: 1,
///                 total_lines: 1, total_characters: 5, total_bytes: 5, truncated: false,
///                 long_lines_cut: 0, encoding: "utf-8".into(), content_hash: String::new(),
///             })),
///             other => Err(Error::Unsupported { operation: other.operation().into() }),
///         }
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = ToolContext::new();
/// let ok = Echo.read_file(ReadFileParams::new("hello"), &ctx).await;
/// assert!(ok.success);
/// assert_eq!(ok.state.unwrap()["totalLines"], 1);
///
/// let no = Echo.kill_command(tool_runtime::KillCommandParams { shell_id: "sh-1".into() }, &ctx).await;
/// assert_eq!(no.error_code().unwrap(), "unsupported_operation");
/// assert_eq!(no.state.unwrap()["request"]["shellId"], "sh-1");
/// # });
/// ```
///
/// # Scenarios
///
/// - **A computer in this process** ([`LocalComputer`](crate::LocalComputer))
///   runs the request itself and watches `ctx.cancellation()` while a command
///   runs, so a timed-out call stops its process tree.
/// - **A computer elsewhere** (a sandbox's HTTP API, a user's device)
///   implements `call_service` as one round trip, usually by wrapping a
///   [`Transport`](crate::Transport) in a [`RemoteComputer`](crate::RemoteComputer);
///   the time left for the call is `ctx.remaining()`, which the remote side
///   should receive so both ends give up together.
/// - **An executor that lacks an operation** answers
///   `Error::Unsupported { operation }`: the model gets
///   `unsupported_operation` and the request in `state`.
/// - **Typed failures** (`file_not_found`, `outside_workspace`, …) are
///   returned as the crate's [`Error`]; the template turns each into its code
///   and a next step for the model.
///
/// # The wrong way
///
/// Overriding the provided operations to format outputs by hand: the
/// template is what keeps `content`, `state` and the error codes the same on
/// every computer. Returning a response of another operation (it becomes a
/// `protocol_error`). Starting a private timer inside `call_service` instead
/// of using the context's deadline, or ignoring `ctx.cancellation()` so a
/// command keeps running after its call has ended. Building a successful
/// [`ToolOutput`] that carries an error: fail with an [`Error`] instead.
#[async_trait]
pub trait ComputerRuntime: Send + Sync {
    /// Sends `request` to the executor and returns its typed response.
    ///
    /// The response must be the variant of the request's operation; anything
    /// else is reported as a `protocol_error`.
    async fn call_service(&self, request: Request, ctx: &ToolContext) -> Result<Response>;

    /// Whether this computer confines the commands it runs (its OS
    /// sandbox); `Unknown` by default (a remote or foreign computer).
    fn confinement_support(&self) -> tool_core::ConfinementSupport {
        tool_core::ConfinementSupport::Unknown
    }

    /// Runs any request through the template and returns its output.
    async fn execute(&self, request: Request, ctx: &ToolContext) -> ToolOutput {
        let operation = request.operation();
        let params = request.params_json();
        match self.call_service(request, ctx).await {
            Ok(response) if response.operation() == operation => format::output(&response),
            Ok(response) => failure(
                &Error::Protocol {
                    message: format!(
                        "asked for `{operation}`, got a `{}` result",
                        response.operation()
                    ),
                },
                operation,
                params,
            ),
            Err(error) => failure(&error, operation, params),
        }
    }

    /// Lists a directory.
    async fn list_files(&self, params: ListFilesParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::ListFiles(params), ctx).await
    }

    /// Reads a line range of one file.
    async fn read_file(&self, params: ReadFileParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::ReadFile(params), ctx).await
    }

    /// Reads several files.
    async fn read_files(&self, params: ReadFilesParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::ReadFiles(params), ctx).await
    }

    /// Writes a whole file.
    async fn write_file(&self, params: WriteFileParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::WriteFile(params), ctx).await
    }

    /// Replaces text in a file.
    async fn edit_file(&self, params: EditFileParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::EditFile(params), ctx).await
    }

    /// Moves files or directories.
    async fn move_files(&self, params: MoveFilesParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::MoveFiles(params), ctx).await
    }

    /// Renames one file in place.
    async fn rename_file(&self, params: RenameFileParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::RenameFile(params), ctx).await
    }

    /// Finds files by name, modification time and type.
    async fn search_files(&self, params: SearchFilesParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::SearchFiles(params), ctx).await
    }

    /// Finds files by glob.
    async fn glob_files(&self, params: GlobFilesParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::GlobFiles(params), ctx).await
    }

    /// Searches file contents.
    async fn grep_content(&self, params: GrepContentParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::GrepContent(params), ctx).await
    }

    /// Runs a shell command.
    async fn run_command(&self, params: RunCommandParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::RunCommand(params), ctx).await
    }

    /// Reads the new output of a command.
    async fn get_command_output(
        &self,
        params: GetCommandOutputParams,
        ctx: &ToolContext,
    ) -> ToolOutput {
        self.execute(Request::GetCommandOutput(params), ctx).await
    }

    /// Kills a command and its process tree.
    async fn kill_command(&self, params: KillCommandParams, ctx: &ToolContext) -> ToolOutput {
        self.execute(Request::KillCommand(params), ctx).await
    }
}

#[async_trait]
impl<R: ComputerRuntime + ?Sized> ComputerRuntime for std::sync::Arc<R> {
    async fn call_service(&self, request: Request, ctx: &ToolContext) -> Result<Response> {
        (**self).call_service(request, ctx).await
    }
}

/// The failed output of `operation`: the error's code and message, and a
/// state with the request's parameters so a UI still knows what was asked.
pub fn failure(error: &Error, operation: &str, params: Value) -> ToolOutput {
    let tool_error = error.to_tool_error();
    let state = json!({
        "operation": operation,
        "request": params,
        "error": { "code": tool_error.code.as_str(), "message": tool_error.message },
    });
    ToolOutput {
        content: tool_error.message.clone(),
        state: Some(state),
        success: false,
        error: Some(tool_error),
    }
}
