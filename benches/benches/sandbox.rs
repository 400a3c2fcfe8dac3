//! tool-runtime: what the OS sandbox adds to one runCommand (`true`), end to
//! end: full access, then workspace_write in a workspace without and with
//! protected entries (the latter splits the workspace into per-entry rules),
//! then read_only. Linux with Landlock only; elsewhere it prints why not.
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

criterion_group!(benches, sandbox);
criterion_main!(benches);
