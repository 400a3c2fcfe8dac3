//! Looks through command wrappers (`timeout 5 nice -n 10 rm …` → `rm …`).
//!
//! Deny and `always` rules must see the command a wrapper runs. Approval
//! never looks through a wrapper: `sudo git status` is not `git status`.

use super::classes::{self, PartClasses, holds_ifs};
use super::syntax::HostWrapper;
use super::table::{runner_rows, takes_separate_value};
use super::types::{SimpleCommand, StdinCommand};
use super::words::{basename, tokenize};

mod unknown_wrappers;

/// How many wrappers deep [`views`] looks; a command stacked deeper carries
/// [`Hazard::WrapperChain`](super::Hazard::WrapperChain) (see [`too_many_wrappers`]).
const MAX_UNWRAP: usize = 64;

/// How many words all of a part's views may hold together: each wrapper
/// removed copies the rest of the line, so `sudo sudo … ls` would cost the
/// square of its length. Past this, the views stop and the part carries
/// [`Hazard::WrapperChain`](super::Hazard::WrapperChain) (see [`too_many_wrappers`]).
/// Every audit reads every view: 32 Ki words keep a line of the size limit
/// (`nice nice … ls`, `xargs xargs … ls`) under 10 ms; a real command
/// behind a wrapper holds a few hundred.
const MAX_VIEW_WORDS: usize = 32 * 1024;

/// A wrapper: its name, the options that take a separate value, and how many
/// positional words (a duration, a directory) come before the wrapped command.
struct Wrapper {
    name: &'static str,
    valued: &'static [&'static str],
    positional: usize,
}

const WRAPPERS: &[Wrapper] = &[
    // Issue 36: personality, loader and scheduling wrappers.
    Wrapper {
        name: "setarch",
        valued: &[],
        positional: 1,
    },
    Wrapper {
        name: "linux32",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "linux64",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "i386",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "x86_64",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "ld-linux-x86-64.so.2",
        valued: &["--library-path", "--preload", "--audit", "--argv0"],
        positional: 0,
    },
    Wrapper {
        name: "ld-linux.so.2",
        valued: &["--library-path", "--preload", "--audit", "--argv0"],
        positional: 0,
    },
    Wrapper {
        name: "ld-linux-aarch64.so.1",
        valued: &["--library-path", "--preload", "--audit", "--argv0"],
        positional: 0,
    },
    Wrapper {
        name: "ld.so",
        valued: &["--library-path", "--preload", "--audit", "--argv0"],
        positional: 0,
    },
    // Red-team round two: wrappers that run their arguments as a command.
    Wrapper {
        name: "setpriv",
        valued: &[
            "--reuid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--bounding-set",
            "--securebits",
            "--selinux-label",
            "--apparmor-profile",
        ],
        positional: 0,
    },
    Wrapper {
        name: "prlimit",
        valued: &["-p", "--pid"],
        positional: 0,
    },
    Wrapper {
        name: "torsocks",
        valued: &[
            "-u",
            "-p",
            "-a",
            "-P",
            "--user",
            "--pass",
            "--address",
            "--port",
        ],
        positional: 0,
    },
    Wrapper {
        name: "fakeroot",
        valued: &["-l", "-f", "-s", "-i", "--lib", "--faked"],
        positional: 0,
    },
    Wrapper {
        name: "eatmydata",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "numactl",
        valued: &[
            "-C",
            "-N",
            "-m",
            "-p",
            "-i",
            "--physcpubind",
            "--cpunodebind",
            "--membind",
            "--preferred",
            "--interleave",
        ],
        positional: 0,
    },
    Wrapper {
        name: "sshpass",
        valued: &["-p", "-f", "-d", "-P"],
        positional: 0,
    },
    Wrapper {
        name: "xvfb-run",
        valued: &[
            "-n",
            "-s",
            "-f",
            "-e",
            "-p",
            "--server-num",
            "--server-args",
            "--auth-file",
            "--error-file",
        ],
        positional: 0,
    },
    Wrapper {
        name: "run0",
        valued: &[
            "-u",
            "-g",
            "-D",
            "--user",
            "--group",
            "--chdir",
            "--setenv",
            "--property",
            "--unit",
            "--description",
            "--slice",
            "--nice",
        ],
        positional: 0,
    },
    Wrapper {
        name: "timeout",
        valued: &["-s", "-k", "--signal", "--kill-after"],
        positional: 1,
    },
    Wrapper {
        name: "nice",
        valued: &["-n", "--adjustment"],
        positional: 0,
    },
    Wrapper {
        name: "nohup",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "time",
        valued: &["-f", "-o", "--format", "--output"],
        positional: 0,
    },
    Wrapper {
        name: "command",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "builtin",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "exec",
        valued: &["-a"],
        positional: 0,
    },
    Wrapper {
        name: "env",
        valued: &["-u", "-C", "--unset", "--chdir"],
        positional: 0,
    },
    // Package runners: `npx rimraf /`, `npx -p pkg cmd`; `npm exec`,
    // `pnpm exec`/`dlx`, `yarn exec`/`dlx` and `bun x` read as `npx`
    // (see `package_runner`). `-c CMD` is a script (`scripts_of`).
    Wrapper {
        name: "npx",
        valued: &[
            "-p",
            "--package",
            "-c",
            "--call",
            "--cache",
            "--userconfig",
            "-w",
            "--workspace",
        ],
        positional: 0,
    },
    Wrapper {
        name: "pnpx",
        valued: &["-p", "--package", "-c", "--call"],
        positional: 0,
    },
    Wrapper {
        name: "bunx",
        valued: &["-p", "--package"],
        positional: 0,
    },
    Wrapper {
        name: "sudo",
        valued: &[
            "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group",
            "--host", "--prompt", "--chdir",
        ],
        positional: 0,
    },
    Wrapper {
        name: "doas",
        valued: &["-u", "-C"],
        positional: 0,
    },
    Wrapper {
        name: "setsid",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "stdbuf",
        valued: &["-i", "-o", "-e"],
        positional: 0,
    },
    Wrapper {
        name: "ionice",
        valued: &["-c", "-n", "-p", "--class", "--classdata"],
        positional: 0,
    },
    Wrapper {
        name: "chrt",
        valued: &[],
        positional: 1,
    },
    Wrapper {
        name: "taskset",
        valued: &[],
        positional: 1,
    },
    // Its options are read through its row of the program table
    // (`table::runner_rows`): the command starts at the first operand.
    Wrapper {
        name: "xargs",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "watch",
        valued: &["-n", "-d", "--interval"],
        positional: 0,
    },
    Wrapper {
        name: "unbuffer",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "caffeinate",
        valued: &["-t", "-w"],
        positional: 0,
    },
    Wrapper {
        name: "flock",
        valued: &["-w", "-E", "--timeout"],
        positional: 1,
    },
    Wrapper {
        name: "busybox",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "toybox",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "chroot",
        valued: &["--userspec", "--groups"],
        positional: 1,
    },
    Wrapper {
        name: "strace",
        valued: &[
            "-e", "-o", "-p", "-s", "-u", "-E", "-P", "-S", "-X", "-b", "-a", "-I",
        ],
        positional: 0,
    },
    Wrapper {
        name: "ltrace",
        valued: &[
            "-e", "-o", "-p", "-s", "-u", "-n", "-a", "-l", "-x", "-A", "-D", "-F",
        ],
        positional: 0,
    },
    Wrapper {
        name: "pkexec",
        valued: &["--user"],
        positional: 0,
    },
    Wrapper {
        name: "runuser",
        valued: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-G",
            "--supp-group",
            "-s",
            "--shell",
            "-w",
        ],
        positional: 0,
    },
    Wrapper {
        name: "unshare",
        valued: &[
            "-S",
            "--setuid",
            "-G",
            "--setgid",
            "-R",
            "--root",
            "-w",
            "--wd",
            "--propagation",
        ],
        positional: 0,
    },
    Wrapper {
        name: "nsenter",
        valued: &[
            "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd",
        ],
        positional: 0,
    },
    Wrapper {
        name: "systemd-run",
        valued: &[
            "-p",
            "--property",
            "-u",
            "--unit",
            "--uid",
            "--gid",
            "-E",
            "--setenv",
            "--slice",
            "--description",
            "-M",
            "--machine",
            "-H",
            "--host",
            "--working-directory",
            "--nice",
            "--on-calendar",
            "--on-active",
        ],
        positional: 0,
    },
    Wrapper {
        name: "parallel",
        valued: super::runners::PARALLEL_VALUED,
        positional: 0,
    },
    Wrapper {
        name: "coproc",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "firejail",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "proot",
        valued: &["-r", "-b", "-w"],
        positional: 0,
    },
    Wrapper {
        name: "faketime",
        valued: &[],
        positional: 1,
    },
    Wrapper {
        name: "catchsegv",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "valgrind",
        valued: &[],
        positional: 0,
    },
    Wrapper {
        name: "gdb",
        valued: &["-ex", "-x"],
        positional: 0,
    },
];

/// Every way of reading `part`'s words: as written, then once per wrapper
/// removed, plus the commands of `find -exec`. The first view is the words
/// as written; the command word of each view is reduced to its basename.
pub(crate) fn views(part: &SimpleCommand) -> &[Vec<String>] {
    if part.words_only {
        debug_assert!(
            stored_views(&part.words, &[]).is_empty()
                && stdin_argument_commands(std::slice::from_ref(&part.words)).is_empty(),
            "a part marked as read only by its words has other readings: {:?}",
            part.words
        );
        return std::slice::from_ref(&part.words);
    }
    // Every rule and blacklist entry asks for the same views: computed once.
    let stored = part.views.get_or_init(|| stored_views(&part.words, &[]));
    views_of(&part.words, stored)
}

/// The views of `words` as a part keeps them ([`SimpleCommand::views`]):
/// empty when the only view is the words themselves (the command word has
/// no `/`, no wrapper, runner, `find -exec`, `git-*` or `$IFS` to read
/// through), which is most commands, so their words are not copied.
pub(crate) fn stored_views(words: &[String], host: &[HostWrapper]) -> Vec<Vec<String>> {
    let only_the_words = words.first().is_some_and(|first| !first.contains('/'))
        && !words.iter().any(|w| holds_ifs(w))
        && find_exec(words).is_empty()
        && git_views(words).is_empty()
        && package_runner(words).is_none()
        && unwrap_once(words, host).is_none();
    if only_the_words {
        Vec::new()
    } else {
        word_views_with(words, host)
    }
}

/// [`stored_views`] of words whose [`PartClasses`] are known: a command
/// word that is no wrapper, before words no program's name, is no wrapper
/// of the built-in table nor an unknown one (`unwrap_once`).
pub(crate) fn stored_views_of(
    words: &[String],
    classes: PartClasses,
    host: &[HostWrapper],
) -> Vec<Vec<String>> {
    let only_the_words = words.first().is_some_and(|first| !first.contains('/'))
        && !classes.holds_ifs()
        && find_exec(words).is_empty()
        && git_views(words).is_empty()
        && package_runner(words).is_none()
        && ((host.is_empty()
            && !classes.first_is(classes::WRAPPER)
            && !classes.rest_is(classes::KNOWN))
            || unwrap_once(words, host).is_none());
    if only_the_words {
        Vec::new()
    } else {
        word_views_with(words, host)
    }
}

/// The views of `words` from their stored form ([`stored_views`]).
pub(crate) fn views_of<'a>(words: &'a Vec<String>, stored: &'a [Vec<String>]) -> &'a [Vec<String>] {
    if stored.is_empty() && !words.is_empty() {
        std::slice::from_ref(words)
    } else {
        stored
    }
}

/// [`views`] of a word list. Words holding `$IFS` are also read split at
/// it (`rm${IFS}-rf${IFS}/` is `rm -rf /`).
pub(crate) fn word_views(words: &[String]) -> Vec<Vec<String>> {
    word_views_with(words, &[])
}

/// [`word_views`] with a host's wrappers added to the built-in ones.
pub(crate) fn word_views_with(words: &[String], host: &[HostWrapper]) -> Vec<Vec<String>> {
    let mut out = unwrapped_views(words, host);
    // Every reading below needs `IFS` in some word.
    if !words.iter().any(|w| holds_ifs(w)) {
        return out;
    }
    // The parser may cut `$IFS/` into `$` and `IFS/`: glue such words first.
    let mut glued: Vec<String> = Vec::with_capacity(words.len());
    for word in words {
        match glued.last_mut() {
            Some(last) if last.ends_with('$') && word.starts_with("IFS") => last.push_str(word),
            _ => glued.push(word.clone()),
        }
    }
    if glued
        .iter()
        .any(|w| w.contains("$IFS") || w.contains("${IFS}"))
    {
        let split: Vec<String> = glued
            .iter()
            .flat_map(|w| {
                w.replace("${IFS}", " ")
                    .replace("$IFS", " ")
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.extend(unwrapped_views(&split, host));
    }
    out
}

fn unwrapped_views(words: &[String], host: &[HostWrapper]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current = words.to_vec();
    let mut copied = 0usize;
    for _ in 0..=MAX_UNWRAP {
        if current.is_empty() {
            break;
        }
        let mut normal = std::mem::take(&mut current);
        if let Some(first) = normal.first_mut()
            && first.contains('/')
        {
            *first = basename(first).to_owned();
        }
        out.extend(find_exec(&normal));
        out.extend(git_views(&normal));
        if let Some(runner) = package_runner(&normal) {
            normal = runner;
        }
        let inner = unwrap_once(&normal, host);
        copied = copied.saturating_add(normal.len());
        out.push(normal);
        match inner {
            Some(inner) if copied.saturating_add(inner.len()) <= MAX_VIEW_WORDS => current = inner,
            _ => break,
        }
    }
    out
}

/// Whether `words` are, as they stand, one of their own views (see
/// [`unwrapped_views`]: the command word has no `/` to take off and is no
/// package runner to read as `npx`). What runs a script in them then runs
/// it in their views too.
pub(crate) fn words_are_a_view(words: &[String]) -> bool {
    words.first().is_some_and(|first| !first.contains('/')) && package_runner(words).is_none()
}

/// `npm exec ARGS`, `npm x`, `pnpm exec`/`dlx`, `yarn exec`/`dlx`, `bun x`
/// as `npx ARGS`: each runs a package's (or any) program with the rest.
fn package_runner(words: &[String]) -> Option<Vec<String>> {
    let (first, rest) = words.split_first()?;
    let (sub, args) = rest.split_first()?;
    let runs = match first.as_str() {
        "npm" => matches!(sub.as_str(), "exec" | "x"),
        "pnpm" | "yarn" => matches!(sub.as_str(), "exec" | "dlx"),
        "bun" => sub == "x",
        _ => false,
    };
    runs.then(|| {
        std::iter::once("npx".to_owned())
            .chain(args.iter().cloned())
            .collect()
    })
}

/// `xargs` and `parallel`: programs that run a command with arguments read
/// from standard input.
pub(crate) fn runs_with_stdin_words(name: &str) -> bool {
    matches!(name, "xargs" | "parallel")
}

/// The commands `xargs` (or `parallel`) runs with arguments read from
/// standard input, through wrappers: `views` are a part's views
/// ([`views`]), so the host's wrappers are seen through too.
fn stdin_argument_commands(views: &[Vec<String>]) -> Vec<StdinCommand> {
    let mut out: Vec<StdinCommand> = Vec::new();
    for view in views {
        let Some((first, rest)) = view.split_first() else {
            continue;
        };
        let name = basename(first);
        if !runs_with_stdin_words(name) {
            continue;
        }
        let Some((prefix, after)) = unwrap_split(name, rest, &[]) else {
            continue;
        };
        let len = prefix.len().saturating_add(after.len());
        if len == 0 {
            continue;
        }
        // `xargs -I{} git {}`: the input replaces the marker, so a word
        // holding it is read as computed (`git ${STDIN}`).
        let markers = replace_markers(name, rest);
        if prefix
            .iter()
            .chain(after)
            .skip(1)
            .any(|w| markers.iter().any(|m| w.contains(m)))
        {
            let replaced = prefix
                .iter()
                .chain(after)
                .enumerate()
                .map(|(i, w)| match i {
                    0 => basename(w).to_owned(),
                    _ => markers
                        .iter()
                        .fold(w.clone(), |w, m| w.replace(m, STDIN_WORD)),
                })
                .collect();
            out.push(StdinCommand::Words(replaced));
            continue;
        }
        // Compared before it is copied: `xargs xargs … ls` runs what its
        // next view holds, and gives each command once.
        let words = || prefix.iter().chain(after).enumerate();
        let same = |o: &[String]| {
            o.len() == len
                && words().all(|(i, w)| {
                    let w = if i == 0 { basename(w) } else { w.as_str() };
                    o.get(i).is_some_and(|x| x == w)
                })
        };
        if stdin_views(views, &out).any(same) {
            continue;
        }
        if let Some(at) = views.iter().position(|v| same(v)) {
            out.push(StdinCommand::View(at));
            continue;
        }
        let inner: Vec<String> = words()
            .map(|(i, w)| {
                if i == 0 {
                    basename(w).to_owned()
                } else {
                    w.clone()
                }
            })
            .collect();
        out.push(StdinCommand::Words(inner));
    }
    out
}

/// How a word the input replaces is spelled in a command read from
/// `xargs -I{}`/`parallel`: an expansion, so prefix rules read it as
/// anything.
const STDIN_WORD: &str = "${STDIN}";

/// The markers `xargs`/`parallel` replace with words of the input:
/// xargs's `-I R`, `-IR`, `--replace=R` (`-i` and `--replace` alone: `{}`),
/// read among its options before the command; parallel's `{}` family
/// (`{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`) and its `-I R`.
fn replace_markers(program: &str, args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if program == "parallel" {
        out.extend(["{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}"].map(String::from));
    }
    let mut words = args.iter();
    while let Some(w) = words.next() {
        if !w.starts_with('-') || w == "--" {
            break;
        }
        if w == "-I" {
            out.extend(words.next().cloned());
        } else if let Some(r) = w
            .strip_prefix("-I")
            .or_else(|| w.strip_prefix("--replace="))
        {
            out.push(r.to_owned());
        } else if program == "xargs" && (w == "-i" || w == "--replace") {
            out.push("{}".to_owned());
        } else if program == "xargs"
            && let Some(r) = w.strip_prefix("-i")
        {
            out.push(r.to_owned());
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The words of `commands`, read against the `views` they index.
fn stdin_views<'a>(
    views: &'a [Vec<String>],
    commands: &'a [StdinCommand],
) -> impl Iterator<Item = &'a [String]> {
    commands.iter().map(move |c| match c {
        StdinCommand::View(at) => views.get(*at).map_or(&[][..], Vec::as_slice),
        StdinCommand::Words(words) => words.as_slice(),
    })
}

/// The commands `xargs`/`parallel` run with words from standard input
/// ([`stdin_argument_commands`]) of a part's views, computed once per part
/// (the parse, the rules and the blacklist all ask for them).
pub(crate) fn stdin_commands(part: &SimpleCommand) -> impl Iterator<Item = &[String]> {
    let views = views(part);
    let commands: &[StdinCommand] = if part.words_only {
        &[]
    } else {
        part.stdin_commands
            .get_or_init(|| stdin_argument_commands(views))
    };
    stdin_views(views, commands)
}

/// Other spellings of a git command: `git-push x` and
/// `/usr/lib/git-core/git-push` are `git push x`; with
/// `-c alias.p=push`, `git p` is `git push`.
fn git_views(view: &[String]) -> Vec<Vec<String>> {
    let Some((first, rest)) = view.split_first() else {
        return Vec::new();
    };
    if let Some(sub) = first.strip_prefix("git-")
        && !sub.is_empty()
    {
        let mut out = vec!["git".to_owned(), sub.to_owned()];
        out.extend(rest.iter().cloned());
        return vec![out];
    }
    if first != "git" {
        return Vec::new();
    }
    // Past MAX_ALIASES definitions the line is not expanded at all:
    // [`git_alias_chain_cut`] names the limit, which asks.
    if git_alias_defs(rest).next().is_none() || more_git_aliases_than(rest, MAX_ALIASES) {
        return Vec::new();
    }
    let aliases = git_aliases(rest);
    let by_name: std::collections::HashMap<&str, Vec<&str>> = aliases.iter().fold(
        std::collections::HashMap::new(),
        |mut map, (name, value)| {
            map.entry(name.as_str())
                .or_insert_with(Vec::new)
                .push(value.as_str());
            map
        },
    );
    // Alias names compare without case (git's config keys do), and an
    // alias may name another (`-c alias.a=b -c alias.b=push a`): expand
    // until nothing changes, bounded.
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut frontier: Vec<Vec<String>> = vec![rest.to_vec()];
    for _ in 0..MAX_ALIAS_CHAIN {
        let mut next = Vec::new();
        for words in &frontier {
            for (index, word) in words.iter().enumerate() {
                let lower = word.to_ascii_lowercase();
                let Some(values) = by_name.get(lower.as_str()) else {
                    continue;
                };
                for value in values {
                    if !value.starts_with('!') {
                        let mut expanded: Vec<String> =
                            words.get(..index).unwrap_or_default().to_vec();
                        expanded.extend(tokenize(value));
                        expanded.extend(words.get(index + 1..).unwrap_or_default().iter().cloned());
                        let mut view = vec!["git".to_owned()];
                        view.extend(expanded.iter().cloned());
                        if !out.contains(&view) && out.len() < MAX_ALIAS_VIEWS {
                            out.push(view);
                            next.push(expanded);
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out
}

/// Whether git's alias definitions on the line chain further than
/// [`git_views`] expands (more than [`MAX_ALIAS_CHAIN`] steps, or more
/// than [`MAX_ALIAS_VIEWS`] readings): the last expansions are not read.
pub(crate) fn git_alias_chain_cut(words: &[String]) -> bool {
    let Some((first, rest)) = words.split_first() else {
        return false;
    };
    if basename(first) != "git" {
        return false;
    }
    if !more_git_aliases_than(rest, 1) {
        return false;
    }
    if more_git_aliases_than(rest, MAX_ALIASES) {
        return true;
    }
    let aliases = git_aliases(rest);
    // The longest chain of alias names, each value starting with another
    // (the first definition of a name is the one followed).
    let mut first_words: std::collections::HashMap<&str, Option<String>> =
        std::collections::HashMap::new();
    for (name, value) in &aliases {
        first_words.entry(name.as_str()).or_insert_with(|| {
            tokenize(value)
                .into_iter()
                .next()
                .map(|w| w.to_ascii_lowercase())
        });
    }
    let next = |name: &str| first_words.get(name).cloned().flatten();
    let views = git_views(
        &words
            .iter()
            .map(|w| basename(w).to_owned())
            .collect::<Vec<_>>(),
    );
    if views.len() >= MAX_ALIAS_VIEWS {
        return true;
    }
    aliases.iter().any(|(start, _)| {
        let mut name = start.clone();
        let mut steps = 0;
        while let Some(n) = next(&name) {
            steps += 1;
            if steps > MAX_ALIAS_CHAIN {
                return true;
            }
            name = n;
        }
        false
    })
}

/// How many alias-to-alias steps are followed, how many readings kept, and
/// how many definitions one git command may carry before the line is not
/// expanded at all (`limits/alias-chain`).
const MAX_ALIAS_CHAIN: usize = 8;
const MAX_ALIASES: usize = 64;
const MAX_ALIAS_VIEWS: usize = 32;

/// True when git's words define an alias whose value comes from the
/// environment (`--config-env=alias.x=VAR`): what the alias runs is not on
/// the line.
pub(crate) fn git_alias_from_env(args: &[String]) -> bool {
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let def = if word == "--config-env" {
            iter.next().map(String::as_str)
        } else {
            word.strip_prefix("--config-env=")
        };
        if def.is_some_and(|d| d.to_ascii_lowercase().starts_with("alias.")) {
            return true;
        }
    }
    false
}

/// `-c alias.NAME=VALUE` definitions among git's words: the name in lower
/// case (git's config keys compare without case) and the value.
pub(crate) fn git_aliases(args: &[String]) -> Vec<(String, String)> {
    git_alias_defs(args)
        .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
        .collect()
}

/// [`git_aliases`] borrowed from the words, one at a time: the name as
/// written and the value. A line of thousands of definitions is counted
/// (and its first `!` value found) without copying them.
pub(crate) fn git_alias_defs(args: &[String]) -> impl Iterator<Item = (&str, &str)> {
    let mut iter = args.iter();
    std::iter::from_fn(move || {
        while let Some(word) = iter.next() {
            let def = if word == "-c" {
                iter.next().map(String::as_str)
            } else {
                word.strip_prefix("-c")
            };
            let Some(def) = def else { continue };
            if def
                .get(..6)
                .is_some_and(|p| p.eq_ignore_ascii_case("alias."))
                && let Some((name, value)) = def.get(6..).and_then(|rest| rest.split_once('='))
            {
                return Some((name, value));
            }
        }
        None
    })
}

/// Whether `args` hold more than `n` alias definitions.
fn more_git_aliases_than(args: &[String], n: usize) -> bool {
    git_alias_defs(args).nth(n).is_some()
}

/// True when `words` stack more wrappers than [`views`] looks through.
pub(crate) fn too_many_wrappers(words: &[String]) -> bool {
    if words
        .first()
        .is_none_or(|w| !is_wrapper(basename(w)) && !unknown_wrappers::reads_through(words))
    {
        return false;
    }
    // The steps of `unwrap_once` (on the view whose first word is its
    // basename), counting the words each view would hold: the rest of the
    // line is borrowed, not copied (`nice nice … ls` thousands deep copied
    // it once per level).
    let mut copied = words.len();
    let mut tail: &[String] = words;
    let mut steps = 0;
    while steps <= MAX_UNWRAP {
        let Some((first, rest)) = tail.split_first() else {
            return false;
        };
        let Some((prefix, after)) = unwrap_split(basename(first), rest, &[]) else {
            return false;
        };
        let len = prefix.len().saturating_add(after.len());
        if len == 0 {
            return false;
        }
        copied = copied.saturating_add(len);
        if copied > MAX_VIEW_WORDS {
            return true;
        }
        steps += 1;
        if !prefix.is_empty() {
            // A `-S` string's words come first: the rest as before, copied.
            let mut current = prefix;
            current.extend(after.iter().cloned());
            return too_many_wrappers_copied(current, copied, steps);
        }
        tail = after;
    }
    true
}

/// [`too_many_wrappers`] from its `steps`-th view on, when that view is not
/// a slice of the line (a `-S` string was split into it).
fn too_many_wrappers_copied(mut current: Vec<String>, mut copied: usize, steps: usize) -> bool {
    for _ in steps..=MAX_UNWRAP {
        if let Some(first) = current.first_mut() {
            *first = basename(first).to_owned();
        }
        match unwrap_once(&current, &[]) {
            Some(inner) => {
                copied = copied.saturating_add(inner.len());
                if copied > MAX_VIEW_WORDS {
                    return true;
                }
                current = inner;
            }
            None => return false,
        }
    }
    true
}

/// A wrapper as [`unwrap_once`] reads it: built in or the host's.
struct Spec<'a> {
    name: &'a str,
    builtin: Option<&'static [&'static str]>,
    host: &'a [String],
    positional: usize,
}

impl Spec<'_> {
    fn valued(&self, option: &str) -> bool {
        self.builtin.is_some_and(|v| v.contains(&option)) || self.host.iter().any(|h| h == option)
    }
}

/// The names of the built-in wrappers.
pub(crate) fn builtin_wrapper_names() -> impl Iterator<Item = &'static str> {
    WRAPPERS.iter().map(|w| w.name)
}

/// The programs an unknown command word may be running
/// (`unknown_wrappers::is_known_program`'s names).
pub(crate) fn known_program_names() -> impl Iterator<Item = &'static str> {
    unknown_wrappers::known_names()
}

/// Whether `name` is a known program as `unknown_wrappers` answers it.
#[cfg(test)]
pub(crate) fn unknown_wrappers_is_known(name: &str) -> bool {
    unknown_wrappers::is_known_program(name)
}

/// Whether `name` is a built-in wrapper.
#[cfg(test)]
pub(crate) fn is_builtin_wrapper(name: &str) -> bool {
    is_wrapper(name)
}

/// Whether `name` is a built-in wrapper (what [`unwrap_once`] unwraps
/// without the host's).
fn is_wrapper(name: &str) -> bool {
    builtin_wrapper(name).is_some()
}

/// The first entry of [`WRAPPERS`] named `name`. Most command words are not
/// wrappers: a bit set keyed by a hash of (length, first byte, last byte)
/// of the wrapper names answers those without comparing names.
fn builtin_wrapper(name: &str) -> Option<&'static Wrapper> {
    const SLOTS: usize = 8192;
    fn slot(name: &str) -> usize {
        let first = usize::from(name.bytes().next().unwrap_or(0));
        let last = usize::from(name.bytes().next_back().unwrap_or(0));
        (name.len().wrapping_mul(31) ^ first.wrapping_mul(131) ^ (last << 5)) % SLOTS
    }
    static SEEN: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(|| {
        let mut bits = vec![0u64; SLOTS / 64];
        for w in WRAPPERS {
            let at = slot(w.name);
            if let Some(word) = bits.get_mut(at / 64) {
                *word |= 1 << (at % 64);
            }
        }
        bits
    });
    let at = slot(name);
    if seen
        .get(at / 64)
        .is_none_or(|word| word & (1 << (at % 64)) == 0)
    {
        return None;
    }
    WRAPPERS.iter().find(|w| w.name == name)
}

fn unwrap_once(words: &[String], host: &[HostWrapper]) -> Option<Vec<String>> {
    let (first, rest) = words.split_first()?;
    let (mut inner, tail) = unwrap_split(first, rest, host)?;
    inner.extend(tail.iter().cloned());
    if inner.is_empty() { None } else { Some(inner) }
}

/// What [`unwrap_once`] reads from a wrapper `first` and its arguments
/// `rest`, without copying them: the words a `-S` string adds (usually
/// none) and the borrowed rest of the line that follows. `None` when
/// `first` is no wrapper.
fn unwrap_split<'w>(
    first: &str,
    rest: &'w [String],
    host: &[HostWrapper],
) -> Option<(Vec<String>, &'w [String])> {
    if let Some(w) = builtin_wrapper(first)
        && let Some(at) = runner_rows::command_at(w.name, rest)
    {
        // `xargs`: where its row says the command starts.
        return Some((Vec::new(), rest.get(at..).unwrap_or_default()));
    }
    let wrapper = match builtin_wrapper(first) {
        Some(w) => Spec {
            name: w.name,
            builtin: Some(w.valued),
            host: &[],
            positional: w.positional,
        },
        None => {
            let Some(w) = host.iter().find(|w| w.name == *first) else {
                // `frobnicate git push`: read as `git push` too.
                return unknown_wrappers::reads_through_at(first, rest)
                    .map(|at| (Vec::new(), rest.get(at..).unwrap_or_default()));
            };
            Spec {
                name: &w.name,
                builtin: None,
                host: &w.valued,
                positional: w.positional,
            }
        }
    };
    let wrapper = &wrapper;
    let mut index = 0;
    let mut positional = wrapper.positional;
    let mut prefix: Vec<String> = Vec::new();
    while let Some(word) = rest.get(index) {
        if word == "--" {
            index += 1;
            break;
        }
        if wrapper.name == "env" && (word == "-S" || word.starts_with("--split-string")) {
            // `env -S "rm -rf /"`: the value is itself a command line.
            let value = if let Some((_, v)) = word.split_once('=') {
                index += 1;
                v.to_owned()
            } else {
                index += 2;
                rest.get(index - 1).cloned().unwrap_or_default()
            };
            prefix.extend(tokenize(&value));
            break;
        }
        if wrapper.name == "env"
            && let Some(cluster) = word.strip_prefix('-')
            && !cluster.starts_with('-')
            && let Some(at) = cluster.find('S')
        {
            // `env -iS 'cmd'`, `env -S'cmd'`: the rest of the cluster or the next word.
            let attached = cluster.get(at + 1..).unwrap_or_default();
            let value = if attached.is_empty() {
                index += 2;
                rest.get(index - 1).cloned().unwrap_or_default()
            } else {
                index += 1;
                attached.to_owned()
            };
            prefix.extend(tokenize(&value));
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            index += 1 + usize::from(takes_separate_value(word, &|o| wrapper.valued(o)));
            continue;
        }
        if wrapper.name == "env" && word.contains('=') {
            index += 1;
            continue;
        }
        if positional > 0 {
            positional -= 1;
            index += 1;
            continue;
        }
        break;
    }
    Some((prefix, rest.get(index..).unwrap_or_default()))
}

/// The commands run by `find … -exec CMD … ;` (also `-execdir`, `-ok`).
fn find_exec(words: &[String]) -> Vec<Vec<String>> {
    if words.first().map(String::as_str) != Some("find") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let cmd: Vec<String> = iter
                .by_ref()
                .take_while(|w| w.as_str() != ";" && w.as_str() != "+")
                .cloned()
                .collect();
            if !cmd.is_empty() {
                out.push(cmd);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_wrapper_is_found_by_name_and_nothing_else() {
        for w in WRAPPERS {
            assert_eq!(builtin_wrapper(w.name).map(|f| f.name), Some(w.name));
        }
        for name in ["git", "ls", "", "sudox", "xsudo", "Sudo"] {
            assert!(builtin_wrapper(name).is_none(), "{name}");
        }
    }

    fn part(words: &[&str]) -> SimpleCommand {
        SimpleCommand {
            words: words.iter().map(|w| (*w).to_owned()).collect(),
            ..SimpleCommand::default()
        }
    }

    fn last(words: &[&str]) -> Vec<String> {
        views(&part(words)).last().cloned().unwrap_or_default()
    }

    #[test]
    fn looks_through_stacked_wrappers_with_options() {
        assert_eq!(
            last(&[
                "sudo", "-u", "root", "timeout", "-s", "KILL", "5", "nice", "-n", "10", "/bin/rm",
                "-rf", "/"
            ]),
            ["rm", "-rf", "/"]
        );
        assert_eq!(
            last(&["env", "-i", "A=1", "B=2", "rm", "-rf", "~"]),
            ["rm", "-rf", "~"]
        );
        assert_eq!(
            last(&["nohup", "time", "-p", "command", "rm", "x"]),
            ["rm", "x"]
        );
    }

    #[test]
    fn env_split_string_is_read_as_a_command() {
        assert_eq!(last(&["env", "-S", "rm -rf /"]), ["rm", "-rf", "/"]);
    }

    #[test]
    fn find_exec_commands_are_views() {
        let found = part(&["find", "/", "-exec", "rm", "-rf", "{}", ";"]);
        let all = views(&found);
        assert!(all.contains(&vec!["rm".to_owned(), "-rf".to_owned(), "{}".to_owned()]));
    }

    #[test]
    fn a_plain_command_has_one_view() {
        assert_eq!(views(&part(&["git", "status"])).len(), 1);
    }
}
