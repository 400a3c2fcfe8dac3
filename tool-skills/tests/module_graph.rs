//! No import circles between this crate's modules: every `crate::…` path
//! in `src/` (imports and paths in code; comments ignored; a name the root
//! re-exports counts as its module) is an edge, and the graph has no cycle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code of a file without comments (line comments and doc comments).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// `name → module` for the root's `pub use module::{…}` re-exports.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in code(lib).split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let rest = &statement[at + "pub use ".len()..];
        let module = ident(rest).to_owned();
        for name in rest[module.len()..].split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() {
                map.insert(name.to_owned(), module.clone());
            }
        }
    }
    map
}

/// The modules one file's code names through `crate::`.
fn edges(code: &str, modules: &BTreeSet<String>, roots: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = BTreeSet::new();
    let mut resolve = |name: &str| {
        if modules.contains(name) {
            out.insert(name.to_owned());
        } else if let Some(module) = roots.get(name) {
            out.insert(module.clone());
        }
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for part in inner.split(',') {
                resolve(ident(part.trim()));
            }
        } else {
            resolve(ident(rest));
        }
    }
    out.into_iter().collect()
}

fn cycle(graph: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, Vec<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut found = stack[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(found) = visit(node, graph, &mut Vec::new(), &mut done) {
            return Some(found);
        }
    }
    None
}

fn graph() -> BTreeMap<String, Vec<String>> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let roots = reexports(&lib);
    let files: BTreeMap<String, String> = fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| p.file_stem().is_some_and(|s| s != "lib"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, code(&fs::read_to_string(&p).unwrap()))
        })
        .collect();
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(name, code)| {
            let mut to = edges(code, &modules, &roots);
            to.retain(|m| m != name);
            (name.clone(), to)
        })
        .collect()
}

#[test]
fn modules_import_without_circles() {
    let graph = graph();
    assert!(
        graph.len() > 10,
        "the source files were not found: {graph:?}"
    );
    assert!(
        graph["scripts"].contains(&"skill_lookup".to_owned()),
        "the scan must see edges: {graph:?}"
    );
    if let Some(found) = cycle(&graph) {
        panic!("import circle: {}", found.join(" -> "));
    }
}

#[test]
fn the_cycle_check_finds_a_planted_circle() {
    let mut graph = graph();
    graph.get_mut("name").unwrap().push("registry".into());
    let found = cycle(&graph).expect("a circle through name and registry");
    assert!(found.contains(&"name".to_owned()), "{found:?}");
}
