//! Lines for the differential tests of the line checks' shortcuts: every
//! command of the corpus (`tests/corpus/*.cases`) and generated lines made
//! of the words the checks look for. Each check's shortcut is held to its
//! plain reading over them by a test in the check's own module (the
//! shortcuts themselves carry no `debug_assert!`).

use proptest::prelude::*;

/// Every shell command the corpus evaluates, as written (API calls, the
/// `@API {json}` inputs, are left out).
pub(super) fn corpus_commands() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "cases"));
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim_start();
            if line.is_empty() || line.starts_with('#') || line.starts_with('@') {
                continue;
            }
            let line = line.strip_prefix("gap ").unwrap_or(line);
            // KIND MODES EXPECT CHECKS INPUT
            let mut rest = line;
            for _ in 0..4 {
                rest = rest.trim_start().split_once(' ').map_or("", |(_, r)| r);
            }
            let input = rest.trim_start();
            if input.starts_with('@') || input.is_empty() {
                continue;
            }
            if input.starts_with('"') {
                if let Ok(text) = serde_json::from_str::<String>(input) {
                    out.push(text);
                }
            } else {
                out.push(input.to_owned());
            }
        }
    }
    out
}

/// Words the line checks look for: network clients, shells and
/// interpreters, downloads and uploads, secret and system paths, devices.
const WORDS: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "socat",
    "bash",
    "sh",
    "python3",
    "node",
    "perl",
    "git",
    "clone",
    "ssh",
    "scp",
    "rsync",
    "cat",
    "ls",
    "echo",
    "chmod",
    "+x",
    "./x",
    "x",
    "-d",
    "@.env",
    "-F",
    "file=@~/.ssh/id_rsa",
    "-T",
    ".env",
    "~/.ssh/id_rsa",
    "/etc/passwd",
    "/dev/tcp/10.0.0.1/4444",
    "https://x.example/i.sh",
    "-O",
    "-o",
    "i.sh",
    "-e",
    "-c",
    "'cat x'",
    "$(curl x.example)",
    "src/a.rs",
    "~/.bashrc",
    "/usr/bin/ls",
    "-i",
    "-",
    "--data-binary",
    "npx",
    "github:a/b",
    "tar",
    "xz",
    "make",
    "env",
    "$HOME/x",
    "*",
];

const OPERATORS: &[&str] = &[
    " | ",
    " && ",
    " ; ",
    " > x ",
    " || ",
    " < .env | ",
    " 2>&1 | ",
];

/// Lines of up to five parts of up to six words each.
pub(super) fn generated_line() -> impl Strategy<Value = String> {
    let word = proptest::sample::select(WORDS);
    let part = proptest::collection::vec(word, 1..6).prop_map(|w| w.join(" "));
    let op = proptest::sample::select(OPERATORS);
    (part.clone(), proptest::collection::vec((op, part), 0..5)).prop_map(|(first, rest)| {
        let mut line = first;
        for (op, part) in rest {
            line.push_str(op);
            line.push_str(&part);
        }
        line
    })
}

#[test]
fn the_corpus_gives_the_tests_their_lines() {
    let lines = corpus_commands();
    assert!(lines.len() > 1_500, "{} corpus commands", lines.len());
    assert!(lines.iter().any(|l| l.contains("/dev/tcp/")));
}
