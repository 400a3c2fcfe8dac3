//! What a confined child installs between `fork` and `exec`, built in the
//! host beforehand: the data [`linux`](super::linux) and
//! [`namespace`](super::namespace) prepare and
//! [`syscalls`](super::syscalls) carries out (it may not allocate, so
//! everything is ready here).

use std::ffi::CString;
use std::os::fd::OwnedFd;

use seccompiler::BpfProgram;

/// What the child installs before it runs the command.
#[derive(Debug)]
pub(crate) struct Confinement {
    /// The Landlock ruleset, ready to enforce.
    pub(crate) ruleset: OwnedFd,
    /// The seccomp filters, installed in order (see the `linux` module's
    /// table of refused calls).
    pub(crate) filters: Vec<BpfProgram>,
    /// The private mount namespace, when the machine allows one.
    pub(crate) mounts: Option<Mounts>,
    /// The Landlock rights the child grants beneath its `/tmp` when that
    /// is an overlay: Landlock ignores rules on a directory a mount covers,
    /// so the rule must name the overlay's root, which only the child sees.
    pub(crate) tmp_access: u64,
    /// The Landlock read rights, granted in the child beneath its fresh
    /// `/proc` and `/dev` (rules on the host directories they cover do
    /// not reach them).
    pub(crate) read_access: u64,
    /// The Landlock rights on device files, granted beneath `/dev/pts`.
    pub(crate) device_access: u64,
    /// The files of the command's cgroups (`tasks` or `cgroup.procs`)
    /// its first process writes itself into before anything else.
    pub(crate) cgroup_joins: Vec<CString>,
    /// Resource limits set before `exec`: `(resource, soft, hard)`.
    pub(crate) limits: Vec<(libc::__rlimit_resource_t, u64, u64)>,
    /// Egress by name: the child makes a network namespace and hands its
    /// proxy listener out.
    pub(crate) egress: Option<EgressChild>,
}

/// The child's side of the egress proxy.
#[derive(Debug)]
pub(crate) struct EgressChild {
    /// The Unix socket the listener is sent over (the host holds the
    /// other end; close-on-exec, so the command never holds it).
    pub(crate) channel: OwnedFd,
    /// The port the proxy listens on inside the namespace.
    pub(crate) port: u16,
}

impl EgressChild {
    /// The channel's descriptor number, for the child.
    pub(crate) fn channel_fd(&self) -> libc::c_int {
        use std::os::fd::AsRawFd as _;
        self.channel.as_raw_fd()
    }
}

/// What the child does to its mount namespace, every path ready as a C
/// string (the child may not allocate).
#[derive(Debug)]
pub(crate) struct Mounts {
    /// `"<uid> <uid> 1"`, for `/proc/self/uid_map`.
    pub(crate) uid_map: Vec<u8>,
    /// `"<gid> <gid> 1"`, for `/proc/self/gid_map`.
    pub(crate) gid_map: Vec<u8>,
    /// The computer's private temp dir: moved over `/tmp` when there is no
    /// overlay, else the home of the overlay's upper and work layers.
    pub(crate) private_tmp: Option<CString>,
    /// Mount options of the overlay over `/tmp` (lower: the host's `/tmp`,
    /// read-only; upper: the private temp dir), when the kernel allows it.
    pub(crate) tmp_overlay: Option<CString>,
    /// Without the overlay: host paths under `/tmp` bound back read-only
    /// over the private `/tmp` (the command's working directory when it
    /// lies there outside the writable roots).
    pub(crate) tmp_read: Vec<CString>,
    /// Writable roots, moved back writable (outside `/tmp` first, then
    /// those under it, shallowest first).
    pub(crate) roots: Vec<CString>,
    /// Directories to create in the private `/tmp` so the roots under
    /// `/tmp` have a place (parents first).
    pub(crate) mkdirs: Vec<CString>,
    /// Git directories bound onto themselves, writable: a mount point can
    /// be neither renamed nor removed.
    pub(crate) pinned: Vec<CString>,
    /// Protected entries, bound read-only.
    pub(crate) protected: Vec<CString>,
    /// Files shown in place of others, read-only: `(source, target)` (a
    /// git configuration without its `extraheader` lines).
    pub(crate) replacements: Vec<(CString, CString)>,
    /// Host device files bound into the fresh `/dev` under their names.
    pub(crate) devices: Vec<CString>,
    /// Secret files, masked with an empty read-only regular file.
    pub(crate) secret_files: Vec<CString>,
    /// Secret directories, masked with an empty read-only tmpfs.
    pub(crate) secret_dirs: Vec<CString>,
    /// Stand-ins of missing protected files (sockets in the host), each
    /// masked like a secret file: an empty read-only regular file.
    pub(crate) empty_files: Vec<CString>,
    /// `pid_max` of the run's PID namespace (`"<n>\n"`), written once its
    /// `/proc` is mounted: the process limit where no pids cgroup could
    /// be made (the `pid_limit` module).
    pub(crate) pid_max: Option<Vec<u8>>,
    /// The private temp dirs of the user's computers in the host's `/tmp`
    /// (readable under the overlay), each masked with an empty read-only
    /// tmpfs; one removed since it was listed is skipped.
    pub(crate) other_hosts: Vec<CString>,
    /// The command's working directory, entered again at the end: the one
    /// entered before the namespace was built is the old, read-only mount.
    pub(crate) cwd: CString,
}
