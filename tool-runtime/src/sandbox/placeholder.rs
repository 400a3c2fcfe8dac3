//! Protected entries that do not exist yet, refused up front: while a
//! confined command (with its own mount namespace) runs, each missing name
//! of [`PLACEHOLDERS`] (folders) and [`FILE_PLACEHOLDERS`] (files) in the
//! places examined (a root's top and the way to the working directory)
//! gets an empty folder in its place, which the namespace binds read-only
//! like any protected entry. The command can neither create the name nor
//! anything in it, write, remove or rename it (`EISDIR`, `EROFS`,
//! `EBUSY`), so nothing needs sweeping afterwards.
//!
//! The first missing component of a name is what is made: `.github/workflows`
//! in a workspace without `.github` makes `.github` (so nothing can be
//! created beneath `.github` during that command), with one it makes
//! `.github/workflows`. Only folders are made, for file names too: a
//! folder holding only a `.gitignore` that ignores everything is what git
//! (in the host and in the command: `git add -A` does not pick it up,
//! `git stash -u` and `git clean -d` leave it) and the programs reading
//! these names take for "nothing here" or skip (`pytest` looks for a
//! regular `conftest.py`);
//! an empty file would not be harmless (an empty `rust-toolchain.toml` or
//! JSON settings file breaks the tools that read it, and git lists and
//! commits it). The folder table holds only names whose readers inside
//! a command cope with a folder (checked with the real programs: rustup
//! for `rust-toolchain.toml`, npm for `.npmrc`); `.cargo/config.toml`
//! gets a stand-in `.cargo` only where there is no `.cargo` (an existing
//! `.cargo` is read-only whole: the private `entries` module).
//!
//! The names whose readers fail on a folder (`.yarnrc`, `.pnpmfile.cjs`,
//! `lefthook.yaml`, `.lintstagedrc.json`…: [`EMPTY_FILE_PLACEHOLDERS`],
//! with what each makes run) get an empty-file stand-in instead (unless
//! [`SandboxOptions::file_stand_ins`](crate::SandboxOptions::file_stand_ins)
//! is off): a socket in the host (git lists no socket; a program in the
//! host reading it fails at once, `ENXIO`), over which the command's
//! namespace binds an empty read-only regular file (the one that masks
//! secret files). Inside, the name reads as an empty file (`stat` says
//! regular, size 0, mode 0444), a write to it fails (`EROFS`; an append
//! `EACCES`, by the mode), and it can neither be removed, renamed,
//! replaced nor have its mode changed (`EBUSY`, `EROFS`); `cp -a` and
//! `tar` copy it as an empty file. Git in the command skips it too: git
//! takes an entry's type from its directory entry, which still says
//! socket (`git add -A` leaves it; `git add .yarnrc` by name would add an
//! empty file). What no fixed name covers (a pattern's other names:
//! `*.code-workspace`, `.huskyrc.yaml`…) is still moved out after the run
//! when a command creates it, and reported (`protectedCreated`).
//!
//! The stand-ins appear in the host's workspace while the command runs
//! and are removed (a folder if still empty but for its `.gitignore`, a
//! socket if still the one made) once no command has used them for two
//! seconds, or when the computer is dropped, or when a command whose
//! places do not include them starts beneath the same root (so that it
//! meets no socket in a copy or an archive; a socket stand-in another
//! running command uses is bound in that command too, as an empty file).
//! Those of a host that died are removed by the next host: the folders by
//! its first confined run there (their `.gitignore` names their host: the
//! private `stand_in_owner` module), the sockets when it makes its first
//! computer (the dead host's registry lists them: the private
//! `stand_in_registry` module).
//! Removing one costs
//! milliseconds (the kernel detaches the mount points the ended command's
//! namespace had on it), so commands that follow each other share them.
//! Commands of one host process share them by a count; a stand-in is
//! never removed while a command uses it (removing a mount point in the
//! host detaches the mount in every namespace). Each is made with `mkdirat` in a
//! handle of its parent reached from the root without following symlinks,
//! so a concurrent command cannot redirect it outside the workspace.

use std::collections::HashMap;
use std::os::fd::AsFd as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use nix::sys::stat::{Mode, mkdirat};

use crate::sandbox::classes::Classes;
use crate::sandbox::stand_in_owner::Maker;
use crate::sandbox::stand_in_registry::Record;

/// Protected names whose absence gets an empty read-only folder while a
/// confined command runs: the folders an editor, CI, a hook manager or an
/// agent starts programs from. Each stand-in is one more mount per
/// command; the protected folders left out (`.mvn`: maven takes the
/// nearest folder holding one for the project's root; `gradle/wrapper`,
/// `.config/husky`: a stand-in would be a `gradle` or `.config` folder in
/// every workspace) are protected when they exist and swept when a
/// command creates them. Each must be protected by a
/// [`tool_core::approval::PathClass`] (checked by the module's tests).
pub(crate) const PLACEHOLDERS: &[&str] = &[
    // VS Code runs a folder-open task from `.vscode/tasks.json`.
    ".vscode",
    ".devcontainer",
    ".github/workflows",
    ".github/actions",
    ".husky",
    ".githooks",
    ".claude/hooks",
    // Editors run the tasks, language servers and run configurations
    // these name when the folder is opened.
    ".idea",
    ".zed",
    ".fleet",
    // CI runs these with the repository's credentials on the next push.
    ".gitlab",
    ".circleci",
    ".buildkite",
    ".azure-pipelines",
    ".woodpecker",
];

/// The code folders of a git directory (`.git`, a real folder) that get a
/// stand-in when missing: git makes them at `git init`, so an empty one
/// is what git expects; without it a command could add a hook.
pub(crate) const GIT_PLACEHOLDERS: &[&str] = &[".git/hooks", ".git/info"];

/// Protected file names whose absence gets an empty read-only folder while
/// a confined command runs: the files that make a program start something
/// on its own (a shell entering the folder, an agent, a commit hook
/// manager, a test runner, CI, an editor), and that no program a command
/// usually runs reads (or it skips a folder there). Each must be protected
/// by a [`tool_core::approval::PathClass`] (checked by the module's tests); each is
/// one more mount per command.
pub(crate) const FILE_PLACEHOLDERS: &[&str] = &[
    // direnv runs it when a shell enters the folder.
    ".envrc",
    // Agents start the MCP servers it names.
    ".mcp.json",
    // pytest imports it before any test (it looks for a regular file).
    "conftest.py",
    // Hook managers run what these name on the next commit.
    ".pre-commit-config.yaml",
    "lefthook.yml",
    // CI runs these with the repository's credentials on the next push.
    ".gitlab-ci.yml",
    "Jenkinsfile",
    // Editors start what these name when the folder is opened.
    ".devcontainer.json",
    ".exrc",
    ".nvim.lua",
    // rustup starts the toolchain these name (a `path` toolchain is any
    // program); it reads a folder there as "no file" (`cargo`, `rustc` and
    // `rustup show` work beside the stand-in).
    "rust-toolchain.toml",
    "rust-toolchain",
    // npm runs what its `script-shell`, `node-options` or `git` settings
    // name; it reads a folder there as "no file" (`npm config`, `npm
    // install` work beside the stand-in).
    ".npmrc",
];

/// Protected names whose stand-in is made only when their first component
/// is missing: the reader fails on a folder at the name itself (cargo
/// stops on a folder `.cargo/config.toml`) but not on an empty folder in
/// place of the first component (no `.cargo` at all: cargo looks
/// further up). An existing `.cargo` is read-only whole (the private
/// `entries` module's `READ_ONLY_FOLDERS`).
pub(crate) const OUTER_PLACEHOLDERS: &[&str] = &[
    // cargo runs the `runner`, `rustc-wrapper` or linker it names.
    ".cargo/config.toml",
];

/// Protected file names whose absence gets a stand-in that reads as an
/// empty file, because the programs reading them fail on a folder there
/// (`EISDIR`) and an empty regular file would be listed and committed by
/// git: in the host a socket (git lists no socket; a reader in the host
/// gets `ENXIO` at once), over which the command's namespace binds an
/// empty regular file read-only. The command reads an empty file, its
/// writes to it fail (`EROFS`), and it can neither remove, rename nor
/// replace the name (`EBUSY`); git in the command skips it (its directory
/// entry says socket: `git add -A` leaves it). When a folder on the way is missing (`.cursor/mcp.json`
/// without `.cursor`), that folder gets a folder stand-in instead. `(name,
/// what runs)`; each must be protected by a [`tool_core::approval::PathClass`]
/// (checked by the module's tests); each is one more mount per command.
pub(crate) const EMPTY_FILE_PLACEHOLDERS: &[(&str, &str)] = &[
    (
        ".yarnrc",
        "yarn 1 runs its `yarn-path`; it reads the name in every folder up to `/`",
    ),
    (".yarnrc.yml", "yarn 2+ runs its `yarnPath` and plugins"),
    (".pnpmfile.cjs", "pnpm runs it at every install"),
    ("bunfig.toml", "bun runs its `preload` scripts"),
    (
        "mise.toml",
        "mise runs its hooks and tasks on entering the folder",
    ),
    (".mise.toml", "mise, as `mise.toml`"),
    (".bazelrc", "bazel runs the tools and wrappers it names"),
    ("lefthook.yaml", "lefthook runs it on the next commit"),
    (".lefthook.yml", "lefthook, as `lefthook.yaml`"),
    ("lefthook-local.yml", "lefthook, as `lefthook.yaml`"),
    ("lefthook-local.yaml", "lefthook, as `lefthook.yaml`"),
    (
        ".overcommit.yml",
        "overcommit runs its hooks on the next commit",
    ),
    (
        ".huskyrc",
        "husky 4 runs the hooks it names on the next commit",
    ),
    (".huskyrc.json", "husky 4, as `.huskyrc`"),
    (".huskyrc.js", "husky 4, as `.huskyrc`"),
    (
        ".lintstagedrc",
        "lint-staged runs its commands on the next commit",
    ),
    (".lintstagedrc.json", "lint-staged, as `.lintstagedrc`"),
    (".lintstagedrc.yaml", "lint-staged, as `.lintstagedrc`"),
    (".lintstagedrc.yml", "lint-staged, as `.lintstagedrc`"),
    (".lintstagedrc.js", "lint-staged, as `.lintstagedrc`"),
    (".lintstagedrc.cjs", "lint-staged, as `.lintstagedrc`"),
    (".lintstagedrc.mjs", "lint-staged, as `.lintstagedrc`"),
    ("lint-staged.config.js", "lint-staged, as `.lintstagedrc`"),
    ("lint-staged.config.cjs", "lint-staged, as `.lintstagedrc`"),
    ("lint-staged.config.mjs", "lint-staged, as `.lintstagedrc`"),
    (
        ".env.sh",
        "a shell's folder loader runs it on entering the folder",
    ),
    (".autoenv", "autoenv runs it on entering the folder"),
    (".autoenv.zsh", "autoenv, as `.autoenv`"),
    (
        ".nvimrc",
        "neovim (`exrc`) runs it when started in the folder",
    ),
    (".lvimrc", "vim's localvimrc runs it"),
    (
        ".dir-locals.el",
        "emacs evaluates it when a file of the folder is opened",
    ),
    (".dir-locals-2.el", "emacs, as `.dir-locals.el`"),
    ("opencode.json", "opencode starts the MCP servers it names"),
    (".crush.json", "crush starts the MCP servers it names"),
    (".aider.conf.yml", "aider runs its lint and test commands"),
    (".cursor/mcp.json", "Cursor starts the MCP servers it names"),
    (
        ".claude/settings.json",
        "Claude Code runs its hooks and MCP servers",
    ),
    (
        ".claude/settings.local.json",
        "Claude Code, as `.claude/settings.json`",
    ),
    (
        ".gemini/settings.json",
        "Gemini CLI starts the MCP servers it names",
    ),
    (
        ".codex/config.toml",
        "Codex starts the MCP servers it names",
    ),
    (".pip/pip.conf", "pip installs from the index it names"),
    (
        "pip.conf",
        "pip (in a virtual environment's folder) installs from the index it names",
    ),
    (
        ".travis.yml",
        "CI runs it with the repository's credentials on the next push",
    ),
    ("azure-pipelines.yml", "CI, as `.travis.yml`"),
    ("bitbucket-pipelines.yml", "CI, as `.travis.yml`"),
    (".woodpecker.yml", "CI, as `.travis.yml`"),
    (".drone.yml", "CI, as `.travis.yml`"),
];

/// The `.gitignore` of every stand-in: git (in the host and in the
/// command) lists nothing of it, and `git clean -d` (which `git stash -u`
/// runs) leaves it alone instead of failing on a folder it cannot remove.
/// It names the host that made it (the private `stand_in_owner` module),
/// so that the next host removes it when this one died before it could;
/// this text only where `/proc` cannot say who this host is.
const IGNORE_ALL: &[u8] = b"# A sandbox stand-in for a protected name: git ignores it.\n*\n";

/// The `.gitignore` text of this process's stand-ins.
fn ignore_text() -> &'static [u8] {
    static TEXT: OnceLock<Vec<u8>> = OnceLock::new();
    TEXT.get_or_init(|| match Maker::this_process() {
        Some(me) => me.ignore_text().into_bytes(),
        None => IGNORE_ALL.to_vec(),
    })
}

/// Removes, once per folder examined and host process, the stand-ins a
/// dead host left in `dir` (see the private `stand_in_owner` module).
fn remove_dead_hosts_stand_ins(root: &Path, dir: &Path) {
    static SWEPT: OnceLock<Mutex<std::collections::HashSet<PathBuf>>> = OnceLock::new();
    let first = SWEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(dir.to_path_buf());
    if first {
        let names: Vec<&str> = PLACEHOLDERS
            .iter()
            .chain(GIT_PLACEHOLDERS)
            .chain(FILE_PLACEHOLDERS)
            .chain(OUTER_PLACEHOLDERS)
            .copied()
            .chain(EMPTY_FILE_PLACEHOLDERS.iter().map(|(name, _)| *name))
            .collect();
        crate::sandbox::stand_in_owner::remove_dead(root, dir, &names);
    }
}

/// How long a stand-in no command uses stays before it is removed: a
/// removal costs milliseconds (the kernel detaches the mount points the
/// ended command's namespace had on it), so commands that follow each
/// other share one instead of paying it each time.
const IDLE: std::time::Duration = std::time::Duration::from_secs(2);

/// A stand-in: what it is, how many commands use it, since when none
/// does.
#[derive(Debug)]
struct Standing {
    kind: Kind,
    users: usize,
    idle_since: Option<std::time::Instant>,
    /// A socket's device and inode, as the registry lists it (the private
    /// `stand_in_registry` module).
    record: Option<Record>,
}

/// What a stand-in is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An empty folder (but for its `.gitignore`), bound read-only.
    Folder,
    /// A socket in the host, an empty read-only regular file in the
    /// command.
    EmptyFile,
}

/// The stand-ins this process made and has not removed yet.
fn active() -> MutexGuard<'static, HashMap<PathBuf, Standing>> {
    static ACTIVE: OnceLock<Mutex<HashMap<PathBuf, Standing>>> = OnceLock::new();
    ACTIVE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Removes the stand-ins no command has used for `idle` (deepest first;
/// only empty ones: anything the host put there stays, and is no longer
/// a stand-in). Returns how many are left.
fn remove_idle(idle: std::time::Duration) -> usize {
    let mut active = active();
    let idle_paths: Vec<PathBuf> = active
        .iter()
        .filter(|(_, s)| s.users == 0 && s.idle_since.is_some_and(|t| t.elapsed() >= idle))
        .map(|(p, _)| p.clone())
        .collect();
    if remove_paths(&mut active, idle_paths) {
        register(&active);
    }
    active.len()
}

/// Removes the stand-ins at `paths` (deepest first; only while each is
/// still what was made here: anything else is the host's) and forgets
/// them. Returns whether a socket was among them.
fn remove_paths(active: &mut HashMap<PathBuf, Standing>, mut paths: Vec<PathBuf>) -> bool {
    paths.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    let mut sockets_changed = false;
    for path in paths {
        let Some(standing) = active.remove(&path) else {
            continue;
        };
        if standing.kind == Kind::EmptyFile {
            if standing.record.is_some_and(|r| r.still_at(&path)) {
                let _ = std::fs::remove_file(&path);
            }
            sockets_changed = true;
            continue;
        }
        // Its ignore file first, while it is still the one made here.
        let ignore = path.join(".gitignore");
        if std::fs::read(&ignore).is_ok_and(|text| text == ignore_text()) {
            let _ = std::fs::remove_file(&ignore);
        }
        if let Err(e) = std::fs::remove_dir(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!(path = %path.display(), error = %e, "stand-in kept");
        }
    }
    sockets_changed
}

/// The stand-ins beneath `roots` that the command `claimed` is for does not
/// use itself (made for a command in another folder): the idle ones are
/// removed now, so that the command sees nothing of them (a copy or an
/// archive of the folder would meet a socket); the socket stand-ins another
/// running command uses are shared, so that the command sees them as empty
/// files too. Returns whether the sockets changed.
fn settle_others(
    active: &mut HashMap<PathBuf, Standing>,
    roots: &[PathBuf],
    claimed: &mut Claimed,
) -> bool {
    let mut idle = Vec::new();
    for (path, standing) in active.iter_mut() {
        let own = claimed.paths.contains(path) || claimed.files.contains(path);
        if own || !roots.iter().any(|r| path.starts_with(r)) {
            continue;
        }
        if standing.users == 0 {
            idle.push(path.clone());
        } else if standing.kind == Kind::EmptyFile {
            standing.users += 1;
            claimed.files.push(path.clone());
        }
    }
    remove_paths(active, idle)
}

/// Lists this host's socket stand-ins in its registry (removed when there
/// are none), so that a host coming after it removes those it leaves if it
/// dies (the private `stand_in_registry` module).
fn register(active: &HashMap<PathBuf, Standing>) {
    let mut records: Vec<&Record> = active.values().filter_map(|s| s.record.as_ref()).collect();
    records.sort();
    crate::sandbox::stand_in_registry::set(&records);
}

/// Removes the socket stand-ins the registry `dir` of a host that is gone
/// lists (only sockets, only at the names of
/// [`EMPTY_FILE_PLACEHOLDERS`], only the very ones recorded).
pub(crate) fn remove_dead_hosts_sockets(dir: &Path) -> usize {
    let names: Vec<&str> = EMPTY_FILE_PLACEHOLDERS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    crate::sandbox::stand_in_registry::remove_dead(dir, &names)
}

/// Whether `path` is a stand-in made here and not removed yet, still of
/// its kind (a folder, a socket): the sweep of a command that started
/// before it was made must leave it to the commands using it.
pub(crate) fn holds(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    let Some(kind) = active().get(path).map(|s| s.kind) else {
        return false;
    };
    path.symlink_metadata().is_ok_and(|m| match kind {
        Kind::Folder => m.is_dir(),
        Kind::EmptyFile => m.file_type().is_socket(),
    })
}

/// Removes every stand-in no command uses now (a computer being dropped).
pub(crate) fn remove_unused() {
    remove_idle(std::time::Duration::ZERO);
}

/// Starts (once) the thread that removes stand-ins idle for [`IDLE`].
fn start_janitor() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("sandbox-stand-ins".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(IDLE / 2);
                    remove_idle(IDLE);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread to remove idle stand-ins");
        }
    });
}

/// The stand-ins one command uses; released when dropped.
#[derive(Debug, Default)]
pub(crate) struct Claimed {
    paths: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl Claimed {
    /// The folders, for the plan's read-only entries.
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The sockets standing in for files, for `/dev/null` over each.
    pub(crate) fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

impl Drop for Claimed {
    fn drop(&mut self) {
        if self.paths.is_empty() && self.files.is_empty() {
            return;
        }
        let mut active = active();
        for path in self.paths.iter().chain(&self.files) {
            if let Some(standing) = active.get_mut(path) {
                standing.users = standing.users.saturating_sub(1);
                if standing.users == 0 {
                    standing.idle_since = Some(std::time::Instant::now());
                }
            }
        }
        drop(active);
        start_janitor();
    }
}

/// Whether `path` is a socket (not followed).
fn is_socket(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_socket())
}

/// The first component of `name` missing beneath `dir`, as a path, when
/// every component before it is a real folder (no symlink, no file).
fn first_missing(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut path = dir.to_path_buf();
    for part in Path::new(name).components() {
        let Component::Normal(part) = part else {
            return None;
        };
        path.push(part);
        match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return None,
            Err(_) => return Some(path),
        }
    }
    None
}

/// Makes (or shares) the stand-ins of the places examined for each of
/// `roots` (canonical) with `cwd` (canonical) as the working directory.
/// With `file_stand_ins` off, the names of [`EMPTY_FILE_PLACEHOLDERS`] get
/// none (they are swept after the run instead).
pub(crate) fn claim(
    roots: &[PathBuf],
    cwd: &Path,
    classes: &Classes,
    file_stand_ins: bool,
) -> Claimed {
    let mut claimed = Claimed::default();
    let mut active = active();
    let mut sockets_made = false;
    for root in roots {
        for dir in crate::sandbox::entries::dirs_of(root, cwd, classes) {
            remove_dead_hosts_stand_ins(root, &dir);
            let git = dir
                .join(".git")
                .symlink_metadata()
                .is_ok_and(|m| m.is_dir());
            let git_names = GIT_PLACEHOLDERS.iter().filter(|_| git);
            let folders = PLACEHOLDERS
                .iter()
                .chain(git_names)
                .chain(FILE_PLACEHOLDERS)
                .chain(OUTER_PLACEHOLDERS)
                .map(|name| (*name, false));
            let files = EMPTY_FILE_PLACEHOLDERS
                .iter()
                .filter(|_| file_stand_ins)
                .map(|(name, _)| (*name, true));
            for (name, empty_file) in folders.chain(files) {
                let full = dir.join(name);
                // Inside a stand-in already claimed: covered by it.
                if claimed.paths.iter().any(|p| full.starts_with(p)) {
                    continue;
                }
                // At or inside a stand-in another command uses: share it,
                // never make anything in it (nor remove it under that
                // command: removing a mount point in the host detaches the
                // mount in every namespace).
                let shared = full
                    .ancestors()
                    .take_while(|a| *a != dir)
                    .find(|a| active.contains_key(*a))
                    .map(Path::to_path_buf);
                if let Some(shared) = shared {
                    if let Some(standing) = active.get_mut(&shared) {
                        standing.users += 1;
                        standing.idle_since = None;
                        match standing.kind {
                            Kind::Folder => claimed.paths.push(shared),
                            Kind::EmptyFile => claimed.files.push(shared),
                        }
                    }
                    continue;
                }
                let Some(path) = first_missing(&dir, name) else {
                    // A socket already there that is not this host's (a
                    // stand-in of another host, or of one that died and
                    // is not swept yet): an empty file over it too, so
                    // that a copy or an archive of the folder meets none.
                    let real = full
                        .parent()
                        .is_some_and(|p| std::fs::canonicalize(p).ok().as_deref() == Some(p));
                    if empty_file && real && is_socket(&full) && !claimed.files.contains(&full) {
                        claimed.files.push(full);
                    }
                    continue;
                };
                if OUTER_PLACEHOLDERS.contains(&name) && path.parent() != Some(dir.as_path()) {
                    continue;
                }
                // The name itself, for a file whose readers fail on a
                // folder: an empty file; a folder on the way: a folder.
                let kind = if empty_file && path == full {
                    Kind::EmptyFile
                } else {
                    Kind::Folder
                };
                let made = match kind {
                    Kind::Folder => make(root, &path),
                    Kind::EmptyFile => make_socket(root, &path),
                };
                if made.is_ok() {
                    let record = match kind {
                        Kind::Folder => None,
                        Kind::EmptyFile => {
                            sockets_made = true;
                            Record::of(root, &path)
                        }
                    };
                    active.insert(
                        path.clone(),
                        Standing {
                            kind,
                            users: 1,
                            idle_since: None,
                            record,
                        },
                    );
                    match kind {
                        Kind::Folder => claimed.paths.push(path),
                        Kind::EmptyFile => claimed.files.push(path),
                    }
                }
            }
        }
    }
    let others_changed = settle_others(&mut active, roots, &mut claimed);
    if sockets_made || others_changed {
        register(&active);
    }
    claimed
}

/// A socket made with `mknodat` at `path`'s last component in its parent,
/// reached from `root` without following symlinks: the host's side of an
/// empty-file stand-in.
fn make_socket(root: &Path, path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent"));
    };
    let dir = crate::beneath::open_dir(root, parent, false)?;
    nix::sys::stat::mknodat(
        dir.as_fd(),
        name,
        nix::sys::stat::SFlag::S_IFSOCK,
        Mode::from_bits_truncate(0o444),
        0,
    )?;
    Ok(())
}

/// `mkdirat` of `path`'s last component in its parent, reached from
/// `root` without following symlinks.
fn make(root: &Path, path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent"));
    };
    let dir = crate::beneath::open_dir(root, parent, false)?;
    mkdirat(dir.as_fd(), name, Mode::from_bits_truncate(0o755))?;
    let ignored = (|| -> std::io::Result<()> {
        use nix::fcntl::OFlag;
        let made = nix::fcntl::openat(
            dir.as_fd(),
            name,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let ignore = nix::fcntl::openat(
            made.as_fd(),
            ".gitignore",
            OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_WRONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o644),
        )?;
        std::io::Write::write_all(&mut std::fs::File::from(ignore), ignore_text())
    })();
    if let Err(e) = ignored {
        // Not a stand-in then: nothing of it is left.
        let _ = std::fs::remove_file(path.join(".gitignore"));
        let _ = nix::unistd::unlinkat(dir.as_fd(), name, nix::unistd::UnlinkatFlags::RemoveDir);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxOptions;

    #[test]
    fn every_placeholder_names_a_protected_entry() {
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        for (name, why) in EMPTY_FILE_PLACEHOLDERS {
            assert!(!why.is_empty(), "{name}: no reason");
            assert!(
                !FILE_PLACEHOLDERS.contains(name),
                "{name}: in both file tables"
            );
        }
        let empty_files = EMPTY_FILE_PLACEHOLDERS.iter().map(|(name, _)| name);
        for name in FILE_PLACEHOLDERS.iter().chain(empty_files) {
            let probe = Path::new("/ws").join(name);
            assert!(
                classes.protected(&probe).is_some(),
                "{name} is not protected"
            );
        }
        for name in PLACEHOLDERS
            .iter()
            .chain(GIT_PLACEHOLDERS)
            .chain(OUTER_PLACEHOLDERS)
        {
            let probe = Path::new("/ws").join(name).join("x");
            assert!(
                classes.protected(&probe).is_some(),
                "{name} is not protected"
            );
        }
    }

    #[test]
    fn placeholders_are_made_shared_and_removed_by_the_last_user() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join(".github")).unwrap();
        std::fs::write(root.join(".husky"), "a file: not a folder, left alone").unwrap();
        let classes = Classes::new(&SandboxOptions::default(), None).unwrap();
        let first = claim(std::slice::from_ref(&root), &root, &classes, true);
        assert!(first.paths().contains(&root.join(".vscode")));
        assert!(first.paths().contains(&root.join(".github/workflows")));
        assert!(!first.paths().contains(&root.join(".claude/hooks")));
        // Nothing made inside a stand-in of its own.
        std::fs::create_dir(root.join("sub")).unwrap();
        let nested = claim(
            std::slice::from_ref(&root),
            &root.join("sub"),
            &classes,
            true,
        );
        assert!(nested.paths().contains(&root.join("sub/.github")));
        assert!(!nested.paths().contains(&root.join("sub/.github/actions")));
        drop(nested);
        remove_unused();
        assert!(!root.join("sub/.github").exists());
        assert!(first.paths().contains(&root.join(".claude")));
        assert!(
            !first
                .paths()
                .iter()
                .any(|p| p.starts_with(root.join(".husky")))
        );
        assert!(root.join(".vscode").is_dir());
        assert!(root.join(".envrc").is_dir(), "a file name held by a folder");
        {
            use std::os::unix::fs::FileTypeExt as _;
            let yarnrc = root.join(".yarnrc").symlink_metadata().unwrap();
            assert!(yarnrc.file_type().is_socket(), "an empty-file stand-in");
            assert!(first.files().contains(&root.join(".yarnrc")));
            // A missing folder on the way gets a folder.
            assert!(first.paths().contains(&root.join(".cursor")));
            assert!(
                !first
                    .files()
                    .iter()
                    .any(|p| p.starts_with(root.join(".cursor")))
            );
        }
        assert!(first.paths().contains(&root.join(".cargo")));
        // With a `.cargo` of its own, no folder at `.cargo/config.toml`
        // (cargo would stop on it).
        std::fs::create_dir(root.join("own")).unwrap();
        std::fs::create_dir(root.join("own/.cargo")).unwrap();
        let own = claim(
            std::slice::from_ref(&root),
            &root.join("own"),
            &classes,
            true,
        );
        assert!(
            !own.paths()
                .iter()
                .any(|p| p.starts_with(root.join("own/.cargo")))
        );
        drop(own);
        assert!(
            !first.paths().contains(&root.join(".git")),
            "no .git stand-in: git init must work"
        );
        let second = claim(std::slice::from_ref(&root), &root, &classes, true);
        assert_eq!(first.paths(), second.paths());
        drop(first);
        remove_unused();
        assert!(root.join(".vscode").is_dir(), "still used by the second");
        drop(second);
        assert!(
            root.join(".vscode").is_dir(),
            "kept while idle, for the next"
        );
        remove_unused();
        assert!(!root.join(".vscode").exists());
        assert!(!root.join(".envrc").exists());
        assert!(root.join(".yarnrc").symlink_metadata().is_err());
        assert!(!root.join(".github/workflows").exists());
        assert!(root.join(".github").is_dir(), "what existed stays");
        assert!(root.join(".husky").is_file());
    }
}
