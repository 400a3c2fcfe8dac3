//! A host extends or trims the engine's knowledge: its own wrappers and
//! command options (the shell syntax table), and blacklist entries it
//! removes. These need custom engines, so they are code, not corpus lines
//! (see `tests/it/corpus.rs`). Every string here is only evaluated, never
//! executed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use tool_approval::{
    Action, ApprovalMode, Blacklist, CommandOption, Effect, OptionValue, PolicyEngine, ShellSyntax,
};

fn fixture_engine(mode: ApprovalMode) -> PolicyEngine {
    common::engine(mode)
}

#[test]
fn hosts_extend_the_wrapper_and_option_tables() {
    let syntax = ShellSyntax::new()
        .with_wrapper("with-vpn", &["--profile"], 0)
        .with_wrapper("in-container", &[], 1)
        .with_option(
            CommandOption::new(
                "deploy",
                &["--hook"],
                OptionValue::Required,
                Effect::RunsCode,
            )
            .subcommand("run"),
        )
        .with_option(CommandOption::new(
            "cargo",
            &["--runner-script"],
            OptionValue::Required,
            Effect::ChangesConfig,
        ))
        .with_option(CommandOption::valued("cargo", &["--shard"]).subcommand("test"));
    let engine = |mode| {
        PolicyEngine::builder()
            .policy_file(&common::policy_file())
            .mode(mode)
            .shell_syntax(syntax.clone())
            .build()
            .unwrap()
    };
    let manual = engine(ApprovalMode::Manual);
    let auto = engine(ApprovalMode::AutoRun);
    let plain_manual = fixture_engine(ApprovalMode::Manual);
    // With the host's table the deny rule sees what they run; without it,
    // an unknown word before a known program is read both ways (issue 36
    // §3), so they are blocked too.
    for command in [
        "with-vpn --profile work git push",
        "with-vpn in-container box git push origin",
        "with-vpn bash -c 'git push'",
    ] {
        for engine in [&plain_manual, &manual] {
            let d = common::run_command(engine, command);
            assert_eq!(d.action, Action::Block, "{command}: {d:?}");
        }
    }
    // `xargs` and inline programs behind a host wrapper are read too.
    for command in [
        "echo / | with-vpn xargs rm -rf",
        "with-vpn in-container box sed '1e rm -rf /' README.md",
        "with-vpn awk 'BEGIN { system(\"rm -rf ~\") }'",
    ] {
        let d = common::run_command(&auto, command);
        assert_eq!(
            d.reason.rule.as_deref(),
            Some("blacklist/rm-recursive-root"),
            "{command}: {d:?}"
        );
    }
    for command in [
        "echo push | with-vpn xargs git",
        "cat list | in-container box xargs sh",
    ] {
        let d = common::run_command(&manual, command);
        assert_eq!(d.action, Action::Ask, "{command}: {d:?}");
        assert_eq!(
            d.reason.rule.as_deref(),
            Some("limits/unread-script"),
            "{command}: {d:?}"
        );
    }
    let d = common::run_command(&auto, "deploy run --hook 'rm -rf /'");
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
    assert_ne!(d.action, Action::Run);
    assert_eq!(
        common::run_command(&auto, "deploy list --hook 'rm -rf /'").action,
        Action::Run,
        "only after the subcommand the host named"
    );
    // cargo's rows are closed: an option they do not list is unknown, so
    // the prefix rule does not approve it; the host's row makes it known,
    // and its effect still stops the prefix rule.
    let d = common::run_command(&plain_manual, "cargo test --runner-script x");
    assert_eq!(
        (d.action, d.reason.rule.as_deref()),
        (Action::Ask, Some("limits/unknown-option")),
        "{d:?}"
    );
    let d = common::run_command(&manual, "cargo test --runner-script x");
    assert_eq!(d.action, Action::Ask, "{d:?}");
    assert_ne!(d.reason.rule.as_deref(), Some("limits/unknown-option"));
    // A host's option without an effect is one the prefix rule approves.
    assert_eq!(
        common::run_command(&plain_manual, "cargo test --shard 1").action,
        Action::Ask
    );
    assert_eq!(
        common::run_command(&manual, "cargo test --shard 1").action,
        Action::Run
    );
    assert_eq!(
        common::run_command(&manual, "cargo test -p x").action,
        Action::Run
    );
}

#[test]
fn a_host_that_trusts_its_workspace_hooks_removes_the_entry() {
    let engine = PolicyEngine::builder()
        .policy_file(&common::policy_file())
        .mode(ApprovalMode::AutoRun)
        .blacklist(Some(Blacklist::builtin().without("code-execution-file")))
        .build()
        .unwrap();
    let d = common::run_command(&engine, "cp hook .git/hooks/pre-commit");
    assert_eq!(d.action, Action::Run, "{d:?}");
    // The fixture engine, with the entry, stops the same write.
    let d = common::run_command(
        &fixture_engine(ApprovalMode::AutoRun),
        "cp hook .git/hooks/pre-commit",
    );
    assert_ne!(d.action, Action::Run, "{d:?}");
}

#[test]
fn a_policy_file_row_of_the_program_table_reads_like_a_built_in_one() {
    let file = tool_approval::PolicyFile::from_json(
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "git push:*"}, "policy": "deny"},
            {"match": {"command": "mailer:*"}, "policy": "never"},
            {"policy": "required"}]},
          "shell": {"options": [
            {"program": "mailer", "subcommand": "send", "names": ["--via"], "effect": "runsCode"},
            {"program": "mailer", "names": ["--plugin"], "effect": "loadsCode"}]}}"#,
    )
    .unwrap();
    let engine = PolicyEngine::builder()
        .policy_file(&file)
        .mode(ApprovalMode::Manual)
        .build()
        .unwrap();
    let action = |command: &str| common::run_command(&engine, command).action;
    // The value of a runsCode option is read as a command: the deny rule sees it.
    assert_eq!(action("mailer send --via 'git push' x"), Action::Block);
    assert_eq!(action("mailer send --via='git push' x"), Action::Block);
    // Another subcommand's `--via` is not the row's.
    assert_eq!(action("mailer list --via x"), Action::Run);
    // Code loaded by option: no prefix rule approves it.
    assert_eq!(action("mailer --plugin ./p.so send x"), Action::Ask);
    assert_eq!(action("mailer send x"), Action::Run);
    // A host's option that only takes a value: the word after it is not
    // the subcommand, so `send`'s row applies.
    let file = tool_approval::PolicyFile::from_json(
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "git push:*"}, "policy": "deny"}, {"policy": "required"}]},
          "shell": {"options": [
            {"program": "mailer", "subcommand": "send", "names": ["--via"], "effect": "runsCode"},
            {"program": "mailer", "names": ["--profile"], "effect": "none"}]}}"#,
    )
    .unwrap();
    let engine = PolicyEngine::builder()
        .policy_file(&file)
        .mode(ApprovalMode::Manual)
        .build()
        .unwrap();
    let d = common::run_command(&engine, "mailer --profile work send --via 'git push' x");
    assert_eq!(d.action, Action::Block, "{d:?}");
    // An effect the table does not know is an error at its pointer.
    let e = tool_approval::PolicyFile::from_json(
        r#"{"shell": {"options": [{"program": "m", "names": ["--x"], "effect": "explodes"}]}}"#,
    )
    .unwrap_err();
    assert_eq!(e.pointer(), Some("/shell/options/0/effect"));
}
