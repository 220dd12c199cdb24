//! The architecture of `ARCHITECTURE.md`, checked on the source: every
//! module depends only on lower layers, the files of one module have no
//! cycle between them, the library never prints, errors are typed, and
//! every file is one a reader can hold.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer of each top-level module: a module may use only modules of
/// lower layers.
const LAYERS: &[(&str, u32)] = &[
    ("source", 0),
    ("ir", 0),
    ("runtime", 0),
    ("system", 1),
    ("smt", 1),
    ("frontend", 2),
    ("engine", 2),
    ("lts", 2),
    ("abbadingo", 2),
    ("answers", 2),
    ("certificate", 2),
    ("crosscheck", 3),
    ("explore", 3),
    ("absint", 4),
    ("horn", 4),
    ("ltl", 5),
    ("ctl", 5),
    ("equivalence", 5),
    ("check", 6),
    ("validate", 6),
    ("solve", 7),
    ("svcomp", 7),
    ("report", 7),
    ("error", 8),
    ("cli", 9),
    ("lib", 10),
    ("main", 10),
];

/// Longest file allowed under `src/` and `tests/`.
const MAX_LINES: usize = 800;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src readable") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `src/absint/cells.rs` → `absint::cells`,
/// `src/absint/mod.rs` → `absint`, `src/lib.rs` → `lib`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without its tests (`#[cfg(test)]` items) and
/// comments: what the library itself runs.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let t = l.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Skip the item that follows: a `mod tests;` line, or a block
            // up to its closing brace at the same indentation.
            let indent = l.len() - t.len();
            if let Some(next) = lines.next() {
                if next.trim_end().ends_with('{') {
                    for m in lines.by_ref() {
                        let mt = m.trim_start();
                        if m.len() - mt.len() == indent && mt.starts_with('}') {
                            break;
                        }
                    }
                }
            }
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

struct Source {
    file: PathBuf,
    module: Vec<String>,
    text: String,
    code: String,
}

fn sources() -> Vec<Source> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    files
        .into_iter()
        // Test modules in their own files (`mod tests;`) are test code.
        .filter(|f| f.file_stem().is_some_and(|n| n != "tests"))
        .map(|file| {
            let text = std::fs::read_to_string(&file).expect("readable");
            Source {
                module: module_of(&file),
                code: code(&text),
                text,
                file,
            }
        })
        .collect()
}

/// The module paths a file's code names: `crate::a::b` and `super::x`,
/// resolved to the longest known module.
fn references(s: &Source, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let re = regex::Regex::new(r"\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)").expect("regex");
    let mut out = BTreeSet::new();
    for c in re.captures_iter(&s.code) {
        let mut path: Vec<String> = match &c[1] {
            "crate" => Vec::new(),
            _ => {
                // The parent of the file's module (`mod.rs` files are their
                // directory's module).
                let mut p = s.module.clone();
                p.pop();
                p
            }
        };
        for seg in c[2].split("::").filter(|x| !x.is_empty()) {
            if seg == "super" {
                path.pop();
            } else {
                path.push(seg.to_string());
            }
        }
        while !path.is_empty() && !known.contains(&path) {
            path.pop();
        }
        if !path.is_empty() {
            out.insert(path);
        }
    }
    out
}

fn layer(top: &str) -> u32 {
    LAYERS
        .iter()
        .find(|(m, _)| *m == top)
        .unwrap_or_else(|| panic!("module `{top}` has no layer in tests/architecture.rs"))
        .1
}

#[test]
fn modules_depend_only_on_lower_layers() {
    let all = sources();
    let known: BTreeSet<Vec<String>> = all.iter().map(|s| s.module.clone()).collect();
    let mut bad = Vec::new();
    for s in &all {
        let top = &s.module[0];
        for r in references(s, &known) {
            if &r[0] != top && layer(&r[0]) >= layer(top) {
                bad.push(format!("{} uses {}", s.module.join("::"), r.join("::")));
            }
        }
    }
    assert!(bad.is_empty(), "layering violated:\n{}", bad.join("\n"));
}

#[test]
fn no_cycle_between_the_files_of_a_module() {
    let all = sources();
    let known: BTreeSet<Vec<String>> = all.iter().map(|s| s.module.clone()).collect();
    // Edges between modules neither of which contains the other.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for s in &all {
        for r in references(s, &known) {
            let nested = r.starts_with(&s.module) || s.module.starts_with(&r);
            if !nested {
                edges.entry(s.module.clone()).or_default().insert(r);
            }
        }
    }
    // Depth-first search for a back edge.
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        path: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|p| p == n).unwrap_or(0);
                let mut cycle: Vec<String> = path[from..].iter().map(|p| p.join("::")).collect();
                cycle.push(n.join("::"));
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.clone(), 1);
        path.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if let Some(c) = visit(n, &edges, &mut state, &mut Vec::new()) {
            panic!("module cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_library_never_prints() {
    let mut bad = Vec::new();
    for s in sources() {
        if s.module[0] == "cli" || s.module[0] == "main" {
            continue;
        }
        for (i, l) in s.code.lines().enumerate() {
            if ["println!", "eprintln!", "print!(", "eprint!(", "dbg!("]
                .iter()
                .any(|m| l.contains(m))
            {
                bad.push(format!("{}: {}", s.file.display(), l.trim()));
            }
            let _ = i;
        }
    }
    assert!(bad.is_empty(), "printing outside cli/:\n{}", bad.join("\n"));
}

#[test]
fn errors_are_typed() {
    let re = regex::Regex::new(r"Result<[^;{]*,\s*String>").expect("regex");
    let boxed = regex::Regex::new(r"Box<dyn\s+std::error::Error").expect("regex");
    let mut bad = Vec::new();
    for s in sources() {
        for l in s.code.lines() {
            if re.is_match(l) || boxed.is_match(l) {
                bad.push(format!("{}: {}", s.file.display(), l.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "untyped errors:\n{}", bad.join("\n"));
}

#[test]
fn files_a_reader_can_hold() {
    let mut bad = Vec::new();
    for s in sources() {
        let n = s.text.lines().count();
        if n > MAX_LINES {
            bad.push(format!("{} has {n} lines", s.file.display()));
        }
    }
    let mut tests = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut tests,
    );
    assert!(!tests.is_empty(), "no test files found");
    for f in tests {
        let n = std::fs::read_to_string(&f)
            .expect("readable")
            .lines()
            .count();
        if n > MAX_LINES {
            bad.push(format!("{} has {n} lines", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_architecture_document_names_every_layer() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    for (m, _) in LAYERS {
        if *m != "lib" && *m != "main" {
            assert!(
                doc.contains(&format!("`{m}`")),
                "ARCHITECTURE.md does not name `{m}`"
            );
        }
    }
}

/// The certificate checker must not rely on what produced the certificate:
/// `certificate` and `smt` use only the IR, sources and each other.
#[test]
fn the_checker_shares_no_module_with_the_engines() {
    let all = sources();
    let known: BTreeSet<Vec<String>> = all.iter().map(|s| s.module.clone()).collect();
    let allowed = ["certificate", "smt", "ir", "source"];
    let mut bad = Vec::new();
    for s in all
        .iter()
        .filter(|s| s.module[0] == "certificate" || s.module[0] == "smt")
    {
        for r in references(s, &known) {
            if !allowed.contains(&r[0].as_str()) {
                bad.push(format!("{} uses {}", s.module.join("::"), r.join("::")));
            }
        }
    }
    assert!(bad.is_empty(), "the checker depends on: {bad:#?}");
}

/// Every path a file's code names under `crate::` or `super::`, grouped
/// imports (`use crate::{a::b, c}`) expanded, each resolved to a path from
/// the crate's root.
fn named_paths(s: &Source) -> BTreeSet<Vec<String>> {
    // Resolves `crate::x::y` or `super::x` to a path from the root.
    let resolve = |head: &str, rest: &str| -> Vec<String> {
        let mut path: Vec<String> = match head {
            "crate" => Vec::new(),
            _ => {
                let mut p = s.module.clone();
                p.pop();
                p
            }
        };
        for seg in rest.split("::").map(str::trim).filter(|x| !x.is_empty()) {
            match seg {
                "super" => {
                    path.pop();
                }
                "self" | "*" => {}
                _ => path.push(seg.to_string()),
            }
        }
        path
    };
    // Expands a use tree (`a::{b, c::{d}}`) into its paths.
    fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        match tree.find('{') {
            None => out.push(format!("{prefix}{tree}")),
            Some(open) => {
                let head = &tree[..open];
                let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
                // Split at top-level commas.
                let (mut depth, mut last) = (0, 0);
                let mut parts = Vec::new();
                for (k, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            parts.push(&inner[last..k]);
                            last = k + 1;
                        }
                        _ => {}
                    }
                }
                parts.push(&inner[last..]);
                for p in parts.into_iter().filter(|p| !p.trim().is_empty()) {
                    expand(p, &format!("{prefix}{head}"), out);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    let uses = regex::Regex::new(r"(?s)\buse\s+((?:crate|super)\b[^;]*);").expect("regex");
    for c in uses.captures_iter(&s.code) {
        let mut paths = Vec::new();
        expand(&c[1].split_whitespace().collect::<String>(), "", &mut paths);
        for p in paths {
            let p = p.split(" as ").next().unwrap_or("").to_string();
            let (head, rest) = p.split_once("::").unwrap_or((p.as_str(), ""));
            out.insert(resolve(head, rest));
        }
    }
    let inline = regex::Regex::new(r"\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)").expect("regex");
    for c in inline.captures_iter(&s.code) {
        out.insert(resolve(&c[1], &c[2]));
    }
    out
}

/// The second reading of the program behind every certificate
/// (`crosscheck`) shares nothing with the front ends, the IR, the engine,
/// the provers or the first checker's encoding: it may name only itself,
/// the certificate's data (`certificate::format`) and source files.
#[test]
fn the_second_reading_shares_nothing_with_the_provers() {
    let allowed: [&[&str]; 3] = [&["crosscheck"], &["certificate", "format"], &["source"]];
    let mut bad = Vec::new();
    for s in sources().iter().filter(|s| s.module[0] == "crosscheck") {
        for p in named_paths(s) {
            if !allowed
                .iter()
                .any(|a| p.starts_with(&a.iter().map(|x| x.to_string()).collect::<Vec<_>>()))
            {
                bad.push(format!("{} names {}", s.module.join("::"), p.join("::")));
            }
        }
    }
    assert!(bad.is_empty(), "the second reading depends on: {bad:#?}");
}

/// The import reader sees grouped imports: a planted one is found.
#[test]
fn grouped_imports_are_seen() {
    let s = Source {
        file: PathBuf::from("src/crosscheck/x.rs"),
        module: vec!["crosscheck".into(), "x".into()],
        text: String::new(),
        code:
            "use crate::{certificate::format::Var, ir::{Program, Expr}};\nuse super::{y, z::w};\n"
                .into(),
    };
    let paths: Vec<String> = named_paths(&s).into_iter().map(|p| p.join("::")).collect();
    for want in [
        "ir::Program",
        "ir::Expr",
        "certificate::format::Var",
        "crosscheck::y",
        "crosscheck::z::w",
    ] {
        assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
    }
}

/// Every file of `tests/` is a module of the one test binary
/// (`tests/main.rs`, `autotests = false`): a file it does not declare
/// would never run.
#[test]
fn every_test_file_is_in_the_test_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let declared: Vec<&str> = (main.lines())
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "main"
            && !declared.contains(&stem)
        {
            missing.push(stem.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "not declared in tests/main.rs: {missing:?}"
    );
}
