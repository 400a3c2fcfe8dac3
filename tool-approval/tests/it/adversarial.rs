//! Adversarial cases that need code: generated inputs at the size limits,
//! real temp directories and symlinks, working-directory arguments. Plain
//! (command, mode, expected decision) cases live in `tests/corpus/` and are
//! read by `tests/it/corpus.rs`. Nothing here may be talked into running.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::os::unix::fs::symlink;

use serde_json::{Value, json};
use tool_approval::{Action, ApprovalMode, Level, MAX_COMMAND_BYTES};
use tool_core::{InterventionPolicy, ToolContext};

use common::{decide, engine, local_system, run_command};

#[test]
fn huge_and_deeply_nested_commands_are_never_approved() {
    let engine = engine(ApprovalMode::Manual);
    let huge = format!("git status {}", "a".repeat(MAX_COMMAND_BYTES));
    let huge_compound = "git status && ".repeat(MAX_COMMAND_BYTES / 10);
    let huge_push = format!("git push {}", "a".repeat(MAX_COMMAND_BYTES));
    for cmd in [huge, huge_compound, huge_push] {
        let d = run_command(&engine, &cmd);
        assert_eq!(
            (d.action, d.policy, d.reason.level),
            (Action::Ask, InterventionPolicy::Required, Level::Limits),
            "{d:?}"
        );
        assert_eq!(d.reason.rule.as_deref(), Some("limits/command-too-long"));
        let d = run_command(&common::engine(ApprovalMode::AutoRun), &cmd);
        assert_eq!(
            d.action,
            Action::Ask,
            "auto-run must not run what it cannot read"
        );
        let d = run_command(&common::engine(ApprovalMode::Headless), &cmd);
        assert_eq!(d.action, Action::Block);
    }
    let deep = format!("{}git status{}", "$(".repeat(400), ")".repeat(400));
    let parens = format!("{}git status{}", "(".repeat(2000), ")".repeat(2000));
    for cmd in [deep, parens] {
        for mode in [ApprovalMode::Manual, ApprovalMode::AutoRun] {
            let d = run_command(&common::engine(mode), &cmd);
            assert_eq!(
                (d.reason.level, d.reason.rule.as_deref()),
                (Level::Limits, Some("limits/too-deep")),
                "{d:?}"
            );
            assert_ne!(
                d.action,
                Action::Run,
                "{mode:?} must not run what it cannot read"
            );
        }
    }
}

// ---- Path scope, on a real temp directory -------------------------------------------------

struct Sandbox {
    _root: tempfile::TempDir,
    work: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn sandbox() -> Sandbox {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(work.join("src/sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(work.join("src/a.txt"), "a").unwrap();
    std::fs::write(outside.join("secret.txt"), "s").unwrap();
    symlink("/etc", work.join("link-to-etc")).unwrap();
    symlink(&outside, work.join("link-out")).unwrap();
    symlink(work.join("src"), work.join("link-in")).unwrap();
    symlink(&outside, work.join("src/sub/deep-out")).unwrap();
    std::fs::create_dir_all(root.path().join("work2")).unwrap();
    // Dangling links: writing through one creates its target.
    symlink(outside.join("new.txt"), work.join("dangle-out")).unwrap();
    symlink(work.join("src/new.txt"), work.join("dangle-in")).unwrap();
    symlink(work.join("loop"), work.join("loop")).unwrap();
    Sandbox {
        _root: root,
        work,
        outside,
    }
}

const PATHS: &[(&str, &str, bool)] = &[
    // (api, argument json, stays inside)
    ("readFile", r#"{"path": "src/a.txt"}"#, true),
    ("readFile", r#"{"path": "./src/../src/a.txt"}"#, true),
    ("readFile", r#"{"path": "src//sub///"}"#, true),
    ("readFile", r#"{"path": "src/new-file.txt"}"#, true),
    ("readFile", r#"{"path": "link-in/a.txt"}"#, true),
    ("readFile", r#"{"path": "."}"#, true),
    ("readFile", r#"{"path": "src/sub/../../src"}"#, true),
    ("readFile", r#"{"path": "../outside/secret.txt"}"#, false),
    ("readFile", r#"{"path": "a/../../x"}"#, false),
    ("readFile", r#"{"path": "src/../../outside"}"#, false),
    ("readFile", r#"{"path": "link-to-etc/hostname"}"#, false),
    ("writeFile", r#"{"path": "dangle-out"}"#, false),
    ("writeFile", r#"{"path": "dangle-in"}"#, true),
    ("readFile", r#"{"path": "loop"}"#, true),
    ("readFile", r#"{"path": {"x": "/etc/passwd"}}"#, false),
    ("readFile", r#"{"path": ["a.txt", {"x": "/etc"}]}"#, false),
    ("readFile", r#"{"path": 7}"#, false),
    ("readFile", r#"{"path": "file:///etc/passwd"}"#, false),
    // Loosely spelled or other path-ish names.
    ("readFile", r#"{"Path": "/etc/hosts"}"#, false),
    ("readFile", r#"{"path ": "/etc/hosts"}"#, false),
    (
        "readFile",
        r#"{"path": "a.txt", "Path": "/etc/hosts"}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "a", "newpath": "/x"}]}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"from": "a", "to": "/x"}]}"#,
        false,
    ),
    ("readFile", r#"{"path": "a", "newName": "../../x"}"#, false),
    (
        "grepContent",
        r#"{"pattern": "x", "glob": "../../*"}"#,
        false,
    ),
    ("readFile", r#"{"path": "link-out/secret.txt"}"#, false),
    ("readFile", r#"{"path": "link-out"}"#, false),
    (
        "readFile",
        r#"{"path": "src/sub/deep-out/secret.txt"}"#,
        false,
    ),
    ("readFile", r#"{"path": "link-in/../../outside"}"#, false),
    ("readFile", r#"{"path": "src/sub/deep-out/../x"}"#, false),
    ("readFile", r#"{"path": "/etc/hostname"}"#, false),
    ("readFile", r#"{"path": "~/x"}"#, false),
    ("readFile", r#"{"path": "~root/x"}"#, false),
    ("readFile", r#"{"path": "../work2/x"}"#, false),
    ("readFile", r#"{"path": "/"}"#, false),
    ("readFile", r#"{"path": "//etc"}"#, false),
    ("readFile", r#"{"path": "src/a.txt/../../../"}"#, false),
    // Alternative parameter names, with and without schema annotations.
    ("readFile", r#"{"target_file": "../outside/x"}"#, false),
    (
        "readFile",
        r#"{"nested": {"deep": ["src/a.txt", "../outside/x"]}}"#,
        false,
    ),
    ("readFile", r#"{"nested": {"deep": ["src/a.txt"]}}"#, true),
    ("readFile", r#"{"file_path": "../outside/x"}"#, false),
    ("readFile", r#"{"filePath": "/etc/hostname"}"#, false),
    ("readFile", r#"{"directory": ".."}"#, false),
    ("readFile", r#"{"paths": ["src", "../outside"]}"#, false),
    (
        "globFiles",
        r#"{"pattern": "**/*.rs", "scope": "src"}"#,
        true,
    ),
    ("globFiles", r#"{"pattern": "/etc/**"}"#, false),
    ("globFiles", r#"{"pattern": "../outside/*"}"#, false),
    (
        "globFiles",
        r#"{"pattern": "*.rs", "scope": "../outside"}"#,
        false,
    ),
    (
        "grepContent",
        r#"{"pattern": "TODO", "scope": "link-out"}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "src/a.txt", "newPath": "src/b.txt"}]}"#,
        true,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "src/a.txt", "newPath": "../outside/b.txt"}]}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "link-out/secret.txt", "newPath": "src/x"}]}"#,
        false,
    ),
    (
        "writeFile",
        r#"{"path": "src/sub/new/deeper/file.txt"}"#,
        true,
    ),
    (
        "writeFile",
        r#"{"path": "src/sub/new/../../../../outside/x"}"#,
        false,
    ),
];

#[test]
fn path_scope_resolves_dot_dot_and_symlinks_on_a_real_directory() {
    let sb = sandbox();
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let manifest = local_system();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    for (api, args, inside) in PATHS {
        let args: Value = serde_json::from_str(args).unwrap();
        let d = decide(&engine, &manifest, api, &args, &ctx);
        let want = if *inside { Action::Run } else { Action::Ask };
        assert_eq!(d.action, want, "{api} {args}: {d:?}");
        assert_eq!(d.reason.level, Level::ApiDynamic, "{api} {args}");
    }
    assert!(sb.outside.exists());
}

#[test]
fn path_scope_passes_without_a_working_directory() {
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let d = decide(
        &engine,
        &local_system(),
        "readFile",
        &json!({"path": "/etc/hostname"}),
        &ToolContext::new(),
    );
    assert_eq!(d.action, Action::Run);
}

#[test]
fn model_cannot_move_the_sandbox_with_a_cwd_argument() {
    let sb = sandbox();
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let args = json!({"cwd": "/", "path": "etc/hostname"});
    let d = decide(&engine, &local_system(), "readFile", &args, &ctx);
    assert_eq!(d.action, Action::Ask);
}

#[test]
fn temp_exemption_is_off_by_default_and_checks_real_paths() {
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let tmp = tempfile::Builder::new()
        .prefix("approval-tmp")
        .tempdir_in("/tmp")
        .unwrap();
    let in_tmp = tmp.path().join("f.txt");
    let link_in_tmp = tmp.path().join("to-outside");
    symlink("/etc", &link_in_tmp).unwrap();
    let default = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let exempt = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .dynamic_audit(std::sync::Arc::new(
            tool_approval::PathScopeAudit::new().allow_temp_dirs(true),
        ))
        .build()
        .unwrap();
    let args = json!({"path": in_tmp});
    assert_eq!(
        decide(&default, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Run
    );
    let args = json!({"path": link_in_tmp.join("hostname")});
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
    let args = json!({"path": "/tmp/../etc/hostname"});
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
}

#[test]
fn path_blacklist_sees_through_symlinks_and_other_names() {
    let sb = sandbox();
    let engine = engine(ApprovalMode::AutoRun);
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let manifest = local_system();
    for args in [
        json!({"path": "link-to-etc/passwd"}),
        json!({"path": "/etc/shadow"}),
        json!({"file_path": "/etc/../etc/sudoers"}),
        json!({"items": [{"oldPath": "x", "newPath": "/etc/passwd"}]}),
    ] {
        let d = decide(&engine, &manifest, "moveFiles", &args, &ctx);
        assert_eq!(
            (d.action, d.policy),
            (Action::Ask, InterventionPolicy::Always),
            "{args}: {d:?}"
        );
    }
    std::fs::write(sb.work.join(".env"), "K=V").unwrap();
    symlink(sb.work.join(".env"), sb.work.join("innocent.txt")).unwrap();
    let manual = common::engine(ApprovalMode::Manual);
    for args in [
        json!({"path": ".env"}),
        json!({"path": "innocent.txt"}),
        json!({"path": "src/../.env.local"}),
    ] {
        let d = decide(&manual, &manifest, "readFile", &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::GlobalAudit),
            "{args}: {d:?}"
        );
    }
}

// ---- Arguments beside the command: environment, working directory, API names ---------------

fn run_args(mode: ApprovalMode, args: Value, ctx: &ToolContext) -> tool_approval::Decision {
    decide(&engine(mode), &local_system(), "runCommand", &args, ctx)
}

#[test]
fn a_working_directory_argument_outside_the_sandbox_stops_approval() {
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    for cwd in ["/", "..", sb.outside.to_str().unwrap(), "~"] {
        for key in ["cwd", "workdir", "workingDirectory", "directory"] {
            let d = run_args(
                ApprovalMode::Manual,
                json!({"command": "git status", key: cwd}),
                &ctx,
            );
            assert_eq!(d.action, Action::Ask, "{key}={cwd}: {d:?}");
        }
    }
    for cwd in [".", "src", sb.work.to_str().unwrap()] {
        let d = run_args(
            ApprovalMode::Manual,
            json!({"command": "git status", "cwd": cwd}),
            &ctx,
        );
        assert_eq!(d.action, Action::Run, "{cwd}: {d:?}");
    }
    // Without a host working directory, only `.` is known to stay put.
    let none = ToolContext::new();
    let d = run_args(
        ApprovalMode::Manual,
        json!({"command": "git status", "cwd": "/"}),
        &none,
    );
    assert_eq!(d.action, Action::Ask, "{d:?}");
}

#[test]
fn recursive_removal_of_relative_targets_is_judged_in_its_directory() {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let cases: &[(Value, bool)] = &[
        (json!({"command": "rm -rf *", "cwd": "/"}), true),
        (json!({"command": "rm -rf .", "cwd": "/"}), true),
        (json!({"command": "rm -rf ./*", "cwd": "/etc"}), true),
        (json!({"command": "rm -rf .*", "cwd": home}), true),
        (json!({"command": "rm -rf *", "workdir": "~"}), true),
        (json!({"command": "cd / && rm -rf *"}), true),
        (json!({"command": "cd /; rm -rf ."}), true),
        (json!({"command": "cd && rm -rf *"}), true),
        (json!({"command": "cd ~; rm -rf ./*"}), true),
        (json!({"command": "pushd /usr && rm -rf *"}), true),
        (json!({"command": "cd /etc/ssh && rm -rf .."}), true),
        (json!({"command": "cd $X && rm -rf ."}), true),
        // The workspace as a whole is precious too (issue 36 §6).
        (json!({"command": "rm -rf *"}), true),
        (json!({"command": "rm -rf ."}), true),
        (json!({"command": "cd .. && rm -rf work"}), true),
        (json!({"command": "rm -rf target"}), false),
        (json!({"command": "cd src && rm -rf *"}), false),
        (json!({"command": "rm -rf *", "cwd": "src"}), false),
    ];
    for (args, always) in cases {
        let d = run_args(ApprovalMode::AutoRun, args.clone(), &ctx);
        if *always {
            assert_eq!(
                (d.action, d.policy),
                (Action::Ask, InterventionPolicy::Always),
                "{args}: {d:?}"
            );
        } else {
            assert_ne!(d.policy, InterventionPolicy::Always, "{args}: {d:?}");
        }
    }
}

#[test]
fn an_api_the_manifest_does_not_define_is_unknown() {
    let engine = engine(ApprovalMode::Manual);
    let manifest = local_system();
    let ctx = ToolContext::new();
    for api in ["runcommand", "RunCommand", "runCommand ", "nope"] {
        let args = json!({"command": "git status"});
        let d = decide(&engine, &manifest, api, &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::UnknownTool),
            "{api}: {d:?}"
        );
    }
}
