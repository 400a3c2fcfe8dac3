//! The one reader of the program table: a command's words read into an
//! [`Invocation`] (program, subcommand, options with their values and
//! effects, operands), long options matched as the row's parser matches
//! them, and `takes_separate_value` for wrappers and runners.

use super::*;

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

impl ReadOption<'_> {
    /// Whether this is the option `-short` or `--long` (a long one as the
    /// row's parser expands it, `--expr` for `--expression`): for a short
    /// word, its last letter read, the one whose value the word carries
    /// (`e` of `-ne SCRIPT`, not `n`).
    pub(crate) fn is(&self, short: char, long: &str) -> bool {
        if self.letters.is_empty() {
            !self.long.is_empty() && self.long == long
        } else {
            self.letters.ends_with(short)
        }
    }
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
        Self::read_with(program, args, extra, false)
    }

    /// [`read_args`](Self::read_args) as GNU `getopt` reads words by
    /// default: options anywhere up to `--`, even where `program`'s row says
    /// they end at the first operand (for a program some of whose versions
    /// permute their words and some do not: read both ways). Only the
    /// program's own rows are read: no word is taken as a subcommand.
    pub(crate) fn read_args_permuting(
        program: &'a str,
        args: &'a [String],
        extra: &'a [CommandOption],
    ) -> Self {
        Self::read_with(program, args, extra, true)
    }

    fn read_with(
        program: &'a str,
        args: &'a [String],
        extra: &'a [CommandOption],
        permute: bool,
    ) -> Self {
        let rows = Rows::of(program, extra);
        let clusters = rows.clusters();
        let parser = rows.parser();
        let stops_at_operand = !permute && rows.options_at() == Options::BeforeOperands;
        // Room for every option word and every other word at once (the
        // lists are made once, not grown word by word).
        let option_words = args.iter().filter(|w| w.starts_with('-')).count();
        let mut out = Self {
            program,
            options: Vec::with_capacity(option_words),
            operands: Vec::with_capacity(args.len() - option_words),
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
                if !permute && out.subcommand.is_none() && (!options_done || stops_at_operand) {
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
