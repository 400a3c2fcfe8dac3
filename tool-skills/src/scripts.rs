//! `runScript`: runs a file of a skill's `scripts/` folder on a host-supplied
//! `ComputerRuntime` (feature `scripts`). Its policy is `required` and its
//! API is marked [`touching_host`](tool_core::ApiDefinition::touching_host):
//! a gate decides it like any command, and the script runs as the computer's
//! `runCommand` with the call's own context, so the
//! [`Confinement`](tool_core::Confinement) a gated invoker put there
//! (`ctx.extension::<Confinement>()`) is the one the computer applies (with
//! [`LocalComputer`](tool_runtime::LocalComputer), the OS sandbox; the
//! workspace is the context's working directory, not the skill folder, so a
//! confined script cannot change its own skill).
//!
//! tool-skills never starts a process itself: the computer does.

use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolError, ToolOutput,
};
use tool_runtime::{ComputerRuntime, RunCommandParams};

use crate::codes;
use crate::reference::{ReferenceLimits, resolve_disk};
use crate::registry::SkillRegistry;
use crate::skill::Origin;
use crate::skill_lookup::find_skill;

/// The API's name.
pub(crate) const RUN: &str = "runScript";

/// Arguments of `runScript`.
#[derive(Debug, Deserialize)]
pub(crate) struct RunArgs {
    skill: String,
    script: String,
    #[serde(default)]
    args: Vec<String>,
}

/// A script ready to run.
#[derive(Debug)]
pub(crate) struct Prepared {
    command: String,
    cwd: String,
    provenance: Value,
}

/// The API definition: `humanIntervention: required`, touching the host.
pub(crate) fn api_definition() -> ApiDefinition {
    ApiDefinition::new(
        RUN,
        "Runs a script from a skill's scripts/ folder (e.g. scripts/extract.py) with optional arguments, in the skill folder. A person approves every run.",
    )
    .with_parameters(json!({
        "type": "object",
        "properties": {
            "skill": {"type": "string", "description": "The skill's name."},
            "script": {"type": "string", "description": "Path inside the skill's scripts/ folder, e.g. scripts/extract.py."},
            "args": {"type": "array", "items": {"type": "string"}, "description": "Arguments passed to the script, each as one word."},
        },
        "required": ["skill", "script"],
        "additionalProperties": false,
    }))
    .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required))
    .touching_host()
}

fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

fn refuse(code: tool_core::ErrorCode, message: String, state: Value) -> Box<ToolOutput> {
    Box::new(ToolOutput::failure(ToolError::new(code, message)).state(state))
}

/// Resolves the script inside `scripts/` and builds its command line.
pub(crate) fn prepare(
    registry: &SkillRegistry,
    args: &RunArgs,
    limits: &ReferenceLimits,
) -> Result<Prepared, Box<ToolOutput>> {
    let (skill, _) = find_skill(registry, &args.skill)?;
    let state = skill.provenance(None).to_json();
    let Origin::Disk { dir, .. } = &skill.origin else {
        return Err(refuse(
            codes::NOT_A_SCRIPT,
            format!(
                "skill {:?} is not on disk ({}) and has no scripts to run",
                skill.name(),
                skill.provenance(None).kind
            ),
            state,
        ));
    };
    let scripts = match std::fs::canonicalize(dir.join("scripts")) {
        Ok(path) if path.starts_with(dir) && path.is_dir() => path,
        _ => {
            return Err(refuse(
                codes::NOT_A_SCRIPT,
                format!("skill {:?} has no scripts/ folder", skill.name()),
                state,
            ));
        }
    };
    let inner = args
        .script
        .strip_prefix("scripts/")
        .or_else(|| args.script.strip_prefix("./scripts/"))
        .unwrap_or(&args.script);
    let resolved = match resolve_disk(&scripts, inner, limits) {
        Ok(resolved) => resolved,
        Err(crate::reference::RefError::NotAllowed(why)) => {
            return Err(refuse(
                codes::PATH_NOT_ALLOWED,
                format!("{:?} is not allowed: {why}", args.script),
                state,
            ));
        }
        Err(_) => {
            return Err(refuse(
                codes::REFERENCE_NOT_FOUND,
                format!(
                    "skill {:?} has no script {:?} in scripts/",
                    skill.name(),
                    args.script
                ),
                state,
            ));
        }
    };
    let Some(path) = resolved.abs else {
        return Err(refuse(
            codes::REFERENCE_NOT_FOUND,
            format!("{:?} not found", args.script),
            state,
        ));
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_lowercase();
    let interpreter = match ext.as_str() {
        "py" => Some("python3"),
        "sh" => Some("sh"),
        "bash" => Some("bash"),
        "js" | "mjs" | "cjs" => Some("node"),
        "rb" => Some("ruby"),
        "pl" => Some("perl"),
        _ => None,
    };
    let shown = path.display().to_string();
    let mut command = match interpreter {
        Some(interpreter) => format!("{interpreter} {}", quote(&shown)),
        None if is_executable(&path) => quote(&shown),
        None => {
            return Err(refuse(
                codes::NOT_A_SCRIPT,
                format!(
                    "scripts/{} has no known interpreter and is not executable",
                    resolved.rel
                ),
                state,
            ));
        }
    };
    for arg in &args.args {
        command.push(' ');
        command.push_str(&quote(arg));
    }
    let mut provenance = skill.provenance(Some(&shown)).to_json();
    provenance["script"] = json!(format!("scripts/{}", resolved.rel));
    Ok(Prepared {
        command,
        cwd: dir.display().to_string(),
        provenance,
    })
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &std::path::Path) -> bool {
    false
}

/// Runs the prepared script as the computer's `runCommand` in the skill
/// folder, with `ctx` as given (its confinement included), and adds
/// provenance to the computer's state.
pub(crate) async fn run(
    computer: &dyn ComputerRuntime,
    prepared: Prepared,
    ctx: &ToolContext,
) -> ToolOutput {
    let mut params = RunCommandParams::new(prepared.command);
    params.cwd = Some(prepared.cwd);
    params.description = Some("Runs a skill script".into());
    let mut output = computer.run_command(params, ctx).await;
    let mut state = output.state.take().unwrap_or_else(|| json!({}));
    if let Value::Object(map) = &mut state {
        map.insert("provenance".into(), prepared.provenance);
    }
    output.state = Some(state);
    output
}
