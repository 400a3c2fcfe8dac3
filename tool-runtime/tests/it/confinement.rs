//! A call's own confinement (the gate's decision, in its context) replaces
//! the computer's configured sandbox, and hosts can ask whether this
//! machine can confine at all.

use crate::common::{base_outside_temp, ctx, ok, state};
use tool_core::{Confinement, ConfinementSupport};
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    confinement_support, probe_kernel,
};

fn no_landlock() -> Result<tool_runtime::KernelSupport, String> {
    Err("this kernel has no Landlock (simulated)".to_owned())
}

#[test]
fn the_support_probe_names_the_mechanism_or_the_reason() {
    let support = confinement_support(&SandboxOptions::default());
    match probe_kernel() {
        Ok(k) if k.seccomp => assert!(support.is_available(), "{support:?}"),
        _ => assert!(!support.is_available()),
    }
    let missing = confinement_support(&SandboxOptions {
        probe: no_landlock,
        ..SandboxOptions::default()
    });
    assert_eq!(
        missing,
        ConfinementSupport::Unavailable {
            reason: "this kernel has no Landlock (simulated)".to_owned()
        }
    );
}

#[test]
fn sandbox_policy_is_the_confinement_type() {
    let policy: SandboxPolicy = Confinement::workspace_write().with_network(true);
    let back: Confinement = policy.clone();
    assert_eq!(back.name(), "workspace_write");
    assert!(policy.network());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_confinement_in_the_context_replaces_the_configured_sandbox_for_commands() {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return;
    }
    let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let outside = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let target = outside.path().join("escaped.txt");
    let command = format!("echo bad > '{}'", target.display());
    // Configured full access, but the call is confined.
    let computer = LocalComputer::new(LocalConfig::default());
    let confined = ctx(ws.path()).with_extension(Confinement::workspace_write());
    let out = computer
        .run_command(RunCommandParams::new(command.clone()), &confined)
        .await;
    assert_eq!(state(&out)["sandbox"]["policy"], "workspace_write");
    assert_ne!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(!target.exists());
    // Configured workspace_write, the call's decision is full access.
    let computer =
        LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
    let free = ctx(ws.path()).with_extension(Confinement::FullAccess);
    let out = computer
        .run_command(RunCommandParams::new(command), &free)
        .await;
    assert_eq!(ok(&out)["exitCode"], 0, "{}", out.content);
    assert!(target.exists());
}

/// Egress by name: real HTTP and HTTPS servers on 127.0.0.1 stand in for
/// the world; names are mapped to them by the proxy's `resolve` setting,
/// and loopback is let through only by `allow_addresses` (as the SSRF
/// guard's tests do).
#[cfg(target_os = "linux")]
mod egress {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    use std::net::{IpAddr, TcpListener};
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use crate::common::{base_outside_temp, ctx, needed, ok, state};
    use serde_json::Value;
    use tool_core::{Confinement, approval::Egress};
    use tool_runtime::{
        ComputerRuntime, CredentialBinding, EgressOptions, LocalComputer, LocalConfig,
        RunCommandParams, SandboxOptions, ShellConfig,
    };

    /// The request heads a plain HTTP server received.
    type Seen = Arc<Mutex<Vec<String>>>;

    /// A plain HTTP/1.1 server on 127.0.0.1: answers every request with
    /// `hello from upstream` (never echoing what it got) and keeps each
    /// request's head.
    fn http_server() -> (u16, Seen) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen: Seen = Arc::default();
        let kept = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                kept.lock().unwrap().push(head);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\nConnection: close\r\n\r\nhello from upstream\n",
                );
            }
        });
        (port, seen)
    }

    /// An HTTPS server (python's http.server over TLS, a certificate for
    /// `secure.example` signed by a CA made here); it prints each request's
    /// path and `Authorization` header, which `seen` collects; killed on
    /// drop.
    struct TlsServer {
        port: u16,
        child: std::process::Child,
        seen: Seen,
        ca_file: std::path::PathBuf,
        _dir: tempfile::TempDir,
    }

    impl Drop for TlsServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    const TLS_SERVER: &str = r#"import http.server, ssl, sys
class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print(self.path, self.headers.get("Authorization"), flush=True)
        body = b"hello over tls\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Hello)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

    fn tls_server() -> TlsServer {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
        let dir = tempfile::tempdir().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["secure.example".to_owned()])
            .unwrap()
            .signed_by(&leaf_key, &ca)
            .unwrap();
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        let ca_file = dir.path().join("ca.pem");
        let script = dir.path().join("server.py");
        std::fs::write(&cert, leaf.pem()).unwrap();
        std::fs::write(&key, leaf_key.serialize_pem()).unwrap();
        std::fs::write(&ca_file, ca.pem()).unwrap();
        std::fs::write(&script, TLS_SERVER).unwrap();
        let mut child = std::process::Command::new("python3")
            .arg(&script)
            .arg(&cert)
            .arg(&key)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 for the HTTPS server");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = lines
            .next()
            .and_then(|l| l.ok())
            .and_then(|l| l.trim().parse().ok())
            .expect("the HTTPS server's port");
        let seen: Seen = Arc::default();
        let kept = Arc::clone(&seen);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        TlsServer {
            port,
            child,
            seen,
            ca_file,
            _dir: dir,
        }
    }

    fn loopback() -> IpAddr {
        "127.0.0.1".parse().unwrap()
    }

    /// The proxy's settings of these tests: the names mapped to loopback
    /// (and one to a private address), loopback allowed on purpose.
    fn test_options() -> EgressOptions {
        EgressOptions::default()
            .with_allowed_addresses("127.0.0.0/8")
            .with_resolve("allowed.example", loopback())
            .with_resolve("mirror.example", loopback())
            .with_resolve("secure.example", loopback())
            .with_resolve("other.example", loopback())
            .with_resolve("private.example", "10.0.0.1".parse().unwrap())
    }

    fn computer(egress: EgressOptions) -> LocalComputer {
        LocalComputer::new(LocalConfig {
            shell: ShellConfig {
                sandbox_options: SandboxOptions {
                    egress,
                    ..SandboxOptions::default()
                },
                ..ShellConfig::default()
            },
            ..LocalConfig::default()
        })
    }

    async fn run(c: &LocalComputer, dir: &Path, confinement: Confinement, command: &str) -> Value {
        let out = c
            .run_command(
                RunCommandParams::new(command),
                &ctx(dir).with_extension(confinement),
            )
            .await;
        let mut value = ok(&out).clone();
        value["content"] = Value::String(out.content.clone());
        value
    }

    /// Whether confined commands get namespaces here; under `CI=true` a
    /// machine without them fails.
    async fn namespaced(c: &LocalComputer, dir: &Path) -> bool {
        let out = c
            .run_command(
                RunCommandParams::new("true"),
                &ctx(dir).with_extension(Confinement::workspace_write()),
            )
            .await;
        let mechanism = state(&out)["sandbox"]["mechanism"].as_str().unwrap_or("");
        if mechanism != "namespaces+landlock+seccomp" {
            test_support::cannot_check("this test", format!("no namespaces here ({mechanism})"));
            return false;
        }
        true
    }

    fn blocked(state: &Value) -> Vec<(String, String)> {
        state["networkBlocked"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|b| {
                        (
                            b["host"].as_str().unwrap_or("").to_owned(),
                            b["reason"].as_str().unwrap_or("").to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn reason_for<'a>(blocked: &'a [(String, String)], host: &str) -> &'a str {
        blocked
            .iter()
            .find(|(h, _)| h == host)
            .map(|(_, r)| r.as_str())
            .unwrap_or_else(|| panic!("{host} not reported as blocked: {blocked:?}"))
    }

    #[tokio::test]
    async fn an_allowed_name_is_reached_through_the_proxy_and_the_rest_refused_and_reported() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let c = computer(test_options());
        if !namespaced(&c, ws.path()).await || !needed("curl") || !needed("python3") {
            return;
        }
        let (port, seen) = http_server();
        let tls = tls_server();
        let socket = ws.path().join("daemon.sock");
        let _daemon = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let curl = "curl -sS --max-time 10";
        let command = [
            format!("echo A; {curl} http://allowed.example:{port}/hello"),
            format!("echo B; {curl} -k https://secure.example:{}/", tls.port),
            format!("echo C; {curl} http://other.example:{port}/nope"),
            format!("echo D; {curl} -k https://other.example:{}/", tls.port),
            format!("echo E; {curl} http://127.0.0.1:{port}/raw"),
            format!("echo F; {curl} http://private.example:{port}/inside"),
            // Around the proxy: no route, no Unix socket, no DNS.
            format!(
                "echo G; {curl} --noproxy '*' http://127.0.0.1:{port}/direct || echo direct-failed"
            ),
            format!("echo H; {curl} --unix-socket daemon.sock http://x/ || echo unix-failed"),
            "echo I; getent hosts allowed.example || echo dns-failed".to_owned(),
            "echo J; env | grep -i '^https_proxy=\\|^NODE_USE_ENV_PROXY='".to_owned(),
        ]
        .join("; ");
        let allow = Egress::allow(["allowed.example", "secure.example", "private.example"]);
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write().with_egress(allow),
            &command,
        )
        .await;
        let stdout = out["stdout"].as_str().unwrap_or("");
        let section = |from: &str, to: &str| {
            let start = stdout.find(&format!("{from}\n")).unwrap_or(0);
            let end = stdout.find(&format!("{to}\n")).unwrap_or(stdout.len());
            stdout[start..end.max(start)].to_owned()
        };
        assert!(
            section("A", "B").contains("hello from upstream"),
            "{}",
            out["content"]
        );
        assert!(
            section("B", "C").contains("hello over tls"),
            "{}",
            out["content"]
        );
        for (from, to) in [("C", "D"), ("E", "F"), ("F", "G")] {
            assert!(
                section(from, to).contains("egress proxy refused"),
                "{}",
                out["content"]
            );
        }
        assert!(
            section("G", "H").contains("direct-failed"),
            "{}",
            out["content"]
        );
        assert!(
            section("H", "I").contains("unix-failed"),
            "{}",
            out["content"]
        );
        assert!(
            section("I", "J").contains("dns-failed"),
            "{}",
            out["content"]
        );
        assert!(
            section("J", "K").contains("127.0.0.1:3128"),
            "{}",
            out["content"]
        );
        assert!(
            section("J", "K").contains("NODE_USE_ENV_PROXY=1"),
            "{}",
            out["content"]
        );
        let list = blocked(&out);
        assert!(reason_for(&list, "other.example").contains("not on the allow-list"));
        assert!(reason_for(&list, "127.0.0.1").contains("IP address"));
        assert!(reason_for(&list, "private.example").contains("non-public"));
        assert!(
            out["content"]
                .as_str()
                .unwrap_or("")
                .contains("egress proxy refused other.example")
        );
        assert_eq!(out["sandbox"]["egress"]["allow"][0], "allowed.example");
        let heads = seen.lock().unwrap().clone();
        assert_eq!(
            heads.len(),
            1,
            "only the allowed request arrived: {heads:?}"
        );
        assert!(heads[0].starts_with("GET /hello HTTP/1.1"), "{heads:?}");
        assert!(
            heads[0]
                .to_ascii_lowercase()
                .contains("host: allowed.example"),
            "{heads:?}"
        );
    }

    /// A probe run inside the sandbox: `CONNECT` to the allowed name, then
    /// TLS that asks for the site named on the command line. One address
    /// can serve many sites, chosen by that name.
    const SNI_PROBE: &str = r#"import socket, ssl, sys
port, sni = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
s.sendall(b"CONNECT secure.example:%d HTTP/1.1\r\nHost: secure.example:%d\r\n\r\n" % (port, port))
head = b""
while b"\r\n\r\n" not in head:
    chunk = s.recv(1)
    if not chunk:
        break
    head += chunk
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
try:
    t = context.wrap_socket(s, server_hostname=sni)
    t.sendall(b"GET /" + sni.encode() + b" HTTP/1.1\r\nHost: " + sni.encode() + b"\r\nConnection: close\r\n\r\n")
    reply = b""
    while True:
        chunk = t.recv(4096)
        if not chunk:
            break
        reply += chunk
    print(sni, "reached:", reply.decode(errors="replace").split("\r\n\r\n")[-1].strip())
except Exception as e:
    print(sni, "failed:", type(e).__name__)
"#;

    #[tokio::test]
    async fn a_tunnel_whose_tls_asks_for_another_site_is_closed_and_reported() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let c = computer(test_options());
        if !namespaced(&c, ws.path()).await || !needed("python3") {
            return;
        }
        let tls = tls_server();
        std::fs::write(ws.path().join("sni_probe.py"), SNI_PROBE).unwrap();
        let port = tls.port;
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write().with_egress(Egress::allow(["secure.example"])),
            &format!(
                "python3 sni_probe.py {port} other.example; python3 sni_probe.py {port} secure.example"
            ),
        )
        .await;
        let stdout = out["stdout"].as_str().unwrap_or("");
        assert!(
            stdout.contains("other.example failed"),
            "{}",
            out["content"]
        );
        assert!(
            stdout.contains("secure.example reached: hello over tls"),
            "{}",
            out["content"]
        );
        let list = blocked(&out);
        assert!(
            reason_for(&list, "secure.example").contains("asks for other.example"),
            "{list:?}"
        );
        let seen = tls.seen.lock().unwrap().clone();
        assert!(
            seen.iter().all(|line| !line.contains("other.example")),
            "the other site's request never arrived: {seen:?}"
        );
    }

    #[tokio::test]
    async fn loopback_behind_an_allowed_name_is_refused_without_the_explicit_setting() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let strict = EgressOptions::default().with_resolve("allowed.example", loopback());
        let c = computer(strict);
        if !namespaced(&c, ws.path()).await || !needed("curl") {
            return;
        }
        let (port, seen) = http_server();
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write()
                .with_egress(Egress::allow(["allowed.example", "localhost"])),
            &format!(
                "curl -sS --max-time 10 http://allowed.example:{port}/; curl -sS --max-time 10 http://localhost:{port}/"
            ),
        )
        .await;
        let list = blocked(&out);
        assert!(
            reason_for(&list, "allowed.example").contains("127.0.0.1"),
            "{list:?}"
        );
        assert!(
            reason_for(&list, "localhost").contains("non-public"),
            "{list:?}"
        );
        assert!(seen.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_method_limit_lets_get_through_and_refuses_post_and_tunnels() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let c = computer(test_options());
        if !namespaced(&c, ws.path()).await || !needed("curl") {
            return;
        }
        let (port, seen) = http_server();
        let egress =
            Egress::allow(["allowed.example", "secure.example"]).with_methods(["GET", "HEAD"]);
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write().with_egress(egress),
            &format!(
                "curl -sS --max-time 10 http://allowed.example:{port}/get; curl -sS --max-time 10 -d x=1 http://allowed.example:{port}/post; curl -sS -k --max-time 10 https://secure.example:443/"
            ),
        )
        .await;
        assert!(
            out["stdout"]
                .as_str()
                .unwrap_or("")
                .contains("hello from upstream")
        );
        let list = blocked(&out);
        assert!(
            reason_for(&list, "allowed.example").contains("POST"),
            "{list:?}"
        );
        assert!(
            reason_for(&list, "secure.example").contains("tunnel"),
            "{list:?}"
        );
        let heads = seen.lock().unwrap().clone();
        assert_eq!(heads.len(), 1, "{heads:?}");
        assert!(heads[0].starts_with("GET /get"));
    }

    #[tokio::test]
    async fn the_brokered_token_reaches_only_its_host_and_the_command_sees_a_dummy() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let real = "ghp_R3alT0kenOnlyTheHostKnows0123456789";
        let options = test_options().with_credential(
            CredentialBinding::new("TEST_BROKER_TOKEN", ["allowed.example"]).with_value(real),
        );
        let c = computer(options);
        if !namespaced(&c, ws.path()).await || !needed("curl") {
            return;
        }
        let (port, seen) = http_server();
        let header = "-H \"Authorization: Bearer $TEST_BROKER_TOKEN\"";
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write()
                .with_egress(Egress::allow(["allowed.example", "mirror.example"])),
            &format!(
                "printenv TEST_BROKER_TOKEN; cat /proc/self/environ | tr '\\0' '\\n' | grep -c R3alT0ken; curl -sS --max-time 10 {header} \"http://allowed.example:{port}/bound?t=$TEST_BROKER_TOKEN\"; curl -sS --max-time 10 {header} http://mirror.example:{port}/unbound; curl -sS --max-time 10 {header} -H 'Host: mirror.example' http://allowed.example:{port}/fronted"
            ),
        )
        .await;
        let stdout = out["stdout"].as_str().unwrap_or("");
        let dummy = stdout.lines().next().unwrap_or("").to_owned();
        assert_eq!(dummy.len(), real.len(), "{stdout}");
        assert!(dummy.starts_with("ghp_") && dummy != real, "{stdout}");
        assert!(
            !out.to_string().contains(real),
            "the command saw the real token"
        );
        assert_eq!(
            out["sandbox"]["credentialsBrokered"][0],
            "TEST_BROKER_TOKEN"
        );
        let heads = seen.lock().unwrap().clone();
        assert_eq!(heads.len(), 3, "{heads:?}");
        // A Host header naming another site is replaced by the name checked.
        let fronted = heads.iter().find(|h| h.contains("/fronted")).unwrap();
        assert!(
            fronted.contains(&format!("Host: allowed.example:{port}"))
                && !fronted.contains("mirror"),
            "{fronted}"
        );
        let bound = heads.iter().find(|h| h.contains("/bound")).unwrap();
        let unbound = heads.iter().find(|h| h.contains("/unbound")).unwrap();
        assert!(bound.contains(&format!("Bearer {real}")), "{bound}");
        assert!(bound.contains(&format!("?t={real}")), "{bound}");
        assert!(
            !unbound.contains(real) && unbound.contains(&dummy),
            "{unbound}"
        );
    }

    #[tokio::test]
    async fn over_https_the_bound_host_gets_the_token_through_the_commands_own_ca() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let c = computer(test_options());
        if !namespaced(&c, ws.path()).await || !needed("curl") || !needed("python3") {
            return;
        }
        let tls = tls_server();
        let real = "ghp_S3cretOverTlsOnlyTheHostKnows0123456";
        let options = test_options()
            .with_resolve("tunnel.example", loopback())
            .with_upstream_root(&tls.ca_file)
            .with_credential(
                CredentialBinding::new("TEST_TLS_TOKEN", ["secure.example"]).with_value(real),
            );
        let c = computer(options);
        let header = "-H \"Authorization: Bearer $TEST_TLS_TOKEN\"";
        let port = tls.port;
        let out = run(
            &c,
            ws.path(),
            Confinement::workspace_write()
                .with_egress(Egress::allow(["secure.example", "tunnel.example"])),
            &format!(
                "printenv TEST_TLS_TOKEN; curl -sS --max-time 10 {header} https://secure.example:{port}/bound; curl -sS --max-time 10 -k {header} https://tunnel.example:{port}/tunnelled; test -r \"$SSL_CERT_FILE\" && echo store-readable"
            ),
        )
        .await;
        let stdout = out["stdout"].as_str().unwrap_or("");
        // Verified by curl against the command's own store: no -k.
        assert!(stdout.contains("hello over tls"), "{}", out["content"]);
        assert!(stdout.contains("store-readable"), "{}", out["content"]);
        let dummy = stdout.lines().next().unwrap_or("").to_owned();
        assert!(dummy.starts_with("ghp_") && dummy.len() == real.len() && dummy != real);
        assert!(
            !out.to_string().contains(real),
            "the command saw the real token"
        );
        let seen = tls.seen.lock().unwrap().clone();
        assert!(
            seen.contains(&format!("/bound Bearer {real}")),
            "the bound host got the real token: {seen:?}"
        );
        assert!(
            seen.contains(&format!("/tunnelled Bearer {dummy}")),
            "a tunnel to another name keeps the dummy: {seen:?}"
        );
    }

    #[tokio::test]
    async fn egress_under_read_only_is_refused_with_a_named_reason_and_runs_nothing() {
        let ws = tempfile::tempdir_in(base_outside_temp()).unwrap();
        let c = computer(test_options());
        if !namespaced(&c, ws.path()).await {
            return;
        }
        let out = c
            .run_command(
                RunCommandParams::new("echo ran > ran.txt"),
                &ctx(ws.path()).with_extension(
                    Confinement::read_only().with_egress(Egress::allow(["allowed.example"])),
                ),
            )
            .await;
        assert_eq!(crate::common::code(&out), "sandbox_unavailable");
        assert!(out.content.contains("workspace_write"), "{}", out.content);
        assert!(!ws.path().join("ran.txt").exists());
    }
}
