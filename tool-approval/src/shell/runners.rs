//! Programs and subcommands that run a command given on their line, as
//! rows: terminal multiplexers (`tmux new-session CMD`, `screen -X stuff`),
//! container exec (`docker exec C CMD…`, `kubectl exec P -- CMD…`), job
//! runners (`pueue add -- CMD`, `tsp CMD`, `entr -s CMD`), `parallel`,
//! git's external diff tools (`git difftool -x CMD`) and `ext::` remotes.
//!
//! A row names the program, the subcommand words that lead to the command
//! (none, one or two: `compose exec`), the options that take a separate
//! value (so their values are not read as the command), how many operands
//! come before the command (a container, a pod), and how the command is
//! given: as words to run ([`Given::Argv`]), as one shell string
//! ([`Given::Script`]: the operands joined), in an option's value
//! ([`Given::OptionValue`]), as the words after an option
//! ([`Given::ArgvAfter`]: `nix develop -c CMD…`), in option values with a
//! prefix ([`Given::PrefixedValues`]: `gdb -ex 'shell CMD'`), or as a
//! program option and the words after `--` ([`Given::ProgramThenArgs`]);
//! options may take two or three values (`bwrap --bind SRC DEST`). The command found is judged like a `bash -c`
//! string (a nested script). A new runner is one row.

use super::table::takes_separate_value;
use super::types::Hazard;
use super::words::{basename, join_argv, option_values};

/// How a row's command is given.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Given {
    /// The words after the options and leading operands are a command.
    Argv,
    /// The operands after the options and leading operands, joined by
    /// spaces, are a shell string (`tmux new-window 'CMD'`, `pueue add`).
    Script,
    /// The value of one of these options is a shell string.
    OptionValue(&'static [&'static str]),
    /// The words after one of these options are a command (`nix develop
    /// -c CMD…`, `fd -x CMD…`).
    ArgvAfter(&'static [&'static str]),
    /// Each value of the options (first list) that starts with one of the
    /// prefixes (second list) is, without it, a shell string (`gdb -ex
    /// 'shell CMD'`, `-ex '!CMD'`); the values found are joined as lines.
    PrefixedValues(&'static [&'static str], &'static [&'static str]),
    /// The value of one of these options is the program, and the words
    /// after `--` its arguments (`start-stop-daemon -S -x PROG -- ARGS`).
    ProgramThenArgs(&'static [&'static str]),
    /// Each operand that starts with one of these prefixes is, without it,
    /// a shell string (`less '+!CMD' FILE`: a start-up command that runs a
    /// shell).
    PrefixedOperands(&'static [&'static str]),
}

/// One runner.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runner {
    /// Program names.
    pub(crate) programs: &'static [&'static str],
    /// Subcommand words, in order, each with its aliases (`new-session`
    /// or `new`); empty for the program itself.
    pub(crate) path: &'static [&'static [&'static str]],
    /// Options (of the program and the subcommand) that take a separate
    /// value, and short options whose value may follow in one word.
    pub(crate) valued: &'static [&'static str],
    /// Operands before the command (a container, a pod, a service).
    pub(crate) leading: usize,
    /// How the command is given.
    pub(crate) given: Given,
    /// Operands that are key names, not text (`send-keys … Enter`).
    pub(crate) ignore: &'static [&'static str],
    /// Options that take more than one separate value, with how many
    /// (`bwrap --bind SRC DEST`).
    pub(crate) multi: &'static [(&'static str, usize)],
}

const TMUX_VALUED: &[&str] = &[
    "-L", "-S", "-f", "-T", "-c", "-e", "-F", "-n", "-s", "-t", "-x", "-y", "-l", "-N", "-X",
];
const DOCKER_EXEC_VALUED: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
    "--index",
    "-H",
    "--host",
    "--context",
    "-c",
    "--config",
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--profile",
];
const KUBECTL_VALUED: &[&str] = &[
    "-c",
    "--container",
    "-n",
    "--namespace",
    "-f",
    "--filename",
    "--context",
    "--cluster",
    "--kubeconfig",
    "--pod-running-timeout",
    "-s",
    "--server",
    "--user",
    "--as",
];

/// The rows.
pub(crate) const RUNNERS: &[Runner] = &[
    Runner {
        programs: &["tmux"],
        path: &[&[
            "new-session",
            "new",
            "new-window",
            "neww",
            "split-window",
            "splitw",
            "respawn-pane",
            "respawnp",
            "respawn-window",
            "respawnw",
            "run-shell",
            "run",
            "if-shell",
            "if",
            "display-popup",
            "popup",
            "pipe-pane",
            "pipep",
        ]],
        valued: TMUX_VALUED,
        leading: 0,
        given: Given::Script,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["tmux"],
        path: &[&["send-keys", "send"]],
        valued: TMUX_VALUED,
        leading: 0,
        given: Given::Script,
        ignore: &["Enter", "C-m", "C-j", "KPEnter", "Space", "Tab"],
        multi: &[],
    },
    Runner {
        programs: &["screen"],
        path: &[],
        valued: &["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-Logfile"],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &[
            "docker",
            "podman",
            "nerdctl",
            "docker-compose",
            "podman-compose",
        ],
        path: &[&["exec"]],
        valued: DOCKER_EXEC_VALUED,
        leading: 1,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["docker", "podman", "nerdctl"],
        path: &[&["compose", "container"], &["exec"]],
        valued: DOCKER_EXEC_VALUED,
        leading: 1,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["kubectl", "oc", "microk8s.kubectl"],
        path: &[&["exec"]],
        valued: KUBECTL_VALUED,
        leading: 1,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["pueue"],
        path: &[&["add"]],
        valued: &[
            "-w",
            "--working-directory",
            "-d",
            "--delay",
            "-g",
            "--group",
            "-a",
            "--after",
            "-o",
            "--priority",
            "-l",
            "--label",
        ],
        leading: 0,
        given: Given::Script,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["tsp", "ts", "nq", "chronic"],
        path: &[],
        valued: &["-L", "-D", "-N", "-S", "-j", "--id"],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["watchexec"],
        path: &[],
        valued: &[
            "-e",
            "--exts",
            "-w",
            "--watch",
            "-i",
            "--ignore",
            "-d",
            "--debounce",
            "-s",
            "--signal",
            "--shell",
            "--project-origin",
            "--workdir",
            "-E",
            "--env",
            "--delay-run",
            "--on-busy-update",
            "--filter",
            "-f",
        ],
        leading: 0,
        given: Given::Script,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["entr"],
        path: &[],
        valued: &[],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
        multi: &[],
    },
    Runner {
        programs: &["git"],
        path: &[&["difftool"]],
        valued: &["-C", "-c", "--git-dir", "--work-tree", "-t", "--tool"],
        leading: 0,
        given: Given::OptionValue(&["-x", "--extcmd"]),
        ignore: &[],
        multi: &[],
    },
    // Red-team round of 2026-12-05: environment managers, secret injectors,
    // session and container runners that run the rest of the line.
    argv(
        &["poetry"],
        &[&["run"]],
        &["-C", "--directory", "-P", "--project"],
        0,
    ),
    argv(&["pipenv"], &[&["run"]], &[], 0),
    argv(
        &["conda", "mamba", "micromamba"],
        &[&["run"]],
        &["-n", "--name", "-p", "--prefix", "--cwd"],
        0,
    ),
    argv(&["bundle", "bundler"], &[&["exec"]], &["--gemfile"], 0),
    argv(
        &["mise", "rtx"],
        &[&["exec", "x"]],
        &["-C", "--cd", "-E", "--env", "-j", "--jobs"],
        0,
    ),
    argv(&["asdf"], &[&["exec"]], &[], 0),
    argv(&["direnv"], &[&["exec"]], &[], 1),
    argv(&["uv"], &[&["run"]], UV_RUN_VALUED, 0),
    argv(&["op"], &[&["run"]], &["--env-file", "--account"], 0),
    argv(
        &["doppler"],
        &[&["run"]],
        &["-p", "--project", "-c", "--config", "--token"],
        0,
    ),
    argv(
        &["aws-vault"],
        &[&["exec"]],
        &[
            "-d",
            "--duration",
            "--region",
            "-t",
            "--mfa-token",
            "--backend",
        ],
        1,
    ),
    argv(
        &["distrobox"],
        &[&["enter"]],
        &["-a", "--additional-flags"],
        1,
    ),
    argv(
        &["lxc", "incus"],
        &[&["exec"]],
        &["--env", "--cwd", "--user", "--group", "--mode"],
        1,
    ),
    argv(
        &["zellij"],
        &[&["run"]],
        &["-n", "--name", "--cwd", "-d", "--direction"],
        0,
    ),
    argv(&["dtach"], &[], &["-n", "-c", "-A", "-N", "-e", "-r"], 0),
    argv(&["flatpak-spawn"], &[], &["--directory", "--forward-fd"], 0),
    argv(&["ssh-agent"], &[], &["-a", "-E", "-t", "-P", "-O"], 0),
    argv(
        &["dbus-run-session"],
        &[],
        &["--config-file", "--dbus-daemon"],
        0,
    ),
    argv(&["proxychains", "proxychains4"], &[], &["-f"], 0),
    argv(
        &["retry"],
        &[],
        &[
            "-t",
            "--tries",
            "-d",
            "--delay",
            "-u",
            "--until",
            "-m",
            "--max-time",
        ],
        0,
    ),
    argv(&["dotenv"], &[], &["-e", "-v", "-c"], 0),
    script(
        &["sem"],
        &[],
        &["-j", "--jobs", "--id", "--semaphore-timeout", "--st"],
        0,
    ),
    script(&["hyperfine"], &[], HYPERFINE_VALUED, 0),
    valued_script(
        &["hyperfine"],
        &["-p", "--prepare", "-c", "--cleanup", "-s", "--setup"],
    ),
    valued_script(&["nix-shell"], &["--run", "--command"]),
    // `tmux -c CMD` runs CMD with the default shell, like `sh -c`.
    valued_script(&["tmux"], &["-c"]),
    // Red-team round of 2026-12-06.
    // `mapfile -C CMD -c N`: CMD is evaluated every N lines read.
    valued_script(&["mapfile", "readarray"], &["-C"]),
    // `less '+!CMD' F`: a start-up command that runs a shell.
    given(&["less"], &[], Given::PrefixedOperands(&["+!", "+|"])),
    // `git filter-branch --tree-filter CMD`: CMD runs for every commit.
    given(
        &["git"],
        &[&["filter-branch"]],
        Given::OptionValue(&[
            "--tree-filter",
            "--index-filter",
            "--msg-filter",
            "--env-filter",
            "--commit-filter",
            "--parent-filter",
            "--tag-name-filter",
        ]),
    ),
    valued_script(&["doppler"], &["--command"]),
    valued_script(&["sg"], &["-c"]),
    script(&["sg"], &[], &[], 1),
    script(&["scl"], &[&["enable"]], &[], 1),
    // Red-team round of 2026-12-05, second part: the command after an
    // option, in an option's prefixed value, or as a program option and
    // the words after `--`; options with two or three values.
    given(
        &["nix"],
        &[&["develop", "shell"]],
        Given::ArgvAfter(&["-c", "--command"]),
    ),
    given(
        &["fd", "fdfind"],
        &[],
        Given::ArgvAfter(&["-x", "--exec", "-X", "--exec-batch"]),
    ),
    given(
        &["gdb", "gdb-multiarch", "cgdb"],
        &[],
        Given::PrefixedValues(
            &[
                "-ex",
                "--ex",
                "-eval-command",
                "--eval-command",
                "-iex",
                "--init-eval-command",
            ],
            &["shell ", "!", "pipe "],
        ),
    ),
    given(
        &["start-stop-daemon"],
        &[],
        Given::ProgramThenArgs(&["-x", "--exec", "-a", "--startas"]),
    ),
    argv(&["kubectl", "oc"], &[&["debug"]], KUBECTL_DEBUG_VALUED, 1),
    Runner {
        programs: &["bwrap", "bubblewrap"],
        path: &[],
        valued: BWRAP_VALUED,
        leading: 0,
        given: Given::Argv,
        ignore: &[],
        multi: &[
            ("--bind", 2),
            ("--bind-try", 2),
            ("--dev-bind", 2),
            ("--dev-bind-try", 2),
            ("--ro-bind", 2),
            ("--ro-bind-try", 2),
            ("--symlink", 2),
            ("--setenv", 2),
            ("--file", 2),
            ("--bind-data", 2),
            ("--ro-bind-data", 2),
            ("--chmod", 2),
            ("--overlay", 3),
            ("--ro-overlay", 2),
        ],
    },
];

const KUBECTL_DEBUG_VALUED: &[&str] = &[
    "-c",
    "--container",
    "-n",
    "--namespace",
    "--image",
    "--profile",
    "--target",
    "--copy-to",
    "--env",
    "--image-pull-policy",
    "--context",
    "--kubeconfig",
    "--as",
];

const BWRAP_VALUED: &[&str] = &[
    "--chdir",
    "--uid",
    "--gid",
    "--hostname",
    "--seccomp",
    "--info-fd",
    "--lock-file",
    "--remount-ro",
    "--proc",
    "--dev",
    "--tmpfs",
    "--mqueue",
    "--dir",
    "--cap-add",
    "--cap-drop",
    "--exec-label",
    "--file-label",
    "--sync-fd",
    "--block-fd",
    "--userns-block-fd",
    "--json-status-fd",
    "--unsetenv",
    "--argv0",
    "--perms",
    "--size",
    "--userns",
    "--userns2",
    "--pidns",
    "--add-seccomp-fd",
    "--overlay-src",
    "--tmp-overlay",
    "--args",
];

/// A row whose command is the words that follow (`poetry run CMD…`).
const fn argv(
    programs: &'static [&'static str],
    path: &'static [&'static [&'static str]],
    valued: &'static [&'static str],
    leading: usize,
) -> Runner {
    row(programs, path, valued, leading, Given::Argv)
}

/// A row whose operands are one shell string (`hyperfine 'CMD'`).
const fn script(
    programs: &'static [&'static str],
    path: &'static [&'static [&'static str]],
    valued: &'static [&'static str],
    leading: usize,
) -> Runner {
    row(programs, path, valued, leading, Given::Script)
}

const fn row(
    programs: &'static [&'static str],
    path: &'static [&'static [&'static str]],
    valued: &'static [&'static str],
    leading: usize,
    given: Given,
) -> Runner {
    Runner {
        programs,
        path,
        valued,
        leading,
        given,
        ignore: &[],
        multi: &[],
    }
}

/// A row whose command is given some other way (see [`Given`]): options
/// anywhere on the line are searched, so no path or valued options.
const fn given(
    programs: &'static [&'static str],
    path: &'static [&'static [&'static str]],
    given: Given,
) -> Runner {
    row(programs, path, &[], 0, given)
}

/// A row where an option's value is a shell string (`nix-shell --run 'CMD'`).
const fn valued_script(
    programs: &'static [&'static str],
    options: &'static [&'static str],
) -> Runner {
    row(programs, &[], &[], 0, Given::OptionValue(options))
}

const UV_RUN_VALUED: &[&str] = &[
    "--with",
    "-w",
    "--python",
    "-p",
    "--project",
    "--directory",
    "--package",
    "--extra",
    "--group",
    "--env-file",
    "--index",
    "--from",
    "--with-requirements",
];

const HYPERFINE_VALUED: &[&str] = &[
    "-w",
    "--warmup",
    "-r",
    "--runs",
    "-m",
    "--min-runs",
    "-M",
    "--max-runs",
    "-p",
    "--prepare",
    "-c",
    "--cleanup",
    "-s",
    "--setup",
    "--export-json",
    "--export-markdown",
    "--export-csv",
    "-n",
    "--command-name",
    "-S",
    "--shell",
    "-L",
    "--parameter-list",
    "-P",
    "--parameter-scan",
    "-D",
    "--parameter-step-size",
    "-N",
];

/// The words after the options (and their values) of a word list: stops
/// at the first operand; `--` ends the options.
fn skip_options<'w>(words: &'w [String], valued: &[&str]) -> &'w [String] {
    skip_options_multi(words, valued, &[])
}

/// [`skip_options`] where some options take more than one value.
fn skip_options_multi<'w>(
    words: &'w [String],
    valued: &[&str],
    multi: &[(&str, usize)],
) -> &'w [String] {
    let mut at = 0;
    while let Some(word) = words.get(at) {
        if word == "--" {
            return words.get(at + 1..).unwrap_or_default();
        }
        if !word.starts_with('-') || word.len() < 2 {
            break;
        }
        // `-dmS name`: a bundle of short flags ending in a valued one (the
        // program table's rule, `table::takes_separate_value`).
        if let Some((_, count)) = multi.iter().find(|(o, _)| o == word) {
            at += 1 + count;
            continue;
        }
        let takes_value = takes_separate_value(word, &|o| valued.contains(&o));
        at += 1 + usize::from(takes_value && !word.contains('='));
    }
    words.get(at..).unwrap_or_default()
}

/// Every value of `options` (`-x V`, `--opt V`, `--opt=V`), in order.
/// The value of one of `options` (`-x V`, `-xV`, `--opt V`, `--opt=V`).
fn option_value(words: &[String], options: &[&str]) -> Option<String> {
    option_values(words, options)
        .first()
        .map(|v| (*v).to_owned())
}

fn argv_script(words: &[String]) -> Option<String> {
    (!words.is_empty()).then(|| join_argv(words.iter().map(String::as_str), true))
}

/// The command a row runs, if `args` (the words after the program) match it.
fn row_script(row: &Runner, args: &[String]) -> Option<String> {
    let skip = |words| skip_options_multi(words, row.valued, row.multi);
    let mut rest = skip(args);
    for step in row.path {
        let (word, after) = rest.split_first()?;
        if !step.contains(&word.as_str()) {
            return None;
        }
        rest = skip(after);
    }
    match row.given {
        Given::OptionValue(options) => return option_value(args, options),
        Given::ArgvAfter(options) => {
            let at = args.iter().position(|w| options.contains(&w.as_str()))?;
            return argv_script(args.get(at + 1..).unwrap_or_default());
        }
        Given::PrefixedValues(options, prefixes) => {
            let found: Vec<&str> = option_values(args, options)
                .into_iter()
                .filter_map(|v| prefixes.iter().find_map(|p| v.strip_prefix(p)))
                .collect();
            return (!found.is_empty()).then(|| found.join("\n"));
        }
        Given::PrefixedOperands(prefixes) => {
            let found: Vec<&str> = args
                .iter()
                .filter_map(|a| prefixes.iter().find_map(|p| a.strip_prefix(p)))
                .collect();
            return (!found.is_empty()).then(|| found.join("\n"));
        }
        Given::ProgramThenArgs(options) => {
            let program = option_value(args, options)?;
            let after = args
                .iter()
                .position(|w| w == "--")
                .map_or(&[][..], |at| args.get(at + 1..).unwrap_or_default());
            let mut words = vec![program];
            words.extend(after.iter().cloned());
            return argv_script(&words);
        }
        Given::Argv | Given::Script => {}
    }
    // `kubectl exec POD -- CMD`: options may follow the leading operands.
    let mut rest = rest.get(row.leading.min(rest.len())..).unwrap_or_default();
    rest = skip(rest);
    match row.given {
        Given::Argv => {
            // `screen -X stuff TEXT`: TEXT is typed into the session.
            if args.iter().any(|w| w == "-X") {
                return match rest.split_first() {
                    Some((cmd, text)) if cmd == "stuff" => Some(text.join(" ")),
                    Some((cmd, argv)) if cmd == "exec" || cmd == "screen" => argv_script(argv),
                    _ => None,
                };
            }
            // `entr -s CMD`: a shell string.
            if row.programs.contains(&"entr") && args.iter().any(|w| w == "-s") {
                return rest.first().cloned();
            }
            argv_script(rest)
        }
        Given::Script => {
            let words: Vec<&str> = rest
                .iter()
                .map(String::as_str)
                .filter(|w| !row.ignore.contains(w))
                .collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        Given::OptionValue(_)
        | Given::ArgvAfter(_)
        | Given::PrefixedValues(..)
        | Given::PrefixedOperands(_)
        | Given::ProgramThenArgs(_) => None,
    }
}

/// The command text of an `ext::` remote (`ext::sh -c rm% -rf% ~`): `% `
/// is a space inside a word, `%%` a `%`, other spaces split words.
fn ext_remote(url: &str) -> Option<String> {
    let command = url.strip_prefix("ext::")?;
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => words.last_mut()?.push(' '),
                Some('%') => words.last_mut()?.push('%'),
                // `%s`, `%S`, `%G`: the service and repository, filled in by git.
                Some(other) => {
                    words.last_mut()?.push('%');
                    words.last_mut()?.push(other);
                }
                None => words.last_mut()?.push('%'),
            },
            ' ' => words.push(String::new()),
            other => words.last_mut()?.push(other),
        }
    }
    words.retain(|w| !w.is_empty());
    argv_script(&words)
}

/// The rows of [`RUNNERS`] for `program`, in table order, through an
/// index built from the rows once (most command words name none).
fn runner_rows(program: &str) -> &'static [&'static Runner] {
    type Index = crate::name_hash::NameMap<&'static str, Vec<&'static Runner>>;
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| crate::name_hash::index_by_name(RUNNERS, |r| r.programs));
    index.get(program).map_or(&[], Vec::as_slice)
}

/// The scripts of a command run by a row of [`RUNNERS`], by `parallel`
/// or through an `ext::` remote, with the hazard each brings. A script
/// whose text is not on the line (`parallel :::: FILE`) is an empty text
/// with [`Hazard::UnreadScript`].
pub(crate) fn runner_scripts(first: &str, args: &[String]) -> Vec<(Hazard, String)> {
    let name = basename(first);
    let mut out: Vec<(Hazard, String)> = Vec::new();
    for row in runner_rows(name) {
        if let Some(script) = row_script(row, args) {
            out.push((Hazard::ShellString, script));
        }
    }
    if name == "git" {
        for url in args.iter().filter(|a| a.starts_with("ext::")) {
            out.extend(ext_remote(url).map(|s| (Hazard::ShellString, s)));
        }
    }
    if name == "parallel" {
        out.extend(parallel_scripts(args));
    }
    out
}

/// GNU parallel's options that take a separate value (read here and by
/// the wrapper table, which sees `parallel` as a wrapper).
pub(super) const PARALLEL_VALUED: &[&str] = &[
    "-j",
    "--jobs",
    "-S",
    "--sshlogin",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-I",
    "--joblog",
    "--results",
    "--tmpdir",
    "-E",
    "--timeout",
    "--retries",
];

/// `parallel [OPTIONS] [CMD…] ::: ARG…`: CMD with each ARG appended, or
/// each ARG as a command when there is no CMD; `:::: FILE` reads the
/// arguments (or commands) from a file.
fn parallel_scripts(args: &[String]) -> Vec<(Hazard, String)> {
    let rest = skip_options(args, PARALLEL_VALUED);
    let Some(at) = rest
        .iter()
        .position(|w| matches!(w.as_str(), ":::" | "::::" | ":::+" | "::::+"))
    else {
        return Vec::new();
    };
    let command = rest.get(..at).unwrap_or_default();
    let mut out = Vec::new();
    let mut source = "";
    for word in rest.get(at..).unwrap_or_default() {
        if matches!(word.as_str(), ":::" | "::::" | ":::+" | "::::+") {
            source = word.as_str();
            continue;
        }
        if source.starts_with("::::") {
            if command.is_empty() {
                out.push((Hazard::UnreadScript, String::new()));
            }
            continue;
        }
        // parallel hands the command template to a shell as text (its
        // words joined), the argument appended quoted.
        let script = if command.is_empty() {
            word.clone()
        } else {
            format!(
                "{} {}",
                command.join(" "),
                join_argv(std::iter::once(word.as_str()), false)
            )
        };
        out.push((Hazard::ShellString, script));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scripts(line: &str) -> Vec<String> {
        let words: Vec<String> = crate::shell::words::tokenize(line);
        runner_scripts(&words[0], &words[1..])
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    #[test]
    fn rows_find_the_command() {
        assert_eq!(scripts("docker exec -it web rm -rf /"), ["rm -rf /"]);
        assert_eq!(scripts("kubectl exec pod -c app -- git push"), ["git push"]);
        assert_eq!(scripts("docker compose exec web rm x"), ["rm x"]);
        assert_eq!(scripts("pueue add -- git push"), ["git push"]);
        assert_eq!(scripts("screen -dmS x rm y"), ["rm y"]);
        assert_eq!(scripts("tsp rm y"), ["rm y"]);
        assert!(scripts("docker ps").is_empty());
        assert!(scripts("tmux ls").is_empty());
        assert!(scripts("kubectl get pods").is_empty());
    }

    #[test]
    fn commands_after_options_prefixes_and_program_options() {
        assert_eq!(scripts("nix develop .#ci -c git push"), ["git push"]);
        assert_eq!(scripts("nix shell nixpkgs#jq --command jq ."), ["jq ."]);
        assert!(scripts("nix build .#x").is_empty());
        assert_eq!(scripts("fd -e rs -x rustfmt"), ["rustfmt"]);
        assert_eq!(
            scripts("gdb -batch -ex run -ex 'shell rm -rf ~' -ex '!id' ./a"),
            ["rm -rf ~\nid"]
        );
        assert!(scripts("gdb -batch -ex run -ex bt ./a").is_empty());
        assert_eq!(
            scripts("start-stop-daemon -S -x /usr/bin/git -- push origin"),
            ["/usr/bin/git push origin"]
        );
        assert_eq!(
            scripts("bwrap --ro-bind /usr /usr --bind . /w --chdir /w git push"),
            ["git push"]
        );
        assert_eq!(scripts("bwrap --overlay a b /x ls"), ["ls"]);
        assert_eq!(scripts("parallel 'rm -rf ~' ::: 1"), ["rm -rf ~ 1"]);
        assert_eq!(scripts("parallel gzip ::: a.txt"), ["gzip a.txt"]);
        assert_eq!(scripts("mapfile -C 'rm -rf ~ #' -c 1"), ["rm -rf ~ #"]);
        assert_eq!(scripts("less -R '+!rm -rf ~' README.md"), ["rm -rf ~"]);
        assert!(scripts("less +G README.md").is_empty());
        assert_eq!(
            scripts("git filter-branch --tree-filter 'rm -rf ~' HEAD"),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts("kubectl debug node/n -it --image=busybox -- chroot /host rm -rf /"),
            ["chroot /host rm -rf /"]
        );
    }

    #[test]
    fn ext_remotes_unescape() {
        assert_eq!(
            ext_remote("ext::sh -c rm% -rf% ~").as_deref(),
            Some("sh -c 'rm -rf ~'")
        );
        assert_eq!(ext_remote("https://x").as_deref(), None);
    }
}
