//! Linux: the private mount namespace of a confined command, planned in
//! the host and carried out in the child by
//! [`syscalls`](super::syscalls) before Landlock.
//!
//! Landlock only adds rights beneath a directory, so "the workspace is
//! writable except `.git`" cannot be one Landlock rule set: splitting the
//! workspace around `.git` closes its top to new entries. The namespace
//! does what Landlock cannot, and Landlock stays on top of it (a write
//! must pass both):
//!
//! 1. new user, mount and PID namespaces, as root too (the command keeps
//!    the host's uid and gid inside and drops every capability before
//!    `exec`), every mount made private;
//! 2. the writable roots and the computer's private temp dir cloned as
//!    they are (`open_tree`), then every mount made read-only
//!    (`mount_setattr`, recursive): outside the roots nothing can be
//!    written, chmod-ed or touched, whatever Landlock's ABI governs;
//! 3. `/tmp` replaced, so that a file a command writes to `/tmp` is not
//!    in the host's `/tmp`: by an overlay (lower layer the host's `/tmp`,
//!    read-only, so host paths under `/tmp` stay readable; upper layer
//!    `upper/` of the computer's private temp dir, shared by its commands)
//!    where the kernel allows one (probed once, mounted before the
//!    read-only pass, then made writable alone), else by the private temp
//!    dir itself, with the command's working directory under `/tmp` (when
//!    outside the roots) bound back read-only; then the writable roots
//!    moved back in place, writable. Landlock ignores rules on a directory
//!    a mount covers, so the child adds the overlay's rule itself (on its
//!    `/tmp` after the mount) before it restricts itself;
//! 4. every git directory found bound onto itself (pinned: it can be
//!    neither renamed nor removed), every protected entry found bound over
//!    itself read-only (`.git/config`, `.git/hooks`, `.envrc`…: a read-only
//!    mount point can be neither written, renamed nor removed), git
//!    configurations holding an `extraheader` replaced by a copy without
//!    it, and every secret entry found masked (an empty read-only regular
//!    file over a file, so that `git add -A` and archivers take it as an
//!    empty file; an empty read-only tmpfs over a directory);
//! 5. a fresh `/dev` (the few device files, a private `devpts` and
//!    `/dev/shm`) and a fresh `/proc` of the PID namespace; everything is
//!    `nosuid,nodev`.
//!
//! Mount-changing syscalls are then refused by Landlock and by the seccomp
//! filter, so the command cannot undo any of it.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::sandbox::child::Mounts;
use crate::sandbox::plan::Plan;

/// The mechanism's name when the namespace is used.
pub(crate) const MECHANISM: &str = "namespaces+landlock+seccomp";

fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| Error::SandboxSetup {
        path: path.to_path_buf(),
        message: "the path holds a NUL byte".to_owned(),
    })
}

/// Whether this machine lets a child make a private mount namespace (and a
/// user namespace when not root): probed once, by a child that tries.
pub(crate) fn available() -> std::result::Result<(), String> {
    static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            super::syscalls::probe_namespace(None, false).map_err(|e| {
                format!("cannot make private user, mount and PID namespaces here: {e}")
            })
        })
        .clone()
}

/// Whether a child in such namespaces can also make a network namespace
/// with loopback up and a listener on it (egress by name): probed once.
pub(crate) fn network_available() -> std::result::Result<(), String> {
    static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            available()?;
            super::syscalls::probe_namespace(None, true).map_err(|e| {
                format!("cannot make the network namespace egress by name needs here: {e}")
            })
        })
        .clone()
}

/// Whether a child in such a namespace can mount an overlay over `/tmp`
/// (lower: the host's `/tmp`; upper: a directory in the system temp dir):
/// probed once, by a child that tries with a scratch upper layer.
pub(crate) fn overlay_available() -> std::result::Result<(), String> {
    static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            available()?;
            let scratch = tempfile::Builder::new()
                .prefix("tool-sandbox-probe-")
                .tempdir()
                .map_err(|e| format!("cannot make a scratch dir for the overlay probe: {e}"))?;
            let options = overlay_options(scratch.path())
                .map_err(|e| e.to_string())?
                .ok_or_else(|| {
                    "the system temp dir's path cannot be given to an overlay".to_owned()
                })?;
            let probed = super::syscalls::probe_namespace(Some(options), false)
                .map_err(|e| format!("cannot mount an overlay over /tmp here: {e}"));
            super::make_removable(scratch.path());
            probed
        })
        .clone()
}

/// The overlay's mount options with its layers in `dir` (`upper/`,
/// `work/`, created here), or `None` when the path holds a character
/// the option syntax reserves (a comma, a colon, a backslash, `=`).
fn overlay_options(dir: &Path) -> Result<Option<CString>> {
    let text = dir.to_string_lossy();
    if dir.to_str().is_none() || text.contains([',', ':', '\\', '=']) {
        return Ok(None);
    }
    for layer in ["upper", "work"] {
        let path = dir.join(layer);
        std::fs::create_dir_all(&path).map_err(|e| Error::SandboxSetup {
            path: path.clone(),
            message: format!("cannot create the private /tmp's {layer} layer: {e}"),
        })?;
    }
    // `index=off`: concurrent commands of one computer share the upper
    // layer, which an index would refuse (EBUSY).
    // `userxattr`: the overlay is mounted inside the user namespace.
    let options =
        format!("lowerdir=/tmp,upperdir={text}/upper,workdir={text}/work,index=off,userxattr");
    c_path(Path::new(&options)).map(Some)
}

/// The namespace of a command whose plan is `plan`; `private_tmp` is the
/// computer's temp dir (moved over `/tmp`).
/// With `overlay`, the host's `/tmp` stays readable beneath an overlay
/// whose upper layer is in the private temp dir; without it, the private
/// temp dir replaces `/tmp` and `cwd`, when it lies there outside the
/// roots, is bound back read-only.
pub(crate) fn mounts(
    plan: &Plan,
    private_tmp: Option<&Path>,
    cwd: &Path,
    overlay: bool,
) -> Result<Mounts> {
    let uid = super::syscalls::ids();
    let tmp = Path::new("/tmp");
    let private_tmp = private_tmp.and_then(|p| std::fs::canonicalize(p).ok());
    let tmp_overlay = match (&private_tmp, overlay) {
        (Some(dir), true) => overlay_options(dir)?,
        _ => None,
    };
    let mut outside_tmp = Vec::new();
    let mut under_tmp: Vec<PathBuf> = Vec::new();
    for root in &plan.writable_roots {
        if Some(root) == private_tmp.as_ref() {
            continue;
        }
        if private_tmp.is_some() && root.starts_with(tmp) {
            if root != tmp {
                under_tmp.push(root.clone());
            }
        } else {
            outside_tmp.push(root.clone());
        }
    }
    under_tmp.sort_by_key(|p| p.components().count());
    // Without the overlay, the working directory under /tmp would vanish
    // behind the private /tmp: bind it back, read-only.
    let cwd_real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let tmp_read: Vec<PathBuf> = if tmp_overlay.is_none()
        && private_tmp.is_some()
        && cwd_real.starts_with(tmp)
        && cwd_real != tmp
        && !plan.writable_roots.iter().any(|r| cwd_real.starts_with(r))
    {
        vec![cwd_real.clone()]
    } else {
        Vec::new()
    };
    let mut mkdirs: Vec<PathBuf> = Vec::new();
    for root in under_tmp.iter().chain(&tmp_read) {
        let mut dir = tmp.to_path_buf();
        if let Ok(rest) = root.strip_prefix(tmp) {
            for part in rest.components() {
                dir.push(part);
                if !mkdirs.contains(&dir) {
                    mkdirs.push(dir.clone());
                }
            }
        }
    }
    let roots: Vec<PathBuf> = outside_tmp.into_iter().chain(under_tmp).collect();
    // Under the overlay the host's /tmp is readable, and with it the
    // private temp dirs of every computer of this user (their upper
    // layers: what other computers' commands wrote to their /tmp). Each
    // is masked, this computer's own too (its commands see its upper
    // layer as /tmp itself), but one holding a writable root or the
    // working directory.
    let other_hosts = if tmp_overlay.is_some() {
        host_dirs_in_tmp()
            .into_iter()
            .filter(|dir| {
                !plan.writable_roots.iter().any(|r| r.starts_with(dir))
                    && !cwd_real.starts_with(dir)
            })
            .map(|dir| c_path(&dir))
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let (mut secret_files, mut secret_dirs) = (Vec::new(), Vec::new());
    for secret in &plan.secrets_in_roots {
        match secret.symlink_metadata() {
            Ok(meta) if meta.is_dir() => secret_dirs.push(c_path(secret)?),
            Ok(meta) if meta.is_file() => secret_files.push(c_path(secret)?),
            // A symlink or a special file: Landlock keeps it (the plan
            // excludes it when the namespace is not used); skip here.
            _ => {}
        }
    }
    // Git configurations with a CI token: a copy without it, in the
    // private temp dir, is bound over each.
    let mut replacements = Vec::new();
    if let Some(dir) = &private_tmp {
        for (n, config) in plan.extraheader.iter().enumerate() {
            let text = std::fs::read(config).map_err(|e| Error::SandboxSetup {
                path: config.clone(),
                message: format!("cannot read it to withhold its extraheader: {e}"),
            })?;
            let kept = super::entries::without_extraheader(&String::from_utf8_lossy(&text));
            let copy = dir.join(format!("gitconfig-{}-{n}", std::process::id()));
            std::fs::write(&copy, kept).map_err(|e| Error::SandboxSetup {
                path: copy.clone(),
                message: format!("cannot write the git configuration without extraheader: {e}"),
            })?;
            replacements.push((c_path(&copy)?, c_path(config)?));
        }
    }
    let empty_files: std::collections::HashSet<&Path> =
        plan.empty_files.iter().map(PathBuf::as_path).collect();
    let protected = plan
        .read_only
        .iter()
        .filter(|p| {
            !p.is_symlink() && !plan.extraheader.contains(p) && !empty_files.contains(p.as_path())
        })
        .map(|p| c_path(p))
        .collect::<Result<_>>()?;
    Ok(Mounts {
        uid_map: format!("{0} {0} 1", uid.0).into_bytes(),
        gid_map: format!("{0} {0} 1", uid.1).into_bytes(),
        private_tmp: private_tmp.as_deref().map(c_path).transpose()?,
        tmp_overlay,
        tmp_read: tmp_read.iter().map(|p| c_path(p)).collect::<Result<_>>()?,
        roots: roots.iter().map(|p| c_path(p)).collect::<Result<_>>()?,
        mkdirs: mkdirs.iter().map(|p| c_path(p)).collect::<Result<_>>()?,
        pinned: plan
            .pinned
            .iter()
            .map(|p| c_path(p))
            .collect::<Result<_>>()?,
        protected,
        replacements,
        devices: plan
            .devices
            .iter()
            .filter(|p| p.starts_with("/dev"))
            .map(|p| c_path(p))
            .collect::<Result<_>>()?,
        secret_files,
        secret_dirs,
        empty_files: plan
            .empty_files
            .iter()
            .map(|p| c_path(p))
            .collect::<Result<_>>()?,
        pid_max: None,
        other_hosts,
        cwd: c_path(cwd)?,
    })
}

/// The computers' private temp dirs (and stand-in registries) in the
/// host's `/tmp`, when that is the system temp dir: folders named
/// [`HOST_DIR_PREFIX`](super::HOST_DIR_PREFIX)`*`, at most the first
/// 10 000 entries looked at.
fn host_dirs_in_tmp() -> Vec<PathBuf> {
    let tmp = Path::new("/tmp");
    if std::fs::canonicalize(std::env::temp_dir()).ok().as_deref() != Some(tmp) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(10_000)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(super::HOST_DIR_PREFIX)
                && e.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|e| e.path())
        .collect()
}
