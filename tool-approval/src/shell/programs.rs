//! Programs whose own language runs commands or writes files.
//!
//! `sed '1e rm -rf /'`, `awk 'BEGIN { system("rm -rf /") }'` and
//! `perl -e 'system("rm -rf /")'` run a shell command that is not a word of
//! the line; `sed 'w /etc/passwd'` and `awk '{ print > "/etc/passwd" }'`
//! write a file without a redirection. This module reads those programs:
//!
//! - **sed** (GNU and POSIX): the script of `-e`/`--expression` or the first
//!   operand, with GNU's option permutation (where the text sits is a row
//!   of [`TextOptions`], read through the program table's reader). An `e COMMAND` is a command
//!   run; `e` alone and the `s///e` flag run the pattern space, a command
//!   computed from the input (an unread script); `w FILE`, `W FILE` and the
//!   `s///w FILE` flag write FILE. Text sed would refuse to compile reads as
//!   an unread script too, so a misreading never hides a command. `--sandbox`
//!   turns all of this off, as it does in sed.
//! - **awk** (POSIX, gawk, mawk): the program text (`-e`/`--source` values
//!   or the first operand, read both as gawk reads its words and as a
//!   permuting getopt does: a row of [`TextOptions`]), lexed with strings,
//!   regular expressions and comments. `system(…)`, `print | …`,
//!   `… | getline` and gawk's `|&` run a command: a literal one (string
//!   constants only) is a command run, anything else an unread script;
//!   `print > "F"` and `print >> "F"` write F.
//! - **inline code of interpreters** (perl, python, ruby, node, php): string
//!   literals passed to the common shell-out calls (`system`, `exec`,
//!   `os.system`, `subprocess.run`, `execSync`, `popen`, …), argv lists of
//!   string literals, and backticks, `qx{…}` and `%x(…)`; files written by
//!   a literal name (`open('F', 'w')`, `writeFileSync('F', …)`,
//!   `file_put_contents('F', …)`: [`FILE_WRITE_CALLS`]). General code
//!   cannot be judged from text; a computed argument is left to the OS
//!   sandbox.
//! - **vim** and its kin: `-c CMD`, `+CMD` and `--cmd CMD` that filter or
//!   run through a shell (`:!CMD`, `:r !CMD`, `:terminal CMD`).
//!
//! Commands found are parsed like `bash -c` strings, so deny rules and the
//! blacklist judge them; files found join the command's redirection targets.

use super::scripts::reads_stdin_script;
use super::table::{Found, Invocation};
use super::words::{basename, join_argv, tokenize};

/// Whether any word names a program this module reads, word by word (the
/// plain reading `class_index`'s tests hold a part's classes to).
#[cfg(test)]
pub(crate) fn may_have_programs(words: &[String]) -> bool {
    words.iter().any(|w| kind(basename(w)).is_some())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sed,
    Awk,
    Interpreter,
    Vim,
    Expect,
    Make,
}

/// The programs whose language this module reads, by kind: the one list
/// [`kind`] and the shared name index (`shell::classes`) read.
const LANGUAGES: &[(&[&str], Kind)] = &[
    (&["sed", "gsed"], Kind::Sed),
    (&["awk", "gawk", "mawk", "nawk", "busybox-awk"], Kind::Awk),
    (
        &["vim", "vi", "nvim", "gvim", "ex", "view", "vimdiff", "rvim"],
        Kind::Vim,
    ),
    (&["node", "nodejs", "bun", "deno"], Kind::Interpreter),
    (&["expect"], Kind::Expect),
    (&["make", "gmake"], Kind::Make),
];

/// Interpreters read also with a version suffix (`python3.12`, `perl5`).
/// (Each of these names starts with `p` or `r`.)
const VERSIONED: &[&str] = &["perl", "python", "pypy", "ruby", "php"];

/// Every name [`kind`] knows without a version suffix.
pub(crate) fn language_names() -> impl Iterator<Item = &'static str> {
    LANGUAGES
        .iter()
        .flat_map(|(names, _)| names.iter().copied())
        .chain(VERSIONED.iter().copied())
}

/// Whether this module reads the language of the program `name` (a basename).
#[cfg(test)]
pub(crate) fn is_language(name: &str) -> bool {
    kind(name).is_some()
}

/// Whether `name` is an interpreter of [`VERSIONED`] with or without a
/// version suffix.
pub(crate) fn is_versioned_interpreter(name: &str) -> bool {
    matches!(name.as_bytes().first(), Some(b'p' | b'r'))
        && VERSIONED.iter().any(|base| {
            name.strip_prefix(base)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        })
}

fn kind(name: &str) -> Option<Kind> {
    if let Some((_, kind)) = LANGUAGES.iter().find(|(names, _)| names.contains(&name)) {
        return Some(*kind);
    }
    is_versioned_interpreter(name).then_some(Kind::Interpreter)
}

/// What the program in `view` (a command's words) does.
pub(crate) fn program_effects(view: &[String]) -> Vec<Found> {
    let Some((first, args)) = view.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match kind(basename(first)) {
        Some(Kind::Sed) => {
            for script in program_texts(&SED_TEXT, args) {
                sed_effects(&script, &mut out);
            }
        }
        Some(Kind::Awk) => {
            for program in program_texts(&AWK_TEXT, args) {
                awk_effects(&program, &mut out);
            }
        }
        Some(Kind::Interpreter) => {
            // Every argument is read: which option holds the code differs
            // by interpreter and version (`-e`, `-c`, `-E`, `-r`, clusters
            // like `-ne`), and reading a data word as code only ever adds
            // commands to judge.
            for arg in args {
                inline_code_effects(arg, &mut out);
            }
        }
        Some(Kind::Vim) => {
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                let command = if arg == "-c" || arg == "--cmd" {
                    iter.next().map(String::as_str)
                } else {
                    arg.strip_prefix('+')
                };
                if let Some(command) = command {
                    vim_effects(command, &mut out);
                }
            }
        }
        Some(Kind::Expect) => {
            // `expect -c 'spawn CMD; …'`: Tcl's `spawn`, `exec` and `system`.
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                if arg == "-c" {
                    if let Some(script) = iter.next() {
                        tcl_effects(script, &mut out);
                    }
                } else if let Some(script) = arg.strip_prefix("-c").filter(|s| !s.is_empty()) {
                    tcl_effects(script, &mut out);
                }
            }
        }
        Some(Kind::Make) => {
            // `make --eval='x:; CMD'`: the recipes of makefile text on the line.
            let mut iter = args.iter();
            while let Some(arg) = iter.next() {
                let text = if arg == "--eval" || arg == "-E" {
                    iter.next().map(String::as_str)
                } else {
                    arg.strip_prefix("--eval=")
                        .or_else(|| arg.strip_prefix("-E").filter(|s| !s.is_empty()))
                };
                if let Some(text) = text {
                    make_recipes(text, &mut out);
                }
            }
        }
        None => {}
    }
    out.sort_unstable();
    out.dedup();
    out
}

// ---------------------------------------------------------------- sed

// ------------------------------------------------- program text on the line

/// Where a program whose language this module reads takes its program
/// text from: which of its options (read by the program table's one
/// reader, `Invocation`, with the program's row) hold the text, which name
/// a file of it, and which turn its commands off. A row's examples are
/// checked at load ([`check_rows`]).
#[derive(Debug)]
struct TextOptions {
    /// The program table's row the words are read with (`gsed` is read
    /// as `sed`, every awk as gawk's superset).
    row: &'static str,
    /// Options whose value is program text (letter, long name).
    text: &'static [(char, &'static str)],
    /// Options naming a file of program text: with one and no text option,
    /// the line shows no program.
    from_file: &'static [(char, &'static str)],
    /// A long option that turns running commands and writing files off
    /// (`sed --sandbox`): nothing is read.
    off: Option<&'static str>,
    /// The texts of several text options are one script, joined by line
    /// breaks (sed); else each is a program (awk).
    joined: bool,
    /// Versions of the program disagree on whether options may follow the
    /// first operand (gawk, mawk and the one true awk stop at it; a
    /// permuting getopt does not): the words are read both ways and every
    /// text either reading finds is read.
    both_ways: bool,
    /// Command lines and the program texts read from them.
    examples: &'static [(&'static str, &'static [&'static str])],
}

/// GNU sed (and POSIX sed): `-e`/`--expression` texts, joined, or else the
/// first operand; `-f`/`--file` scripts are not on the line; `--sandbox`
/// turns `e`, `w` and `r` off.
const SED_TEXT: TextOptions = TextOptions {
    row: "sed",
    text: &[('e', "expression")],
    from_file: &[('f', "file")],
    off: Some("sandbox"),
    joined: true,
    both_ways: false,
    examples: &[
        ("sed -n 1p f", &["1p"]),
        ("sed -e 1d -e 2d f", &["1d\n2d"]),
        ("sed f --expr=1d", &["1d"]),
        ("sed -ne 1p f", &["1p"]),
        ("sed -i.bak -e 1d f", &["1d"]),
        // `-ie` is `-i` with the suffix `e`: the script is the operand.
        ("sed -ie 1d f", &["1d"]),
        ("sed -l 5 1d f", &["1d"]),
        ("sed -- -n f", &["-n"]),
        ("sed --sandbox 1d f", &[]),
        ("sed --sa 1d f", &[]),
        ("sed -f x.sed f", &[]),
    ],
};

/// awk (POSIX, gawk, mawk): `-e`/`--source` texts (gawk), each a program,
/// or else the first operand; `-f`/`--file` and `-E`/`--exec` programs are
/// not on the line.
const AWK_TEXT: TextOptions = TextOptions {
    row: "awk",
    text: &[('e', "source")],
    from_file: &[('f', "file"), ('E', "exec")],
    off: None,
    joined: false,
    both_ways: true,
    examples: &[
        ("awk {print} f", &["{print}"]),
        ("awk -F: -v x=1 {print} f", &["{print}"]),
        ("gawk --source=BEGIN{} -e END{}", &["BEGIN{}", "END{}"]),
        ("awk -f p.awk f", &[]),
        ("awk --exec p.awk f", &[]),
        // After `--` the first word is the program in either reading.
        ("awk -- BEGIN{} -e 1", &["BEGIN{}"]),
        // gawk runs `BEGIN{}`; a permuting awk runs `1`.
        ("awk BEGIN{} -e 1", &["BEGIN{}", "1"]),
        ("awk -F, {print} data.csv -x", &["{print}"]),
    ],
};

/// The program texts `args` (the words after the command word) give the
/// program of `row` (see [`TextOptions`]).
fn program_texts(row: &TextOptions, args: &[String]) -> Vec<String> {
    let mut out = texts_of(row, &Invocation::read_args(row.row, args, &[]));
    if row.both_ways {
        for text in texts_of(row, &Invocation::read_args_permuting(row.row, args, &[])) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// The program texts of one reading of the words.
fn texts_of(row: &TextOptions, inv: &Invocation<'_>) -> Vec<String> {
    let mut texts: Vec<&str> = Vec::new();
    let mut from_file = false;
    for o in &inv.options {
        if row
            .off
            .is_some_and(|off| o.letters.is_empty() && o.long == off)
        {
            return Vec::new();
        }
        if row.text.iter().any(|&(short, long)| o.is(short, long)) {
            texts.extend(o.value);
        } else if row.from_file.iter().any(|&(short, long)| o.is(short, long)) {
            from_file = true;
        }
    }
    if texts.is_empty() {
        return match inv.operands.first() {
            Some(first) if !from_file => vec![(*first).to_owned()],
            _ => Vec::new(),
        };
    }
    if row.joined {
        return vec![texts.join("\n")];
    }
    texts.into_iter().map(str::to_owned).collect()
}

/// Checks every row's examples through the reader every other reader uses;
/// the message names the example and what it read.
pub(crate) fn check_rows() -> Result<(), String> {
    for row in [&SED_TEXT, &AWK_TEXT] {
        for (line, want) in row.examples {
            let words = tokenize(line);
            let got = program_texts(row, words.get(1..).unwrap_or_default());
            if got != *want {
                return Err(format!(
                    "program text of `{line}`: read {got:?}, the row says {want:?}"
                ));
            }
        }
    }
    Ok(())
}

struct Cursor {
    chars: Vec<char>,
    at: usize,
}

impl Cursor {
    fn new(text: &str) -> Self {
        Self {
            chars: text.chars().collect(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn skip_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.at += 1;
        }
    }

    /// The rest of the line (not the line break), consumed.
    fn rest_of_line(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            out.push(c);
            self.at += 1;
        }
        out
    }

    /// Text up to an unescaped `delim`, consumed with the delimiter; bracket
    /// expressions (`[/]`) are read whole when `brackets` is set, as GNU
    /// sed does. `None` when the text ends first.
    fn delimited(&mut self, delim: char, brackets: bool) -> Option<String> {
        let mut out = String::new();
        loop {
            let c = self.bump()?;
            if c == delim {
                return Some(out);
            }
            out.push(c);
            if c == '\\' {
                out.push(self.bump()?);
            } else if c == '[' && brackets {
                // `[]…]` and `[^]…]` hold a literal `]`; `[:class:]`,
                // `[.x.]` and `[=x=]` inside are read whole.
                if self.peek() == Some('^') {
                    out.push(self.bump()?);
                }
                if self.peek() == Some(']') {
                    out.push(self.bump()?);
                }
                loop {
                    let b = self.bump()?;
                    out.push(b);
                    if b == ']' {
                        break;
                    }
                    if b == '['
                        && let Some(open @ (':' | '.' | '=')) = self.peek()
                    {
                        out.push(self.bump()?);
                        loop {
                            let x = self.bump()?;
                            out.push(x);
                            if x == open && self.peek() == Some(']') {
                                out.push(self.bump()?);
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What a sed script runs and writes. Text sed would not compile adds
/// [`Found::runs_unread`](super::table::Found::runs_unread): the reading stopped there, so nothing
/// after it is known.
fn sed_effects(script: &str, out: &mut Vec<Found>) {
    if sed_commands(script, out).is_none() {
        out.push(Found::runs_unread());
    }
}

fn sed_commands(script: &str, out: &mut Vec<Found>) -> Option<()> {
    let mut cur = Cursor::new(script);
    loop {
        cur.skip_while(|c| c.is_whitespace() || c == ';');
        let Some(c) = cur.peek() else {
            return Some(());
        };
        if c == '#' {
            cur.rest_of_line();
            continue;
        }
        sed_address(&mut cur)?;
        cur.skip_while(|c| c == ' ' || c == '\t');
        if cur.peek() == Some(',') {
            cur.bump();
            cur.skip_while(|c| c == ' ' || c == '\t');
            sed_address(&mut cur)?;
            cur.skip_while(|c| c == ' ' || c == '\t');
        }
        while matches!(cur.peek(), Some('!' | ' ' | '\t')) {
            cur.bump();
        }
        let command = cur.bump()?;
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            ':' | 'b' | 't' | 'T' | 'v' => {
                cur.skip_while(|c| c == ' ' || c == '\t');
                cur.skip_while(|c| c != ';' && c != '\n');
            }
            'l' | 'L' | 'q' | 'Q' => {
                cur.skip_while(|c| c == ' ' || c == '\t' || c.is_ascii_digit());
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line; a trailing backslash goes on.
                loop {
                    let line = cur.rest_of_line();
                    if !line.ends_with('\\') || cur.bump().is_none() {
                        break;
                    }
                }
            }
            'r' | 'R' => {
                cur.rest_of_line();
            }
            'w' | 'W' => {
                let file = cur.rest_of_line();
                push_file(file.trim_start(), out);
            }
            'e' => {
                let line = cur.rest_of_line();
                let line = line.trim();
                if line.is_empty() {
                    out.push(Found::runs_unread());
                } else {
                    out.push(Found::runs(line.to_owned()));
                }
            }
            's' | 'y' => {
                let delim = cur.bump().filter(|d| *d != '\n' && *d != '\\')?;
                cur.delimited(delim, command == 's')?;
                cur.delimited(delim, false)?;
                if command == 's' {
                    sed_flags(&mut cur, out)?;
                }
            }
            _ => return None,
        }
    }
}

fn sed_flags(cur: &mut Cursor, out: &mut Vec<Found>) -> Option<()> {
    while let Some(flag) = cur.peek() {
        match flag {
            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => {}
            '0'..='9' => {}
            // The pattern space, computed from the input, runs as a command.
            'e' => out.push(Found::runs_unread()),
            'w' => {
                cur.bump();
                let file = cur.rest_of_line();
                push_file(file.trim_start(), out);
                return Some(());
            }
            ';' | '\n' | '}' | ' ' | '\t' | '#' => return Some(()),
            _ => return None,
        }
        cur.bump();
    }
    Some(())
}

/// An address: a line number (`3`, `0`, `1~2`), `$`, `/re/`, `\cREc`, with
/// `I`/`M` after a regular expression and `+N`/`~N` as a second address.
fn sed_address(cur: &mut Cursor) -> Option<()> {
    match cur.peek() {
        Some(c) if c.is_ascii_digit() => {
            cur.skip_while(|c| c.is_ascii_digit());
            if cur.peek() == Some('~') {
                cur.bump();
                cur.skip_while(|c| c.is_ascii_digit());
            }
        }
        Some('+' | '~') => {
            cur.bump();
            cur.skip_while(|c| c.is_ascii_digit());
        }
        Some('$') => {
            cur.bump();
        }
        Some('/') => {
            cur.bump();
            cur.delimited('/', true)?;
            cur.skip_while(|c| c == 'I' || c == 'M');
        }
        Some('\\') => {
            cur.bump();
            let delim = cur.bump().filter(|d| *d != '\n')?;
            cur.delimited(delim, true)?;
            cur.skip_while(|c| c == 'I' || c == 'M');
        }
        _ => {}
    }
    Some(())
}

fn push_file(file: &str, out: &mut Vec<Found>) {
    if !file.is_empty() && !matches!(file, "/dev/stdout" | "/dev/stderr") {
        out.push(Found::writes(file.to_owned()));
    }
}

// ---------------------------------------------------------------- awk

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Word(String),
    /// A number, a regular expression, `$`: an operand that is not a string.
    Operand,
    Punct(&'static str),
    /// A statement boundary: a line break, `;`, `{` or `}`.
    End,
}

const AWK_KEYWORDS: &[&str] = &[
    "BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break", "continue",
    "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf", "case",
    "default", "switch",
];

/// Tokens of an awk program; `None` when a string or regular expression
/// does not end (awk refuses such a program).
fn awk_tokens(program: &str) -> Option<Vec<Tok>> {
    let mut cur = Cursor::new(program);
    let mut toks: Vec<Tok> = Vec::new();
    while let Some(c) = cur.peek() {
        match c {
            '\n' | ';' | '{' | '}' => {
                cur.bump();
                toks.push(Tok::End);
            }
            ' ' | '\t' | '\r' => {
                cur.bump();
            }
            '\\' if cur.peek_at(1) == Some('\n') => {
                cur.bump();
                cur.bump();
            }
            '#' => {
                cur.rest_of_line();
            }
            '"' => {
                cur.bump();
                let raw = cur.delimited('"', false)?;
                toks.push(Tok::Str(unescape_awk(&raw)));
            }
            '/' if regex_may_start(toks.last()) => {
                cur.bump();
                cur.delimited('/', true)?;
                toks.push(Tok::Operand);
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = String::new();
                while let Some(w) = cur
                    .peek()
                    .filter(|w| w.is_ascii_alphanumeric() || *w == '_')
                {
                    word.push(w);
                    cur.bump();
                }
                toks.push(Tok::Word(word));
            }
            c if c.is_ascii_digit() || c == '.' => {
                cur.skip_while(|w| w.is_ascii_alphanumeric() || w == '.');
                toks.push(Tok::Operand);
            }
            _ => {
                const PUNCT: &[&str] = &[
                    "|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=",
                    "/=", "%=", "^=", "**", "|", ">", "<", "(", ")", "[", "]", ",", "!", "~", "?",
                    ":", "=", "+", "-", "*", "/", "%", "^", "$", "&", "@",
                ];
                let found = PUNCT.iter().find(|p| {
                    p.chars()
                        .enumerate()
                        .all(|(i, pc)| cur.peek_at(i) == Some(pc))
                });
                match found {
                    Some(p) => {
                        for _ in 0..p.chars().count() {
                            cur.bump();
                        }
                        toks.push(Tok::Punct(p));
                    }
                    None => {
                        cur.bump();
                        toks.push(Tok::Operand);
                    }
                }
            }
        }
    }
    Some(toks)
}

/// Whether a `/` after `prev` starts a regular expression (not a division):
/// awk's own lexer decides the same way, by what came before.
fn regex_may_start(prev: Option<&Tok>) -> bool {
    match prev {
        None | Some(Tok::End) => true,
        Some(Tok::Str(_) | Tok::Operand) => false,
        Some(Tok::Word(w)) => AWK_KEYWORDS.contains(&w.as_str()),
        Some(Tok::Punct(p)) => !matches!(*p, ")" | "]" | "$" | "++" | "--"),
    }
}

fn unescape_awk(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Whether a token ends an expression (so a string after it concatenates).
fn is_operand(tok: &Tok) -> bool {
    match tok {
        Tok::Str(_) | Tok::Operand => true,
        Tok::Word(w) => !AWK_KEYWORDS.contains(&w.as_str()),
        Tok::Punct(p) => matches!(*p, ")" | "]" | "$" | "++" | "--"),
        Tok::End => false,
    }
}

/// Whether a token ends the redirection target of a `print` (`;`, a line
/// break, a brace, the end).
fn ends_target(tok: Option<&Tok>) -> bool {
    matches!(tok, None | Some(Tok::End))
}

/// A run of string constants starting at `at`: their text, concatenated,
/// and the index after them.
fn string_run(toks: &[Tok], mut at: usize) -> (String, usize) {
    let mut text = String::new();
    while let Some(Tok::Str(s)) = toks.get(at) {
        text.push_str(s);
        at += 1;
    }
    (text, at)
}

fn awk_effects(program: &str, out: &mut Vec<Found>) {
    let Some(toks) = awk_tokens(program) else {
        out.push(Found::runs_unread());
        return;
    };
    // The paren depth at which the current `print` statement began.
    let mut print_depth: Option<usize> = None;
    let mut print_start: Option<usize> = None;
    let mut depth = 0usize;
    for (at, tok) in toks.iter().enumerate() {
        match tok {
            Tok::End => {
                print_depth = None;
                print_start = None;
            }
            Tok::Word(w) if w == "print" || w == "printf" => {
                print_depth = Some(depth);
                print_start = Some(at);
            }
            Tok::Punct("(") => depth += 1,
            Tok::Punct(")") => depth = depth.saturating_sub(1),
            Tok::Word(w) if w == "system" && toks.get(at + 1) == Some(&Tok::Punct("(")) => {
                let (text, next) = string_run(&toks, at + 2);
                if next > at + 2 && toks.get(next) == Some(&Tok::Punct(")")) {
                    out.push(Found::runs(text));
                } else {
                    out.push(Found::runs_unread());
                }
            }
            Tok::Punct(p @ ("|" | "|&")) => {
                if matches!(toks.get(at + 1), Some(Tok::Word(w)) if w == "getline") {
                    // `"cmd" | getline`: the strings just before the pipe.
                    let mut start = at;
                    while start > 0 && matches!(toks.get(start - 1), Some(Tok::Str(_))) {
                        start -= 1;
                    }
                    let literal = start < at
                        && (start == 0 || toks.get(start - 1).is_none_or(|t| !is_operand(t)));
                    if literal {
                        out.push(Found::runs(string_run(&toks, start).0));
                    } else {
                        out.push(Found::runs_unread());
                    }
                } else if print_depth == Some(depth) || *p == "|&" {
                    let (text, next) = string_run(&toks, at + 1);
                    if next > at + 1 && ends_target(toks.get(next)) {
                        // `print "rm -rf /" | "sh"`: a shell reading what
                        // awk prints runs the printed text as its script.
                        if reads_stdin_script(&tokenize(&text)) {
                            let printed = print_start
                                .map(|start| string_run(&toks, start + 1))
                                .filter(|(_, end)| *end == at);
                            match printed {
                                Some((script, _)) => out.push(Found::runs(script)),
                                None => out.push(Found::runs_unread()),
                            }
                        }
                        out.push(Found::runs(text));
                    } else {
                        out.push(Found::runs_unread());
                    }
                } else {
                    // A pipe awk would not accept elsewhere: unread.
                    out.push(Found::runs_unread());
                }
            }
            Tok::Punct(">" | ">>") if print_depth == Some(depth) => {
                let (text, next) = string_run(&toks, at + 1);
                if next > at + 1 && ends_target(toks.get(next)) {
                    push_file(&text, out);
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- interpreters

/// Calls whose string argument is a shell command (or an argv list).
const SHELL_OUT_CALLS: &[&str] = &[
    "system",
    "exec",
    "popen",
    "spawn",
    "spawnSync",
    "execSync",
    "execFileSync",
    "execFile",
    "check_output",
    "check_call",
    "getoutput",
    "getstatusoutput",
    "run",
    "call",
    "Popen",
    "shell_exec",
    "passthru",
    "proc_open",
    "qx",
    "open3",
    "capture2",
    "capture3",
    "Command",
];

/// Calls whose first string argument is a file they write, and whether
/// a second argument (a mode with `w`, `a`, `x` or `+`) must say so
/// (`open('F', 'w')` writes, `open('F')` reads).
const FILE_WRITE_CALLS: &[(&str, bool)] = &[
    ("open", true),
    ("fopen", true),
    ("writeFileSync", false),
    ("appendFileSync", false),
    ("writeFile", false),
    ("appendFile", false),
    ("createWriteStream", false),
    ("file_put_contents", false),
    ("write_file", false),
];

/// The file a write call at `chars[at..]` (after its name) names, as a
/// literal: `('F', 'w')`, `("F", "a+")`, `('F')` when no mode is needed.
fn written_file(chars: &[char], at: usize, needs_mode: bool) -> Option<String> {
    let mut at = at;
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    if chars.get(at) != Some(&'(') {
        return None;
    }
    let (file, after) = string_literal(chars, at + 1)?;
    if !needs_mode {
        return Some(file);
    }
    let mut at = after;
    while chars
        .get(at)
        .is_some_and(|c| c.is_whitespace() || *c == ',')
    {
        at += 1;
    }
    let (mode, _) = string_literal(chars, at)?;
    mode.contains(['w', 'a', 'x', '+']).then_some(file)
}

/// A quoted literal at `chars[at..]` (after blanks), without escapes
/// decoded, and the index after its closing quote.
fn string_literal(chars: &[char], mut at: usize) -> Option<(String, usize)> {
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    let quote = *chars.get(at).filter(|q| matches!(q, '\'' | '"'))?;
    let start = at + 1;
    let end = chars
        .get(start..start.saturating_add(MAX_LITERAL_CHARS).min(chars.len()))?
        .iter()
        .position(|c| *c == quote)?;
    Some((
        chars.get(start..start + end)?.iter().collect(),
        start + end + 1,
    ))
}

/// How far a literal (a string, backticks, `qx{…}`) is looked for: the
/// scan starts at every shell-out word, so it is bounded to stay linear.
const MAX_LITERAL_CHARS: usize = 1024;

/// The offset of `close` in `chars[from..]`, within [`MAX_LITERAL_CHARS`].
///
/// `known` remembers the last failed search (`close`, and a range holding
/// none of it), so repeated starts (`qx{ qx{ qx{ …`) scan each character
/// once, not once per start.
fn find_close(
    chars: &[char],
    from: usize,
    close: char,
    known: &mut Option<(char, usize, usize)>,
) -> Option<usize> {
    let limit = from.saturating_add(MAX_LITERAL_CHARS).min(chars.len());
    let start = match *known {
        Some((c, free_from, free_to)) if c == close && free_from <= from && from <= free_to => {
            free_to
        }
        _ => from,
    };
    let found = chars
        .get(start..limit.max(start))
        .and_then(|window| window.iter().position(|x| *x == close));
    match found {
        Some(at) => Some(start + at - from),
        None => {
            *known = Some((close, from, limit.max(start)));
            None
        }
    }
}

/// Shell commands that inline code passes, as literals, to a shell-out call.
fn inline_code_effects(code: &str, out: &mut Vec<Found>) {
    if !code.contains(['(', '`', ' ', '{']) {
        return;
    }
    let chars: Vec<char> = code.chars().collect();
    let mut known = None;
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        if c == '`' {
            // Backticks (perl, ruby, php, a shell in a template literal).
            if let Some(end) = find_close(&chars, at + 1, '`', &mut known) {
                let text: String = chars
                    .get(at + 1..at + 1 + end)
                    .unwrap_or_default()
                    .iter()
                    .collect();
                if !text.trim().is_empty() {
                    out.push(Found::may_run(text));
                }
                at += end + 2;
                continue;
            }
        }
        if (c.is_ascii_alphabetic() || c == '_' || c == '%')
            && (at == 0
                || chars
                    .get(at - 1)
                    .is_some_and(|p| !p.is_ascii_alphanumeric() && *p != '_'))
        {
            let start = at;
            at += 1;
            while chars
                .get(at)
                .is_some_and(|w| w.is_ascii_alphanumeric() || *w == '_')
            {
                at += 1;
            }
            let word: String = chars.get(start..at).unwrap_or_default().iter().collect();
            if word == "qx" || word == "%x" {
                if let Some(open) = chars
                    .get(at)
                    .copied()
                    .filter(|o| !o.is_alphanumeric() && !o.is_whitespace())
                {
                    let close = closing(open);
                    if let Some(end) = find_close(&chars, at + 1, close, &mut known) {
                        let text: String = chars
                            .get(at + 1..at + 1 + end)
                            .unwrap_or_default()
                            .iter()
                            .collect();
                        out.push(Found::may_run(text));
                        at += end + 2;
                    }
                }
                continue;
            }
            if let Some((_, needs_mode)) = FILE_WRITE_CALLS.iter().find(|(w, _)| *w == word) {
                if let Some(file) = written_file(&chars, at, *needs_mode) {
                    out.push(Found::writes(file));
                }
                continue;
            }
            if SHELL_OUT_CALLS.contains(&word.as_str()) {
                let mut args_at = at;
                while chars.get(args_at).is_some_and(|w| w.is_whitespace()) {
                    args_at += 1;
                }
                if chars.get(args_at) == Some(&'(') {
                    args_at += 1;
                }
                if let Some(command) = literal_command(&chars, args_at) {
                    out.push(Found::may_run(command));
                }
            }
            continue;
        }
        at += 1;
    }
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        other => other,
    }
}

/// A command given as literals at `at`: one string, several strings
/// separated by commas (an argv), or a `[…]` list of strings (an argv).
fn literal_command(chars: &[char], mut at: usize) -> Option<String> {
    let limit = at + MAX_LITERAL_CHARS;
    let skip_ws = |at: &mut usize| {
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
    };
    skip_ws(&mut at);
    let list = matches!(chars.get(at), Some('[' | '('));
    if list {
        at += 1;
    }
    let mut words = Vec::new();
    loop {
        skip_ws(&mut at);
        // Python's string prefixes: r'…', b'…', u'…'.
        if chars
            .get(at)
            .is_some_and(|c| matches!(c, 'r' | 'b' | 'u' | 'R' | 'B' | 'U'))
            && chars.get(at + 1).is_some_and(|c| matches!(c, '\'' | '"'))
        {
            at += 1;
        }
        let quote = *chars.get(at).filter(|q| matches!(q, '\'' | '"'))?;
        at += 1;
        let mut word = String::new();
        loop {
            if at > limit {
                return None;
            }
            let c = *chars.get(at)?;
            at += 1;
            if c == quote {
                break;
            }
            if c == '\\' {
                let next = *chars.get(at)?;
                at += 1;
                match next {
                    'n' => word.push('\n'),
                    't' => word.push('\t'),
                    other => word.push(other),
                }
                continue;
            }
            word.push(c);
        }
        words.push(word);
        skip_ws(&mut at);
        if chars.get(at) == Some(&',') {
            at += 1;
            skip_ws(&mut at);
            if chars
                .get(at)
                .is_some_and(|c| matches!(c, '\'' | '"' | 'r' | 'b' | 'u' | 'R' | 'B' | 'U'))
            {
                continue;
            }
        }
        break;
    }
    match words.as_slice() {
        [one] if !list => Some(one.clone()),
        _ => Some(join_argv(words.iter().map(String::as_str), false)),
    }
}

// ---------------------------------------------------------------- expect, make

/// `spawn CMD`, `exec CMD`, `system CMD` in Tcl text (commands split at
/// `;`, line breaks and brackets; braces and quotes dropped).
fn tcl_effects(script: &str, out: &mut Vec<Found>) {
    for command in script.split([';', '\n', '[', ']']) {
        let words: Vec<&str> = command
            .split_whitespace()
            .map(|w| w.trim_matches(['{', '}', '"']))
            .filter(|w| !w.is_empty())
            .collect();
        let Some((first, rest)) = words.split_first() else {
            continue;
        };
        if matches!(*first, "spawn" | "exec" | "system") {
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .skip_while(|w| w.starts_with('-'))
                .collect();
            if !rest.is_empty() {
                out.push(Found::may_run(rest.join(" ")));
            }
        }
    }
}

/// Recipe lines of makefile text: lines starting with a tab, and what
/// follows `;` on a rule line (`target: prereqs; CMD`).
fn make_recipes(text: &str, out: &mut Vec<Found>) {
    // `$(shell CMD)` runs CMD wherever the text is expanded (a variable, a
    // target, a recipe): read to its matching parenthesis.
    let mut rest = text;
    while let Some(at) = rest.find("$(shell ") {
        let body = &rest[at + "$(shell ".len()..];
        let mut depth = 1usize;
        let end = body.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        });
        let command = end.map_or(body, |e| &body[..e]);
        if !command.trim().is_empty() {
            out.push(Found::may_run(command.trim().to_owned()));
        }
        rest = end.map_or("", |e| &body[e..]);
    }
    for line in text.lines() {
        let recipe = if let Some(recipe) = line.strip_prefix('\t') {
            Some(recipe)
        } else {
            line.split_once(':')
                .and_then(|(_, rest)| rest.split_once(';'))
                .map(|(_, recipe)| recipe)
        };
        if let Some(recipe) = recipe.map(|r| r.trim_start_matches(['@', '-', '+', ' ']))
            && !recipe.trim().is_empty()
        {
            out.push(Found::may_run(recipe.trim().to_owned()));
        }
    }
}

// ---------------------------------------------------------------- vim

fn vim_effects(command: &str, out: &mut Vec<Found>) {
    let trimmed = command.trim_start_matches([':', ' ', '\t']);
    for piece in trimmed.split('|') {
        let piece = piece.trim_start_matches([':', ' ', '\t']);
        if let Some(rest) = piece
            .strip_prefix("terminal ")
            .or_else(|| piece.strip_prefix("term "))
        {
            out.push(Found::may_run(rest.trim().to_owned()));
        } else if let Some((_, shell)) = piece.split_once('!')
            && !shell.trim().is_empty()
        {
            out.push(Found::may_run(shell.trim().to_owned()));
        }
        inline_code_effects(piece, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(words: &[&str]) -> Vec<Found> {
        let view: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        program_effects(&view)
    }

    fn runs(cmd: &str) -> Found {
        Found::runs(cmd.to_owned())
    }

    fn may(cmd: &str) -> Found {
        Found::may_run(cmd.to_owned())
    }

    fn writes(file: &str) -> Found {
        Found::writes(file.to_owned())
    }

    #[test]
    fn every_program_text_row_reads_its_examples() {
        assert_eq!(check_rows(), Ok(()));
    }

    #[test]
    fn awk_after_a_double_dash_runs_the_word_after_it_not_a_later_option() {
        // gawk runs `BEGIN{…}` here (`-e`, `1` are its files): the program
        // must be read, not only the `-e` value a permuting reader sees.
        assert_eq!(
            effects(&["awk", "--", "BEGIN{system(\"id\")}", "-e", "1"]),
            vec![runs("id")]
        );
        assert_eq!(
            effects(&["awk", "BEGIN{system(\"id\")}", "-e", "1"]),
            vec![runs("id")]
        );
        // A permuting awk runs the `-e` text after the program word.
        assert_eq!(
            effects(&["mawk", "{print}", "-e", "BEGIN{system(\"id\")}"]),
            vec![runs("id")]
        );
    }

    #[test]
    fn reads_sed_scripts_for_commands_and_writes() {
        assert_eq!(effects(&["sed", "-n", "1p", "f"]), vec![]);
        assert_eq!(effects(&["sed", "s/a/b/g;s|x|y|", "f"]), vec![]);
        assert_eq!(
            effects(&["sed", "1e rm -rf /", "f"]),
            vec![runs("rm -rf /")]
        );
        assert_eq!(effects(&["sed", "-ne", "$e id", "f"]), vec![runs("id")]);
        assert_eq!(effects(&["sed", "f", "--expr=e id"]), vec![runs("id")]);
        assert_eq!(
            effects(&["sed", "s/x/y/e", "f"]),
            vec![Found::runs_unread()]
        );
        assert_eq!(
            effects(&["sed", "/a/,/b/ { s/[/]/x/w out.txt\n}", "f"]),
            vec![writes("out.txt")]
        );
        assert_eq!(
            effects(&["sed", "w /etc/passwd", "f"]),
            vec![writes("/etc/passwd")]
        );
        assert_eq!(
            effects(&["sed", "-i.bak", "-e", "1a text; e id", "f"]),
            vec![]
        );
        assert_eq!(effects(&["sed", "--sandbox", "e id", "f"]), vec![]);
        // `-ie` is `-i` with suffix `e`: the script is the operand.
        assert_eq!(effects(&["sed", "-ie", "e id", "f"]), vec![runs("id")]);
        // Text sed would not compile is unread, never skipped.
        assert_eq!(effects(&["sed", "s/a/b", "f"]), vec![Found::runs_unread()]);
        assert_eq!(effects(&["sed", "1k", "f"]), vec![Found::runs_unread()]);
    }

    #[test]
    fn reads_awk_programs_for_commands_and_writes() {
        assert_eq!(effects(&["awk", "-F|", "{print $1}", "f"]), vec![]);
        assert_eq!(effects(&["awk", "$1 > 5 { print $2 / 2 }", "f"]), vec![]);
        assert_eq!(
            effects(&["awk", "BEGIN{system(\"rm -rf /\")}"]),
            vec![runs("rm -rf /")]
        );
        assert_eq!(
            effects(&["awk", "{system(\"echo \" $1)}"]),
            vec![Found::runs_unread()]
        );
        assert_eq!(
            effects(&["awk", "{print | \"sort -u\"}"]),
            vec![runs("sort -u")]
        );
        assert_eq!(
            effects(&["awk", "{print | cmd}"]),
            vec![Found::runs_unread()]
        );
        // A shell reading what awk prints runs the printed text.
        assert_eq!(
            effects(&["awk", "BEGIN{print \"rm -rf /\" | \"sh\"}"]),
            vec![runs("rm -rf /"), runs("sh")]
        );
        assert_eq!(
            effects(&["awk", "{print $0 | \"bash\"}"]),
            vec![runs("bash"), Found::runs_unread()]
        );
        assert_eq!(
            effects(&["awk", "BEGIN{\"date\" | getline d}"]),
            vec![runs("date")]
        );
        assert_eq!(
            effects(&["awk", "{print > \"/etc/passwd\"}"]),
            vec![writes("/etc/passwd")]
        );
        assert_eq!(effects(&["awk", "{print (a > \"b\")}"]), vec![]);
        // A `"` inside a regular expression does not open a string.
        assert_eq!(
            effects(&["awk", "/\"/ {x=1}; BEGIN{system(\"id\")}"]),
            vec![runs("id")]
        );
        // A comment does not hide what follows the line break.
        assert_eq!(
            effects(&["awk", "# \"\nBEGIN{system(\"id\")}"]),
            vec![runs("id")]
        );
        assert_eq!(
            effects(&["gawk", "-v", "x=1", "-e", "BEGIN{system(\"id\")}"]),
            vec![runs("id")]
        );
        assert_eq!(effects(&["awk", "-f", "prog.awk", "f"]), vec![]);
        assert_eq!(
            effects(&["awk", "BEGIN{print \"unterminated}"]),
            vec![Found::runs_unread()]
        );
    }

    #[test]
    fn reads_literal_shell_outs_of_inline_code() {
        assert_eq!(
            effects(&["perl", "-e", "system(\"rm -rf /\")"]),
            vec![may("rm -rf /")]
        );
        assert_eq!(effects(&["perl", "-le", "print `id`"]), vec![may("id")]);
        assert_eq!(effects(&["perl", "-e", "qx{id}"]), vec![may("id")]);
        assert_eq!(
            effects(&["python3", "-c", "import os; os.system('rm -rf ~')"]),
            vec![may("rm -rf ~")]
        );
        assert_eq!(
            effects(&[
                "python3",
                "-c",
                "import subprocess; subprocess.run(['rm', '-rf', '/'])"
            ]),
            vec![may("rm -rf /")]
        );
        assert_eq!(
            effects(&[
                "node",
                "-e",
                "require('child_process').execSync(\"rm -rf /\")"
            ]),
            vec![may("rm -rf /")]
        );
        assert_eq!(effects(&["ruby", "-e", "system 'id'"]), vec![may("id")]);
        assert_eq!(effects(&["python3", "-c", "print(1)"]), vec![]);
        assert_eq!(effects(&["python3", "-c", "os.system(cmd)"]), vec![]);
        assert_eq!(
            effects(&["python3", "-c", "open('.nvim.lua','w').write('x')"]),
            vec![Found::writes(".nvim.lua".into())]
        );
        assert_eq!(
            effects(&["node", "-e", "require('fs').writeFileSync('.exrc','x')"]),
            vec![Found::writes(".exrc".into())]
        );
        assert_eq!(
            effects(&["python3", "-c", "print(open('a.txt').read())"]),
            vec![]
        );
        assert_eq!(effects(&["python3", "-c", "open(path, 'w')"]), vec![]);
    }

    #[test]
    fn a_remembered_failed_search_gives_the_same_answers() {
        let chars: Vec<char> = "qx{ qx{ a } qx{ b".chars().collect();
        for close in ['}', ')'] {
            let mut known = None;
            for from in 0..chars.len() {
                let plain = chars
                    .get(from..)
                    .and_then(|r| r.iter().take(MAX_LITERAL_CHARS).position(|x| *x == close));
                assert_eq!(
                    find_close(&chars, from, close, &mut known),
                    plain,
                    "{close} from {from}"
                );
            }
        }
        assert_eq!(
            effects(&["perl", "-e", "qx{ qx{ id }"]),
            vec![may(" qx{ id ")]
        );
    }

    #[test]
    fn reads_expect_and_make_commands() {
        assert_eq!(
            effects(&["expect", "-c", "spawn rm -rf /; interact"]),
            vec![may("rm -rf /")]
        );
        assert_eq!(
            effects(&["expect", "-c", "set x [exec {id}]"]),
            vec![may("id")]
        );
        assert_eq!(
            effects(&["make", "--eval=x:;rm -rf /", "x"]),
            vec![may("rm -rf /")]
        );
        assert_eq!(
            effects(&["make", "-E", "x:\n\t@rm -rf ~", "x"]),
            vec![may("rm -rf ~")]
        );
        assert_eq!(effects(&["make", "-j4", "test"]), vec![]);
        assert_eq!(
            effects(&["make", "-E", "x:=$(shell rm -rf ~)"]),
            vec![Found::may_run("rm -rf ~".into())]
        );
    }

    #[test]
    fn reads_vim_shell_commands() {
        assert_eq!(
            effects(&["vim", "-c", ":!rm -rf /", "x"]),
            vec![may("rm -rf /")]
        );
        assert_eq!(effects(&["vim", "+r !id", "x"]), vec![may("id")]);
        assert_eq!(effects(&["vim", "-c", "wq!", "x"]), vec![]);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn cases() -> u32 {
            std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(512)
        }

        /// Valid sed commands that neither run nor write anything.
        fn sed_command() -> impl Strategy<Value = String> {
            let re = "[a-z.*^]{0,4}(\\[a-z/\\]\\]{0,3}\\])?[a-z]{0,2}";
            prop_oneof![
                Just("p".to_owned()),
                Just("$!N".to_owned()),
                Just("1,3d".to_owned()),
                Just("{ p; }".to_owned()),
                Just(":top".to_owned()),
                Just("b top".to_owned()),
                Just("y/abc/xyz/".to_owned()),
                "[a-z ;#\"]{0,12}".prop_map(|t| format!("a {t}")),
                (re, "[a-z&]{0,4}").prop_map(|(r, x)| format!("s/{r}/{x}/g")),
                (re, "[a-z]{0,4}").prop_map(|(r, x)| format!("s|{r}|{x}|2")),
                re.prop_map(|r| format!("/{r}/!d")),
                "#[a-z \"/]{0,10}".prop_map(|c| c),
            ]
        }

        /// Valid awk statements that neither run nor write anything, some
        /// with quotes inside regular expressions and comments.
        fn awk_statement() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("print $1".to_owned()),
                Just("x = $2 / 2".to_owned()),
                Just("if ($1 > 3) print \"a\"".to_owned()),
                Just("printf(\"%s\\n\", $0)".to_owned()),
                Just("print (a > b)".to_owned()),
                Just("n = split($0, parts, \"|\")".to_owned()),
                "[a-z\"|]{0,6}".prop_map(|r| format!("$0 ~ /{}/", r.replace('/', ""))),
                "[a-z \"/|]{0,10}".prop_map(|c| format!("# {c}\n")),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(cases()))]

            /// The remembered failed search never changes an answer, in any
            /// order of queries.
            #[test]
            fn remembered_searches_agree_with_plain_ones(
                // Long runs without a closer, so searches fail and are remembered.
                text in "[{( qx]{0,2500}([}`][{( qx]{0,1500}){0,3}",
                froms in proptest::collection::vec(0usize..3100, 1..40),
            ) {
                let chars: Vec<char> = text.chars().collect();
                let mut known = None;
                for from in froms {
                    for close in ['}', '`'] {
                        let plain = chars.get(from..).and_then(|r| {
                            r.iter().take(MAX_LITERAL_CHARS).position(|x| *x == close)
                        });
                        prop_assert_eq!(find_close(&chars, from, close, &mut known), plain);
                    }
                }
            }

            /// Any text, as any of the programs read here: no panic.
            #[test]
            fn any_text_reads_without_panicking(text in "\\PC{0,200}", which in 0usize..6) {
                let program = ["sed", "awk", "perl", "python3", "vim", "node"][which];
                let flag = ["-e", "--", "-e", "-c", "-c", "-e"][which];
                let _ = program_effects(&[program.to_owned(), flag.to_owned(), text.clone()]);
                let _ = program_effects(&[program.to_owned(), text]);
            }

            /// A valid sed script reads whole: an `e CMD` anywhere in it is
            /// found, and nothing is unread.
            #[test]
            fn sed_finds_the_command_wherever_it_is(
                before in proptest::collection::vec(sed_command(), 0..6),
                after in proptest::collection::vec(sed_command(), 0..6),
                cmd in "[a-z]{1,6}( -[a-z]{1,3})?",
            ) {
                let script = [before.join("\n"), format!("e {cmd}"), after.join("\n")].join("\n");
                let found = program_effects(&["sed".to_owned(), script.clone(), "f".to_owned()]);
                prop_assert_eq!(found, vec![Found::runs(cmd)], "{:?}", script);
            }

            /// A valid awk program reads whole: a `system("CMD")` anywhere
            /// in it is found, and nothing is unread.
            #[test]
            fn awk_finds_the_call_wherever_it_is(
                before in proptest::collection::vec(awk_statement(), 0..6),
                after in proptest::collection::vec(awk_statement(), 0..6),
                cmd in "[a-z]{1,6}( -[a-z]{1,3})?",
            ) {
                let program = format!(
                    "{{ {} ; system(\"{cmd}\") ; {} }}",
                    before.join(";\n"),
                    after.join(";\n")
                );
                let found = program_effects(&["awk".to_owned(), program.clone()]);
                prop_assert_eq!(found, vec![Found::runs(cmd)], "{:?}", program);
            }
        }
    }
}
