//! Rows of the program table for the read-only and test programs agents'
//! allow-lists approve by prefix (`find:*`, `sort:*`, `rg:*`, `tree:*`,
//! `jq:*`, `go test:*`, `pytest:*`): each lists **every** option the engine
//! knows for its program, harmless or not, and is closed, so an option no
//! row lists is unknown (`limits/unknown-option`): a prefix rule, a
//! remembered answer or an allow-list entry does not approve it; it asks
//! where a person is present and runs confined where nobody is.
//!
//! A row also says how its program reads long options ([`Parser`]): GNU
//! `getopt_long` and Python's `argparse` take any unique prefix
//! (`sort --outp=F` is `--output=F`), Go's `flag` reads `--exec` as
//! `-exec`. The rows' examples ([`EXAMPLES`]) are checked by this module's
//! tests through the same reader every other reader uses
//! (`Invocation::read`).
//!
//! Not listed, on purpose (unknown, so they ask): `find -delete`, `-exec`,
//! `-execdir`, `-ok`, `-okdir` (removal and commands; `shell::runners`
//! reads what `-exec` runs), `tree -R` (writes `00Tree.html` into every
//! folder with `-H`), `jq -f` (a program from a file), `go test -args`.

use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, program, valued};

use Effect::{ChangesConfig, LoadsCode, RunsCode, WritesFile};
use OptionValue::{Flag, Required};

/// Options that take no value and do nothing the engine judges.
const fn flags(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Flag,
        effect: None,
    }
}

/// A closed row of a program's own options.
const fn closed(
    programs: &'static [&'static str],
    parser: Parser,
    clusters: bool,
    options: &'static [Opt],
) -> Row {
    Row {
        parser,
        closed: true,
        ..program(programs, clusters, options)
    }
}

/// A closed row of one subcommand (`go test`).
const fn closed_sub(
    programs: &'static [&'static str],
    subcommand: &'static str,
    options: &'static [Opt],
) -> Row {
    Row {
        programs,
        subcommand: Some(subcommand),
        options_at: Options::Anywhere,
        clusters: false,
        options,
        operands: super::Operands::Plain,
        parser: Parser::Exact,
        closed: true,
    }
}

const GO: &[&str] = &["go"];

/// The build flags `go build`, `go test`, `go vet`, `go run`, `go install`
/// and `go list` share.
const GO_BUILD: &[Opt] = &[
    flags(&[
        "-a",
        "-n",
        "-race",
        "-msan",
        "-asan",
        "-cover",
        "-v",
        "-work",
        "-x",
        "-linkshared",
        "-modcacherw",
        "-trimpath",
        "-json",
        "-buildvcs",
    ]),
    valued(&[
        "-p",
        "-covermode",
        "-coverpkg",
        "-buildmode",
        "-compiler",
        "-installsuffix",
        "-mod",
        "-pgo",
        "-pkgdir",
        "-tags",
    ]),
    // Another directory, module file, overlay or toolchain flags: another
    // build than the one the rule names (`-ldflags=-extld=CMD` runs CMD).
    opt(
        &[
            "-C",
            "-modfile",
            "-overlay",
            "-ldflags",
            "-gcflags",
            "-asmflags",
            "-gccgoflags",
        ],
        Required,
        ChangesConfig,
    ),
    opt(&["-toolexec", "-exec"], Required, RunsCode),
    opt(&["-o"], Required, WritesFile),
];

/// `go test`'s own flags on top of [`GO_BUILD`].
const GO_TEST: &[Opt] = &[
    flags(&[
        "-a",
        "-n",
        "-race",
        "-msan",
        "-asan",
        "-cover",
        "-v",
        "-work",
        "-x",
        "-linkshared",
        "-modcacherw",
        "-trimpath",
        "-json",
        "-buildvcs",
        "-c",
        "-short",
        "-benchmem",
        "-failfast",
        "-fullpath",
    ]),
    valued(&[
        "-p",
        "-covermode",
        "-coverpkg",
        "-buildmode",
        "-compiler",
        "-installsuffix",
        "-mod",
        "-pgo",
        "-pkgdir",
        "-tags",
        "-run",
        "-skip",
        "-bench",
        "-benchtime",
        "-count",
        "-timeout",
        "-parallel",
        "-cpu",
        "-list",
        "-shuffle",
        "-vet",
        "-fuzz",
        "-fuzztime",
        "-fuzzminimizetime",
    ]),
    opt(
        &[
            "-C",
            "-modfile",
            "-overlay",
            "-ldflags",
            "-gcflags",
            "-asmflags",
            "-gccgoflags",
        ],
        Required,
        ChangesConfig,
    ),
    opt(&["-toolexec", "-exec"], Required, RunsCode),
    opt(
        &[
            "-o",
            "-coverprofile",
            "-cpuprofile",
            "-memprofile",
            "-blockprofile",
            "-mutexprofile",
            "-trace",
            "-outputdir",
        ],
        Required,
        WritesFile,
    ),
];

/// The closed rows (see the module docs).
pub(crate) const ROWS: &[Row] = &[
    // find: its primaries are single-dash words, no clusters, no prefixes.
    closed(
        &["find"],
        Parser::Exact,
        false,
        &[
            flags(&[
                "-L",
                "-P",
                "-H",
                "-O0",
                "-O1",
                "-O2",
                "-O3",
                "-depth",
                "-d",
                "-follow",
                "-xdev",
                "-mount",
                "-noleaf",
                "-ignore_readdir_race",
                "-noignore_readdir_race",
                "-daystart",
                "-print",
                "-print0",
                "-ls",
                "-prune",
                "-quit",
                "-true",
                "-false",
                "-empty",
                "-executable",
                "-readable",
                "-writable",
                "-nouser",
                "-nogroup",
                "-not",
                "-a",
                "-and",
                "-o",
                "-or",
                "-warn",
                "-nowarn",
                "-help",
                "--help",
                "-version",
                "--version",
            ]),
            valued(&[
                "-name",
                "-iname",
                "-path",
                "-ipath",
                "-wholename",
                "-iwholename",
                "-regex",
                "-iregex",
                "-regextype",
                "-type",
                "-xtype",
                "-maxdepth",
                "-mindepth",
                "-mtime",
                "-mmin",
                "-atime",
                "-amin",
                "-ctime",
                "-cmin",
                "-newer",
                "-anewer",
                "-cnewer",
                "-newermt",
                "-newerat",
                "-newerct",
                "-newermm",
                "-size",
                "-perm",
                "-user",
                "-group",
                "-uid",
                "-gid",
                "-links",
                "-inum",
                "-lname",
                "-ilname",
                "-samefile",
                "-used",
                "-fstype",
                "-printf",
                "-D",
            ]),
            opt(
                &["-fprint", "-fprint0", "-fls", "-fprintf"],
                Required,
                WritesFile,
            ),
        ],
    ),
    // GNU sort: clusters, unique long prefixes.
    closed(
        &["sort"],
        Parser::UniquePrefix,
        true,
        &[
            flags(&[
                "-b",
                "--ignore-leading-blanks",
                "-d",
                "--dictionary-order",
                "-f",
                "--ignore-case",
                "-g",
                "--general-numeric-sort",
                "-h",
                "--human-numeric-sort",
                "-i",
                "--ignore-nonprinting",
                "-M",
                "--month-sort",
                "-n",
                "--numeric-sort",
                "-R",
                "--random-sort",
                "-r",
                "--reverse",
                "-V",
                "--version-sort",
                "-c",
                "-C",
                "--check",
                "-m",
                "--merge",
                "-s",
                "--stable",
                "-u",
                "--unique",
                "-z",
                "--zero-terminated",
                "--debug",
                "--help",
                "--version",
            ]),
            valued(&[
                "-k",
                "--key",
                "-t",
                "--field-separator",
                "-S",
                "--buffer-size",
                "-T",
                "--temporary-directory",
                "--parallel",
                "--sort",
                "--random-source",
                "--files0-from",
                "--batch-size",
            ]),
            opt(&["-o", "--output"], Required, WritesFile),
            opt(&["--compress-program"], Required, RunsCode),
        ],
    ),
    // ripgrep: clusters; its parser takes no abbreviations.
    closed(
        &["rg"],
        Parser::Exact,
        true,
        &[
            flags(&[
                "-i",
                "--ignore-case",
                "-s",
                "--case-sensitive",
                "-S",
                "--smart-case",
                "-F",
                "--fixed-strings",
                "-w",
                "--word-regexp",
                "-x",
                "--line-regexp",
                "-v",
                "--invert-match",
                "-c",
                "--count",
                "--count-matches",
                "-l",
                "--files-with-matches",
                "--files-without-match",
                "-L",
                "--follow",
                "--no-follow",
                "-n",
                "--line-number",
                "-N",
                "--no-line-number",
                "-H",
                "--with-filename",
                "-I",
                "--no-filename",
                "--hidden",
                "--no-hidden",
                "-.",
                "-u",
                "--unrestricted",
                "--no-ignore",
                "--no-ignore-vcs",
                "--no-ignore-dot",
                "--no-ignore-global",
                "--no-ignore-parent",
                "--no-ignore-exclude",
                "--no-ignore-files",
                "--no-require-git",
                "--files",
                "-o",
                "--only-matching",
                "-p",
                "--pretty",
                "--heading",
                "--no-heading",
                "--vimgrep",
                "--json",
                "--no-json",
                "--no-messages",
                "-q",
                "--quiet",
                "--stats",
                "-U",
                "--multiline",
                "--multiline-dotall",
                "-P",
                "--pcre2",
                "--no-pcre2",
                "-z",
                "--search-zip",
                "--trim",
                "-0",
                "--null",
                "--null-data",
                "-a",
                "--text",
                "-b",
                "--byte-offset",
                "--column",
                "--no-column",
                "--line-buffered",
                "--block-buffered",
                "--passthru",
                "--debug",
                "--trace",
                "--binary",
                "--no-binary",
                "--crlf",
                "--no-crlf",
                "--one-file-system",
                "--type-list",
                "-h",
                "--help",
                "-V",
                "--version",
                "--no-config",
                "--include-zero",
                "--no-unicode",
                "--max-columns-preview",
                "--sort-files",
            ]),
            valued(&[
                "-e",
                "--regexp",
                "-f",
                "--file",
                "-g",
                "--glob",
                "--iglob",
                "-t",
                "--type",
                "-T",
                "--type-not",
                "-A",
                "--after-context",
                "-B",
                "--before-context",
                "-C",
                "--context",
                "-m",
                "--max-count",
                "-d",
                "--max-depth",
                "--max-filesize",
                "-M",
                "--max-columns",
                "-j",
                "--threads",
                "--color",
                "--colors",
                "--sort",
                "--sortr",
                "--type-add",
                "--type-clear",
                "--engine",
                "-E",
                "--encoding",
                "--context-separator",
                "--field-match-separator",
                "--field-context-separator",
                "--path-separator",
                "-r",
                "--replace",
                "--dfa-size-limit",
                "--regex-size-limit",
                "--ignore-file",
                "--hyperlink-format",
                "--pre-glob",
            ]),
            // A preprocessor run on every file; the program that prints the
            // host name for hyperlinks.
            opt(&["--pre", "--hostname-bin"], Required, RunsCode),
        ],
    ),
    // tree: clusters, exact long options.
    closed(
        &["tree"],
        Parser::Exact,
        true,
        &[
            flags(&[
                "-a",
                "-d",
                "-l",
                "-f",
                "-x",
                "-i",
                "-q",
                "-N",
                "-Q",
                "-p",
                "-u",
                "-g",
                "-s",
                "-h",
                "-D",
                "-F",
                "-v",
                "-t",
                "-c",
                "-U",
                "-r",
                "-C",
                "-n",
                "-A",
                "-S",
                "-J",
                "-X",
                "--du",
                "--si",
                "--prune",
                "--noreport",
                "--dirsfirst",
                "--filesfirst",
                "--matchdirs",
                "--ignore-case",
                "--gitignore",
                "--inodes",
                "--device",
                "--info",
                "--metafirst",
                "--help",
                "--version",
            ]),
            valued(&[
                "-L",
                "-P",
                "-I",
                "-H",
                "-T",
                "--filelimit",
                "--timefmt",
                "--charset",
                "--sort",
                "--hintro",
                "--houtro",
            ]),
            opt(&["-o"], Required, WritesFile),
        ],
    ),
    // jq: clusters (`-nr`), exact long options.
    closed(
        &["jq"],
        Parser::Exact,
        true,
        &[
            flags(&[
                "-n",
                "--null-input",
                "-r",
                "--raw-output",
                "--raw-output0",
                "-j",
                "--join-output",
                "-a",
                "--ascii-output",
                "-c",
                "--compact-output",
                "-s",
                "--slurp",
                "-e",
                "--exit-status",
                "-S",
                "--sort-keys",
                "-C",
                "--color-output",
                "-M",
                "--monochrome-output",
                "--tab",
                "-R",
                "--raw-input",
                "--seq",
                "--stream",
                "--stream-errors",
                "--unbuffered",
                "--args",
                "--jsonargs",
                "-h",
                "--help",
                "-V",
                "--version",
            ]),
            valued(&["--indent", "--arg", "--argjson", "--slurpfile", "--rawfile"]),
            // Modules from a search path: code the line does not show.
            opt(&["-L"], Required, LoadsCode),
        ],
    ),
    // go: its own `-C DIR` comes before the subcommand; Go's flags.
    Row {
        programs: GO,
        subcommand: None,
        options_at: Options::BeforeSubcommand,
        clusters: false,
        options: &[opt(&["-C"], Required, ChangesConfig)],
        operands: super::Operands::Plain,
        parser: Parser::GoFlag,
        closed: false,
    },
    closed_sub(GO, "test", GO_TEST),
    closed_sub(GO, "build", GO_BUILD),
    closed_sub(GO, "vet", GO_BUILD),
    // pytest: argparse (clusters, unique long prefixes).
    closed(
        &["pytest", "py.test"],
        Parser::UniquePrefix,
        true,
        &[
            flags(&[
                "-q",
                "--quiet",
                "-v",
                "--verbose",
                "-x",
                "--exitfirst",
                "-s",
                "-l",
                "--showlocals",
                "--lf",
                "--last-failed",
                "--ff",
                "--failed-first",
                "--nf",
                "--new-first",
                "--sw",
                "--stepwise",
                "--sw-skip",
                "--stepwise-skip",
                "--co",
                "--collect-only",
                "--pdb",
                "--strict-markers",
                "--strict-config",
                "--strict",
                "--disable-warnings",
                "--disable-pytest-warnings",
                "--no-header",
                "--no-summary",
                "--runxfail",
                "--doctest-modules",
                "--continue-on-collection-errors",
                "--cache-clear",
                "--cache-show",
                "--setup-only",
                "--setup-show",
                "--setup-plan",
                "--fixtures",
                "--fixtures-per-test",
                "--markers",
                "-h",
                "--help",
                "-V",
                "--version",
                "--full-trace",
                "--trace",
                "--exitfirst",
            ]),
            valued(&[
                "--tb",
                "-r",
                "--durations",
                "--durations-min",
                "-k",
                "-m",
                "--maxfail",
                "-W",
                "--pythonwarnings",
                "--color",
                "--code-highlight",
                "--ignore",
                "--ignore-glob",
                "--deselect",
                "--doctest-glob",
                "--import-mode",
                "--showcapture",
                "--capture",
                "--log-level",
                "--log-cli-level",
                "--log-format",
                "--log-date-format",
                "-n",
                "--numprocesses",
                "--timeout",
                "--verbosity",
            ]),
            // Plugins, another configuration or root: code from elsewhere.
            opt(
                &[
                    "-p",
                    "-c",
                    "--config-file",
                    "--rootdir",
                    "--confcutdir",
                    "-o",
                    "--override-ini",
                ],
                Required,
                LoadsCode,
            ),
            // `--basetemp` is emptied (removed) before the run.
            opt(
                &[
                    "--basetemp",
                    "--junitxml",
                    "--junit-xml",
                    "--result-log",
                    "--log-file",
                ],
                Required,
                WritesFile,
            ),
        ],
    ),
];

/// How an example must read.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Every option listed, none with an effect.
    Harmless,
    /// An option the rows do not list.
    Unknown,
    /// A listed option with this effect.
    Does(Effect),
}

/// How `line` reads through the reader every other reader uses
/// (`Invocation::read`): the rows' examples are checked by it.
#[cfg(test)]
pub(crate) fn reads(line: &str) -> Reads {
    let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    let inv = super::Invocation::read(&words, &[]);
    if let Some(effect) = inv.options.iter().find_map(|o| o.effect) {
        return Reads::Does(effect);
    }
    if inv.unknown.is_some() {
        return Reads::Unknown;
    }
    Reads::Harmless
}

/// The examples that do not read as they say, each with how it read.
#[cfg(test)]
pub(crate) fn misread(examples: &[(&str, Reads)]) -> Vec<String> {
    examples
        .iter()
        .filter(|(line, want)| reads(line) != *want)
        .map(|(line, want)| format!("{line}: want {want:?}, read {:?}", reads(line)))
        .collect()
}

/// The rows' examples: a command line and how it must read. Checked by
/// this module's tests; the corpus (`tests/corpus/agent-policy.cases`)
/// holds the same classes as decisions.
#[cfg(test)]
pub(crate) const EXAMPLES: &[(&str, Reads)] = &[
    ("find . -name *.rs", Reads::Harmless),
    ("find -L . -type f -maxdepth 2 -print0", Reads::Harmless),
    ("find . -delete", Reads::Unknown),
    ("find . -exec rm {} ;", Reads::Unknown),
    ("find . -fprint out.txt", Reads::Does(WritesFile)),
    ("sort -u notes.txt", Reads::Harmless),
    ("sort -k2,2n -t, data.csv", Reads::Harmless),
    ("sort --num -r data.csv", Reads::Harmless),
    ("sort --outp=src/main.rs /dev/null", Reads::Does(WritesFile)),
    ("sort --o x notes.txt", Reads::Does(WritesFile)),
    ("sort -uox notes.txt", Reads::Does(WritesFile)),
    ("sort --compress=sh notes.txt", Reads::Does(RunsCode)),
    ("sort --s x", Reads::Unknown),
    ("sort --frobnicate x", Reads::Unknown),
    ("rg TODO", Reads::Harmless),
    ("rg -n --hidden -g !target TODO src", Reads::Harmless),
    ("rg --hostname-bin=./h.sh TODO", Reads::Does(RunsCode)),
    ("rg --pre ./x TODO", Reads::Does(RunsCode)),
    ("rg --hostname TODO", Reads::Unknown),
    ("tree -L 2", Reads::Harmless),
    ("tree -aL 2 -I target", Reads::Harmless),
    ("tree -o src/main.rs", Reads::Does(WritesFile)),
    ("tree -R -H . -L 2", Reads::Unknown),
    ("jq .name package.json", Reads::Harmless),
    ("jq -nr --arg v 1 $v", Reads::Harmless),
    ("jq -L ./mods .", Reads::Does(LoadsCode)),
    ("jq -f prog.jq", Reads::Unknown),
    ("go test ./...", Reads::Harmless),
    ("go test -run TestX -v -count=1 ./...", Reads::Harmless),
    ("go test -exec=./x ./...", Reads::Does(RunsCode)),
    ("go test --exec ./x ./...", Reads::Does(RunsCode)),
    ("go test -toolexec ./x ./...", Reads::Does(RunsCode)),
    ("go test -overlay=o.json ./...", Reads::Does(ChangesConfig)),
    ("go test -C /tmp/evil ./...", Reads::Does(ChangesConfig)),
    ("go -C /tmp/evil test ./...", Reads::Does(ChangesConfig)),
    ("go test -frobnicate ./...", Reads::Unknown),
    ("pytest -q", Reads::Harmless),
    ("pytest -q -x -k name tests/", Reads::Harmless),
    ("pytest --maxf=1", Reads::Harmless),
    ("pytest --basetemp=src", Reads::Does(WritesFile)),
    ("pytest --base=src", Reads::Does(WritesFile)),
    ("pytest -p evil", Reads::Does(LoadsCode)),
    ("pytest --frobnicate", Reads::Unknown),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::table::Invocation;

    #[test]
    fn every_example_reads_as_its_row_says() {
        let wrong = misread(EXAMPLES);
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn every_closed_program_has_a_harmless_and_an_unknown_example() {
        for row in ROWS.iter().filter(|r| r.closed) {
            let name = row.programs[0];
            let mine = |want: Reads| {
                EXAMPLES.iter().any(|(line, r)| {
                    *r == want
                        && line.split_whitespace().next() == Some(name)
                        && row
                            .subcommand
                            .is_none_or(|s| line.split_whitespace().nth(1) == Some(s))
                })
            };
            if row.subcommand.is_none() || row.subcommand == Some("test") {
                assert!(mine(Reads::Harmless), "{name}: no harmless example");
                assert!(mine(Reads::Unknown), "{name}: no unknown example");
            }
        }
    }

    #[test]
    fn a_prefix_of_two_long_options_is_not_read_as_either() {
        // `--s` could be `--sort` or `--stable`: getopt refuses it.
        let words: Vec<String> = ["sort", "--s", "x"].map(str::to_owned).to_vec();
        let inv = Invocation::read(&words, &[]);
        assert_eq!(inv.unknown, Some("--s"));
        // The unique prefix reads as the option, with its value.
        let words: Vec<String> = ["sort", "--outp", "f", "x"].map(str::to_owned).to_vec();
        let inv = Invocation::read(&words, &[]);
        assert_eq!(inv.options[0].long, "output");
        assert_eq!(inv.options[0].value, Some("f"));
        assert_eq!(inv.operands, ["x"]);
    }
}
