//! What a call changes around its command: the directory each part runs in
//! (a `cwd` argument, `cd X` before it) and the environment variables it sets.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::call::arguments::{ENV_NAMES, WORKDIR_NAMES};
use crate::path_view::resolve_path;
use crate::shell::table::Invocation;
use crate::shell::wrappers::views;
use crate::shell::{MAX_DIR_CHANGES, ShellCommand, basename, is_dir_change};

/// The directory a part runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Dir {
    /// Known (resolved) or, without any working directory, not known to be anywhere.
    Known(Option<PathBuf>),
    /// Changed to somewhere that cannot be known (`cd $X`, `cd -`).
    Unknown,
}

/// The value of `map`'s key `name`. An arguments object has a few keys:
/// comparing them costs less than hashing `name` for a lookup; a large
/// one (keys come from the call) is looked up.
fn field<'v>(map: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    if map.len() > 8 {
        return map.get(name);
    }
    map.iter().find(|(k, _)| k.as_str() == name).map(|(_, v)| v)
}

/// The directory the call's commands start in: its working-directory
/// argument resolved against the host's, else the host's.
pub(super) fn start_dir(args: &Value, cwd: Option<&Path>, home: Option<&Path>) -> Dir {
    let Some(map) = args.as_object() else {
        return Dir::Known(cwd.map(Path::to_path_buf));
    };
    for name in WORKDIR_NAMES {
        match field(map, name) {
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
        // `cd ..` from a workspace nobody named: somewhere above it, where
        // a relative name may be the workspace itself.
        Dir::Known(None) if target == ".." || target.starts_with("../") => return Dir::Unknown,
        Dir::Known(None) => return Dir::Known(None),
        Dir::Unknown => return Dir::Unknown,
    };
    resolve_path(target, &base, home).map_or(Dir::Unknown, |p| Dir::Known(Some(p)))
}

/// The directory each part of `shell` runs in, in order, following `cd`
/// and `pushd` (through wrappers). Past [`MAX_DIR_CHANGES`] changes (the
/// line then names `limits/dir-chain`) the directory is unknown: each
/// change is resolved against the one before (and may read the file
/// system), so following them all costs the square of the chain.
pub(super) fn part_dirs(shell: &ShellCommand, start: &Dir, home: Option<&Path>) -> Vec<Dir> {
    let mut current = start.clone();
    let mut out = Vec::with_capacity(shell.parts().len());
    let mut changes = 0usize;
    for part in shell.parts() {
        out.push(current.clone());
        for view in views(part) {
            if is_dir_change(view) {
                changes += 1;
                if changes > MAX_DIR_CHANGES {
                    current = Dir::Unknown;
                    continue;
                }
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

/// Environment variables that change which code a command runs, set to
/// `value` (`None`: not known): the rows of [`super::env_rows::ENV_ROWS`].
pub(super) fn is_dangerous_env(name: &str, value: Option<&str>) -> bool {
    super::env_rows::dangerous_env(name, value).is_some()
}

/// One variable a call sets: its name and, when the line says it, its value.
pub(super) type EnvSet = (String, Option<String>);

fn split_assignment(text: &str) -> Option<EnvSet> {
    let (name, value) = text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    // `a[$(cmd)]=x` and other subscripts set an array element.
    let name = name.split('[').next().unwrap_or(name);
    is_identifier(name).then(|| (name.to_owned(), Some(value.to_owned())))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The names `read` sets (`read -r A B`, `read -a ARR`): its operands and
/// the value of `-a`, after options that take a value (`-p PROMPT`).
fn read_names(view: &[String]) -> Vec<EnvSet> {
    let mut out = Vec::new();
    let mut words = view.iter().skip(1);
    while let Some(word) = words.next() {
        if word == "--" {
            out.extend(words.by_ref().map(|w| (w.clone(), None)));
            break;
        }
        if let Some(flags) = word.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (i, c) in flags.char_indices() {
                if "adinNptu".contains(c) {
                    let rest = &flags[i + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        words.next().cloned()
                    } else {
                        Some(rest.to_owned())
                    };
                    if c == 'a'
                        && let Some(name) = value
                    {
                        out.push((name, None));
                    }
                    break;
                }
            }
            continue;
        }
        out.push((word.clone(), None));
    }
    out
}

/// The name `printf -v NAME` sets, with the value unknown.
fn printf_name(view: &[String]) -> Option<EnvSet> {
    let mut words = view.iter().skip(1);
    while let Some(word) = words.next() {
        if word == "-v" {
            return words.next().map(|n| (n.clone(), None));
        }
        if let Some(name) = word.strip_prefix("-v") {
            return Some((name.to_owned(), None));
        }
        if !word.starts_with('-') {
            return None;
        }
    }
    None
}

/// The names of the environment variables a call sets, with their values
/// where the line gives them: its environment arguments, assignments (before
/// a command, alone, in a `for` loop), `env`/`sudo`/`doas` and `make`
/// operands `VAR=value`, `export`/`declare`/`typeset`/`local`/`readonly`,
/// `read` and `printf -v`.
pub(super) fn env_names<'s>(
    args: &Value,
    shells: impl Iterator<Item = &'s ShellCommand>,
) -> Vec<EnvSet> {
    let mut out = Vec::new();
    if let Some(map) = args.as_object() {
        for name in ENV_NAMES {
            match field(map, name) {
                Some(Value::Object(vars)) => out.extend(
                    vars.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().map(str::to_owned))),
                ),
                Some(Value::Array(items)) => {
                    out.extend(items.iter().filter_map(Value::as_str).map(|s| {
                        match s.split_once('=') {
                            Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                            None => (s.to_owned(), None),
                        }
                    }))
                }
                _ => {}
            }
        }
    }
    for shell in shells {
        for part in shell.parts() {
            for a in &part.assignments {
                match split_assignment(a) {
                    Some(set) => out.push(set),
                    None => out.push((a.split(['=', '+']).next().unwrap_or(a).to_owned(), None)),
                }
            }
            for view in views(part) {
                let Some(first) = view.first().map(|w| basename(w)) else {
                    continue;
                };
                match first {
                    "env" | "sudo" | "doas" | "run0" | "make" | "gmake" | "export" | "declare"
                    | "typeset" | "local" | "readonly" => {
                        out.extend(view.iter().skip(1).filter_map(|w| split_assignment(w)));
                    }
                    "read" => out.extend(read_names(view)),
                    "printf" => out.extend(printf_name(view)),
                    _ => out.extend(setter_names(first, view)),
                }
                if matches!(first, "declare" | "typeset" | "local")
                    && view.iter().skip(1).any(|w| is_flag_with(w, 'n'))
                {
                    // `declare -n r=GIT_PAGER`: later `r=…` sets GIT_PAGER.
                    out.extend(
                        view.iter()
                            .skip(1)
                            .filter_map(|w| w.split_once('='))
                            .map(|(_, target)| (target.to_owned(), None)),
                    );
                }
            }
        }
    }
    out
}

/// How a program of [`ENV_SETTERS`] is given the variables it sets.
#[derive(Debug, Clone, Copy)]
enum SetterForm {
    /// Operands `NAME=VALUE` (`systemctl set-environment`).
    Assignments,
    /// The first operand is the name, the next the value (`tmux
    /// set-environment NAME VALUE`, `launchctl setenv`).
    NameThenValue,
    /// The last operand names a variable whose value is read at run time
    /// (`mapfile NAME`).
    LastName,
    /// Options that stand for a variable (`git --git-dir=DIR` is
    /// `GIT_DIR=DIR`), read through the program table: long name, variable.
    Options(&'static [(&'static str, &'static str)]),
}

/// Commands that set environment variables for programs started later
/// (a session, a service manager) or fill a variable from input: programs,
/// the subcommands that do it (empty: the program itself), and how.
const ENV_SETTERS: &[(&[&str], &[&str], SetterForm)] = &[
    (
        &["tmux"],
        &["set-environment", "setenv"],
        SetterForm::NameThenValue,
    ),
    (
        &["systemctl"],
        &["set-environment", "import-environment"],
        SetterForm::Assignments,
    ),
    (&["launchctl"], &["setenv"], SetterForm::NameThenValue),
    (
        &["dbus-update-activation-environment"],
        &[],
        SetterForm::Assignments,
    ),
    (&["mapfile", "readarray"], &[], SetterForm::LastName),
    (
        &["git"],
        &[],
        SetterForm::Options(&[("git-dir", "GIT_DIR"), ("exec-path", "GIT_EXEC_PATH")]),
    ),
];

/// The variables a command of [`ENV_SETTERS`] sets.
fn setter_names(program: &str, view: &[String]) -> Vec<EnvSet> {
    let Some((_, subcommands, form)) = ENV_SETTERS.iter().find(|(p, _, _)| p.contains(&program))
    else {
        return Vec::new();
    };
    if let SetterForm::Options(options) = form {
        return option_names(view, options);
    }
    let operands: Vec<&String> = view
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let operands = if subcommands.is_empty() {
        operands.as_slice()
    } else {
        match operands.split_first() {
            Some((sub, rest)) if subcommands.contains(&sub.as_str()) => rest,
            _ => return Vec::new(),
        }
    };
    match form {
        SetterForm::Assignments => operands
            .iter()
            .map(|w| split_assignment(w).unwrap_or_else(|| ((*w).clone(), None)))
            .collect(),
        SetterForm::NameThenValue => operands
            .first()
            .map(|name| ((*name).clone(), operands.get(1).map(|v| (*v).clone())))
            .into_iter()
            .collect(),
        SetterForm::LastName => operands
            .last()
            .map(|name| ((*name).clone(), None))
            .into_iter()
            .collect(),
        SetterForm::Options(..) => Vec::new(),
    }
}

/// The variables `options` stand for, from the options the program table
/// reads with a value (`--git-dir DIR`, `--git-dir=DIR`).
fn option_names(view: &[String], options: &[(&str, &str)]) -> Vec<EnvSet> {
    // An option is read as `--name` or `--name=…`: with no word starting
    // so, the view need not be read through the table (most `git` lines).
    let named = |w: &String| {
        w.strip_prefix("--")
            .is_some_and(|rest| options.iter().any(|(long, _)| rest.starts_with(long)))
    };
    if !view.iter().skip(1).any(named) {
        return Vec::new();
    }
    Invocation::read(view, &[])
        .options
        .iter()
        .filter_map(|o| {
            let (_, name) = options.iter().find(|(long, _)| *long == o.long)?;
            Some(((*name).to_owned(), Some(o.value?.to_owned())))
        })
        .collect()
}

/// Whether `word` is a short-flag bundle holding `flag` (`-n`, `-gn`).
fn is_flag_with(word: &str, flag: char) -> bool {
    word.strip_prefix('-')
        .is_some_and(|f| !f.starts_with('-') && f.contains(flag))
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
