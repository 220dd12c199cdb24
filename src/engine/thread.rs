//! Jumps threaded through the guards whose outcome a path already knows.
//!
//! A RERS rule that fires sets a flag (`cf = 0`) and a few variables to
//! constants, and then every later rule of the step is skipped one test at
//! a time: each guard tests the flag among its conjuncts. Where control
//! leaves a straight run of code that stored constants, those values are
//! known where it lands: [`thread_known`] follows the way on through every
//! guard they decide and sends the jump straight to where it leads.
//!
//! A guard is a run of conditional jumps to one target with nothing in
//! between and no jump landing inside (what `if (a && b && c)` compiles
//! to): it jumps when any of its compares would, for compares have no side
//! effects. So one compare the known values decide taken decides the
//! whole run, wherever it stands in the run.
//!
//! A fall-through has no jump to send elsewhere: [`with_exits`] first gives
//! every fall-through into a jump target that follows a constant store a
//! jump of its own; those that thread nowhere are dropped again by the
//! clean-up that follows.

use super::op::Op;

/// Values known at a point of a straight run: (address, value), few.
type Facts = Vec<(u32, i32)>;

/// The value at `a`: a constant, or a fact.
fn known(a: u32, facts: &Facts, konst: &dyn Fn(u32) -> Option<i32>) -> Option<i32> {
    konst(a).or_else(|| facts.iter().find(|f| f.0 == a).map(|f| f.1))
}

/// Whether conditional jump `op` is taken, if the facts decide it.
fn decide(op: &Op, facts: &Facts, konst: &dyn Fn(u32) -> Option<i32>) -> Option<bool> {
    let k = |a: u32| known(a, facts, konst);
    match *op {
        Op::JEq { a, b, .. } => Some(k(a)? == k(b)?),
        Op::JNe { a, b, .. } => Some(k(a)? != k(b)?),
        Op::JLt { a, b, .. } => Some(k(a)? < k(b)?),
        Op::JLe { a, b, .. } => Some(k(a)? <= k(b)?),
        Op::JZ { a, .. } => Some(k(a)? == 0),
        Op::JNz { a, .. } => Some(k(a)? != 0),
        _ => None,
    }
}

fn conditional(op: &Op) -> bool {
    op.target().is_some() && !matches!(op, Op::Jmp { .. })
}

/// Which instructions some jump lands on.
fn landings(ops: &[Option<Op>]) -> Vec<bool> {
    let mut at = vec![false; ops.len() + 1];
    for t in ops.iter().flatten().filter_map(Op::target) {
        if let Some(l) = at.get_mut(t as usize) {
            *l = true;
        }
    }
    at
}

/// The facts after `op`, from those before it (a store the facts cannot
/// place forgets them all).
fn update(facts: &mut Facts, op: &Op, konst: &dyn Fn(u32) -> Option<i32>) {
    match *op {
        Op::Mov { dst, src } => {
            let v = known(src, facts, konst);
            facts.retain(|f| f.0 != dst);
            if let Some(v) = v {
                facts.push((dst, v));
            }
        }
        Op::Store { base, len, .. } => facts.retain(|f| !(base..base + len).contains(&f.0)),
        Op::StorePtr { .. } => facts.clear(),
        _ => {
            if let Some(d) = op.dest() {
                facts.retain(|f| f.0 != d);
            }
        }
    }
}

/// Where control goes from `pc` when it skips removed instructions.
fn next_live(ops: &[Option<Op>], mut pc: usize) -> usize {
    while matches!(ops.get(pc), Some(None)) {
        pc += 1;
    }
    pc
}

/// The live instruction after `pc`, and whether a jump lands anywhere
/// between them (it included).
fn after(ops: &[Option<Op>], lands: &[bool], pc: usize) -> (usize, bool) {
    let next = next_live(ops, pc + 1);
    let landed = (pc + 1..=next).any(|q| lands.get(q).copied().unwrap_or(false));
    (next, landed)
}

/// Where control that reaches `start` with `facts` known ends up after the
/// guards (and plain jumps) the facts decide.
fn follow(
    ops: &[Option<Op>],
    lands: &[bool],
    start: usize,
    facts: &Facts,
    konst: &dyn Fn(u32) -> Option<i32>,
) -> usize {
    let mut pc = next_live(ops, start);
    let mut seen = Vec::new();
    while !seen.contains(&pc) && seen.len() < 256 {
        seen.push(pc);
        let Some(Some(first)) = ops.get(pc) else {
            return pc;
        };
        if let Op::Jmp { target } = *first {
            pc = next_live(ops, target as usize);
            continue;
        }
        if !conditional(first) {
            return pc;
        }
        let target = first.target().unwrap_or_default();
        // The guard: compares jumping to `target`, none landed inside.
        let (mut q, mut taken, mut open) = (pc, false, false);
        while let Some(Some(op)) = ops.get(q) {
            if !conditional(op) || op.target() != Some(target) {
                break;
            }
            match decide(op, facts, konst) {
                Some(true) => taken = true,
                Some(false) => {}
                None => open = true,
            }
            let (next, landed) = after(ops, lands, q);
            q = next;
            if landed {
                break;
            }
        }
        pc = match (taken, open) {
            (true, _) => next_live(ops, target as usize),
            (false, false) => q,
            (false, true) => return pc,
        };
    }
    // A cycle of decided jumps: leave the jump as it was.
    start
}

/// Sends every jump that leaves a run of known values to where the guards
/// they decide lead; drops the compares they decide within the run.
/// Returns whether anything changed.
pub(super) fn thread_known(ops: &mut [Option<Op>], konst: &dyn Fn(u32) -> Option<i32>) -> bool {
    let lands = landings(ops);
    let mut facts: Facts = Vec::new();
    let mut changed = false;
    for pc in 0..ops.len() {
        if lands[pc] {
            facts.clear();
        }
        let Some(op) = ops[pc] else { continue };
        match (op.target(), decide(&op, &facts, konst)) {
            (Some(_), Some(false)) => {
                ops[pc] = None;
                changed = true;
            }
            (Some(t), decided) => {
                let taken = decided == Some(true);
                let to = if facts.is_empty() {
                    t as usize
                } else {
                    follow(ops, &lands, t as usize, &facts, konst)
                };
                let mut new = if taken { Op::Jmp { target: t } } else { op };
                new.set_target(to as u32);
                if Some(new) != ops[pc] {
                    ops[pc] = Some(new);
                    changed = true;
                }
                if matches!(new, Op::Jmp { .. }) {
                    facts.clear();
                }
            }
            (None, _) if op.stops() => facts.clear(),
            (None, _) => update(&mut facts, &op, konst),
        }
    }
    changed
}

/// `code` with a jump before every jump target that the instruction
/// before it falls into after storing a constant, so that
/// [`thread_known`] can send that way elsewhere too.
pub(super) fn with_exits(code: &[Op], konst: &dyn Fn(u32) -> Option<i32>) -> Vec<Op> {
    let ops: Vec<Option<Op>> = code.iter().copied().map(Some).collect();
    let lands = landings(&ops);
    let mut facts: Facts = Vec::new();
    // Where each old instruction goes, and the exits to add before it.
    let mut exit_before = vec![false; code.len()];
    for (pc, op) in code.iter().enumerate() {
        if lands[pc] {
            exit_before[pc] = !facts.is_empty();
            facts.clear();
        }
        if op.target().is_some() || op.stops() {
            facts.clear();
        } else {
            update(&mut facts, op, konst);
        }
    }
    let mut new_index = Vec::with_capacity(code.len() + 1);
    let mut k = 0u32;
    for &exit in &exit_before {
        k += exit as u32;
        new_index.push(k);
        k += 1;
    }
    new_index.push(k);
    let mut out = Vec::with_capacity(k as usize);
    for (pc, op) in code.iter().enumerate() {
        if exit_before[pc] {
            out.push(Op::Jmp {
                target: new_index[pc],
            });
        }
        let mut op = *op;
        if let Some(t) = op.target() {
            op.set_target(new_index[t as usize]);
        }
        out.push(op);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constants at 100.. hold their address minus 100.
    fn konst(a: u32) -> Option<i32> {
        (a >= 100).then(|| a as i32 - 100)
    }

    /// `cf` (address 0) set to 0 by a rule, then the next rule's guard
    /// (`x == 5 && cf == 1`, jumping to 6 when false) and its body.
    fn rules() -> Vec<Op> {
        vec![
            Op::JNe {
                a: 1,
                b: 107,
                target: 3,
            },
            Op::Mov { dst: 0, src: 100 },
            Op::Output { src: 120 },
            Op::JNe {
                a: 1,
                b: 105,
                target: 6,
            },
            Op::JNe {
                a: 0,
                b: 101,
                target: 6,
            },
            Op::Output { src: 121 },
            Op::End,
        ]
    }

    #[test]
    fn a_fall_through_after_a_constant_store_gets_an_exit_that_threads_past_the_guard() {
        let code = with_exits(&rules(), &konst);
        // The exit before the guard (old 3, now 4).
        assert_eq!(code.len(), 8);
        assert_eq!(code[3], Op::Jmp { target: 4 });
        assert_eq!(code[0].target(), Some(4));
        let mut ops: Vec<Option<Op>> = code.into_iter().map(Some).collect();
        assert!(thread_known(&mut ops, &konst));
        // cf == 0 decides the guard: straight to the end.
        assert_eq!(ops[3], Some(Op::Jmp { target: 7 }));
        // The first guard's way is unknown: unchanged.
        assert_eq!(ops[0].and_then(|o| o.target()), Some(4));
        assert!(!thread_known(&mut ops, &konst));
    }

    #[test]
    fn an_undecided_compare_keeps_the_guard_and_a_landing_ends_it() {
        let mut code = rules();
        // Nothing known about cf: x == 5 alone cannot be decided.
        code[1] = Op::Mov { dst: 2, src: 100 };
        let code = with_exits(&code, &konst);
        let mut ops: Vec<Option<Op>> = code.into_iter().map(Some).collect();
        let before = ops.clone();
        assert!(!thread_known(&mut ops, &konst));
        assert_eq!(ops, before);
    }

    #[test]
    fn compares_the_run_decides_are_dropped_or_become_jumps() {
        let mut ops: Vec<Option<Op>> = vec![
            Some(Op::Mov { dst: 0, src: 101 }),
            Some(Op::JNe {
                a: 0,
                b: 101,
                target: 3,
            }),
            Some(Op::JEq {
                a: 0,
                b: 101,
                target: 3,
            }),
            Some(Op::End),
        ];
        assert!(thread_known(&mut ops, &konst));
        assert_eq!(ops[1], None);
        assert_eq!(ops[2], Some(Op::Jmp { target: 3 }));
    }
}
