//! Imports one OpenAPI document and prints what came out: operations,
//! failures, warnings, tool sizes, time. For measuring (`/usr/bin/time -v`).
//!
//! ```text
//! cargo run --release -p tool-openapi --example import_stats -- FILE [--register] [--no-check] [--validate (check, keep nothing)]
//! cargo run --release -p tool-openapi --example import_stats -- --write docusign|graph OUT
//! cargo run --release -p tool-openapi --example import_stats -- FILE --against-parse ROUNDS
//! ```
//!
//! `--against-parse`: the bench's row in a few seconds: ROUNDS alternating
//! runs of a `serde_json` parse and of the default import into a registry
//! (each result dropped outside the timing), and the ratio of the medians.
#![allow(clippy::print_stdout, clippy::unwrap_used)]

#[path = "../tests/it/common/synthetic.rs"]
mod synthetic;

use std::time::Instant;

use tool_core::{ToolRegistry, manifest::NameRules};
use tool_openapi::{ImportOptions, OpenApiTool, api_definition, import_openapi};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--write") {
        let shape = match args.get(1).map(String::as_str) {
            Some("graph") => synthetic::Shape::graph_like(),
            _ => synthetic::Shape::docusign_like(),
        };
        let out = args.get(2).ok_or("--write SHAPE OUT")?;
        std::fs::write(out, shape.text())?;
        return Ok(());
    }
    let file = args.first().ok_or("FILE")?;
    if let Some(rounds) = args.iter().position(|a| a == "--against-parse") {
        let rounds = args.get(rounds + 1).map_or(Ok(5), |r| r.parse())?;
        return against_parse(&std::fs::read_to_string(file)?, rounds);
    }
    let register = args.iter().any(|a| a == "--register");
    let check = !args.iter().any(|a| a == "--no-check");
    let keep = !args.iter().any(|a| a == "--validate");
    let text = std::fs::read_to_string(file)?;
    let start = Instant::now();
    let import = import_openapi(
        &text,
        &ImportOptions::new()
            .check_schemas(check)
            .keep_compiled(keep),
    )?;
    let imported = start.elapsed();
    let mut total = 0usize;
    let mut largest = (0usize, String::new());
    let mut most_defs = 0usize;
    let (mut own_defs, mut own_defs_chars) = (0usize, 0usize);
    for op in &import.document.operations {
        if !op.definitions.is_empty() {
            own_defs += 1;
            own_defs_chars += serde_json::to_string(&op.definitions)?.len();
        }
        let size = serde_json::to_string(&api_definition(op))?.len();
        total += size;
        most_defs = most_defs.max(op.definitions.len());
        if size > largest.0 {
            largest = (size, op.operation_id.clone());
        }
    }
    let operations = import.document.operations.len();
    println!(
        "{} bytes: {operations} operations, {} failures, {} warnings; import {:.1} ms; tool JSON {total} chars, largest {} ({} chars), most $defs {most_defs}; {own_defs} tools with $defs of their own ({own_defs_chars} chars)",
        text.len(),
        import.failures.len(),
        import.warnings.len(),
        imported.as_secs_f64() * 1e3,
        largest.1,
        largest.0,
    );
    if let Some(f) = import.failures.first() {
        println!("first failure: {f}");
    }
    if register {
        let start = Instant::now();
        let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
        OpenApiTool::builder(import.document, "api").register(&mut registry)?;
        println!(
            "registered in {:.1} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// See `--against-parse` in the module docs.
fn against_parse(text: &str, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let (mut parse, mut register) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let value: serde_json::Value = serde_json::from_str(text)?;
        parse.push(start.elapsed());
        drop(value);
        let start = Instant::now();
        let import = import_openapi(text, &ImportOptions::new())?;
        let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
        OpenApiTool::builder(import.document, "api").register(&mut registry)?;
        register.push(start.elapsed());
        drop(registry);
    }
    parse.sort();
    register.sort();
    let (parse, register) = (parse[parse.len() / 2], register[register.len() / 2]);
    println!(
        "serde_json parse {:.1} ms; into a registry {:.1} ms, {:.2}x the parse (medians of {rounds})",
        parse.as_secs_f64() * 1e3,
        register.as_secs_f64() * 1e3,
        register.as_secs_f64() / parse.as_secs_f64(),
    );
    Ok(())
}
