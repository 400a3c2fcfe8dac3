//! Attempts to read outside a skill's folder. Every one must fail and no
//! output may carry the secret. Paths are data here: nothing is executed.

use std::os::unix::fs::symlink;
use std::path::Path;

use proptest::prelude::*;
use tool_core::ToolOutput;
use tool_skills::{
    BuiltinSkill, LoadOptions, SkillRegistry, SkillSource, SkillsTool, SymlinkPolicy,
};

use crate::common::write;

const SECRET: &str = "TOP-SECRET-MARKER-5d1f";

struct World {
    _root: tempfile::TempDir,
    outside: tempfile::TempDir,
    tool: SkillsTool,
}

fn world(policy: SymlinkPolicy) -> World {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    write(o, "secret.md", SECRET);
    write(o, "secret", SECRET);
    write(o, "dir/secret.md", SECRET);
    write(
        o,
        "linked-skill/SKILL.md",
        "---\nname: linked-skill\ndescription: Lives outside.\n---\nbody\n",
    );
    write(o, "linked-skill/ok.md", "fine");
    symlink(o.join("secret.md"), o.join("linked-skill/up.md")).unwrap();

    let r = root.path();
    write(
        r,
        "skills/safe/SKILL.md",
        "---\nname: safe\ndescription: The target.\n---\nbody\n",
    );
    write(r, "skills/safe/references/ok.md", "fine");
    write(r, "skills/sibling-secret.md", SECRET);
    let s = r.join("skills/safe");
    symlink(o.join("secret.md"), s.join("file-link.md")).unwrap();
    symlink(o.join("dir"), s.join("dir-link")).unwrap();
    symlink("/proc/self/root", s.join("proc-root")).unwrap();
    symlink("/", s.join("slash")).unwrap();
    symlink("../sibling-secret.md", s.join("relative-up.md")).unwrap();
    symlink(s.join("file-link.md"), s.join("chain.md")).unwrap();
    symlink(s.join("references/ok.md"), s.join("inside-link.md")).unwrap();
    symlink(o.join("nowhere"), s.join("dangling.md")).unwrap();
    symlink(o.join("linked-skill"), r.join("skills/linked-skill")).unwrap();
    let mut options = LoadOptions::default();
    options.discovery.symlinks = policy;
    let registry = SkillRegistry::load(
        [
            SkillSource::dir("project", r.join("skills")),
            SkillSource::builtin(
                "builtin",
                [BuiltinSkill::new("mem", "mem", "In memory.", "body")
                    .resource("references/ok.md", "fine")],
            ),
        ],
        options,
    );
    World {
        _root: root,
        outside,
        tool: SkillsTool::new(registry),
    }
}

fn attempts(outside: &Path) -> Vec<String> {
    let o = outside.display().to_string();
    let mut list: Vec<String> = [
        "../sibling-secret.md",
        "../../../../../../etc/passwd",
        "references/../../sibling-secret.md",
        "..\\sibling-secret.md",
        "references\\..\\..\\sibling-secret.md",
        "..%2fsibling-secret.md",
        "%2e%2e/sibling-secret.md",
        "%2E%2E%2Fsibling-secret.md",
        "%252e%252e%252fsibling-secret.md",
        "%25252e%25252e/sibling-secret.md",
        "..%5csibling-secret.md",
        "%2fetc%2fpasswd",
        "/etc/passwd",
        "/proc/self/root/etc/passwd",
        "\\\\server\\share\\secret",
        "C:\\Windows\\win.ini",
        "c:/secret",
        "~/.ssh/id_rsa",
        "ok.md\0../../sibling-secret.md",
        "references/ok.md%00",
        "file-link.md",
        "file-link",
        "dir-link/secret.md",
        "DIR-LINK/SECRET.MD",
        "proc-root/etc/passwd",
        "proc-root/",
        "slash/etc/passwd",
        "relative-up.md",
        "relative-up",
        "chain.md",
        "dangling.md",
        "secret.md",
        "secret",
        "sibling-secret.md",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    list.push(format!("{o}/secret.md"));
    list.push(format!("file://{o}/secret.md"));
    list.push(format!("/proc/self/root{o}/secret.md"));
    list
}

fn assert_no_escape(out: &ToolOutput, what: &str) {
    assert!(!out.success, "{what} succeeded: {out:?}");
    let text = serde_json::to_string(out).unwrap();
    assert!(!text.contains(SECRET), "{what} leaked the secret: {text}");
}

#[test]
fn no_escape_from_a_disk_skill() {
    let w = world(SymlinkPolicy::WithinRoot);
    for path in attempts(w.outside.path()) {
        let out = w.tool.read_reference("safe", &path);
        assert_no_escape(&out, &path);
        let code = out.error_code().unwrap().as_str().to_owned();
        assert!(
            ["path_not_allowed", "reference_not_found"].contains(&code.as_str()),
            "{path}: {code}"
        );
    }
    for path in [
        "/proc/self/root/etc/passwd",
        "file-link.md",
        "dir-link/secret.md",
        "proc-root/etc/passwd",
        "relative-up.md",
        "chain.md",
        "..\\x",
        "%2e%2e/x",
    ] {
        assert_eq!(
            w.tool.read_reference("safe", path).error_code().unwrap(),
            "path_not_allowed",
            "{path}"
        );
    }
    let inside = w.tool.read_reference("safe", "inside-link.md");
    assert!(
        inside.success && inside.content == "fine",
        "links that stay inside work"
    );
}

#[test]
fn no_escape_from_a_memory_skill() {
    let w = world(SymlinkPolicy::WithinRoot);
    for path in attempts(w.outside.path()) {
        assert_no_escape(&w.tool.read_reference("mem", &path), &path);
    }
}

#[test]
fn a_symlinked_skill_root_is_not_loaded_by_default() {
    let w = world(SymlinkPolicy::WithinRoot);
    let out = w.tool.read_reference("linked-skill", "ok.md");
    assert_eq!(out.error_code().unwrap(), "skill_not_found");
}

#[test]
fn a_followed_skill_root_is_confined_to_its_target() {
    let w = world(SymlinkPolicy::Follow);
    let ok = w.tool.read_reference("linked-skill", "ok.md");
    assert!(ok.success, "{ok:?}");
    for path in ["up.md", "../secret.md", "../dir/secret.md", "secret.md"] {
        let out = w.tool.read_reference("linked-skill", path);
        assert_no_escape(&out, path);
    }
    assert_eq!(
        w.tool
            .read_reference("linked-skill", "up.md")
            .error_code()
            .unwrap(),
        "path_not_allowed"
    );
}

#[test]
fn the_activation_listing_never_names_outside_files() {
    let w = world(SymlinkPolicy::WithinRoot);
    let out = w.tool.activate("safe");
    for leaked in [
        "file-link.md",
        "dir-link",
        "proc-root",
        "slash",
        "relative-up.md",
        "chain.md",
    ] {
        assert!(!out.content.contains(leaked), "{leaked} listed");
    }
    assert!(out.content.contains("<file>inside-link.md</file>"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn no_combination_of_path_pieces_escapes(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just(".."), Just("."), Just("/"), Just("\\"), Just("%2e"), Just("%2f"), Just("%5c"),
                Just("%25"), Just("%00"), Just("dir-link"), Just("proc-root"), Just("slash"),
                Just("etc"), Just("secret.md"), Just("sibling-secret.md"), Just("file-link.md"),
                Just("references"), Just("SECRET"), Just("~"), Just("C:"),
            ],
            1..10,
        )
    ) {
        thread_local! {
            static WORLD: World = world(SymlinkPolicy::WithinRoot);
        }
        let path: String = pieces.concat();
        WORLD.with(|w| {
            let out = w.tool.read_reference("safe", &path);
            let text = serde_json::to_string(&out).unwrap();
            assert!(!text.contains(SECRET), "{path:?} leaked: {text}");
        });
    }
}
