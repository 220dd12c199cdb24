//! The checker's reading and symbolic step on small C programs, checked
//! against what the C standard says they do.

use super::exec::{Ending, Exec};
use super::layout::Layout;
use super::syntax::Program;
use super::value::Val;
use super::*;

fn read_c(text: &str) -> Program {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("p.c");
    std::fs::write(&path, text).expect("written");
    read_program(path.to_str().expect("utf-8"), &[]).expect("reads")
}

/// Runs one step from the initial state on `input`: the error label, or
/// the state it goes on in (`None` for blocked).
fn step(p: &Program, input: i32) -> Vec<(String, Option<Vec<i32>>)> {
    let layout = Layout::of(p).expect("layout");
    let pre: Vec<Val> = layout.initial.iter().map(|&k| Val::Known(k)).collect();
    let ends = Exec::run(p, &layout, pre, Val::Known(input))
        .expect("runs")
        .ends;
    ends.into_iter()
        .map(|e| {
            assert!(
                matches!(e.when, value::Cond::Known(true)),
                "known state, known ending"
            );
            match e.ending {
                Ending::Error(n) => (format!("error {n}"), None),
                Ending::Fault(f) => (format!("fault {f}"), None),
                Ending::GoesOn(v, _) => (
                    "goes on".into(),
                    Some(
                        v.iter()
                            .map(|x| match x {
                                Val::Known(k) => *k,
                                Val::Term(..) => panic!("a term from a known state"),
                            })
                            .collect(),
                    ),
                ),
            }
        })
        .collect()
}

fn goes_on(p: &Program, input: i32) -> Vec<i32> {
    let ends = step(p, input);
    assert_eq!(ends.len(), 1, "{ends:?}");
    ends[0].1.clone().expect("goes on")
}

#[test]
fn operators_are_read_with_or_without_spaces() {
    let p = read_c(
        "int a = 7; int b = 2; int r1, r2, r3, r4, r5, r6, r7, r8, r9;\n\
         void calculate_output(int input) {\n\
           r1 = a==7; r2 = (a)-b*3; r3 = -a/b; r4 = -a%b; r5 = !a||b<3;\n\
           r6 = a<<2>>1; r7 = ~a&15^1; a += 5; b++; r8 = a>=12&&b!=3 ? 1 : 2; r9 = +b;\n\
         }\n",
    );
    // a, b, r1..r9 in declaration order.
    assert_eq!(goes_on(&p, 1), vec![12, 3, 1, 1, -3, -1, 1, 14, 9, 2, 3]);
}

#[test]
fn error_labels_are_told_by_call_and_by_assert_under_a_label() {
    let p = read_c(
        "#include <assert.h>\nextern void __VERIFIER_error(int);\nint x = 1;\n\
         void calculate_output(int input) {\n\
           if (input == 1) { __VERIFIER_error(4); }\n\
           if (input == 2) { error_9: assert(0); }\n\
           if (input == 3) { x = 5; }\n\
         }\n",
    );
    assert_eq!(step(&p, 1), vec![("error 4".to_string(), None)]);
    assert_eq!(step(&p, 2), vec![("error 9".to_string(), None)]);
    assert_eq!(goes_on(&p, 3), vec![5]);
    assert_eq!(p.input_classes(), Some(vec![1, 2, 3, 4]));
}

#[test]
fn returns_end_the_function_and_assume_blocks() {
    let p = read_c(
        "extern void __VERIFIER_assume(int);\nint x = 0; int y = 0;\n\
         void inner(int input) { if (input == 1) { x = 1; return; } x = 2; }\n\
         int calculate_output(int input) {\n\
           inner(input); y = 3;\n\
           if (input == 2) { return 21; }\n\
           if (input == 3) { __VERIFIER_assume(0); }\n\
           y = 4; return -2;\n\
         }\n",
    );
    assert_eq!(goes_on(&p, 1), vec![1, 4]);
    assert_eq!(goes_on(&p, 2), vec![2, 3]);
    assert!(step(&p, 3).is_empty(), "blocked");
}

#[test]
fn arrays_and_pointers_are_read_and_indices_checked() {
    let p = read_c(
        "int a[] = {1,2,3}; int b[3] = {7,8,9}; int *p = a; int i = 2; int v = 0;\n\
         void calculate_output(int input) {\n\
           if (input == 1) { v = p[i]; p = b; }\n\
           if (input == 2) { p[0] = 5; v = *p; }\n\
           if (input == 3) { v = a[i + 1]; }\n\
         }\n",
    );
    // a[0..3], b[0..3], p, i, v.
    assert_eq!(goes_on(&p, 1), vec![1, 2, 3, 7, 8, 9, 1, 2, 3]);
    assert_eq!(goes_on(&p, 2), vec![5, 2, 3, 7, 8, 9, 0, 2, 5]);
    let ends = step(&p, 3);
    assert!(ends.iter().any(|(e, _)| e.starts_with("fault")), "{ends:?}");
}

#[test]
fn a_construct_it_does_not_read_is_a_located_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("loop.c");
    std::fs::write(
        &path,
        "int x;\nvoid calculate_output(int input) {\n  while (x < 3) x++;\n}\n",
    )
    .expect("written");
    let e = read_program(path.to_str().expect("utf-8"), &[]).expect_err("a loop is not read");
    let text = e.to_string();
    assert!(text.contains("loop.c:3:"), "{text}");
}

/// Reads a Java class, numbering the strings `A`, `B`, `x`, `y` 0 to 3.
fn read_java(text: &str) -> Program {
    let strings: Vec<(i64, String)> = ["A", "B", "x", "y"]
        .iter()
        .enumerate()
        .map(|(k, s)| (k as i64, s.to_string()))
        .collect();
    java_reader::read_text("P.java", text, &strings).expect("reads")
}

#[test]
fn java_arithmetic_is_javas() {
    let p = read_java(
        "public class P {\n\
           private String[] inputs = {\"A\", \"B\"};\n\
           public int a = 7; public int b = -2; public boolean cf = true;\n\
           public int r1, r2, r3, r4;\n\
           public void calculateOutput(String input) {\n\
             r1 = a / b; r2 = -a % b; a += 5; b++; r3 = (a >= 12 && !cf) ? 1 : 2;\n\
             r4 = 2147483647 + 1; cf = b != -1 || false;\n\
           }\n\
         }\n",
    );
    // inputs[0..2], a, b, cf, r1..r4.
    assert_eq!(goes_on(&p, 0), vec![0, 1, 12, -1, 0, -3, -1, 2, i32::MIN]);
}

#[test]
fn java_strings_errors_and_invalid_inputs() {
    let p = read_java(
        "public class P {\n\
           private String[] inputs = {\"A\", \"B\"};\n\
           public String s = \"x\"; public boolean cf = true; public String t = \"z\";\n\
           private void m(String input) { if (input.equals(\"A\") && s.equals(\"x\")) { cf = false; s = \"y\"; System.out.println(\"Y\"); } }\n\
           public void calculateOutput(String input) {\n\
             cf = true; m(input);\n\
             if (s.equals(\"y\") && input.equals(inputs[1])) { cf = false; Errors.__VERIFIER_error(7); }\n\
             if (cf) throw new IllegalArgumentException(\"no transition\");\n\
           }\n\
         }\n",
    );
    // inputs[0..2], s, cf, t: "z" and "Y" are numbered after the table.
    assert_eq!(goes_on(&p, 0), vec![0, 1, 3, 0, 4]);
    assert_eq!(
        goes_on(&p, 1),
        vec![0, 1, 2, 1, 4],
        "invalid: goes on as is"
    );
    assert_eq!(p.input_classes(), Some(vec![0, 1]));
}

#[test]
fn java_array_fields_assigned_whole_are_references() {
    let p = read_java(
        "public class P {\n\
           public int[] a = {1, 2}; public int[] b = {3, 4}; public int[] q = {5, 6};\n\
           public int[] r = a; public int v = 0;\n\
           public void calculateOutput(String input) {\n\
             if (input.equals(\"A\")) { q = b; q[0] = 9; v = r[1]; }\n\
             if (input.equals(\"B\")) { r = q; r[1]++; }\n\
           }\n\
         }\n",
    );
    let layout = Layout::of(&p).expect("layout");
    assert_eq!(
        layout.names,
        [
            "a[0]",
            "a[1]",
            "b[0]",
            "b[1]",
            "q$init[0]",
            "q$init[1]",
            "q",
            "r",
            "v"
        ]
    );
    // Array numbers: a 0, b 1, q$init 2.
    assert_eq!(goes_on(&p, 0), vec![1, 2, 9, 4, 5, 6, 1, 0, 2]);
    assert_eq!(goes_on(&p, 1), vec![1, 2, 3, 4, 5, 7, 2, 2, 0]);
}

#[test]
fn java_constructs_it_does_not_read_are_located_errors() {
    let class = |body: &str| {
        format!(
            "public class P {{\n  public int x = 0; public String s = \"x\";\n  \
             public void calculateOutput(String input) {{\n{body}\n  }}\n}}\n"
        )
    };
    let strings = [(0, "x".to_string())];
    for (body, what) in [
        ("    while (x < 3) x++;", "P.java:4:"),
        ("    if (s == \"x\") x = 1;", "P.java:4:"),
        ("    x = s.length();", "P.java:4:"),
        ("    throw new IllegalStateException();", "P.java:4:"),
    ] {
        let e = java_reader::read_text("P.java", &class(body), &strings).expect_err("not read");
        assert!(e.to_string().contains(what), "{body}: {e}");
    }
    let e = java_reader::read_text("P.java", &class("    x = 1;"), &[]).expect_err("no table");
    assert!(e.to_string().contains("which string"), "{e}");
}

/// What one step from the initial state on `input` said: its kind and
/// value (both known).
fn said(p: &Program, input: i32) -> (i32, i32) {
    let layout = Layout::of(p).expect("layout");
    let pre: Vec<Val> = layout.initial.iter().map(|&k| Val::Known(k)).collect();
    let ends = Exec::run(p, &layout, pre, Val::Known(input))
        .expect("runs")
        .ends;
    assert_eq!(ends.len(), 1);
    match &ends[0].ending {
        Ending::GoesOn(
            _,
            exec::Said {
                kind: Val::Known(k),
                value: Val::Known(v),
            },
        ) => (*k, *v),
        other => panic!("{other:?}"),
    }
}

#[test]
fn outputs_and_invalid_inputs_are_read() {
    use exec::Said;
    // 2014 and later: `printf("%d\n", k)` and the "Invalid input" message.
    let p = read_c(
        "#include <stdio.h>\n\
         int a = 1; int cf = 1;\n\
         void calculate_output(int input) {\n\
           cf = 1;\n\
           if (input == 1 && a == 1) { cf = 0; a = 2; printf(\"%d\\n\", 22); fflush(stdout); }\n\
           if (input == 2) { cf = 0; printf(\"%d\\n\", a + 20); }\n\
           if (cf == 1) fprintf(stderr, \"Invalid input: %d\\n\", input);\n\
         }\n\
         int main() { while (1) { int input; scanf(\"%d\", &input); calculate_output(input); } }\n",
    );
    assert_eq!(said(&p, 1), (Said::OUTPUT, 22));
    assert_eq!(said(&p, 2), (Said::OUTPUT, 21));
    assert_eq!(said(&p, 3).0, Said::INVALID);
    assert_eq!(p.symbol("V"), Some(22));
    // 2012: the step returns its output, -1 for none, -2 for invalid.
    let p = read_c(
        "int a = 1;\n\
         int calculate_output(int input) {\n\
           if (input == 1) { a = 2; return 25; }\n\
           if (input == 2) { return -1; }\n\
           return -2;\n\
         }\n\
         int main() { while (1) { int input; scanf(\"%d\", &input); calculate_output(input); } }\n",
    );
    assert_eq!(said(&p, 1), (Said::OUTPUT, 25));
    assert_eq!(said(&p, 2).0, Said::SILENT);
    assert_eq!(said(&p, 3).0, Said::INVALID);
}
