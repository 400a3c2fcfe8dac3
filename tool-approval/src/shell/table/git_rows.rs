//! git's rows of the program table: its own options (before the
//! subcommand, every one listed), the subcommands whose options run a
//! program or write a file (open rows: only those options), and closed rows
//! for the read-only subcommands agents' allow-lists approve by prefix
//! (`git status:*`, `git log:*`, `git diff:*`, `git show:*`, `git blame:*`,
//! `git branch:*`, `git config --get:*`…): each lists every option the
//! engine knows there, so any other is unknown (`limits/unknown-option`: no
//! prefix rule approves it).
//!
//! git's parse-options takes a unique prefix of a long option (`--outp` is
//! `--output`), and short flags cluster (`-sb`); the rows are read that
//! way (a prefix the old revision parser refuses makes git fail, which is
//! no harm). `-c KEY=VALUE` is judged by key (`shell::options`).
//!
//! Not listed, on purpose (unknown, so they ask): `git branch`'s
//! `-d`/`-D`/`-m`/`-M`/`-c`/`-C`/`-f`/`-u`/`--edit-description` (delete,
//! rename, copy, overwrite branches, open an editor); `git config`'s
//! writing and editing forms (`-e`, `--add`, `--unset`, `--replace-all`,
//! `--rename-section`, `--remove-section`); `git show`/`log`'s
//! `--output-directory`; `git diff`'s `--no-index` reads files outside the
//! repository and is listed (the blacklist reads its operands as paths).

use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, sub, valued};

use Effect::{ChangesConfig, ReadsFile, RunsCode, WritesFile};
use OptionValue::{Attached, Flag, Required};

const GIT: &[&str] = &["git"];

/// Options that take no value and do nothing the engine judges.
const fn flags(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Flag,
        effect: None,
    }
}

/// Options whose value is only attached (`--stat=80`, `-M50%`).
const fn attached(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Attached,
        effect: None,
    }
}

/// A closed row of one subcommand.
const fn closed_sub(subcommand: &'static str, options: &'static [Opt]) -> Row {
    Row {
        closed: true,
        ..sub(GIT, subcommand, options)
    }
}

/// The diff options `git diff`, `git log` and `git show` share.
const DIFF: &[Opt] = &[
    flags(&[
        "-p",
        "-u",
        "--patch",
        "-s",
        "--no-patch",
        "--raw",
        "--patch-with-raw",
        "--patch-with-stat",
        "-t",
        "--indent-heuristic",
        "--no-indent-heuristic",
        "--minimal",
        "--patience",
        "--histogram",
        "--compact-summary",
        "--numstat",
        "--shortstat",
        "--cumulative",
        "--summary",
        "-z",
        "--name-only",
        "--name-status",
        "--no-color",
        "--no-color-moved",
        "--no-color-moved-ws",
        "--no-renames",
        "--rename-empty",
        "--no-rename-empty",
        "--check",
        "--full-index",
        "--binary",
        "--find-copies-harder",
        "-D",
        "--irreversible-delete",
        "--pickaxe-all",
        "--pickaxe-regex",
        "-R",
        "--no-relative",
        "-a",
        "--text",
        "--ignore-cr-at-eol",
        "--ignore-space-at-eol",
        "-b",
        "--ignore-space-change",
        "-w",
        "--ignore-all-space",
        "--ignore-blank-lines",
        "-W",
        "--function-context",
        "--exit-code",
        "--quiet",
        "--no-ext-diff",
        "--no-textconv",
        "--no-prefix",
        "--default-prefix",
        "--ita-invisible-in-index",
        "--ita-visible-in-index",
        "--cached",
        "--staged",
        "--merge-base",
        "--no-index",
        "--no-abbrev",
        "--follow",
        "--ours",
        "--theirs",
        "--base",
        "-1",
        "-2",
        "-3",
        "-0",
    ]),
    attached(&[
        "--stat",
        "--dirstat",
        "-X",
        "--dirstat-by-file",
        "--submodule",
        "--color",
        "--color-moved",
        "--color-moved-ws",
        "--word-diff",
        "--word-diff-regex",
        "--color-words",
        "--abbrev",
        "-B",
        "--break-rewrites",
        "-M",
        "--find-renames",
        "-C",
        "--find-copies",
        "-l",
        "--diff-filter",
        "--relative",
        "--inter-hunk-context",
        "--ignore-submodules",
        "--src-prefix",
        "--dst-prefix",
        "--line-prefix",
        "-U",
        "--unified",
        "--output-indicator-new",
        "--output-indicator-old",
        "--output-indicator-context",
        "--anchored",
        "--diff-algorithm",
        "--stat-width",
        "--stat-name-width",
        "--stat-graph-width",
        "--stat-count",
        "--ws-error-highlight",
        "--skip-to",
        "--rotate-to",
        "--find-object",
        "--diff-merges",
    ]),
    valued(&["-S", "-G", "-I", "--ignore-matching-lines"]),
    // The order file is read.
    opt(&["-O"], Required, ReadsFile),
    // The diff is written to a file.
    opt(&["--output"], Required, WritesFile),
    // An external diff or text conversion program the configuration names.
    opt(&["--ext-diff", "--textconv"], Flag, ChangesConfig),
];

/// `git log`'s and `git show`'s revision and formatting options, on top of
/// [`DIFF`].
const REVISIONS: &[Opt] = &[
    flags(&[
        "--oneline",
        "--graph",
        "--no-decorate",
        "--all",
        "--reverse",
        "--merges",
        "--no-merges",
        "--first-parent",
        "--not",
        "--boundary",
        "--left-right",
        "--cherry-pick",
        "--cherry-mark",
        "--cherry",
        "--left-only",
        "--right-only",
        "--topo-order",
        "--date-order",
        "--author-date-order",
        "--full-history",
        "--simplify-merges",
        "--simplify-by-decoration",
        "--ancestry-path",
        "--dense",
        "--sparse",
        "--show-signature",
        "--no-walk",
        "--do-walk",
        "--source",
        "--use-mailmap",
        "--no-use-mailmap",
        "--mailmap",
        "--no-mailmap",
        "--full-diff",
        "--log-size",
        "--no-abbrev-commit",
        "--parents",
        "--children",
        "--relative-date",
        "--no-notes",
        "--no-expand-tabs",
        "-i",
        "--regexp-ignore-case",
        "-E",
        "--extended-regexp",
        "-F",
        "--fixed-strings",
        "-P",
        "--perl-regexp",
        "--all-match",
        "--invert-grep",
        "--basic-regexp",
        "--stdin",
        "-m",
        "-c",
        "--cc",
        "--combined-all-paths",
        "--remerge-diff",
        "--single-worktree",
        "--reflog",
        "--alternate-refs",
        "--bisect",
        "--no-min-parents",
        "--no-max-parents",
        "--show-pulls",
        "--clear-decorations",
        "-g",
        "--walk-reflogs",
        "--ignore-missing",
        "--exclude-first-parent-only",
        "--no-standard-notes",
        "--standard-notes",
        "--no-graph",
        "-4",
        "-5",
        "-6",
        "-7",
        "-8",
        "-9",
    ]),
    attached(&[
        "--decorate",
        "--branches",
        "--tags",
        "--remotes",
        "--glob",
        "--date",
        "--pretty",
        "--format",
        "--notes",
        "--show-notes",
        "--show-linear-break",
        "--expand-tabs",
        "--encoding",
        "--abbrev-commit",
        "--min-parents",
        "--max-parents",
        "--decorate-refs",
        "--decorate-refs-exclude",
        "--exclude",
        "--since-as-filter",
    ]),
    valued(&[
        "-n",
        "--max-count",
        "--skip",
        "--since",
        "--after",
        "--until",
        "--before",
        "--author",
        "--committer",
        "--grep",
        "--grep-reflog",
        "-L",
    ]),
];

/// `git status`'s options.
const STATUS: &[Opt] = &[
    flags(&[
        "-s",
        "--short",
        "-b",
        "--branch",
        "--show-stash",
        "--long",
        "-v",
        "--verbose",
        "-z",
        "--null",
        "--no-column",
        "--ahead-behind",
        "--no-ahead-behind",
        "--renames",
        "--no-renames",
        "--no-optional-locks",
    ]),
    attached(&[
        "--porcelain",
        "--ignored",
        "--untracked-files",
        "-u",
        "--column",
        "--find-renames",
        "-M",
        "--ignore-submodules",
    ]),
];

/// `git blame`'s options (`--contents F` reads F in place of the file).
const BLAME: &[Opt] = &[
    flags(&[
        "-b",
        "--root",
        "--show-stats",
        "-f",
        "--show-name",
        "-n",
        "--show-number",
        "-p",
        "--porcelain",
        "--line-porcelain",
        "--incremental",
        "-l",
        "-t",
        "-s",
        "-e",
        "--show-email",
        "-w",
        "-c",
        "--progress",
        "--no-progress",
        "--color-lines",
        "--color-by-age",
        "--minimal",
        "--abbrev",
        "--first-parent",
        "--reverse",
    ]),
    attached(&["--abbrev", "-M", "-C", "--date"]),
    valued(&["-L", "--ignore-rev", "--since", "--encoding", "--date"]),
    opt(
        &["--contents", "--ignore-revs-file", "-S"],
        Required,
        ReadsFile,
    ),
];

/// `git branch`'s listing options (the writing ones are not listed: see
/// the module docs).
const BRANCH: &[Opt] = &[
    flags(&[
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-l",
        "--list",
        "-v",
        "-vv",
        "--verbose",
        "-q",
        "--quiet",
        "-i",
        "--ignore-case",
        "--show-current",
        "--no-column",
        "--no-color",
        "--omit-empty",
        "--no-abbrev",
        "--merged",
        "--no-merged",
        "--contains",
        "--no-contains",
    ]),
    attached(&["--color", "--column", "--abbrev"]),
    valued(&["--sort", "--format", "--points-at"]),
];

/// `git rev-parse`'s options.
const REV_PARSE: &[Opt] = &[
    flags(&[
        "--show-toplevel",
        "--show-cdup",
        "--show-prefix",
        "--git-dir",
        "--git-common-dir",
        "--absolute-git-dir",
        "--is-inside-git-dir",
        "--is-inside-work-tree",
        "--is-bare-repository",
        "--is-shallow-repository",
        "--show-superproject-working-tree",
        "--shared-index-path",
        "--abbrev-ref",
        "--symbolic",
        "--symbolic-full-name",
        "--verify",
        "-q",
        "--quiet",
        "--short",
        "--all",
        "--branches",
        "--tags",
        "--remotes",
        "--revs-only",
        "--no-revs",
        "--flags",
        "--no-flags",
        "--default",
        "--sq",
        "--sq-quote",
        "--not",
        "--local-env-vars",
        "--show-object-format",
        "--show-ref-format",
        "--parseopt",
        "--keep-dashdash",
        "--stop-at-non-option",
        "--stuck-long",
    ]),
    attached(&[
        "--abbrev-ref",
        "--short",
        "--branches",
        "--tags",
        "--remotes",
        "--glob",
        "--exclude",
        "--disambiguate",
        "--since",
        "--after",
        "--until",
        "--before",
        "--show-object-format",
        "--path-format",
    ]),
    valued(&["--git-path", "--resolve-git-dir", "--prefix", "--default"]),
];

/// `git ls-files`'s options.
const LS_FILES: &[Opt] = &[
    flags(&[
        "-c",
        "--cached",
        "-d",
        "--deleted",
        "-m",
        "--modified",
        "-o",
        "--others",
        "-i",
        "--ignored",
        "-s",
        "--stage",
        "-u",
        "--unmerged",
        "-k",
        "--killed",
        "-z",
        "--directory",
        "--no-empty-directory",
        "--exclude-standard",
        "--error-unmatch",
        "--full-name",
        "--recurse-submodules",
        "--abbrev",
        "--debug",
        "--eol",
        "--deduplicate",
        "--sparse",
        "-t",
        "-v",
        "-f",
        "--resolve-undo",
    ]),
    attached(&["--abbrev"]),
    valued(&["-x", "--exclude", "--with-tree", "--format"]),
    opt(
        &["-X", "--exclude-from", "--exclude-per-directory"],
        Required,
        ReadsFile,
    ),
];

/// `git config`'s reading forms (the writing and editing ones are not
/// listed: see the module docs). Which keys print credentials is the
/// blacklist's `read-secrets` (`secret_printers`).
const CONFIG: &[Opt] = &[
    flags(&[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "-l",
        "--list",
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--bool",
        "--int",
        "--bool-or-int",
        "--bool-or-str",
        "--path",
        "--expiry-date",
        "-z",
        "--null",
        "--name-only",
        "--show-origin",
        "--show-scope",
        "--includes",
        "--no-includes",
        "--fixed-value",
        "--all",
        "--regexp",
        "--no-type",
    ]),
    valued(&["--type", "--default", "--url", "--blob"]),
    // Another configuration file is read (it may name `include.path`s).
    opt(&["-f", "--file"], Required, ReadsFile),
];

/// The rows (see the module docs). git's own row first.
pub(crate) const ROWS: &[Row] = &[
    // git's own options, before the subcommand.
    Row {
        programs: GIT,
        subcommand: None,
        options_at: Options::BeforeSubcommand,
        clusters: true,
        options: &[
            flags(&[
                "-v",
                "--version",
                "-h",
                "--help",
                "--html-path",
                "--man-path",
                "--info-path",
                "-p",
                "--paginate",
                "-P",
                "--no-pager",
                "--no-replace-objects",
                "--no-lazy-fetch",
                "--no-optional-locks",
                "--no-advice",
                "--bare",
                "--literal-pathspecs",
                "--glob-pathspecs",
                "--noglob-pathspecs",
                "--icase-pathspecs",
            ]),
            attached(&["--list-cmds"]),
            // Another repository, work tree, program folder or namespace.
            opt(
                &[
                    "-C",
                    "--git-dir",
                    "--work-tree",
                    "--exec-path",
                    "--namespace",
                ],
                Required,
                ChangesConfig,
            ),
            opt(&["--config-env"], Required, ChangesConfig),
            valued(&["-c", "--super-prefix", "--attr-source"]),
        ],
        operands: super::Operands::Plain,
        parser: Parser::UniquePrefix,
        closed: true,
    },
    // Open rows: the options that run a program or write a file.
    sub(
        GIT,
        "format-patch",
        &[opt(&["-o", "--output-directory"], Required, WritesFile)],
    ),
    sub(
        GIT,
        "grep",
        &[opt(&["-O", "--open-files-in-pager"], Attached, RunsCode)],
    ),
    sub(GIT, "fetch", &[opt(&["--upload-pack"], Required, RunsCode)]),
    sub(GIT, "pull", &[opt(&["--upload-pack"], Required, RunsCode)]),
    sub(
        GIT,
        "clone",
        &[
            opt(&["-u", "--upload-pack"], Required, RunsCode),
            opt(&["--template", "-c", "--config"], Required, ChangesConfig),
        ],
    ),
    sub(
        GIT,
        "push",
        &[opt(&["--receive-pack", "--exec"], Required, RunsCode)],
    ),
    // `git send-email --sendmail-cmd=CMD` runs CMD to send each patch.
    sub(
        GIT,
        "send-email",
        &[opt(&["--sendmail-cmd"], Required, RunsCode)],
    ),
    sub(
        GIT,
        "ls-remote",
        &[opt(&["--upload-pack"], Required, RunsCode)],
    ),
    sub(
        GIT,
        "archive",
        &[
            opt(&["-o", "--output"], Required, WritesFile),
            opt(&["--exec"], Required, RunsCode),
        ],
    ),
    // Closed rows: the read-only subcommands.
    closed_sub("status", STATUS),
    closed_sub("diff", DIFF),
    // `git log`/`show`: the revision options and the diff ones.
    closed_sub("log", REVISIONS),
    closed_sub("log", DIFF),
    closed_sub("show", REVISIONS),
    closed_sub("show", DIFF),
    closed_sub("blame", BLAME),
    closed_sub("branch", BRANCH),
    closed_sub("rev-parse", REV_PARSE),
    closed_sub("ls-files", LS_FILES),
    closed_sub("config", CONFIG),
];

#[cfg(test)]
use super::row_examples::Reads;

/// The rows' examples, checked by this module's tests through the reader
/// every other reader uses (`Invocation::read`).
#[cfg(test)]
const EXAMPLES: &[(&str, Reads)] = &[
    ("git status", Reads::Harmless),
    ("git status -sb", Reads::Harmless),
    ("git status --porcelain=v2 -uno", Reads::Harmless),
    ("git status --porc", Reads::Harmless),
    ("git status --frobnicate", Reads::Unknown),
    ("git --no-pager log --oneline -n 20", Reads::Harmless),
    ("git log -p -- src/", Reads::Harmless),
    ("git log -10 --stat --format=%H%n%s", Reads::Harmless),
    (
        "git log --since 2.weeks --author ada --grep fix",
        Reads::Harmless,
    ),
    ("git log -S needle -p -M50% --follow a.rs", Reads::Harmless),
    (
        "git log --graph --decorate --all --oneline",
        Reads::Harmless,
    ),
    ("git log --output=x.txt", Reads::Does(WritesFile)),
    // `--outp` could be `--output` or `--output-indicator-new`: git refuses it.
    ("git log --outp x.txt", Reads::Unknown),
    ("git log --outpu=x.txt", Reads::Unknown),
    ("git log --output x.txt", Reads::Does(WritesFile)),
    ("git log --ext-diff", Reads::Does(ChangesConfig)),
    ("git log --frobnicate", Reads::Unknown),
    ("git diff --stat HEAD~1", Reads::Harmless),
    ("git diff --cached -U5 --word-diff=color", Reads::Harmless),
    ("git diff --no-index a b", Reads::Harmless),
    ("git diff --output=../x.patch", Reads::Does(WritesFile)),
    ("git diff --textconv a", Reads::Does(ChangesConfig)),
    ("git diff -O order.txt", Reads::Does(ReadsFile)),
    ("git diff --frobnicate", Reads::Unknown),
    ("git show HEAD --stat", Reads::Harmless),
    ("git show --format=%B -s HEAD", Reads::Harmless),
    ("git show --output=x HEAD", Reads::Does(WritesFile)),
    ("git show --frobnicate HEAD", Reads::Unknown),
    ("git blame -L 10,20 src/main.rs", Reads::Harmless),
    ("git blame --contents x src/main.rs", Reads::Does(ReadsFile)),
    ("git blame --frobnicate x", Reads::Unknown),
    ("git branch -a -vv", Reads::Harmless),
    ("git branch --show-current", Reads::Harmless),
    (
        "git branch --list feat* --sort=-committerdate",
        Reads::Harmless,
    ),
    ("git branch -D main", Reads::Unknown),
    ("git branch -m main old", Reads::Unknown),
    ("git branch --edit-description", Reads::Unknown),
    ("git rev-parse --show-toplevel", Reads::Harmless),
    ("git rev-parse --abbrev-ref HEAD", Reads::Harmless),
    ("git rev-parse --frobnicate", Reads::Unknown),
    ("git ls-files -m --exclude-standard", Reads::Harmless),
    ("git ls-files --frobnicate", Reads::Unknown),
    ("git config --get user.name", Reads::Harmless),
    ("git config --global --get-regexp ^alias", Reads::Harmless),
    ("git config -f other.cfg --list", Reads::Does(ReadsFile)),
    ("git config -e", Reads::Unknown),
    ("git config --add a.b c", Reads::Unknown),
    ("git -C /tmp/evil status", Reads::Does(ChangesConfig)),
    ("git --git-d=/tmp/evil status", Reads::Does(ChangesConfig)),
    ("git --frobnicate status", Reads::Unknown),
    ("git push --receive-pack=x origin", Reads::Does(RunsCode)),
    ("git push --rec x origin", Reads::Does(RunsCode)),
    ("git rebase -i HEAD~3", Reads::Harmless),
    ("git commit -am msg", Reads::Harmless),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::table::row_examples::misread;

    #[test]
    fn every_example_reads_as_its_row_says() {
        let wrong = misread(EXAMPLES);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn every_closed_subcommand_has_a_harmless_and_an_unknown_example() {
        for row in ROWS.iter().filter(|r| r.closed) {
            let sub = row.subcommand;
            let mine = |want: Reads| {
                EXAMPLES.iter().any(|(line, r)| {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    *r == want && sub.is_none_or(|s| words.contains(&s))
                })
            };
            assert!(mine(Reads::Harmless), "{sub:?}: no harmless example");
            assert!(mine(Reads::Unknown), "{sub:?}: no unknown example");
        }
    }
}
