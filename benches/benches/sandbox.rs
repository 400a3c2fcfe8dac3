//! tool-runtime: what the OS sandbox adds to one runCommand (`true`), end to
//! end: full access, then workspace_write in a workspace without and with
//! protected entries (the latter splits the workspace into per-entry rules),
//! then read_only, then workspace_write with egress by name (its own network
//! namespace and a proxy started per command). Linux with Landlock only;
//! elsewhere it prints why not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tool_core::ToolContext;
use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxPolicy};

fn sandbox(c: &mut Criterion) {
    if let Err(reason) = tool_runtime::probe_kernel() {
        eprintln!("sandbox bench skipped: {reason}");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let plain = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    for i in 0..40 {
        std::fs::create_dir_all(repo.path().join(format!("dir{i}"))).unwrap();
        std::fs::write(repo.path().join(format!("file{i}.txt")), "x").unwrap();
    }
    std::fs::create_dir_all(repo.path().join(".git/hooks")).unwrap();
    let cases = [
        ("full_access", SandboxPolicy::FullAccess, plain.path()),
        (
            "workspace_write",
            SandboxPolicy::workspace_write(),
            plain.path(),
        ),
        (
            "workspace_write_git_80_entries",
            SandboxPolicy::workspace_write(),
            repo.path(),
        ),
        ("read_only", SandboxPolicy::read_only(), plain.path()),
        (
            "workspace_write_egress",
            SandboxPolicy::workspace_write()
                .with_egress(tool_core::approval::Egress::allow(["registry.example"])),
            plain.path(),
        ),
    ];
    let mut group = c.benchmark_group("sandbox_run_true");
    for (name, policy, dir) in cases {
        let computer = LocalComputer::new(LocalConfig::default().with_sandbox(policy));
        let ctx = ToolContext::new().with_cwd(dir);
        group.bench_function(name, |b| {
            b.iter(|| {
                let out = rt.block_on(computer.run_command(RunCommandParams::new("true"), &ctx));
                assert!(out.success, "{}", out.content);
                black_box(out)
            })
        });
    }
    group.finish();
}

/// A workspace like a repository with `node_modules/` (`under` is
/// `node_modules`) or a large source tree (`src`): `.git` with hooks and
/// 20 000 files in 200 folders beneath `under`.
fn big_workspace(under: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    for d in 0..200 {
        let folder = dir.path().join(format!("{under}/pkg{d}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..100 {
            std::fs::write(folder.join(format!("f{f}.js")), "x").unwrap();
        }
    }
    dir
}

/// A repository with 30 folders of 10 folders each at its top, six of
/// them repositories of their own (`vendor/libN/.git`): what the nested
/// repository search looks into before and after every confined command.
fn nested_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    for top in 0..30 {
        for sub in 0..10 {
            let folder = dir.path().join(format!("dir{top}/sub{sub}"));
            std::fs::create_dir_all(&folder).unwrap();
            if top % 5 == 0 && sub == 0 {
                std::fs::create_dir_all(folder.join(".git/hooks")).unwrap();
                std::fs::write(folder.join(".git/config"), "[core]\n").unwrap();
            }
        }
    }
    dir
}

/// Issue 32's target: a confined `true` in a 20 000-file workspace within
/// 2x of an empty workspace and within 30 ms of unconfined, one long-lived
/// computer per case, all in one run; then a workspace of nested
/// repositories.
fn workspace_size(c: &mut Criterion) {
    if let Err(reason) = tool_runtime::probe_kernel() {
        eprintln!("sandbox bench skipped: {reason}");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let empty = tempfile::tempdir().unwrap();
    let big = big_workspace("node_modules");
    let sources = big_workspace("src");
    let nested = nested_workspace();
    let cases = [
        (
            "unconfined_20000_files",
            SandboxPolicy::FullAccess,
            big.path(),
        ),
        (
            "confined_empty",
            SandboxPolicy::workspace_write(),
            empty.path(),
        ),
        (
            "confined_20000_files",
            SandboxPolicy::workspace_write(),
            big.path(),
        ),
        (
            "confined_20000_files_in_src",
            SandboxPolicy::workspace_write(),
            sources.path(),
        ),
        (
            "confined_300_folders_6_nested_repos",
            SandboxPolicy::workspace_write(),
            nested.path(),
        ),
    ];
    let mut group = c.benchmark_group("sandbox_workspace_size");
    group.sample_size(30);
    for (name, policy, dir) in cases {
        let computer = LocalComputer::new(LocalConfig::default().with_sandbox(policy));
        let ctx = ToolContext::new().with_cwd(dir);
        group.bench_function(name, |b| {
            b.iter(|| {
                let out = rt.block_on(computer.run_command(RunCommandParams::new("true"), &ctx));
                assert!(out.success, "{}", out.content);
                black_box(out)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sandbox, workspace_size);
criterion_main!(benches);
