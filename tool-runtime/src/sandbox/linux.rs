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
use crate::sandbox::child::{Confinement, Mounts};
use crate::sandbox::plan::Plan;
use crate::sandbox::policy::KernelSupport;

/// The mechanism's name for the report.
pub(crate) const MECHANISM: &str = "landlock+seccomp";

/// Builds the ruleset and the filter for `plan` on a kernel with `support`.
pub(crate) fn build(
    plan: &Plan,
    support: KernelSupport,
    mounts: Option<Mounts>,
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
    let filter = Some(seccomp_filter(plan.network)?);
    Ok(Confinement {
        ruleset,
        filter,
        mounts,
        tmp_access: all.bits(),
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

/// The seccomp filter of every confined command. Landlock (up to ABI 7)
/// does not govern file metadata, so the filter refuses what would change
/// it in ways that matter outside the workspace: ownership (`chown`
/// family), extended attributes (file capabilities live there) and set-id
/// mode bits. With the network off it also refuses `socket` for every
/// family (Unix-domain included: a daemon's socket, such as a container
/// engine's, is a way out), `socketpair` except for `AF_UNIX`, and
/// `io_uring` (its operations would bypass the filter). Every refusal is `EPERM`; other syscalls are
/// untouched.
fn seccomp_filter(network: bool) -> Result<BpfProgram> {
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
    // A mode with the setuid or the setgid bit, as argument `arg`.
    let set_id = |arg: u8| -> Result<Vec<SeccompRule>> {
        let suid = u64::from(libc::S_ISUID);
        let sgid = u64::from(libc::S_ISGID);
        Ok(vec![
            rule(vec![condition(arg, SeccompCmpOp::MaskedEq(suid), suid)?])?,
            rule(vec![condition(arg, SeccompCmpOp::MaskedEq(sgid), sgid)?])?,
        ])
    };
    let not_unix = || -> Result<Vec<SeccompRule>> {
        Ok(vec![rule(vec![condition(
            0,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?])?])
    };
    // (syscall, rules); no rules: refused whatever the arguments.
    let mut calls: Vec<(i64, Vec<SeccompRule>)> = vec![
        // The mount namespace must stay as the sandbox built it (Landlock
        // refuses these too; root without a user namespace would not be).
        (libc::SYS_mount, Vec::new()),
        (libc::SYS_umount2, Vec::new()),
        (libc::SYS_open_tree, Vec::new()),
        (libc::SYS_move_mount, Vec::new()),
        (libc::SYS_mount_setattr, Vec::new()),
        (libc::SYS_fsopen, Vec::new()),
        (libc::SYS_fsmount, Vec::new()),
        (libc::SYS_fspick, Vec::new()),
        (libc::SYS_pivot_root, Vec::new()),
        (libc::SYS_setns, Vec::new()),
        (libc::SYS_fchown, Vec::new()),
        (libc::SYS_fchownat, Vec::new()),
        (libc::SYS_setxattr, Vec::new()),
        (libc::SYS_lsetxattr, Vec::new()),
        (libc::SYS_fsetxattr, Vec::new()),
        (libc::SYS_removexattr, Vec::new()),
        (libc::SYS_lremovexattr, Vec::new()),
        (libc::SYS_fremovexattr, Vec::new()),
        (libc::SYS_fchmod, set_id(1)?),
        (libc::SYS_fchmodat, set_id(2)?),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_chown, Vec::new()),
        (libc::SYS_lchown, Vec::new()),
        (libc::SYS_chmod, set_id(1)?),
        (libc::SYS_fchmodat2, set_id(2)?),
    ]);
    if !network {
        calls.extend([
            (libc::SYS_socket, Vec::new()),
            (libc::SYS_socketpair, not_unix()?),
            (libc::SYS_io_uring_setup, Vec::new()),
            (libc::SYS_io_uring_enter, Vec::new()),
            (libc::SYS_io_uring_register, Vec::new()),
        ]);
    }
    if cfg!(target_arch = "x86_64") {
        // The x32 ABI reaches the same calls with this bit set.
        const X32: i64 = 0x4000_0000;
        let x32: Vec<(i64, Vec<SeccompRule>)> = calls
            .iter()
            .map(|(n, rules)| (n | X32, rules.clone()))
            .collect();
        calls.extend(x32);
    }
    let filter = SeccompFilter::new(
        calls.into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| fail(&e))?;
    BpfProgram::try_from(filter).map_err(|e| fail(&e))
}
