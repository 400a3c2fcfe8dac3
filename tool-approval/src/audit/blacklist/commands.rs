//! Checks on the words of one command view (`rm -rf /`, `chmod u+s`, …).

use std::path::Path;

use super::Ctx;
use super::paths::{is_disk_device, is_kernel_path};
use crate::path_view::{real_path, resolve_path};
use crate::shell::basename;
use crate::shell::links::target_directory;
use crate::shell::scripts::git_subcommand;
use crate::shell::table::Invocation;

pub(super) fn program(view: &[String]) -> &str {
    view.first().map(|w| basename(w)).unwrap_or_default()
}

/// A view read through the program table (built-in rows): its flags and
/// operands, as every check here reads them.
pub(super) fn invocation(view: &[String]) -> Invocation<'_> {
    Invocation::read(view, &[])
}

pub(super) const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/snap",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
];

/// Whether removing or re-owning `target` recursively would wreck the system
/// or a home directory.
pub(super) fn is_precious_tree(target: &str, ctx: &Ctx<'_>) -> bool {
    if brace_words(target) > MAX_TARGET_WORDS {
        // `{a,b}{a,b}…/`: more targets than are judged one by one (their
        // count is known before any is made): taken as precious.
        return true;
    }
    if let Some(alternatives) = expand_braces(target.trim()) {
        return alternatives.iter().any(|a| is_precious_tree(a, ctx));
    }
    let mut t = target.trim().to_owned();
    if matches!(t.as_str(), "*" | ".*" | "./.*" | "./" | ".[!.]*" | "..?*") {
        // Everything in the directory the command runs in.
        t = ".".to_owned();
    }
    let relative = !(t.starts_with('/') || t.starts_with('~') || t.starts_with('$'));
    if ctx.unknown_dir && relative && (t == "." || t == ".." || t.starts_with("../")) {
        return true;
    }
    while t.len() > 1 && (t.ends_with('/') || t.ends_with("/*") || t.ends_with("/.")) {
        t.truncate(t.len() - if t.ends_with('/') { 1 } else { 2 });
    }
    if let Some(rest) = t.strip_prefix("${HOME")
        && rest.starts_with([':', '%', '#', '-', '+', '=', '?', '/', '@'])
        && let Some(close) = rest.find('}')
    {
        // `${HOME:?}`, `${HOME%/}`: still the home directory.
        t = format!("$HOME{}", rest.get(close + 1..).unwrap_or_default());
        while t.len() > 1 && t.ends_with('/') {
            t.pop();
        }
    }
    let home_relative =
        t == "$HOME" || t == "${HOME}" || t.starts_with("$HOME/") || t.starts_with("${HOME}/");
    if !home_relative && (t.contains('$') || t.contains('`')) {
        // `$(echo /)`, `$x`, `$PWD/..`, `$OLDPWD`: the target is computed.
        return true;
    }
    if t.contains(['*', '?', '[']) {
        return glob_covers_precious(&t, ctx);
    }
    if t.is_empty() || t == "/" || t == "/*" {
        return true;
    }
    if t == "~" || (t.starts_with('~') && !t.contains('/')) {
        return true;
    }
    if matches!(
        t.as_str(),
        "$HOME" | "${HOME}" | "~/" | "$HOME/" | "${HOME}/"
    ) {
        return true;
    }
    let resolved = if t.starts_with('/')
        || t.starts_with('~')
        || t.starts_with("$HOME")
        || t.starts_with("${HOME}")
    {
        resolve_path(&t, Path::new("/"), ctx.home)
    } else {
        ctx.cwd.and_then(|cwd| resolve_path(&t, cwd, ctx.home))
    };
    let Some(resolved) = resolved else {
        return t.starts_with('~');
    };
    if resolved == Path::new("/") || ctx.home.is_some_and(|h| real_path(h) == resolved) {
        return true;
    }
    let shown = resolved.display().to_string();
    if SYSTEM_DIRS.contains(&shown.as_str()) {
        return true;
    }
    // A user's home directory: /home/NAME, /Users/NAME, /root; and
    // /proc/PID/root, which is `/` again.
    let components: Vec<&str> = shown.split('/').filter(|c| !c.is_empty()).collect();
    matches!(
        components.as_slice(),
        ["home" | "Users", _] | ["proc", _, "root" | "cwd"]
    )
}

/// How many targets one removal's word may spell through brace groups
/// before it is judged whole (issue 36 §7: `{a,b}` × 20 spelled a million
/// targets, each judged, 10 s).
const MAX_TARGET_WORDS: usize = 256;

/// How many words [`expand_braces`], applied until no group is left, makes
/// of `word`: the product of the groups' alternatives, counted without
/// making any (saturating).
fn brace_words(word: &str) -> usize {
    let mut count = 1usize;
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest.get(open..).and_then(|r| r.find('}')) else {
            break;
        };
        let inner = rest.get(open + 1..open + len).unwrap_or_default();
        if inner.contains(',') {
            count = count.saturating_mul(inner.matches(',').count() + 1);
        }
        rest = rest.get(open + len + 1..).unwrap_or_default();
    }
    count
}

/// One level of brace expansion: `{/,}` → `/` and ``, `/{etc,x}` → `/etc`, `/x`.
fn expand_braces(word: &str) -> Option<Vec<String>> {
    let open = word.find('{')?;
    let close = open + word.get(open..)?.find('}')?;
    let inner = word.get(open + 1..close)?;
    if !inner.contains(',') {
        return None;
    }
    let (head, tail) = (word.get(..open)?, word.get(close + 1..)?);
    Some(
        inner
            .split(',')
            .map(|alt| format!("{head}{alt}{tail}"))
            .collect(),
    )
}

/// Whether a glob target (`/u*`, `/home/*/`) matches the root, a system
/// directory or a home directory.
fn glob_covers_precious(target: &str, ctx: &Ctx<'_>) -> bool {
    let absolute = match target.strip_prefix('~') {
        Some(rest) => match ctx.home {
            Some(h) => format!("{}{rest}", h.display()),
            None => return true,
        },
        None if target.starts_with('/') => target.to_owned(),
        None => match ctx.cwd {
            Some(cwd) => format!("{}/{target}", cwd.display()),
            None => return false,
        },
    };
    let Ok(glob) = globset::GlobBuilder::new(&absolute)
        .literal_separator(true)
        .build()
    else {
        return true;
    };
    let glob = glob.compile_matcher();
    let home = ctx.home.map(|h| h.display().to_string());
    SYSTEM_DIRS
        .iter()
        .copied()
        .chain(["/", "/home/user", "/root"])
        .chain(home.as_deref())
        .any(|d| glob.is_match(d))
}

/// Whether the view is a recursive `rm` (`-r`, `--no-preserve-root`).
pub(super) fn is_recursive_rm(view: &[String]) -> bool {
    program(view) == "rm"
        && (invocation(view).has_flag(&['r', 'R'], &["recursive"])
            || invocation(view).has_flag(&[], &["no-preserve-root"]))
}

/// Whether `target` is the workspace as a whole (issue 36 §6): the
/// working directory or all of its contents (`.`, `*`, `./*`), the
/// directory above it or anything from there (`..`, `../proj`: the
/// workspace from its parent), any relative name where the line left for
/// somewhere unknown (`cd .. && rm -rf proj`), or a path the workspace is
/// inside. Removing it recursively asks as removing a home does.
pub(super) fn is_whole_workspace(target: &str, ctx: &Ctx<'_>) -> bool {
    if brace_words(target) > MAX_TARGET_WORDS {
        return true;
    }
    if let Some(alternatives) = expand_braces(target.trim()) {
        return alternatives.iter().any(|a| is_whole_workspace(a, ctx));
    }
    let t = target.trim();
    let absolute = t.starts_with('/') || t.starts_with('~') || t.starts_with('$');
    if !absolute {
        if ctx.unknown_dir {
            return true;
        }
        let whole = matches!(
            t,
            "." | "./" | "*" | "./*" | ".*" | "./.*" | ".[!.]*" | "..?*" | ".." | "../" | "../*"
        ) || t.starts_with("../");
        if whole && ctx.cwd.is_none() {
            return true;
        }
    }
    let (Some(workspace), Some(cwd)) = (ctx.workspace, ctx.cwd) else {
        return false;
    };
    let mut t = t.to_owned();
    while t.len() > 1 && (t.ends_with('/') || t.ends_with("/*") || t.ends_with("/.")) {
        t.truncate(t.len() - if t.ends_with('/') { 1 } else { 2 });
    }
    if t == "*" {
        t = ".".to_owned();
    }
    if t.contains(['*', '?', '[', '$', '`']) {
        return false;
    }
    crate::path_view::resolve_path(&t, cwd, ctx.home)
        .is_some_and(|resolved| workspace.starts_with(&resolved))
}

/// find's tests that choose files: with one, `find . … -delete` removes
/// what they choose, not the workspace.
const FIND_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-type",
    "-xtype",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-empty",
    "-user",
    "-group",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-uid",
    "-gid",
    "-nouser",
    "-nogroup",
    "-used",
    "-newermt",
];

pub(super) fn rm_recursive_root(view: &[String], ctx: &Ctx<'_>) -> bool {
    match program(view) {
        "rm" => {
            is_recursive_rm(view)
                && invocation(view)
                    .operands
                    .iter()
                    .any(|t| is_precious_tree(t, ctx) || is_whole_workspace(t, ctx))
        }
        "mv" => {
            // Moving `/etc` or `/bin` away removes it as surely. With
            // `-t DIR` every operand is a source and DIR is written into.
            let ops = invocation(view).operands;
            match target_directory(view) {
                Some(dir) => ops
                    .iter()
                    .filter(|t| **t != dir)
                    .any(|t| is_precious_tree(t, ctx)),
                None => {
                    let sources = ops.len().saturating_sub(1);
                    ops.iter().take(sources).any(|t| is_precious_tree(t, ctx))
                }
            }
        }
        // `rimraf` and kin (npm packages, often through `npx`) remove recursively.
        "rimraf" | "del-cli" | "trash" | "rmrf" => invocation(view)
            .operands
            .iter()
            .any(|t| is_precious_tree(t, ctx)),
        "git" => git_clean_root(view, ctx),
        "find" => {
            let deletes = view.iter().any(|w| w == "-delete") || view.windows(2).any(|w| {
                matches!(w, [a, b] if matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && matches!(basename(b), "rm" | "shred" | "unlink" | "rmdir"))
            });
            let chooses = view.iter().any(|w| FIND_TESTS.contains(&w.as_str()));
            let roots = find_roots(view);
            // `find -delete` with no root starts at `.`.
            let roots = if roots.is_empty() { vec!["."] } else { roots };
            deletes
                && roots
                    .iter()
                    .any(|t| is_precious_tree(t, ctx) || (!chooses && is_whole_workspace(t, ctx)))
        }
        // `fd . / -x rm -rf`: what fd finds under its search paths is removed.
        "fd" | "fdfind" => {
            let deletes = view.windows(2).any(|w| {
                matches!(w, [a, b] if FD_EXEC.contains(&a.as_str())
                        && matches!(basename(b), "rm" | "shred" | "unlink" | "rmdir"))
            });
            deletes && fd_roots(view).iter().any(|t| is_precious_tree(t, ctx))
        }
        _ => false,
    }
}

/// `git [-C DIR] clean -f…` whose work tree or pathspec is the root, a home
/// or a system directory: it deletes every untracked (with `-x`, also
/// ignored) file there, as `rm -rf` would (a dotfiles repository in `~`).
fn git_clean_root(view: &[String], ctx: &Ctx<'_>) -> bool {
    let global = view.get(1..).unwrap_or_default();
    // The subcommand is one of the words: git's options are read only then.
    if !global.iter().any(|w| w == "clean") {
        return false;
    }
    let Some(("clean", args)) = git_subcommand(global) else {
        return false;
    };
    // `-C DIR` among git's own options, before the subcommand.
    let options = global
        .get(..global.len().saturating_sub(args.len() + 1))
        .unwrap_or_default();
    let dir = options
        .windows(2)
        .rev()
        .find(|w| w[0] == "-C")
        .map(|w| w[1].as_str());
    let forced = args
        .iter()
        .take_while(|w| *w != "--")
        .any(|w| w == "--force" || (w.starts_with('-') && !w.starts_with("--") && w.contains('f')));
    if !forced {
        return false;
    }
    let paths: Vec<&str> = {
        let mut out = Vec::new();
        let mut iter = args.iter();
        let mut options_done = false;
        while let Some(w) = iter.next() {
            if !options_done && w == "--" {
                options_done = true;
            } else if !options_done && (w == "-e" || w == "--exclude") {
                iter.next();
            } else if options_done || !w.starts_with('-') {
                out.push(w.as_str());
            }
        }
        out
    };
    let base = dir.unwrap_or(".");
    // `-x`: ignored files too (build output, `.env`, the virtualenv):
    // at the workspace's top, all of its contents but what git tracks.
    let ignored_too = args
        .iter()
        .take_while(|w| *w != "--")
        .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('x'));
    if paths.is_empty() {
        return is_precious_tree(base, ctx) || (ignored_too && is_whole_workspace(base, ctx));
    }
    if ignored_too && paths.iter().any(|p| matches!(*p, "." | "./" | ":/" | "*")) {
        return is_whole_workspace(base, ctx) || is_precious_tree(base, ctx);
    }
    paths.iter().any(|p| {
        if p.starts_with('/') || p.starts_with('~') || p.starts_with('$') || base == "." {
            is_precious_tree(p, ctx)
        } else {
            is_precious_tree(&format!("{}/{p}", base.trim_end_matches('/')), ctx)
        }
    })
}

/// The starting points of `find [-H|-L|-P|-O3|-D x] [--] PATH… EXPRESSION`.
pub(super) fn find_roots(view: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut iter = view.iter().skip(1).peekable();
    while let Some(word) = iter.peek() {
        match word.as_str() {
            "-H" | "-L" | "-P" | "--" => {}
            "-D" => {
                iter.next();
            }
            w if w.starts_with("-O") => {}
            _ => break,
        }
        iter.next();
    }
    for word in iter {
        if word.starts_with('-') || matches!(word.as_str(), "(" | "!" | ")" | ",") {
            break;
        }
        out.push(word.as_str());
    }
    out
}

/// fd's options that run a command with what it finds (the rest of the
/// words, up to `;`).
const FD_EXEC: &[&str] = &["-x", "--exec", "-X", "--exec-batch"];

/// Where `fd [OPTIONS] [PATTERN] [PATH…]` searches: the paths after the
/// pattern, `--search-path` values and `--base-directory` (the working
/// directory when none is named), read through the program table up to
/// the command it runs.
pub(super) fn fd_roots(view: &[String]) -> Vec<&str> {
    let end = view
        .iter()
        .position(|w| FD_EXEC.contains(&w.as_str()))
        .unwrap_or(view.len());
    let inv = invocation(view.get(..end).unwrap_or(view));
    let mut roots: Vec<&str> = inv
        .options
        .iter()
        .filter(|o| matches!(o.long, "search-path" | "base-directory"))
        .filter_map(|o| o.value)
        .collect();
    // The first operand is the pattern.
    roots.extend(inv.operands.iter().skip(1));
    if roots.is_empty() {
        roots.push(".");
    }
    roots
}

/// A function whose body calls itself twice, or in a pipeline or the
/// background: `:(){ :|:& };:`, `f(){ f & f; }`, `f() ( f | f & )`.
pub(super) fn fork_bomb(text: &str) -> bool {
    if !may_define_function(text) {
        return false;
    }
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut defs: Vec<(String, &str)> = Vec::new();
    for (at, _) in squeezed.match_indices("()") {
        let after = squeezed.get(at + 2..).unwrap_or_default();
        if !after.starts_with(['{', '(']) {
            continue;
        }
        let head = squeezed.get(..at).unwrap_or_default();
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| !is_separator(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let name = name.strip_prefix("function").unwrap_or(&name).to_owned();
        defs.push((name, balanced(after)));
    }
    for (at, _) in squeezed.match_indices("function") {
        let after = squeezed.get(at + "function".len()..).unwrap_or_default();
        let name: String = after
            .chars()
            .take_while(|c| !matches!(c, '{' | '('))
            .collect();
        let rest = after.get(name.len()..).unwrap_or_default();
        let rest = rest.strip_prefix("()").unwrap_or(rest);
        defs.push((name, balanced(rest)));
    }
    defs.iter()
        .any(|(name, body)| !name.is_empty() && calls_itself_to_fork(body, name))
}

/// Whether `text` can hold a function definition as [`fork_bomb`] reads
/// it: a `(`, or `function` once whitespace is removed. Allocates nothing.
fn may_define_function(text: &str) -> bool {
    if text.contains('(') {
        return true;
    }
    if !text.contains('f') {
        return false;
    }
    const WORD: &[char] = &['f', 'u', 'n', 'c', 't', 'i', 'o', 'n'];
    let mut matched = 0;
    // The same whitespace `fork_bomb` squeezes out (Unicode's).
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        // No prefix of `function` is also its suffix: a mismatch restarts
        // the match at this character.
        matched = if WORD.get(matched) == Some(&c) {
            matched + 1
        } else {
            usize::from(c == 'f')
        };
        if matched == WORD.len() {
            return true;
        }
    }
    false
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ';' | '&' | '|' | '(' | ')' | '{' | '}' | '!' | '`' | '\n'
    )
}

/// The text inside the bracket `text` starts with (to the end if unbalanced).
fn balanced(text: &str) -> &str {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return text.get(1..at).unwrap_or_default();
                }
            }
            _ => {}
        }
    }
    text.get(1..).unwrap_or_default()
}

fn calls_itself_to_fork(body: &str, name: &str) -> bool {
    let mut calls = 0;
    for (at, _) in body.match_indices(name) {
        let before = body.get(..at).and_then(|b| b.chars().next_back());
        let after = body.get(at + name.len()..).and_then(|a| a.chars().next());
        if before.is_some_and(|c| !is_separator(c)) || after.is_some_and(|c| !is_separator(c)) {
            continue;
        }
        calls += 1;
        if before == Some('|') || matches!(after, Some('|' | '&')) {
            return true;
        }
    }
    calls >= 2
}

pub(super) fn dd_to_device(view: &[String]) -> bool {
    program(view) == "dd"
        && view.iter().any(|w| {
            w.strip_prefix("of=").is_some_and(|target| {
                target.starts_with("/dev/")
                    && !matches!(
                        target,
                        "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                    )
                    && !target.starts_with("/dev/fd/")
            })
        })
}

/// `cp x /dev/sda`, `tee /dev/sda`, `shred /dev/sda`, `pv x > …` family.
pub(super) fn copy_to_device(view: &[String]) -> bool {
    matches!(
        program(view),
        "cp" | "tee"
            | "mv"
            | "install"
            | "shred"
            | "cat"
            | "pv"
            | "ddrescue"
            | "dcfldd"
            | "badblocks"
    ) && invocation(view).operands.iter().any(|w| is_disk_device(w))
}

pub(super) fn format_device(view: &[String]) -> bool {
    let name = program(view);
    if name.starts_with("mkfs")
        || matches!(
            name,
            "mke2fs" | "mkswap" | "mkdosfs" | "newfs" | "blkdiscard" | "wipefs" | "sg_format"
        )
    {
        return true;
    }
    if name == "hdparm"
        && view.iter().any(|w| {
            w.starts_with("--security-erase")
                || w.starts_with("--trim-sector")
                || w == "--write-sector"
                || w == "--security-set-pass"
        })
    {
        return true;
    }
    if name == "cryptsetup"
        && view.iter().skip(1).any(|w| {
            matches!(
                w.as_str(),
                "luksFormat" | "erase" | "luksErase" | "reencrypt" | "luksKillSlot"
            )
        })
    {
        return true;
    }
    if name == "nvme"
        && view
            .iter()
            .any(|w| matches!(w.as_str(), "format" | "sanitize"))
    {
        return true;
    }
    matches!(
        name,
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" | "wipefs" | "diskutil"
    ) && view
        .iter()
        .skip(1)
        .any(|w| w.starts_with("/dev/") || matches!(w.as_str(), "eraseDisk" | "partitionDisk"))
}

pub(super) fn kernel_write(view: &[String]) -> bool {
    match program(view) {
        "sysctl" => {
            invocation(view).has_flag(&['w', 'p'], &["write", "load", "system"])
                || invocation(view).operands.iter().any(|w| w.contains('='))
        }
        "tee" | "cp" | "dd" | "install" | "mv" => view
            .iter()
            .skip(1)
            .any(|w| is_kernel_path(w.strip_prefix("of=").unwrap_or(w))),
        _ => false,
    }
}

pub(super) fn recursive_chown_system(view: &[String], ctx: &Ctx<'_>) -> bool {
    matches!(program(view), "chown" | "chmod" | "chgrp")
        && invocation(view).has_flag(&['R'], &["recursive"])
        && invocation(view)
            .operands
            .iter()
            .skip(1)
            .any(|t| is_precious_tree(t, ctx))
}

/// A recursive read or archive of the whole home directory or `/`
/// (`grep -r x ~`, `tar czf x ~`, `rg x ~`).
/// Whether the command reads directories recursively (searches, archives,
/// recursive copies).
fn reads_recursively(view: &[String]) -> bool {
    // A flag needs an option word: without one the view is not read.
    let flagged = |short: &[char], long: &[&str]| {
        view.iter().skip(1).any(|w| w.starts_with('-')) && invocation(view).has_flag(short, long)
    };
    match program(view) {
        "grep" | "egrep" | "fgrep" => flagged(&['r', 'R'], &["recursive", "dereference-recursive"]),
        // `du` and `tree` list names and sizes, not contents.
        "rg" | "ag" | "ack" | "tar" | "bsdtar" | "7z" => true,
        "zip" | "cp" | "scp" => flagged(&['r', 'R', 'a'], &["recursive", "archive"]),
        "rsync" => flagged(&['r', 'a'], &["recursive", "archive"]),
        "diff" => flagged(&['r'], &["recursive"]),
        // `git diff --no-index A B` compares two folders, file by file.
        "git" => {
            view.iter().any(|w| w == "--no-index") && invocation(view).subcommand == Some("diff")
        }
        _ => false,
    }
}

/// A recursive reader of a directory that holds a fixed secret location
/// (`tar cf - ~/.claude`, `zip -r x.zip ~/.config`), other than a whole
/// home or `/` (`read-home`), or of a hidden folder that holds a secret
/// row's location (`grep -r extraheader .git`, see
/// `path_rows::holds_secret_row`).
pub(super) fn reads_secret_tree(view: &[String], ctx: &Ctx<'_>) -> bool {
    if !reads_recursively(view) {
        return false;
    }
    let base = ctx.cwd.unwrap_or(Path::new("/"));
    let secrets = super::path_rows::fixed_secret_locations(ctx.home);
    invocation(view).operands.iter().any(|t| {
        // `grep -r extraheader .git`: a hidden folder that holds a secret
        // row's location wherever it is.
        if super::path_rows::holds_secret_row(t) {
            return true;
        }
        if t.contains(['*', '?']) || !(t.starts_with(['/', '~', '$']) || ctx.cwd.is_some()) {
            return false;
        }
        let Some(dir) = resolve_path(t, base, ctx.home) else {
            return false;
        };
        let lexical = ctx.home.map(|h| h.join(t.trim_start_matches("~/")));
        let whole = |d: &Path| d == Path::new("/") || ctx.home.is_some_and(|h| h == d);
        [Some(dir), lexical.filter(|_| t.starts_with("~/"))]
            .into_iter()
            .flatten()
            .filter(|d| !whole(d))
            .any(|d| secrets.iter().any(|s| s != &d && s.starts_with(&d)))
    })
}

pub(super) fn reads_whole_home(view: &[String], ctx: &Ctx<'_>) -> bool {
    reads_recursively(view)
        && invocation(view).operands.iter().any(|t| {
            let home_like = matches!(
                *t,
                "~" | "~/"
                    | "$HOME"
                    | "${HOME}"
                    | "$HOME/"
                    | "${HOME}/"
                    | "/"
                    | "/home"
                    | "/root"
                    | "/Users"
            );
            home_like || (!t.contains(['$', '*', '?']) && resolves_to_home(t, ctx))
        })
}

fn resolves_to_home(target: &str, ctx: &Ctx<'_>) -> bool {
    let base = ctx.cwd.unwrap_or(Path::new("/"));
    if !(target.starts_with('/') || target.starts_with('~') || ctx.cwd.is_some()) {
        return false;
    }
    resolve_path(target, base, ctx.home).is_some_and(|r| {
        r == Path::new("/") || ctx.home.is_some_and(|h| real_path(h) == r) || {
            let shown = r.display().to_string();
            let parts: Vec<&str> = shown.split('/').filter(|c| !c.is_empty()).collect();
            matches!(parts.as_slice(), ["home" | "Users", _] | ["root"])
        }
    })
}

/// Editing accounts or sudo rights with the dedicated tools.
pub(super) fn account_admin(view: &[String]) -> bool {
    matches!(
        program(view),
        "vipw"
            | "vigr"
            | "visudo"
            | "chpasswd"
            | "chgpasswd"
            | "usermod"
            | "useradd"
            | "userdel"
            | "groupmod"
            | "gpasswd"
            | "passwd"
            | "chsh"
            | "chfn"
            | "adduser"
            | "deluser"
            | "newusers"
            | "pwconv"
            | "grpconv"
            | "chage"
    )
}

pub(super) fn firewall_off(view: &[String]) -> bool {
    // Only the programs matched below; checked before collecting operands.
    if !matches!(
        program(view),
        "ufw"
            | "aa-teardown"
            | "aa-disable"
            | "aa-complain"
            | "systemctl"
            | "service"
            | "iptables"
            | "ip6tables"
            | "iptables-legacy"
            | "iptables-nft"
            | "nft"
            | "setenforce"
            | "pfctl"
            | "netsh"
    ) {
        return false;
    }
    let ops = invocation(view).operands;
    let first = ops.first().copied().unwrap_or_default();
    let is_firewall = |w: &str| {
        matches!(
            w.trim_end_matches(".service"),
            "firewalld"
                | "ufw"
                | "iptables"
                | "ip6tables"
                | "nftables"
                | "pf"
                | "netfilter-persistent"
                | "apparmor"
                | "auditd"
                | "fail2ban"
        )
    };
    match program(view) {
        "ufw" => matches!(first, "disable" | "reset" | "allow" | "delete" | "default"),
        "aa-teardown" | "aa-disable" | "aa-complain" => true,
        "systemctl" => {
            matches!(first, "stop" | "disable" | "mask" | "kill")
                && ops.iter().skip(1).any(|w| is_firewall(w))
        }
        "service" => {
            ops.len() >= 2 && is_firewall(first) && matches!(ops.get(1).copied(), Some("stop"))
        }
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" => {
            invocation(view).has_flag(&['F', 'X', 'D'], &["flush", "delete-chain", "delete"])
                || (invocation(view).has_flag(&['P', 'I', 'A'], &["policy", "insert", "append"])
                    && view.iter().any(|w| w == "ACCEPT"))
        }
        "nft" => {
            let words: Vec<&str> = ops.iter().flat_map(|o| o.split_whitespace()).collect();
            words.windows(2).any(|w| matches!(w, [a, b] if (*a == "flush" && matches!(*b, "ruleset" | "table" | "chain")) || (*a == "delete" && matches!(*b, "table" | "chain"))))
        }
        "setenforce" => matches!(first, "0" | "Permissive" | "permissive"),
        "pfctl" => invocation(view).has_flag(&['d'], &[]),
        "netsh" => {
            view.iter().any(|w| w.eq_ignore_ascii_case("off"))
                && view.iter().any(|w| w.eq_ignore_ascii_case("advfirewall"))
        }
        _ => false,
    }
}

pub(super) fn is_read_only(view: &[String]) -> bool {
    matches!(
        program(view),
        "cat"
            | "less"
            | "more"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "diff"
            | "stat"
            | "ls"
            | "wc"
            | "file"
            | "sshd"
            | "tree"
            | "du"
            // Running a file reads it: `source .venv/bin/activate`.
            | "source"
            | "."
            // Setting variables writes no file: `export PATH=$PATH:./node_modules/.bin`.
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
    )
}

pub(super) const CORE_PACKAGES: &[&str] = &[
    "systemd",
    "bash",
    "coreutils",
    "libc6",
    "libc-bin",
    "glibc",
    "glibc-common",
    "sudo",
    "openssh-server",
    "openssh",
    "apt",
    "dpkg",
    "rpm",
    "yum",
    "dnf",
    "pacman",
    "util-linux",
    "login",
    "passwd",
    "base-files",
    "base",
    "filesystem",
    "init",
    "sysvinit",
    "perl-base",
    "e2fsprogs",
    "dash",
    "shadow-utils",
    "shadow",
    "linux",
    "kernel",
    "grub",
    "grub2",
    "grub-pc",
    "python3",
    "*",
];

pub(super) fn is_core_package(name: &str) -> bool {
    let name = name.split([':', '=']).next().unwrap_or(name);
    CORE_PACKAGES.contains(&name)
        || [
            "linux-image",
            "linux-headers",
            "kernel-",
            "grub",
            "systemd-",
            "libc6",
            "glibc",
        ]
        .iter()
        .any(|p| name.starts_with(p))
        || name.contains('*')
}

/// `--force-remove-essential`, `--allow-remove-essential` given to any
/// program (dpkg's and apt's, also through a front end).
pub(super) fn forces_essential_removal(view: &[String]) -> bool {
    // Only a word naming the option is worth reading the view for (the
    // table reads `--name` and `--name=…` whole, never abbreviated).
    view.iter()
        .any(|w| w.starts_with("--") && w.contains("-remove-essential"))
        && invocation(view).has_flag(&[], &["force-remove-essential", "allow-remove-essential"])
}

/// A package manager removing a core package (a row of `dispatch`).
pub(super) fn remove_core_package(view: &[String]) -> bool {
    // Only the package managers matched below; checked before collecting operands.
    if !matches!(
        program(view),
        "apt"
            | "apt-get"
            | "aptitude"
            | "yum"
            | "dnf"
            | "microdnf"
            | "zypper"
            | "snap"
            | "apk"
            | "pacman"
            | "dpkg"
            | "rpm"
    ) {
        return false;
    }
    let ops = invocation(view).operands;
    let first = ops.first().copied().unwrap_or_default();
    let packages = || ops.iter().skip(1);
    match program(view) {
        "apt" | "apt-get" | "aptitude" => {
            (matches!(first, "remove" | "purge" | "autoremove")
                && packages().any(|p| is_core_package(p)))
                // `apt-get install bash-`: a trailing `-` removes the package.
                || (matches!(first, "install" | "reinstall")
                    && packages().any(|p| p.strip_suffix('-').is_some_and(is_core_package)))
        }
        "yum" | "dnf" | "microdnf" | "zypper" | "snap" => {
            matches!(first, "remove" | "erase" | "autoremove" | "rm")
                && packages().any(|p| is_core_package(p))
        }
        "apk" => first == "del" && packages().any(|p| is_core_package(p)),
        "pacman" => {
            view.iter()
                .skip(1)
                .any(|w| w.starts_with("-R") || w == "--remove")
                && ops.iter().any(|p| is_core_package(p))
        }
        "dpkg" => {
            invocation(view).has_flag(&['r', 'P'], &["remove", "purge"])
                && ops.iter().any(|p| is_core_package(p))
        }
        "rpm" => {
            invocation(view).has_flag(&['e'], &["erase"]) && ops.iter().any(|p| is_core_package(p))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_prefilter_misses_no_definition() {
        for text in [
            "f(){ f|f& };f",
            "function f { f|f& }; f",
            "func tion f { f|f& }; f",
            "func\u{2003}tion f { f|f& }; f",
            "ffunction",
        ] {
            assert!(may_define_function(text), "{text}");
        }
        for text in ["ls -la", "git status -s # 3", "fun-ction", "functio"] {
            assert!(!may_define_function(text), "{text}");
        }
        assert!(fork_bomb("function\u{2003}f { f|f& }; f"));
        assert!(fork_bomb("func\u{a0}tion f { f|f& }; f"));
        assert!(!fork_bomb("git status && ls"));
    }
}
