//! `toolhost --skills DIR mcp serve` serves the skills as MCP resources
//! (each `SKILL.md`) and prompts, next to the `skills` tool. The client is
//! tool-mcp's manager (rmcp) talking to a real `toolhost` process over
//! stdio; the skills are the repository's examples and one written by the
//! test.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tool_mcp::rmcp::model::{ContentBlock, ResourceContents};
use tool_mcp::{Error, McpManager, McpServerConfig, McpTransport};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

const OWN_SKILL: &str = "---\nname: tea-brewing\ndescription: Brews tea at the right temperature. Use when asked about tea.\n---\n# Tea\n\nGreen tea at 80 °C for two minutes.\n";

/// `toolhost [--skills DIR]… mcp serve` over stdio, as server `host`.
fn host(cwd: &Path, skills: &[&Path]) -> McpManager {
    let mut args = vec![
        "--cwd".to_owned(),
        cwd.display().to_string(),
        "--mode".into(),
        "auto-run".into(),
    ];
    for dir in skills {
        args.push("--skills".into());
        args.push(dir.display().to_string());
    }
    args.extend(["mcp".into(), "serve".into()]);
    let manager = McpManager::default();
    manager
        .upsert(
            McpServerConfig::new(
                "host",
                McpTransport::stdio(env!("CARGO_BIN_EXE_toolhost"), args),
            )
            .with_startup_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    manager
}

fn args(value: Value) -> Map<String, Value> {
    serde_json::from_value(value).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_served_as_mcp_resources_and_prompts() {
    let cwd = tempfile::tempdir().unwrap();
    let own = cwd.path().join("skills/tea-brewing");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("SKILL.md"), OWN_SKILL).unwrap();
    let manager = host(cwd.path(), &[&examples(), &cwd.path().join("skills")]);

    let resources = manager.list_resources("host").await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://commit-messages/SKILL.md",
            "skill://release-notes/SKILL.md",
            "skill://tea-brewing/SKILL.md",
            "skill://unit-conversion/SKILL.md",
        ]
    );
    let tea = &resources[2];
    assert_eq!(tea.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(
        tea.description.as_deref(),
        Some("Brews tea at the right temperature. Use when asked about tea.")
    );

    // The contents are the SKILL.md files, whole.
    for (uri, file) in [
        ("skill://tea-brewing/SKILL.md", own.join("SKILL.md")),
        (
            "skill://unit-conversion/SKILL.md",
            examples().join("unit-conversion/SKILL.md"),
        ),
    ] {
        let read = manager.read_resource("host", uri).await.unwrap();
        let [
            ResourceContents::TextResourceContents {
                text, mime_type, ..
            },
        ] = read.contents.as_slice()
        else {
            panic!("{read:?}");
        };
        assert_eq!(text, &std::fs::read_to_string(&file).unwrap(), "{uri}");
        assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    }

    // Every file of a skill is served too, as the skills extension
    // (SEP-2640) lists it.
    let table = manager
        .read_resource("host", "skill://unit-conversion/references/table.md")
        .await
        .unwrap();
    let [ResourceContents::TextResourceContents { text, .. }] = table.contents.as_slice() else {
        panic!("{table:?}");
    };
    let on_disk = examples().join("unit-conversion/references/table.md");
    assert_eq!(text, &std::fs::read_to_string(on_disk).unwrap());

    // URIs name listed files of loaded skills, never paths.
    for uri in [
        "skill://no-such-skill/SKILL.md",
        "skill://../unit-conversion/SKILL.md",
        "skill://unit-conversion/references/../SKILL.md",
        "skill://unit-conversion/references/../../release-notes/SKILL.md",
        "skill://unit-conversion/%2E%2E/release-notes/SKILL.md",
        "skill://unit-conversion/references/table.md/",
        "skill://unit-conversion//references/table.md",
        "skill://unit-conversion/.hidden",
        "file:///etc/passwd",
    ] {
        let error = manager.read_resource("host", uri).await.unwrap_err();
        assert!(
            matches!(&error, Error::Request { server, message, .. }
                if server == "host" && message.contains("does not exist")),
            "{uri}: {error:?}"
        );
    }

    let prompts = manager.list_prompts("host").await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "commit-messages",
            "release-notes",
            "tea-brewing",
            "unit-conversion"
        ]
    );
    let task = prompts[2].arguments.as_deref().unwrap();
    assert_eq!(
        (task[0].name.as_str(), task[0].required),
        ("task", Some(false))
    );

    let rendered = manager
        .get_prompt(
            "host",
            "tea-brewing",
            args(json!({"task": "a cup of sencha"})),
        )
        .await
        .unwrap();
    let ContentBlock::Text(text) = &rendered.messages[0].content else {
        panic!("{rendered:?}");
    };
    assert_eq!(
        text.text,
        "# Tea\n\nGreen tea at 80 °C for two minutes.\n\nTask: a cup of sencha"
    );
    let plain = manager
        .get_prompt("host", "tea-brewing", Map::new())
        .await
        .unwrap();
    let ContentBlock::Text(text) = &plain.messages[0].content else {
        panic!("{plain:?}");
    };
    assert_eq!(text.text, "# Tea\n\nGreen tea at 80 °C for two minutes.");

    for (name, arguments, says) in [
        ("tea-brewing", json!({"cups": 2}), "no argument `cups`"),
        ("tea-brewing", json!({"task": 3}), "`task` is a string"),
        ("coffee", json!({}), "prompt `coffee` does not exist"),
    ] {
        let error = manager
            .get_prompt("host", name, args(arguments))
            .await
            .unwrap_err();
        assert!(error.to_string().contains(says), "{name}: {error}");
    }

    // The skills tool is still served.
    let catalog = manager.catalog("host").await.unwrap();
    assert!(
        catalog
            .tools
            .iter()
            .any(|t| t.name.starts_with("skills____")),
        "{:?}",
        catalog.tools
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_skills_no_resources_or_prompts_are_offered() {
    let cwd = tempfile::tempdir().unwrap();
    let manager = host(cwd.path(), &[]);
    let error = manager.list_resources("host").await.unwrap_err();
    assert_eq!(error.code(), "mcp_not_offered", "{error}");
    let error = manager.list_prompts("host").await.unwrap_err();
    assert_eq!(error.code(), "mcp_not_offered", "{error}");
    manager.shutdown().await;
}

/// `toolhost --mcp-stdio "toolhost --skills DIR mcp serve" mcp ARGS…`: one
/// toolhost as the client of another; stdout as JSON, and the exit code.
fn client(cwd: &Path, skills: &Path, args: &[&str]) -> (Value, Option<i32>) {
    let toolhost = env!("CARGO_BIN_EXE_toolhost");
    let served = format!(
        "{toolhost} --cwd {} --skills {} mcp serve",
        cwd.display(),
        skills.display()
    );
    let out = std::process::Command::new(toolhost)
        .args([
            "--cwd",
            &cwd.display().to_string(),
            "--mcp-stdio",
            &served,
            "mcp",
        ])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or_else(
        |_| json!({"stdout": stdout, "stderr": String::from_utf8_lossy(&out.stderr)}),
    );
    (value, out.status.code())
}

#[test]
fn toolhost_lists_reads_and_renders_a_servers_resources_and_prompts() {
    let cwd = tempfile::tempdir().unwrap();
    let (library, code) = client(cwd.path(), &examples(), &["library"]);
    assert_eq!(code, Some(0), "{library}");
    let server = &library["servers"][0];
    assert_eq!(server["id"], "mcp1", "{library}");
    assert_eq!(
        server["resources"][2]["uri"], "skill://unit-conversion/SKILL.md",
        "{library}"
    );
    assert_eq!(server["templates"], json!([]), "{library}");
    assert_eq!(server["prompts"][0]["name"], "commit-messages", "{library}");

    let (read, code) = client(
        cwd.path(),
        &examples(),
        &["read", "mcp1", "skill://unit-conversion/SKILL.md"],
    );
    assert_eq!(code, Some(0), "{read}");
    assert_eq!(
        read["contents"][0]["text"],
        std::fs::read_to_string(examples().join("unit-conversion/SKILL.md")).unwrap()
    );

    let (prompt, code) = client(
        cwd.path(),
        &examples(),
        &[
            "prompt",
            "mcp1",
            "unit-conversion",
            r#"{"task": "5 miles in km"}"#,
        ],
    );
    assert_eq!(code, Some(0), "{prompt}");
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.ends_with("\n\nTask: 5 miles in km"), "{text}");

    let (missing, code) = client(
        cwd.path(),
        &examples(),
        &["read", "mcp1", "skill://nothing/SKILL.md"],
    );
    assert_eq!(code, Some(1), "{missing}");
    let (bad, code) = client(cwd.path(), &examples(), &["prompt", "mcp1", "x", "[1]"]);
    assert_eq!(code, Some(2), "{bad}");
}

/// A real `toolhost --skills DIR mcp serve` as the skills source of
/// another host's registry (tool-mcp's `McpSkillSource`): listed through
/// the skills extension without a file read, a folder skill of the same
/// name ahead of it shadowing the served one, and a served skill's
/// `SKILL.md` and a file fetched (and checked) only when used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_skills_folder_is_a_registry_source_of_another_host() {
    use tool_core::Tool as _;
    let cwd = tempfile::tempdir().unwrap();
    let manager = std::sync::Arc::new(host(cwd.path(), &[&examples()]));
    let own = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(own.path().join("unit-conversion")).unwrap();
    std::fs::write(
        own.path().join("unit-conversion/SKILL.md"),
        "---\nname: unit-conversion\ndescription: Our own units.\n---\nOurs.\n",
    )
    .unwrap();
    let registry = tool_skills::SkillRegistry::load_listed(
        [
            tool_skills::SkillSource::dir("project", own.path()),
            tool_mcp::McpSkillSource::new(manager.clone(), "host").into_source("mcp:host"),
        ],
        tool_skills::LoadOptions::default(),
    )
    .await;
    assert!(
        registry.findings().iter().all(|f| !f.is_error()),
        "{:?}",
        registry.findings()
    );
    let names: Vec<(&str, &str)> = registry
        .skills()
        .map(|s| (s.name(), s.source.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("commit-messages", "mcp:host"),
            ("release-notes", "mcp:host"),
            ("unit-conversion", "project"),
        ]
    );
    assert_eq!(registry.shadowed()[0].shadowed.kind, "remote");
    let tool = tool_skills::SkillsTool::new(registry);
    let ctx = tool_core::ToolContext::new();
    let out = tool
        .call("activateSkill", json!({"name": "commit-messages"}), &ctx)
        .await
        .unwrap();
    assert!(out.success, "{out:?}");
    assert!(out.content.contains("# Commit messages"), "{}", out.content);
    assert!(
        out.content.contains("<file>references/examples.md</file>"),
        "{}",
        out.content
    );
    let out = tool
        .call(
            "readReference",
            json!({"skill": "commit-messages", "path": "references/examples.md"}),
            &ctx,
        )
        .await
        .unwrap();
    let on_disk =
        std::fs::read_to_string(examples().join("commit-messages/references/examples.md")).unwrap();
    assert_eq!(out.content, on_disk);
    manager.shutdown().await;
}

/// `toolhost mcp skill-catalog`: the client's own `--skills` folder ahead
/// of the served skills (one shadowing a served skill of the same name),
/// the catalog a model would see, and `--activate` fetching a served
/// skill's `SKILL.md` through the `skills` tool.
#[test]
fn toolhost_loads_a_servers_skills_behind_its_own_folders() {
    let cwd = tempfile::tempdir().unwrap();
    let own = cwd.path().join("own");
    std::fs::create_dir_all(own.join("unit-conversion")).unwrap();
    std::fs::write(
        own.join("unit-conversion/SKILL.md"),
        "---\nname: unit-conversion\ndescription: Our own units.\n---\nOurs.\n",
    )
    .unwrap();
    let own = own.display().to_string();
    let (out, code) = client(
        cwd.path(),
        &examples(),
        &[
            "skill-catalog",
            "--skills",
            &own,
            "--activate",
            "commit-messages",
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    let sources: Vec<(&str, &str)> = out["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sources,
        [
            ("commit-messages", "mcp:mcp1"),
            ("release-notes", "mcp:mcp1"),
            ("unit-conversion", "skills[0]"),
        ],
        "{out}"
    );
    assert_eq!(out["shadowed"][0]["shadowed"]["kind"], "remote", "{out}");
    let catalog = out["catalog"].as_str().unwrap();
    assert!(catalog.contains("<name>release-notes</name>"), "{catalog}");
    assert!(catalog.contains("Our own units."), "{catalog}");
    assert_eq!(out["activated"]["success"], true, "{out}");
    let content = out["activated"]["content"].as_str().unwrap();
    assert!(content.contains("# Commit messages"), "{content}");
}
