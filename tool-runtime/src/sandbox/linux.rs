//! Linux: the plan as a Landlock ruleset and a seccomp filter, both built
//! in the host before the fork, and installed in the child by
//! [`syscalls`](super::syscalls).

use std::os::fd::OwnedFd;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::error::{Error, Result};
use crate::sandbox::child::{Confinement, EgressChild, Mounts};
use crate::sandbox::plan::Plan;
use crate::sandbox::policy::{KernelSupport, Limits};

/// The mechanism's name for the report.
pub(crate) const MECHANISM: &str = "landlock+seccomp";

/// Builds the ruleset and the filter for `plan` on a kernel with `support`
/// (with `egress`, the network by name through the proxy).
pub(crate) fn build(
    plan: &Plan,
    support: KernelSupport,
    mounts: Option<Mounts>,
    limits: &Limits,
    egress: Option<EgressChild>,
) -> Result<Confinement> {
    let abi = ABI::from(i32::from(support.landlock_abi));
    let setup = |path: &Path, what: &str, e: &dyn std::fmt::Display| Error::SandboxSetup {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    };
    let root = Path::new("/");
    // Device ioctls stay unrestricted: handling them would refuse terminal
    // and device queries that change nothing.
    let all = AccessFs::from_all(abi) & !AccessFs::IoctlDev;
    let read = AccessFs::from_read(abi);
    let device = (AccessFs::from_file(abi) & !AccessFs::IoctlDev) & !AccessFs::Execute;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)
        .map_err(|e| setup(root, "Landlock refused the access rights", &e))?;
    if abi >= ABI::V6 {
        let mut scopes = BitFlags::from(Scope::Signal);
        if !plan.network {
            scopes |= Scope::AbstractUnixSocket;
        }
        ruleset = ruleset
            .scope(scopes)
            .map_err(|e| setup(root, "Landlock refused the scopes", &e))?;
    }
    let mut created = ruleset
        .create()
        .map_err(|e| setup(root, "cannot create the Landlock ruleset", &e))?;
    for path in &plan.read {
        created = add(created, path, read, abi)?;
    }
    for path in &plan.listed {
        created = add(created, path, BitFlags::from(AccessFs::ReadDir), abi)?;
    }
    for path in &plan.write {
        created = add(created, path, all, abi)?;
    }
    for path in &plan.devices {
        created = add(created, path, device, abi)?;
    }
    let fd: Option<OwnedFd> = created.into();
    let ruleset = fd.ok_or_else(|| Error::SandboxUnavailable {
        policy: "landlock".to_owned(),
        reason: "the kernel gave no Landlock ruleset".to_owned(),
    })?;
    if !support.seccomp {
        return Err(Error::SandboxUnavailable {
            policy: "seccomp".to_owned(),
            reason: "seccomp filters are not available in this kernel".to_owned(),
        });
    }
    let network = match (plan.network, &egress) {
        (true, _) => Network::On,
        (false, Some(_)) => Network::Egress,
        (false, None) => Network::Off,
    };
    let filters = filters_for(network)?;
    Ok(Confinement {
        ruleset,
        filters,
        mounts,
        tmp_access: all.bits(),
        read_access: read.bits(),
        device_access: device.bits(),
        limits: limits.rlimits(),
        cgroup_joins: Vec::new(),
        egress,
    })
}

/// One rule: `access` beneath `path`, trimmed to file rights for a file.
fn add(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    abi: ABI,
) -> Result<RulesetCreated> {
    let fd = match PathFd::new(path) {
        Ok(fd) => fd,
        // Gone since the plan listed it: nothing to grant.
        Err(_) if !path.exists() => return Ok(created),
        Err(e) => {
            return Err(Error::SandboxSetup {
                path: path.to_path_buf(),
                message: format!("cannot open it for a Landlock rule: {e}"),
            });
        }
    };
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(abi)
    };
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| Error::SandboxSetup {
            path: path.to_path_buf(),
            message: format!("Landlock refused the rule: {e}"),
        })
}

/// How a row of [`REFUSED`] judges a call's arguments.
#[derive(Debug, Clone, Copy)]
enum Args {
    /// Refused whatever the arguments.
    Any,
    /// Refused when the mode (argument N) has the setuid or setgid bit.
    SetIdMode(u8),
    /// Refused when the request (argument 1) is one of these.
    Ioctl(&'static [u64]),
    /// Refused when the flags (argument 0) hold a new-namespace flag.
    NamespaceFlags,
}

/// `FS_IOC_SETFLAGS` (`chattr`: immutable, append-only, …).
const FS_IOC_SETFLAGS: u64 = 0x4008_6602;
/// `FS_IOC32_SETFLAGS`, the same from 32-bit callers.
const FS_IOC32_SETFLAGS: u64 = 0x4004_6602;
/// `FS_IOC_FSSETXATTR` (project ids, immutable via the xattr interface).
const FS_IOC_FSSETXATTR: u64 = 0x401c_5820;
/// `TIOCSTI`: pushes bytes into a terminal's input, as if typed.
const TIOCSTI: u64 = 0x5412;
/// `TIOCLINUX`: console selection paste, another way to type.
const TIOCLINUX: u64 = 0x541c;

/// The namespace flags of `clone` and `unshare`.
const NEW_NAMESPACES: u64 = (libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u64;

/// The calls every confined command is refused (`EPERM`), and why. Most
/// would fail anyway for lack of capabilities; the filter refuses them
/// whatever the process holds, and refuses some that need none.
const REFUSED: &[(i64, Args, &str)] = &[
    (
        libc::SYS_mount,
        Args::Any,
        "the mounts stay as the sandbox built them",
    ),
    (
        libc::SYS_umount2,
        Args::Any,
        "unmounting would uncover what a mount hides",
    ),
    (libc::SYS_open_tree, Args::Any, "new mount trees"),
    (libc::SYS_move_mount, Args::Any, "moving mounts"),
    (
        libc::SYS_mount_setattr,
        Args::Any,
        "making a read-only mount writable",
    ),
    (libc::SYS_fsopen, Args::Any, "new file-system mounts"),
    (libc::SYS_fsmount, Args::Any, "new file-system mounts"),
    (
        libc::SYS_fspick,
        Args::Any,
        "reconfiguring a mounted file system",
    ),
    (
        libc::SYS_fsconfig,
        Args::Any,
        "reconfiguring a mounted file system",
    ),
    (libc::SYS_pivot_root, Args::Any, "changing the root"),
    (libc::SYS_chroot, Args::Any, "changing the root"),
    (
        libc::SYS_setns,
        Args::Any,
        "joining another process's namespaces",
    ),
    (
        libc::SYS_unshare,
        Args::NamespaceFlags,
        "new namespaces (a nested user namespace regains capabilities inside it)",
    ),
    (
        libc::SYS_clone,
        Args::NamespaceFlags,
        "new namespaces through clone",
    ),
    (
        libc::SYS_open_by_handle_at,
        Args::Any,
        "opens a file by handle, past every path check (reads masked secrets, writes read-only files)",
    ),
    (
        libc::SYS_name_to_handle_at,
        Args::Any,
        "makes the handles open_by_handle_at takes",
    ),
    (
        libc::SYS_fchmod,
        Args::SetIdMode(1),
        "setuid and setgid bits",
    ),
    (
        libc::SYS_fchmodat,
        Args::SetIdMode(2),
        "setuid and setgid bits",
    ),
    (SYS_FCHMODAT2, Args::SetIdMode(2), "setuid and setgid bits"),
    (
        libc::SYS_ioctl,
        Args::Ioctl(&[FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR]),
        "chattr: immutable and append-only flags would outlast the run",
    ),
    (
        libc::SYS_ioctl,
        Args::Ioctl(&[TIOCSTI, TIOCLINUX]),
        "typing into a terminal the host shares",
    ),
    (libc::SYS_mknodat, Args::Any, "device nodes"),
    (libc::SYS_ptrace, Args::Any, "tracing other processes"),
    (
        libc::SYS_process_vm_writev,
        Args::Any,
        "writing other processes' memory",
    ),
    (libc::SYS_kexec_load, Args::Any, "loading a new kernel"),
    (libc::SYS_kexec_file_load, Args::Any, "loading a new kernel"),
    (libc::SYS_reboot, Args::Any, "rebooting"),
    (libc::SYS_init_module, Args::Any, "kernel modules"),
    (libc::SYS_finit_module, Args::Any, "kernel modules"),
    (libc::SYS_delete_module, Args::Any, "kernel modules"),
    (libc::SYS_bpf, Args::Any, "BPF programs and maps"),
    (
        libc::SYS_perf_event_open,
        Args::Any,
        "performance counters (side channels, kernel addresses)",
    ),
    (
        libc::SYS_userfaultfd,
        Args::Any,
        "a classic aid to kernel exploits",
    ),
    (
        libc::SYS_keyctl,
        Args::Any,
        "the kernel keyrings (the host's keys)",
    ),
    (libc::SYS_add_key, Args::Any, "the kernel keyrings"),
    (libc::SYS_request_key, Args::Any, "the kernel keyrings"),
    (libc::SYS_swapon, Args::Any, "swap"),
    (libc::SYS_swapoff, Args::Any, "swap"),
    (libc::SYS_acct, Args::Any, "process accounting"),
    (libc::SYS_quotactl, Args::Any, "disk quotas"),
    (libc::SYS_syslog, Args::Any, "the kernel log"),
    (libc::SYS_settimeofday, Args::Any, "the system clock"),
    (libc::SYS_clock_settime, Args::Any, "the system clock"),
    (libc::SYS_clock_adjtime, Args::Any, "the system clock"),
    (libc::SYS_sethostname, Args::Any, "the host name"),
    (libc::SYS_setdomainname, Args::Any, "the domain name"),
];

/// `fchmodat2` (Linux 6.6) has number 452 on every architecture; `libc`
/// names it on some only (not on aarch64).
const SYS_FCHMODAT2: i64 = 452;

/// Answered "not supported" (`EOPNOTSUPP`), so that `cp -a`, `tar` and
/// `rsync -X` fall back quietly: extended attributes (file capabilities
/// and security labels live there).
const UNSUPPORTED: &[(i64, Args, &str)] = &[
    (
        libc::SYS_setxattr,
        Args::Any,
        "extended attributes (file capabilities live there)",
    ),
    (libc::SYS_lsetxattr, Args::Any, "extended attributes"),
    (libc::SYS_fsetxattr, Args::Any, "extended attributes"),
    (libc::SYS_removexattr, Args::Any, "extended attributes"),
    (libc::SYS_lremovexattr, Args::Any, "extended attributes"),
    (libc::SYS_fremovexattr, Args::Any, "extended attributes"),
];

/// Refused on x86_64 only (older names of the calls above).
#[cfg(target_arch = "x86_64")]
const REFUSED_X86_64: &[(i64, Args, &str)] = &[
    (
        libc::SYS_chmod,
        Args::SetIdMode(1),
        "setuid and setgid bits",
    ),
    (libc::SYS_mknod, Args::Any, "device nodes"),
    (libc::SYS_iopl, Args::Any, "I/O ports"),
    (libc::SYS_ioperm, Args::Any, "I/O ports"),
];

/// With the network off: every new socket but a `socketpair(AF_UNIX)`, and
/// `io_uring` (its operations would bypass the filter).
const REFUSED_WITHOUT_NETWORK: &[(i64, Args, &str)] = &[
    (
        libc::SYS_socket,
        Args::Any,
        "new sockets of every family (Unix-domain too: a daemon's socket is a way out)",
    ),
    (
        libc::SYS_io_uring_setup,
        Args::Any,
        "io_uring would open sockets past the filter",
    ),
    (libc::SYS_io_uring_enter, Args::Any, "io_uring"),
    (libc::SYS_io_uring_register, Args::Any, "io_uring"),
];

/// What the filter lets a command do with the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Network {
    /// No new sockets.
    Off,
    /// Egress by name: TCP/IP sockets only (`AF_INET`, `AF_INET6`), in a
    /// network namespace whose only way out is the proxy; no Unix-domain
    /// sockets (a host daemon's socket is reached by path, whatever the
    /// network namespace).
    Egress,
    /// Every socket.
    On,
}

/// The seccomp filters of every confined command: the rows of [`REFUSED`]
/// (and, with the network off, [`REFUSED_WITHOUT_NETWORK`] and
/// `socketpair` of any family but `AF_UNIX`; under egress by name the same
/// but `socket` of `AF_INET` and `AF_INET6`), each refused with `EPERM`;
/// [`UNSUPPORTED`] answered `EOPNOTSUPP`; `clone3` answers `ENOSYS` so that
/// C libraries fall back to `clone`, whose flags the filter can read.
/// Other syscalls are untouched. Ownership changes are not filtered: with
/// no capabilities the kernel allows only a no-op `chown` (own uid, own
/// group), which `cp -a`, `tar` and `sed -i` need.
fn seccomp_filter(network: Network) -> Result<Vec<BpfProgram>> {
    let fail = |e: &dyn std::fmt::Display| Error::SandboxSetup {
        path: "/".into(),
        message: format!("cannot build the seccomp filter: {e}"),
    };
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| fail(&e))?;
    let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| fail(&e))
    };
    let rule =
        |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| fail(&e));
    let rules = |args: Args| -> Result<Vec<SeccompRule>> {
        Ok(match args {
            Args::Any => Vec::new(),
            Args::SetIdMode(arg) => {
                let suid = u64::from(libc::S_ISUID);
                let sgid = u64::from(libc::S_ISGID);
                vec![
                    rule(vec![condition(arg, SeccompCmpOp::MaskedEq(suid), suid)?])?,
                    rule(vec![condition(arg, SeccompCmpOp::MaskedEq(sgid), sgid)?])?,
                ]
            }
            Args::Ioctl(requests) => requests
                .iter()
                .map(|r| rule(vec![condition(1, SeccompCmpOp::Eq, *r)?]))
                .collect::<Result<_>>()?,
            // Refused when any namespace flag is set: one rule per flag
            // (the filter ORs a call's rules).
            Args::NamespaceFlags => namespace_flags()
                .map(|flag| rule(vec![condition(0, SeccompCmpOp::MaskedEq(flag), flag)?]))
                .collect::<Result<_>>()?,
        })
    };
    let mut table: Vec<(i64, Args)> = REFUSED.iter().map(|(n, a, _)| (*n, *a)).collect();
    #[cfg(target_arch = "x86_64")]
    table.extend(REFUSED_X86_64.iter().map(|(n, a, _)| (*n, *a)));
    match network {
        Network::Off => table.extend(REFUSED_WITHOUT_NETWORK.iter().map(|(n, a, _)| (*n, *a))),
        Network::Egress => table.extend(
            REFUSED_WITHOUT_NETWORK
                .iter()
                .filter(|(n, _, _)| *n != libc::SYS_socket)
                .map(|(n, a, _)| (*n, *a)),
        ),
        Network::On => {}
    }
    let mut extra = Vec::new();
    if network == Network::Egress {
        // Refused unless the family is AF_INET or AF_INET6.
        extra.push((
            libc::SYS_socket,
            rule(vec![
                condition(0, SeccompCmpOp::Ne, libc::AF_INET as u64)?,
                condition(0, SeccompCmpOp::Ne, libc::AF_INET6 as u64)?,
            ])?,
        ));
    }
    if network != Network::On {
        extra.push((
            libc::SYS_socketpair,
            rule(vec![condition(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?])?,
        ));
    }
    let unsupported: Vec<(i64, Args)> = UNSUPPORTED.iter().map(|(n, a, _)| (*n, *a)).collect();
    Ok(vec![
        compile(&table, extra, libc::EPERM, arch, &rules, &fail)?,
        compile(
            &unsupported,
            Vec::new(),
            libc::EOPNOTSUPP,
            arch,
            &rules,
            &fail,
        )?,
        // clone3 takes its flags in memory the filter cannot read: ENOSYS
        // makes the C library use clone instead.
        compile(
            &[(libc::SYS_clone3, Args::Any)],
            Vec::new(),
            libc::ENOSYS,
            arch,
            &rules,
            &fail,
        )?,
    ]
    .into_iter()
    .chain(refuse_x32())
    .collect())
}

/// On x86_64, every call of the x32 ABI (numbers with bit 30 set) answers
/// `ENOSYS`, as on a kernel built without x32. Its numbers are not the
/// x86_64 numbers with that bit (its `ioctl` is 514, its
/// `process_vm_writev` 540), so refusing the rows' numbers with the bit
/// set would leave those open; no program a host runs needs x32.
fn refuse_x32() -> Option<BpfProgram> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    use seccompiler::sock_filter;
    // Classic BPF opcodes and seccomp's return values (linux/filter.h,
    // linux/seccomp.h).
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    const X32_BIT: u32 = 0x4000_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    Some(vec![
        // seccomp_data.arch at offset 4: another architecture is left to
        // the other programs' architecture check.
        op(LD_W_ABS, 0, 0, 4),
        op(JEQ_K, 0, 3, AUDIT_ARCH_X86_64),
        // seccomp_data.nr at offset 0.
        op(LD_W_ABS, 0, 0, 0),
        op(JGE_K, 0, 1, X32_BIT),
        op(RET_K, 0, 0, RET_ERRNO | libc::ENOSYS as u32),
        op(RET_K, 0, 0, RET_ALLOW),
    ])
}

/// One BPF program answering `errno` to the calls of `table` (and to
/// `extra` conditional rules), allowing everything else. (The x32 numbers
/// of the same calls are refused whole by [`refuse_x32`].)
fn compile(
    table: &[(i64, Args)],
    extra: Vec<(i64, SeccompRule)>,
    errno: i32,
    arch: TargetArch,
    rules: &dyn Fn(Args) -> Result<Vec<SeccompRule>>,
    fail: &dyn Fn(&dyn std::fmt::Display) -> Error,
) -> Result<BpfProgram> {
    // `None`: answered whatever the arguments.
    let mut calls: std::collections::BTreeMap<i64, Option<Vec<SeccompRule>>> = Default::default();
    for (number, args) in table {
        let new = rules(*args)?;
        let entry = calls.entry(*number).or_insert_with(|| Some(Vec::new()));
        match entry {
            Some(existing) if !new.is_empty() => existing.extend(new),
            _ => *entry = None,
        }
    }
    for (number, rule) in extra {
        if let Some(existing) = calls.entry(number).or_insert_with(|| Some(Vec::new())) {
            existing.push(rule);
        }
    }
    let filter = SeccompFilter::new(
        calls
            .into_iter()
            .map(|(n, rules)| (n, rules.unwrap_or_default()))
            .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| fail(&e))?;
    BpfProgram::try_from(filter).map_err(|e| fail(&e))
}

/// The compiled filters for `network`, built once per process (they only
/// depend on it).
fn filters_for(network: Network) -> Result<Vec<BpfProgram>> {
    type Cell = std::sync::OnceLock<std::result::Result<Vec<BpfProgram>, String>>;
    static WITH: Cell = Cell::new();
    static EGRESS: Cell = Cell::new();
    static WITHOUT: Cell = Cell::new();
    let cell = match network {
        Network::On => &WITH,
        Network::Egress => &EGRESS,
        Network::Off => &WITHOUT,
    };
    cell.get_or_init(|| seccomp_filter(network).map_err(|e| e.to_string()))
        .clone()
        .map_err(|message| Error::SandboxSetup {
            path: "/".into(),
            message,
        })
}

/// The namespace flags one by one.
fn namespace_flags() -> impl Iterator<Item = u64> {
    (0..64)
        .map(|bit| 1u64 << bit)
        .filter(|flag| NEW_NAMESPACES & flag != 0)
}

#[cfg(test)]
#[path = "linux_bpf_tests.rs"]
mod bpf_tests;
