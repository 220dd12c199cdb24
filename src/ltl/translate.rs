//! LTL to transition-based generalized Büchi automata (TGBA), after
//! Gastin and Oddoux, "Fast LTL to Büchi automata translation" (CAV 2001).
//!
//! # Algorithm
//!
//! 1. The formula is put in negation normal form over `X`, `U`, `R`, `&`,
//!    `|` and *letter sets*: since exactly one atom holds at each position of
//!    a RERS trace, an atom `iA` is the set of letters `{iA}` and `! iA` is
//!    its complement. `F f = true U f`, `G f = false R f`,
//!    `f WU g = g R (f | g)`. Nodes are hash-consed and simplified
//!    (constants, letter-set merging, `U`/`R` with constant operands).
//! 2. Very weak alternating automaton: the states are the `X`/`U`/`R`
//!    subformulas and letter sets; `δ(q)` is a set of terms
//!    `(letters, conjunction of next states)`:
//!    `δ(f U g) = δ(g) ∪ δ(f) ⊗ {(Σ, {f U g})}`,
//!    `δ(f R g) = δ(g) ⊗ (δ(f) ∪ {(Σ, {f R g})})`, `δ(X f) = {(Σ, e) | e ∈ init(f)}`,
//!    `&` is the product `⊗` and `|` the union. Terms subsumed by another
//!    (more letters, fewer obligations) are dropped.
//! 3. TGBA: a state is a set of VWAA states (a conjunction). On letter `a`,
//!    the successors of `S` are the unions of one `a`-term of each member.
//!    There is one acceptance set per `U` subformula `u`: a transition to `S'`
//!    is in it when `u ∉ S'`, or when some term `(L, e)` of `δ(u)` with
//!    `a ∈ L`, `u ∉ e`, `e ⊆ S'` exists (the until was fulfilled). A
//!    successor that is a superset of another with no more acceptance is
//!    dropped. Edges are kept per explicit letter.
//!
//! The automaton accepts exactly the infinite words (over the letters of the
//! [`Alphabet`]) that satisfy the formula.

use rustc_hash::FxHashMap;

use super::syntax::Formula;

/// The letters of the traces: every input and output symbol, as atom names
/// (`iA`, `oX`). At most 64 letters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alphabet {
    /// Letter names, indexed by letter number.
    pub letters: Vec<String>,
}

impl Alphabet {
    /// The alphabet of a program: inputs first (`i` + name), then outputs.
    pub fn of_program(inputs: &[String], outputs: &[String]) -> Alphabet {
        let letters = inputs
            .iter()
            .map(|s| format!("i{s}"))
            .chain(outputs.iter().map(|s| format!("o{s}")))
            .collect();
        Alphabet { letters }
    }

    /// Number of letters.
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    /// Whether there is no letter.
    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }

    /// The letter number of an atom name.
    pub fn index(&self, atom: &str) -> Option<usize> {
        self.letters.iter().position(|l| l == atom)
    }

    fn full(&self) -> u64 {
        if self.letters.len() == 64 {
            u64::MAX
        } else {
            (1u64 << self.letters.len()) - 1
        }
    }
}

/// Why a formula could not be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranslateError {
    /// More than 64 letters.
    TooManyLetters(usize),
    /// More than 32 until subformulas (acceptance sets).
    TooManyAcceptanceSets(usize),
    /// The automaton grew past the state limit.
    TooManyStates(usize),
}

impl std::fmt::Display for TranslateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TranslateError::TooManyLetters(n) => write!(f, "{n} letters (at most 64 supported)"),
            TranslateError::TooManyAcceptanceSets(n) => {
                write!(f, "{n} until subformulas (at most 32 supported)")
            }
            TranslateError::TooManyStates(n) => write!(f, "automaton larger than {n} states"),
        }
    }
}

/// Most automaton states built before giving up.
const MAX_TGBA_STATES: usize = 200_000;

type NodeId = u32;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    True,
    False,
    Lit(u64),
    And(NodeId, NodeId),
    Or(NodeId, NodeId),
    Next(NodeId),
    Until(NodeId, NodeId),
    Release(NodeId, NodeId),
}

/// A term of a VWAA transition: letters and a sorted set of next states.
type Term = (u64, Vec<NodeId>);

struct Pool {
    nodes: Vec<Node>,
    index: FxHashMap<Node, NodeId>,
    full: u64,
    trans: FxHashMap<NodeId, Vec<Term>>,
}

const TRUE: NodeId = 0;
const FALSE: NodeId = 1;

impl Pool {
    fn new(full: u64) -> Pool {
        let mut p = Pool {
            nodes: Vec::new(),
            index: FxHashMap::default(),
            full,
            trans: FxHashMap::default(),
        };
        p.intern(Node::True);
        p.intern(Node::False);
        p
    }

    fn intern(&mut self, n: Node) -> NodeId {
        if let Some(&id) = self.index.get(&n) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(n);
        self.index.insert(n, id);
        id
    }

    fn lit(&mut self, m: u64) -> NodeId {
        if m == 0 {
            FALSE
        } else if m == self.full {
            TRUE
        } else {
            self.intern(Node::Lit(m))
        }
    }

    fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        match (self.nodes[a as usize], self.nodes[b as usize]) {
            (Node::False, _) | (_, Node::False) => FALSE,
            (Node::True, _) => b,
            (_, Node::True) => a,
            (Node::Lit(x), Node::Lit(y)) => self.lit(x & y),
            _ if a == b => a,
            _ => self.intern(Node::And(a.min(b), a.max(b))),
        }
    }

    fn or(&mut self, a: NodeId, b: NodeId) -> NodeId {
        match (self.nodes[a as usize], self.nodes[b as usize]) {
            (Node::True, _) | (_, Node::True) => TRUE,
            (Node::False, _) => b,
            (_, Node::False) => a,
            (Node::Lit(x), Node::Lit(y)) => self.lit(x | y),
            _ if a == b => a,
            _ => self.intern(Node::Or(a.min(b), a.max(b))),
        }
    }

    fn next(&mut self, a: NodeId) -> NodeId {
        match a {
            TRUE | FALSE => a,
            _ => self.intern(Node::Next(a)),
        }
    }

    fn until(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if b == TRUE || b == FALSE || a == FALSE || a == b {
            return b;
        }
        self.intern(Node::Until(a, b))
    }

    fn release(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if b == TRUE || b == FALSE || a == TRUE || a == b {
            return b;
        }
        self.intern(Node::Release(a, b))
    }

    /// Negation normal form of `f` (negated if `neg`).
    fn nnf(&mut self, f: &Formula, neg: bool, alpha: &Alphabet) -> NodeId {
        use Formula as F;
        match f {
            F::True => {
                if neg {
                    FALSE
                } else {
                    TRUE
                }
            }
            F::False => {
                if neg {
                    TRUE
                } else {
                    FALSE
                }
            }
            F::Atom(a) => {
                let m = alpha.index(a).map_or(0, |k| 1u64 << k);
                self.lit(if neg { self.full & !m } else { m })
            }
            F::Not(a) => self.nnf(a, !neg, alpha),
            F::And(a, b) | F::Or(a, b) => {
                let (x, y) = (self.nnf(a, neg, alpha), self.nnf(b, neg, alpha));
                if matches!(f, F::And(..)) != neg {
                    self.and(x, y)
                } else {
                    self.or(x, y)
                }
            }
            F::Implies(a, b) => {
                let x = self.nnf(a, !neg, alpha);
                let y = self.nnf(b, neg, alpha);
                if neg {
                    self.and(x, y)
                } else {
                    self.or(x, y)
                }
            }
            F::Iff(a, b) => {
                let (pa, na) = (self.nnf(a, false, alpha), self.nnf(a, true, alpha));
                let (pb, nb) = (self.nnf(b, false, alpha), self.nnf(b, true, alpha));
                let (l, r) = if neg {
                    (self.and(pa, nb), self.and(na, pb))
                } else {
                    (self.and(pa, pb), self.and(na, nb))
                };
                self.or(l, r)
            }
            F::Next(a) => {
                let x = self.nnf(a, neg, alpha);
                self.next(x)
            }
            F::Eventually(a) => {
                let x = self.nnf(a, neg, alpha);
                if neg {
                    self.release(FALSE, x)
                } else {
                    self.until(TRUE, x)
                }
            }
            F::Globally(a) => {
                let x = self.nnf(a, neg, alpha);
                if neg {
                    self.until(TRUE, x)
                } else {
                    self.release(FALSE, x)
                }
            }
            F::Until(a, b) => {
                let (x, y) = (self.nnf(a, neg, alpha), self.nnf(b, neg, alpha));
                if neg {
                    self.release(x, y)
                } else {
                    self.until(x, y)
                }
            }
            F::Release(a, b) => {
                let (x, y) = (self.nnf(a, neg, alpha), self.nnf(b, neg, alpha));
                if neg {
                    self.until(x, y)
                } else {
                    self.release(x, y)
                }
            }
            F::WeakUntil(a, b) => {
                // f WU g = g R (f | g);  !(f WU g) = !g U (!f & !g).
                let (x, y) = (self.nnf(a, neg, alpha), self.nnf(b, neg, alpha));
                if neg {
                    let both = self.and(x, y);
                    self.until(y, both)
                } else {
                    let either = self.or(x, y);
                    self.release(y, either)
                }
            }
        }
    }

    /// The DNF of a node as sets of VWAA states.
    fn init(&self, n: NodeId) -> Vec<Vec<NodeId>> {
        match self.nodes[n as usize] {
            Node::True => vec![vec![]],
            Node::False => vec![],
            Node::And(a, b) => {
                let (x, y) = (self.init(a), self.init(b));
                let mut out = Vec::new();
                for s in &x {
                    for t in &y {
                        out.push(union(s, t));
                    }
                }
                out
            }
            Node::Or(a, b) => {
                let mut out = self.init(a);
                out.extend(self.init(b));
                out
            }
            _ => vec![vec![n]],
        }
    }

    /// The VWAA transition terms of a node (memoised).
    fn delta(&mut self, n: NodeId) -> Vec<Term> {
        if let Some(t) = self.trans.get(&n) {
            return t.clone();
        }
        let full = self.full;
        let t = match self.nodes[n as usize] {
            Node::True => vec![(full, vec![])],
            Node::False => vec![],
            Node::Lit(m) => vec![(m, vec![])],
            Node::And(a, b) => {
                let (x, y) = (self.delta(a), self.delta(b));
                product(&x, &y)
            }
            Node::Or(a, b) => {
                let mut x = self.delta(a);
                x.extend(self.delta(b));
                x
            }
            Node::Next(a) => self.init(a).into_iter().map(|s| (full, s)).collect(),
            Node::Until(a, b) => {
                let mut x = self.delta(b);
                let fa = self.delta(a);
                x.extend(product(&fa, &[(full, vec![n])]));
                x
            }
            Node::Release(a, b) => {
                let fb = self.delta(b);
                let mut fa = self.delta(a);
                fa.push((full, vec![n]));
                product(&fb, &fa)
            }
        };
        let t = minimize(t);
        self.trans.insert(n, t.clone());
        t
    }

    /// Every `U` node reachable from `root`, in a fixed order.
    fn untils(&self, root: NodeId) -> Vec<NodeId> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![root];
        let mut out = Vec::new();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n as usize], true) {
                continue;
            }
            match self.nodes[n as usize] {
                Node::True | Node::False | Node::Lit(_) => {}
                Node::Next(a) => stack.push(a),
                Node::And(a, b) | Node::Or(a, b) | Node::Release(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                Node::Until(a, b) => {
                    out.push(n);
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

fn union(a: &[NodeId], b: &[NodeId]) -> Vec<NodeId> {
    let mut v: Vec<NodeId> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn subset(a: &[NodeId], b: &[NodeId]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

fn product(x: &[Term], y: &[Term]) -> Vec<Term> {
    let mut out = Vec::new();
    for (m1, s1) in x {
        for (m2, s2) in y {
            let m = m1 & m2;
            if m != 0 {
                out.push((m, union(s1, s2)));
            }
        }
    }
    out
}

/// Drops terms implied by another: `(m2, s2)` goes when some `(m1, s1)` has
/// `m2 ⊆ m1` and `s1 ⊆ s2`; terms with the same states merge their letters.
fn minimize(mut t: Vec<Term>) -> Vec<Term> {
    t.retain(|(m, _)| *m != 0);
    // Merge equal state sets.
    t.sort_by(|a, b| a.1.cmp(&b.1));
    let mut merged: Vec<Term> = Vec::new();
    for (m, s) in t {
        match merged.last_mut() {
            Some((lm, ls)) if *ls == s => *lm |= m,
            _ => merged.push((m, s)),
        }
    }
    let keep: Vec<bool> = (0..merged.len())
        .map(|j| {
            let (m2, s2) = &merged[j];
            !merged.iter().enumerate().any(|(i, (m1, s1))| {
                i != j && m2 & !m1 == 0 && subset(s1, s2) && (s1 != s2 || i < j)
            })
        })
        .collect();
    merged
        .into_iter()
        .zip(keep)
        .filter_map(|(t, k)| k.then_some(t))
        .collect()
}

/// A transition-based generalized Büchi automaton with explicit letters.
#[derive(Clone, Debug)]
pub struct Tgba {
    /// Number of letters.
    pub n_letters: usize,
    /// Number of acceptance sets (one per until subformula).
    pub n_acc: u32,
    /// Initial states.
    pub initial: Vec<u32>,
    /// `edges[q * n_letters + a]`: successors `(state, acceptance mask)`.
    edges: Vec<Vec<(u32, u32)>>,
    /// Number of states.
    pub n_states: usize,
}

impl Tgba {
    /// The successors of `q` on letter `a`, each with its acceptance mask.
    #[inline]
    pub fn succ(&self, q: u32, a: usize) -> &[(u32, u32)] {
        &self.edges[q as usize * self.n_letters + a]
    }

    /// The mask with every acceptance set.
    pub fn all_acc(&self) -> u32 {
        if self.n_acc == 32 {
            u32::MAX
        } else {
            (1u32 << self.n_acc) - 1
        }
    }

    /// Number of edges (letter by letter).
    pub fn n_edges(&self) -> usize {
        self.edges.iter().map(|e| e.len()).sum()
    }
}

/// Translates `f` into a TGBA accepting exactly the words over `alpha` that
/// satisfy `f`. Atoms not in the alphabet never hold.
pub fn translate(f: &Formula, alpha: &Alphabet) -> Result<Tgba, TranslateError> {
    let nl = alpha.len();
    if nl > 64 {
        return Err(TranslateError::TooManyLetters(nl));
    }
    let mut pool = Pool::new(alpha.full());
    let root = pool.nnf(f, false, alpha);
    let untils = pool.untils(root);
    if untils.len() > 32 {
        return Err(TranslateError::TooManyAcceptanceSets(untils.len()));
    }
    let mut ids: FxHashMap<Vec<NodeId>, u32> = FxHashMap::default();
    let mut states: Vec<Vec<NodeId>> = Vec::new();
    let mut initial = Vec::new();
    for s in pool.init(root) {
        let id = *ids.entry(s.clone()).or_insert_with(|| {
            states.push(s);
            states.len() as u32 - 1
        });
        if !initial.contains(&id) {
            initial.push(id);
        }
    }
    let mut edges: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut done = 0;
    while done < states.len() {
        if states.len() > MAX_TGBA_STATES {
            return Err(TranslateError::TooManyStates(MAX_TGBA_STATES));
        }
        let s = states[done].clone();
        let deltas: Vec<Vec<Term>> = s.iter().map(|&q| pool.delta(q)).collect();
        for a in 0..nl {
            let bit = 1u64 << a;
            let mut options: Vec<Vec<NodeId>> = vec![vec![]];
            for d in &deltas {
                let mut next = Vec::new();
                for (m, e) in d {
                    if m & bit != 0 {
                        for o in &options {
                            next.push(union(o, e));
                        }
                    }
                }
                options = next;
                if options.is_empty() {
                    break;
                }
            }
            options.sort();
            options.dedup();
            let accs: Vec<u32> = options
                .iter()
                .map(|o| acceptance(&mut pool, &untils, bit, o))
                .collect();
            let mut row = Vec::new();
            for (j, o) in options.iter().enumerate() {
                let dominated = options.iter().enumerate().any(|(i, p)| {
                    i != j && p.len() < o.len() && subset(p, o) && accs[j] & !accs[i] == 0
                });
                if dominated {
                    continue;
                }
                let id = *ids.entry(o.clone()).or_insert_with(|| {
                    states.push(o.clone());
                    states.len() as u32 - 1
                });
                row.push((id, accs[j]));
            }
            edges.push(row);
        }
        done += 1;
    }
    Ok(Tgba {
        n_letters: nl,
        n_acc: untils.len() as u32,
        initial,
        edges,
        n_states: states.len(),
    })
}

/// The acceptance mask of a transition on letter `bit` into `target`.
fn acceptance(pool: &mut Pool, untils: &[NodeId], bit: u64, target: &[NodeId]) -> u32 {
    let mut acc = 0u32;
    for (k, &u) in untils.iter().enumerate() {
        let ok = target.binary_search(&u).is_err()
            || pool
                .delta(u)
                .iter()
                .any(|(m, e)| m & bit != 0 && e.binary_search(&u).is_err() && subset(e, target));
        if ok {
            acc |= 1 << k;
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ltl::syntax::parse_formula;

    fn ab() -> Alphabet {
        Alphabet {
            letters: vec!["iA".into(), "iB".into(), "oX".into()],
        }
    }

    #[test]
    fn small_automata() {
        let t = translate(&parse_formula("G F iA").unwrap(), &ab()).unwrap();
        assert_eq!(t.n_acc, 1);
        assert!(t.n_states <= 2, "{}", t.n_states);
        let t = translate(&parse_formula("false").unwrap(), &ab()).unwrap();
        assert!(t.initial.is_empty());
        let t = translate(&parse_formula("true").unwrap(), &ab()).unwrap();
        assert_eq!(t.n_states, 1);
        assert_eq!(t.succ(0, 2).len(), 1);
    }

    #[test]
    fn unknown_atoms_never_hold() {
        let t = translate(&parse_formula("F oQ").unwrap(), &ab()).unwrap();
        // F false = false.
        assert!(t.initial.is_empty());
    }
}
