//! Approval engine: decisions per second for a static (non-shell) call, a
//! simple command, a 5-part compound and a path-scope audit, the time of
//! worst-case inputs (the largest commands the engine still analyses), and
//! the cost of the gate: one call with a static decision through the full
//! pipeline (`Invoker::with_gate(PolicyEngine)`) against the same pipeline
//! without a gate (target: within 2×).
#![allow(clippy::panic)] // a bench with a broken fixture should stop loudly

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tool_approval::{CallRef, PolicyEngine, PolicyFile};
use tool_core::{
    ApiDefinition, HumanIntervention, InterventionPolicy, Invoker, ToolBuilder, ToolCall,
    ToolContext, ToolManifest, ToolOutput, ToolRegistry, manifest::DynamicIntervention,
};

fn manifest() -> ToolManifest {
    let mut m = ToolManifest::new("local-system");
    m.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
    );
    m.api.push(
        ApiDefinition::new("readFile", "read")
            .with_parameters(json!({"type": "object", "properties": {"path": {"type": "string", "format": "path"}}}))
            .with_intervention(HumanIntervention::Dynamic {
                dynamic: DynamicIntervention {
                    kind: "pathScopeAudit".into(),
                    policy: InterventionPolicy::Required,
                    default: InterventionPolicy::Never,
                },
            }),
    );
    m.api.push(
        ApiDefinition::new("evaluate", "calculate")
            .with_parameters(
                json!({"type": "object", "properties": {"expression": {"type": "string"}}}),
            )
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
    );
    m
}

fn engine() -> PolicyEngine {
    let file = PolicyFile::from_json(
        r#"{"rules": {"local-system/runCommand": [
            {"match": {"command": "git status:*"}, "policy": "never"},
            {"match": {"command": "git add:*"}, "policy": "never"},
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"match": {"command": "git push:*"}, "policy": "deny"},
            {"policy": "required"}
        ]}}"#,
    );
    match file.and_then(|f| f.engine()) {
        Ok(engine) => engine,
        Err(e) => panic!("bench policy: {e}"),
    }
}

fn bench(c: &mut Criterion) {
    let engine = engine();
    let manifest = manifest();
    let ctx = ToolContext::new();
    // Eight spellings of each command (a trailing comment), so nothing a
    // per-text cache keeps can stand in for the work of a fresh command.
    let variants = |command: &str| -> Vec<serde_json::Value> {
        (0..8)
            .map(|i| json!({ "command": format!("{command} # {i}") }))
            .collect()
    };
    let simple = variants("git status -s");
    let compound = variants("git add -A src && git status; ls -la | ls && git push origin main");
    let mut group = c.benchmark_group("approval");
    group.throughput(Throughput::Elements(1));
    let expression = json!({"expression": "1 + 2 * 3"});
    group.bench_function("evaluate_static", |b| {
        b.iter(|| {
            let call =
                CallRef::new("local-system", "evaluate", &expression).with_manifest(&manifest);
            black_box(engine.evaluate_one(black_box(&call), &ctx))
        })
    });
    for (name, args) in [
        ("evaluate_simple_command", &simple),
        ("evaluate_compound_command", &compound),
    ] {
        let mut next = args.iter().cycle();
        group.bench_function(name, |b| {
            b.iter(|| {
                let args = next.next().unwrap_or(&args[0]);
                let call =
                    CallRef::new("local-system", "runCommand", args).with_manifest(&manifest);
                black_box(engine.evaluate_one(black_box(&call), &ctx))
            })
        });
    }
    let dir = std::env::temp_dir();
    let cwd_ctx = ToolContext::new().with_cwd(&dir);
    let path = json!({"path": "some/dir/../file.txt"});
    group.bench_function("evaluate_path_scope", |b| {
        b.iter(|| {
            let call = CallRef::new("local-system", "readFile", &path).with_manifest(&manifest);
            black_box(engine.evaluate_one(black_box(&call), &cwd_ctx))
        })
    });
    group.finish();

    // Worst cases: inputs at the size limits the engine still analyses.
    let mut worst = c.benchmark_group("approval_worst_case");
    worst.sample_size(10);
    worst.measurement_time(Duration::from_secs(5));
    let globs = json!({"command": format!("ls{}", " ./a*".repeat(3000))});
    let chain = json!({"command": vec!["git status"; 1000].join(" && ")});
    let nested = json!({"command": format!("{}ls{}", "(".repeat(300), ")".repeat(300))});
    let braces = json!({"command": format!("echo {}", "{\u{10ffff}".repeat(2000))});
    let many_e: String = (0..100).map(|i| format!("{i}e ls -{i}\n")).collect();
    let sed = json!({"command": format!("sed '{many_e}' README.md")});
    let qx = json!({"command": format!("perl -e '{}'", "qx{ ".repeat(20_000))});
    // Multiplying constructs (each `watch` is a wrapper and runs a script;
    // each wrapper level copied the line): exponential and quadratic
    // before the step budget, now ending in a named limit.
    let watch = json!({"command": format!("{}ls", "watch ".repeat(64))});
    let wrappers = json!({"command": format!("{}ls", "xargs ".repeat(16_384))});
    // A syntax error after a long pipeline: the grammar's error recovery
    // does work quadratic in the pipeline's length inside one step, where
    // the parse's budget cannot stop it; past 128 stages the pipeline is
    // read from the text instead (limits/pipeline-length).
    let broken_pipeline = json!({"command": format!("{} (", "a | ".repeat(2048))});
    // The red-team families of issue 17 §4 (built here, only evaluated).
    let family = |text: String| json!({ "command": text });
    let cd_chain = family(format!("{}cat credentials", "cd a && ".repeat(16_370)));
    let pushd_chain = family(format!("{}cat x", "pushd a && ".repeat(100)));
    let empty_braces = family("{,}".repeat(20));
    let many_parts = family("ls; ".repeat(32_750));
    let plain_pipeline = family(format!("ls{}", " | ls".repeat(26_200)));
    let heredoc = family(format!("cat <<EOF\n{}EOF", "$(ls) x\n".repeat(12_900)));
    let sed_script = family(format!("sed '{}' f", "s/a/b/;".repeat(16_380)));
    let git_aliases = family(format!(
        "git {} a0",
        "-c alias.aI='!git aI+1' ".repeat(3000)
    ));
    let bash_c = family(format!("bash -c '{}'", "ls; ".repeat(26_200)));
    let word_braces = family(format!("echo {}", "{a,b}".repeat(21_800)));
    let glob_path = family(format!("cat {}.env", "*/".repeat(65_480)));
    let nice_chain = family(format!("{}ls", "nice ".repeat(26_200)));
    let quoted_word = family(format!("git p''u{}sh", "''".repeat(65_480)));
    let long_broken_pipeline = family(format!("{} (", "a | ".repeat(16_384)));
    // Thousands of commands, then text the grammar cannot read: the fast
    // path hands the line on at once, the grammar's error recovery and
    // walk are the cost (limits/unparsed-text).
    let semi_then_error = family(format!("{} (", "a ; ".repeat(4096)));
    let and_then_error = family(format!("{} (", "a && ".repeat(4096)));
    let open_substitutions = family("$(".repeat(32_768));
    // Issue 36 §7: a removal target's brace product (20 pairs spelled a
    // million targets, 11 s), pathspec lists, long options read by unique
    // prefix, find primaries, `$_` re-evaluation, unknown wrappers.
    let rm_brace_pairs = family(format!("rm -rf {}/ /", "{a,b}".repeat(20)));
    let pathspecs = family(format!(
        "git log -p -- {}",
        "':(glob)**/.env*' ".repeat(3001)
    ));
    let long_options = family(format!("sort {}notes.txt", "--outp=x ".repeat(8000)));
    let find_primaries = family(format!("find . {}-print", "-name x -o ".repeat(8000)));
    let last_word = family("ls x; echo $((_)); ".repeat(4000));
    let unknown_wrappers = family(format!("{}git push", "frobnicate ".repeat(8000)));
    // Closed rows (git, npm, xargs): long options read by unique prefix,
    // each looked up among every name of the program's rows.
    let git_prefixes = family(format!("git log {}-p", "--no-a ".repeat(8000)));
    let npm_prefixes = family(format!("npm test {}x", "--sil ".repeat(8000)));
    let xargs_prefixes = family(format!("xargs {}rm -rf /", "--max-c 1 ".repeat(8000)));
    for (name, args) in [
        ("cd_16370_then_secret", &cd_chain),
        ("pushd_100", &pushd_chain),
        ("empty_braces_20", &empty_braces),
        ("ls_semi_32750", &many_parts),
        ("ls_pipe_26200", &plain_pipeline),
        ("heredoc_12900_substitutions", &heredoc),
        ("sed_16380_commands", &sed_script),
        ("git_3000_aliases", &git_aliases),
        ("bash_c_26200_parts", &bash_c),
        ("echo_21800_brace_groups", &word_braces),
        ("cat_65480_glob_dirs", &glob_path),
        ("nice_26200_deep", &nice_chain),
        ("git_65480_empty_quotes", &quoted_word),
        ("pipeline_16384_then_syntax_error", &long_broken_pipeline),
        ("semi_4096_then_syntax_error", &semi_then_error),
        ("and_4096_then_syntax_error", &and_then_error),
        ("subst_32768_open", &open_substitutions),
        ("ls_3000_globs", &globs),
        ("sed_100_e_commands", &sed),
        ("perl_20000_open_qx", &qx),
        ("chain_1000_parts", &chain),
        ("nested_300_subshells", &nested),
        ("braces_high_code_points", &braces),
        ("watch_64_deep", &watch),
        ("xargs_16384_deep", &wrappers),
        ("pipeline_2048_then_syntax_error", &broken_pipeline),
        ("rm_20_brace_pairs", &rm_brace_pairs),
        ("git_log_3001_glob_pathspecs", &pathspecs),
        ("sort_8000_prefix_long_options", &long_options),
        ("find_8000_primaries", &find_primaries),
        ("last_word_arith_4000", &last_word),
        ("unknown_wrappers_8000", &unknown_wrappers),
        ("git_log_8000_ambiguous_prefixes", &git_prefixes),
        ("npm_test_8000_prefix_options", &npm_prefixes),
        ("xargs_8000_prefix_options", &xargs_prefixes),
    ] {
        worst.bench_function(name, |b| {
            b.iter(|| {
                let call =
                    CallRef::new("local-system", "runCommand", args).with_manifest(&manifest);
                black_box(engine.evaluate_one(black_box(&call), &cwd_ctx))
            })
        });
    }
    worst.finish();
}

/// One call with a static `never` decision through the pipeline (name,
/// parse, validate, timeout, run, output), without and with the gate.
fn bench_gated_pipeline(c: &mut Criterion) {
    let mut registry = ToolRegistry::new();
    let tool = ToolBuilder::new("calculator")
        .api(
            ApiDefinition::new("evaluate", "calculate")
                .with_parameters(json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}))
                .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never)),
            |_, _| async { Ok(ToolOutput::text("7")) },
        )
        .build();
    let registered = tool
        .map_err(|e| e.to_string())
        .and_then(|t| registry.register(t).map_err(|e| e.to_string()));
    if let Err(e) = registered {
        panic!("bench tool: {e}");
    }
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let call = ToolCall::new("calculator____evaluate", r#"{"expression": "1 + 2 * 3"}"#);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("bench runtime: {e}"),
    };
    let plain = Invoker::default();
    let gated = Invoker::default().with_gate(Arc::new(engine()));
    let mut group = c.benchmark_group("approval_pipeline");
    group.throughput(Throughput::Elements(1));
    for (name, invoker) in [("invoke_no_gate", &plain), ("invoke_gated_static", &gated)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let out = runtime.block_on(invoker.invoke(&offered, black_box(&call), &ctx));
                black_box(out)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_gated_pipeline);
criterion_main!(benches);
