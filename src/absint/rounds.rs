//! The rounds of the abstraction ([`super::explore`]): each round explores
//! the abstract transition system with one key; between rounds, what a
//! round's graph shows the states read later (`refine`) and which counter
//! steps ran (`finer_congruences`) make the next key finer, and the round
//! that leaves the least open is kept.

use rustc_hash::FxHashSet;

use super::analysis::state_slot;
use super::cells::{cells, congruences, counter_writes, Cells, IRRELEVANT};
use super::explore::{
    explore_keyed, AbstractionError, Liveness, RoundError, Unfinished, WIDEN_AFTER,
    WIDEN_AFTER_RETRY, WIDEN_AFTER_SECOND,
};
use super::graph::AbsGraph;
use super::step::AbstractStep;
use crate::engine::Machine;
use crate::ir::{Expr, Program};
use crate::runtime::Budget;

/// Most rounds of [`refine`]: each explores the abstraction again.
pub const MAX_ROUNDS: usize = 12;

/// Explores the abstract transition system to its fixpoint. `Err` when the
/// limits run out or the step cannot be interpreted soundly.
///
/// With [`super::relevance::Relevance`], states are first keyed on the slots their next step
/// depends on; [`refine`] then finds the slots a later step reads before
/// any step writes them, and the exploration runs again keeping those too,
/// until nothing is learnt or [`MAX_ROUNDS`]. Every round's result is a
/// sound abstraction; the last one that completes is returned.
pub fn explore_abstract(
    p: &Program,
    m: &Machine,
    budget: &Budget,
) -> Result<AbsGraph, AbstractionError> {
    let rounds = rounds(p, m, budget, 1, |_| (1, ()), None);
    Ok(rounds.map_err(|u| u.why)?.0)
}

/// [`explore_abstract`], stopping at the first round whose result `enough`
/// accepts (every round's result is sound; later rounds are only more
/// precise, and may take much longer). A first round that completes but is
/// not enough is tried once more with the same keys, widening only after
/// [`WIDEN_AFTER_RETRY`] growths, before any key is refined: widening may
/// be what lost the precision (the Java version of the 2019 challenge LTL
/// problem 5 joins modes whose intervals then widen to `[116, i32::MAX]`,
/// and a later guard splits there), while a refinement round keys on more
/// slots and may be far larger.
pub fn explore_abstract_until(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    mut enough: impl FnMut(&AbsGraph) -> bool,
) -> Result<AbsGraph, AbstractionError> {
    let judge = |g: &AbsGraph| (usize::from(!enough(g)), ());
    let rounds = rounds(p, m, budget, 1, judge, Some(WIDEN_AFTER_RETRY));
    Ok(rounds.map_err(|u| u.why)?.0)
}

/// [`explore_abstract_until`] for a caller that counts what a round leaves
/// open (`judge` says how much, say the labels it reaches on no path that
/// replays, and what else the caller learnt of the round, which comes back
/// with the round kept):
/// rounds go on until one leaves nothing open, a limit is hit or nothing
/// more can be refined, and the round that left the least open is returned
/// (the later one of equals). Every round is a sound abstraction, but a
/// later round is not always more precise on every question (it joins
/// differently), so the best one is kept rather than the last. The first
/// round is tried again widening after [`WIDEN_AFTER_SECOND`] growths.
///
/// Each abstract state's successors are computed on up to `threads`
/// threads (one input each in turn); the result is the same on any number.
pub fn explore_abstract_best<T>(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    threads: usize,
    judge: impl FnMut(&AbsGraph) -> (usize, T),
) -> Result<(AbsGraph, T), Unfinished> {
    rounds(p, m, budget, threads, judge, Some(WIDEN_AFTER_SECOND))
}

/// The rounds of [`explore_abstract_best`]. `retry`: a first round that
/// leaves something open is tried again with the same keys, widening after
/// that many growths; the refinement rounds after it widen as late only if
/// that left less open (widening later costs: every growth is one more
/// expansion).
fn rounds<T>(
    p: &Program,
    m: &Machine,
    budget: &Budget,
    threads: usize,
    mut judge: impl FnMut(&AbsGraph) -> (usize, T),
    retry: Option<u32>,
) -> Result<(AbsGraph, T), Unfinished> {
    let keys = cells(p, m);
    // Without a pool of its own (one thread, or none to be had), the
    // successors are computed on the calling thread.
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                // The step is interpreted by recursion on its nesting.
                .stack_size(crate::runtime::memory::deep_stack(threads))
                .build()
                .ok()
        })
        .flatten();
    let on = On {
        p,
        m,
        pool: pool.as_ref(),
    };
    let untargeted = keys
        .relevance
        .as_ref()
        .and_then(|r| r.without_pointer_targets());
    // With a second way to try, the first takes a third of the time: its
    // refined rounds may grow until the limit (2019 training reach
    // problem 13: its third round has not finished after 30 s, while the
    // second way settles in 12 s).
    let first = match untargeted {
        Some(_) => budget.share(1.0 / 3.0),
        None => budget.clone(),
    };
    let joined = rounds_of(&on, &first, &mut judge, retry, keys, true);
    let left_open = joined.as_ref().map_or(true, |(open, _, _)| *open > 0);
    let Some(relevance) = untargeted.filter(|_| left_open) else {
        return joined.map(|(_, g, learnt)| (g, learnt));
    };
    // Pointers were joined over their arrays, and something is left open:
    // keyed on every pointer's value, as if their arrays were not known,
    // the rounds join differently and may leave less (2019 training reach
    // problem 13: 13 labels against 16, of which only 4 the search finds).
    let mut untargeted = cells(p, m);
    untargeted.relevance = Some(relevance);
    let second = rounds_of(&on, budget, &mut judge, retry, untargeted, false);
    let kept = match (joined, second) {
        (Ok(joined), Ok(second)) if second.0 < joined.0 => second,
        (Ok(joined), _) => joined,
        (Err(_), Ok(second)) => second,
        (Err(why), Err(_)) => return Err(why),
    };
    Ok((kept.1, kept.2))
}

/// What the rounds of one call of [`rounds`] run on: the program, its
/// machine, and the threads to compute successors on (the calling thread
/// without a pool).
struct On<'a> {
    p: &'a Program,
    m: &'a Machine,
    pool: Option<&'a rayon::ThreadPool>,
}

/// The rounds of [`rounds`] from the keys `cells`, the step knowing the
/// pointers' arrays where `targets`: the round kept, with how much it
/// leaves open.
fn rounds_of<T>(
    on: &On,
    budget: &Budget,
    judge: &mut impl FnMut(&AbsGraph) -> (usize, T),
    mut retry: Option<u32>,
    mut cells: Cells,
    targets: bool,
) -> Result<(usize, AbsGraph, T), Unfinished> {
    let &On { p, m, pool } = on;
    let tracked = counter_writes(p, m, &cells.counter);
    // The round that left the least open so far, how much, and what the
    // caller learnt of it.
    let mut best: Option<(usize, AbsGraph, T)> = None;
    let keep = |round: (usize, AbsGraph, T), best: &mut Option<(usize, AbsGraph, T)>| {
        if best.as_ref().is_none_or(|(least, _, _)| round.0 <= *least) {
            *best = Some(round);
        }
    };
    let mut widen_after = WIDEN_AFTER;
    // Whether the round under way is the retry of the first one.
    let mut retrying = false;
    // Why the last round proved nothing, if it did not.
    let mut faulty: Option<String> = None;
    for _ in 0..MAX_ROUNDS {
        let mut step = AbstractStep::new(p, m)
            .with_congruences(cells.congruence.clone())
            .tracking(tracked.iter().copied());
        if !targets {
            step = step.without_pointer_targets();
        }
        // The first way to buy precision where a step may fault is to
        // widen later, which needs no fault site: such a round stops at
        // the first.
        let stop_at_fault = best.is_none() && widen_after == WIDEN_AFTER;
        let explored = explore_keyed(&cells, &step, m, budget, widen_after, pool, stop_at_fault);
        // A round proves nothing where the step could not be interpreted
        // (no graph), or where some abstract state may fault (its fault
        // sites say which slots to refine on).
        let round = match explored {
            Ok((g, liveness)) if g.faults.is_empty() => Ok((g, liveness)),
            Ok((g, liveness)) => {
                let f = &g.faults[0];
                let why = format!(
                    "{} (the step from abstract state {} on {})",
                    f.why, f.state, g.inputs[f.input as usize]
                );
                Err((why, Some((g, liveness))))
            }
            Err(RoundError::Limit(why, partial)) => {
                return best.ok_or(Unfinished {
                    why,
                    partial: Some(partial),
                })
            }
            Err(RoundError::Unsound(why)) => Err((why, None)),
        };
        let (g, liveness) = match round {
            Ok(round) => round,
            Err((why, graph)) => {
                // Precision is bought in steps: widening later (a widened
                // divisor may hold zero), then the keys refined on the
                // slots the fault sites read (kept in the states before, as
                // an error check's are), then every slot kept: joining the
                // slots relevance left out lost too much.
                faulty = Some(why.clone());
                if best.is_none() && widen_after == WIDEN_AFTER {
                    widen_after = WIDEN_AFTER_RETRY;
                    continue;
                }
                if let Some((g, liveness)) = &graph {
                    if cells.relevance.is_some() && refine(&mut cells, g, liveness) {
                        continue;
                    }
                }
                if best.is_none() && cells.relevance.is_some() {
                    cells.relevance = None;
                    widen_after = WIDEN_AFTER;
                    continue;
                }
                return best.ok_or(AbstractionError::Unsound(why).into());
            }
        };
        let (open, learnt) = judge(&g);
        if open == 0 {
            return Ok((0, g, learnt));
        }
        // The counters' classes narrowed to the steps this round ran cut
        // every later round, the retry too (2019 challenge reach P16: a
        // counter that starts at 1 and whose +1 never runs is odd, so it
        // never meets its guard `== -18`).
        let finer = finer_congruences(p, m, &mut cells, &step.fired());
        if let Some(later) = retry.take().filter(|&w| best.is_none() && w > widen_after) {
            widen_after = later;
            retrying = true;
            keep((open, g, learnt), &mut best);
            continue;
        }
        if std::mem::take(&mut retrying) && best.as_ref().is_some_and(|b| open >= b.0) {
            // Widening later did not help: it was not what lost precision.
            widen_after = WIDEN_AFTER;
        }
        let refined = cells.relevance.is_some() && refine(&mut cells, &g, &liveness);
        keep((open, g, learnt), &mut best);
        if !finer && !refined {
            break;
        }
    }
    match (best, faulty) {
        (Some(best), _) => Ok(best),
        (None, why) => {
            let why = why.unwrap_or_else(|| "no round completed".into());
            Err(AbstractionError::Unsound(why).into())
        }
    }
}

/// Narrows the counters' congruences to the steps that `fired` in a
/// complete abstraction (see [`congruences`]); returns whether any got
/// finer. Both the old and the new class hold in every reachable state and
/// both contain the initial value, so the finer of the two is kept.
fn finer_congruences(
    p: &Program,
    m: &Machine,
    cells: &mut Cells,
    fired: &FxHashSet<usize>,
) -> bool {
    let slot_of = |e: &Expr| state_slot(m, e);
    let new = congruences(p, m, &cells.counter, &slot_of, Some(fired));
    let mut finer = false;
    for (old, new) in cells.congruence.iter_mut().zip(new) {
        if new.is_some_and(|(n, _)| old.is_none_or(|(o, _)| n > o)) {
            *old = new;
            finer = true;
        }
    }
    finer
}

/// Learns, from one round's abstraction, the slots each state's future
/// reads before writing them (a backward fixpoint over its edges, from
/// what [`super::relevance::Relevance`] finds each step reads) and records those the state's
/// key left out, under the relevance keys of the states joined into it.
/// Returns whether anything was learnt.
fn refine(cells: &mut Cells, g: &AbsGraph, liveness: &Liveness) -> bool {
    let Some(r) = &cells.relevance else {
        return false;
    };
    let n = g.n_states();
    let width = cells.cuts.len();
    let mut live: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut l = r.relevant(&g.values[s]);
            let errors = &liveness.read_by_errors[s];
            for ((x, &e), &counter) in l.iter_mut().zip(errors).zip(&cells.counter) {
                *x = (*x || e) && !counter;
            }
            l
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (s, succ) in liveness.succ.iter().enumerate() {
        for (t, _) in succ {
            preds[*t as usize].push(s);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).collect();
    let mut queued = vec![true; n];
    while let Some(t) = queue.pop_front() {
        queued[t] = false;
        for &s in &preds[t] {
            let mut grew = false;
            for (t2, written) in &liveness.succ[s] {
                if *t2 as usize != t {
                    continue;
                }
                for k in 0..width {
                    if live[t][k] && !written[k] && !live[s][k] {
                        live[s][k] = true;
                        grew = true;
                    }
                }
            }
            if grew && !queued[s] {
                queued[s] = true;
                queue.push_back(s);
            }
        }
    }
    let mut learnt = false;
    cells.live_any.resize(width, false);
    for (s, l) in live.iter().enumerate() {
        let key = cells.key(&g.values[s]);
        if !(0..width).any(|k| l[k] && key[k] == IRRELEVANT) {
            continue;
        }
        for coarse in &liveness.origins[s] {
            let kept = cells
                .live
                .entry(coarse.clone())
                .or_insert_with(|| vec![false; width]);
            for k in 0..width {
                if l[k] && !kept[k] {
                    kept[k] = true;
                    cells.live_any[k] = true;
                    learnt = true;
                }
            }
        }
    }
    learnt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::bundled;

    #[test]
    fn refinement_keeps_a_slot_read_after_a_mode_change() {
        let (p, m) = bundled("reach-modes/Problem909.c");
        let limits = Budget::unlimited();
        // Keyed on the next step alone, mode 2 joins s = 0 and s = 9 into [0, 9], and
        // back in mode 1 error 0 (s == 7) looks reachable.
        let cells = cells(&p, &m);
        assert!(cells.relevance.is_some());
        let step = AbstractStep::new(&p, &m).with_congruences(cells.congruence.clone());
        let (first, _) =
            explore_keyed(&cells, &step, &m, &limits, WIDEN_AFTER, None, false).expect("explores");
        assert_eq!(first.error_labels(), [0, 1, 2]);
        // Refined: s is kept in mode 2, and only the reachable labels remain.
        let g = explore_abstract(&p, &m, &limits).expect("explores");
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn an_index_that_may_leave_its_array_is_refined_not_given_up() {
        let (p, m) = bundled("reach-index/Problem914.c");
        let limits = Budget::unlimited();
        let cells = cells(&p, &m);
        assert!(cells.relevance.is_some());
        // Keyed on the next step alone, mode 2 joins s = 0 and s = 9, and
        // back in mode 1 `arr[s - 2]` may be out of bounds: the round
        // completes with that fault site instead of giving up.
        let step = AbstractStep::new(&p, &m).with_congruences(cells.congruence.clone());
        let (first, _) =
            explore_keyed(&cells, &step, &m, &limits, WIDEN_AFTER, None, false).expect("explores");
        assert!(!first.faults.is_empty());
        assert!(
            first.faults.iter().all(|f| f.why.contains("out of bounds")),
            "{:?}",
            first.faults
        );
        // Refined on the slots the index reads, with relevance kept: no
        // fault site is left and only the reachable labels remain.
        let g = explore_abstract(&p, &m, &limits).expect("explores");
        assert!(g.faults.is_empty());
        assert!(
            g.cells.relevance.is_some(),
            "refined, not keyed on every slot"
        );
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn an_index_that_leaves_its_array_proves_nothing() {
        // Planted: rule E sets s to 1 and keeps k at 1, so after A E the
        // read `arr[s - 2]` is out of bounds on input 4 (arr[-1]).
        let path = format!(
            "{}/problems/reach-index/Problem914.c",
            env!("CARGO_MANIFEST_DIR")
        );
        let source = std::fs::read_to_string(path).expect("reads");
        let planted = source.replacen("s = 0;\n    \tk = 0;", "s = 1;\n    \tk = 1;", 1);
        assert_ne!(planted, source);
        let file = std::env::temp_dir().join(format!("rigor-oob-{}.c", std::process::id()));
        std::fs::write(&file, planted).expect("writes");
        let p = crate::frontend::load(&file.to_string_lossy()).expect("loads");
        let _ = std::fs::remove_file(&file);
        let m = Machine::compile(&p).expect("compiles");
        match explore_abstract(&p, &m, &Budget::unlimited()) {
            Err(AbstractionError::Unsound(why)) => assert!(why.contains("out of bounds"), "{why}"),
            other => panic!("the abstraction must prove nothing: {other:?}"),
        }
        // The engine agrees: A E D faults.
        use crate::system::{Fault, System};
        let mut state = m.initial_state();
        let mut next = state.clone();
        let mut scratch = m.scratch();
        let mut last = Ok(crate::system::Outcome::Silent);
        for input in [0, 4, 3] {
            last = m.step(&mut scratch, &state, input, &mut next);
            std::mem::swap(&mut state, &mut next);
        }
        assert_eq!(last, Err(Fault::IndexOutOfBounds));
    }

    #[test]
    fn the_round_that_leaves_the_least_open_is_kept() {
        let (p, m) = bundled("reach-modes/Problem909.c");
        let limits = Budget::unlimited();
        // Problem909 takes three rounds: the first, the same keys widened
        // later, and the refined keys. Scripted counts of what each leaves
        // open: the second round is the best, and it is what comes back.
        let mut sizes = Vec::new();
        let mut script = [3usize, 1, 2].into_iter();
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 2, |g| {
            sizes.push(g.error_labels());
            (script.next().unwrap_or(5), ())
        })
        .expect("explores");
        assert_eq!(sizes, [vec![0, 1, 2], vec![0, 1, 2], vec![1, 2]]);
        assert_eq!(
            g.error_labels(),
            [0, 1, 2],
            "the second round, not the last"
        );
        // A round that leaves nothing open ends the rounds at once.
        let mut rounds = 0;
        let (g, learnt) = explore_abstract_best(&p, &m, &limits, 2, |_| {
            rounds += 1;
            (0, rounds)
        })
        .expect("explores");
        assert_eq!((rounds, learnt), (1, 1));
        assert_eq!(g.error_labels(), [0, 1, 2]);
        // Counting the labels whose abstract path does not replay: the
        // refined round leaves none, and only the reachable labels remain.
        let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 2, judge).expect("explores");
        assert_eq!(g.error_labels(), [1, 2]);
    }

    #[test]
    fn rounds_that_join_pointers_and_leave_more_open_give_way() {
        let (p, m) = bundled("reach-joined-pointers/Problem913.c");
        let limits = Budget::unlimited();
        let sp = (m.layout().slot_names.iter())
            .position(|n| n == "p")
            .expect("p is a state slot");
        let joins = |g: &AbsGraph| g.values.iter().any(|v| v[sp].as_point().is_none());
        // Scripted: a round that joins p leaves one label open, one that
        // keeps it none. Problem913's first round joins p; after the rounds
        // that do, the rounds keyed on every pointer run, and theirs is
        // kept.
        let mut joined = Vec::new();
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 1, |g| {
            joined.push(joins(g));
            (usize::from(joins(g)), ())
        })
        .expect("explores");
        assert_eq!(joined.first(), Some(&true));
        assert_eq!(joined.last(), Some(&false));
        assert!(!joins(&g));
        // Where the rounds that join leave less, theirs is kept.
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 1, |g| (usize::from(!joins(g)), ()))
            .expect("explores");
        assert!(joins(&g));
        // Counting the labels whose abstract path does not replay, only
        // the reachable labels remain.
        let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
        let (g, ()) = explore_abstract_best(&p, &m, &limits, 1, judge).expect("explores");
        assert_eq!(g.error_labels(), [0, 1]);
    }

    #[test]
    fn the_abstraction_is_the_same_on_any_number_of_threads() {
        for problem in [
            "reach-modes/Problem909.c",
            "reach-arith/Problem902.c",
            "reach-invalid/Problem904.c",
        ] {
            let (p, m) = bundled(problem);
            let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
            let explored = |threads| {
                let r = explore_abstract_best(&p, &m, &Budget::unlimited(), threads, judge);
                let (g, ()) = r.expect("explores");
                (g.values, g.edges, g.expansions)
            };
            let one = explored(1);
            assert!(one.0.len() > 1, "{problem}");
            assert_eq!(one, explored(2), "{problem}");
            assert_eq!(one, explored(3), "{problem}");
        }
    }

    #[test]
    fn congruence_follows_the_steps_that_run() {
        // c steps by +2 and, where x == 9, by +1: syntactically nothing is
        // known. No run sets x to 9, so the +1 never runs and c is even:
        // error 0 (c == 7) is unreachable.
        let (p, m) = bundled("reach-pump/Problem910.c");
        let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
        let c = m.layout().slot_names.iter().position(|n| n == "c").unwrap();
        assert_eq!(g.cells.congruence[c], Some((2, 0)));
        assert_eq!(g.error_labels(), [1]);
    }

    #[test]
    fn the_retry_round_is_cut_by_the_congruences_the_first_learnt() {
        // The first round, with no congruence known, reaches error 0 (c ==
        // 7); it also learns that the +1 never ran. The round retried with
        // later widening is already cut by c's class: two rounds, not three.
        let (p, m) = bundled("reach-pump/Problem910.c");
        let mut rounds = 0;
        let judge = |g: &AbsGraph| {
            rounds += 1;
            (usize::from(g.error_labels().contains(&0)), ())
        };
        let (g, ()) = explore_abstract_best(&p, &m, &Budget::unlimited(), 1, judge).unwrap();
        assert_eq!(g.error_labels(), [1]);
        assert_eq!(rounds, 2);
    }
}
