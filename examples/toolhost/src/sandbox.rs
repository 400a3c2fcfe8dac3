//! Confinement: `--sandbox`, `--allow-network` and `--allow-domain`, and
//! what they mean for the approval engine and the local computer.
//!
//! Every `run` decision of a call that touches the host (local-system,
//! skill scripts) carries the confinement it runs under, and the computer
//! applies it per call:
//!
//! - Without `--sandbox`, calls no person has seen (auto-run and headless
//!   for `required` calls, allow-list approvals, `never` rules in every
//!   mode) run under `workspace-write` without network (`--allow-network`
//!   turns it on; `--allow-domain NAME`, repeatable, opens it by name
//!   only, through the runtime's egress proxy); a call a person approved
//!   (`call --approve` on an `ask`) runs with full access.
//! - With `--sandbox POLICY`, every run gets exactly that policy, approved
//!   or not: the host's explicit choice (`full-access` included).
//! - Where the kernel cannot confine, unattended calls that would run
//!   confined ask instead (blocked in headless), naming the missing
//!   confinement.

use clap::ValueEnum;
use serde_json::{Value, json};
use tool_core::{Confinement, ConfinementSupport, Invoker, ToolCall, ToolContext, ToolRegistry};
use tool_runtime::{LocalComputer, LocalConfig, SandboxOptions, SandboxPolicy, local_system_tool};

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// No confinement.
    FullAccess,
    /// Writes only in the working directory, the temp dir and toolchain caches; git's config and hooks read-only; secrets, the home and secret-looking environment variables out of reach.
    WorkspaceWrite,
    /// No writes; secrets unreadable.
    ReadOnly,
}

/// The sandbox options of the command line.
#[derive(Default, Clone)]
pub struct SandboxChoice {
    /// `--sandbox`, if given.
    pub arg: Option<SandboxArg>,
    /// `--allow-network`.
    pub allow_network: bool,
    /// `--allow-domain` (repeatable): the network by name only.
    pub allow_domains: Vec<String>,
}

impl std::fmt::Debug for SandboxChoice {
    // Without `--allow-domain` the same text as before it existed (pending
    // turns fingerprint it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("SandboxChoice");
        d.field("arg", &self.arg)
            .field("allow_network", &self.allow_network);
        if !self.allow_domains.is_empty() {
            d.field("allow_domains", &self.allow_domains);
        }
        d.finish()
    }
}

impl SandboxChoice {
    /// The confinement of a run no person has seen: the `--sandbox` policy,
    /// else `workspace-write` (network as `--allow-network` says, or by
    /// name only with `--allow-domain`, which wins).
    pub fn unattended(&self) -> Confinement {
        let confinement = match self.arg.unwrap_or(SandboxArg::WorkspaceWrite) {
            SandboxArg::FullAccess => return Confinement::FullAccess,
            SandboxArg::WorkspaceWrite => {
                Confinement::workspace_write().with_network(self.allow_network)
            }
            SandboxArg::ReadOnly => Confinement::read_only().with_network(self.allow_network),
        };
        if self.allow_domains.is_empty() {
            confinement
        } else {
            confinement.with_egress(tool_core::approval::Egress::allow(
                self.allow_domains.iter().cloned(),
            ))
        }
    }

    /// Whether approved asks keep the unattended confinement: yes when the
    /// host chose a policy with `--sandbox`.
    pub fn confine_approved(&self) -> bool {
        self.arg.is_some()
    }
}

/// Whether this machine can confine commands (Landlock + seccomp).
pub fn support() -> ConfinementSupport {
    tool_runtime::confinement_support(&SandboxOptions::default())
}

/// The local computer's settings: the `--sandbox` policy when given (the
/// floor for calls that come without a decided confinement), else full
/// access; the gate's decision confines each call.
pub fn local_config(choice: &SandboxChoice) -> LocalConfig {
    let base = if choice.arg.is_some() {
        choice.unattended()
    } else {
        SandboxPolicy::FullAccess
    };
    LocalConfig::default().with_sandbox(base)
}

/// The demo step: commands under `workspace_write` in a scratch repository,
/// one allowed and two refused by the kernel.
pub async fn demo_step() -> (String, String, Value) {
    let title = "A second wall: the OS sandbox".to_owned();
    let mut explanation = "Under workspace_write (the default for auto-run and headless hosts) a command that approval let through still cannot change git's config or hooks or write outside the workspace (git itself keeps working): the kernel refuses it (namespaces, Landlock and seccomp on Linux) and the content says so.".to_owned();
    let result = match run_demo().await {
        Ok(value) => value,
        Err(message) => json!({ "error": message }),
    };
    // Where the kernel cannot confine, the runtime refuses to run the
    // commands at all: say that, not what a confining host would show.
    let refused = result
        .as_array()
        .and_then(|r| r.iter().find_map(|e| e["errorCode"].as_str()));
    if let Some(code) = refused {
        explanation = format!(
            "Under workspace_write (the default for auto-run and headless hosts) a command runs only inside the OS sandbox. This host cannot confine commands, so the runtime refused to run them unconfined (`{code}`): nothing ran."
        );
    }
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
            "git's config stays read-only: refused with the command's own error.",
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
    fn unattended_runs_default_to_workspace_write_without_network() {
        let none = SandboxChoice::default();
        assert_eq!(none.unattended(), Confinement::workspace_write());
        assert!(!none.confine_approved());
        let open = SandboxChoice {
            arg: Some(SandboxArg::ReadOnly),
            allow_network: true,
            ..SandboxChoice::default()
        };
        assert_eq!(
            open.unattended(),
            Confinement::read_only().with_network(true)
        );
        assert!(open.confine_approved());
        let full = SandboxChoice {
            arg: Some(SandboxArg::FullAccess),
            allow_network: false,
            ..SandboxChoice::default()
        };
        assert_eq!(full.unattended(), Confinement::FullAccess);
        let by_name = SandboxChoice {
            allow_network: true,
            allow_domains: vec!["registry.example".to_owned()],
            ..SandboxChoice::default()
        };
        let confinement = by_name.unattended();
        assert!(!confinement.network());
        assert!(
            confinement
                .egress()
                .is_some_and(|e| e.allows("registry.example"))
        );
        assert!(!format!("{:?}", SandboxChoice::default()).contains("allow_domains"));
    }
}
