//! The stand-ins for missing protected names, by default: a protected
//! file whose readers fail on a folder (`.yarnrc`, `.claude/settings.json`)
//! is an empty read-only regular file inside the command (writes refused,
//! `cp -a`, `tar` and git work beside it, host git sees nothing, nothing is
//! left afterwards); and what a host that died leaves in the user's
//! workspace: the stand-in folders are removed by the next host's first
//! confined run there, the socket stand-ins by the next host's first
//! computer (from the dead host's registry); a folder that is not a
//! stand-in, or that holds anything else, stays, and so does every entry
//! that is not the very socket the dead host made.
//!
//! The dying host is a child process of this test binary
//! (`TOOL_STAND_IN_TEST_CHILD`), killed with `SIGKILL` while a confined
//! `sleep` runs; every command is a harmless one in the test's temp dir.
#![cfg(target_os = "linux")]

use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{base_outside_temp, ctx, needed, ok, state, write};
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, KillCommandParams, LocalComputer, LocalConfig, RunCommandParams,
    SandboxPolicy, ShellConfig,
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
    // A socket of the user's own under a stand-in name: no stand-in is
    // made there, nothing records it.
    drop(std::os::unix::net::UnixListener::bind(ws.join(".pnpmfile.cjs")).unwrap());
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
    // The socket stand-ins are left too, listed in the dead host's
    // registry beside its private temp dir.
    let socket = |rel: &str| {
        ws.join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_socket())
    };
    for expected in [
        ".yarnrc",
        ".travis.yml",
        ".lintstagedrc.json",
        ".pnpmfile.cjs",
    ] {
        assert!(socket(expected), "{expected} not left: {:?}", names(&ws));
    }
    let registries = |tmp: &Path| -> Vec<String> {
        names(tmp)
            .into_iter()
            .filter(|n| n.starts_with("tool-sandbox-stand-ins-"))
            .collect()
    };
    assert_eq!(registries(&base.join("tmp")).len(), 1);
    // One of them replaced by a file of the user's: no longer the
    // recorded socket, so it stays.
    write(&ws, "new-file", "user's lint-staged settings\n");
    std::fs::rename(ws.join("new-file"), ws.join(".lintstagedrc.json")).unwrap();

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
        [
            ".husky",
            ".idea",
            ".lintstagedrc.json",
            ".pnpmfile.cjs",
            ".vscode",
            "a.txt"
        ],
        "the dead host's stand-ins are gone, the user's entries stay"
    );
    assert!(socket(".pnpmfile.cjs"), "the user's socket stays");
    assert_eq!(
        std::fs::read_to_string(ws.join(".lintstagedrc.json")).unwrap(),
        "user's lint-staged settings\n"
    );
    assert_eq!(registries(&base.join("tmp")), Vec::<String>::new());
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

async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

/// Runs `git` in the host (never confined) in `repo`.
fn host_git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn by_default_missing_protected_files_are_empty_read_only_files_that_copy_and_git_skips() {
    if !needed("git") {
        return;
    }
    let dir = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    write(&ws, "NOTES.md", "notes\n");
    // `.cursor` exists, so `.cursor/mcp.json` gets an empty-file stand-in
    // of its own; `.claude` does not, so a stand-in folder holds it.
    write(&ws, ".cursor/rules.md", "rules\n");
    write(&ws, "app/main.txt", "main\n");
    // A socket already at a stand-in name (another host's stand-in, say):
    // an empty file in the command too, and left as it is.
    drop(std::os::unix::net::UnixListener::bind(ws.join(".bazelrc")).unwrap());
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-qm",
            "first",
        ],
    ] {
        host_git(&ws, args);
    }
    let c = computer();
    let out = sh(&c, &ws, "true").await;
    if state(&out)["sandbox"]["mechanism"] != "namespaces+landlock+seccomp" {
        test_support::cannot_check("this test", "namespaces unavailable here");
        return;
    }
    // Refused up front: a write fails with the command's own error, and
    // nothing is left to sweep.
    // (An append is refused by the file's mode, 0444, before the mount.)
    const EROFS: &str = "Read-only file system";
    for (what, attempt, error) in [
        ("write", "echo 'yarn-path \"./x.js\"' > .yarnrc", EROFS),
        ("append", "echo x >> .travis.yml", "Permission denied"),
        (
            "under an existing folder",
            "echo '{}' > .cursor/mcp.json",
            EROFS,
        ),
        (
            "under a missing folder",
            "mkdir -p .claude && echo '{}' > .claude/settings.json",
            EROFS,
        ),
        ("remove", "rm .yarnrc", "busy"),
        ("rename over", "mv NOTES.md .yarnrc", "busy"),
        ("mode", "chmod 666 .yarnrc", EROFS),
    ] {
        let out = sh(&c, &ws, attempt).await;
        assert_ne!(ok(&out)["exitCode"], 0, "{what}: {}", out.content);
        assert!(out.content.contains(error), "{what}: {}", out.content);
        assert_eq!(
            state(&out)["protectedCreated"],
            serde_json::Value::Null,
            "{what}: {}",
            out.content
        );
    }
    // Readers see an empty regular file.
    let out = sh(
        &c,
        &ws,
        "cat .yarnrc .cursor/mcp.json .bazelrc && stat -c '%F %s' .yarnrc .bazelrc && ls -a | grep -cx .yarnrc",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert_eq!(
        ok(&out)["stdout"],
        "regular empty file 0\nregular empty file 0\n1\n",
        "{}",
        out.content
    );
    if needed("python3") {
        let out = sh(
            &c,
            &ws,
            "python3 -c \"print(repr(open('.yarnrc').read()))\"",
        )
        .await;
        assert_eq!(ok(&out)["stdout"], "''\n", "{}", out.content);
    }
    // The folder copies and archives (an empty file where a stand-in is);
    // the stand-ins a command in `app` just left are gone, not sockets in
    // the copy's way.
    let mut params = RunCommandParams::new("true");
    params.cwd = Some(ws.join("app").display().to_string());
    let out = c.run_command(params, &ctx(&ws)).await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    let out = sh(
        &c,
        &ws,
        "cp -a . /tmp/copy && test -f /tmp/copy/.yarnrc && test ! -s /tmp/copy/.yarnrc && test -f /tmp/copy/.bazelrc && test ! -e /tmp/copy/app/.yarnrc && cat /tmp/copy/NOTES.md && tar cf /tmp/ws.tar . && tar tf /tmp/ws.tar | grep -cx './.yarnrc'",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "notes\n1\n", "{}", out.content);
    // Git in the command lists none: `git add -A` commits the ordinary
    // file only.
    let out = sh(
        &c,
        &ws,
        "echo more >> NOTES.md && git add -A && git -c user.name=T -c user.email=t@example.invalid commit -qm second && git status --porcelain && git ls-files",
    )
    .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert_eq!(
        ok(&out)["stdout"],
        ".cursor/rules.md\nNOTES.md\napp/main.txt\n",
        "{}",
        out.content
    );
    // A command running in `app` holds its stand-ins: a command at the
    // top sees them as empty files too, and copies them as such.
    let mut params = RunCommandParams::new("sleep 30");
    params.run_in_background = Some(true);
    params.cwd = Some(ws.join("app").display().to_string());
    let started = c.run_command(params, &ctx(&ws)).await;
    let id = ok(&started)["shellId"].as_str().unwrap().to_owned();
    let out = sh(
        &c,
        &ws,
        "cp -a . /tmp/copy2 && test -f /tmp/copy2/app/.yarnrc && test ! -s /tmp/copy2/app/.yarnrc && echo copied",
    )
    .await;
    assert_eq!(ok(&out)["stdout"], "copied\n", "{}", out.content);
    // Git in the host lists none while commands hold them (they are
    // sockets there) and after.
    for rel in [".yarnrc", "app/.yarnrc"] {
        let held = ws
            .join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_socket());
        assert!(held, "{rel}: the stand-in is a socket in the host");
    }
    assert_eq!(
        host_git(&ws, &["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
    let killed = c
        .kill_command(KillCommandParams { shell_id: id }, &ctx(&ws))
        .await;
    assert!(killed.success, "{}", killed.content);
    drop(c);
    // Nothing is left once the computer is dropped.
    for rel in [
        ".yarnrc",
        ".travis.yml",
        ".cursor/mcp.json",
        ".claude",
        "app/.yarnrc",
        "app/.claude",
    ] {
        assert!(ws.join(rel).symlink_metadata().is_err(), "{rel} is left");
    }
    assert_eq!(
        host_git(&ws, &["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
    assert_eq!(host_git(&ws, &["log", "--format=%s"]), "second\nfirst\n");
    let kept = ws
        .join(".bazelrc")
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_socket());
    assert!(kept, "a socket not made by this host is left");
}
