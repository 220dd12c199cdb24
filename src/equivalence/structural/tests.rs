//! Tests of the structural equivalence proof.

use super::*;
use crate::frontend::c::parse_c;

/// A small RERS-shaped program; `RULES` and `BODY` are filled in.
const TEMPLATE: &str = r#"
    int inputs[] = {1,2,3};
    int cf = 1;
    int a = 1;
    int b = 2;
    int c = 3;
    void m1(int input) {
        RULES
    }
    void calculate_output(int input) {
        cf = 1;
        if (cf == 1 && b > 0) { m1(input); }
        if (cf == 1) { fprintf(stderr, "Invalid input: %d\n", input); }
    }
    int main() { return 0; }
"#;

const R1: &str = "if (cf == 1 && input == 1 && a == 1) { cf = 0; BODY printf(\"%d\\n\", 21); }";
const R2: &str = "if (cf == 1 && input == 2 && a == 1) { cf = 0; a = 3; printf(\"%d\\n\", 22); }";

fn program(rules: &str, body: &str) -> Program {
    let src = TEMPLATE.replace("RULES", rules).replace("BODY", body);
    parse_c("t.c", &src).expect("parses")
}

fn proves(a: (&str, &str), b: (&str, &str)) -> bool {
    prove(&program(a.0, a.1), &program(b.0, b.1)).is_ok()
}

#[test]
fn independent_assignments_commute() {
    let rules = format!("{R1} {R2}");
    // `b = c + 1` stays before `c = 5`; `a = 2` moves freely.
    assert!(proves(
        (&rules, "a = 2; b = c + 1; c = 5;"),
        (&rules, "b = c + 1; a = 2; c = 5;")
    ));
    assert!(proves(
        (&rules, "a = 2; b = b + 1; c = 5;"),
        (&rules, "c = 5; b = b + 1; a = 2;")
    ));
}

#[test]
fn dependent_assignments_do_not_commute() {
    let rules = format!("{R1} {R2}");
    // `b = c + 1` reads c: it must stay before `c = 5`.
    assert!(!proves(
        (&rules, "a = 2; b = c + 1; c = 5;"),
        (&rules, "a = 2; c = 5; b = c + 1;")
    ));
    // Two writes of one variable keep their order.
    assert!(!proves(
        (&rules, "a = 2; a = 4;"),
        (&rules, "a = 4; a = 2;")
    ));
}

#[test]
fn disjoint_rules_commute_overlapping_ones_do_not() {
    let body = "b = 1;";
    assert!(proves(
        (&format!("{R1} {R2}"), body),
        (&format!("{R2} {R1}"), body)
    ));
    // Same input and state: both guards can hold, the first one wins.
    let r3 = R2.replace("input == 2", "input == 1");
    assert!(!proves(
        (&format!("{R1} {r3}"), body),
        (&format!("{r3} {R1}"), body)
    ));
}

#[test]
fn a_rule_that_may_not_clear_the_flag_does_not_commute() {
    // R1 changes `a` on a path where the flag stays set.
    let r1 = R1.replace("cf = 0;", "a = 7; if (b == 3) { cf = 0; }");
    let body = "b = 1;";
    assert!(!proves(
        (&format!("{r1} {R2}"), body),
        (&format!("{R2} {r1}"), body)
    ));
}

#[test]
fn conjuncts_commute_only_when_total() {
    let body = "b = 1;";
    let x = "if (cf == 1 && input == 1 && a == 1) { cf = 0; printf(\"%d\\n\", 21); }";
    let y = "if (a == 1 && (input == 1 && cf == 1)) { cf = 0; printf(\"%d\\n\", 21); }";
    assert!(proves((x, body), (y, body)));
    // A division may fault: short-circuit order matters.
    let x = "if (cf == 1 && b != 0 && 10 / b == 5) { cf = 0; printf(\"%d\\n\", 21); }";
    let y = "if (cf == 1 && 10 / b == 5 && b != 0) { cf = 0; printf(\"%d\\n\", 21); }";
    assert!(!proves((x, body), (y, body)));
}
