//! The program table: what the engine knows about a program's command line,
//! as data, and the one reader that turns a command's words into a typed
//! `Invocation`.
//!
//! A row names programs (basenames) and optionally one subcommand, and lists
//! the options that matter there: which take a value, how ([`OptionValue`]:
//! a separate or attached word, or attached only), and what each does
//! ([`Effect`]: reads or writes the file it names, runs the command it
//! gives, loads code, opens the network, changes the configuration of this
//! or a later run). An option a row does not list is a flag without a value.
//! A row also says what its operands do (`Operands`: `cp`'s last is
//! written, every one of `tee`, `dd of=F`), where the subcommand sits (the
//! first operand; git's own options come only before it) and whether short
//! options cluster (`-avze CMD` is `-a -v -z -e CMD` for rsync;
//! `-fno-builtin` is one option for gcc).
//!
//! Every reader of options goes through `Invocation::read`: the option
//! effects that block prefix approval (`shell::options`), git's subcommand
//! (`shell::scripts`), the blacklist's flag, operand and written-file
//! checks; wrappers and command runners read their own options with the same
//! rule (`takes_separate_value`). Hosts add
//! rows through the policy file's `shell.options` (see
//! [`CommandOption`]), read by the same reader.

use super::words::basename;

pub(crate) use invocation::{Invocation, takes_separate_value};

pub(crate) mod build_rows;
pub(crate) mod git_rows;
pub(crate) mod go_rows;
mod invocation;
pub(crate) mod known_rows;
#[cfg(test)]
pub(crate) mod row_examples;
pub(crate) mod runner_rows;
pub(crate) mod text_rows;

/// What an option, an operand or a program's own language does, beyond
/// what the command's name says: the one vocabulary of the program table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Effect {
    /// The value is a file the command reads (the blacklist's path entries
    /// see it as they see every word).
    ReadsFile,
    /// The value is a file the command writes: it joins the command's
    /// written files, so path entries (`~/.bashrc`) judge it.
    WritesFile,
    /// The value is a command or script the command runs: parsed like the
    /// line, so deny rules and the blacklist judge what it runs.
    RunsCode,
    /// The command loads code the engine does not read as shell: a plugin,
    /// a module, a program in another language, a file that names programs
    /// (`node -r`, `python -c`, `make -f`). No prefix rule approves it.
    LoadsCode,
    /// The command opens the network where its name does not say so.
    Network,
    /// The command runs with another configuration, directory or
    /// repository, which can make it run code (hooks, pagers, build
    /// scripts). No prefix rule approves it.
    ChangesConfig,
}

impl Effect {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Self::ReadsFile => "reads a file",
            Self::WritesFile => "writes a file",
            Self::RunsCode => "runs a command",
            Self::LoadsCode => "loads code",
            Self::Network => "opens the network",
            Self::ChangesConfig => "changes the configuration the command runs with",
        }
    }

    /// The name the policy file uses (`writesFile`, `runsCode`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadsFile => "readsFile",
            Self::WritesFile => "writesFile",
            Self::RunsCode => "runsCode",
            Self::LoadsCode => "loadsCode",
            Self::Network => "network",
            Self::ChangesConfig => "changesConfig",
        }
    }

    /// Every effect, in the order of [`Effect::name`]'s list.
    pub const ALL: [Effect; 6] = [
        Self::ReadsFile,
        Self::WritesFile,
        Self::RunsCode,
        Self::LoadsCode,
        Self::Network,
        Self::ChangesConfig,
    ];

    /// The effect a policy-file name stands for.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether a prefix rule may still approve a command with this effect:
    /// reading is what approved commands do; everything else is more than
    /// the command's name says.
    pub(crate) fn blocks_prefix_approval(self) -> bool {
        !matches!(self, Self::ReadsFile)
    }
}

/// How sure a found effect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reading {
    /// Read from the line: the command runs it (`sed '1e CMD'`, `--output F`).
    Sure,
    /// A literal found in general code (an interpreter's, vim's) that may
    /// be a command: judged only when it reads as a clean command.
    Maybe,
    /// What runs is computed at run time or kept elsewhere (`s///e`,
    /// `system($0)`, an `ext::` remote in the repository's config): a
    /// script not on the line.
    NotOnLine,
}

/// One effect found in a command, by an option of the table or in a
/// program's own language (sed, awk, one-liners; see `shell::programs`):
/// what it does, the file or command it names, and how sure the reading is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) effect: Effect,
    /// The file written or read, or the command run (none for a flag, a
    /// configuration change or a command not on the line).
    pub(crate) value: Option<String>,
    pub(crate) reading: Reading,
}

impl Found {
    pub(crate) fn new(effect: Effect, value: Option<String>) -> Self {
        Self {
            effect,
            value,
            reading: Reading::Sure,
        }
    }

    /// Runs this shell command.
    pub(crate) fn runs(command: String) -> Self {
        Self::new(Effect::RunsCode, Some(command))
    }

    /// May run this shell command (a literal in general code).
    pub(crate) fn may_run(command: String) -> Self {
        Self {
            reading: Reading::Maybe,
            ..Self::runs(command)
        }
    }

    /// Runs a command not on the line.
    pub(crate) fn runs_unread() -> Self {
        Self {
            effect: Effect::RunsCode,
            value: None,
            reading: Reading::NotOnLine,
        }
    }

    /// Writes this file.
    pub(crate) fn writes(file: String) -> Self {
        Self::new(Effect::WritesFile, Some(file))
    }

    /// The order lists of found effects are sorted in (for dedup): commands
    /// run, then may run, then not on the line, then files.
    fn rank(&self) -> (u8, Effect, &Option<String>) {
        let rank = match (self.effect, self.reading) {
            (Effect::RunsCode, Reading::Sure) => 0,
            (Effect::RunsCode, Reading::Maybe) => 1,
            (_, Reading::NotOnLine) => 2,
            _ => 3,
        };
        (rank, self.effect, &self.value)
    }
}

impl PartialOrd for Found {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Found {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank()
            .cmp(&other.rank())
            .then(self.reading.cmp(&other.reading))
    }
}

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptionValue {
    /// No value: the option's presence is the effect (`--ext-diff`).
    Flag,
    /// `-o FILE`, `-oFILE`, `--output FILE` or `--output=FILE`.
    Required,
    /// Only attached: `--output=FILE` (a separate word is an operand).
    Attached,
    /// Only attached, and the value names no file: a backup suffix
    /// (`sed -i.bak`, `--in-place=.orig`, `-i~`), so an effect the option
    /// has carries no value.
    Suffix,
}

/// A host's row of the program table: one option of one command (after
/// one subcommand, or the program's own), how it takes a value and what it
/// does; or ([`CommandOption::valued`]) only that it takes a value, so the
/// word after it is neither the subcommand nor an operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOption {
    pub(crate) program: String,
    pub(crate) subcommand: Option<String>,
    pub(crate) names: Vec<String>,
    pub(crate) value: OptionValue,
    pub(crate) effect: Option<Effect>,
}

impl CommandOption {
    /// `program`'s option, spelled any of `names` (`-o`, `--output`).
    pub fn new(
        program: impl Into<String>,
        names: &[&str],
        value: OptionValue,
        effect: Effect,
    ) -> Self {
        Self {
            program: program.into(),
            subcommand: None,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            value,
            effect: Some(effect),
        }
    }

    /// `program`'s option that takes a value and does nothing the engine
    /// judges (`deploy --env prod run`: `prod` is not the subcommand).
    pub fn valued(program: impl Into<String>, names: &[&str]) -> Self {
        Self {
            program: program.into(),
            subcommand: None,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            value: OptionValue::Required,
            effect: None,
        }
    }

    /// Only after this subcommand (`git diff --output`).
    pub fn subcommand(mut self, subcommand: impl Into<String>) -> Self {
        self.subcommand = Some(subcommand.into());
        self
    }

    /// The program (a basename).
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The effect (`None` for an option that only takes a value).
    pub fn effect(&self) -> Option<Effect> {
        self.effect
    }
}

/// One option of a row: its spellings, how it takes a value, what it does
/// (`None`: it only takes a value, as git's `--namespace NAME` does).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt {
    pub(crate) names: &'static [&'static str],
    pub(crate) value: OptionValue,
    pub(crate) effect: Option<Effect>,
}

/// Where a program's subcommand sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Options {
    /// The first operand is the subcommand and the program's own options
    /// come only before it (`git -C DIR diff --output F`).
    BeforeSubcommand,
    /// The first operand is the subcommand; the program's own options may
    /// come anywhere (`cargo test --config X`).
    Anywhere,
    /// Options end at the first operand (getopt's `+` mode): the rest is
    /// the operand list, and for a command runner the command it runs
    /// (`xargs -0 grep -r x`: `-r` is grep's; `awk '{…}' -x`: `-x` is an
    /// operand).
    BeforeOperands,
}

/// One row of the program table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    /// Program names (basenames).
    pub(crate) programs: &'static [&'static str],
    /// The subcommand the options belong to; `None`: the program's own.
    pub(crate) subcommand: Option<&'static str>,
    /// Where the program's own options may come (only read on the row
    /// without a subcommand).
    pub(crate) options_at: Options,
    /// Whether short options cluster (`-avze CMD`).
    pub(crate) clusters: bool,
    /// The options that take a value or have an effect.
    pub(crate) options: &'static [Opt],
    /// What the operands are (only read on the row without a subcommand).
    pub(crate) operands: Operands,
    /// How the program reads long options (only read on the row without a
    /// subcommand).
    pub(crate) parser: Parser,
    /// The row lists every option of the program (or of its subcommand):
    /// any other is unknown, and no prefix rule approves it
    /// (`limits/unknown-option`; see `shell::known_rows`).
    pub(crate) closed: bool,
}

/// How a program reads its long options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parser {
    /// Only the spellings listed.
    Exact,
    /// GNU `getopt_long` and Python's `argparse`: a long option may be
    /// written as any prefix that names one option only (`--outp` is
    /// `--output`); a prefix of two or more is an error.
    UniquePrefix,
    /// Go's `flag` package: `--name` is `-name`; no clusters.
    GoFlag,
}

/// What a program's operands do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Nothing the table knows (read as words by the blacklist).
    Plain,
    /// The last of two or more is written: the destination of `cp`, `mv`,
    /// `install`, `ln`, `rsync` (`-t DIR` names it instead).
    LastWritten,
    /// Every one is written (`tee`, `truncate`, `shred`).
    AllWritten,
    /// The value of every operand with this prefix is written (`dd of=F`).
    AssignedWritten(&'static str),
}

use Effect::{ChangesConfig, LoadsCode, RunsCode, WritesFile};
use OptionValue::{Attached, Flag, Required, Suffix};

pub(crate) const fn opt(names: &'static [&'static str], value: OptionValue, effect: Effect) -> Opt {
    Opt {
        names,
        value,
        effect: Some(effect),
    }
}

/// An option that only takes a value (so the word after it is not the
/// subcommand or an operand).
pub(crate) const fn valued(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Required,
        effect: None,
    }
}

pub(crate) const fn program(
    programs: &'static [&'static str],
    clusters: bool,
    options: &'static [Opt],
) -> Row {
    Row {
        programs,
        subcommand: None,
        options_at: Options::Anywhere,
        clusters,
        options,
        operands: Operands::Plain,
        parser: Parser::Exact,
        closed: false,
    }
}

/// A program whose operands write files (`cp SRC DST`, `tee F`, `dd of=F`).
const fn writer(
    programs: &'static [&'static str],
    operands: Operands,
    options: &'static [Opt],
) -> Row {
    Row {
        operands,
        ..program(programs, false, options)
    }
}

pub(crate) const fn sub(
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
        operands: Operands::Plain,
        parser: Parser::Exact,
        closed: false,
    }
}

/// The built-in rows. A program's row without a subcommand comes first.
pub(crate) const TABLE: &[Row] = &[
    // git: see `shell::git_rows`; cargo and npm: `shell::build_rows`.
    program(
        &["npx"],
        false,
        &[
            opt(&["--node-options", "--prefix"], Required, ChangesConfig),
            valued(&["-C", "--dir", "--cwd"]),
        ],
    ),
    program(
        &["pnpm"],
        false,
        &[
            opt(
                &["--node-options", "--prefix", "-C", "--dir"],
                Required,
                ChangesConfig,
            ),
            valued(&["--cwd"]),
        ],
    ),
    program(
        &["yarn"],
        false,
        &[
            opt(&["--cwd", "--use-yarnrc"], Required, ChangesConfig),
            valued(&["--prefix", "-C", "--dir"]),
        ],
    ),
    program(
        &["node"],
        false,
        &[opt(
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
            ],
            Required,
            LoadsCode,
        )],
    ),
    // rg, find, sort, tree, jq, go, pytest: see `shell::known_rows`.
    // tar, rsync, ssh, scp, zip: programs they run, configuration they read.
    program(
        &["tar"],
        true,
        &[
            opt(
                &[
                    "--to-command",
                    "--use-compress-program",
                    "-I",
                    "--rsh-command",
                    "--info-script",
                    "--new-volume-script",
                ],
                Required,
                RunsCode,
            ),
            opt(&["--checkpoint-action"], Attached, RunsCode),
        ],
    ),
    Row {
        clusters: true,
        ..writer(
            &["rsync"],
            Operands::LastWritten,
            &[opt(&["-e", "--rsh", "--rsync-path"], Required, RunsCode)],
        )
    },
    // Writers by operand.
    writer(&["cp", "mv", "install", "ln"], Operands::LastWritten, &[]),
    writer(&["tee", "truncate", "shred"], Operands::AllWritten, &[]),
    writer(&["dd"], Operands::AssignedWritten("of="), &[]),
    program(
        &["ssh"],
        true,
        &[opt(&["-o", "-F"], Required, ChangesConfig)],
    ),
    program(
        &["scp"],
        true,
        &[opt(&["-o", "-F", "-S"], Required, ChangesConfig)],
    ),
    program(
        &["zip"],
        false,
        &[opt(&["-TT", "--unzip-command"], Required, RunsCode)],
    ),
    // Writers by option.
    program(
        &["curl"],
        true,
        &[opt(
            &[
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
                "--trace",
                "--trace-ascii",
                "--stderr",
            ],
            Required,
            WritesFile,
        )],
    ),
    program(
        &["wget"],
        true,
        &[opt(
            &[
                "-O",
                "--output-document",
                "-o",
                "--output-file",
                "-a",
                "--append-output",
            ],
            Required,
            WritesFile,
        )],
    ),
    program(&["gcc"], false, &[opt(&["-o"], Required, WritesFile)]),
    // Interpreters loading code by option.
    program(
        &["python", "python3"],
        false,
        &[opt(&["-c", "-m"], Required, LoadsCode)],
    ),
    program(
        &["make"],
        false,
        &[
            opt(
                &["-f", "--file", "--makefile", "-I", "--include-dir"],
                Required,
                LoadsCode,
            ),
            opt(&["-C", "--directory"], Required, ChangesConfig),
        ],
    ),
    program(
        &["man"],
        false,
        &[opt(&["-P", "--pager", "-H", "--html"], Required, RunsCode)],
    ),
    // fd: where it searches (`fd PATTERN PATH…`), read by the removal check
    // of its `-x`/`-X` command (which `shell::runners` reads as a runner).
    program(
        &["fd", "fdfind"],
        true,
        &[valued(&[
            "-e",
            "--extension",
            "-t",
            "--type",
            "-E",
            "--exclude",
            "-d",
            "--max-depth",
            "--min-depth",
            "--exact-depth",
            "-S",
            "--size",
            "--changed-within",
            "--change-newer-than",
            "--newer",
            "--changed-before",
            "--change-older-than",
            "--older",
            "-o",
            "--owner",
            "-j",
            "--threads",
            "--max-results",
            "--ignore-file",
            "-c",
            "--color",
            "--path-separator",
            "--format",
            "--batch-size",
            "--max-buffer-time",
            "--search-path",
            "--base-directory",
        ])],
    ),
];

/// The programs with a built-in row.
pub(crate) fn builtin_program_names() -> impl Iterator<Item = &'static str> {
    all_rows().flat_map(|row| row.programs.iter().copied())
}

/// Every built-in row: this table's, git's (`shell::git_rows`), the build
/// tools' (`shell::build_rows`), the read-only programs' rows of
/// `shell::known_rows` and go's of `shell::go_rows`, the text tools' of `shell::text_rows` and the
/// command runners' of `shell::runner_rows`. A program's rows all come
/// from one file, its own row first.
fn all_rows() -> impl Iterator<Item = &'static Row> {
    TABLE
        .iter()
        .chain(git_rows::ROWS)
        .chain(build_rows::ROWS)
        .chain(known_rows::ROWS)
        .chain(go_rows::ROWS)
        .chain(text_rows::ROWS)
        .chain(runner_rows::ROWS)
}

/// The built-in rows of `program`, found through an index built once (most
/// command words name no row: one hash lookup answers them). A program's
/// rows are ordered by subcommand, its own rows (none) first, the rows of
/// one subcommand together and in table order, so a reader finds the rows
/// that apply as two slices.
fn builtin_rows(program: &str) -> &'static [&'static Row] {
    type Index = crate::name_hash::NameMap<&'static str, Vec<&'static Row>>;
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = Index::default();
        for row in all_rows() {
            for name in row.programs {
                index.entry(*name).or_default().push(row);
            }
        }
        for rows in index.values_mut() {
            rows.sort_by_key(|r| r.subcommand);
        }
        index
    });
    index.get(program).map_or(&[], Vec::as_slice)
}

/// What `program`'s operands are, as its row says (no row: plain).
pub(crate) fn operand_kind(program: &str) -> Operands {
    builtin_rows(program)
        .iter()
        .find(|r| r.subcommand.is_none())
        .map_or(Operands::Plain, |r| r.operands)
}
