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
//! ([`Given::Script`]: the operands joined), or in an option's value
//! ([`Given::OptionValue`]). The command found is judged like a `bash -c`
//! string (a nested script). A new runner is one row.

use super::table::takes_separate_value;
use super::types::Hazard;
use super::words::{basename, join_argv};

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
    },
    Runner {
        programs: &["tmux"],
        path: &[&["send-keys", "send"]],
        valued: TMUX_VALUED,
        leading: 0,
        given: Given::Script,
        ignore: &["Enter", "C-m", "C-j", "KPEnter", "Space", "Tab"],
    },
    Runner {
        programs: &["screen"],
        path: &[],
        valued: &["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-Logfile"],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
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
    },
    Runner {
        programs: &["docker", "podman", "nerdctl"],
        path: &[&["compose", "container"], &["exec"]],
        valued: DOCKER_EXEC_VALUED,
        leading: 1,
        given: Given::Argv,
        ignore: &[],
    },
    Runner {
        programs: &["kubectl", "oc", "microk8s.kubectl"],
        path: &[&["exec"]],
        valued: KUBECTL_VALUED,
        leading: 1,
        given: Given::Argv,
        ignore: &[],
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
    },
    Runner {
        programs: &["tsp", "ts", "nq", "chronic"],
        path: &[],
        valued: &["-L", "-D", "-N", "-S", "-j", "--id"],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
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
    },
    Runner {
        programs: &["entr"],
        path: &[],
        valued: &[],
        leading: 0,
        given: Given::Argv,
        ignore: &[],
    },
    Runner {
        programs: &["git"],
        path: &[&["difftool"]],
        valued: &["-C", "-c", "--git-dir", "--work-tree", "-t", "--tool"],
        leading: 0,
        given: Given::OptionValue(&["-x", "--extcmd"]),
        ignore: &[],
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
    valued_script(&["doppler"], &["--command"]),
    valued_script(&["sg"], &["-c"]),
    script(&["sg"], &[], &[], 1),
    script(&["scl"], &[&["enable"]], &[], 1),
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
    }
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
        let takes_value = takes_separate_value(word, &|o| valued.contains(&o));
        at += 1 + usize::from(takes_value && !word.contains('='));
    }
    words.get(at..).unwrap_or_default()
}

/// The value of one of `options` (`-x V`, `-xV`, `--opt V`, `--opt=V`).
fn option_value(words: &[String], options: &[&str]) -> Option<String> {
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        for option in options {
            if word == option {
                return iter.next().cloned();
            }
            if let Some(v) = word.strip_prefix(option) {
                if option.starts_with("--") {
                    if let Some(v) = v.strip_prefix('=') {
                        return Some(v.to_owned());
                    }
                } else if !v.is_empty() {
                    return Some(v.to_owned());
                }
            }
        }
    }
    None
}

fn argv_script(words: &[String]) -> Option<String> {
    (!words.is_empty()).then(|| join_argv(words.iter().map(String::as_str), true))
}

/// The command a row runs, if `args` (the words after the program) match it.
fn row_script(row: &Runner, args: &[String]) -> Option<String> {
    let mut rest = skip_options(args, row.valued);
    for step in row.path {
        let (word, after) = rest.split_first()?;
        if !step.contains(&word.as_str()) {
            return None;
        }
        rest = skip_options(after, row.valued);
    }
    if let Given::OptionValue(options) = row.given {
        return option_value(args, options);
    }
    // `kubectl exec POD -- CMD`: options may follow the leading operands.
    let mut rest = rest.get(row.leading.min(rest.len())..).unwrap_or_default();
    rest = skip_options(rest, row.valued);
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
        Given::OptionValue(_) => None,
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
    let index = INDEX.get_or_init(|| {
        let mut index = Index::default();
        for row in RUNNERS {
            for name in row.programs {
                let rows = index.entry(*name).or_default();
                // A row naming a program twice is still read once.
                if !rows.iter().any(|r| std::ptr::eq(*r, row)) {
                    rows.push(row);
                }
            }
        }
        index
    });
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
        let script = if command.is_empty() {
            word.clone()
        } else {
            let mut words = command.to_vec();
            words.push(word.clone());
            argv_script(&words).unwrap_or_default()
        };
        out.push((Hazard::ShellString, script));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scripts(line: &str) -> Vec<String> {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
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
    fn ext_remotes_unescape() {
        assert_eq!(
            ext_remote("ext::sh -c rm% -rf% ~").as_deref(),
            Some("sh -c 'rm -rf ~'")
        );
        assert_eq!(ext_remote("https://x").as_deref(), None);
    }
}
