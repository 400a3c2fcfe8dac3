//! Names the engine's knowledge: a digest of the crate's sources (the
//! program, path, option and secret tables are code), read by
//! `PolicyEngine::fingerprint` so that an approval stored under one
//! version of the tables is stale under another.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let src = Path::new("src");
    println!("cargo:rerun-if-changed=src");
    let mut paths = Vec::new();
    files(src, &mut paths);
    paths.sort();
    // FNV-1a, 64 bits: the digest only has to change when a file does.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut add = |bytes: &[u8]| {
        for b in bytes {
            hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &paths {
        add(path.to_string_lossy().replace('\\', "/").as_bytes());
        add(&[0]);
        add(&std::fs::read(path).unwrap_or_default());
        add(&[0]);
    }
    println!("cargo:rustc-env=TOOL_APPROVAL_KNOWLEDGE={hash:016x}");
}
