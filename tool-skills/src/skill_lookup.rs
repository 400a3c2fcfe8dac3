//! Finding the skill a model's call names, with a failed output that
//! explains a miss (close matches, the available names).

use std::sync::Arc;

use serde_json::json;
use tool_core::{ToolError, ToolOutput};

use crate::codes;
use crate::registry::{Lookup, SkillRegistry};
use crate::skill::Skill;

/// Finds an enabled skill; the failed output explains a miss.
pub(crate) fn find_skill(
    registry: &SkillRegistry,
    name: &str,
) -> Result<(Arc<Skill>, &'static str), Box<ToolOutput>> {
    let available: Vec<String> = registry.enabled().map(|s| s.name().to_owned()).collect();
    match registry.lookup(name) {
        Lookup::Exact(skill) => Ok((skill, "exact")),
        Lookup::CaseInsensitive(skill) => Ok((skill, "caseInsensitive")),
        Lookup::Ambiguous(candidates) => Err(Box::new(
            ToolOutput::failure(
                ToolError::new(
                    codes::AMBIGUOUS_SKILL,
                    format!(
                        "{name:?} matches several skills ignoring case: {}; use the exact name",
                        candidates.join(", ")
                    ),
                )
                .with_details(json!({"candidates": candidates})),
            )
            .state(json!({"requested": name, "candidates": candidates})),
        )),
        Lookup::Missing { close } => {
            let mut message = format!("No enabled skill is named {name:?}.");
            if !close.is_empty() {
                message.push_str(&format!(" Close matches: {}.", close.join(", ")));
            }
            let shown: Vec<&str> = available.iter().take(50).map(String::as_str).collect();
            message.push_str(&format!(" Available skills: {}", shown.join(", ")));
            if available.len() > shown.len() {
                message.push_str(&format!(" (and {} more)", available.len() - shown.len()));
            }
            message.push('.');
            Err(Box::new(
                ToolOutput::failure(
                    ToolError::new(codes::SKILL_NOT_FOUND, message)
                        .with_details(json!({"close": close, "available": available})),
                )
                .state(json!({"requested": name, "close": close, "available": available})),
            ))
        }
    }
}
