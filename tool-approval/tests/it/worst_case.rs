//! Pathological inputs (issue 17 §4): each gets its correct decision or a
//! named `limits/…` finding that asks (is blocked in headless), never `run`.
//! The inputs are built here and only evaluated; how long they take is
//! measured by the `approval_worst_case` bench group, not asserted here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use tool_approval::{Action, ApprovalMode, Decision, Level, MAX_DIR_CHANGES, MAX_LINE_PARTS};

fn decide(mode: ApprovalMode, command: &str) -> Decision {
    common::run_command(&common::engine(mode), command)
}

/// Asks under the limit `id` in manual mode and is blocked in headless.
fn assert_limit(command: &str, id: &str) {
    let d = decide(ApprovalMode::Manual, command);
    assert_eq!(
        (d.action, d.reason.level, d.reason.rule.as_deref()),
        (Action::Ask, Level::Limits, Some(id)),
        "{:.80}: {d:?}",
        command
    );
    let d = decide(ApprovalMode::Headless, command);
    assert_eq!(d.action, Action::Block, "{:.80}: {d:?}", command);
}

#[test]
fn a_long_chain_of_directory_changes_names_the_dir_chain_limit() {
    for step in ["cd a && ", "pushd a && ", "cd a; "] {
        assert_limit(&format!("{}ls", step.repeat(100)), "limits/dir-chain");
    }
    // Up to the bound, the directory is followed as before.
    let d = decide(
        ApprovalMode::Manual,
        &format!("{}ls", "cd a && ".repeat(MAX_DIR_CHANGES)),
    );
    assert_ne!(d.reason.rule.as_deref(), Some("limits/dir-chain"), "{d:?}");
}

#[test]
fn a_secret_read_after_a_long_directory_chain_is_still_found() {
    // Past the bound the directory is unknown: the relative name is looked
    // for in every sensitive directory, so the read is still seen (a sure
    // audit finding wins over the limit; both ask). Past `MAX_LINE_PARTS`
    // (16 370 steps) the read is not reached and the limit asks.
    for n in [100, 1600, 16_370] {
        let command = format!("{}cat credentials", "cd a && ".repeat(n));
        let d = decide(ApprovalMode::Manual, &command);
        assert_eq!(d.action, Action::Ask, "{n}: {d:?}");
        assert_ne!(d.reason.level, Level::HostPolicy, "{n}: {d:?}");
        let d = decide(ApprovalMode::Headless, &command);
        assert_eq!(d.action, Action::Block, "{n}: {d:?}");
    }
}

#[test]
fn a_pipeline_too_long_for_the_grammar_names_the_pipeline_limit() {
    for command in [
        format!("{} (", "a | ".repeat(2048)),
        format!("{} (", "a | ".repeat(4000)),
        format!("{} )", "a | ".repeat(4096)),
        format!("( {}a", "a | ".repeat(4096)),
        format!("{} (", format!("{}a; ", "a | ".repeat(250)).repeat(15)),
    ] {
        assert_limit(&command, "limits/pipeline-length");
    }
    // Longer still, a plain prefix of more than `MAX_LINE_PARTS` stages
    // names the part bound first.
    assert_limit(&format!("{} (", "a | ".repeat(16_384)), "limits/part-count");
    // A denied command inside one is still seen in the recovered parts.
    let d = decide(
        ApprovalMode::Manual,
        &format!("{}git push", "ls | ".repeat(300)),
    );
    assert_eq!(d.action, Action::Block, "{d:?}");
    // Short pipelines are read by the grammar as before, and plain ones
    // of any length by the fast path (no grammar, no limit).
    for command in [
        vec!["ls"; 100].join(" | "),
        format!("ls{}", " | ls".repeat(4000)),
        format!("{}ls", "cat|".repeat(4000)),
    ] {
        let d = decide(ApprovalMode::Manual, &command);
        assert_ne!(d.reason.level, Level::Limits, "{d:?}");
    }
}

#[test]
fn brace_expansion_pays_for_its_work_before_expanding() {
    // Millions of (empty) words: the expansion's work runs out first.
    for command in [
        "{,}".repeat(16),
        "{,}".repeat(20),
        format!("ls {}", "{,}".repeat(20)),
        format!("x{}=1", "{,}".repeat(20)),
        format!("echo {}", "{a,b}".repeat(21_800)),
    ] {
        assert_limit(&command, "limits/step-budget");
    }
    // Ordinary expansions are still read: the denied spelling is found.
    let d = decide(ApprovalMode::Manual, "git pu{sh,ll} origin");
    assert_eq!(d.action, Action::Block, "{d:?}");
}

#[test]
fn a_long_word_full_of_slashes_is_read_without_a_lookup_per_prefix() {
    // `s/a/b/;…` looks like a path; below its first missing entry nothing
    // is looked up. The decision is the one the program's reading gives.
    let command = format!("sed '{}' f", "s/a/b/;".repeat(16_380));
    let long = decide(ApprovalMode::Manual, &command);
    let short = decide(ApprovalMode::Manual, "sed 's/a/b/;s/a/b/;' f");
    assert_eq!(
        (long.action, &long.reason.rule),
        (short.action, &short.reason.rule),
        "{long:?}"
    );
}

#[test]
fn long_plain_lines_are_read_whole_up_to_the_part_bound() {
    // Plain lines take the fast path: a denied part among thousands is
    // found, an allowed chain runs.
    let chain = vec!["git status"; MAX_LINE_PARTS].join(" && ");
    assert!(chain.len() > 50_000);
    let d = decide(ApprovalMode::Manual, &chain);
    assert_eq!(d.action, Action::Run, "{d:?}");
    let d = decide(ApprovalMode::Manual, &format!("git push; {chain}"));
    assert_eq!(d.action, Action::Block, "{d:?}");
    // Past the bound the rest is not read: the line asks, naming it.
    assert_limit(&format!("{chain}; git push"), "limits/part-count");
    for command in [
        "ls; ".repeat(32_750),
        format!("ls{}", " | ls".repeat(26_200)),
        format!("bash -c '{}'", "ls; ".repeat(26_200)),
    ] {
        assert_limit(&command, "limits/part-count");
    }
}

#[test]
fn a_long_line_that_needs_the_grammar_names_the_step_budget() {
    for command in [
        format!("cat <<EOF\n{}EOF", "$(ls) x\n".repeat(12_900)),
        format!("git p''u{}sh", "''".repeat(65_480)),
        format!("echo \"{}\"", "$HOME ".repeat(20_000)),
    ] {
        assert_limit(&command, "limits/step-budget");
    }
    // Below the grammar's budget such lines are read whole: the denied
    // command is found.
    let quoted = format!("echo \"{}\" && git push", "$HOME ".repeat(500));
    let d = decide(ApprovalMode::Manual, &quoted);
    assert_eq!(d.action, Action::Block, "{d:?}");
}

#[test]
fn many_git_alias_definitions_name_the_alias_limit() {
    // More definitions than are expanded: the alias limit.
    let line = format!("git {} a0", "-c alias.aI='!git aI+1' ".repeat(100));
    assert_limit(&line, "limits/alias-chain");
    // Thousands of them are more text than the grammar reads in its
    // budget: the line is not read further, which is a limit too.
    let line = format!("git {} a0", "-c alias.aI='!git aI+1' ".repeat(3000));
    assert_limit(&line, "limits/step-budget");
    // A handful still expands: the deny rule sees the push behind two aliases.
    let few = "git -c alias.a=b -c alias.b=push a";
    let decision = decide(ApprovalMode::Manual, few);
    assert_eq!(decision.action, Action::Block, "{decision:?}");
}

#[test]
fn the_issue_36_families_are_decided_without_running() {
    // The families of issue 36 §7 (timed by the `approval_worst_case`
    // bench group and `examples/worst_probe.rs`): each is stopped where a
    // person is present; the secret reads, removals and deny rules also
    // where nobody is (an unknown option there runs confined).
    for (command, stopped_headless) in [
        (format!("rm -rf {}/ /", "{a,b}".repeat(20)), true),
        (format!("rm -rf {}/", "{a,b}".repeat(24)), true),
        (
            format!("git log -p -- {}", "':(glob)**/.env' ".repeat(3001)),
            true,
        ),
        (format!("sort {}notes.txt", "--outp=x ".repeat(8000)), false),
        ("ls x; echo $((_)); ".repeat(4000), true),
        (format!("{}git push", "frobnicate ".repeat(3)), true),
        // Closed rows read long options by unique prefix: each ambiguous
        // or abbreviated option is looked up among every name of its rows.
        (format!("git log {}-p", "--no-a ".repeat(8000)), false),
        (format!("npm test {}x", "--sil ".repeat(8000)), false),
        (format!("xargs {}rm -rf /", "--max-c 1 ".repeat(8000)), true),
    ] {
        let d = decide(ApprovalMode::Manual, &command);
        assert_ne!(d.action, Action::Run, "{:.80}: {d:?}", command);
        let d = decide(ApprovalMode::Headless, &command);
        assert_eq!(
            d.action != Action::Run,
            stopped_headless,
            "{:.80}: {d:?}",
            command
        );
    }
    // A brace product past the bound is judged whole (its count is known
    // before any target is made): precious, asks.
    let d = decide(
        ApprovalMode::AutoRun,
        &format!("rm -rf {}/", "{a,b}".repeat(24)),
    );
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
}
