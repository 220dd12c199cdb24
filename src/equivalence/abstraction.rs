//! Equivalence of two programs proved on their interval abstractions,
//! without enumerating their states.
//!
//! RERS generates the C and the Java version of some problems (the 2019
//! challenge LTL problems) with different obfuscations: other variables,
//! other arithmetic, modes split differently. Their code has no common
//! shape ([`super::structural`] fails) and their concrete state spaces, a
//! product of arithmetic values, are too large for the lockstep search of
//! [`super::lockstep`]. Their interval abstractions are small, though
//! ([`crate::absint`]: tens to hundreds of abstract states), and usually
//! *decide* every step: whatever concrete state of an abstract state runs
//! an input, it prints the same output.
//!
//! # The argument
//!
//! The abstraction ([`explore_abstract`]) guarantees: the initial state lies
//! in abstract state 0, and for every concrete state `c` lying in an
//! abstract state `S` and every input `i`, the engine's step from `c` ends
//! with an outcome `o` and a state `c'` (if the run goes on) such that `S`
//! has an edge `(i, o, T)` with `c'` lying in `T` (an invalid input that
//! stores nothing has no `T`: `c'` is `c`, in `S`); and no step from `c`
//! faults (the abstraction is abandoned where one might).
//!
//! Take a *set* `X` of abstract states holding the concrete state `c`. The
//! edges of `X`'s states on input `i` hold `c`'s outcome, and their targets
//! hold `c`'s successor. If all those edges have one outcome, that outcome
//! is `c`'s. [`prove`] explores pairs of such sets, one per program,
//! starting from `({0}, {0})` and following each input to the targets of
//! its edges (a subset construction on both abstractions in lockstep). If
//! every pair reached has, for every input, one outcome on each side and
//! the same one by name, then by induction on the input sequence every
//! sequence gives both programs' concrete runs the same outcomes: the
//! programs are equivalent. Where a set has two outcomes for one input the
//! abstraction did not decide that step and nothing is concluded; a
//! difference between the sets is only a candidate (the concrete lockstep
//! search then looks for the real one).

use std::collections::VecDeque;
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::lockstep::Observed;
use crate::absint::{explore_abstract_until, AbsGraph, AbstractionError};
use crate::engine::Machine;
use crate::ir::Program;
use crate::runtime::Budget;
use crate::system::{Outcome, StateId, System};

/// Most pairs of abstract-state sets [`prove`] explores before giving up.
pub const MAX_PAIRS: usize = 1_000_000;

/// What an equivalence proved on the abstractions rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbstractProof {
    /// Abstract states of the first program.
    pub states_a: usize,
    /// Abstract states of the second program.
    pub states_b: usize,
    /// Pairs of abstract-state sets explored, all decided and agreeing.
    pub pairs: usize,
}

/// Why the abstractions prove nothing (never that the programs differ).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoProof {
    /// The input alphabets are not the same set.
    #[error("the input alphabets differ")]
    AlphabetsDiffer,
    /// One abstraction could not be built.
    #[error("{side} program: {why}")]
    Abstraction {
        /// `first` or `second`.
        side: &'static str,
        /// Why not.
        why: AbstractionError,
    },
    /// The deadline passed.
    #[error("time limit reached while comparing the abstractions")]
    Timeout,
    /// A step is not decided on one side.
    #[error("{side} program's abstraction undecided after {after}")]
    Undecided {
        /// `first` or `second`.
        side: &'static str,
        /// The inputs leading there.
        after: String,
    },
    /// The abstractions decide a step differently.
    #[error("the abstractions differ after {after}: {a} / {b}")]
    Differ {
        /// The inputs leading there.
        after: String,
        /// The first program's step.
        a: Observed,
        /// The second program's step.
        b: Observed,
    },
    /// A step that goes on has no abstract successor.
    #[error("an abstraction has no successor after {0}")]
    NoSuccessor(String),
    /// Too many pairs of sets.
    #[error("more than {MAX_PAIRS} pairs of abstract states")]
    TooManyPairs,
}

/// A set of abstract states of one program (sorted, no duplicates).
type Set = Vec<StateId>;

/// Proves `a` and `b` equivalent on their abstractions, or says why not.
/// `Err` never means the programs differ: only that this proof does not
/// apply (an abstraction did not complete, left a step undecided, or the
/// abstractions disagree, which the caller's concrete search settles).
pub fn prove(
    (pa, ma): (&Program, &Machine),
    (pb, mb): (&Program, &Machine),
    limits: &Budget,
) -> Result<AbstractProof, NoProof> {
    let to_b: Vec<usize> = ma
        .input_names
        .iter()
        .map(|n| mb.input_index(n))
        .collect::<Option<_>>()
        .filter(|_| ma.input_names.len() == mb.input_names.len())
        .ok_or(NoProof::AlphabetsDiffer)?;
    // The two abstractions are independent: one thread each.
    let (ga, gb) = std::thread::scope(|scope| {
        let a = scope.spawn(|| explore_abstract_until(pa, ma, limits, decides_every_step));
        let b = explore_abstract_until(pb, mb, limits, decides_every_step);
        let a = a.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        (a, b)
    });
    let ga = ga.map_err(|why| NoProof::Abstraction { side: "first", why })?;
    let gb = gb.map_err(|why| NoProof::Abstraction {
        side: "second",
        why,
    })?;
    let mut index: FxHashMap<(Set, Set), usize> = FxHashMap::default();
    // Per pair: the pair it was reached from and the input, for messages.
    let mut parent: Vec<(usize, usize)> = vec![(usize::MAX, 0)];
    let mut queue = VecDeque::new();
    index.insert((vec![0], vec![0]), 0);
    queue.push_back((vec![0], vec![0], 0usize));
    let mut expanded = 0usize;
    while let Some((xa, xb, id)) = queue.pop_front() {
        expanded += 1;
        if expanded.is_multiple_of(1024) && limits.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(NoProof::Timeout);
        }
        for (i, &j) in to_b.iter().enumerate() {
            let where_ = || path(&parent, id, i, ma);
            let undecided = |side| NoProof::Undecided {
                side,
                after: where_(),
            };
            let (oa, ta) = decided(&ga, &xa, i).ok_or_else(|| undecided("first"))?;
            let (ob, tb) = decided(&gb, &xb, j).ok_or_else(|| undecided("second"))?;
            let (oa, ob) = (Observed::of(ma, oa), Observed::of(mb, ob));
            if oa != ob {
                return Err(NoProof::Differ {
                    after: where_(),
                    a: oa,
                    b: ob,
                });
            }
            if !oa.goes_on() {
                continue;
            }
            if ta.is_empty() || tb.is_empty() {
                return Err(NoProof::NoSuccessor(where_()));
            }
            let key = (ta, tb);
            if index.contains_key(&key) {
                continue;
            }
            if index.len() >= MAX_PAIRS {
                return Err(NoProof::TooManyPairs);
            }
            let next = index.len();
            index.insert(key.clone(), next);
            parent.push((id, i));
            queue.push_back((key.0, key.1, next));
        }
    }
    Ok(AbstractProof {
        states_a: ga.n_states(),
        states_b: gb.n_states(),
        pairs: index.len(),
    })
}

/// Whether every abstract state has one outcome per input (the refinement
/// rounds of the abstraction stop there: this proof needs no more).
fn decides_every_step(g: &AbsGraph) -> bool {
    (0..g.n_states() as StateId).all(|s| (0..g.inputs.len()).all(|i| decided(g, &[s], i).is_some()))
}

/// The one outcome the edges of `set`'s states on `input` have, with the
/// sorted targets of those edges; `None` when they have several outcomes
/// (or none).
fn decided(g: &AbsGraph, set: &[StateId], input: usize) -> Option<(Outcome, Set)> {
    let mut packed = None;
    let mut targets = Vec::new();
    for &s in set {
        // Edges are sorted by input first.
        let edges = &g.edges[s as usize];
        let from = edges.partition_point(|e| (e.input as usize) < input);
        for e in edges[from..]
            .iter()
            .take_while(|e| e.input as usize == input)
        {
            if packed.is_some_and(|p| p != e.packed) {
                return None;
            }
            packed = Some(e.packed);
            targets.extend(e.successor(s));
        }
    }
    targets.sort_unstable();
    targets.dedup();
    packed.map(|p| (Outcome::unpack(p), targets))
}

/// The input sequence that reaches pair `id` and then runs `input`, as
/// the first program's input names.
fn path(parent: &[(usize, usize)], mut id: usize, input: usize, m: &Machine) -> String {
    let mut inputs = vec![input];
    while parent[id].0 != usize::MAX {
        inputs.push(parent[id].1);
        id = parent[id].0;
    }
    inputs.reverse();
    let names: Vec<&str> = inputs.iter().map(|&k| m.input_names[k].as_str()).collect();
    format!("[{}]", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::lockstep::Verdict;
    use super::*;
    use crate::frontend::java::parse_java;

    /// A mode cycling through 0, 1, 2 on input A (printing X), spelled
    /// `enc * k + 7` in `m`; `n` takes an arithmetic value of the mode it
    /// leaves, and input B prints Y in mode `y` when `n > threshold`.
    fn program(enc: i32, y: i32, noise: i32, threshold: i32) -> (Program, Machine) {
        let code = |k: i32| enc * k + 7;
        let mut rules = String::new();
        for k in 0..3 {
            rules += &format!(
                "        if (cf && input.equals(\"A\") && m == {}) {{ cf = false; n = (m * {noise} + 7) % 1000; m = {}; System.out.println(\"X\"); }}\n",
                code(k),
                code((k + 1) % 3)
            );
        }
        let src = format!(
            r#"public class T {{
    private String[] inputs = {{"A","B"}};
    public int m = 7;
    public int n = 5;
    public boolean cf = true;
    public void calculateOutput(String input) {{
        cf = true;
{rules}        if (cf && input.equals("B") && m == {} && n > {threshold}) {{ cf = false; System.out.println("Y"); }}
        if (cf) throw new IllegalArgumentException("no");
    }}
}}"#,
            code(y)
        );
        let p = parse_java("T.java", &src).expect("lowers");
        let m = Machine::compile(&p).expect("compiles");
        (p, m)
    }

    fn run(a: &(Program, Machine), b: &(Program, Machine)) -> Result<AbstractProof, NoProof> {
        prove((&a.0, &a.1), (&b.0, &b.1), &Budget::unlimited())
    }

    #[test]
    fn differently_encoded_modes_are_proved_equivalent() {
        let a = program(1, 2, 31, 0);
        let b = program(5, 2, 17, -1);
        let proof = run(&a, &b).expect("proved");
        assert_eq!((proof.states_a, proof.states_b), (3, 3), "{proof:?}");
    }

    #[test]
    fn a_difference_is_never_proved_equivalent() {
        let a = program(1, 2, 31, 0);
        let b = program(5, 1, 17, 0);
        let why = run(&a, &b).expect_err("differs");
        assert!(
            why.to_string().contains("differ after [B]")
                || why.to_string().contains("differ after [A, B]"),
            "{why}"
        );
    }

    #[test]
    fn an_undecided_step_is_not_a_proof() {
        // A counter is left out of the abstract state's key: its guard is
        // undecided there.
        let src = r#"public class T {
    private String[] inputs = {"A","B"};
    public int c = 0;
    public boolean cf = true;
    public void calculateOutput(String input) {
        cf = true;
        if (cf && input.equals("A")) { cf = false; c = c + 1; System.out.println("X"); }
        if (cf && input.equals("B") && c == 3) { cf = false; System.out.println("Y"); }
        if (cf) throw new IllegalArgumentException("no");
    }
}"#;
        let p = parse_java("T.java", src).expect("lowers");
        let m = Machine::compile(&p).expect("compiles");
        let a = (p, m);
        let why = run(&a, &a).expect_err("undecided");
        assert!(why.to_string().contains("undecided"), "{why}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Against the concrete lockstep search (these programs are
        /// finite): a proof only for equivalent programs, and every
        /// difference stops the proof.
        #[test]
        fn agrees_with_the_lockstep_search(
            (ea, eb) in (1i32..6, 1i32..6),
            (ya, yb) in (0i32..3, 0i32..3),
            (ka, kb) in (2i32..40, 2i32..40),
            (ta, tb) in (-10i32..300, -10i32..300),
        ) {
            let a = program(ea, ya, ka, ta);
            let b = program(eb, yb, kb, tb);
            let concrete = super::super::lockstep::compare(
                &a.1, &b.1, "a", "b", &Budget::unlimited(), 1,
            ).expect("replays");
            match run(&a, &b) {
                Ok(_) => proptest::prop_assert_eq!(concrete.verdict, Verdict::Equivalent),
                Err(_) => proptest::prop_assert_ne!(concrete.verdict, Verdict::Unknown),
            }
        }
    }
}
