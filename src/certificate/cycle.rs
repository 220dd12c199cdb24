//! Accepting cycles of a finite graph given by its successors: what the
//! LTL claims of a certificate are checked with, on the product of the
//! regions' graph with an automaton for the claim's negation.
//!
//! Every state reachable from the initial ones is numbered, the strongly
//! connected components are found (Tarjan, without recursion), and a
//! component is accepting when one of its inner edges exists and its inner
//! edges' acceptance marks together hold every mark. This is written for
//! the checker alone; the engine's emptiness check works on the fly and
//! shares nothing with it.

use std::collections::HashMap;

/// Appends the successors of a state, each with its edge's acceptance
/// marks.
pub type Successors<'a> = dyn FnMut(u64, &mut Vec<(u64, u32)>) + 'a;

/// The states of an accepting component reachable from `initial`, if one
/// is; `succ(x, out)` appends the successors of `x` with the acceptance
/// marks of each edge, and `all` is the mask of every mark.
pub fn accepting_cycle(initial: &[u64], succ: &mut Successors, all: u32) -> Option<Vec<u64>> {
    let g = Numbered::explore(initial, succ);
    let comp = g.components();
    let n_comps = comp.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut marks = vec![0u32; n_comps];
    let mut inner = vec![false; n_comps];
    for (u, edges) in g.edges.iter().enumerate() {
        for &(v, m) in edges {
            if comp[u] == comp[v as usize] {
                inner[comp[u] as usize] = true;
                marks[comp[u] as usize] |= m;
            }
        }
    }
    let accepting = (0..n_comps).find(|&c| inner[c] && marks[c] & all == all)?;
    Some(
        (0..g.states.len())
            .filter(|&u| comp[u] as usize == accepting)
            .map(|u| g.states[u])
            .collect(),
    )
}

/// The reachable part of the graph, states numbered in discovery order.
struct Numbered {
    states: Vec<u64>,
    edges: Vec<Vec<(u32, u32)>>,
}

impl Numbered {
    fn explore(initial: &[u64], succ: &mut Successors) -> Numbered {
        let mut number: HashMap<u64, u32> = HashMap::new();
        let mut g = Numbered {
            states: Vec::new(),
            edges: Vec::new(),
        };
        let mut add = |x: u64, g: &mut Numbered| -> u32 {
            *number.entry(x).or_insert_with(|| {
                g.states.push(x);
                g.edges.push(Vec::new());
                (g.states.len() - 1) as u32
            })
        };
        for &x in initial {
            add(x, &mut g);
        }
        let mut out = Vec::new();
        let mut next = 0;
        while next < g.states.len() {
            out.clear();
            succ(g.states[next], &mut out);
            for &(y, m) in &out {
                let v = add(y, &mut g);
                g.edges[next].push((v, m));
            }
            next += 1;
        }
        g
    }

    /// The component of each state (Tarjan's algorithm, iterative).
    fn components(&self) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let n = self.states.len();
        let (mut index, mut low, mut comp) = (vec![NONE; n], vec![0u32; n], vec![NONE; n]);
        let mut on_stack = vec![false; n];
        let (mut stack, mut calls) = (Vec::new(), Vec::new());
        let (mut counter, mut comps) = (0u32, 0u32);
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            calls.push((root, 0usize));
            while let Some(&(u, pos)) = calls.last() {
                if pos == 0 {
                    index[u] = counter;
                    low[u] = counter;
                    counter += 1;
                    stack.push(u);
                    on_stack[u] = true;
                }
                if let Some(&(v, _)) = self.edges[u].get(pos) {
                    if let Some(top) = calls.last_mut() {
                        top.1 += 1;
                    }
                    let v = v as usize;
                    if index[v] == NONE {
                        calls.push((v, 0));
                    } else if on_stack[v] {
                        low[u] = low[u].min(index[v]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent] = low[parent].min(low[u]);
                }
                if low[u] == index[u] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = comps;
                        if w == u {
                            break;
                        }
                    }
                    comps += 1;
                }
            }
        }
        comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Graphs as edge lists `(from, to, marks)`.
    fn cycle_in(edges: &[(u64, u64, u32)], initial: &[u64], all: u32) -> Option<Vec<u64>> {
        let mut succ = |x: u64, out: &mut Vec<(u64, u32)>| {
            out.extend(edges.iter().filter(|e| e.0 == x).map(|e| (e.1, e.2)));
        };
        accepting_cycle(initial, &mut succ, all).map(|mut c| {
            c.sort_unstable();
            c
        })
    }

    #[test]
    fn finds_accepting_components_only() {
        // 0 -> 1 -> 2 -> 1 (marks 1 then 2), 2 -> 3 -> 3 (no mark).
        let g = [(0, 1, 0), (1, 2, 1), (2, 1, 2), (2, 3, 0), (3, 3, 0)];
        assert_eq!(cycle_in(&g, &[0], 3), Some(vec![1, 2]));
        assert_eq!(cycle_in(&g, &[0], 7), None);
        assert_eq!(cycle_in(&g, &[3], 3), None);
        // No mark asked: any cycle, the self-loop included.
        assert_eq!(cycle_in(&g, &[3], 0), Some(vec![3]));
        // A state on no cycle is no component to accept.
        assert_eq!(cycle_in(&[(0, 1, 1)], &[0], 1), None);
    }

    /// Against brute force on random graphs: an accepting component exists
    /// iff some reachable state reaches itself through every mark (checked
    /// by closing the relation "reaches with marks" over small graphs).
    #[test]
    fn agrees_with_brute_force() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let n = 1 + next() % 7;
            let mut edges = Vec::new();
            for _ in 0..next() % 12 {
                edges.push((next() % n, next() % n, (next() % 4) as u32));
            }
            let all = (next() % 4) as u32;
            // reach[u][v]: the marks sets some path u -> v can collect.
            let n = n as usize;
            let mut reach = vec![vec![std::collections::BTreeSet::new(); n]; n];
            for &(u, v, m) in &edges {
                reach[u as usize][v as usize].insert(m);
            }
            loop {
                let mut grew = false;
                for u in 0..n {
                    for v in 0..n {
                        for w in 0..n {
                            let add: Vec<u32> = (reach[u][v].iter())
                                .flat_map(|a| reach[v][w].iter().map(move |b| a | b))
                                .collect();
                            for m in add {
                                grew |= reach[u][w].insert(m);
                            }
                        }
                    }
                }
                if !grew {
                    break;
                }
            }
            let reachable = |x: usize| x == 0 || reach[0][x].iter().next().is_some();
            let brute = (0..n).any(|x| reachable(x) && reach[x][x].iter().any(|m| m & all == all));
            assert_eq!(
                cycle_in(&edges, &[0], all).is_some(),
                brute,
                "{edges:?} all {all}"
            );
        }
    }
}
