//! The first check of an invariant certificate
//! ([`InvariantCertificate`]): a formula over the variables the step may
//! change ([`crate::smt::Frame`]) that holds initially, is kept by every
//! step that goes on, and rules out every step to a claimed label or a
//! fault. [`check_invariant`] decides it with three plain SMT queries on
//! the provers' encoding of the step ([`crate::smt`]); the second,
//! independent reading is [`crate::crosscheck::check_invariant`]. The
//! checker declares the frame's constants itself and reads the term as
//! one assertion: a term that names anything else is rejected.

use std::time::Instant;

use z3::ast::Bool;
use z3::{SatResult, Solver};

use super::check::{CheckError, Checked, Obligation};
use super::format::invariant::{one_term, InvariantCertificate};
use crate::ir::Program;
use crate::smt::Frame;

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
