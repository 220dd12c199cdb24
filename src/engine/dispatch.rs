//! Decision trees for runs of terminating rules.
//!
//! RERS steps end with long runs of rules of one shape: a conjunction of
//! equality tests `x == c` guarding a body that ends the step (errorCheck's
//! `cf = 0; __VERIFIER_error(N)`, 2012's `a = 3; return 24;` or
//! `error_N: assert(0)`) or jumps out of the run (a rule of the 2019
//! programs, once its way past the rules after it is threaded,
//! [`super::thread`]). Compiled naively, every step tests every rule in
//! turn: errorCheck alone costs a hundred compares per step.
//!
//! Such a run means "the first rule whose tests all hold fires". [`optimize`]
//! finds these runs in the bytecode and appends an equivalent decision tree:
//! it picks the variable tested by most rules, branches on its value with a
//! binary search over the constants it is compared with, and in each branch
//! keeps, in their original order, only the rules that can still match (those
//! testing that value, with that test dropped, and those not testing the
//! variable); then recurses. The run's first instruction becomes a jump to
//! the tree; the old code stays in place (still correct for any other jump
//! into it) and is dropped by dead-code removal when nothing reaches it.

use super::op::Op;

/// An equality test `mem[x] == value`, with the address of the constant.
#[derive(Clone, Copy, Debug)]
struct Atom {
    x: u32,
    konst: u32,
    value: i32,
}

#[derive(Clone, Debug)]
struct Rule {
    atoms: Vec<Atom>,
    body: Vec<Op>,
    /// A test between two constants fails: the rule never fires.
    dead: bool,
    /// Where the body jumps at its end, if it does not stop the step.
    exit: Option<u32>,
}

/// Smallest run worth a tree.
const MIN_RULES: usize = 4;

/// Rewrites every run of terminating rules of `code` into a decision tree.
/// `is_const(a)` gives the value at a constant address.
pub(super) fn optimize(code: &mut Vec<Op>, is_const: &dyn Fn(u32) -> Option<i32>) {
    let mut pc = 0;
    let n = code.len();
    while pc < n {
        let (rules, end) = parse_run(code, pc, is_const);
        if rules.len() >= MIN_RULES {
            let original: usize = end - pc;
            let base = code.len();
            let mut out = Vec::new();
            let mut budget = 8 * original + 4096;
            if emit(&rules, end as u32, base, &mut out, &mut budget) {
                code.extend(out);
                code[pc] = Op::Jmp {
                    target: base as u32,
                };
            }
            pc = end;
        } else {
            pc += 1;
        }
    }
}

/// Parses the rules starting at `pc`: returns them and where the run ends.
fn parse_run(
    code: &[Op],
    mut pc: usize,
    is_const: &dyn Fn(u32) -> Option<i32>,
) -> (Vec<Rule>, usize) {
    let (start, mut rules) = (pc, Vec::new());
    while let Some((rule, next)) = parse_rule(code, pc, is_const) {
        rules.push(rule);
        pc = next;
    }
    // A body that jumps back into the run does not leave it: no run.
    let inside = |t: &u32| (start..pc).contains(&(*t as usize));
    if rules.iter().any(|r| r.exit.as_ref().is_some_and(inside)) {
        return (Vec::new(), start + 1);
    }
    // Rules that can never fire are left out of the tree.
    let live = if rules.len() >= MIN_RULES {
        rules.into_iter().filter(|r| !r.dead).collect()
    } else {
        rules
    };
    (live, pc)
}

/// One rule at `pc`: `JNe x, c -> next` tests, then a jump-free body ending
/// in an instruction that stops the step, then `next`.
fn parse_rule(
    code: &[Op],
    pc: usize,
    is_const: &dyn Fn(u32) -> Option<i32>,
) -> Option<(Rule, usize)> {
    let mut atoms = Vec::new();
    let mut targets = Vec::new();
    let mut dead = false;
    let mut i = pc;
    while let Some(&Op::JNe { a, b, target }) = code.get(i) {
        match (is_const(a), is_const(b)) {
            (None, Some(v)) => atoms.push(Atom {
                x: a,
                konst: b,
                value: v,
            }),
            (Some(v), None) => atoms.push(Atom {
                x: b,
                konst: a,
                value: v,
            }),
            (Some(u), Some(v)) => dead |= u != v,
            (None, None) => return None,
        }
        targets.push(target);
        i += 1;
    }
    if targets.is_empty() {
        return None;
    }
    let body_start = i;
    let mut exit = None;
    loop {
        let op = code.get(i)?;
        i += 1;
        match *op {
            // A body that jumps away at its end leaves the run too.
            Op::Jmp { target } => {
                exit = Some(target);
                break;
            }
            _ if op.is_jump() => return None,
            _ if op.stops() => break,
            _ => {}
        }
    }
    let next = i;
    if targets.iter().any(|&t| t as usize != next) {
        return None;
    }
    Some((
        Rule {
            atoms,
            body: code[body_start..next].to_vec(),
            dead,
            exit,
        },
        next,
    ))
}

/// Emits the code choosing the first matching rule of `rules` (falling to
/// `end` when none matches) at absolute position `base + out.len()`.
/// Returns false when the budget of instructions runs out.
fn emit(rules: &[Rule], end: u32, base: usize, out: &mut Vec<Op>, budget: &mut usize) -> bool {
    if out.len() > *budget {
        return false;
    }
    let Some(first) = rules.first() else {
        out.push(Op::Jmp { target: end });
        return true;
    };
    if first.atoms.is_empty() {
        out.extend_from_slice(&first.body);
        return true;
    }
    // The variable tested by the most rules.
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for r in rules {
        let mut seen: Vec<u32> = Vec::new();
        for a in &r.atoms {
            if !seen.contains(&a.x) {
                seen.push(a.x);
                match counts.iter_mut().find(|(x, _)| *x == a.x) {
                    Some(c) => c.1 += 1,
                    None => counts.push((a.x, 1)),
                }
            }
        }
    }
    let (x, n) = counts
        .iter()
        .copied()
        .max_by_key(|&(_, n)| n)
        .expect("a rule has atoms");
    if n < 3 {
        return emit_linear(rules, end, base, out);
    }
    let mut values: Vec<(i32, u32)> = rules
        .iter()
        .flat_map(|r| {
            r.atoms
                .iter()
                .filter(|a| a.x == x)
                .map(|a| (a.value, a.konst))
        })
        .collect();
    values.sort_unstable();
    values.dedup_by_key(|v| v.0);
    let default: Vec<Rule> = rules
        .iter()
        .filter(|r| r.atoms.iter().all(|a| a.x != x))
        .cloned()
        .collect();
    let mut to_default = Vec::new();
    if !emit_tree(rules, x, &values, end, base, out, budget, &mut to_default) {
        return false;
    }
    let d = (base + out.len()) as u32;
    for j in to_default {
        out[j].set_target(d);
    }
    emit(&default, end, base, out, budget)
}

/// Binary search over the values of `x`; each leaf continues with the rules
/// that can match for that value. Jumps to the default are listed in
/// `to_default` (indices into `out`).
#[allow(clippy::too_many_arguments)]
fn emit_tree(
    rules: &[Rule],
    x: u32,
    values: &[(i32, u32)],
    end: u32,
    base: usize,
    out: &mut Vec<Op>,
    budget: &mut usize,
    to_default: &mut Vec<usize>,
) -> bool {
    if values.len() == 1 {
        let (v, konst) = values[0];
        to_default.push(out.len());
        out.push(Op::JNe {
            a: x,
            b: konst,
            target: 0,
        });
        let sub: Vec<Rule> = rules
            .iter()
            .filter_map(|r| {
                if r.atoms.iter().any(|a| a.x == x && a.value != v) {
                    return None;
                }
                Some(Rule {
                    atoms: r.atoms.iter().copied().filter(|a| a.x != x).collect(),
                    body: r.body.clone(),
                    dead: false,
                    exit: r.exit,
                })
            })
            .collect();
        return emit(&sub, end, base, out, budget);
    }
    let mid = values.len() / 2;
    let j = out.len();
    out.push(Op::JLt {
        a: x,
        b: values[mid].1,
        target: 0,
    });
    if !emit_tree(rules, x, &values[mid..], end, base, out, budget, to_default) {
        return false;
    }
    let left = (base + out.len()) as u32;
    out[j].set_target(left);
    emit_tree(rules, x, &values[..mid], end, base, out, budget, to_default)
}

/// The rules one after the other, as compiled originally.
fn emit_linear(rules: &[Rule], end: u32, base: usize, out: &mut Vec<Op>) -> bool {
    for r in rules {
        let tests: Vec<usize> = r
            .atoms
            .iter()
            .map(|a| {
                out.push(Op::JNe {
                    a: a.x,
                    b: a.konst,
                    target: 0,
                });
                out.len() - 1
            })
            .collect();
        out.extend_from_slice(&r.body);
        let next = (base + out.len()) as u32;
        for t in tests {
            out[t].set_target(next);
        }
    }
    out.push(Op::Jmp { target: end });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constants at 100.. hold their address minus 100.
    fn konst(a: u32) -> Option<i32> {
        (a >= 100).then(|| a as i32 - 100)
    }

    /// Runs moves and jumps from 0 until `End`: memory 0..4 after it, or
    /// `None` if it ran into anything else.
    fn run(code: &[Op], x: i32) -> Option<[i32; 4]> {
        let mut mem = [x, 0, 0, 0];
        let value = |mem: &[i32; 4], a: u32| konst(a).unwrap_or_else(|| mem[a as usize]);
        let mut pc = 0;
        for _ in 0..1000 {
            match *code.get(pc)? {
                Op::Mov { dst, src } => mem[dst as usize] = value(&mem, src),
                Op::JNe { a, b, target } if value(&mem, a) != value(&mem, b) => {
                    pc = target as usize;
                    continue;
                }
                Op::JEq { a, b, target } if value(&mem, a) == value(&mem, b) => {
                    pc = target as usize;
                    continue;
                }
                Op::JLt { a, b, target } if value(&mem, a) < value(&mem, b) => {
                    pc = target as usize;
                    continue;
                }
                Op::JLe { a, b, target } if value(&mem, a) <= value(&mem, b) => {
                    pc = target as usize;
                    continue;
                }
                Op::JNe { .. } | Op::JEq { .. } | Op::JLt { .. } | Op::JLe { .. } => {}
                Op::Jmp { target } => {
                    pc = target as usize;
                    continue;
                }
                Op::End => return Some(mem),
                _ => return None,
            }
            pc += 1;
        }
        None
    }

    /// Four rules `if (x == k) { y = k + 10; }` (y at 1) whose bodies jump
    /// to `exit`, then `z = 1` (z at 2) and the end.
    fn rules(exit: impl Fn(u32) -> u32) -> Vec<Op> {
        let mut code = Vec::new();
        for k in 0..4u32 {
            let next = code.len() as u32 + 3;
            code.push(Op::JNe {
                a: 0,
                b: 100 + k,
                target: next,
            });
            code.push(Op::Mov {
                dst: 1,
                src: 110 + k,
            });
            code.push(Op::Jmp { target: exit(k) });
        }
        code.push(Op::Mov { dst: 2, src: 101 });
        code.push(Op::End);
        code
    }

    #[test]
    fn rules_that_jump_out_of_their_run_become_a_tree_with_the_same_effect() {
        let original = rules(|_| 13);
        let mut code = original.clone();
        optimize(&mut code, &konst);
        assert!(code.len() > original.len(), "no tree was added");
        assert_eq!(code[0], Op::Jmp { target: 14 });
        for x in -1..6 {
            assert_eq!(run(&code, x), run(&original, x), "x = {x}");
        }
    }

    #[test]
    fn a_body_that_jumps_back_into_the_run_keeps_the_run_as_it_is() {
        // The second rule's body jumps to the third rule's tests.
        let original = rules(|k| if k == 1 { 6 } else { 13 });
        let mut code = original.clone();
        optimize(&mut code, &konst);
        assert_eq!(code, original);
    }
}
