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
//! The parser sees an ASCII shadow of the text (see [`ascii_shadow`] and the
//! crate docs): its external scanner crashes on some non-ASCII input.
//!
//! Parsing never panics: inputs over [`MAX_COMMAND_BYTES`] are not parsed at
//! all (they carry [`Hazard::TooLong`]), and the tree walk stops at a fixed
//! depth.

use std::cell::RefCell;

use serde::Serialize;
use tree_sitter::{Node, Parser};

use crate::scripts::{literal_output, reads_stdin_script, scripts_of};
pub(crate) use crate::words::{basename, tokenize};
use crate::words::{unescape_bare, unescape_double};
use crate::wrapper::too_many_wrappers;

/// Commands longer than this (in bytes) are not parsed; they cannot be
/// approved by a prefix rule and they trigger every deny/`always` prefix rule.
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;

/// How deep the syntax tree walk goes before it gives up (with [`Hazard::TooDeep`]).
const MAX_TREE_DEPTH: usize = 200;

/// Bounds on the parts recovered from text the parser could not read.
const MAX_RECOVERED_STARTS: usize = 32;
const MAX_RECOVERED_PARTS: usize = 1024;
const MAX_RECOVERED_SCRIPTS: usize = 4;

/// How many levels of `bash -c '…'` / `eval` strings are parsed recursively.
const MAX_NESTED_SCRIPTS: usize = 3;

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
    /// `bash -c '…'`, `sh -c`, `env -S`, and similar strings run as scripts.
    ShellString,
    /// Redirection to or from a file (other than `/dev/null` and fd duplication).
    Redirect,
    /// A here-document or here-string.
    Heredoc,
    /// The command word itself is computed (`$CMD args`, `"${x}"`).
    DynamicCommandWord,
    /// A `VAR=value` assignment (alone or before a command).
    Assignment,
    /// Control flow, function definitions, `[[ … ]]`, declarations.
    Compound,
    /// The text is not valid Bash (the tree has `ERROR` or missing nodes).
    Syntax,
    /// The text is longer than [`MAX_COMMAND_BYTES`].
    TooLong,
    /// The syntax tree is nested deeper than the walker follows.
    TooDeep,
    /// The text is empty or only comments.
    Empty,
    /// A backslash before whitespace (`\ `, a line continuation): the parser
    /// and Bash may disagree on where commands begin.
    EscapedWhitespace,
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
            Self::Empty => "an empty command",
            Self::EscapedWhitespace => "an escaped space or line continuation",
        }
    }
}

/// One simple command: assignments, words, redirection targets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Leading `VAR=value` assignments, as written.
    pub assignments: Vec<String>,
    /// The command word and its arguments, with quotes removed. Expansions
    /// are kept as written (`$HOME`).
    pub words: Vec<String>,
    /// Files this command is redirected to or from.
    pub redirects: Vec<String>,
    /// Inside a substitution, subshell, `eval` or `-c` string, or recovered
    /// from text the parser could not read.
    pub nested: bool,
    /// Recovered from text the parser could not read (or read two ways): a
    /// guess at what might run, not a reading of what will.
    pub recovered: bool,
    /// The command and what each wrapper runs (see `wrapper::views`),
    /// computed on first use.
    pub(crate) views: std::sync::OnceLock<Vec<Vec<String>>>,
}

impl SimpleCommand {
    /// The command word, if any.
    pub fn program(&self) -> Option<&str> {
        self.words.first().map(String::as_str)
    }
}

/// What the redirections of one command say.
#[derive(Debug, Default)]
struct Redirects {
    /// Files opened (not `/dev/null`, not fd duplication).
    targets: Vec<String>,
    /// Words after a target (`rm >x -rf /`): arguments of the command.
    extra_words: Vec<String>,
    /// Here-string and here-document texts, fed on standard input.
    stdin: Vec<String>,
    /// `&>` or `&>>` was used: dash reads `&` as "run in the background".
    dash_background: bool,
}

/// A parsed shell command: its simple commands and its hazards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellCommand {
    parts: Vec<SimpleCommand>,
    hazards: Vec<Hazard>,
    /// Skip the fast path for plain lines (tests compare both paths).
    grammar_only: bool,
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
        Self::parse_inner(source, false)
    }

    /// Parses with tree-sitter even where the fast path would answer.
    #[cfg(test)]
    pub(crate) fn parse_with_grammar(source: &str) -> Self {
        Self::parse_inner(source, true)
    }

    fn parse_inner(source: &str, grammar_only: bool) -> Self {
        let mut out = Self {
            grammar_only,
            ..Self::default()
        };
        out.parse_into(source, 0, false);
        out.hazards.sort_unstable();
        out.hazards.dedup();
        out
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
        if !self.grammar_only
            && let Some(parts) = crate::plain::split(source)
        {
            self.parts.extend(parts.into_iter().map(|mut p| {
                p.nested = nested;
                p
            }));
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
            let mut split = String::with_capacity(source.len());
            let mut chars = source.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' && chars.peek().is_some_and(|n| n.is_whitespace()) {
                    continue;
                }
                split.push(c);
            }
            self.fallback(level, &split, false);
        }
        let parsed = PARSER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                let mut parser = Parser::new();
                if parser
                    .set_language(&tree_sitter_bash::LANGUAGE.into())
                    .is_err()
                {
                    return None;
                }
                *slot = Some(parser);
            }
            // The grammar's external scanner misreads code points above
            // ASCII (it calls `isdigit` on them, out of bounds: a crash), so
            // it only ever sees an ASCII shadow of the text; word texts are
            // read from `source` by the same byte ranges.
            let shadow = ascii_shadow(source);
            slot.as_mut().and_then(|p| p.parse(shadow.as_bytes(), None))
        });
        let Some(tree) = parsed else {
            self.hazards.push(Hazard::Syntax);
            self.fallback(level, source, true);
            return;
        };
        let root = tree.root_node();
        let hazards_before = self.hazards.len();
        let mut walker = Walker {
            src: source.as_bytes(),
            out: self,
            level,
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
            // Where the parser and Bash may disagree, any word could start a
            // command: add every suffix (bounded), so deny rules see them all.
            for start in 0..words.len().min(MAX_RECOVERED_STARTS) {
                if self.parts.len() >= MAX_RECOVERED_PARTS {
                    return;
                }
                let suffix = words.get(start..).unwrap_or_default().to_vec();
                if level < MAX_NESTED_SCRIPTS {
                    for (hazard, script) in
                        scripts_of(&suffix).into_iter().take(MAX_RECOVERED_SCRIPTS)
                    {
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

struct Walker<'s, 'o> {
    src: &'s [u8],
    out: &'o mut ShellCommand,
    level: usize,
}

impl Walker<'_, '_> {
    fn text(&self, node: Node<'_>) -> String {
        String::from_utf8_lossy(self.src.get(node.byte_range()).unwrap_or_default()).into_owned()
    }

    fn hazard(&mut self, hazard: Hazard) {
        self.out.hazards.push(hazard);
    }

    fn visit_children(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            self.visit(child, depth + 1, nested);
        }
    }

    fn visit(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        if depth > MAX_TREE_DEPTH {
            self.hazard(Hazard::TooDeep);
            return;
        }
        if node.is_error() || node.is_missing() {
            self.hazard(Hazard::Syntax);
        }
        match node.kind() {
            "command" => self.command(node, depth, nested),
            "subshell" => {
                self.hazard(Hazard::Subshell);
                self.visit_children(node, depth, true);
            }
            "command_substitution" => {
                self.hazard(Hazard::CommandSubstitution);
                self.visit_children(node, depth, true);
            }
            "process_substitution" => {
                self.hazard(Hazard::ProcessSubstitution);
                self.visit_children(node, depth, true);
            }
            "redirected_statement" => {
                let start = self.out.parts.len();
                let mut redirects = Redirects::default();
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children {
                    match child.kind() {
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            self.redirect(child, depth + 1, nested, &mut redirects);
                        }
                        _ => self.visit(child, depth + 1, nested),
                    }
                }
                let end = self.out.parts.len();
                if end == start {
                    // A redirection with no command (`> /etc/passwd`) still opens its file.
                    self.out.parts.push(SimpleCommand {
                        nested,
                        ..SimpleCommand::default()
                    });
                }
                let end = self.out.parts.len();
                for part in self.out.parts.get_mut(start..end).unwrap_or_default() {
                    part.redirects.extend(redirects.targets.iter().cloned());
                }
                // Words after a redirection belong to the command before it.
                let host = self.out.parts.get(start).map(|p| p.words.clone());
                if let Some(part) = self.out.parts.get_mut(start) {
                    part.words.extend(redirects.extra_words.iter().cloned());
                }
                self.after_redirects(host.unwrap_or_default(), redirects);
            }
            "pipeline" => self.pipeline(node, depth, nested),
            "list" => self.list(node, depth, nested),
            "program" | "negated_command" | "comment" | "&&" | "||" | "|" | "|&" | ";" | "&"
            | "\n" | "!" | "(" | ")" | "`" | "$(" => {
                self.visit_children(node, depth, nested);
            }
            "variable_assignment" | "variable_assignments" => {
                self.hazard(Hazard::Assignment);
                self.visit_children(node, depth, nested);
            }
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                // A redirection with no command (`> /etc/passwd`) still opens its file.
                let mut redirects = Redirects::default();
                self.redirect(node, depth, nested, &mut redirects);
                self.out.parts.push(SimpleCommand {
                    words: redirects.extra_words.clone(),
                    redirects: redirects.targets.clone(),
                    nested,
                    ..SimpleCommand::default()
                });
                self.after_redirects(Vec::new(), redirects);
            }
            "ERROR" => {
                // What the parser salvaged from an error is a guess too.
                let from = self.out.parts.len();
                self.visit_children(node, depth, nested);
                for part in self.out.parts.get_mut(from..).unwrap_or_default() {
                    part.recovered = true;
                }
            }
            kind if is_expression_leaf(kind) => {
                // A word or string outside a command: look inside for substitutions.
                self.visit_children(node, depth, nested);
            }
            _ => {
                self.hazard(Hazard::Compound);
                self.visit_children(node, depth, nested);
            }
        }
    }

    /// `a && b || c; d`: the grammar nests lists to the left, one level per
    /// operator, so a 1 000-part chain would be 1 000 levels deep. The spine
    /// is walked iteratively and every part is visited one level down.
    fn list(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut tails: Vec<Vec<Node<'_>>> = Vec::new();
        let mut current = node;
        while current.kind() == "list" {
            if current.is_error() || current.is_missing() {
                self.hazard(Hazard::Syntax);
            }
            let mut cursor = current.walk();
            let mut children = current.children(&mut cursor);
            let Some(first) = children.next() else {
                break;
            };
            tails.push(children.collect());
            current = first;
        }
        if current.kind() != "list" {
            self.visit(current, depth + 1, nested);
        }
        for tail in tails.into_iter().rev() {
            for child in tail {
                self.visit(child, depth + 1, nested);
            }
        }
    }

    /// A pipeline: a shell at a later stage runs what an earlier stage prints.
    fn pipeline(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let mut previous: Option<Vec<String>> = None;
        for child in children {
            let start = self.out.parts.len();
            self.visit(child, depth + 1, nested);
            if !child.is_named() {
                continue;
            }
            let stage = self
                .out
                .parts
                .get(start..)
                .unwrap_or_default()
                .iter()
                .find(|p| !p.nested)
                .map(|p| p.words.clone());
            if let Some(words) = &stage
                && reads_stdin_script(words)
            {
                self.hazard(Hazard::ShellString);
                if let Some(text) = previous.as_deref().and_then(literal_output) {
                    self.nested_script(&text);
                }
            }
            previous = stage;
        }
    }

    /// What follows a command's redirections: a here-string or here-document
    /// fed to a shell is a script; `&>` is a background `&` to dash.
    fn after_redirects(&mut self, host: Vec<String>, redirects: Redirects) {
        if reads_stdin_script(&host) {
            for text in &redirects.stdin {
                self.hazard(Hazard::ShellString);
                self.nested_script(text);
            }
        }
        if redirects.dash_background && !redirects.extra_words.is_empty() {
            // dash reads `a &>f b` as `a &` then `>f b`.
            self.out.parts.push(SimpleCommand {
                words: redirects.extra_words,
                redirects: redirects.targets,
                nested: true,
                ..SimpleCommand::default()
            });
        }
    }

    fn nested_script(&mut self, text: &str) {
        if self.level < MAX_NESTED_SCRIPTS {
            self.out.parse_into(text, self.level + 1, true);
        } else {
            self.hazard(Hazard::TooDeep);
        }
    }

    fn redirect(&mut self, node: Node<'_>, depth: usize, nested: bool, out: &mut Redirects) {
        match node.kind() {
            "heredoc_redirect" => {
                self.hazard(Hazard::Heredoc);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                let quoted = children.iter().any(|c| {
                    c.kind() == "heredoc_start" && self.text(*c).contains(['\'', '"', '\\'])
                });
                for child in &children {
                    if child.kind() == "heredoc_body" {
                        let body = self.text(*child);
                        if !quoted && (body.contains('`') || body.contains("$(")) {
                            // Substitutions run while the body is read: judge them.
                            self.hazard(Hazard::CommandSubstitution);
                            self.nested_script(&body);
                        }
                        out.stdin.push(body);
                    }
                }
                self.visit_children(node, depth, nested);
                return;
            }
            "herestring_redirect" => {
                self.hazard(Hazard::Heredoc);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children.iter().filter(|c| c.is_named()) {
                    let (text, _) = self.word(*child, depth + 1);
                    out.stdin.push(text);
                }
                return;
            }
            _ => {}
        }
        let mut duplicating = false;
        let mut have_target = false;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for (index, child) in children.iter().enumerate() {
            let field = u32::try_from(index)
                .ok()
                .and_then(|i| node.field_name_for_child(i));
            if !child.is_named() {
                let op = self.text(*child);
                duplicating = op == ">&" || op == "<&" || op == ">&-" || op == "<&-";
                out.dash_background |= op == "&>" || op == "&>>";
                continue;
            }
            if field == Some("descriptor") || child.kind() == "file_descriptor" && field.is_none() {
                continue;
            }
            let (target, _) = self.word(*child, depth + 1);
            if have_target {
                // `rm >x -rf /`: words after the target are the command's arguments.
                out.extra_words.push(target);
                continue;
            }
            have_target = true;
            let harmless = target == "/dev/null"
                || (duplicating && (target == "-" || target.chars().all(|c| c.is_ascii_digit())));
            if !harmless {
                self.hazard(Hazard::Redirect);
                out.targets.push(target);
            }
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut part = SimpleCommand {
            nested,
            ..SimpleCommand::default()
        };
        let mut redirects = Redirects::default();
        let mut name_end = None;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "variable_assignment" => {
                    self.hazard(Hazard::Assignment);
                    part.assignments.push(self.text(child));
                    self.visit_children(child, depth + 1, true);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    let before = redirects.extra_words.len();
                    self.redirect(child, depth + 1, nested, &mut redirects);
                    part.words.extend(
                        redirects
                            .extra_words
                            .get(before..)
                            .unwrap_or_default()
                            .iter()
                            .cloned(),
                    );
                }
                "command_name" => {
                    let (word, dynamic) = self.word(child, depth + 1);
                    if dynamic {
                        self.hazard(Hazard::DynamicCommandWord);
                    }
                    name_end = Some(child.end_byte());
                    part.words.push(word);
                }
                "subshell" => self.visit(child, depth + 1, nested),
                _ if child.is_named() => {
                    let (word, _) = self.word(child, depth + 1);
                    part.words.push(word);
                }
                _ => {
                    // Anonymous tokens inside a command (`$`, `==`, `=~`).
                    let text = self.text(child);
                    if !text.trim().is_empty() {
                        part.words.push(text);
                    }
                }
            }
        }
        // `0</dev/null rm -rf /`: the parser takes the descriptor for the command word.
        let fd_word = part
            .words
            .first()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
            && name_end
                .and_then(|e| self.src.get(e))
                .is_some_and(|b| matches!(b, b'<' | b'>'));
        if fd_word {
            part.words.remove(0);
        }
        if too_many_wrappers(&part.words) {
            self.hazard(Hazard::TooDeep);
        }
        part.redirects = std::mem::take(&mut redirects.targets);
        let scripts = scripts_of(&part.words);
        let host = part.words.clone();
        self.out.parts.push(part);
        for (hazard, script) in scripts {
            self.hazard(hazard);
            self.nested_script(&script);
        }
        redirects.targets = self
            .out
            .parts
            .last()
            .map(|p| p.redirects.clone())
            .unwrap_or_default();
        self.after_redirects(host, redirects);
    }

    /// The text of a word with quoting removed, and whether it is computed.
    fn word(&mut self, node: Node<'_>, depth: usize) -> (String, bool) {
        if depth > MAX_TREE_DEPTH {
            self.hazard(Hazard::TooDeep);
            return (self.text(node), true);
        }
        if node.is_error() || node.is_missing() {
            self.hazard(Hazard::Syntax);
        }
        match node.kind() {
            "word" | "number" => {
                let text = self.text(node);
                if text.contains(['\n', '\r']) {
                    // No unquoted Bash word holds a line break: the parser
                    // and Bash disagree here.
                    self.hazard(Hazard::Syntax);
                }
                (unescape_bare(&text), false)
            }
            "raw_string" => {
                let text = self.text(node);
                let inner = text
                    .strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(&text);
                (inner.to_owned(), false)
            }
            "string_content" => (unescape_double(&self.text(node)), false),
            "string" | "concatenation" | "command_name" => {
                let mut out = String::new();
                let mut dynamic = false;
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children {
                    if !child.is_named() {
                        let text = self.text(child);
                        if text != "\"" {
                            out.push_str(&text);
                        }
                        continue;
                    }
                    let (text, d) = self.word(child, depth + 1);
                    out.push_str(&text);
                    dynamic |= d;
                }
                (out, dynamic)
            }
            "command_substitution" | "process_substitution" => {
                let text = self.text(node);
                self.visit(node, depth, true);
                (text, true)
            }
            _ => {
                // Expansions, ANSI-C strings, arithmetic, brace expressions:
                // computed. Keep the source text and look inside.
                let text = self.text(node);
                self.visit_children(node, depth, true);
                (text, true)
            }
        }
    }
}

/// The byte that stands for every byte of a non-ASCII character in the text
/// the parser sees. A letter: to Bash (and to the grammar) a non-ASCII
/// character is a word character, so the shadow splits into the same words,
/// operators and quotes as the original. No run of `x`s is a keyword.
const SHADOW_BYTE: u8 = b'x';

/// `source` with every byte of every non-ASCII character replaced by
/// [`SHADOW_BYTE`]: the same length and the same byte offsets, so a node's
/// byte range in the shadow's tree is the same text's range in `source`.
///
/// Where the shadow reads differently from the original, it reads less
/// literally: `$é` (literal text to Bash) is an expansion in the shadow
/// (`$xx`), which only makes the command less approvable; two different
/// non-ASCII here-document delimiters of the same length end the body at the
/// same place or earlier (the body lines are then judged as commands).
fn ascii_shadow(source: &str) -> std::borrow::Cow<'_, str> {
    if source.is_ascii() {
        return std::borrow::Cow::Borrowed(source);
    }
    let bytes: Vec<u8> = source
        .bytes()
        .map(|b| if b.is_ascii() { b } else { SHADOW_BYTE })
        .collect();
    // Every byte is ASCII now, so the bytes are UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(bytes).unwrap_or_default())
}

fn is_expression_leaf(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "raw_string"
            | "concatenation"
            | "string_content"
            | "simple_expansion"
            | "expansion"
            | "number"
            | "ansi_c_string"
            | "translated_string"
            | "arithmetic_expansion"
            | "variable_name"
    )
}

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
}
