//! Rows of the program table for programs that run a command given after
//! their own options: `xargs`. Its options end at the first operand
//! ([`Options::BeforeOperands`], getopt's `+` mode); the rest is the
//! command, which `shell::wrappers` reads through this row (where the
//! command starts) and judges as a command of its own (its program's row
//! decides its options). The row is closed: an option of xargs it does not
//! list is unknown (`limits/unknown-option`).
//!
//! GNU xargs reads long options with `getopt_long` (unique prefixes:
//! `--max-c 10` is `--max-chars 10`), clusters short ones, and takes the
//! optional values of `-e`, `-i` and `-l` attached only.

use super::{Effect, Opt, OptionValue, Options, Parser, Row, opt, program, valued};

use Effect::ReadsFile;
use OptionValue::{Attached, Flag, Required};

/// Options that take no value and do nothing the engine judges.
const fn flags(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Flag,
        effect: None,
    }
}

/// Options whose value is optional and only attached (`-i{}`, `--eof=END`).
const fn attached(names: &'static [&'static str]) -> Opt {
    Opt {
        names,
        value: Attached,
        effect: None,
    }
}

/// The rows (see the module docs).
pub(crate) const ROWS: &[Row] = &[Row {
    options_at: Options::BeforeOperands,
    parser: Parser::UniquePrefix,
    closed: true,
    ..program(
        &["xargs"],
        true,
        &[
            flags(&[
                "-0",
                "--null",
                "-o",
                "--open-tty",
                "-p",
                "--interactive",
                "-r",
                "--no-run-if-empty",
                "--show-limits",
                "-t",
                "--verbose",
                "-x",
                "--exit",
                "--help",
                "--version",
            ]),
            attached(&["-e", "--eof", "-i", "--replace", "-l", "--max-lines"]),
            valued(&[
                "-d",
                "--delimiter",
                "-E",
                "-I",
                "-L",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
                "--process-slot-var",
            ]),
            // The words come from this file instead of standard input.
            opt(&["-a", "--arg-file"], Required, ReadsFile),
        ],
    )
}];

/// Where the command an `xargs` (a program with a row whose options end at
/// the first operand) runs starts among `args`, the words after the command
/// word: the first operand, read through the program table; `None` for a
/// program without such a row. `Some(args.len())` when there is no command.
pub(crate) fn command_at(program: &str, args: &[String]) -> Option<usize> {
    if !ROWS.iter().any(|r| r.programs.contains(&program)) {
        return None;
    }
    let inv = super::Invocation::read_args(program, args, &[]);
    Some(inv.subcommand_at.unwrap_or(args.len()))
}

#[cfg(test)]
use super::row_examples::Reads;

/// The rows' examples: a line, how xargs's options read, and the command
/// it runs.
#[cfg(test)]
const EXAMPLES: &[(&str, Reads, &str)] = &[
    ("xargs grep -n TODO", Reads::Harmless, "grep -n TODO"),
    (
        "xargs -0 -n1 grep -r --frobnicate x",
        Reads::Harmless,
        "grep -r --frobnicate x",
    ),
    ("xargs -I{} cp {} dst/", Reads::Harmless, "cp {} dst/"),
    ("xargs -i{} echo {}", Reads::Harmless, "echo {}"),
    ("xargs -i echo {}", Reads::Harmless, "echo {}"),
    (
        "xargs --max-chars 100 rm -rf x",
        Reads::Harmless,
        "rm -rf x",
    ),
    ("xargs --max-c 100 rm -rf x", Reads::Harmless, "rm -rf x"),
    ("xargs --max-ch=100 rm -rf x", Reads::Harmless, "rm -rf x"),
    ("xargs -s100 -P4 rm x", Reads::Harmless, "rm x"),
    ("xargs -0rtn 1 echo", Reads::Harmless, "echo"),
    ("xargs -- -x", Reads::Harmless, "-x"),
    ("xargs -a list.txt echo", Reads::Does(ReadsFile), "echo"),
    ("xargs --frobnicate echo", Reads::Unknown, "echo"),
    ("xargs --max echo", Reads::Unknown, "echo"),
    ("xargs", Reads::Harmless, ""),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::table::Invocation;

    fn reads(line: &str) -> (Reads, String) {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let inv = Invocation::read(&words, &[]);
        let reads = if let Some(effect) = inv.options.iter().find_map(|o| o.effect) {
            Reads::Does(effect)
        } else if inv.unknown.is_some() {
            Reads::Unknown
        } else {
            Reads::Harmless
        };
        let args = words.get(1..).unwrap_or_default();
        let at = command_at("xargs", args).unwrap_or_default();
        (reads, args.get(at..).unwrap_or_default().join(" "))
    }

    #[test]
    fn every_example_reads_as_its_row_says() {
        let wrong: Vec<String> = EXAMPLES
            .iter()
            .filter(|(line, want, command)| reads(line) != (*want, (*command).to_owned()))
            .map(|(line, want, command)| {
                format!("{line}: want {want:?} `{command}`, read {:?}", reads(line))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn a_program_without_such_a_row_has_no_command_position() {
        assert_eq!(command_at("sort", &["-u".to_owned()]), None);
    }
}
