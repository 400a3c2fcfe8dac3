//! Code the engine does not read: a general-purpose interpreter given a
//! program inline (`python -c …`, `node -e …`), from a file
//! (`python build.py`) or on standard input (`python - <<EOF`, `… | ruby`).
//! The engine reads shell text (to the nesting and step budgets), sed and
//! awk programs (their commands and the files they write), and searches
//! one-liners of the languages below only for literal shell commands
//! (`os.system("…")`); what else such a program does is not read, so it is
//! [`Hazard::UnreadCode`](super::Hazard::UnreadCode): `limits/unread-code`
//! asks where a person is present and runs only confined when nobody is.

use super::words::basename;

/// Interpreters whose programs the engine does not read, as data: a name,
/// with any version suffix (`python3.12`, `ruby3`, `node22`).
const INTERPRETERS: &[&str] = &[
    "python",
    "pypy",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "rscript",
    "julia",
    "tclsh",
    "wish",
    "osascript",
    "pwsh",
    "powershell",
    "groovy",
    "jshell",
    "scala",
    "kotlin",
    "elixir",
    "erl",
    "escript",
    "guile",
    "racket",
    "sbcl",
    "ts-node",
    "tsx",
];

/// The names [`is_interpreter`] knows as written (lower case, no version).
pub(crate) fn interpreter_names() -> impl Iterator<Item = &'static str> {
    INTERPRETERS.iter().copied().filter(|n| n.len() <= 16)
}

/// Arguments that only print information: no program runs.
const INFO_ONLY: &[&str] = &["--version", "-V", "-v", "--help", "-h", "-version"];

/// Whether `name` (a basename) is one of [`INTERPRETERS`], version suffix
/// and case aside.
pub(crate) fn is_interpreter(name: &str) -> bool {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    // Looked up by its lower-cased spelling in a set built once (every
    // reading of every part asks); no interpreter's name is longer than 16.
    static NAMES: std::sync::OnceLock<crate::name_hash::NameMap<&'static str, ()>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| INTERPRETERS.iter().map(|i| (*i, ())).collect());
    // (No interpreter's name is empty: `0`, `12` need no lookup.)
    if stem.is_empty() || stem.len() > 16 {
        return false;
    }
    if !stem.bytes().any(|b| b.is_ascii_uppercase()) {
        // Most names are written in lower case already.
        return names.contains_key(stem);
    }
    let mut lower = [0u8; 16];
    let Some(buf) = lower.get_mut(..stem.len()) else {
        return false;
    };
    buf.copy_from_slice(stem.as_bytes());
    buf.make_ascii_lowercase();
    std::str::from_utf8(buf).is_ok_and(|key| names.contains_key(key))
}

/// Whether `view` (a command's words, wrappers removed) runs a program the
/// engine does not read: an interpreter with anything but information
/// options (no arguments at all reads the program from standard input).
pub(crate) fn runs_unread_code(view: &[String]) -> bool {
    let Some((first, args)) = view.split_first() else {
        return false;
    };
    // Information options only (no arguments at all is a program on
    // standard input), asked of interpreters only.
    is_interpreter(basename(first))
        && (args.is_empty() || !args.iter().all(|a| INFO_ONLY.contains(&a.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn interpreters_running_a_program_are_unread_code() {
        for line in [
            "python3 -c print(1)",
            "python3.12 build.py",
            "/usr/bin/node -e x",
            "ruby",
            "perl script.pl",
            "Rscript a.R",
            "deno run x.ts",
        ] {
            assert!(runs_unread_code(&words(line)), "{line}");
        }
    }

    #[test]
    fn interpreter_names_are_lower_case_and_short() {
        // `is_interpreter` looks names up lower-cased, in 16 bytes.
        for name in INTERPRETERS {
            assert_eq!(*name, name.to_ascii_lowercase());
            assert!(name.len() <= 16, "{name}");
            assert!(is_interpreter(name));
            assert!(is_interpreter(&name.to_ascii_uppercase()));
            assert!(is_interpreter(&format!("{name}3.12")));
        }
        assert!(!is_interpreter("pythonista"));
        assert!(!is_interpreter(""));
    }

    #[test]
    fn information_options_and_other_programs_are_not() {
        for line in [
            "python3 --version",
            "node -v",
            "ruby -h",
            "ls -la",
            "sed -n 1p f",
            "",
        ] {
            assert!(!runs_unread_code(&words(line)), "{line}");
        }
    }
}
