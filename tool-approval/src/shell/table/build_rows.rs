//! cargo's and npm's rows of the program table: their own options (which
//! may come anywhere on the line, every one listed) and closed rows for the
//! subcommands agents' allow-lists approve by prefix (`cargo build:*`,
//! `cargo test:*`, `cargo check:*`, `cargo clippy:*`, `npm test:*`,
//! `npm run:*`, `npm ls:*`…): an option no row lists is unknown
//! (`limits/unknown-option`: no prefix rule approves it). A subcommand
//! without a row (`cargo nextest`, a plugin) is not known, so its options
//! are not judged; cargo's and npm's own options still are, wherever they
//! are.
//!
//! An option that takes the command to another project, manifest,
//! directory or configuration (`--manifest-path`, `-C`, `--config`,
//! `--target-dir`, `--prefix`) changes the configuration: it takes a call
//! out of a full-access rule (`cargo build:*` with `"confinement":
//! "full_access"` does not build `/tmp/evil`).
//!
//! cargo reads long options exactly (clap) and clusters short ones (`-vv`);
//! npm takes any unique prefix (nopt's abbreviations: `--scr` is
//! `--script-shell`).
//!
//! Not listed, on purpose (unknown, so they ask): `cargo clippy --fix` and
//! `cargo fix` (rewrite the sources), `cargo doc --open` (starts a
//! browser), npm's configuration keys beyond the common ones.

use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, program, sub, valued};

use Effect::{ChangesConfig, RunsCode, WritesFile};
use OptionValue::{Attached, Flag, Required};

const CARGO: &[&str] = &["cargo"];
const NPM: &[&str] = &["npm"];

/// Options that take no value and do nothing the engine judges.
const fn flags(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Flag,
        effect: None,
    }
}

/// Options whose value is only attached (`--timings=html`).
const fn attached(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Attached,
        effect: None,
    }
}

/// A program's own row: options anywhere, closed.
const fn own(programs: &'static [&'static str], parser: Parser, options: &'static [Opt]) -> Row {
    Row {
        options_at: Options::Anywhere,
        parser,
        closed: true,
        ..program(programs, true, options)
    }
}

/// A closed row of one subcommand.
const fn closed_sub(
    programs: &'static [&'static str],
    subcommand: &'static str,
    options: &'static [Opt],
) -> Row {
    Row {
        closed: true,
        ..sub(programs, subcommand, options)
    }
}

/// What cargo's build commands share: packages, targets, features,
/// profiles, output.
const CARGO_COMPILE: &[Opt] = &[
    flags(&[
        "--workspace",
        "--all",
        "--lib",
        "--bins",
        "--examples",
        "--tests",
        "--benches",
        "--all-targets",
        "--all-features",
        "--no-default-features",
        "-r",
        "--release",
        "--keep-going",
        "--ignore-rust-version",
        "--unit-graph",
        "--future-incompat-report",
        "--timings",
        "--build-plan",
    ]),
    attached(&["--timings"]),
    valued(&[
        "-p",
        "--package",
        "--exclude",
        "--bin",
        "--example",
        "--test",
        "--bench",
        "-F",
        "--features",
        "--profile",
        "-j",
        "--jobs",
        "--target",
        "--message-format",
    ]),
    // The artifacts are copied into this folder.
    opt(&["--artifact-dir", "--out-dir"], Required, WritesFile),
];

/// `cargo test` and `cargo bench` on top of [`CARGO_COMPILE`].
const CARGO_TEST: &[Opt] = &[flags(&["--no-run", "--no-fail-fast", "--doc"])];

/// `cargo clippy` on top of [`CARGO_COMPILE`] (`--fix` is not listed).
const CARGO_CLIPPY: &[Opt] = &[flags(&["--no-deps"])];

/// `cargo doc` on top of [`CARGO_COMPILE`] (`--open` is not listed).
const CARGO_DOC: &[Opt] = &[flags(&["--no-deps", "--document-private-items"])];

/// `cargo fmt`'s options.
const CARGO_FMT: &[Opt] = &[
    flags(&["--all", "--check"]),
    valued(&["-p", "--package", "--message-format"]),
];

/// `cargo tree`'s options.
const CARGO_TREE: &[Opt] = &[
    flags(&[
        "-i",
        "--invert",
        "--no-dedupe",
        "-d",
        "--duplicates",
        "--workspace",
        "--all-features",
        "--no-default-features",
    ]),
    valued(&[
        "-e",
        "--edges",
        "--prefix",
        "--charset",
        "-f",
        "--format",
        "--depth",
        "--target",
        "-p",
        "--package",
        "--exclude",
        "-F",
        "--features",
        "--prune",
    ]),
];

/// `cargo metadata`'s options.
const CARGO_METADATA: &[Opt] = &[
    flags(&["--no-deps", "--all-features", "--no-default-features"]),
    valued(&["--format-version", "--filter-platform", "-F", "--features"]),
];

/// npm's options for the subcommands with a row: npm reads any option on
/// any subcommand (as configuration), so they are the program's own.
const NPM_OWN: &[Opt] = &[
    flags(&[
        "-s",
        "--silent",
        "-q",
        "--quiet",
        "-d",
        "--verbose",
        "--json",
        "-p",
        "--parseable",
        "-l",
        "--long",
        "-a",
        "--all",
        "--production",
        "--workspaces",
        "-ws",
        "--include-workspace-root",
        "--if-present",
        "--ignore-scripts",
        "--audit",
        "--no-audit",
        "--fund",
        "--no-fund",
        "--prefer-offline",
        "--prefer-online",
        "--offline",
        "--progress",
        "--no-progress",
        "--no-color",
        "--foreground-scripts",
        "--dry-run",
        "--legacy-peer-deps",
        "--strict-peer-deps",
        "-S",
        "--save",
        "--no-save",
        "-D",
        "--save-dev",
        "-P",
        "--save-prod",
        "-O",
        "--save-optional",
        "-E",
        "--save-exact",
        "--save-peer",
        "--no-package-lock",
        "--package-lock-only",
        "-f",
        "--force",
        "-y",
        "--yes",
        "--no-optional",
        "--install-links",
        "-h",
        "--help",
        "-v",
        "--version",
        "--color",
    ]),
    attached(&["--color"]),
    valued(&[
        "--loglevel",
        "--depth",
        "--omit",
        "--include",
        "-w",
        "--workspace",
        "--install-strategy",
        "--before",
        "--tag",
        "--dir",
        "--cwd",
    ]),
    // Another project, Node's own options, another configuration or
    // registry, the global folder.
    opt(
        &[
            "--node-options",
            "--prefix",
            "-C",
            "--userconfig",
            "--globalconfig",
            "--registry",
        ],
        Required,
        ChangesConfig,
    ),
    opt(&["-g", "--global"], Flag, ChangesConfig),
    // The shell package scripts run with.
    opt(&["--script-shell"], Required, RunsCode),
];

/// The rows (see the module docs).
pub(crate) const ROWS: &[Row] = &[
    own(
        CARGO,
        Parser::Exact,
        &[
            flags(&[
                "-V",
                "--version",
                "--list",
                "-v",
                "--verbose",
                "-q",
                "--quiet",
                "--locked",
                "--offline",
                "--frozen",
                "-h",
                "--help",
            ]),
            valued(&["--explain", "--color"]),
            // Another project's manifest, directory, configuration or
            // output: the command is not the one a rule named.
            opt(
                &[
                    "--config",
                    "-Z",
                    "-C",
                    "--target-dir",
                    "--manifest-path",
                    "--lockfile-path",
                ],
                Required,
                ChangesConfig,
            ),
        ],
    ),
    closed_sub(CARGO, "build", CARGO_COMPILE),
    closed_sub(CARGO, "b", CARGO_COMPILE),
    closed_sub(CARGO, "check", CARGO_COMPILE),
    closed_sub(CARGO, "c", CARGO_COMPILE),
    closed_sub(CARGO, "run", CARGO_COMPILE),
    closed_sub(CARGO, "r", CARGO_COMPILE),
    closed_sub(CARGO, "test", CARGO_COMPILE),
    closed_sub(CARGO, "test", CARGO_TEST),
    closed_sub(CARGO, "t", CARGO_COMPILE),
    closed_sub(CARGO, "t", CARGO_TEST),
    closed_sub(CARGO, "bench", CARGO_COMPILE),
    closed_sub(CARGO, "bench", CARGO_TEST),
    closed_sub(CARGO, "clippy", CARGO_COMPILE),
    closed_sub(CARGO, "clippy", CARGO_CLIPPY),
    closed_sub(CARGO, "doc", CARGO_COMPILE),
    closed_sub(CARGO, "doc", CARGO_DOC),
    closed_sub(CARGO, "d", CARGO_COMPILE),
    closed_sub(CARGO, "d", CARGO_DOC),
    closed_sub(CARGO, "fmt", CARGO_FMT),
    closed_sub(CARGO, "tree", CARGO_TREE),
    closed_sub(CARGO, "metadata", CARGO_METADATA),
    own(NPM, Parser::UniquePrefix, NPM_OWN),
    closed_sub(NPM, "test", &[]),
    closed_sub(NPM, "t", &[]),
    closed_sub(NPM, "tst", &[]),
    closed_sub(NPM, "run", &[]),
    closed_sub(NPM, "run-script", &[]),
    closed_sub(NPM, "rum", &[]),
    closed_sub(NPM, "urn", &[]),
    closed_sub(NPM, "ls", &[]),
    closed_sub(NPM, "list", &[]),
    closed_sub(NPM, "ll", &[]),
    closed_sub(NPM, "la", &[]),
    closed_sub(NPM, "install", &[]),
    closed_sub(NPM, "i", &[]),
    closed_sub(NPM, "add", &[]),
    closed_sub(NPM, "ci", &[]),
    closed_sub(NPM, "clean-install", &[]),
    closed_sub(NPM, "outdated", &[]),
    closed_sub(NPM, "view", &[]),
    closed_sub(NPM, "info", &[]),
];

#[cfg(test)]
use super::row_examples::Reads;

/// The rows' examples, checked by this module's tests through the reader
/// every other reader uses (`Invocation::read`).
#[cfg(test)]
const EXAMPLES: &[(&str, Reads)] = &[
    ("cargo build", Reads::Harmless),
    (
        "cargo build --release -p tool-core --features x",
        Reads::Harmless,
    ),
    ("cargo +nightly build", Reads::Harmless),
    (
        "cargo test -p tool-approval --test corpus -- --nocapture",
        Reads::Harmless,
    ),
    ("cargo test --no-run --workspace -j2", Reads::Harmless),
    (
        "cargo -vv check --all-targets --all-features",
        Reads::Harmless,
    ),
    ("cargo clippy --all-targets -- -D warnings", Reads::Harmless),
    ("cargo fmt -p tool-approval -- --check", Reads::Harmless),
    ("cargo doc --no-deps", Reads::Harmless),
    ("cargo tree -e normal -i serde", Reads::Harmless),
    ("cargo nextest run --frobnicate", Reads::Harmless),
    (
        "cargo build --manifest-path /tmp/evil/Cargo.toml",
        Reads::Does(ChangesConfig),
    ),
    (
        "cargo build --target-dir /tmp/t",
        Reads::Does(ChangesConfig),
    ),
    ("cargo -C /tmp/evil build", Reads::Does(ChangesConfig)),
    (
        "cargo build --config build.rustc-wrapper=x",
        Reads::Does(ChangesConfig),
    ),
    ("cargo build --artifact-dir ~/bin", Reads::Does(WritesFile)),
    ("cargo build --frobnicate", Reads::Unknown),
    ("cargo build --manifest", Reads::Unknown),
    ("cargo clippy --fix", Reads::Unknown),
    ("cargo doc --open", Reads::Unknown),
    ("cargo --frobnicate build", Reads::Unknown),
    ("cargo check --frobnicate", Reads::Unknown),
    ("npm test", Reads::Harmless),
    ("npm test --silent -w web", Reads::Harmless),
    ("npm run build --if-present -- --watch", Reads::Harmless),
    ("npm ls --all --depth=0", Reads::Harmless),
    ("npm ci --ignore-scripts --no-audit", Reads::Harmless),
    ("npm test --scr=/tmp/x.sh", Reads::Does(RunsCode)),
    ("npm test --script-shell /tmp/x.sh", Reads::Does(RunsCode)),
    (
        "npm run build --prefix /tmp/evil",
        Reads::Does(ChangesConfig),
    ),
    ("npm i -g left-pad", Reads::Does(ChangesConfig)),
    (
        "npm test --node-options=--require=./x.js",
        Reads::Does(ChangesConfig),
    ),
    ("npm test --frobnicate", Reads::Unknown),
    ("npm run build --watch", Reads::Unknown),
    ("npm --frobnicate ls", Reads::Unknown),
    ("npm exec --frobnicate x", Reads::Harmless),
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
    fn every_program_has_a_harmless_and_an_unknown_example() {
        for program in [CARGO[0], NPM[0]] {
            let mine = |want: Reads| {
                EXAMPLES
                    .iter()
                    .any(|(line, r)| *r == want && line.split_whitespace().next() == Some(program))
            };
            assert!(mine(Reads::Harmless), "{program}: no harmless example");
            assert!(mine(Reads::Unknown), "{program}: no unknown example");
        }
    }
}
