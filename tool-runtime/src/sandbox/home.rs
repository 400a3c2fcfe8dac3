//! The home directory under confinement: hidden, except the toolchain
//! locations builds need.
//!
//! A confined command cannot read the host user's home (other projects,
//! dotfiles, browser profiles, every credential file nobody listed) except
//! the rows of [`TOOLCHAIN`] that exist, readable (secret entries inside
//! them stay unreadable), and, when
//! [`SandboxOptions::toolchain_caches_writable`](super::SandboxOptions::toolchain_caches_writable)
//! is on (the default), the [`Access::Cache`] rows writable too, so
//! `cargo build` can unpack a crate and `npm install` fill its cache. A
//! host adds rows with
//! [`SandboxOptions::home_readable`](super::SandboxOptions::home_readable)
//! and [`SandboxOptions::home_caches`](super::SandboxOptions::home_caches).
//! A workspace or writable root inside the home is readable and writable as
//! always.

use std::path::{Path, PathBuf};

/// What a confined command may do with a toolchain location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read and run.
    Read,
    /// A cache: read, and written when the host allows it.
    Cache,
}

/// Toolchain locations beneath the home (relative), what they hold.
pub(crate) const TOOLCHAIN: &[(&str, Access, &str)] = &[
    (".cargo/bin", Access::Read, "rustup's and cargo's programs"),
    (".cargo/env", Access::Read, "rustup's shell setup"),
    (".cargo/config.toml", Access::Read, "cargo's settings"),
    (
        ".cargo/registry",
        Access::Cache,
        "downloaded and unpacked crates",
    ),
    (".cargo/git", Access::Cache, "git dependencies"),
    (".rustup", Access::Read, "Rust toolchains"),
    (".npm", Access::Cache, "npm's cache and logs"),
    (".nvm", Access::Read, "Node versions (nvm)"),
    (".volta", Access::Read, "Node versions (Volta)"),
    (".cache/yarn", Access::Cache, "yarn's cache"),
    (".yarn/berry/cache", Access::Cache, "yarn berry's cache"),
    (
        ".local/share/pnpm",
        Access::Cache,
        "pnpm's store and programs",
    ),
    (".cache/pnpm", Access::Cache, "pnpm's cache"),
    (".bun", Access::Cache, "bun and its cache"),
    (".deno", Access::Cache, "deno and its cache"),
    (".pyenv", Access::Read, "Python versions (pyenv)"),
    (".cache/pip", Access::Cache, "pip's cache"),
    (".cache/uv", Access::Cache, "uv's cache"),
    (".local/share/uv", Access::Read, "uv's Pythons and tools"),
    (".cache/pypoetry", Access::Cache, "poetry's cache"),
    (".local/bin", Access::Read, "user programs (pipx, uv tools)"),
    (".local/lib", Access::Read, "user Python packages"),
    ("go/bin", Access::Read, "Go programs"),
    ("go/pkg/mod", Access::Cache, "Go modules"),
    (".cache/go-build", Access::Cache, "Go's build cache"),
    (".gradle/caches", Access::Cache, "Gradle's cache"),
    (
        ".gradle/wrapper/dists",
        Access::Cache,
        "Gradle distributions",
    ),
    (".m2/repository", Access::Cache, "Maven's repository"),
    (".sdkman", Access::Read, "JDKs (SDKMAN)"),
    (".asdf", Access::Read, "tool versions (asdf)"),
    (".local/share/mise", Access::Read, "tool versions (mise)"),
    (".rbenv", Access::Read, "Ruby versions"),
    (".gitconfig", Access::Read, "git's user settings"),
    (".config/git", Access::Read, "git's user settings"),
];

/// The existing toolchain locations of `home`: `(path, writable)`, the
/// host's extra ones included (relative entries are beneath `home`).
pub(crate) fn locations(
    home: &Path,
    caches_writable: bool,
    extra_read: &[PathBuf],
    extra_caches: &[PathBuf],
) -> Vec<(PathBuf, bool)> {
    let rows = TOOLCHAIN
        .iter()
        .map(|(rel, access, _)| (home.join(rel), *access == Access::Cache && caches_writable))
        .chain(extra_read.iter().map(|p| (home.join(p), false)))
        .chain(extra_caches.iter().map(|p| (home.join(p), true)));
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for (path, writable) in rows {
        // Canonical, and still in the home: a symlink out of it is not
        // followed into the rest of the machine's writable places.
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        if !out.iter().any(|(p, _)| *p == real) {
            out.push((real, writable));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_existing_locations_count_and_caches_follow_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(home.join(".cargo/registry")).unwrap();
        std::fs::create_dir_all(home.join(".rustup")).unwrap();
        std::fs::create_dir_all(home.join("tools/cache")).unwrap();
        let found = locations(&home, true, &[], &[PathBuf::from("tools/cache")]);
        assert!(found.contains(&(home.join(".cargo/registry"), true)));
        assert!(found.contains(&(home.join(".rustup"), false)));
        assert!(found.contains(&(home.join("tools/cache"), true)));
        assert!(!found.iter().any(|(p, _)| p.ends_with(".npm")));
        let read_only = locations(&home, false, &[], &[]);
        assert!(read_only.contains(&(home.join(".cargo/registry"), false)));
    }

    #[test]
    fn toolchain_rows_are_relative_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for (rel, _, what) in TOOLCHAIN {
            assert!(!rel.starts_with('/') && !rel.contains(".."), "{rel}");
            assert!(!what.is_empty());
            assert!(seen.insert(*rel), "{rel} twice");
        }
    }
}
