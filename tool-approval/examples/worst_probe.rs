//! Worst-case probe: evaluates the pathological input families of issue 17
//! §4 (repeated `cd`, brace expansion, many parts, inputs near the size
//! limit) and of issue 36 §7 (a removal target's brace product, pathspec
//! lists, long options read by unique prefix, find primaries, `$_`
//! re-evaluation, unknown wrappers) and prints, per input, its size, the best of a few wall-clock
//! times, the action and the rule. Run it in release:
//! `cargo run --release -p tool-approval --example worst_probe [filter]`.
//! The inputs are only evaluated, never run.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use serde_json::json;
use tool_approval::{ApprovalMode, CallRef, PolicyEngine};
use tool_core::{ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest};

/// The families, by name (the same strings as the `approval_worst_case`
/// bench group and `tests/it/worst_case.rs`).
fn inputs() -> Vec<(&'static str, String)> {
    vec![
        (
            "cd_100",
            format!("{}cat credentials", "cd a && ".repeat(100)),
        ),
        (
            "cd_400",
            format!("{}cat credentials", "cd a && ".repeat(400)),
        ),
        (
            "cd_1600",
            format!("{}cat credentials", "cd a && ".repeat(1600)),
        ),
        (
            "cd_16370",
            format!("{}cat credentials", "cd a && ".repeat(16_370)),
        ),
        ("pushd_100", format!("{}cat x", "pushd a && ".repeat(100))),
        ("cd_semi_100", format!("{}ls", "cd a; ".repeat(100))),
        ("braces_20", "{,}".repeat(20)),
        ("braces_16", "{,}".repeat(16)),
        ("ls_braces_20", format!("ls {}", "{,}".repeat(20))),
        ("assign_braces_20", format!("x{}=1", "{,}".repeat(20))),
        (
            "echo_words_20000",
            format!("echo {}", "word ".repeat(20_000)),
        ),
        (
            "heredoc_code_100k",
            format!(
                "cat > app.py <<'EOF'\n{}EOF",
                "def f(x):\n    return {\"a\": x[1], 'b': (x, \"$y\")}  # ok\n".repeat(1700)
            ),
        ),
        ("ls_semi_3000", "ls; ".repeat(3000)),
        ("ls_semi_32750", "ls; ".repeat(32_750)),
        ("ls_pipe_26200", format!("ls{}", " | ls".repeat(26_200))),
        (
            "heredoc_subst_12900",
            format!("cat <<EOF\n{}EOF", "$(ls) x\n".repeat(12_900)),
        ),
        ("sed_16380", format!("sed '{}' f", "s/a/b/;".repeat(16_380))),
        (
            "git_alias_3000",
            format!("git {} a0", "-c alias.aI='!git aI+1' ".repeat(3000)),
        ),
        (
            "bash_c_26200",
            format!("bash -c '{}'", "ls; ".repeat(26_200)),
        ),
        (
            "echo_braces_21800",
            format!("echo {}", "{a,b}".repeat(21_800)),
        ),
        (
            "cat_globs_65480",
            format!("cat {}.env", "*/".repeat(65_480)),
        ),
        ("nice_26200", format!("{}ls", "nice ".repeat(26_200))),
        (
            "git_quotes_65480",
            format!("git p''u{}sh", "''".repeat(65_480)),
        ),
        ("pipeline_2048_error", format!("{} (", "a | ".repeat(2048))),
        (
            "pipeline_16384_error",
            format!("{} (", "a | ".repeat(16_384)),
        ),
        ("pipeline_4096_close", format!("{} )", "a | ".repeat(4096))),
        ("pipeline_4096_quote", format!("{} \"", "a | ".repeat(4096))),
        ("pipeline_4096_fi", format!("{} fi", "a | ".repeat(4096))),
        ("pipeline_4096_bar", format!("{} |", "a | ".repeat(4096))),
        ("and_4096_error", format!("{} (", "a && ".repeat(4096))),
        ("semi_4096_error", format!("{} (", "a ; ".repeat(4096))),
        (
            "error_then_pipeline_4096",
            format!("( {}a", "a | ".repeat(4096)),
        ),
        ("pipeline_128_error", format!("{} (", "a | ".repeat(127))),
        (
            "pipelines_8x128_error",
            format!("{} (", format!("{}a; ", "a | ".repeat(127)).repeat(8)),
        ),
        (
            "pipelines_60x250_error",
            format!("{} (", format!("{}a; ", "a | ".repeat(250)).repeat(60)),
        ),
        ("subst_32768", "$(".repeat(32_768)),
        ("cat_pipe_16384", format!("{}ls", "cat|".repeat(16_384))),
        ("xargs_16384", format!("{}ls", "xargs ".repeat(16_384))),
        ("watch_64", format!("{}ls", "watch ".repeat(64))),
        // Issue 36 §7: brace products in a removal's target, pathspec
        // lists, arithmetic over the last word.
        (
            "rm_brace_pairs_18",
            format!("rm -rf {}/ /", "{a,b}".repeat(18)),
        ),
        (
            "rm_brace_pairs_20",
            format!("rm -rf {}/ /", "{a,b}".repeat(20)),
        ),
        (
            "rm_brace_pairs_24",
            format!("rm -rf {}/ /", "{a,b}".repeat(24)),
        ),
        (
            "cat_brace_pairs_20",
            format!("cat {}.env", "{a,b}".repeat(20)),
        ),
        (
            "git_log_pathspecs_3001",
            format!("git log -p -- {}", "':(glob)**/.env*' ".repeat(3001)),
        ),
        (
            "git_log_pathspecs_12000",
            format!("git log -p -- {}", "':(glob)**/.env*' ".repeat(12_000)),
        ),
        (
            "sort_long_options_8000",
            format!("sort {}notes.txt", "--outp=x ".repeat(8000)),
        ),
        (
            "find_primaries_8000",
            format!("find . {}-print", "-name x -o ".repeat(8000)),
        ),
        ("last_word_arith_4000", "ls x; echo $((_)); ".repeat(4000)),
        (
            "git_log_ambiguous_prefixes_8000",
            format!("git log {}-p", "--no-a ".repeat(8000)),
        ),
        (
            "npm_prefix_options_8000",
            format!("npm test {}x", "--sil ".repeat(8000)),
        ),
        (
            "xargs_prefix_options_8000",
            format!("xargs {}rm -rf /", "--max-c 1 ".repeat(8000)),
        ),
        (
            "unknown_wrappers_8000",
            format!("{}git push", "frobnicate ".repeat(8000)),
        ),
    ]
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    // `PROBE_RUNS=1` under `valgrind --tool=callgrind`: one evaluation per
    // input, so instruction counts (which do not move with the machine's
    // load) compare from one build to the next.
    let runs: usize = std::env::var("PROBE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mode = match std::env::var("PROBE_MODE").as_deref() {
        Ok("headless") => ApprovalMode::Headless,
        Ok("auto") => ApprovalMode::AutoRun,
        _ => ApprovalMode::Manual,
    };
    let engine: PolicyEngine = PolicyEngine::builder().mode(mode).build().expect("engine");
    let mut manifest = ToolManifest::new("local-system");
    manifest.api.push(
        ApiDefinition::new("runCommand", "run")
            .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)),
    );
    let ctx = ToolContext::new().with_cwd(std::env::temp_dir());
    let mut slowest: Option<(&str, std::time::Duration)> = None;
    for (name, command) in inputs() {
        if !name.contains(&filter)
            || std::env::var("PROBE_SKIP").is_ok_and(|s| s.split(',').any(|x| x == name))
        {
            continue;
        }
        let args = json!({ "command": command });
        let mut best = std::time::Duration::MAX;
        let mut decision = None;
        for _ in 0..runs {
            let call = CallRef::new("local-system", "runCommand", &args).with_manifest(&manifest);
            let started = std::time::Instant::now();
            let d = engine.evaluate_one(&call, &ctx);
            best = best.min(started.elapsed());
            decision = Some(d);
            if best.as_secs() > 2 {
                break;
            }
        }
        let d = decision.expect("one decision");
        if slowest.is_none_or(|(_, t)| best > t) {
            slowest = Some((name, best));
        }
        println!(
            "{name:24} {:>7} B {:>10.3} ms  {:?} {}",
            command.len(),
            best.as_secs_f64() * 1000.0,
            d.action,
            d.reason.rule.as_deref().unwrap_or("-")
        );
    }
    // The maximum over the families run (issue 36 §7: none over 10 ms).
    if let Some((name, best)) = slowest {
        let ms = best.as_secs_f64() * 1000.0;
        let verdict = if ms <= 10.0 { "within" } else { "OVER" };
        println!("maximum: {name} {ms:.3} ms ({verdict} the 10 ms bound)");
    }
}
