//! A slow, direct evaluator of action-based CTL, an oracle for tests.
//!
//! It enumerates, from every state, the maximal paths of the system up to
//! `bound` states and evaluates the path formulas (`U`, `W`) on each, with
//! none of the fixpoint algebra of [`super::check`]. A path that reaches
//! `bound` states without ending stands for its infinite continuations:
//! when `bound` exceeds the number of states it repeats a state, so the
//! continuation that loops through the states already seen exists; an until
//! not decided on it is then false (`U`) or true (`W`). With
//! `bound = n_states + 1` the answers are exact; the cost is exponential.

use super::syntax::Formula;
use crate::lts::{Adjacency, Lts};

/// The states where `f` holds, by path enumeration up to `bound` states.
pub fn sat(lts: &Lts, f: &Formula, bound: usize) -> Vec<bool> {
    let adj = Adjacency::new(lts);
    eval(lts, &adj, f, bound)
}

/// Whether `f` holds in the initial state, with the exact bound.
pub fn holds(lts: &Lts, f: &Formula) -> bool {
    lts.n_states > 0 && sat(lts, f, lts.n_states as usize + 1)[lts.initial as usize]
}

fn eval(lts: &Lts, adj: &Adjacency, f: &Formula, bound: usize) -> Vec<bool> {
    use Formula::*;
    let n = lts.n_states as usize;
    let rec = |g: &Formula| eval(lts, adj, g, bound);
    if let Some(v) = one_step(lts, adj, f, &rec) {
        return v;
    }
    match f {
        AU(x, y) => paths(adj, n, bound, &rec(x), &rec(y), true, false),
        EU(x, y) => paths(adj, n, bound, &rec(x), &rec(y), false, false),
        AW(x, y) => paths(adj, n, bound, &rec(x), &rec(y), true, true),
        EW(x, y) => paths(adj, n, bound, &rec(x), &rec(y), false, true),
        AF(x) => paths(adj, n, bound, &vec![true; n], &rec(x), true, false),
        EF(x) => paths(adj, n, bound, &vec![true; n], &rec(x), false, false),
        AG(x) => paths(adj, n, bound, &rec(x), &vec![false; n], true, true),
        EG(x) => paths(adj, n, bound, &rec(x), &vec![false; n], false, true),
        _ => unreachable!("one_step evaluates every other operator"),
    }
}

/// The operators both oracles evaluate alike, from the sets of their
/// operands (`rec`): constants, connectives and the one-step modalities
/// `[a]`, `<a>`; `None` for the path operators.
fn one_step(
    lts: &Lts,
    adj: &Adjacency,
    f: &Formula,
    rec: &dyn Fn(&Formula) -> Vec<bool>,
) -> Option<Vec<bool>> {
    use Formula::*;
    let n = lts.n_states as usize;
    let both = |x: &Formula, y: &Formula, op: fn(bool, bool) -> bool| {
        rec(x)
            .into_iter()
            .zip(rec(y))
            .map(|(a, b)| op(a, b))
            .collect()
    };
    let label_ok = |a: &Option<String>, l: u32| {
        a.as_ref()
            .is_none_or(|name| &lts.labels[l as usize] == name)
    };
    Some(match f {
        True => vec![true; n],
        False => vec![false; n],
        Not(x) => rec(x).into_iter().map(|v| !v).collect(),
        And(x, y) => both(x, y, |a, b| a && b),
        Or(x, y) => both(x, y, |a, b| a || b),
        Implies(x, y) => both(x, y, |a, b| !a || b),
        Iff(x, y) => both(x, y, |a, b| a == b),
        Box(a, x) => {
            let v = rec(x);
            (0..n as u32)
                .map(|s| {
                    adj.succ(s)
                        .iter()
                        .all(|&(l, t)| !label_ok(a, l) || v[t as usize])
                })
                .collect()
        }
        Diamond(a, x) => {
            let v = rec(x);
            (0..n as u32)
                .map(|s| {
                    adj.succ(s)
                        .iter()
                        .any(|&(l, t)| label_ok(a, l) && v[t as usize])
                })
                .collect()
        }
        _ => return None,
    })
}

/// For every state: whether all (`universal`) or some maximal paths satisfy
/// `f U g` (or `f W g` when `weak`).
fn paths(
    adj: &Adjacency,
    n: usize,
    bound: usize,
    f: &[bool],
    g: &[bool],
    universal: bool,
    weak: bool,
) -> Vec<bool> {
    (0..n as u32)
        .map(|s| {
            let mut path = vec![s];
            let mut found_all = true;
            let mut found_any = false;
            enumerate(adj, bound, &mut path, &mut |p, _ended| {
                let v = until_on(p, f, g, weak);
                found_all &= v;
                found_any |= v;
            });
            if universal {
                found_all
            } else {
                found_any
            }
        })
        .collect()
}

/// Calls `visit` on every maximal path from `path` (finite, or cut at
/// `bound` states).
fn enumerate(
    adj: &Adjacency,
    bound: usize,
    path: &mut Vec<u32>,
    visit: &mut impl FnMut(&[u32], bool),
) {
    let last = *path.last().expect("non-empty path");
    let succ = adj.succ(last);
    if succ.is_empty() {
        visit(path, true);
        return;
    }
    if path.len() >= bound {
        visit(path, false);
        return;
    }
    for &(_, t) in succ {
        path.push(t);
        enumerate(adj, bound, path, visit);
        path.pop();
    }
}

/// `f U g` (or `f W g`) on a path; a cut path whose positions all satisfy
/// `f ∧ ¬g` counts as an infinite one that keeps doing so.
fn until_on(p: &[u32], f: &[bool], g: &[bool], weak: bool) -> bool {
    for &s in p {
        if g[s as usize] {
            return true;
        }
        if !f[s as usize] {
            return false;
        }
    }
    weak
}

/// The states where `f` holds, by plain Kleene iteration of the fixpoint
/// equations of `rers-semantics.md`, written out one by one (no dualities,
/// no worklists): a second oracle, polynomial, for models too large for
/// path enumeration.
pub fn kleene_sat(lts: &Lts, f: &Formula) -> Vec<bool> {
    let adj = Adjacency::new(lts);
    kleene(lts, &adj, f)
}

fn kleene(lts: &Lts, adj: &Adjacency, f: &Formula) -> Vec<bool> {
    use Formula::*;
    let n = lts.n_states as usize;
    let rec = |g: &Formula| kleene(lts, adj, g);
    // <>X, []X and "no successor" on a set
    let some = |x: &[bool], s: u32| adj.succ(s).iter().any(|&(_, t)| x[t as usize]);
    let every = |x: &[bool], s: u32| adj.succ(s).iter().all(|&(_, t)| x[t as usize]);
    let dead = |s: u32| adj.succ(s).is_empty();
    let fix = |start: bool, step: &dyn Fn(&[bool], u32) -> bool| {
        let mut x = vec![start; n];
        loop {
            let next: Vec<bool> = (0..n as u32).map(|s| step(&x, s)).collect();
            if next == x {
                return x;
            }
            x = next;
        }
    };
    if let Some(v) = one_step(lts, adj, f, &rec) {
        return v;
    }
    match f {
        // μX. g ∨ (f ∧ <>X)
        EU(x, y) => {
            let (fv, gv) = (rec(x), rec(y));
            fix(false, &|z, s| {
                gv[s as usize] || (fv[s as usize] && some(z, s))
            })
        }
        EF(x) => {
            let gv = rec(x);
            fix(false, &|z, s| gv[s as usize] || some(z, s))
        }
        // μX. g ∨ (f ∧ <>true ∧ []X)
        AU(x, y) => {
            let (fv, gv) = (rec(x), rec(y));
            fix(false, &|z, s| {
                gv[s as usize] || (fv[s as usize] && !dead(s) && every(z, s))
            })
        }
        AF(x) => {
            let gv = rec(x);
            fix(false, &|z, s| gv[s as usize] || (!dead(s) && every(z, s)))
        }
        // νX. g ∨ (f ∧ (<>X ∨ []false))
        EW(x, y) => {
            let (fv, gv) = (rec(x), rec(y));
            fix(true, &|z, s| {
                gv[s as usize] || (fv[s as usize] && (some(z, s) || dead(s)))
            })
        }
        EG(x) => {
            let fv = rec(x);
            fix(true, &|z, s| fv[s as usize] && (some(z, s) || dead(s)))
        }
        // νX. g ∨ (f ∧ []X)
        AW(x, y) => {
            let (fv, gv) = (rec(x), rec(y));
            fix(true, &|z, s| {
                gv[s as usize] || (fv[s as usize] && every(z, s))
            })
        }
        AG(x) => {
            let fv = rec(x);
            fix(true, &|z, s| fv[s as usize] && every(z, s))
        }
        _ => unreachable!("one_step evaluates every other operator"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctl::syntax::parse_formula;
    use crate::lts::LtsBuilder;

    #[test]
    fn dead_ends_and_loops() {
        let mut b = LtsBuilder::new();
        b.edge(0, "a", 1);
        b.edge(0, "c", 2);
        b.edge(2, "c", 2);
        let m = b.finish();
        let h = |s: &str| holds(&m, &parse_formula(s).unwrap());
        assert!(h("EG true"));
        assert!(!h("AF [] false"));
        assert!(h("EF [] false"));
        assert!(!h("A(<c> true W false)"));
        assert!(h("E(<c> true W false)"));
    }
}
