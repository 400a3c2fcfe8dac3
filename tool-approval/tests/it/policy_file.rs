//! Loading the host policy file and using it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use serde_json::json;
use tool_approval::{Action, ApprovalMode, CallRef, Error, Level, PolicyFile};
use tool_core::{InterventionPolicy, ToolContext};

#[test]
fn fixture_loads_with_mode_allow_list_rules_and_blacklist() {
    let file = common::policy_file();
    assert_eq!(file.mode, Some(ApprovalMode::Manual));
    assert_eq!(file.allow_list, ["local-system/readFile"]);
    assert_eq!(file.rules["local-system/runCommand"].len(), 9);
    assert!(file.blacklist.is_some());
}

#[test]
fn command_line_mode_overrides_the_file() {
    let engine = tool_approval::PolicyEngine::builder()
        .policy_file(&common::policy_file())
        .mode(ApprovalMode::Headless)
        .build()
        .unwrap();
    assert_eq!(engine.mode(), ApprovalMode::Headless);
    let d = common::run_command(&engine, "rm -rf ~");
    assert_eq!(d.action, Action::Block);
    let out = d.blocked_output().unwrap();
    assert_eq!(
        out.state.unwrap()["reason"]["rule"],
        "blacklist/rm-recursive-root"
    );
}

#[test]
fn host_rules_override_the_tool_authors_static_policy() {
    // local-system/runCommand says `required`; the host approves `git status`.
    let engine = common::engine(ApprovalMode::Manual);
    let d = common::run_command(&engine, "git status");
    assert_eq!((d.action, d.reason.level), (Action::Run, Level::HostPolicy));
    assert!(d.reason.rule.unwrap().contains("git status:*"));
}

#[test]
fn allow_list_from_the_file_applies_in_allow_list_mode_only() {
    let manifest = common::local_system();
    let sandbox = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new().with_cwd(sandbox.path());
    let args = json!({"path": "/etc/hostname"});
    let call = CallRef::new("local-system", "readFile", &args).with_manifest(&manifest);
    let manual = common::engine(ApprovalMode::Manual).evaluate_one(&call, &ctx);
    let listed = common::engine(ApprovalMode::AllowList).evaluate_one(&call, &ctx);
    assert_eq!(manual.action, Action::Ask);
    // The allow list exempts static policies only, never a failed audit.
    assert_eq!(
        (listed.action, listed.reason.level),
        (Action::Ask, Level::ApiDynamic)
    );
    let file = PolicyFile::from_json(
        r#"{"mode": "allow-list", "allowList": ["local-system/runCommand"], "blacklist": "none"}"#,
    )
    .unwrap();
    let d = common::run_command(&file.engine().unwrap(), "cargo build");
    assert_eq!((d.action, d.reason.level), (Action::Run, Level::AllowList));
}

#[test]
fn a_rule_whose_examples_disagree_fails_to_load_naming_the_example() {
    let text = r#"{"rules": {"git/checkout": [
        {"match": {"branch": {"regex": "feat/.*"}}, "policy": "never",
         "examples": {"match": ["feat/a"], "notMatch": ["main", "feat/b"]}}
    ]}}"#;
    let err = PolicyFile::from_json(text).unwrap_err();
    assert!(err.is_example_failure(), "{err}");
    assert_eq!(
        err.pointer(),
        Some("/rules/git~1checkout/0/examples/notMatch/1")
    );
    assert!(err.to_string().contains("notMatch"), "{err}");
}

#[test]
fn a_regex_allow_rule_on_a_command_still_cannot_approve_a_compound() {
    // The example says so, and loading checks it.
    let text = r#"{"rules": {"local-system/runCommand": [
        {"match": {"command": {"regex": "git .*"}}, "policy": "never",
         "examples": {"match": ["git status"], "notMatch": ["git status && rm -rf ~", "git x; curl y | sh"]}}
    ]}}"#;
    let engine = PolicyFile::from_json(text).unwrap().engine().unwrap();
    assert_eq!(common::run_command(&engine, "git log").action, Action::Run);
    assert_eq!(
        common::run_command(&engine, "git log | sh").action,
        Action::Ask
    );
}

#[test]
fn missing_file_is_an_io_error_with_the_path() {
    let err = PolicyFile::load(std::path::Path::new("/nonexistent/policy.json")).unwrap_err();
    assert!(matches!(err, Error::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/policy.json"));
}

#[test]
fn blacklist_none_disables_the_builtin_entries_but_not_the_size_guard() {
    let file = PolicyFile::from_json(r#"{"blacklist": "none"}"#).unwrap();
    let engine = file.engine().unwrap();
    let d = common::run_command(&engine, "rm -rf /");
    assert_eq!(
        (d.action, d.policy),
        (Action::Ask, InterventionPolicy::Required)
    );
    assert_eq!(d.reason.level, Level::ApiStatic);
    let huge = "x".repeat(tool_approval::MAX_COMMAND_BYTES + 1);
    let d = common::run_command(&engine, &huge);
    assert_eq!(
        (d.action, d.reason.level, d.reason.rule.as_deref()),
        (Action::Ask, Level::Limits, Some("limits/command-too-long"))
    );
}

#[test]
fn host_blacklist_entries_from_the_file_apply_to_every_tool() {
    let file = PolicyFile::from_json(
        r#"{"blacklist": {"add": [{"id": "no-deploy", "policy": "deny", "command": "kubectl apply:*", "message": "deploys are CI-only"}]}}"#,
    )
    .unwrap();
    let engine = file.engine().unwrap();
    let d = common::run_command(&engine, "make && kubectl apply -f x.yaml");
    assert_eq!(d.action, Action::Block);
    assert_eq!(d.reason.rule.as_deref(), Some("blacklist/no-deploy"));
    assert_eq!(d.reason.message, "deploys are CI-only");
}

#[test]
fn every_problem_of_a_policy_file_is_reported_with_its_pointer() {
    let text = r#"{
        "mode": "sometimes",
        "colour": "blue",
        "allowList": ["ok/key", "no-slash", 3],
        "rules": {
            "bad key": [{"policy": "never"}],
            "t/a": [
                {"match": {"command": {"regex": "("}}, "policy": "never"},
                {"policy": "perhaps", "extra": 1},
                {"match": {"x": "y"}}
            ],
            "t/b": [{"match": {"p": "v"}, "policy": "never", "examples": {"match": ["w"]}}]
        },
        "blacklist": {"add": [{"id": "x", "policy": "always"}, {"id": "y", "policy": "bad", "path": "/a"}]}
    }"#;
    let err = PolicyFile::from_json(text).unwrap_err();
    let pointers: Vec<&str> = err.problems().iter().filter_map(|p| p.pointer()).collect();
    for want in [
        "/mode",
        "/colour",
        "/allowList/1",
        "/allowList/2",
        "/rules/bad key",
        "/rules/t~1a/0/match/command",
        "/rules/t~1a/1/policy",
        "/rules/t~1a/1/extra",
        "/rules/t~1a/2",
        "/rules/t~1b/0/examples/match/0",
        "/blacklist/add/0",
        "/blacklist/add/1/policy",
    ] {
        assert!(pointers.contains(&want), "{want} missing from {pointers:?}");
    }
    assert!(err.is_example_failure());
    assert!(err.to_string().contains("problems in the policy"), "{err}");
}

// The `shell` section (engine/policy_shell.rs), through the public API.

fn shell_pointers(text: &str) -> Vec<String> {
    let err = PolicyFile::from_json(text).unwrap_err();
    err.problems()
        .iter()
        .filter_map(|p| p.pointer().map(str::to_owned))
        .collect()
}

#[test]
fn a_shell_section_extends_the_tables() {
    let file = PolicyFile::from_json(
        r#"{"shell": {
            "wrappers": [{"name": "with-vpn", "valuedOptions": ["--profile"]}],
            "options": [{"program": "deploy", "subcommand": "run", "names": ["--hook"], "effect": "runsCode"}]
        }}"#,
    )
    .unwrap();
    let cmd = tool_approval::ShellCommand::parse_with(
        "with-vpn --profile x deploy run --hook 'rm -rf /'",
        &file.shell,
    );
    assert!(
        cmd.parts().iter().any(|p| p.words == ["rm", "-rf", "/"]),
        "{:?}",
        cmd.parts()
    );
    assert!(cmd.hazards().contains(&tool_approval::Hazard::OptionEffect));
}

#[test]
fn every_problem_is_named_by_its_pointer() {
    assert_eq!(shell_pointers(r#"{"shell": []}"#), ["/shell"]);
    assert_eq!(
        shell_pointers(
            r#"{"shell": {"wrapers": [], "wrappers": [{"name": "a b", "valuedOptions": ["p"], "positional": 99}]}}"#
        ),
        [
            "/shell/wrapers",
            "/shell/wrappers/0/name",
            "/shell/wrappers/0/valuedOptions/0",
            "/shell/wrappers/0/positional"
        ]
    );
    assert_eq!(
        shell_pointers(
            r#"{"shell": {"options": [{"program": "x;y", "names": [], "value": "maybe", "effect": "explodes"}, {"program": "z", "names": ["--a"]}]}}"#
        ),
        [
            "/shell/options/0/program",
            "/shell/options/0/names",
            "/shell/options/0/value",
            "/shell/options/0/effect",
            "/shell/options/1/effect"
        ]
    );
}

#[test]
fn a_full_access_rule_over_a_build_or_test_runner_is_a_finding() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/policies/agent.json"
    );
    let file = PolicyFile::load(std::path::Path::new(path)).unwrap();
    let findings = file.findings();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        findings[0].id,
        tool_approval::FULL_ACCESS_RUNS_WORKSPACE_CODE
    );
    assert_eq!(findings[0].pointer, "/rules/local-system~1runCommand/18");
    assert!(findings[0].message.contains("cargo build"), "{findings:?}");
    // The file still loads and its engine is built: the host decides.
    assert!(file.engine().is_ok());
    // The fixture and a full-access rule over a read-only command: none.
    assert!(common::policy_file().findings().is_empty());
    let file = PolicyFile::from_value(&json!({"rules": {"local-system/runCommand": [
        {"match": {"command": "git status:*"}, "policy": "never", "confinement": "full_access"},
        {"match": {"command": "cargo build:*"}, "policy": "never", "confinement": "workspace_write"},
    ]}}))
    .unwrap();
    assert!(file.findings().is_empty());
    // A catch-all full-access rule covers every command.
    let file = PolicyFile::from_value(&json!({"rules": {"local-system/runCommand": [
        {"policy": "never", "confinement": "full_access"},
    ]}}))
    .unwrap();
    assert_eq!(file.findings().len(), 1);
}

#[test]
fn a_full_access_rule_applies_only_to_the_invocation_it_names() {
    let file = PolicyFile::from_value(&json!({"rules": {"local-system/runCommand": [
        {"match": {"command": "cargo build:*"}, "policy": "never", "confinement": "full_access"},
        {"policy": "required"},
    ]}}))
    .unwrap();
    let engine = tool_approval::PolicyEngine::builder()
        .policy_file(&file)
        .mode(ApprovalMode::AutoRun)
        .confinement_support(tool_core::ConfinementSupport::Available {
            mechanism: "test".into(),
        })
        .build()
        .unwrap();
    let mut manifest = common::local_system();
    for api in &mut manifest.api {
        api.touches_host = true;
    }
    let ctx = ToolContext::new();
    let decide = |command: &str| {
        let args = json!({ "command": command });
        common::decide(&engine, &manifest, "runCommand", &args, &ctx)
    };
    let d = decide("cargo build --release");
    assert_eq!(
        d.confinement,
        Some(tool_core::Confinement::FullAccess),
        "{d:?}"
    );
    for command in [
        "cargo build --manifest-path /tmp/evil/Cargo.toml",
        "cargo build --manifest-path=../other/Cargo.toml",
        "cargo build --target-dir /tmp/t",
        "cargo build --config build.rustc-wrapper=./x",
    ] {
        let d = decide(command);
        assert_eq!(d.action, Action::Run, "{command}: {d:?}");
        assert!(
            d.confinement
                .as_ref()
                .is_some_and(tool_core::Confinement::is_confined),
            "{command}: {d:?}"
        );
    }
}
