//! Protected entries that did not exist before a confined command: the
//! folders and files of the stand-in tables are refused up front (a
//! read-only stand-in holds the name while the command runs); for the
//! others (and under the Landlock fallback) the runtime looks again at the
//! places it examined (each root's top and the way to the working
//! directory; never a walk of the workspace) once every process of the
//! command has ended, and moves every new protected entry into the
//! computer's quarantine folder, never deleting it; the state and the
//! content say so. Ordinary new files and new repositories are untouched;
//! nothing the command started outlives it; an existing protected symlink
//! is protected at its target, a dangling one refused.
//!
//! Every command is a harmless `mkdir`, `echo` or `touch` inside the
//! test's own temp dirs.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{base_outside_temp, ctx, ok, state, write};
use serde_json::Value;
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, GetCommandOutputParams, KillCommandParams, LocalComputer, LocalConfig,
    RunCommandParams, SandboxOptions, SandboxPolicy, ShellConfig, confinement_support,
};

struct Setup {
    _base: tempfile::TempDir,
    ws: PathBuf,
    quarantine: PathBuf,
}

fn setup(with_git: bool) -> Option<Setup> {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return None;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let ws = root.join("ws");
    write(&ws, "src/lib.rs", "");
    if with_git {
        write(&ws, ".git/config", "[core]\n");
    }
    Some(Setup {
        _base: base,
        ws,
        quarantine: root.join("quarantine"),
    })
}

/// A computer with the default options (the empty-file stand-ins on).
fn computer(s: &Setup, namespaces: bool) -> LocalComputer {
    computer_with(s, namespaces, SandboxOptions::default().file_stand_ins)
}

fn computer_with(s: &Setup, namespaces: bool, file_stand_ins: bool) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                namespaces,
                file_stand_ins,
                ..SandboxOptions::default()
            },
            quarantine_dir: Some(s.quarantine.clone()),
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

fn created(out: &ToolOutput) -> Vec<(String, String)> {
    state(out)["protectedCreated"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["movedTo"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

async fn new_protected_entries_are_quarantined(namespaces: bool, with_git: bool) {
    let Some(s) = setup(with_git) else { return };
    let c = computer(&s, namespaces);
    // With namespaces, missing protected folders and the files of the
    // stand-in tables are refused up front
    // (`missing_protected_entries_are_refused_up_front_and_leave_nothing`):
    // only the names no stand-in can hold (a pattern's,
    // `team.code-workspace` here) are left to the sweep; a `.pth` outside
    // a site directory runs nothing and is left alone.
    let held = if namespaces {
        ""
    } else {
        "mkdir .vscode && echo x > .vscode/tasks.json && mkdir -p .github/workflows && touch .github/workflows/ci.yml && echo x > .yarnrc && "
    };
    let out = sh(
        &c,
        &s.ws,
        &format!("{held}echo x > team.code-workspace && echo 'import os' > demo.pth && mkdir -p .github && mkdir -p app && echo y > app/.envrc && echo notes > NOTES.md && mkdir docs && echo d > docs/a.md"),
    )
    .await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if namespaces && mechanism != "namespaces+landlock+seccomp" {
        test_support::cannot_check(
            "this test",
            format!("namespaces unavailable here ({mechanism})"),
        );
        return;
    }
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    let ws = s.ws.display().to_string();
    let q = s.quarantine.display().to_string();
    let mut got = created(&out);
    got.sort();
    let names: &[&str] = if namespaces {
        &["team.code-workspace"]
    } else {
        &[
            ".github/workflows",
            ".vscode",
            ".yarnrc",
            "team.code-workspace",
        ]
    };
    let expected: Vec<(String, String)> = names
        .iter()
        .map(|rel| (format!("{ws}/{rel}"), format!("{q}/sh-1/{rel}")))
        .collect();
    assert_eq!(got, expected, "{}", out.content);
    for rel in names {
        assert!(!s.ws.join(rel).exists(), "{rel} is still in the workspace");
    }
    // Deeper than the places examined (the workspace is not walked): left.
    assert!(s.ws.join("app/.envrc").exists());
    assert!(s.ws.join("demo.pth").is_file());
    // Moved, not deleted.
    assert_eq!(
        std::fs::read_to_string(s.quarantine.join("sh-1/team.code-workspace")).unwrap(),
        "x\n"
    );
    if !namespaces {
        assert_eq!(
            std::fs::read_to_string(s.quarantine.join("sh-1/.vscode/tasks.json")).unwrap(),
            "x\n"
        );
        assert!(s.quarantine.join("sh-1/.github/workflows/ci.yml").is_file());
    }
    // Ordinary new files and folders stay; so does what existed.
    assert_eq!(
        std::fs::read_to_string(s.ws.join("NOTES.md")).unwrap(),
        "notes\n"
    );
    assert_eq!(
        std::fs::read_to_string(s.ws.join("docs/a.md")).unwrap(),
        "d\n"
    );
    // (With namespaces `.github` was a stand-in while the command ran.)
    assert!(
        namespaces || s.ws.join(".github").is_dir(),
        "the plain parent folder stays"
    );
    assert_eq!(s.ws.join(".git/config").exists(), with_git);
    // One content line names every move.
    let line = out
        .content
        .lines()
        .find(|l| l.contains("moved to quarantine"))
        .unwrap_or_else(|| panic!("no quarantine line: {}", out.content));
    assert!(
        line.contains(&format!(
            "{ws}/team.code-workspace -> {q}/sh-1/team.code-workspace"
        )),
        "{line}"
    );
    // A later command that finds nothing new reports nothing.
    let out = sh(&c, &s.ws, "echo more >> NOTES.md").await;
    assert_eq!(
        state(&out)["protectedCreated"],
        Value::Null,
        "{}",
        out.content
    );
}

#[tokio::test]
async fn protected_entries_a_command_creates_in_a_git_workspace_are_moved_to_quarantine() {
    new_protected_entries_are_quarantined(true, true).await;
}

#[tokio::test]
async fn protected_entries_a_command_creates_in_a_plain_workspace_are_moved_to_quarantine() {
    new_protected_entries_are_quarantined(true, false).await;
}

#[tokio::test]
async fn the_landlock_fallback_sweeps_too() {
    // Without namespaces the top of a root with .git is closed; without
    // .git it is open, and the sweep is what keeps .envrc out.
    new_protected_entries_are_quarantined(false, false).await;
}

#[tokio::test]
async fn a_killed_command_is_swept_and_nothing_it_started_outlives_it() {
    let Some(s) = setup(true) else { return };
    let c = computer(&s, true);
    // Killed while running: swept at the kill.
    let mut params = RunCommandParams::new("echo x > team.code-workspace && sleep 30");
    params.run_in_background = Some(true);
    let started = c.run_command(params, &ctx(&s.ws)).await;
    let id = ok(&started)["shellId"].as_str().unwrap().to_owned();
    for _ in 0..100 {
        if s.ws.join("team.code-workspace").exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let killed = c
        .kill_command(
            KillCommandParams {
                shell_id: id.clone(),
            },
            &ctx(&s.ws),
        )
        .await;
    assert!(killed.success, "{}", killed.content);
    assert!(!s.ws.join("team.code-workspace").exists());
    let out = c
        .get_command_output(
            GetCommandOutputParams {
                shell_id: id.clone(),
                filter: None,
            },
            &ctx(&s.ws),
        )
        .await;
    assert_eq!(created(&out).len(), 1, "{}", out.content);
    assert!(s.quarantine.join(&id).join("team.code-workspace").is_file());
    // Nothing the command starts outlives it (a PID namespace): neither a
    // background child nor one that left the group with setsid, so none
    // can create an entry after the check.
    for command in [
        "(sleep 0.5; mkdir -p .vscode; echo t > .vscode/tasks.json) > /dev/null 2>&1 &",
        "setsid sh -c 'sleep 0.5; echo x > team.code-workspace; echo y > outlived' > /dev/null 2>&1 &",
    ] {
        let out = sh(&c, &s.ws, command).await;
        assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
        tokio::time::sleep(Duration::from_millis(1200)).await;
        // `.vscode` may still be the stand-in of the last command (removed
        // after two idle seconds): nothing but its `.gitignore` in it.
        let vscode = s.ws.join(".vscode");
        let inside: Vec<String> = std::fs::read_dir(&vscode)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            inside.is_empty() || inside == [".gitignore"],
            "{command}: {inside:?}"
        );
        assert!(!s.ws.join("team.code-workspace").exists(), "{command}");
        assert!(!s.ws.join("outlived").exists(), "{command}");
    }
}

#[tokio::test]
async fn a_new_repository_keeps_its_git_and_its_hooks_are_then_protected() {
    let Some(s) = setup(false) else { return };
    let c = computer(&s, true);
    if !git_available() {
        return;
    }
    let out = sh(&c, &s.ws, "git init -q . && git init -q sub && echo ok").await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert_eq!(
        state(&out)["protectedCreated"],
        Value::Null,
        "{}",
        out.content
    );
    assert!(s.ws.join(".git/config").is_file());
    assert!(s.ws.join("sub/.git/config").is_file());
    // The next command finds the repository and keeps its code parts shut.
    let out = sh(&c, &s.ws, "echo '[core]' >> .git/config").await;
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    let out = sh(&c, &s.ws, "echo 'echo hi' > .git/hooks/pre-commit").await;
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(!s.ws.join(".git/hooks/pre-commit").exists());
}

/// Whether `program` runs here; its absence is said (and fails under CI).
fn program_available(program: &str) -> bool {
    let found = std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        test_support::cannot_check("this test", format!("no {program}"));
    }
    found
}

fn git_available() -> bool {
    let found = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        test_support::cannot_check("this test", "no git here");
    }
    found
}

#[tokio::test]
async fn a_protected_symlink_is_protected_at_its_target_and_a_dangling_one_refused() {
    let Some(s) = setup(true) else { return };
    let c = computer(&s, true);
    write(&s.ws, "decoy/tasks.json", "{}\n");
    std::os::unix::fs::symlink("decoy", s.ws.join(".vscode")).unwrap();
    let out = sh(&c, &s.ws, "echo '{\"tasks\": 1}' > .vscode/tasks.json").await;
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(s.ws.join("decoy/tasks.json")).unwrap(),
        "{}\n"
    );
    // Through its own name too: the target is read-only, wherever it is named.
    let out = sh(&c, &s.ws, "echo x > decoy/tasks.json").await;
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    // A symlink whose target does not exist: the command could create the
    // target, so nothing runs.
    std::fs::remove_file(s.ws.join(".vscode")).unwrap();
    std::os::unix::fs::symlink("missing-decoy", s.ws.join(".vscode")).unwrap();
    let out = sh(
        &c,
        &s.ws,
        "mkdir missing-decoy && echo x > missing-decoy/tasks.json",
    )
    .await;
    assert!(!out.success, "{}", out.content);
    assert_eq!(
        out.error.as_ref().unwrap().code.as_str(),
        "protected_symlink"
    );
    assert!(!s.ws.join("missing-decoy").exists());
}

/// Runs each attempt as its own command in `dir` (the workspace is `ws`):
/// each must fail, and the sweep must find nothing to move.
async fn refused(c: &LocalComputer, ws: &Path, dir: &Path, attempts: &[&str]) {
    for attempt in attempts {
        let mut params = RunCommandParams::new(*attempt);
        params.cwd = Some(dir.display().to_string());
        let out = c.run_command(params, &ctx(ws)).await;
        assert_ne!(ok(&out)["exitCode"], 0, "{attempt}: {}", out.content);
        assert_eq!(
            state(&out)["protectedCreated"],
            Value::Null,
            "{attempt}: {}",
            out.content
        );
    }
}

#[tokio::test]
async fn with_file_stand_ins_off_a_protected_file_is_swept_and_reported_and_the_folder_copies() {
    let Some(s) = setup(true) else { return };
    let c = computer_with(&s, true, false);
    // The named fallback: nothing stands in for `.yarnrc`, the folder
    // lists and copies as it is, and what the command writes is kept (in
    // the quarantine), never lost without a word.
    let out = sh(
        &c,
        &s.ws,
        "ls -a > listing.txt && cp -a . /tmp/copy && echo 'yarn-path \"./x.js\"' > .yarnrc && test -s .yarnrc && echo written",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(out.content.contains("written"), "{}", out.content);
    let listing = std::fs::read_to_string(s.ws.join("listing.txt")).unwrap();
    for stand_in in [".yarnrc", ".travis.yml", ".lintstagedrc.json"] {
        assert!(
            !listing.lines().any(|l| l == stand_in),
            "{stand_in}: {listing}"
        );
    }
    let ws = s.ws.display().to_string();
    let q = s.quarantine.display().to_string();
    assert_eq!(
        created(&out),
        [(format!("{ws}/.yarnrc"), format!("{q}/sh-1/.yarnrc"))],
        "{}",
        out.content
    );
    assert!(!s.ws.join(".yarnrc").exists());
    assert_eq!(
        std::fs::read_to_string(s.quarantine.join("sh-1/.yarnrc")).unwrap(),
        "yarn-path \"./x.js\"\n"
    );
    assert!(
        out.content
            .contains(&format!("{ws}/.yarnrc -> {q}/sh-1/.yarnrc")),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn missing_protected_entries_are_refused_up_front_and_leave_nothing() {
    let Some(s) = setup(true) else { return };
    let c = computer(&s, true);
    write(&s.ws, ".github/CODEOWNERS", "* @team\n");
    write(&s.ws, "app/src/main.rs", "");
    write(&s.ws, "NOTES.txt", "notes\n");
    let out = sh(&c, &s.ws, "true").await;
    if state(&out)["sandbox"]["mechanism"] != "namespaces+landlock+seccomp" {
        test_support::cannot_check("this test", "namespaces unavailable here");
        return;
    }
    // Bypass attempts, each a harmless write in the test's workspace.
    refused(
        &c,
        &s.ws,
        &s.ws,
        &[
            "echo '{}' > .vscode/tasks.json",
            "mkdir -p .vscode/sub",
            "rmdir .vscode && mkdir .vscode && echo x > .vscode/tasks.json",
            "mv .vscode moved && mkdir .vscode && echo x > .vscode/tasks.json",
            "ln -s decoy .vscode",
            "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml",
            "echo x > .github/actions",
            "mkdir -p .claude/hooks",
            "mkdir .husky && echo 'npm test' > .husky/pre-commit",
            "cd .. && mkdir -p ws/.devcontainer && echo '{}' > ws/.devcontainer/devcontainer.json",
            // The repository has no hooks folder yet.
            "mkdir -p .git/hooks && echo 'echo hi' > .git/hooks/pre-commit",
            "echo x > .git/info/attributes",
            // Missing protected files: a stand-in holds each name.
            "echo 'echo hi' > .envrc",
            "echo x >> .envrc",
            "rm -f .envrc && echo x > .envrc",
            "mv NOTES.txt .envrc",
            "ln -sf NOTES.txt .envrc",
            "cp NOTES.txt .mcp.json",
            "echo 'def pytest_configure(): pass' > conftest.py",
            "touch .pre-commit-config.yaml",
            "echo x > lefthook.yml",
            "echo x > .gitlab-ci.yml",
            "echo x > Jenkinsfile",
            "echo '{}' > .devcontainer.json",
            "echo x > .exrc",
            "echo x > .nvim.lua",
            "echo '[toolchain]' > rust-toolchain.toml",
            "echo stable > rust-toolchain",
            "echo 'script-shell=/bin/sh' > .npmrc",
            "mkdir -p .cargo && echo '[build]' > .cargo/config.toml",
            "cd .. && echo x > ws/.envrc",
            // Inside, the name holds nothing to read.
            "cat .envrc",
            // Missing protected files whose readers fail on a folder: an
            // empty read-only file stands in: a write to it fails, and it
            // cannot be replaced.
            "echo 'yarn-path \"./x.js\"' > .yarnrc",
            "echo x >> .yarnrc",
            "rm .yarnrc && echo x > .yarnrc",
            "mv NOTES.txt .yarnrc",
            "ln -sf NOTES.txt .lintstagedrc.json",
            "echo x > .pnpmfile.cjs",
            "mkdir .bazelrc",
            "chmod 777 .yarnrc",
            // A folder on the way is missing: a folder stands in for it.
            "mkdir -p .cursor && echo '{}' > .cursor/mcp.json",
        ],
    )
    .await;
    // They read as empty regular files, and git lists none of them.
    let out = sh(
        &c,
        &s.ws,
        "test -f .yarnrc && test ! -s .yarnrc && cat .yarnrc .lintstagedrc.json && echo read",
    )
    .await;
    assert_eq!(ok(&out)["stdout"], "read\n", "{}", out.content);
    if program_available("node") {
        let out = sh(
            &c,
            &s.ws,
            "node -e \"process.stdout.write(String(require('fs').readFileSync('.yarnrc').length))\"",
        )
        .await;
        assert_eq!(ok(&out)["stdout"], "0", "{}", out.content);
    }
    // Git does not see the stand-ins: `git add -A` in a real repository
    // (working there puts stand-ins in it) commits ordinary files only.
    if git_available() {
        let repo = s.ws.join("repo");
        write(&repo, "NOTES.txt", "notes\n");
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(&repo)
            .status()
            .unwrap();
        assert!(init.success());
        let mut params = RunCommandParams::new(
            "git -c user.name=t -c user.email=t@t add -A && git -c user.name=t -c user.email=t@t commit -qm c && ls -a && echo --- && git ls-files",
        );
        params.cwd = Some(repo.display().to_string());
        let out = c.run_command(params, &ctx(&s.ws)).await;
        assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
        let stdout = ok(&out)["stdout"].as_str().unwrap_or_default().to_owned();
        let (seen, listed) = stdout.split_once("---\n").unwrap_or_default();
        assert!(seen.contains(".envrc"), "the stand-in is there: {stdout}");
        assert!(seen.contains(".yarnrc"), "the stand-in is there: {stdout}");
        assert_eq!(listed, "NOTES.txt\n", "only the ordinary file is committed");
    }
    // The programs reading the names held by stand-ins read them as "no
    // file": rustup (through cargo's proxy) and npm work beside them.
    for (program, command) in [
        (
            "cargo",
            "cargo --version && rustc --version && rustup show active-toolchain",
        ),
        ("npm", "npm config get cache"),
    ] {
        if !program_available(program) {
            continue;
        }
        let out = sh(
            &c,
            &s.ws,
            &format!(
                "test -d .npmrc && test -d rust-toolchain.toml && test -d .cargo && {command}"
            ),
        )
        .await;
        assert_eq!(ok(&out)["exitCode"], 0, "{program}: {}", out.content);
    }
    // Working in a subfolder: the folders on the way there are covered
    // too; its own `.cargo` is read-only whole.
    write(&s.ws, "app/.cargo/audit.toml", "audit\n");
    refused(
        &c,
        &s.ws,
        &s.ws.join("app"),
        &[
            "mkdir .vscode",
            "mkdir -p .github/workflows && echo x > .github/workflows/ci.yml",
            "echo x > .github/actions/a.yml",
            "echo x > .envrc",
            "echo x > ../.envrc",
            "echo x > conftest.py",
            "echo x > .yarnrc",
            "echo '[build]' > .cargo/config.toml",
            "echo '[build]' > .cargo/config",
            "mv .cargo cargo-old",
            "rm -rf .cargo",
        ],
    )
    .await;
    // Nothing was made, and the stand-ins are gone once the computer is
    // dropped (until then kept a moment, for the commands that follow).
    drop(c);
    for rel in [
        ".vscode",
        "moved",
        ".github/workflows",
        ".github/actions",
        ".claude",
        ".husky",
        ".devcontainer",
        "app/.vscode",
        "app/.github",
        ".git/hooks",
        ".git/info",
        ".envrc",
        ".mcp.json",
        "conftest.py",
        ".pre-commit-config.yaml",
        "lefthook.yml",
        ".gitlab-ci.yml",
        "Jenkinsfile",
        ".devcontainer.json",
        ".exrc",
        ".nvim.lua",
        "rust-toolchain.toml",
        "rust-toolchain",
        ".npmrc",
        ".cargo",
        "app/.envrc",
        "app/conftest.py",
        "repo/.envrc",
        ".yarnrc",
        ".lintstagedrc.json",
        ".pnpmfile.cjs",
        ".bazelrc",
        ".cursor",
        "repo/.yarnrc",
        "app/.yarnrc",
        "app/.cargo/config.toml",
        "app/.cargo/config",
        "app/cargo-old",
    ] {
        assert!(
            s.ws.join(rel).symlink_metadata().is_err(),
            "{rel} is in the workspace"
        );
    }
    assert_eq!(
        std::fs::read_to_string(s.ws.join(".github/CODEOWNERS")).unwrap(),
        "* @team\n"
    );
    assert_eq!(
        std::fs::read_to_string(s.ws.join("app/.cargo/audit.toml")).unwrap(),
        "audit\n"
    );
    // Ordinary work next to them goes on: a plain folder in .github, new
    // files at the top.
    let c = computer(&s, true);
    let out = sh(
        &c,
        &s.ws,
        "mkdir -p .github/ISSUE_TEMPLATE && echo b > .github/ISSUE_TEMPLATE/bug.md && echo n > NOTES.md && ls -a",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(s.ws.join(".github/ISSUE_TEMPLATE/bug.md").is_file());
    assert!(s.ws.join("NOTES.md").is_file());
    // An existing folder is protected as it is (not a stand-in): kept.
    write(&s.ws, ".vscode/settings.json", "{}\n");
    refused(&c, &s.ws, &s.ws, &["echo x > .vscode/tasks.json"]).await;
    assert_eq!(
        std::fs::read_to_string(s.ws.join(".vscode/settings.json")).unwrap(),
        "{}\n"
    );
    // An existing protected file is readable and read-only. (While a
    // stand-in holds the name, the host cannot create it either: the
    // computer is dropped first.)
    drop(c);
    write(&s.ws, ".envrc", "export A=1\n");
    let c = computer(&s, true);
    let out = sh(&c, &s.ws, "cat .envrc").await;
    assert_eq!(ok(&out)["stdout"], "export A=1\n", "{}", out.content);
    refused(&c, &s.ws, &s.ws, &["echo x >> .envrc"]).await;
    drop(c);
    assert_eq!(
        std::fs::read_to_string(s.ws.join(".envrc")).unwrap(),
        "export A=1\n",
        "what the host wrote is never removed"
    );
}

#[tokio::test]
async fn nested_repositories_stay_shut_and_a_new_ones_code_settings_are_taken_out() {
    let Some(s) = setup(true) else { return };
    let c = computer(&s, true);
    if !git_available() {
        return;
    }
    // Planted repositories: their configurations are only ever read here;
    // no git command runs in them.
    let planted = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch fsmonitor-ran\n";
    write(&s.ws, "vendor/lib/.git/config", planted);
    write(&s.ws, "vendor/lib/.git/hooks/README", "hooks\n");
    write(&s.ws, "vendor/lib/src/a.rs", "");
    // A submodule deeper than two folders, found through `.gitmodules`.
    write(
        &s.ws,
        ".gitmodules",
        "[submodule \"deep\"]\n\tpath = deps/a/b/deep\n\turl = ../deep\n",
    );
    write(&s.ws, "deps/a/b/deep/.git/config", "[core]\n");
    let out = sh(&c, &s.ws, "true").await;
    if state(&out)["sandbox"]["mechanism"] != "namespaces+landlock+seccomp" {
        test_support::cannot_check("this test", "namespaces unavailable here");
        return;
    }
    refused(
        &c,
        &s.ws,
        &s.ws,
        &[
            "echo '\tsshCommand = x' >> vendor/lib/.git/config",
            "rm vendor/lib/.git/config",
            "mv vendor/lib/.git vendor/lib/git-old",
            "rm -rf vendor/lib/.git",
            "echo x > vendor/lib/.git/hooks/pre-commit",
            "echo '\tfsmonitor = x' >> deps/a/b/deep/.git/config",
        ],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(s.ws.join("vendor/lib/.git/config")).unwrap(),
        planted
    );
    // New repositories, one and two folders deep, given code-running
    // settings and a hook in the same command: the settings are taken out
    // (the original kept in quarantine), the hook moved, both reported.
    let out = sh(
        &c,
        &s.ws,
        "git init -q made && git config -f made/.git/config core.fsmonitor 'touch fsmonitor-ran' && git config -f made/.git/config alias.st status && echo 'touch hook-ran' > made/.git/hooks/pre-commit && mkdir -p vendor/new && git init -q vendor/new && git config -f vendor/new/.git/config core.hooksPath /elsewhere",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    let ws = s.ws.display().to_string();
    let mut got = created(&out);
    got.sort();
    let got_paths: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    let expected: Vec<String> = [
        "made/.git/config",
        "made/.git/hooks/pre-commit",
        "vendor/new/.git/config",
    ]
    .iter()
    .map(|rel| format!("{ws}/{rel}"))
    .collect();
    assert_eq!(got_paths, expected, "{}", out.content);
    let config = std::fs::read_to_string(s.ws.join("made/.git/config")).unwrap();
    assert!(
        !config.contains("fsmonitor") && !config.contains("[alias]\n\tst"),
        "{config}"
    );
    assert!(config.contains("repositoryformatversion"), "{config}");
    assert!(
        !std::fs::read_to_string(s.ws.join("vendor/new/.git/config"))
            .unwrap()
            .contains("hooksPath")
    );
    assert!(!s.ws.join("made/.git/hooks/pre-commit").exists());
    for (path, moved) in &got {
        assert!(!moved.is_empty(), "{path} not kept");
        assert!(Path::new(moved).exists(), "{moved}");
    }
    assert!(
        out.content.contains("moved to quarantine"),
        "{}",
        out.content
    );
    // From the next command on, the new repository's code parts are shut.
    refused(
        &c,
        &s.ws,
        &s.ws,
        &[
            "echo '\tfsmonitor = x' >> made/.git/config",
            "echo x >> vendor/new/.git/config",
        ],
    )
    .await;
    assert!(!s.ws.join("fsmonitor-ran").exists() && !s.ws.join("hook-ran").exists());
}
