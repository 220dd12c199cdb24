//! The trace quotient of an explored state graph, for LTL.
//!
//! LTL properties only see the input/output words of infinite runs. Two
//! program states with the same futures (for every input the same output,
//! the same "the run ends here", and equivalent successors) are
//! interchangeable, so the checker may work on the quotient of the graph by
//! the coarsest such equivalence: the minimal deterministic machine, as in
//! Mealy-machine minimisation. RERS state spaces shrink a great deal under
//! it (program variables that never influence outputs again still tell
//! states apart), and every property's product becomes correspondingly
//! smaller.
//!
//! The equivalence is computed by Moore's partition refinement: start from
//! the partition by one-step behaviour, then split blocks by the blocks of
//! their successors until nothing changes. Signatures are compared exactly
//! (a hash table of representatives), never by hash alone.
//!
//! Before partitioning, every edge is normalised to what LTL sees:
//! an output, a silent step (including a 2012 invalid input that changed the
//! state, see [`crate::ltl::check::invalid_continues`]), or the end of the
//! run ([`Outcome::Blocked`], target [`NO_STATE`]) for errors, assumptions
//! and run-ending invalid inputs. States that were discovered but not
//! expanded each keep a block of their own and stay unexpanded, so a product
//! that reaches one still knows the exploration was incomplete there.
//!
//! A cycle of the quotient need not be a cycle of the program: the checker
//! turns a quotient lasso into a program lasso with
//! [`crate::ltl::check::unroll_lasso`].

use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::Hasher;

use crate::runtime::Budget;
use crate::system::{Edge, Outcome, StateGraph, NO_STATE};

/// The result of [`trace_quotient`].
pub struct Quotient {
    /// The quotient graph; state 0 is the class of the initial state.
    pub graph: StateGraph,
    /// Refinement rounds until the partition was stable.
    pub rounds: u32,
}

/// What one edge means to LTL: packed outcome and target.
fn normalise(s: u32, e: Edge, invalid_continues: bool) -> (u32, u32) {
    match e.outcome() {
        Outcome::Output(_) | Outcome::Silent => (e.packed, e.target),
        Outcome::Invalid if invalid_continues && e.target != s && e.target != NO_STATE => {
            (Outcome::Silent.pack(), e.target)
        }
        Outcome::Invalid | Outcome::Error(_) | Outcome::Blocked => {
            (Outcome::Blocked.pack(), NO_STATE)
        }
    }
}

/// The quotient of `g` by trace equivalence (see the module doc), or `None`
/// when `budget` runs out first (checked between refinement rounds and every
/// million states).
pub fn trace_quotient(
    g: &StateGraph,
    invalid_continues: bool,
    budget: &Budget,
) -> Option<Quotient> {
    let n = g.n_states as usize;
    let ne = g.n_expanded as usize;
    let k = g.n_inputs();
    // Normalised edges of the expanded states, in place of the originals.
    let mut codes: Vec<u32> = Vec::with_capacity(ne * k);
    let mut targets: Vec<u32> = Vec::with_capacity(ne * k);
    for s in 0..ne {
        for &e in g.edges_of(s as u32) {
            let (c, t) = normalise(s as u32, e, invalid_continues);
            codes.push(c);
            targets.push(t);
        }
    }
    let block_of = |block: &[u32], t: u32| {
        if t == NO_STATE {
            u32::MAX
        } else {
            block[t as usize]
        }
    };
    // Round 0: every expanded state in one block; the first refinement
    // splits by one-step behaviour (codes), the next ones by successors.
    let mut block: Vec<u32> = (0..n)
        .map(|s| if s < ne { 0 } else { (s - ne + 1) as u32 })
        .collect();
    let mut n_blocks = if ne > 0 { 1 + (n - ne) } else { n - ne };
    let mut next: Vec<u32> = vec![0; n];
    let mut rounds = 0;
    let mut first = true;
    loop {
        rounds += 1;
        let sig_hash = |block: &[u32], s: usize| {
            let mut h = FxHasher::default();
            h.write_u32(block[s]);
            for j in s * k..(s + 1) * k {
                h.write_u32(codes[j]);
                if !first {
                    h.write_u32(block_of(block, targets[j]));
                }
            }
            h.finish()
        };
        let same = |block: &[u32], a: usize, b: usize| {
            block[a] == block[b]
                && (0..k).all(|i| {
                    let (x, y) = (a * k + i, b * k + i);
                    codes[x] == codes[y]
                        && (first || block_of(block, targets[x]) == block_of(block, targets[y]))
                })
        };
        let mut table: HashTable<u32> = HashTable::with_capacity(n_blocks * 2);
        let mut count: u32 = 0;
        if budget.spent_time_or_memory().is_some() {
            return None;
        }
        for s in 0..ne {
            if s & 0xf_ffff == 0xf_ffff && budget.spent_time_or_memory().is_some() {
                return None;
            }
            let h = sig_hash(&block, s);
            let entry = table.entry(
                h,
                |&r| same(&block, r as usize, s),
                |&r| sig_hash(&block, r as usize),
            );
            next[s] = match entry {
                hashbrown::hash_table::Entry::Occupied(o) => next[*o.get() as usize],
                hashbrown::hash_table::Entry::Vacant(v) => {
                    v.insert(s as u32);
                    count += 1;
                    count - 1
                }
            };
        }
        drop(table);
        for (s, b) in next.iter_mut().enumerate().skip(ne) {
            *b = count + (s - ne) as u32;
        }
        let new_blocks = count as usize + (n - ne);
        std::mem::swap(&mut block, &mut next);
        let stable = !first && new_blocks == n_blocks;
        n_blocks = new_blocks;
        first = false;
        if stable {
            break;
        }
    }
    // Number the blocks in order of first occurrence (state 0's block is 0);
    // expanded blocks come first because expanded states do.
    let mut rename = vec![u32::MAX; n_blocks];
    let mut rep: Vec<u32> = Vec::new();
    for (s, &b) in block.iter().enumerate() {
        let b = b as usize;
        if rename[b] == u32::MAX {
            rename[b] = rep.len() as u32;
            rep.push(s as u32);
        }
    }
    let n_expanded_blocks = rep.iter().take_while(|&&s| (s as usize) < ne).count();
    let mut edges = Vec::with_capacity(n_expanded_blocks * k);
    for &s in &rep[..n_expanded_blocks] {
        for j in s as usize * k..(s as usize + 1) * k {
            let t = targets[j];
            edges.push(Edge {
                target: if t == NO_STATE {
                    NO_STATE
                } else {
                    rename[block[t as usize] as usize]
                },
                packed: codes[j],
            });
        }
    }
    Some(Quotient {
        graph: StateGraph {
            inputs: g.inputs.clone(),
            outputs: g.outputs.clone(),
            edges,
            n_states: rep.len() as u32,
            n_expanded: n_expanded_blocks as u32,
            error_labels: g.error_labels.clone(),
        },
        rounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn counter_collapses() {
        // States 0..4 all loop A/X to the next, 4 back to 0: one class.
        let rows: Vec<Vec<_>> = (0..5u32)
            .map(|s| vec![((s + 1) % 5, Outcome::Output(0))])
            .collect();
        let g = StateGraph::from_rows(names(&["A"]), names(&["X"]), &rows);
        let q = trace_quotient(&g, false, &Budget::unlimited()).unwrap();
        assert_eq!(q.graph.n_states, 1);
        assert_eq!(q.graph.edge(0, 0).target, 0);
    }

    #[test]
    fn different_futures_stay_apart() {
        // 0 -A/X-> 1 -A/X-> 2 -A/Y-> 2: all three differ (Y after 2, 1, 0 steps).
        let g = StateGraph::from_rows(
            names(&["A"]),
            names(&["X", "Y"]),
            &[
                vec![(1, Outcome::Output(0))],
                vec![(2, Outcome::Output(0))],
                vec![(2, Outcome::Output(1))],
            ],
        );
        assert_eq!(
            trace_quotient(&g, false, &Budget::unlimited())
                .unwrap()
                .graph
                .n_states,
            3
        );
    }

    #[test]
    fn run_ends_are_one_outcome_and_unexpanded_states_stay() {
        // 0 -A/err-> ; 0 -B/X-> 1 ; 1 -A/invalid(same state)-> 1 ; 1 -B/X-> 2 (unexpanded)
        let mut g = StateGraph::from_rows(
            names(&["A", "B"]),
            names(&["X"]),
            &[
                vec![(NO_STATE, Outcome::Error(3)), (1, Outcome::Output(0))],
                vec![(1, Outcome::Invalid), (2, Outcome::Output(0))],
            ],
        );
        g.n_states = 3;
        let q = trace_quotient(&g, true, &Budget::unlimited()).unwrap();
        // 0 and 1 look alike for one step but 1 leads to the unexpanded 2.
        assert_eq!(q.graph.n_states, 3);
        assert_eq!(q.graph.n_expanded, 2);
        assert_eq!(q.graph.edge(1, 0).outcome(), Outcome::Blocked);
        assert_eq!(q.graph.edge(1, 1).target, 2);
        assert!(!q.graph.is_complete());
    }
}
