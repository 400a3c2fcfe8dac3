//! Checks on the words of one command view (`rm -rf /`, `chmod u+s`, …).

use std::path::Path;

use super::Ctx;
use super::paths::is_kernel_path;
use crate::path_scope::{real_path, resolve_path};
use crate::shell::{basename, is_shell};

pub(super) fn program(view: &[String]) -> &str {
    view.first().map(|w| basename(w)).unwrap_or_default()
}

/// Short flags (`-rf`, `-r -f`) and long flags of a view, before `--`.
pub(super) fn has_flag(view: &[String], short: &[char], long: &[&str]) -> bool {
    for word in view.iter().skip(1) {
        if word == "--" {
            break;
        }
        if let Some(name) = word.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or(name);
            if long.contains(&name) {
                return true;
            }
        } else if let Some(flags) = word.strip_prefix('-')
            && flags.chars().any(|c| short.contains(&c))
        {
            return true;
        }
    }
    false
}

/// Non-option words of a view (everything after `--` counts).
pub(super) fn operands(view: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut options_done = false;
    for word in view.iter().skip(1) {
        if !options_done && word == "--" {
            options_done = true;
            continue;
        }
        if !options_done && word.starts_with('-') && word.len() > 1 {
            continue;
        }
        out.push(word.as_str());
    }
    out
}

pub(super) const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/snap",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
];

/// Whether removing or re-owning `target` recursively would wreck the system
/// or a home directory.
pub(super) fn is_precious_tree(target: &str, ctx: &Ctx<'_>) -> bool {
    let mut t = target.trim().to_owned();
    if matches!(t.as_str(), "*" | ".*" | "./.*" | "./" | ".[!.]*" | "..?*") {
        // Everything in the directory the command runs in.
        t = ".".to_owned();
    }
    let relative = !(t.starts_with('/') || t.starts_with('~') || t.starts_with('$'));
    if ctx.unknown_dir && relative && (t == "." || t == ".." || t.starts_with("../")) {
        return true;
    }
    while t.len() > 1 && (t.ends_with('/') || t.ends_with("/*") || t.ends_with("/.")) {
        t.truncate(t.len() - if t.ends_with('/') { 1 } else { 2 });
    }
    if t.is_empty() || t == "/" || t == "/*" {
        return true;
    }
    if t == "~" || (t.starts_with('~') && !t.contains('/')) {
        return true;
    }
    if matches!(
        t.as_str(),
        "$HOME" | "${HOME}" | "~/" | "$HOME/" | "${HOME}/"
    ) {
        return true;
    }
    let resolved = if t.starts_with('/')
        || t.starts_with('~')
        || t.starts_with("$HOME")
        || t.starts_with("${HOME}")
    {
        resolve_path(&t, Path::new("/"), ctx.home)
    } else {
        ctx.cwd.and_then(|cwd| resolve_path(&t, cwd, ctx.home))
    };
    let Some(resolved) = resolved else {
        return t.starts_with('~');
    };
    if resolved == Path::new("/") || ctx.home.is_some_and(|h| real_path(h) == resolved) {
        return true;
    }
    let shown = resolved.display().to_string();
    if SYSTEM_DIRS.contains(&shown.as_str()) {
        return true;
    }
    // A user's home directory: /home/NAME, /Users/NAME, /root.
    let components: Vec<&str> = shown.split('/').filter(|c| !c.is_empty()).collect();
    matches!(components.as_slice(), ["home" | "Users", _])
}

pub(super) fn rm_recursive_root(view: &[String], ctx: &Ctx<'_>) -> bool {
    match program(view) {
        "rm" => {
            let recursive = has_flag(view, &['r', 'R'], &["recursive"]);
            let no_preserve = has_flag(view, &[], &["no-preserve-root"]);
            (recursive || no_preserve) && operands(view).iter().any(|t| is_precious_tree(t, ctx))
        }
        "find" => {
            view.iter().any(|w| w == "-delete")
                && view
                    .iter()
                    .skip(1)
                    .take_while(|w| !w.starts_with('-'))
                    .any(|t| is_precious_tree(t, ctx))
        }
        _ => false,
    }
}

pub(super) fn fork_bomb(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut names: Vec<String> = Vec::new();
    let mut rest = squeezed.as_str();
    while let Some(at) = rest.find("(){") {
        let head = rest.get(..at).unwrap_or_default();
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| !matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let name = name.strip_prefix("function").unwrap_or(&name).to_owned();
        if !name.is_empty() {
            names.push(name);
        }
        rest = rest.get(at + 3..).unwrap_or_default();
    }
    for (index, _) in squeezed.match_indices("function") {
        let after = squeezed.get(index + "function".len()..).unwrap_or_default();
        let name: String = after
            .chars()
            .take_while(|c| !matches!(c, '{' | '('))
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
        .iter()
        .any(|n| squeezed.contains(&format!("{n}|{n}&")) || squeezed.contains(&format!("{n}&{n}&")))
}

pub(super) fn dd_to_device(view: &[String]) -> bool {
    program(view) == "dd"
        && view.iter().any(|w| {
            w.strip_prefix("of=").is_some_and(|target| {
                target.starts_with("/dev/")
                    && !matches!(
                        target,
                        "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                    )
                    && !target.starts_with("/dev/fd/")
            })
        })
}

pub(super) fn format_device(view: &[String]) -> bool {
    let name = program(view);
    if name.starts_with("mkfs") || matches!(name, "mke2fs" | "mkswap" | "mkdosfs" | "newfs") {
        return true;
    }
    matches!(
        name,
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" | "wipefs" | "diskutil"
    ) && view
        .iter()
        .skip(1)
        .any(|w| w.starts_with("/dev/") || matches!(w.as_str(), "eraseDisk" | "partitionDisk"))
}

pub(super) fn kernel_write(view: &[String]) -> bool {
    match program(view) {
        "sysctl" => {
            has_flag(view, &['w', 'p'], &["write", "load", "system"])
                || operands(view).iter().any(|w| w.contains('='))
        }
        "tee" | "cp" | "dd" | "install" | "mv" => view
            .iter()
            .skip(1)
            .any(|w| is_kernel_path(w.strip_prefix("of=").unwrap_or(w))),
        _ => false,
    }
}

pub(super) fn recursive_chown_system(view: &[String], ctx: &Ctx<'_>) -> bool {
    matches!(program(view), "chown" | "chmod" | "chgrp")
        && has_flag(view, &['R'], &["recursive"])
        && operands(view)
            .iter()
            .skip(1)
            .any(|t| is_precious_tree(t, ctx))
}

pub(super) fn setuid_shell(view: &[String]) -> bool {
    if program(view) != "chmod" {
        return false;
    }
    let ops = operands(view);
    let Some(mode) = ops.first() else {
        return false;
    };
    let symbolic = mode
        .split(',')
        .any(|m| m.contains('+') && m.rsplit('+').next().is_some_and(|p| p.contains('s')))
        || mode
            .split(',')
            .any(|m| m.contains('=') && m.rsplit('=').next().is_some_and(|p| p.contains('s')));
    let octal = mode.len() == 4
        && mode.chars().all(|c| c.is_digit(8))
        && mode
            .chars()
            .next()
            .is_some_and(|c| matches!(c, '2' | '4' | '6' | '7' | '3' | '5'));
    (symbolic || octal) && ops.iter().skip(1).any(|t| is_shell(basename(t)))
}

pub(super) fn firewall_off(view: &[String]) -> bool {
    let ops = operands(view);
    let first = ops.first().copied().unwrap_or_default();
    let is_firewall = |w: &str| {
        matches!(
            w.trim_end_matches(".service"),
            "firewalld"
                | "ufw"
                | "iptables"
                | "ip6tables"
                | "nftables"
                | "pf"
                | "netfilter-persistent"
        )
    };
    match program(view) {
        "ufw" => matches!(first, "disable" | "reset"),
        "systemctl" => matches!(first, "stop" | "disable" | "mask" | "kill") && ops.iter().skip(1).any(|w| is_firewall(w)),
        "service" => ops.len() >= 2 && is_firewall(first) && matches!(ops.get(1).copied(), Some("stop")),
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" => {
            has_flag(view, &['F', 'X'], &["flush", "delete-chain"])
                || (has_flag(view, &['P'], &["policy"]) && view.iter().any(|w| w == "ACCEPT"))
        }
        "nft" => ops.windows(2).any(|w| matches!(w, [a, b] if (*a == "flush" && *b == "ruleset") || (*a == "delete" && *b == "table"))),
        "setenforce" => matches!(first, "0" | "Permissive" | "permissive"),
        "pfctl" => has_flag(view, &['d'], &[]),
        "netsh" => view.iter().any(|w| w.eq_ignore_ascii_case("off")) && view.iter().any(|w| w.eq_ignore_ascii_case("advfirewall")),
        _ => false,
    }
}

pub(super) fn is_read_only(view: &[String]) -> bool {
    matches!(
        program(view),
        "cat"
            | "less"
            | "more"
            | "head"
            | "tail"
            | "grep"
            | "rg"
            | "diff"
            | "stat"
            | "ls"
            | "wc"
            | "file"
            | "sshd"
    )
}

pub(super) const CORE_PACKAGES: &[&str] = &[
    "systemd",
    "bash",
    "coreutils",
    "libc6",
    "libc-bin",
    "glibc",
    "glibc-common",
    "sudo",
    "openssh-server",
    "openssh",
    "apt",
    "dpkg",
    "rpm",
    "yum",
    "dnf",
    "pacman",
    "util-linux",
    "login",
    "passwd",
    "base-files",
    "base",
    "filesystem",
    "init",
    "sysvinit",
    "perl-base",
    "e2fsprogs",
    "dash",
    "shadow-utils",
    "shadow",
    "linux",
    "kernel",
    "grub",
    "grub2",
    "grub-pc",
    "python3",
    "*",
];

pub(super) fn is_core_package(name: &str) -> bool {
    let name = name.split([':', '=']).next().unwrap_or(name);
    CORE_PACKAGES.contains(&name)
        || [
            "linux-image",
            "linux-headers",
            "kernel-",
            "grub",
            "systemd-",
            "libc6",
            "glibc",
        ]
        .iter()
        .any(|p| name.starts_with(p))
        || name.contains('*')
}

pub(super) fn remove_core_package(view: &[String]) -> bool {
    let ops = operands(view);
    let first = ops.first().copied().unwrap_or_default();
    let packages = || ops.iter().skip(1);
    if has_flag(
        view,
        &[],
        &["force-remove-essential", "allow-remove-essential"],
    ) {
        return true;
    }
    match program(view) {
        "apt" | "apt-get" | "aptitude" => {
            matches!(first, "remove" | "purge" | "autoremove")
                && packages().any(|p| is_core_package(p))
        }
        "yum" | "dnf" | "microdnf" | "zypper" | "snap" => {
            matches!(first, "remove" | "erase" | "autoremove" | "rm")
                && packages().any(|p| is_core_package(p))
        }
        "apk" => first == "del" && packages().any(|p| is_core_package(p)),
        "pacman" => {
            view.iter()
                .skip(1)
                .any(|w| w.starts_with("-R") || w == "--remove")
                && ops.iter().any(|p| is_core_package(p))
        }
        "dpkg" => {
            has_flag(view, &['r', 'P'], &["remove", "purge"])
                && ops.iter().any(|p| is_core_package(p))
        }
        "rpm" => has_flag(view, &['e'], &["erase"]) && ops.iter().any(|p| is_core_package(p)),
        _ => false,
    }
}
