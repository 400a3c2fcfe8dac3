//! Every mode × policy source × policy combination.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::{Value, json};
use tool_approval::{
    Action, ApprovalMode, AuditHit, AuditInput, AuditVerdict, CallRef, DynamicAudit, GlobalAudit,
    Level, PolicyEngine,
};
use tool_core::{
    ApiDefinition, DynamicIntervention, HumanIntervention, InterventionPolicy, InterventionRule,
    ToolContext, ToolManifest,
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

#[derive(Debug, Clone, Copy)]
enum Source {
    Global,
    ApiDynamic,
    ApiStatic,
    ApiRules,
    ToolLevel,
    HostPolicy,
}

const SOURCES: [Source; 6] = [
    Source::Global,
    Source::ApiDynamic,
    Source::ApiStatic,
    Source::ApiRules,
    Source::ToolLevel,
    Source::HostPolicy,
];

fn expected(mode: ApprovalMode, policy: InterventionPolicy) -> Action {
    match (policy, mode) {
        (Deny, _) => Action::Block,
        (Always, ApprovalMode::Headless) => Action::Block,
        (Always, _) => Action::Ask,
        (_, ApprovalMode::AutoRun | ApprovalMode::Headless) => Action::Run,
        (Required, _) => Action::Ask,
        (Never, _) => Action::Run,
    }
}

fn setup(
    source: Source,
    policy: InterventionPolicy,
    mode: ApprovalMode,
) -> (PolicyEngine, ToolManifest, Level) {
    let mut builder = PolicyEngine::builder()
        .mode(mode)
        .blacklist(None)
        .dynamic_audit(Arc::new(FlagAudit));
    let mut manifest = ToolManifest::new("t");
    let mut api = ApiDefinition::new("a", "api");
    let level = match source {
        Source::Global => {
            builder = builder.global_audit(Arc::new(FixedGlobal(policy)));
            Level::GlobalAudit
        }
        Source::ApiDynamic => {
            api = api.with_intervention(HumanIntervention::Dynamic {
                dynamic: DynamicIntervention {
                    kind: "flagAudit".into(),
                    policy,
                    default: Never,
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
fn every_mode_source_and_policy_gives_the_documented_action_and_level() {
    let args = json!({"flag": true});
    let mut checked = 0;
    for mode in MODES {
        for source in SOURCES {
            for policy in POLICIES {
                let (engine, manifest, level) = setup(source, policy, mode);
                let call = CallRef::new("t", "a", &args).with_manifest(&manifest);
                let d = engine.evaluate_one(&call, &ToolContext::new());
                let want = expected(mode, policy);
                assert_eq!(d.action, want, "{mode:?} {source:?} {policy:?}: {d:?}");
                assert_eq!(d.policy, policy, "{mode:?} {source:?} {policy:?}");
                let skipped_by_mode = policy == Required
                    && matches!(mode, ApprovalMode::AutoRun | ApprovalMode::Headless);
                let want_level = if skipped_by_mode { Level::Mode } else { level };
                assert_eq!(
                    d.reason.level, want_level,
                    "{mode:?} {source:?} {policy:?}: {d:?}"
                );
                assert_eq!(d.blocked_output().is_some(), want == Action::Block);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * 6 * 4);
}

#[test]
fn allow_listed_keys_run_unless_always_or_deny() {
    for source in SOURCES {
        for policy in POLICIES {
            let (_, manifest, _) = setup(source, policy, ApprovalMode::AllowList);
            let engine = PolicyEngine::builder()
                .mode(ApprovalMode::AllowList)
                .allow(["t/a"])
                .blacklist(None)
                .dynamic_audit(Arc::new(FlagAudit));
            let engine = match source {
                Source::Global => engine.global_audit(Arc::new(FixedGlobal(policy))),
                Source::HostPolicy => engine.rules(
                    "t/a",
                    vec![InterventionRule {
                        matches: None,
                        policy,
                        examples: None,
                    }],
                ),
                _ => engine,
            }
            .build()
            .unwrap();
            let args = json!({"flag": true});
            let d = engine.evaluate_one(
                &CallRef::new("t", "a", &args).with_manifest(&manifest),
                &ToolContext::new(),
            );
            let want = match policy {
                Deny => Action::Block,
                Always => Action::Ask,
                _ => Action::Run,
            };
            assert_eq!(d.action, want, "{source:?} {policy:?}: {d:?}");
            if want == Action::Run {
                assert_eq!(d.reason.level, Level::AllowList);
            }
        }
    }
}

#[test]
fn unknown_tools_ask_in_manual_and_allow_list_and_run_in_trusting_modes() {
    let args = json!({});
    for mode in MODES {
        let engine = PolicyEngine::builder()
            .mode(mode)
            .allow(["ghost/x"])
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
                    [("x".to_owned(), tool_core::ArgMatcher::Pattern("y".into()))].into(),
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
