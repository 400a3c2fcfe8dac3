//! A probe, not a test of speed: families of generated commands, each at
//! sizes doubling up to the engine's size limit, timed in one evaluation
//! each. Run in release:
//! `cargo test --release -p tool-approval --test probe_budget -- --ignored --nocapture`.
//! A family whose time more than doubles when its size doubles, or that
//! passes 10 ms, is a slow path; the approval bench keeps the worst ones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Instant;

use tool_approval::{ApprovalMode, MAX_COMMAND_BYTES};

/// `(name, generator of the n-th member)`.
type Family = (&'static str, fn(usize) -> String);

fn families() -> Vec<Family> {
    vec![
        ("braces", |n| format!("echo {}", "{a,b}".repeat(n))),
        ("nested_braces", |n| {
            format!("echo {}x{}", "{a,".repeat(n), "}".repeat(n))
        }),
        ("cd_chain", |n| format!("{}rm -rf x", "cd a && ".repeat(n))),
        ("cd_dotdot", |n| format!("{}ls", "cd .. && ".repeat(n))),
        ("cd_var", |n| format!("{}ls", "cd \"$X\" && ".repeat(n))),
        ("semicolons", |n| "ls;".repeat(n)),
        ("and_chain", |n| vec!["git status"; n].join(" && ")),
        ("pipes", |n| vec!["cat"; n].join(" | ")),
        ("subshells", |n| {
            format!("{}ls{}", "(".repeat(n), ")".repeat(n))
        }),
        ("cmd_subst", |n| {
            format!("echo {}x{}", "$(".repeat(n), ")".repeat(n))
        }),
        ("cmd_subst_echo", |n| {
            format!("{}ls{}", "$(echo ".repeat(n), ")".repeat(n))
        }),
        ("backticks", |n| format!("echo {}", "`ls` ".repeat(n))),
        ("proc_subst", |n| format!("cat {}", "<(ls) ".repeat(n))),
        ("bash_c_nested", |n| {
            let mut s = "ls".to_owned();
            for _ in 0..n {
                s = format!("bash -c {}", tool_quote(&s));
            }
            s
        }),
        ("eval_many", |n| "eval ls; ".repeat(n)),
        ("bash_c_many", |n| "bash -c 'ls'; ".repeat(n)),
        ("alias_chain", |n| {
            let mut s = String::from("git");
            for i in 0..n {
                s.push_str(&format!(" -c alias.a{i}='!git a{}'", i + 1));
            }
            s.push_str(" a0");
            s
        }),
        ("alias_many_c", |n| {
            format!("git{} status", " -c alias.x='!ls'".repeat(n))
        }),
        ("heredocs", |n| "cat <<EOF | sh\nls\nEOF\n".repeat(n)),
        ("heredoc_big", |n| {
            format!("sh <<EOF\n{}EOF\n", "ls\n".repeat(n))
        }),
        ("herestrings", |n| "sh <<< 'ls'; ".repeat(n)),
        ("echo_pipe_sh", |n| "echo ls | sh; ".repeat(n)),
        ("redirections", |n| format!("ls{}", " > a".repeat(n))),
        ("redir_in", |n| format!("cat{}", " < a".repeat(n))),
        ("ln_chain", |n| {
            let mut s = String::new();
            for i in 0..n {
                s.push_str(&format!("ln -s l{i} l{} && ", i + 1));
            }
            s.push_str("rm -rf l0/x");
            s
        }),
        ("ln_same", |n| {
            format!("{}rm -rf r/*", "ln -s / r && ".repeat(n))
        }),
        ("wrappers", |n| format!("{}ls", "sudo ".repeat(n))),
        ("env_wrappers", |n| format!("{}ls", "env A=1 ".repeat(n))),
        ("timeout_wrappers", |n| {
            format!("{}ls", "timeout 1 ".repeat(n))
        }),
        ("nice_nohup", |n| format!("{}ls", "nice nohup ".repeat(n))),
        ("xargs", |n| format!("{}ls", "xargs ".repeat(n))),
        ("assignments", |n| format!("{}ls", "A=1 ".repeat(n))),
        ("assign_subst", |n| format!("{}ls", "A=$(ls) ".repeat(n))),
        ("exports", |n| "export A=1; ".repeat(n)),
        ("escaped_ws", |n| "ls \\\n".repeat(n)),
        ("escaped_space", |n| "ls\\ a ".repeat(n)),
        ("syntax_err", |n| format!("{}ls", "( ".repeat(n))),
        ("syntax_err_pipes", |n| format!("{} (", "a | ".repeat(n))),
        ("syntax_err_bash_c", |n| {
            format!("{} )", "bash -c 'bash -c ls' ".repeat(n))
        }),
        ("recovered_words", |n| format!("( {}", "w ".repeat(n))),
        ("if_nested", |n| {
            format!("{}ls{}", "if true; then ".repeat(n), "; fi".repeat(n))
        }),
        ("for_nested", |n| {
            format!("{}ls{}", "for i in a; do ".repeat(n), "; done".repeat(n))
        }),
        ("functions", |n| "f() { ls; }; ".repeat(n)),
        ("brace_groups", |n| {
            format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n))
        }),
        ("params", |n| format!("echo {}", "${a:-${b:-x}} ".repeat(n))),
        ("param_nested", |n| {
            format!("echo {}x{}", "${a:-".repeat(n), "}".repeat(n))
        }),
        ("arith", |n| {
            format!("echo $(({}1{}))", "(".repeat(n), ")".repeat(n))
        }),
        ("globs", |n| format!("ls{}", " ./a*".repeat(n))),
        ("find_exec", |n| {
            format!("find .{}", " -exec ls {} ;".repeat(n))
        }),
        ("sed_e", |n| format!("sed '{}' f", "1e ls\n".repeat(n))),
        ("sed_w", |n| format!("sed '{}' f", "w out\n".repeat(n))),
        ("awk_system", |n| {
            format!("awk 'BEGIN{{{}}}'", "system(\"ls\");".repeat(n))
        }),
        ("perl_system", |n| {
            format!("perl -e '{}'", "system(\"ls\");".repeat(n))
        }),
        ("python_system", |n| {
            format!("python -c '{}'", "os.system(\"ls\");".repeat(n))
        }),
        ("perl_qx", |n| format!("perl -e '{}'", "qx{ ".repeat(n))),
        ("git_c_pager", |n| {
            format!("git{} log", " -c core.pager=less".repeat(n))
        }),
        ("options_many", |n| format!("sort{} x", " -o f".repeat(n))),
        ("dollar_quotes", |n| {
            format!("echo {}", "$'\\x41' ".repeat(n))
        }),
        ("quotes_mixed", |n| {
            format!("echo {}", "\"a'b\"'c\"d' ".repeat(n))
        }),
        ("watch_nested", |n| format!("{}ls", "watch ".repeat(n))),
        ("trap_many", |n| "trap 'ls' EXIT; ".repeat(n)),
        ("coproc", |n| "coproc ls; ".repeat(n)),
        ("arrays", |n| format!("a=({})", "x ".repeat(n))),
        ("case_many", |n| {
            format!("case x in {} esac", "a) ls;; ".repeat(n))
        }),
        ("unicode_braces", |n| {
            format!("echo {}", "{\u{10ffff}".repeat(n))
        }),
        ("ssh_nested", |n| format!("{}ls", "ssh h ".repeat(n))),
        ("npx_c", |n| "npx -c 'ls'; ".repeat(n)),
        ("su_c", |n| {
            format!("{}ls{}", "su -c '".repeat(n.min(40)), "'".repeat(n.min(40)))
        }),
        ("vim_c", |n| format!("vim{} f", " -c ':!ls'".repeat(n))),
        ("tar_checkpoint", |n| {
            format!("tar{} -cf a b", " --checkpoint-action=exec=ls".repeat(n))
        }),
        ("parallel", |n| format!("parallel{} ::: a", " ls".repeat(n))),
        ("git_submodule_foreach", |n| {
            format!("{}ls", "git submodule foreach ".repeat(n))
        }),
        ("newlines", |n| "ls\n".repeat(n)),
        ("comments", |n| "ls # c\n".repeat(n)),
        ("tilde_paths", |n| format!("cat{}", " ~/../~/./a".repeat(n))),
        ("dotdot_path", |n| format!("cat {}", "a/../".repeat(n))),
        ("slashes", |n| format!("cat {}", "/".repeat(n))),
        ("long_word", |n| format!("echo {}", "a".repeat(n))),
        ("dollar_vars", |n| format!("echo {}", "$a".repeat(n))),
    ]
}

fn tool_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
#[ignore = "a probe: run in release with --ignored --nocapture"]
fn probe_families_for_slow_paths() {
    let engine = common::engine(ApprovalMode::Manual);
    let only = std::env::var("PROBE").ok();
    let mut slow = Vec::new();
    for (name, make) in families() {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut row = Vec::new();
        let mut worst: f64 = 0.0;
        let mut n = 1;
        loop {
            let text = make(n);
            if text.len() > MAX_COMMAND_BYTES {
                break;
            }
            let start = Instant::now();
            let d = common::run_command(&engine, &text);
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            worst = worst.max(ms);
            row.push(format!(
                "{n}:{ms:.2}ms:{}",
                d.reason.rule.as_deref().unwrap_or("-")
            ));
            if ms > 2000.0 {
                row.push("(stopped)".into());
                break;
            }
            n *= 2;
        }
        let flag = if worst > 10.0 { "SLOW" } else { "ok" };
        println!("{flag:4} {name:24} {}", row.join("  "));
        if worst > 10.0 {
            slow.push(name);
        }
    }
    println!("slow families: {slow:?}");
}

#[test]
#[ignore = "a probe: run in release with --ignored --nocapture"]
fn probe_parse_alone() {
    let text = std::env::var("PROBE_TEXT_REPEAT").unwrap_or_else(|_| "watch ".into());
    let n: usize = std::env::var("PROBE_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4096);
    let line = format!("{}ls", text.repeat(n));
    let start = Instant::now();
    let parsed = tool_approval::ShellCommand::parse(&line);
    println!(
        "parse: {:?} parts={} hazards={:?}",
        start.elapsed(),
        parsed.parts().len(),
        parsed.hazards()
    );
    let engine = common::engine(ApprovalMode::Manual);
    let start = Instant::now();
    let d = common::run_command(&engine, &line);
    println!("evaluate: {:?} {:?}", start.elapsed(), d.reason.rule);
}
