//! The OS sandbox on real processes: Landlock and seccomp refuse what the
//! policy forbids, allow what it allows, and never touch the host.
//!
//! Every command here is a harmless write, read or connection inside
//! directories the test creates (under cargo's target temp dir, which is not
//! the system temp dir the policy leaves writable), or to a listener the
//! test opens on 127.0.0.1.
#![cfg(target_os = "linux")]

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[cfg(target_arch = "x86_64")]
use crate::common::SYSCALL_PROBE;
use crate::common::{base_outside_temp, code, ctx, needed, ok, on_path, state, write};
use serde_json::Value;
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxFallback, SandboxOptions,
    SandboxPolicy, ShellConfig, probe_kernel,
};

/// Whether this kernel can run the tests; when it cannot, the tests say so
/// and pass (the failure path is tested separately with a failing probe).
fn supported() -> bool {
    match probe_kernel() {
        Ok(support) => {
            assert!(support.landlock_abi >= 1);
            true
        }
        Err(reason) => {
            test_support::cannot_check("this test", format!("no sandbox on this kernel: {reason}"));
            false
        }
    }
}

/// A workspace and an "outside" directory, neither under the system temp dir.
struct Dirs {
    _base: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let ws = root.join("ws");
    let outside = root.join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    assert!(!ws.starts_with(std::env::temp_dir()));
    Dirs {
        _base: base,
        ws,
        outside,
    }
}

fn sandboxed(policy: SandboxPolicy) -> LocalComputer {
    LocalComputer::new(LocalConfig::default().with_sandbox(policy))
}

async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

/// The mechanisms a confined command may run under here.
const MECHANISMS: [&str; 2] = ["namespaces+landlock+seccomp", "landlock+seccomp"];

/// Landlock says EACCES, the namespace's read-only mounts EROFS.
fn refused_by_os(stderr: &str) -> bool {
    stderr.contains("Permission denied") || stderr.contains("Read-only file system")
}

fn exit_code(out: &ToolOutput) -> i64 {
    ok(out)["exitCode"].as_i64().unwrap()
}

fn stderr(out: &ToolOutput) -> String {
    ok(out)["stderr"].as_str().unwrap().to_owned()
}

fn assert_refused(out: &ToolOutput, what: &str) {
    let s = ok(out);
    assert_ne!(s["exitCode"], 0, "{what}: ran, content: {}", out.content);
    assert!(
        out.content
            .contains("Hint: the workspace_write sandbox may have refused this")
            || out
                .content
                .contains("Hint: the read_only sandbox may have refused this"),
        "{what}: no hint in {}",
        out.content
    );
}

#[tokio::test]
async fn writes_inside_the_workspace_work_and_the_state_names_the_sandbox() {
    if !supported() {
        return;
    }
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(
        &c,
        &d.ws,
        "echo one > a.txt && mkdir -p sub/deep && echo two > sub/deep/b.txt && mv a.txt sub/ && rm sub/deep/b.txt && echo gone > /dev/null && cat sub/a.txt",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "one\n");
    assert!(d.ws.join("sub/a.txt").exists());
    let sandbox = &state(&out)["sandbox"];
    assert_eq!(sandbox["policy"], "workspace_write");
    assert!(MECHANISMS.contains(&sandbox["mechanism"].as_str().unwrap()));
    assert_eq!(sandbox["network"], false);
    assert!(sandbox["landlockAbi"].as_u64().unwrap() >= 1);
    assert!(
        out.content.contains("landlock+seccomp, network off)"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("Hint:"), "{}", out.content);
}

#[tokio::test]
async fn a_write_outside_the_workspace_is_refused_with_the_commands_own_error() {
    if !supported() {
        return;
    }
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    let target = d.outside.join("escaped.txt");
    let out = sh(&c, &d.ws, &format!("echo bad > '{}'", target.display())).await;
    assert_refused(&out, "write outside");
    assert!(refused_by_os(&stderr(&out)), "{}", out.content);
    assert!(!target.exists());
    // The hint names what is allowed and who can widen it.
    assert!(out.content.contains(&d.ws.display().to_string()));
    assert!(out.content.contains("Only the host can widen it"));
}

#[tokio::test]
async fn git_and_code_execution_files_stay_read_only() {
    if !supported() {
        return;
    }
    let d = dirs();
    write(&d.ws, ".git/config", "[core]\n");
    write(&d.ws, ".git/hooks/README", "hooks\n");
    write(&d.ws, ".envrc", "export A=1\n");
    write(&d.ws, "src/main.rs", "fn main() {}\n");
    write(&d.ws, "notes.md", "x\n");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let attempts = [
        ("append to .git/config", "echo '[alias]' >> .git/config"),
        ("new hook", "echo 'echo hi' > .git/hooks/pre-commit"),
        (
            "symlinked hook",
            "ln -s ../../src/main.rs .git/hooks/post-checkout",
        ),
        ("remove .git/config", "rm .git/config"),
        ("rename .git", "mv .git .git-old"),
        (
            "move a file over a hook",
            "mv src/main.rs .git/hooks/pre-push",
        ),
        ("edit .envrc", "echo 'export B=2' >> .envrc"),
    ];
    for (what, command) in attempts {
        let out = sh(&c, &d.ws, command).await;
        assert_refused(&out, what);
    }
    assert_eq!(
        std::fs::read_to_string(d.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!d.ws.join(".git/hooks/pre-commit").exists());
    assert!(
        d.ws.join(".git/hooks/post-checkout")
            .symlink_metadata()
            .is_err()
    );
    assert!(d.ws.join("src/main.rs").exists());
    assert_eq!(
        std::fs::read_to_string(d.ws.join(".envrc")).unwrap(),
        "export A=1\n"
    );
    // Reading them, and writing the rest of the workspace, still works.
    let out = sh(
        &c,
        &d.ws,
        "cat .git/config && echo '// more' >> src/main.rs && echo y >> notes.md && mkdir src/new && echo z > src/new/f",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let sandbox = &state(&out)["sandbox"];
    let read_only: Vec<&str> = sandbox["readOnlyPaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(read_only.contains(&d.ws.join(".git/config").to_str().unwrap()));
    assert!(read_only.contains(&d.ws.join(".git/hooks").to_str().unwrap()));
    // With the namespace the top takes new entries; the Landlock-only
    // fallback keeps it closed (the `sandbox_git` tests pin both).
    let out = sh(&c, &d.ws, "echo x > new-at-top.txt").await;
    if state(&out)["sandbox"]["mechanism"] == "landlock+seccomp" {
        assert_refused(&out, "new entry at the top");
    } else {
        assert_eq!(exit_code(&out), 0, "{}", out.content);
    }
}

#[tokio::test]
async fn a_symlink_pointing_outside_does_not_open_the_outside() {
    if !supported() {
        return;
    }
    let d = dirs();
    std::os::unix::fs::symlink(&d.outside, d.ws.join("link")).unwrap();
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(&c, &d.ws, "echo bad > link/through-symlink.txt").await;
    assert_refused(&out, "write through a symlink");
    assert!(!d.outside.join("through-symlink.txt").exists());
}

#[tokio::test]
async fn a_grandchild_process_inherits_the_sandbox() {
    if !supported() {
        return;
    }
    let d = dirs();
    let target = d.outside.join("grandchild.txt");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let command = format!(
        "sh -c \"sh -c 'echo bad > {}' && echo wrote\"; (sh -c 'echo bad > {}') & wait",
        target.display(),
        target.display()
    );
    let out = sh(&c, &d.ws, &command).await;
    assert!(!ok(&out)["stdout"].as_str().unwrap().contains("wrote"));
    assert!(refused_by_os(&stderr(&out)), "{}", out.content);
    assert!(!target.exists());
}

#[tokio::test]
async fn mv_in_and_out_of_the_workspace_is_refused() {
    if !supported() {
        return;
    }
    let d = dirs();
    write(&d.ws, "mine.txt", "mine\n");
    write(&d.outside, "theirs.txt", "theirs\n");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(
        &c,
        &d.ws,
        &format!("mv mine.txt '{}'", d.outside.join("moved.txt").display()),
    )
    .await;
    assert_refused(&out, "mv out");
    assert!(!d.outside.join("moved.txt").exists());
    assert!(d.ws.join("mine.txt").exists());
    let out = sh(
        &c,
        &d.ws,
        &format!("mv '{}' stolen.txt", d.outside.join("theirs.txt").display()),
    )
    .await;
    assert_refused(&out, "mv in");
    assert!(d.outside.join("theirs.txt").exists(), "{}", out.content);
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_is_refused() {
    if !supported() {
        return;
    }
    let d = dirs();
    write(&d.outside, "target.txt", "original\n");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(
        &c,
        &d.ws,
        &format!(
            "ln '{}' hard.txt && echo changed > hard.txt",
            d.outside.join("target.txt").display()
        ),
    )
    .await;
    assert_refused(&out, "hard link");
    let err = stderr(&out);
    assert!(
        err.contains("cross-device") || err.contains("Read-only"),
        "{}",
        out.content
    );
    assert!(!d.ws.join("hard.txt").exists());
    assert_eq!(
        std::fs::read_to_string(d.outside.join("target.txt")).unwrap(),
        "original\n"
    );
}

#[tokio::test]
async fn secret_locations_are_unreadable_and_the_rest_readable() {
    if !supported() {
        return;
    }
    let d = dirs();
    write(&d.outside, "secrets/key", "s3cret\n");
    write(&d.outside, "public.txt", "hello\n");
    let options = SandboxOptions {
        secret_paths: vec![d.outside.join("secrets")],
        ..SandboxOptions::default()
    };
    let c = LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::read_only(),
            sandbox_options: options,
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    let out = sh(
        &c,
        &d.ws,
        &format!("cat '{}'", d.outside.join("public.txt").display()),
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "hello\n");
    let out = sh(
        &c,
        &d.ws,
        &format!("cat '{}'", d.outside.join("secrets/key").display()),
    )
    .await;
    assert_refused(&out, "read a secret");
    assert!(!ok(&out)["stdout"].as_str().unwrap().contains("s3cret"));
    // The directory around the secret can still be listed.
    let out = sh(&c, &d.ws, &format!("ls '{}'", d.outside.display())).await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "public.txt\nsecrets\n");
    // read_only: nothing is writable, not even the workspace.
    let out = sh(&c, &d.ws, "echo x > inside.txt").await;
    assert_refused(&out, "write under read_only");
    assert!(!d.ws.join("inside.txt").exists());
}

/// Accepts one TCP connection within `wait`, answering a minimal HTTP reply.
fn accept_one(listener: TcpListener, wait: Duration) -> std::thread::JoinHandle<bool> {
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + wait;
        while std::time::Instant::now() < deadline {
            if let Ok((mut stream, _)) = listener.accept() {
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_millis(500)))
                    .unwrap();
                let mut buf = [0u8; 512];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    })
}

/// The client: curl when installed, else bash's /dev/tcp.
fn connect_command(port: u16) -> String {
    if on_path("curl") {
        format!("curl -sS --max-time 5 http://127.0.0.1:{port}/")
    } else {
        format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo ok'")
    }
}

#[tokio::test]
async fn loopback_connections_are_refused_with_network_off_and_work_with_it_on() {
    if !supported() {
        return;
    }
    let d = dirs();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = accept_one(listener, Duration::from_secs(3));
    let off = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(&off, &d.ws, &connect_command(port)).await;
    assert_refused(&out, "tcp with network off");
    assert!(out.content.contains("network is off"), "{}", out.content);
    assert!(!accepted.join().unwrap(), "the listener saw a connection");

    // UDP and a raw-ish socket from Python, when available, are refused too.
    if needed("python3") {
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let udp_port = udp.local_addr().unwrap().port();
        let out = sh(
            &off,
            &d.ws,
            &format!(
                "python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {udp_port}))\""
            ),
        )
        .await;
        assert_refused(&out, "udp with network off");
        assert!(
            stderr(&out).contains("Operation not permitted"),
            "{}",
            out.content
        );
        let mut buf = [0u8; 8];
        assert!(udp.recv_from(&mut buf).is_err(), "a datagram arrived");
    }

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = accept_one(listener, Duration::from_secs(10));
    let on = sandboxed(SandboxPolicy::workspace_write().with_network(true));
    let out = sh(&on, &d.ws, &connect_command(port)).await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(MECHANISMS.contains(&state(&out)["sandbox"]["mechanism"].as_str().unwrap()));
    assert_eq!(state(&out)["sandbox"]["network"], true);
    assert!(accepted.join().unwrap(), "no connection arrived");
    // Writes stay confined with the network on.
    let out = sh(
        &on,
        &d.ws,
        &format!("echo x > '{}'", d.outside.join("f").display()),
    )
    .await;
    assert_refused(&out, "write outside with network on");
}

#[tokio::test]
async fn the_host_process_is_unaffected_by_a_sandboxed_run() {
    if !supported() {
        return;
    }
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(&c, &d.ws, "echo inside > f.txt").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    // The sandboxed command cannot even signal the host (Landlock ABI 6+).
    let abi = probe_kernel().unwrap().landlock_abi;
    if abi >= 6 {
        let out = sh(&c, &d.ws, &format!("kill -0 {}", std::process::id())).await;
        assert_ne!(exit_code(&out), 0, "{}", out.content);
    }
    // The host still writes anywhere and still opens connections.
    std::fs::write(d.outside.join("host.txt"), "host\n").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = accept_one(listener, Duration::from_secs(3));
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    assert!(accepted.join().unwrap());
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_owned()
    };
    assert_eq!(line("NoNewPrivs:"), "0");
    assert_eq!(line("Seccomp:"), "0");
    // A full-access computer in the same process still writes outside.
    let full = LocalComputer::new(LocalConfig::default());
    let target = d.outside.join("full.txt");
    let out = sh(&full, &d.ws, &format!("echo ok > '{}'", target.display())).await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(target.exists());
    assert_eq!(state(&out)["sandbox"]["policy"], "full_access");
    assert!(!out.content.contains("sandbox"), "{}", out.content);
}

fn no_landlock() -> Result<tool_runtime::KernelSupport, String> {
    Err("this kernel has no Landlock (simulated)".to_owned())
}

fn without_landlock(fallback: SandboxFallback) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                probe: no_landlock,
                fallback,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

#[tokio::test]
async fn a_kernel_without_landlock_gives_the_named_failure_and_runs_nothing() {
    let d = dirs();
    let c = without_landlock(SandboxFallback::Refuse);
    let out = sh(&c, &d.ws, "echo ran > marker.txt").await;
    assert_eq!(code(&out), "sandbox_unavailable");
    assert!(out.content.contains("simulated"), "{}", out.content);
    let details: &Value = out.error.as_ref().unwrap().details.as_ref().unwrap();
    assert_eq!(details["policy"], "workspace_write");
    assert!(!d.ws.join("marker.txt").exists());
}

#[tokio::test]
async fn a_host_that_allows_unconfined_runs_says_so_in_the_output() {
    let d = dirs();
    let c = without_landlock(SandboxFallback::Unconfined);
    let out = sh(&c, &d.ws, "echo ran > marker.txt").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(d.ws.join("marker.txt").exists());
    let sandbox = &state(&out)["sandbox"];
    assert_eq!(sandbox["mechanism"], "unconfined");
    assert!(
        sandbox["unconfinedReason"]
            .as_str()
            .unwrap()
            .contains("simulated")
    );
    assert!(out.content.contains("NOT enforced"), "{}", out.content);
}

#[tokio::test]
async fn a_missing_writable_root_is_skipped_and_a_relative_one_refused() {
    if !supported() {
        return;
    }
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write().with_writable_root(d.outside.join("nope")));
    let out = sh(&c, &d.ws, "echo x > f").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let c = sandboxed(SandboxPolicy::workspace_write().with_writable_root("relative/dir"));
    let out = sh(&c, &d.ws, "echo x > g").await;
    assert_eq!(code(&out), "sandbox_setup_failed");
    assert!(!d.ws.join("g").exists());
    // A host-added root is writable.
    let extra = d.outside.join("cache");
    std::fs::create_dir_all(&extra).unwrap();
    let c = sandboxed(SandboxPolicy::workspace_write().with_writable_root(&extra));
    let out = sh(
        &c,
        &d.ws,
        &format!("echo x > '{}'", extra.join("f").display()),
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(extra.join("f").exists());
}

#[test]
fn policies_round_trip_through_serde() {
    let policy = SandboxPolicy::workspace_write()
        .with_writable_root("/srv/cache")
        .with_network(true);
    let json = serde_json::to_value(&policy).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"mode": "workspace_write", "writable_roots": ["/srv/cache"], "network": true})
    );
    assert_eq!(
        serde_json::from_value::<SandboxPolicy>(json).unwrap(),
        policy
    );
    let read_only: SandboxPolicy = serde_json::from_str(r#"{"mode": "read_only"}"#).unwrap();
    assert_eq!(read_only, SandboxPolicy::read_only());
    let bad = serde_json::from_str::<SandboxPolicy>(r#"{"mode": "jail"}"#).unwrap_err();
    assert!(bad.to_string().contains("jail"), "{bad}");
    // The network by name, spelled as the allow-list itself.
    let by_name: SandboxPolicy = serde_json::from_str(
        r#"{"mode": "workspace_write", "network": {"allow": ["registry.example", "*.cdn.example"]}}"#,
    )
    .unwrap();
    assert_eq!(
        by_name,
        SandboxPolicy::workspace_write().with_egress(tool_core::approval::Egress::allow([
            "registry.example",
            "*.cdn.example"
        ]))
    );
    for (bad, field) in [
        (
            r#"{"mode": "workspace_write", "network": "registry.example"}"#,
            "/network",
        ),
        (
            r#"{"mode": "workspace_write", "network": {"allow": ["127.0.0.1"]}}"#,
            "/network/allow/0",
        ),
        (
            r#"{"mode": "workspace_write", "network": {"alow": ["a.example"]}}"#,
            "/network/alow",
        ),
    ] {
        let err = serde_json::from_str::<SandboxPolicy>(bad).unwrap_err();
        assert!(err.to_string().contains(field), "{bad}: {err}");
    }
    // Options: every field optional; the probe is never read from JSON.
    let options: SandboxOptions =
        serde_json::from_str(r#"{"fallback": "unconfined", "secret_paths": ["~/.vault"]}"#)
            .unwrap();
    assert_eq!(options.fallback, SandboxFallback::Unconfined);
    assert_eq!(options.secret_paths, vec![PathBuf::from("~/.vault")]);
    // The classes are always there; the lists only add to them.
    assert!(options.protected_names.is_empty());
    assert_eq!(options.scan_limit, tool_runtime::DEFAULT_SCAN_LIMIT);
    let bad = serde_json::from_str::<SandboxOptions>(r#"{"fallback": "maybe"}"#).unwrap_err();
    assert!(bad.to_string().contains("maybe"), "{bad}");
}

#[tokio::test]
async fn the_host_still_kills_a_sandboxed_background_command() {
    if !supported() {
        return;
    }
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    let cx = ctx(&d.ws);
    let started = c
        .run_command(
            RunCommandParams {
                run_in_background: Some(true),
                ..RunCommandParams::new("sleep 30")
            },
            &cx,
        )
        .await;
    let id = ok(&started)["shellId"].as_str().unwrap().to_owned();
    assert_eq!(ok(&started)["sandbox"]["policy"], "workspace_write");
    let killed = c
        .kill_command(tool_runtime::KillCommandParams { shell_id: id }, &cx)
        .await;
    assert_eq!(ok(&killed)["killed"], true, "{}", killed.content);
}

#[tokio::test]
async fn ownership_xattrs_and_set_id_bits_are_refused_plain_modes_inside_work() {
    if !supported() {
        return;
    }
    let d = dirs();
    write(&d.outside, "tool.sh", "echo hi\n");
    write(&d.ws, "run.sh", "echo hi\n");
    let outside = d.outside.join("tool.sh");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(&c, &d.ws, "chmod +x run.sh && ./run.sh").await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let before = std::fs::metadata(&outside).unwrap();
    for (what, command) in [
        (
            "setuid outside",
            format!("chmod u+s '{}'", outside.display()),
        ),
        ("setgid inside", "chmod g+s run.sh".to_owned()),
    ] {
        let out = sh(&c, &d.ws, &command).await;
        assert_refused(&out, what);
        assert!(
            stderr(&out).contains("Operation not permitted"),
            "{}",
            out.content
        );
    }
    // Another owner: refused (no capabilities; read-only outside the roots).
    let out = sh(&c, &d.ws, &format!("chown 1:1 '{}'", outside.display())).await;
    assert_refused(&out, "chown outside");
    // (Inside the user namespace another uid is not even mapped: EINVAL.)
    let out = sh(&c, &d.ws, "chown 1:1 run.sh").await;
    assert_ne!(exit_code(&out), 0, "chown inside: {}", out.content);
    // Extended attributes are "not supported", so copying tools fall back.
    if needed("python3") {
        let out = sh(
            &c,
            &d.ws,
            "python3 -c \"import os; os.setxattr('run.sh', 'user.note', b'x')\"",
        )
        .await;
        assert_ne!(exit_code(&out), 0, "{}", out.content);
        assert!(stderr(&out).contains("not supported"), "{}", out.content);
    }
    use std::os::unix::fs::MetadataExt as _;
    let after = std::fs::metadata(&outside).unwrap();
    assert_eq!(before.mode(), after.mode());
    assert_eq!(before.uid(), after.uid());
}

#[tokio::test]
async fn unix_sockets_to_local_daemons_are_refused_with_network_off() {
    if !supported() || !needed("python3") {
        return;
    }
    let d = dirs();
    let path = d.outside.join("daemon.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let connect = format!(
        "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
        path.display()
    );
    let off = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(&off, &d.ws, &connect).await;
    assert_refused(&out, "unix socket with network off");
    assert!(listener.accept().is_err(), "the daemon saw a connection");
    // A command's own socketpair still works.
    let out = sh(
        &off,
        &d.ws,
        "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))\"",
    )
    .await;
    assert_eq!(ok(&out)["stdout"], "b'x'\n", "{}", out.content);
    let on = sandboxed(SandboxPolicy::workspace_write().with_network(true));
    let out = sh(&on, &d.ws, &connect).await;
    assert_eq!(ok(&out)["stdout"], "connected\n", "{}", out.content);
}

#[tokio::test]
async fn mktemp_works_in_a_repository_under_the_system_temp_dir() {
    if !supported() {
        return;
    }
    // Here the temp dir's top is closed (it holds a workspace with .git);
    // the private TMPDIR keeps mktemp working.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".git/config", "[core]\n");
    write(dir.path(), "src/lib.rs", "");
    let c = sandboxed(SandboxPolicy::workspace_write());
    let out = sh(
        &c,
        dir.path(),
        "t=$(mktemp) && echo scratch > \"$t\" && cat \"$t\" && rm \"$t\" && echo \"$TMPDIR\"",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let stdout = ok(&out)["stdout"].as_str().unwrap().to_owned();
    assert!(stdout.starts_with("scratch\n"), "{stdout}");
    let tmpdir = stdout.lines().nth(1).unwrap().to_owned();
    if state(&out)["sandbox"]["privateTmp"] == true {
        // Its own /tmp: the computer's private dir mounted over it.
        assert_eq!(tmpdir, "/tmp");
        return;
    }
    assert!(tmpdir.contains("tool-sandbox-"), "{tmpdir}");
    let roots = state(&out)["sandbox"]["writableRoots"].to_string();
    assert!(roots.contains("tool-sandbox-"), "{roots}");
    // The private dir goes away with the computer.
    drop(c);
    assert!(!Path::new(&tmpdir).exists());
}

/// Whether a confined command here runs under the namespace mechanism; a
/// machine without it fails the test under `CI=true`.
async fn namespaced(c: &LocalComputer, dir: &Path) -> bool {
    if !supported() {
        return false;
    }
    let out = sh(c, dir, "true").await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if mechanism != "namespaces+landlock+seccomp" {
        test_support::cannot_check(
            "this test",
            format!("namespaces unavailable here ({mechanism})"),
        );
        return false;
    }
    true
}

#[tokio::test]
async fn no_capabilities_even_as_root_a_fresh_proc_a_minimal_dev_and_refused_calls() {
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    if !namespaced(&c, &d.ws).await {
        return;
    }
    write(&d.ws, "marker.txt", "m\n");
    let out = sh(
        &c,
        &d.ws,
        "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let status = ok(&out)["stdout"].as_str().unwrap().to_owned();
    for cap in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(
            status.contains(&format!("{cap}:\t0000000000000000")),
            "{status}"
        );
    }
    assert!(
        status.contains("NoNewPrivs:\t1") && status.contains("Seccomp:\t2"),
        "{status}"
    );
    // Only the command's own processes are visible; the waiter's
    // environment (the host's) is not readable.
    let out = sh(&c, &d.ws, "ls /proc | grep -cE '^[0-9]+$'; cat /proc/1/environ > /dev/null 2>&1 || echo environ-refused").await;
    let text = ok(&out)["stdout"].as_str().unwrap().to_owned();
    let count: usize = text.lines().next().unwrap().trim().parse().unwrap();
    assert!(count <= 5, "{text}");
    assert!(text.contains("environ-refused"), "{text}");
    // A minimal /dev: no disks.
    let out = sh(
        &c,
        &d.ws,
        "ls /dev | tr '\\n' ' '; echo x > /dev/null && head -c1 /dev/urandom | wc -c",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    let listing = ok(&out)["stdout"].as_str().unwrap().to_owned();
    for name in [
        "null", "zero", "urandom", "random", "tty", "pts", "shm", "ptmx",
    ] {
        assert!(
            listing.split_whitespace().any(|n| n == name),
            "{name} missing: {listing}"
        );
    }
    for disk in ["vda", "sda", "nvme0n1", "mem", "kmsg", "loop0"] {
        assert!(
            !listing.split_whitespace().any(|n| n == disk),
            "{disk} visible: {listing}"
        );
    }
    // mknod, chattr and mount are refused.
    for (what, command) in [
        ("mknod", "mknod dev-null-copy c 1 3"),
        ("mount", "mount -t tmpfs none src"),
    ] {
        let out = sh(&c, &d.ws, command).await;
        assert_ne!(exit_code(&out), 0, "{what}: {}", out.content);
    }
    assert!(!d.ws.join("dev-null-copy").exists());
    if needed("chattr") {
        let out = sh(&c, &d.ws, "chattr +i marker.txt").await;
        assert_ne!(exit_code(&out), 0, "chattr: {}", out.content);
    }
    #[cfg(target_arch = "x86_64")]
    if needed("python3") {
        write(&d.ws, "probe.py", SYSCALL_PROBE);
        let out = sh(&c, &d.ws, "python3 probe.py").await;
        assert_eq!(exit_code(&out), 0, "{}", out.content);
        let text = ok(&out)["stdout"].as_str().unwrap().to_owned();
        for call in [
            "name_to_handle_at",
            "open_by_handle_at",
            "reboot",
            "unshare",
            "keyctl",
        ] {
            assert!(
                text.contains(&format!("{call} 1\n")),
                "{call} not EPERM: {text}"
            );
        }
    }
}

#[tokio::test]
async fn copying_archiving_and_editing_in_place_work_confined() {
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    if !namespaced(&c, &d.ws).await {
        return;
    }
    write(&d.ws, "src/a.txt", "alpha\n");
    write(&d.ws, "src/bin/run.sh", "echo run\n");
    let out = sh(
        &c,
        &d.ws,
        "chmod 755 src/bin/run.sh && cp -a src copy && tar cf src.tar src && mkdir unpacked && tar xf src.tar -C unpacked && sed -i s/alpha/beta/ src/a.txt && cat src/a.txt copy/a.txt unpacked/src/a.txt && ./unpacked/src/bin/run.sh",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(stderr(&out), "", "{}", out.content);
    assert_eq!(
        ok(&out)["stdout"],
        "beta\nalpha\nalpha\nrun\n",
        "{}",
        out.content
    );
}

#[tokio::test]
async fn pip_editable_install_then_import_and_npm_install_of_a_local_package_work_confined() {
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    if !namespaced(&c, &d.ws).await || !needed("python3") || !needed("npm") {
        return;
    }
    write(
        &d.ws,
        "pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"demo-pkg\"\nversion = \"0.1.0\"\n",
    );
    write(&d.ws, "demo_pkg/__init__.py", "VALUE = 42\n");
    let out = sh(
        &c,
        &d.ws,
        "python3 -m venv .venv && .venv/bin/pip install -q --no-build-isolation --no-deps --no-index -e . 2>&1 | grep -v -i 'warning' ; test -d .venv",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    // The next call imports it: nothing was swept.
    let out = sh(
        &c,
        &d.ws,
        ".venv/bin/python -c 'import demo_pkg; print(demo_pkg.VALUE)'",
    )
    .await;
    assert_eq!(ok(&out)["stdout"], "42\n", "{}", out.content);
    assert_eq!(state(&out)["protectedCreated"], Value::Null);
    // npm: a local package beside the workspace (read-only to the command).
    write(
        &d.outside,
        "sibling/package.json",
        "{\"name\": \"sibling\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n",
    );
    write(&d.outside, "sibling/index.js", "module.exports = 7;\n");
    write(
        &d.ws,
        "package.json",
        "{\"name\": \"app\", \"version\": \"1.0.0\"}\n",
    );
    let out = sh(
        &c,
        &d.ws,
        "npm install --no-audit --no-fund --offline ../outside/sibling > /dev/null && node -e 'console.log(require(\"sibling\"))'",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert_eq!(ok(&out)["stdout"], "7\n", "{}", out.content);
}

#[tokio::test]
async fn cargo_builds_and_tests_offline_with_the_populated_cache() {
    let d = dirs();
    let c = sandboxed(SandboxPolicy::workspace_write());
    if !namespaced(&c, &d.ws).await || !needed("cargo") {
        return;
    }
    write(
        &d.ws,
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\n\n[workspace]\n",
    );
    write(
        &d.ws,
        "src/lib.rs",
        "pub fn show(n: u32) -> String { itoa::Buffer::new().format(n).to_owned() }\n#[test]\nfn shows() { assert_eq!(show(7), \"7\"); }\n",
    );
    // The project's own `.cargo` (read-only whole): cargo reads it, and a
    // command can add nothing to it.
    write(&d.ws, ".cargo/config.toml", "[net]\noffline = true\n");
    let out = sh(
        &c,
        &d.ws,
        // The workspace's own target dir: a host's CARGO_TARGET_DIR (often
        // outside the workspace) is not writable confined, by design.
        "CARGO_TARGET_DIR=target cargo test --offline -q --lib 2>&1 | grep 'test result'",
    )
    .await;
    assert_eq!(exit_code(&out), 0, "{}", out.content);
    assert!(
        ok(&out)["stdout"].as_str().unwrap().contains("1 passed"),
        "{}",
        out.content
    );
    assert!(d.ws.join("target").is_dir());
    let out = sh(
        &c,
        &d.ws,
        "echo '[build]' > .cargo/config || echo '[build]' >> .cargo/config.toml",
    )
    .await;
    assert_ne!(exit_code(&out), 0, "{}", out.content);
    assert!(!d.ws.join(".cargo/config").exists());
}
