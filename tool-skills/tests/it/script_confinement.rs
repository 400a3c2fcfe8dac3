//! `runScript` runs under the confinement its call was decided with: the
//! API touches the host, a gated invoker puts the decision's
//! `Confinement` in the context, and the local computer's sandbox applies
//! it to the script (writes in the workspace work, writes to the skill's
//! own folder are refused). Harmless scripts in temporary folders only.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use serde_json::json;
use tool_core::{
    Confinement, Gate, GateDecision, Invoker, OfferedTools, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, pipeline::PreparedCall,
};
use tool_runtime::{LocalComputer, LocalConfig, probe_kernel};
use tool_skills::{LoadOptions, SkillRegistry, SkillSource, SkillsTool, SkillsToolConfig};

/// Runs every call under one confinement.
struct RunConfined(Confinement);

#[async_trait]
impl Gate for RunConfined {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|_| GateDecision::run().with_confinement(self.0.clone()))
            .collect()
    }
}

/// A base outside the system temp dir (which the sandbox keeps writable).
fn base_outside_temp() -> PathBuf {
    let real = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let temp = real(&std::env::temp_dir());
    [
        Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        Some(PathBuf::from("/var/tmp")),
        std::env::var_os("HOME").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .find(|dir| dir.is_dir() && !real(dir).starts_with(&temp))
    .expect("a writable directory outside the system temp dir")
}

struct Setup {
    _base: tempfile::TempDir,
    workspace: PathBuf,
    skill: PathBuf,
    registry: ToolRegistry,
}

/// A workspace, and beside it a skill whose script writes `$2` to `$1`.
fn setup() -> Setup {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = fs::canonicalize(base.path()).unwrap();
    let workspace = root.join("ws");
    let skills = root.join("skills");
    let skill = skills.join("scribe");
    fs::create_dir_all(&workspace).unwrap();
    fs::create_dir_all(skill.join("scripts")).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: scribe\ndescription: Writes a line to a file.\n---\nRun scripts/write.sh FILE TEXT.\n",
    )
    .unwrap();
    fs::write(
        skill.join("scripts/write.sh"),
        "printf '%s\\n' \"$2\" > \"$1\"\n",
    )
    .unwrap();
    let loaded = SkillRegistry::load([SkillSource::dir("p", &skills)], LoadOptions::default());
    let tool = SkillsTool::shared(Arc::new(RwLock::new(loaded)), SkillsToolConfig::default())
        .with_computer(Arc::new(LocalComputer::new(LocalConfig::default())));
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    Setup {
        _base: base,
        workspace,
        skill,
        registry,
    }
}

async fn run_script(setup: &Setup, gate: Option<Confinement>, file: &Path) -> ToolOutput {
    let ctx = ToolContext::new().with_cwd(&setup.workspace);
    let offered = setup.registry.offer(&ctx);
    let invoker = match gate {
        Some(confinement) => Invoker::default().with_gate(Arc::new(RunConfined(confinement))),
        None => Invoker::default(),
    };
    let args = json!({"skill": "scribe", "script": "scripts/write.sh", "args": [file.display().to_string(), "hello"]});
    invoker
        .invoke(
            &offered,
            &ToolCall::new("skills____runScript", args.to_string()),
            &ctx,
        )
        .await
}

#[test]
fn run_script_is_marked_as_touching_the_host() {
    let s = setup();
    let tool = s.registry.get("skills").unwrap();
    let api = tool.manifest().api("runScript").unwrap();
    assert!(api.touches_host);
    for other in ["activateSkill", "readReference"] {
        assert!(!tool.manifest().api(other).unwrap().touches_host, "{other}");
    }
}

#[tokio::test]
async fn a_confined_script_writes_in_the_workspace_but_not_in_its_skill_folder() {
    if let Err(reason) = probe_kernel() {
        return test_support::cannot_check("confinement", reason);
    }
    let s = setup();
    let inside = s.workspace.join("out.txt");
    let out = run_script(&s, Some(Confinement::workspace_write()), &inside).await;
    assert!(out.success, "{out:?}");
    assert_eq!(fs::read_to_string(&inside).unwrap(), "hello\n");
    let state = out.state.as_ref().unwrap();
    assert_eq!(state["sandbox"]["policy"], "workspace_write", "{state}");
    assert_eq!(state["provenance"]["script"], "scripts/write.sh");

    let planted = s.skill.join("scripts/planted.sh");
    let out = run_script(&s, Some(Confinement::workspace_write()), &planted).await;
    assert_ne!(
        out.state.as_ref().unwrap()["exitCode"],
        0,
        "the skill folder is outside the writable roots: {out:?}"
    );
    assert!(!planted.exists(), "a confined script changed its own skill");

    let out = run_script(
        &s,
        Some(Confinement::read_only()),
        &s.workspace.join("ro.txt"),
    )
    .await;
    assert_ne!(out.state.as_ref().unwrap()["exitCode"], 0, "{out:?}");
    assert!(!s.workspace.join("ro.txt").exists());
    assert_eq!(
        out.state.as_ref().unwrap()["sandbox"]["policy"],
        "read_only"
    );
}

#[tokio::test]
async fn without_a_confinement_in_the_context_the_computer_s_own_policy_applies() {
    let s = setup();
    let planted = s.skill.join("scripts/planted.sh");
    let out = run_script(&s, None, &planted).await;
    assert!(out.success, "{out:?}");
    assert!(
        planted.exists(),
        "an unconfined computer runs the script with the host's rights"
    );
    assert_eq!(
        out.state.as_ref().unwrap()["sandbox"]["policy"],
        "full_access"
    );
}
