//! The network namespace of a command under egress by name, set up in the
//! child right after it entered its namespaces: loopback up, a listening
//! socket on `127.0.0.1:<port>` (the only way out: the proxy), handed to
//! the host over a Unix socket. Part of the crate's only `unsafe` module
//! (see its guide): async-signal-safe syscalls on the stack, nothing
//! allocated.

use super::errno;

/// The port the namespace probe listens on (any port: the namespace is
/// the probe's own).
pub(super) const PROBE_PORT: u16 = 3128;

/// Brings `lo` up in the current (new) network namespace, listens on
/// `127.0.0.1:port` and sends the listening socket over `channel` (a Unix
/// socket whose other end the host holds): the host's proxy accepts the
/// command's connections from it. Needs `CAP_NET_ADMIN` over the
/// namespace, which the child has until it drops its capabilities.
pub(super) fn hand_out_listener(channel: libc::c_int, port: u16) -> std::io::Result<()> {
    loopback_up()?;
    // SAFETY: socket with constant arguments.
    let listener =
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if listener < 0 {
        return Err(errno());
    }
    let result = bind_listen(listener, port).and_then(|()| send_fd(channel, listener));
    // SAFETY: closing the socket made above (the host has its copy).
    unsafe { libc::close(listener) };
    result
}

/// `ioctl(SIOCSIFFLAGS)` on `lo` with `IFF_UP` added.
fn loopback_up() -> std::io::Result<()> {
    // SAFETY: socket with constant arguments.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: an all-zero ifreq is valid (plain integers and arrays).
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    request.ifr_name[0] = b'l' as libc::c_char;
    request.ifr_name[1] = b'o' as libc::c_char;
    // SAFETY: `request` lives for both calls; the kernel reads and writes
    // only the ifreq it points at; the union's flags member is the one
    // SIOCGIFFLAGS fills.
    let result = unsafe {
        if libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request as *mut libc::ifreq) != 0 {
            Err(errno())
        } else {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            if libc::ioctl(fd, libc::SIOCSIFFLAGS, &request as *const libc::ifreq) != 0 {
                Err(errno())
            } else {
                Ok(())
            }
        }
    };
    // SAFETY: closing the socket made above.
    unsafe { libc::close(fd) };
    result
}

/// Binds `fd` to `127.0.0.1:port` and listens.
fn bind_listen(fd: libc::c_int, port: u16) -> std::io::Result<()> {
    let one: libc::c_int = 1;
    // SAFETY: an all-zero sockaddr_in is valid; the fields are set below.
    let mut address: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    address.sin_family = libc::AF_INET as libc::sa_family_t;
    address.sin_port = port.to_be();
    address.sin_addr = libc::in_addr {
        s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be(),
    };
    // SAFETY: `one` and `address` live for the calls, with their sizes.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_REUSEADDR,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        if libc::bind(
            fd,
            (&address as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ) != 0
        {
            return Err(errno());
        }
        if libc::listen(fd, 128) != 0 {
            return Err(errno());
        }
    }
    Ok(())
}

/// Sends `fd` over the Unix socket `channel` (`SCM_RIGHTS`, one data byte).
fn send_fd(channel: libc::c_int, fd: libc::c_int) -> std::io::Result<()> {
    /// Room for one `cmsghdr` carrying one descriptor, aligned.
    #[repr(C, align(8))]
    struct Control([u8; 64]);
    let mut control = Control([0; 64]);
    let mut byte = [b'L'];
    let mut data = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: an all-zero msghdr is valid; the pointers set below point
    // at locals that outlive the sendmsg call; CMSG_SPACE of one int fits
    // in the 64 aligned bytes of `control`.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut data;
        message.msg_iovlen = 1;
        let space = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as usize;
        message.msg_control = control.0.as_mut_ptr().cast();
        message.msg_controllen = space.min(control.0.len()) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        if header.is_null() {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>(), fd);
        if libc::sendmsg(channel, &message, libc::MSG_NOSIGNAL) != 1 {
            return Err(errno());
        }
    }
    Ok(())
}

/// Receives the listener the child sent over `channel` (`None`: the child
/// closed its end without sending one). Runs in the host, blocking.
#[cfg(feature = "egress")]
pub(crate) fn receive_listener(
    channel: &std::os::fd::OwnedFd,
) -> std::io::Result<Option<std::os::fd::OwnedFd>> {
    use std::os::fd::{AsRawFd as _, FromRawFd as _};
    /// Room for one `cmsghdr` carrying one descriptor, aligned.
    #[repr(C, align(8))]
    struct Control([u8; 64]);
    let mut control = Control([0; 64]);
    let mut byte = [0u8];
    let mut data = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: an all-zero msghdr is valid; its pointers point at locals
    // that outlive the recvmsg call, with their sizes; the control data
    // read back is bounded by the kernel's `msg_controllen`.
    unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut data;
        message.msg_iovlen = 1;
        message.msg_control = control.0.as_mut_ptr().cast();
        message.msg_controllen = control.0.len() as _;
        let received = loop {
            let n = libc::recvmsg(channel.as_raw_fd(), &mut message, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 || errno().raw_os_error() != Some(libc::EINTR) {
                break n;
            }
        };
        if received < 0 {
            return Err(errno());
        }
        let mut header = libc::CMSG_FIRSTHDR(&message);
        let mut listener = None;
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>());
                // The kernel installed `fd` in this process for this
                // message: nothing else owns it.
                let owned = std::os::fd::OwnedFd::from_raw_fd(fd);
                listener.get_or_insert(owned);
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
        Ok(listener)
    }
}
