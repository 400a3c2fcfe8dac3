//! What a call changes around its command: the directory each part runs in
//! (a `cwd` argument, `cd X` before it) and the environment variables it sets.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::call::arguments::{ENV_NAMES, WORKDIR_NAMES};
use crate::path_view::resolve_path;
use crate::shell::wrappers::views;
use crate::shell::{ShellCommand, basename};

/// The directory a part runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Dir {
    /// Known (resolved) or, without any working directory, not known to be anywhere.
    Known(Option<PathBuf>),
    /// Changed to somewhere that cannot be known (`cd $X`, `cd -`).
    Unknown,
}

/// The directory the call's commands start in: its working-directory
/// argument resolved against the host's, else the host's.
pub(super) fn start_dir(args: &Value, cwd: Option<&Path>, home: Option<&Path>) -> Dir {
    let Some(map) = args.as_object() else {
        return Dir::Known(cwd.map(Path::to_path_buf));
    };
    for name in WORKDIR_NAMES {
        match map.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::String(raw)) if raw.is_empty() => {}
            Some(Value::String(raw)) => {
                return change_dir(&Dir::Known(cwd.map(Path::to_path_buf)), Some(raw), home);
            }
            Some(_) => return Dir::Unknown,
        }
    }
    Dir::Known(cwd.map(Path::to_path_buf))
}

/// Where `cd target` leads from `from`.
fn change_dir(from: &Dir, target: Option<&str>, home: Option<&Path>) -> Dir {
    let target = match target {
        None | Some("~") | Some("~/") => {
            return home.map_or(Dir::Unknown, |h| Dir::Known(Some(h.to_path_buf())));
        }
        Some(t) => t,
    };
    if target == "-" || target.contains(['$', '`', '*', '?', '[']) {
        return Dir::Unknown;
    }
    let base = match from {
        Dir::Known(Some(b)) => b.clone(),
        _ if target.starts_with('/') || target.starts_with('~') => PathBuf::from("/"),
        Dir::Known(None) => return Dir::Known(None),
        Dir::Unknown => return Dir::Unknown,
    };
    resolve_path(target, &base, home).map_or(Dir::Unknown, |p| Dir::Known(Some(p)))
}

/// The directory each part of `shell` runs in, in order, following `cd`
/// and `pushd` (through wrappers).
pub(super) fn part_dirs(shell: &ShellCommand, start: &Dir, home: Option<&Path>) -> Vec<Dir> {
    let mut current = start.clone();
    let mut out = Vec::with_capacity(shell.parts().len());
    for part in shell.parts() {
        out.push(current.clone());
        for view in views(part) {
            let Some(first) = view.first() else { continue };
            if matches!(basename(first), "cd" | "pushd" | "chdir") {
                let target = view
                    .iter()
                    .skip(1)
                    .find(|w| !(w.starts_with('-') && w.len() > 1));
                current = change_dir(&current, target.map(String::as_str), home);
            }
        }
    }
    out
}

/// Environment variables that change which code a command runs.
pub(super) fn is_dangerous_env(name: &str) -> bool {
    let name = name.trim();
    matches!(
        name,
        "PATH"
            | "BASH_ENV"
            | "ENV"
            | "PROMPT_COMMAND"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PS4"
            | "IFS"
            | "CDPATH"
            | "GLOBIGNORE"
            | "PYTHONPATH"
            | "PYTHONSTARTUP"
            | "PYTHONHOME"
            | "PERL5LIB"
            | "PERL5OPT"
            | "PERLLIB"
            | "NODE_OPTIONS"
            | "NODE_PATH"
            | "RUBYOPT"
            | "RUBYLIB"
            | "JAVA_TOOL_OPTIONS"
            | "_JAVA_OPTIONS"
            | "GIT_DIR"
            | "GIT_EXEC_PATH"
            | "GIT_ASKPASS"
            | "GIT_EDITOR"
            | "GIT_PAGER"
            | "GIT_PROXY_COMMAND"
            | "GIT_EXTERNAL_DIFF"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "SSH_ASKPASS"
            | "HOME"
            | "ZDOTDIR"
            | "XDG_CONFIG_HOME"
    ) || ["LD_", "DYLD_", "GIT_CONFIG", "GIT_SSH", "BASH_FUNC_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The names of the environment variables a call sets: its environment
/// arguments, `VAR=value` before a command, and `env VAR=value`.
pub(super) fn env_names(args: &Value, shells: &[&ShellCommand]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(map) = args.as_object() {
        for name in ENV_NAMES {
            match map.get(*name) {
                Some(Value::Object(vars)) => out.extend(vars.keys().cloned()),
                Some(Value::Array(items)) => out.extend(
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|s| s.split('=').next().unwrap_or(s).to_owned()),
                ),
                _ => {}
            }
        }
    }
    for shell in shells {
        for part in shell.parts() {
            for a in &part.assignments {
                out.push(a.split(['=', '+']).next().unwrap_or(a).to_owned());
            }
            for view in views(part) {
                if view.first().map(String::as_str) == Some("env") {
                    out.extend(
                        view.iter()
                            .skip(1)
                            .filter_map(|w| w.split_once('=').map(|(k, _)| k.to_owned())),
                    );
                }
                if matches!(
                    view.first().map(String::as_str),
                    Some("export" | "declare" | "typeset" | "local" | "readonly")
                ) {
                    out.extend(
                        view.iter()
                            .skip(1)
                            .filter_map(|w| w.split_once('=').map(|(k, _)| k.to_owned())),
                    );
                }
            }
        }
    }
    out
}

/// Whether the arguments may set environment variables (an `env`-named
/// object or array at the top level): a cheap superset of what
/// [`env_names`] reads from the arguments.
pub(super) fn may_set_env(args: &Value) -> bool {
    args.as_object().is_some_and(|map| {
        map.iter()
            .any(|(k, v)| ENV_NAMES.contains(&k.as_str()) && (v.is_object() || v.is_array()))
    })
}
