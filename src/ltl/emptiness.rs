//! Emptiness of a generalized Büchi product, after Couvreur, "On-the-fly
//! verification of linear temporal logic" (FM 1999), with a lasso.
//!
//! # Algorithm
//!
//! A depth-first search numbers the states; a stack of *roots* holds, for
//! each partial strongly connected component on the search path, the number
//! of its first state, the union of acceptance marks seen inside it and the
//! marks of the edge that entered it. An edge to a state still on the search
//! (a live state) merges every root above that state into one component; when
//! the merged component carries every acceptance set, an accepting cycle
//! exists. A finished root takes its component off the live stack and marks
//! its states dead (number 0), so they are never entered again.
//!
//! Everything is iterative (explicit stacks), so the search depth is bounded
//! by memory only. The successors of the states on the search path are kept
//! in one flat stack.
//!
//! State numbers live in a dense array when the product says how its states
//! map onto `0..bound` ([`Product::index`]), in a hash map otherwise.
//! The search stops, with no verdict, when its [`Budget`] (a deadline, a
//! resident-memory limit) runs out.
//!
//! The lasso: the prefix is the search path to the state `s` where the
//! component became accepting; the cycle starts with the closing edge, then
//! breadth-first searches inside the component reach an edge of each missing
//! acceptance set in turn, and a last one returns to `s`.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::runtime::{Budget, StopReason};

/// One successor: target state, acceptance marks and a label to report.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Succ {
    /// Target state.
    pub target: u64,
    /// Acceptance sets the edge belongs to.
    pub acc: u32,
    /// A label recorded in lassos (e.g. the program input).
    pub label: u32,
}

/// A product (or any automaton) explored on the fly.
pub trait Product {
    /// The initial states.
    fn initial(&self, out: &mut Vec<u64>);
    /// Appends the successors of `s` to `out`.
    fn successors(&self, s: u64, out: &mut Vec<Succ>);
    /// The mask of every acceptance set (0: every cycle accepts).
    fn all_acc(&self) -> u32;
    /// If the states map one-to-one into `0..bound`: `bound`, and
    /// [`Product::index`] gives the position. Default: no such map.
    fn dense_bound(&self) -> Option<u64> {
        None
    }
    /// The position of `s` in `0..dense_bound()` (only called when
    /// [`Product::dense_bound`] is `Some`).
    fn index(&self, _s: u64) -> usize {
        0
    }
}

/// Dense arrays beyond this many entries fall back to a hash map.
const MAX_DENSE: u64 = 1 << 31;

/// Search numbers of product states: absent (never entered), 0 (dead: its
/// component is finished) or the DFS number of a live state.
enum Numbering {
    /// `v[index] = 0` absent, `u32::MAX` dead, else the number.
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

impl Numbering {
    fn new<P: Product>(p: &P) -> Numbering {
        match p.dense_bound() {
            Some(b) if b <= MAX_DENSE => Numbering::Dense(vec![0; b as usize]),
            _ => Numbering::Sparse(FxHashMap::default()),
        }
    }

    #[inline]
    fn get<P: Product>(&self, p: &P, s: u64) -> Option<u32> {
        match self {
            Numbering::Dense(v) => match v[p.index(s)] {
                0 => None,
                u32::MAX => Some(0),
                k => Some(k),
            },
            Numbering::Sparse(m) => m.get(&s).copied(),
        }
    }

    #[inline]
    fn set<P: Product>(&mut self, p: &P, s: u64, k: u32) {
        match self {
            Numbering::Dense(v) => v[p.index(s)] = if k == 0 { u32::MAX } else { k },
            Numbering::Sparse(m) => {
                m.insert(s, k);
            }
        }
    }
}

/// An accepting lasso: from `start`, the labels of the prefix, then the
/// labels of a cycle returning to the prefix's last state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    /// The initial state the prefix leaves from.
    pub start: u64,
    /// Labels of the prefix edges.
    pub prefix: Vec<u32>,
    /// The state where the cycle starts and ends.
    pub cycle_state: u64,
    /// Labels of the cycle edges (non-empty).
    pub cycle: Vec<u32>,
}

/// The outcome of an emptiness check.
#[derive(Clone, Debug)]
pub struct Emptiness {
    /// An accepting lasso, if the language is not empty.
    pub lasso: Option<Lasso>,
    /// Product states visited.
    pub states: u64,
    /// Product edges followed.
    pub edges: u64,
    /// Why the search gave up (its [`Budget`] ran out), if it did; there is
    /// then no verdict.
    pub gave_up: Option<StopReason>,
}

struct Frame {
    state: u64,
    label: u32,
    lo: usize,
    pos: usize,
}

struct Root {
    index: u32,
    acc: u32,
    in_acc: u32,
}

/// Searches `p` for an accepting cycle reachable from an initial state.
pub fn check<P: Product>(p: &P) -> Emptiness {
    check_within(p, &Budget::unlimited())
}

/// [`check`], giving up when `budget` runs out.
pub fn check_within<P: Product>(p: &P, budget: &Budget) -> Emptiness {
    let all = p.all_acc();
    let mut num = Numbering::new(p);
    let mut count: u32 = 0;
    let mut roots: Vec<Root> = Vec::new();
    let mut live: Vec<u64> = Vec::new();
    let mut todo: Vec<Frame> = Vec::new();
    let mut succ: Vec<Succ> = Vec::new();
    let mut edges = 0u64;
    let mut inits = Vec::new();
    p.initial(&mut inits);

    // Enters a new state.
    macro_rules! push {
        ($s:expr, $in_acc:expr, $label:expr) => {{
            count += 1;
            if count & 0xffff == 0 {
                if let Some(why) = budget.spent_time_or_memory() {
                    return Emptiness {
                        lasso: None,
                        states: count as u64,
                        edges,
                        gave_up: Some(why),
                    };
                }
            }
            num.set(p, $s, count);
            roots.push(Root {
                index: count,
                acc: 0,
                in_acc: $in_acc,
            });
            live.push($s);
            let lo = succ.len();
            p.successors($s, &mut succ);
            todo.push(Frame {
                state: $s,
                label: $label,
                lo,
                pos: lo,
            });
        }};
    }

    for &init in &inits {
        if num.get(p, init).is_some() {
            continue;
        }
        push!(init, 0, 0);
        while let Some(top) = todo.last_mut() {
            if top.pos < succ.len() {
                let e = succ[top.pos];
                top.pos += 1;
                edges += 1;
                match num.get(p, e.target) {
                    None => push!(e.target, e.acc, e.label),
                    Some(0) => {}
                    Some(n) => {
                        let mut acc = e.acc;
                        while n < roots.last().map_or(0, |r| r.index) {
                            let r = roots.pop().expect("root");
                            acc |= r.acc | r.in_acc;
                        }
                        let r = roots.last_mut().expect("root of a live state");
                        r.acc |= acc;
                        if r.acc & all == all {
                            let lasso = lasso(p, &num, r.index, &todo, e, all);
                            return Emptiness {
                                lasso: Some(lasso),
                                states: count as u64,
                                edges,
                                gave_up: None,
                            };
                        }
                    }
                }
            } else {
                let f = todo.pop().expect("frame");
                succ.truncate(f.lo);
                let n = num.get(p, f.state).expect("state on the path numbered");
                if roots.last().is_some_and(|r| r.index == n) {
                    roots.pop();
                    while let Some(&s) = live.last() {
                        let k = num.get(p, s).expect("live state numbered");
                        if k < n {
                            break;
                        }
                        num.set(p, s, 0);
                        live.pop();
                    }
                }
            }
        }
    }
    Emptiness {
        lasso: None,
        states: count as u64,
        edges,
        gave_up: None,
    }
}

/// Builds the lasso once the component of root number `root` is accepting;
/// `closing` is the edge from the top of `todo` that made it so.
fn lasso<P: Product>(
    p: &P,
    num: &Numbering,
    root: u32,
    todo: &[Frame],
    closing: Succ,
    all: u32,
) -> Lasso {
    let start = todo[0].state;
    let prefix: Vec<u32> = todo[1..].iter().map(|f| f.label).collect();
    let s = todo.last().expect("search path").state;
    let in_scc = |x: u64| num.get(p, x).is_some_and(|k| k >= root);
    let mut cycle = vec![closing.label];
    let mut got = closing.acc;
    let mut cur = closing.target;
    while got & all != all {
        let missing = all & !got;
        let (labels, end, acc) = bfs(p, cur, &in_scc, |e| e.acc & missing != 0);
        cycle.extend(labels);
        got |= acc;
        cur = end;
    }
    if cur != s {
        let (labels, _, _) = bfs(p, cur, &in_scc, |e| e.target == s);
        cycle.extend(labels);
    }
    Lasso {
        start,
        prefix,
        cycle_state: s,
        cycle,
    }
}

/// Shortest path inside the component from `from` ending with an edge that
/// satisfies `goal`: its labels, its last state and the union of its marks.
fn bfs<P: Product>(
    p: &P,
    from: u64,
    in_scc: &impl Fn(u64) -> bool,
    goal: impl Fn(&Succ) -> bool,
) -> (Vec<u32>, u64, u32) {
    let mut parent: FxHashMap<u64, (u64, Succ)> = FxHashMap::default();
    let mut queue = VecDeque::from([from]);
    let mut buf = Vec::new();
    let mut seen: rustc_hash::FxHashSet<u64> = Default::default();
    seen.insert(from);
    while let Some(x) = queue.pop_front() {
        buf.clear();
        p.successors(x, &mut buf);
        for &e in &buf {
            if !in_scc(e.target) {
                continue;
            }
            if goal(&e) {
                // Rebuild the path from `from` to `x`, then the goal edge.
                let mut path = vec![e];
                let mut y = x;
                while y != from {
                    let (px, pe) = parent[&y];
                    path.push(pe);
                    y = px;
                }
                path.reverse();
                let acc = path.iter().fold(0, |a, e| a | e.acc);
                return (path.iter().map(|e| e.label).collect(), e.target, acc);
            }
            if seen.insert(e.target) {
                parent.insert(e.target, (x, e));
                queue.push_back(e.target);
            }
        }
    }
    unreachable!("a strongly connected component has the edge sought")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An explicit automaton: `edges[s] = [(target, acc, label)]`.
    struct G {
        edges: Vec<Vec<(u64, u32, u32)>>,
        all: u32,
        dense: bool,
    }

    impl Product for G {
        fn initial(&self, out: &mut Vec<u64>) {
            out.push(0);
        }
        fn successors(&self, s: u64, out: &mut Vec<Succ>) {
            for &(target, acc, label) in &self.edges[s as usize] {
                out.push(Succ { target, acc, label });
            }
        }
        fn all_acc(&self) -> u32 {
            self.all
        }
        fn dense_bound(&self) -> Option<u64> {
            self.dense.then_some(self.edges.len() as u64)
        }
        fn index(&self, s: u64) -> usize {
            s as usize
        }
    }

    fn run(g: &G, l: &Lasso) -> (u64, u32) {
        // Follows labels (unique per state here) and returns the end state
        // and the marks of the cycle.
        let step = |s: u64, lab: u32| {
            let &(t, a, _) = g.edges[s as usize].iter().find(|e| e.2 == lab).unwrap();
            (t, a)
        };
        let mut s = l.start;
        for &lab in &l.prefix {
            s = step(s, lab).0;
        }
        assert_eq!(s, l.cycle_state);
        let mut acc = 0;
        for &lab in &l.cycle {
            let (t, a) = step(s, lab);
            s = t;
            acc |= a;
        }
        (s, acc)
    }

    #[test]
    fn generalized_acceptance_needs_both_sets() {
        // 0 -> 1; 1 -a-> 2 -> 1 (set 1), 2 -b-> 3 -> 2 (set 2).
        let g = G {
            edges: vec![
                vec![(1, 0, 10)],
                vec![(2, 1, 12)],
                vec![(1, 0, 21), (3, 0, 23)],
                vec![(2, 2, 32)],
            ],
            all: 3,
            dense: false,
        };
        let r = check(&g);
        let l = r.lasso.expect("accepting");
        let (end, acc) = run(&g, &l);
        assert_eq!(end, l.cycle_state);
        assert_eq!(acc, 3);
    }

    #[test]
    fn no_accepting_cycle() {
        // Two separate cycles, each with one set only.
        let g = G {
            edges: vec![vec![(1, 0, 1), (2, 0, 2)], vec![(1, 1, 1)], vec![(2, 2, 2)]],
            all: 3,
            dense: false,
        };
        assert!(check(&g).lasso.is_none());
        assert_eq!(check(&g).states, 3);
    }

    #[test]
    fn no_acceptance_sets_any_cycle() {
        let g = G {
            edges: vec![vec![(1, 0, 1)], vec![(2, 0, 2)], vec![(1, 0, 3)]],
            all: 0,
            dense: true,
        };
        let l = check(&g).lasso.unwrap();
        let (end, _) = run(&g, &l);
        assert_eq!(end, l.cycle_state);
        assert!(!l.cycle.is_empty());
    }

    #[test]
    fn deep_chain_is_iterative() {
        let n = 200_000u64;
        let mut edges: Vec<Vec<(u64, u32, u32)>> = (0..n).map(|s| vec![(s + 1, 0, 0)]).collect();
        edges.push(vec![(n / 2, 1, 0)]);
        let g = G {
            edges,
            all: 1,
            dense: true,
        };
        let l = check(&g).lasso.unwrap();
        assert_eq!(l.prefix.len() as u64, n);
    }

    /// Dense and sparse numberings give the same search on random graphs.
    #[test]
    fn dense_and_sparse_numbering_agree() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let n = 1 + rnd(12);
            let edges: Vec<Vec<(u64, u32, u32)>> = (0..n)
                .map(|_| {
                    (0..rnd(3))
                        .map(|l| (rnd(n), rnd(4) as u32, l as u32))
                        .collect()
                })
                .collect();
            let all = rnd(4) as u32;
            let sparse = G {
                edges: edges.clone(),
                all,
                dense: false,
            };
            let dense = G {
                edges,
                all,
                dense: true,
            };
            let (a, b) = (check(&sparse), check(&dense));
            assert_eq!(a.lasso, b.lasso);
            assert_eq!(a.states, b.states);
        }
    }

    #[test]
    fn spent_budget_gives_up() {
        let n = 200_000u64;
        let edges: Vec<Vec<(u64, u32, u32)>> = (0..n).map(|s| vec![((s + 1) % n, 0, 0)]).collect();
        let g = G {
            edges,
            all: 1,
            dense: true,
        };
        let past = Budget::unlimited().until(std::time::Instant::now());
        let r = check_within(&g, &past);
        assert!(r.lasso.is_none());
        assert!(r.gave_up.is_some());
    }
}
