//! Rows of the sandbox guide (the table at the top of `src/sandbox/mod.rs`)
//! that no other test pinned, each checked on real confined processes
//! through the public API: every mount `nosuid` and `nodev` (but the
//! devices), the secure bits locked with `no_new_privs` and no capability
//! as root, the open-files limit, the refused calls on any architecture
//! (numbers from `libc`, not written for one), a non-fast-forward
//! `git merge`, and `cargo` unpacking a cached crate into the home's
//! writable registry.
//!
//! Each check is also run where it must come out otherwise (unconfined, or
//! with the setting off), so a check that could not fail fails here. Every
//! command is a harmless read or write in directories the test creates;
//! the probed calls get arguments that change nothing even where a call is
//! let through (invalid magic numbers, lengths, flags or paths).
#![cfg(target_os = "linux")]

mod calls;

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

use crate::common::{
    base_outside_temp, ctx, namespaced, needed, ok, running_as_root, state, write,
};
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, Limits, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions,
    SandboxPolicy, ShellConfig,
};

fn computer(options: SandboxOptions) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: options,
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

fn unconfined() -> LocalComputer {
    LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::FullAccess))
}

async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

fn code(out: &ToolOutput) -> i64 {
    ok(out)["exitCode"].as_i64().unwrap_or(-1)
}

fn stdout(out: &ToolOutput) -> String {
    ok(out)["stdout"].as_str().unwrap_or("").to_owned()
}

/// A workspace outside the system temp dir (which the sandbox keeps
/// writable), removed with the returned guard.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = std::fs::canonicalize(base.path()).unwrap().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    (base, ws)
}

// ---------------------------------------------------------------------
// Mounts
// ---------------------------------------------------------------------

/// One line of `/proc/self/mountinfo`: where, its per-mount options, the
/// file system type and the root of the mount within its file system.
struct Mount {
    point: String,
    options: Vec<String>,
    fs_type: String,
    root: String,
}

impl Mount {
    fn has(&self, option: &str) -> bool {
        self.options.iter().any(|o| o == option)
    }
}

/// `\040`-style escapes of mountinfo undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && let Ok(n) = u8::from_str_radix(&field[i + 1..i + 4], 8)
        {
            out.push(n);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let dash = fields
                .iter()
                .position(|f| *f == "-")
                .unwrap_or_else(|| panic!("no separator in mountinfo line {line:?}"));
            Mount {
                root: unescape(fields[3]),
                point: unescape(fields[4]),
                options: fields[5].split(',').map(str::to_owned).collect(),
                fs_type: fields.get(dash + 1).copied().unwrap_or("").to_owned(),
            }
        })
        .collect()
}

/// The device files the fresh `/dev` binds from the host.
const DEVICES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// The mounts that deliberately lack `nodev`, with why: the fresh `/dev`
/// (a small tmpfs, `noexec`, holding the bound devices), its private
/// `devpts` (`noexec`), and the host's device files bound there
/// (read-only); where the empty-file stand-ins of missing protected files
/// are the fresh `/dev/null` (rather than the empty-file mask), each of
/// them too, read-only in the workspace. Each is a device or holds
/// devices, so `nodev` would make it unusable; none can hold a device the
/// command made (`mknod` is refused, and no capability is left to bind
/// one).
fn deliberately_with_devices(mount: &Mount, ws: &Path) -> bool {
    let point = mount.point.as_str();
    (point == "/dev" && mount.fs_type == "tmpfs" && mount.has("noexec"))
        || (point == "/dev/pts" && mount.fs_type == "devpts" && mount.has("noexec"))
        || DEVICES.iter().any(|d| {
            point == format!("/dev/{d}") && mount.root == format!("/{d}") && mount.has("ro")
        })
        || (mount.root == "/null" && mount.has("ro") && Path::new(point).parent() == Some(ws))
}

/// The mounts of a confined command's namespace (working in `ws`) that
/// lack `nosuid`, or lack `nodev` without being one of the deliberate
/// device mounts.
fn mounts_breaking_the_rule(mountinfo: &str, ws: &Path) -> Vec<String> {
    parse_mountinfo(mountinfo)
        .iter()
        .filter(|m| !m.has("nosuid") || (!m.has("nodev") && !deliberately_with_devices(m, ws)))
        .map(|m| format!("{} ({}, {})", m.point, m.fs_type, m.options.join(",")))
        .collect()
}

/// A workspace giving the namespace every kind of mount it makes: the
/// workspace itself, `.git` pinned and its code parts (read-only binds),
/// a masked secret file and a masked secret folder, stand-ins for missing
/// protected folders and files (the empty-file ones too), and a `/tmp`
/// (the overlay, or the private temp dir).
fn every_kind_of_mount(ws: &Path) -> SandboxOptions {
    write(ws, ".git/config", "[core]\n");
    write(ws, ".git/hooks/README", "hooks\n");
    write(ws, ".env", "TOKEN=fake-secret\n");
    write(ws, "vault/key", "fake-key\n");
    write(ws, "src/main.rs", "fn main() {}\n");
    SandboxOptions {
        secret_paths: vec![ws.join("vault")],
        file_stand_ins: true,
        ..SandboxOptions::default()
    }
}

/// Runs a command in `ws` (prepared by [`every_kind_of_mount`]) and checks
/// that it had each kind of mount and that all follow the rule.
async fn assert_every_mount_follows_the_rule(c: &LocalComputer, ws: &Path) {
    let out = sh(c, ws, "cat /proc/self/mountinfo").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let mountinfo = stdout(&out);
    let mounts = parse_mountinfo(&mountinfo);
    let point = |p: &Path| p.to_str().unwrap().to_owned();
    for expected in [
        "/",
        "/tmp",
        "/dev",
        "/dev/pts",
        "/dev/shm",
        "/dev/null",
        "/proc",
        &point(ws),
        &point(&ws.join(".git/config")),
        &point(&ws.join(".git/hooks")),
        &point(&ws.join(".env")),
        &point(&ws.join(".envrc")),
        &point(&ws.join(".yarnrc")),
        &point(&ws.join("vault")),
    ] {
        assert!(
            mounts.iter().any(|m| m.point == expected),
            "no mount at {expected}:\n{mountinfo}"
        );
    }
    let breaking = mounts_breaking_the_rule(&mountinfo, ws);
    assert!(
        breaking.is_empty(),
        "mounts without nosuid or nodev: {breaking:#?}\n{mountinfo}"
    );
}

#[tokio::test]
async fn every_mount_of_a_confined_command_is_nosuid_and_nodev_but_the_devices() {
    let (_base, ws) = workspace();
    let c = computer(every_kind_of_mount(&ws));
    if !namespaced(&c, &ws).await {
        return;
    }
    assert_every_mount_follows_the_rule(&c, &ws).await;
    // The check can fail: the host's own mounts (seen unconfined) break it.
    let out = sh(&unconfined(), &ws, "cat /proc/self/mountinfo").await;
    let host = stdout(&out);
    if mounts_breaking_the_rule(&host, &ws).is_empty() {
        test_support::cannot_check(
            "the check against the host's mounts",
            "every host mount is already nosuid,nodev",
        );
    }
}

/// The private `/tmp` without the overlay (the private temp dir bound in
/// its place): the same rule.
#[tokio::test]
async fn without_the_overlay_the_private_tmp_is_nosuid_and_nodev_too() {
    let (_base, ws) = workspace();
    let mut options = every_kind_of_mount(&ws);
    options.tmp_overlay = false;
    let c = computer(options);
    if !namespaced(&c, &ws).await {
        return;
    }
    assert_every_mount_follows_the_rule(&c, &ws).await;
}

// ---------------------------------------------------------------------
// Capabilities and secure bits
// ---------------------------------------------------------------------

/// `SECBIT_NOROOT`, `SECBIT_NO_SETUID_FIXUP`, `SECBIT_NO_CAP_AMBIENT_RAISE`
/// and their locks, and `SECBIT_KEEP_CAPS_LOCKED` (from
/// `include/uapi/linux/securebits.h`); `SECBIT_KEEP_CAPS` itself is cleared
/// by every `exec`.
const LOCKED_SECURE_BITS: u64 = (1 << 0) // SECBIT_NOROOT
    | (1 << 1) // SECBIT_NOROOT_LOCKED
    | (1 << 2) // SECBIT_NO_SETUID_FIXUP
    | (1 << 3) // SECBIT_NO_SETUID_FIXUP_LOCKED
    | (1 << 5) // SECBIT_KEEP_CAPS_LOCKED
    | (1 << 6) // SECBIT_NO_CAP_AMBIENT_RAISE
    | (1 << 7); // SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED

/// Prints the secure bits, `no_new_privs`, the (negated) errno of an
/// attempt to clear the secure bits (it must fail: they are locked), and
/// the secure bits after it.
const PRIVILEGE_PROBE: &str = r#"import ctypes
libc = ctypes.CDLL(None, use_errno=True)
PR_GET_SECUREBITS, PR_SET_SECUREBITS, PR_GET_NO_NEW_PRIVS = 27, 28, 39
def prctl(*args):
    ctypes.set_errno(0)
    r = libc.prctl(*[ctypes.c_ulong(a) for a in args])
    return r if r >= 0 else -ctypes.get_errno()
print("securebits", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0))
print("no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0))
print("clear_securebits", prctl(PR_SET_SECUREBITS, 0, 0, 0, 0))
print("securebits_after", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0))
"#;

fn probe_value(text: &str, name: &str) -> i64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

const PRIVILEGES: &str = "grep -E '^(Uid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status; python3 privileges.py";

/// Runs [`PRIVILEGE_PROBE`] confined in `ws` and checks that the command,
/// as `uid`, holds no capability, has `no_new_privs` and the secure bits
/// set and locked.
async fn assert_no_privilege(ws: &Path, uid: u32) {
    let c = computer(SandboxOptions::default());
    write(ws, "privileges.py", PRIVILEGE_PROBE);
    let out = sh(&c, ws, PRIVILEGES).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("Uid:\t{uid}\t{uid}\t{uid}\t{uid}")),
        "{text}"
    );
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(
            text.contains(&format!("{set}:\t0000000000000000")),
            "{set} not empty: {text}"
        );
    }
    assert!(text.contains("NoNewPrivs:\t1"), "{text}");
    assert_eq!(probe_value(&text, "no_new_privs"), 1, "{text}");
    let locked = LOCKED_SECURE_BITS as i64;
    assert_eq!(probe_value(&text, "securebits"), locked, "{text}");
    // Locked: clearing them is refused, and they stay.
    let refused = -i64::from(libc::EPERM);
    assert_eq!(probe_value(&text, "clear_securebits"), refused, "{text}");
    assert_eq!(probe_value(&text, "securebits_after"), locked, "{text}");
}

#[tokio::test]
async fn as_root_the_secure_bits_are_locked_no_new_privs_is_set_and_no_capability_is_left() {
    let (_base, ws) = workspace();
    if !namespaced(&computer(SandboxOptions::default()), &ws).await || !needed("python3") {
        return;
    }
    if !running_as_root() {
        test_support::cannot_check("this test", "it checks a root host, and this is not root");
        return;
    }
    assert_no_privilege(&ws, 0).await;
    // The same probe unconfined, as root, sees capabilities and unlocked
    // bits (`no_new_privs` is left out: a container may set it for the
    // host itself).
    let out = sh(&unconfined(), &ws, PRIVILEGES).await;
    let host = stdout(&out);
    assert!(!host.contains("CapEff:\t0000000000000000"), "{host}");
    let locked = LOCKED_SECURE_BITS as i64;
    assert_ne!(probe_value(&host, "securebits"), locked, "{host}");
}

const PRIVILEGE_CHILD: &str = "TOOL_SANDBOX_GUIDE_ROWS_PRIVILEGE_CHILD";
const UNPRIVILEGED: u32 = 65534;

/// As an unprivileged host, the same: no capability, the secure bits
/// locked, `no_new_privs`, every mount `nosuid` and `nodev` but the
/// devices. The test runs itself again as uid 65534, with a workspace,
/// home and temp dir of that user.
#[tokio::test]
async fn as_an_unprivileged_host_no_capability_is_left_and_every_mount_follows_the_rule() {
    const TEST: &str =
        "as_an_unprivileged_host_no_capability_is_left_and_every_mount_follows_the_rule";
    if let Some(ws) = std::env::var_os(PRIVILEGE_CHILD) {
        let ws = PathBuf::from(ws);
        if namespaced(&computer(SandboxOptions::default()), &ws).await {
            assert_no_privilege(&ws, UNPRIVILEGED).await;
            let c = computer(every_kind_of_mount(&ws));
            assert_every_mount_follows_the_rule(&c, &ws).await;
        }
        return;
    }
    if !needed("python3") {
        return;
    }
    if !running_as_root() {
        test_support::cannot_check("this test", "not root, cannot switch user");
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    for dir in ["ws", "home", "tmp"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::os::unix::fs::lchown(root.join(dir), Some(UNPRIVILEGED), Some(UNPRIVILEGED)).unwrap();
    }
    let out = child_of_this_binary(TEST)
        .env(PRIVILEGE_CHILD, root.join("ws"))
        .env("HOME", root.join("home"))
        .env("TMPDIR", root.join("tmp"))
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .uid(UNPRIVILEGED)
        .gid(UNPRIVILEGED)
        .output()
        .unwrap();
    assert_child_passed(&out);
}

/// A command running `test` of this binary alone.
fn child_of_this_binary(test: &str) -> std::process::Command {
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        &format!("{module}::{test}"),
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd
}

/// Panics with the child's output unless it ran its test and passed.
fn assert_child_passed(out: &std::process::Output) {
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child failed:\n{text}");
    assert!(text.contains("1 passed"), "child did not run:\n{text}");
    assert!(!text.contains("skipping"), "child skipped:\n{text}");
}

// ---------------------------------------------------------------------
// The open-files limit
// ---------------------------------------------------------------------

/// Opens a file until the first failure; prints how many were open and
/// the failure's errno and message.
const OPEN_FILES_PROBE: &str = r#"import os
fds = []
try:
    while len(fds) < 100000:
        fds.append(os.open("probe.txt", os.O_RDONLY))
    print("opened", len(fds), "errno 0")
except OSError as e:
    print("opened", len(fds), "errno", e.errno)
    print(e.strerror)
"#;

#[tokio::test]
async fn the_open_files_limit_is_the_configured_one_and_an_open_past_it_fails_with_emfile() {
    let (_base, ws) = workspace();
    let mut limits = Limits::default();
    limits.open_files = Some(64);
    let c = computer(SandboxOptions {
        limits,
        ..SandboxOptions::default()
    });
    if !namespaced(&c, &ws).await || !needed("python3") {
        return;
    }
    write(&ws, "probe.txt", "x\n");
    write(&ws, "open_files.py", OPEN_FILES_PROBE);
    let out = sh(&c, &ws, "ulimit -Sn; ulimit -Hn; python3 open_files.py").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("64"), "soft limit: {text}");
    assert_eq!(lines.next(), Some("64"), "hard limit: {text}");
    // stdin, stdout, stderr and what python holds open take a few; the
    // rest is what the probe could open, then EMFILE, named by the
    // command's own error.
    let opened_line = lines.next().unwrap_or("");
    let fields: Vec<&str> = opened_line.split_whitespace().collect();
    assert_eq!(fields.len(), 4, "{text}");
    let opened: u64 = fields[1].parse().unwrap();
    assert!((50..64).contains(&opened), "{text}");
    assert_eq!(fields[3], libc::EMFILE.to_string(), "{text}");
    assert!(text.contains("Too many open files"), "{text}");
    assert_eq!(
        state(&out)["sandbox"]["limits"]["open_files"],
        64,
        "{}",
        out.content
    );
    // The default is 4 096; unconfined, the host's own limit holds, which
    // the probe passes.
    let out = sh(&computer(SandboxOptions::default()), &ws, "ulimit -n").await;
    assert_eq!(stdout(&out), "4096\n", "{}", out.content);
    let out = sh(&unconfined(), &ws, "ulimit -n; python3 open_files.py").await;
    let host = stdout(&out);
    let host_limit: u64 = host.lines().next().unwrap_or("0").parse().unwrap_or(0);
    if host_limit <= 64 {
        test_support::cannot_check(
            "the unconfined comparison",
            format!("the host's own limit is {host_limit}"),
        );
    } else {
        let opened: u64 = host
            .lines()
            .find_map(|l| l.strip_prefix("opened "))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        assert!(opened > 64, "the host's limit held the probe too: {host}");
    }
}

// ---------------------------------------------------------------------
// git merge, not fast-forward
// ---------------------------------------------------------------------

fn host_git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn a_non_fast_forward_git_merge_commits_confined_and_git_code_parts_stay_read_only() {
    let (_base, ws) = workspace();
    let c = computer(SandboxOptions::default());
    if !namespaced(&c, &ws).await || !needed("git") {
        return;
    }
    // A real repository made by the host, one commit on `main`.
    host_git(&ws, &["init", "-q"]);
    host_git(&ws, &["checkout", "-q", "-b", "main"]);
    write(&ws, "a.txt", "a\n");
    host_git(&ws, &["add", "a.txt"]);
    host_git(&ws, &["commit", "-q", "-m", "first"]);
    let config_before = std::fs::read(ws.join(".git/config")).unwrap();
    let hooks_before: Vec<_> = std::fs::read_dir(ws.join(".git/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let mut params = RunCommandParams::new(
        // Divergent branches: a true merge (two parents); then a branch
        // `main` could fast-forward to, merged with `--no-ff`.
        "set -e; \
         git checkout -q -b side; echo b > b.txt; git add b.txt; git commit -q -m side; \
         git checkout -q main; echo c > c.txt; git add c.txt; git commit -q -m main; \
         git merge -q --no-edit side; \
         git checkout -q -b feature; echo d > d.txt; git add d.txt; git commit -q -m feature; \
         git checkout -q main; git merge -q --no-ff --no-edit feature; \
         git log --merges --format=%s; git rev-list --parents -n1 HEAD | wc -w; ls",
    );
    params.env = Some(
        [
            ("GIT_AUTHOR_NAME", "T"),
            ("GIT_AUTHOR_EMAIL", "t@example.invalid"),
            ("GIT_COMMITTER_NAME", "T"),
            ("GIT_COMMITTER_EMAIL", "t@example.invalid"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into(),
    );
    let out = c.run_command(params, &ctx(&ws)).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Merge branch 'feature'"), "{text}");
    assert_eq!(lines.next(), Some("Merge branch 'side'"), "{text}");
    assert_eq!(
        lines.next().map(str::trim),
        Some("3"),
        "HEAD and two parents: {text}"
    );
    for file in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        assert!(ws.join(file).is_file(), "{file}: {text}");
    }
    // The host sees the merges.
    let merges = host_git(&ws, &["log", "--merges", "--format=%s"]);
    assert_eq!(merges, "Merge branch 'feature'\nMerge branch 'side'\n");
    // Git's code parts are as before and still shut.
    assert_eq!(
        std::fs::read(ws.join(".git/config")).unwrap(),
        config_before
    );
    let hooks_after: Vec<_> = std::fs::read_dir(ws.join(".git/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(hooks_after, hooks_before);
    for (what, command) in [
        ("config", "echo '[alias]' >> .git/config"),
        ("config by git", "git config core.fsmonitor ./run-me"),
        ("a hook", "echo 'echo hi' > .git/hooks/post-merge"),
    ] {
        let out = sh(&c, &ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    assert_eq!(
        std::fs::read(ws.join(".git/config")).unwrap(),
        config_before
    );
    assert!(!ws.join(".git/hooks/post-merge").exists());
}

// ---------------------------------------------------------------------
// cargo unpacks a cached crate
// ---------------------------------------------------------------------

const CHILD: &str = "TOOL_SANDBOX_GUIDE_ROWS_CHILD";

/// The host's cargo home.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// Gives `home` a cargo home holding `itoa`'s sparse index entry and its
/// newest `.crate` from the host's cache (copies: the host's cache is
/// never changed), and nothing unpacked. Returns the index's folder name
/// and the crate's `name-version`.
fn cache_without_sources(home: &Path) -> Result<(String, String), String> {
    let registry = cargo_home().ok_or("no cargo home")?.join("registry");
    let indexes =
        std::fs::read_dir(registry.join("index")).map_err(|e| format!("no cargo cache: {e}"))?;
    for index in indexes.flatten() {
        let name = index.file_name().to_string_lossy().into_owned();
        let entry = index.path().join(".cache/it/oa/itoa");
        let Ok(cached) = std::fs::read_dir(registry.join("cache").join(&name)) else {
            continue;
        };
        let mut crates: Vec<String> = cached
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f.starts_with("itoa-") && f.ends_with(".crate"))
            .collect();
        crates.sort_by_key(|f| {
            f.trim_start_matches("itoa-")
                .trim_end_matches(".crate")
                .split('.')
                .map(|p| p.parse::<u64>().unwrap_or(0))
                .collect::<Vec<_>>()
        });
        let (Some(newest), true) = (crates.last(), entry.is_file()) else {
            continue;
        };
        let mine = home.join(".cargo/registry");
        let copy = |from: &Path, to: &Path| -> Result<(), String> {
            std::fs::create_dir_all(to.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::copy(from, to)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let config = index.path().join("config.json");
        if config.is_file() {
            copy(&config, &mine.join("index").join(&name).join("config.json"))?;
        }
        copy(
            &entry,
            &mine.join("index").join(&name).join(".cache/it/oa/itoa"),
        )?;
        copy(
            &registry.join("cache").join(&name).join(newest),
            &mine.join("cache").join(&name).join(newest),
        )?;
        std::fs::create_dir_all(mine.join("src")).map_err(|e| e.to_string())?;
        return Ok((name, newest.trim_end_matches(".crate").to_owned()));
    }
    Err(
        "the host's cargo cache has no itoa entry: run `cargo fetch` for a crate using itoa first"
            .to_owned(),
    )
}

/// In the child (whose `HOME` is the fresh home): a confined offline
/// build of a crate depending on `itoa`, refused with the toolchain caches
/// read-only, then done with them writable (the default), cargo unpacking
/// the `.crate` into the home's `registry/src`.
async fn unpack_in_child(base: &Path, index: &str, krate_name: &str, bin: &Path) {
    let ws = base.join("ws");
    let home = base.join("home");
    let unpacked = home
        .join(".cargo/registry/src")
        .join(index)
        .join(krate_name);
    write(
        &ws,
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\n\n[workspace]\n",
    );
    write(
        &ws,
        "src/lib.rs",
        "pub fn show(n: u32) -> String { itoa::Buffer::new().format(n).to_owned() }\n",
    );
    let build = || {
        let mut params = RunCommandParams::new("cargo build --offline -q 2>&1; echo exit=$?");
        params.env = Some(
            [
                (
                    "PATH".to_owned(),
                    format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
                ),
                ("RUSTC".to_owned(), bin.join("rustc").display().to_string()),
                ("CARGO_TARGET_DIR".to_owned(), "target".to_owned()),
            ]
            .into(),
        );
        params
    };
    let read_only = computer(SandboxOptions {
        toolchain_caches_writable: false,
        ..SandboxOptions::default()
    });
    if !namespaced(&read_only, &ws).await {
        return;
    }
    // cargo runs here, and with the caches read-only it cannot unpack.
    let mut version = build();
    version.command = "cargo --version".to_owned();
    let out = read_only.run_command(version, &ctx(&ws)).await;
    assert!(stdout(&out).starts_with("cargo "), "{}", out.content);
    let out = read_only.run_command(build(), &ctx(&ws)).await;
    let text = stdout(&out);
    assert!(
        !text.contains("exit=0"),
        "built with the caches read-only: {}",
        out.content
    );
    assert!(
        text.contains(krate_name)
            && (text.contains("Read-only file system") || text.contains("Permission denied")),
        "{}",
        out.content
    );
    assert!(!unpacked.join("Cargo.toml").exists(), "{}", out.content);
    let c = computer(SandboxOptions::default());
    let out = c.run_command(build(), &ctx(&ws)).await;
    let text = stdout(&out);
    assert!(text.ends_with("exit=0\n"), "{}", out.content);
    assert!(unpacked.join("Cargo.toml").is_file(), "{}", out.content);
    assert!(unpacked.join("src/lib.rs").is_file(), "{}", out.content);
    assert!(
        ws.join("target/debug/libdemo.rlib").is_file(),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn cargo_unpacks_a_crate_that_is_only_cached_into_the_homes_writable_registry() {
    const TEST: &str = "cargo_unpacks_a_crate_that_is_only_cached_into_the_homes_writable_registry";
    if let Some(spec) = std::env::var_os(CHILD) {
        let spec = spec.to_string_lossy().into_owned();
        let parts: Vec<&str> = spec.split('\n').collect();
        let [base, index, krate, bin] = parts[..] else {
            panic!("bad child spec {spec:?}");
        };
        unpack_in_child(Path::new(base), index, krate, Path::new(bin)).await;
        return;
    }
    if !needed("cargo") || !needed("rustc") {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(root.join("ws")).unwrap();
    let (index, krate) = match cache_without_sources(&home) {
        Ok(found) => found,
        Err(why) => {
            test_support::cannot_check("this test", why);
            return;
        }
    };
    assert!(!home.join(".cargo/registry/src").join(&index).exists());
    // The active toolchain's programs, named directly: rustup's proxies
    // would look for their settings in the child's fresh home.
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let Some(bin) = sysroot
        .map(|s| s.join("bin"))
        .filter(|b| b.join("cargo").is_file())
    else {
        test_support::cannot_check("this test", "no cargo beside rustc's sysroot");
        return;
    };
    // The home is the host process's `HOME` when a command starts: a child
    // of this binary with the fresh one.
    let out = child_of_this_binary(TEST)
        .env(
            CHILD,
            format!("{}\n{index}\n{krate}\n{}", root.display(), bin.display()),
        )
        .env("HOME", &home)
        .env_remove("CARGO_HOME")
        .env_remove("RUSTUP_HOME")
        .output()
        .unwrap();
    assert_child_passed(&out);
}
