//! Fixpoint model checking of action-based CTL over any explicit labelled
//! system ([`LabelledGraph`]: a loaded model, or an explored program seen
//! through the labelling of `rers-semantics.md`).
//!
//! Semantics (the one place it is decided; see `rers-semantics.md`): a state
//! formula holds in a state; path quantifiers range over **maximal paths**,
//! finite ones (ending in a state without successors) included.
//!
//! - `[a] f`: every `a`-edge leads to an `f`-state (true without `a`-edges);
//!   `<a> f`: some `a`-edge does; `[]`/`<>` range over all edges.
//! - `E(f U g) = μX. g ∨ (f ∧ <>X)`;
//!   `A(f U g) = μX. g ∨ (f ∧ <>true ∧ []X)` (a path that dies before `g`
//!   violates it);
//! - `A(f W g) = ¬E(¬g U (¬f ∧ ¬g))`, `E(f W g) = ¬A(¬g U (¬f ∧ ¬g))`
//!   (pathwise, `¬(f W g) ≡ ¬g U (¬f ∧ ¬g)` on finite and infinite paths);
//! - `EF f = E(true U f)`, `AF f = A(true U f)`, `EG f = E(f W false)`
//!   `= νX. f ∧ (<>X ∨ []false)`, `AG f = A(f W false)`.
//!
//! [`crate::ctl::slow`] evaluates the same semantics by enumerating paths.

use std::collections::VecDeque;
use std::fmt;

use super::syntax::Formula;
use crate::lts::{Adjacency, LabelledGraph, LtsState};

/// A set of states.
pub type StateSet = Vec<bool>;

/// The fixpoint checker of one system (one exploration serves every
/// property): the system's adjacency lists and label names.
pub struct Checker {
    n_states: usize,
    initial: LtsState,
    labels: Vec<String>,
    adj: Adjacency,
}

/// Which edges a modality looks at: all, one label, or none (an action the
/// system does not have).
#[derive(Copy, Clone, Debug)]
enum Edges {
    All,
    Label(u32),
    Nothing,
}

/// A path through the system that shows why a property holds (existential)
/// or fails (universal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The states visited, from the initial state.
    pub states: Vec<LtsState>,
    /// The labels of the edges taken (`states.len() - 1` of them).
    pub labels: Vec<String>,
    /// Where the cycle starts (an index into `labels`) when the path is a
    /// lasso: the edges from there on repeat forever.
    pub cycle_from: Option<usize>,
    /// Whether the path is maximal and finite (its last state has no
    /// successor).
    pub deadlock: bool,
}

impl fmt::Display for Witness {
    /// `[a, b] ([c, d])*` for a lasso, `[a, b] (deadlock)` for a finite
    /// maximal path, `[a, b]` for a prefix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.cycle_from {
            Some(k) => write!(
                f,
                "[{}] ([{}])*",
                self.labels[..k].join(", "),
                self.labels[k..].join(", ")
            ),
            None => {
                write!(f, "[{}]", self.labels.join(", "))?;
                if self.deadlock {
                    write!(f, " (deadlock)")?;
                }
                Ok(())
            }
        }
    }
}

impl Witness {
    /// This path followed by `rest`, which starts where this one ends.
    fn then(mut self, rest: Witness) -> Witness {
        let k = self.labels.len();
        self.states.extend_from_slice(&rest.states[1..]);
        self.labels.extend(rest.labels);
        self.cycle_from = rest.cycle_from.map(|c| c + k);
        self.deadlock = rest.deadlock;
        self
    }
}

fn not(a: &StateSet) -> StateSet {
    a.iter().map(|&x| !x).collect()
}

fn and(a: &StateSet, b: &StateSet) -> StateSet {
    a.iter().zip(b).map(|(&x, &y)| x && y).collect()
}

impl Checker {
    /// Prepares the checker (builds the adjacency lists).
    pub fn new(g: &(impl LabelledGraph + ?Sized)) -> Checker {
        Checker {
            n_states: g.n_states() as usize,
            initial: g.initial(),
            labels: g.label_names(),
            adj: Adjacency::new(g),
        }
    }

    fn n(&self) -> usize {
        self.n_states
    }

    /// The index of a label name, if the system has it.
    pub fn label_index(&self, name: &str) -> Option<u32> {
        self.labels.iter().position(|l| l == name).map(|i| i as u32)
    }

    fn edges(&self, a: &Option<String>) -> Edges {
        match a {
            None => Edges::All,
            Some(name) => self.label_index(name).map_or(Edges::Nothing, Edges::Label),
        }
    }

    fn matches(e: Edges, label: u32) -> bool {
        match e {
            Edges::All => true,
            Edges::Label(l) => l == label,
            Edges::Nothing => false,
        }
    }

    /// Whether `f` holds in the initial state.
    pub fn holds(&self, f: &Formula) -> bool {
        self.n() > 0 && self.sat(f)[self.initial as usize]
    }

    /// The states where `f` holds.
    pub fn sat(&self, f: &Formula) -> StateSet {
        use Formula::*;
        let n = self.n();
        match f {
            True => vec![true; n],
            False => vec![false; n],
            Not(x) => not(&self.sat(x)),
            And(x, y) => and(&self.sat(x), &self.sat(y)),
            Or(x, y) => self
                .sat(x)
                .iter()
                .zip(self.sat(y))
                .map(|(&a, b)| a || b)
                .collect(),
            Implies(x, y) => self
                .sat(x)
                .iter()
                .zip(self.sat(y))
                .map(|(&a, b)| !a || b)
                .collect(),
            Iff(x, y) => self
                .sat(x)
                .iter()
                .zip(self.sat(y))
                .map(|(&a, b)| a == b)
                .collect(),
            Diamond(a, x) => self.ex(self.edges(a), &self.sat(x)),
            Box(a, x) => not(&self.ex(self.edges(a), &not(&self.sat(x)))),
            EU(x, y) => self.eu(&self.sat(x), &self.sat(y)),
            AU(x, y) => self.au(&self.sat(x), &self.sat(y)),
            EF(x) => self.eu(&vec![true; n], &self.sat(x)),
            AF(x) => self.au(&vec![true; n], &self.sat(x)),
            AW(x, y) => {
                let (nf, ng) = (not(&self.sat(x)), not(&self.sat(y)));
                not(&self.eu(&ng, &and(&nf, &ng)))
            }
            EW(x, y) => {
                let (nf, ng) = (not(&self.sat(x)), not(&self.sat(y)));
                not(&self.au(&ng, &and(&nf, &ng)))
            }
            AG(x) => not(&self.eu(&vec![true; n], &not(&self.sat(x)))),
            EG(x) => {
                let nf = not(&self.sat(x));
                not(&self.au(&vec![true; n], &nf))
            }
        }
    }

    /// States with an edge (of the given kind) into `x`.
    fn ex(&self, e: Edges, x: &StateSet) -> StateSet {
        (0..self.n() as u32)
            .map(|s| (self.adj.succ(s).iter()).any(|&(l, t)| x[t as usize] && Self::matches(e, l)))
            .collect()
    }

    /// `E(f U g)`: backward search from `g` through `f`.
    fn eu(&self, f: &StateSet, g: &StateSet) -> StateSet {
        let mut x = g.clone();
        let mut queue: VecDeque<LtsState> =
            (0..self.n() as u32).filter(|&s| g[s as usize]).collect();
        while let Some(s) = queue.pop_front() {
            for &(_, p) in self.adj.pred(s) {
                if !x[p as usize] && f[p as usize] {
                    x[p as usize] = true;
                    queue.push_back(p);
                }
            }
        }
        x
    }

    /// `A(f U g)`: a state joins when it satisfies `f`, has successors and
    /// all of them have joined (counted per edge).
    fn au(&self, f: &StateSet, g: &StateSet) -> StateSet {
        let n = self.n();
        let mut left: Vec<u32> = (0..n as u32)
            .map(|s| self.adj.succ(s).len() as u32)
            .collect();
        let mut x = g.clone();
        let mut queue: VecDeque<LtsState> = (0..n as u32).filter(|&s| g[s as usize]).collect();
        while let Some(s) = queue.pop_front() {
            for &(_, p) in self.adj.pred(s) {
                let p = p as usize;
                left[p] -= 1;
                if left[p] == 0 && !x[p] && f[p] {
                    x[p] = true;
                    queue.push_back(p as u32);
                }
            }
        }
        x
    }

    /// A path explaining the verdict of `f` in the initial state, when `f`
    /// is a universal property that fails or an existential one that holds;
    /// `None` otherwise (or for boolean combinations). A path to a state
    /// where a nested property matters goes on with that property's own
    /// path (`<a><b>true` shows both steps).
    pub fn witness(&self, f: &Formula) -> Option<Witness> {
        if self.n() == 0 {
            return None;
        }
        self.witness_at(f, self.initial)
    }

    fn witness_at(&self, f: &Formula, init: LtsState) -> Option<Witness> {
        use Formula::*;
        let n = self.n();
        let holds = self.sat(f)[init as usize];
        let all = vec![true; n];
        // (path, the sub-formula whose own path may follow it)
        let (w, next): (Witness, Option<&Formula>) = match f {
            // existential, holding
            Diamond(a, x) if holds => (self.step_into(init, self.edges(a), &self.sat(x))?, Some(x)),
            EF(x) if holds => (self.path_eu(init, &all, &self.sat(x)), Some(x)),
            EU(x, y) if holds => (self.path_eu(init, &self.sat(x), &self.sat(y)), Some(y)),
            EG(x) if holds => (self.path_ew(init, &self.sat(x), &vec![false; n]), None),
            EW(x, y) if holds => (self.path_ew(init, &self.sat(x), &self.sat(y)), Some(y)),
            // universal, failing: a witness of the dual existential
            Box(a, x) if !holds => (
                self.step_into(init, self.edges(a), &not(&self.sat(x)))?,
                Some(x),
            ),
            AG(x) if !holds => (self.path_eu(init, &all, &not(&self.sat(x))), Some(x)),
            AF(x) if !holds => (
                self.path_ew(init, &not(&self.sat(x)), &vec![false; n]),
                None,
            ),
            AU(x, y) if !holds => {
                let (nf, ng) = (not(&self.sat(x)), not(&self.sat(y)));
                (self.path_ew(init, &ng, &and(&nf, &ng)), Some(x))
            }
            AW(x, y) if !holds => {
                let (nf, ng) = (not(&self.sat(x)), not(&self.sat(y)));
                (self.path_eu(init, &ng, &and(&nf, &ng)), Some(x))
            }
            _ => return None,
        };
        let open = w.cycle_from.is_none();
        match next {
            Some(g) if open => {
                let end = *w.states.last().expect("a path has a state");
                // Only follow a sub-formula whose verdict at the end is the
                // one this path relies on.
                let rest = self.witness_at(g, end);
                Some(match rest {
                    Some(r) => w.then(r),
                    None => w,
                })
            }
            _ => Some(w),
        }
    }

    fn label(&self, l: u32) -> String {
        self.labels[l as usize].clone()
    }

    fn step_into(&self, s: LtsState, e: Edges, x: &StateSet) -> Option<Witness> {
        let &(l, t) = self
            .adj
            .succ(s)
            .iter()
            .find(|&&(l, t)| Self::matches(e, l) && x[t as usize])?;
        Some(Witness {
            states: vec![s, t],
            labels: vec![self.label(l)],
            cycle_from: None,
            deadlock: self.adj.succ(t).is_empty(),
        })
    }

    /// A shortest path from `s` through `f`-states to a `g`-state (`s` must
    /// satisfy `E(f U g)`).
    fn path_eu(&self, s: LtsState, f: &StateSet, g: &StateSet) -> Witness {
        let n = self.n();
        let mut parent: Vec<Option<(LtsState, u32)>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[s as usize] = true;
        let mut queue = VecDeque::from([s]);
        let mut end = s;
        while let Some(u) = queue.pop_front() {
            if g[u as usize] {
                end = u;
                break;
            }
            if !f[u as usize] {
                continue;
            }
            for &(l, t) in self.adj.succ(u) {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    parent[t as usize] = Some((u, l));
                    queue.push_back(t);
                }
            }
        }
        let mut states = vec![end];
        let mut labels = Vec::new();
        let mut u = end;
        while let Some((p, l)) = parent[u as usize] {
            states.push(p);
            labels.push(self.label(l));
            u = p;
        }
        states.reverse();
        labels.reverse();
        let deadlock = self.adj.succ(end).is_empty();
        Witness {
            states,
            labels,
            cycle_from: None,
            deadlock,
        }
    }

    /// A maximal path from `s` satisfying `f W g` (`s` must satisfy
    /// `E(f W g)`): to a `g`-state if `E(f U g)` holds, else a lasso or a
    /// dead end through `f`-states.
    fn path_ew(&self, s: LtsState, f: &StateSet, g: &StateSet) -> Witness {
        let eu = self.eu(f, g);
        let ew = self.sat_ew(f, g);
        let mut states = vec![s];
        let mut labels: Vec<String> = Vec::new();
        let mut index = vec![usize::MAX; self.n()];
        let mut u = s;
        loop {
            if eu[u as usize] {
                let rest = self.path_eu(u, f, g);
                states.extend_from_slice(&rest.states[1..]);
                labels.extend(rest.labels);
                return Witness {
                    states,
                    labels,
                    cycle_from: None,
                    deadlock: false,
                };
            }
            index[u as usize] = labels.len();
            let succ = self.adj.succ(u);
            if succ.is_empty() {
                return Witness {
                    states,
                    labels,
                    cycle_from: None,
                    deadlock: true,
                };
            }
            let &(l, t) = succ
                .iter()
                .find(|&&(_, t)| ew[t as usize])
                .expect("a state of E(f W g) outside E(f U g) has a successor in E(f W g)");
            labels.push(self.label(l));
            states.push(t);
            if index[t as usize] != usize::MAX {
                return Witness {
                    states,
                    labels,
                    cycle_from: Some(index[t as usize]),
                    deadlock: false,
                };
            }
            u = t;
        }
    }

    fn sat_ew(&self, f: &StateSet, g: &StateSet) -> StateSet {
        let (nf, ng) = (not(f), not(g));
        not(&self.au(&ng, &and(&nf, &ng)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctl::syntax::parse_formula;
    use crate::lts::{Lts, LtsBuilder};

    /// 0 -a-> 1 -b-> 2 (dead end); 0 -c-> 3 -c-> 3 (loop)
    fn model() -> Lts {
        let mut b = LtsBuilder::new();
        b.edge(0, "a", 1);
        b.edge(1, "b", 2);
        b.edge(0, "c", 3);
        b.edge(3, "c", 3);
        b.finish()
    }

    fn check(s: &str) -> bool {
        let m = model();
        Checker::new(&m).holds(&parse_formula(s).unwrap())
    }

    #[test]
    fn finite_paths_count() {
        assert!(check("EG true")); // both branches are maximal paths
        assert!(!check("AF [] false")); // the c-loop never dies
        assert!(check("EF [] false"));
        assert!(check("EG <c> true"));
        assert!(!check("AG <> true"));
        assert!(check("A(true W [] false)"));
        assert!(!check("A(true U [] false)"));
        assert!(check("[b] false")); // no b-edge from the initial state
        assert!(!check("<b> true"));
        assert!(check("<a><b>[]false"));
        assert!(check("[nosuch] false"));
        assert!(!check("<nosuch> true"));
    }

    #[test]
    fn witnesses() {
        let m = model();
        let c = Checker::new(&m);
        let w = c.witness(&parse_formula("AG <> true").unwrap()).unwrap();
        assert_eq!(w.to_string(), "[a, b] (deadlock)");
        let w = c.witness(&parse_formula("EG <c> true").unwrap()).unwrap();
        assert_eq!(w.to_string(), "[c] ([c])*");
        let w = c.witness(&parse_formula("AF [] false").unwrap()).unwrap();
        assert_eq!(w.to_string(), "[c] ([c])*");
        assert!(c.witness(&parse_formula("AG true").unwrap()).is_none());
        let w = c.witness(&parse_formula("<a> true").unwrap()).unwrap();
        assert_eq!(w.labels, vec!["a"]);
        let w = c.witness(&parse_formula("<a><b>[]false").unwrap()).unwrap();
        assert_eq!(w.to_string(), "[a, b] (deadlock)");
        // AG fails at state 1 because its b-edge leads to a dead end
        let w = c
            .witness(&parse_formula("AG [b] <> true").unwrap())
            .unwrap();
        assert_eq!(w.to_string(), "[a, b] (deadlock)");
    }
}
