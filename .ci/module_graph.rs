//! No import circles between a crate's modules, at any depth.
//!
//! Reads every `.rs` file under a crate's `src/` (comments left out) and
//! turns each `crate::…`, `super::…` and `self::…` path — in `use` trees and
//! in code — into an edge to the module it names. A name a module
//! re-exports (`pub use a::X`, `pub(crate) use …`) counts as the module it
//! comes from. Edges are compared between siblings: `a::b::c` naming
//! `a::d::e` is an edge `b -> d` inside `a`; a module naming its own
//! ancestor or descendant is not an edge (a parent declares its children,
//! a child may use what its parent holds). A circle is a strongly
//! connected set of siblings, reported with its parent.
//!
//! Included by each crate's `tests/module_graph.rs` with
//! `#[path = "…/.ci/module_graph.rs"] mod module_graph;`, so there is one
//! copy of the reader.
#![allow(dead_code, clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path below the crate root (`["shell", "walk"]`; empty: the root).
pub type Module = Vec<String>;

/// One import circle: its parent module (`""` for the root) and its
/// modules in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    pub parent: String,
    pub modules: Vec<String>,
}

impl std::fmt::Display for Circle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parent = if self.parent.is_empty() {
            "the crate root"
        } else {
            &self.parent
        };
        write!(f, "in {parent}: {}", self.modules.join(" <-> "))
    }
}

/// The code of a file without `//` comments (doc comments included); a
/// `//` after a `"` on its line is kept (a URL in a string).
pub fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
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

/// The items of a brace list at depth 0 (`a::X, b::{Y, Z}` → two items).
fn items(list: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&list[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Every path a use tree names, each with the name it binds (`a::X as Y`
/// → `(["a", "X"], "Y")`).
pub fn paths(prefix: &[String], tree: &str) -> Vec<(Vec<String>, String)> {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{') {
        let inner = inner.strip_suffix('}').unwrap_or(inner);
        return items(inner)
            .into_iter()
            .flat_map(|item| paths(prefix, item))
            .collect();
    }
    let (head, rest) = match tree.split_once("::") {
        Some((head, rest)) => (head.trim(), Some(rest)),
        None => (tree, None),
    };
    let name = ident(head);
    let mut path = prefix.to_vec();
    if !name.is_empty() && name != "self" {
        path.push(name.to_owned());
    }
    match rest {
        Some(rest) => paths(&path, rest),
        None => {
            let bound = tree
                .split_once(" as ")
                .map_or(name, |(_, alias)| ident(alias.trim()));
            vec![(path, bound.to_owned())]
        }
    }
}

/// The text of the use tree or path that starts at `rest` (a brace group,
/// or `a::b::C`).
fn tree_at(rest: &str) -> &str {
    if rest.starts_with('{') {
        let mut depth = 0usize;
        for (i, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return &rest[..=i];
                    }
                }
                _ => {}
            }
        }
        return rest;
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    rest[..end].trim_end_matches(':')
}

/// Every `crate::`/`super::`/`self::` path in the code of `module`, as a
/// path from the crate root.
pub fn references(module: &[String], code: &str) -> Vec<Module> {
    let mut out = Vec::new();
    for keyword in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(keyword) {
            let at = from + found;
            from = at + keyword.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Vec<String> = match keyword {
                "crate::" => Vec::new(),
                "self::" => module.to_vec(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[from..];
            // `super::super::x`
            while keyword == "super::" && rest.starts_with("super::") {
                base.pop();
                rest = &rest["super::".len()..];
            }
            out.extend(paths(&base, tree_at(rest)).into_iter().map(|(p, _)| p));
        }
    }
    out
}

/// The crate's modules: module path → code, read from `src`.
pub fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Module = relative
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            out.insert(module, code(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// `(module, name) → where the name comes from`, for every `pub use` and
/// `pub(…) use` of every module.
fn reexports(modules: &BTreeMap<Module, String>) -> BTreeMap<(Module, String), Module> {
    let mut out = BTreeMap::new();
    for (module, code) in modules {
        for statement in code.split(';') {
            let statement = statement.trim_start();
            let Some(at) = statement.find("use ") else {
                continue;
            };
            // `pub use`, `pub(crate) use`, after any attributes.
            let head = statement[..at].split_whitespace().last().unwrap_or("");
            if !(head == "pub" || head.starts_with("pub(")) {
                continue;
            }
            let tree = statement[at + "use ".len()..].trim();
            let (base, tree) = if let Some(rest) = tree.strip_prefix("crate::") {
                (Vec::new(), rest)
            } else if let Some(rest) = tree.strip_prefix("self::") {
                (module.clone(), rest)
            } else if let Some(rest) = tree.strip_prefix("super::") {
                (module[..module.len().saturating_sub(1)].to_vec(), rest)
            } else {
                // `pub use a::X`: `a` is a child module (other crates are
                // not modules of this one and resolve to nothing).
                (module.clone(), tree)
            };
            for (path, bound) in paths(&base, tree) {
                out.insert((module.clone(), bound), path);
            }
        }
    }
    out
}

/// The module `path` names: its longest prefix that is a module, or the
/// module a re-exported name there comes from.
fn resolve(
    path: &[String],
    modules: &BTreeMap<Module, String>,
    reexports: &BTreeMap<(Module, String), Module>,
    depth: usize,
) -> Option<Module> {
    for len in (0..=path.len()).rev() {
        let prefix = &path[..len];
        if !modules.contains_key(prefix) {
            continue;
        }
        if let Some(next) = path.get(len)
            && depth < 8
            && let Some(source) = reexports.get(&(prefix.to_vec(), next.clone()))
        {
            let mut source = source.clone();
            source.extend(path[len + 1..].iter().cloned());
            if let Some(found) = resolve(&source, modules, reexports, depth + 1) {
                return Some(found);
            }
        }
        return Some(prefix.to_vec());
    }
    None
}

/// The sibling edges: parent → (module → modules it names).
pub fn graph(src: &Path) -> BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> {
    let modules = modules(src);
    let reexports = reexports(&modules);
    let mut out: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, code) in &modules {
        for path in references(module, code) {
            let Some(target) = resolve(&path, &modules, &reexports, 0) else {
                continue;
            };
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue;
            }
            out.entry(module[..common].to_vec())
                .or_default()
                .entry(module[common].clone())
                .or_default()
                .insert(target[common].clone());
        }
    }
    out
}

/// The strongly connected sets of more than one module (Tarjan).
fn circles_in(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(node: &'a str, s: &mut State<'a>) {
        let next = s.index.len();
        s.index.insert(node, next);
        s.low.insert(node, next);
        s.stack.push(node);
        s.on_stack.insert(node);
        for target in s.graph.get(node).into_iter().flatten() {
            let target = target.as_str();
            if !s.index.contains_key(target) {
                visit(target, s);
                let low = s.low[node].min(s.low[target]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(target) {
                let low = s.low[node].min(s.index[target]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut set = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                set.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.found.push(set);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(node, &mut state);
        }
    }
    state.found
}

/// Every import circle of the crate whose sources are in `src`.
pub fn circles(src: &Path) -> Vec<Circle> {
    let mut out: Vec<Circle> = graph(src)
        .iter()
        .flat_map(|(parent, siblings)| {
            circles_in(siblings).into_iter().map(|modules| Circle {
                parent: parent.join("::"),
                modules,
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.parent, &a.modules).cmp(&(&b.parent, &b.modules)));
    out
}

/// Fails with every circle of the including crate, one per line.
pub fn assert_no_circles(manifest_dir: &str) {
    let src = Path::new(manifest_dir).join("src");
    let graph = graph(&src);
    assert!(
        !graph.is_empty(),
        "no module of {} names another: is {} a crate's src?",
        manifest_dir,
        src.display()
    );
    let circles = circles(&src);
    let lines: Vec<String> = circles.iter().map(ToString::to_string).collect();
    assert!(circles.is_empty(), "import circles:\n{}", lines.join("\n"));
}

/// The reader on small inputs (run by each including test).
pub fn self_check() {
    let module = vec!["shell".to_owned(), "walk".to_owned()];
    let code = code(
        "use crate::a::X;\nuse super::{words::W, types::{T, U}};\nlet v = self::inner::f(); // crate::g::h\nlet w = super::super::top::Y;",
    );
    let found: Vec<String> = references(&module, &code)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert!(found.contains(&"a::X".to_owned()), "{found:?}");
    assert!(found.contains(&"shell::words::W".to_owned()), "{found:?}");
    assert!(found.contains(&"shell::types::U".to_owned()), "{found:?}");
    assert!(
        found.contains(&"shell::walk::inner::f".to_owned()),
        "{found:?}"
    );
    assert!(found.contains(&"top::Y".to_owned()), "{found:?}");
    assert!(!found.contains(&"g::h".to_owned()), "{found:?}");
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("d".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]
    .into();
    assert_eq!(circles_in(&graph), [["a", "b", "c"]]);
}
