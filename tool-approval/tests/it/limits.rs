//! Limits are generous enough for real work, and a limit or a parse failure
//! names itself (`limits/…`) and asks instead of blocking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use tool_approval::{Action, ApprovalMode, Level};

#[test]
fn a_thousand_part_chain_is_analysed_and_approved() {
    let engine = common::engine(ApprovalMode::Manual);
    let chain = vec!["git status"; 1000].join(" && ");
    let d = common::run_command(&engine, &chain);
    assert_eq!(
        (d.action, d.reason.level),
        (Action::Run, Level::HostPolicy),
        "{d:?}"
    );
    // One bad part among a thousand is still found.
    let bad = format!("{chain} && git push");
    let d = common::run_command(&engine, &bad);
    assert_eq!(d.action, Action::Block, "{:?}", d.reason);
}

#[test]
fn a_hundred_kilobyte_argument_is_analysed() {
    let engine = common::engine(ApprovalMode::Manual);
    let text = format!("echo {}", "word ".repeat(20_000));
    assert!(text.len() > 100_000);
    let d = common::run_command(&engine, &text);
    assert_eq!(d.action, Action::Run, "{:?}", d.reason);
    let d = common::run_command(&engine, &format!("{text}; rm -rf /"));
    assert_eq!(
        (d.action, d.reason.level),
        (Action::Ask, Level::GlobalAudit)
    );
}

#[test]
fn text_that_does_not_parse_asks_naming_the_parse_failure() {
    let engine = common::engine(ApprovalMode::Manual);
    for text in ["echo remember to git push )", "ls && ( git push"] {
        let d = common::run_command(&engine, text);
        assert_eq!(d.action, Action::Ask, "{text}: {d:?}");
        assert_eq!(d.reason.level, Level::Limits, "{text}: {d:?}");
        assert_eq!(
            d.reason.rule.as_deref(),
            Some("limits/unparsed-text"),
            "{text}"
        );
        assert!(d.reason.message.contains("git push:*"), "{text}: {d:?}");
    }
    // Bash runs nothing of a line that does not parse: even a deny rule
    // that the salvaged text plainly matches asks, naming the failure.
    let d = common::run_command(&engine, "git push && ( echo");
    assert_eq!(
        (d.action, d.reason.level),
        (Action::Ask, Level::Limits),
        "{d:?}"
    );
    // Text that parses is judged surely.
    let d = common::run_command(&engine, "echo hi && git push");
    assert_eq!(d.action, Action::Block, "{d:?}");
}

#[test]
fn deep_nesting_asks_naming_the_limit_in_every_mode_but_headless() {
    let deep = format!("{}ls{}", "(".repeat(300), ")".repeat(300));
    for mode in [
        ApprovalMode::Manual,
        ApprovalMode::AutoRun,
        ApprovalMode::Headless,
    ] {
        let d = common::run_command(&common::engine(mode), &deep);
        let want = if mode == ApprovalMode::Headless {
            Action::Block
        } else {
            Action::Ask
        };
        assert_eq!(d.action, want, "{mode:?}: {d:?}");
        assert_eq!(d.reason.rule.as_deref(), Some("limits/too-deep"));
    }
}

/// Text that does not parse cannot be checked against the blacklist with
/// certainty, so no mode runs it: auto-run and allow-list ask, headless
/// blocks. (Found by the property test: `git status && > $( && /a` ran in
/// auto-run while the unprefixed text asked.)
#[test]
fn text_that_does_not_parse_never_runs_in_any_mode() {
    let texts = [
        "git status && > $( && /a",
        "git status; echo )",
        "ls -la\nfor x in",
        "echo 'unterminated",
        "cat <(",
    ];
    for mode in [
        ApprovalMode::Manual,
        ApprovalMode::AutoRun,
        ApprovalMode::AllowList,
        ApprovalMode::Headless,
    ] {
        let engine = common::engine(mode);
        for text in texts {
            let d = common::run_command(&engine, text);
            assert_ne!(d.action, Action::Run, "{mode:?}: `{text}` {d:?}");
            if mode == ApprovalMode::Headless {
                assert_eq!(d.action, Action::Block, "`{text}` {d:?}");
            }
            assert_eq!(d.reason.level, Level::Limits, "{mode:?}: `{text}` {d:?}");
        }
        // The same work, well formed, is judged by the policy as usual.
        let d = common::run_command(&engine, "git status && echo ok");
        if mode != ApprovalMode::Headless {
            assert_ne!(d.reason.level, Level::Limits, "{mode:?}: {d:?}");
        }
    }
}

/// Commands found inside programs (sed's `e`, a one-liner's `system(…)`)
/// are parsed within the line's budget; past it, the rest cannot be judged,
/// which is a limit that asks in every mode, and a huge program is read in
/// bounded time.
#[test]
fn commands_inside_programs_are_read_within_a_budget() {
    let many_sed: String = (0..100).map(|i| format!("{i}e ls -{i}\n")).collect();
    let many_perl: String = (0..100).map(|i| format!("system(\"ls -{i}\");")).collect();
    for command in [
        format!("sed '{many_sed}' README.md"),
        format!("perl -e '{many_perl}'"),
    ] {
        for mode in [ApprovalMode::Manual, ApprovalMode::AutoRun] {
            let d = common::run_command(&common::engine(mode), &command);
            assert_eq!(d.action, Action::Ask, "{mode:?}: {d:?}");
            assert_eq!(
                d.reason.rule.as_deref(),
                Some("limits/script-count"),
                "{d:?}"
            );
        }
    }
    // Within the budget, every command is judged.
    let few: String = (0..10).map(|i| format!("{i}e ls -{i}\n")).collect();
    let d = common::run_command(
        &common::engine(ApprovalMode::AutoRun),
        &format!("sed '{few}1e rm -rf /' README.md"),
    );
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
    // Scans of unterminated literals stay bounded (not asserted on time:
    // this must simply finish, and read nothing that is not there).
    for command in [
        format!("perl -e '{}'", "qx{ ".repeat(20_000)),
        format!("python3 -c '{}'", "system(\"run(\", ".repeat(5_000)),
        format!("awk '{}'", "print | \"a\" ".repeat(8_000)),
        format!("sed '{}'", "s/[[:a/".repeat(10_000)),
    ] {
        let d = common::run_command(&common::engine(ApprovalMode::AutoRun), &command);
        assert_ne!(d.action, Action::Block, "{d:?}");
    }
}

/// Constructs that multiply the work (`watch` runs its arguments as a
/// script, and each `watch` inside is a wrapper too; a wrapper stacked
/// thousands deep copies the line once per level) end in a named limit
/// that asks, never in `run`; the approval bench times them.
#[test]
fn multiplying_constructs_end_in_a_named_limit_that_asks() {
    let cases = [
        format!("{}ls", "watch ".repeat(64)),
        format!("{}ls", "watch ".repeat(4096)),
        format!("{}ls", "sudo ".repeat(16_384)),
        format!("{}ls", "xargs ".repeat(16_384)),
        format!("{}ls", "ssh h ".repeat(4096)),
    ];
    for mode in [ApprovalMode::Manual, ApprovalMode::AutoRun] {
        let engine = common::engine(mode);
        for text in &cases {
            let d = common::run_command(&engine, text);
            let shown = text.get(..24).unwrap_or(text);
            assert_eq!(d.action, Action::Ask, "{mode:?}: `{shown}…` {d:?}");
            assert_eq!(d.reason.level, Level::Limits, "{mode:?}: `{shown}…` {d:?}");
            let rule = d.reason.rule.as_deref().unwrap_or_default();
            assert!(
                [
                    "limits/too-deep",
                    "limits/wrapper-chain",
                    "limits/step-budget"
                ]
                .contains(&rule),
                "{mode:?}: `{shown}…` {d:?}"
            );
        }
    }
    // A short stack is read through, and judged as what it runs.
    let d = common::run_command(
        &common::engine(ApprovalMode::AutoRun),
        "watch watch rm -rf /",
    );
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
}

/// Issue 17 §2: every limit reached is a named `limits/…` finding; none
/// lets the call fall through to a lower rule. Each case below reaches one
/// bound with something dangerous past it, in auto-run mode (where a call
/// that falls through would run).
fn asks_under(d: &tool_approval::Decision, id: &str) {
    assert_ne!(d.action, Action::Run, "{d:?}");
    assert_eq!(d.reason.level, Level::Limits, "{d:?}");
    assert_eq!(d.reason.rule.as_deref(), Some(id), "{d:?}");
}

#[test]
fn arguments_nested_past_the_search_depth_are_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let manifest = common::local_system();
    let mut args = serde_json::json!({ "command": "rm -rf ~" });
    for _ in 0..40 {
        args = serde_json::json!({ "wrapped": args });
    }
    let d = common::decide(
        &engine,
        &manifest,
        "runCommand",
        &serde_json::json!({ "command": "ls", "options": args }),
        &tool_core::ToolContext::new(),
    );
    asks_under(&d, "limits/too-deep");
    assert!(d.reason.message.contains("/options/wrapped"), "{d:?}");
    // Nesting within the bound is searched as before.
    let d = common::decide(
        &engine,
        &manifest,
        "runCommand",
        &serde_json::json!({ "command": "ls", "options": {"a": {"b": "x"}} }),
        &tool_core::ToolContext::new(),
    );
    assert_eq!(d.action, Action::Run, "{d:?}");
}

#[test]
fn links_past_the_followed_count_are_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let mut line: Vec<String> = (0..20).map(|i| format!("ln -s /tmp/t{i} l{i}")).collect();
    line.push("ln -s / last".into());
    line.push("rm -rf last/*".into());
    let d = common::run_command(&engine, &line.join(" && "));
    asks_under(&d, "limits/link-chain");
    // Within the bound the link is followed and the removal found.
    let d = common::run_command(&engine, "ln -s / r && rm -rf r/*");
    assert_eq!(d.reason.level, Level::GlobalAudit, "{d:?}");
}

#[test]
fn git_alias_chains_past_the_expanded_length_are_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let mut line = vec!["git".to_owned()];
    for i in 0..12 {
        line.push("-c".into());
        line.push(format!("alias.a{i}=a{}", i + 1));
    }
    line.push("-c".into());
    line.push("alias.a12=push".into());
    line.push("a0".into());
    let d = common::run_command(&engine, &line.join(" "));
    asks_under(&d, "limits/alias-chain");
    // A short chain is expanded and judged (`git push` is denied).
    let d = common::run_command(&engine, "git -c alias.a=b -c alias.b=push a");
    assert_eq!(d.action, Action::Block, "{d:?}");
}

#[test]
fn brace_expansion_past_its_bound_is_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let line = format!("echo {} && rm -rf ~", "{a,b}".repeat(30));
    let started = std::time::Instant::now();
    let d = common::run_command(&engine, &line);
    assert_ne!(d.action, Action::Run, "{d:?}");
    // The removal is still found on the line as written.
    let d2 = common::run_command(&engine, &format!("echo {}", "{a,b}".repeat(30)));
    asks_under(&d2, "limits/step-budget");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // Small expansions are read: `{rm,-rf,~}` is `rm -rf ~`.
    let d = common::run_command(&engine, "{rm,-rf,~}");
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
}

#[test]
fn a_computed_argument_that_could_spell_a_denied_word_is_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    for line in ["git $SUB origin", "git pu${X}sh", "git \"$(echo push)\""] {
        let d = common::run_command(&engine, line);
        asks_under(&d, "limits/computed-word");
    }
    // A computed word where the rule has none is not a limit.
    let d = common::run_command(&engine, "git commit -m \"$MSG\"");
    assert_ne!(d.reason.level, Level::Limits, "{d:?}");
}

#[test]
fn wrappers_stacked_past_the_unwrapped_depth_are_a_named_limit() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let d = common::run_command(&engine, &format!("{}rm -rf ~", "sudo ".repeat(100)));
    assert_ne!(d.action, Action::Run, "{d:?}");
    let d = common::run_command(&engine, &format!("{}ls", "sudo ".repeat(100)));
    asks_under(&d, "limits/wrapper-chain");
    // A short stack is looked through.
    let d = common::run_command(&engine, "sudo sudo rm -rf ~");
    assert_eq!(d.reason.level, Level::GlobalAudit, "{d:?}");
}

#[test]
fn a_salvaged_reading_cut_short_is_a_named_limit() {
    // An escaped space is read two ways; each word of each reading may
    // start a command, up to 32 starts.
    let engine = common::engine(ApprovalMode::AutoRun);
    let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let d = common::run_command(&engine, &format!("echo a\\ b {}", words.join(" ")));
    asks_under(&d, "limits/part-count");
    let d = common::run_command(&engine, "echo a\\ b w1 w2");
    assert_ne!(d.reason.level, Level::Limits, "{d:?}");
}

#[test]
fn scripts_nested_past_the_read_depth_are_too_deep() {
    let engine = common::engine(ApprovalMode::AutoRun);
    let d = common::run_command(&engine, "bash -c \"bash -c 'bash -c \\\"bash -c ls\\\"'\"");
    asks_under(&d, "limits/too-deep");
}
