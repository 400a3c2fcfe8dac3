//! Code the engine does not read stays confined whatever the host's default
//! confinement is. The per-mode cases of `limits/unread-code` (asks where a
//! person is present, runs only confined when nobody is, does not run where
//! the host cannot confine) are corpus lines in `tests/corpus/programs.cases`.
//! Attack strings are only evaluated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use tool_approval::{Action, ApprovalMode, PolicyEngine};
use tool_core::{Confinement, ConfinementSupport};

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
    // A plain command under the same engine runs at the host's default.
    let d = common::run_command(&engine, "ls -la");
    assert_eq!(d.action, Action::Run, "{d:?}");
    assert!(
        !d.confinement.as_ref().is_some_and(Confinement::is_confined),
        "{d:?}"
    );
}
