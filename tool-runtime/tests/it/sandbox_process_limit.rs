//! The process limit of a host that can make no pids cgroup: root in a
//! container without cgroup access is the case that matters, since the
//! kernel does not apply `RLIMIT_NPROC` to uid 0. On a kernel whose PID
//! namespaces have their own `pid_max` (6.14 and later) the run's
//! namespace bounds it (`processLimit: "pid_namespace"`).
//!
//! The test runs itself again under `unshare --mount` with an empty tmpfs
//! over `/sys/fs/cgroup`, so the host process finds no cgroup to make; as
//! root there, only the namespace's `pid_max` can stop a command that
//! starts more processes than its limit. The processes started are
//! `sleep`s in a temp dir.

use std::path::PathBuf;

use crate::common::{base_outside_temp, ctx, needed, running_as_root, state};
use tool_runtime::{
    ComputerRuntime, Limits, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions,
    SandboxPolicy, ShellConfig,
};

const CHILD: &str = "TOOL_SANDBOX_NO_CGROUPS_CHILD";

/// Whether this kernel gives each PID namespace its own `pid_max`.
pub fn kernel_has_pid_max_per_namespace() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (major, minor) >= (6, 14)
}

#[tokio::test]
async fn a_root_host_without_cgroups_is_held_to_its_process_limit_by_the_pid_namespace() {
    const TEST: &str =
        "a_root_host_without_cgroups_is_held_to_its_process_limit_by_the_pid_namespace";
    if let Some(ws) = std::env::var_os(CHILD) {
        child(PathBuf::from(ws)).await;
        return;
    }
    if !needed("unshare") {
        return;
    }
    if !running_as_root() {
        test_support::cannot_check("this test", "not root: it is about a root host");
        return;
    }
    if !kernel_has_pid_max_per_namespace() {
        test_support::cannot_check(
            "this test",
            "the kernel is older than 6.14: PID namespaces share pid_max",
        );
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = std::fs::canonicalize(base.path()).unwrap();
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    let out = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "--", "sh", "-c"])
        .arg("mount -t tmpfs -o size=4k,mode=555 none /sys/fs/cgroup && exec \"$@\"")
        .arg("sh")
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &format!("{module}::{TEST}"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &ws)
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child failed:\n{text}");
    assert!(text.contains("1 passed"), "child did not run:\n{text}");
}

/// As root with no cgroup file system: the limit is the namespace's.
async fn child(ws: PathBuf) {
    let mut limits = Limits::default();
    limits.processes = Some(400);
    let c = LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                limits,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    let run = |command: &'static str| {
        let c = &c;
        let ws = &ws;
        async move {
            c.run_command(RunCommandParams::new(command), &ctx(ws))
                .await
        }
    };
    let out = run("cat /proc/sys/kernel/pid_max").await;
    let sandbox = &state(&out)["sandbox"];
    assert_eq!(
        sandbox["mechanism"], "namespaces+landlock+seccomp",
        "{}",
        out.content
    );
    assert_eq!(sandbox["processLimit"], "pid_namespace", "{}", out.content);
    assert_eq!(
        state(&out)["stdout"].as_str().map(str::trim),
        Some("401"),
        "the namespace's pid_max is the limit plus PID 1: {}",
        out.content
    );
    // A root host's own pid_max is untouched.
    let host = std::fs::read_to_string("/proc/sys/kernel/pid_max").unwrap();
    assert_ne!(host.trim(), "401");
    // Past the limit, fork fails and the output names the limit. As root,
    // RLIMIT_NPROC does not apply: only the namespace stops this.
    let out = run("for i in $(seq 1 600); do sleep 2 & done; wait; echo done").await;
    assert!(out.content.contains("process limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "processes");
    // Under the limit, the same kind of command runs to its end.
    let out = run("for i in $(seq 1 100); do sleep 1 & done; wait; echo done").await;
    assert_eq!(state(&out)["exitCode"], 0, "{}", out.content);
    assert!(
        state(&out)["sandbox"]["limitHit"].is_null(),
        "{}",
        out.content
    );
}
