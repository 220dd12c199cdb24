//! The step as a relation over the state variables it may change: what an
//! inductive invariant is stated over, found ([`crate::horn`]) and checked
//! ([`crate::certificate::invariant`]).
//!
//! A global (or array element) whose value after the step is, on every
//! path, its value before it never changes: it keeps its initial value in
//! every run, so the step is encoded with it fixed to that value. What is
//! left are the frame's [`StateVar`]s, named `pre.<global>` and
//! `pre.<array>[k]` as in [`SymbolicStep::encode`].

use z3::ast::{Bool, BV};

use super::step::{EncodeError, SymbolicStep};
use super::value::Value;
use super::Span;
use crate::ir::{GlobalKind, Program};

/// What the frame's variables are named with.
pub const PREFIX: &str = "pre";

/// One variable of the state that the step may change.
#[derive(Clone, Debug)]
pub struct StateVar {
    /// Its name in the formulas (`pre.a17`, `pre.a5[3]`).
    pub name: String,
    /// The variable before the step.
    pub pre: BV,
    /// Its value after the step, where the run goes on.
    pub post: BV,
    /// Its initial value.
    pub init: i32,
}

/// The step over the variables it may change.
pub struct Frame {
    /// The step, the unchanging variables fixed to their initial values.
    pub step: SymbolicStep,
    /// The variables left, in the order of the program's globals.
    pub vars: Vec<StateVar>,
    /// That the input is one of the program's input symbols.
    pub input_ok: Bool,
}

impl Frame {
    /// Encodes the step of `p` over the variables it may change.
    pub fn encode(p: &Program) -> Result<Frame, EncodeError> {
        let whole = SymbolicStep::encode(p, PREFIX, &[], None)?;
        let inits = initial_values(p);
        // Fixed: the step keeps its value on every path.
        let spans: Vec<Vec<Option<Span>>> = (whole.pre.iter().zip(&whole.post).zip(&inits))
            .map(|((pre, post), init)| {
                (pre.iter().zip(post).zip(init))
                    .map(|((a, b), &v)| (a.same(b) && is_term(a)).then(|| Span::single(v)))
                    .collect()
            })
            .collect();
        drop(whole);
        let step = SymbolicStep::encode(p, PREFIX, &spans, None)?;
        let mut vars = Vec::new();
        for (g, ((pre, post), init)) in
            (p.globals.iter()).zip(step.pre.iter().zip(&step.post).zip(&inits))
        {
            for (k, ((a, b), &v)) in pre.iter().zip(post).zip(init).enumerate() {
                if let Value::Term(t, _) = a {
                    let name = match g.kind {
                        GlobalKind::Array { .. } => format!("{PREFIX}.{}[{k}]", g.name),
                        _ => format!("{PREFIX}.{}", g.name),
                    };
                    vars.push(StateVar {
                        name,
                        pre: t.clone(),
                        post: b.term(),
                        init: v,
                    });
                }
            }
        }
        let input = step.input.term();
        let each: Vec<Bool> = (p.inputs.iter())
            .map(|s| input.eq(BV::from_i64(s.value as i64, 32)))
            .collect();
        Ok(Frame {
            step,
            vars,
            input_ok: Bool::or(&each),
        })
    }

    /// When a step ends at one of `labels` or in a fault: what an invariant
    /// proving them unreachable must rule out.
    pub fn bad(&self, labels: &[u32]) -> Bool {
        let mut bad = self.step.fault.clone();
        for (n, when) in &self.step.errors {
            if labels.contains(n) {
                bad = bad.or(when);
            }
        }
        bad.term()
    }

    /// When the run goes on after the step (a valid input symbol).
    pub fn goes_on(&self) -> Bool {
        Bool::and(&[
            self.input_ok.clone(),
            self.step.domain.term(),
            self.step.goes_on.term(),
        ])
    }

    /// `formula` over the state before the step, restated after it.
    pub fn after(&self, formula: &Bool) -> Bool {
        let pairs: Vec<(&BV, &BV)> = self.vars.iter().map(|v| (&v.pre, &v.post)).collect();
        z3::ast::Ast::substitute(formula, &pairs)
    }

    /// `formula` over the state before the step, in the initial state.
    pub fn initially(&self, formula: &Bool) -> Bool {
        let inits: Vec<BV> = (self.vars.iter())
            .map(|v| BV::from_i64(v.init as i64, 32))
            .collect();
        let pairs: Vec<(&BV, &BV)> = self.vars.iter().map(|v| &v.pre).zip(&inits).collect();
        z3::ast::Ast::substitute(formula, &pairs)
    }

    /// SMT-LIB declarations of the frame's variables, for reading a
    /// formula over them.
    pub fn declarations(&self) -> String {
        (self.vars.iter())
            .map(|v| format!("(declare-fun |{}| () (_ BitVec 32))\n", v.name))
            .collect()
    }
}

/// Whether the value is an unknown (not folded to a constant).
fn is_term(v: &Value) -> bool {
    matches!(v, Value::Term(..))
}

/// The initial value of every global (per element for arrays).
pub fn initial_values(p: &Program) -> Vec<Vec<i32>> {
    p.globals
        .iter()
        .map(|g| match &g.kind {
            GlobalKind::Scalar { init, .. } => vec![*init],
            GlobalKind::Pointer { init } => vec![init.0 as i32],
            GlobalKind::Array { init, .. } => init.clone(),
        })
        .collect()
}
