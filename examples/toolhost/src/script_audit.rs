//! The audit toolhost adds in headless mode for skill scripts.

use std::sync::Arc;

use tool_approval::{AuditHit, AuditInput, GlobalAudit};
use tool_core::InterventionPolicy;
use tool_skills::SKILLS_IDENTIFIER;

/// Skill scripts are code from a skill folder, run at a model's request:
/// `runScript` carries `humanIntervention: required`, which the approval
/// modes that trust static policies (auto-run, headless) skip. A headless
/// host has nobody to ask, so toolhost adds this audit in headless mode
/// only: it turns every `skills____runScript` call into a finding that
/// needs a human, which headless mode blocks (manual still asks, auto-run
/// still runs).
#[derive(Debug)]
struct HeadlessScripts;

impl GlobalAudit for HeadlessScripts {
    fn name(&self) -> &str {
        "headlessSkillScripts"
    }

    fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit> {
        (input.call.identifier == SKILLS_IDENTIFIER && input.call.api == "runScript").then(|| {
            AuditHit {
                policy: InterventionPolicy::Required,
                rule: "skills/runScript".into(),
                message: "a skill script runs code from a skill folder; a person approves each run"
                    .into(),
            }
        })
    }
}

/// The audit toolhost adds in headless mode (see [`HeadlessScripts`]).
pub fn headless_scripts_audit() -> Arc<dyn GlobalAudit> {
    Arc::new(HeadlessScripts)
}
