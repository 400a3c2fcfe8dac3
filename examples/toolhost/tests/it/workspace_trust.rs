//! Trust before reading: the configuration a workspace carries
//! (`.toolhost/skills`, `.toolhost/policy.json`, `AGENTS.md`…) is reported
//! and never read until `--trust-workspace`; after it, it is used.
//! Bypass attempts: a link out of the workspace, a workspace nested in a
//! trusted one, a trusted folder replaced at its path. The commands
//! decided are never run (`check`), or are harmless echoes in temp dirs.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// A policy that lets `echo` commands run without asking.
const ECHO_RUNS: &str = r#"{"rules": {"local-system/runCommand": [
  {"match": {"command": "echo:*"}, "policy": "never"}]}}"#;
const BROKEN_SKILL: &str = "---\nname: [unclosed\ndescription: x\n---\nbody\n";

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// A workspace with a policy, a skills folder (one good skill, one
    /// whose frontmatter does not parse) and an AGENTS.md.
    fn workspace(&self, name: &str, policy: &str) -> PathBuf {
        let ws = self.dir.path().join(name);
        let skills = ws.join(".toolhost/skills");
        fs::create_dir_all(skills.join("deploy")).unwrap();
        fs::create_dir_all(skills.join("broken")).unwrap();
        fs::write(
            skills.join("deploy/SKILL.md"),
            "---\nname: deploy\ndescription: Deploys the site.\n---\nRun the deploy.\n",
        )
        .unwrap();
        fs::write(skills.join("broken/SKILL.md"), BROKEN_SKILL).unwrap();
        fs::write(ws.join(".toolhost/policy.json"), policy).unwrap();
        fs::write(ws.join("AGENTS.md"), "Always deploy on Fridays.\n").unwrap();
        ws
    }

    fn run(&self, ws: &Path, args: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .env("TOOLHOST_STATE_DIR", self.state())
            .arg("--cwd")
            .arg(ws)
            .args(args)
            .output()
            .unwrap()
    }

    fn json(&self, ws: &Path, args: &[&str]) -> Value {
        let out = self.run(ws, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The decision `check` gives an `echo` (manual mode asks by default).
    fn echo_decision(&self, ws: &Path, extra: &[&str]) -> Value {
        let mut args = extra.to_vec();
        args.extend([
            "check",
            "local-system____runCommand",
            r#"{"command": "echo hi"}"#,
        ]);
        self.json(ws, &args)
    }
}

fn entry<'a>(report: &'a Value, kind: &str) -> &'a Value {
    report["workspace"]["config"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} entry: {report}"))
}

fn identifiers(tools: &Value) -> Vec<String> {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["identifier"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_untrusted_workspace_policy_and_skills_are_reported_not_read_then_used_once_trusted() {
    let e = Env::new();
    let ws = e.workspace("repo", ECHO_RUNS);

    // Untrusted: the policy would let the echo run; it is not read.
    let out = e.echo_decision(&ws, &[]);
    assert_eq!(out["decision"]["action"], "ask", "{out}");
    assert_eq!(out["workspace"]["trusted"], false);
    assert_eq!(out["workspace"]["why"], "not_trusted");
    assert_eq!(entry(&out, "policy")["used"], false);
    assert_eq!(entry(&out, "policy")["why"], "not_trusted");

    // The skills are listed, not parsed: no skills tool, no parse finding.
    let tools = e.json(&ws, &["tools"]);
    assert!(
        !identifiers(&tools).contains(&"skills".to_owned()),
        "{tools}"
    );
    assert!(tools.get("skills").is_none(), "{tools}");
    let skills = entry(&tools, "skills");
    assert_eq!(skills["used"], false);
    let listed = skills["listed"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{skills}");
    assert!(
        listed[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("broken/SKILL.md")
    );
    assert_eq!(listed[0]["bytes"], BROKEN_SKILL.len());
    let agents = entry(&tools, "instructions");
    assert_eq!(agents["used"], false);
    assert!(agents.get("text").is_none());
    // Nothing recorded: no trust store was written.
    assert!(!e.state().join("trusted.json").exists());

    // Trusted: the same files are read and used.
    let out = e.echo_decision(&ws, &["--trust-workspace"]);
    assert_eq!(out["decision"]["action"], "run", "{out}");
    assert_eq!(out["workspace"]["trusted"], true);
    assert_eq!(entry(&out, "policy")["used"], true);
    let store = e.state().join("trusted.json");
    assert_eq!(
        fs::metadata(&store).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Kept between runs.
    let tools = e.json(&ws, &["tools"]);
    assert!(
        identifiers(&tools).contains(&"skills".to_owned()),
        "{tools}"
    );
    let codes: Vec<&str> = tools["skills"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"invalid_yaml"), "{tools}");
    assert_eq!(
        entry(&tools, "instructions")["text"],
        "Always deploy on Fridays.\n"
    );
    let activated = e.json(
        &ws,
        &["call", "skills____activateSkill", r#"{"name": "deploy"}"#],
    );
    assert_eq!(activated["output"]["success"], true, "{activated}");

    // Distrusted again: back to reported only.
    let out = e.echo_decision(&ws, &["--distrust-workspace"]);
    assert_eq!(out["decision"]["action"], "ask", "{out}");
    assert_eq!(out["workspace"]["trusted"], false);
}

#[test]
fn a_policy_file_that_does_not_parse_is_only_an_error_once_trusted() {
    let e = Env::new();
    let ws = e.workspace("repo", "{ this is not json");
    let out = e.echo_decision(&ws, &[]);
    assert_eq!(entry(&out, "policy")["used"], false);
    let trusted = e.run(&ws, &["--trust-workspace", "check", "clock____now"]);
    assert_eq!(trusted.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&trusted.stderr).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains(".toolhost/policy.json"),
        "{error}"
    );
}

#[test]
fn the_command_line_wins_over_the_workspace_and_is_read_as_always() {
    let e = Env::new();
    let ws = e.workspace("repo", ECHO_RUNS);
    // An explicit --policy inside the untrusted workspace is the person's
    // own choice: read as before.
    let mine = ws.join("mine.json");
    fs::write(&mine, ECHO_RUNS).unwrap();
    let out = e.echo_decision(&ws, &["--policy", mine.to_str().unwrap()]);
    assert_eq!(out["decision"]["action"], "run", "{out}");
    // Trusted: the workspace's policy gives way to --policy.
    let strict = e.dir.path().join("strict.json");
    fs::write(&strict, "{}").unwrap();
    let out = e.echo_decision(
        &ws,
        &["--trust-workspace", "--policy", strict.to_str().unwrap()],
    );
    assert_eq!(out["decision"]["action"], "ask", "{out}");
    assert_eq!(entry(&out, "policy")["why"], "overridden");
}

#[test]
fn a_link_out_of_a_trusted_workspace_is_not_read() {
    let e = Env::new();
    let ws = e.dir.path().join("repo");
    fs::create_dir_all(ws.join(".toolhost")).unwrap();
    let outside = e.dir.path().join("planted.json");
    fs::write(&outside, ECHO_RUNS).unwrap();
    symlink(&outside, ws.join(".toolhost/policy.json")).unwrap();
    let out = e.echo_decision(&ws, &["--trust-workspace"]);
    assert_eq!(out["workspace"]["trusted"], true);
    assert_eq!(out["decision"]["action"], "ask", "{out}");
    assert_eq!(entry(&out, "policy")["why"], "leaves_workspace");

    // The whole `.toolhost` folder a link out: its skills are not loaded
    // (nor walked: nothing outside is listed).
    let planted = e.workspace("planted", ECHO_RUNS);
    let repo = e.dir.path().join("repo2");
    fs::create_dir_all(&repo).unwrap();
    symlink(planted.join(".toolhost"), repo.join(".toolhost")).unwrap();
    let tools = e.json(&repo, &["--trust-workspace", "tools"]);
    assert!(
        !identifiers(&tools).contains(&"skills".to_owned()),
        "{tools}"
    );
    let skills = entry(&tools, "skills");
    assert_eq!(skills["why"], "leaves_workspace", "{tools}");
    assert_eq!(skills["listed"], serde_json::json!([]));
    assert_eq!(entry(&tools, "policy")["why"], "leaves_workspace");
}

#[test]
fn a_workspace_nested_in_a_trusted_one_is_not_trusted() {
    let e = Env::new();
    let parent = e.dir.path().join("projects");
    fs::create_dir_all(&parent).unwrap();
    let trusted = e.json(&parent, &["--trust-workspace", "check", "clock____now"]);
    assert_eq!(trusted["workspace"]["trusted"], true);
    let clone = e.workspace("projects/fresh-clone", ECHO_RUNS);
    let out = e.echo_decision(&clone, &[]);
    assert_eq!(out["workspace"]["trusted"], false, "{out}");
    assert_eq!(out["decision"]["action"], "ask");
}

#[test]
fn a_trusted_workspace_replaced_at_its_path_is_not_trusted() {
    let e = Env::new();
    let ws = e.workspace("repo", "{}");
    e.json(&ws, &["--trust-workspace", "check", "clock____now"]);
    // Renamed away, and another repository put at the same path.
    fs::rename(&ws, e.dir.path().join("repo.old")).unwrap();
    let ws = e.workspace("repo", ECHO_RUNS);
    let out = e.echo_decision(&ws, &[]);
    assert_eq!(out["workspace"]["why"], "replaced", "{out}");
    assert_eq!(entry(&out, "policy")["why"], "replaced");
    assert_eq!(out["decision"]["action"], "ask");
}

#[test]
fn a_workspace_without_configuration_adds_nothing_to_the_output() {
    let e = Env::new();
    let ws = e.dir.path().join("plain");
    fs::create_dir_all(&ws).unwrap();
    let out = e.echo_decision(&ws, &[]);
    assert!(out.get("workspace").is_none(), "{out}");
    assert!(!e.state().exists());
}

#[test]
fn an_untrusted_workspace_mcp_server_list_is_not_started_until_trusted() {
    use tool_mcp::{McpServerConfig, McpTransport};
    let e = Env::new();
    let ws = e.dir.path().join("repo");
    fs::create_dir_all(ws.join(".toolhost")).unwrap();
    // A real MCP server (toolhost serving its own tools over stdio) that
    // leaves a mark in the temp dir when it starts.
    let marker = e.dir.path().join("started");
    let script = format!(
        "echo started >> '{}' && exec '{}' mcp serve",
        marker.display(),
        env!("CARGO_BIN_EXE_toolhost")
    );
    let config = McpServerConfig::new("planted", McpTransport::stdio("sh", ["-c", &script]));
    fs::write(
        ws.join(".toolhost/mcp.json"),
        serde_json::to_string(&[config]).unwrap(),
    )
    .unwrap();

    let tools = e.json(&ws, &["tools"]);
    assert!(tools.get("mcp").is_none(), "{tools}");
    assert_eq!(entry(&tools, "mcpServers")["why"], "not_trusted");
    assert!(!marker.exists(), "the server was started");

    let tools = e.json(&ws, &["--trust-workspace", "tools"]);
    assert_eq!(entry(&tools, "mcpServers")["used"], true);
    assert!(marker.exists(), "{tools}");
    assert_eq!(tools["mcp"][0]["status"], "loaded", "{tools}");
}
