//! The protected and secret entries of a command's writable roots, found
//! without walking the workspace: the cost of a confined command does not
//! grow with the number of files it holds.
//!
//! Looked at, for each writable root:
//!
//! 1. the entries of the root itself and of every directory on the way
//!    from the root down to the command's working directory (one listing
//!    each, at most [`SandboxOptions::scan_limit`](super::SandboxOptions)
//!    entries), classified by [`Classes`];
//! 2. in each of those directories, the fixed multi-component names of the
//!    classes (`.github/workflows`, `.cargo/config.toml`, …), one `lstat`
//!    each;
//! 3. every git directory met (`.git`, or the directory a `.git` file
//!    names, with its `commondir`, its `modules/…` and `worktrees/…`): its
//!    [code parts](super::classes::GIT_CODE_PARTS) are protected, the rest
//!    stays writable, and the directory itself is pinned (a mount point
//!    can be neither renamed nor removed), with its `worktrees/` and
//!    `modules/` folders, each worktree's and module's git dir and the
//!    folders on the way to one. A git directory outside the
//!    roots that a worktree or a submodule uses becomes writable too, so
//!    git works there as in the main repository;
//! 4. nested repositories: the `.git` entries one and two folders below
//!    each root's top ([`nested_git`], bounded, never inside package or
//!    build trees, remembered between commands while it holds) and those
//!    of the submodules a `.gitmodules` beside a `.git` names, handled as
//!    in 3;
//! 5. an existing project `.cargo` ([`READ_ONLY_FOLDERS`]): read-only
//!    whole.
//!
//! A protected entry that is a symlink is protected at its target when the
//! target lies in a writable root (outside them everything is read-only
//! anyway); a dangling one is refused with
//! [`Error::ProtectedSymlink`](crate::Error::ProtectedSymlink), since the
//! command could create its target.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tool_core::approval::{PathClass, PathRole};

use crate::error::{Error, Result};
use crate::sandbox::classes::{Classes, GIT_CODE_PARTS};
use crate::sandbox::nested::nested_git;

/// Directories examined at most beneath a git directory's `modules/`.
const MAX_MODULE_DIRS: usize = 2_000;

/// Submodule paths read at most from one `.gitmodules`.
const MAX_SUBMODULES: usize = 256;

/// Folders kept read-only whole where they exist at a place examined:
/// the protected files they may hold cannot be held by a stand-in while
/// missing, and no ordinary command writes anything else there. `(name,
/// why)`; each protected file of theirs must be in a protected
/// [`PathClass`] (checked by the module's tests).
pub(crate) const READ_ONLY_FOLDERS: &[(&str, &str)] = &[(
    ".cargo",
    "cargo runs what `.cargo/config.toml` or `.cargo/config` names (a runner, a wrapper, a linker) and prefers `config` when both exist, so a stand-in at either name would change what it reads (a folder there stops it); cargo never writes in a project's `.cargo`",
)];

/// Whether `path` is the home's (or `CARGO_HOME`'s) tool folder rather than
/// a project's: its caches are writable roots of their own, so it is never
/// made read-only whole.
fn is_tool_home(path: &Path, home: Option<&Path>) -> bool {
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from);
    let home_cargo = home.map(|h| h.join(".cargo"));
    [cargo_home, home_cargo]
        .into_iter()
        .flatten()
        .any(|p| p == path || std::fs::canonicalize(&p).is_ok_and(|c| c == path))
}

/// The paths of the submodules a work tree's `.gitmodules` names
/// (`path = …`), relative ones without `..` only, at most
/// [`MAX_SUBMODULES`].
pub(crate) fn submodule_paths(work_tree: &Path) -> Vec<PathBuf> {
    let mut text = String::new();
    let Ok(file) = std::fs::File::open(work_tree.join(".gitmodules")) else {
        return Vec::new();
    };
    if file.take(256 * 1024).read_to_string(&mut text).is_err() {
        return Vec::new();
    }
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case("path")
                .then(|| value.trim())
        })
        .map(|v| PathBuf::from(v.trim_matches('"')))
        .filter(|p| {
            p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
                && p.components().next().is_some()
        })
        .take(MAX_SUBMODULES)
        .map(|p| work_tree.join(p))
        .collect()
}

/// What the roots hold that the sandbox must treat apart.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Entries {
    /// Entries kept read-only (with everything beneath them).
    pub(crate) protected: Vec<PathBuf>,
    /// Git directories pinned in place (bound onto themselves, writable),
    /// with the `modules/` and `worktrees/` folders on the way to theirs.
    pub(crate) pinned: Vec<PathBuf>,
    /// The git directories themselves (top, submodules', worktrees'),
    /// whose missing code parts the check after the run looks for.
    pub(crate) git_dirs: Vec<PathBuf>,
    /// Secret entries, masked.
    pub(crate) secret: Vec<PathBuf>,
    /// Git directories outside the roots that a worktree or submodule of
    /// a root uses: writable like a root, their code parts read-only.
    pub(crate) git_roots: Vec<PathBuf>,
    /// Git configuration files that hold an `http.*.extraheader` (a CI
    /// token): the command sees them without those lines.
    pub(crate) extraheader: Vec<PathBuf>,
    /// The directories whose entries were examined (for the check after
    /// the run).
    pub(crate) dirs: Vec<PathBuf>,
    /// Whether a listing stopped at its limit.
    pub(crate) truncated: bool,
}

/// The class patterns of one role that name a fixed place relative to any
/// directory and span more than one component (`.github/workflows`).
pub(crate) fn multi_component(role: PathRole) -> &'static [&'static str] {
    static PROTECTED: OnceLock<Vec<&'static str>> = OnceLock::new();
    static SECRET: OnceLock<Vec<&'static str>> = OnceLock::new();
    let cell = if role == PathRole::Secret {
        &SECRET
    } else {
        &PROTECTED
    };
    cell.get_or_init(|| {
        PathClass::of_role(role)
            .flat_map(|c| c.patterns.iter().copied())
            .filter(|p| !p.starts_with('/') && !p.starts_with("~/"))
            .filter(|p| p.contains('/') && !p.contains('*'))
            .collect()
    })
}

/// The directories examined for `root`: the root, then each directory on
/// the way down to `cwd` when it lies beneath the root.
pub(crate) fn dirs_of(root: &Path, cwd: &Path, classes: &Classes) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    if let Ok(rest) = cwd.strip_prefix(root) {
        let mut dir = root.to_path_buf();
        for part in rest.components() {
            dir.push(part);
            let kinds = classes.kinds(&dir);
            if kinds.protected || kinds.secret {
                break;
            }
            dirs.push(dir.clone());
        }
    }
    dirs
}

/// Finds the entries of `roots` (canonical) for a command working in
/// `cwd` (canonical).
pub(crate) fn find(
    roots: &[PathBuf],
    cwd: &Path,
    classes: &Classes,
    limit: usize,
) -> Result<Entries> {
    let mut finder = Finder {
        roots,
        classes,
        out: Entries::default(),
        seen_git: HashSet::new(),
        seen_sub: HashSet::new(),
    };
    for root in roots {
        for dir in dirs_of(root, cwd, classes) {
            finder.dir(&dir, limit)?;
            finder.out.dirs.push(dir);
        }
        // Repositories nested deeper than the places examined: two
        // folders deep, and the submodules `.gitmodules` names.
        let (nested, truncated) = nested_git(root);
        finder.out.truncated |= truncated;
        for git in nested {
            finder.git_entry(&git)?;
        }
    }
    Ok(finder.out)
}

struct Finder<'a> {
    roots: &'a [PathBuf],
    classes: &'a Classes,
    out: Entries,
    seen_git: HashSet<PathBuf>,
    /// Submodules' `.git` entries already followed.
    seen_sub: HashSet<PathBuf>,
}

impl Finder<'_> {
    fn in_roots(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
    }

    fn dir(&mut self, dir: &Path, limit: usize) -> Result<()> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for (n, entry) in entries.flatten().enumerate() {
            if n >= limit {
                self.out.truncated = true;
                break;
            }
            let path = entry.path();
            if entry.file_name().eq_ignore_ascii_case(".git") {
                self.git_entry(&path)?;
                continue;
            }
            let kinds = self.classes.kinds(&path);
            if kinds.protected {
                self.protected(&path)?;
            } else if kinds.secret {
                push_unique(&mut self.out.secret, path);
            }
        }
        for (name, _) in READ_ONLY_FOLDERS {
            let path = dir.join(name);
            let meta = path.symlink_metadata();
            // A folder, or a symlink (kept at its target, or refused when
            // dangling, like any protected entry); a file is no folder.
            if meta.is_ok_and(|m| !m.is_file()) && !is_tool_home(&path, self.classes.home()) {
                self.protected(&path)?;
            }
        }
        for rel in multi_component(PathRole::Protected) {
            let path = dir.join(rel);
            if path.symlink_metadata().is_ok() && self.classes.kinds(&path).protected {
                self.protected(&path)?;
            }
        }
        for rel in multi_component(PathRole::Secret) {
            let path = dir.join(rel);
            if path.symlink_metadata().is_ok() && self.classes.kinds(&path).secret {
                push_unique(&mut self.out.secret, path);
            }
        }
        Ok(())
    }

    /// A protected entry: kept read-only, at its target when a symlink.
    fn protected(&mut self, path: &Path) -> Result<()> {
        let Ok(meta) = path.symlink_metadata() else {
            return Ok(());
        };
        if !meta.file_type().is_symlink() {
            push_unique(&mut self.out.protected, path.to_path_buf());
            return Ok(());
        }
        match std::fs::canonicalize(path) {
            Ok(target) if self.in_roots(&target) => {
                push_unique(&mut self.out.protected, target);
                Ok(())
            }
            // Outside the roots everything is read-only already.
            Ok(_) => Ok(()),
            Err(_) => Err(Error::ProtectedSymlink {
                path: path.to_path_buf(),
                target: std::fs::read_link(path).unwrap_or_default(),
            }),
        }
    }

    /// A `.git` entry: a directory, or a file naming the git directory.
    fn git_entry(&mut self, path: &Path) -> Result<()> {
        let Ok(meta) = path.symlink_metadata() else {
            return Ok(());
        };
        if let Some(work_tree) = path.parent() {
            for sub in submodule_paths(work_tree) {
                let git = sub.join(".git");
                if sub.starts_with(work_tree) && git != path && self.seen_sub.insert(git.clone()) {
                    self.git_entry(&git)?;
                }
            }
        }
        if meta.is_dir() {
            return self.git_dir(path);
        }
        // A `.git` file (worktree, submodule) or a symlink: the entry
        // itself is read-only, the git directory it names is followed.
        self.protected(path)?;
        let target = if meta.file_type().is_symlink() {
            std::fs::canonicalize(path).ok()
        } else {
            read_pointer(path, "gitdir:")
        };
        match target {
            Some(dir) if dir.is_dir() => self.git_dir(&dir),
            _ => Ok(()),
        }
    }

    /// A git directory: pinned, its code parts read-only, its modules,
    /// worktrees and common directory followed.
    fn git_dir(&mut self, dir: &Path) -> Result<()> {
        let Ok(dir) = std::fs::canonicalize(dir) else {
            return Ok(());
        };
        if !self.seen_git.insert(dir.clone()) {
            return Ok(());
        }
        if !self.in_roots(&dir) {
            push_unique(&mut self.out.git_roots, dir.clone());
        }
        push_unique(&mut self.out.pinned, dir.clone());
        push_unique(&mut self.out.git_dirs, dir.clone());
        self.code_parts(&dir)?;
        let common = dir.join("commondir");
        if let Some(common) = read_pointer(&common, "") {
            self.git_dir(&common)?;
        }
        let worktrees = dir.join("worktrees");
        if let Ok(entries) = std::fs::read_dir(&worktrees) {
            // Pinned with each worktree's git dir: renamed away, either
            // would let a command put a git dir of its own making (its
            // config, its `commondir`) where the worktree's `.git` points.
            self.pin(&worktrees);
            for wt in entries.flatten() {
                if wt.file_type().is_ok_and(|t| t.is_dir()) {
                    self.pin(&wt.path());
                    push_unique(&mut self.out.git_dirs, wt.path());
                    self.code_parts(&wt.path())?;
                }
            }
        }
        let mut budget = MAX_MODULE_DIRS;
        self.modules(&dir.join("modules"), &mut budget)
    }

    /// Submodules' git directories beneath `modules/` (names may hold
    /// `/`): every directory holding a `HEAD` is one.
    /// Each folder on the way (`modules/`, `modules/libs/`) and each
    /// module's git dir is pinned: renamed away, it would let a command
    /// put a git dir of its own making where the submodule's `.git`
    /// points.
    fn modules(&mut self, dir: &Path, budget: &mut usize) -> Result<()> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        self.pin(dir);
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Some(left) = budget.checked_sub(1) else {
                self.out.truncated = true;
                return Ok(());
            };
            *budget = left;
            let path = entry.path();
            if path.join("HEAD").is_file() {
                self.pin(&path);
                push_unique(&mut self.out.git_dirs, path.clone());
                self.code_parts(&path)?;
                self.modules(&path.join("modules"), budget)?;
            } else {
                self.modules(&path, budget)?;
            }
        }
        Ok(())
    }

    /// Pins a folder of a git directory in place (a real folder only: a
    /// symlink there is not followed).
    fn pin(&mut self, dir: &Path) {
        if dir.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            push_unique(&mut self.out.pinned, dir.to_path_buf());
        }
    }

    fn code_parts(&mut self, dir: &Path) -> Result<()> {
        for part in GIT_CODE_PARTS {
            let path = dir.join(part);
            if path.symlink_metadata().is_ok() {
                self.protected(&path)?;
                if part == "config" && has_extraheader(&path) {
                    push_unique(&mut self.out.extraheader, path);
                }
            }
        }
        Ok(())
    }
}

/// The path a pointer file names (`gitdir: ../x`, or a bare path for
/// `commondir`), resolved against the file's directory.
pub(crate) fn read_pointer(file: &Path, prefix: &str) -> Option<PathBuf> {
    let mut text = String::new();
    std::fs::File::open(file)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let target = text.trim().strip_prefix(prefix)?.trim();
    if target.is_empty() {
        return None;
    }
    let target = file.parent()?.join(target);
    std::fs::canonicalize(target).ok()
}

/// Whether a git configuration file sets an `extraheader` (any section).
fn has_extraheader(config: &Path) -> bool {
    std::fs::read(config).is_ok_and(|bytes| {
        String::from_utf8_lossy(&bytes)
            .lines()
            .any(is_extraheader_line)
    })
}

/// Whether one line of a git configuration file sets `extraheader`.
pub(crate) fn is_extraheader_line(line: &str) -> bool {
    let key = line
        .trim_start()
        .split(['=', ' ', '\t'])
        .next()
        .unwrap_or("");
    key.eq_ignore_ascii_case("extraheader")
}

/// The text of a git configuration file without its `extraheader` lines
/// (and their continuation lines).
pub(crate) fn without_extraheader(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if skipping {
            skipping = line.trim_end().ends_with('\\');
            continue;
        }
        if is_extraheader_line(line) {
            skipping = line.trim_end().ends_with('\\');
            continue;
        }
        out.push_str(line);
    }
    out
}

fn push_unique(list: &mut Vec<PathBuf>, path: PathBuf) {
    if !list.contains(&path) {
        list.push(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::SandboxOptions;

    fn write(root: &Path, rel: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    #[test]
    fn the_top_and_the_way_to_the_cwd_are_examined_and_nothing_deeper() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for rel in [
            ".git/config",
            ".git/hooks/pre-commit.sample",
            ".git/info/exclude",
            ".git/HEAD",
            ".git/modules/lib/sub/HEAD",
            ".git/modules/lib/sub/config",
            ".envrc",
            ".env",
            ".github/workflows/ci.yml",
            "app/.env.local",
            "app/src/.envrc",
            "deep/a/b/.envrc",
        ] {
            write(&root, rel);
        }
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let found = find(
            std::slice::from_ref(&root),
            &root.join("app/src"),
            &classes,
            1000,
        )
        .unwrap();
        let mut protected = found.protected.clone();
        protected.sort();
        assert_eq!(
            protected,
            vec![
                root.join(".envrc"),
                root.join(".git/config"),
                root.join(".git/hooks"),
                root.join(".git/info"),
                root.join(".git/modules/lib/sub/config"),
                root.join(".github/workflows"),
                root.join("app/src/.envrc"),
            ]
        );
        // The git dir, each folder on the way to a module, the module.
        assert_eq!(
            found.pinned,
            vec![
                root.join(".git"),
                root.join(".git/modules"),
                root.join(".git/modules/lib"),
                root.join(".git/modules/lib/sub"),
            ]
        );
        assert_eq!(
            found.git_dirs,
            vec![root.join(".git"), root.join(".git/modules/lib/sub")]
        );
        let mut secret = found.secret.clone();
        secret.sort();
        assert_eq!(secret, vec![root.join(".env"), root.join("app/.env.local")]);
        assert_eq!(
            found.dirs,
            vec![root.clone(), root.join("app"), root.join("app/src")]
        );
    }

    #[test]
    fn a_worktree_pointer_brings_its_git_dirs_and_a_dangling_symlink_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let main = base.join("main/.git");
        write(&main, "config");
        write(&main, "HEAD");
        write(&main, "worktrees/wt/HEAD");
        std::fs::write(main.join("worktrees/wt/commondir"), "../..\n").unwrap();
        std::fs::write(main.join("worktrees/wt/gitdir"), "x\n").unwrap();
        let wt = base.join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join("worktrees/wt").display()),
        )
        .unwrap();
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let found = find(std::slice::from_ref(&wt), &wt, &classes, 100).unwrap();
        assert!(found.git_roots.contains(&main.join("worktrees/wt")));
        assert!(found.git_roots.contains(&main));
        for p in [main.join("worktrees"), main.join("worktrees/wt")] {
            assert!(found.pinned.contains(&p), "{p:?} pinned in {found:?}");
        }
        assert!(found.git_dirs.contains(&main.join("worktrees/wt")));
        assert!(!found.git_dirs.contains(&main.join("worktrees")));
        for p in [
            wt.join(".git"),
            main.join("config"),
            main.join("worktrees/wt/commondir"),
            main.join("worktrees/wt/gitdir"),
        ] {
            assert!(found.protected.contains(&p), "{p:?} in {found:?}");
        }
        std::os::unix::fs::symlink(base.join("nowhere"), wt.join(".vscode")).unwrap();
        let err = find(std::slice::from_ref(&wt), &wt, &classes, 100).unwrap_err();
        assert_eq!(err.code().as_str(), "protected_symlink");
    }

    #[test]
    fn an_existing_cargo_folder_is_read_only_whole_but_not_the_homes() {
        for (name, why) in READ_ONLY_FOLDERS {
            assert!(!why.is_empty());
            let prefix = format!("{name}/");
            assert!(
                multi_component(PathRole::Protected)
                    .iter()
                    .any(|p| p.starts_with(&prefix)),
                "{name} holds no protected name"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        write(&root, "ws/.cargo/audit.toml");
        write(&root, "home/.cargo/registry/x");
        let home = root.join("home");
        let classes = Classes::new(&SandboxOptions::default(), Some(&home)).unwrap();
        let ws = root.join("ws");
        let found = find(std::slice::from_ref(&ws), &ws, &classes, 100).unwrap();
        assert_eq!(found.protected, vec![ws.join(".cargo")]);
        let found = find(std::slice::from_ref(&home), &home, &classes, 100).unwrap();
        assert!(found.protected.is_empty(), "{found:?}");
    }

    #[test]
    fn extraheader_lines_are_dropped_and_the_rest_kept() {
        let text = "[core]\n\tbare = false\n[http \"https://git.example/\"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n\tsslVerify = true\n[http]\n\tExtraHeader=X: y \\\n  continued\n";
        let kept = without_extraheader(text);
        assert!(!kept.to_ascii_lowercase().contains("extraheader"), "{kept}");
        assert!(!kept.contains("c2VjcmV0") && !kept.contains("continued"));
        assert!(kept.contains("sslVerify = true") && kept.contains("bare = false"));
    }
}
