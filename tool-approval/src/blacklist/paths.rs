//! Checks on paths: secrets, account files, devices, kernel files.

use std::path::{Path, PathBuf};

use crate::path_scope::resolve_path;

pub(super) fn add_path(
    paths: &mut Vec<String>,
    raw: &str,
    cwd: Option<&Path>,
    home: Option<&Path>,
) {
    paths.push(raw.to_owned());
    let lexical = path_clean::clean(raw).display().to_string();
    if lexical != raw {
        paths.push(lexical);
    }
    let base = cwd
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"));
    if (cwd.is_some() || raw.starts_with('/') || raw.starts_with('~'))
        && let Some(resolved) = resolve_path(raw, &base, home)
    {
        let resolved = resolved.display().to_string();
        if resolved != raw {
            paths.push(resolved);
        }
    }
}

pub(super) fn looks_like_path(word: &str) -> bool {
    word.contains('/')
        || word.starts_with('.')
        || word.starts_with('~')
        || word.contains("history")
        || matches!(
            word,
            "Cookies" | "cookies.sqlite" | "Login Data" | "logins.json" | "key4.db"
        )
}

pub(super) fn system_accounts(path: &str) -> bool {
    let cleaned = path_clean::clean(path).display().to_string();
    [
        "/etc/passwd",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/master.passwd",
    ]
    .iter()
    .any(|p| cleaned.starts_with(p) || path.starts_with(p))
}

pub(super) fn is_disk_device(path: &str) -> bool {
    let Some(dev) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "mapper/",
    ]
    .iter()
    .any(|p| dev.starts_with(p))
}

pub(super) fn is_kernel_path(path: &str) -> bool {
    let cleaned = path_clean::clean(path).display().to_string();
    cleaned.starts_with("/proc/sys/")
        || cleaned == "/proc/sysrq-trigger"
        || cleaned.starts_with("/sys/kernel/")
}

/// Secret files: env files, private keys, cloud/docker/kube credentials,
/// shell histories, browser cookie and login stores.
pub(crate) fn is_secret(path: &str) -> bool {
    let cleaned = path.replace('\\', "/");
    let components: Vec<&str> = cleaned
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let Some(name) = components.last().copied() else {
        return false;
    };
    if name == ".env"
        || (name.starts_with(".env.")
            && !matches!(
                name.rsplit('.').next(),
                Some("example" | "sample" | "template" | "dist" | "defaults")
            ))
        || name.ends_with(".env")
    {
        return true;
    }
    let private_key = |n: &str| {
        (n.starts_with("id_") && !n.ends_with(".pub"))
            || matches!(
                n,
                "identity" | "ssh_host_rsa_key" | "ssh_host_ed25519_key" | "ssh_host_ecdsa_key"
            )
    };
    if private_key(name) {
        return true;
    }
    let has = |c: &str| components.contains(&c);
    if has(".ssh")
        && !(name.ends_with(".pub")
            || matches!(name, "known_hosts" | "config" | "authorized_keys" | ".ssh"))
    {
        return true;
    }
    if has(".ssh") && name == ".ssh" {
        return true;
    }
    if has(".aws") || has(".azure") || has(".gnupg") || has(".password-store") {
        return true;
    }
    let joined = components.join("/");
    if joined.contains(".config/gcloud")
        || joined.ends_with(".kube/config")
        || joined.ends_with(".docker/config.json")
        || joined.contains(".config/gh/hosts")
    {
        return true;
    }
    if matches!(
        name,
        ".netrc"
            | ".pgpass"
            | ".git-credentials"
            | ".npmrc"
            | ".pypirc"
            | "credentials.json"
            | ".bash_history"
            | ".zsh_history"
            | ".sh_history"
            | ".history"
            | "fish_history"
            | ".python_history"
            | ".node_repl_history"
            | ".psql_history"
            | ".mysql_history"
            | ".lesshst"
            | ".viminfo"
            | "Cookies"
            | "cookies.sqlite"
            | "Cookies.binarycookies"
            | "Login Data"
            | "logins.json"
            | "key4.db"
            | "Web Data"
    ) {
        return true;
    }
    false
}
