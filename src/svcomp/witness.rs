//! SV-COMP witnesses in the GraphML exchange format (witness format 1.0,
//! as validators such as CPAchecker and Ultimate read it), written and, for
//! violation witnesses, read back.
//!
//! - A *violation witness* is a path: one edge per loop iteration of
//!   `main`, carrying the value `__VERIFIER_nondet_int()` returned there
//!   (`\result == 3;`, with the call's line), ending in the violation node.
//! - A *correctness witness* is an entry node and the loop head of `main`,
//!   which carries the invariant of the proof where there is one (the
//!   regions of the abstraction's certificate, as a C expression).
//!
//! The key set follows the format's README; `grammars/witness-graphml.xsd`
//! is the schema the tests validate the output with.

use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::{Reader, Writer};
use regex::Regex;
use sha2::{Digest, Sha256};

use super::SvcompError;
use crate::source::Diagnostic;

/// What every witness of one program and property says about them.
#[derive(Clone, Debug)]
pub struct WitnessContext<'a> {
    /// The program file, as given to rigor.
    pub program_file: &'a str,
    /// The program's text (hashed into `programhash`).
    pub program_text: &'a str,
    /// The property file's text (`specification`).
    pub specification: &'a str,
    /// `32bit` (ILP32) or `64bit` (LP64).
    pub architecture: &'a str,
}

/// The keys a witness declares: (id, for, attr.type, default).
const KEYS: &[(&str, &str, &str, Option<&str>)] = &[
    ("witness-type", "graph", "string", None),
    ("sourcecodelang", "graph", "string", None),
    ("producer", "graph", "string", None),
    ("specification", "graph", "string", None),
    ("programfile", "graph", "string", None),
    ("programhash", "graph", "string", None),
    ("architecture", "graph", "string", None),
    ("creationtime", "graph", "string", None),
    ("entry", "node", "boolean", Some("false")),
    ("violation", "node", "boolean", Some("false")),
    ("invariant", "node", "string", None),
    ("invariant.scope", "node", "string", None),
    ("startline", "edge", "int", None),
    ("enterLoopHead", "edge", "boolean", Some("false")),
    ("assumption", "edge", "string", None),
    ("assumption.scope", "edge", "string", None),
    ("assumption.resultfunction", "edge", "string", None),
];

/// The GraphML `attr.name` of a key.
fn attr_name(id: &str) -> &str {
    match id {
        "entry" => "isEntryNode",
        "violation" => "isViolationNode",
        "sourcecodelang" => "sourcecodeLanguage",
        "programfile" => "programFile",
        "programhash" => "programHash",
        other => other,
    }
}

/// A node or an edge of the witness automaton, with its data.
enum Item {
    Node(String, Vec<(&'static str, String)>),
    Edge(String, String, Vec<(&'static str, String)>),
}

/// The violation witness of the run that feeds `values` to
/// `__VERIFIER_nondet_int()` (called on `nondet_line`) and then reaches
/// the property's target.
pub fn violation_witness(cx: &WitnessContext, nondet_line: Option<u32>, values: &[i32]) -> String {
    let mut items = vec![Item::Node("N0".into(), vec![("entry", "true".into())])];
    for (k, v) in values.iter().enumerate() {
        let mut data = Vec::new();
        if let Some(l) = nondet_line {
            data.push(("startline", l.to_string()));
        }
        data.push(("assumption", format!("\\result == {v};")));
        data.push(("assumption.scope", "main".into()));
        data.push(("assumption.resultfunction", "__VERIFIER_nondet_int".into()));
        let last = k + 1 == values.len();
        let node = Item::Node(
            format!("N{}", k + 1),
            if last {
                vec![("violation", "true".into())]
            } else {
                Vec::new()
            },
        );
        items.push(node);
        items.push(Item::Edge(format!("N{k}"), format!("N{}", k + 1), data));
    }
    if values.is_empty() {
        items[0] = Item::Node(
            "N0".into(),
            vec![("entry", "true".into()), ("violation", "true".into())],
        );
    }
    document(cx, "violation_witness", &items)
}

/// The correctness witness: `invariant` (a C expression over the globals)
/// holds at the head of `main`'s loop on `loop_line`, every time.
pub fn correctness_witness(
    cx: &WitnessContext,
    loop_line: Option<u32>,
    invariant: Option<&str>,
) -> String {
    let mut head = Vec::new();
    if let Some(inv) = invariant {
        head.push(("invariant", inv.to_string()));
        head.push(("invariant.scope", "main".into()));
    }
    let mut edge = Vec::new();
    if let Some(l) = loop_line {
        edge.push(("startline", l.to_string()));
    }
    edge.push(("enterLoopHead", "true".into()));
    let items = [
        Item::Node("N0".into(), vec![("entry", "true".into())]),
        Item::Node("N1".into(), head),
        Item::Edge("N0".into(), "N1".into(), edge),
    ];
    document(cx, "correctness_witness", &items)
}

/// The GraphML document of a witness.
fn document(cx: &WitnessContext, kind: &str, items: &[Item]) -> String {
    let hash: String = (Sha256::digest(cx.program_text.as_bytes()).iter())
        .map(|b| format!("{b:02x}"))
        .collect();
    let graph_data = [
        ("witness-type", kind.to_string()),
        ("sourcecodelang", "C".into()),
        ("producer", format!("rigor {}", env!("CARGO_PKG_VERSION"))),
        ("specification", cx.specification.to_string()),
        ("programfile", cx.program_file.to_string()),
        ("programhash", hash),
        ("architecture", cx.architecture.to_string()),
        ("creationtime", crate::answers::mcc::utc_now()),
    ];
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 1);
    let written = "writing XML into memory does not fail";
    w.write_event(Event::Decl(BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        Some("no"),
    )))
    .expect(written);
    w.create_element("graphml")
        .with_attributes([
            ("xmlns", "http://graphml.graphdrawing.org/xmlns"),
            ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
        ])
        .write_inner_content(|w| {
            for (id, on, ty, default) in KEYS {
                let key = w.create_element("key").with_attributes([
                    ("attr.name", attr_name(id)),
                    ("attr.type", *ty),
                    ("for", *on),
                    ("id", *id),
                ]);
                match default {
                    Some(d) => {
                        key.write_inner_content(|w| {
                            w.create_element("default")
                                .write_text_content(BytesText::new(d))?;
                            Ok(())
                        })?;
                    }
                    None => {
                        key.write_empty()?;
                    }
                }
            }
            w.create_element("graph")
                .with_attribute(("edgedefault", "directed"))
                .write_inner_content(|w| {
                    for (k, v) in &graph_data {
                        data(w, k, v)?;
                    }
                    for item in items {
                        match item {
                            Item::Node(id, d) if d.is_empty() => {
                                w.create_element("node")
                                    .with_attribute(("id", id.as_str()))
                                    .write_empty()?;
                            }
                            Item::Node(id, d) => {
                                w.create_element("node")
                                    .with_attribute(("id", id.as_str()))
                                    .write_inner_content(|w| {
                                        d.iter().try_for_each(|(k, v)| data(w, k, v))
                                    })?;
                            }
                            Item::Edge(s, t, d) => {
                                w.create_element("edge")
                                    .with_attributes([
                                        ("source", s.as_str()),
                                        ("target", t.as_str()),
                                    ])
                                    .write_inner_content(|w| {
                                        d.iter().try_for_each(|(k, v)| data(w, k, v))
                                    })?;
                            }
                        }
                    }
                    Ok(())
                })?;
            Ok(())
        })
        .expect(written);
    crate::answers::mcc::xml_text(w)
}

/// `<data key="k">v</data>`.
fn data(w: &mut Writer<Vec<u8>>, key: &str, value: &str) -> std::io::Result<()> {
    w.create_element("data")
        .with_attribute(("key", key))
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

/// The line of the one call of `__VERIFIER_nondet_int()` in `text` (not
/// its declaration), if there is exactly one.
pub fn nondet_call_line(text: &str) -> Option<u32> {
    let call = Regex::new(r"__VERIFIER_nondet_int\s*\(\s*\)").expect("valid regex");
    let declaration = Regex::new(r"\bint\s+__VERIFIER_nondet_int\s*\(").expect("valid regex");
    let lines: Vec<u32> = (text.lines().enumerate())
        .filter(|(_, l)| call.is_match(l) && !declaration.is_match(l))
        .map(|(k, _)| k as u32 + 1)
        .collect();
    match lines.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The line of the `while (1)` loop of `main` in `text`, if there is one.
pub fn main_loop_line(text: &str) -> Option<u32> {
    let main = Regex::new(r"\bint\s+main\s*\(").expect("valid regex");
    let looped = Regex::new(r"\bwhile\s*\(\s*1\s*\)").expect("valid regex");
    let start = text.lines().position(|l| main.is_match(l))?;
    (text.lines().enumerate().skip(start))
        .find(|(_, l)| looped.is_match(l))
        .map(|(k, _)| k as u32 + 1)
}

/// The values a violation witness feeds `__VERIFIER_nondet_int()`, in
/// order, along its one path from the entry node to a violation node
/// (`path` names the file in errors).
pub fn read_violation(path: &str, text: &str) -> Result<Vec<i32>, SvcompError> {
    let bad = |m: &str| SvcompError::Witness(Diagnostic::file(path, m));
    let mut reader = Reader::from_str(text);
    let (mut entry, mut violations) = (None::<String>, Vec::<String>::new());
    let mut edges: Vec<(String, String, Option<String>)> = Vec::new();
    let mut node: Option<String> = None;
    let mut key: Option<String> = None;
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| bad(&format!("not XML: {e}")))?;
        match ev {
            Event::Start(e) | Event::Empty(e) => {
                let attr = |name: &[u8]| {
                    e.attributes()
                        .flatten()
                        .find(|a| a.key.as_ref() == name)
                        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
                };
                match e.name().as_ref() {
                    b"node" => node = attr(b"id"),
                    b"edge" => {
                        node = None;
                        if let (Some(s), Some(t)) = (attr(b"source"), attr(b"target")) {
                            edges.push((s, t, None));
                        }
                    }
                    b"data" => key = attr(b"key"),
                    _ => {}
                }
            }
            Event::Text(t) => {
                let v = t.decode().map_err(|e| bad(&format!("not UTF-8: {e}")))?;
                let v = quick_xml::escape::unescape(&v)
                    .map(|v| v.into_owned())
                    .unwrap_or_default();
                match (key.as_deref(), &node) {
                    (Some("entry"), Some(n)) if v.trim() == "true" => entry = Some(n.clone()),
                    (Some("violation"), Some(n)) if v.trim() == "true" => {
                        violations.push(n.clone())
                    }
                    (Some("assumption"), None) => {
                        if let Some(e) = edges.last_mut() {
                            e.2 = Some(v.trim().to_string());
                        }
                    }
                    _ => {}
                }
            }
            Event::End(e) if e.name().as_ref() == b"data" => key = None,
            Event::End(e) if e.name().as_ref() == b"node" => node = None,
            Event::Eof => break,
            _ => {}
        }
    }
    let entry = entry.ok_or_else(|| bad("no entry node"))?;
    let result = Regex::new(r"^\\result\s*==\s*(-?\d+)\s*;?$").expect("valid regex");
    let (mut at, mut values) = (entry, Vec::new());
    for _ in 0..=edges.len() {
        if violations.contains(&at) {
            return Ok(values);
        }
        let out: Vec<&(String, String, Option<String>)> =
            edges.iter().filter(|e| e.0 == at).collect();
        let [(_, target, assumption)] = out.as_slice() else {
            return Err(bad(&format!(
                "node {at} has {} outgoing edges; rigor replays witnesses that are one path",
                out.len()
            )));
        };
        if let Some(a) = assumption {
            let c = result
                .captures(a)
                .ok_or_else(|| bad(&format!("assumption `{a}` is not `\\result == value;`")))?;
            values.push(
                c[1].parse()
                    .map_err(|_| bad(&format!("value out of range in `{a}`")))?,
            );
        }
        at = target.clone();
    }
    Err(bad(
        "the path from the entry node reaches no violation node",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> WitnessContext<'static> {
        WitnessContext {
            program_file: "p.c",
            program_text: "int main() {}\n",
            specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )",
            architecture: "32bit",
        }
    }

    #[test]
    fn violation_witnesses_read_back() {
        let w = violation_witness(&cx(), Some(12), &[3, -1, 6]);
        assert!(w.contains("<data key=\"witness-type\">violation_witness</data>"));
        assert!(w.contains("\\result == -1;"));
        assert_eq!(read_violation("w.graphml", &w).unwrap(), vec![3, -1, 6]);
        let empty = violation_witness(&cx(), None, &[]);
        assert_eq!(
            read_violation("w.graphml", &empty).unwrap(),
            Vec::<i32>::new()
        );
    }

    #[test]
    fn correctness_witnesses_carry_the_invariant() {
        let w = correctness_witness(&cx(), Some(7), Some("(a <= 3 && b == 1)"));
        assert!(w.contains("correctness_witness"));
        assert!(w.contains("<data key=\"invariant\">(a &lt;= 3 &amp;&amp; b == 1)</data>"));
        assert!(!w.contains("violation\">true"));
    }

    #[test]
    fn broken_witnesses_are_errors() {
        let w = violation_witness(&cx(), Some(1), &[1, 2]);
        for (text, want) in [
            (w.replace("\\result == 2;", "x > 2"), "is not `\\result"),
            (
                w.replace("<data key=\"entry\">true</data>", ""),
                "no entry node",
            ),
            (
                w.replace("<data key=\"violation\">true</data>", ""),
                "outgoing edges",
            ),
            ("<graphml><a></b></graphml>".to_string(), "not XML"),
        ] {
            let e = read_violation("w.graphml", &text).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn lines_of_the_call_and_the_loop() {
        let text = "extern int __VERIFIER_nondet_int(void);\nint x;\nint main()\n{\n    while(1)\n    {\n        int input = __VERIFIER_nondet_int();\n    }\n}\n";
        assert_eq!(nondet_call_line(text), Some(7));
        assert_eq!(main_loop_line(text), Some(5));
    }
}
