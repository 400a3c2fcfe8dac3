//! A process tree started by a test, seen from outside: whether its
//! processes are alive, read from `/proc` (Linux).
//!
//! The test's command writes its pids (`echo $$ $child > pids.tmp && mv
//! pids.tmp pids`) into a temp dir; the test reads them and later checks
//! they are gone. Included by the cancellation tests of several crates with
//! `#[path = "…/.ci/process_tree.rs"] mod process_tree;`, so there is one copy.
#![allow(dead_code, clippy::panic)]

use std::path::Path;
use std::time::Duration;

/// Whether a process is alive (a zombie counts as gone).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// The two pids the command wrote to `dir/pids`, waiting up to 10 s.
pub async fn read_pids(dir: &Path) -> Vec<i32> {
    for _ in 0..400 {
        if let Ok(text) = std::fs::read_to_string(dir.join("pids")) {
            let pids: Vec<i32> = text
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
            if pids.len() == 2 {
                return pids;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the command did not write its pids");
}

/// Whether every one of `pids` is gone within 10 s.
pub async fn gone(pids: &[i32]) -> bool {
    for _ in 0..400 {
        if pids.iter().all(|p| !alive(*p)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}
