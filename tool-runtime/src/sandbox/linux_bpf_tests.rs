//! The compiled seccomp programs, run by a small classic-BPF interpreter on
//! made-up calls: what the kernel would answer, including for calls this
//! machine cannot make (the x32 ABI, other architectures).

use super::{Network, filters_for};
use seccompiler::sock_filter;

const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
const AUDIT_ARCH_I386: u32 = 3 | 0x4000_0000;
const X32_BIT: u32 = 0x4000_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const ACTION: u32 = 0xffff_0000;

/// One call as the kernel hands it to a filter (`struct seccomp_data`).
struct Call {
    nr: u32,
    arch: u32,
    args: [u64; 6],
}

impl Call {
    fn word(&self, offset: u32) -> u32 {
        match offset {
            0 => self.nr,
            4 => self.arch,
            8 | 12 => 0, // instruction pointer
            o if (16..64).contains(&o) => {
                let arg = self.args[((o - 16) / 8) as usize];
                if (o - 16) % 8 == 0 {
                    arg as u32
                } else {
                    (arg >> 32) as u32
                }
            }
            o => panic!("load of offset {o} outside seccomp_data"),
        }
    }
}

/// Runs one program; returns its return value. Panics on an opcode it does
/// not know, so a new kind of program fails the test instead of passing.
fn run(program: &[sock_filter], call: &Call) -> u32 {
    let (mut acc, mut pc) = (0u32, 0usize);
    loop {
        let op = &program[pc];
        pc += 1;
        let jump = |taken: bool| usize::from(if taken { op.jt } else { op.jf });
        match op.code {
            0x20 => acc = call.word(op.k),       // ld [k]
            0x54 => acc &= op.k,                 // and #k
            0x05 => pc += op.k as usize,         // ja
            0x15 => pc += jump(acc == op.k),     // jeq
            0x25 => pc += jump(acc > op.k),      // jgt
            0x35 => pc += jump(acc >= op.k),     // jge
            0x45 => pc += jump(acc & op.k != 0), // jset
            0x06 => return op.k,                 // ret #k
            code => panic!("opcode {code:#x} at {} not interpreted", pc - 1),
        }
    }
}

/// What all programs together answer: the kernel takes the most
/// restrictive action (here: any errno over allow, a kill over both).
fn answer(network: Network, call: &Call) -> u32 {
    let programs = filters_for(network).expect("the filters compile");
    programs
        .iter()
        .map(|p| run(p, call))
        .min_by_key(|ret| match ret & ACTION {
            RET_ALLOW => 3,
            RET_ERRNO => 2,
            _ => 1,
        })
        .expect("at least one program")
}

fn call(arch: u32, nr: i64, args: [u64; 6]) -> Call {
    Call {
        nr: nr as u32,
        arch,
        args,
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn every_x32_call_answers_enosys_and_x86_64_calls_are_judged_by_the_rows() {
    let x86 = |nr, args| call(AUDIT_ARCH_X86_64, nr, args);
    for network in [Network::Off, Network::Egress, Network::On] {
        // Plain calls pass.
        assert_eq!(answer(network, &x86(libc::SYS_getpid, [0; 6])), RET_ALLOW);
        assert_eq!(
            answer(network, &x86(libc::SYS_ioctl, [1, 0x5401, 0, 0, 0, 0])),
            RET_ALLOW,
            "TCGETS stays allowed"
        );
        // A row of the table: TIOCSTI is refused with EPERM.
        assert_eq!(
            answer(network, &x86(libc::SYS_ioctl, [1, 0x5412, 0, 0, 0, 0])),
            RET_ERRNO | libc::EPERM as u32
        );
        // fchmodat2 with a setuid bit, by its number on every architecture.
        assert_eq!(
            answer(
                network,
                &x86(452, [0, 0, u64::from(libc::S_ISUID), 0, 0, 0])
            ),
            RET_ERRNO | libc::EPERM as u32
        );
        assert_eq!(
            answer(network, &x86(452, [0, 0, 0o644, 0, 0, 0])),
            RET_ALLOW
        );
        // x32: its own numbers (ioctl is 514, process_vm_writev 540) and
        // the x86_64 numbers with the bit, harmless or not: all ENOSYS.
        for nr in [514, 540, libc::SYS_getpid, libc::SYS_ioctl, libc::SYS_mount] {
            assert_eq!(
                answer(network, &x86(X32_BIT as i64 | nr, [1, 0x5412, 0, 0, 0, 0])),
                RET_ERRNO | libc::ENOSYS as u32,
                "x32 call {nr}"
            );
        }
    }
    // 32-bit x86 is not allowed through by the x32 program: the other
    // programs' architecture check answers it.
    let i386 = call(AUDIT_ARCH_I386, 20, [0; 6]);
    assert_ne!(answer(Network::Off, &i386) & ACTION, RET_ALLOW);
}

#[test]
fn the_interpreter_refuses_what_the_filter_refuses_on_this_architecture() {
    let arch = match std::env::consts::ARCH {
        "x86_64" => AUDIT_ARCH_X86_64,
        "aarch64" => 183 | 0x8000_0000 | 0x4000_0000,
        other => panic!("no audit architecture for {other} in this test"),
    };
    let here = |nr, args| call(arch, nr, args);
    assert_eq!(
        answer(Network::Off, &here(libc::SYS_mknodat, [0; 6])),
        RET_ERRNO | libc::EPERM as u32
    );
    assert_eq!(
        answer(
            Network::Off,
            &here(libc::SYS_socket, [libc::AF_INET as u64, 1, 0, 0, 0, 0])
        ),
        RET_ERRNO | libc::EPERM as u32
    );
    assert_eq!(
        answer(
            Network::On,
            &here(libc::SYS_socket, [libc::AF_INET as u64, 1, 0, 0, 0, 0])
        ),
        RET_ALLOW
    );
    assert_eq!(
        answer(Network::On, &here(libc::SYS_clone3, [0; 6])),
        RET_ERRNO | libc::ENOSYS as u32
    );
}
