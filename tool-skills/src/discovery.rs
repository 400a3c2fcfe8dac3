//! Finding skill folders under a source folder: bounded, sorted, with a
//! hidden-folder rule and an explicit symbolic-link policy.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::finding::{Finding, FindingCode, Severity};

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// What discovery does with symbolic links (to folders and to `SKILL.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SymlinkPolicy {
    /// Never follow a link (each skipped link is an `info` finding).
    Skip,
    /// Follow a link only when its target is inside the source folder
    /// (the default); a link leaving it is skipped with a warning.
    #[default]
    WithinRoot,
    /// Follow every link (loops are still detected). A skill reached this
    /// way is confined to its target folder.
    Follow,
}

/// Bounds and rules of a discovery walk.
///
/// Defaults: depth 6 below the source folder, 4 000 folders, 2 000 skills,
/// hidden folders (`.git`, `.cache`…) and `node_modules` skipped, symbolic
/// links followed only inside the source folder.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoveryOptions {
    /// How many folder levels below the source folder are searched.
    pub max_depth: usize,
    /// How many folders are visited at most.
    pub max_dirs: usize,
    /// How many skills are found at most.
    pub max_skills: usize,
    /// Whether folders whose name starts with `.` are searched.
    pub include_hidden: bool,
    /// Folder names never searched.
    pub skip_dirs: Vec<String>,
    /// What to do with symbolic links.
    pub symlinks: SymlinkPolicy,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            max_depth: 6,
            max_dirs: 4_000,
            max_skills: 2_000,
            include_hidden: false,
            skip_dirs: vec!["node_modules".into()],
            symlinks: SymlinkPolicy::WithinRoot,
        }
    }
}

/// A skill folder found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FoundSkill {
    /// The folder, canonical.
    pub dir: PathBuf,
    /// Its `SKILL.md` (inside `dir`, canonical folder + file name).
    pub file: PathBuf,
    /// The folder's name as it appears in its parent (a link's own name).
    pub folder_name: String,
    /// Whether the file's name is `SKILL.md` only ignoring case (`skill.md`).
    pub misnamed: bool,
}

struct Walk<'a> {
    options: &'a DiscoveryOptions,
    root: PathBuf,
    found: Vec<FoundSkill>,
    findings: Vec<Finding>,
    visited: HashSet<PathBuf>,
    dirs: usize,
    depth_reported: bool,
    stopped: bool,
}

/// Walks `root` and returns the skill folders in sorted order, with the
/// findings of the walk. `root` itself may be a skill folder.
pub(crate) fn discover(root: &Path, options: &DiscoveryOptions) -> (Vec<FoundSkill>, Vec<Finding>) {
    let canonical = match fs::canonicalize(root) {
        Ok(path) if path.is_dir() => path,
        Ok(_) => {
            return (
                Vec::new(),
                vec![Finding::new(
                    FindingCode::SourceNotFound,
                    Severity::Error,
                    root.display().to_string(),
                    None,
                    "the skills source is not a folder",
                )],
            );
        }
        Err(error) => {
            return (
                Vec::new(),
                vec![Finding::new(
                    FindingCode::SourceNotFound,
                    Severity::Error,
                    root.display().to_string(),
                    None,
                    format!("the skills source cannot be opened: {error}"),
                )],
            );
        }
    };
    let mut walk = Walk {
        options,
        root: canonical.clone(),
        found: Vec::new(),
        findings: Vec::new(),
        visited: HashSet::new(),
        dirs: 0,
        depth_reported: false,
        stopped: false,
    };
    let name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    walk.visit(&canonical, name, 0);
    (walk.found, walk.findings)
}

impl Walk<'_> {
    fn note(&mut self, code: FindingCode, severity: Severity, path: &Path, message: String) {
        self.findings.push(Finding::new(
            code,
            severity,
            path.display().to_string(),
            None,
            message,
        ));
    }

    fn limit(&mut self, path: &Path, message: String) {
        self.stopped = true;
        self.note(
            FindingCode::DiscoveryLimit,
            Severity::Warning,
            path,
            message,
        );
    }

    /// Visits a folder (already resolved to its canonical path).
    fn visit(&mut self, dir: &Path, folder_name: String, depth: usize) {
        if self.stopped || !self.visited.insert(dir.to_path_buf()) {
            return;
        }
        self.dirs += 1;
        if self.dirs > self.options.max_dirs {
            let max = self.options.max_dirs;
            self.limit(
                dir,
                format!("stopped after visiting {max} folders (max_dirs)"),
            );
            return;
        }
        match self.skill_file(dir) {
            SkillFile::Found(file) => return self.found(dir, file, folder_name, false),
            SkillFile::Broken => return,
            SkillFile::Absent => {}
        }
        if depth >= self.options.max_depth {
            if !self.depth_reported {
                self.depth_reported = true;
                let max = self.options.max_depth;
                self.note(
                    FindingCode::DiscoveryLimit,
                    Severity::Warning,
                    dir,
                    format!("folders deeper than {max} levels are not searched (max_depth)"),
                );
            }
            return;
        }
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                self.note(
                    FindingCode::IoError,
                    Severity::Warning,
                    dir,
                    format!("cannot list the folder: {error}"),
                );
                return;
            }
        };
        let mut children: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        children.sort();
        // No `SKILL.md`, but `skill.md` (or another case): a skill file
        // written in the wrong case, reported where it is loaded.
        if let Some((_, path)) = children.iter().find(|(name, path)| {
            name.eq_ignore_ascii_case(SKILL_FILE)
                && fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        }) {
            let path = path.clone();
            return self.found(dir, path, folder_name, true);
        }
        for (name, path) in children {
            if self.stopped {
                return;
            }
            if (name.starts_with('.') && !self.options.include_hidden)
                || self.options.skip_dirs.contains(&name)
            {
                continue;
            }
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                self.visit(&path, name, depth + 1);
            } else if meta.file_type().is_symlink()
                && let Some(target) = self.follow(&path)
                && target.is_dir()
            {
                self.visit(&target, name, depth + 1);
            }
        }
    }

    /// Records a skill folder, within the `max_skills` bound.
    fn found(&mut self, dir: &Path, file: PathBuf, folder_name: String, misnamed: bool) {
        if self.found.len() >= self.options.max_skills {
            let max = self.options.max_skills;
            self.limit(
                dir,
                format!("stopped after finding {max} skills (max_skills)"),
            );
            return;
        }
        self.found.push(FoundSkill {
            dir: dir.to_path_buf(),
            file,
            folder_name,
            misnamed,
        });
    }

    /// The canonical target of a link when the policy allows following it.
    fn follow(&mut self, link: &Path) -> Option<PathBuf> {
        match self.options.symlinks {
            SymlinkPolicy::Skip => {
                self.note(
                    FindingCode::SymlinkSkipped,
                    Severity::Info,
                    link,
                    "symbolic link not followed (policy: skip)".into(),
                );
                None
            }
            policy => match fs::canonicalize(link) {
                Ok(target) if policy == SymlinkPolicy::Follow || target.starts_with(&self.root) => {
                    Some(target)
                }
                Ok(target) => {
                    self.note(
                        FindingCode::SymlinkSkipped,
                        Severity::Warning,
                        link,
                        format!(
                            "symbolic link to {} leaves the source folder; not followed (policy: within root)",
                            target.display()
                        ),
                    );
                    None
                }
                Err(error) => {
                    self.note(
                        FindingCode::SymlinkSkipped,
                        Severity::Warning,
                        link,
                        format!("symbolic link cannot be resolved: {error}"),
                    );
                    None
                }
            },
        }
    }

    /// The folder's `SKILL.md` if it has one the policy accepts; `Broken`
    /// (with a finding) when it is a folder or a special file.
    fn skill_file(&mut self, dir: &Path) -> SkillFile {
        let file = dir.join(SKILL_FILE);
        let Ok(meta) = fs::symlink_metadata(&file) else {
            return SkillFile::Absent;
        };
        if meta.is_file() {
            return SkillFile::Found(file);
        }
        if !meta.file_type().is_symlink() {
            let what = if meta.is_dir() {
                "a folder"
            } else {
                "a special file"
            };
            self.not_a_file(&file, what);
            return SkillFile::Broken;
        }
        let Some(target) = self.follow(&file) else {
            return SkillFile::Absent;
        };
        if !target.is_file() {
            let what = if target.is_dir() {
                "a link to a folder"
            } else {
                "a link to a special file"
            };
            self.not_a_file(&file, what);
            return SkillFile::Broken;
        }
        if self.options.symlinks == SymlinkPolicy::Follow || target.starts_with(dir) {
            return SkillFile::Found(file);
        }
        self.note(
            FindingCode::SymlinkSkipped,
            Severity::Warning,
            &file,
            "SKILL.md links outside its skill folder; not followed".into(),
        );
        SkillFile::Absent
    }

    fn not_a_file(&mut self, file: &Path, what: &str) {
        self.note(
            FindingCode::SkillFileNotAFile,
            Severity::Error,
            file,
            format!(
                "SKILL.md is {what}, not a file: the folder is not loaded as a skill and not searched further"
            ),
        );
    }
}

/// What a folder's `SKILL.md` is.
enum SkillFile {
    /// A file (or a link to one the policy follows).
    Found(PathBuf),
    /// A folder, a special file, or a link to one (reported).
    Broken,
    /// Not there (or a link not followed).
    Absent,
}
