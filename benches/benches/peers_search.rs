//! Our side of the search pairs run by `benches/run`, with `rg` measured in
//! the same process the same way: `grepContent` and `globFiles` over a
//! generated tree | the `rg` binary with the same query, ignore rules,
//! thread count, sorting and output volume; rg's process start is measured
//! on its own (`rg` over a directory of one small file) so the runner can subtract it.
//!
//! Environment: `TOOL_BENCHES_SEARCH_FILES` (default 25 000 files of ~20 KB,
//! ~500 MB; `benches/run --quick` uses 2 500) and `TOOL_BENCHES_RG` (the
//! `rg` binary; default `rg` on the `PATH`). The tree is generated once
//! under the target directory (`target/bench-search-tree-<files>`) and
//! reused while its marker file is there.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use tool_core::ToolContext;
use tool_runtime::{
    ComputerRuntime, GlobFilesParams, GrepContentParams, GrepOutputMode, LocalComputer, LocalConfig,
};

/// Lines per file (~64 bytes each: ~20 KB per file).
const LINES: usize = 320;
/// One file in this many holds a matching line.
const MATCH_EVERY: usize = 25;
/// File extensions, in turn; the glob looks for one of them.
const EXTENSIONS: [&str; 5] = ["rs", "md", "txt", "json", "toml"];
const PATTERN: &str = r"needle_\d+";

fn files_wanted() -> usize {
    std::env::var("TOOL_BENCHES_SEARCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25_000)
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

fn write_file(path: &Path, f: usize, needle: bool) {
    let mut body = String::with_capacity(LINES * 66);
    for l in 0..LINES {
        if needle && l == LINES / 2 {
            body.push_str(&format!(
                "    let needle_{f} = compute({l}); // the line we look for ........\n"
            ));
        } else {
            body.push_str(&format!(
                "    let value_{l} = item_{f}.field_{l} + other({l}); // filler ....\n"
            ));
        }
    }
    std::fs::write(path, body).unwrap();
}

/// The tree: `files` visible files in `pkgNN/modNN/`, plus what the ignore
/// rules must skip (a `.gitignore`d `generated/` folder and `*.log` files,
/// a hidden `.cache/`), all of which contain matches too.
fn tree(files: usize) -> PathBuf {
    let root = target_dir().join(format!("bench-search-tree-{files}"));
    let marker = root.join(".complete");
    if marker.exists() {
        return root;
    }
    if root.exists() {
        std::fs::remove_dir_all(&root).unwrap();
    }
    eprintln!(
        "generating the search tree ({files} files) in {}",
        root.display()
    );
    for f in 0..files {
        let dir = root.join(format!("pkg{:02}/mod{:02}", f % 50, (f / 50) % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let ext = EXTENSIONS[f % EXTENSIONS.len()];
        write_file(&dir.join(format!("file{f}.{ext}")), f, f % MATCH_EVERY == 0);
    }
    std::fs::write(root.join(".gitignore"), "generated/\n*.log\n").unwrap();
    for (dir, name) in [
        ("generated", "out.rs"),
        ("pkg00", "build.log"),
        (".cache", "c.md"),
    ] {
        for i in 0..20 {
            let d = root.join(dir).join(format!("d{i}"));
            std::fs::create_dir_all(&d).unwrap();
            write_file(&d.join(name), 900_000 + i, true);
        }
    }
    std::fs::write(&marker, "").unwrap();
    root
}

fn rg_binary() -> String {
    std::env::var("TOOL_BENCHES_RG").unwrap_or_else(|_| "rg".to_owned())
}

/// Runs `rg` in `dir` and returns its standard output.
fn rg(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(rg_binary())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("rg runs");
    // rg exits 1 when nothing matched: that is the process-start probe.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "rg failed: {out:?}"
    );
    out.stdout
}

fn benches(c: &mut Criterion) {
    let files = files_wanted();
    let root = tree(files);
    let expected = files.div_ceil(MATCH_EVERY);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let computer = LocalComputer::new(LocalConfig::default());
    let ctx = ToolContext::new().with_cwd(&root);
    // grepContent uses min(cores, 4) threads; rg gets the same.
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(4)
        .to_string();

    let grep = GrepContentParams {
        output_mode: Some(GrepOutputMode::Content),
        limit: Some(expected + 100),
        ..GrepContentParams::new(PATTERN)
    };
    let ours = rt.block_on(computer.grep_content(grep.clone(), &ctx));
    assert!(ours.success, "{ours:?}");
    assert_eq!(ours.state.as_ref().unwrap()["totalMatches"], expected);

    // Same ignore rules as ours: .gitignore/.ignore also outside a git repo,
    // hidden entries skipped; line numbers; all matches (same volume).
    let rg_sorted = [
        "-n",
        "--no-require-git",
        "-j",
        &threads,
        "--sort",
        "path",
        PATTERN,
    ];
    let rg_parallel = ["-n", "--no-require-git", "-j", &threads, PATTERN];
    for args in [&rg_sorted[..], &rg_parallel[..]] {
        let lines = rg(&root, args).iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines, expected, "rg {args:?} found another set of lines");
    }

    let mut group = c.benchmark_group("peers_search");
    group.sample_size(10);
    group.bench_function("grepContent", |b| {
        b.iter(|| black_box(rt.block_on(computer.grep_content(grep.clone(), &ctx))))
    });
    group.bench_function("rg_sorted", |b| {
        b.iter(|| black_box(rg(&root, &rg_sorted).len()))
    });
    group.bench_function("rg_parallel_unsorted", |b| {
        b.iter(|| black_box(rg(&root, &rg_parallel).len()))
    });

    // globFiles of one extension in five, every result returned.
    let glob = GlobFilesParams {
        pattern: "*.md".to_owned(),
        path: None,
        include_ignored: None,
        include_hidden: None,
        limit: Some(files),
    };
    let ours = rt.block_on(computer.glob_files(glob.clone(), &ctx));
    assert!(ours.success, "{ours:?}");
    let globbed = ours.state.as_ref().unwrap()["total"].as_u64().unwrap() as usize;
    assert_eq!(
        globbed,
        (0..files).filter(|f| f % EXTENSIONS.len() == 1).count()
    );
    let rg_files = [
        "--files",
        "--no-require-git",
        "-j",
        &threads,
        "--sort",
        "path",
        "-g",
        "*.md",
    ];
    let listed = rg(&root, &rg_files).iter().filter(|&&b| b == b'\n').count();
    assert_eq!(listed, globbed, "rg --files lists another set");
    group.bench_function("globFiles", |b| {
        b.iter(|| black_box(rt.block_on(computer.glob_files(glob.clone(), &ctx))))
    });
    group.bench_function("rg_files_sorted", |b| {
        b.iter(|| black_box(rg(&root, &rg_files).len()))
    });

    // rg's process start: the same search over one small file.
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("one.txt"), "nothing to find\n").unwrap();
    group.bench_function("rg_process_start", |b| {
        b.iter(|| black_box(rg(empty.path(), &rg_sorted).len()))
    });
    group.finish();
}

criterion_group!(search, benches);
criterion_main!(search);
