//! Content formatters: compact text for the model, made from a typed result.
//!
//! They are public so a host can materialise a "pseudo call" (for example a
//! file the user attached, read by the host itself) whose content and state
//! are exactly what a real `readFile` call would have produced:
//! `format::output(&Response::ReadFile(result))`.

use std::fmt::Write as _;

use tool_core::ToolOutput;

use crate::request::GrepOutputMode;
use crate::response::{
    CommandOutput, EditFileResult, FileEntry, GlobFilesResult, GrepContentResult,
    KillCommandResult, ListFilesResult, MoveFilesResult, ReadFileResult, ReadFilesResult,
    RenameFileResult, Response, SearchFilesResult, WriteFileResult,
};

/// Characters of a diff shown to the model before it is cut.
const MAX_DIFF_CHARS: usize = 8_000;

/// The successful output of a response: its result as state, its text as content.
pub fn output(response: &Response) -> ToolOutput {
    let content = match response {
        Response::ListFiles(r) => list_files(r),
        Response::ReadFile(r) => read_file(r),
        Response::ReadFiles(r) => read_files(r),
        Response::WriteFile(r) => write_file(r),
        Response::EditFile(r) => edit_file(r),
        Response::MoveFiles(r) => move_files(r),
        Response::RenameFile(r) => rename_file(r),
        Response::SearchFiles(r) => search_files(r),
        Response::GlobFiles(r) => glob_files(r),
        Response::GrepContent(r) => grep_content(r),
        Response::RunCommand(r) | Response::GetCommandOutput(r) => command_output(r),
        Response::KillCommand(r) => kill_command(r),
    };
    let state = match serde_json::to_value(response) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("result").unwrap_or(serde_json::Value::Null)
        }
        _ => serde_json::Value::Null,
    };
    ToolOutput::with_state(content, state)
}

fn more(out: &mut String, omitted: usize) {
    if omitted > 0 {
        let _ = writeln!(out, "… and {omitted} more");
    }
}

/// Says how many secret entries a confined call left out.
fn secrets(out: &mut String, skipped: usize) {
    if skipped > 0 {
        let _ = writeln!(
            out,
            "({skipped} secret entr{} skipped: this call runs confined and may not read them)",
            if skipped == 1 { "y" } else { "ies" }
        );
    }
}

fn entry_line(out: &mut String, entry: &FileEntry) {
    if entry.is_directory {
        let _ = writeln!(out, "{}/", entry.path);
    } else {
        let _ = writeln!(out, "{}  ({})", entry.path, human_size(entry.size));
    }
}

/// `1.5 KiB`-style sizes.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Content of `listFiles`.
pub fn list_files(r: &ListFilesResult) -> String {
    let mut out = format!("{} ({} entries)\n", r.path, r.total);
    for entry in &r.entries {
        entry_line(&mut out, entry);
    }
    more(&mut out, r.total.saturating_sub(r.entries.len()));
    if r.total == 0 {
        out.push_str("(empty directory)\n");
    }
    secrets(&mut out, r.secrets_skipped);
    out
}

/// Content of `readFile`.
pub fn read_file(r: &ReadFileResult) -> String {
    let mut out = String::with_capacity(r.content.len() + 200);
    let _ = writeln!(
        out,
        "{} — lines {}–{} of {} (0-based, end exclusive), {} characters in file",
        r.path, r.start_line, r.end_line, r.total_lines, r.total_characters
    );
    out.push_str(&r.content);
    if !r.content.is_empty() && !r.content.ends_with('\n') {
        out.push('\n');
    }
    if r.truncated {
        let _ = writeln!(
            out,
            "[… output capped here; continue with startLine: {}, or narrow down with grepContent]",
            r.end_line
        );
    } else if r.end_line < r.total_lines {
        let _ = writeln!(
            out,
            "[{} more lines; read on with startLine: {}]",
            r.total_lines - r.end_line,
            r.end_line
        );
    }
    if r.long_lines_cut > 0 {
        let _ = writeln!(out, "[{} over-long lines were cut]", r.long_lines_cut);
    }
    out
}

/// Content of `readFiles`.
pub fn read_files(r: &ReadFilesResult) -> String {
    let mut out = String::new();
    for item in &r.files {
        match (&item.file, &item.error) {
            (Some(file), _) => {
                let _ = writeln!(out, "=== {} ===", file.path);
                out.push_str(&read_file(file));
            }
            (None, Some(error)) => {
                let _ = writeln!(
                    out,
                    "=== {} (failed: {}) ===\n{}",
                    item.path, error.code, error.message
                );
            }
            (None, None) => {
                let _ = writeln!(out, "=== {} (no result) ===", item.path);
            }
        }
    }
    out
}

/// Content of `writeFile`.
pub fn write_file(r: &WriteFileResult) -> String {
    format!(
        "{} {} ({} bytes written)",
        if r.created { "Created" } else { "Overwrote" },
        r.path,
        r.bytes_written
    )
}

/// Content of `editFile`.
pub fn edit_file(r: &EditFileResult) -> String {
    let mut out = format!(
        "Edited {}: {} replacement{}, +{} −{} lines\n",
        r.path,
        r.replacements,
        if r.replacements == 1 { "" } else { "s" },
        r.lines_added,
        r.lines_removed
    );
    if r.diff.chars().count() > MAX_DIFF_CHARS {
        let cut: String = r.diff.chars().take(MAX_DIFF_CHARS).collect();
        out.push_str(&cut);
        out.push_str("\n[… diff cut; read the file to see the rest]\n");
    } else {
        out.push_str(&r.diff);
    }
    out
}

/// Content of `moveFiles`.
pub fn move_files(r: &MoveFilesResult) -> String {
    let mut out = format!("Moved {} of {}\n", r.moved, r.results.len());
    for item in &r.results {
        match &item.error {
            None => {
                let _ = writeln!(out, "✓ {} → {}", item.old_path, item.new_path);
            }
            Some(e) => {
                let _ = writeln!(
                    out,
                    "✗ {} → {}: {}",
                    item.old_path, item.new_path, e.message
                );
            }
        }
    }
    out
}

/// Content of `renameFile`.
pub fn rename_file(r: &RenameFileResult) -> String {
    format!("Renamed {} → {}", r.old_path, r.new_path)
}

/// Content of `searchFiles`.
pub fn search_files(r: &SearchFilesResult) -> String {
    let mut out = format!(
        "{} match{} for \"{}\" in {}\n",
        r.total,
        if r.total == 1 { "" } else { "es" },
        r.keyword,
        r.directory
    );
    for entry in &r.results {
        entry_line(&mut out, entry);
    }
    more(&mut out, r.total.saturating_sub(r.results.len()));
    secrets(&mut out, r.secrets_skipped);
    out
}

/// Content of `globFiles`.
pub fn glob_files(r: &GlobFilesResult) -> String {
    let mut out = format!(
        "{} file{} match {} in {}\n",
        r.total,
        if r.total == 1 { "" } else { "s" },
        r.pattern,
        r.directory
    );
    for file in &r.files {
        out.push_str(file);
        out.push('\n');
    }
    more(&mut out, r.total.saturating_sub(r.files.len()));
    secrets(&mut out, r.secrets_skipped);
    out
}

/// Content of `grepContent`.
pub fn grep_content(r: &GrepContentResult) -> String {
    let mut out = format!(
        "{} matching line{} in {} file{} for /{}/ in {}\n",
        r.total_matches,
        if r.total_matches == 1 { "" } else { "s" },
        r.total_files,
        if r.total_files == 1 { "" } else { "s" },
        r.pattern,
        r.path
    );
    match r.output_mode {
        GrepOutputMode::Content => {
            for line in &r.lines {
                let sep = if line.context { '-' } else { ':' };
                if r.line_numbers {
                    let _ = writeln!(
                        out,
                        "{}{sep}{}{sep}{}",
                        line.path, line.line_number, line.text
                    );
                } else {
                    let _ = writeln!(out, "{}{sep}{}", line.path, line.text);
                }
            }
        }
        GrepOutputMode::FilesWithMatches => {
            for file in &r.files {
                out.push_str(file);
                out.push('\n');
            }
        }
        GrepOutputMode::Count => {
            for count in &r.counts {
                let _ = writeln!(out, "{}:{}", count.path, count.count);
            }
        }
    }
    more(&mut out, r.omitted);
    secrets(&mut out, r.secrets_skipped);
    out
}

/// Content of `runCommand` and `getCommandOutput`.
pub fn command_output(r: &CommandOutput) -> String {
    let mut out = String::new();
    let secs = r.elapsed_ms as f64 / 1000.0;
    if r.running {
        let _ = writeln!(
            out,
            "`{}` is still running in the background as {} ({secs:.1} s so far). Read new output with getCommandOutput {{\"shellId\": \"{}\"}} or stop it with killCommand.",
            r.command, r.shell_id, r.shell_id
        );
    } else if let Some(name) = &r.signal_name {
        let _ = writeln!(
            out,
            "`{}` ({}) was killed by {name} after {secs:.1} s.",
            r.command, r.shell_id
        );
    } else if let Some(code) = r.exit_code {
        let _ = writeln!(
            out,
            "`{}` ({}) exited with code {code} after {secs:.1} s.",
            r.command, r.shell_id
        );
    } else {
        let _ = writeln!(
            out,
            "`{}` ({}) finished after {secs:.1} s.",
            r.command, r.shell_id
        );
    }
    if let Some(filter) = &r.filter {
        let _ = writeln!(out, "(only lines matching /{filter}/)");
    }
    if let Some(line) = r.sandbox.as_ref().and_then(|s| s.summary()) {
        let _ = writeln!(out, "{line}");
    }
    if !r.protected_created.is_empty() {
        let moves: Vec<String> = r
            .protected_created
            .iter()
            .map(|p| match &p.moved_to {
                Some(to) => format!("{} -> {}", p.path.display(), to.display()),
                None => format!(
                    "{} (NOT moved: {})",
                    p.path.display(),
                    p.error.as_deref().unwrap_or("unknown error")
                ),
            })
            .collect();
        let _ = writeln!(
            out,
            "(sandbox: the command created protected entries, moved to quarantine: {}; only the host can allow them)",
            moves.join(", ")
        );
    }
    if !r.network_blocked.is_empty() {
        let refused: Vec<String> = r
            .network_blocked
            .iter()
            .map(|b| {
                let times = if b.count > 1 {
                    format!(", {} times", b.count)
                } else {
                    String::new()
                };
                format!("{}:{} ({}{times})", b.host, b.port, b.reason)
            })
            .collect();
        let _ = writeln!(
            out,
            "(sandbox: the egress proxy refused {}; only the host can allow more names)",
            refused.join(", ")
        );
    }
    if r.dropped_bytes > 0 {
        let _ = writeln!(
            out,
            "({} bytes of new output, {} not kept; the middle is elided)",
            r.new_bytes, r.dropped_bytes
        );
    }
    if !r.stdout.is_empty() {
        let _ = writeln!(out, "stdout:\n{}", r.stdout.trim_end_matches('\n'));
    }
    if !r.stderr.is_empty() {
        let _ = writeln!(out, "stderr:\n{}", r.stderr.trim_end_matches('\n'));
    }
    if r.stdout.is_empty() && r.stderr.is_empty() {
        out.push_str("(no new output)\n");
    }
    if let Some(limit) = r
        .sandbox
        .as_ref()
        .and_then(|s| s.limit_hit(r.exit_code, r.signal, &r.stderr))
    {
        let _ = writeln!(
            out,
            "(sandbox: the command hit its {limit}; only the host can raise it)"
        );
    }
    if let Some(hint) = r.sandbox.as_ref().and_then(|s| {
        s.refusal_hint(&r.stderr)
            .or_else(|| s.refusal_hint(&r.stdout))
    }) {
        let _ = writeln!(out, "{hint}");
    }
    out
}

/// Content of `killCommand`.
pub fn kill_command(r: &KillCommandResult) -> String {
    if !r.was_running {
        return match r.exit_code {
            Some(code) => format!(
                "{} (`{}`) had already finished with exit code {code}.",
                r.shell_id, r.command
            ),
            None => format!("{} (`{}`) had already finished.", r.shell_id, r.command),
        };
    }
    let signal = r.signal.as_deref().unwrap_or("a signal");
    if r.killed {
        format!(
            "Killed {} (`{}`) and its whole process group with {signal}.",
            r.shell_id, r.command
        )
    } else {
        format!(
            "Sent {signal} to {} (`{}`), but its process group has not exited yet; check again with getCommandOutput.",
            r.shell_id, r.command
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_human_readable() {
        assert_eq!(human_size(12), "12 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(20 * 1024 * 1024), "20.0 MiB");
    }

    #[test]
    fn read_file_tells_how_to_continue() {
        let r = ReadFileResult {
            path: "a.txt".into(),
            content: "x\n".into(),
            start_line: 0,
            end_line: 1,
            total_lines: 5,
            total_characters: 10,
            total_bytes: 10,
            truncated: false,
            long_lines_cut: 0,
            encoding: "utf-8".into(),
            content_hash: String::new(),
        };
        assert!(read_file(&r).contains("startLine: 1"));
    }
}
