//! Which host made a stand-in folder, so that the stand-ins of a host that
//! died (killed during a command, or within the two seconds before its
//! stand-ins are removed) do not stay in the user's workspace forever.
//!
//! The `.gitignore` of each stand-in folder (see the private `placeholder`
//! module) names its maker: the host's process id, the time that process
//! started (clock ticks since boot, from `/proc/PID/stat`: a reused pid
//! has another start time), its PID namespace and the boot it ran in. The
//! first time a host makes stand-ins in a folder, it removes from the
//! names of the stand-in tables there each folder that
//!
//! - holds exactly one entry, a regular `.gitignore` whose text is a
//!   stand-in's with a maker written in it, byte for byte,
//! - whose maker is dead: another boot, or no process with that pid and
//!   start time in the same PID namespace (a maker in another PID
//!   namespace cannot be judged from here: its folder is left),
//!
//! walking from the workspace root's handle without following symlinks.
//! A folder with anything else in it, or with any other `.gitignore`, is
//! never touched; no command of a dead host can still use one (the
//! command's namespace dies with its host: `PR_SET_PDEATHSIG`).
//!
//! The empty-file stand-ins (sockets) carry no maker: a host lists its
//! own in a registry beside its private temp dirs instead, and the next
//! host removes a dead one's (the private `stand_in_registry` module).

use std::os::fd::AsFd as _;
use std::path::{Component, Path};
use std::sync::OnceLock;

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;
use nix::unistd::{UnlinkatFlags, unlinkat};

/// The first line of every stand-in's `.gitignore`.
const HEAD: &str = "# A sandbox stand-in for a protected name: git ignores it.\n";

/// Who made a stand-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Maker {
    boot: String,
    pid_ns: String,
    pid: u32,
    started: u64,
}

impl Maker {
    /// This process, when `/proc` says who it is.
    pub(crate) fn this_process() -> Option<&'static Maker> {
        static ME: OnceLock<Option<Maker>> = OnceLock::new();
        ME.get_or_init(|| {
            let pid = std::process::id();
            Some(Maker {
                boot: boot_id()?,
                pid_ns: pid_ns(Path::new("/proc/self"))?,
                pid,
                started: started(pid)?,
            })
        })
        .as_ref()
    }

    /// The `.gitignore` text of a stand-in this maker makes.
    pub(crate) fn ignore_text(&self) -> String {
        format!(
            "{HEAD}# made by host {} started {} in {} boot {}\n*\n",
            self.pid, self.started, self.pid_ns, self.boot
        )
    }

    /// The maker written in a stand-in's `.gitignore` text, when the text
    /// is exactly what [`Maker::ignore_text`] writes.
    fn parse(text: &str) -> Option<Maker> {
        let line = text.strip_prefix(HEAD)?.strip_suffix("\n*\n")?;
        let mut words = line.strip_prefix("# made by host ")?.split(' ');
        let pid = words.next()?.parse().ok()?;
        let started = (words.next()? == "started")
            .then(|| words.next()?.parse().ok())
            .flatten()?;
        let pid_ns = (words.next()? == "in").then(|| words.next())??.to_owned();
        let boot = (words.next()? == "boot").then(|| words.next())??.to_owned();
        let maker = Maker {
            boot,
            pid_ns,
            pid,
            started,
        };
        (words.next().is_none() && maker.ignore_text() == text).then_some(maker)
    }

    /// Whether this maker is certainly gone, judged by `me`.
    fn dead(&self, me: &Maker) -> bool {
        if self.boot != me.boot {
            return true;
        }
        if self.pid_ns != me.pid_ns {
            return false;
        }
        started(self.pid) != Some(self.started)
    }
}

fn boot_id() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = text.trim();
    (!id.is_empty() && !id.contains(char::is_whitespace)).then(|| id.to_owned())
}

fn pid_ns(proc_dir: &Path) -> Option<String> {
    let link = std::fs::read_link(proc_dir.join("ns/pid")).ok()?;
    let text = link.to_str()?;
    (!text.contains(char::is_whitespace)).then(|| text.to_owned())
}

/// When process `pid` started (field 22 of `/proc/PID/stat`).
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Removes, beneath `dir` (canonical, beneath `root`), the stand-in
/// folders of dead makers at each component of each of `names`. Returns
/// how many were removed.
pub(crate) fn remove_dead(root: &Path, dir: &Path, names: &[&str]) -> usize {
    let Some(me) = Maker::this_process() else {
        return 0;
    };
    let Ok(dir_fd) = crate::beneath::open_dir(root, dir, false) else {
        return 0;
    };
    let mut removed = 0;
    let mut seen = std::collections::HashSet::new();
    for name in names {
        let mut rel = std::path::PathBuf::new();
        for part in Path::new(name).components() {
            let Component::Normal(part) = part else {
                break;
            };
            rel.push(part);
            if !seen.insert(rel.clone()) {
                continue;
            }
            let (Some(parent), Some(last)) = (rel.parent(), rel.file_name()) else {
                break;
            };
            let Some(parent_fd) = open_beneath(&dir_fd, parent) else {
                break;
            };
            if remove_if_dead(&parent_fd, last, me) {
                removed += 1;
                break;
            }
        }
    }
    removed
}

/// The folder `rel` beneath the handle `base`, reached without following
/// symlinks.
fn open_beneath(base: &std::os::fd::OwnedFd, rel: &Path) -> Option<std::os::fd::OwnedFd> {
    let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mut fd = base.try_clone().ok()?;
    for part in rel.components() {
        let Component::Normal(part) = part else {
            return None;
        };
        fd = openat(fd.as_fd(), part, flags, Mode::empty()).ok()?;
    }
    Some(fd)
}

/// Removes the folder `name` of `parent` when it is a stand-in of a dead
/// maker holding nothing else.
fn remove_if_dead(parent: &std::os::fd::OwnedFd, name: &std::ffi::OsStr, me: &Maker) -> bool {
    let dir_flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let Ok(folder) = openat(parent.as_fd(), name, dir_flags, Mode::empty()) else {
        return false;
    };
    let Ok(copy) = folder.try_clone() else {
        return false;
    };
    let Ok(mut listing) = nix::dir::Dir::from_fd(copy) else {
        return false;
    };
    let mut names = Vec::new();
    for item in listing.iter() {
        let Ok(item) = item else {
            return false;
        };
        let entry = item.file_name().to_bytes();
        if entry != b"." && entry != b".." {
            names.push(entry.to_vec());
        }
        if names.len() > 1 {
            return false;
        }
    }
    if names != [b".gitignore".to_vec()] {
        return false;
    }
    let file_flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
    let Ok(ignore) = openat(folder.as_fd(), ".gitignore", file_flags, Mode::empty()) else {
        return false;
    };
    let mut file = std::fs::File::from(ignore);
    if !file.metadata().is_ok_and(|m| m.is_file() && m.len() < 4096) {
        return false;
    }
    let mut text = String::new();
    if std::io::Read::read_to_string(&mut file, &mut text).is_err() {
        return false;
    }
    if !Maker::parse(&text).is_some_and(|maker| maker.dead(me)) {
        return false;
    }
    if unlinkat(folder.as_fd(), ".gitignore", UnlinkatFlags::NoRemoveDir).is_err() {
        return false;
    }
    match unlinkat(parent.as_fd(), name, UnlinkatFlags::RemoveDir) {
        Ok(()) => {
            tracing::debug!(name = %name.to_string_lossy(), "a dead host's stand-in removed");
            true
        }
        Err(e) => {
            tracing::debug!(name = %name.to_string_lossy(), error = %e, "a dead host's stand-in kept: something was added to it");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stand_in(root: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(root.join(name)).unwrap();
        std::fs::write(root.join(name).join(".gitignore"), text).unwrap();
    }

    #[test]
    fn only_a_dead_makers_empty_stand_ins_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let me = Maker::this_process().unwrap().clone();
        assert_eq!(Maker::parse(&me.ignore_text()), Some(me.clone()));
        assert!(!me.dead(&me));
        let dead = Maker {
            started: me.started + 1,
            ..me.clone()
        };
        let rebooted = Maker {
            boot: "another-boot".into(),
            ..me.clone()
        };
        let elsewhere = Maker {
            pid_ns: "pid:[1]".into(),
            pid: 1,
            started: 0,
            ..me.clone()
        };
        stand_in(&root, ".vscode", &dead.ignore_text());
        stand_in(&root, ".github", &rebooted.ignore_text());
        stand_in(&root, ".idea", &me.ignore_text());
        stand_in(&root, ".zed", &elsewhere.ignore_text());
        stand_in(&root, ".husky", &dead.ignore_text());
        std::fs::write(root.join(".husky/pre-commit"), "user's hook\n").unwrap();
        stand_in(&root, ".fleet", "*\n");
        stand_in(&root, ".gitlab", &format!("{}# more\n", dead.ignore_text()));
        std::fs::write(root.join(".envrc"), "a user's file\n").unwrap();
        let names = [
            ".vscode",
            ".github/workflows",
            ".idea",
            ".zed",
            ".husky",
            ".fleet",
            ".gitlab",
            ".envrc",
        ];
        assert_eq!(remove_dead(&root, &root, &names), 2);
        assert!(!root.join(".vscode").exists());
        assert!(!root.join(".github").exists());
        for kept in [".idea", ".zed", ".husky", ".fleet", ".gitlab"] {
            assert!(root.join(kept).join(".gitignore").is_file(), "{kept}");
        }
        assert!(root.join(".husky/pre-commit").is_file());
        assert!(root.join(".envrc").is_file());
        // Through a symlink nothing is judged, let alone removed.
        let outside = root.join("outside");
        stand_in(&outside, ".vscode", &dead.ignore_text());
        std::fs::create_dir(root.join("ws")).unwrap();
        std::os::unix::fs::symlink(outside.join(".vscode"), root.join("ws/.vscode")).unwrap();
        assert_eq!(remove_dead(&root, &root.join("ws"), &[".vscode"]), 0);
        assert!(outside.join(".vscode/.gitignore").is_file());
    }
}
