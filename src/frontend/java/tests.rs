//! Tests of the Java front end.

use super::*;
use crate::system::System;

fn lower(src: &str) -> Result<ir::Program> {
    parse_java("T.java", src)
}

const SMALL: &str = r#"
public class T {
private String[] inputs = {"B","A"};
public String s = "e";
public int x = 3;
public int[] arr = {1, 2, 3};
public int[] ref = arr;
public boolean cf = true;
private void errorCheck() {
    if (x == 5 && s.equals("f")) { cf = false; Errors.__VERIFIER_error(7); }
}
private void calculateOutputm1(String input) {
    if (cf && input.equals("A")) { cf = false; x = x + ref[1] * 2 / 3 % 7; s = "f"; System.out.println("Y"); }
}
public void calculateOutput(String input) {
    cf = true;
    if (cf && s.equals("e")) { calculateOutputm1(input); }
    if (cf && input.equals("B")) { cf = false; x -= 1; System.out.println("Z"); }
    errorCheck();
    if (cf) throw new IllegalArgumentException("Current state has no transition for this input!");
}
public static void main(String[] args) { for (;;) { } }
}
"#;

#[test]
fn lowers_a_small_program() {
    let p = lower(SMALL).expect("lowers");
    assert_eq!(p.language, ir::Language::Java);
    let ins: Vec<&str> = p.inputs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(ins, ["B", "A"]);
    let outs: Vec<&str> = p.outputs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(outs, ["Y", "Z"]);
    assert_eq!(p.error_labels, [7]);
    // Strings are interned once: input and output values are ids.
    for s in p.inputs.iter().chain(&p.outputs) {
        assert_eq!(p.strings[s.value as usize], s.name);
    }
    let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"calculateOutput") && !names.contains(&"main"));
    let r = p.globals.iter().find(|g| g.name == "ref").expect("ref");
    assert!(matches!(r.kind, GlobalKind::Pointer { .. }));
}

#[test]
fn runs_on_the_engine() {
    let p = lower(SMALL).expect("lowers");
    let m = crate::engine::Machine::compile(&p).expect("compiles");
    let mut sc = m.scratch();
    let s0 = m.initial_state();
    let mut s1 = s0.clone();
    let a = m.input_index("A").unwrap();
    let b = m.input_index("B").unwrap();
    let o = m.step(&mut sc, &s0, a, &mut s1).expect("steps");
    assert_eq!(o, crate::system::Outcome::Output(0)); // Y
    let mut s2 = s1.clone();
    // s = "f" now: A is invalid, B prints Z.
    let o = m.step(&mut sc, &s1, a, &mut s2).expect("steps");
    assert_eq!(o, crate::system::Outcome::Invalid);
    let o = m.step(&mut sc, &s1, b, &mut s2).expect("steps");
    assert_eq!(o, crate::system::Outcome::Output(1));
}

#[test]
fn literals() {
    assert_eq!(int_literal("2147483647", false), Some(i32::MAX));
    assert_eq!(int_literal("2147483648", false), None);
    assert_eq!(int_literal("2147483648", true), Some(i32::MIN));
    assert_eq!(int_literal("0xFFFFFFFF", false), Some(-1));
    assert_eq!(int_literal("1_000", false), Some(1000));
    assert_eq!(int_literal("010", false), Some(8));
    assert_eq!(int_literal("5L", false), None);
}

fn error_of(src: &str) -> crate::source::Diagnostic {
    let e = lower(src).expect_err("must be rejected");
    e.diagnostic()
        .cloned()
        .unwrap_or_else(|| panic!("not located: {e}"))
}

fn wrap(body: &str) -> String {
    format!(
        "public class T {{\n    private String[] inputs = {{\"A\"}};\n    public int x = 0;\n    public void calculateOutput(String input) {{\n{body}\n        System.out.println(\"Y\");\n    }}\n}}\n"
    )
}

#[test]
fn syntax_errors_are_located() {
    let e = error_of(&wrap("        x = ;"));
    assert_eq!(e.at.line, 5, "{e}");
    assert!(e.at.col > 0 && e.message.contains("syntax error"), "{e}");
}

#[test]
fn unsupported_constructs_are_located() {
    let cases = [
        ("        for (int i = 0; i < 3; i++) { x++; }", "for loop"),
        ("        switch (x) { default: x = 1; }", "switch"),
        ("        String t = \"a\" + input;", "string concatenation"),
        ("        x = x >>> 1;", "operator `>>>`"),
        (
            "        Object o = null;",
            "local variable of type `Object`",
        ),
        ("        x = (x = 2);", "assignment inside an expression"),
        ("        throw new RuntimeException(\"no\");", "throw"),
        ("        input.length();", "input.length"),
    ];
    for (body, what) in cases {
        let e = error_of(&wrap(body));
        assert_eq!(e.at.line, 5, "{body}: {e}");
        assert!(e.at.col >= 9, "{body}: {e}");
        assert!(e.message.contains(what), "{body}: {e}");
    }
}

#[test]
fn missing_step_is_an_error() {
    let e = error_of("public class T { public int x = 1; }");
    assert!(e.message.contains("calculateOutput"), "{e}");
}

#[test]
fn unsupported_field_only_matters_when_used() {
    let ok = wrap("").replace(
        "public int x = 0;",
        "public java.util.List<Integer> l = null;",
    );
    lower(&ok).expect("an unused field of another type is ignored");
    let bad = wrap("        l = null;").replace("public int x = 0;", "public Object l = null;");
    let e = error_of(&bad);
    assert!(e.message.contains("`l`"), "{e}");
}
