//! Graphviz `.dot` Mealy machines, as in the RERS 2019 industrial reference
//! models: `s0 -> s1 [label="input/output"];` edges, node declarations, and a
//! `__start0 -> s0;` edge marking the initial state.
//!
//! Each Mealy edge becomes `s --input--> m --output--> t` (a fresh
//! intermediate `m` per edge), the labelling of programs
//! ([`super::from_program`]). An edge whose output is `error` is an invalid
//! input: it goes to one shared state without successors, as an invalid input
//! of a program does, whatever target the model gives it (the models route
//! them to a sink that answers `error` to everything). Only the part
//! reachable from the initial state is kept.

use std::collections::HashMap;

use super::{Lts, LtsBuilder};
use crate::source::{read_text, Diagnostic};
use crate::system::ERROR_LABEL;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Reads a `.dot` text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Lts> {
    let mut b = LtsBuilder::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut initial: Option<u32> = None;
    let mut first_node: Option<u32> = None;
    let mut dead = None;
    let mut seen_graph = false;
    for (ln, raw) in text.lines().enumerate() {
        let ln = ln as u32 + 1;
        let line = raw.trim();
        let col0 = (raw.len() - raw.trim_start().len()) as u32 + 1;
        if line.is_empty() || line.starts_with("//") || line.starts_with('#') || line == "}" {
            continue;
        }
        if line.starts_with("digraph") {
            seen_graph = true;
            continue;
        }
        if !seen_graph {
            return Err(Diagnostic::at(file, ln, col0, "expected `digraph NAME {`"));
        }
        let line = line.trim_end_matches(';').trim();
        let (head, attrs) = match line.find('[') {
            Some(k) => {
                let a = line[k + 1..].trim_end();
                let a = a.strip_suffix(']').ok_or_else(|| {
                    Diagnostic::at(
                        file,
                        ln,
                        col0 + k as u32,
                        "unterminated attribute list, expected `]`",
                    )
                })?;
                (line[..k].trim(), Some(a))
            }
            None => (line, None),
        };
        let mut intern = |b: &mut LtsBuilder, name: &str| -> u32 {
            *ids.entry(name.to_string()).or_insert_with(|| b.state())
        };
        if let Some(k) = head.find("->") {
            let src = unquote(head[..k].trim());
            let dst = unquote(head[k + 2..].trim());
            if src.is_empty() || dst.is_empty() {
                return Err(Diagnostic::at(
                    file,
                    ln,
                    col0,
                    "edge needs a source and a target",
                ));
            }
            if src.starts_with("__start") {
                initial = Some(intern(&mut b, dst));
                continue;
            }
            let label = attrs.and_then(|a| attr(a, "label")).ok_or_else(|| {
                Diagnostic::at(
                    file,
                    ln,
                    col0,
                    "edge without a label, expected [label=\"input/output\"]",
                )
            })?;
            let (input, output) = label.split_once('/').ok_or_else(|| {
                Diagnostic::at(
                    file,
                    ln,
                    col0,
                    format!("label `{label}` is not `input/output`"),
                )
            })?;
            let (input, output) = (input.trim(), output.trim());
            if input.is_empty() || output.is_empty() {
                return Err(Diagnostic::at(
                    file,
                    ln,
                    col0,
                    format!("label `{label}` has an empty side"),
                ));
            }
            let s = intern(&mut b, src);
            let t = if output == ERROR_LABEL {
                *dead.get_or_insert_with(|| b.state())
            } else {
                intern(&mut b, dst)
            };
            let m = b.state();
            b.edge(s, input, m);
            b.edge(m, output, t);
        } else {
            let name = unquote(head);
            if name.is_empty() || name.starts_with("__start") {
                continue;
            }
            if matches!(name, "graph" | "node" | "edge") {
                continue;
            }
            if name.contains(char::is_whitespace) || name.contains('=') {
                // `rankdir=LR` and similar graph attributes.
                continue;
            }
            let s = intern(&mut b, name);
            first_node.get_or_insert(s);
        }
    }
    if !seen_graph {
        return Err(Diagnostic::file(
            file,
            "no `digraph` found, expected a Graphviz file",
        ));
    }
    let init = initial
        .or(first_node)
        .ok_or_else(|| Diagnostic::file(file, "no states, and no `__start0 -> sN` edge"))?;
    b.initial(init);
    Ok(b.finish().reachable())
}

/// Reads a `.dot` file.
pub fn read(path: &str) -> std::result::Result<Lts, super::ModelError> {
    Ok(parse(path, &read_text(path)?)?)
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(s)
}

/// The value of attribute `key` in `k1=v1 k2="v 2", ...`.
fn attr<'a>(attrs: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = attrs;
    while let Some(eq) = rest.find('=') {
        let k = rest[..eq].trim().trim_start_matches(',').trim();
        let after = rest[eq + 1..].trim_start();
        let (v, tail) = if let Some(r) = after.strip_prefix('"') {
            let end = r.find('"')?;
            (&r[..end], &r[end + 1..])
        } else {
            let end = after
                .find(|c: char| c.is_whitespace() || c == ',')
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if k == key {
            return Some(v);
        }
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = r#"digraph g {

    __start0 [label="" shape="none"]
    s0 [shape="circle" label=s0];
    s1 [shape="circle" label=s1];
    s2 [shape="circle" label=s2];
    s0 -> s1 [label="a/x"];
    s0 -> s2 [label="b/error"];
    s1 -> s0 [label="a/y"];
    s2 -> s2 [label="a/error"];
    __start0 -> s0;
}
"#;

    #[test]
    fn reads_mealy_edges() {
        let l = parse("m.dot", M).unwrap();
        // s0, s1, mid(a), mid(b), dead, mid(s1,a); the sink s2 is unreachable
        assert_eq!(l.n_states, 6);
        assert_eq!(l.transitions.len(), 6);
        assert!(l.label_index("error").is_some());
        assert_eq!(l.initial, 0);
    }

    #[test]
    fn attribute_values() {
        assert_eq!(attr(r#"shape="circle" label=s0"#, "label"), Some("s0"));
        assert_eq!(attr(r#"label="a/b", color=red"#, "label"), Some("a/b"));
        assert_eq!(attr("color=red", "label"), None);
    }

    #[test]
    fn bad_label_is_located() {
        let e = parse("m.dot", "digraph g {\n  s0 -> s1 [label=\"ab\"];\n}\n").unwrap_err();
        assert_eq!((e.at.line, e.at.col), (2, 3));
    }
}
