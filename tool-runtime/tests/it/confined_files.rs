//! File operations under a call's confinement, on real files in temp dirs:
//! writes stay in the writable roots, protected entries stay read-only
//! (existing or not, at any depth, whatever the case), secrets stay
//! unreadable, and the path actually reached is judged, not the argument.

use std::path::{Path, PathBuf};

use crate::common::{code, ok, write};
use serde_json::{Value, json};
use tool_core::{Confinement, ToolContext, ToolOutput};
use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, Request};

struct Dirs {
    _base: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let base = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let ws = root.join("ws");
    let outside = root.join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    write(&ws, ".git/config", "[core]\n");
    write(&ws, ".git/hooks/README", "hooks\n");
    write(&ws, "src/main.rs", "fn main() {}\n");
    write(&ws, ".env", "API_KEY=s3cret\n");
    write(&ws, ".env.example", "API_KEY=\n");
    write(&ws, "app/.env.local", "TOKEN=s3cret\n");
    write(&outside, "victim.txt", "original\n");
    Dirs {
        _base: base,
        ws,
        outside,
    }
}

fn confined(ws: &Path, confinement: Confinement) -> ToolContext {
    ToolContext::new().with_cwd(ws).with_extension(confinement)
}

async fn call(c: &LocalComputer, api: &str, args: Value, ctx: &ToolContext) -> ToolOutput {
    c.execute(Request::from_api(api, args).unwrap(), ctx).await
}

fn assert_refused(out: &ToolOutput, what: &str) {
    assert_eq!(code(out), "confinement_refused", "{what}: {}", out.content);
    assert!(
        out.content.contains("It allows"),
        "{what}: the refusal must say what is allowed: {}",
        out.content
    );
}

#[tokio::test]
async fn writes_outside_the_writable_roots_are_refused_whatever_the_spelling() {
    let d = dirs();
    std::os::unix::fs::symlink(&d.outside, d.ws.join("link")).unwrap();
    std::os::unix::fs::symlink(d.outside.join("victim.txt"), d.ws.join("victim-link")).unwrap();
    std::os::unix::fs::symlink(d.outside.join("nothing-yet"), d.ws.join("dangling")).unwrap();
    let c = LocalComputer::new(LocalConfig::default());
    let cx = confined(&d.ws, Confinement::workspace_write());
    let outside = d.outside.join("planted.txt").display().to_string();
    for (what, path) in [
        ("absolute", outside.as_str()),
        ("dot-dot", "../outside/planted.txt"),
        ("dot-dot after a subdir", "src/../../outside/planted.txt"),
        ("through a symlinked dir", "link/planted.txt"),
        ("dangling symlink", "dangling"),
    ] {
        let out = call(&c, "writeFile", json!({"path": path, "content": "x"}), &cx).await;
        assert_refused(&out, what);
    }
    assert!(!d.outside.join("planted.txt").exists());
    assert!(!d.outside.join("nothing-yet").exists());
    // Editing through a symlink to an outside file is refused too.
    let out = call(
        &c,
        "editFile",
        json!({"path": "victim-link", "oldString": "original", "newString": "changed"}),
        &cx,
    )
    .await;
    assert_refused(&out, "edit through a symlink");
    // Moving a file out, or an outside file in, is refused.
    let out = call(
        &c,
        "moveFiles",
        json!({"items": [
            {"oldPath": "src/main.rs", "newPath": outside},
            {"oldPath": d.outside.join("victim.txt").display().to_string(), "newPath": "stolen.txt"},
        ]}),
        &cx,
    )
    .await;
    let state = ok(&out);
    assert_eq!(state["failed"], 2, "{}", out.content);
    assert_eq!(state["results"][0]["error"]["code"], "confinement_refused");
    assert_eq!(state["results"][1]["error"]["code"], "confinement_refused");
    assert_eq!(
        std::fs::read_to_string(d.outside.join("victim.txt")).unwrap(),
        "original\n"
    );
    assert!(d.ws.join("src/main.rs").exists());
}

#[tokio::test]
async fn protected_entries_cannot_be_written_created_or_moved_at_any_depth() {
    let d = dirs();
    write(&d.ws, "wf/workflows/ci.yml", "on: push\n");
    write(&d.ws, "run.sh", "echo hi\n");
    let c = LocalComputer::new(LocalConfig::default());
    let cx = confined(&d.ws, Confinement::workspace_write());
    for path in [
        ".git/config",
        ".git/hooks/pre-commit",
        ".GIT/config",
        ".Git/hooks/post-checkout",
        ".envrc",
        "sub/dir/.envrc",
        ".vscode/tasks.json",
        ".github/workflows/x.yml",
        "crates/a/.cargo/config.toml",
        "tests/conftest.py",
        "src/../.git/config",
        ".mcp.json",
        ".claude/settings.json",
        ".cursor/mcp.json",
        ".exrc",
        "sub/.nvim.lua",
        "rust-toolchain.toml",
    ] {
        let out = call(&c, "writeFile", json!({"path": path, "content": "x"}), &cx).await;
        assert_refused(&out, path);
        assert!(out.content.contains("protected"), "{path}: {}", out.content);
    }
    assert_eq!(
        std::fs::read_to_string(d.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    for missing in [
        ".envrc",
        ".vscode",
        ".github",
        "sub",
        ".GIT",
        "crates",
        "tests",
        ".mcp.json",
        ".claude",
        ".cursor",
        ".exrc",
        "rust-toolchain.toml",
    ] {
        assert!(!d.ws.join(missing).exists(), "{missing} was created");
    }
    for (what, args) in [
        (
            "a file onto a hook",
            json!({"items": [{"oldPath": "run.sh", "newPath": ".git/hooks/pre-push"}]}),
        ),
        (
            "the .git folder away",
            json!({"items": [{"oldPath": ".git", "newPath": "git-old"}]}),
        ),
        (
            "a folder that becomes a CI workflow folder",
            json!({"items": [{"oldPath": "wf", "newPath": ".github"}]}),
        ),
    ] {
        let out = call(&c, "moveFiles", args, &cx).await;
        assert_eq!(ok(&out)["failed"], 1, "{what}: {}", out.content);
        assert_eq!(
            ok(&out)["results"][0]["error"]["code"],
            "confinement_refused",
            "{what}"
        );
    }
    let out = call(
        &c,
        "renameFile",
        json!({"path": "run.sh", "newName": ".envrc"}),
        &cx,
    )
    .await;
    assert_refused(&out, "rename to .envrc");
    assert!(d.ws.join(".git/config").exists());
    assert!(d.ws.join("run.sh").exists());
    // Reading protected entries is fine, and so is writing ordinary files,
    // at the root of a workspace that holds .git included.
    let out = call(&c, "readFile", json!({"path": ".git/config"}), &cx).await;
    ok(&out);
    for path in [
        "new-at-root.txt",
        "src/lib.rs",
        "docs/new/page.md",
        ".gitignore",
    ] {
        let out = call(
            &c,
            "writeFile",
            json!({"path": path, "content": "ok\n"}),
            &cx,
        )
        .await;
        ok(&out);
    }
    let out = call(
        &c,
        "moveFiles",
        json!({"items": [{"oldPath": "new-at-root.txt", "newPath": "moved/here.txt"}]}),
        &cx,
    )
    .await;
    assert_eq!(ok(&out)["moved"], 1, "{}", out.content);
}

#[tokio::test]
async fn secrets_are_unreadable_and_searches_skip_them_and_say_so() {
    let d = dirs();
    std::os::unix::fs::symlink(d.ws.join(".env"), d.ws.join("innocent.txt")).unwrap();
    let c = LocalComputer::new(LocalConfig::default());
    let cx = confined(&d.ws, Confinement::read_only());
    for path in [
        ".env",
        "app/.env.local",
        "innocent.txt",
        ".ENV",
        "src/../.env",
    ] {
        let out = call(&c, "readFile", json!({"path": path}), &cx).await;
        if path == ".ENV" {
            // Not there on a case-sensitive file system; refused before looking.
            assert_eq!(code(&out), "confinement_refused", "{}", out.content);
            continue;
        }
        assert_refused(&out, path);
        assert!(!out.content.contains("s3cret"), "{}", out.content);
    }
    let out = call(&c, "readFile", json!({"path": ".env.example"}), &cx).await;
    ok(&out);
    let out = call(
        &c,
        "grepContent",
        json!({"pattern": "API_KEY|TOKEN", "includeHidden": true, "includeIgnored": true}),
        &cx,
    )
    .await;
    let state = ok(&out);
    assert!(!out.content.contains("s3cret"), "{}", out.content);
    assert_eq!(state["totalFiles"], 1, "{}", out.content);
    assert_eq!(state["secretsSkipped"], 2, "{}", out.content);
    assert!(
        out.content.contains("2 secret entries skipped"),
        "{}",
        out.content
    );
    let out = call(
        &c,
        "globFiles",
        json!({"pattern": "**/.env*", "includeHidden": true, "includeIgnored": true}),
        &cx,
    )
    .await;
    let state = ok(&out);
    assert_eq!(state["files"], json!([".env.example"]), "{}", out.content);
    assert_eq!(state["secretsSkipped"], 2);
    let out = call(
        &c,
        "listFiles",
        json!({"path": ".", "showHidden": true}),
        &cx,
    )
    .await;
    assert_eq!(ok(&out)["secretsSkipped"], 1, "{}", out.content);
    // read_only: no writes at all, not even in the workspace.
    let out = call(
        &c,
        "writeFile",
        json!({"path": "a.txt", "content": "x"}),
        &cx,
    )
    .await;
    assert_refused(&out, "write under read_only");
    assert!(out.content.contains("no writes"), "{}", out.content);
}

#[tokio::test]
async fn the_configured_sandbox_confines_files_and_a_calls_full_access_lifts_it() {
    let d = dirs();
    let c = LocalComputer::new(
        LocalConfig::default().with_sandbox(tool_runtime::SandboxPolicy::workspace_write()),
    );
    let plain = ToolContext::new().with_cwd(&d.ws);
    let out = call(&c, "readFile", json!({"path": ".env"}), &plain).await;
    assert_refused(&out, "configured sandbox");
    let details = out.error.as_ref().unwrap().details.as_ref().unwrap();
    assert_eq!(details["confinement"], "workspace_write");
    assert_eq!(details["operation"], "read");
    let free = confined(&d.ws, Confinement::FullAccess);
    let out = call(&c, "readFile", json!({"path": ".env"}), &free).await;
    assert!(ok(&out)["content"].as_str().unwrap().contains("s3cret"));
    // Without any confinement nothing is refused.
    let unconfined = LocalComputer::new(LocalConfig::default());
    let out = call(
        &unconfined,
        "writeFile",
        json!({"path": ".git/info/note", "content": "x"}),
        &plain,
    )
    .await;
    ok(&out);
}

#[tokio::test]
async fn host_writable_roots_are_writable_and_the_message_names_them() {
    let d = dirs();
    let cache = d.outside.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let c = LocalComputer::new(LocalConfig::default());
    let cx = confined(
        &d.ws,
        Confinement::workspace_write().with_writable_root(&cache),
    );
    let out = call(
        &c,
        "writeFile",
        json!({"path": cache.join("f.txt").display().to_string(), "content": "x"}),
        &cx,
    )
    .await;
    ok(&out);
    let out = call(
        &c,
        "writeFile",
        json!({"path": d.outside.join("g.txt").display().to_string(), "content": "x"}),
        &cx,
    )
    .await;
    assert_refused(&out, "outside the host roots");
    assert!(
        out.content.contains(&cache.display().to_string()),
        "{}",
        out.content
    );
    assert!(
        out.content.contains(&d.ws.display().to_string()),
        "{}",
        out.content
    );
}

/// The flips a flipper command counted so far (one byte appended to
/// `counter` per round), once it has made its first; fails when it makes
/// none within ten seconds.
pub(crate) async fn flips_made(counter: &Path) -> u64 {
    for _ in 0..1000 {
        match std::fs::metadata(counter) {
            Ok(meta) if meta.len() > 0 => return meta.len(),
            _ => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
        }
    }
    panic!("the flipper never flipped (no `{}`)", counter.display());
}

/// Names and content of the secret folder outside that a raced file tool
/// must never show.
const VAULT_MARKS: [&str; 3] = ["vault-secret", "vault-only-name", "vault-deep-name"];

/// Races every file tool against a confined command, `rounds` times: the
/// command flips `d` between a symlink to a folder of the workspace and
/// one to the secret folder `vault` outside it (an atomic swap), and `e`
/// between a real folder and such a symlink, while `writeFile`,
/// `readFile`, `listFiles`, `globFiles`, `searchFiles` and `grepContent`
/// run through `d/`, `e/` and from the workspace's top. No write lands in
/// the vault; no result names a vault entry or holds its content; each
/// kind of operation still succeeded, and the flipper ran meanwhile. `c`
/// must confine with `vault` among its secret paths.
pub(crate) async fn race_file_tools(
    c: &LocalComputer,
    ws: &Path,
    vault: &Path,
    ctx: &ToolContext,
    rounds: usize,
) {
    write(vault, "notes.txt", "vault-secret\n");
    write(vault, "vault-only-name.txt", "vault-secret\n");
    write(vault, "sub/vault-deep-name.txt", "vault-secret\n");
    write(ws, "real/notes.txt", "plain notes\n");
    write(ws, "real/sub/deep.txt", "plain deep\n");
    write(ws, "e/notes.txt", "plain notes\n");
    write(ws, "e/sub/deep.txt", "plain deep\n");
    std::os::unix::fs::symlink("real", ws.join("d")).unwrap();
    let v = vault.display();
    let flipper = format!(
        "ln -s real d.in; ln -s '{v}' d.out; while :; do cp -P d.out d.tmp; mv -T d.tmp d; cp -P d.in d.tmp; mv -T d.tmp d; mv e e.real; ln -s '{v}' e; rm e; mv e.real e; printf . >> flips; done"
    );
    let started = call(
        c,
        "runCommand",
        json!({"command": flipper, "runInBackground": true}),
        ctx,
    )
    .await;
    let shell = ok(&started)["shellId"].as_str().unwrap().to_owned();
    let before = flips_made(&ws.join("flips")).await;
    let mut succeeded = std::collections::BTreeMap::<&str, usize>::new();
    for i in 0..rounds {
        let dir = if i % 2 == 0 { "d" } else { "e" };
        let calls = [
            (
                "writeFile",
                json!({"path": format!("{dir}/x"), "content": format!("{i}\n")}),
            ),
            ("readFile", json!({"path": format!("{dir}/notes.txt")})),
            ("listFiles", json!({"path": dir})),
            ("globFiles", json!({"pattern": "**/*.txt"})),
            ("globFiles", json!({"pattern": "*", "path": dir})),
            ("searchFiles", json!({"keyword": "name"})),
            ("searchFiles", json!({"keyword": "e", "directory": dir})),
            ("grepContent", json!({"pattern": "secret|plain"})),
            (
                "grepContent",
                json!({"pattern": "secret|plain", "path": dir, "outputMode": "content"}),
            ),
        ];
        for (api, args) in calls {
            let out = call(c, api, args.clone(), ctx).await;
            for mark in VAULT_MARKS {
                assert!(!out.content.contains(mark), "{api} {args}: {}", out.content);
            }
            assert!(!vault.join("x").exists(), "a write landed in the vault");
            *succeeded.entry(api).or_default() += usize::from(out.success);
        }
    }
    let during = std::fs::metadata(ws.join("flips")).unwrap().len() - before;
    call(c, "killCommand", json!({"shellId": shell}), ctx).await;
    eprintln!("race: {during} flips in {rounds} rounds; succeeded: {succeeded:?}");
    assert!(during > 0, "the flipper did not run during the race");
    for api in [
        "writeFile",
        "readFile",
        "listFiles",
        "globFiles",
        "searchFiles",
        "grepContent",
    ] {
        assert!(
            succeeded.get(api).is_some_and(|n| *n > 0),
            "the race never let {api} through: {succeeded:?}"
        );
    }
    let mut left: Vec<_> = std::fs::read_dir(vault)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt", "sub", "vault-only-name.txt"]);
}

/// The race of [`race_file_tools`], 300 rounds, as this host.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn file_tools_cannot_be_raced_by_a_confined_command_flipping_a_symlink() {
    let d = dirs();
    let vault = d.outside.join("vault");
    let c = LocalComputer::new(LocalConfig {
        shell: tool_runtime::ShellConfig {
            sandbox: tool_runtime::SandboxPolicy::workspace_write(),
            sandbox_options: tool_runtime::SandboxOptions {
                secret_paths: vec![vault.clone()],
                ..tool_runtime::SandboxOptions::default()
            },
            ..tool_runtime::ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    if !tool_runtime::confinement_support(&tool_runtime::SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return;
    }
    race_file_tools(&c, &d.ws, &vault, &ToolContext::new().with_cwd(&d.ws), 300).await;
}

/// The names left in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Swaps `link` atomically to a symlink to `target` (a new link renamed
/// over it, as `mv -T` does).
fn point(ws: &Path, link: &str, target: &Path) {
    let tmp = ws.join(format!("{link}.flip"));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp).unwrap();
    std::fs::rename(&tmp, ws.join(link)).unwrap();
}

/// A thread flips `d` between a symlink to a folder of the workspace and
/// symlinks to a secret folder outside, a secret folder inside and the
/// protected `.git/hooks`, and `e` between a folder and such symlinks,
/// while confined `moveFiles` (into and out of `d/` and `e/`),
/// `renameFile` and `writeFile` (inside them) run a few hundred times
/// each: nothing ever
/// lands outside the workspace, in a secret folder or in `.git`, nothing
/// leaves them, and the flipper really ran during the race.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn moves_renames_and_writes_cannot_be_raced_by_a_flipped_symlink() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let d = dirs();
    let vault = d.outside.join("vault");
    let private = d.ws.join("private");
    let hooks = d.ws.join(".git/hooks");
    write(&vault, "notes.txt", "vault-secret\n");
    write(&private, "key.txt", "private-secret\n");
    write(&d.ws, "real/keep.txt", "plain\n");
    write(&d.ws, "e/keep.txt", "plain\n");
    std::fs::create_dir_all(d.ws.join("pool")).unwrap();
    std::fs::create_dir_all(d.ws.join("back")).unwrap();
    std::os::unix::fs::symlink("real", d.ws.join("d")).unwrap();
    let options = tool_runtime::SandboxOptions {
        secret_paths: vec![vault.clone(), private.clone()],
        ..tool_runtime::SandboxOptions::default()
    };
    let c = LocalComputer::new(LocalConfig {
        shell: tool_runtime::ShellConfig {
            sandbox: tool_runtime::SandboxPolicy::workspace_write(),
            sandbox_options: options,
            ..tool_runtime::ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    let ctx = ToolContext::new().with_cwd(&d.ws);
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let flipper = {
        let (ws, stop, flips) = (d.ws.clone(), Arc::clone(&stop), Arc::clone(&flips));
        let away = [vault.clone(), private.clone(), hooks.clone()];
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let target = &away[n % away.len()];
                point(&ws, "d", target);
                point(&ws, "d", Path::new("real"));
                let (e, real) = (ws.join("e"), ws.join("e.real"));
                std::fs::rename(&e, &real).unwrap();
                if std::os::unix::fs::symlink(target, &e).is_ok() {
                    std::fs::remove_file(&e).unwrap();
                }
                // A move into `e/` may have made `e` afresh meanwhile (a
                // move creates its missing folders): drop that one.
                while std::fs::rename(&real, &e).is_err() {
                    let _ = std::fs::remove_dir_all(&e);
                }
                n += 1;
                flips.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    while flips.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    let before = flips.load(Ordering::Relaxed);
    let outside_names = names(&d.outside);
    let (mut moved_in, mut renamed, mut moved_out, mut wrote) = (0, 0, 0, 0);
    for i in 0..300 {
        let dir = if i % 2 == 0 { "d" } else { "e" };
        write(&d.ws, &format!("pool/f{i}"), format!("{i}\n"));
        let out = call(
            &c,
            "moveFiles",
            json!({"items": [{"oldPath": format!("pool/f{i}"), "newPath": format!("{dir}/m{i}")}]}),
            &ctx,
        )
        .await;
        moved_in += ok(&out)["moved"].as_u64().unwrap();
        let out = call(
            &c,
            "renameFile",
            json!({"path": format!("{dir}/m{i}"), "newName": format!("n{i}")}),
            &ctx,
        )
        .await;
        renamed += u64::from(out.success);
        let out = call(
            &c,
            "moveFiles",
            json!({"items": [
                {"oldPath": format!("{dir}/n{i}"), "newPath": format!("back/b{i}")},
                {"oldPath": format!("{dir}/notes.txt"), "newPath": format!("back/v{i}")},
                {"oldPath": format!("{dir}/key.txt"), "newPath": format!("back/k{i}")},
                {"oldPath": format!("{dir}/README"), "newPath": format!("back/h{i}")},
            ]}),
            &ctx,
        )
        .await;
        moved_out += ok(&out)["moved"].as_u64().unwrap();
        let out = call(
            &c,
            "writeFile",
            json!({"path": format!("{dir}/w{i}"), "content": format!("{i}\n")}),
            &ctx,
        )
        .await;
        wrote += u64::from(out.success);
        assert_eq!(names(&vault), ["notes.txt"], "the vault changed at {i}");
        assert_eq!(
            names(&private),
            ["key.txt"],
            "the private folder changed at {i}"
        );
        assert_eq!(names(&hooks), ["README"], "the hooks changed at {i}");
        assert_eq!(names(&d.outside), outside_names, "outside changed at {i}");
    }
    let during = flips.load(Ordering::Relaxed) - before;
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    eprintln!(
        "race: {during} flips; {moved_in} moves in, {renamed} renames, {moved_out} moves out, {wrote} writes of 300"
    );
    assert!(during >= 10, "the flipper hardly ran: {during} flips");
    assert!(
        moved_in > 0 && renamed > 0 && moved_out > 0 && wrote > 0,
        "the race never let an operation through"
    );
    for name in names(&d.ws.join("back")) {
        assert!(
            name.starts_with('b'),
            "{name} was taken out of a guarded folder"
        );
    }
    assert_eq!(
        std::fs::read_to_string(vault.join("notes.txt")).unwrap(),
        "vault-secret\n"
    );
}
