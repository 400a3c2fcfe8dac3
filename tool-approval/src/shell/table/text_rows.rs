//! Closed rows of the text tools agents' allow-lists approve by prefix
//! (`grep:*`, `diff:*`, `sed:*`, `awk:*`): each lists every option of GNU
//! grep, GNU diffutils' diff, GNU sed and gawk (awk's options are gawk's,
//! a superset of POSIX awk's and mawk's `-W`), so an option no row lists
//! is unknown (`limits/unknown-option`: no prefix rule approves it), as for
//! the read-only programs of `shell::known_rows`. All read long options
//! with GNU `getopt_long` (unique prefixes) and cluster short ones; awk's
//! options end at the program text (getopt's `+` mode: `awk '{…}' -x` has
//! no option `-x`). What sed scripts and awk programs do is read from
//! their text (`shell::programs`); a script or program from a file is code
//! the line does not show.
//!
//! Not listed, on purpose (unknown, so they ask): `diff -l`/`--paginate`
//! (runs `pr`); gawk's `-D`/`--debug` (a debugger reading commands). grep's
//! `-NUM` context is listed as its ten digits.

use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, program, valued};

use Effect::{LoadsCode, ReadsFile, WritesFile};
use OptionValue::{Attached, Flag, Required, Suffix};

/// Options that take no value and do nothing the engine judges.
const fn flags(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Flag,
        effect: None,
    }
}

/// Options whose value is only attached (`--color=auto`).
const fn attached(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Attached,
        effect: None,
    }
}

/// A closed row of a GNU program's own options.
const fn gnu(programs: &'static [&'static str], options: &'static [Opt]) -> Row {
    Row {
        parser: Parser::UniquePrefix,
        closed: true,
        ..program(programs, true, options)
    }
}

/// The closed rows (see the module docs).
pub(crate) const ROWS: &[Row] = &[
    gnu(
        &["sed", "gsed"],
        &[
            flags(&[
                "-n",
                "--quiet",
                "--silent",
                "--debug",
                "--follow-symlinks",
                "--posix",
                "-E",
                "-r",
                "--regexp-extended",
                "-s",
                "--separate",
                "--sandbox",
                "-u",
                "--unbuffered",
                "-z",
                "--null-data",
                "--help",
                "--version",
            ]),
            // The script: read from the line by `shell::programs`.
            valued(&["-e", "--expression", "-l", "--line-length"]),
            // A script from a file: code the line does not show.
            opt(&["-f", "--file"], Required, LoadsCode),
            // Every file operand is rewritten (the suffix names a backup).
            opt(&["-i", "--in-place"], Suffix, WritesFile),
        ],
    ),
    Row {
        options_at: Options::BeforeOperands,
        ..gnu(
            &["awk", "gawk"],
            &[
                flags(&[
                    "-b",
                    "--characters-as-bytes",
                    "-c",
                    "--traditional",
                    "-C",
                    "--copyright",
                    "-g",
                    "--gen-pot",
                    "-h",
                    "--help",
                    "-I",
                    "--trace",
                    "-k",
                    "--csv",
                    "-M",
                    "--bignum",
                    "-N",
                    "--use-lc-numeric",
                    "-n",
                    "--non-decimal-data",
                    "-O",
                    "--optimize",
                    "-P",
                    "--posix",
                    "-r",
                    "--re-interval",
                    "-s",
                    "--no-optimize",
                    "-S",
                    "--sandbox",
                    "-t",
                    "--lint-old",
                    "-V",
                    "--version",
                ]),
                attached(&["-L", "--lint"]),
                // The program text (read by `shell::programs`), fields,
                // variables, mawk's `-W` settings.
                valued(&[
                    "-e",
                    "--source",
                    "-F",
                    "--field-separator",
                    "-v",
                    "--assign",
                    "-W",
                ]),
                // A program or extension from a file: code the line does
                // not show.
                opt(
                    &[
                        "-f",
                        "--file",
                        "-E",
                        "--exec",
                        "-i",
                        "--include",
                        "-l",
                        "--load",
                    ],
                    Required,
                    LoadsCode,
                ),
                // Variables, a profile or the pretty-printed program are
                // written to a file (a default one without a value).
                opt(
                    &[
                        "-d",
                        "--dump-variables",
                        "-o",
                        "--pretty-print",
                        "-p",
                        "--profile",
                    ],
                    Attached,
                    WritesFile,
                ),
            ],
        )
    },
    gnu(
        &["grep", "egrep", "fgrep"],
        &[
            flags(&[
                "-E",
                "--extended-regexp",
                "-F",
                "--fixed-strings",
                "-G",
                "--basic-regexp",
                "-P",
                "--perl-regexp",
                "-i",
                "--ignore-case",
                "--no-ignore-case",
                "-y",
                "-v",
                "--invert-match",
                "-w",
                "--word-regexp",
                "-x",
                "--line-regexp",
                "-c",
                "--count",
                "-L",
                "--files-without-match",
                "-l",
                "--files-with-matches",
                "-o",
                "--only-matching",
                "-q",
                "--quiet",
                "--silent",
                "-s",
                "--no-messages",
                "-b",
                "--byte-offset",
                "-H",
                "--with-filename",
                "-h",
                "--no-filename",
                "-n",
                "--line-number",
                "--no-line-number",
                "-T",
                "--initial-tab",
                "-Z",
                "--null",
                "-z",
                "--null-data",
                "-a",
                "--text",
                "-I",
                "-r",
                "--recursive",
                "-R",
                "--dereference-recursive",
                "-U",
                "--binary",
                "--line-buffered",
                "--no-group-separator",
                "-V",
                "--version",
                "--help",
                "-0",
                "-1",
                "-2",
                "-3",
                "-4",
                "-5",
                "-6",
                "-7",
                "-8",
                "-9",
            ]),
            attached(&["--color", "--colour"]),
            valued(&[
                "-e",
                "--regexp",
                "-m",
                "--max-count",
                "-A",
                "--after-context",
                "-B",
                "--before-context",
                "-C",
                "--context",
                "-d",
                "--directories",
                "-D",
                "--devices",
                "--binary-files",
                "--exclude",
                "--exclude-dir",
                "--include",
                "--label",
                "--group-separator",
            ]),
            opt(&["-f", "--file", "--exclude-from"], Required, ReadsFile),
        ],
    ),
    gnu(
        &["diff"],
        &[
            flags(&[
                "-i",
                "--ignore-case",
                "--ignore-file-name-case",
                "--no-ignore-file-name-case",
                "-E",
                "--ignore-tab-expansion",
                "-Z",
                "--ignore-trailing-space",
                "-b",
                "--ignore-space-change",
                "-w",
                "--ignore-all-space",
                "-B",
                "--ignore-blank-lines",
                "--strip-trailing-cr",
                "-a",
                "--text",
                "-q",
                "--brief",
                "-s",
                "--report-identical-files",
                "-c",
                "-u",
                "-e",
                "--ed",
                "-f",
                "--forward-ed",
                "-n",
                "--rcs",
                "--normal",
                "-y",
                "--side-by-side",
                "--left-column",
                "--suppress-common-lines",
                "-p",
                "--show-c-function",
                "-t",
                "--expand-tabs",
                "-T",
                "--initial-tab",
                "--suppress-blank-empty",
                "-r",
                "--recursive",
                "--no-dereference",
                "-N",
                "--new-file",
                "--unidirectional-new-file",
                "-d",
                "--minimal",
                "--speed-large-files",
                "-v",
                "--version",
                "--help",
            ]),
            attached(&["--color", "--unified", "--context"]),
            valued(&[
                "-C",
                "-U",
                "-W",
                "--width",
                "--tabsize",
                "-I",
                "--ignore-matching-lines",
                "-F",
                "--show-function-line",
                "-x",
                "--exclude",
                "-S",
                "--starting-file",
                "-D",
                "--ifdef",
                "--label",
                "--horizon-lines",
                "--palette",
                "--line-format",
                "--old-line-format",
                "--new-line-format",
                "--unchanged-line-format",
                "--old-group-format",
                "--new-group-format",
                "--unchanged-group-format",
                "--changed-group-format",
            ]),
            opt(
                &["-X", "--exclude-from", "--from-file", "--to-file"],
                Required,
                ReadsFile,
            ),
        ],
    ),
];

#[cfg(test)]
use super::row_examples::Reads;

/// The rows' examples, checked by this module's tests through the reader
/// every other reader uses (`Invocation::read`).
#[cfg(test)]
const EXAMPLES: &[(&str, Reads)] = &[
    ("grep lib", Reads::Harmless),
    ("grep -rn --include=*.rs TODO src", Reads::Harmless),
    ("grep -E -i -C 3 --color=auto x a.txt", Reads::Harmless),
    ("grep -5 x a.txt", Reads::Harmless),
    ("grep --inc=*.rs -r x .", Reads::Harmless),
    ("grep -f patterns.txt a.txt", Reads::Does(ReadsFile)),
    ("grep --frobnicate x", Reads::Unknown),
    ("grep --no x", Reads::Unknown),
    ("diff -u a.txt b.txt", Reads::Harmless),
    ("diff -ruN --exclude=target a b", Reads::Harmless),
    ("diff --unified=5 a b", Reads::Harmless),
    ("diff --to-file=b a", Reads::Does(ReadsFile)),
    ("diff -l a b", Reads::Unknown),
    ("diff --paginate a b", Reads::Unknown),
    ("sed -n 1,5p README.md", Reads::Harmless),
    ("sed -E -e s/a/b/g -e 1d README.md", Reads::Harmless),
    ("sed README.md --expr=1d", Reads::Harmless),
    ("sed --sandbox 1d README.md", Reads::Harmless),
    ("sed -i s/a/b/ src/main.rs", Reads::Does(WritesFile)),
    ("sed -i.bak s/a/b/ src/main.rs", Reads::Does(WritesFile)),
    ("sed -ni~ s/a/b/p src/main.rs", Reads::Does(WritesFile)),
    ("sed --in-place=.orig s/a/b/ x", Reads::Does(WritesFile)),
    ("sed --in s/a/b/ x", Reads::Does(WritesFile)),
    ("sed -f edits.sed README.md", Reads::Does(LoadsCode)),
    ("sed --frobnicate 1d x", Reads::Unknown),
    ("sed --s 1d x", Reads::Unknown),
    ("awk {print} README.md", Reads::Harmless),
    ("awk -F: -v x=1 {print} /etc/hosts", Reads::Harmless),
    ("awk -F, {print} data.csv -x", Reads::Harmless),
    ("gawk --source=BEGIN{} -e END{}", Reads::Harmless),
    ("awk -f prog.awk data.csv", Reads::Does(LoadsCode)),
    ("awk -i inplace {print} x", Reads::Does(LoadsCode)),
    ("awk -l ./ext.so BEGIN{}", Reads::Does(LoadsCode)),
    ("awk -d/tmp/vars BEGIN{}", Reads::Does(WritesFile)),
    ("awk --prof=src/main.rs BEGIN{}", Reads::Does(WritesFile)),
    ("awk -D BEGIN{}", Reads::Unknown),
    ("awk --frobnicate BEGIN{}", Reads::Unknown),
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
    fn every_row_has_a_harmless_and_an_unknown_example() {
        for row in ROWS {
            let name = row.programs[0];
            let mine = |want: Reads| {
                EXAMPLES
                    .iter()
                    .any(|(line, r)| *r == want && line.split_whitespace().next() == Some(name))
            };
            assert!(mine(Reads::Harmless), "{name}: no harmless example");
            assert!(mine(Reads::Unknown), "{name}: no unknown example");
        }
    }
}
