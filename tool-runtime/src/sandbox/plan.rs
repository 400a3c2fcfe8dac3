//! Which paths get which rights: the policy turned into a list of rules.
//!
//! Landlock only adds rights (a rule on a directory covers everything
//! beneath it); it cannot take a right away from a subtree. To keep
//! `~/.ssh` unreadable while `/` is readable, or `.git` read-only while the
//! workspace is writable, the plan *decomposes*: a directory that contains
//! an excluded path gets no rule itself; each of its entries does instead,
//! recursing only along the way to the excluded path. Symlinks are never
//! given a rule (Landlock would attach it to their target, wherever that
//! is); their targets are reachable through their own paths.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::sandbox::classes::Classes;
use crate::sandbox::entries;
use crate::sandbox::git_token;
use crate::sandbox::home;
use crate::sandbox::policy::{SandboxOptions, SandboxPolicy};

/// Entries examined at most while decomposing, so a huge directory on the
/// way to an excluded path cannot make a command's start unbounded.
const MAX_ENTRIES: usize = 20_000;

/// Device files every confined command may read and write.
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The rules of one command's sandbox.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct Plan {
    /// Paths (and what is beneath them) readable and executable.
    pub(crate) read: Vec<PathBuf>,
    /// Directories split around a secret: their entries can be listed
    /// (beneath them too), nothing more; their readable parts are in `read`.
    pub(crate) listed: Vec<PathBuf>,
    /// Paths (and what is beneath them) with every right.
    pub(crate) write: Vec<PathBuf>,
    /// Device files readable and writable.
    pub(crate) devices: Vec<PathBuf>,
    /// The writable roots, canonical, for the report.
    pub(crate) writable_roots: Vec<PathBuf>,
    /// Protected entries found in the writable roots, for the report.
    pub(crate) read_only: Vec<PathBuf>,
    /// The stand-ins of missing protected files (sockets) that show an
    /// empty read-only file in the command (the private `placeholder`
    /// module); also in `read_only`.
    pub(crate) empty_files: Vec<PathBuf>,
    /// Git directories pinned in place (bound onto themselves).
    pub(crate) pinned: Vec<PathBuf>,
    /// The git directories (top, submodules', worktrees'), watched for
    /// code parts a command creates.
    pub(crate) git_dirs: Vec<PathBuf>,
    /// Git configuration files shown without their `extraheader` lines.
    pub(crate) extraheader: Vec<PathBuf>,
    /// The directories whose entries were examined, with the protected
    /// entries they held (for the check after the run).
    pub(crate) examined: Vec<PathBuf>,
    /// Secret entries found inside the writable roots.
    pub(crate) secrets_in_roots: Vec<PathBuf>,
    /// Whether a listing of a writable root's directory stopped at its limit.
    pub(crate) scan_truncated: bool,
    /// Whether the network stays allowed (to any address: not under an
    /// egress allow-list, which goes through the proxy).
    pub(crate) network: bool,
    /// Paths no rule grants anything (the secrets Landlock keeps out).
    pub(crate) excluded: Vec<PathBuf>,
    /// Whether the home is hidden (but for the toolchain locations).
    pub(crate) home_hidden: bool,
}

/// The temp dirs of a command: the shared system one, and the computer's
/// private one when it has one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TempDirs<'a> {
    /// The system temp dir.
    pub(crate) shared: &'a Path,
    /// The computer's private temp dir.
    pub(crate) private: Option<&'a Path>,
}

/// The plan for `policy` with `workspace` as the command's workspace,
/// `home` for `~/` and the home-anchored classes, and `temps` as the temp
/// dirs (neither examined). `None` for full access.
pub(crate) fn plan(
    policy: &SandboxPolicy,
    options: &SandboxOptions,
    workspace: &Path,
    home: Option<&Path>,
    temps: TempDirs<'_>,
    cwd: &Path,
    namespaces: bool,
) -> Result<Option<Plan>> {
    let TempDirs {
        shared: temp,
        private: private_tmp,
    } = temps;
    let (roots, network) = match policy {
        SandboxPolicy::FullAccess => return Ok(None),
        SandboxPolicy::WorkspaceWrite { writable_roots, .. } => {
            let mut roots = vec![workspace.to_path_buf()];
            for root in writable_roots {
                if !root.is_absolute() {
                    return Err(Error::SandboxSetup {
                        path: root.clone(),
                        message: "a writable root must be an absolute path".to_owned(),
                    });
                }
                roots.push(root.clone());
            }
            // With a private /tmp (the namespace), the shared one is not a root.
            if !namespaces {
                roots.push(temp.to_path_buf());
            }
            (roots, policy.network())
        }
        SandboxPolicy::ReadOnly { .. } => (Vec::new(), policy.network()),
        other => {
            return Err(Error::SandboxSetup {
                path: workspace.to_path_buf(),
                message: format!(
                    "this runtime does not know the `{}` confinement",
                    other.name()
                ),
            });
        }
    };
    let classes = Classes::new(options, home)?;
    let mut secrets: Vec<PathBuf> = Vec::new();
    for path in classes.fixed_secrets() {
        if let Some(path) = canonical(&path) {
            push_unique(&mut secrets, path);
        }
    }
    let mut writable_roots = Vec::new();
    for root in &roots {
        match canonical(root) {
            Some(root) => push_unique(&mut writable_roots, root),
            // The workspace must exist; a host root or temp dir that does not is skipped.
            None if root == workspace => {
                return Err(Error::SandboxSetup {
                    path: root.clone(),
                    message: "the workspace does not exist".to_owned(),
                });
            }
            None => {}
        }
    }
    // The shared system temp dir and the computer's private one are not
    // examined: they are not the workspace, and what other programs or
    // earlier commands leave there is not the command's to judge (a
    // repository copied into the private `/tmp` is beneath the overlay's
    // own upper layer, which the namespace cannot mount over).
    let temps: Vec<PathBuf> = [Some(temp), private_tmp]
        .into_iter()
        .flatten()
        .filter_map(canonical)
        .collect();
    let examined_roots: Vec<PathBuf> = writable_roots
        .iter()
        .filter(|r| !temps.contains(r))
        .cloned()
        .collect();
    let cwd = canonical(cwd).unwrap_or_else(|| cwd.to_path_buf());
    let found = entries::find(&examined_roots, &cwd, &classes, options.scan_limit)?;
    for root in &found.git_roots {
        push_unique(&mut writable_roots, root.clone());
    }
    let read_only = found.protected;
    let scan_truncated = found.truncated;
    let mut secrets_in_roots = Vec::new();
    for entry in found.secret {
        push_unique(&mut secrets_in_roots, entry.clone());
        // The namespace masks plain files and directories by mounts;
        // Landlock keeps the rest (and everything without a namespace).
        let masked = namespaces
            && entry
                .symlink_metadata()
                .is_ok_and(|m| m.is_file() || m.is_dir());
        if !masked {
            push_unique(&mut secrets, entry);
        }
    }
    // The home, hidden but for the toolchain locations; its caches become
    // writable roots (not examined: they are not workspaces).
    let home_dir = home
        .filter(|_| options.hide_home)
        .and_then(canonical)
        .filter(|h| h != Path::new("/"));
    let mut hidden = secrets.clone();
    let mut readable_in_home = Vec::new();
    if let Some(home_dir) = &home_dir {
        hidden.push(home_dir.clone());
        for (path, writable) in home::locations(
            home_dir,
            options.toolchain_caches_writable,
            &options.home_readable,
            &options.home_caches,
        ) {
            if writable && !roots.is_empty() {
                push_unique(&mut writable_roots, path);
            } else {
                readable_in_home.push(path);
            }
        }
        // The workspace (and working directory) stay readable wherever they are.
        readable_in_home.push(canonical(workspace).unwrap_or_else(|| workspace.to_path_buf()));
        readable_in_home.push(cwd.clone());
    }
    let mut budget = MAX_ENTRIES;
    let mut read = Unique::default();
    let mut listed = Unique::default();
    decompose(
        Path::new("/"),
        &hidden,
        &mut read,
        Some(&mut listed),
        &mut budget,
    )?;
    for path in &readable_in_home {
        decompose(path, &secrets, &mut read, None, &mut budget)?;
    }
    let mut write = Unique::default();
    let mut excluded_from_write = secrets.clone();
    // With the namespace, protected entries are read-only mounts, so the
    // roots stay whole (new entries next to `.git` work); without it,
    // Landlock splits the roots around them. Protected symlinks are never
    // bound, so Landlock keeps them in both cases.
    excluded_from_write.extend(
        read_only
            .iter()
            .filter(|p| !namespaces || p.is_symlink())
            .cloned(),
    );
    for root in &writable_roots {
        decompose(root, &excluded_from_write, &mut write, None, &mut budget)?;
    }
    // CI tokens in the git configuration outside the git directories
    // found: the user's, the system's, and what any of them includes.
    let mut extraheader = found.extraheader;
    if namespaces {
        for config in git_token::with_extraheader(&found.git_dirs, home) {
            push_unique(&mut extraheader, config);
        }
    }
    let devices = DEVICES
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    Ok(Some(Plan {
        read: read.list,
        listed: listed.list,
        write: write.list,
        devices,
        writable_roots,
        read_only,
        empty_files: Vec::new(),
        pinned: found.pinned,
        git_dirs: found.git_dirs,
        extraheader,
        examined: found.dirs,
        secrets_in_roots,
        scan_truncated,
        network,
        excluded: secrets,
        home_hidden: home_dir.is_some(),
    }))
}

/// Adds rules granting `root` and everything beneath it, except the
/// `excluded` paths and what is beneath them; directories that had to be
/// split go to `split`, when given.
fn decompose(
    root: &Path,
    excluded: &[PathBuf],
    out: &mut Unique,
    mut split: Option<&mut Unique>,
    budget: &mut usize,
) -> Result<()> {
    if excluded.iter().any(|e| root.starts_with(e)) {
        return Ok(());
    }
    if !excluded.iter().any(|e| e.starts_with(root)) {
        out.push(root.to_path_buf());
        return Ok(());
    }
    if let Some(split) = split.as_deref_mut() {
        split.push(root.to_path_buf());
    }
    let entries = std::fs::read_dir(root).map_err(|e| Error::SandboxSetup {
        path: root.to_path_buf(),
        message: format!("cannot list it to exclude a path beneath it: {e}"),
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::SandboxSetup {
            path: root.to_path_buf(),
            message: format!("cannot list it to exclude a path beneath it: {e}"),
        })?;
        *budget = budget.checked_sub(1).ok_or_else(|| Error::SandboxSetup {
            path: root.to_path_buf(),
            message: format!(
                "more than {MAX_ENTRIES} entries lie on the way to the excluded paths; exclude fewer or narrower paths"
            ),
        })?;
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            decompose(&path, excluded, out, split.as_deref_mut(), budget)?;
        } else if !excluded.iter().any(|e| &path == e) {
            out.push(path);
        }
    }
    Ok(())
}

fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// A list of paths without repeats, in the order first pushed: the rules
/// of a plan run to hundreds (every entry of `/etc` beside a secret in
/// it), so membership is a set's, not a scan of the list.
#[derive(Debug, Default)]
struct Unique {
    list: Vec<PathBuf>,
    seen: std::collections::HashSet<PathBuf>,
}

impl Unique {
    fn push(&mut self, path: PathBuf) {
        if self.seen.insert(path.clone()) {
            self.list.push(path);
        }
    }
}

fn push_unique(list: &mut Vec<PathBuf>, path: PathBuf) {
    if !list.contains(&path) {
        list.push(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for d in ["ws/.git/hooks", "ws/src", "home/.ssh", "home/code"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join("ws/README.md"), "x").unwrap();
        std::fs::write(dir.path().join("ws/.envrc"), "x").unwrap();
        dir
    }

    #[test]
    fn full_access_has_no_plan() {
        let dir = tree();
        let plan = plan(
            &SandboxPolicy::FullAccess,
            &SandboxOptions::default(),
            dir.path(),
            None,
            TempDirs {
                shared: dir.path(),
                private: None,
            },
            dir.path(),
            false,
        )
        .unwrap();
        assert!(plan.is_none());
    }

    #[test]
    fn protected_entries_split_the_workspace_and_secrets_split_the_reads() {
        let dir = tree();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        let temp = root.join("home/code");
        let options = SandboxOptions {
            secret_paths: vec![PathBuf::from("~/.ssh")],
            hide_home: false,
            ..SandboxOptions::default()
        };
        let plan = plan(
            &SandboxPolicy::workspace_write(),
            &options,
            &ws,
            Some(&root.join("home")),
            TempDirs {
                shared: &temp,
                private: None,
            },
            &ws,
            false,
        )
        .unwrap()
        .unwrap();
        assert!(plan.write.contains(&ws.join("src")));
        assert!(plan.write.contains(&ws.join("README.md")));
        assert!(plan.write.contains(&temp));
        assert!(
            !plan
                .write
                .iter()
                .any(|p| p.starts_with(ws.join(".git/hooks")))
        );
        assert!(plan.write.contains(&ws.join(".git/HEAD")) || !ws.join(".git/HEAD").exists());
        assert!(
            !plan.write.contains(&ws),
            "the workspace top holds .git/hooks"
        );
        let mut read_only = plan.read_only.clone();
        read_only.sort();
        assert_eq!(read_only, vec![ws.join(".envrc"), ws.join(".git/hooks")]);
        assert_eq!(plan.pinned, vec![ws.join(".git")]);
        assert!(!plan.read.contains(&PathBuf::from("/")));
        assert!(plan.listed.contains(&PathBuf::from("/")));
        assert!(plan.listed.contains(&root.join("home")));
        assert!(plan.read.contains(&root.join("home/code")));
        assert!(
            !plan
                .read
                .iter()
                .any(|p| p.starts_with(root.join("home/.ssh")))
        );
    }

    #[test]
    fn a_workspace_without_protected_entries_is_one_rule() {
        let dir = tree();
        let ws = std::fs::canonicalize(dir.path().join("ws/src")).unwrap();
        let plan = plan(
            &SandboxPolicy::workspace_write(),
            &SandboxOptions::default(),
            &ws,
            None,
            TempDirs {
                shared: &ws,
                private: None,
            },
            &ws,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(plan.write, vec![ws]);
    }

    #[test]
    fn relative_roots_and_odd_protected_names_are_refused() {
        let dir = tree();
        let ws = dir.path().join("ws");
        let err = plan(
            &SandboxPolicy::workspace_write().with_writable_root("rel/dir"),
            &SandboxOptions::default(),
            &ws,
            None,
            TempDirs {
                shared: dir.path(),
                private: None,
            },
            dir.path(),
            false,
        )
        .unwrap_err();
        assert_eq!(err.code(), "sandbox_setup_failed");
        let options = SandboxOptions {
            protected_names: vec!["a/b".into()],
            ..SandboxOptions::default()
        };
        let err = plan(
            &SandboxPolicy::workspace_write(),
            &options,
            &ws,
            None,
            TempDirs {
                shared: dir.path(),
                private: None,
            },
            dir.path(),
            false,
        )
        .unwrap_err();
        assert!(err.to_string().contains("a/b"), "{err}");
    }

    #[test]
    fn read_only_has_no_writable_roots() {
        let dir = tree();
        let plan = plan(
            &SandboxPolicy::read_only(),
            &SandboxOptions::default(),
            dir.path(),
            None,
            TempDirs {
                shared: dir.path(),
                private: None,
            },
            dir.path(),
            false,
        )
        .unwrap()
        .unwrap();
        assert!(plan.write.is_empty());
        assert!(plan.writable_roots.is_empty());
        assert!(plan.devices.contains(&PathBuf::from("/dev/null")));
    }
}
