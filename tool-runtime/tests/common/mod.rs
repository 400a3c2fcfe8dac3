#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

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
