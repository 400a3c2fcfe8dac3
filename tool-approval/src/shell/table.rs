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

pub(crate) mod build_rows;
pub(crate) mod git_rows;
pub(crate) mod known_rows;
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
/// `shell::known_rows`, the text tools' of `shell::text_rows` and the
/// command runners' of `shell::runner_rows`. A program's rows all come
/// from one file, its own row first.
fn all_rows() -> impl Iterator<Item = &'static Row> {
    TABLE
        .iter()
        .chain(git_rows::ROWS)
        .chain(build_rows::ROWS)
        .chain(known_rows::ROWS)
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

/// One option word as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadOption<'a> {
    /// The word as written (`-rf`, `--output=x`).
    pub(crate) word: &'a str,
    /// The option letters of a short word (`rf` of `-rf`, `o` of `-oFILE`);
    /// empty for a long option.
    pub(crate) letters: &'a str,
    /// The long name without dashes and value (`output`), empty for a short.
    pub(crate) long: &'a str,
    /// The value, attached or the next word.
    pub(crate) value: Option<&'a str>,
    /// What the option does, when a row says.
    pub(crate) effect: Option<Effect>,
    /// Read before the subcommand (a program's own option).
    pub(crate) before_subcommand: bool,
    /// Every letter or the name is one a row (or the host) lists.
    pub(crate) known: bool,
}

/// A command's words read through the program table: the program, its
/// subcommand, the options (with their values and effects) and the
/// operands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Invocation<'a> {
    /// The program (a basename).
    pub(crate) program: &'a str,
    /// The subcommand: the first operand (`diff` of `git -C x diff`).
    pub(crate) subcommand: Option<&'a str>,
    /// The subcommand's index among the arguments (the words after the
    /// command word).
    pub(crate) subcommand_at: Option<usize>,
    /// Every option word, in order.
    pub(crate) options: Vec<ReadOption<'a>>,
    /// The words that are neither options nor their values (everything
    /// after `--`), the subcommand included, in order.
    pub(crate) operands: Vec<&'a str>,
    /// The first option no row lists, where the program's row (or its
    /// subcommand's) is closed: the invocation does more than the rows know.
    pub(crate) unknown: Option<&'a str>,
}

/// What one option name means where it was read.
#[derive(Debug, Clone, Copy)]
struct Meaning {
    value: OptionValue,
    effect: Option<Effect>,
}

/// The rows (built in and the host's) for one program.
struct Rows<'a> {
    /// Every built-in row, ordered by subcommand (see [`builtin_rows`]).
    builtin: &'static [&'static Row],
    /// How many of them are the program's own (they come first).
    own_count: usize,
    extra: &'a [CommandOption],
    program: &'a str,
}

impl<'a> Rows<'a> {
    fn of(program: &'a str, extra: &'a [CommandOption]) -> Self {
        let builtin = builtin_rows(program);
        Self {
            builtin,
            own_count: builtin.partition_point(|r| r.subcommand.is_none()),
            extra,
            program,
        }
    }

    fn own(&self) -> Option<&'static Row> {
        self.builtin
            .first()
            .copied()
            .filter(|r| r.subcommand.is_none())
    }

    /// The program's own rows.
    fn own_rows(&self) -> &'static [&'static Row] {
        self.builtin.get(..self.own_count).unwrap_or_default()
    }

    /// The rows of subcommand `sub`, in table order.
    fn sub_rows(&self, sub: &str) -> &'static [&'static Row] {
        let rest = self.builtin.get(self.own_count..).unwrap_or_default();
        let start = rest.partition_point(|r| r.subcommand < Some(sub));
        let rest = rest.get(start..).unwrap_or_default();
        let len = rest
            .iter()
            .take_while(|r| r.subcommand == Some(sub))
            .count();
        rest.get(..len).unwrap_or_default()
    }

    fn clusters(&self) -> bool {
        self.own().is_some_and(|r| r.clusters)
    }

    fn options_at(&self) -> Options {
        self.own().map_or(Options::Anywhere, |r| r.options_at)
    }

    fn parser(&self) -> Parser {
        self.own().map_or(Parser::Exact, |r| r.parser)
    }

    /// Whether every option must be listed: `(before, after)` for the
    /// options before the subcommand (the program's own row decides) and
    /// after it (the subcommand's row decides; a subcommand without a row
    /// of a program that has subcommand rows, `cargo nextest`, is not
    /// known, so its options are not judged; a program without any, `sort`,
    /// is judged by its own row throughout).
    /// `sub_rows` are the subcommand's rows ([`Rows::sub_rows`]).
    fn closed(&self, sub_rows: &[&Row]) -> (bool, bool) {
        let own = self.own().is_some_and(|r| r.closed);
        let after = match sub_rows.first() {
            Some(row) => row.closed,
            None => own && self.builtin.len() == self.own_count,
        };
        (own, after)
    }

    /// The one listed long spelling `name` (`--outp`) abbreviates, where
    /// the program reads unique prefixes; `None` for none or two or more.
    fn expand_prefix(&self, name: &str, sub: Option<&str>) -> Option<&'a str> {
        let own_applies = sub.is_none() || self.options_at() == Options::Anywhere;
        let applies = |row_sub: Option<&str>| match row_sub {
            None => own_applies,
            Some(want) => sub == Some(want),
        };
        let mut found: Option<&'a str> = None;
        let builtin = self
            .builtin
            .iter()
            .filter(|r| applies(r.subcommand))
            .flat_map(|r| r.options.iter().flat_map(|o| o.names.iter().copied()));
        let extra = self
            .extra
            .iter()
            .filter(|o| o.program == self.program && applies(o.subcommand.as_deref()))
            .flat_map(|o| o.names.iter().map(String::as_str));
        for candidate in builtin.chain(extra) {
            if candidate.starts_with("--") && candidate.starts_with(name) {
                match found {
                    Some(f) if f != candidate => return None,
                    _ => found = Some(candidate),
                }
            }
        }
        found
    }

    /// The meaning of option `name` with `sub` the subcommand read so far
    /// and `sub_rows` its rows ([`Rows::sub_rows`]).
    fn meaning(&self, name: &str, sub: Option<&str>, sub_rows: &[&Row]) -> Option<Meaning> {
        if self.builtin.is_empty() && self.extra.is_empty() {
            return None;
        }
        let own_applies = sub.is_none() || self.options_at() == Options::Anywhere;
        let in_rows = |rows: &[&Row]| {
            rows.iter().find_map(|row| {
                row.options
                    .iter()
                    .find(|o| o.names.contains(&name))
                    .map(|o| Meaning {
                        value: o.value,
                        effect: o.effect,
                    })
            })
        };
        let in_extra = |want: Option<&str>| {
            self.extra
                .iter()
                .filter(|o| o.program == self.program && o.subcommand.as_deref() == want)
                .find(|o| o.names.iter().any(|n| n == name))
                .map(|o| Meaning {
                    value: o.value,
                    effect: o.effect,
                })
        };
        // A subcommand's own rows first (`git clone -c` is not git's `-c`).
        if sub.is_some()
            && let Some(m) = in_rows(sub_rows).or_else(|| in_extra(sub))
        {
            return Some(m);
        }
        if !own_applies {
            return None;
        }
        in_rows(self.own_rows()).or_else(|| in_extra(None))
    }
}

impl<'a> Invocation<'a> {
    /// Reads `view` (a command's words; the command word may be a path)
    /// through the built-in table and the host's `extra` rows.
    pub(crate) fn read(view: &'a [String], extra: &'a [CommandOption]) -> Self {
        match view.split_first() {
            Some((first, args)) => Self::read_args(basename(first), args, extra),
            None => Self::default(),
        }
    }

    /// Reads `args`, the words after the command word, as `program`'s.
    pub(crate) fn read_args(
        program: &'a str,
        args: &'a [String],
        extra: &'a [CommandOption],
    ) -> Self {
        let rows = Rows::of(program, extra);
        let clusters = rows.clusters();
        let parser = rows.parser();
        let stops_at_operand = rows.options_at() == Options::BeforeOperands;
        let mut out = Self {
            program,
            ..Self::default()
        };
        let mut iter = args.iter().enumerate();
        let mut options_done = false;
        let mut sub_rows: &[&Row] = &[];
        while let Some((at, word)) = iter.next() {
            let word = word.as_str();
            if options_done || word == "-" || !word.starts_with('-') {
                // (After `--` too where options end at the first operand:
                // `xargs -- -x` runs `-x`.)
                if out.subcommand.is_none() && (!options_done || stops_at_operand) {
                    out.subcommand = Some(word);
                    out.subcommand_at = Some(at);
                    sub_rows = rows.sub_rows(word);
                }
                out.operands.push(word);
                options_done |= stops_at_operand;
                continue;
            }
            if word == "--" {
                options_done = true;
                continue;
            }
            let before_subcommand = out.subcommand.is_none();
            let meaning = |name: &str| rows.meaning(name, out.subcommand, sub_rows);
            let mut read = ReadOption {
                word,
                letters: "",
                long: "",
                value: None,
                effect: None,
                before_subcommand,
                known: false,
            };
            let mut wants_next = false;
            // Go's flags: `--exec` is `-exec`.
            let single = match (parser, word.strip_prefix('-')) {
                (Parser::GoFlag, Some(rest)) if rest.starts_with('-') => rest,
                _ => word,
            };
            if let Some(long) = word.strip_prefix("--").filter(|_| parser != Parser::GoFlag) {
                let (name, attached) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                read.long = name;
                let written = word.get(..2 + name.len()).unwrap_or(word);
                let mut found = meaning(written);
                if found.is_none() && parser == Parser::UniquePrefix && !name.is_empty() {
                    // `--outp` is `--output` where it names that one only.
                    if let Some(full) = rows.expand_prefix(written, out.subcommand) {
                        read.long = full.get(2..).unwrap_or(name);
                        found = meaning(full);
                    }
                }
                if let Some(m) = found {
                    read.known = true;
                    read.effect = m.effect;
                    match (m.value, attached) {
                        (Flag, Some(_)) => read.effect = None,
                        (Suffix, _) => {}
                        (_, Some(v)) => read.value = Some(v),
                        (Required, None) => wants_next = true,
                        _ => {}
                    }
                }
            } else if let Some(m) = meaning(single) {
                // A listed single-dash spelling, exactly (`-fprint`, `-TT`, `-C`).
                read.letters = single.get(1..).unwrap_or_default();
                read.effect = m.effect;
                read.known = true;
                wants_next = m.value == Required;
            } else if let Some((name, m, rest)) = single
                .split_once('=')
                .and_then(|(n, v)| meaning(n).map(|m| (n, m, v)))
                .filter(|(_, m, _)| m.value != Flag)
            {
                // `-o=FILE`.
                read.letters = name.get(1..).unwrap_or_default();
                read.effect = m.effect;
                read.value = (m.value != Suffix).then_some(rest);
                read.known = true;
            } else if parser != Parser::GoFlag && word.len() == 2 {
                // `-x`, looked up above as the listed spelling: no row has it.
                read.letters = word.get(1..).unwrap_or_default();
            } else if parser != Parser::GoFlag {
                read_short(word, clusters, &meaning, &mut read, &mut wants_next);
            }
            if wants_next {
                read.value = iter.next().map(|(_, w)| w.as_str());
            }
            out.options.push(read);
        }
        let (own, after) = rows.closed(sub_rows);
        if own || after {
            out.unknown = out
                .options
                .iter()
                .find(|o| !o.known && if o.before_subcommand { own } else { after })
                .map(|o| o.word);
        }
        out
    }

    /// What the program's operands are, as its row says.
    pub(crate) fn operand_kind(&self) -> Operands {
        operand_kind(self.program)
    }

    /// The operands the table says are written (see [`Operands`]).
    pub(crate) fn written_operands(&self) -> Vec<&'a str> {
        match self.operand_kind() {
            Operands::Plain => Vec::new(),
            Operands::LastWritten if self.operands.len() < 2 => Vec::new(),
            Operands::LastWritten => self.operands.last().copied().into_iter().collect(),
            Operands::AllWritten => self.operands.clone(),
            Operands::AssignedWritten(prefix) => self
                .operands
                .iter()
                .filter_map(|o| o.strip_prefix(prefix))
                .collect(),
        }
    }

    /// Whether a short flag (any letter of a cluster) or a long flag (a
    /// name, with or without a value) is given, before `--`.
    pub(crate) fn has_flag(&self, short: &[char], long: &[&str]) -> bool {
        self.options.iter().any(|o| {
            if o.letters.is_empty() {
                long.contains(&o.long)
            } else {
                o.letters.chars().any(|c| short.contains(&c))
            }
        })
    }
}

/// A short option word that is no listed spelling: `-oFILE` (a listed
/// `-o` with its value attached, in any program), or, where the program's
/// options cluster, letters up to the first one that takes a value, which
/// takes the rest of the word or the next word (`-avze CMD`).
fn read_short<'a>(
    word: &'a str,
    clusters: bool,
    meaning: &dyn Fn(&str) -> Option<Meaning>,
    read: &mut ReadOption<'a>,
    wants_next: &mut bool,
) {
    let letters = word.get(1..).unwrap_or_default();
    read.letters = letters;
    // Known while every letter read is listed (a lone `-x` or a cluster).
    let mut known = !letters.is_empty();
    for (at, c) in letters.char_indices() {
        if at > 0 && !clusters {
            // `-delete` where `-d` is a flag: not the spelling listed.
            read.known = false;
            return;
        }
        let mut buf = [0u8; 5];
        buf[0] = b'-';
        let len = 1 + c.encode_utf8(&mut buf[1..]).len();
        let Some(m) = meaning(std::str::from_utf8(&buf[..len]).unwrap_or_default()) else {
            known = false;
            continue;
        };
        if m.value == Suffix {
            // `-i.bak`: the rest of the word is the option's, and no file.
            read.effect = m.effect.or(read.effect);
            read.known = known;
            read.letters = letters.get(..at + c.len_utf8()).unwrap_or_default();
            return;
        }
        if m.effect.is_some() {
            read.effect = m.effect;
        }
        read.known = known;
        if m.value == Flag {
            continue;
        }
        let end = at + c.len_utf8();
        read.letters = letters.get(..end).unwrap_or_default();
        match letters.get(end..).unwrap_or_default() {
            "" => *wants_next = m.value == Required,
            rest => read.value = Some(rest),
        }
        return;
    }
    read.known = known;
}

/// Whether option `word` takes the next word as its value, given which
/// spellings take one (`valued`): `-u` (listed), a cluster whose last
/// letter is a listed short option (`-iu root`); `-uroot` and
/// `--user=root` carry theirs. The rule of [`Invocation::read`] for
/// programs whose options cluster, for readers with their own lists
/// (wrappers).
pub(crate) fn takes_separate_value(word: &str, valued: &dyn Fn(&str) -> bool) -> bool {
    if valued(word) {
        return true;
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    if cluster.starts_with('-') {
        return false;
    }
    for (at, c) in cluster.char_indices() {
        let mut buf = [0u8; 5];
        buf[0] = b'-';
        let len = 1 + c.encode_utf8(&mut buf[1..]).len();
        if valued(std::str::from_utf8(&buf[..len]).unwrap_or_default()) {
            // The value is the rest of the cluster, or the next word.
            return at + c.len_utf8() == cluster.len();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    type Read = (
        Option<String>,
        Vec<(String, Option<String>, Option<Effect>)>,
        Vec<String>,
    );

    fn read(line: &str) -> Read {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let inv = Invocation::read(&words, &[]);
        (
            inv.subcommand.map(str::to_owned),
            inv.options
                .iter()
                .map(|o| (o.word.to_owned(), o.value.map(str::to_owned), o.effect))
                .collect(),
            inv.operands.iter().map(|o| (*o).to_owned()).collect(),
        )
    }

    #[test]
    fn git_reads_its_own_options_before_the_subcommand() {
        let (sub, opts, ops) = read("git -C x -c a.b=c diff --output=p.txt -- --output=y");
        assert_eq!(sub.as_deref(), Some("diff"));
        assert_eq!(
            opts,
            [
                ("-C".into(), Some("x".into()), Some(ChangesConfig)),
                ("-c".into(), Some("a.b=c".into()), None),
                (
                    "--output=p.txt".into(),
                    Some("p.txt".into()),
                    Some(WritesFile)
                ),
            ]
        );
        assert_eq!(ops, ["diff", "--output=y"]);
        // `-C` after the subcommand is not git's.
        let (_, opts, _) = read("git status -C x");
        assert_eq!(opts[0].2, None);
    }

    #[test]
    fn clusters_only_where_the_program_clusters() {
        let (_, opts, ops) = read("rsync -avze ssh src dst");
        assert_eq!(opts, [("-avze".into(), Some("ssh".into()), Some(RunsCode))]);
        assert_eq!(ops, ["src", "dst"]);
        let (_, opts, _) = read("curl -sSLo out.html https://x");
        assert_eq!(opts[0].1.as_deref(), Some("out.html"));
        let (_, opts, ops) = read("gcc -fno-builtin -oout x.c");
        assert_eq!(opts[0].2, None);
        assert_eq!(
            opts[1],
            ("-oout".into(), Some("out".into()), Some(WritesFile))
        );
        assert_eq!(ops, ["x.c"]);
        // Unknown programs: every short word is letters, no values.
        let (_, opts, ops) = read("rm -rf -- -x /");
        assert_eq!(opts, [("-rf".into(), None, None)]);
        assert_eq!(ops, ["-x", "/"]);
    }

    #[test]
    fn flags_are_read_by_letter_and_name() {
        let words: Vec<String> = ["rm", "-r", "-f", "--no-preserve-root", "/"]
            .map(str::to_owned)
            .to_vec();
        let inv = Invocation::read(&words, &[]);
        assert!(inv.has_flag(&['r'], &[]));
        assert!(inv.has_flag(&[], &["no-preserve-root"]));
        assert!(!inv.has_flag(&['R'], &["recursive"]));
        assert_eq!(inv.operands, ["/"]);
    }

    #[test]
    fn operand_rows_say_which_files_are_written() {
        let written = |line: &str| -> Vec<String> {
            let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            Invocation::read(&words, &[])
                .written_operands()
                .into_iter()
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(written("cp -r a b /etc/x"), ["/etc/x"]);
        assert_eq!(written("cp a"), Vec::<String>::new());
        assert_eq!(written("tee -a x y"), ["x", "y"]);
        assert_eq!(written("dd if=/dev/zero of=/dev/sda bs=1M"), ["/dev/sda"]);
        assert_eq!(written("rsync -avze ssh src host:dst"), ["host:dst"]);
        assert_eq!(written("cat a b"), Vec::<String>::new());
    }

    #[test]
    fn wrappers_share_the_value_rule() {
        let valued = |w: &str| w == "-u";
        assert!(takes_separate_value("-u", &valued));
        assert!(takes_separate_value("-iu", &valued));
        assert!(!takes_separate_value("-uroot", &valued));
        assert!(!takes_separate_value("--user=root", &valued));
    }

    #[test]
    fn every_effect_has_a_policy_name() {
        for e in Effect::ALL {
            assert_eq!(Effect::from_name(e.name()), Some(e));
        }
    }
}
