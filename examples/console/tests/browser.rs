//! The console end to end in a real headless Chromium (Debian's package,
//! installed by `.ci/setup.d/50-chromium.sh`), driven over WebDriver by
//! chromedriver on 127.0.0.1: a call made by one `console call` process is
//! approved on the page served by a `console serve` process, runs exactly
//! once, and its output appears on the page. The page with the pending
//! call is kept as a screenshot in `$CARGO_TARGET_TMPDIR`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../.ci/fixtures.rs"]
mod setup;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn console(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_console"));
    command
        .arg("--store")
        .arg(dir.join("store"))
        .arg("--key-file")
        .arg(dir.join("key"))
        .arg("--workspace")
        .arg(dir.join("ws"));
    command
}

/// Decodes standard base64 (the WebDriver screenshot).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(value(c)) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// A WebDriver session on chromedriver.
struct Browser {
    http: reqwest::Client,
    base: String,
    _driver: Killed,
}

impl Browser {
    async fn start(profile: &Path) -> Self {
        setup::ensure("50-chromium.sh");
        let port = free_port();
        let driver = Killed(
            Command::new("chromedriver")
                .arg(format!("--port={port}"))
                .arg("--allowed-ips=127.0.0.1")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver (installed by .ci/setup.d/50-chromium.sh)"),
        );
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let root = format!("http://127.0.0.1:{port}");
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = http.get(format!("{root}/status")).send().await
                && r.status().is_success()
            {
                break;
            }
            assert!(Instant::now() < until, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let chromium = which("chromium");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--no-first-run",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1000,900",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        }}});
        let session: Value = http
            .post(format!("{root}/session"))
            .json(&caps)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = session["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"));
        let browser = Self {
            base: format!("{root}/session/{id}"),
            http,
            _driver: driver,
        };
        // A click that submits a form returns before the next page is
        // there: a look-up waits up to 10 s for its element to appear.
        browser
            .post("/timeouts", json!({ "implicit": 10_000 }))
            .await;
        browser
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let r: Value = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(r["value"].get("error").is_none(), "{path}: {r}");
        r["value"].clone()
    }

    async fn get(&self, path: &str) -> Value {
        let r: Value = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["value"].clone()
    }

    async fn open(&self, url: &str) {
        self.post("/url", json!({ "url": url })).await;
    }

    async fn text(&self, css: &str) -> String {
        let element = self
            .post("/element", json!({"using": "css selector", "value": css}))
            .await;
        let id = element.as_object().unwrap().values().next().unwrap();
        self.get(&format!("/element/{}/text", id.as_str().unwrap()))
            .await
            .as_str()
            .unwrap()
            .to_owned()
    }

    async fn click(&self, css: &str) {
        let element = self
            .post("/element", json!({"using": "css selector", "value": css}))
            .await;
        let id = element.as_object().unwrap().values().next().unwrap();
        self.post(
            &format!("/element/{}/click", id.as_str().unwrap()),
            json!({}),
        )
        .await;
    }

    async fn screenshot(&self, to: &Path) {
        let png = base64(self.get("/screenshot").await.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(to, png).unwrap();
    }

    async fn close(&self) {
        let _ = self.http.delete(&self.base).send().await;
    }
}

fn which(program: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_made_by_one_process_is_approved_on_the_page_of_another_and_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["store", "ws", "profile"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("key"), "5a".repeat(32)).unwrap();

    // Process 1: the model's call waits as a file in the store.
    let out = console(dir.path())
        .args([
            "call",
            "notes____append",
            r#"{"line": "buy <milk> & eggs"}"#,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(made["output"].is_null());
    let file = PathBuf::from(made["pending"].as_str().unwrap());
    let pending: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let call = pending["items"][0]["call"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Process 2: the page.
    let mut server = Killed(
        console(dir.path())
            .args(["serve", "--bind", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();

    let browser = Browser::start(&dir.path().join("profile")).await;
    browser.open(&url).await;
    let item = format!("#item-{call}");
    assert_eq!(browser.text(&format!("{item} h2")).await, "notes/append");
    assert_eq!(
        browser.text(&format!("{item} .reason")).await,
        "appending changes the notes file"
    );
    let args = browser.text(&format!("{item} .arguments")).await;
    assert!(args.contains("buy <milk> & eggs"), "{args}"); // shown as text, escaped
    assert_eq!(
        browser.text(&format!("{item} .confinement")).await,
        "nothing to confine"
    );
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("console-pending-call.png");
    browser.screenshot(&shot).await;
    assert!(std::fs::metadata(&shot).unwrap().len() > 1_000);

    browser.click(&format!("#approve-{call}")).await;
    let result = format!("#result-{call}");
    assert_eq!(browser.text(&format!("{result} .status")).await, "approved");
    assert_eq!(
        browser.text(&format!("{result} .output")).await,
        "appended: buy <milk> & eggs"
    );
    let notes = dir.path().join("ws/notes.txt");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "buy <milk> & eggs\n"
    );

    // The list is empty now, and the same form posted again runs nothing.
    browser.open(&url).await;
    assert_eq!(browser.text("#empty").await, "Nothing waits for you.");
    browser.close().await;
    let replay = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{url}answer"))
        .header("content-type", "application/x-www-form-urlencoded")
        // Ids are `pend_`/`call_` + hex: nothing to percent-encode.
        .body(format!(
            "turn={}&call={call}&reply=approve",
            pending["id"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(replay.contains("no such pending turn"), "{replay}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "buy <milk> & eggs\n"
    );
}
