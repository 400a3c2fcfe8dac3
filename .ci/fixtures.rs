//! Test fixtures from outside cargo, set up by the tests themselves.
//!
//! Each `.ci/setup.d/*.sh` script installs what one capability's tests need
//! (a Debian package when missing, npm or PyPI packages pinned by files in
//! the repository) and is idempotent: it does nothing, and no network work,
//! when its lock file has not changed since its last successful install.
//! A test calls [`ensure`] with the script's name before it touches the
//! fixture; the first call in a process runs the script under a file lock
//! (several test binaries may start at once), later calls reuse the result.
//!
//! Included by the test helpers of several crates with
//! `#[path = "…/.ci/fixtures.rs"] mod fixtures;`, so there is one copy.
#![allow(dead_code, clippy::panic)]

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The repository root: the nearest ancestor of the including crate that
/// holds `.ci/setup.d`.
pub fn repo_root() -> PathBuf {
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    start
        .ancestors()
        .find(|dir| dir.join(".ci/setup.d").is_dir())
        .map_or_else(|| start.to_path_buf(), Path::to_path_buf)
}

/// Runs `.ci/setup.d/<script>` once per process, under a lock shared by
/// every process of the repository, and panics with one message naming
/// what failed and how to run it by hand when it cannot set the fixture up.
pub fn ensure(script: &str) {
    static DONE: OnceLock<Mutex<HashMap<String, Result<(), String>>>> = OnceLock::new();
    let done = DONE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut done = done
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let result = done
        .entry(script.to_owned())
        .or_insert_with(|| run(script))
        .clone();
    drop(done);
    if let Err(message) = result {
        panic!("{message}");
    }
}

fn run(script: &str) -> Result<(), String> {
    let root = repo_root();
    let path = root.join(".ci/setup.d").join(script);
    let by_hand = format!("run `bash .ci/setup.d/{script}` in the repository to see the details");
    if !path.is_file() {
        return Err(format!(
            "test fixture setup: {} does not exist",
            path.display()
        ));
    }
    let lock_path = root.join(".ci/.setup.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| {
            format!(
                "test fixture setup: cannot open {}: {e}",
                lock_path.display()
            )
        })?;
    lock.lock().map_err(|e| {
        format!(
            "test fixture setup: cannot lock {}: {e}",
            lock_path.display()
        )
    })?;
    let output = Command::new("bash").arg(&path).current_dir(&root).output();
    let _ = lock.unlock();
    match output {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "test fixture setup `{script}` failed ({}): {}\n{by_hand}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!(
            "test fixture setup `{script}` could not start bash: {e}\n{by_hand}"
        )),
    }
}
