//! Inputs that once crashed the process (tree-sitter-bash's external scanner
//! read out of bounds on `{` followed by a high code point), and the
//! property that no text of any content crashes or hangs the parser.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use proptest::prelude::*;
use tool_approval::{Action, ApprovalMode, Hazard, ShellCommand};

/// The inputs that killed the process with SIGSEGV before the ASCII shadow.
fn crashers() -> Vec<String> {
    let mut inputs = vec![
        "echo {\u{f0000}".to_owned(),
        "echo {\u{80000}".to_owned(),
        "echo {\u{10ffff}".to_owned(),
        "{\u{80000}".to_owned(),
        "{\u{fffff}}".to_owned(),
        "echo a{\u{e0100},b}".to_owned(),
        "bash -c 'echo {\u{f0000}'".to_owned(),
        "cat <<EOF\n{\u{f0000}\nEOF".to_owned(),
        "echo $( {\u{10fffd} )".to_owned(),
        "echo \"{\u{f0000}\" {\u{f0001} '{\u{f0002}'".to_owned(),
        "x=( {\u{90000} ) ; echo ${x}".to_owned(),
        "echo {\u{f0000}..\u{f0005}}".to_owned(),
    ];
    // Every plane above the one the scanner's table covered.
    for plane in 1..=16u32 {
        let c = char::from_u32(plane * 0x10000 + 0x41).unwrap();
        inputs.push(format!("echo {{{c}"));
    }
    inputs
}

#[test]
fn brace_before_a_high_code_point_does_not_crash_the_parser() {
    for input in crashers() {
        let parsed = ShellCommand::parse(&input);
        assert!(!parsed.parts().is_empty(), "{input:?}: {parsed:?}");
    }
}

#[test]
fn brace_before_a_high_code_point_does_not_crash_an_evaluation() {
    for mode in [ApprovalMode::Manual, ApprovalMode::Headless] {
        let engine = common::engine(mode);
        for input in crashers() {
            let _ = common::run_command(&engine, &input);
        }
    }
    // The text is harmless and `echo:*` approves it: the fix must not turn
    // every non-ASCII command into a question.
    let engine = common::engine(ApprovalMode::Manual);
    let d = common::run_command(&engine, "echo {\u{f0000}");
    assert_eq!(d.action, Action::Run, "{d:?}");
}

#[test]
fn non_ascii_words_are_read_from_the_original_text() {
    let cmd = ShellCommand::parse("echo héllo 'wörld' \"日本\" {\u{f0000}");
    assert_eq!(
        cmd.parts()[0].words,
        ["echo", "héllo", "wörld", "日本", "{\u{f0000}"]
    );
    let cmd = ShellCommand::parse("rm -rf /tmp/ünï && ls ✓");
    assert_eq!(cmd.parts()[0].words, ["rm", "-rf", "/tmp/ünï"]);
    assert_eq!(cmd.parts()[1].words, ["ls", "✓"]);
    // `$é` is literal to Bash; the shadow reads it as an expansion, which
    // is the cautious reading (never approvable as plain text).
    let cmd = ShellCommand::parse("é$é");
    assert!(cmd.hazards().contains(&Hazard::DynamicCommandWord));
}

#[test]
fn non_ascii_does_not_hide_a_blacklisted_command() {
    let engine = common::engine(ApprovalMode::AutoRun);
    for input in [
        "echo ✓ && rm -rf /",
        "echo {\u{f0000} ; rm -rf ~",
        "bash -c 'echo 日本; rm -rf /'",
    ] {
        let d = common::run_command(&engine, input);
        assert_eq!(d.action, Action::Ask, "{input:?}: {d:?}");
    }
}

fn high_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("$".to_owned()),
        Just("${".to_owned()),
        Just("<<".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just(" ".to_owned()),
        Just("echo".to_owned()),
        Just("\n".to_owned()),
        any::<char>().prop_map(String::from),
        (0x80000u32..=0x10ffff)
            .prop_filter_map("a scalar value", char::from_u32)
            .prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

proptest! {
    // `PROPTEST_CASES` raises the count for a long local run.
        #![proptest_config(ProptestConfig {
            // Seeds beside this file (`MODULE.proptest-regressions`): the
            // default would look beside the binary's `main.rs`, in
            // `tests/proptest-regressions/`.
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
            )),
            ..ProptestConfig::with_cases(
                std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
            )
        })]

    #[test]
    fn no_text_with_high_code_points_crashes(x in high_text()) {
        let parsed = ShellCommand::parse(&x);
        let _ = parsed.parts();
    }
}
