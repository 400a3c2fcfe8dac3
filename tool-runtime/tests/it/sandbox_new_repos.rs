//! What a confined command leaves in git directories for the user's next
//! git command is taken out once it has ended: code parts missing before
//! (a submodule's `hooks/`, a worktree's `config.worktree`), the code
//! settings and hooks of repositories it made (behind a `.git` folder or
//! a `.git` file, in the workspace or in an outside main repository),
//! without following a symlink it planted out of the sandbox (nor moving
//! a protected name that such a symlink leads to outside).
#![cfg(target_os = "linux")]

use crate::common::{base_outside_temp, ok};
use crate::sandbox_git::{
    IDENTITY, code, computer, git_available, host_git, namespace_runs, real_repo, sh,
};

#[tokio::test]
async fn code_parts_missing_from_a_modules_or_a_worktrees_git_dir_are_taken_out_after_the_run() {
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
            "lib",
        ],
    );
    host_git(&ws, &["config", "extensions.worktreeConfig", "true"]);
    // The worktree outside the workspace: its git dir is found only from
    // the main repository's `worktrees/`.
    host_git(&ws, &["worktree", "add", "-q", "../wt", "-b", "wt"]);
    let module = ws.join(".git/modules/lib");
    let wt_git = ws.join(".git/worktrees/wt");
    // Neither has these parts yet: git would read or run them.
    std::fs::remove_dir_all(module.join("hooks")).ok();
    std::fs::remove_file(wt_git.join("config.worktree")).ok();
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        "mkdir .git/modules/lib/hooks && echo 'touch pwned' > .git/modules/lib/hooks/post-checkout && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > .git/worktrees/wt/config.worktree",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(!module.join("hooks").exists(), "{}", out.content);
    assert!(!wt_git.join("config.worktree").exists(), "{}", out.content);
    let created = ok(&out)["protectedCreated"].to_string();
    assert!(
        created.contains("modules/lib/hooks") && created.contains("worktrees/wt/config.worktree"),
        "{created}"
    );
    // Git in both still works, and nothing ran.
    host_git(&ws.join("lib"), &["status", "--short"]);
    host_git(&base.path().join("wt"), &["status", "--short"]);
    assert!(!ws.join("pwned").exists() && !base.path().join("wt/pwned").exists());
}

#[tokio::test]
async fn a_new_repository_behind_a_git_file_loses_the_code_settings_it_was_given() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo(base.path());
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    // A repository whose git dir is elsewhere in the workspace, and a
    // `.git` file naming a git dir whose `commondir` holds the settings.
    let out = sh(
        &c,
        &ws,
        r#"git init -q --separate-git-dir="$PWD/.hidden-gd" sub && git -C sub config core.fsmonitor 'touch pwned' && mkdir -p common wt-gd sub2 && printf '[core]\n\tfsmonitor = touch pwned\n' > common/config && echo ../common > wt-gd/commondir && echo 'ref: refs/heads/main' > wt-gd/HEAD && echo 'gitdir: ../wt-gd' > sub2/.git"#,
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    for config in [".hidden-gd/config", "common/config"] {
        let text = std::fs::read_to_string(ws.join(config)).unwrap();
        assert!(!text.contains("fsmonitor"), "{config}: {text}");
    }
    let created = ok(&out)["protectedCreated"].to_string();
    assert!(
        created.contains(".hidden-gd/config") && created.contains("common/config"),
        "{created}"
    );
    assert!(out.content.contains(".hidden-gd/config"), "{}", out.content);
    // The new repository still works for the user, and nothing ran.
    host_git(&ws.join("sub"), &["status", "--short"]);
    assert!(!ws.join("pwned").exists() && !ws.join("sub/pwned").exists());
    // From the next command on, its config is read-only like any other's.
    let out = sh(&c, &ws, "git -C sub config core.fsmonitor 'touch pwned'").await;
    assert_ne!(code(&out), 0, "{}", out.content);
}

#[tokio::test]
async fn git_submodule_add_works_confined_and_the_submodule_stays_usable() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let lib = real_repo(&base.path().join("upstream"));
    let ws = real_repo(base.path());
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        &format!(
            "{IDENTITY}git -c protocol.file.allow=always submodule add -q '{}' lib && git commit -q -m 'add lib' && git submodule status",
            lib.display()
        ),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    // Its `core.worktree` (a key that points git elsewhere) is taken out
    // and reported; git finds the work tree by the `.git` file anyway.
    let config = std::fs::read_to_string(ws.join(".git/modules/lib/config")).unwrap();
    assert!(!config.contains("worktree"), "{config}");
    assert!(config.contains("[remote \"origin\"]"), "{config}");
    let out = sh(
        &c,
        &ws,
        &format!(
            "{IDENTITY}cd lib && echo x > x.txt && git add x.txt && git commit -q -m in-lib && cd .. && git add lib && git commit -q -m bump && git submodule status"
        ),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    host_git(&ws, &["submodule", "status"]);
    host_git(&ws.join("lib"), &["status", "--short"]);
}

#[tokio::test]
async fn a_git_dir_planted_in_an_outside_main_repository_loses_its_code_settings() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let main = real_repo(base.path());
    host_git(&main, &["worktree", "add", "-q", "../wt", "-b", "wt"]);
    let wt = std::fs::canonicalize(base.path().join("wt")).unwrap();
    let main = std::fs::canonicalize(&main).unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &wt).await {
        return;
    }
    // The worktree's main git dir is writable (but for its code parts):
    // a git dir made there, named by a `.git` file in the worktree.
    let planted = main.join(".git/modules/planted");
    let out = sh(
        &c,
        &wt,
        &format!(
            r#"mkdir -p {p} sub && printf '[core]\n\tfsmonitor = touch pwned\n' > {p}/config && echo 'ref: refs/heads/main' > {p}/HEAD && echo 'gitdir: {p}' > sub/.git"#,
            p = planted.display()
        ),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let config = std::fs::read_to_string(planted.join("config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config}");
    let created = ok(&out)["protectedCreated"].to_string();
    assert!(created.contains("modules/planted/config"), "{created}");
    assert!(created.contains("git-dirs"), "{created}");
}

#[tokio::test]
async fn symlinks_planted_as_a_new_repositorys_hooks_or_config_are_taken_out_not_followed() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo(base.path());
    // The host's own files outside the workspace: a folder and a git
    // configuration with settings of the kinds taken out of new repos.
    let victim = base.path().join("outside/victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("important.txt"), "keep me\n").unwrap();
    let victim_config = base.path().join("outside/gitconfig");
    let settings = "[alias]\n\tst = status\n[core]\n\teditor = vi\n";
    std::fs::write(&victim_config, settings).unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    let out = sh(
        &c,
        &ws,
        &format!(
            "git init -q fresh && rm -rf fresh/.git/hooks fresh/.git/config && ln -s '{}' fresh/.git/hooks && ln -s '{}' fresh/.git/config",
            victim.display(),
            victim_config.display()
        ),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    // Nothing outside the sandbox moved or changed.
    assert_eq!(
        std::fs::read_to_string(victim.join("important.txt")).unwrap(),
        "keep me\n"
    );
    assert_eq!(std::fs::read_to_string(&victim_config).unwrap(), settings);
    // The links themselves went to the quarantine folder, reported.
    let git = ws.join("fresh/.git");
    assert!(git.join("hooks").symlink_metadata().is_err());
    assert!(git.join("config").symlink_metadata().is_err());
    let created = ok(&out)["protectedCreated"].to_string();
    assert!(
        created.contains("fresh/.git/hooks") && created.contains("fresh/.git/config"),
        "{created}"
    );
}

#[tokio::test]
async fn a_protected_name_behind_a_planted_symlink_is_taken_out_inside_and_never_from_outside() {
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo_or_plain(base.path());
    // The host's own project outside the workspace, with a gradle wrapper.
    let outside = base.path().join("outside/proj");
    let wrapper = outside.join("gradle/wrapper/gradle-wrapper.properties");
    std::fs::create_dir_all(wrapper.parent().unwrap()).unwrap();
    std::fs::write(&wrapper, "distributionUrl=kept\n").unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    // `gradle/wrapper` is a protected name; here it is reached through a
    // symlink the command made to the outside folder.
    let out = sh(
        &c,
        &ws,
        &format!("ln -s '{}' gradle", outside.join("gradle").display()),
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(&wrapper).unwrap(),
        "distributionUrl=kept\n",
        "{}",
        out.content
    );
    assert!(
        !ok(&out)["protectedCreated"]
            .to_string()
            .contains("gradle/wrapper"),
        "{}",
        out.content
    );
    // Through a symlink to a folder in the workspace, the entry made
    // there is taken out where it really is.
    let out = sh(
        &c,
        &ws,
        "rm gradle && mkdir -p mine/wrapper && echo 'distributionUrl=planted' > mine/wrapper/gradle-wrapper.properties && ln -s mine gradle",
    )
    .await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert!(!ws.join("mine/wrapper").exists(), "{}", out.content);
    assert!(
        ok(&out)["protectedCreated"]
            .to_string()
            .contains("gradle/wrapper"),
        "{}",
        out.content
    );
}

/// A plain workspace folder (no git needed).
fn real_repo_or_plain(base: &std::path::Path) -> std::path::PathBuf {
    let ws = base.join("plain");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::canonicalize(ws).unwrap()
}

#[tokio::test]
async fn a_repository_outside_reached_through_a_planted_symlink_is_left_as_it_is() {
    if !git_available() {
        return;
    }
    let base = tempfile::tempdir_in(base_outside_temp()).unwrap();
    let ws = real_repo(base.path());
    // The host's own repository outside the workspace, with settings and
    // a hook of the kinds taken out of new repositories.
    let other = real_repo(&base.path().join("outside"));
    host_git(&other, &["config", "alias.st", "status"]);
    std::fs::write(other.join(".git/hooks/post-commit"), "#!/bin/sh\n").unwrap();
    let config = std::fs::read_to_string(other.join(".git/config")).unwrap();
    let c = computer(true);
    if !namespace_runs(&c, &ws).await {
        return;
    }
    // A link one folder below the top, where new repositories are looked
    // for after the run.
    let out = sh(&c, &ws, &format!("ln -s '{}' other", other.display())).await;
    assert_eq!(code(&out), 0, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(other.join(".git/config")).unwrap(),
        config
    );
    assert!(other.join(".git/hooks/post-commit").exists());
    assert_eq!(ok(&out).get("protectedCreated"), None, "{}", out.content);
}
