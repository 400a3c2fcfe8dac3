//! Code the engine does not read (an interpreter's program given inline,
//! from a file or on standard input) is its own finding,
//! `limits/unread-code`: it asks where a person is present and runs only
//! confined in unattended modes. Attack strings are only evaluated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use tool_approval::{Action, ApprovalMode, PolicyEngine};
use tool_core::{Confinement, ConfinementSupport};

const UNREAD: &[&str] = &[
    "python3 -c 'import shutil; shutil.rmtree(\"/tmp/x\")'",
    "node -e 'require(\"fs\").rmSync(process.env.HOME, {recursive: true})'",
    "ruby build.rb",
    "sudo perl deploy.pl",
    "timeout 5 node server.js",
    "python3 - <<'EOF'\nimport os\nprint(os.environ)\nEOF",
    "echo 'print(1)' | python3",
    "python3 <<< 'import os'",
    "cd app && python3.12 manage.py migrate",
    "/usr/bin/env php -r 'echo 1;'",
];

/// Controls: no program runs, or the program is read.
const READ: &[&str] = &[
    "python3 --version",
    "node -v",
    "ls -la",
    "sed -n 1p README.md",
    "git status",
];

fn engine(mode: ApprovalMode, support: bool) -> PolicyEngine {
    let support = if support {
        ConfinementSupport::Available {
            mechanism: "test".into(),
        }
    } else {
        ConfinementSupport::Unknown
    };
    PolicyEngine::builder()
        .policy_file(&common::policy_file())
        .mode(mode)
        .confinement_support(support)
        .build()
        .unwrap()
}

#[test]
fn unread_code_asks_where_a_person_is_present() {
    for mode in [ApprovalMode::Manual, ApprovalMode::AllowList] {
        let engine = engine(mode, true);
        for text in UNREAD {
            let d = common::run_command(&engine, text);
            assert_eq!(d.action, Action::Ask, "{mode:?}: `{text}` {d:?}");
            assert_eq!(
                d.reason.rule.as_deref(),
                Some("limits/unread-code"),
                "{mode:?}: `{text}` {d:?}"
            );
        }
    }
}

#[test]
fn unread_code_runs_only_confined_when_nobody_is_there() {
    for mode in [ApprovalMode::AutoRun, ApprovalMode::Headless] {
        let engine = engine(mode, true);
        for text in UNREAD {
            let d = common::run_command(&engine, text);
            assert_eq!(d.action, Action::Run, "{mode:?}: `{text}` {d:?}");
            assert_eq!(d.reason.rule.as_deref(), Some("limits/unread-code"));
            assert!(
                d.confinement.as_ref().is_some_and(Confinement::is_confined),
                "{mode:?}: `{text}` {d:?}"
            );
        }
        // Where the host cannot confine, nothing unread runs.
        let engine = self::engine(mode, false);
        for text in UNREAD {
            let d = common::run_command(&engine, text);
            assert_ne!(d.action, Action::Run, "{mode:?}: `{text}` {d:?}");
        }
    }
}

#[test]
fn unread_code_stays_confined_even_when_the_default_is_full_access() {
    let engine = PolicyEngine::builder()
        .policy_file(&common::policy_file())
        .mode(ApprovalMode::AutoRun)
        .confinement(Confinement::FullAccess)
        .confinement_support(ConfinementSupport::Available {
            mechanism: "test".into(),
        })
        .build()
        .unwrap();
    let d = common::run_command(&engine, "python3 build.py");
    assert_eq!(d.action, Action::Run, "{d:?}");
    assert!(
        d.confinement.as_ref().is_some_and(Confinement::is_confined),
        "{d:?}"
    );
}

#[test]
fn programs_that_are_read_or_do_not_run_are_not_unread_code() {
    for mode in [ApprovalMode::Manual, ApprovalMode::AutoRun] {
        let engine = engine(mode, true);
        for text in READ {
            let d = common::run_command(&engine, text);
            assert_ne!(
                d.reason.rule.as_deref(),
                Some("limits/unread-code"),
                "{mode:?}: `{text}` {d:?}"
            );
        }
    }
}

#[test]
fn a_sure_finding_outranks_unread_code() {
    let engine = engine(ApprovalMode::AutoRun, true);
    let d = common::run_command(&engine, "python3 x.py && rm -rf /");
    assert_eq!(d.action, Action::Ask, "{d:?}");
    assert_eq!(
        d.reason.rule.as_deref(),
        Some("blacklist/rm-recursive-root"),
        "{d:?}"
    );
}
