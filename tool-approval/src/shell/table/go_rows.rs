//! Rows of the program table for `go`: its own `-C DIR` before the
//! subcommand, and closed rows for `go test`, `go build` and `go vet` (Go's
//! `flag` package: one or two dashes, no clusters, no abbreviations), so
//! an option they do not list is unknown (`limits/unknown-option`) behind
//! a `go test:*` rule. `-exec`, `-toolexec`, `-overlay` and `-C` are
//! listed with what they do. The examples are in `known_rows::EXAMPLES`.

use super::known_rows::flags;
use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, valued};

use Effect::{ChangesConfig, RunsCode, WritesFile};
use OptionValue::Required;

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

/// The rows (see the module docs).
pub(crate) const ROWS: &[Row] = &[
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
];
