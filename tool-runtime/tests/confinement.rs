//! A call's own confinement (the gate's decision, in its context) replaces
//! the computer's configured sandbox, and hosts can ask whether this
//! machine can confine at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{base_outside_temp, ctx, ok, state};
use tool_core::{Confinement, ConfinementSupport};
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    confinement_support, probe_kernel,
};

fn no_landlock() -> Result<tool_runtime::KernelSupport, String> {
    Err("this kernel has no Landlock (simulated)".to_owned())
}

#[test]
fn the_support_probe_names_the_mechanism_or_the_reason() {
    let support = confinement_support(&SandboxOptions::default());
    match probe_kernel() {
        Ok(k) if k.seccomp => assert!(support.is_available(), "{support:?}"),
        _ => assert!(!support.is_available()),
    }
    let missing = confinement_support(&SandboxOptions {
        probe: no_landlock,
        ..SandboxOptions::default()
    });
    assert_eq!(
        missing,
        ConfinementSupport::Unavailable {
            reason: "this kernel has no Landlock (simulated)".to_owned()
        }
    );
}

#[test]
fn sandbox_policy_is_the_confinement_type() {
    let policy: SandboxPolicy = Confinement::workspace_write().with_network(true);
    let back: Confinement = policy.clone();
    assert_eq!(back.name(), "workspace_write");
    assert!(policy.network());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_confinement_in_the_context_replaces_the_configured_sandbox_for_commands() {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        eprintln!("skipping: no sandbox here");
        return;
    }
    let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let outside = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let target = outside.path().join("escaped.txt");
    let command = format!("echo bad > '{}'", target.display());
    // Configured full access, but the call is confined.
    let computer = LocalComputer::new(LocalConfig::default());
    let confined = ctx(ws.path()).with_extension(Confinement::workspace_write());
    let out = computer
        .run_command(RunCommandParams::new(command.clone()), &confined)
        .await;
    assert_eq!(state(&out)["sandbox"]["policy"], "workspace_write");
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(!target.exists());
    // Configured workspace_write, the call's decision is full access.
    let computer =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    let free = ctx(ws.path()).with_extension(Confinement::FullAccess);
    let out = computer
        .run_command(RunCommandParams::new(command), &free)
        .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(target.exists());
}
