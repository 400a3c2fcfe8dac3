//! Trust before reading: a skills folder of a workspace the host has not
//! trusted is listed, never read; after trust it loads. Bypass attempts:
//! links out of and into the workspace, `..` after a link, a workspace
//! nested in a trusted one, a trusted folder replaced at its path.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use tool_skills::trust::{Place, TrustStore, Untrusted, Withhold, Workspace};
use tool_skills::{FindingCode, LoadOptions, SkillRegistry, SkillSource};

use crate::common::codes;

/// A skill whose frontmatter does not parse: reading it gives `invalid_yaml`.
const BROKEN: &str = "---\nname: [unclosed\ndescription: x\n---\nbody\n";

fn skill(dir: &Path, name: &str) {
    fs::create_dir_all(dir.join(name)).unwrap();
    fs::write(
        dir.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name}.\n"),
    )
    .unwrap();
}

fn broken(dir: &Path) {
    fs::create_dir_all(dir.join("broken")).unwrap();
    fs::write(dir.join("broken/SKILL.md"), BROKEN).unwrap();
}

fn load(dir: &Path, workspace: Workspace) -> SkillRegistry {
    SkillRegistry::load(
        [SkillSource::dir("workspace", dir)],
        LoadOptions::default().in_workspace(workspace),
    )
}

#[test]
fn an_untrusted_workspace_skills_folder_is_listed_not_read_and_loads_once_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("repo");
    let skills = ws.join(".agents/skills");
    skill(&skills, "deploy");
    broken(&skills);

    let mut store = TrustStore::new();
    let registry = load(&skills, store.workspace(&ws).unwrap());
    assert_eq!(registry.skills().count(), 0);
    // The broken file was never parsed: no parse finding, only the report.
    assert_eq!(codes(&registry), [FindingCode::UntrustedWorkspace]);
    let withheld = &registry.withheld()[0];
    assert_eq!(withheld.why, Withhold::NotTrusted);
    assert_eq!(withheld.source, "workspace");
    let listed: Vec<_> = withheld
        .skills
        .iter()
        .map(|s| s.dir.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, ["broken", "deploy"]);
    assert_eq!(withheld.skills[0].bytes, BROKEN.len() as u64);
    let json = serde_json::to_value(withheld).unwrap();
    assert_eq!(json["why"], "not_trusted");
    assert!(
        json["skills"][1]["file"]
            .as_str()
            .unwrap()
            .ends_with("SKILL.md")
    );

    // The host trusts the workspace and stores that; read back, it loads.
    store.trust(&ws).unwrap();
    let store = TrustStore::from_json(&store.to_json()).unwrap();
    let registry = load(&skills, store.workspace(&ws).unwrap());
    assert!(registry.withheld().is_empty());
    assert!(registry.get("deploy").is_some());
    assert!(codes(&registry).contains(&FindingCode::InvalidYaml));

    // Revoked: withheld again.
    let mut store = store;
    assert!(store.revoke(&ws));
    assert!(!store.workspace(&ws).unwrap().is_trusted());
}

#[test]
fn the_host_own_folders_outside_the_workspace_load_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("repo");
    fs::create_dir_all(&ws).unwrap();
    let own = tmp.path().join("home-skills");
    skill(&own, "mine");
    let workspace = Workspace::untrusted(&ws).unwrap();
    assert_eq!(workspace.place(&own), Place::Outside);
    let registry = load(&own, workspace);
    assert!(registry.get("mine").is_some());
    assert!(registry.withheld().is_empty());
}

#[test]
fn a_link_out_of_a_trusted_workspace_is_not_covered_by_its_trust() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("repo");
    fs::create_dir_all(&ws).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    skill(&elsewhere, "planted");
    symlink(&elsewhere, ws.join("skills")).unwrap();
    let mut store = TrustStore::new();
    store.trust(&ws).unwrap();
    let workspace = store.workspace(&ws).unwrap();
    assert!(workspace.is_trusted());

    let registry = load(&ws.join("skills"), workspace.clone());
    assert_eq!(registry.skills().count(), 0);
    let withheld = &registry.withheld()[0];
    assert_eq!(withheld.why, Withhold::LeavesWorkspace);
    assert_eq!(withheld.resolves_to, elsewhere.canonicalize().unwrap());
    // Not walked: nothing outside the workspace is even listed.
    assert!(withheld.skills.is_empty());

    // `..` after a link is judged where the kernel takes it.
    fs::create_dir_all(elsewhere.join("deep")).unwrap();
    symlink(elsewhere.join("deep"), ws.join("door")).unwrap();
    fs::write(elsewhere.join("policy.json"), "{}").unwrap();
    assert_eq!(
        workspace.place(&ws.join("door/../policy.json")),
        Place::Workspace {
            readable: false,
            why: Some(Withhold::LeavesWorkspace)
        }
    );
    assert_eq!(
        workspace.place(&ws.join("policy.json")),
        Place::Workspace {
            readable: true,
            why: None
        }
    );
}

#[test]
fn a_link_from_the_host_folders_into_an_untrusted_workspace_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("repo");
    skill(&ws.join("skills"), "planted");
    broken(&ws.join("skills"));
    let host = tmp.path().join("host");
    fs::create_dir_all(&host).unwrap();
    symlink(ws.join("skills"), host.join("skills")).unwrap();

    let registry = load(&host.join("skills"), Workspace::untrusted(&ws).unwrap());
    assert_eq!(registry.skills().count(), 0);
    assert_eq!(codes(&registry), [FindingCode::UntrustedWorkspace]);
    assert_eq!(registry.withheld()[0].skills.len(), 2);
}

#[test]
fn a_workspace_nested_in_a_trusted_one_is_not_trusted_by_it() {
    let tmp = tempfile::tempdir().unwrap();
    let parent = tmp.path().join("projects");
    skill(&parent.join("skills"), "ours");
    let clone = parent.join("fresh-clone");
    skill(&clone.join("skills"), "theirs");
    let mut store = TrustStore::new();
    store.trust(&parent).unwrap();

    let opened = store.workspace(&clone).unwrap();
    assert_eq!(opened.untrusted_because(), Some(Untrusted::NotTrusted));
    let registry = load(&clone.join("skills"), opened);
    assert_eq!(registry.skills().count(), 0);
    assert_eq!(registry.withheld()[0].skills.len(), 1);

    // The trusted folder's own configuration is read.
    let registry = load(&parent.join("skills"), store.workspace(&parent).unwrap());
    assert!(registry.get("ours").is_some());
}

#[test]
fn a_trusted_folder_replaced_at_its_path_is_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("repo");
    skill(&ws.join("skills"), "first");
    let mut store = TrustStore::new();
    store.trust(&ws).unwrap();
    let stored = store.to_json();

    // Renamed away and re-created with other contents (the old folder
    // still exists, so the new one cannot reuse its inode).
    fs::rename(&ws, tmp.path().join("repo.old")).unwrap();
    skill(&ws.join("skills"), "second");
    let store = TrustStore::from_json(&stored).unwrap();
    let opened = store.workspace(&ws).unwrap();
    assert_eq!(opened.untrusted_because(), Some(Untrusted::Replaced));
    let registry = load(&ws.join("skills"), opened);
    assert_eq!(registry.skills().count(), 0);
    assert_eq!(registry.withheld()[0].why, Withhold::Replaced);

    // Swapped for a link to another folder: another canonical path.
    fs::remove_dir_all(&ws).unwrap();
    let other = tmp.path().join("other");
    skill(&other.join("skills"), "third");
    symlink(&other, &ws).unwrap();
    let opened = store.workspace(&ws).unwrap();
    assert_eq!(opened.untrusted_because(), Some(Untrusted::NotTrusted));
    assert_eq!(load(&ws.join("skills"), opened).skills().count(), 0);
}

#[test]
fn opening_a_missing_workspace_or_a_bad_store_is_a_typed_error() {
    let tmp = tempfile::tempdir().unwrap();
    let err = TrustStore::new()
        .workspace(&tmp.path().join("nope"))
        .unwrap_err();
    assert!(err.is_io(), "{err}");
    let file = tmp.path().join("f");
    fs::write(&file, "x").unwrap();
    assert!(TrustStore::new().trust(&file).is_err());
    let err = TrustStore::from_json("{\"roots\": [{\"path\": 3}]}").unwrap_err();
    assert!(err.to_string().contains("trust store"), "{err}");
}
