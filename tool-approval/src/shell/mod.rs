//! Splits a shell command into the simple commands it would run.
//!
//! The parser is tree-sitter-bash, which is error tolerant: any input gives a
//! tree, with `ERROR` nodes where the text is not valid Bash. [`ShellCommand`]
//! walks that tree and records
//!
//! - every simple command (`git add .`), including those hidden inside command
//!   or process substitutions, subshells, `eval` arguments, `bash -c`
//!   strings (also behind wrappers and shell options: `sudo bash -o x -c`),
//!   and scripts fed to a shell on standard input (`echo '…' | sh`,
//!   `sh <<< '…'`, a here-document); those are marked [`SimpleCommand::nested`];
//! - words split by a redirection (`rm >x -rf /` is `rm -rf /`), and the
//!   files of redirections without a command (`> /etc/passwd`);
//! - every [`Hazard`]: a construct whose effect a prefix rule cannot judge
//!   (substitution, redirection to a file, expansion in the command word, a
//!   syntax error…). A command with any hazard is never approved by a prefix
//!   rule, but its parts are still checked by deny and `always` rules.
//!
//! The parser sees a shadow of the text (see `shadow` and the crate docs):
//! its external scanner crashes on some non-ASCII input, and it does not
//! read every valid spelling (`coproc NAME (CMD)`).
//!
//! Parsing never panics: inputs over [`MAX_COMMAND_BYTES`] are not parsed at
//! all (they carry [`Hazard::TooLong`]), and the tree walk stops at a fixed
//! depth.

use std::cell::RefCell;

use tree_sitter::Parser;

use budget::StepBudget;

mod braces;
mod budget;
mod class_index;
pub(crate) mod classes;
pub(crate) mod links;
pub(crate) mod options;
mod pipelines;
mod plain;
pub(crate) mod programs;
mod runners;
pub(crate) mod scripts;
mod shadow;
mod syntax;
pub(crate) mod table;
mod types;
pub(crate) mod unread_code;
mod variables;
mod walk;
pub(crate) mod wildcard;
pub(crate) mod words;
pub(crate) mod wrappers;

use scripts::scripts_of;
pub use syntax::ShellSyntax;
pub use table::{CommandOption, Effect, OptionValue};
use table::{Found, Reading};
pub use types::{Hazard, MAX_COMMAND_BYTES, MAX_DIR_CHANGES, MAX_LINE_PARTS, SimpleCommand};
use walk::Walker;
pub(crate) use words::{basename, tokenize};

/// Whether a command found in general code (`perl -e 'system("…")'`)
/// reads as a clean command: a literal that only looks like one (Python's
/// `exec("print(1)")`) is not judged as shell text.
fn reads_clean(script: &str, syntax: &ShellSyntax, grammar_only: bool) -> bool {
    let parsed = ShellCommand::parse_inner(script, grammar_only, syntax);
    !parsed.hazards.iter().any(|h| {
        matches!(h, Hazard::Syntax | Hazard::DynamicCommandWord)
            || (*h != Hazard::OverBudget && Hazard::BOUNDS.contains(h))
    })
}

/// Whether a reading of a part changes directory (`cd X`, `pushd X`, `chdir X`).
/// Whether a command in `text` starts with a substitution or an expansion
/// (`` `x` ``, `$(x)`, `$X`): its command word is computed at run time.
/// Read from the text, for a reading the grammar did not parse.
fn starts_a_command_with_computed_word(text: &str) -> bool {
    text.split(['\n', ';', '&', '|', '(', ')', '{', '}'])
        .any(|segment| segment.trim_start().starts_with(['`', '$']))
}

pub(crate) fn is_dir_change(view: &[String]) -> bool {
    view.first()
        .is_some_and(|w| matches!(basename(w), "cd" | "pushd" | "chdir"))
}

/// How deep the syntax tree walk goes before it gives up (with [`Hazard::TooDeep`]).
const MAX_TREE_DEPTH: usize = 200;

/// Bounds on the parts recovered from text the parser could not read.
const MAX_RECOVERED_STARTS: usize = 32;
const MAX_RECOVERED_PARTS: usize = 1024;
const MAX_RECOVERED_SCRIPTS: usize = 4;

/// How many levels of `bash -c '…'` / `eval` strings are parsed recursively.
const MAX_NESTED_SCRIPTS: usize = 3;

/// How many scripts found in options (`git -c core.pager=…`) and behind
/// host wrappers one command line may add.
const MAX_OPTION_SCRIPTS: usize = 16;

/// The built-in tables only.
static NO_ADDITIONS: ShellSyntax = ShellSyntax::empty();

/// A parsed shell command: its simple commands and its hazards.
///
/// # No input crashes the host
///
/// Shell commands are parsed with tree-sitter-bash, whose external scanner
/// (C code) reads out of bounds when `{` is followed by a code point far
/// above ASCII (upstream tree-sitter-bash issue 337): one model call could
/// take a whole server down. The parser therefore never sees the original
/// text: it parses an *ASCII shadow*, the same text with every byte of every
/// non-ASCII character replaced by `x`. The shadow has the same length and
/// byte offsets, and Bash reads non-ASCII characters as word characters just
/// like `x`, so the tree has the same shape; every word's text is then read
/// from the original by the node's byte range. Where the two readings can
/// differ (`$é` is literal text to Bash, an expansion in the shadow), the
/// shadow's reading is the more cautious one. The crashing inputs are
/// regression tests, and the cargo-fuzz target runs the full evaluation.
///
/// # What a command is read as
///
/// Deny rules, `always` rules and the blacklist judge every spelling of a
/// command that can be read; where a spelling cannot be read, the call asks
/// (in every mode; headless blocks) under a `limits/…` rule id, never runs:
///
/// | spelling | read as |
/// |---|---|
/// | wrappers (`sudo`, `timeout`, `env`, `setpriv`, `npx`, `npm exec`, `pnpm dlx`, … and the host's, see [`ShellSyntax`]) | the command they run |
/// | `bash -c`, `eval`, `su -c`, `npx -c`, `ssh HOST CMD`, `watch`, `trap 'CMD'`, `git submodule foreach`, `git rebase -x`, `git bisect run`, `find -exec`, `git -c alias.x='!…'` | the script, parsed like the line |
/// | `echo '…' \| sh`, `cat <<EOF \| sh`, `cat <<< '…' \| sh`, `sh <<EOF`, `. /dev/stdin <<< '…'` | the text fed to the shell |
/// | `git -c alias.x=…` (any case, chains) | the expanded command |
/// | `tmux new-session CMD`, `tmux send-keys 'CMD' Enter`, `screen CMD`, `screen -X stuff`, `docker`/`podman`/`kubectl exec … CMD`, `pueue add`, `tsp`, `nq`, `chronic`, `watchexec`, `entr -s`, `git difftool -x`, `git clone 'ext::CMD'`, `parallel CMD ::: ARGS`, `nix develop -c CMD`, `fd -x CMD`, `gdb -ex 'shell CMD'`, `bwrap --bind A B CMD`, `start-stop-daemon -x PROG -- ARGS`, `kubectl debug … -- CMD` (rows of `shell::runners`) | the command they run, parsed like the line; `parallel :::: FILE` is a script not on the line |
/// | `$'\x72m'`, `{rm,-rf,/}`, `cat /etc/{shadow,passwd}`, `git pus{h..h}`, `{01..10}` | decoded first, as Bash does: ANSI-C escapes give literal words, brace expansion gives the words it spells (bounded; past the bound `limits/step-budget`) |
/// | `x=${y:=$(CMD)}`, `unset 'a[$(CMD)]'`, `printf -v 'a[$(CMD)]'`, `coproc NAME { CMD; }` | the substitution or command inside, parsed like the line; `$(( a[$i] ))` (a subscript that expands a variable) is a script not on the line |
/// | `x='$(CMD)'; echo ${x@P}`, `x='a[$(CMD)]'; echo $((x))` (also `${!x}`, `[[ x -eq 0 ]]`, `let x`, `declare -i`, `${s:x}`), `coproc sh; echo CMD >&${COPROC[1]}`, `echo CMD > >(sh)` | code stored as text and evaluated later, or printed into a shell: parsed like the line too, and a script not on the line (`limits/unread-script`) |
/// | `h=~/.bashrc; echo x >> "$h"`, `f=.env; cat $f`, `export H=…`, `r=push; git $r` | a literal the line assigned (once; no expansion but `$HOME`, no glob or space) read where it is used, as a second reading of the part (`shell::variables`; `cd $d` is not read again, so later parts stay where the line leaves them unknown) |
/// | `git $SUB origin`, `git pu$1sh`, `git "$(echo push)"` | an argument computed at run time that could spell a deny or `always` rule's word: that rule *might* apply (`limits/computed-word`) |
/// | `cat x.sh \| sh`, `curl … \| bash`, `. /dev/stdin`, `xargs sh -c`, `… \| xargs git`, `git --config-env=alias.x=V` | a script not on the line: every deny rule *might* apply (`limits/unread-script`) |
/// | `$X args`, `$(…) args`, `/bin/r[m]` | a computed command word (`limits/computed-command-word`); deny rules match a glob word against what it could name |
/// | text that does not parse, or is longer than [`MAX_COMMAND_BYTES`] | `limits/unparsed-text`, `limits/command-too-long` |
///
/// Every bound of the analysis has its own id ([`Hazard::limit_id`]); a
/// call that reaches one asks (headless: is blocked) whatever lower rules
/// say, and nothing past a bound falls through to a lower rule:
///
/// | bound | id |
/// |---|---|
/// | nesting: the syntax tree (200 levels), scripts inside scripts (`bash -c "bash -c …"`, 3 levels), a call's arguments (32 levels) | `limits/too-deep` |
/// | wrappers stacked deeper than are looked through (64, or 32 Ki words of views) | `limits/wrapper-chain` |
/// | more links made on a line than are followed (16) | `limits/link-chain` |
/// | a git alias chain longer than is expanded (8 steps, 32 readings) | `limits/alias-chain` |
/// | more directory changes on a line than are followed ([`MAX_DIR_CHANGES`]: `cd a && cd b && …`; later parts run somewhere unknown, so their relative paths are checked in every sensitive directory) | `limits/dir-chain` |
/// | a pipeline of more than 128 stages, or more than 1 024 pipe bars in one text (the grammar's error recovery is quadratic in a pipeline's length; its parts are recovered from the text, so deny rules *might* apply) | `limits/pipeline-length` |
/// | more simple commands on a line than are read ([`MAX_LINE_PARTS`]), or a salvaged reading of text read two ways cut short (32 command starts, 1 024 parts) | `limits/part-count` |
/// | more scripts than are parsed: in options and behind host wrappers (16 a line), commands found in programs (16), scripts of a salvaged segment (4) | `limits/script-count` |
/// | more to analyse than the line's step budget (proportional to its length: each script parsed, each part recovered, each reading through wrappers, each step of a brace expansion costs steps; `watch watch … CMD`, wrappers stacked thousands deep, `{,}{,}…`) | `limits/step-budget` (asks, never runs) |
/// | more grammar work than a line may take whatever its length (some 5 ms: about 10 KiB of text that is not plain; plain lines — words joined by `&&`, `\|\|`, `;`, `\|` — of any length up to the size limit are split without the grammar) | `limits/step-budget` |
///
/// The trade-off: no input up to the size limit should take more than
/// about 10 ms, so a line of more than some 10 KiB that needs the grammar
/// (quotes, substitutions, here-documents, braces) is not read whole: it
/// asks, naming the limit, and a deny rule in its unread text asks
/// instead of blocking. A shell line that long from a model is not
/// ordinary work; a person sees it.
/// | `python -c …`, `node -e …`, `ruby build.rb`, `perl x.pl`, `python3 - <<EOF`, `… \| python3` (an interpreter given a program inline, from a file or on standard input) | code the engine does not read: `limits/unread-code`, asks where a person is present (manual, allow-list), runs only confined in auto-run and headless (and, where the host cannot confine, asks / is blocked) |
///
/// Which languages are read, and how deep: shell text fully (scripts in
/// `-c` strings, `eval`, here-documents and pipes into a shell, up to three
/// levels and the step budget); sed and awk programs for the commands they
/// run and the files they write; perl, python, ruby, node and php
/// one-liners only for literal shell commands (`system("…")`, backticks),
/// vim `-c` and tar checkpoint actions for their commands. Everything else
/// an interpreter runs (python, perl, ruby, node, deno, bun, php, lua,
/// Rscript, julia, pwsh, osascript, … in `shell::unread_code`) is not read.
///
/// | spelling | read as |
/// |---|---|
/// | `ln -s / r && rm -rf r/*`, `cd /etc && …`, `cd "$X" && …` | later parts read through the link, in the directory, or in any sensitive directory |
/// | `git diff --output=F`, `sort -o F`, `mv -t DIR`, `git -c core.pager=CMD`, `rg --pre CMD`, `git -C DIR` … (rows of the program table, extended by the host through [`CommandOption`]) | files written, scripts run, code loaded ([`Effect`]); no prefix rule approves them ([`Hazard::OptionEffect`]) |
/// | `sed '1e CMD'`, `sed 'w F'`, `awk 'BEGIN{system("CMD")}'`, `awk '{print > "F"}'`, `print … \| "sh"`, `perl -e 'system("CMD")'`, `python -c 'os.system("CMD")'`, `vim -c ':!CMD'`, `expect -c 'spawn CMD'`, `make --eval='x:;CMD'`, `tar --checkpoint-action=exec=CMD` | the command run (parsed like the line) and the file written (a redirection); a command computed at run time (`s///e`, `system($0)`) is a script not on the line |
/// | `VAR=value cmd`, `VAR=value` alone, `for VAR in …`, `env`/`sudo`/`make VAR=…`, `export`/`declare VAR=…`, `read VAR`, `printf -v VAR`, an `env` argument | the variables set (the blacklist's `dangerous-env`, rows of `audit::blacklist::env_rows`), values of a command's assignments as paths |
///
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellCommand {
    parts: Vec<SimpleCommand>,
    hazards: Vec<Hazard>,
    /// Skip the fast path for plain lines (tests compare both paths).
    grammar_only: bool,
    /// What is left of the line's step budget.
    budget: StepBudget,
    /// What is left of the grammar's budget (all of the line's parses).
    grammar: StepBudget,
    /// The scripts read so far, with their nesting level: the same text at
    /// the same level gives the same parts and hazards, so it is read once
    /// (`watch watch … ls`: each level's views run every deeper stack
    /// again, thousands of parses of the same few texts).
    scripts_read: std::collections::HashSet<(usize, String)>,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

impl ShellCommand {
    /// Parses `source`. Never panics; see the module docs for limits.
    ///
    /// ```
    /// use tool_approval::{Hazard, ShellCommand};
    /// let cmd = ShellCommand::parse("git add . && rm -rf ~");
    /// assert_eq!(cmd.parts().len(), 2);
    /// assert_eq!(cmd.parts()[1].words, ["rm", "-rf", "~"]);
    /// assert!(cmd.hazards().is_empty());
    /// let cmd = ShellCommand::parse("echo $(whoami)");
    /// assert!(cmd.hazards().contains(&Hazard::CommandSubstitution));
    /// ```
    pub fn parse(source: &str) -> Self {
        Self::parse_inner(source, false, &NO_ADDITIONS)
    }

    /// Parses `source` with a host's wrappers and command options added to
    /// the built-in tables (see [`ShellSyntax`]).
    pub fn parse_with(source: &str, syntax: &ShellSyntax) -> Self {
        Self::parse_inner(source, false, syntax)
    }

    /// Parses with tree-sitter even where the fast path would answer.
    #[cfg(test)]
    pub(crate) fn parse_with_grammar(source: &str) -> Self {
        Self::parse_inner(source, true, &NO_ADDITIONS)
    }

    fn parse_inner(source: &str, grammar_only: bool, syntax: &ShellSyntax) -> Self {
        let mut out = Self {
            grammar_only,
            budget: StepBudget::for_input(source.len()),
            grammar: StepBudget::for_grammar(),
            ..Self::default()
        };
        out.parse_into(source, 0, false);
        if out.parts.len() > MAX_LINE_PARTS {
            out.parts.truncate(MAX_LINE_PARTS);
            out.hazards.push(Hazard::PartCount);
        }
        variables::with_values_read(&mut out.parts);
        out.effects(syntax);
        if let Some(texts) = scripts::evaluated_later(source, &out.parts) {
            out.hazards.push(Hazard::UnreadScript);
            for (text, _) in texts.iter().zip(0..MAX_OPTION_SCRIPTS) {
                out.parse_into(text, 1, true);
            }
        }
        out.hazards.sort_unstable();
        out.hazards.dedup();
        out
    }

    /// What the parts do beyond their words: wrappers the host added,
    /// options that write files or run code, target-directory writes,
    /// scripts whose text is elsewhere, links made on the line (see
    /// [`options`] and `links`).
    /// A script found behind a host wrapper or in an option: parsed while
    /// the line's budget lasts, a [`Hazard::ScriptCount`] after that.
    fn effect_script(&mut self, hazard: Hazard, script: &str, left: &mut usize) {
        self.hazards.push(hazard);
        if *left > 0 {
            *left -= 1;
            self.parse_into(script, 1, true);
        } else {
            self.hazards.push(Hazard::ScriptCount);
        }
    }

    fn effects(&mut self, syntax: &ShellSyntax) {
        let mut scripts_left = MAX_OPTION_SCRIPTS;
        let mut may_run_left = MAX_OPTION_SCRIPTS;
        let mut index = 0;
        while let Some(part) = self.parts.get(index) {
            if !syntax.wrappers.is_empty() {
                let stored = wrappers::stored_views(&part.words, &syntax.wrappers);
                let found: Vec<(Hazard, String)> = wrappers::views_of(&part.words, &stored)
                    .iter()
                    .skip(1)
                    .flat_map(|v| scripts_of(v))
                    .collect();
                if let Some(part) = self.parts.get_mut(index) {
                    // Replaces the built-in views (the fast path may have set
                    // them): every later reader sees the host's wrappers.
                    part.views = std::sync::OnceLock::from(stored);
                    part.stdin_commands = std::sync::OnceLock::new();
                    part.words_only = false;
                }
                for (hazard, script) in found {
                    self.effect_script(hazard, &script, &mut scripts_left);
                }
            }
            let Some(part) = self.parts.get(index) else {
                break;
            };
            // Reading a part through its wrappers costs its views' words.
            let cost: usize = wrappers::views(part).iter().map(Vec::len).sum();
            if !self.budget.charge(cost) {
                self.hazards.push(Hazard::OverBudget);
                break;
            }
            // What the part's options (rows of the program table) and its
            // programs' own languages (sed, awk, one-liners) do: one
            // vocabulary, read the same way; an option's effect also keeps
            // prefix rules off, a program's file write counts as a
            // redirection.
            let mut found: Vec<(Found, From)> = Vec::new();
            let classes = class_index::part_classes(part);
            if options::may_have_effects(&part.words, classes, &syntax.options) {
                for view in wrappers::views(part) {
                    let (effects, unknown) = options::read_options(view, &syntax.options);
                    if unknown {
                        self.hazards.push(Hazard::UnknownOption);
                    }
                    found.extend(effects.into_iter().map(|f| (f, From::Option)));
                    found.extend(
                        links::target_directory_writes(view)
                            .into_iter()
                            .map(|f| (Found::writes(f), From::TargetDirectory)),
                    );
                }
            }
            if classes.any_is(classes::LANGUAGE) {
                for view in wrappers::views(part) {
                    found.extend(
                        programs::program_effects(view)
                            .into_iter()
                            .map(|f| (f, From::Program)),
                    );
                }
            }
            let mut writes = Vec::new();
            let mut scripts = Vec::new();
            for (found, from) in found {
                if from == From::Option && found.effect.blocks_prefix_approval() {
                    self.hazards.push(Hazard::OptionEffect);
                }
                match (found.effect, found.reading, found.value) {
                    (_, Reading::NotOnLine, _) => self.hazards.push(Hazard::UnreadScript),
                    (Effect::RunsCode, Reading::Maybe, Some(script)) => {
                        // Each candidate is parsed to see whether it reads as
                        // a command: past the budget, the rest are not
                        // judged, which is a limit.
                        if may_run_left == 0 {
                            self.hazards.push(Hazard::ScriptCount);
                        } else {
                            may_run_left -= 1;
                            if reads_clean(&script, syntax, self.grammar_only) {
                                scripts.push(script);
                            }
                        }
                    }
                    (Effect::RunsCode, _, Some(script)) => scripts.push(script),
                    (Effect::WritesFile, _, Some(file)) => {
                        if from == From::Program {
                            self.hazards.push(Hazard::Redirect);
                        }
                        writes.push(file);
                    }
                    _ => {}
                }
            }
            // A part read only as its words runs unread code only if its
            // command word is an interpreter.
            if (!part.words_only || classes.first_is(classes::INTERPRETER))
                && wrappers::views(part)
                    .iter()
                    .any(|v| unread_code::runs_unread_code(v))
            {
                self.hazards.push(Hazard::UnreadCode);
            }
            if scripts::unread_script_views(wrappers::views(part), wrappers::stdin_commands(part)) {
                self.hazards.push(Hazard::UnreadScript);
            }
            if let Some(part) = self.parts.get_mut(index) {
                for file in writes {
                    if !part.redirects.contains(&file) {
                        part.redirects.push(file);
                    }
                }
            }
            for script in scripts {
                self.effect_script(Hazard::ShellString, &script, &mut scripts_left);
            }
            index += 1;
        }
        if links::follow_links(&mut self.parts, wrappers::views) {
            // More links made on the line than are followed.
            self.hazards.push(Hazard::LinkChain);
        }
        if self
            .parts
            .iter()
            .any(|p| wrappers::git_alias_chain_cut(&p.words))
        {
            // A git alias chain longer than is expanded.
            self.hazards.push(Hazard::AliasChain);
        }
        if self.dir_changes() > MAX_DIR_CHANGES {
            self.hazards.push(Hazard::DirChain);
        }
        if let Some(texts) = scripts::written_then_run(&self.parts) {
            // `printf 'git push' > p.sh && sh p.sh`: what the file holds
            // is a script not on the line; what the line wrote into it,
            // when literal, is parsed like the line too.
            self.hazards.push(Hazard::UnreadScript);
            for (text, _) in texts.iter().zip(0..MAX_OPTION_SCRIPTS) {
                self.parse_into(text, 1, true);
            }
        }
    }

    /// How many of the parts' readings change directory (`cd`, `pushd`,
    /// `chdir`, as the blacklist's directory walk follows them).
    fn dir_changes(&self) -> usize {
        self.parts
            .iter()
            .flat_map(wrappers::views)
            .filter(|v| is_dir_change(v))
            .count()
    }

    /// The simple commands, in source order (nested ones after their host).
    pub fn parts(&self) -> &[SimpleCommand] {
        &self.parts
    }

    /// The hazards found anywhere in the command, sorted, without duplicates.
    pub fn hazards(&self) -> &[Hazard] {
        &self.hazards
    }

    /// True when the command has no hazard: every part is a plain simple command.
    pub fn is_plain(&self) -> bool {
        self.hazards.is_empty()
    }

    fn parse_into(&mut self, source: &str, level: usize, nested: bool) {
        if source.len() > MAX_COMMAND_BYTES {
            self.hazards.push(Hazard::TooLong);
            return;
        }
        if level > 0 && !self.scripts_read.insert((level, source.to_owned())) {
            return;
        }
        if !self.budget.charge(source.len().saturating_add(1)) {
            self.hazards.push(Hazard::OverBudget);
            return;
        }
        // Brace expansion comes first in Bash: `{rm,-rf,/}` is `rm -rf /`.
        // Past its bound the limit is named and the text read as written.
        let expanded = match braces::expand(source) {
            Ok(Some(text)) if self.budget.charge(text.len()) => Some(text),
            Ok(None) => None,
            Ok(Some(_)) | Err(braces::TooLarge) => {
                self.hazards.push(Hazard::OverBudget);
                None
            }
        };
        let source = expanded.as_deref().unwrap_or(source);
        if !self.grammar_only
            && let Some(plain::Split {
                parts,
                wrapper_chain,
            }) = plain::split(source)
        {
            if wrapper_chain {
                self.hazards.push(Hazard::WrapperChain);
            }
            if self.parts.is_empty() {
                // The line itself: its parts are the command's, moved whole.
                self.parts = parts;
                for part in &mut self.parts {
                    part.nested = nested;
                }
            } else {
                self.parts.extend(parts.into_iter().map(|mut p| {
                    p.nested = nested;
                    p
                }));
            }
            return;
        }
        let before = self.parts.len();
        let escaped_whitespace = source.as_bytes().windows(2).any(|w| {
            (w.first() == Some(&b'\\') && w.get(1).is_some_and(u8::is_ascii_whitespace))
                || (w.first() == Some(&b'\n') && w.get(1) == Some(&b'\\'))
        });
        if escaped_whitespace {
            // tree-sitter-bash reads `\<newline>` and `\<space>` after a
            // newline as joining lines, Bash does not always: judge both
            // readings for deny rules, approve neither.
            self.hazards.push(Hazard::EscapedWhitespace);
            self.fallback(level, &source.replace("\\\n", ""), false);
            // The other reading: a backslash before a space or tab does not
            // join anything (`a\n\\ b` runs `a`, then ` b`); a backslash
            // before a newline always joins the lines in Bash.
            let joined = source.replace("\\\n", "");
            let mut split = String::with_capacity(joined.len());
            let mut chars = joined.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' && chars.peek().is_some_and(|n| matches!(n, ' ' | '\t')) {
                    continue;
                }
                split.push(c);
            }
            if starts_a_command_with_computed_word(&split) {
                // In this reading a command starts with a substitution or an
                // expansion (`ls\n\\ `x`` runs the output of `x`), which the
                // grammar, joining the lines, did not see as a command word.
                self.hazards.push(Hazard::DynamicCommandWord);
            }
            self.fallback(level, &split, false);
        }
        if pipelines::too_long(source) {
            // The grammar's error recovery is quadratic in a pipeline's
            // length: a pipeline this long is read from the text instead.
            self.hazards.push(Hazard::LongPipeline);
            self.fallback(level, source, true);
            return;
        }
        let mut budget = self.budget;
        let mut grammar = self.grammar;
        let parsed = PARSER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                let mut parser = Parser::new();
                if parser
                    .set_language(&tree_sitter_bash::LANGUAGE.into())
                    .is_err()
                {
                    return Parsed::Failed;
                }
                *slot = Some(parser);
            }
            let Some(parser) = slot.as_mut() else {
                return Parsed::Failed;
            };
            // The grammar's external scanner misreads code points above
            // ASCII (it calls `isdigit` on them, out of bounds: a crash), so
            // it only ever sees a shadow of the text (`shadow`); word texts are
            // read from `source` by the same byte ranges.
            let shadow = shadow::grammar_shadow(source);
            let bytes = shadow.as_bytes();
            // The parser's own work is paid from the line's budget: it calls
            // back every `PARSER_OPS_PER_CALLBACK` operations. Its error
            // recovery can take work quadratic in the text (a syntax error
            // after a long pipeline); past the budget it stops.
            // Its work is bounded too, whatever the line's length
            // (`budget::GRAMMAR_STEPS`): past that the text is read without
            // it.
            let mut over = false;
            let mut capped = false;
            let mut progress = |_: &tree_sitter::ParseState| {
                if !grammar.charge(PARSER_OPS_PER_CALLBACK) {
                    capped = true;
                    std::ops::ControlFlow::Break(())
                } else if budget.charge(PARSER_OPS_PER_CALLBACK) {
                    std::ops::ControlFlow::Continue(())
                } else {
                    over = true;
                    std::ops::ControlFlow::Break(())
                }
            };
            let tree = parser.parse_with_options(
                &mut |at, _| bytes.get(at..).unwrap_or_default(),
                None,
                Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
            );
            if over || capped {
                // A cancelled parse resumes on the next call unless reset.
                parser.reset();
                return if over {
                    Parsed::OverBudget
                } else {
                    Parsed::GrammarCapped
                };
            }
            tree.map_or(Parsed::Failed, Parsed::Tree)
        });
        self.budget = budget;
        self.grammar = grammar;
        let tree = match parsed {
            Parsed::Tree(tree) => tree,
            Parsed::OverBudget => {
                self.hazards.push(Hazard::OverBudget);
                return;
            }
            Parsed::GrammarCapped => {
                // Not read further: salvaging parts from this much text
                // (every suffix of a segment) costs more than the parse.
                self.hazards.push(Hazard::OverBudget);
                return;
            }
            Parsed::Failed => {
                self.hazards.push(Hazard::Syntax);
                self.fallback(level, source, true);
                return;
            }
        };
        let root = tree.root_node();
        let hazards_before = self.hazards.len();
        let mut walker = Walker {
            src: source.as_bytes(),
            out: self,
            level,
            in_expression_leaf: false,
            redirect_mark: None,
            list_first_end: None,
        };
        walker.visit(root, 0, nested);
        let misread = self
            .hazards
            .get(hazards_before..)
            .is_some_and(|h| h.contains(&Hazard::Syntax));
        if root.has_error() || misread {
            // Bash refuses a line that does not parse, so what the parser
            // salvaged is a guess at what might run, like the fallback's.
            for part in self.parts.get_mut(before..).unwrap_or_default() {
                part.recovered = true;
            }
            self.hazards.push(Hazard::Syntax);
            self.fallback(level, source, true);
        }
        if self.parts.len() == before && !self.hazards.contains(&Hazard::Syntax) && level == 0 {
            self.hazards.push(Hazard::Empty);
        }
    }

    /// Recovers parts from text the parser could not read, so deny rules
    /// still see them: split on every operator character, tokenise, and take
    /// every suffix of each segment as a possible command.
    ///
    /// `guess` marks the parts [`SimpleCommand::recovered`]: true for text
    /// that does not parse; false for the two readings of an escaped space,
    /// each of which Bash may really run.
    fn fallback(&mut self, level: usize, source: &str, guess: bool) {
        for segment in source.split(['\n', ';', '&', '|', '(', ')', '`', '{', '}', '<', '>']) {
            let segment = segment.trim_start_matches('$');
            let words = tokenize(segment);
            if words.first().is_some_and(|w| w.contains(['*', '?', '['])) {
                // A segment that starts with a glob runs a computed command
                // word in this reading.
                self.hazards.push(Hazard::DynamicCommandWord);
            }
            // Where the parser and Bash may disagree, any word could start a
            // command: add every suffix (bounded), so deny rules see them all.
            // Past a bound, later words are not tried as command starts: a
            // named limit, unless the text does not parse at all (then it
            // already asks as `limits/unparsed-text`, the better name).
            if words.len() > MAX_RECOVERED_STARTS && !guess {
                self.hazards.push(Hazard::PartCount);
            }
            for start in 0..words.len().min(MAX_RECOVERED_STARTS) {
                if self.parts.len() >= MAX_RECOVERED_PARTS {
                    if !guess {
                        self.hazards.push(Hazard::PartCount);
                    }
                    return;
                }
                if !self
                    .budget
                    .charge(words.len().saturating_sub(start).saturating_add(1))
                {
                    self.hazards.push(Hazard::OverBudget);
                    return;
                }
                let suffix = words.get(start..).unwrap_or_default().to_vec();
                let found = scripts_of(&suffix);
                // Scripts of the salvaged text left unread: too many, or
                // nested too deep.
                if !guess && found.len() > MAX_RECOVERED_SCRIPTS {
                    self.hazards.push(Hazard::ScriptCount);
                }
                if !guess && !found.is_empty() && level >= MAX_NESTED_SCRIPTS {
                    self.hazards.push(Hazard::TooDeep);
                }
                if level < MAX_NESTED_SCRIPTS {
                    for (hazard, script) in found.into_iter().take(MAX_RECOVERED_SCRIPTS) {
                        self.hazards.push(hazard);
                        let from = self.parts.len();
                        self.parse_into(&script, level + 1, true);
                        for part in self.parts.get_mut(from..).unwrap_or_default() {
                            part.recovered |= guess;
                        }
                    }
                }
                self.parts.push(SimpleCommand {
                    words: suffix,
                    nested: true,
                    recovered: guess,
                    ..SimpleCommand::default()
                });
            }
        }
    }
}

/// Where a found effect comes from (what it adds besides itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    /// An option of the program table: no prefix rule approves the command.
    Option,
    /// A program's own language: a file it writes is a redirection.
    Program,
    /// `-t DIR` of `mv`, `cp`, `install`, `ln`: the files written.
    TargetDirectory,
}

/// What the grammar made of a text.
enum Parsed {
    Tree(tree_sitter::Tree),
    /// The parser's work went past the line's step budget.
    OverBudget,
    /// The parser's work went past the grammar's budget of a line.
    GrammarCapped,
    /// The parser could not be set up or gave no tree.
    Failed,
}

/// How many operations tree-sitter does between two progress callbacks
/// (`OP_COUNT_PER_PARSER_CALLBACK_CHECK` in its `parser.c`); each callback
/// costs that many steps.
const PARSER_OPS_PER_CALLBACK: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Vec<String>> {
        ShellCommand::parse(src)
            .parts()
            .iter()
            .map(|p| p.words.clone())
            .collect()
    }

    #[test]
    fn splits_on_every_list_operator() {
        let parts = words("a 1 && b 2 || c; d | e & f\ng");
        let programs: Vec<&str> = parts.iter().map(|w| w[0].as_str()).collect();
        assert_eq!(programs, ["a", "b", "c", "d", "e", "f", "g"]);
    }

    #[test]
    fn removes_quotes_and_escapes_from_words() {
        assert_eq!(words(r#""rm" -rf '/'"#), [["rm", "-rf", "/"]]);
        assert_eq!(words(r"\rm -rf /"), [["rm", "-rf", "/"]]);
        assert_eq!(words(r#"echo "a\"b""#), [["echo", "a\"b"]]);
    }

    #[test]
    fn finds_commands_inside_substitutions() {
        let cmd = ShellCommand::parse("echo $(rm -rf /) `id`");
        assert!(cmd.hazards().contains(&Hazard::CommandSubstitution));
        assert!(
            cmd.parts()
                .iter()
                .any(|p| p.nested && p.words == ["rm", "-rf", "/"])
        );
        assert!(cmd.parts().iter().any(|p| p.nested && p.words == ["id"]));
    }

    #[test]
    fn parses_shell_c_strings_and_eval() {
        let cmd = ShellCommand::parse("bash -lc 'rm -rf ~'");
        assert!(cmd.hazards().contains(&Hazard::ShellString));
        assert!(cmd.parts().iter().any(|p| p.words == ["rm", "-rf", "~"]));
        let cmd = ShellCommand::parse("eval \"rm -rf /\"");
        assert!(cmd.hazards().contains(&Hazard::Eval));
        assert!(cmd.parts().iter().any(|p| p.words == ["rm", "-rf", "/"]));
    }

    #[test]
    fn records_redirect_targets_but_not_fd_duplication() {
        let cmd = ShellCommand::parse("make 2>&1 >/dev/null");
        assert!(cmd.is_plain(), "{:?}", cmd.hazards());
        let cmd = ShellCommand::parse("echo x > /etc/passwd");
        assert_eq!(cmd.parts()[0].redirects, ["/etc/passwd"]);
        assert!(cmd.hazards().contains(&Hazard::Redirect));
    }

    #[test]
    fn flags_computed_command_words_and_assignments() {
        assert!(
            ShellCommand::parse("$CMD x")
                .hazards()
                .contains(&Hazard::DynamicCommandWord)
        );
        let cmd = ShellCommand::parse("FOO=1 git status");
        assert!(cmd.hazards().contains(&Hazard::Assignment));
        assert_eq!(cmd.parts()[0].words, ["git", "status"]);
    }

    #[test]
    fn syntax_errors_are_hazards_and_still_yield_parts() {
        let cmd = ShellCommand::parse("git status && ( rm -rf /");
        assert!(cmd.hazards().contains(&Hazard::Syntax));
        assert!(
            cmd.parts()
                .iter()
                .any(|p| p.words.first().map(String::as_str) == Some("rm"))
        );
    }

    #[test]
    fn huge_and_deep_inputs_do_not_panic() {
        let huge = "a ".repeat(MAX_COMMAND_BYTES);
        assert_eq!(ShellCommand::parse(&huge).hazards(), [Hazard::TooLong]);
        let deep = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
        let cmd = ShellCommand::parse(&deep);
        assert!(!cmd.is_plain());
        let subs = format!("{}x{}", "$(".repeat(3000), ")".repeat(3000));
        assert!(!ShellCommand::parse(&subs).is_plain());
    }

    #[test]
    fn empty_input_is_not_plain() {
        assert_eq!(ShellCommand::parse("   ").hazards(), [Hazard::Empty]);
        assert_eq!(
            ShellCommand::parse("# only a comment").hazards(),
            [Hazard::Empty]
        );
    }

    #[test]
    fn a_line_starting_with_an_escaped_space_and_a_substitution_is_a_computed_word() {
        for text in [
            "\\ `x`",
            "ls -la\n\\ `x`",
            "ls -la\n\\ $(x)",
            "true\n\\\t$X args",
        ] {
            assert!(
                ShellCommand::parse(text)
                    .hazards()
                    .contains(&Hazard::DynamicCommandWord),
                "{text:?}"
            );
        }
        assert!(
            !ShellCommand::parse("cp my\\ file.txt out/")
                .hazards()
                .contains(&Hazard::DynamicCommandWord)
        );
    }
}
