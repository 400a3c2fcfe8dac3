//! The built-in entries' checks of one reading of a part (a view), found
//! by the reading's program: one lookup of the program's name gives the
//! checks that can fire for it, so a line of `git`, `ls` and `grep` runs
//! the checks of those three programs and not the other entries' dozens.
//!
//! Each row names the entry it reports, the programs whose readings it
//! reads (a name ending in `*` is a prefix: `mkfs*`), and the check. A
//! check still names its programs itself, as the functions it calls always
//! did: in debug builds every reading is also run through every row
//! regardless of its program, and a row that fires for a program it does
//! not list stops the test that showed it (see [`view_hits`]). A new program
//! for a check is therefore one name in the function and one in its row,
//! and forgetting the row is a failing test, not a silent miss. Checks
//! whose programs are the rows of a table of their own (secret printers,
//! services started later, package-script writers) take their names from
//! it: a new row there needs nothing here.
//!
//! The files parts write are judged here too, for three entries at once
//! (`persistence`, `code-execution-file`, `system-binaries`): each
//! reading's written operands are read once, and debug builds compare the
//! pass with the entries' own definitions.

use super::commands::{
    account_admin, copy_to_device, dd_to_device, format_device, is_precious_tree, kernel_write,
    program, reads_secret_tree, reads_whole_home, recursive_chown_system, remove_core_package,
    rm_recursive_root,
};
use super::escapes::{container_host_access, power_off};
use super::persistence::{
    any_word, edits_crontab, is_code_execution_file, is_persistence_path, is_system_binary,
    kernel_modules, kills_everything, sets_capabilities, writes_its_words, written_operands,
};
use super::setuid::setuid_targets;
use super::{Builtin, Ctx, Facts, secret_names};
use crate::name_hash::NameMap;
use crate::shell::SimpleCommand;
use crate::shell::wrappers::views;

/// A check of one reading of a part, in the directory the part runs in.
type Check = fn(&[String], &SimpleCommand, &Ctx<'_>) -> bool;

struct Row {
    builtin: Builtin,
    /// The programs (command words' base names) whose readings `check`
    /// reads; `name*` is every name starting with `name`.
    programs: &'static [&'static str],
    check: Check,
}

/// Recursive readers (searches, archives, recursive copies and diffs):
/// the programs `commands::reads_recursively` reads.
const RECURSIVE_READERS: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "tar", "bsdtar", "7z", "zip", "cp", "scp",
    "rsync", "diff", "git",
];

const ROWS: &[Row] = &[
    Row {
        builtin: Builtin::RmRecursiveRoot,
        programs: &[
            "rm", "mv", "rimraf", "del-cli", "trash", "rmrf", "git", "find", "fd", "fdfind",
        ],
        check: |v, _, ctx| rm_recursive_root(v, ctx),
    },
    Row {
        builtin: Builtin::SystemAccounts,
        programs: &[
            "vipw",
            "vigr",
            "visudo",
            "chpasswd",
            "chgpasswd",
            "usermod",
            "useradd",
            "userdel",
            "groupmod",
            "gpasswd",
            "passwd",
            "chsh",
            "chfn",
            "adduser",
            "deluser",
            "newusers",
            "pwconv",
            "grpconv",
            "chage",
        ],
        check: |v, _, _| account_admin(v),
    },
    Row {
        builtin: Builtin::RawDeviceWrite,
        programs: &["dd"],
        check: |v, _, _| dd_to_device(v),
    },
    Row {
        builtin: Builtin::RawDeviceWrite,
        programs: &[
            "cp",
            "tee",
            "mv",
            "install",
            "shred",
            "cat",
            "pv",
            "ddrescue",
            "dcfldd",
            "badblocks",
        ],
        check: |v, _, _| copy_to_device(v),
    },
    Row {
        builtin: Builtin::FormatDevice,
        programs: &[
            "mkfs*",
            "mke2fs",
            "mkswap",
            "mkdosfs",
            "newfs",
            "blkdiscard",
            "wipefs",
            "sg_format",
            "hdparm",
            "cryptsetup",
            "nvme",
            "fdisk",
            "sfdisk",
            "cfdisk",
            "gdisk",
            "sgdisk",
            "parted",
            "diskutil",
        ],
        check: |v, _, _| format_device(v),
    },
    Row {
        builtin: Builtin::KernelWrite,
        programs: &["sysctl", "tee", "cp", "dd", "install", "mv"],
        check: |v, _, _| kernel_write(v),
    },
    Row {
        builtin: Builtin::RecursiveChownSystem,
        programs: &["chown", "chmod", "chgrp"],
        check: |v, _, ctx| recursive_chown_system(v, ctx),
    },
    // `setuid-shell` is judged only where this row fired: it needs a
    // setuid target first (see `builtin_hits`).
    Row {
        builtin: Builtin::SetuidBit,
        programs: &["chmod", "install"],
        check: |v, _, _| setuid_targets(v).is_some(),
    },
    Row {
        builtin: Builtin::ReadHome,
        programs: RECURSIVE_READERS,
        check: |v, _, ctx| reads_whole_home(v, ctx),
    },
    Row {
        builtin: Builtin::ReadSecrets,
        programs: RECURSIVE_READERS,
        check: |v, _, ctx| reads_secret_tree(v, ctx),
    },
    // `echo "$GITHUB_TOKEN"` printed to the model (into a pipe, the next
    // stage decides: `| wc -c` keeps it, `| nc` sends it).
    Row {
        builtin: Builtin::ReadSecrets,
        programs: &["echo", "printf"],
        check: |v, part, _| !part.pipe_out && secret_names::echoes_secret(v),
    },
    Row {
        builtin: Builtin::FirewallOff,
        programs: &[
            "ufw",
            "aa-teardown",
            "aa-disable",
            "aa-complain",
            "systemctl",
            "service",
            "iptables",
            "ip6tables",
            "iptables-legacy",
            "iptables-nft",
            "nft",
            "setenforce",
            "pfctl",
            "netsh",
        ],
        check: |v, _, _| super::commands::firewall_off(v),
    },
    Row {
        builtin: Builtin::RemoveCorePackage,
        programs: &[
            "apt", "apt-get", "aptitude", "yum", "dnf", "microdnf", "zypper", "snap", "apk",
            "pacman", "dpkg", "rpm",
        ],
        check: |v, _, _| remove_core_package(v),
    },
    Row {
        builtin: Builtin::KernelModules,
        programs: &["insmod", "rmmod", "kexec", "modprobe"],
        check: |v, _, _| kernel_modules(v),
    },
    Row {
        builtin: Builtin::Capabilities,
        programs: &["setcap"],
        check: |v, _, _| sets_capabilities(v),
    },
    Row {
        builtin: Builtin::KillAll,
        programs: &["killall5", "kill", "pkill", "killall"],
        check: |v, _, _| kills_everything(v),
    },
    Row {
        builtin: Builtin::ContainerHostAccess,
        programs: &["docker", "podman", "nerdctl"],
        check: |v, _, ctx| container_host_access(v, &|source| is_precious_tree(source, ctx)),
    },
    Row {
        builtin: Builtin::PowerOff,
        programs: &[
            "shutdown",
            "poweroff",
            "reboot",
            "halt",
            "systemctl",
            "loginctl",
            "init",
            "telinit",
        ],
        check: |v, _, _| power_off(v),
    },
    Row {
        builtin: Builtin::Persistence,
        programs: &["crontab"],
        check: |v, _, _| edits_crontab(v),
    },
];

/// The programs of another table, read once when the index is built.
type TablePrograms = fn() -> Vec<&'static str>;

/// Rows whose programs are those of another table (the table's own rows
/// are its programs, so a new row there needs nothing here).
const TABLE_ROWS: &[(TablePrograms, Row)] = &[
    (
        || super::secret_printers::printer_programs().collect(),
        Row {
            builtin: Builtin::ReadSecrets,
            programs: &[],
            // `gh auth token`, `vault kv get`: a command that prints one.
            check: |v, _, ctx| {
                super::secret_printers::prints_secret_into(v, ctx.next_stage).is_some()
            },
        },
    ),
    (
        || super::persistence::starts_later_programs().collect(),
        Row {
            builtin: Builtin::Persistence,
            programs: &[],
            check: |v, _, _| super::persistence::starts_later(v),
        },
    ),
    (
        || crate::shell::scripts::package_script_programs().collect(),
        Row {
            builtin: Builtin::CodeExecutionFile,
            programs: &[],
            check: |v, _, _| crate::shell::scripts::sets_package_script(v),
        },
    ),
];

/// Every row: those of [`ROWS`] and of [`TABLE_ROWS`].
fn all_rows() -> impl Iterator<Item = &'static Row> {
    ROWS.iter().chain(TABLE_ROWS.iter().map(|(_, row)| row))
}

/// The rows by program name, and the rows listing a prefix.
struct Index {
    by_name: NameMap<&'static str, Vec<&'static Row>>,
    by_prefix: Vec<(&'static str, &'static Row)>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut by_name: NameMap<&'static str, Vec<&'static Row>> = NameMap::default();
        let mut by_prefix = Vec::new();
        for row in ROWS {
            for name in row.programs {
                match name.strip_suffix('*') {
                    Some(prefix) => by_prefix.push((prefix, row)),
                    None => by_name.entry(*name).or_default().push(row),
                }
            }
        }
        for (programs, row) in TABLE_ROWS {
            for name in programs() {
                let rows = by_name.entry(name).or_default();
                if !rows.iter().any(|r| std::ptr::eq(*r, row)) {
                    rows.push(row);
                }
            }
        }
        Index { by_name, by_prefix }
    })
}

/// The rows that read a reading whose program is `name`.
fn rows_for(name: &str) -> impl Iterator<Item = &'static Row> {
    let index = index();
    index
        .by_name
        .get(name)
        .into_iter()
        .flatten()
        .copied()
        .chain(
            index
                .by_prefix
                .iter()
                .filter(move |(prefix, _)| name.starts_with(prefix))
                .map(|(_, row)| *row),
        )
}

/// The entries some reading of some part fired for, as bits of
/// [`bit`]: each part judged in the directory it runs in.
pub(super) fn view_hits(facts: &Facts<'_>, ctx: &Ctx<'_>) -> u32 {
    let rows = hits_with(facts, ctx, false);
    let writes = write_hits(facts, ctx);
    // Debug builds compare both with their definitions, on lines of up to
    // 512 readings (the comparison runs every row on every reading; longer
    // lines are left to the tests with shorter ones).
    #[cfg(debug_assertions)]
    if super::parts_in_dirs(facts)
        .map(|(part, _)| views(part).len())
        .sum::<usize>()
        <= 512
    {
        let every = hits_with(facts, ctx, true);
        assert_eq!(
            every,
            rows,
            "a blacklist row fired for a program it does not list: add the program to its row \
             in audit/blacklist/dispatch.rs (entries {:?})",
            all_rows()
                .filter(|r| (every & !rows) & bit(r.builtin) != 0)
                .map(|r| r.builtin)
                .collect::<Vec<_>>()
        );
        assert_eq!(
            writes,
            write_hits_by_definition(facts, ctx),
            "the blacklist's write pass differs from the entries' definitions"
        );
    }
    rows | writes
}

/// [`view_hits`], with the rows of each reading's program or (`every`)
/// every row.
fn hits_with(facts: &Facts<'_>, ctx: &Ctx<'_>, every: bool) -> u32 {
    let mut hits = 0u32;
    let lines = facts.commands.iter().zip(&facts.dirs);
    for ((_, shell), dirs) in lines {
        let parts = shell.parts();
        for (at, (part, dir)) in parts.iter().zip(dirs).enumerate() {
            let mut here = ctx.in_dir(dir);
            // `env | grep PATH`: what the part prints reaches the next stage.
            here.next_stage = parts.get(at + 1).filter(|_| part.pipe_out);
            hits |= part_hits(part, &here, every, hits);
        }
    }
    hits
}

/// The rows that fire for `part`'s readings, beyond those in `hits`.
fn part_hits(part: &SimpleCommand, here: &Ctx<'_>, every: bool, mut hits: u32) -> u32 {
    for view in views(part) {
        let (mut all, mut gated);
        let rows: &mut dyn Iterator<Item = &'static Row> = if every {
            all = all_rows();
            &mut all
        } else {
            gated = rows_for(program(view));
            &mut gated
        };
        for row in rows {
            if hits & bit(row.builtin) == 0 && (row.check)(view, part, here) {
                hits |= bit(row.builtin);
            }
        }
    }
    hits
}

/// What parts write, for `persistence`, `code-execution-file` and
/// `system-binaries` at once: each reading's written operands are read
/// once, and each written word is judged by the classes still open. A part
/// writes a file by a redirection onto it, as a word of a command that
/// writes its words (not a reader, not `echo`), or as an operand the
/// program table says is written (`dd of=F`, `cp`'s last; for system
/// binaries only these, also resolved in the part's directory).
fn write_hits(facts: &Facts<'_>, ctx: &Ctx<'_>) -> u32 {
    let (persistence, code, system) = (
        bit(Builtin::Persistence),
        bit(Builtin::CodeExecutionFile),
        bit(Builtin::SystemBinaries),
    );
    let mut hits = 0u32;
    let judge = |word: &str, hits: &mut u32| {
        if *hits & persistence == 0 && is_persistence_path(word) {
            *hits |= persistence;
        }
        if *hits & code == 0 && is_code_execution_file(word) {
            *hits |= code;
        }
        if *hits & system == 0 && is_system_binary(word) {
            *hits |= system;
        }
    };
    for (part, dir) in super::parts_in_dirs(facts) {
        if hits == persistence | code | system {
            break;
        }
        let cwd = ctx.in_dir(dir).cwd;
        for r in &part.redirects {
            judge(r, &mut hits);
        }
        for view in views(part) {
            if hits & (persistence | code) != persistence | code && writes_its_words(view) {
                if hits & persistence == 0 && any_word(view, is_persistence_path) {
                    hits |= persistence;
                }
                if hits & code == 0 && any_word(view, is_code_execution_file) {
                    hits |= code;
                }
            }
            for w in written_operands(view) {
                judge(&w, &mut hits);
                if hits & system == 0
                    && cwd.is_some_and(|cwd| is_system_binary(&cwd.join(&w).to_string_lossy()))
                {
                    hits |= system;
                }
            }
        }
    }
    hits
}

/// [`write_hits`] as the three entries defined it, each on its own.
#[cfg(debug_assertions)]
fn write_hits_by_definition(facts: &Facts<'_>, ctx: &Ctx<'_>) -> u32 {
    use super::persistence::writes_matching;
    let parts = || facts.commands.iter().flat_map(|(_, s)| s.parts());
    let any_view = |f: &dyn Fn(&[String], &SimpleCommand) -> bool| {
        parts().any(|part| views(part).iter().any(|v| f(v, part)))
    };
    let mut hits = 0;
    if any_view(&|v, part| writes_matching(v, part, is_persistence_path)) {
        hits |= bit(Builtin::Persistence);
    }
    if any_view(&|v, part| writes_matching(v, part, is_code_execution_file)) {
        hits |= bit(Builtin::CodeExecutionFile);
    }
    if parts().any(|p| p.redirects.iter().any(|r| is_system_binary(r)))
        || super::in_dirs(facts, ctx, &|v, ctx| {
            written_operands(v).iter().any(|w| {
                is_system_binary(w)
                    || ctx
                        .cwd
                        .is_some_and(|cwd| is_system_binary(&cwd.join(w).to_string_lossy()))
            })
        })
    {
        hits |= bit(Builtin::SystemBinaries);
    }
    hits
}

/// The bit of `builtin` in [`view_hits`].
pub(super) fn bit(builtin: Builtin) -> u32 {
    1u32 << (builtin as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_fits_in_the_bits() {
        assert!(super::super::BUILTINS.len() <= 32);
        for row in ROWS {
            assert!(!row.programs.is_empty());
        }
        for row in all_rows() {
            assert!((row.builtin as u32) < 32);
        }
        for (programs, _) in TABLE_ROWS {
            assert!(!programs().is_empty());
        }
    }

    #[test]
    fn prefixes_and_names_are_found() {
        let names = |p: &str| rows_for(p).map(|r| r.builtin).collect::<Vec<_>>();
        assert_eq!(names("mkfs.ext4"), vec![Builtin::FormatDevice]);
        assert_eq!(names("setcap"), vec![Builtin::Capabilities]);
        assert!(names("ls").is_empty());
        assert!(names("git").contains(&Builtin::RmRecursiveRoot));
        assert!(names("git").contains(&Builtin::ReadSecrets));
    }
}
