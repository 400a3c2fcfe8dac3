//! Criterion benches of the tool-layer crates; see `benches/`.

// The README's code blocks compile and run as doc tests of this crate (it
// depends on every crate of the family).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// What the benches' instruction guards share: whether a guard runs under
/// criterion's command line, and whether callgrind is there to count.
pub mod guard {
    /// Whether a guard named `name` runs under the command line's filter (a
    /// criterion filter is a regex over the benchmark ids).
    pub fn selected(name: &str) -> bool {
        // Criterion's options without a value; every other `--option` takes
        // the next word (`--warm-up-time 1`), which is no filter.
        const FLAGS: &[&str] = &[
            "--bench",
            "--noplot",
            "--list",
            "--test",
            "--verbose",
            "--quiet",
            "--exact",
            "--ignored",
            "--discard-baseline",
            "--quick",
            "--nocapture",
            "--show-output",
            "-v",
            "-n",
        ];
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.iter().any(|a| a == "--list" || a == "--test") {
            return false;
        }
        let mut filters = Vec::new();
        let mut words = args.iter();
        while let Some(a) = words.next() {
            if a.starts_with('-') {
                if !FLAGS.contains(&a.as_str()) && !a.contains('=') {
                    words.next();
                }
            } else {
                filters.push(a);
            }
        }
        filters.is_empty()
            || filters
                .iter()
                .any(|f| regex::Regex::new(f).is_ok_and(|r| r.is_match(name)))
    }

    /// Whether `valgrind --version` runs.
    pub fn valgrind_runs() -> bool {
        std::process::Command::new("valgrind")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }
}
