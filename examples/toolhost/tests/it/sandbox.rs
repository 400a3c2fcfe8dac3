//! `toolhost --sandbox` / `--allow-network` / `--allow-domain` end to end: the defaults by
//! approval mode and a write outside the workspace refused by the kernel.
//! Commands are harmless writes into directories the test creates under
//! cargo's target temp dir.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

fn call(cwd: &Path, extra: &[&str], command: &str) -> Value {
    let args = json!({ "command": command }).to_string();
    let mut all = vec!["--cwd", cwd.to_str().unwrap()];
    all.extend_from_slice(extra);
    all.extend_from_slice(&["call", "local-system____runCommand", &args, "--approve"]);
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(&all)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A base for test directories outside the system temp dir (which the
/// sandbox keeps writable): the target's temp dir, or, when the checkout
/// itself lives under the temp dir (CI clones there), `/var/tmp` or `$HOME`.
fn base_outside_temp() -> std::path::PathBuf {
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let temp = real(&std::env::temp_dir());
    let target = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let candidates = [
        Some(target),
        Some(std::path::PathBuf::from("/var/tmp")),
        std::env::var_os("HOME").map(std::path::PathBuf::from),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.is_dir() && !real(dir).starts_with(&temp))
        .expect("a writable directory outside the system temp dir")
}

#[test]
fn unattended_modes_confine_commands_and_manual_mode_does_not() {
    if let Err(reason) = tool_runtime::probe_kernel() {
        return test_support::cannot_check("confinement", reason);
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = base.path().join("ws");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let target = outside.join("f.txt");
    let write_outside = format!("echo x > '{}'", target.display());

    for mode in ["auto-run", "headless"] {
        let result = call(&ws, &["--mode", mode], &write_outside);
        let output = &result["output"];
        assert_eq!(
            output["state"]["sandbox"]["policy"], "workspace_write",
            "{result}"
        );
        assert_eq!(output["state"]["sandbox"]["network"], false);
        assert_ne!(output["state"]["exitCode"], 0, "{result}");
        assert!(
            output["content"].as_str().unwrap().contains("Hint:"),
            "{result}"
        );
        assert!(!target.exists(), "{mode} wrote outside");
    }

    let result = call(&ws, &["--mode", "auto-run", "--allow-network"], "true");
    assert_eq!(
        result["output"]["state"]["sandbox"]["network"], true,
        "{result}"
    );

    let result = call(
        &ws,
        &["--mode", "headless", "--sandbox", "read-only"],
        "echo x > inside.txt",
    );
    assert_eq!(
        result["output"]["state"]["sandbox"]["policy"], "read_only",
        "{result}"
    );
    assert!(!ws.join("inside.txt").exists());

    let result = call(&ws, &["--mode", "manual"], &write_outside);
    assert_eq!(
        result["output"]["state"]["sandbox"]["policy"], "full_access",
        "{result}"
    );
    assert!(target.exists(), "{result}");
    std::fs::remove_file(&target).unwrap();

    let result = call(
        &ws,
        &["--mode", "auto-run", "--sandbox", "full-access"],
        &write_outside,
    );
    assert_eq!(result["output"]["state"]["exitCode"], 0, "{result}");
    assert!(target.exists());
}

#[test]
fn allow_domain_opens_the_network_by_name_only_and_reports_refusals() {
    if let Err(reason) = tool_runtime::probe_kernel() {
        return test_support::cannot_check("confinement", reason);
    }
    let has_curl = Command::new("sh")
        .args(["-c", "command -v curl"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_curl {
        return test_support::cannot_check("egress by name", "no curl on PATH");
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    // Nothing leaves this machine: the allowed name is not asked for, the
    // others are refused by name before any lookup.
    let result = call(
        base.path(),
        &[
            "--mode",
            "auto-run",
            "--allow-domain",
            "registry.example",
            "--allow-domain",
            "*.cdn.example",
            "--allow-network",
        ],
        "curl -sS --max-time 5 http://other.example/; curl -sS --max-time 5 http://127.0.0.1:9/",
    );
    let state = &result["output"]["state"];
    assert_eq!(state["sandbox"]["network"], false, "{result}");
    assert_eq!(
        state["sandbox"]["egress"]["allow"],
        json!(["registry.example", "*.cdn.example"]),
        "{result}"
    );
    let blocked = state["networkBlocked"].to_string();
    assert!(blocked.contains("other.example"), "{result}");
    assert!(blocked.contains("not on the allow-list"), "{result}");
    assert!(blocked.contains("127.0.0.1"), "{result}");
    assert!(
        result["output"]["content"]
            .as_str()
            .unwrap()
            .contains("egress proxy refused other.example"),
        "{result}"
    );
}
