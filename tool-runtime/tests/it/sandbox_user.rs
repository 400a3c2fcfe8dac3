//! What a confined command can see of the host user: the environment
//! without secret-looking variables, the home hidden but for the toolchain
//! locations (caches writable), limits that end a runaway command with a
//! named failure, the network by name through the egress proxy with a
//! brokered token; ordinary work (git's whole round, copies, archives,
//! editable installs, local npm packages) and the leaks refused
//! (handles, attributes, devices, disks, other processes, symlinked and
//! missing protected entries, a CI token, raced file tools); the same wall
//! for an unprivileged host (the test re-runs itself as uid 65534), which
//! leaves nothing in its temp dir.
//!
//! The environment and the user are the process's, so each scenario runs
//! in a child process of this test binary (`TOOL_SANDBOX_TEST_CHILD`): the
//! parent prepares fake secrets in its own temp dirs, starts the child with
//! them and checks that it passed. Every command is a harmless read or
//! write in those dirs.
#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{base_outside_temp, ctx, namespaced, needed, ok, state, write};
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, CredentialBinding, EgressOptions, Limits, LocalComputer, LocalConfig,
    RunCommandParams, SandboxOptions, SandboxPolicy, ShellConfig,
};

const CHILD: &str = "TOOL_SANDBOX_TEST_CHILD";
const BASE: &str = "TOOL_SANDBOX_TEST_BASE";
/// The fake secrets the parent puts in the child's environment.
const FAKE_ENV: [(&str, &str); 5] = [
    ("FAKE_SERVICE_API_KEY", "fake-key-value-1"),
    ("GITHUB_TOKEN", "ghp_fakeTokenValue2"),
    ("SOME_SETTING", "github_pat_fakeValue3"),
    ("DATABASE_URL", "postgres://u:fake-password-4@db/x"),
    ("HARMLESS_SETTING", "kept-value"),
];
const UNPRIVILEGED: u32 = 65534;

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

/// A home with fake secrets and toolchain folders, and a workspace, under
/// `base`, owned by `uid`.
fn prepare(base: &Path, uid: u32) {
    let home = base.join("home");
    write(&home, ".wakatime.cfg", "api_key = fake-wakatime\n");
    write(
        &home,
        ".gitconfig",
        "[user]\n\tname = T\n[http]\n\textraheader = AUTHORIZATION: basic fake-home-token\n",
    );
    write(&home, ".kube/config", "token: fake-kube\n");
    write(&home, ".circleci/cli.yml", "token: fake-circleci\n");
    write(&home, "other-project/notes.md", "private notes\n");
    write(&home, ".cargo/registry/cache/crate.txt", "cached crate\n");
    write(&home, ".cargo/bin/tool", "#!/bin/sh\necho tool\n");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        home.join(".cargo/bin/tool"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    write(&home, ".cargo/credentials.toml", "token = \"fake-cargo\"\n");
    write(&home, ".npm/_logs/old.log", "log\n");
    write(&base.join("ws"), "src/main.rs", "fn main() {}\n");
    write(&base.join("ws"), ".git/config", "[core]\n");
    std::fs::create_dir_all(base.join("tmp")).unwrap();
    chown_tree(base, uid);
}

fn chown_tree(path: &Path, uid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_tree(&entry.unwrap().path(), uid);
        }
    }
}

/// A test's name as this binary lists it: its module path, then `test`.
fn full_name(test: &str) -> String {
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    format!("{module}::{test}")
}

/// Runs `test` of this binary in a child process as `uid` with the fake
/// environment, `HOME` and `TMPDIR` in a fresh base; panics with the
/// child's output when it fails.
fn run_child(test: &str, uid: Option<u32>) {
    run_child_with(test, uid, |_| {});
}

/// [`run_child`], with `extra` preparing more in the base (after it is
/// given to `uid`) before the child starts.
fn run_child_with(test: &str, uid: Option<u32>, extra: impl FnOnce(&Path)) {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    prepare(&root, uid.unwrap_or(0));
    extra(&root);
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        &full_name(test),
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, "1")
    .env(BASE, &root)
    .env("HOME", root.join("home"))
    .env("TMPDIR", root.join("tmp"))
    .envs(FAKE_ENV);
    if let Some(uid) = uid {
        cmd.uid(uid).gid(uid);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {test} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child {test} did not run:\n{text}"
    );
    assert!(!text.contains("skipping"), "child {test} skipped:\n{text}");
}

/// In the child: the base the parent prepared, or `None` in the parent.
fn child_base() -> Option<PathBuf> {
    std::env::var_os(CHILD)?;
    std::env::var_os(BASE).map(PathBuf::from)
}

/// The wall as the child sees it: environment, home, caches, limits and
/// the usual refusals.
async fn the_wall(base: &Path) {
    let ws = base.join("ws");
    let home = base.join("home");
    let c = computer(SandboxOptions::default());
    if !namespaced(&c, &ws).await {
        return;
    }
    // Environment: secrets withheld (also from /proc/self/environ), the
    // rest kept, the call's own variables kept, names reported.
    let mut params = RunCommandParams::new("env; tr '\\0' '\\n' < /proc/self/environ");
    params.env = Some([("CALL_TOKEN".to_owned(), "call-value".to_owned())].into());
    let out = c.run_command(params, &ctx(&ws)).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let text = stdout(&out);
    for (name, value) in &FAKE_ENV[..4] {
        assert!(!text.contains(value), "{name} leaked: {text}");
    }
    assert!(text.contains("HARMLESS_SETTING=kept-value"), "{text}");
    assert!(text.contains("CALL_TOKEN=call-value"), "{text}");
    let withheld = state(&out)["sandbox"]["envWithheld"].to_string();
    for (name, _) in &FAKE_ENV[..4] {
        assert!(withheld.contains(name), "{withheld}");
    }
    // Home: hidden, toolchain readable, caches writable, secrets inside
    // toolchain folders still not.
    for (what, command) in [
        ("wakatime", "cat ~/.wakatime.cfg"),
        ("kubeconfig", "cat ~/.kube/config"),
        ("circleci", "cat ~/.circleci/cli.yml"),
        ("other project", "cat ~/other-project/notes.md"),
        ("cargo credentials", "cat ~/.cargo/credentials.toml"),
        ("write a program", "echo x > ~/.cargo/bin/tool"),
    ] {
        let out = sh(&c, &ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    let out = sh(
        &c,
        &ws,
        "cat ~/.cargo/registry/cache/crate.txt && ~/.cargo/bin/tool && echo new > ~/.cargo/registry/cache/new.txt && echo log > ~/.npm/_logs/new.log",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "cached crate\ntool\n");
    assert!(home.join(".cargo/registry/cache/new.txt").is_file());
    assert_eq!(state(&out)["sandbox"]["homeHidden"], true);
    // The home's git configuration (a toolchain location): without its
    // CI token.
    let out = sh(&c, &ws, "cat ~/.gitconfig; git config --global user.name").await;
    assert!(stdout(&out).ends_with("T\n"), "{}", out.content);
    assert!(!out.content.contains("fake-home-token"), "{}", out.content);
    // No capabilities; the workspace writable, git's config not.
    let out = sh(
        &c,
        &ws,
        "grep CapEff /proc/self/status && echo x > src/new.rs",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(stdout(&out).contains("CapEff:\t0000000000000000"));
    let out = sh(&c, &ws, "echo '[alias]' >> .git/config").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    // Git works: a new repository, a commit, a branch; its hooks stay shut.
    let out = sh(
        &c,
        &ws,
        "git init -q repo2 && cd repo2 && echo a > a && git add a && git -c user.name=T -c user.email=t@example.invalid commit -q -m first && git branch side && git log --oneline | wc -l",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out).trim(), "1", "{}", out.content);
    let out = sh(
        &c,
        &ws.join("repo2"),
        "echo 'echo hi' > .git/hooks/pre-commit",
    )
    .await;
    assert_ne!(code(&out), 0, "{}", out.content);
    // A process that leaves the group does not outlive the command.
    let out = sh(
        &c,
        &ws,
        "setsid sh -c 'sleep 0.5; echo x > outlived' > /dev/null 2>&1 &",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(!ws.join("outlived").exists());
    // Limits: a named failure.
    let mut limits = Limits::default();
    limits.file_size_bytes = Some(4096);
    limits.processes = Some(32);
    let limited = computer(SandboxOptions {
        limits,
        ..SandboxOptions::default()
    });
    let out = sh(&limited, &ws, "head -c 100000 /dev/zero > big.bin").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    assert!(out.content.contains("file size limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "file_size");
    assert!(std::fs::metadata(ws.join("big.bin")).unwrap().len() <= 4096);
    // The process limit: a pids cgroup where the host can make one (root
    // here), else the run's PID namespace's own pid_max on a kernel that
    // has one (6.14), else RLIMIT_NPROC (which the kernel does not apply
    // to uid 0: `sandbox_process_limit` covers a root host without
    // cgroups).
    let out = sh(
        &limited,
        &ws,
        "for i in $(seq 1 64); do sleep 2 & done; wait; echo done",
    )
    .await;
    let root = crate::common::running_as_root();
    let how = state(&out)["sandbox"]["processLimit"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert_eq!(
        how,
        if root {
            "cgroup"
        } else if crate::sandbox_process_limit::kernel_has_pid_max_per_namespace() {
            "pid_namespace"
        } else {
            "rlimit"
        },
        "{}",
        out.content
    );
    assert!(out.content.contains("process limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "processes");
    assert_eq!(state(&out)["sandbox"]["limits"]["processes"], 32);
    // The memory of the whole run: a memory cgroup where the host can make
    // one (root here), else `RLIMIT_DATA` of each process.
    let mut limits = Limits::default();
    limits.run_memory_bytes = Some(256 << 20);
    limits.cpu_seconds = Some(1);
    limits.tmp_bytes = Some(1 << 20);
    let limited = computer(SandboxOptions {
        limits,
        ..SandboxOptions::default()
    });
    let out = sh(&limited, &ws, "true").await;
    assert_eq!(
        state(&out)["sandbox"]["memoryLimit"],
        if root { "cgroup" } else { "rlimit" },
        "{}",
        out.content
    );
    if needed("python3") {
        // Past the limit (256 MiB), written so the pages count: the
        // allocation fails (rlimit) or the process is killed (cgroup), and
        // the output names the memory limit.
        let out = sh(
            &limited,
            &ws,
            "python3 -c \"x = b'a' * (512 << 20); print(len(x))\"",
        )
        .await;
        assert_ne!(code(&out), 0, "{}", out.content);
        assert!(!stdout(&out).contains("536870912"), "{}", out.content);
        assert!(out.content.contains("memory limit"), "{}", out.content);
        assert_eq!(state(&out)["sandbox"]["limitHit"], "memory");
        // Under it, the same program runs as usual.
        let out = sh(
            &limited,
            &ws,
            "python3 -c \"x = b'a' * (32 << 20); print(len(x))\"",
        )
        .await;
        assert_eq!(code(&out), 0, "{}", out.content);
        assert_eq!(stdout(&out), "33554432\n", "{}", out.content);
        assert!(state(&out)["sandbox"].get("limitHit").is_none());
        assert!(!out.content.contains("memory limit"), "{}", out.content);
    }
    // CPU time and the private /tmp's size: named failures.
    let out = sh(&limited, &ws, "while :; do :; done").await;
    assert!(out.content.contains("cpu time limit"), "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["limitHit"], "cpu_time");
    let out = sh(
        &limited,
        &ws,
        "head -c 4000000 /dev/zero > /tmp/fill && sleep 20; echo survived",
    )
    .await;
    assert!(!stdout(&out).contains("survived"), "{}", out.content);
    assert!(out.content.contains("tmp size limit"), "{}", out.content);
    let out = sh(&limited, &ws, "rm -f /tmp/fill").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    drop(limited);
    egress_by_name(&ws).await;
    workflows(&c, &ws, &base.join("outside")).await;
    leaks(&c, &ws, &base.join("outside")).await;
}

/// Ordinary work, as this user: the whole git round, copies, archives,
/// in-place edits, an editable pip install imported by the next call, an
/// npm install of a local package.
async fn workflows(c: &LocalComputer, ws: &Path, outside: &Path) {
    let git = "export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.invalid; \
        main=$(git branch --show-current) && { git tag v1 && echo b > b && git stash -u -q && git stash pop -q && \
        git add b && git commit -qm second && git checkout -q side && echo c > c && git add c && git commit -qm third && \
        git rebase -q \"$main\" && git checkout -q \"$main\" && git merge -q --ff-only side; } > /dev/null && git log --oneline | wc -l && git tag";
    let out = sh(c, &ws.join("repo2"), git).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "3\nv1\n", "{}", out.content);
    // A secret file that is neither ignored nor committed does not stop
    // `git add -A`: it reads as an empty regular file (the secret stays
    // out of the commit) and cannot be written.
    let repo = ws.join("repo2");
    write(&repo, ".env", "API_KEY=fake-dotenv-secret\n");
    let out = sh(
        c,
        &repo,
        "export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.invalid; \
         echo d > d && git add -A && git commit -qm with-env && test -f .env && test ! -s .env && git show HEAD:.env | wc -c && git ls-files .env; \
         echo x > .env || echo refused",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "0\n.env\nrefused\n", "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(repo.join(".env")).unwrap(),
        "API_KEY=fake-dotenv-secret\n"
    );
    write(ws, "copy-src/a.txt", "alpha\n");
    write(ws, "copy-src/bin/run.sh", "echo run\n");
    let out = sh(
        c,
        ws,
        "chmod 755 copy-src/bin/run.sh && cp -a copy-src copy && tar cf src.tar copy-src && mkdir unpacked && tar xf src.tar -C unpacked && sed -i s/alpha/beta/ copy-src/a.txt && cat copy-src/a.txt copy/a.txt unpacked/copy-src/a.txt && ./unpacked/copy-src/bin/run.sh",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "beta\nalpha\nalpha\nrun\n", "{}", out.content);
    // The whole workspace copies and archives, its stand-ins for missing
    // protected files as empty files.
    let out = sh(
        c,
        ws,
        "cp -a . /tmp/whole && test -f /tmp/whole/.yarnrc && test ! -s /tmp/whole/.yarnrc && tar cf /tmp/whole.tar . && tar tf /tmp/whole.tar | grep -cx ./.yarnrc",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "1\n", "{}", out.content);
    // Git lists no stand-in, in the command (`git add -A` above committed
    // none) nor in the host, while a command holds them and after.
    let out = sh(
        c,
        &repo,
        "git status --porcelain; git ls-files | grep -c -e yarnrc -e travis; test -f .yarnrc && test ! -s .yarnrc && echo held",
    )
    .await;
    assert_eq!(stdout(&out), "0\nheld\n", "{}", out.content);
    let mut params = RunCommandParams::new("sleep 30");
    params.run_in_background = Some(true);
    let started = c.run_command(params, &ctx(&repo)).await;
    let id = ok(&started)["shellId"].as_str().unwrap_or("").to_owned();
    {
        use std::os::unix::fs::FileTypeExt as _;
        let held = repo
            .join(".yarnrc")
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_socket());
        assert!(held, "a socket in the host while the command runs");
    }
    // (Only the secret committed empty above shows, as changed.)
    assert_eq!(host_git_status(&repo), " M .env\n");
    let killed = c
        .kill_command(
            tool_runtime::KillCommandParams { shell_id: id },
            &ctx(&repo),
        )
        .await;
    assert!(killed.success, "{}", killed.content);
    if needed("python3") {
        let py = ws.join("py");
        write(
            &py,
            "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"demo-pkg\"\nversion = \"0.1.0\"\n",
        );
        write(&py, "demo_pkg/__init__.py", "VALUE = 42\n");
        let out = sh(
            c,
            &py,
            "python3 -m venv .venv && .venv/bin/pip install -q --no-build-isolation --no-deps --no-index -e . > /dev/null 2>&1; .venv/bin/python -c 'print(1)'",
        )
        .await;
        assert_eq!(code(&out), 0, "{}", out.content);
        let out = sh(
            c,
            &py,
            ".venv/bin/python -c 'import demo_pkg; print(demo_pkg.VALUE)'",
        )
        .await;
        assert_eq!(stdout(&out), "42\n", "{}", out.content);
        assert_eq!(state(&out)["protectedCreated"], serde_json::Value::Null);
    }
    if needed("npm") {
        write(
            outside,
            "sibling/package.json",
            "{\"name\": \"sibling\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n",
        );
        write(outside, "sibling/index.js", "module.exports = 7;\n");
        write(
            &ws.join("app"),
            "package.json",
            "{\"name\": \"app\", \"version\": \"1.0.0\"}\n",
        );
        let out = sh(
            c,
            &ws.join("app"),
            "npm install --no-audit --no-fund --offline ../../outside/sibling > /dev/null && node -e 'console.log(require(\"sibling\"))'",
        )
        .await;
        assert_eq!(code(&out), 0, "{}", out.content);
        assert_eq!(stdout(&out), "7\n", "{}", out.content);
    }
}

/// `git status` of `repo` in the host (never confined), untracked files
/// listed one by one.
fn host_git_status(repo: &Path) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Once every computer is dropped: no stand-in is left in the workspace
/// (nor in the repository made there), and git in the host sees none.
fn no_stand_in_left(base: &Path) {
    let ws = base.join("ws");
    for rel in [
        ".yarnrc",
        ".claude",
        ".vscode",
        "repo2/.yarnrc",
        "repo2/.travis.yml",
    ] {
        assert!(ws.join(rel).symlink_metadata().is_err(), "{rel} is left");
    }
    if ws.join("repo2/.git").is_dir() {
        assert_eq!(host_git_status(&ws.join("repo2")), " M .env\n");
    }
}

/// The leaks of the issue, as this user: handles, attributes, device
/// nodes, other processes, disks, a symlinked protected entry, a missing
/// one, a CI token in a git config, and the file tools raced by a command.
async fn leaks(c: &LocalComputer, ws: &Path, outside: &Path) {
    write(ws, "marker.txt", "m\n");
    for (what, command) in [
        ("mknod", "mknod dev-null-copy c 1 3"),
        ("mount", "mount -t tmpfs none src"),
        ("other processes", "cat /proc/1/environ"),
        ("a missing protected file", "echo 'echo hi' > .envrc"),
        ("a missing protected folder", "mkdir -p .github/workflows"),
        (
            "a missing file whose readers fail on a folder",
            "echo 'yarn-path \"./x.js\"' > .yarnrc",
        ),
        ("an append to it", "echo x >> .yarnrc"),
        ("its removal", "rm -f .yarnrc"),
        (
            "a missing settings file under a missing folder",
            "mkdir -p .claude && echo '{}' > .claude/settings.json",
        ),
        ("a stand-in replaced", "rmdir .vscode"),
        ("a stand-in's mode", "chmod 777 .vscode"),
        ("the host's /dev/null's mode", "chmod 666 /dev/null"),
    ] {
        let out = sh(c, ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    // The readers of those names see an empty regular file.
    let out = sh(c, ws, "cat .yarnrc && stat -c %F .yarnrc").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(stdout(&out), "regular empty file\n", "{}", out.content);
    if needed("python3") {
        let out = sh(c, ws, "python3 -c \"print(repr(open('.yarnrc').read()))\"").await;
        assert_eq!(stdout(&out), "''\n", "{}", out.content);
    }
    let out = sh(c, ws, "echo x > .yarnrc").await;
    assert!(
        out.content.contains("Read-only file system"),
        "{}",
        out.content
    );
    // A project's own `.cargo` is read-only whole.
    write(ws, "own/.cargo/audit.toml", "a\n");
    let out = sh(c, &ws.join("own"), "echo '[build]' > .cargo/config.toml").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    assert!(!ws.join("own/.cargo/config.toml").exists());
    if needed("chattr") {
        let out = sh(c, ws, "chattr +i marker.txt").await;
        assert_ne!(code(&out), 0, "chattr: {}", out.content);
    }
    #[cfg(target_arch = "x86_64")]
    if needed("python3") {
        write(ws, "probe.py", crate::common::SYSCALL_PROBE);
        let out = sh(c, ws, "python3 probe.py").await;
        let text = stdout(&out);
        for call in ["name_to_handle_at", "open_by_handle_at", "reboot"] {
            assert!(text.contains(&format!("{call} 1\n")), "{call}: {text}");
        }
    }
    // No disk of the host is there to read.
    let disks: Vec<String> = std::fs::read_dir("/sys/block")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let out = sh(c, ws, "ls /dev").await;
    let listing = stdout(&out);
    for disk in &disks {
        assert!(!listing.lines().any(|l| l == disk), "{disk}: {listing}");
    }
    // A protected entry that is a symlink is protected at its target.
    let sym = ws.join("sym");
    write(&sym, "decoy/tasks.json", "{}\n");
    std::os::unix::fs::symlink("decoy", sym.join(".vscode")).unwrap();
    let out = sh(c, &sym, "echo '{\"tasks\": 1}' > .vscode/tasks.json").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(sym.join("decoy/tasks.json")).unwrap(),
        "{}\n"
    );
    // The CI token a checkout action leaves in a repository's config.
    let ci = ws.join("ci");
    write(
        &ci,
        ".git/config",
        "[core]\n[http \"https://example.invalid/\"]\n\textraheader = AUTHORIZATION: basic fake-ci-token\n",
    );
    let out = sh(c, &ci, "cat .git/config").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(!stdout(&out).contains("fake-ci-token"), "{}", out.content);
    assert!(stdout(&out).contains("[core]"), "{}", out.content);
    // The file tools, raced by a confined command flipping a folder and a
    // symlink to a secret folder outside.
    let vault = outside.join("vault");
    let race = ws.join("race");
    std::fs::create_dir_all(&race).unwrap();
    let raced = LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                secret_paths: vec![vault.clone()],
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    crate::confined_files::race_file_tools(&raced, &race, &vault, &ctx(&race), 300).await;
}

/// A plain HTTP server on 127.0.0.1 that keeps each request's head and
/// answers `hello` (never echoing what it got).
fn http_server() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            kept.lock().unwrap().push(head);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n",
            );
        }
    });
    (port, seen)
}

/// Egress by name as this user: an allowed name reached through the proxy
/// with the host's own `GITHUB_TOKEN` brokered (the command sees a dummy),
/// another name refused and reported.
async fn egress_by_name(ws: &Path) {
    let has_curl = std::process::Command::new("sh")
        .args(["-c", "command -v curl"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_curl {
        test_support::cannot_check("the egress part", "no curl");
        return;
    }
    let (port, seen) = http_server();
    let real = FAKE_ENV[1].1;
    let c = computer(SandboxOptions {
        egress: EgressOptions::default()
            .with_allowed_addresses("127.0.0.1")
            .with_resolve("allowed.example", "127.0.0.1".parse().unwrap())
            .with_resolve("other.example", "127.0.0.1".parse().unwrap())
            .with_credential(CredentialBinding::new("GITHUB_TOKEN", ["allowed.example"])),
        ..SandboxOptions::default()
    });
    let confinement = tool_core::Confinement::workspace_write()
        .with_egress(tool_core::approval::Egress::allow(["allowed.example"]));
    let out = c
        .run_command(
            RunCommandParams::new(format!(
                "echo \"$GITHUB_TOKEN\"; curl -sS --max-time 10 -H \"Authorization: token $GITHUB_TOKEN\" http://allowed.example:{port}/in; curl -sS --max-time 10 http://other.example:{port}/out"
            )),
            &ctx(ws).with_extension(confinement),
        )
        .await;
    let text = stdout(&out);
    assert!(text.contains("hello"), "{}", out.content);
    assert!(text.contains("refused other.example"), "{}", out.content);
    assert!(!out.content.contains(real) && !state(&out).to_string().contains(real));
    let dummy = text.lines().next().unwrap_or("").to_owned();
    assert!(dummy.starts_with("ghp_") && dummy.len() == real.len() && dummy != real);
    assert_eq!(state(&out)["networkBlocked"][0]["host"], "other.example");
    let heads = seen.lock().unwrap().clone();
    assert_eq!(heads.len(), 1, "{heads:?}");
    assert!(
        heads[0].contains(&format!("Authorization: token {real}")),
        "{heads:?}"
    );
}

#[tokio::test]
async fn as_root_the_environment_and_home_are_scrubbed_and_limits_hold() {
    match child_base() {
        Some(base) => {
            the_wall(&base).await;
            no_stand_in_left(&base);
        }
        None => run_child(
            "as_root_the_environment_and_home_are_scrubbed_and_limits_hold",
            None,
        ),
    }
}

#[tokio::test]
async fn as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left() {
    match child_base() {
        Some(base) => {
            the_wall(&base).await;
            no_stand_in_left(&base);
            // Every computer above is dropped: nothing of theirs is left.
            let left: Vec<String> = std::fs::read_dir(base.join("tmp"))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("tool-sandbox-"))
                .collect();
            assert!(left.is_empty(), "left in the temp dir: {left:?}");
        }
        None => {
            let root = crate::common::running_as_root();
            if !root {
                test_support::cannot_check("this test", "not root, cannot switch user");
                return;
            }
            run_child(
                "as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left",
                Some(UNPRIVILEGED),
            );
        }
    }
}

/// The host folders in `tmp`: the private temp dirs, then the registries
/// of socket stand-ins.
fn private_dirs(tmp: &Path) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("tool-sandbox-"))
        .collect();
    names.sort();
    names
        .into_iter()
        .partition(|n| !n.starts_with("tool-sandbox-stand-ins-"))
}

/// Runs one step of `test` in a child with `TMPDIR` = `tmp`.
fn run_step(test: &str, base: &Path, step: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &full_name(test),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env(BASE, base)
        .env("STEP", step)
        .env("TMPDIR", base.join("tmp"))
        .output()
        .unwrap()
}

#[tokio::test]
async fn a_private_temp_dir_left_by_a_host_that_died_is_removed_by_the_next_host() {
    const TEST: &str = "a_private_temp_dir_left_by_a_host_that_died_is_removed_by_the_next_host";
    if let Some(base) = child_base() {
        let ws = base.join("ws");
        let c = computer(SandboxOptions::default());
        if !namespaced(&c, &ws).await {
            return;
        }
        let tmp = base.join("tmp");
        if std::env::var("STEP").as_deref() == Ok("die") {
            // Ends without running any destructor, as a killed host would.
            std::process::exit(0);
        }
        // This host's own private temp dir exists; the dead host's is gone,
        // and so are its registry and the socket stand-ins it listed.
        let (left, registries) = private_dirs(&tmp);
        assert_eq!(left.len(), 1, "{left:?}");
        let stale = std::fs::read_to_string(base.join("stale")).unwrap();
        assert!(!left.contains(&stale), "{stale} is still there");
        let stale_registry = std::fs::read_to_string(base.join("stale-registry")).unwrap();
        assert!(
            !registries.contains(&stale_registry),
            "{stale_registry} is still there"
        );
        return;
    }
    let dir = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    write(&base.join("ws"), "a.txt", "a\n");
    std::fs::create_dir_all(base.join("tmp")).unwrap();
    let died = run_step(TEST, &base, "die");
    let text = String::from_utf8_lossy(&died.stderr).into_owned();
    assert!(!text.contains("skipping"), "{text}");
    let (left, registries) = private_dirs(&base.join("tmp"));
    assert_eq!(left.len(), 1, "the dead host left {left:?}");
    assert_eq!(registries.len(), 1, "the dead host left {registries:?}");
    std::fs::write(base.join("stale"), &left[0]).unwrap();
    std::fs::write(base.join("stale-registry"), &registries[0]).unwrap();
    use std::os::unix::fs::FileTypeExt as _;
    let socket = |rel: &str| {
        base.join("ws")
            .join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_socket())
    };
    assert!(socket(".yarnrc"), "the dead host's stand-in is left");
    let next = run_step(TEST, &base, "sweep");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&next.stdout),
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(next.status.success() && text.contains("1 passed"), "{text}");
    // And the second host, dropped normally, left nothing either.
    assert_eq!(private_dirs(&base.join("tmp")), (Vec::new(), Vec::new()));
    assert!(!socket(".yarnrc"), "a socket stand-in is left");
    assert!(base.join("ws/.yarnrc").symlink_metadata().is_err());
}

/// Hard-links the tree `from` into `to` (same file system): folders are
/// made (and given to `uid`, so the user can add to them), files are
/// links to the same inodes (never chowned: they are the host's), symlinks
/// copied. Removing `to` later leaves `from` as it was.
fn link_tree(from: &Path, to: &Path, uid: u32) -> std::io::Result<()> {
    let meta = from.symlink_metadata()?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        std::os::unix::fs::lchown(to, Some(uid), Some(uid))?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            link_tree(&entry.path(), &to.join(entry.file_name()), uid)?;
        }
        Ok(())
    } else {
        std::fs::hard_link(from, to)
    }
}

/// Makes the parents of `path` below `base` as folders of `uid`.
fn make_dirs(base: &Path, path: &Path, uid: u32) {
    let mut dir = base.to_path_buf();
    for part in path.strip_prefix(base).unwrap().components() {
        dir.push(part);
        if !dir.exists() {
            std::fs::create_dir(&dir).unwrap();
            std::os::unix::fs::lchown(&dir, Some(uid), Some(uid)).unwrap();
        }
    }
}

/// Gives `home` (the unprivileged user's) what `cargo build` offline of a
/// crate depending on `itoa` needs, as hard links of the host's own: the
/// active toolchain's `bin` and `lib` (the host's is under a home only
/// its owner can enter) and `itoa`'s entries in the host's cargo cache
/// (sparse index entry, `.crate`, unpacked sources). Returns what is
/// missing, if anything.
fn link_toolchain_and_cache(home: &Path, uid: u32) -> Result<(), String> {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("no rustc: {e}"))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let toolchain = home.join(".rustup/toolchains/linked");
    make_dirs(home, &toolchain, uid);
    for part in ["bin", "lib"] {
        link_tree(&sysroot.join(part), &toolchain.join(part), uid).map_err(|e| {
            format!("cannot link the toolchain's {part} (another file system?): {e}")
        })?;
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("no cargo home")?;
    let registry = cargo_home.join("registry");
    let mut found = (false, false, false);
    for index in
        std::fs::read_dir(registry.join("index")).map_err(|e| format!("no cargo cache: {e}"))?
    {
        let name = index.map_err(|e| e.to_string())?.file_name();
        let mine = home.join(".cargo/registry");
        for rel in ["config.json", ".cache/it/oa/itoa"] {
            let from = registry.join("index").join(&name).join(rel);
            if from.is_file() {
                let to = mine.join("index").join(&name).join(rel);
                make_dirs(home, to.parent().unwrap(), uid);
                std::fs::hard_link(&from, &to).map_err(|e| e.to_string())?;
                found.0 |= rel.ends_with("itoa");
            }
        }
        for (kind, slot) in [("cache", 1), ("src", 2)] {
            let Ok(entries) = std::fs::read_dir(registry.join(kind).join(&name)) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with("itoa-") {
                    let to = mine.join(kind).join(&name).join(entry.file_name());
                    make_dirs(home, to.parent().unwrap(), uid);
                    link_tree(&entry.path(), &to, uid).map_err(|e| e.to_string())?;
                    if slot == 1 {
                        found.1 = true;
                    } else {
                        found.2 = true;
                    }
                }
            }
        }
    }
    match found {
        (true, true, true) => Ok(()),
        _ => Err(format!(
            "the host's cargo cache has no complete itoa entry ({found:?}): run `cargo fetch` for a crate using itoa first"
        )),
    }
}

#[tokio::test]
async fn as_an_unprivileged_user_cargo_builds_and_tests_offline_with_a_populated_cache() {
    const TEST: &str =
        "as_an_unprivileged_user_cargo_builds_and_tests_offline_with_a_populated_cache";
    if let Some(base) = child_base() {
        let ws = base.join("ws");
        let c = computer(SandboxOptions::default());
        if !namespaced(&c, &ws).await {
            return;
        }
        let krate = ws.join("demo");
        write(
            &krate,
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\n\n[workspace]\n",
        );
        write(
            &krate,
            "src/lib.rs",
            "pub fn show(n: u32) -> String { itoa::Buffer::new().format(n).to_owned() }\n#[test]\nfn shows() { assert_eq!(show(7), \"7\"); }\n",
        );
        let home = base.join("home");
        let bin = home.join(".rustup/toolchains/linked/bin");
        let mut params = RunCommandParams::new(
            "id -u && cargo build --offline -q && cargo test --offline -q --lib 2>&1 | grep 'test result'",
        );
        params.env = Some(
            [
                (
                    "PATH".to_owned(),
                    format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
                ),
                ("RUSTC".to_owned(), bin.join("rustc").display().to_string()),
                (
                    "CARGO_HOME".to_owned(),
                    home.join(".cargo").display().to_string(),
                ),
                ("CARGO_TARGET_DIR".to_owned(), "target".to_owned()),
            ]
            .into(),
        );
        let out = c.run_command(params, &ctx(&krate)).await;
        assert_eq!(code(&out), 0, "{}", out.content);
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!("{UNPRIVILEGED}\n")),
            "{}",
            out.content
        );
        assert!(text.contains("1 passed"), "{}", out.content);
        assert!(krate.join("target").is_dir());
        return;
    }
    let root = crate::common::running_as_root();
    if !root {
        test_support::cannot_check("this test", "not root, cannot switch user");
        return;
    }
    run_child_with(TEST, Some(UNPRIVILEGED), |base| {
        if let Err(why) = link_toolchain_and_cache(&base.join("home"), UNPRIVILEGED) {
            panic!("cannot give the unprivileged user a toolchain and a cache: {why}");
        }
    });
}
