//! The obligations of an invariant certificate
//! ([`InvariantCertificate`]), decided on the checker's own reading of
//! the program: the formula holds in the initial state; from every state
//! where it holds, on every input, the step ends at no claimed label and
//! in no fault; and every state the step goes on from meets it again.
//!
//! The formula names the state before a step as `|pre.x|`, `|pre.a[3]|`:
//! this reading declares one 32-bit constant per position of its own
//! layout, so a name the program does not have fails to parse. A variable
//! the step never changes keeps its initial value in every run; the
//! formula need not say so, and the step is run with those variables
//! fixed (found here, by running the step once with every variable
//! unknown).

use std::time::Instant;

use z3::ast::{Ast, Bool, BV};
use z3::{SatResult, Solver};

use super::exec::{Ending, Exec};
use super::layout::Layout;
use super::regions::{hull_constraint, witness};
use super::syntax::Program;
use super::value::{bv, Hull, Val};
use super::{Accepted, CrossError};
use crate::certificate::format::invariant::{one_term, InvariantCertificate};

/// Checks the invariant certificate `c` on `program`, giving up at
/// `deadline`.
pub fn check(
    program: &Program,
    c: &InvariantCertificate,
    deadline: Option<Instant>,
) -> Result<Accepted, CrossError> {
    let start = Instant::now();
    let layout = Layout::of(program)?;
    let consts: Vec<BV> = (layout.names.iter())
        .map(|n| BV::new_const(format!("pre.{n}"), 32))
        .collect();
    let inv = read_formula(&layout, &c.formula)?;
    let initially: Vec<(&BV, BV)> = consts
        .iter()
        .zip(layout.initial.iter().map(|&k| bv(k)))
        .collect();
    let at_start = substitute(&inv, &initially);
    decide(&at_start.not(), &[], deadline, "initiation", (&layout, &[]))?;

    let inputs: Vec<Val> = match program.input_classes() {
        Some(classes) => classes.into_iter().map(Val::Known).collect(),
        None => vec![Val::Term(BV::new_const("input", 32), Hull::ANY)],
    };
    // Every variable unknown, pointers to one of the arrays.
    let all_arrays: Vec<i32> = (0..layout.arrays.len() as i32).collect();
    let free: Vec<Val> = (consts.iter().enumerate())
        .map(|(at, t)| {
            let h = if layout.pointers.contains(&at) {
                Hull::Set(all_arrays.clone())
            } else {
                Hull::ANY
            };
            Val::Term(t.clone(), h)
        })
        .collect();
    let kept = unchanged(program, &layout, &free, &inputs)?;
    let mut facts = vec![inv.clone()];
    let mut pre = Vec::with_capacity(free.len());
    for (at, v) in free.into_iter().enumerate() {
        if kept[at] {
            facts.push(consts[at].eq(bv(layout.initial[at])));
            pre.push(Val::Known(layout.initial[at]));
        } else {
            if let Val::Term(t, h) = &v {
                if *h != Hull::ANY {
                    facts.push(hull_constraint(t, h));
                }
            }
            pre.push(v);
        }
    }
    let mut obligations = 1;
    for input in inputs {
        let step = Exec::run(program, &layout, pre.clone(), input.clone())?;
        let mut bad = Vec::new();
        let mut leaves = Vec::new();
        for e in step.ends {
            match e.ending {
                Ending::Error(n) if c.unreachable.contains(&n) => bad.push(e.when.term()),
                Ending::Error(_) => {}
                Ending::Fault(_) => bad.push(e.when.term()),
                Ending::GoesOn(vals, _) => {
                    let after: Vec<(&BV, BV)> =
                        consts.iter().zip(vals.iter().map(Val::term)).collect();
                    leaves.push(Bool::and(&[e.when.term(), substitute(&inv, &after).not()]));
                }
            }
        }
        let on = match &input {
            Val::Known(k) => format!("on input {k}"),
            Val::Term(..) => "on any input".to_string(),
        };
        let safety = format!("safety {on}");
        decide(&Bool::or(&bad), &facts, deadline, &safety, (&layout, &pre))?;
        let consecution = format!("consecution {on}");
        decide(
            &Bool::or(&leaves),
            &facts,
            deadline,
            &consecution,
            (&layout, &pre),
        )?;
        obligations += 2;
    }
    Ok(Accepted {
        obligations,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The positions no step changes: run once from `free` on each input,
/// the position's value is the one it had on every way the step goes on.
fn unchanged(
    program: &Program,
    layout: &Layout,
    free: &[Val],
    inputs: &[Val],
) -> Result<Vec<bool>, CrossError> {
    let mut kept = vec![true; free.len()];
    for input in inputs {
        let step = Exec::run(program, layout, free.to_vec(), input.clone())?;
        for e in &step.ends {
            if let (Ending::GoesOn(vals, _), false) = (&e.ending, e.when.is_false()) {
                for (at, v) in vals.iter().enumerate() {
                    kept[at] &= v.same(&free[at]);
                }
            }
        }
    }
    Ok(kept)
}

/// The certificate's term, read with the layout's constants declared (and
/// nothing else).
fn read_formula(layout: &Layout, formula: &str) -> Result<Bool, CrossError> {
    let rejected = |why: &str| CrossError::Rejected {
        obligation: "the invariant".into(),
        detail: format!("cannot be read: {why}"),
    };
    if !one_term(formula) {
        return Err(rejected("it is not one term"));
    }
    let declarations: String = (layout.names.iter())
        .map(|n| format!("(declare-fun |pre.{n}| () (_ BitVec 32))\n"))
        .collect();
    let solver = Solver::new();
    // z3 records a parse error and goes on, leaving no assertion; a NUL
    // byte panics in the binding.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solver.from_string(format!("{declarations}(assert {formula})\n"));
        solver.get_assertions()
    }));
    match parsed {
        Ok(a) if a.len() == 1 => Ok(a[0].clone()),
        Ok(_) => Err(rejected("it names what the program does not have")),
        Err(_) => Err(rejected("z3 does not parse it")),
    }
}

fn substitute(f: &Bool, pairs: &[(&BV, BV)]) -> Bool {
    let pairs: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (*a, b)).collect();
    f.substitute(&pairs)
}

/// That `goal` cannot hold together with `facts`: an error naming
/// `obligation` (with a state of `pre` that shows it) where it can, or where z3
/// does not say by `deadline`.
fn decide(
    goal: &Bool,
    facts: &[Bool],
    deadline: Option<Instant>,
    obligation: &str,
    (layout, pre): (&Layout, &[Val]),
) -> Result<(), CrossError> {
    if matches!(goal.simplify().as_bool(), Some(false)) {
        return Ok(());
    }
    let solver = super::solver(deadline, None);
    facts.iter().for_each(|f| solver.assert(f));
    solver.assert(goal);
    match solver.check() {
        SatResult::Unsat => Ok(()),
        SatResult::Sat if !super::meets(&solver, facts, goal) => Err(CrossError::Undecided {
            why: format!("z3 gave a model that does not meet {obligation}"),
        }),
        SatResult::Sat => Err(CrossError::Rejected {
            obligation: obligation.to_string(),
            detail: format!("in the state {}", witness(&solver, layout, pre)),
        }),
        SatResult::Unknown => Err(CrossError::Undecided {
            why: format!(
                "z3 gave no answer on {obligation}{}",
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    " (the time given to the check ran out)"
                } else {
                    ""
                }
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x` counts inputs 1 up to 5 and starts over; label 3 needs `x == 9`,
    /// label 4 `x == 4`; `k` never changes.
    const COUNTER: &str = "extern void __VERIFIER_error(int);\n\
        int x = 0; int k = 7;\n\
        void calculate_output(int input) {\n\
          if (input == 1) { x = x + 1; if (x > 5) { x = 0; } }\n\
          if (input == 2 && x == 9 && k == 7) { __VERIFIER_error(3); }\n\
          if (input == 3 && x == 4) { __VERIFIER_error(4); }\n\
        }\n";

    fn check_on(text: &str, labels: &[u32], formula: &str) -> Result<Accepted, CrossError> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("p.c");
        std::fs::write(&path, text).expect("written");
        let program = super::super::read_program(path.to_str().expect("utf-8"), &[]);
        let c = InvariantCertificate {
            unreachable: labels.to_vec(),
            formula: formula.to_string(),
        };
        check(&program.expect("reads"), &c, None)
    }

    const BOUNDED: &str = "(and (bvsge |pre.x| #x00000000) (bvsle |pre.x| #x00000005))";

    #[test]
    fn a_right_invariant_is_accepted() {
        let got = check_on(COUNTER, &[3], BOUNDED);
        assert!(got.is_ok(), "{got:?}");
        // `k` is fixed without the formula's saying so, and may be named.
        let got = check_on(
            COUNTER,
            &[3],
            &format!("(and (= |pre.k| #x00000007) {BOUNDED})"),
        );
        assert!(got.is_ok(), "{got:?}");
    }

    /// Planted errors: each obligation rejects a wrong invariant.
    #[test]
    fn wrong_invariants_are_rejected() {
        let rejected =
            |labels: &[u32], formula: &str, what: &str| match check_on(COUNTER, labels, formula) {
                Err(CrossError::Rejected { obligation, .. }) => {
                    assert!(obligation.starts_with(what), "{formula}: {obligation}")
                }
                other => panic!("{formula}: {other:?}"),
            };
        rejected(&[3], "false", "initiation");
        rejected(&[3, 4], BOUNDED, "safety");
        rejected(&[3], "(= |pre.k| #x00000007)", "safety");
        rejected(&[3], "(bvsle |pre.x| #x00000003)", "consecution");
        rejected(&[3], "(= |pre.nowhere| #x00000000)", "the invariant");
        rejected(&[3], "true) (assert false", "the invariant");
        // On a program where `x` counts to 6, the bound is not kept.
        let changed = COUNTER.replace("x > 5", "x > 6");
        match check_on(&changed, &[3], BOUNDED) {
            Err(CrossError::Rejected { obligation, .. }) => {
                assert!(obligation.starts_with("consecution"), "{obligation}")
            }
            other => panic!("{other:?}"),
        }
    }
}
