//! Every mode × policy source × policy combination.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;

use serde_json::{Value, json};
use tool_approval::{
    Action, ApprovalMode, AuditHit, AuditInput, AuditVerdict, CallRef, DynamicAudit, GlobalAudit,
    Level, PolicyEngine,
};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest,
    manifest::{DynamicIntervention, InterventionRule},
};

use InterventionPolicy::{Always, Deny, Never, Required};

const MODES: [ApprovalMode; 4] = [
    ApprovalMode::Manual,
    ApprovalMode::AllowList,
    ApprovalMode::AutoRun,
    ApprovalMode::Headless,
];
const POLICIES: [InterventionPolicy; 4] = [Never, Required, Always, Deny];

#[derive(Debug)]
struct FixedGlobal(InterventionPolicy);
impl GlobalAudit for FixedGlobal {
    fn name(&self) -> &str {
        "fixed"
    }
    fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit> {
        (input.call.arguments.get("flag") == Some(&Value::Bool(true))).then(|| AuditHit {
            policy: self.0,
            rule: "flag".into(),
            message: "flagged".into(),
        })
    }
}

#[derive(Debug)]
struct FlagAudit;
impl DynamicAudit for FlagAudit {
    fn kind(&self) -> &str {
        "flagAudit"
    }
    fn audit(&self, input: &AuditInput<'_>) -> AuditVerdict {
        if input.call.arguments.get("flag") == Some(&Value::Bool(true)) {
            AuditVerdict::Flag {
                rule: "flag".into(),
                message: "flagged".into(),
            }
        } else {
            AuditVerdict::Pass
        }
    }
}

/// Where the deciding policy comes from (the rows of the table in
/// `tool_approval::mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Global,
    ApiDynamic,
    /// A dynamic audit passes and the config's `default` applies: static.
    DynamicDefault,
    ApiStatic,
    ApiRules,
    ToolLevel,
    HostPolicy,
}

const SOURCES: [Source; 7] = [
    Source::Global,
    Source::ApiDynamic,
    Source::DynamicDefault,
    Source::ApiStatic,
    Source::ApiRules,
    Source::ToolLevel,
    Source::HostPolicy,
];

/// The columns of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Manual,
    AllowListNotListed,
    AllowListListed,
    AutoRun,
    Headless,
}

const COLUMNS: [Column; 5] = [
    Column::Manual,
    Column::AllowListNotListed,
    Column::AllowListListed,
    Column::AutoRun,
    Column::Headless,
];

impl Column {
    fn mode(self) -> ApprovalMode {
        match self {
            Column::Manual => ApprovalMode::Manual,
            Column::AllowListNotListed | Column::AllowListListed => ApprovalMode::AllowList,
            Column::AutoRun => ApprovalMode::AutoRun,
            Column::Headless => ApprovalMode::Headless,
        }
    }
}

/// The documented table, written out cell by cell.
fn expected(source: Source, policy: InterventionPolicy, column: Column) -> Action {
    use Action::{Ask, Block, Run};
    let finding = matches!(source, Source::Global | Source::ApiDynamic);
    match (policy, column) {
        (Deny, _) => Block,
        (Always, Column::Headless) => Block,
        (Always, _) => Ask,
        (Required, Column::Headless) if finding => Block,
        (Required, _) if finding => Ask,
        (Required, Column::Manual | Column::AllowListNotListed) => Ask,
        (Required, Column::AllowListListed | Column::AutoRun | Column::Headless) => Run,
        (Never, _) => Run,
    }
}

fn setup(
    source: Source,
    policy: InterventionPolicy,
    column: Column,
) -> (PolicyEngine, ToolManifest, Level) {
    let mut builder = PolicyEngine::builder()
        .mode(column.mode())
        .blacklist(None)
        .dynamic_audit(Arc::new(FlagAudit));
    if column == Column::AllowListListed {
        builder = builder.allow(["t/a"]);
    }
    let mut manifest = ToolManifest::new("t");
    let mut api = ApiDefinition::new("a", "api");
    let level = match source {
        Source::Global => {
            builder = builder.global_audit(Arc::new(FixedGlobal(policy)));
            Level::GlobalAudit
        }
        Source::ApiDynamic | Source::DynamicDefault => {
            let (flagged, passed) = if source == Source::ApiDynamic {
                (policy, Never)
            } else {
                (Deny, policy)
            };
            api = api.with_intervention(HumanIntervention::Dynamic {
                dynamic: DynamicIntervention {
                    kind: "flagAudit".into(),
                    policy: flagged,
                    default: passed,
                },
            });
            Level::ApiDynamic
        }
        Source::ApiStatic => {
            api = api.with_intervention(HumanIntervention::Policy(policy));
            Level::ApiStatic
        }
        Source::ApiRules => {
            api = api.with_intervention(HumanIntervention::Rules(vec![InterventionRule {
                matches: None,
                policy,
                examples: None,
            }]));
            Level::ApiStatic
        }
        Source::ToolLevel => {
            manifest.human_intervention = Some(HumanIntervention::Policy(policy));
            Level::ToolLevel
        }
        Source::HostPolicy => {
            api = api.with_intervention(HumanIntervention::Policy(Never));
            builder = builder.rules(
                "t/a",
                vec![InterventionRule {
                    matches: None,
                    policy,
                    examples: None,
                }],
            );
            Level::HostPolicy
        }
    };
    manifest.api.push(api);
    (builder.build().unwrap(), manifest, level)
}

#[test]
fn every_cell_of_the_mode_table_gives_the_documented_action_and_level() {
    let mut checked = 0;
    for column in COLUMNS {
        for source in SOURCES {
            for policy in POLICIES {
                let (engine, manifest, level) = setup(source, policy, column);
                // The dynamic-default row needs the audit to pass.
                let args = json!({"flag": source != Source::DynamicDefault});
                let call = CallRef::new("t", "a", &args).with_manifest(&manifest);
                let d = engine.evaluate_one(&call, &ToolContext::new());
                let want = expected(source, policy, column);
                let cell = format!("{column:?} {source:?} {policy:?}: {d:?}");
                assert_eq!(d.action, want, "{cell}");
                assert_eq!(d.policy, policy, "{cell}");
                let exempted = want == Action::Run && policy == Required;
                let want_level = match column {
                    Column::AllowListListed if want == Action::Run => Level::AllowList,
                    _ if !exempted => level,
                    _ => Level::Mode,
                };
                assert_eq!(d.reason.level, want_level, "{cell}");
                if column == Column::Headless && want == Action::Block && policy != Deny {
                    assert!(d.reason.message.contains("headless"), "{cell}");
                }
                assert_eq!(d.blocked_output().is_some(), want == Action::Block);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 5 * 7 * 4);
}

#[test]
fn a_listed_key_with_no_policy_runs_by_the_allow_list() {
    let mut manifest = ToolManifest::new("t");
    manifest.api.push(ApiDefinition::new("a", "api"));
    let engine = PolicyEngine::builder()
        .mode(ApprovalMode::AllowList)
        .allow(["t/a"])
        .build()
        .unwrap();
    let args = json!({});
    let d = engine.evaluate_one(
        &CallRef::new("t", "a", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    assert_eq!((d.action, d.reason.level), (Action::Run, Level::AllowList));
}

#[test]
fn unknown_tools_ask_in_manual_and_allow_list_and_run_in_trusting_modes() {
    let args = json!({});
    for mode in MODES {
        // An unknown tool counts as touching the host: it runs confined,
        // so only where the host can confine (see `confinement.rs`).
        let engine = PolicyEngine::builder()
            .mode(mode)
            .allow(["ghost/x"])
            .confinement_support(tool_core::ConfinementSupport::Available {
                mechanism: "test".into(),
            })
            .build()
            .unwrap();
        let d = engine.evaluate_one(&CallRef::new("ghost", "x", &args), &ToolContext::new());
        match mode {
            ApprovalMode::Manual | ApprovalMode::AllowList => {
                assert_eq!(d.action, Action::Ask, "{mode:?}");
                assert_eq!(d.reason.level, Level::UnknownTool);
            }
            _ => {
                assert_eq!(d.action, Action::Run, "{mode:?}");
                assert_eq!(d.reason.level, Level::Mode);
            }
        }
    }
}

#[test]
fn host_deny_rule_blocks_an_unknown_tool_in_every_mode() {
    let args = json!({});
    for mode in MODES {
        let engine = PolicyEngine::builder()
            .mode(mode)
            .rules(
                "ghost/x",
                vec![InterventionRule {
                    matches: None,
                    policy: Deny,
                    examples: None,
                }],
            )
            .build()
            .unwrap();
        let d = engine.evaluate_one(&CallRef::new("ghost", "x", &args), &ToolContext::new());
        assert_eq!(d.action, Action::Block, "{mode:?}");
    }
}

#[test]
fn api_level_shadows_tool_level() {
    let mut manifest = ToolManifest::new("t");
    manifest.human_intervention = Some(HumanIntervention::Policy(Always));
    manifest
        .api
        .push(ApiDefinition::new("a", "").with_intervention(HumanIntervention::Policy(Never)));
    manifest.api.push(ApiDefinition::new("b", ""));
    let engine = PolicyEngine::default();
    let args = json!({});
    let a = engine.evaluate_one(
        &CallRef::new("t", "a", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    let b = engine.evaluate_one(
        &CallRef::new("t", "b", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    assert_eq!((a.action, a.reason.level), (Action::Run, Level::ApiStatic));
    assert_eq!((b.action, b.reason.level), (Action::Ask, Level::ToolLevel));
}

#[test]
fn strictest_wins_between_global_audits_and_a_dynamic_never() {
    // The dynamic audit passes (never), a global audit says required: ask.
    let mut manifest = ToolManifest::new("t");
    manifest.api.push(
        ApiDefinition::new("a", "").with_intervention(HumanIntervention::Dynamic {
            dynamic: DynamicIntervention {
                kind: "flagAudit".into(),
                policy: Always,
                default: Never,
            },
        }),
    );
    let engine = PolicyEngine::builder()
        .dynamic_audit(Arc::new(FlagAudit))
        .global_audit(Arc::new(FixedGlobal(Required)))
        .global_audit(Arc::new(FixedGlobal(Always)))
        .global_audit(Arc::new(FixedGlobal(Required)))
        .build()
        .unwrap();
    let args = json!({"flag": true});
    // FlagAudit flags too (always); global strongest is always: tie keeps the global reason.
    let d = engine.evaluate_one(
        &CallRef::new("t", "a", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    assert_eq!((d.action, d.policy), (Action::Ask, Always));
    let engine = PolicyEngine::builder()
        .global_audit(Arc::new(FixedGlobal(Required)))
        .build()
        .unwrap();
    let mut passing = ToolManifest::new("t");
    passing.api.push(
        ApiDefinition::new("a", "").with_intervention(HumanIntervention::Dynamic {
            dynamic: DynamicIntervention {
                kind: "pathScopeAudit".into(),
                policy: Always,
                default: Never,
            },
        }),
    );
    let d = engine.evaluate_one(
        &CallRef::new("t", "a", &args).with_manifest(&passing),
        &ToolContext::new(),
    );
    assert_eq!(
        (d.action, d.reason.level),
        (Action::Ask, Level::GlobalAudit),
        "{d:?}"
    );
}

#[test]
fn unregistered_dynamic_audit_type_asks() {
    let mut manifest = ToolManifest::new("t");
    manifest.api.push(
        ApiDefinition::new("a", "").with_intervention(HumanIntervention::Dynamic {
            dynamic: DynamicIntervention {
                kind: "nobodyKnowsMe".into(),
                policy: Never,
                default: Never,
            },
        }),
    );
    let args = json!({});
    let d = PolicyEngine::default().evaluate_one(
        &CallRef::new("t", "a", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    assert_eq!(
        (d.action, d.policy, d.reason.level),
        (Action::Ask, Required, Level::ApiDynamic)
    );
}

#[test]
fn no_config_runs_and_a_rule_list_with_no_match_asks() {
    let mut manifest = ToolManifest::new("t");
    manifest.api.push(ApiDefinition::new("plain", ""));
    manifest.api.push(
        ApiDefinition::new("ruled", "").with_intervention(HumanIntervention::Rules(vec![
            InterventionRule {
                matches: Some(
                    [(
                        "x".to_owned(),
                        tool_core::manifest::ArgMatcher::Pattern("y".into()),
                    )]
                    .into(),
                ),
                policy: Never,
                examples: None,
            },
        ])),
    );
    let engine = PolicyEngine::default();
    let args = json!({"x": "z"});
    let plain = engine.evaluate_one(
        &CallRef::new("t", "plain", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    let ruled = engine.evaluate_one(
        &CallRef::new("t", "ruled", &args).with_manifest(&manifest),
        &ToolContext::new(),
    );
    assert_eq!(
        (plain.action, plain.reason.level),
        (Action::Run, Level::Default)
    );
    assert_eq!(
        (ruled.action, ruled.reason.level),
        (Action::Ask, Level::ApiStatic)
    );
}

#[test]
fn evaluation_keeps_input_order_and_partitions() {
    let engine = PolicyEngine::builder()
        .rules(
            "t/deny",
            vec![InterventionRule {
                matches: None,
                policy: Deny,
                examples: None,
            }],
        )
        .rules(
            "t/ask",
            vec![InterventionRule {
                matches: None,
                policy: Required,
                examples: None,
            }],
        )
        .build()
        .unwrap();
    let mut manifest = ToolManifest::new("t");
    for n in ["deny", "ask", "run"] {
        manifest.api.push(ApiDefinition::new(n, ""));
    }
    let args = json!({});
    let calls: Vec<CallRef<'_>> = ["run", "deny", "ask", "run"]
        .iter()
        .map(|a| CallRef::new("t", a, &args).with_manifest(&manifest))
        .collect();
    let eval = engine.evaluate(&calls, &ToolContext::new());
    assert_eq!(
        (eval.run(), eval.ask(), eval.block()),
        (vec![0, 3], vec![2], vec![1])
    );
    let parts = eval.partition(["a", "b", "c", "d"]);
    assert_eq!(
        parts.run.iter().map(|(x, _)| *x).collect::<Vec<_>>(),
        ["a", "d"]
    );
    assert_eq!(parts.block[0].0, "b");
    let out = parts.block[0].1.blocked_output().unwrap();
    assert_eq!(out.content, "Blocked by security/privacy.");
    assert!(!out.success);
    assert_eq!(out.error_code().unwrap(), "blocked_by_security_privacy");
    let state = out.state.unwrap();
    assert_eq!(state["type"], "blocked");
    assert_eq!(state["reason"]["level"], "host_policy");
    assert!(eval.get(0).unwrap().blocked_output().is_none());
}

#[test]
fn decision_serialises_with_lowercase_action_and_named_level() {
    let engine = PolicyEngine::default();
    let args = json!({});
    let d = engine.evaluate_one(&CallRef::new("ghost", "x", &args), &ToolContext::new());
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["action"], "ask");
    assert_eq!(v["policy"], "required");
    assert_eq!(v["reason"]["level"], "unknown_tool");
    assert!(v["reason"]["message"].as_str().unwrap().contains("ghost"));
}

#[test]
fn limits_ask_in_every_mode_but_headless_and_name_themselves() {
    let deep = format!("{}ls{}", "(".repeat(300), ")".repeat(300));
    let long = format!("ls {}", "a".repeat(tool_approval::MAX_COMMAND_BYTES));
    for column in COLUMNS {
        let mut builder = PolicyEngine::builder().mode(column.mode());
        if column == Column::AllowListListed {
            builder = builder.allow(["local-system/runCommand"]);
        }
        let engine = builder.build().unwrap();
        let manifest = common::local_system();
        for (command, rule) in [
            (&deep, "limits/too-deep"),
            (&long, "limits/command-too-long"),
        ] {
            let args = json!({ "command": command });
            let d = common::decide(&engine, &manifest, "runCommand", &args, &ToolContext::new());
            let want = if column == Column::Headless {
                Action::Block
            } else {
                Action::Ask
            };
            assert_eq!(d.action, want, "{column:?} {rule}: {d:?}");
            assert_eq!(d.reason.level, Level::Limits, "{column:?}: {d:?}");
            assert_eq!(d.reason.rule.as_deref(), Some(rule), "{column:?}: {d:?}");
        }
    }
}

#[test]
fn unknown_tools_ask_even_when_listed() {
    let engine = PolicyEngine::builder()
        .mode(ApprovalMode::AllowList)
        .allow(["ghost/x"])
        .build()
        .unwrap();
    let args = json!({});
    let d = engine.evaluate_one(&CallRef::new("ghost", "x", &args), &ToolContext::new());
    assert_eq!(
        (d.action, d.reason.level),
        (Action::Ask, Level::UnknownTool)
    );
}

#[test]
fn trusting_modes_do_not_exempt_audit_findings() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new().with_cwd(dir.path());
    let manifest = common::local_system();
    for (mode, want) in [
        (ApprovalMode::AutoRun, Action::Ask),
        (ApprovalMode::Headless, Action::Block),
    ] {
        let engine = PolicyEngine::builder().mode(mode).build().unwrap();
        // The blacklist (read-secrets, `required`) flags a secret.
        let args = json!({"command": "cat ~/.ssh/id_rsa"});
        let d = common::decide(&engine, &manifest, "runCommand", &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (want, Level::GlobalAudit),
            "{mode:?}: {d:?}"
        );
        // pathScopeAudit flags a write outside the working directory.
        let args = json!({"path": "~/.bashrc", "content": "x"});
        let d = common::decide(&engine, &manifest, "writeFile", &args, &ctx);
        assert_eq!(d.action, want, "{mode:?}: {d:?}");
        // A plain command inside the directory still runs (static `required`).
        let args = json!({"command": "cargo build"});
        let d = common::decide(&engine, &manifest, "runCommand", &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Run, Level::Mode),
            "{mode:?}: {d:?}"
        );
    }
}
