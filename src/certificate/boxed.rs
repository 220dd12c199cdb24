//! A region's obligations for one input settled without the solver: the
//! step run on the region's box path by path ([`crate::smt::box_paths`]).
//!
//! Every path must end at no claimed label and, where the run goes on, in
//! a box that lies inside one of the regions the hint names (for LTL
//! claims: the target of an edge of the region on the same input and
//! output), with the certificate's congruences holding: a variable the
//! step left as it was keeps its congruence, any other must end at one
//! value that meets it. The paths over-approximate the step (spans, and
//! the narrowing of compared variables, only ever hold more states), and a
//! path that might fault gives no paths at all, so an obligation settled
//! here holds. Anything else goes to the solver, which decides it.

use super::format::{Bound, Certificate, EdgeStep, Var};
use crate::ir::{Program, Symbol};
use crate::smt::{box_paths, Held, PathEnd, Span};

/// The program's variables and arrays by name, as the checker reads them.
pub(super) trait Names {
    /// What a name that is not the program's gives.
    type Error;
    /// The program.
    fn program(&self) -> &Program;
    /// The global and element a variable names.
    fn element(&self, v: &Var) -> Result<(usize, usize), Self::Error>;
    /// The value an array name stands for in a pointer.
    fn array_value(&self, name: &str) -> Result<i32, Self::Error>;
}

/// Whether region `k`'s safety and consecution on `input` hold on its box
/// (`spans`); `false` where this reading cannot tell.
pub(super) fn settled_on_box<N: Names>(
    names: &N,
    c: &Certificate,
    k: usize,
    spans: &[Vec<Option<Span>>],
    input: &Symbol,
) -> Result<bool, N::Error> {
    let p = names.program();
    let Some(paths) = box_paths(p, spans, input.value) else {
        return Ok(false);
    };
    let region = &c.regions[k];
    for path in &paths {
        let step = match path.end {
            PathEnd::Error(l) if c.unreachable.contains(&l) => return Ok(false),
            PathEnd::Error(_) => continue,
            PathEnd::Invalid => EdgeStep::Invalid,
            PathEnd::Output(None) => EdgeStep::Silent,
            PathEnd::Output(Some(v)) => match p.outputs.iter().find(|s| s.value == v) {
                Some(s) => EdgeStep::Output(s.name.clone()),
                None => return Ok(false),
            },
        };
        if !congruent(names, c, &path.post)? {
            return Ok(false);
        }
        let mut lands = false;
        if c.holds.is_empty() {
            // The hint's regions first, then any.
            let hinted = region.next.iter().copied();
            for t in hinted.chain(0..c.regions.len()) {
                if inside(names, &c.regions[t].bounds, &path.post)? {
                    lands = true;
                    break;
                }
            }
        } else {
            for e in region
                .edges
                .iter()
                .filter(|e| e.input == input.name && e.step == step)
            {
                if inside(names, &c.regions[e.target].bounds, &path.post)? {
                    lands = true;
                    break;
                }
            }
        }
        if !lands {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether every value of `post` meets `bounds`.
fn inside<N: Names>(names: &N, bounds: &[Bound], post: &[Vec<Held>]) -> Result<bool, N::Error> {
    for b in bounds {
        let (id, k) = names.element(b.var())?;
        let held = post[id][k].span;
        let holds = match b {
            Bound::Range(_, lo, hi) => held.inside(*lo, *hi),
            Bound::PointsTo(_, arrays) => match held.value() {
                Some(v) => {
                    let mut any = false;
                    for a in arrays {
                        any |= names.array_value(a)? == v;
                    }
                    any
                }
                None => false,
            },
        };
        if !holds {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether every congruence holds after the step: met by the one value
/// left, or by what is known of the value modulo a multiple of the
/// congruence's modulus (from before the step, where the variable was
/// congruent already, or from constants alone).
fn congruent<N: Names>(names: &N, c: &Certificate, post: &[Vec<Held>]) -> Result<bool, N::Error> {
    for cg in &c.congruences {
        let (id, k) = names.element(&cg.var)?;
        let held = post[id][k];
        let m = cg.modulus;
        let meets = |v: i64| v.rem_euclid(m) == cg.rest;
        let holds = match (held.span.value(), held.base) {
            (Some(v), _) => meets(v.into()),
            _ if !held.modulus.is_multiple_of(m as u64) => false,
            (None, None) => meets(held.rest),
            // Congruent before the step, and shifted by a multiple of `m`.
            (None, Some(at)) => at == (id, k) && held.rest.rem_euclid(m) == 0,
        };
        if !holds {
            return Ok(false);
        }
    }
    Ok(true)
}
