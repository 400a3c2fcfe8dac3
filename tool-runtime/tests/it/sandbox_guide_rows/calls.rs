//! Refused calls, on any architecture: numbers from `libc` (and the few
//! that are the same everywhere), probed in a confined command.

use super::*;

/// Runs each call of a JSON table `[name, number, [args]]` (numbers from
/// the test's `libc`, so the same table holds on every architecture) and
/// prints its errno (0 on success). Arguments: integers, `str:TEXT`,
/// `fd:PATH` (opened read-only), `null`, `handle` (a file handle buffer),
/// `mount_id`, `zero` (a pointer to a zero `long`), `char`, `pair` (two
/// ints). A `clone` that succeeds exits at once in the child.
const SYSCALL_PROBE: &str = r#"import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
handle = ctypes.create_string_buffer(136)
ctypes.memmove(handle, (128).to_bytes(4, "little"), 4)
mount_id = ctypes.c_int()
zero = ctypes.c_long(0)
char = ctypes.c_char(b"x")
pair = (ctypes.c_int * 2)()
fds = {}
def arg(a):
    if isinstance(a, int):
        return ctypes.c_long(a)
    kind, _, rest = a.partition(":")
    if kind == "str":
        return ctypes.c_char_p(rest.encode())
    if kind == "fd":
        if rest not in fds:
            fds[rest] = os.open(rest, os.O_RDONLY)
        return ctypes.c_long(fds[rest])
    if kind == "null":
        return ctypes.c_void_p(None)
    if kind == "handle":
        return handle
    if kind == "mount_id":
        return ctypes.byref(mount_id)
    if kind == "zero":
        return ctypes.byref(zero)
    if kind == "char":
        return ctypes.byref(char)
    if kind == "pair":
        return pair
    raise ValueError(a)
for name, number, args in json.load(open(sys.argv[1])):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(number), *[arg(a) for a in args])
    if name.startswith("clone") and r == 0:
        os._exit(0)
    if name.startswith("clone") and r > 0:
        os.waitpid(r, 0)
    print(name, 0 if r >= 0 else ctypes.get_errno(), flush=True)
"#;

/// `_IOW(type, nr, size)` in the encoding of x86, Arm, AArch64, RISC-V,
/// s390 and LoongArch (PowerPC, MIPS and SPARC differ; the filter's own
/// constants are written for the former).
const fn iow(kind: u8, nr: u8, size: usize) -> i64 {
    ((1u64 << 30) | ((size as u64) << 16) | ((kind as u64) << 8) | nr as u64) as i64
}

/// `fchmodat2`: the same number on every architecture (the unified table
/// since Linux 6.6); `libc` does not name it on every target.
const SYS_FCHMODAT2: libc::c_long = 452;

/// What a row's argument tokens stand for: numbers of this architecture's
/// `libc`, or kinds the probe makes (see [`SYSCALL_PROBE`]); any other
/// token is a decimal number.
fn token(token: &str) -> serde_json::Value {
    use serde_json::json;
    let long = std::mem::size_of::<libc::c_long>();
    match token {
        "NOWHERE" => json!("str:/nonexistent-sandbox-probe"),
        "MARKER" => json!("str:marker.txt"),
        "MARKER_FD" => json!("fd:marker.txt"),
        "NULL_FD" => json!("fd:/dev/null"),
        "XATTR" => json!("str:user.probe"),
        "CWD" => json!(libc::AT_FDCWD),
        "SETUID" => json!(libc::S_ISUID | 0o644),
        "FIFO" => json!(libc::S_IFIFO | 0o644),
        "SETFLAGS" => json!(iow(b'f', 2, long)),
        "SETFLAGS32" => json!(iow(b'f', 2, 4)),
        "FSSETXATTR" => json!(iow(b'X', 32, 28)),
        "TIOCSTI" => json!(libc::TIOCSTI as i64),
        "TIOCLINUX" => json!(0x541c),
        "PEEKDATA" => json!(libc::PTRACE_PEEKDATA),
        "NO_PID" => json!(i32::MAX),
        "BAD_FLAGS" => json!(0xffff_ffffu32),
        "NONBLOCK" => json!(libc::O_NONBLOCK),
        "CLOEXEC" => json!(libc::O_CLOEXEC),
        "REALTIME" => json!(libc::CLOCK_REALTIME),
        "AF_UNIX" => json!(libc::AF_UNIX),
        "AF_INET" => json!(libc::AF_INET),
        "STREAM" => json!(libc::SOCK_STREAM),
        "NEWUSER" => json!(libc::CLONE_NEWUSER),
        "NEWNS" => json!(libc::CLONE_NEWNS),
        "NEWNET" => json!(libc::CLONE_NEWNET),
        "NEWUTS" => json!(libc::CLONE_NEWUTS),
        "NEWIPC" => json!(libc::CLONE_NEWIPC),
        "NEWCGROUP" => json!(libc::CLONE_NEWCGROUP),
        "NEWPID" => json!(libc::CLONE_NEWPID),
        "NEWUSER_SIGCHLD" => json!(i64::from(libc::CLONE_NEWUSER) | i64::from(libc::SIGCHLD)),
        kind if kind.contains(':')
            || ["null", "handle", "mount_id", "zero", "char", "pair"].contains(&kind) =>
        {
            json!(kind)
        }
        number => json!(
            number
                .parse::<i64>()
                .unwrap_or_else(|_| panic!("token {number}"))
        ),
    }
}

/// The refused rows of the guide (and of the `linux` module's table): a
/// call each, its arguments (tokens, see [`token`]) chosen to change
/// nothing where the call would be let through (invalid magic numbers,
/// lengths, flags, paths, process ids; `reboot`, `kexec_*`, `sethostname`
/// fail after the capability check), and the filter's answer: `EPERM`,
/// `EOPNOTSUPP` for the extended attributes, `ENOSYS` for `clone3`,
/// success for `socketpair(AF_UNIX)`. The namespace calls come last: where
/// let through they change the probe's own namespaces.
#[rustfmt::skip]
const REFUSED: &[(&str, libc::c_long, &str, i32)] = &[
    ("mount", libc::SYS_mount, "str:none NOWHERE str:tmpfs 0 null", libc::EPERM),
    ("umount2", libc::SYS_umount2, "NOWHERE 0", libc::EPERM),
    ("open_tree", libc::SYS_open_tree, "CWD NOWHERE 0", libc::EPERM),
    ("move_mount", libc::SYS_move_mount, "-1 str: -1 str: 0", libc::EPERM),
    ("mount_setattr", libc::SYS_mount_setattr, "-1 str: 0 null 0", libc::EPERM),
    ("fsopen", libc::SYS_fsopen, "str:no-such-fs-type 0", libc::EPERM),
    ("fsmount", libc::SYS_fsmount, "-1 0 0", libc::EPERM),
    ("fspick", libc::SYS_fspick, "CWD NOWHERE 0", libc::EPERM),
    ("fsconfig", libc::SYS_fsconfig, "-1 0 null null 0", libc::EPERM),
    ("pivot_root", libc::SYS_pivot_root, "NOWHERE NOWHERE", libc::EPERM),
    ("chroot", libc::SYS_chroot, "NOWHERE", libc::EPERM),
    ("setns", libc::SYS_setns, "-1 0", libc::EPERM),
    ("name_to_handle_at", libc::SYS_name_to_handle_at, "CWD MARKER handle mount_id 0", libc::EPERM),
    ("open_by_handle_at", libc::SYS_open_by_handle_at, "CWD handle 0", libc::EPERM),
    ("fchmod_setuid", libc::SYS_fchmod, "MARKER_FD SETUID", libc::EPERM),
    ("fchmodat_setuid", libc::SYS_fchmodat, "CWD MARKER SETUID", libc::EPERM),
    ("fchmodat2_setuid", SYS_FCHMODAT2, "CWD MARKER SETUID 0", libc::EPERM),
    ("ioctl_setflags", libc::SYS_ioctl, "MARKER_FD SETFLAGS zero", libc::EPERM),
    ("ioctl_setflags32", libc::SYS_ioctl, "MARKER_FD SETFLAGS32 zero", libc::EPERM),
    ("ioctl_fssetxattr", libc::SYS_ioctl, "MARKER_FD FSSETXATTR zero", libc::EPERM),
    ("ioctl_tiocsti", libc::SYS_ioctl, "NULL_FD TIOCSTI char", libc::EPERM),
    ("ioctl_tioclinux", libc::SYS_ioctl, "NULL_FD TIOCLINUX char", libc::EPERM),
    ("mknodat_fifo", libc::SYS_mknodat, "CWD str:probe-fifo FIFO 0", libc::EPERM),
    ("ptrace", libc::SYS_ptrace, "PEEKDATA NO_PID 0 0", libc::EPERM),
    ("process_vm_writev", libc::SYS_process_vm_writev, "NO_PID null 0 null 0 0", libc::EPERM),
    ("kexec_load", libc::SYS_kexec_load, "0 0 null BAD_FLAGS", libc::EPERM),
    ("kexec_file_load", libc::SYS_kexec_file_load, "-1 -1 0 null BAD_FLAGS", libc::EPERM),
    ("reboot", libc::SYS_reboot, "0 0 0 null", libc::EPERM),
    ("init_module", libc::SYS_init_module, "null 0 str:", libc::EPERM),
    ("finit_module", libc::SYS_finit_module, "-1 str: 0", libc::EPERM),
    ("delete_module", libc::SYS_delete_module, "str:no_such_probe_module NONBLOCK", libc::EPERM),
    ("bpf", libc::SYS_bpf, "9999 null 0", libc::EPERM),
    ("perf_event_open", libc::SYS_perf_event_open, "null 0 -1 -1 0", libc::EPERM),
    ("userfaultfd", libc::SYS_userfaultfd, "CLOEXEC", libc::EPERM),
    ("keyctl", libc::SYS_keyctl, "0 -3 0 0 0", libc::EPERM),
    ("add_key", libc::SYS_add_key, "null null null 0 0", libc::EPERM),
    ("request_key", libc::SYS_request_key, "null null null 0", libc::EPERM),
    ("swapon", libc::SYS_swapon, "NOWHERE 0", libc::EPERM),
    ("swapoff", libc::SYS_swapoff, "NOWHERE", libc::EPERM),
    ("acct", libc::SYS_acct, "str:/nonexistent-sandbox-probe/acct", libc::EPERM),
    ("quotactl", libc::SYS_quotactl, "0 null 0 null", libc::EPERM),
    // SYSLOG_ACTION_SIZE_BUFFER: a question.
    ("syslog", libc::SYS_syslog, "10 null 0", libc::EPERM),
    // Both null: sets nothing even where allowed.
    ("settimeofday", libc::SYS_settimeofday, "null null", libc::EPERM),
    ("clock_settime", libc::SYS_clock_settime, "REALTIME null", libc::EPERM),
    ("clock_adjtime", libc::SYS_clock_adjtime, "REALTIME null", libc::EPERM),
    ("sethostname", libc::SYS_sethostname, "str:x 1000", libc::EPERM),
    ("setdomainname", libc::SYS_setdomainname, "str:x 1000", libc::EPERM),
    ("socket_unix", libc::SYS_socket, "AF_UNIX STREAM 0", libc::EPERM),
    ("socket_inet", libc::SYS_socket, "AF_INET STREAM 0", libc::EPERM),
    ("socketpair_inet", libc::SYS_socketpair, "AF_INET STREAM 0 pair", libc::EPERM),
    ("socketpair_unix", libc::SYS_socketpair, "AF_UNIX STREAM 0 pair", 0),
    ("io_uring_setup", libc::SYS_io_uring_setup, "0 null", libc::EPERM),
    ("io_uring_enter", libc::SYS_io_uring_enter, "-1 0 0 0 null 0", libc::EPERM),
    ("io_uring_register", libc::SYS_io_uring_register, "-1 0 null 0", libc::EPERM),
    ("setxattr", libc::SYS_setxattr, "MARKER XATTR str:v 1 0", libc::EOPNOTSUPP),
    ("lsetxattr", libc::SYS_lsetxattr, "MARKER XATTR str:v 1 0", libc::EOPNOTSUPP),
    ("fsetxattr", libc::SYS_fsetxattr, "MARKER_FD XATTR str:v 1 0", libc::EOPNOTSUPP),
    ("removexattr", libc::SYS_removexattr, "MARKER XATTR", libc::EOPNOTSUPP),
    ("lremovexattr", libc::SYS_lremovexattr, "MARKER XATTR", libc::EOPNOTSUPP),
    ("fremovexattr", libc::SYS_fremovexattr, "MARKER_FD XATTR", libc::EOPNOTSUPP),
    ("clone3", libc::SYS_clone3, "null 0", libc::ENOSYS),
    ("unshare_user", libc::SYS_unshare, "NEWUSER", libc::EPERM),
    ("unshare_mount", libc::SYS_unshare, "NEWNS", libc::EPERM),
    ("unshare_net", libc::SYS_unshare, "NEWNET", libc::EPERM),
    ("unshare_uts", libc::SYS_unshare, "NEWUTS", libc::EPERM),
    ("unshare_ipc", libc::SYS_unshare, "NEWIPC", libc::EPERM),
    ("unshare_cgroup", libc::SYS_unshare, "NEWCGROUP", libc::EPERM),
    ("unshare_pid", libc::SYS_unshare, "NEWPID", libc::EPERM),
    ("clone_newuser", libc::SYS_clone, "NEWUSER_SIGCHLD 0 0 0 0", libc::EPERM),
];

/// The older calls only x86_64 has (`mknod`, `chmod`) and its I/O port
/// calls (level 0 and no ports: lowering asks for no capability).
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
const REFUSED_X86_64: &[(&str, libc::c_long, &str, i32)] = &[
    ("chmod_setuid", libc::SYS_chmod, "MARKER SETUID", libc::EPERM),
    ("mknod_fifo", libc::SYS_mknod, "str:probe-fifo-2 FIFO 0", libc::EPERM),
    ("iopl", libc::SYS_iopl, "0", libc::EPERM),
    ("ioperm", libc::SYS_ioperm, "0 0 0", libc::EPERM),
];

type Call = (&'static str, libc::c_long, Vec<serde_json::Value>);

/// The rows for this architecture, as the probe's table and the answers
/// the filter gives.
fn refused_calls() -> Vec<(Call, i32)> {
    #[cfg(target_arch = "x86_64")]
    let rows = REFUSED_X86_64.iter().chain(REFUSED);
    #[cfg(not(target_arch = "x86_64"))]
    let rows = REFUSED.iter();
    rows.map(|(name, number, args, errno)| {
        let args = args.split_whitespace().map(token).collect();
        ((*name, *number, args), *errno)
    })
    .collect()
}

/// The calls whose answer unconfined differs from the filter's, with
/// arguments harmless there too, and that ask for no capability and are
/// let through by the usual container filters (Docker's refuses
/// `unshare`, `clone3` and the handle calls itself): the check that the
/// probe sees the filter and not an error of its own.
const UNCONFINED_CONTROL: [&str; 4] = [
    "fchmodat_setuid",
    "mknodat_fifo",
    "ioctl_tiocsti",
    "socket_unix",
];

fn answers(text: &str) -> std::collections::BTreeMap<String, i32> {
    text.lines()
        .filter_map(|l| {
            let (name, errno) = l.split_once(' ')?;
            Some((name.to_owned(), errno.trim().parse().ok()?))
        })
        .collect()
}

#[tokio::test]
async fn every_refused_call_is_refused_on_any_architecture() {
    let (_base, ws) = workspace();
    let c = computer(SandboxOptions::default());
    if !namespaced(&c, &ws).await || !needed("python3") {
        return;
    }
    write(&ws, "marker.txt", "m\n");
    write(&ws, "syscalls.py", SYSCALL_PROBE);
    let calls = refused_calls();
    let table: Vec<&Call> = calls.iter().map(|(c, _)| c).collect();
    write(&ws, "calls.json", serde_json::to_string(&table).unwrap());
    let out = sh(&c, &ws, "python3 syscalls.py calls.json").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let got = answers(&stdout(&out));
    let wrong: Vec<String> = calls
        .iter()
        .filter(|((name, _, _), expected)| got.get(*name) != Some(expected))
        .map(|((name, number, _), expected)| {
            format!(
                "{name} (#{number}): {:?}, expected {expected}",
                got.get(*name)
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}\n{}", out.content);
    // Nothing the calls would have made exists.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(ws.join("marker.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o6000, 0, "set-id bits on the marker: {mode:o}");
    assert!(!ws.join("probe-fifo").exists());
    assert!(!ws.join("probe-fifo-2").exists());
    // Unconfined, the harmless ones answer otherwise: the probe sees the
    // filter, not an error of its own.
    let control: Vec<&Call> = table
        .iter()
        .copied()
        .filter(|(name, _, _)| UNCONFINED_CONTROL.contains(name))
        .collect();
    assert_eq!(control.len(), UNCONFINED_CONTROL.len());
    let control_ws = ws.join("control");
    write(&control_ws, "marker.txt", "m\n");
    write(&control_ws, "syscalls.py", SYSCALL_PROBE);
    write(
        &control_ws,
        "calls.json",
        serde_json::to_string(&control).unwrap(),
    );
    let out = sh(&unconfined(), &control_ws, "python3 syscalls.py calls.json").await;
    assert_eq!(code(&out), 0, "{}", out.content);
    let host = answers(&stdout(&out));
    for name in UNCONFINED_CONTROL {
        let expected = calls
            .iter()
            .find(|((n, _, _), _)| *n == name)
            .map(|(_, e)| *e)
            .unwrap();
        assert_ne!(
            host.get(name),
            Some(&expected),
            "{name} answers the same unconfined: {}",
            out.content
        );
    }
}
