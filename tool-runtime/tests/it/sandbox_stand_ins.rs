//! What a host that died leaves in the user's workspace: the stand-in
//! folders for missing protected names, made while a confined command
//! runs, are removed by the next host's first confined run there; a
//! folder that is not a stand-in, or that holds anything else, stays.
//!
//! The dying host is a child process of this test binary
//! (`TOOL_STAND_IN_TEST_CHILD`), killed with `SIGKILL` while a confined
//! `sleep` runs; every command is a harmless one in the test's temp dir.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{base_outside_temp, ctx, state, write};
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxPolicy, ShellConfig,
};

const CHILD: &str = "TOOL_STAND_IN_TEST_CHILD";
const BASE: &str = "TOOL_STAND_IN_TEST_BASE";

fn computer() -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

/// This test run as a child step in `base` (`TMPDIR` inside it).
fn step(test: &str, base: &Path, step: &str) -> std::process::Command {
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            &format!("{module}::{test}"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, step)
        .env(BASE, base)
        .env("TMPDIR", base.join("tmp"));
    command
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The child's side: `die` starts a confined background command, says so
/// and waits to be killed; `sweep` runs one confined command and ends
/// normally (its own stand-ins removed when its computer is dropped).
async fn child(base: &Path, step: &str) {
    let ws = base.join("ws");
    let c = computer();
    let out = c
        .run_command(RunCommandParams::new("true"), &ctx(&ws))
        .await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if mechanism != "namespaces+landlock+seccomp" {
        std::fs::write(base.join("unconfined"), out.content.as_bytes()).unwrap();
        return;
    }
    if step == "die" {
        let mut params = RunCommandParams::new("sleep 60");
        params.run_in_background = Some(true);
        let started = c.run_command(params, &ctx(&ws)).await;
        assert!(started.success, "{}", started.content);
        std::fs::write(base.join("ready"), "").unwrap();
        tokio::time::sleep(Duration::from_secs(120)).await;
    }
}

#[tokio::test]
async fn stand_ins_left_by_a_host_killed_during_a_command_are_removed_by_the_next_host() {
    const TEST: &str =
        "stand_ins_left_by_a_host_killed_during_a_command_are_removed_by_the_next_host";
    if let (Ok(which), Some(base)) = (std::env::var(CHILD), std::env::var_os(BASE)) {
        child(&PathBuf::from(base), &which).await;
        return;
    }
    let dir = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    write(&ws, "a.txt", "a\n");
    // The user's own folders under stand-in names: one with content, one
    // holding only an ignore file of its own.
    write(&ws, ".vscode/settings.json", "{\"user\": true}\n");
    write(&ws, ".idea/.gitignore", "*\n");
    std::fs::create_dir_all(base.join("tmp")).unwrap();
    let mut dying = step(TEST, &base, "die")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut waited = 0;
    while !base.join("ready").exists() && !base.join("unconfined").exists() && waited < 600 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    if base.join("unconfined").exists() {
        let _ = dying.kill();
        let _ = dying.wait();
        let why = std::fs::read_to_string(base.join("unconfined")).unwrap_or_default();
        test_support::cannot_check("this test", format!("namespaces unavailable ({why})"));
        return;
    }
    assert!(base.join("ready").exists(), "the dying host never started");
    // SIGKILL: no destructor, no janitor thread runs.
    dying.kill().unwrap();
    dying.wait().unwrap();
    let stand_in = |name: &str| {
        std::fs::read_to_string(ws.join(name).join(".gitignore"))
            .is_ok_and(|text| text.contains("made by host"))
    };
    let left: Vec<String> = names(&ws).into_iter().filter(|n| stand_in(n)).collect();
    for expected in [".devcontainer", ".github", ".envrc", ".husky", ".mcp.json"] {
        assert!(
            left.iter().any(|n| n == expected),
            "{expected} not left: {left:?}"
        );
    }
    // Something added to a left stand-in makes it the user's.
    write(&ws, ".husky/pre-commit", "user's hook\n");

    let next = step(TEST, &base, "sweep").output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&next.stdout),
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(next.status.success() && text.contains("1 passed"), "{text}");
    assert!(!base.join("unconfined").exists(), "{text}");
    assert_eq!(
        names(&ws),
        [".husky", ".idea", ".vscode", "a.txt"],
        "the dead host's stand-ins are gone, the user's folders stay"
    );
    assert_eq!(names(&ws.join(".husky")), [".gitignore", "pre-commit"]);
    assert_eq!(
        std::fs::read_to_string(ws.join(".vscode/settings.json")).unwrap(),
        "{\"user\": true}\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join(".idea/.gitignore")).unwrap(),
        "*\n"
    );
    assert_eq!(names(&ws.join(".vscode")), ["settings.json"]);
}
