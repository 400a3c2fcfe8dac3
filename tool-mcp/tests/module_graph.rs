//! No import circles between the crate's modules.
//!
//! Reads `src/*.rs` and lists, for each module, the modules it names
//! through `crate::` paths outside comments (`use crate::a::X`,
//! `use crate::{a::X, b}`, `crate::a::f()` in code, and `crate::X` for a
//! name the root re-exports from module `a`); then looks for a cycle in
//! that graph. A circle is reported with its modules in order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The code of a file without `//` comments (doc comments included).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string is rare in this crate; `"http://"` is the one case.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every path in a `use` tree body (`a::X, b::{Y, Z}`).
fn first_segments(tree: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut item = String::new();
    for ch in tree.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        if depth == 0 || ch != '{' {
            item.push(ch);
        }
    }
    out.push(item);
    out.iter()
        .filter_map(|item| {
            let first = item.trim().split("::").next()?.trim();
            let first: String = first
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!first.is_empty()).then_some(first)
        })
        .collect()
}

/// Every first segment after `crate::` in `code`.
fn crate_references(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(body) = rest.strip_prefix('{') {
            let mut depth = 1usize;
            let end = body
                .char_indices()
                .find(|(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(body.len(), |(i, _)| i);
            out.extend(first_segments(&body[..end]));
        } else {
            out.extend(first_segments(
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or(""),
            ));
        }
    }
    out
}

/// The module behind each name the root re-exports (`pub use a::{X, Y}`).
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in lib.split(';') {
        let statement = statement.trim();
        let Some(tree) = statement
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("#["))
            .collect::<Vec<_>>()
            .join(" ")
            .strip_prefix("pub use ")
            .map(str::to_owned)
        else {
            continue;
        };
        let Some((module, rest)) = tree.split_once("::") else {
            continue;
        };
        let rest = rest.trim().trim_start_matches('{').trim_end_matches('}');
        for name in rest.split(',') {
            let name = name.trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    names
}

fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let lib = code(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let exports = root_exports(&lib);
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            modules.insert(name, code(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, code)| {
            let uses = crate_references(code)
                .into_iter()
                .filter_map(|first| {
                    if known.contains(&first) {
                        Some(first)
                    } else {
                        exports.get(&first).cloned()
                    }
                })
                .filter(|target| target != name)
                .collect();
            (name.clone(), uses)
        })
        .collect()
}

/// A cycle of `graph`, when there is one (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_owned());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_reader_sees_every_kind_of_crate_path() {
    let code = code(
        "use crate::a::X;\nuse crate::{b::Y, c::{Z, W}, d};\nlet v = crate::e::f(); // crate::g::h\n/// [`crate::i`]\nlet w = crate::Root;",
    );
    assert_eq!(crate_references(&code), ["a", "b", "c", "d", "e", "Root"]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]
    .into();
    assert_eq!(cycle(&graph).unwrap(), ["a", "b", "a"]);
}

#[test]
fn the_modules_of_tool_mcp_import_each_other_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph(&src);
    assert!(graph.len() > 10, "{graph:?}");
    assert!(
        graph["manager"].contains("session"),
        "the graph is read: {graph:?}"
    );
    if let Some(circle) = cycle(&graph) {
        panic!("import circle: {}", circle.join(" -> "));
    }
}
