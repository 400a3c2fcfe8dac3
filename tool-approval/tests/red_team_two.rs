//! Round two of the red team: bypass classes and the plain work that must
//! keep running. Every string here is only evaluated, never executed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::json;
use tool_approval::{Action, ApprovalMode, Level};
use tool_core::ToolContext;

fn manual(command: &str) -> tool_approval::Decision {
    common::run_command(&common::engine(ApprovalMode::Manual), command)
}

#[test]
fn expansions_in_argument_words_may_be_a_blacklisted_path() {
    for command in [
        "echo b > /proc/sysrq-trigge$1r",
        "echo x >> /etc/pass$1wd",
        "cat /etc/sha${X}dow",
        "tee -a /etc/sudo$(printf e)rs",
        "cp x /etc/ld.so.pre$Zload",
    ] {
        let d = manual(command);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::GlobalAudit),
            "{command}: {d:?}"
        );
    }
}

#[test]
fn assignments_that_name_a_file_are_path_facts() {
    for command in [
        "GIT_TRACE=/etc/passwd git status",
        "GIT_TRACE=/etc/sha$1dow git status",
    ] {
        let d = manual(command);
        assert_eq!(d.reason.level, Level::GlobalAudit, "{command}: {d:?}");
        assert_ne!(d.action, Action::Run, "{command}");
    }
}

#[test]
fn wrappers_missing_from_the_first_list_are_seen_through() {
    for wrapper in [
        "setpriv --reuid=0",
        "prlimit --nofile=10",
        "torsocks",
        "fakeroot",
        "eatmydata",
        "numactl -C 0",
        "sshpass -p pw",
        "xvfb-run -a",
        "run0",
    ] {
        let rm = format!("{wrapper} rm -rf /");
        let d = manual(&rm);
        assert_eq!(
            d.reason.rule.as_deref(),
            Some("blacklist/rm-recursive-root"),
            "{rm}: {d:?}"
        );
        let push = format!("{wrapper} git push");
        let d = manual(&push);
        assert_eq!(d.action, Action::Block, "{push}: {d:?}");
    }
}

#[test]
fn more_system_files_and_secrets_are_known() {
    for command in [
        "echo /lib/evil.so > /etc/ld.so.preload",
        "echo 'x:x:0:' >> /etc/group",
        "cat /etc/security/opasswd",
        "cat /var/backups/shadow.bak",
        "cat /etc/ssl/private/server.key",
        "cat ~/.my.cnf",
        "cat /etc/ssh/ssh_host_ed25519_key",
    ] {
        let d = manual(command);
        assert_eq!(d.reason.level, Level::GlobalAudit, "{command}: {d:?}");
        assert_ne!(d.action, Action::Run, "{command}");
    }
}

#[test]
fn plain_work_is_not_over_blocked() {
    let file = tool_approval::PolicyFile::from_json(
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "cat:*"}, "policy": "never"},
            {"match": {"command": "git add:*"}, "policy": "never"},
            {"match": {"command": "echo:*"}, "policy": "never"},
            {"policy": "required"}
        ]}}"#,
    )
    .unwrap();
    let engine = file.engine().unwrap();
    for command in [
        "cat src/id_map.rs",
        "git add src/id_generator.py",
        "echo Copy .env.example to .env",
        "echo remember the id_rsa key rotation",
        "cat docs/credentials_howto.md",
    ] {
        let d = common::run_command(&engine, command);
        assert_eq!(d.action, Action::Run, "{command}: {d:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new().with_cwd(dir.path());
    let manifest = common::local_system();
    let d = common::decide(
        &engine,
        &manifest,
        "readFile",
        &json!({"path": "src/id_map.rs"}),
        &ctx,
    );
    assert_eq!(d.action, Action::Run, "{d:?}");
    // ... while the real secrets still ask.
    for command in [
        "cat .env",
        "echo x > .env",
        "cat ~/.ssh/id_rsa",
        "cat id_ed25519",
    ] {
        let d = common::run_command(&engine, command);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::GlobalAudit),
            "{command}: {d:?}"
        );
    }
}
