//! `LocalComputer`: the real filesystem and real processes of this machine.

mod confine;
mod edit;
mod fs;
mod grep;
mod paths;
mod read;
mod search;
mod shell;
mod verified;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tool_core::ToolContext;

use crate::error::{Error, Result};
use crate::request::{Request, RunCommandParams};
use crate::response::Response;
use crate::runtime::ComputerRuntime;
use crate::sandbox::SandboxPolicy;
use paths::Paths;
pub use shell::ShellConfig;
use shell::{ShellManager, Spawn};

/// Settings of a [`LocalComputer`].
///
/// Defaults:
///
/// | setting | default |
/// |---|---|
/// | `working_dir` | `None`: the context's `cwd()`, else the process's current directory |
/// | `max_file_bytes` | 10 MiB (larger files are refused by readFile and editFile) |
/// | `default_read_lines` | 200 |
/// | `max_line_chars` | 8 000 (longer lines are cut with a marker) |
/// | `max_read_chars` | 24 000 (content of one read; a marker says how to go on) |
/// | `shell` | see [`ShellConfig`] (sandbox: full access) |
///
/// Precedence of the working directory: the call's [`ToolContext::cwd`],
/// then `working_dir`, then the process's current directory.
#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// Working directory when the context has none.
    pub working_dir: Option<PathBuf>,
    /// Largest file readFile and editFile accept, in bytes.
    pub max_file_bytes: u64,
    /// Lines readFile returns when no end is given.
    pub default_read_lines: usize,
    /// Characters of one line before it is cut.
    pub max_line_chars: usize,
    /// Characters of content one read returns.
    pub max_read_chars: usize,
    /// The shell process manager's settings.
    pub shell: ShellConfig,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            working_dir: None,
            max_file_bytes: 10 * 1024 * 1024,
            default_read_lines: 200,
            max_line_chars: 8_000,
            max_read_chars: 24_000,
            shell: ShellConfig::default(),
        }
    }
}

impl LocalConfig {
    /// The defaults with a fixed working directory.
    pub fn with_working_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }

    /// These settings with commands confined by `policy` (see
    /// [`crate::sandbox`]); the same as setting `shell.sandbox`.
    pub fn with_sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.shell.sandbox = policy;
        self
    }
}

/// This machine as a [`ComputerRuntime`]: files under the call's working
/// directory (or anywhere by absolute path) and `sh` commands.
///
/// File work and searches run on tokio's blocking pool, never on the
/// reactor. Commands run in their own process groups; the process manager
/// lives as long as the computer (share it with `Arc`), and every command
/// still running when the last clone is dropped is killed with its children.
///
/// ```
/// use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, WriteFileParams, ReadFileParams};
/// use tool_core::ToolContext;
///
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let computer = LocalComputer::new(LocalConfig::default());
/// let ctx = ToolContext::new().with_cwd(dir.path());
///
/// let wrote = computer
///     .write_file(WriteFileParams { path: "notes/a.txt".into(), content: "one\ntwo\n".into() }, &ctx)
///     .await;
/// assert!(wrote.success, "{}", wrote.content);
///
/// let read = computer.read_file(ReadFileParams::new("notes/a.txt"), &ctx).await;
/// assert_eq!(read.state.unwrap()["totalLines"], 2);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct LocalComputer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: LocalConfig,
    shells: ShellManager,
}

impl LocalComputer {
    /// A local computer with these settings.
    pub fn new(config: LocalConfig) -> Self {
        let shells = ShellManager::new(config.shell.clone());
        Self {
            inner: Arc::new(Inner { config, shells }),
        }
    }

    /// The settings.
    pub fn config(&self) -> &LocalConfig {
        &self.inner.config
    }

    fn paths(&self, ctx: &ToolContext) -> Paths {
        let cwd = ctx
            .cwd()
            .map(PathBuf::from)
            .or_else(|| self.inner.config.working_dir.clone())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let cwd = if cwd.is_absolute() {
            cwd
        } else {
            std::env::current_dir().map(|d| d.join(&cwd)).unwrap_or(cwd)
        };
        Paths::new(paths::normalize(&cwd))
    }

    /// The call's confinement: its context's, else the configured sandbox.
    fn confinement(&self, ctx: &ToolContext) -> SandboxPolicy {
        ctx.extension::<tool_core::Confinement>()
            .cloned()
            .unwrap_or_else(|| self.inner.config.shell.sandbox.clone())
    }

    /// The paths of a file operation, with the file wall when it runs confined.
    fn guarded_paths(&self, ctx: &ToolContext) -> Result<Paths> {
        let paths = self.paths(ctx);
        let policy = self.confinement(ctx);
        let tmp = if matches!(policy, SandboxPolicy::WorkspaceWrite { .. }) {
            self.inner.shells.private_tmp()
        } else {
            None
        };
        let guard = confine::Guard::new(
            &policy,
            &self.inner.config.shell.sandbox_options,
            paths.cwd(),
            tmp.as_deref(),
            paths::home().as_deref(),
        )?;
        Ok(paths.with_guard(guard))
    }

    /// Runs blocking file work on the blocking pool.
    async fn blocking<T, F>(&self, ctx: &ToolContext, work: F) -> Result<Response>
    where
        T: Send + 'static,
        F: FnOnce(&Paths, &LocalConfig) -> Result<T> + Send + 'static,
        Response: From<T>,
    {
        let paths = self.guarded_paths(ctx)?;
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || work(&paths, &inner.config).map(Response::from))
            .await
            .map_err(|e| Error::Protocol {
                message: format!("the file operation did not complete: {e}"),
            })?
    }

    /// The wait of a runCommand call: its `timeout` capped at the maximum
    /// window, ending slightly early (a tenth, at most 1 s) so the result
    /// comes back inside the call's own time budget, which the pipeline
    /// derives from the same `timeout`.
    fn window(&self, params: &RunCommandParams) -> Option<Duration> {
        if params.run_in_background.unwrap_or(false) {
            return None;
        }
        let config = self.inner.shells.config();
        let asked = params
            .timeout
            .map(Duration::from_millis)
            .unwrap_or(config.default_window)
            .min(config.max_window);
        let margin = (asked / 10).min(Duration::from_secs(1));
        Some(asked - margin)
    }

    async fn run_command(&self, params: RunCommandParams, ctx: &ToolContext) -> Result<Response> {
        let paths = self.paths(ctx);
        let cwd = match &params.cwd {
            Some(dir) => {
                let resolved = paths.resolve(dir);
                if !resolved.is_dir() {
                    return Err(Error::NotFound { path: dir.into() });
                }
                resolved
            }
            None => paths.cwd().to_path_buf(),
        };
        let spawn = Spawn {
            window: self.window(&params),
            command: params.command,
            cwd,
            workspace: paths.cwd().to_path_buf(),
            env: params.env.unwrap_or_default(),
            confinement: Some(self.confinement(ctx)),
        };
        self.inner
            .shells
            .run(spawn, ctx.cancellation())
            .await
            .map(Response::RunCommand)
    }
}

macro_rules! response_from {
    ($($result:ty => $variant:ident),* $(,)?) => {
        $(impl From<$result> for Response {
            fn from(result: $result) -> Self {
                Response::$variant(result)
            }
        })*
    };
}

response_from! {
    crate::response::ListFilesResult => ListFiles,
    crate::response::ReadFileResult => ReadFile,
    crate::response::ReadFilesResult => ReadFiles,
    crate::response::WriteFileResult => WriteFile,
    crate::response::EditFileResult => EditFile,
    crate::response::MoveFilesResult => MoveFiles,
    crate::response::RenameFileResult => RenameFile,
    crate::response::SearchFilesResult => SearchFiles,
    crate::response::GlobFilesResult => GlobFiles,
    crate::response::GrepContentResult => GrepContent,
    crate::response::KillCommandResult => KillCommand,
}

#[async_trait]
impl ComputerRuntime for LocalComputer {
    /// The OS sandbox of this machine as its shell's sandbox options find
    /// it ([`confinement_support`](crate::confinement_support)).
    fn confinement_support(&self) -> tool_core::ConfinementSupport {
        crate::sandbox::confinement_support(&self.inner.config.shell.sandbox_options)
    }

    async fn call_service(&self, request: Request, ctx: &ToolContext) -> Result<Response> {
        match request {
            Request::ListFiles(p) => {
                self.blocking(ctx, move |paths, _| fs::list_files(paths, &p))
                    .await
            }
            Request::ReadFile(p) => {
                self.blocking(ctx, move |paths, c| read::read_file(paths, c, &p))
                    .await
            }
            Request::ReadFiles(p) => {
                self.blocking(ctx, move |paths, c| read::read_files(paths, c, &p))
                    .await
            }
            Request::WriteFile(p) => {
                self.blocking(ctx, move |paths, _| fs::write_file(paths, &p))
                    .await
            }
            Request::EditFile(p) => {
                self.blocking(ctx, move |paths, c| edit::edit_file(paths, c, &p))
                    .await
            }
            Request::MoveFiles(p) => {
                self.blocking(ctx, move |paths, _| fs::move_files(paths, &p))
                    .await
            }
            Request::RenameFile(p) => {
                self.blocking(ctx, move |paths, _| fs::rename_file(paths, &p))
                    .await
            }
            Request::SearchFiles(p) => {
                self.blocking(ctx, move |paths, _| search::search_files(paths, &p))
                    .await
            }
            Request::GlobFiles(p) => {
                self.blocking(ctx, move |paths, _| search::glob_files(paths, &p))
                    .await
            }
            Request::GrepContent(p) => {
                self.blocking(ctx, move |paths, _| grep::grep_content(paths, &p))
                    .await
            }
            Request::RunCommand(p) => self.run_command(p, ctx).await,
            Request::GetCommandOutput(p) => self
                .inner
                .shells
                .output(&p.shell_id, p.filter.as_deref())
                .map(Response::GetCommandOutput),
            Request::KillCommand(p) => self
                .inner
                .shells
                .kill(&p.shell_id)
                .await
                .map(Response::KillCommand),
        }
    }
}
