//! Agent Skills in the reference host: `--skills DIR` (repeatable, highest
//! precedence first) offers the `skills` tool (`activateSkill`,
//! `readReference`, and `runScript` on the local computer, in the sandbox of
//! `local-system____runCommand`); `toolhost skills validate`,
//! `toolhost skills catalog` and `toolhost skills properties` check and
//! render a folder of skills and print one skill's frontmatter fields.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};
use tool_skills::SKILL_FILE;
use tool_skills::prelude::*;

use tool_core::{Tool, ToolContext};
use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, SandboxPolicy};

use crate::Failure;
use crate::host::Host;

/// `toolhost skills …`.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Check a folder of skills (or one skill folder):
    /// `{"skills": [...], "findings": [{"code", "file", "line", "message", "severity"}]}`.
    /// Exits 0 whatever the findings.
    Validate {
        /// The folder.
        dir: PathBuf,
        /// Apply the public format strictly (default: lenient, as clients load).
        #[arg(long)]
        strict: bool,
    },
    /// Render the catalog a model would see:
    /// `{"text", "format", "chars", "budget", "shortened", "namesOnly", "omitted", "findings"}`.
    Catalog {
        /// The folder.
        dir: PathBuf,
        /// Largest catalog in characters; descriptions are shortened, then
        /// dropped, then skills left out (reported) to fit.
        #[arg(long)]
        budget: Option<usize>,
        /// The rendering.
        #[arg(long, value_enum, default_value_t = FormatArg::Xml)]
        format: FormatArg,
        /// Give each skill's location, the path of its `SKILL.md`
        /// (`<location>` in XML, `location` in JSON, a code span in Markdown).
        #[arg(long)]
        location: bool,
    },
    /// Print one skill's frontmatter fields, named as the format writes
    /// them (the reference validator's `read-properties` shape):
    /// `{"name", "description", "license"?, "compatibility"?,
    /// "allowed-tools"? [list], "metadata"? {text: text}, "extra"? {…},
    /// "file", "findings"}`; absent fields are left out. DIR is a skill
    /// folder or its `SKILL.md`. Exits 1 when it holds no skill that loads
    /// (or several).
    Properties {
        /// The skill folder (or its `SKILL.md`).
        dir: PathBuf,
        /// Apply the public format strictly (default: lenient, as clients load).
        #[arg(long)]
        strict: bool,
    },
}

/// Catalog renderings on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// `<available_skills>` XML.
    Xml,
    /// A Markdown list.
    Markdown,
    /// A JSON array.
    Json,
}

impl From<FormatArg> for CatalogFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Xml => Self::Xml,
            FormatArg::Markdown => Self::Markdown,
            FormatArg::Json => Self::Json,
        }
    }
}

fn findings_json(findings: &[Finding]) -> Value {
    serde_json::to_value(findings).unwrap_or_else(|_| json!([]))
}

fn skills_json(registry: &SkillRegistry) -> Value {
    Value::Array(
        registry
            .skills()
            .map(|s| {
                json!({
                    "name": s.name(),
                    "description": s.description(),
                    "source": s.source,
                    "location": s.location(),
                    "file": s.file(),
                })
            })
            .collect(),
    )
}

/// Runs `toolhost skills …`.
pub fn run(command: SkillsCommand) -> Result<Value, Failure> {
    match command {
        SkillsCommand::Validate { dir, strict } => {
            let registry = SkillRegistry::load(
                [SkillSource::dir("dir", &dir)],
                LoadOptions::new(mode(strict)),
            );
            Ok(json!({
                "skills": skills_json(&registry),
                "findings": findings_json(registry.findings()),
            }))
        }
        SkillsCommand::Catalog {
            dir,
            budget,
            format,
            location,
        } => {
            let registry =
                SkillRegistry::load([SkillSource::dir("dir", &dir)], LoadOptions::default());
            let options = CatalogOptions::new(format.into(), budget).with_location(location);
            let catalog = registry.catalog(&options);
            let mut out = catalog.report();
            out["findings"] = findings_json(registry.findings());
            Ok(out)
        }
        SkillsCommand::Properties { dir, strict } => properties(&dir, mode(strict)),
    }
}

fn mode(strict: bool) -> ValidationMode {
    if strict {
        ValidationMode::Strict
    } else {
        ValidationMode::Lenient
    }
}

/// `toolhost skills properties DIR`: the one skill in DIR, flat.
fn properties(dir: &Path, mode: ValidationMode) -> Result<Value, Failure> {
    let is_skill_file = dir.is_file()
        && dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(SKILL_FILE));
    let folder = match dir.parent() {
        Some(parent) if is_skill_file => parent,
        _ => dir,
    };
    let registry = SkillRegistry::load([SkillSource::dir("dir", folder)], LoadOptions::new(mode));
    let skills: Vec<_> = registry.skills().collect();
    let errors: Vec<String> = registry
        .findings()
        .iter()
        .filter(|f| f.is_error())
        .map(ToString::to_string)
        .collect();
    let skill = match skills.as_slice() {
        [one] => one,
        [] if errors.is_empty() => {
            return Err(Failure::Source(format!(
                "{}: no skill (no {SKILL_FILE})",
                folder.display()
            )));
        }
        [] => return Err(Failure::Source(errors.join("\n"))),
        many => {
            let names: Vec<&str> = many.iter().map(|s| s.name()).collect();
            return Err(Failure::Source(format!(
                "{} holds {} skills ({}); give one skill folder",
                folder.display(),
                many.len(),
                names.join(", ")
            )));
        }
    };
    let mut out = serde_json::to_value(skill.document.properties()).unwrap_or_else(|_| json!({}));
    out["file"] = json!(skill.file());
    out["findings"] = findings_json(registry.findings());
    Ok(out)
}

/// Loads `dirs` (highest precedence first, labelled by their position:
/// `skills[0]`, `skills[1]`…) and offers them as the `skills` tool, with
/// `runScript` over the skills' `scripts/` folders run on the host's
/// computer (humanIntervention: required). Returns the load findings; no
/// directories means no tool.
pub fn attach(host: &mut Host, dirs: &[PathBuf]) -> Result<Vec<Finding>, Failure> {
    if dirs.is_empty() {
        return Ok(Vec::new());
    }
    let registry = load(dirs);
    let findings = registry.findings().to_vec();
    // Scripts run on the host's local computer: the same process manager
    // and the same OS sandbox policy as `local-system____runCommand`.
    let computer: Arc<dyn ComputerRuntime> = Arc::new(host.computer().clone());
    let tool = SkillsTool::new(registry).with_computer(computer);
    let failed = host.add_tools(vec![Arc::new(tool)]);
    if let Some(problem) = failed.into_iter().next() {
        return Err(Failure::Source(format!("skills tool: {problem}")));
    }
    Ok(findings)
}

fn load(dirs: &[PathBuf]) -> SkillRegistry {
    SkillRegistry::load(
        dirs.iter()
            .enumerate()
            .map(|(index, dir)| SkillSource::dir(format!("skills[{index}]"), dir)),
        LoadOptions::default(),
    )
}

/// The repository's example skills (`examples/skills`).
fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

/// Demo steps: the catalog of the example skills, an activation, a
/// reference read by a loose name, and an escape refused.
pub async fn demo_steps() -> Vec<(String, String, Value)> {
    let dir = example_dir();
    let registry = load(std::slice::from_ref(&dir));
    let catalog = registry.catalog(&CatalogOptions::new(CatalogFormat::Xml, Some(600)));
    let tool = SkillsTool::new(registry);
    let mut steps = vec![(
        "Skills: the catalog".to_owned(),
        "The model first sees only names and descriptions, inside the skills tool's systemRole; under a 600-character budget descriptions are shortened and the report says which.".to_owned(),
        json!({"text": catalog.text, "shortened": catalog.shortened(), "omitted": catalog.omitted()}),
    )];
    let activated = tool.activate("unit-conversion");
    steps.push((
        "Skills: activateSkill".to_owned(),
        "Activation returns the body without frontmatter, wrapped in a tag naming the skill, with its folder and a list of its files.".to_owned(),
        json!({"content": activated.content, "success": activated.success}),
    ));
    let table = tool.read_reference("unit-conversion", "table");
    steps.push((
        "Skills: readReference".to_owned(),
        "`table` resolves to references/table.md (a unique file name, .md added); the state says which step found it and where it came from.".to_owned(),
        json!({"content": table.content, "state": table.state}),
    ));
    let escape = tool.read_reference("unit-conversion", "../../../../etc/passwd");
    steps.push((
        "Skills: no path escapes".to_owned(),
        "Paths that climb out, absolute paths, encoded forms and links leaving the skill folder are refused.".to_owned(),
        json!({"success": escape.success, "error": escape.error}),
    ));
    steps.push(script_step(tool).await);
    steps
}

/// Demo step: `runScript` on a computer confined by `workspace_write`,
/// running the example skill's harmless subject checker.
async fn script_step(tool: SkillsTool) -> (String, String, Value) {
    let title = "Skills: runScript".to_owned();
    let explanation = "With a computer the skills tool also offers runScript over a skill's scripts/ folder, always humanIntervention: required (manual asks, auto-run runs, toolhost's headless mode blocks it). It runs like runCommand, here under workspace_write; each argument stays one word.".to_owned();
    let Ok(scratch) = tempfile::tempdir() else {
        return (title, explanation, json!({"error": "no scratch directory"}));
    };
    let computer =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    let tool = tool.with_computer(Arc::new(computer));
    let policy = tool
        .manifest()
        .api("runScript")
        .map(|api| api.human_intervention.clone());
    let ctx = ToolContext::new().with_cwd(scratch.path());
    let args = json!({"skill": "commit-messages", "script": "scripts/check-subject.sh", "args": ["toolhost: demo skill scripts"]});
    let result = match tool.call("runScript", args.clone(), &ctx).await {
        Ok(output) => {
            let state = output.state.unwrap_or(Value::Null);
            json!({
                "humanIntervention": policy,
                "arguments": args,
                "stdout": state["stdout"],
                "sandbox": state["sandbox"]["policy"],
                "provenance": state["provenance"],
            })
        }
        Err(error) => json!({"error": error}),
    };
    (title, explanation, result)
}
