//! `toolhost mcp serve` ⇄ tool-mcp: every builtin tool round-trips through
//! MCP, with approval asks answered through elicitation; `--mcp-stdio` and
//! `toolhost mcp tools`.

/// One call's trace across client and server processes.
mod traces;

/// Remote tasks as data: `toolhost mcp task start|get|cancel`.
mod tasks;

/// `mcp serve` in front of server-everything: listings and block order as
/// the server's; the builtins' hints and output schemas.
mod proxy;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::{Invoker, ToolCall, ToolContext, ToolOutput, ToolRegistry, manifest::NameRules};
use tool_mcp::{
    ElicitationHandler, Elicited, ManagerOptions, McpManager, McpProvider, McpServerConfig,
    McpTransport,
};

struct User {
    accept: bool,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl ElicitationHandler for User {
    async fn elicit(&self, _server: &str, message: &str, _schema: &Value) -> Elicited {
        self.asked.lock().unwrap().push(message.to_owned());
        if self.accept {
            Elicited::Accept(json!({}))
        } else {
            Elicited::Decline
        }
    }
}

async fn served(cwd: &std::path::Path, accept: bool) -> (Arc<McpManager>, ToolRegistry, Arc<User>) {
    let user = Arc::new(User {
        accept,
        asked: Mutex::new(Vec::new()),
    });
    let manager = Arc::new(McpManager::new(
        ManagerOptions::default().elicitation(Arc::clone(&user) as Arc<dyn ElicitationHandler>),
    ));
    manager
        .upsert(
            McpServerConfig::new(
                "host",
                McpTransport::stdio(
                    env!("CARGO_BIN_EXE_toolhost"),
                    [
                        "--cwd".to_owned(),
                        cwd.display().to_string(),
                        "mcp".into(),
                        "serve".into(),
                    ],
                ),
            )
            .with_startup_timeout(Duration::from_secs(20)),
        )
        .unwrap();
    let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
    assert_eq!(load.failures().count(), 0, "{load:?}");
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }
    (manager, registry, user)
}

async fn call(registry: &ToolRegistry, remote: &str, args: &str) -> ToolOutput {
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let wire = offered
        .resolve_pair("host", remote)
        .unwrap()
        .wire_name
        .to_owned();
    Invoker::default()
        .invoke(&offered, &ToolCall::new(wire, args), &ctx)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_builtin_round_trips_through_toolhost_mcp_serve() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, registry, user) = served(dir.path(), true).await;
    let manifest = registry.get("host").unwrap().manifest().clone();
    let served: Vec<&str> = manifest.api.iter().map(|a| a.name.as_str()).collect();
    for expected in [
        "calculator____evaluate",
        "clock____now",
        "local-system____readFile",
        "local-system____runCommand",
    ] {
        assert!(served.contains(&expected), "{served:?}");
    }

    let sum = call(
        &registry,
        "calculator____evaluate",
        r#"{"expression": "(2 + 3) * 4"}"#,
    )
    .await;
    assert_eq!(sum.content, "20", "{sum:?}");
    let bad = call(
        &registry,
        "calculator____evaluate",
        r#"{"expression": "2 +"}"#,
    )
    .await;
    assert!(!bad.success);
    let now = call(&registry, "clock____now", r#"{"utcOffset": "+08:00"}"#).await;
    assert!(now.content.contains("+08:00"), "{now:?}");
    let odd = call(&registry, "clock____now", r#"{"utcOffset": "+99:00"}"#).await;
    assert_eq!(
        odd.error_code().unwrap(),
        "invalid_utc_offset",
        "tool error codes survive the trip"
    );

    let wrote = call(
        &registry,
        "local-system____writeFile",
        r#"{"path": "a.txt", "content": "one\ntwo\n"}"#,
    )
    .await;
    assert!(wrote.success, "{wrote:?}");
    assert!(
        wrote.state.is_some(),
        "state comes back as structuredContent"
    );
    let read = call(
        &registry,
        "local-system____readFile",
        r#"{"path": "a.txt"}"#,
    )
    .await;
    assert!(read.content.contains("two"), "{read:?}");
    let edited = call(
        &registry,
        "local-system____editFile",
        r#"{"path": "a.txt", "oldString": "two", "newString": "three"}"#,
    )
    .await;
    assert!(edited.success, "{edited:?}");
    let listed = call(&registry, "local-system____listFiles", r#"{"path": "."}"#).await;
    assert!(listed.content.contains("a.txt"), "{listed:?}");
    let grep = call(
        &registry,
        "local-system____grepContent",
        r#"{"pattern": "three"}"#,
    )
    .await;
    assert!(grep.content.contains("a.txt"), "{grep:?}");
    assert!(
        user.asked.lock().unwrap().is_empty(),
        "nothing so far needed approval"
    );

    // runCommand is `required`: the serving host asks this client's user.
    let ran = call(
        &registry,
        "local-system____runCommand",
        r#"{"command": "cat a.txt"}"#,
    )
    .await;
    assert!(ran.content.contains("three"), "{ran:?}");
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("local-system____runCommand"), "{asked:?}");

    // Outside the working directory: blocked or asked, never silently run.
    let outside = call(
        &registry,
        "local-system____readFile",
        r#"{"path": "../../../../etc/hostname"}"#,
    )
    .await;
    assert!(
        !outside.success || user.asked.lock().unwrap().len() == 2,
        "{outside:?}"
    );
    // An unknown tool is a bad request (-32602), not a tool's failure.
    let unknown = manager
        .call_tool("host", "nope____nothing", serde_json::Map::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, tool_mcp::Error::Request { message, .. } if message.contains("nope____nothing")),
        "{unknown:?}"
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_ask_gets_the_declined_output_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, registry, user) = served(dir.path(), false).await;
    let out = call(
        &registry,
        "local-system____runCommand",
        r#"{"command": "touch made-it"}"#,
    )
    .await;
    assert_eq!(out.error_code().unwrap(), "declined_by_user", "{out:?}");
    assert_eq!(user.asked.lock().unwrap().len(), 1);
    assert!(!dir.path().join("made-it").exists());
    manager.shutdown().await;
}

#[test]
fn mcp_stdio_tools_show_up_in_tools_and_failures_are_reported() {
    let serve = format!("{} mcp serve", env!("CARGO_BIN_EXE_toolhost"));
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "--mcp-stdio",
            &serve,
            "--mcp-stdio",
            "/nonexistent/server",
            "tools",
            "--format",
            "openai",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<String> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("mcp1____")), "{names:?}");
    let reports = doc["mcp"].as_array().unwrap();
    assert!(
        reports
            .iter()
            .any(|r| r["id"] == "mcp1" && r["status"] == "loaded")
    );
    assert!(
        reports
            .iter()
            .any(|r| r["id"] == "mcp2" && r["status"] == "failed"),
        "{reports:?}"
    );

    let listed = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["--mcp-stdio", &serve, "mcp", "tools"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(doc["servers"][0]["status"], "loaded");
    assert!(
        doc["servers"][0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "clock____now")
    );

    let bad = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["--mcp-http", "ftp://example.invalid/mcp", "tools"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("transport.url"));
}

#[test]
fn client_credentials_without_an_id_a_secret_or_a_usable_key_is_a_usage_error() {
    for (id, secret) in [
        (None, Some("s3cret")),
        (Some("me"), None),
        (Some("me"), Some("")),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        cmd.args(["--mcp-oauth", "client-credentials"]);
        if let Some(id) = id {
            cmd.args(["--mcp-oauth-client-id", id]);
        }
        cmd.env_remove("TOOLHOST_MCP_OAUTH_CLIENT_SECRET");
        if let Some(secret) = secret {
            cmd.env("TOOLHOST_MCP_OAUTH_CLIENT_SECRET", secret);
        }
        let out = cmd
            .args(["mcp", "tools", "--mcp-http", "http://127.0.0.1:9/mcp"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{id:?} {secret:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--mcp-oauth-client-id")
                && stderr.contains("TOOLHOST_MCP_OAUTH_CLIENT_SECRET"),
            "{stderr}"
        );
    }
    // A key that is not a P-256 PKCS#8 PEM is named, never echoed.
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "--mcp-oauth",
            "client-credentials",
            "--mcp-oauth-client-id",
            "me",
        ])
        .env(
            "TOOLHOST_MCP_OAUTH_CLIENT_KEY",
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END PRIVATE KEY-----",
        )
        .args(["mcp", "tools", "--mcp-http", "http://127.0.0.1:9/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("TOOLHOST_MCP_OAUTH_CLIENT_KEY") && stderr.contains("P-256"),
        "{stderr}"
    );
    assert!(!stderr.contains("c2VjcmV0"), "{stderr}");
}

#[test]
fn sealed_secrets_in_mcp_config_open_with_the_key_and_a_wrong_key_fails() {
    use tool_mcp::XChaChaCipher;
    let dir = tempfile::tempdir().unwrap();
    let mut config = McpServerConfig::new(
        "sealed",
        McpTransport::stdio(env!("CARGO_BIN_EXE_toolhost"), ["mcp", "serve"]),
    );
    if let McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("API_TOKEN".into(), "tok-sealed-4242".into());
    }
    let key = [0x42u8; 32];
    let sealed = config.seal_secrets(&XChaChaCipher::new(key)).unwrap();
    let file = dir.path().join("servers.json");
    std::fs::write(&file, serde_json::to_string(&json!([sealed])).unwrap()).unwrap();
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("tok-sealed-4242")
    );
    let run = |key_hex: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        cmd.args(["--mcp-config", file.to_str().unwrap(), "mcp", "tools"]);
        cmd.env_remove("TOOLHOST_MCP_KEY");
        if let Some(hex) = key_hex {
            cmd.env("TOOLHOST_MCP_KEY", hex);
        }
        cmd.output().unwrap()
    };
    let opened = run(Some(&"42".repeat(32)));
    assert!(
        opened.status.success(),
        "{}",
        String::from_utf8_lossy(&opened.stderr)
    );
    let doc: Value = serde_json::from_slice(&opened.stdout).unwrap();
    assert_eq!(doc["servers"][0]["status"], "loaded");
    let wrong = run(Some(&"43".repeat(32)));
    assert_eq!(wrong.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("transport.env.API_TOKEN") && stderr.contains("wrong key"),
        "{stderr}"
    );
    let missing = run(None);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("TOOLHOST_MCP_KEY"));
}

#[test]
fn mcp_serve_serves_the_skills_tool_too() {
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");
    let serve = format!(
        "{} --skills {skills} mcp serve",
        env!("CARGO_BIN_EXE_toolhost")
    );
    let listed = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["--mcp-stdio", &serve, "mcp", "tools"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(doc["servers"][0]["status"], "loaded", "{doc}");
    let names: Vec<&str> = doc["servers"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "skills____activateSkill",
        "skills____readReference",
        "clock____now",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
}
