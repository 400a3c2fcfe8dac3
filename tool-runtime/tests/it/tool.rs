use crate::common::{ok, write};
use serde_json::{Value, json};
use tool_core::{
    HumanIntervention, InterventionPolicy, Invoker, Tool, ToolCall, ToolContext, ToolRegistry,
    approval::ArgRole, manifest::Executor,
};
use tool_runtime::{LocalComputer, LocalConfig, OPERATIONS, local_system_tool, manifest};

/// Every schema below `schema` that declares an [`ArgRole`]: its place
/// (`api/property/[]/…`) and the role's `x-role` name; fails on a schema
/// that still spells a role as a `format`.
fn roles(schema: &Value, at: String, out: &mut Vec<(String, &'static str)>) {
    assert!(
        !matches!(
            schema.get("format").and_then(Value::as_str),
            Some("path" | "shell")
        ),
        "{at} spells its role as a format: {schema}"
    );
    if let Some(role) = ArgRole::of(schema) {
        out.push((at.clone(), role.as_str()));
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            roles(sub, format!("{at}/{name}"), out);
        }
    }
    if let Some(items) = schema.get("items") {
        roles(items, format!("{at}/[]"), out);
    }
}

#[test]
fn every_argument_declares_its_role() {
    let m = manifest();
    let mut found = Vec::new();
    for api in &m.api {
        roles(&api.parameters, api.name.clone(), &mut found);
    }
    let found: Vec<(&str, &str)> = found.iter().map(|(at, r)| (at.as_str(), *r)).collect();
    assert_eq!(
        found,
        [
            ("listFiles/path", "path"),
            ("readFile/path", "path"),
            ("readFiles/paths/[]", "path"),
            ("writeFile/path", "path"),
            ("editFile/path", "path"),
            ("moveFiles/items/[]/oldPath", "path"),
            ("moveFiles/items/[]/newPath", "path"),
            ("renameFile/path", "path"),
            ("searchFiles/directory", "path"),
            ("globFiles/path", "path"),
            ("grepContent/path", "path"),
            ("runCommand/command", "shell-command"),
            ("runCommand/cwd", "working-directory"),
            ("runCommand/env", "environment"),
        ]
    );
}

#[test]
fn manifest_declares_executors_timeouts_and_approval() {
    let m = manifest();
    assert_eq!(m.identifier, "local-system");
    assert_eq!(m.executors(), [Executor::Client, Executor::Server]);
    assert!(m.system_role.as_deref().unwrap().contains("editFile"));
    for api in &m.api {
        assert!(
            api.default_timeout_ms.is_some(),
            "{} has no timeout",
            api.name
        );
        let names: Vec<_> = api.parameters["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for name in names {
            assert!(
                !name.contains('_'),
                "{}: parameter {name} is not camelCase",
                api.name
            );
        }
    }
    let run = m.api("runCommand").unwrap();
    assert!(run.default_timeout_ms.unwrap() > 120_000);
    assert_eq!(
        run.human_intervention,
        Some(HumanIntervention::Policy(InterventionPolicy::Required))
    );
    for name in [
        "readFile",
        "writeFile",
        "editFile",
        "grepContent",
        "moveFiles",
    ] {
        let Some(HumanIntervention::Dynamic { dynamic }) = &m.api(name).unwrap().human_intervention
        else {
            panic!("{name} has no dynamic audit");
        };
        assert_eq!(dynamic.kind, "pathScopeAudit");
        assert_eq!(dynamic.policy, InterventionPolicy::Required);
        assert_eq!(dynamic.default, InterventionPolicy::Never);
    }
    let wire = serde_json::to_value(&m).unwrap();
    assert_eq!(
        wire["api"][1]["humanIntervention"]["dynamic"]["type"],
        "pathScopeAudit"
    );
    assert_eq!(
        wire["api"][1]["parameters"]["properties"]["startLine"]["type"],
        json!(["integer", "null"])
    );
}

async fn invoke(cwd: &std::path::Path, name: &str, args: Value) -> tool_core::ToolOutput {
    let mut registry = ToolRegistry::new();
    registry
        .register(local_system_tool(
            LocalComputer::new(LocalConfig::default()),
        ))
        .unwrap();
    let cx = ToolContext::new().with_cwd(cwd);
    let offered = registry.offer(&cx);
    Invoker::default()
        .invoke(&offered, &ToolCall::new(name, args.to_string()), &cx)
        .await
}

#[tokio::test]
async fn read_readme_through_the_invocation_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "README.md", "# Project\n\nHello.\n");
    let out = invoke(
        dir.path(),
        "local-system____readFile",
        json!({"path": "README.md"}),
    )
    .await;
    assert!(
        out.content.starts_with("README.md — lines 0–3 of 3"),
        "{}",
        out.content
    );
    assert_eq!(ok(&out)["totalLines"], 3);
}

#[tokio::test]
async fn invalid_arguments_are_caught_before_the_computer_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = invoke(
        dir.path(),
        "local-system____readFile",
        json!({"startLine": 3}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments");
    let out = invoke(
        dir.path(),
        "local-system____runCommand",
        json!({"command": "true", "timeout": 999999}),
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments");
}

#[tokio::test]
async fn a_command_window_ends_inside_the_pipeline_budget() {
    let dir = tempfile::tempdir().unwrap();
    // The pipeline's budget is the same `timeout`; the command's wait must
    // end first so the model gets the shell id, not a pipeline timeout.
    let out = invoke(
        dir.path(),
        "local-system____runCommand",
        json!({"command": "echo waiting; sleep 30", "timeout": 1000}),
    )
    .await;
    let s = ok(&out);
    assert_eq!(s["running"], true);
    assert_eq!(s["stdout"], "waiting\n");
}

#[tokio::test]
async fn the_tool_refuses_unknown_apis() {
    let tool = local_system_tool(LocalComputer::new(LocalConfig::default()));
    let err = tool
        .call("formatDisk", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.code, "unknown_api");
    assert!(err.message.contains("runCommand"), "{}", err.message);
    assert_eq!(tool.manifest().api.len(), OPERATIONS.len());
    // A slip of case is answered with the API meant.
    let err = tool
        .call("readfile", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("did you mean `readFile`?"),
        "{}",
        err.message
    );
}

#[test]
fn the_tool_says_what_its_sandbox_can_confine() {
    // What the approval engine reads when the host did not tell it.
    let tool = tool_runtime::local_system_tool(LocalComputer::new(LocalConfig::default()));
    let expected = tool_runtime::confinement_support(&tool_runtime::SandboxOptions::default());
    assert_eq!(tool.confinement_support(), Some(&expected));
}

/// Every API's successful `state` validates against the `output_schema` it
/// declares: each operation run for real through the tool on a temp dir.
#[tokio::test]
async fn real_results_of_every_api_fit_their_declared_output_schema() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/lib.rs", "fn main() {}\n// needle\n");
    write(dir.path(), "notes.txt", "alpha\nbeta\n");
    let tool = local_system_tool(LocalComputer::new(LocalConfig::default()));
    let cx = ToolContext::new().with_cwd(dir.path());
    let calls = [
        ("listFiles", json!({"path": "."})),
        ("readFile", json!({"path": "notes.txt"})),
        ("readFiles", json!({"paths": ["notes.txt", "missing.txt"]})),
        (
            "writeFile",
            json!({"path": "out/new.txt", "content": "one\n"}),
        ),
        (
            "editFile",
            json!({"path": "notes.txt", "oldString": "beta", "newString": "gamma"}),
        ),
        (
            "moveFiles",
            json!({"items": [{"oldPath": "out/new.txt", "newPath": "moved.txt"},
                             {"oldPath": "nothing.txt", "newPath": "x.txt"}]}),
        ),
        (
            "renameFile",
            json!({"path": "moved.txt", "newName": "renamed.txt"}),
        ),
        ("searchFiles", json!({"keyword": "lib"})),
        ("globFiles", json!({"pattern": "**/*.rs"})),
        (
            "grepContent",
            json!({"pattern": "needle", "outputMode": "content", "context": 1}),
        ),
        (
            "grepContent",
            json!({"pattern": "a", "outputMode": "count"}),
        ),
        (
            "runCommand",
            json!({"command": "echo out; echo err >&2; exit 3"}),
        ),
        (
            "runCommand",
            json!({"command": "echo started; sleep 30", "timeout": 500}),
        ),
        ("getCommandOutput", json!({"shellId": "sh-2"})),
        ("killCommand", json!({"shellId": "sh-2"})),
    ];
    let manifest = tool.manifest().clone();
    let mut checked = std::collections::BTreeSet::new();
    for (name, args) in calls {
        let out = tool.call(name, args.clone(), &cx).await.unwrap();
        let state = ok(&out);
        let schema = manifest
            .api(name)
            .unwrap()
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("{name} declares no output schema"));
        let validator = jsonschema::validator_for(schema)
            .unwrap_or_else(|e| panic!("{name}'s output schema does not compile: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(state)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name} {args}: {errors:?}\n{state:#}");
        checked.insert(name);
    }
    assert_eq!(checked.len(), OPERATIONS.len(), "{checked:?}");
    // The schemas are strict enough to catch a state of the wrong shape.
    let read = manifest
        .api("readFile")
        .unwrap()
        .output_schema
        .clone()
        .unwrap();
    let validator = jsonschema::validator_for(&read).unwrap();
    assert!(!validator.is_valid(&json!({"path": "a", "totalLines": "three"})));
}
