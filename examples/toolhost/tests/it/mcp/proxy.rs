//! `toolhost mcp serve` in front of a real server (server-everything,
//! pinned by `.ci/setup.d/30-mcp.sh`), both spoken to over stdio in raw
//! JSON-RPC: each proxied tool is listed with the server's own
//! `annotations`, `execution` and `outputSchema`, and a result with text,
//! image, text reaches the proxy's client in that order, each block as the
//! server sent it. The builtins state their hints and output schemas.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use test_support::fixtures as setup;

fn everything_js() -> PathBuf {
    setup::ensure("30-mcp.sh");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../tool-mcp/tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.exists(),
        "{} is missing after `.ci/setup.d/30-mcp.sh` ran",
        path.display()
    );
    path
}

/// A stdio MCP server spoken to line by line; killed on drop.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Peer {
    fn start(command: &mut Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut peer = Self {
            child,
            stdin,
            lines,
        };
        peer.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "proxy-test", "version": "0"}}),
        );
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        peer
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The result of request `id`; notifications and requests from the
    /// server on the way are skipped.
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id && message.get("method").is_none() {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// The listed tools by name, listed again until the list stops
    /// growing (server-everything adds tools right after the handshake).
    fn tools(&mut self, first_id: i64) -> serde_json::Map<String, Value> {
        let mut seen = serde_json::Map::new();
        for round in 0..20 {
            let listed = self.request(first_id + round, "tools/list", json!({}));
            let tools: serde_json::Map<String, Value> = listed["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
                .collect();
            if round > 0 && tools.len() == seen.len() {
                return tools;
            }
            seen = tools;
            std::thread::sleep(Duration::from_millis(300));
        }
        seen
    }
}

fn toolhost(cwd: &std::path::Path, upstream: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["--cwd", &cwd.display().to_string()])
        .args(["--mcp-stdio", upstream])
        .args(["mcp", "serve", "--bare-names"]);
    command
}

#[test]
fn mcp_serve_lists_a_proxied_tool_as_its_server_does_and_keeps_block_order() {
    let js = everything_js();
    let cwd = tempfile::tempdir().unwrap();
    let mut direct = Peer::start(Command::new("node").args([js.to_str().unwrap(), "stdio"]));
    let own = direct.tools(10);
    let upstream = format!("node {} stdio", js.display());
    let mut proxy = Peer::start(&mut toolhost(cwd.path(), &upstream));
    let served = proxy.tools(10);

    for name in [
        "echo",
        "get-tiny-image",
        "get-structured-content",
        "gzip-file-as-resource",
        "simulate-research-query",
    ] {
        let (own, served) = (&own[name], &served[name]);
        for field in ["annotations", "execution", "outputSchema"] {
            assert_eq!(
                served.get(field),
                own.get(field),
                "{name}.{field}: served {served}, own {own}"
            );
        }
    }
    // The pinned server states these; the proxy must not drop them.
    assert_eq!(
        served["simulate-research-query"]["execution"]["taskSupport"],
        "required"
    );
    assert_eq!(
        served["gzip-file-as-resource"]["annotations"]["openWorldHint"],
        true
    );
    assert!(served["get-structured-content"]["outputSchema"].is_object());

    // text, image, text: the same blocks in the same order.
    let args = json!({"name": "get-tiny-image", "arguments": {}});
    let own_result = direct.request(40, "tools/call", args.clone());
    let served_result = proxy.request(40, "tools/call", args);
    let kinds: Vec<&str> = served_result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "text"], "{served_result}");
    assert_eq!(served_result["content"], own_result["content"]);
}

#[test]
fn the_builtins_state_truthful_hints_and_the_schema_of_their_state() {
    let cwd = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["--cwd", &cwd.path().display().to_string()])
        .args(["mcp", "serve"]);
    let mut host = Peer::start(&mut command);
    let tools = host.tools(10);
    for name in ["calculator____evaluate", "clock____now"] {
        let tool = &tools[name];
        assert_eq!(
            tool["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false,
                   "idempotentHint": true, "openWorldHint": false}),
            "{name}"
        );
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
    }
    // What each returns is what its schema declares.
    let checks = [
        (
            "calculator____evaluate",
            json!({"expression": "6 * 7"}),
            vec!["expression", "value"],
        ),
        (
            "clock____now",
            json!({"utcOffset": "+02:00"}),
            vec!["iso", "unixMs", "weekday", "utcOffset"],
        ),
    ];
    for (id, (name, arguments, fields)) in (40..).zip(checks) {
        let result = host.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        let structured = result["structuredContent"].as_object().unwrap();
        let schema = &tools[name]["outputSchema"];
        let declared: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut returned: Vec<&str> = structured.keys().map(String::as_str).collect();
        returned.sort_unstable();
        let mut expected = fields.clone();
        expected.sort_unstable();
        assert_eq!(returned, expected, "{name}: {result}");
        let mut declared_sorted = declared.clone();
        declared_sorted.sort_unstable();
        assert_eq!(declared_sorted, expected, "{name}: {schema}");
        for field in &fields {
            let kind = &schema["properties"][field]["type"];
            let value = &structured[*field];
            let fits = match kind.as_str() {
                Some("string") => value.is_string(),
                Some("number") => value.is_number(),
                Some("integer") => value.is_i64(),
                _ => false,
            };
            assert!(fits, "{name}.{field}: {value} against {kind}");
        }
    }
}
