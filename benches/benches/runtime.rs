//! tool-runtime: grepContent over a generated tree (with the `rg` binary as
//! a peer when installed) and readFile of a large file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::Path;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use tool_core::ToolContext;
use tool_runtime::{
    ComputerRuntime, GrepContentParams, GrepOutputMode, LocalComputer, LocalConfig, ReadFileParams,
};

const FILES: usize = 2_000;
const LINES: usize = 200;

/// 2 000 files × 200 lines (~25 MB), one match in every tenth file.
fn generate(root: &Path) {
    for f in 0..FILES {
        let dir = root.join(format!("pkg{:02}/mod{:02}", f % 40, (f / 40) % 10));
        std::fs::create_dir_all(&dir).unwrap();
        let mut body = String::with_capacity(LINES * 64);
        for l in 0..LINES {
            if f % 10 == 0 && l == LINES / 2 {
                body.push_str(&format!(
                    "    let needle_{f} = compute({l}); // the line we look for\n"
                ));
            } else {
                body.push_str(&format!(
                    "    let value_{l} = item_{f}.field_{l} + other({l}); // filler\n"
                ));
            }
        }
        std::fs::write(dir.join(format!("file{f}.rs")), body).unwrap();
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tree = tempfile::tempdir().unwrap();
    generate(tree.path());
    let computer = LocalComputer::new(LocalConfig::default());
    let ctx = ToolContext::new().with_cwd(tree.path());
    let pattern = r"needle_\d+";

    let grep = GrepContentParams {
        output_mode: Some(GrepOutputMode::Content),
        limit: Some(1_000),
        ..GrepContentParams::new(pattern)
    };
    let check = rt.block_on(computer.grep_content(grep.clone(), &ctx));
    assert!(check.success);
    assert_eq!(check.state.as_ref().unwrap()["totalMatches"], FILES / 10);

    let mut group = c.benchmark_group("grep_tree_2000_files");
    group.sample_size(20);
    group.bench_function("tool_runtime_grepContent", |b| {
        b.iter(|| black_box(rt.block_on(computer.grep_content(grep.clone(), &ctx))))
    });
    let rg_available = Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if rg_available {
        group.bench_function("rg_binary_peer", |b| {
            b.iter(|| {
                let out = Command::new("rg")
                    .args(["-n", "--sort", "path", pattern])
                    .current_dir(tree.path())
                    .output()
                    .unwrap();
                black_box(out.stdout.len())
            })
        });
    } else {
        eprintln!("rg not installed: skipping the ripgrep peer");
    }
    group.finish();

    let big = tree.path().join("big.txt");
    let line = "x".repeat(99) + "\n";
    std::fs::write(&big, line.repeat(90_000)).unwrap(); // ~9 MB, under the 10 MiB limit
    let mut group = c.benchmark_group("read_9mb_file");
    group.sample_size(20);
    group.bench_function("readFile_default_range", |b| {
        b.iter(|| black_box(rt.block_on(computer.read_file(ReadFileParams::new("big.txt"), &ctx))))
    });
    group.bench_function("readFile_middle_range", |b| {
        let p = ReadFileParams {
            start_line: Some(45_000),
            end_line: Some(45_100),
            ..ReadFileParams::new("big.txt")
        };
        b.iter(|| black_box(rt.block_on(computer.read_file(p.clone(), &ctx))))
    });
    group.finish();
}

criterion_group!(runtime, benches);
criterion_main!(runtime);
