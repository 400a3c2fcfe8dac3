//! The OS sandbox around [`LocalComputer`](crate::LocalComputer)'s shell
//! commands: a second wall behind approval, so a misjudged command still
//! cannot write outside the workspace or reach the network.
//!
//! The host picks a [`SandboxPolicy`] in
//! [`ShellConfig::sandbox`](crate::ShellConfig::sandbox) (or
//! [`LocalConfig::with_sandbox`](crate::LocalConfig::with_sandbox)); the
//! default is [`SandboxPolicy::FullAccess`], i.e. no confinement. Every
//! command's state carries an [`AppliedSandbox`] saying what it ran under,
//! and its content says so in one line; when the output shows a refused
//! operation, the content adds a hint naming what the sandbox allows and
//! that only the host can widen it.
//!
//! # What each policy guarantees (Linux)
//!
//! Two mechanisms, named in the command's state (`mechanism`):
//! `namespaces+landlock+seccomp` where the machine lets a child make a
//! private mount namespace (a user namespace too when the host is not
//! root), else the named fallback `landlock+seccomp` (also forced by
//! [`SandboxOptions::namespaces`] `= false`). The differences are marked.
//!
//! | | `full_access` | `workspace_write` | `read_only` |
//! |---|---|---|---|
//! | write, create, delete, rename, link | anywhere the host user can | only beneath the workspace (the context's working directory), the `writable_roots` and the computer's private temp dir (Landlock; with namespaces also a read-only mount of everything else) | nowhere |
//! | new entries at the top of a root that holds `.git` or other protected entries | yes | yes with namespaces; refused by the fallback (Landlock cannot say "writable except that subtree") | no |
//! | protected entries ([`tool_core::PathClass`] protected classes: `.git`, `.envrc`, `.vscode`, `.github/workflows`, … at any depth of a writable root, found by a bounded walk) | writable | read-only where they exist, with everything beneath them (namespaces: read-only bind mounts, which also cannot be renamed or removed; fallback: Landlock) | read-only |
//! | protected entries that do not exist yet | creatable | **creatable by a command, then moved out**: when the command's process group has ended (and when it is killed) the writable roots are walked again and every protected entry not found before the spawn is moved (never deleted) into the computer's quarantine folder ([`ShellConfig::quarantine_dir`](crate::ShellConfig::quarantine_dir)), listed in the state as `protectedCreated: [{path, movedTo}]` and in one content line; file operations refuse them outright | not creatable |
//! | reads and execution | everything | everything except the secret classes' locations (`~/.ssh`, `~/.aws`, `/etc/shadow`, …: Landlock) and the secret files inside the roots (`.env`, `*.tfstate`, …: masked by `/dev/null` or an empty tmpfs with namespaces, Landlock otherwise) | same |
//! | `/tmp` | the host's | with namespaces: an overlay whose lower layer is the host's `/tmp` (readable, never changed: a skill folder or an input under `/tmp` works as the working directory or as a file to read) and whose upper layer is the computer's private temp dir (what the command writes, changes or removes there stays private, and later commands of the same computer see it; `TMPDIR=/tmp`; state `hostTmpReadable: true`). Where the kernel has no such overlay (or [`SandboxOptions::tmp_overlay`] is off, or a secret only Landlock keeps out lies under `/tmp`): the private temp dir replaces `/tmp` and only the command's working directory there is bound back, read-only; other host files under `/tmp` are then out of sight. Writable roots under `/tmp` are the host's, writable, in both cases. Fallback: the host's `/tmp` writable, `TMPDIR` the private dir | same as `workspace_write`; the overlay's upper layer is read-only too |
//! | permission bits and times outside the roots (`chmod`, `touch -d`) | yes | refused with namespaces (read-only mounts); **allowed by the fallback** (Landlock up to ABI 7 does not govern them) | same |
//! | `/dev/null`, `/dev/zero`, `/dev/urandom`, `/dev/tty` … | yes | read and write | read and write |
//! | new sockets (`socket()`) | yes | none unless `network: true` (`socketpair` still works): no TCP/UDP, no Unix socket to a daemon (tmux, a container engine, the user's service manager) | same |
//! | `chown`, extended attributes, setuid/setgid mode bits, mount changes (`mount`, `umount2`, `open_tree`, `move_mount`, `setns`…) | yes | refused everywhere (`EPERM`, seccomp) | same |
//! | signals to processes outside the sandbox (ABI ≥ 6) | yes | refused | refused |
//!
//! - Under `workspace_write` the shell also sets `TMPDIR` (to `/tmp` with
//!   namespaces, to the computer's private temp dir otherwise; removed when
//!   the computer is dropped) unless the call sets it.
//! - The overlay over `/tmp`: commands of one computer running at once
//!   share its upper layer (mounted with `index=off`); overlayfs leaves
//!   changes to a lower layer while it is mounted undefined, so a host
//!   file under `/tmp` changed during a command may show late or not at
//!   all to that command (the host's files themselves are never changed).
//!   A host file the command removes is hidden by a whiteout in the upper
//!   layer, for later commands of the computer too.
//! - With namespaces, protected entries are protected by path: a command
//!   that renames the directory holding `sub/.envrc` can then create a new
//!   `sub/.envrc`. `.git` at a root's top cannot be renamed (a mount point).
//! - The confinement is applied in the child between `fork` and `exec`,
//!   never to the host process, and every process the command starts
//!   inherits it (children, grandchildren, daemons it forks off). It cannot
//!   be lifted from inside: `no_new_privs` is set, so setuid programs do
//!   not gain rights either.
//! - Landlock checks the path actually reached: a symlink inside the
//!   workspace pointing outside does not make the outside writable; `mv`
//!   and `ln` of outside files into the workspace are refused (a rename or
//!   link that would gain rights fails with `EXDEV`, which makes `mv` fall
//!   back to a copy that is then checked like any write). A hard link to an
//!   outside file that *already* sits in the workspace is writable through
//!   that path: Landlock judges paths, not inodes.
//! - Refusals are the command's own errors: `EACCES` ("Permission denied")
//!   for files, `EPERM` ("Operation not permitted") for sockets, `EXDEV`
//!   for reparenting renames and links.
//! - Network off means no new socket of any family: TCP, UDP, raw and
//!   packet sockets (loopback included), netlink, and Unix-domain sockets
//!   too, so local daemons (an SSH agent, a container engine's socket) are
//!   out of reach as well; `socketpair(AF_UNIX)` and pipes keep working for
//!   a command's own processes. `io_uring` is refused (its socket
//!   operations would bypass the filter). Sockets inherited from the host
//!   are not taken away (the host opens its own with close-on-exec). With
//!   the network on, everything the user can reach is reachable, local
//!   daemons included.
//!
//! # File operations
//!
//! The same policy confines [`LocalComputer`](crate::LocalComputer)'s file
//! operations (`readFile`, `writeFile`, `editFile`, `moveFiles`,
//! `renameFile`, `listFiles`, `globFiles`, `searchFiles`, `grepContent`)
//! when the call runs confined, checked in-process on the path actually
//! reached: writes only in the writable roots, protected entries never
//! written or created (at any depth, whether or not they exist), secrets
//! never read; searches skip secret entries and report how many
//! (`secretsSkipped`). A refusal fails with `confinement_refused` and says
//! what the confinement allows. The call's [`tool_core::Confinement`] (a
//! gated invoker puts the decision's in the context) replaces the
//! configured sandbox for that call, for commands and files alike.
//!
//! # What no policy guarantees
//!
//! - No limit on CPU, memory, disk space, processes or time (the shell's
//!   window and kill are the only time bound); no isolation of the process
//!   list, of `/proc` reads of other processes the user owns, or of the
//!   environment variables the host passes.
//! - Reads: everything not secret (see [`SandboxOptions`]) is readable, including other
//!   projects and the host's configuration. Directories on the way to a
//!   secret (`~`, `/`) can be listed, and so can the names inside a secret
//!   directory (Landlock's listing right is inherited); the files' contents
//!   cannot be read. Secrets are excluded where they exist when the command
//!   starts; entries that appear later in a directory split around a secret
//!   (such as `~`) are not readable by that command (the split lists the
//!   entries that existed).
//! - Protected entries are read-only where they exist when the command
//!   starts (within the walk's bound, [`SandboxOptions::scan_limit`]). One
//!   that a command creates where none existed (`.envrc`, `.vscode/`,
//!   `.github/workflows/ci.yml`) exists **until the sweep**: while the
//!   command's group runs, a program that reads it (direnv, an editor, a
//!   CI runner watching the tree) may already see it, and the command
//!   itself can use it. The sweep runs when the shell exits, again once
//!   every member of its group has gone, and at a kill; a member that
//!   leaves the group (`setsid`) is not waited for, and an entry deeper
//!   than the walk's bound is not found. A move that fails (the
//!   quarantine folder unwritable) leaves the entry and says so
//!   (`movedTo: null`, `error`). Only the fallback keeps a root's top
//!   closed to new entries.
//! - Why a sweep and not a refusal: Landlock and read-only mounts need an
//!   inode to attach to, and a name that does not exist has none (bind
//!   mounting placeholders would write files into the user's workspace);
//!   a seccomp user-notification supervisor that judged `openat`/`mkdirat`
//!   /`renameat2` paths would read them from the command's memory, which
//!   another thread of the command can change between the check and the
//!   kernel's own read (the kernel documentation says it must not be used
//!   as a security policy for pointer arguments); fanotify has no
//!   permission event for creation. The last sweep cannot be raced: it
//!   runs after every process of the group that could recreate the entry
//!   has gone.
//! - Fallback only: plain permission bits (`chmod 600`) and timestamps
//!   (`touch -d`) of any file the user owns can still be changed outside
//!   the roots. Ownership, extended attributes (file capabilities) and
//!   set-id bits are refused everywhere by the seccomp filter, inside the
//!   workspace too (`tar` or `cp -a` restoring owners report errors).
//! - A cancelled call (or one whose future is dropped at its deadline)
//!   kills the command's process group; a process that leaves the group
//!   (`setsid`) survives it.
//! - 32-bit (`i386`) programs are killed by the seccomp filter's
//!   architecture check.
//!
//! # Mechanisms and platforms
//!
//! - Linux: Landlock for files (the ABI is negotiated with the kernel at
//!   each spawn: ABI 1 lacks cross-directory renames, ABI 2 adds them, 3
//!   truncation, 6 signal and abstract-socket scopes) and seccomp for the
//!   network and file metadata. The ruleset and the filter are built in the host before the
//!   fork; the child only installs them (three syscalls, see the private
//!   `syscalls` module, the crate's only `unsafe`). A pre-exec hook
//!   rather than a helper binary keeps the crate self-contained: no
//!   second executable to install and find.
//! - A kernel without Landlock (or without seccomp while the network must
//!   be off): a confining policy fails with `sandbox_unavailable`, unless
//!   the host set [`SandboxFallback::Unconfined`]; then the command runs
//!   unconfined and its state says `mechanism: "unconfined"` with the
//!   reason. Never a silent unconfined run.
//! - Other platforms: the types compile; no mechanism is implemented, so a
//!   confining policy behaves as on a kernel without Landlock.
//!
//! # Example
//!
//! ```
//! use tool_core::ToolContext;
//! use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxPolicy};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let computer = LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
//! let ctx = ToolContext::new().with_cwd(dir.path());
//! let out = computer.run_command(RunCommandParams::new("echo hi > inside.txt"), &ctx).await;
//! let state = out.state.unwrap();
//! if out.success {
//!     // Confined (Linux with Landlock), or refused with `sandbox_unavailable` elsewhere.
//!     assert_eq!(state["sandbox"]["policy"], "workspace_write");
//! }
//! # });
//! ```

#[cfg(target_os = "linux")]
mod child;
mod classes;
mod entries;
pub(crate) mod env;
mod home;
#[cfg(target_os = "linux")]
mod namespace;
pub(crate) use classes::Classes;
#[cfg(target_os = "linux")]
mod linux;
mod plan;
mod policy;
mod quarantine;
pub use quarantine::ProtectedCreated;
pub(crate) use quarantine::Watch;

/// Which mount namespace a command gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Namespaces {
    /// None: Landlock and seccomp only.
    Off,
    /// A private mount namespace with the private temp dir over `/tmp`.
    PrivateTmp,
    /// A private mount namespace with an overlay over `/tmp`: the host's
    /// `/tmp` read-only beneath, the private temp dir as the upper layer.
    TmpOverlay,
}
#[cfg(target_os = "linux")]
mod syscalls;

use std::path::Path;

pub use policy::{
    AppliedSandbox, DEFAULT_SCAN_LIMIT, KernelSupport, Limits, ProbeFailure, SandboxFallback,
    SandboxOptions, SandboxPolicy,
};

use crate::error::{Error, Result};

/// What the running kernel offers for confinement.
///
/// Linux: the Landlock ABI version (`landlock_create_ruleset` with the
/// version flag) and whether seccomp filtering is built in
/// (`/proc/self/status` lists `Seccomp_filters`). Elsewhere: always a
/// failure.
pub fn probe_kernel() -> Result<KernelSupport, ProbeFailure> {
    #[cfg(target_os = "linux")]
    {
        let abi = syscalls::landlock_abi().map_err(|e| match e.raw_os_error() {
            Some(libc::EOPNOTSUPP) => {
                "Landlock is built into this kernel but not enabled (add `landlock` to the `lsm=` boot parameter)".to_owned()
            }
            Some(libc::ENOSYS) => "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK is needed)".to_owned(),
            _ => format!("the Landlock probe failed: {e}"),
        })?;
        let seccomp = std::fs::read_to_string("/proc/self/status")
            .map(|s| s.lines().any(|l| l.starts_with("Seccomp_filters:")))
            .unwrap_or(false);
        Ok(KernelSupport {
            landlock_abi: u8::try_from(abi.clamp(1, 255)).unwrap_or(u8::MAX),
            seccomp,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(format!(
            "no sandbox mechanism is implemented on {}",
            std::env::consts::OS
        ))
    }
}

/// Whether this machine can enforce a confining [`SandboxPolicy`] for
/// commands, as the gate needs to know
/// ([`tool_core::ConfinementSupport`]): `Available` with the mechanism's
/// name when the probe of `options` finds Landlock and seccomp, else
/// `Unavailable` with the reason. File operations are confined in-process
/// and need no mechanism, so a host whose commands cannot be confined may
/// still run confined file operations.
///
/// ```
/// let support = tool_runtime::confinement_support(&tool_runtime::SandboxOptions::default());
/// if let tool_core::ConfinementSupport::Available { mechanism } = &support {
///     assert!(mechanism.contains("landlock"));
/// }
/// ```
pub fn confinement_support(options: &SandboxOptions) -> tool_core::ConfinementSupport {
    match (options.probe)() {
        #[cfg(target_os = "linux")]
        Ok(support) if support.seccomp => tool_core::ConfinementSupport::Available {
            mechanism: linux::MECHANISM.to_owned(),
        },
        Ok(_) => tool_core::ConfinementSupport::Unavailable {
            reason: "seccomp filters are not available in this kernel".to_owned(),
        },
        Err(reason) => tool_core::ConfinementSupport::Unavailable { reason },
    }
}

/// A command's sandbox, ready to install on its `Command`.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// What the command runs under, for its state.
    pub(crate) applied: AppliedSandbox,
    /// The protected entries before it ran, for the sweeps after it.
    watch: Option<Watch>,
    #[cfg(target_os = "linux")]
    confinement: Option<child::Confinement>,
}

impl Prepared {
    /// Makes `cmd`'s child confine itself before `exec` (no-op when
    /// unconfined); returns the report and, for a confined command with
    /// writable roots, the watch its sweeps use.
    pub(crate) fn install(
        self,
        cmd: &mut tokio::process::Command,
    ) -> (AppliedSandbox, Option<Watch>) {
        #[cfg(target_os = "linux")]
        if let Some(confinement) = self.confinement {
            syscalls::confine_child(cmd, confinement);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = cmd;
        (self.applied, self.watch)
    }
}

/// Gives the overlay's work directories beneath `dir` (`work`, `work/work`,
/// left without permissions by the kernel) their owner's rights back, so
/// that `dir` can be removed by an unprivileged host.
pub(crate) fn make_removable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    for sub in ["work", "work/work", "work/index"] {
        let path = dir.join(sub);
        if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700));
        }
    }
}

/// Builds the sandbox of one command whose workspace is `workspace`.
pub(crate) fn prepare(
    policy: &SandboxPolicy,
    options: &SandboxOptions,
    workspace: &Path,
    cwd: &Path,
    private_tmp: Option<&Path>,
) -> Result<Prepared> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    #[cfg(target_os = "linux")]
    let namespaces = if options.namespaces
        && private_tmp.is_some()
        && policy.is_confined()
        && namespace::available().is_ok()
    {
        if options.tmp_overlay && namespace::overlay_available().is_ok() {
            Namespaces::TmpOverlay
        } else {
            Namespaces::PrivateTmp
        }
    } else {
        Namespaces::Off
    };
    #[cfg(not(target_os = "linux"))]
    let namespaces = {
        let _ = (private_tmp, cwd);
        Namespaces::Off
    };
    let Some(plan) = plan::plan(
        policy,
        options,
        workspace,
        home.as_deref(),
        &std::env::temp_dir(),
        cwd,
        namespaces != Namespaces::Off,
    )?
    else {
        return Ok(Prepared {
            applied: AppliedSandbox::full_access(),
            watch: None,
            #[cfg(target_os = "linux")]
            confinement: None,
        });
    };
    let mut applied = AppliedSandbox {
        policy: policy.name().to_owned(),
        mechanism: String::new(),
        landlock_abi: None,
        network: plan.network,
        writable_roots: plan.writable_roots.clone(),
        read_only_paths: plan.read_only.clone(),
        unconfined_reason: None,
        secrets_hidden: plan.secrets_in_roots.len(),
        scan_truncated: plan.scan_truncated,
        private_tmp: false,
        host_tmp_readable: false,
        limits: None,
        env_withheld: Vec::new(),
        home_hidden: plan.home_hidden,
    };
    let unavailable = |applied: AppliedSandbox, reason: String| -> Result<Prepared> {
        match options.fallback {
            SandboxFallback::Refuse => Err(Error::SandboxUnavailable {
                policy: policy.name().to_owned(),
                reason,
            }),
            SandboxFallback::Unconfined => Ok(Prepared {
                applied: AppliedSandbox {
                    mechanism: "unconfined".to_owned(),
                    network: true,
                    unconfined_reason: Some(reason),
                    ..applied
                },
                watch: None,
                #[cfg(target_os = "linux")]
                confinement: None,
            }),
        }
    };
    let support = match (options.probe)() {
        Ok(support) => support,
        Err(reason) => return unavailable(applied, reason),
    };
    #[cfg(target_os = "linux")]
    {
        if !support.seccomp {
            return unavailable(
                applied,
                "seccomp filters are not available in this kernel".to_owned(),
            );
        }
        // The overlay's rule covers all of /tmp: not when a secret that
        // only Landlock keeps out lies there.
        let overlay = namespaces == Namespaces::TmpOverlay
            && !plan
                .excluded
                .iter()
                .any(|p| p.starts_with(std::path::Path::new("/tmp")));
        let mounts = if namespaces != Namespaces::Off {
            Some(namespace::mounts(&plan, private_tmp, cwd, overlay)?)
        } else {
            None
        };
        let overlay = mounts.as_ref().is_some_and(|m| m.tmp_overlay.is_some());
        let confinement = linux::build(&plan, support, mounts, &options.limits)?;
        applied.limits = Some(options.limits);
        applied.mechanism = if namespaces != Namespaces::Off {
            namespace::MECHANISM.to_owned()
        } else {
            linux::MECHANISM.to_owned()
        };
        applied.private_tmp = namespaces != Namespaces::Off;
        applied.host_tmp_readable = overlay;
        applied.landlock_abi = Some(support.landlock_abi);
        // The shared and the private temp dirs are not the workspace: what
        // appears there is not swept.
        let temps: Vec<std::path::PathBuf> = [
            Some(std::env::temp_dir()),
            private_tmp.map(Path::to_path_buf),
        ]
        .into_iter()
        .flatten()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
        let roots: Vec<std::path::PathBuf> = plan
            .writable_roots
            .iter()
            .filter(|r| !temps.contains(r))
            // Only the roots whose entries were examined (not the home's
            // toolchain caches).
            .filter(|r| plan.examined.iter().any(|d| d.starts_with(r)))
            .cloned()
            .collect();
        let classes = Classes::new(options, home.as_deref())?;
        let watch = (!roots.is_empty()).then(|| {
            Watch::new(
                roots,
                plan.examined.clone(),
                plan.pinned.clone(),
                classes,
                options.scan_limit,
            )
        });
        Ok(Prepared {
            applied,
            watch,
            confinement: Some(confinement),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = support;
        applied.mechanism = String::new();
        unavailable(
            applied,
            format!(
                "no sandbox mechanism is implemented on {}",
                std::env::consts::OS
            ),
        )
    }
}
