//! Confined commands cannot reach daemons that would run commands outside
//! the sandbox: a real tmux server on a private socket, and a Unix-socket
//! fixture that runs nothing but records whether anyone connected. The
//! markers are harmless files in the test's own temp dirs.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::{base_outside_temp, ctx, needed, ok, on_path};
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    confinement_support,
};

fn supported() -> bool {
    let support = confinement_support(&SandboxOptions::default());
    if !support.is_available() {
        test_support::cannot_check("this test", format!("{support:?}"));
    }
    support.is_available()
}

/// A tmux server on a private socket; killed (by its own socket) on drop.
struct Tmux {
    socket: std::path::PathBuf,
}

impl Tmux {
    fn start(socket: &Path) -> Option<Self> {
        let status = Command::new("tmux")
            .arg("-S")
            .arg(socket)
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "probe",
                "sleep 120",
            ])
            .env_remove("TMUX")
            .status()
            .ok()?;
        status.success().then(|| Self {
            socket: socket.to_path_buf(),
        })
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .status();
    }
}

#[tokio::test]
async fn a_confined_command_cannot_ask_a_tmux_server_to_run_a_command() {
    if !supported() || !needed("tmux") {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = base.path().join("ws");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let socket = outside.join("tmux.sock");
    let Some(_server) = Tmux::start(&socket) else {
        test_support::cannot_check("this test", "tmux would not start here");
        return;
    };
    let marker = outside.join("ran-outside");
    // The attack, as a command string: ask the server to run a command
    // (touching a marker file) outside the sandbox.
    let command = format!(
        "tmux -S '{}' run-shell 'touch {}'",
        socket.display(),
        marker.display()
    );
    let confined =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    let out = confined
        .run_command(RunCommandParams::new(command.clone()), &ctx(&ws))
        .await;
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!marker.exists(), "the tmux server ran the command");
    // The same request from an unconfined command reaches the server: the
    // fixture is real.
    let free = LocalComputer::new(LocalConfig::default());
    let out = free
        .run_command(RunCommandParams::new(command), &ctx(&ws))
        .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    for _ in 0..40 {
        if marker.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        marker.exists(),
        "the fixture server did not run the harmless marker"
    );
}

#[tokio::test]
async fn a_confined_command_cannot_connect_to_a_daemon_socket_even_with_a_shell_client() {
    if !supported() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = base.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let path = base.path().join("daemon.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let confined =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    // Clients a command might use: python, socat, nc -U, curl --unix-socket.
    let mut clients = Vec::new();
    if needed("python3") {
        clients.push(format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); s.send(b'run: touch marker')\"",
            path.display()
        ));
    }
    if needed("curl") {
        clients.push(format!(
            "curl -sS --max-time 3 --unix-socket '{}' http://localhost/run",
            path.display()
        ));
    }
    // socat, where installed, is one client more.
    if on_path("socat") {
        clients.push(format!(
            "echo run | socat - UNIX-CONNECT:'{}'",
            path.display()
        ));
    }
    for client in &clients {
        let out = confined
            .run_command(RunCommandParams::new(client.clone()), &ctx(&ws))
            .await;
        assert_ne!(ok(&out)["exitCode"], 0, "{client}: {}", out.content);
        assert!(
            listener.accept().is_err(),
            "{client}: the daemon saw a connection"
        );
    }
    // The fixture is real: the host itself connects.
    let _client = std::os::unix::net::UnixStream::connect(&path).unwrap();
    let mut accepted = false;
    for _ in 0..20 {
        if listener.accept().is_ok() {
            accepted = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(accepted);
}
