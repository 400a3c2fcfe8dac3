//! `/tmp` under confinement: a confined command's writes to `/tmp` never
//! reach the host's `/tmp`, yet host paths under `/tmp` outside the
//! writable roots (a skill folder used as the working directory, a
//! read-only input) stay readable.
//!
//! Every command is a harmless read or write of files the test creates in
//! its own temp dirs.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use crate::common::{base_outside_temp, ok, state, write};
use serde_json::Value;
use tool_core::{ToolContext, ToolOutput};
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    ShellConfig, confinement_support,
};

fn computer(tmp_overlay: bool) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                tmp_overlay,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

/// Runs `command` in `cwd` with `ws` as the workspace.
async fn sh_in(c: &LocalComputer, ws: &Path, cwd: &Path, command: &str) -> ToolOutput {
    let mut params = RunCommandParams::new(command);
    params.cwd = Some(cwd.display().to_string());
    c.run_command(params, &ToolContext::new().with_cwd(ws))
        .await
}

fn exit_code(out: &ToolOutput) -> i64 {
    ok(out)["exitCode"].as_i64().unwrap()
}

/// A workspace outside the system temp dir, and a skill folder plus an
/// input file in a directory under `/tmp` (the host's).
struct Dirs {
    _base: tempfile::TempDir,
    ws: PathBuf,
    _host_tmp: tempfile::TempDir,
    skills: PathBuf,
    input: PathBuf,
}

fn dirs() -> Option<Dirs> {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return None;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = std::fs::canonicalize(base.path()).unwrap().join("ws");
    write(&ws, "src/lib.rs", "");
    let host_tmp = tempfile::Builder::new()
        .prefix("sandbox-tmp-test-")
        .tempdir_in("/tmp")
        .unwrap();
    let root = std::fs::canonicalize(host_tmp.path()).unwrap();
    let skills = root.join("sk/skills/demo");
    write(
        &skills,
        "SKILL.md",
        "---\nname: demo\n---\nhello from the skill\n",
    );
    let input = root.join("input.txt");
    std::fs::write(&input, "host input\n").unwrap();
    Some(Dirs {
        _base: base,
        ws,
        _host_tmp: host_tmp,
        skills,
        input,
    })
}

/// Whether the command ran in the namespace (else the test has nothing to pin).
fn namespaced(out: &ToolOutput) -> bool {
    let mechanism = state(out)["sandbox"]["mechanism"].as_str().unwrap_or("");
    if mechanism != "namespaces+landlock+seccomp" {
        test_support::cannot_check(
            "this test",
            format!("namespaces unavailable here (mechanism {mechanism})"),
        );
        return false;
    }
    true
}

#[tokio::test]
async fn a_cwd_and_inputs_under_the_hosts_tmp_are_readable_and_writes_stay_private() {
    let Some(d) = dirs() else { return };
    let c = computer(true);
    let name = format!("overlay-planted-{}", std::process::id());
    let command = format!(
        "pwd && cat SKILL.md && cat '{input}' && echo mine > /tmp/{name} && cat /tmp/{name}",
        input = d.input.display()
    );
    let out = sh_in(&c, &d.ws, &d.skills, &command).await;
    if !namespaced(&out) {
        return;
    }
    if state(&out)["sandbox"]["hostTmpReadable"] != true {
        test_support::cannot_check("this test", "this kernel gives no overlay over /tmp");
        return;
    }
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(
        ok(&out)["stdout"],
        format!(
            "{}\n---\nname: demo\n---\nhello from the skill\nhost input\nmine\n",
            d.skills.display()
        )
    );
    assert!(
        !Path::new("/tmp").join(&name).exists(),
        "the host's /tmp got the file"
    );
    // The command's own /tmp file is there for its next command.
    let out = sh_in(&c, &d.ws, &d.ws, &format!("cat /tmp/{name}")).await;
    assert_eq!(ok(&out)["stdout"], "mine\n", "{}", out.content);
    // Changing, removing or adding host files under /tmp changes nothing on
    // the host: the command sees its own copy.
    let out = sh_in(
        &c,
        &d.ws,
        &d.skills,
        &format!(
            "echo changed > '{input}' && rm SKILL.md && echo new > added.txt && cat '{input}'",
            input = d.input.display()
        ),
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "changed\n");
    assert_eq!(std::fs::read_to_string(&d.input).unwrap(), "host input\n");
    assert!(d.skills.join("SKILL.md").exists());
    assert!(!d.skills.join("added.txt").exists());
    // Two commands at once share the private /tmp.
    let mut bg = RunCommandParams::new(format!("sleep 1; cat /tmp/{name}"));
    bg.run_in_background = Some(true);
    let started = c.run_command(bg, &ToolContext::new().with_cwd(&d.ws)).await;
    let id = ok(&started)["shellId"].as_str().unwrap().to_owned();
    let out = sh_in(&c, &d.ws, &d.ws, &format!("echo again > /tmp/{name}")).await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let later = c
        .get_command_output(
            tool_runtime::GetCommandOutputParams {
                shell_id: id,
                filter: None,
            },
            &ToolContext::new().with_cwd(&d.ws),
        )
        .await;
    assert_eq!(
        ok(&later)["stdout"],
        "again
",
        "{}",
        later.content
    );
    // The workspace itself is still the host's, writable.
    let out = sh_in(&c, &d.ws, &d.ws, "echo ok > src/new.rs").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(d.ws.join("src/new.rs").exists());
}

#[tokio::test]
async fn a_workspace_under_tmp_is_the_hosts_beneath_the_overlay() {
    let Some(d) = dirs() else { return };
    // The workspace itself under /tmp: writes reach the host's files.
    let ws = d.skills.parent().unwrap().to_path_buf();
    let c = computer(true);
    let out = sh_in(&c, &ws, &ws, "echo x > written.txt && cat demo/SKILL.md").await;
    if !namespaced(&out) {
        return;
    }
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(ws.join("written.txt")).unwrap(),
        "x\n"
    );
}

#[tokio::test]
async fn a_repository_a_command_puts_in_the_private_tmp_does_not_stop_the_next_command() {
    let Some(d) = dirs() else { return };
    // The private temp dir is not a workspace: a repository there (a copy
    // of the workspace's, `git init`) is not looked into, so nothing is
    // mounted beneath the overlay's own upper layer, which the kernel
    // refuses (`ELOOP`).
    for overlay in [true, false] {
        let c = computer(overlay);
        write(&d.ws, ".git/config", "[core]\n");
        let out = sh_in(
            &c,
            &d.ws,
            &d.ws,
            "cp -a . /tmp/copy && mkdir -p /tmp/a/b && cp -a .git /tmp/a/b/.git && cp -a .git /tmp/a/.git",
        )
        .await;
        if !namespaced(&out) {
            return;
        }
        assert_eq!(exit_code(&out), 0, "{}", out.content);
        let out = sh_in(&c, &d.ws, &d.ws, "cat /tmp/copy/.git/config").await;
        assert_eq!(exit_code(&out), 0, "overlay {overlay}: {}", out.content);
        assert_eq!(ok(&out)["stdout"], "[core]\n", "{}", out.content);
    }
}

#[tokio::test]
async fn without_the_overlay_the_cwd_under_tmp_is_bound_back_read_only() {
    let Some(d) = dirs() else { return };
    let c = computer(false);
    let name = format!("private-planted-{}", std::process::id());
    let out = sh_in(
        &c,
        &d.ws,
        &d.skills,
        &format!("pwd && cat SKILL.md && echo mine > /tmp/{name}"),
    )
    .await;
    if !namespaced(&out) {
        return;
    }
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["hostTmpReadable"], Value::Null);
    assert!(
        ok(&out)["stdout"]
            .as_str()
            .unwrap()
            .contains("hello from the skill")
    );
    assert!(!Path::new("/tmp").join(&name).exists());
    // Read-only: the skill folder cannot be changed from inside.
    let out = sh_in(&c, &d.ws, &d.skills, "echo x > SKILL.md").await;
    assert_ne!(exit_code(&out), 0, "{}", out.content);
    assert!(
        std::fs::read_to_string(d.skills.join("SKILL.md"))
            .unwrap()
            .contains("hello")
    );
}

/// A computer whose private `/tmp` may take at most `tmp_bytes` on disk.
fn computer_with_tmp_limit(tmp_bytes: u64) -> LocalComputer {
    let mut limits = tool_runtime::Limits::default();
    limits.tmp_bytes = Some(tmp_bytes);
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                limits,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

#[tokio::test]
async fn a_command_filling_the_private_tmp_past_its_limit_is_killed_and_named() {
    let Some(d) = dirs() else {
        return;
    };
    let c = computer_with_tmp_limit(1 << 20);
    // Zeros into its own /tmp, past 1 MiB, then a wait it must not finish.
    let started = std::time::Instant::now();
    let out = sh_in(
        &c,
        &d.ws,
        &d.ws,
        "head -c 4000000 /dev/zero > /tmp/fill && sleep 20; echo survived",
    )
    .await;
    if !namespaced(&out) {
        return;
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{}",
        out.content
    );
    let stdout = ok(&out)["stdout"].as_str().unwrap_or("").to_owned();
    assert!(!stdout.contains("survived"), "{}", out.content);
    assert!(out.content.contains("tmp size limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["tmpLimitHit"], true);
    assert_eq!(state(&out)["sandbox"]["limits"]["tmp_bytes"], 1 << 20);
    // A command that writes past it and ends at once is named too.
    let out = sh_in(&c, &d.ws, &d.ws, "head -c 3000000 /dev/zero > /tmp/fill2").await;
    assert!(out.content.contains("tmp size limit"), "{}", out.content);
    // Freeing the space lets the next commands run.
    let out = sh_in(&c, &d.ws, &d.ws, "rm -f /tmp/fill /tmp/fill2").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let out = sh_in(&c, &d.ws, &d.ws, "sleep 0.5; echo fine").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(!out.content.contains("tmp size limit"), "{}", out.content);
    assert!(state(&out)["sandbox"].get("tmpLimitHit").is_none());
}

#[tokio::test]
async fn a_command_staying_under_the_private_tmp_limit_runs_to_its_end() {
    let Some(d) = dirs() else {
        return;
    };
    let c = computer_with_tmp_limit(1 << 20);
    let out = sh_in(
        &c,
        &d.ws,
        &d.ws,
        "head -c 200000 /dev/zero > /tmp/small && sleep 0.5 && wc -c < /tmp/small",
    )
    .await;
    if !namespaced(&out) {
        return;
    }
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(out.content.contains("200000"), "{}", out.content);
    assert!(!out.content.contains("tmp size limit"), "{}", out.content);
    assert!(state(&out)["sandbox"].get("tmpLimitHit").is_none());
}

fn computer_with_limits(limits: tool_runtime::Limits) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                limits,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

#[tokio::test]
async fn a_run_over_its_memory_limit_is_killed_and_named_and_one_under_it_ends_normally() {
    let Some(d) = dirs() else {
        return;
    };
    let mut limits = tool_runtime::Limits::default();
    limits.run_memory_bytes = Some(64 << 20);
    let c = computer_with_limits(limits);
    // The shell holds 200 MB of `a` in one variable: three times the limit.
    let out = sh_in(
        &c,
        &d.ws,
        &d.ws,
        "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived ${#x}",
    )
    .await;
    if state(&out)["sandbox"]["memoryLimit"] != "cgroup" {
        test_support::cannot_check("this test", "this host cannot make a memory cgroup");
        return;
    }
    assert_ne!(exit_code_or_signal(&out), 0, "{}", out.content);
    let stdout = ok(&out)["stdout"].as_str().unwrap_or("").to_owned();
    assert!(!stdout.contains("survived"), "{}", out.content);
    assert!(out.content.contains("memory limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "memory");
    assert_eq!(state(&out)["sandbox"]["memoryLimitHit"], true);
    assert_eq!(
        state(&out)["sandbox"]["limits"]["run_memory_bytes"],
        64 << 20
    );
    // The same computer, a command well under the limit.
    let out = sh_in(
        &c,
        &d.ws,
        &d.ws,
        "x=$(head -c 1000000 /dev/zero | tr '\\0' a); echo fine ${#x}",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(out.content.contains("fine 1000000"), "{}", out.content);
    assert!(state(&out)["sandbox"].get("limitHit").is_none());
    assert!(!out.content.contains("memory limit"), "{}", out.content);
}

#[tokio::test]
async fn a_run_over_its_cpu_time_is_stopped_and_named() {
    let Some(d) = dirs() else {
        return;
    };
    let mut limits = tool_runtime::Limits::default();
    limits.cpu_seconds = Some(1);
    let c = computer_with_limits(limits);
    let started = std::time::Instant::now();
    let out = sh_in(&c, &d.ws, &d.ws, "while :; do :; done").await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{}",
        out.content
    );
    assert_ne!(exit_code_or_signal(&out), 0, "{}", out.content);
    assert!(out.content.contains("cpu time limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "cpu_time");
    assert_eq!(state(&out)["sandbox"]["limits"]["cpu_seconds"], 1);
}

/// The exit code, or 128 + the signal that ended the command.
fn exit_code_or_signal(out: &ToolOutput) -> i64 {
    let s = ok(out);
    s["exitCode"]
        .as_i64()
        .or_else(|| s["signal"].as_i64().map(|n| 128 + n))
        .unwrap_or(-1)
}

/// Finds `name` below `dir` (the host's view), a few levels deep.
fn find_below(dir: &Path, name: &str, depth: usize) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if entry.file_name() == name {
            return Some(path);
        }
        if depth > 0
            && entry.file_type().is_ok_and(|t| t.is_dir())
            && let Some(found) = find_below(&path, name, depth - 1)
        {
            return Some(found);
        }
    }
    None
}

/// Under the overlay the host's `/tmp` is the lower layer; the private
/// temp dirs of the user's other computers live there, and with them
/// what their commands wrote to `/tmp`. A command of one computer cannot
/// read another's (nor its own private dir's inside).
#[tokio::test]
async fn a_command_cannot_read_another_computers_private_tmp() {
    let Some(d) = dirs() else { return };
    let (a, b) = (computer(true), computer(true));
    let name = format!("private-of-b-{}", std::process::id());
    let out = sh_in(&b, &d.ws, &d.ws, &format!("echo b-secret > /tmp/{name}")).await;
    if !namespaced(&out) {
        return;
    }
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    // The host finds B's file in B's private temp dir.
    let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
    assert_eq!(
        tmp,
        Path::new("/tmp"),
        "this test needs the system temp dir at /tmp"
    );
    let written = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("tool-sandbox-"))
        .find_map(|e| find_below(&e.path(), &name, 3))
        .expect("B's write is in a private temp dir under /tmp");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "b-secret\n");
    let private_dir: PathBuf = written
        .ancestors()
        .find(|p| p.parent() == Some(tmp.as_path()))
        .unwrap()
        .to_path_buf();
    // A's command: the path is there, empty and unreadable inside.
    let out = sh_in(
        &a,
        &d.ws,
        &d.ws,
        &format!(
            "cat '{w}'; echo \"cat=$?\"; ls -A '{p}' | wc -l",
            w = written.display(),
            p = private_dir.display()
        ),
    )
    .await;
    let stdout = ok(&out)["stdout"].as_str().unwrap_or("").to_owned();
    assert!(!stdout.contains("b-secret"), "{}", out.content);
    assert!(stdout.contains("cat=1"), "{}", out.content);
    assert!(stdout.trim_end().ends_with('0'), "{}", out.content);
    // B's own commands still see their /tmp.
    let out = sh_in(&b, &d.ws, &d.ws, &format!("cat /tmp/{name}")).await;
    assert_eq!(ok(&out)["stdout"], "b-secret\n", "{}", out.content);
    // Unconfined, the host reads it: the masking is the sandbox's.
    let host = LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::FullAccess));
    let out = sh_in(&host, &d.ws, &d.ws, &format!("cat '{}'", written.display())).await;
    assert_eq!(ok(&out)["stdout"], "b-secret\n", "{}", out.content);
}
