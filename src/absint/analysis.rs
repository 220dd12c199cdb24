//! Facts about the program's code the abstraction needs: constant
//! expressions, state slots, and walks over every statement and expression.

use rustc_hash::FxHashSet;

use crate::engine::{Machine, Storage};
use crate::ir::{ArrayRef, Expr, FuncId, Place, Program, Stmt};

/// The value of an expression that is the same in every state, if it is.
pub(super) fn constant(e: &Expr, m: &Machine) -> Option<i64> {
    let layout = m.layout();
    match e {
        Expr::Const(v) => Some(*v as i64),
        Expr::Global(g) => match layout.storage[g.0 as usize] {
            Storage::Const(v) => Some(v as i64),
            _ => None,
        },
        Expr::Index(ArrayRef::Array(g), i) => {
            let i = constant(i, m)?;
            let (base, len) = layout.array_at(g.0 as i32)?;
            let w = layout.state_width;
            (base >= w && i >= 0 && i < len as i64)
                .then(|| layout.consts[(base - w) as usize + i as usize] as i64)
        }
        Expr::Unary(crate::ir::UnOp::Neg, a) => Some(-constant(a, m)?),
        _ => None,
    }
}

/// Walks every statement and expression of the program.
pub(super) fn walk_stmts<'p>(stmts: &'p [Stmt], f: &mut impl FnMut(Option<&'p Place>, &'p Expr)) {
    for s in stmts {
        match s {
            Stmt::Assign(p, e, _) => f(Some(p), e),
            Stmt::If(c, a, b) => {
                f(None, c);
                walk_stmts(a, f);
                walk_stmts(b, f);
            }
            Stmt::While(c, a) => {
                f(None, c);
                walk_stmts(a, f);
            }
            Stmt::Call(_, args, _) => args.iter().for_each(|a| f(None, a)),
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => f(None, e),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

pub(super) fn walk_expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Index(_, i) | Expr::Unary(_, i) => walk_expr(i, f),
        Expr::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Cond(c, a, b) => {
            walk_expr(c, f);
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| walk_expr(a, f)),
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
}

/// The state slot of a global read, if it is one.
pub(super) fn state_slot(m: &Machine, e: &Expr) -> Option<usize> {
    match e {
        Expr::Global(g) => match m.layout().storage[g.0 as usize] {
            Storage::State(a) => Some(a as usize),
            _ => None,
        },
        _ => None,
    }
}

/// Records in `out` (by address) every expression under `e` that contains
/// a call; returns whether `e` does.
fn note_calls(e: &Expr, out: &mut FxHashSet<usize>) -> bool {
    let mut any = matches!(e, Expr::Call(..));
    match e {
        Expr::Index(_, i) | Expr::Unary(_, i) => any |= note_calls(i, out),
        Expr::Binary(_, a, b) => {
            any |= note_calls(a, out);
            any |= note_calls(b, out);
        }
        Expr::Cond(c, a, b) => {
            any |= note_calls(c, out);
            any |= note_calls(a, out);
            any |= note_calls(b, out);
        }
        Expr::Call(_, args) => {
            for a in args {
                note_calls(a, out);
            }
        }
        Expr::Const(_) | Expr::Global(_) | Expr::Local(_) | Expr::ArrayAddr(_) => {}
    }
    if any {
        out.insert(e as *const Expr as usize);
    }
    any
}

/// [`note_calls`] on every expression of `stmts`, array indexes assigned
/// to included.
pub(super) fn note_calls_in(stmts: &[Stmt], out: &mut FxHashSet<usize>) {
    walk_stmts(stmts, &mut |place, e| {
        note_calls(e, out);
        if let Some(Place::Index(_, i)) = place {
            note_calls(i, out);
        }
    });
}

/// Per global: for a pointer whose every assignment stores an array's
/// address, another such pointer's value or a choice between them, the
/// sorted ids of the arrays it may ever point to (its first one among
/// them); `None` for every other global. A pointer interval `[lo, hi]`
/// then holds no other value than those ids: the abstraction's hull of
/// two arrays' ids names only arrays, whatever lies between.
pub(super) fn pointer_targets(p: &Program) -> Vec<Option<Vec<i32>>> {
    use crate::ir::{GlobalId, GlobalKind};
    let n = p.globals.len();
    let mut targets: Vec<Option<Vec<i32>>> = (p.globals.iter())
        .map(|g| match g.kind {
            GlobalKind::Pointer { init } => Some(vec![init.0 as i32]),
            _ => None,
        })
        .collect();
    // Each assignment to a pointer, as the pointers and arrays it copies
    // (`None`: something else, so the pointer's values are not known).
    let mut flows: Vec<(usize, Option<Vec<GlobalId>>)> = Vec::new();
    fn sources(e: &Expr, p: &Program, out: &mut Vec<GlobalId>) -> bool {
        match e {
            Expr::ArrayAddr(g) => {
                out.push(*g);
                true
            }
            Expr::Global(g) => {
                out.push(*g);
                matches!(p.global(*g).kind, crate::ir::GlobalKind::Pointer { .. })
            }
            Expr::Cond(_, a, b) => sources(a, p, out) && sources(b, p, out),
            _ => false,
        }
    }
    for f in &p.functions {
        walk_stmts(&f.body, &mut |place, e| {
            let Some(Place::Global(g)) = place else {
                return;
            };
            if targets[g.0 as usize].is_none() {
                return;
            }
            let mut from = Vec::new();
            let ok = sources(e, p, &mut from);
            flows.push((g.0 as usize, ok.then_some(from)));
        });
    }
    let mut unknown = vec![false; n];
    for (g, from) in &flows {
        if from.is_none() {
            unknown[*g] = true;
        }
    }
    // To the fixpoint: a pointer copying an unknown one is unknown; the
    // others gather what they copy.
    let mut changed = true;
    while changed {
        changed = false;
        for (g, from) in &flows {
            let Some(from) = from else { continue };
            for s in from {
                let s = s.0 as usize;
                if unknown[s] && !unknown[*g] {
                    unknown[*g] = true;
                    changed = true;
                }
                let add: Vec<i32> = match &p.globals[s].kind {
                    GlobalKind::Array { .. } => vec![s as i32],
                    _ => targets[s].clone().unwrap_or_default(),
                };
                let set = targets[*g].get_or_insert_with(Vec::new);
                for a in add {
                    if let Err(at) = set.binary_search(&a) {
                        set.insert(at, a);
                        changed = true;
                    }
                }
            }
        }
    }
    for (t, u) in targets.iter_mut().zip(unknown) {
        if u {
            *t = None;
        }
    }
    targets
}

/// How a program uses its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputUse {
    /// Only compared with values that do not depend on it, and passed on
    /// to functions as an argument: a set of inputs can be stepped as one run.
    Compared,
    /// Some other way: each input is stepped apart.
    Other,
}

/// How `program` uses its input: the step's first local, and every
/// parameter it is passed to (to a fixpoint over the calls).
pub fn input_use(program: &Program) -> InputUse {
    let n = program.functions.len();
    let mut holds: Vec<Vec<bool>> = (program.functions.iter())
        .map(|f| vec![false; f.locals as usize])
        .collect();
    let step = program.step.0 as usize;
    match holds.get_mut(step).and_then(|l| l.first_mut()) {
        Some(first) => *first = true,
        None => return InputUse::Compared,
    }
    let mut changed = true;
    while changed {
        changed = false;
        for f in 0..n {
            let mut calls = Vec::new();
            each_call(&program.functions[f].body, &mut |callee, args| {
                calls.push((callee, args.to_vec()))
            });
            for (callee, args) in calls {
                for (k, a) in args.iter().enumerate() {
                    let passes = matches!(a, Expr::Local(l) if holds[f][l.0 as usize]);
                    let slot = holds.get_mut(callee.0 as usize).and_then(|h| h.get_mut(k));
                    if let (true, Some(slot)) = (passes, slot) {
                        if !*slot {
                            *slot = true;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    let compared_only = (program.functions.iter().zip(&holds))
        .all(|(f, holds)| f.body.iter().all(|s| stmt_compares_only(s, holds)));
    if compared_only {
        InputUse::Compared
    } else {
        InputUse::Other
    }
}

/// Calls `visit` on every call in `stmts`, statement or expression.
fn each_call(stmts: &[Stmt], visit: &mut impl FnMut(FuncId, &[Expr])) {
    fn calls(e: &Expr, visit: &mut impl FnMut(FuncId, &[Expr])) {
        walk_expr(e, &mut |x| {
            if let Expr::Call(f, args) = x {
                visit(*f, args);
            }
        })
    }
    for s in stmts {
        match s {
            Stmt::Assign(place, e, _) => {
                if let Place::Index(_, i) = place {
                    calls(i, visit);
                }
                calls(e, visit);
            }
            Stmt::If(c, a, b) => {
                calls(c, visit);
                each_call(a, visit);
                each_call(b, visit);
            }
            Stmt::While(c, body) => {
                calls(c, visit);
                each_call(body, visit);
            }
            Stmt::Call(f, args, _) => {
                visit(*f, args);
                args.iter().for_each(|a| calls(a, visit));
            }
            Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => calls(e, visit),
            Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => {}
        }
    }
}

/// Whether every read of a local that `holds` marks is a comparison with
/// a value that does not read it, or an argument of a call.
fn stmt_compares_only(s: &Stmt, holds: &[bool]) -> bool {
    let ok = |e: &Expr| expr_compares_only(e, holds);
    let all = |b: &[Stmt]| b.iter().all(|s| stmt_compares_only(s, holds));
    match s {
        Stmt::Assign(place, e, _) => {
            let index_ok = match place {
                crate::ir::Place::Index(_, i) => ok(i),
                _ => true,
            };
            index_ok && ok(e)
        }
        Stmt::If(c, a, b) => ok(c) && all(a) && all(b),
        Stmt::While(c, body) => ok(c) && all(body),
        Stmt::Call(_, args, _) => args.iter().all(|a| is_input(a, holds) || ok(a)),
        Stmt::Return(Some(e)) | Stmt::Output(e, _) | Stmt::Assume(e) => ok(e),
        Stmt::Return(None) | Stmt::Error(_) | Stmt::Invalid => true,
    }
}

fn is_input(e: &Expr, holds: &[bool]) -> bool {
    matches!(e, Expr::Local(l) if holds.get(l.0 as usize) == Some(&true))
}

fn expr_compares_only(e: &Expr, holds: &[bool]) -> bool {
    let ok = |e: &Expr| expr_compares_only(e, holds);
    match e {
        Expr::Local(_) => !is_input(e, holds),
        Expr::Binary(op, a, b) if super::interval::is_comparison(*op) => {
            // The input against anything that does not read it.
            let side = |x: &Expr, other: &Expr| (is_input(x, holds) && ok(other)) || ok(x);
            side(a, b) && side(b, a)
        }
        Expr::Call(_, args) => args.iter().all(|a| is_input(a, holds) || ok(a)),
        Expr::Index(_, i) | Expr::Unary(_, i) => ok(i),
        Expr::Binary(_, a, b) => ok(a) && ok(b),
        Expr::Cond(c, a, b) => ok(c) && ok(a) && ok(b),
        Expr::Const(_) | Expr::Global(_) | Expr::ArrayAddr(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::{bundled, BUNDLED};
    use crate::ir::{BinOp, LocalId};

    #[test]
    fn a_pointer_points_to_the_arrays_assigned_to_it_or_to_those_it_copies() {
        let (p, _) = crate::absint::bundled("reach-joined-pointers/Problem913.c");
        let id = |name: &str| p.globals.iter().position(|g| g.name == name).expect(name);
        let targets = pointer_targets(&p);
        let (lo, hi) = (id("lo") as i32, id("hi") as i32);
        assert_eq!(targets[id("p")], Some(vec![lo.min(hi), lo.max(hi)]));
        assert_eq!(targets[id("gap")], None, "not a pointer");
        assert!(lo + 1 < hi, "a scalar lies between the two arrays");
    }

    /// Keyed on what the next step reads, Problem913's first round joins
    /// `p = lo` with `p = hi` in mode 0. The hull of their ids names
    /// `gap` too: the step reads through it only the two arrays, relevance
    /// and the step see that no element they hold meets `p[1] == 7`, and
    /// the certificate says `p` points to one of the two, which the
    /// independent checker accepts. (`p[0] == 3` lies in the hull `[1, 5]`
    /// of the elements: the first round reaches label 3, the refinement
    /// keeps `p` in mode 0 and proves it.)
    #[test]
    fn a_joined_pointer_names_only_its_arrays() {
        use crate::absint::cells::cells;
        use crate::absint::explore::{explore_keyed, WIDEN_AFTER};
        use crate::absint::step::AbstractStep;
        use crate::certificate::Bound;
        use crate::runtime::Budget;
        let (p, m) = crate::absint::bundled("reach-joined-pointers/Problem913.c");
        let cells = cells(&p, &m);
        let step = AbstractStep::new(&p, &m).with_congruences(cells.congruence.clone());
        let explored = explore_keyed(
            &cells,
            &step,
            &m,
            &Budget::unlimited(),
            WIDEN_AFTER,
            None,
            false,
        );
        let Ok((g, _)) = explored else {
            panic!("the step reads through the joined pointer")
        };
        let sp = (m.layout().slot_names.iter())
            .position(|n| n == "p")
            .expect("p is a state slot");
        assert!(
            g.values.iter().any(|v| v[sp].as_point().is_none()),
            "p is joined somewhere"
        );
        assert_eq!(g.error_labels(), [0, 1, 3]);
        let c = crate::absint::certify::certificate(&p, &m, &g, &[2], &[]);
        for r in &c.regions {
            for b in &r.bounds {
                if let Bound::PointsTo(v, arrays) = b {
                    assert!(v.name != "p" || arrays.iter().all(|a| a == "lo" || a == "hi"));
                }
            }
        }
        crate::certificate::check(&p, &c, None).expect("the checker accepts it");
    }

    #[test]
    fn rers_programs_only_compare_their_input() {
        for rel in BUNDLED {
            let (p, _) = bundled(rel);
            assert_eq!(input_use(&p), InputUse::Compared, "{rel}");
        }
    }

    #[test]
    fn an_input_used_as_a_value_is_stepped_apart() {
        let (mut p, _) = bundled("reach-arith/Problem902.c");
        let step = p.step.0 as usize;
        let sum = Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Local(LocalId(0))),
            Box::new(Expr::Const(1)),
        );
        p.functions[step].body.insert(0, Stmt::Assume(sum));
        assert_eq!(input_use(&p), InputUse::Other);
    }
}
