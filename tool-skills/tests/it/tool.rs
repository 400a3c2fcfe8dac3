//! The `skills` tool through the real pipeline: activation, every
//! readReference resolution step, binary and oversize files, provenance.

use std::fs;
use std::sync::{Arc, RwLock};

use serde_json::{Value, json};
use tool_core::{Invoker, Tool, ToolCall, ToolContext, ToolOutput, ToolRegistry};
use tool_skills::{
    BuiltinSkill, LoadOptions, SkillRegistry, SkillSource, SkillsTool, SkillsToolConfig,
};

use crate::common::write;

/// A disk skill `pdf` with nested references, an asset and a script, and a
/// builtin skill `notes` with resources.
fn fixture() -> (tempfile::TempDir, SkillRegistry) {
    let root = tempfile::tempdir().unwrap();
    let d = root.path();
    write(d, "pdf/SKILL.md", b"---\nname: pdf\ndescription: Works with PDF files.\nlicense: MIT\n---\n# PDF\nSee references/forms.md.\n");
    write(d, "pdf/references/forms.md", b"# Forms\nFill them.");
    write(d, "pdf/references/deep/Layout.md", b"layout notes");
    write(d, "pdf/references/api.txt", b"api text");
    write(d, "pdf/guide", b"guide without extension");
    write(d, "pdf/README.md", b"readme one");
    write(d, "pdf/docs/README.md", b"readme two");
    write(d, "pdf/a/tips.md", b"tips one");
    write(d, "pdf/b/tips.md", b"tips two");
    write(d, "pdf/assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(d, "pdf/assets/big.txt", vec![b'a'; 300 * 1024]);
    write(d, "pdf/scripts/extract.py", b"print('hi')\n");
    write(d, "pdf/Mixed/Case.md", b"mixed one");
    write(d, "pdf/mixed/case.md", b"mixed two");
    let registry = SkillRegistry::load(
        [
            SkillSource::dir("project", d),
            SkillSource::builtin(
                "builtin",
                [BuiltinSkill::new(
                    "notes",
                    "notes",
                    "Takes notes.",
                    "# Notes\nUse references/style.md.",
                )
                .resource("references/style.md", "Short sentences.")
                .resource("references/Tone.md", "Calm.")
                .resource("assets/icon.bin", vec![0u8, 1, 2, 3])
                .resource("a/dup.md", "one")
                .resource("b/dup.md", "two")],
            ),
        ],
        LoadOptions::default(),
    );
    (root, registry)
}

async fn call(tool: &SkillsTool, api: &str, args: Value) -> ToolOutput {
    tool.call(api, args, &ToolContext::new()).await.unwrap()
}

async fn read(tool: &SkillsTool, skill: &str, path: &str) -> ToolOutput {
    call(tool, "readReference", json!({"skill": skill, "path": path})).await
}

fn state(out: &ToolOutput) -> &Value {
    out.state.as_ref().expect("every result has a state")
}

#[tokio::test]
async fn offered_with_catalog_system_role_and_enum_of_enabled_names() {
    let (_root, skills) = fixture();
    let shared = Arc::new(RwLock::new(skills));
    let tool = SkillsTool::shared(Arc::clone(&shared), SkillsToolConfig::default());
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let prompt = offered.system_prompt().unwrap();
    assert!(prompt.contains("<available_skills>"));
    assert!(prompt.contains("<name>pdf</name>"));
    let tools = offered.openai_chat_tools();
    let activate = tools
        .iter()
        .find(|t| t["function"]["name"] == "skills____activateSkill")
        .unwrap();
    assert_eq!(
        activate["function"]["parameters"]["properties"]["name"]["enum"],
        json!(["notes", "pdf"])
    );
    assert!(
        !tools
            .iter()
            .any(|t| t["function"]["name"] == "skills____runScript")
    );

    shared.write().unwrap().disable("pdf").unwrap();
    let offered = registry.offer(&ctx);
    let tools = offered.openai_chat_tools();
    let activate = tools
        .iter()
        .find(|t| t["function"]["name"] == "skills____activateSkill")
        .unwrap();
    assert_eq!(
        activate["function"]["parameters"]["properties"]["name"]["enum"],
        json!(["notes"])
    );
    assert!(
        !offered
            .system_prompt()
            .unwrap()
            .contains("<name>pdf</name>")
    );

    shared.write().unwrap().disable("notes").unwrap();
    assert!(
        registry.offer(&ctx).openai_chat_tools().is_empty(),
        "no skills, no tool"
    );

    shared.write().unwrap().enable("pdf").unwrap();
    let invoker = Invoker::default();
    let offered = registry.offer(&ctx);
    let wrong = invoker
        .invoke(
            &offered,
            &ToolCall::new("skills____activateSkill", r#"{"name":"notes"}"#),
            &ctx,
        )
        .await;
    assert_eq!(
        wrong.error_code().unwrap(),
        "invalid_arguments",
        "the enum stops disabled names"
    );
    let ok = invoker
        .invoke(
            &offered,
            &ToolCall::new("skills____activateSkill", r#"{"name":"pdf"}"#),
            &ctx,
        )
        .await;
    assert!(ok.success);
}

#[tokio::test]
async fn activation_wraps_the_body_names_the_folder_and_lists_files() {
    let (root, skills) = fixture();
    let tool = SkillsTool::new(skills);
    let out = call(&tool, "activateSkill", json!({"name": "pdf"})).await;
    assert!(out.success);
    let dir = fs::canonicalize(root.path().join("pdf")).unwrap();
    assert!(out.content.starts_with(
        "<skill_content name=\"pdf\" source=\"project\">\n# PDF\nSee references/forms.md.\n"
    ));
    assert!(
        !out.content.contains("description: Works"),
        "frontmatter is stripped"
    );
    assert!(
        out.content
            .contains(&format!("Skill folder: {}", dir.display()))
    );
    assert!(out.content.contains("<file>references/forms.md</file>"));
    assert!(!out.content.contains("<file>SKILL.md</file>"));
    assert!(out.content.ends_with("</skill_content>"));
    let s = state(&out);
    assert_eq!(s["skill"], "pdf");
    assert_eq!(s["source"], "project");
    assert_eq!(s["kind"], "disk");
    assert_eq!(s["matched"], "exact");
    assert_eq!(s["frontmatter"]["license"], "MIT");
    assert!(s["file"].as_str().unwrap().ends_with("pdf/SKILL.md"));
}

#[tokio::test]
async fn activation_file_list_is_capped() {
    let (_root, skills) = fixture();
    let mut config = SkillsToolConfig::default();
    config.references.max_listed = 3;
    let tool = SkillsTool::shared(Arc::new(RwLock::new(skills)), config);
    let out = call(&tool, "activateSkill", json!({"name": "pdf"})).await;
    assert_eq!(state(&out)["files"].as_array().unwrap().len(), 3);
    assert_eq!(state(&out)["filesTruncated"], true);
    assert!(out.content.contains("<!-- list cut at 3 files"));
}

#[tokio::test]
async fn activation_lookup_case_insensitive_ambiguous_and_miss() {
    let skills = SkillRegistry::load(
        [SkillSource::builtin(
            "b",
            [
                BuiltinSkill::new("1", "pdf-processing", "PDFs.", "Body"),
                BuiltinSkill::new("2", "Docs", "Docs.", "Body"),
                BuiltinSkill::new("3", "docs", "docs.", "Body"),
            ],
        )],
        LoadOptions::default(),
    );
    let tool = SkillsTool::new(skills);
    let out = tool.activate("PDF-Processing");
    assert!(out.success);
    assert_eq!(state(&out)["matched"], "caseInsensitive");
    let out = tool.activate("DOCS");
    assert_eq!(out.error_code().unwrap(), "ambiguous_skill");
    assert_eq!(
        out.error.unwrap().details.unwrap()["candidates"],
        json!(["Docs", "docs"])
    );
    let out = tool.activate("pdf-procesing");
    assert_eq!(out.error_code().unwrap(), "skill_not_found");
    assert!(out.content.contains("Close matches: pdf-processing"));
    assert!(
        out.content
            .contains("Available skills: Docs, docs, pdf-processing")
    );
    assert_eq!(state(&out)["requested"], "pdf-procesing");
}

#[tokio::test]
async fn every_resolution_step_on_disk() {
    let (_root, skills) = fixture();
    let tool = SkillsTool::new(skills);
    let cases = [
        (
            "references/forms.md",
            "references/forms.md",
            "exact",
            "# Forms\nFill them.",
        ),
        (
            "./references//forms.md",
            "references/forms.md",
            "exact",
            "# Forms\nFill them.",
        ),
        (
            "REFERENCES/Forms.MD",
            "references/forms.md",
            "caseInsensitive",
            "# Forms\nFill them.",
        ),
        (
            "references/forms",
            "references/forms.md",
            "withMarkdownExtension",
            "# Forms\nFill them.",
        ),
        (
            "references/deep/layout",
            "references/deep/Layout.md",
            "withMarkdownExtension",
            "layout notes",
        ),
        (
            "guide.md",
            "guide",
            "withoutMarkdownExtension",
            "guide without extension",
        ),
        (
            "forms.md",
            "references/forms.md",
            "uniqueFileName",
            "# Forms\nFill them.",
        ),
        (
            "layout",
            "references/deep/Layout.md",
            "uniqueFileName",
            "layout notes",
        ),
        (
            "api.txt",
            "references/api.txt",
            "uniqueFileName",
            "api text",
        ),
        (
            "references%2fforms.md",
            "references/forms.md",
            "exact",
            "# Forms\nFill them.",
        ),
    ];
    for (asked, path, how, content) in cases {
        let out = read(&tool, "pdf", asked).await;
        assert!(out.success, "{asked}: {out:?}");
        let s = state(&out);
        assert_eq!(s["path"], path, "{asked}");
        assert_eq!(s["resolution"], how, "{asked}");
        assert_eq!(out.content, content, "{asked}");
        assert_eq!(s["skill"], "pdf");
        assert_eq!(s["source"], "project");
        assert!(s["file"].as_str().unwrap().ends_with(path), "{asked}");
    }
}

#[tokio::test]
async fn ambiguity_misses_and_non_files_on_disk() {
    let (_root, skills) = fixture();
    let tool = SkillsTool::new(skills);
    let out = read(&tool, "pdf", "tips").await;
    assert_eq!(out.error_code().unwrap(), "ambiguous_reference", "{out:?}");
    let candidates = &out.error.as_ref().unwrap().details.as_ref().unwrap()["candidates"];
    assert_eq!(candidates, &json!(["a/tips.md", "b/tips.md"]));
    let out = read(&tool, "pdf", "readme.md").await;
    assert_eq!(
        out.content, "readme one",
        "the case-insensitive step comes before the file-name search"
    );
    let out = read(&tool, "pdf", "docs/readme").await;
    assert!(
        out.success,
        "a unique case-insensitive path with .md added: {out:?}"
    );
    assert_eq!(out.content, "readme two");
    let out = read(&tool, "pdf", "MIXED/case.md").await;
    assert_eq!(out.error_code().unwrap(), "ambiguous_reference");
    let candidates = &out.error.as_ref().unwrap().details.as_ref().unwrap()["candidates"];
    assert_eq!(candidates, &json!(["Mixed", "mixed"]));
    let out = read(&tool, "pdf", "mixed/CASE.md").await;
    assert_eq!(
        out.content, "mixed two",
        "an exact component wins over a folded one"
    );
    let out = read(&tool, "pdf", "nothing-here.md").await;
    assert_eq!(out.error_code().unwrap(), "reference_not_found");
    assert!(
        out.content.contains("references/forms.md"),
        "a miss lists the files: {}",
        out.content
    );
    assert!(state(&out)["files"].as_array().unwrap().len() > 5);
    let out = read(&tool, "pdf", "references").await;
    assert_eq!(out.error_code().unwrap(), "not_a_file");
    assert_eq!(state(&out)["skill"], "pdf");
}

#[cfg(unix)]
#[tokio::test]
async fn special_files_are_not_read() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        "s/SKILL.md",
        b"---\nname: s\ndescription: S.\n---\nbody\n",
    );
    std::os::unix::fs::symlink("/dev/null", root.path().join("s/null")).unwrap();
    let tool = SkillsTool::new(SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::default(),
    ));
    let out = read(&tool, "s", "null").await;
    assert_eq!(
        out.error_code().unwrap(),
        "path_not_allowed",
        "a link to /dev/null leaves the folder"
    );
}

#[tokio::test]
async fn binary_and_oversize_files() {
    let (_root, skills) = fixture();
    let tool = SkillsTool::new(skills);
    let out = read(&tool, "pdf", "assets/logo.png").await;
    assert!(out.success);
    assert_eq!(state(&out)["binary"], true);
    assert_eq!(state(&out)["mediaType"], "image/png");
    assert_eq!(state(&out)["bytes"], 16);
    assert!(out.content.contains("binary file (image/png, 16 bytes)"));
    assert!(!out.content.contains("PNG"), "never dumped");
    let out = read(&tool, "pdf", "assets/big.txt").await;
    assert_eq!(out.error_code().unwrap(), "reference_too_large");
    assert_eq!(
        out.error.as_ref().unwrap().details.as_ref().unwrap()["bytes"],
        300 * 1024
    );
    let out = read(&tool, "notes", "assets/icon.bin").await;
    assert_eq!(state(&out)["binary"], true);
    assert_eq!(state(&out)["kind"], "builtin");
}

#[tokio::test]
async fn every_resolution_step_in_memory() {
    let (_root, skills) = fixture();
    let tool = SkillsTool::new(skills);
    let cases = [
        (
            "references/style.md",
            "references/style.md",
            "exact",
            "Short sentences.",
        ),
        (
            "References/STYLE.md",
            "references/style.md",
            "caseInsensitive",
            "Short sentences.",
        ),
        (
            "references/style",
            "references/style.md",
            "withMarkdownExtension",
            "Short sentences.",
        ),
        (
            "references/tone",
            "references/Tone.md",
            "withMarkdownExtension",
            "Calm.",
        ),
        (
            "style",
            "references/style.md",
            "uniqueFileName",
            "Short sentences.",
        ),
    ];
    for (asked, path, how, content) in cases {
        let out = read(&tool, "notes", asked).await;
        assert!(out.success, "{asked}: {out:?}");
        assert_eq!(state(&out)["path"], path, "{asked}");
        assert_eq!(state(&out)["resolution"], how, "{asked}");
        assert_eq!(out.content, content);
        assert_eq!(state(&out)["location"], "builtin:notes");
    }
    let out = read(&tool, "notes", "dup").await;
    assert_eq!(out.error_code().unwrap(), "ambiguous_reference");
    let out = read(&tool, "notes", "missing").await;
    assert_eq!(out.error_code().unwrap(), "reference_not_found");
    assert!(out.content.contains("references/style.md"));
    let out = read(&tool, "notes", "../pdf/SKILL.md").await;
    assert_eq!(out.error_code().unwrap(), "path_not_allowed");
    let out = read(&tool, "nobody", "x").await;
    assert_eq!(out.error_code().unwrap(), "skill_not_found");
}

#[tokio::test]
async fn reload_through_the_shared_handle_refreshes_the_offer() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        "a/SKILL.md",
        b"---\nname: a\ndescription: A.\n---\nbody\n",
    );
    let shared = Arc::new(RwLock::new(SkillRegistry::load(
        [SkillSource::dir("p", root.path())],
        LoadOptions::default(),
    )));
    let tool = SkillsTool::shared(Arc::clone(&shared), SkillsToolConfig::default());
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    write(
        root.path(),
        "b/SKILL.md",
        b"---\nname: b\ndescription: B.\n---\nbody\n",
    );
    let diff = shared.write().unwrap().reload();
    assert_eq!(diff.added, ["b"]);
    let prompt = registry.offer(&ToolContext::new()).system_prompt().unwrap();
    assert!(prompt.contains("<name>b</name>"));
}
