#![allow(dead_code)]

use std::path::Path;

use serde_json::Value;
use tool_core::{ToolContext, ToolOutput};
use tool_runtime::{LocalComputer, LocalConfig};

pub fn computer() -> LocalComputer {
    LocalComputer::new(LocalConfig::default())
}

pub fn ctx(dir: &Path) -> ToolContext {
    ToolContext::new().with_cwd(dir)
}

pub fn write(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

pub fn state(out: &ToolOutput) -> &Value {
    out.state.as_ref().expect("output has a state")
}

pub fn ok(out: &ToolOutput) -> &Value {
    assert!(out.success, "expected success, got: {}", out.content);
    state(out)
}

pub fn code(out: &ToolOutput) -> String {
    assert!(!out.success, "expected failure, got: {}", out.content);
    out.error_code().unwrap().as_str().to_owned()
}

/// A base for test directories outside the system temp dir (which the
/// sandbox keeps writable): the target's temp dir, or, when the checkout
/// itself lives under the temp dir (CI clones there), `/var/tmp` or `$HOME`.
pub fn base_outside_temp() -> std::path::PathBuf {
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

/// Calls refused syscalls by number through ctypes and prints each errno.
/// Harmless: a handle of a marker file, `reboot` with an invalid magic
/// number (the kernel checks the capability first, then the magic),
/// `unshare` of a user namespace, a keyring query.
#[cfg(target_arch = "x86_64")]
pub const SYSCALL_PROBE: &str = r#"import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *args):
    r = libc.syscall(nr, *args)
    return 0 if r >= 0 else ctypes.get_errno()
handle = ctypes.create_string_buffer(136)
ctypes.memmove(handle, (128).to_bytes(4, "little"), 4)
mount_id = ctypes.c_int()
print("name_to_handle_at", call(303, -100, b"marker.txt", handle, ctypes.byref(mount_id), 0))
print("open_by_handle_at", call(304, -100, handle, 0))
print("reboot", call(169, 0, 0, 0, 0))
print("unshare", call(272, 0x10000000))
print("keyctl", call(250, 0, 0, 0, 0, 0))
"#;

/// Whether `program` is on the `PATH` (for a choice between programs that
/// do the same job; a program a test needs goes through [`needed`]).
pub fn on_path(program: &str) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `program`, which the test needs, is on the `PATH`; when it is
/// not, the test cannot do its job here: under CI that fails it
/// ([`test_support::cannot_check`]), elsewhere it says why and the caller
/// returns or leaves the part out.
pub fn needed(program: &str) -> bool {
    let found = on_path(program);
    if !found {
        test_support::cannot_check(&format!("what needs {program}"), "it is not installed");
    }
    found
}

/// Whether the test process runs as root (uid 0).
pub fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Whether commands of `c` run under the namespace mechanism here (a
/// `true` run in `ws`); a machine where they do not fails the test under
/// `CI=true` (`test_support::cannot_check`).
pub async fn namespaced(c: &LocalComputer, ws: &Path) -> bool {
    use tool_runtime::{ComputerRuntime as _, RunCommandParams};
    let out = c.run_command(RunCommandParams::new("true"), &ctx(ws)).await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if mechanism != "namespaces+landlock+seccomp" {
        test_support::cannot_check(
            "this test",
            format!("namespaces unavailable here: {}", out.content),
        );
        return false;
    }
    true
}
