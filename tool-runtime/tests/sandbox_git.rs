//! A sandbox people keep on: in a workspace holding `.git`, a confined
//! command creates, renames and deletes at the root and below, while
//! `.git` and the other protected entries stay read-only; `/tmp` is its
//! own; metadata outside the roots cannot change. And the named fallback
//! (`namespaces: false`) still confines, with the top closed.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use common::{base_outside_temp, ctx, ok, state, write};
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    ShellConfig, confinement_support,
};

fn computer(namespaces: bool) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                namespaces,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

fn code(out: &ToolOutput) -> i64 {
    ok(out)["exitCode"].as_i64().unwrap()
}

fn repo(base: &Path) -> std::path::PathBuf {
    let ws = base.join("repo");
    write(&ws, ".git/config", "[core]\n");
    write(&ws, ".git/hooks/README", "hooks\n");
    write(&ws, "src/main.rs", "fn main() {}\n");
    write(&ws, "app/.env", "TOKEN=s3cret\n");
    ws
}

/// Whether the namespace mechanism runs here; prints why not otherwise.
async fn namespace_runs(c: &LocalComputer, ws: &Path) -> bool {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        eprintln!("skipping: no sandbox here");
        return false;
    }
    let out = sh(c, ws, "true").await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if mechanism != "namespaces+landlock+seccomp" {
        eprintln!("skipping: namespaces unavailable here (mechanism {mechanism})");
        return false;
    }
    true
}

#[tokio::test]
async fn a_git_workspace_takes_new_files_at_its_root_and_git_stays_read_only() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        "echo new > NEW.md && mkdir -p newdir/deep && echo x > newdir/deep/f && mv NEW.md RENAMED.md && rm -r newdir && echo more >> src/main.rs",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(ws.join("RENAMED.md").exists());
    assert!(!ws.join("newdir").exists());
    for (what, command) in [
        ("append to .git/config", "echo '[alias]' >> .git/config"),
        ("new hook", "echo 'echo hi' > .git/hooks/pre-commit"),
        ("rename .git", "mv .git .git-old"),
        ("remove .git/config", "rm .git/config"),
        ("remove .git", "rm -rf .git"),
        ("unmount .git", "umount .git"),
    ] {
        let out = sh(&c, &ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    // A secret inside the workspace reads as empty; its file is unchanged.
    let out = sh(&c, &ws, "cat app/.env; echo end").await;
    assert_eq!(ok(&out)["stdout"], "end\n", "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(ws.join("app/.env")).unwrap(),
        "TOKEN=s3cret\n"
    );
    assert_eq!(state(&out)["sandbox"]["secretsHidden"], 1);
}

#[tokio::test]
async fn tmp_is_private_and_metadata_outside_the_roots_cannot_change() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let outside = base.path().join("outside");
    write(&outside, "tool.sh", "echo hi\n");
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let name = format!("planted-{}", std::process::id());
    let out = sh(&c, &ws, &format!("echo x > /tmp/{name} && cat /tmp/{name}")).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["privateTmp"], true);
    assert!(
        !Path::new("/tmp").join(&name).exists(),
        "the host's /tmp got the file"
    );
    // A later confined command of the same computer sees it (its own /tmp).
    let out = sh(&c, &ws, &format!("cat /tmp/{name}")).await;
    assert_eq!(ok(&out)["stdout"], "x\n", "{}", out.content);
    let target = outside.join("tool.sh");
    let before = std::fs::metadata(&target).unwrap();
    for command in [
        format!("chmod 600 '{}'", target.display()),
        format!("touch -d 2001-01-01 '{}'", target.display()),
    ] {
        let out = sh(&c, &ws, &command).await;
        assert_ne!(code(&out), 0, "{command}: {}", out.content);
    }
    let after = std::fs::metadata(&target).unwrap();
    assert_eq!(before.mode(), after.mode());
    assert_eq!(before.mtime(), after.mtime());
    // Inside the workspace both work.
    let out = sh(
        &c,
        &ws,
        "chmod 700 src/main.rs && touch -d 2001-01-01 src/main.rs",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
}

#[tokio::test]
async fn without_namespaces_the_named_fallback_confines_with_the_top_closed() {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let c = computer(false);
    let out = sh(&c, &ws, "echo x > NEW.md").await;
    assert_eq!(state(&out)["sandbox"]["mechanism"], "landlock+seccomp");
    assert_ne!(code(&out), 0, "{}", out.content);
    assert!(
        out.content.contains("no new entries next to them"),
        "{}",
        out.content
    );
    let out = sh(&c, &ws, "echo '[alias]' >> .git/config").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    let out = sh(&c, &ws, "echo ok >> src/main.rs").await;
    assert_eq!(code(&out), 0, "{}", out.content);
}
