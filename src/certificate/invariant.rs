//! Certificates that are one inductive invariant: a formula over the
//! variables the step may change ([`crate::smt::Frame`]) that holds
//! initially, is kept by every step that goes on, and rules out every
//! step to a claimed label or a fault. The invariant engine
//! ([`crate::horn`]) writes them; [`check_invariant`] decides them with
//! three plain SMT queries on the checker's own encoding of the step.
//!
//! Text form: comment lines `; rigor invariant certificate` and
//! `; unreachable 3 17 42`, then the formula, one SMT-LIB term over the
//! bit-vector constants `|pre.a17|`, `|pre.a5[3]|` of the frame (32 bits
//! each). The checker declares those constants itself and reads the term
//! as one assertion: a term that names anything else, or that is not one
//! balanced term, is rejected.

use std::time::Instant;

use z3::ast::Bool;
use z3::{SatResult, Solver};

use super::check::{CheckError, Checked, Obligation};
use super::format::FormatError;
use crate::ir::Program;
use crate::smt::Frame;
use crate::source::Diagnostic;

/// First line of the text form.
const HEADER: &str = "; rigor invariant certificate";

/// Labels line of the text form.
const UNREACHABLE: &str = "; unreachable";

/// An inductive invariant and the labels it proves unreachable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantCertificate {
    /// The labels claimed unreachable.
    pub unreachable: Vec<u32>,
    /// The invariant: one SMT-LIB term over the frame's variables.
    pub formula: String,
}

impl InvariantCertificate {
    /// The text form.
    pub fn to_text(&self) -> String {
        let labels: Vec<String> = self.unreachable.iter().map(u32::to_string).collect();
        format!(
            "{HEADER}\n{UNREACHABLE} {}\n{}\n",
            labels.join(" "),
            self.formula
        )
    }

    /// Whether `text` is meant as an invariant certificate (its first line).
    pub fn is_invariant_text(text: &str) -> bool {
        text.trim_start().starts_with(HEADER)
    }

    /// Reads the text form (of the file `file`, for messages).
    pub fn parse(text: &str, file: &str) -> Result<InvariantCertificate, FormatError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let bad = |line: usize, what: &str| {
            FormatError(Diagnostic::at(file, line as u32 + 1, 1, what.to_string()))
        };
        match lines.next() {
            Some((_, l)) if l.trim() == HEADER => {}
            Some((n, _)) => return Err(bad(n, "expected `; rigor invariant certificate`")),
            None => return Err(bad(0, "empty certificate")),
        }
        let (n, l) = lines
            .next()
            .ok_or_else(|| bad(1, "expected `; unreachable`"))?;
        let rest = (l.trim().strip_prefix(UNREACHABLE))
            .ok_or_else(|| bad(n, "expected `; unreachable` and the labels"))?;
        let unreachable = (rest.split_whitespace())
            .map(|w| w.parse::<u32>().map_err(|_| bad(n, "a label is a number")))
            .collect::<Result<Vec<u32>, FormatError>>()?;
        let formula: Vec<&str> = lines.map(|(_, l)| l).collect();
        let formula = formula.join("\n");
        if !one_term(&formula) {
            return Err(bad(
                n + 1,
                "the invariant must be one balanced SMT-LIB term",
            ));
        }
        Ok(InvariantCertificate {
            unreachable,
            formula,
        })
    }
}

/// Whether `s` is one term: an atom, or one parenthesised list that
/// closes at its very end (so that, wrapped in an assertion, it cannot
/// close the assertion and issue commands of its own).
fn one_term(s: &str) -> bool {
    let s = s.trim();
    if !s.starts_with('(') {
        let atom = |c: char| c.is_alphanumeric() || "_.-#".contains(c);
        return !s.is_empty() && s.chars().all(atom);
    }
    let mut depth = 0i64;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '|' => quoted = !quoted,
            _ if quoted => {}
            '"' | ';' => return false,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0 && !quoted
}

/// Checks `c` against the program `p`: initiation, safety and consecution
/// of its invariant, each one solver query, giving up at `deadline`.
pub fn check_invariant(
    p: &Program,
    c: &InvariantCertificate,
    deadline: Option<Instant>,
) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let frame = Frame::encode(p)?;
    let inv = read_formula(&frame, &c.formula)?;
    let queries = [
        (Obligation::Initiation, frame.initially(&inv).not()),
        (
            Obligation::Safety(0),
            Bool::and(&[
                inv.clone(),
                frame.input_ok.clone(),
                frame.bad(&c.unreachable),
            ]),
        ),
        (
            Obligation::Consecution(0),
            Bool::and(&[inv.clone(), frame.goes_on(), frame.after(&inv).not()]),
        ),
    ];
    for (obligation, goal) in queries {
        match decide(&goal, deadline) {
            SatResult::Unsat => {}
            SatResult::Sat => {
                return Err(CheckError::Fails {
                    obligation,
                    detail: "the invariant does not show it".into(),
                    counterexample: None,
                })
            }
            SatResult::Unknown => {
                return Err(CheckError::Undecided {
                    obligation,
                    reason: "the solver gave no answer".into(),
                })
            }
        }
    }
    Ok(Checked {
        obligations: 3,
        without_hint: 0,
        seconds: start.elapsed().as_secs_f64(),
        initial: vec![0],
        second_reading: super::check::SecondReading::NotRun,
    })
}

/// The invariant's term, read with the frame's variables declared (and
/// nothing else).
fn read_formula(frame: &Frame, formula: &str) -> Result<Bool, CheckError> {
    let rejected = |why: &str| CheckError::Fails {
        obligation: Obligation::Initiation,
        detail: format!("the invariant cannot be read: {why}"),
        counterexample: None,
    };
    if !one_term(formula) {
        return Err(rejected("it is not one term"));
    }
    let solver = Solver::new();
    let text = format!("{}(assert {formula})\n", frame.declarations());
    // A parse error leaves no assertion (z3 records errors and goes on);
    // a NUL byte panics in the binding.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solver.from_string(text);
        solver.get_assertions()
    }));
    match parsed {
        Ok(a) if a.len() == 1 => Ok(a[0].clone()),
        Ok(_) => Err(rejected("expected one assertion")),
        Err(_) => Err(rejected("z3 does not parse it over the frame's variables")),
    }
}

/// Whether `goal` can hold, with what is left of the time.
fn decide(goal: &Bool, deadline: Option<Instant>) -> SatResult {
    if deadline.is_some_and(|d| d <= Instant::now()) {
        return SatResult::Unknown;
    }
    let Some(solver) = crate::smt::solver("QF_BV", deadline) else {
        return SatResult::Unknown;
    };
    solver.assert(goal);
    solver.check()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Program {
        let path = format!(
            "{}/problems/reach-arith/Problem902.c",
            env!("CARGO_MANIFEST_DIR")
        );
        crate::frontend::load(&path).expect("loads")
    }

    fn claim(labels: &[u32], formula: &str) -> InvariantCertificate {
        InvariantCertificate {
            unreachable: labels.to_vec(),
            formula: formula.to_string(),
        }
    }

    #[test]
    fn one_term_accepts_terms_and_nothing_more() {
        assert!(one_term("true"));
        assert!(one_term(" (and |pre.a1| (bvsle |pre.a[2]| #x00000003)) "));
        assert!(one_term("(= |pre.a)(| #x00000001)"));
        assert!(!one_term(""));
        assert!(!one_term("true false"));
        assert!(!one_term("(and a b)) (assert false"));
        assert!(!one_term("(and a b) (c)"));
        assert!(!one_term("(and a (b)"));
        assert!(!one_term("(and a b ; c)"));
    }

    #[test]
    fn the_text_form_reads_back() {
        let c = claim(&[1, 3], "(bvsle |pre.a1| #x00000003)");
        let back = InvariantCertificate::parse(&c.to_text(), "c.inv").expect("parses");
        assert_eq!(back, c);
        assert!(InvariantCertificate::is_invariant_text(&c.to_text()));
        let e = InvariantCertificate::parse(
            "; rigor invariant certificate\n; unreachable x\ntrue",
            "c.inv",
        );
        assert!(e.is_err());
        let e = InvariantCertificate::parse(
            "; rigor invariant certificate\n; unreachable 1\ntrue) (assert false",
            "c.inv",
        );
        assert!(e.is_err());
    }

    /// Planted errors: each obligation rejects a wrong invariant.
    #[test]
    fn wrong_invariants_are_rejected() {
        let p = program();
        let fails = |c: &InvariantCertificate, o: Obligation| match check_invariant(&p, c, None) {
            Err(CheckError::Fails { obligation, .. }) => assert_eq!(obligation, o, "{c:?}"),
            other => panic!("{c:?}: {other:?}"),
        };
        // Nothing is initial.
        fails(&claim(&[1], "false"), Obligation::Initiation);
        // Every state: label 0 is reachable, so some state steps to it.
        fails(&claim(&[0], "true"), Obligation::Safety(0));
        // A name the frame does not have.
        fails(
            &claim(&[1], "(= |pre.nowhere| #x00000000)"),
            Obligation::Initiation,
        );
        // Only the initial state: not kept by the step.
        let frame = Frame::encode(&p).expect("encodes");
        let only_initial: Vec<String> = (frame.vars.iter())
            .map(|v| format!("(= |{}| #x{:08x})", v.name, v.init as u32))
            .collect();
        let f = format!("(and {} true)", only_initial.join(" "));
        fails(&claim(&[], &f), Obligation::Consecution(0));
    }
}
