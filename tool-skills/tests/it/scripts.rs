//! `runScript` (feature `scripts`): offered only with a computer, always
//! asks a human, runs only files of `scripts/`. Runs a harmless script in a
//! temporary folder.

use std::fs;
use std::sync::{Arc, RwLock};

use serde_json::json;
use tool_core::{Tool, ToolContext, ToolRegistry};
use tool_runtime::{LocalComputer, LocalConfig};
use tool_skills::{LoadOptions, SkillRegistry, SkillSource, SkillsTool, SkillsToolConfig};

fn setup() -> (tempfile::TempDir, SkillsTool) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("greet");
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets.\n---\nRun scripts/hello.sh.\n",
    )
    .unwrap();
    fs::write(
        dir.join("scripts/hello.sh"),
        "echo \"hello $1 from $(basename \"$PWD\")\"\n",
    )
    .unwrap();
    fs::write(dir.join("notes.md"), "not a script").unwrap();
    let registry =
        SkillRegistry::load([SkillSource::dir("p", root.path())], LoadOptions::default());
    let tool = SkillsTool::shared(Arc::new(RwLock::new(registry)), SkillsToolConfig::default());
    (root, tool)
}

#[test]
fn not_offered_without_a_computer() {
    let (_root, tool) = setup();
    assert!(tool.manifest().api("runScript").is_none());
}

#[tokio::test]
async fn runs_scripts_with_required_approval_and_provenance() {
    let (_root, tool) = setup();
    let tool = tool.with_computer(Arc::new(LocalComputer::new(LocalConfig::default())));
    let mut registry = ToolRegistry::new();
    let api = tool.manifest().api("runScript").unwrap().clone();
    assert_eq!(
        serde_json::to_value(&api.human_intervention).unwrap(),
        json!("required")
    );
    let ctx = ToolContext::new();
    let out = tool.call("runScript", json!({"skill": "greet", "script": "scripts/hello.sh", "args": ["world; echo injected"]}), &ctx).await.unwrap();
    assert!(out.success, "{out:?}");
    assert!(
        out.content
            .contains("hello world; echo injected from greet"),
        "{}",
        out.content
    );
    assert_eq!(
        out.state.as_ref().unwrap()["provenance"]["script"],
        "scripts/hello.sh"
    );
    let out = tool
        .call(
            "runScript",
            json!({"skill": "greet", "script": "../notes.md"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out.error_code().unwrap(), "path_not_allowed");
    let out = tool
        .call(
            "runScript",
            json!({"skill": "greet", "script": "notes.md"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out.error_code().unwrap(), "reference_not_found");
    registry.register(tool).unwrap();
    let offered = registry.offer(&ctx);
    assert!(
        offered
            .openai_chat_tools()
            .iter()
            .any(|t| t["function"]["name"] == "skills____runScript")
    );
}
