//! A sandbox people keep on: in a workspace holding `.git`, a confined
//! command creates, renames and deletes at the root and below, while
//! `.git` and the other protected entries stay read-only; `/tmp` is its
//! own; metadata outside the roots cannot change. And the named fallback
//! (`namespaces: false`) still confines, with the top closed.
#![cfg(target_os = "linux")]

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::common::{base_outside_temp, ctx, ok, state, write};
use tool_core::ToolOutput;
use tool_runtime::{
    ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxOptions, SandboxPolicy,
    ShellConfig, confinement_support,
};

pub(crate) fn computer(namespaces: bool) -> LocalComputer {
    LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                namespaces,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    })
}

pub(crate) async fn sh(c: &LocalComputer, dir: &Path, command: &str) -> ToolOutput {
    c.run_command(RunCommandParams::new(command), &ctx(dir))
        .await
}

pub(crate) fn code(out: &ToolOutput) -> i64 {
    ok(out)["exitCode"].as_i64().unwrap()
}

fn repo(base: &Path) -> std::path::PathBuf {
    let ws = base.join("repo");
    write(&ws, ".git/config", "[core]\n");
    write(&ws, ".git/hooks/README", "hooks\n");
    write(&ws, "src/main.rs", "fn main() {}\n");
    write(&ws, "app/.env", "TOKEN=s3cret\n");
    ws
}

/// Whether the namespace mechanism runs here; prints why not otherwise.
pub(crate) async fn namespace_runs(c: &LocalComputer, ws: &Path) -> bool {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return false;
    }
    let out = sh(c, ws, "true").await;
    let mechanism = state(&out)["sandbox"]["mechanism"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    if mechanism != "namespaces+landlock+seccomp" {
        test_support::cannot_check(
            "this test",
            format!("namespaces unavailable here (mechanism {mechanism})"),
        );
        return false;
    }
    true
}

#[tokio::test]
async fn a_git_workspace_takes_new_files_at_its_root_and_git_stays_read_only() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        "echo new > NEW.md && mkdir -p newdir/deep && echo x > newdir/deep/f && mv NEW.md RENAMED.md && rm -r newdir && echo more >> src/main.rs",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(ws.join("RENAMED.md").exists());
    assert!(!ws.join("newdir").exists());
    for (what, command) in [
        ("append to .git/config", "echo '[alias]' >> .git/config"),
        ("new hook", "echo 'echo hi' > .git/hooks/pre-commit"),
        ("rename .git", "mv .git .git-old"),
        ("remove .git/config", "rm .git/config"),
        ("remove .git", "rm -rf .git"),
        ("unmount .git", "umount .git"),
    ] {
        let out = sh(&c, &ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    // A secret in a directory on the way to the working directory reads
    // as empty; its file is unchanged.
    let out = sh(&c, &ws.join("app"), "cat .env; echo end").await;
    assert_eq!(ok(&out)["stdout"], "end\n", "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(ws.join("app/.env")).unwrap(),
        "TOKEN=s3cret\n"
    );
    assert_eq!(state(&out)["sandbox"]["secretsHidden"], 1);
}

#[tokio::test]
async fn tmp_is_private_and_metadata_outside_the_roots_cannot_change() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let outside = base.path().join("outside");
    write(&outside, "tool.sh", "echo hi\n");
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let name = format!("planted-{}", std::process::id());
    let out = sh(&c, &ws, &format!("echo x > /tmp/{name} && cat /tmp/{name}")).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(state(&out)["sandbox"]["privateTmp"], true);
    assert!(
        !Path::new("/tmp").join(&name).exists(),
        "the host's /tmp got the file"
    );
    // A later confined command of the same computer sees it (its own /tmp).
    let out = sh(&c, &ws, &format!("cat /tmp/{name}")).await;
    assert_eq!(ok(&out)["stdout"], "x\n", "{}", out.content);
    let target = outside.join("tool.sh");
    let before = std::fs::metadata(&target).unwrap();
    for command in [
        format!("chmod 600 '{}'", target.display()),
        format!("touch -d 2001-01-01 '{}'", target.display()),
    ] {
        let out = sh(&c, &ws, &command).await;
        assert_ne!(code(&out), 0, "{command}: {}", out.content);
    }
    let after = std::fs::metadata(&target).unwrap();
    assert_eq!(before.mode(), after.mode());
    assert_eq!(before.mtime(), after.mtime());
    // Inside the workspace both work.
    let out = sh(
        &c,
        &ws,
        "chmod 700 src/main.rs && touch -d 2001-01-01 src/main.rs",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
}

#[tokio::test]
async fn without_namespaces_the_named_fallback_confines_with_the_top_closed() {
    if !confinement_support(&SandboxOptions::default()).is_available() {
        test_support::cannot_check("this test", "no sandbox here");
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let c = computer(false);
    let out = sh(&c, &ws, "echo x > NEW.md").await;
    assert_eq!(state(&out)["sandbox"]["mechanism"], "landlock+seccomp");
    assert_ne!(code(&out), 0, "{}", out.content);
    assert!(
        out.content.contains("no new entries next to them"),
        "{}",
        out.content
    );
    let out = sh(&c, &ws, "echo '[alias]' >> .git/config").await;
    assert_ne!(code(&out), 0, "{}", out.content);
    let out = sh(&c, &ws, "echo ok >> src/main.rs").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    // No capabilities in the fallback either, as root too.
    let out = sh(
        &c,
        &ws,
        "grep -E '^(CapEff|CapBnd|NoNewPrivs):' /proc/self/status",
    )
    .await;
    let status = ok(&out)["stdout"].as_str().unwrap().to_owned();
    assert!(status.contains("CapEff:\t0000000000000000"), "{status}");
    assert!(status.contains("NoNewPrivs:\t1"), "{status}");
}

/// Runs git on the host (unconfined) to set a repository up.
pub(crate) fn host_git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// Whether git is installed; under CI its absence fails the test.
pub(crate) fn git_available() -> bool {
    let found = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        test_support::cannot_check("this test", "no git here");
    }
    found
}

/// A real repository with one commit on `main`.
pub(crate) fn real_repo(base: &Path) -> std::path::PathBuf {
    let ws = base.join("real");
    std::fs::create_dir_all(&ws).unwrap();
    host_git(&ws, &["init", "-q", "-b", "main"]);
    write(&ws, "README.md", "one\n");
    host_git(&ws, &["add", "."]);
    host_git(&ws, &["commit", "-q", "-m", "first"]);
    ws
}

pub(crate) const IDENTITY: &str = "export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.invalid; ";

#[tokio::test]
async fn git_add_commit_branch_tag_stash_rebase_and_merge_work_confined() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo(base.path());
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let steps = [
        "echo two >> README.md && git add README.md && git commit -q -m second",
        "git checkout -q -b feature && echo f > f.txt && git add f.txt && git commit -q -m feature",
        "git tag v1 && git branch side main",
        "echo wip >> README.md && git stash -q && git stash pop -q && git checkout -q README.md",
        "git checkout -q main && echo m > m.txt && git add m.txt && git commit -q -m main-work",
        "git checkout -q feature && git rebase -q main",
        "git checkout -q main && git merge -q --no-edit feature",
        "git log --oneline | wc -l && git status --porcelain",
    ];
    for step in steps {
        let out = sh(&c, &ws, &format!("{IDENTITY}{step}")).await;
        assert_eq!(code(&out), 0, "`{step}`: {}", out.content);
    }
    let log = std::process::Command::new("git")
        .args(["log", "--format=%s", "main"])
        .current_dir(&ws)
        .output()
        .unwrap();
    let subjects = String::from_utf8_lossy(&log.stdout).into_owned();
    for subject in ["first", "second", "feature", "main-work"] {
        assert!(subjects.lines().any(|l| l == subject), "{subjects}");
    }
    let tags = std::process::Command::new("git")
        .args(["tag"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&tags.stdout), "v1\n");
    // The code parts stay shut: config, hooks, info.
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    for (what, command) in [
        ("git config", "git config core.fsmonitor 'touch pwned'"),
        ("append to config", "echo '[alias]' >> .git/config"),
        ("new hook", "echo 'echo hi' > .git/hooks/pre-commit"),
        (
            "info/attributes",
            "echo '* filter=x' > .git/info/attributes",
        ),
        ("move config away", "mv .git/config .git/config.old"),
        ("move .git away", "mv .git .git-old"),
        ("replace hooks", "rm -rf .git/hooks"),
    ] {
        let out = sh(&c, &ws, command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    assert_eq!(
        std::fs::read_to_string(ws.join(".git/config")).unwrap(),
        config
    );
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    assert!(!ws.join(".git/info/attributes").exists());
    assert!(!ws.join("pwned").exists());
}

#[tokio::test]
async fn a_worktree_commits_confined_and_its_git_dirs_code_parts_stay_shut() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let main = real_repo(base.path());
    host_git(&main, &["worktree", "add", "-q", "../wt", "-b", "wt"]);
    let wt = std::fs::canonicalize(base.path().join("wt")).unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &wt).await {
        return;
    }
    let out = sh(
        &c,
        &wt,
        &format!("{IDENTITY}echo w > w.txt && git add w.txt && git commit -q -m in-worktree && git log --oneline -1"),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(ok(&out)["stdout"].as_str().unwrap().contains("in-worktree"));
    for (what, command) in [
        (
            "main config",
            format!("echo '[alias]' >> {}/.git/config", main.display()),
        ),
        (
            "main hooks",
            format!("echo x > {}/.git/hooks/post-commit", main.display()),
        ),
        (
            "commondir",
            format!(
                "echo /elsewhere > {}/.git/worktrees/wt/commondir",
                main.display()
            ),
        ),
        (".git file", "echo 'gitdir: /elsewhere' > .git".to_owned()),
    ] {
        let out = sh(&c, &wt, &command).await;
        assert_ne!(code(&out), 0, "{what}: {}", out.content);
    }
    assert!(!main.join(".git/hooks/post-commit").exists());
}

#[tokio::test]
async fn the_ci_token_in_a_git_extraheader_is_withheld() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo(base.path());
    // What a checkout action stores: a fake token made for this test.
    host_git(
        &ws,
        &[
            "config",
            "http.https://git.example.invalid/.extraheader",
            "AUTHORIZATION: basic ZmFrZS10ZXN0LXRva2Vu",
        ],
    );
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        "cat .git/config; git config --get-regexp 'http\\..*' ; git status --porcelain; echo end",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let stdout = ok(&out)["stdout"].as_str().unwrap();
    assert!(!stdout.contains("ZmFrZS10ZXN0LXRva2Vu"), "{stdout}");
    assert!(
        stdout.contains("[core]") && stdout.ends_with("end\n"),
        "{stdout}"
    );
    // The host's file is untouched.
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    assert!(config.contains("ZmFrZS10ZXN0LXRva2Vu"));
}

/// A CI token in a file a repository's config includes (`include.path`
/// relative to the git directory, `includeIf` with an absolute path, one
/// included from the other), outside the workspace: the command reads
/// those files and asks git without seeing it; the host's files keep it.
#[tokio::test]
async fn a_ci_token_in_an_included_git_config_is_withheld() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let ws = real_repo(&root);
    let shared = root.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    // Fake tokens made for this test.
    let header = |token: &str| format!("[http]\n\textraheader = AUTHORIZATION: basic {token}\n");
    let deep = shared.join("deep.cfg");
    std::fs::write(&deep, header("fake-deep-token")).unwrap();
    std::fs::write(
        shared.join("ci.cfg"),
        format!(
            "{}[includeIf \"onbranch:*\"]\n\tpath = {}\n",
            header("fake-included-token"),
            deep.display()
        ),
    )
    .unwrap();
    let rel = Path::new("..").join("..").join("shared/ci.cfg");
    host_git(&ws, &["config", "include.path", rel.to_str().unwrap()]);
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let command = format!(
        "cat {} {}; git config --show-origin --get-regexp 'http\\..*'; echo end",
        shared.join("ci.cfg").display(),
        deep.display()
    );
    let out = sh(&c, &ws, &command).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let stdout = ok(&out)["stdout"].as_str().unwrap();
    assert!(!stdout.contains("fake-"), "{stdout}");
    assert!(
        stdout.contains("[includeIf") && stdout.ends_with("end\n"),
        "{stdout}"
    );
    let kept = std::fs::read_to_string(&deep).unwrap();
    assert!(
        kept.contains("fake-deep-token"),
        "the host's file is untouched"
    );
}

/// Whether each command fails confined in `dir` (`(what, command)`).
async fn all_refused(c: &LocalComputer, dir: &Path, attempts: &[(&str, String)]) {
    for (what, command) in attempts {
        let out = sh(c, dir, command).await;
        assert_ne!(code(&out), 0, "{what} went through: {}", out.content);
    }
}

#[tokio::test]
async fn a_submodules_git_dir_keeps_config_and_hooks_shut_and_commits_in_it_work() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let lib = real_repo(&base.path().join("upstream"));
    let ws = real_repo(base.path());
    host_git(
        &ws,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "libs/lib",
        ],
    );
    host_git(&ws, &["commit", "-q", "-m", "add lib"]);
    let module = ws.join(".git/modules/libs/lib");
    assert!(module.join("config").is_file() && module.join("HEAD").is_file());
    std::fs::create_dir_all(module.join("hooks")).unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    // Ordinary work in the submodule and in the superproject goes on.
    let out = sh(
        &c,
        &ws,
        &format!(
            "{IDENTITY}cd libs/lib && echo s > s.txt && git add s.txt && git commit -q -m in-sub && git branch side && cd ../.. && git add libs/lib && git commit -q -m bump && git log --oneline -1"
        ),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(ok(&out)["stdout"].as_str().unwrap().contains("bump"));
    let config = std::fs::read_to_string(module.join("config")).unwrap();
    let attempts = [
        (
            "git config in the submodule",
            "cd libs/lib && git config core.fsmonitor 'touch pwned'".to_owned(),
        ),
        (
            "append to the module's config",
            "echo '[alias]' >> .git/modules/libs/lib/config".to_owned(),
        ),
        (
            "a hook in the module",
            "echo 'touch pwned' > .git/modules/libs/lib/hooks/post-commit".to_owned(),
        ),
        (
            "replace the module's hooks",
            "rm -rf .git/modules/libs/lib/hooks".to_owned(),
        ),
        (
            "move the module's config",
            "mv .git/modules/libs/lib/config .git/modules/libs/lib/c".to_owned(),
        ),
        (
            "info/attributes of the module",
            "mkdir -p .git/modules/libs/lib/info && echo '* filter=x' > .git/modules/libs/lib/info/attributes"
                .to_owned(),
        ),
        (
            "move the module's git dir away",
            "mv .git/modules/libs/lib .git/modules/libs/old".to_owned(),
        ),
        (
            "move a folder on the way",
            "mv .git/modules/libs .git/modules/old".to_owned(),
        ),
        ("move modules/", "mv .git/modules .git/old-modules".to_owned()),
        (
            "point the submodule elsewhere",
            "echo 'gitdir: /elsewhere' > libs/lib/.git".to_owned(),
        ),
    ];
    all_refused(&c, &ws, &attempts).await;
    // From inside the submodule, the same.
    all_refused(
        &c,
        &ws.join("libs/lib"),
        &[
            (
                "git config from inside",
                "git config alias.x '!touch pwned'".to_owned(),
            ),
            (
                "a hook from inside",
                "echo x > ../../.git/modules/libs/lib/hooks/pre-commit".to_owned(),
            ),
        ],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(module.join("config")).unwrap(),
        config
    );
    assert!(!module.join("hooks/post-commit").exists());
    assert!(!module.join("hooks/pre-commit").exists());
    assert!(!module.join("info/attributes").exists());
    assert!(!ws.join("pwned").exists() && !ws.join("libs/lib/pwned").exists());
}

#[tokio::test]
async fn a_worktrees_resolved_git_dir_keeps_its_code_parts_shut_from_inside_and_out() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let main = real_repo(base.path());
    // Per-worktree settings on: git reads `worktrees/wt/config.worktree`.
    host_git(&main, &["config", "extensions.worktreeConfig", "true"]);
    host_git(&main, &["worktree", "add", "-q", "../wt", "-b", "wt"]);
    host_git(
        &base.path().join("wt"),
        &["config", "--worktree", "user.name", "W"],
    );
    let wt = std::fs::canonicalize(base.path().join("wt")).unwrap();
    let wt_git = std::fs::canonicalize(main.join(".git/worktrees/wt")).unwrap();
    assert!(wt_git.join("config.worktree").is_file());
    let c = computer(true);
    // The worktree inside the main repository's root too: both ways in.
    for (cwd, label) in [(&wt, "worktree"), (&main, "main")] {
        if !namespace_runs(&c, cwd).await {
            return;
        }
        let git_dir = wt_git.display();
        let attempts = [
            (
                "git config --worktree",
                format!(
                    "git -C {} config --worktree core.fsmonitor 'touch pwned'",
                    wt.display()
                ),
            ),
            (
                "append to config.worktree",
                format!("echo '[alias]' >> {git_dir}/config.worktree"),
            ),
            (
                "rewrite gitdir",
                format!("echo /elsewhere > {git_dir}/gitdir"),
            ),
            (
                "rewrite commondir",
                format!("echo /elsewhere > {git_dir}/commondir"),
            ),
            (
                "move the worktree's git dir",
                format!("mv {git_dir} {git_dir}-x"),
            ),
            (
                "move worktrees/",
                format!("mv {0}/.git/worktrees {0}/.git/wt-old", main.display()),
            ),
            (
                "a hook in the common dir",
                format!("echo x > {}/.git/hooks/pre-commit", main.display()),
            ),
            (
                "the common config",
                format!("git -C {} config core.hooksPath /tmp", wt.display()),
            ),
        ];
        for (what, command) in &attempts {
            let out = sh(&c, cwd, command).await;
            assert_ne!(
                code(&out),
                0,
                "{label}: {what} went through: {}",
                out.content
            );
        }
    }
    // Ordinary work in the worktree still goes on.
    let out = sh(
        &c,
        &wt,
        &format!("{IDENTITY}echo w > w.txt && git add w.txt && git commit -q -m wt-work && git stash list"),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    // A new worktree beside the pinned ones, and its removal.
    let out = sh(
        &c,
        &main,
        &format!("{IDENTITY}git worktree add -q new-wt -b new-wt && echo n > new-wt/n.txt && git -C new-wt add n.txt && git -C new-wt commit -q -m in-new && git worktree remove new-wt && git worktree list"),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(!main.join("new-wt").exists());
    let worktree_config = std::fs::read_to_string(wt_git.join("config.worktree")).unwrap();
    assert!(!worktree_config.contains("fsmonitor") && !worktree_config.contains("alias"));
    assert_eq!(
        std::fs::read_to_string(wt_git.join("gitdir"))
            .unwrap()
            .trim(),
        wt.join(".git").display().to_string()
    );
    assert!(!main.join(".git/hooks/pre-commit").exists());
    assert!(!wt.join("pwned").exists());
}

#[tokio::test]
async fn a_look_cut_short_by_its_bounds_is_reported_as_scan_truncated() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = repo(base.path());
    let limited = LocalComputer::new(LocalConfig {
        shell: ShellConfig {
            sandbox: SandboxPolicy::workspace_write(),
            sandbox_options: SandboxOptions {
                scan_limit: 100,
                ..SandboxOptions::default()
            },
            ..ShellConfig::default()
        },
        ..LocalConfig::default()
    });
    if !namespace_runs(&limited, &ws).await {
        return;
    }
    let truncated = |out: &ToolOutput| ok(out)["sandbox"]["scanTruncated"].as_bool();
    // Under the listing limit (the stand-ins of missing protected names
    // count too: some 30): nothing cut, nothing reported.
    let out = sh(&limited, &ws, "true").await;
    assert_eq!(truncated(&out), None, "{}", ok(&out)["sandbox"]);
    // Past it: the top lists more entries than the limit.
    for n in 0..120 {
        write(&ws, &format!("file{n}.txt"), "x\n");
    }
    let out = sh(&limited, &ws, "true").await;
    assert_eq!(truncated(&out), Some(true), "{}", ok(&out)["sandbox"]);
    // The search for nested repositories has its own bound (1 024
    // folders looked into), with the default listing limit.
    let wide = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let c = computer(true);
    let out = sh(&c, wide.path(), "true").await;
    assert_eq!(truncated(&out), None, "{}", ok(&out)["sandbox"]);
    for n in 0..40 {
        for m in 0..30 {
            std::fs::create_dir_all(wide.path().join(format!("d{n}/e{m}"))).unwrap();
        }
    }
    let out = sh(&c, wide.path(), "true").await;
    assert_eq!(truncated(&out), Some(true), "{}", ok(&out)["sandbox"]);
    assert_eq!(code(&out), 0);
}
