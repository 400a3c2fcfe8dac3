//! The `local-system` builtin tool: every operation of a [`ComputerRuntime`]
//! offered to the model, with schemas, time budgets, guidance and approval.

use async_trait::async_trait;
use serde_json::Value;
use tool_core::{
    ApiDefinition, ErrorCode, HumanIntervention, InterventionPolicy, Tool, ToolContext, ToolError,
    ToolManifest, ToolMeta, ToolOutput,
    manifest::{ApiHints, DynamicIntervention, Executor, RenderDisplayControl},
    pipeline::schema_for_args,
};

use crate::local::LocalComputer;
use crate::operation::Operation;
use crate::request::{
    EditFileParams, GetCommandOutputParams, GlobFilesParams, GrepContentParams, KillCommandParams,
    ListFilesParams, MoveFilesParams, ReadFileParams, ReadFilesParams, RenameFileParams, Request,
    RunCommandParams, SearchFilesParams, WriteFileParams,
};
use crate::runtime::ComputerRuntime;

/// The tool's identifier.
pub const IDENTIFIER: &str = "local-system";

/// runCommand's default time budget: above its longest window (120 s), so
/// the command's own wait always ends first and returns what it has.
pub const RUN_COMMAND_TIMEOUT_MS: u64 = 130_000;

const SYSTEM_ROLE: &str = "\
You can use the user's computer through the local-system tool.

Files
- Paths may be absolute, start with ~, or be relative to the working directory; results show paths relative to it.
- Read before you edit. readFile returns 200 lines by default (startLine is 0-based, endLine exclusive); follow its hints to read on instead of asking for the whole file. Use grepContent to find the part you need in big files.
- editFile replaces exact text. The old text must occur exactly once: include enough surrounding lines to make it unique, or set replaceAll. Pass the contentHash from readFile as expectedHash to be sure nobody changed the file meanwhile.
- writeFile replaces the whole file; prefer editFile for changes to existing files.
- globFiles finds files by pattern, searchFiles by name words and dates, grepContent by content (regex). They skip .gitignored and hidden files unless includeIgnored / includeHidden is set.

Commands
- runCommand runs `sh -c` and waits up to timeout (default 30 s, max 120 s). A command that is still running keeps running in the background; its id (sh-N) works with getCommandOutput (new output since the last read) and killCommand (stops it and all its children).
- Use runInBackground for servers and watchers, then poll with getCommandOutput.
- Do not use commands for what the file APIs do (cat, sed -i, find, grep): the APIs are safer and their output is shaped for you.";

fn path_audit() -> HumanIntervention {
    HumanIntervention::Dynamic {
        dynamic: DynamicIntervention {
            kind: tool_core::approval::PATH_SCOPE_AUDIT.into(),
            policy: InterventionPolicy::Required,
            default: InterventionPolicy::Never,
        },
    }
}

/// What an API states about its effects (the MCP tool annotations).
#[derive(Debug, Clone, Copy)]
struct Effects {
    /// Changes nothing on the machine.
    read_only: bool,
    /// A change it makes may destroy data (overwrite, remove, kill).
    destructive: bool,
    /// The same call again changes nothing more.
    idempotent: bool,
    /// Reaches beyond the files it names: whatever the confinement lets
    /// a command reach (the network, other programs).
    open_world: bool,
}

/// Reading and finding: changes nothing, reaches only the named files.
const LOOKS: Effects = Effects {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// Changes that replace or move what was there (not idempotent: a second
/// edit or move finds something else to do or nothing to work on).
const REPLACES: Effects = Effects {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: false,
};

/// Each API's effects, in manifest order (a test holds the table to
/// [`OPERATIONS`](crate::OPERATIONS)).
const EFFECTS: [(&str, Effects); 13] = [
    (<ListFilesParams as Operation>::API, LOOKS),
    (<ReadFileParams as Operation>::API, LOOKS),
    (<ReadFilesParams as Operation>::API, LOOKS),
    // Overwrites the file; writing the same content again changes nothing.
    (
        <WriteFileParams as Operation>::API,
        Effects {
            idempotent: true,
            ..REPLACES
        },
    ),
    (<EditFileParams as Operation>::API, REPLACES),
    (<MoveFilesParams as Operation>::API, REPLACES),
    (<RenameFileParams as Operation>::API, REPLACES),
    (<SearchFilesParams as Operation>::API, LOOKS),
    (<GlobFilesParams as Operation>::API, LOOKS),
    (<GrepContentParams as Operation>::API, LOOKS),
    // A command may change or reach anything the confinement allows.
    (
        <RunCommandParams as Operation>::API,
        Effects {
            open_world: true,
            ..REPLACES
        },
    ),
    // Changes nothing on the machine, but each read returns only the
    // output new since the previous one.
    (
        <GetCommandOutputParams as Operation>::API,
        Effects {
            idempotent: false,
            ..LOOKS
        },
    ),
    // Ends the command's processes; killing an ended command does nothing.
    (
        <KillCommandParams as Operation>::API,
        Effects {
            idempotent: true,
            ..REPLACES
        },
    ),
];

/// The hints the [`EFFECTS`] table states for API `name`.
fn hints(name: &str) -> Option<ApiHints> {
    EFFECTS.iter().find(|(api, _)| *api == name).map(|(_, e)| {
        ApiHints::default()
            .read_only(e.read_only)
            .destructive(e.destructive)
            .idempotent(e.idempotent)
            .open_world(e.open_world)
    })
}

fn api<T: schemars::JsonSchema + Operation>(description: &str, timeout_ms: u64) -> ApiDefinition {
    // Every local-system operation touches this machine, so a gate
    // decides its confinement (and the computer enforces it).
    let api = ApiDefinition::new(T::API, description)
        .with_parameters(schema_for_args::<T>())
        .with_output_schema(schema_for_args::<T::Result>())
        .with_default_timeout_ms(timeout_ms)
        .touching_host();
    match hints(T::API) {
        Some(hints) => api.with_hints(hints),
        None => api,
    }
}

fn file_api<T: schemars::JsonSchema + Operation>(
    description: &str,
    timeout_ms: u64,
) -> ApiDefinition {
    api::<T>(description, timeout_ms).with_intervention(path_audit())
}

/// The manifest of the `local-system` tool.
///
/// File APIs carry the dynamic `pathScopeAudit` intervention (`policy:
/// required` when a path leaves the allowed scope, `default: never`);
/// `runCommand` is `required`; reading or killing a command the user
/// already allowed is `never`. Every argument declares its
/// [`ArgRole`](tool_core::approval::ArgRole) in its schema (`"x-role": "path"` on each
/// path, `working-directory`, `shell-command`, `environment`), which is how
/// the audit finds the paths and the commands.
pub fn manifest() -> ToolManifest {
    let mut manifest = ToolManifest::new(IDENTIFIER);
    manifest.meta = ToolMeta {
        title: Some("Local System".into()),
        description: Some(
            "Read, write, edit and search files and run shell commands on this computer.".into(),
        ),
        avatar: Some("💻".into()),
    };
    manifest.executors = Some(vec![Executor::Client, Executor::Server]);
    manifest.system_role = Some(SYSTEM_ROLE.into());
    manifest.kind = Some(tool_core::ToolKind::Builtin);
    manifest.api = vec![
        file_api::<ListFilesParams>(
            "List the entries of a directory (name, size, modification time), directories first.",
            30_000,
        ),
        file_api::<ReadFileParams>(
            "Read a text file: by default its first 200 lines. Reports total lines and characters and a contentHash for editFile. Binary files and files over 10 MiB are refused.",
            30_000,
        ),
        file_api::<ReadFilesParams>(
            "Read the first 200 lines of several text files at once.",
            60_000,
        ),
        file_api::<WriteFileParams>(
            "Create or overwrite a file with the given content (atomically; parent directories are created).",
            30_000,
        ),
        file_api::<EditFileParams>(
            "Replace exact text in a file. The old text must occur exactly once unless replaceAll is set; returns a unified diff.",
            30_000,
        )
        .with_display_control(RenderDisplayControl::Expand),
        file_api::<MoveFilesParams>(
            "Move files or directories; each item reports its own success.",
            30_000,
        ),
        file_api::<RenameFileParams>(
            "Rename a file or directory within its directory.",
            30_000,
        ),
        file_api::<SearchFilesParams>(
            "Find files or directories whose name contains all the keyword's words, optionally filtered by extension, kind and modification time.",
            60_000,
        ),
        file_api::<GlobFilesParams>(
            "Find files matching a glob such as **/*.rs, sorted by path.",
            60_000,
        ),
        file_api::<GrepContentParams>(
            "Search file contents with a regular expression (ripgrep engine): matching lines with context, matching files, or counts per file.",
            60_000,
        ),
        api::<RunCommandParams>(
            "Run a shell command and wait for it up to timeout (default 30 s, max 120 s). If it is still running, it continues in the background and its shellId can be polled with getCommandOutput.",
            RUN_COMMAND_TIMEOUT_MS,
        )
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required))
        .with_display_control(RenderDisplayControl::Expand),
        api::<GetCommandOutputParams>(
            "Get the output a command produced since the last read, whether it is still running, and its exit code once finished.",
            10_000,
        )
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
        api::<KillCommandParams>(
            "Stop a running command and every process it started.",
            15_000,
        )
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
    ];
    manifest
}

/// The `local-system` tool over any [`ComputerRuntime`]: a
/// [`LocalComputer`] here, or a remote or foreign computer (same manifest,
/// same content and state).
#[derive(Debug, Clone)]
pub struct LocalSystemTool<R> {
    runtime: R,
    manifest: ToolManifest,
    /// The runtime's confinement support, read once.
    support: tool_core::ConfinementSupport,
}

impl<R: ComputerRuntime + 'static> LocalSystemTool<R> {
    /// The tool over `runtime`, with the standard [`manifest`].
    pub fn new(runtime: R) -> Self {
        let support = runtime.confinement_support();
        Self {
            runtime,
            manifest: manifest(),
            support,
        }
    }

    /// The runtime behind the tool.
    pub fn runtime(&self) -> &R {
        &self.runtime
    }
}

/// The `local-system` tool on this machine, in one call.
///
/// ```
/// use tool_core::Tool;
/// let tool = tool_runtime::local_system_tool(tool_runtime::LocalComputer::new(Default::default()));
/// assert_eq!(tool.manifest().identifier, "local-system");
/// assert_eq!(tool.manifest().api.len(), 13);
/// ```
pub fn local_system_tool(computer: LocalComputer) -> LocalSystemTool<LocalComputer> {
    LocalSystemTool::new(computer)
}

#[async_trait]
impl<R: ComputerRuntime + 'static> Tool for LocalSystemTool<R> {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    /// What the runtime's OS sandbox can do, so an approval gate the host
    /// did not tell still confines these calls instead of asking.
    fn confinement_support(&self) -> Option<&tool_core::ConfinementSupport> {
        Some(&self.support)
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.manifest.require_api(api)?;
        let request = Request::from_api(api, args).map_err(|e| {
            ToolError::new(
                ErrorCode::INVALID_ARGUMENTS,
                format!("arguments of `{api}` do not fit its schema: {e}"),
            )
        })?;
        Ok(self.runtime.execute(request, ctx).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_is_valid_for_tool_core() {
        tool_core::manifest::validate_manifest(&manifest()).unwrap();
    }

    #[test]
    fn every_api_touches_the_host() {
        assert!(manifest().api.iter().all(|a| a.touches_host));
    }

    #[test]
    fn the_effects_table_has_one_row_per_api_in_order() {
        let names: Vec<&str> = EFFECTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, crate::OPERATIONS);
        for api in manifest().api {
            assert_eq!(Some(api.hints), hints(&api.name), "{}", api.name);
            assert!(
                api.hints.read_only.is_some(),
                "{} states no hints",
                api.name
            );
        }
    }

    #[test]
    fn hints_say_what_each_api_does() {
        let m = manifest();
        let of = |name: &str| m.api(name).unwrap().hints;
        for name in [
            "listFiles",
            "readFile",
            "readFiles",
            "searchFiles",
            "globFiles",
            "grepContent",
        ] {
            let h = of(name);
            assert_eq!(
                (h.read_only, h.open_world, h.idempotent),
                (Some(true), Some(false), Some(true)),
                "{name}"
            );
        }
        let write = of("writeFile");
        assert_eq!(
            (write.read_only, write.destructive, write.idempotent),
            (Some(false), Some(true), Some(true))
        );
        let edit = of("editFile");
        assert_eq!(
            (edit.destructive, edit.idempotent),
            (Some(true), Some(false))
        );
        for name in ["moveFiles", "renameFile"] {
            assert_eq!(of(name).destructive, Some(true), "{name}");
        }
        let run = of("runCommand");
        assert_eq!(
            (run.read_only, run.destructive, run.open_world),
            (Some(false), Some(true), Some(true))
        );
        assert_eq!(of("getCommandOutput").read_only, Some(true));
        let kill = of("killCommand");
        assert_eq!(
            (kill.destructive, kill.idempotent),
            (Some(true), Some(true))
        );
    }

    #[test]
    fn every_operation_has_an_api() {
        let m = manifest();
        let names: Vec<&str> = m.api.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, crate::OPERATIONS);
    }
}
