//! The leaf types of a parse: [`Hazard`] and [`SimpleCommand`], and the
//! size limit.

use serde::Serialize;

/// Commands longer than this (in bytes) are not parsed; they cannot be
/// approved by a prefix rule and they trigger every deny/`always` prefix rule.
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;

/// How many directory changes (`cd`, `pushd`, `chdir`) of one line are
/// followed; past them the line names [`Hazard::DirChain`] and the later
/// parts run in a directory taken as unknown. Each change is resolved
/// against the one before, so the work grows with the square of the chain.
pub const MAX_DIR_CHANGES: usize = 32;

/// How many simple commands of one line (with its scripts) are read; past
/// them the line names [`Hazard::PartCount`] and the rest is not judged.
/// Every part is read by every audit, so this bounds a line of thousands of
/// tiny commands (`ls; ls; …`) at a few milliseconds.
pub const MAX_LINE_PARTS: usize = 4096;

/// A construct that prevents a prefix rule from approving a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Hazard {
    /// `$(…)` or backticks.
    CommandSubstitution,
    /// `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// `( … )`.
    Subshell,
    /// `eval …`.
    Eval,
    /// `bash -c '…'`, `sh -c`, `env -S`, and similar strings run as scripts,
    /// among them the commands of sed, awk and interpreter one-liners
    /// (`sed '1e CMD'`, `awk 'BEGIN{system("CMD")}'`; see `shell::programs`).
    ShellString,
    /// Redirection to or from a file (other than `/dev/null` and fd
    /// duplication), also a file a sed or awk program writes (`w F`,
    /// `print > "F"`).
    Redirect,
    /// A here-document or here-string.
    Heredoc,
    /// The command word itself is computed (`$CMD args`, `"${x}"`) or an
    /// unquoted glob (`/bin/r[m]`): what runs is not on the line.
    DynamicCommandWord,
    /// A `VAR=value` assignment (alone or before a command).
    Assignment,
    /// Control flow, function definitions, `[[ … ]]`, declarations.
    Compound,
    /// The text is not valid Bash (the tree has `ERROR` or missing nodes).
    Syntax,
    /// The text is longer than [`MAX_COMMAND_BYTES`].
    TooLong,
    /// Nesting deeper than the engine follows: the syntax tree (200
    /// levels), scripts inside scripts (`bash -c "bash -c …"`, 3 levels).
    TooDeep,
    /// Wrappers stacked deeper than are looked through (`sudo sudo … CMD`:
    /// 64 wrappers, or their views past 32 Ki words).
    WrapperChain,
    /// More links made on the line than are followed (16).
    LinkChain,
    /// A git alias chain longer than is expanded (8 steps, 32 readings).
    AliasChain,
    /// More directory changes (`cd`, `pushd`, `chdir`) on one line than
    /// are followed ([`MAX_DIR_CHANGES`]): where the later parts run is not
    /// known.
    DirChain,
    /// A pipeline with more stages than are given to the grammar (128, or
    /// 1 024 bars in all, see `shell::pipelines`): its parts are recovered
    /// from the text.
    LongPipeline,
    /// More parts than are read: a line of more than
    /// [`MAX_LINE_PARTS`] simple commands, or a reading of text the parser
    /// could not read cut short (more command starts (32) or parts (1 024)
    /// than are tried).
    PartCount,
    /// More scripts found in one place than are parsed: scripts in options
    /// and behind host wrappers (16 a line), commands found in programs
    /// (16 a line), scripts of a salvaged segment (4).
    ScriptCount,
    /// The text is empty or only comments.
    Empty,
    /// A backslash before whitespace (`\ `, a line continuation): the parser
    /// and Bash may disagree on where commands begin.
    EscapedWhitespace,
    /// An option that writes a file, runs code or changes the configuration
    /// the command runs with (`git diff --output=F`, `git -c core.pager=X`).
    OptionEffect,
    /// A script whose text is not on the line: a shell reading a pipe from
    /// an unknown producer (`cat x.sh | sh`), `. /dev/stdin`, a shell run
    /// by `xargs`, a git alias taken from the environment, a command sed or
    /// awk computes from its input (`s/…/…/e`, `system($0)`).
    UnreadScript,
    /// The analysis used up the line's step budget (proportional to its
    /// length, see `shell::budget`): what is left is not read.
    OverBudget,
    /// A program the engine does not read: an interpreter given code
    /// inline, from a file or on standard input (see `shell::unread_code`).
    UnreadCode,
    /// An option the program's closed row does not list (`find -delete`,
    /// `sort --frobnicate`; see `shell::known_rows`): the invocation may do
    /// more than the rows know, so no prefix rule approves it.
    UnknownOption,
}

impl Hazard {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Self::CommandSubstitution => "command substitution",
            Self::ProcessSubstitution => "process substitution",
            Self::Subshell => "a subshell",
            Self::Eval => "eval",
            Self::ShellString => "a script string run by a shell",
            Self::Redirect => "a redirection to a file",
            Self::Heredoc => "a here-document",
            Self::DynamicCommandWord => "a computed command word",
            Self::Assignment => "a variable assignment",
            Self::Compound => "a compound statement",
            Self::Syntax => "a syntax error",
            Self::TooLong => "a command too long to analyse",
            Self::TooDeep => "nesting too deep to analyse",
            Self::WrapperChain => "wrappers stacked too deep to look through",
            Self::LinkChain => "more links than are followed",
            Self::AliasChain => "an alias chain longer than is expanded",
            Self::DirChain => "more directory changes than are followed",
            Self::LongPipeline => "a pipeline longer than is parsed",
            Self::PartCount => "more parts than are read",
            Self::ScriptCount => "more scripts than are parsed",
            Self::Empty => "an empty command",
            Self::EscapedWhitespace => "an escaped space or line continuation",
            Self::OptionEffect => "an option that writes a file or runs code",
            Self::UnreadScript => "a script whose text is not on the line",
            Self::OverBudget => "more to analyse than the step budget allows",
            Self::UnreadCode => "a program in a language the engine does not read",
            Self::UnknownOption => "an option the program's row does not list",
        }
    }
}

impl Hazard {
    /// The bounds of the analysis, most specific first: a hazard here means
    /// part of the command was not read, so the call asks under the bound's
    /// `limits/…` id ([`Hazard::limit_id`]) whatever lower rules say.
    pub(crate) const BOUNDS: [Hazard; 10] = [
        Self::TooLong,
        Self::WrapperChain,
        Self::LinkChain,
        Self::AliasChain,
        Self::DirChain,
        Self::LongPipeline,
        Self::PartCount,
        Self::ScriptCount,
        Self::TooDeep,
        Self::OverBudget,
    ];

    /// The `limits/…` rule id of a hazard that stops the analysis (a bound,
    /// text that does not parse, a computed command word, a script not on
    /// the line), as decisions name it.
    pub fn limit_id(self) -> Option<&'static str> {
        Some(match self {
            Self::TooLong => "limits/command-too-long",
            Self::TooDeep => "limits/too-deep",
            Self::WrapperChain => "limits/wrapper-chain",
            Self::LinkChain => "limits/link-chain",
            Self::AliasChain => "limits/alias-chain",
            Self::DirChain => "limits/dir-chain",
            Self::LongPipeline => "limits/pipeline-length",
            Self::PartCount => "limits/part-count",
            Self::ScriptCount => "limits/script-count",
            Self::OverBudget => "limits/step-budget",
            Self::Syntax => "limits/unparsed-text",
            Self::UnreadScript => "limits/unread-script",
            Self::UnreadCode => "limits/unread-code",
            Self::UnknownOption => "limits/unknown-option",
            _ => return None,
        })
    }
}

/// One simple command: assignments, words, redirection targets.
/// Equality compares what was parsed, not the cached views.
#[derive(Debug, Clone, Default, Eq)]
pub struct SimpleCommand {
    /// Leading `VAR=value` assignments, as written.
    pub assignments: Vec<String>,
    /// The command word and its arguments, with quotes removed. Expansions
    /// are kept as written (`$HOME`).
    pub words: Vec<String>,
    /// Files this command is redirected to or from, and files it writes
    /// through an option (`--output=F`, `-t DIR`).
    pub redirects: Vec<String>,
    /// Inside a substitution, subshell, `eval` or `-c` string, or recovered
    /// from text the parser could not read.
    pub nested: bool,
    /// Recovered from text the parser could not read (or read two ways): a
    /// guess at what might run, not a reading of what will.
    pub recovered: bool,
    /// Here-document and here-string texts fed to the command.
    pub(crate) fed: Vec<String>,
    /// Files redirected onto its standard input (`< F`, `0< F`); they are
    /// in `redirects` too.
    pub(crate) inputs: Vec<String>,
    /// Its standard output goes into a pipe (`echo "$T" | wc -c`): what it
    /// prints reaches the next stage, not the model.
    pub(crate) pipe_out: bool,
    /// Its standard input comes from a pipe (`tar cz . | ssh h 'cat > x'`).
    pub(crate) pipe_in: bool,
    /// The command and what each wrapper runs (see `wrappers::views`),
    /// computed on first use; empty when the only view is `words` itself
    /// (`wrappers::stored_views`).
    pub(crate) views: std::sync::OnceLock<Vec<Vec<String>>>,
    /// The commands `xargs`/`parallel` views run with words read from
    /// standard input (`wrappers::stdin_commands`), computed on first use.
    pub(crate) stdin_commands: std::sync::OnceLock<Vec<StdinCommand>>,
    /// Known where the part was made (the plain split): its only view is
    /// its words, and it has no stdin commands, so `views` and
    /// `stdin_commands` stay empty and are not asked. Whatever changes the
    /// words or the views clears it.
    pub(crate) words_only: bool,
    /// What the words are as program names (`shell::classes`), read once.
    pub(crate) classes: super::classes::ClassCell,
}

impl PartialEq for SimpleCommand {
    fn eq(&self, other: &Self) -> bool {
        self.assignments == other.assignments
            && self.words == other.words
            && self.redirects == other.redirects
            && self.nested == other.nested
            && self.recovered == other.recovered
            && self.fed == other.fed
            && self.inputs == other.inputs
            && self.pipe_out == other.pipe_out
            && self.pipe_in == other.pipe_in
    }
}

impl SimpleCommand {
    /// The command word, if any.
    pub fn program(&self) -> Option<&str> {
        self.words.first().map(String::as_str)
    }
}

/// A command `xargs` (or `parallel`) runs with arguments read from
/// standard input (`wrappers::stdin_commands`): most often one of the
/// part's own views (`xargs` is a wrapper too), then kept as its index
/// rather than copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StdinCommand {
    /// The view at this index of the part's views.
    View(usize),
    /// Words no view holds.
    Words(Vec<String>),
}
