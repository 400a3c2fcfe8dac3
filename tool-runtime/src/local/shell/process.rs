//! Process-group signals and liveness, without `unsafe`.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Sends `signal` to every process of group `pgid`; a group already gone is fine.
pub(crate) fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 1 {
        let _ = killpg(Pid::from_raw(pgid), signal);
    }
}

/// The conventional name of a signal number (`SIGKILL`), or `signal N`.
pub(crate) fn signal_name(number: i32) -> String {
    Signal::try_from(number)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {number}"))
}

/// Whether any live (non-zombie) process is still in group `pgid`.
///
/// On Linux this reads `/proc`, so zombies left by an init that does not
/// reap (common in containers) do not count as alive; elsewhere it asks the
/// kernel with signal 0.
pub(crate) fn group_alive(pgid: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        if let Ok(dir) = std::fs::read_dir("/proc") {
            return dir.flatten().any(|entry| {
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    return false;
                };
                if !name.bytes().all(|b| b.is_ascii_digit()) {
                    return false;
                }
                std::fs::read_to_string(entry.path().join("stat"))
                    .ok()
                    .and_then(|stat| parse_stat(&stat))
                    .is_some_and(|(state, pgrp)| pgrp == pgid && state != 'Z' && state != 'X')
            });
        }
    }
    killpg(Pid::from_raw(pgid), None).is_ok()
}

/// `(state, pgrp)` from a `/proc/<pid>/stat` line.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_stat(stat: &str) -> Option<(char, i32)> {
    // The command name may contain spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        assert_eq!(parse_stat("42 (a) b) S 1 42 42 0"), Some(('S', 42)));
        assert_eq!(parse_stat("7 (sh) Z 1 7 7"), Some(('Z', 7)));
    }

    #[test]
    fn signals_have_names() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
    }
}
