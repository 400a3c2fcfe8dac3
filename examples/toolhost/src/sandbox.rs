//! The OS sandbox of `local-system____runCommand`: `--sandbox` and
//! `--allow-network`, their defaults by approval mode, and the demo step.
//!
//! Defaults: `auto-run`, `headless` and `allow-list` run commands nobody
//! looked at, so they get `workspace-write` without network; `manual` (a
//! human approves each command) gets `full-access`. `--sandbox` overrides
//! the default; `--allow-network` turns the network on for the confining
//! policies.

use clap::ValueEnum;
use serde_json::{Value, json};
use tool_approval::{ApprovalMode, PolicyFile};
use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry};
use tool_runtime::{LocalComputer, LocalConfig, SandboxPolicy, local_system_tool};

use crate::Failure;
use crate::host::PolicyOptions;

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// No confinement.
    FullAccess,
    /// Writes only in the working directory, the temp dir; `.git` read-only; secrets unreadable.
    WorkspaceWrite,
    /// No writes; secrets unreadable.
    ReadOnly,
}

/// The sandbox options of the command line.
#[derive(Debug, Default, Clone, Copy)]
pub struct SandboxChoice {
    /// `--sandbox`, if given.
    pub arg: Option<SandboxArg>,
    /// `--allow-network`.
    pub allow_network: bool,
}

/// The policy for `choice` under approval `mode`.
pub fn policy(choice: SandboxChoice, mode: ApprovalMode) -> SandboxPolicy {
    let arg = choice.arg.unwrap_or(match mode {
        ApprovalMode::Manual => SandboxArg::FullAccess,
        _ => SandboxArg::WorkspaceWrite,
    });
    match arg {
        SandboxArg::FullAccess => SandboxPolicy::FullAccess,
        SandboxArg::WorkspaceWrite => {
            SandboxPolicy::workspace_write().with_network(choice.allow_network)
        }
        SandboxArg::ReadOnly => SandboxPolicy::read_only().with_network(choice.allow_network),
    }
}

/// The local computer's settings for this command line: the sandbox from
/// `--sandbox`/`--allow-network` and the effective approval mode (`--mode`,
/// else the policy file's, else manual).
pub fn local_config(options: &PolicyOptions) -> Result<LocalConfig, Failure> {
    let mode = match (options.mode, &options.file) {
        (Some(mode), _) => mode,
        (None, Some(path)) => PolicyFile::load(path)
            .map_err(|e| Failure::Source(format!("--policy {}: {e}", path.display())))?
            .mode
            .unwrap_or_default(),
        (None, None) => ApprovalMode::default(),
    };
    Ok(LocalConfig::default().with_sandbox(policy(options.sandbox, mode)))
}

/// The demo step: commands under `workspace_write` in a scratch repository,
/// one allowed and two refused by the kernel.
pub async fn demo_step() -> (String, String, Value) {
    let title = "A second wall: the OS sandbox".to_owned();
    let explanation = "Under workspace_write (the default for auto-run and headless hosts) a command that approval let through still cannot touch .git or write outside the workspace: the kernel refuses it (Landlock + seccomp on Linux) and the content says so.".to_owned();
    let result = match run_demo().await {
        Ok(value) => value,
        Err(message) => json!({ "error": message }),
    };
    (title, explanation, result)
}

async fn run_demo() -> Result<Value, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    for (path, content) in [
        (".git/config", "[core]\n"),
        (".git/hooks/README.sample", ""),
        ("src/lib.rs", ""),
    ] {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, content).map_err(|e| e.to_string())?;
    }
    let mut registry = ToolRegistry::new();
    let computer =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    registry
        .register(local_system_tool(computer))
        .map_err(|e| e.to_string())?;
    let ctx = ToolContext::new().with_cwd(dir.path());
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let commands = [
        (
            "echo '// notes' >> src/lib.rs && echo written",
            "Inside the workspace: allowed.",
        ),
        (
            "echo '[core] hooksPath = /elsewhere' >> .git/config",
            ".git stays read-only: refused with the command's own EACCES.",
        ),
        (
            "echo 'echo hi' > .git/hooks/pre-commit",
            "No new hooks either.",
        ),
    ];
    let mut results = Vec::new();
    for (command, why) in commands {
        let call = ToolCall::new(
            "local-system____runCommand",
            json!({ "command": command }).to_string(),
        );
        let output = invoker.invoke(&offered, &call, &ctx).await;
        results.push(json!({
            "command": command,
            "why": why,
            "content": output.content,
            "sandbox": output.state.as_ref().map(|s| s["sandbox"].clone()),
            "errorCode": output.error_code(),
        }));
    }
    Ok(json!(results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unattended_modes_default_to_workspace_write_without_network() {
        let none = SandboxChoice::default();
        assert_eq!(
            policy(none, ApprovalMode::AutoRun),
            SandboxPolicy::workspace_write()
        );
        assert_eq!(
            policy(none, ApprovalMode::Headless),
            SandboxPolicy::workspace_write()
        );
        assert_eq!(
            policy(none, ApprovalMode::Manual),
            SandboxPolicy::FullAccess
        );
        let open = SandboxChoice {
            arg: Some(SandboxArg::ReadOnly),
            allow_network: true,
        };
        assert_eq!(
            policy(open, ApprovalMode::Manual),
            SandboxPolicy::read_only().with_network(true)
        );
    }
}
