//! Which scripts a command runs from text: `eval ARGS`, `bash -c STRING`
//! (also `bash -o opt -c`, `bash -c -- STRING`), `su -c`, `runuser -c`,
//! `script -c`, `flock FILE -c`, `watch CMD`, all through wrappers
//! (`sudo bash -c …`); and whether a command reads a script on standard
//! input (`sh`, `bash -s`, `at now`), so a pipe or a here-string into it is
//! judged as a script.

use super::table::Invocation;
use super::types::Hazard;
use super::words::{basename, is_shell, substitutions_in, tokenize};
use super::wrappers::{git_alias_defs, git_alias_from_env, word_views};

/// The scripts a command's words run, each with the hazard it brings.
pub(crate) fn scripts_of(words: &[String]) -> Vec<(Hazard, String)> {
    scripts_of_views(&word_views(words))
}

/// [`scripts_of`] from the words' views, already computed (`word_views`).
pub(crate) fn scripts_of_views(views: &[Vec<String>]) -> Vec<(Hazard, String)> {
    let mut out: Vec<(Hazard, String)> = Vec::new();
    for view in views {
        let Some((first, args)) = view.split_first() else {
            continue;
        };
        let name = basename(first);
        for found in super::runners::runner_scripts(first, args) {
            push(&mut out, found);
        }
        // `unset 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]'`, `test -v 'a[…]'`:
        // these builtins evaluate an array subscript, quoted or not.
        if SUBSCRIPT_EVALUATORS.contains(&name) {
            for arg in args.iter().filter(|a| a.contains('[')) {
                for inner in substitutions_in(arg) {
                    push(&mut out, (Hazard::CommandSubstitution, inner));
                }
            }
        }
        // `coproc NAME { CMD; }`, `coproc ( CMD )`: the grammar reads the
        // braces as words; the command inside runs.
        if name == "coproc" {
            let at = match args.get(1).map(String::as_str) {
                Some("{" | "(") => 2,
                _ => usize::from(matches!(args.first().map(String::as_str), Some("{" | "("))),
            };
            if at > 0 {
                let words: Vec<&str> = args
                    .get(at..)
                    .unwrap_or_default()
                    .iter()
                    .map(String::as_str)
                    .filter(|w| !matches!(*w, "}" | ")"))
                    .collect();
                if !words.is_empty() {
                    push(&mut out, (Hazard::ShellString, words.join(" ")));
                }
            }
        }
        let found = match name {
            "eval" => {
                let text = args.join(" ");
                // `eval "$(echo rm -rf /)"`: the literal the substitution prints.
                if let Some(printed) = text
                    .strip_prefix("$(")
                    .and_then(|t| t.strip_suffix(')'))
                    .and_then(|inner| literal_output(&tokenize(inner)))
                {
                    push(&mut out, (Hazard::Eval, printed));
                }
                Some((Hazard::Eval, text))
            }
            "git" => {
                for script in git_subcommand_scripts(args) {
                    push(&mut out, (Hazard::ShellString, script));
                }
                if let Some(script) = git_synonym(view) {
                    push(&mut out, (Hazard::ShellString, script));
                }
                // A `!` alias runs a shell, and git hands the line's `-c`
                // definitions on to every git that shell runs: with one on
                // the line, each definition may run (`-c alias.a='!git b'
                // -c alias.b=push a` pushes), as its own script (a `!`
                // value) or as `git VALUE`.
                if git_alias_defs(args).any(|(_, v)| v.starts_with('!')) {
                    for (_, value) in git_alias_defs(args).take(MAX_ALIAS_SCRIPTS) {
                        let script = match value.strip_prefix('!') {
                            Some(script) => script.to_owned(),
                            None => format!("git {value}"),
                        };
                        push(&mut out, (Hazard::ShellString, script));
                    }
                }
                None
            }
            // `trap 'CMD' SIGNAL…`: CMD runs when the signal (or EXIT) comes.
            "trap" => trap_action(args).map(|s| (Hazard::ShellString, s)),
            _ if is_shell(name) => shell_c_string(args).map(|s| (Hazard::ShellString, s)),
            "su" | "runuser" | "script" | "flock" | "sg" => {
                option_value(args, 'c', "--command").map(|s| (Hazard::ShellString, s))
            }
            "watch" => watch_command(args).map(|s| (Hazard::ShellString, s)),
            // `npx -c 'CMD'` (also `npm exec -c`, read as `npx`).
            "npx" | "pnpx" => option_value(args, 'c', "--call").map(|s| (Hazard::ShellString, s)),
            // `ssh HOST CMD…`: the remote shell runs CMD; judged like a local
            // script (a remote `rm -rf /` is no better).
            "ssh" => ssh_command(args).map(|s| (Hazard::ShellString, s)),
            // `alias x='rm -rf /'`: the value runs wherever `x` is used.
            "alias" => {
                let values: Vec<&str> = args
                    .iter()
                    .filter_map(|a| a.split_once('=').map(|(_, v)| v))
                    .collect();
                (!values.is_empty()).then(|| (Hazard::ShellString, values.join("\n")))
            }
            _ => None,
        };
        if let Some(found) = found {
            push(&mut out, found);
        }
    }
    out
}

/// Builtins that evaluate an array subscript in their arguments.
const SUBSCRIPT_EVALUATORS: &[&str] = &[
    "unset",
    "printf",
    "read",
    "test",
    "[",
    "[[",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "let",
    "mapfile",
    "readarray",
    "wait",
];

/// git's subcommand and the words after it.
pub(crate) fn git_subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let at = Invocation::read_args("git", args, &[]).subcommand_at?;
    let sub = args.get(at)?;
    // After `--` there is no subcommand (`git -- x` is no command).
    if args.get(..at).unwrap_or_default().iter().any(|w| w == "--") {
        return None;
    }
    Some((sub.as_str(), args.get(at + 1..).unwrap_or_default()))
}

/// Scripts git subcommands run: `submodule foreach CMD…`, `rebase -x CMD`
/// (`--exec CMD`, `--exec=CMD`), `bisect run CMD…`.
fn git_subcommand_scripts(args: &[String]) -> Vec<String> {
    // The subcommand is one of the words: without one of these, reading
    // git's options through the table finds nothing to run.
    if !args
        .iter()
        .any(|w| matches!(w.as_str(), "submodule" | "rebase" | "bisect"))
    {
        return Vec::new();
    }
    let Some((sub, rest)) = git_subcommand(args) else {
        return Vec::new();
    };
    match sub {
        "submodule" => {
            let mut iter = rest.iter().skip_while(|w| w.starts_with('-'));
            if iter.next().map(String::as_str) != Some("foreach") {
                return Vec::new();
            }
            let cmd: Vec<&str> = iter
                .map(String::as_str)
                .skip_while(|w| matches!(*w, "--recursive" | "--quiet" | "-q" | "--"))
                .collect();
            if cmd.is_empty() {
                Vec::new()
            } else {
                vec![cmd.join(" ")]
            }
        }
        "rebase" => {
            let mut out = Vec::new();
            let mut iter = rest.iter();
            while let Some(word) = iter.next() {
                if word == "-x" || word == "--exec" {
                    out.extend(iter.next().cloned());
                } else if let Some(v) = word.strip_prefix("--exec=") {
                    out.push(v.to_owned());
                } else if let Some(v) = word.strip_prefix("-x").filter(|v| !v.is_empty()) {
                    out.push(v.to_owned());
                }
            }
            out
        }
        "bisect" => match rest.split_first() {
            Some((run, cmd)) if run == "run" && !cmd.is_empty() => vec![cmd.join(" ")],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The remote command of `ssh [OPTIONS] DESTINATION COMMAND…`.
fn ssh_command(args: &[String]) -> Option<String> {
    const VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if word == "--" {
            iter.next()?;
            break;
        }
        match word.strip_prefix('-') {
            Some(cluster) if !cluster.is_empty() => {
                // `-vp 22`: the first valued letter takes the rest or the next word.
                if let Some(at) = cluster.find(|c| VALUED.contains(c))
                    && cluster.len() == at + 1
                {
                    iter.next();
                }
            }
            _ => break,
        }
    }
    let command: Vec<&str> = iter.map(String::as_str).collect();
    (!command.is_empty()).then(|| command.join(" "))
}

/// The action of `trap ACTION SIGNAL…` (not `trap -p`, `trap -l`,
/// `trap - SIG` or an empty action).
fn trap_action(args: &[String]) -> Option<String> {
    let mut rest = args;
    match rest.first().map(String::as_str) {
        Some("-p" | "-l" | "-P") => return None,
        Some("--") => rest = rest.get(1..).unwrap_or_default(),
        _ => {}
    }
    let action = rest.first()?;
    (!action.is_empty() && action != "-").then(|| action.clone())
}

fn push(out: &mut Vec<(Hazard, String)>, found: (Hazard, String)) {
    if !out.contains(&found) {
        out.push(found);
    }
}

/// The text a literal `echo`/`printf` prints, if it is literal.
pub(crate) fn literal_output(words: &[String]) -> Option<String> {
    let (first, args) = words.split_first()?;
    if !matches!(basename(first), "echo" | "printf") {
        return None;
    }
    if args.iter().any(|a| a.contains(['$', '`'])) {
        return None;
    }
    if basename(first) == "printf" {
        return Some(printf_output(args).replace("\\n", "\n"));
    }
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    Some(args.join(" ").replace("\\n", "\n"))
}

/// What `printf FORMAT ARGS…` prints, for literal words: `%s` and `%b`
/// take the next argument (the format is reused while arguments remain,
/// as printf does), `%%` is `%`, other directives print their argument.
fn printf_output(args: &[String]) -> String {
    let Some((format, mut rest)) = args.split_first() else {
        return String::new();
    };
    let mut out = String::new();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            // Flags, width and precision, then the conversion.
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || matches!(d, '-' | '+' | ' ' | '#' | '.'))
            {
                chars.next();
            }
            match chars.next() {
                Some('%') => out.push('%'),
                Some(_) => {
                    if let Some((arg, after)) = rest.split_first() {
                        out.push_str(arg);
                        rest = after;
                        used = true;
                    }
                }
                None => out.push('%'),
            }
        }
        if rest.is_empty() || !used {
            break;
        }
        out.push(' ');
    }
    out
}

/// Whether the command (through wrappers) reads a script on standard input.
pub(crate) fn reads_stdin_script(words: &[String]) -> bool {
    reads_stdin_script_views(&word_views(words))
}

/// [`reads_stdin_script`] from the words' views, already computed.
pub(crate) fn reads_stdin_script_views(views: &[Vec<String>]) -> bool {
    views.iter().any(|view| {
        let Some((first, args)) = view.split_first() else {
            return false;
        };
        let name = basename(first);
        if matches!(name, "at" | "batch") {
            return !args.iter().any(|a| a == "-f" || a.starts_with("-f"));
        }
        if matches!(name, "." | "source") {
            return args.first().is_some_and(|f| is_stdin_file(f));
        }
        if !is_shell(name) || name == "busybox" {
            return false;
        }
        let mut skip_value = false;
        for arg in args {
            if skip_value {
                skip_value = false;
                continue;
            }
            if arg == "--" {
                return false;
            }
            if let Some(flags) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) {
                if flags.starts_with('-') {
                    skip_value = matches!(arg.as_str(), "--rcfile" | "--init-file");
                    continue;
                }
                if flags.contains('s') {
                    return true;
                }
                if flags.contains('c') {
                    return false;
                }
                skip_value = flags.contains(['o', 'O']);
                continue;
            }
            // A script file operand: standard input only by name
            // (`sh /dev/stdin <<< 'CMD'`).
            return is_stdin_file(arg) || arg.starts_with("/dev/fd/0");
        }
        true
    })
}

/// Whether the command runs a script whose text is not on the line:
/// `. /dev/stdin`, a shell or `eval` run by `xargs`/`parallel` (its script
/// comes from the input), a git alias defined from the environment.
///
/// `views` are the words' views (`word_views`), already computed, and
/// `stdin` the commands they run with words from standard input
/// (`wrappers::stdin_commands`).
pub(crate) fn unread_script_views<'a>(
    views: &[Vec<String>],
    mut stdin: impl Iterator<Item = &'a [String]>,
) -> bool {
    views.iter().any(|view| {
        let Some((first, args)) = view.split_first() else {
            return false;
        };
        let name = basename(first);
        (matches!(name, "." | "source") && args.first().is_some_and(|f| is_stdin_file(f)))
            || (name == "git" && git_alias_from_env(args))
            || (matches!(name, "mapfile" | "readarray") && callback_runs_input(args))
    }) || stdin.any(|view| {
        view.first().is_some_and(|p| {
            is_shell(basename(p)) || matches!(basename(p), "eval" | "." | "source")
        })
    })
}

/// `mapfile -C eval`, `readarray -C 'bash -c'`: the callback is handed each
/// line read, and one that evaluates its arguments runs the input as code.
fn callback_runs_input(args: &[String]) -> bool {
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let callback = match w.strip_prefix("-C") {
            Some("") => words.next().map(String::as_str),
            Some(inline) => Some(inline),
            None => None,
        };
        if let Some(first) = callback.and_then(|c| tokenize(c).into_iter().next()) {
            let name = basename(&first);
            if is_shell(name) || matches!(name, "eval" | "." | "source") {
                return true;
            }
        }
    }
    false
}

/// Package-manager commands that write a script of `package.json`, which
/// the manager runs later (`postinstall` on the next install, `test` on
/// `npm test`): programs, the subcommand words, and whether only
/// `scripts.…` keys count (`pkg set`) or every operand is a script name
/// (`set-script`).
const PACKAGE_SCRIPT_WRITERS: &[(&[&str], &[&str], bool)] = &[
    (&["npm", "pnpm"], &["pkg", "set"], true),
    (&["bun"], &["pm", "pkg", "set"], true),
    (&["npm"], &["set-script"], false),
];

/// The programs of [`PACKAGE_SCRIPT_WRITERS`].
pub(crate) fn package_script_programs() -> impl Iterator<Item = &'static str> {
    PACKAGE_SCRIPT_WRITERS
        .iter()
        .flat_map(|(programs, _, _)| programs.iter().copied())
}

/// `npm pkg set scripts.postinstall=./x`, `npm set-script prepare CMD`:
/// code planted in `package.json` that a later install or run executes.
pub(crate) fn sets_package_script(view: &[String]) -> bool {
    package_scripts(view).is_some()
}

/// The scripts a command of [`PACKAGE_SCRIPT_WRITERS`] plants (`./x` of
/// `scripts.postinstall=./x`, `CMD` of `set-script prepare CMD`); `None`
/// when it plants none.
pub(crate) fn package_scripts(view: &[String]) -> Option<Vec<&str>> {
    let name = view.first().map(|w| basename(w))?;
    if !PACKAGE_SCRIPT_WRITERS
        .iter()
        .any(|(programs, _, _)| programs.contains(&name))
    {
        return None;
    }
    // The program table knows which options take values (`--prefix app`).
    let operands = Invocation::read(view, &[]).operands;
    PACKAGE_SCRIPT_WRITERS
        .iter()
        .filter(|(programs, _, _)| programs.contains(&name))
        .find_map(|(_, subcommand, keyed)| {
            let rest = operands
                .strip_prefix(*subcommand)
                .filter(|rest| !rest.is_empty())?;
            if !keyed {
                // `set-script NAME CMD`.
                return Some(rest.get(1..).unwrap_or_default().to_vec());
            }
            let scripts: Vec<&str> = rest
                .iter()
                .filter(|w| w.starts_with("scripts.") || w.starts_with("scripts["))
                .map(|w| w.split_once('=').map_or("", |(_, v)| v))
                .collect();
            (!scripts.is_empty()).then_some(scripts)
        })
}

/// Files a command runs without naming them, as rows: programs, the
/// subcommands that run the file (empty: the program itself), the file
/// names. `npm pkg set scripts.x=…` writes `package.json` (see
/// [`written_then_run`]).
const RUNS_PROJECT_FILES: &[(&[&str], &[&str], &[&str])] = &[
    (
        &["npm", "pnpm", "yarn", "bun"],
        &["run", "run-script", "test", "t", "start", "restart", "stop"],
        &["package.json"],
    ),
    (
        &["make", "gmake"],
        &[],
        &["Makefile", "makefile", "GNUmakefile"],
    ),
    (&["just"], &[], &["justfile", "Justfile", ".justfile"]),
];

/// `printf 'git push' > p.sh && sh p.sh`, `npm pkg set scripts.t=… && npm
/// test`: a part runs a file an earlier part of the line wrote (through a
/// redirection or an option, or `tee`), whose content is a script not on
/// the line. `Some` when it does, with the literal texts written into the
/// files run (`echo 'CMD' > a.sh`, `printf …`, `tee a.sh
/// <<< 'CMD'`, `cat > a.sh <<EOF`), which the caller parses like the line;
/// empty when what was written is not literal.
pub(crate) fn written_then_run(parts: &[super::SimpleCommand]) -> Option<Vec<String>> {
    let mut written: Vec<&str> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut run = false;
    for part in parts {
        if !written.is_empty() && part_runs_one_of(part, &written) {
            run = true;
        }
        let writes = part
            .redirects
            .iter()
            .any(|r| !part.inputs.contains(r) && !r.starts_with("/dev/"));
        let tee = part.program().is_some_and(|w| basename(w) == "tee");
        if writes || tee {
            if let Some(text) = literal_output(&part.words) {
                texts.push(text);
            } else if part
                .program()
                .is_some_and(|w| matches!(basename(w), "cat" | "tee"))
            {
                texts.extend(part.fed.iter().cloned());
            }
        }
        if tee {
            written.extend(
                part.words
                    .iter()
                    .skip(1)
                    .filter(|w| !w.starts_with('-'))
                    .map(String::as_str),
            );
        }
        written.extend(
            part.redirects
                .iter()
                .filter(|r| !part.inputs.contains(r) && !r.starts_with("/dev/"))
                .map(String::as_str),
        );
        // `npm pkg set scripts.t='git push' && npm test`: the script is
        // parsed like the line when a later part runs it.
        for view in super::wrappers::views(part) {
            if let Some(scripts) = package_scripts(view) {
                written.push("package.json");
                texts.extend(
                    scripts
                        .into_iter()
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned),
                );
            }
        }
    }
    run.then_some(texts)
}

/// Whether a part runs one of `files`: as its command word, through a
/// shell, `source`/`.`/`exec` or an interpreter, or as the project file a
/// program of [`RUNS_PROJECT_FILES`] runs.
fn part_runs_one_of(part: &super::SimpleCommand, files: &[&str]) -> bool {
    let same =
        |a: &str, b: &str| a.strip_prefix("./").unwrap_or(a) == b.strip_prefix("./").unwrap_or(b);
    let written = |f: &str| files.iter().any(|w| same(w, f));
    if part.program().is_some_and(written) {
        return true;
    }
    super::wrappers::views(part).iter().any(|view| {
        let Some((first, args)) = view.split_first() else {
            return false;
        };
        let name = basename(first);
        if is_shell(name)
            || matches!(name, "source" | "." | "exec")
            || super::unread_code::is_interpreter(name)
        {
            return args
                .iter()
                .find(|a| !a.starts_with('-'))
                .is_some_and(|a| written(a));
        }
        RUNS_PROJECT_FILES
            .iter()
            .any(|(programs, subcommands, project_files)| {
                programs.contains(&name)
                    && (subcommands.is_empty()
                        || args
                            .iter()
                            .find(|a| !a.starts_with('-'))
                            .is_some_and(|a| subcommands.contains(&a.as_str())))
                    && project_files.iter().any(|f| written(f))
            })
    })
}

/// Text that evaluates a variable's value as code later: prompt
/// expansion (`${x@P}`), indirection (`${!x}`, which also evaluates an
/// array subscript), arithmetic (`$((x))`, `((x))`, `[[ x -eq 0 ]]`,
/// `let x`, integer variables `declare -i`), a substring offset by name
/// (`${s:x}`). A value holding `$(…)` or a subscript with one is run then.
const EVALUATING: &[&str] = &[
    "@P}",
    "${!",
    "$((",
    "((",
    "[[",
    "let ",
    "declare -i",
    "typeset -i",
    "local -i",
    "declare -ai",
    "declare -ia",
    // `$[_]`: the old arithmetic expansion.
    "$[",
];

/// `x='$(git push)'; echo ${x@P}`, `x='a[$(rm -rf ~)]'; echo $((x))`,
/// `coproc sh; echo CMD >&${COPROC[1]}`, `echo CMD > >(sh)`: code stored as
/// text and evaluated later on the line, or a shell reading what the line
/// writes into a coprocess or a process substitution. What runs is not on
/// the line as a command. `Some` with the texts to parse like the line
/// (the stored values, or what `echo`/`printf` print), `None` otherwise.
pub(crate) fn evaluated_later(source: &str, parts: &[super::SimpleCommand]) -> Option<Vec<String>> {
    let stored = stored_code(source, parts);
    if !stored.is_empty() {
        return Some(stored);
    }
    shell_reads_the_line(source, parts).then(|| printed_texts(parts))
}

/// A shell reading what the line writes into a coprocess or a process
/// substitution (`coproc sh`, `sh < <(…)`, `echo CMD > >(sh)`).
fn shell_reads_the_line(source: &str, parts: &[super::SimpleCommand]) -> bool {
    let shell_on_stdin = |p: &super::SimpleCommand| {
        // `coproc sh` may be read as one command named `coproc`.
        let words = match p.words.split_first() {
            Some((first, rest)) if first == "coproc" => rest,
            _ => p.words.as_slice(),
        };
        words.split_first().is_some_and(|(first, args)| {
            let name = basename(first);
            let script = args.iter().find(|a| !a.starts_with('-'));
            // `sh`, `sh < <(…)`, `sh <(…)`, `. <(…)`, `sh /dev/stdin`.
            (is_shell(name) || matches!(name, "." | "source"))
                && script.is_none_or(|s| {
                    s.starts_with("<(") || is_stdin_file(s) || s.starts_with("/dev/fd/")
                })
                && (is_shell(name) || script.is_some())
        })
    };
    // The parts first: most lines have no shell reading its input, and
    // each search of the text costs more than looking at every part.
    parts.iter().any(shell_on_stdin)
        && (source.contains("coproc") || source.contains(">(") || source.contains("<("))
}

/// What `echo`/`printf` print on a line where a shell reads a coprocess or
/// a process substitution ([`evaluated_later`]): each is parsed as a
/// script, as `echo CMD | sh` is.
fn printed_texts(parts: &[super::SimpleCommand]) -> Vec<String> {
    parts
        .iter()
        .filter(|p| {
            p.program()
                .is_some_and(|w| matches!(basename(w), "echo" | "printf"))
        })
        .map(|p| {
            p.words
                .iter()
                .skip(1)
                .filter(|w| !w.starts_with('-'))
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// The values stored as text that hold a command substitution, on a line
/// that evaluates a variable later ([`EVALUATING`], `${s:x}`): each is
/// parsed as a script too, so deny rules and the blacklist see what the
/// evaluation would run (`x='$(git push)'; echo ${x@P}` is blocked by a
/// `git push` deny rule).
fn stored_code(source: &str, parts: &[super::SimpleCommand]) -> Vec<String> {
    let holds_code = |value: &str| value.contains("$(") || value.contains('`');
    let literal = |text: &str| text.contains('\'') || text.contains("\\$");
    let mut out: Vec<String> = Vec::new();
    let count = parts.len();
    for (at, p) in parts.iter().enumerate() {
        // `$_` is the previous command's last word: `ls 'a[$(CMD)]';
        // echo $((_))` (also `${PWD:_}`, `$[_]`) evaluates it. A word
        // holding a substitution as text was quoted (an unquoted one has
        // run and is parsed already).
        if at + 1 < count
            && let Some(last) = p
                .words
                .last()
                .filter(|w| p.words.len() > 1 && w.contains(['$', '`']) && holds_code(w))
        {
            out.push(last.clone());
        }
        for a in &p.assignments {
            if let Some((_, value)) = a.split_once('=')
                && holds_code(value)
                && literal(value)
            {
                out.push(value.trim_matches('\'').to_owned());
            }
        }
        if p.program()
            .is_some_and(|w| matches!(w, "declare" | "typeset" | "local" | "export" | "readonly"))
        {
            // The words are unquoted: a value with a substitution in it
            // was quoted (an unquoted one has already run and is parsed).
            out.extend(
                p.words
                    .iter()
                    .skip(1)
                    .filter_map(|w| w.split_once('='))
                    .filter(|(_, v)| holds_code(v))
                    .map(|(_, v)| v.to_owned()),
            );
        }
    }
    if out.is_empty() || !(EVALUATING.iter().any(|e| source.contains(e)) || offset_by_name(source))
    {
        return Vec::new();
    }
    // `a[$(CMD)]`: the subscript is what is evaluated.
    for value in &mut out {
        if let Some((name, rest)) = value.split_once('[')
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && let Some(subscript) = rest.strip_suffix(']')
        {
            *value = subscript.to_owned();
        }
    }
    out
}

/// `${s:x}`: a substring whose offset is a variable's name (evaluated as
/// arithmetic), not `${x:-default}` or `${x:=v}`.
fn offset_by_name(source: &str) -> bool {
    source.match_indices("${").any(|(at, _)| {
        let rest = &source[at + 2..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        rest[name_end..]
            .strip_prefix(':')
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
    })
}

/// git subcommands that do what another does, so rules written for that
/// one apply: the words of the subcommand, and the one it stands for
/// (`git send-pack origin main` pushes like `git push origin main`).
const GIT_SYNONYMS: &[(&[&str], &str)] = &[
    (&["send-pack"], "push"),
    (&["http-push"], "push"),
    (&["subtree", "push"], "push"),
];

/// `git send-pack ARGS…` read as `git push ARGS…` (see [`GIT_SYNONYMS`]).
fn git_synonym(view: &[String]) -> Option<String> {
    // Most git commands name none: no reading for them.
    if !view.iter().any(|w| {
        GIT_SYNONYMS
            .iter()
            .any(|(path, _)| path.first() == Some(&w.as_str()))
    }) {
        return None;
    }
    let inv = Invocation::read(view, &[]);
    GIT_SYNONYMS.iter().find_map(|(path, stands_for)| {
        let matches =
            inv.operands.len() >= path.len() && path.iter().zip(&inv.operands).all(|(p, o)| p == o);
        matches.then(|| {
            let rest = inv.operands.get(path.len()..).unwrap_or_default();
            let mut words = vec!["git", stands_for];
            words.extend(rest.iter().copied());
            super::words::join_argv(words, true)
        })
    })
}

/// How many alias definitions of one git command are read as scripts
/// when one of them runs a shell (past it, the scripts the line may parse
/// run out and the line names `limits/script-count`).
const MAX_ALIAS_SCRIPTS: usize = 16;

/// Names of standard input as a file.
pub(crate) fn is_stdin_file(path: &str) -> bool {
    matches!(path, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "-")
}

/// The string a shell runs with `-c`: options (`-o pipefail`, `-O extglob`,
/// `--rcfile f`, `-e`) may come before or after `-c`, and `--` before the string.
fn shell_c_string(args: &[String]) -> Option<String> {
    let mut saw_c = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            if saw_c {
                continue;
            }
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                iter.next();
            }
            continue;
        }
        if let Some(flags) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+'))
            && !flags.is_empty()
        {
            saw_c |= arg.starts_with('-') && flags.contains('c');
            if flags.contains(['o', 'O']) {
                iter.next();
            }
            continue;
        }
        return saw_c.then(|| arg.clone());
    }
    None
}

/// The value of `-X` (also in a cluster: `-qc CMD`, `-cCMD`) or of `--long`
/// (`--long CMD`, `--long=CMD`), anywhere among `args`.
fn option_value(args: &[String], short: char, long: &str) -> Option<String> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == long {
            return iter.next().cloned();
        }
        if let Some(value) = arg
            .strip_prefix(long)
            .and_then(|rest| rest.strip_prefix('='))
        {
            return Some(value.to_owned());
        }
        if let Some(cluster) = arg.strip_prefix('-')
            && !cluster.starts_with('-')
            && let Some(at) = cluster.find(short)
        {
            let attached = cluster.get(at + short.len_utf8()..).unwrap_or_default();
            return if attached.is_empty() {
                iter.next().cloned()
            } else {
                Some(attached.to_owned())
            };
        }
    }
    None
}

/// `watch [options] CMD…` runs `CMD…` joined, through `sh -c`.
fn watch_command(args: &[String]) -> Option<String> {
    let mut iter = args.iter();
    let mut rest: Vec<&str> = Vec::new();
    while let Some(arg) = iter.next() {
        if !rest.is_empty() {
            rest.push(arg);
            continue;
        }
        if arg == "--" {
            rest.extend(iter.by_ref().map(String::as_str));
            break;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            if matches!(
                arg.as_str(),
                "-n" | "--interval" | "-d" | "-q" | "--equexit"
            ) {
                iter.next();
            }
            continue;
        }
        rest.push(arg);
    }
    (!rest.is_empty()).then(|| rest.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_prints_its_arguments_through_the_format() {
        let out = |words: &[&str]| {
            literal_output(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(
            out(&["printf", "%s", "rm -rf ~"]).as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            out(&["printf", "%s\\n", "git push"]).as_deref(),
            Some("git push\n")
        );
        assert_eq!(out(&["printf", "rm -rf ~"]).as_deref(), Some("rm -rf ~"));
        assert_eq!(
            out(&["printf", "%s %s", "git", "push"]).as_deref(),
            Some("git push")
        );
        assert_eq!(out(&["printf", "100%%"]).as_deref(), Some("100%"));
        assert_eq!(
            out(&["echo", "-n", "git", "push"]).as_deref(),
            Some("git push")
        );
    }

    #[test]
    fn both_readings_mark_the_pipes() {
        for line in ["a | b | c", "echo x | wc -c", "a && b | c"] {
            let fast = crate::shell::ShellCommand::parse(line);
            let grammar = crate::shell::ShellCommand::parse_with_grammar(line);
            let flags = |c: &crate::shell::ShellCommand| {
                c.parts()
                    .iter()
                    .map(|p| (p.pipe_in, p.pipe_out))
                    .collect::<Vec<_>>()
            };
            assert_eq!(flags(&fast), flags(&grammar), "{line}");
        }
        let flags: Vec<(bool, bool)> = crate::shell::ShellCommand::parse_with_grammar("a && b | c")
            .parts()
            .iter()
            .map(|p| (p.pipe_in, p.pipe_out))
            .collect();
        assert_eq!(flags, [(false, false), (false, true), (true, false)]);
    }

    #[test]
    fn code_stored_as_text_and_evaluated_later() {
        let evaluates = |line: &str| {
            let shell = crate::shell::ShellCommand::parse(line);
            evaluated_later(line, shell.parts()).is_some()
        };
        for line in [
            "x='$(git push)'; echo ${x@P}",
            "x='a[$(rm -rf ~)]'; echo ${!x}",
            "x='a[$(rm -rf ~)]'; echo $((x))",
            "x='a[$(rm -rf ~)]'; [[ x -eq 0 ]]",
            "x='a[$(rm -rf ~)]'; echo ${s:x}",
            "x='a[$(rm -rf ~)]'; let x",
            "x='a[$(rm -rf ~)]'; declare -i y=x",
            "coproc sh; echo 'git push' >&${COPROC[1]}",
            "echo 'git push' > >(sh)",
            "sh < <(echo 'rm -rf ~')",
            "bash <(printf 'rm -rf ~')",
            ". <(echo 'rm -rf ~')",
        ] {
            assert!(evaluates(line), "{line}");
        }
        for line in [
            "x=$(git rev-parse HEAD); echo $((1 + 2))",
            "msg='use $(cmd) to run'; echo \"$msg\"",
            "n=3; echo $((n * 2))",
            "echo ${HOME:-/tmp} ${x:=y}",
            "diff <(sort a) <(sort b)",
            "tee >(wc -l) < f",
        ] {
            assert!(!evaluates(line), "{line}");
        }
    }

    #[test]
    fn files_written_then_run_on_the_same_line() {
        let runs = |line: &str| {
            written_then_run(crate::shell::ShellCommand::parse(line).parts()).is_some()
        };
        for line in [
            "printf 'git push' > p.sh && sh p.sh",
            "echo 'git push' > p.sh; . ./p.sh",
            "echo x >> run.sh && chmod +x run.sh && ./run.sh",
            "npm pkg set scripts.t='git push' && npm test",
            "echo 'all:; git push' > Makefile && make",
            "cat > x.py <<< 'print(1)' && python3 x.py",
            "tee a.sh <<< 'rm -rf ~' >/dev/null; . ./a.sh",
        ] {
            assert!(runs(line), "{line}");
        }
        let texts = |line: &str| {
            written_then_run(crate::shell::ShellCommand::parse(line).parts()).unwrap_or_default()
        };
        assert_eq!(texts("echo 'rm -rf ~' > a.sh; . a.sh"), ["rm -rf ~"]);
        assert_eq!(
            texts("printf '%s' 'git push' > p.sh && sh p.sh"),
            ["git push"]
        );
        assert_eq!(
            texts("tee a.sh <<< 'rm -rf ~' >/dev/null; sh a.sh"),
            ["rm -rf ~"]
        );
        for line in [
            "cargo build > build.log && tail build.log",
            "sh p.sh; echo x > p.sh",
            "echo x > out.txt && python3 gen.py",
            "npm pkg set version=1.2.3 && npm test",
            "make > make.log && ./bin/app",
        ] {
            assert!(!runs(line), "{line}");
        }
    }

    fn words(text: &str) -> Vec<String> {
        tokenize(text)
    }

    fn scripts(text: &str) -> Vec<String> {
        scripts_of(&words(text))
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    #[test]
    fn finds_c_strings_behind_options_and_wrappers() {
        for cmd in [
            "bash -c 'rm -rf /'",
            "bash -o pipefail -c 'rm -rf /'",
            "bash -O extglob -c 'rm -rf /'",
            "bash --rcfile x -c 'rm -rf /'",
            "bash -c -- 'rm -rf /'",
            "sudo bash -c 'rm -rf /'",
            "timeout 5 bash -c 'rm -rf /'",
            "env bash -c 'rm -rf /'",
            "nohup sh -c 'rm -rf /'",
            "xargs sh -c 'rm -rf /'",
            "busybox sh -c 'rm -rf /'",
            "su -c 'rm -rf /'",
            "su root -c 'rm -rf /'",
            "script -c 'rm -rf /'",
            "script -qc 'rm -rf /'",
            "flock f -c 'rm -rf /'",
            "watch 'rm -rf /'",
        ] {
            assert!(scripts(cmd).contains(&"rm -rf /".to_owned()), "{cmd}");
        }
        assert!(scripts("bash script.sh -c x").is_empty());
    }

    #[test]
    fn git_subcommands_and_traps_run_scripts() {
        for (cmd, script) in [
            ("git submodule foreach git push", "git push"),
            (
                "git submodule --quiet foreach --recursive 'rm -rf /'",
                "rm -rf /",
            ),
            ("git -C x rebase -x 'make test' main", "make test"),
            ("git rebase --exec=make main", "make"),
            ("git rebase -xmake main", "make"),
            ("git bisect run ./t.sh 1", "./t.sh 1"),
            ("trap 'rm -rf /' EXIT", "rm -rf /"),
            ("trap -- 'git push' INT", "git push"),
        ] {
            assert_eq!(scripts(cmd), [script.to_owned()], "{cmd}");
        }
        for cmd in [
            "git submodule status",
            "git rebase main",
            "trap - EXIT",
            "trap -p",
            "trap '' INT",
        ] {
            assert!(scripts(cmd).is_empty(), "{cmd}");
        }
    }

    #[test]
    fn knows_which_commands_read_a_script_on_stdin() {
        for cmd in [
            "sh",
            "bash",
            "bash -s",
            "sudo bash",
            "bash -e",
            "at now",
            "busybox sh",
        ] {
            assert!(reads_stdin_script(&words(cmd)), "{cmd}");
        }
        assert!(reads_stdin_script(&words(". /dev/stdin")));
        assert!(reads_stdin_script(&words("source /dev/fd/0")));
        for cmd in ["bash x.sh", "sh -c ls", "cat", "at -f x now", ". ./env.sh"] {
            assert!(!reads_stdin_script(&words(cmd)), "{cmd}");
        }
    }
}
