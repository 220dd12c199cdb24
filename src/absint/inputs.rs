//! One abstract step for many inputs at once.
//!
//! Most of a RERS step does not look at the input: the guards of
//! `calculateOutput` test the mode variables, `errorCheck` tests the state,
//! and only the innermost rules compare the input with a symbol. Stepping
//! each input apart evaluates all of that once per input (91 times per
//! abstract state on the 2019 industrial data-structure problems). Here a
//! run carries the set of inputs it stands for; a comparison of the input
//! with a value splits the set, nothing else does, so the work per abstract
//! state follows the rules that can fire there rather than the size of the
//! alphabet.
//!
//! Exactness: a run's input locals hold the hull of its set's values, and
//! a comparison of an input local narrows the set itself. Where the
//! program uses the input otherwise (arithmetic, an output, an index:
//! `InputUse::Other`), the runs are split into one input each before
//! the step, which is then the step of each input apart.

use super::analysis::InputUse;
use super::interval::Interval;
use super::run::{FaultSite, InputSet, Path, Run, SharedStep};
use super::step::{AbsState, AbstractStep, Unsound};
use crate::ir::{BinOp, Expr};

impl AbstractStep<'_> {
    /// [`AbstractStep::step_written`], with the runs that may fault ended
    /// apart, at their fault sites: every concrete step from `state` that
    /// does not fault is covered by one of the runs.
    pub fn step_or_faults(
        &self,
        state: &AbsState,
        input: usize,
    ) -> Result<(Vec<Run>, Vec<FaultSite>), Unsound> {
        let mut one = InputSet::with_capacity(self.program.inputs.len());
        one.insert(input);
        let (runs, faults) = self.step_shared(state, &one)?;
        let mut sites: Vec<FaultSite> = Vec::new();
        for (_, site) in faults {
            if !sites.contains(&site) {
                sites.push(site);
            }
        }
        Ok((runs.into_iter().map(|(_, r)| r).collect(), sites))
    }

    /// The hull of the values of the inputs in `set`.
    pub(super) fn input_hull(&self, set: &InputSet) -> Interval {
        let mut values = set.ones().map(|i| self.program.inputs[i].value);
        let first = values.next().map_or(Interval::TOP, Interval::point);
        values.fold(first, |h, v| h.join(Interval::point(v)))
    }

    /// Sets the locals of `path` that hold the input to its set's hull.
    pub(super) fn sync_input_locals(&self, path: &mut Path) {
        if path.input_locals == 0 {
            return;
        }
        let hull = self.input_hull(&path.inputs);
        for (k, l) in path.locals.iter_mut().enumerate().take(64) {
            if path.input_locals & (1 << k) != 0 {
                *l = hull;
            }
        }
    }

    /// Where `side` is a local holding the input: narrows the run's
    /// inputs to those whose value `op` relates to `other`, and says
    /// whether any is left (`None` where `side` is not the input).
    pub(super) fn narrow_inputs(
        &self,
        path: &mut Path,
        side: &Expr,
        op: BinOp,
        other: Interval,
    ) -> Option<bool> {
        let Expr::Local(l) = side else {
            return None;
        };
        if l.0 >= 64 || path.input_locals & (1 << l.0) == 0 {
            return None;
        }
        let inputs = &self.program.inputs;
        let keep: InputSet = (path.inputs.ones())
            .filter(|&i| {
                Interval::binop(op, Interval::point(inputs[i].value), other)
                    .0
                    .may_be_true()
            })
            .collect();
        if keep.is_clear() {
            return Some(false);
        }
        let mut keep = keep;
        keep.grow(path.inputs.len());
        path.inputs = keep;
        self.sync_input_locals(path);
        Some(true)
    }

    /// Every way one step from `state` may end on the inputs of `inputs`,
    /// each run with the inputs it stands for; the runs that may fault
    /// ended apart at their fault sites. Where the program uses its input
    /// other than by comparing it ([`InputUse::Other`]), each input is
    /// stepped apart.
    pub(super) fn step_inputs(
        &self,
        state: &AbsState,
        inputs: &InputSet,
    ) -> Result<SharedStep, Unsound> {
        if self.input_use == InputUse::Other && inputs.count_ones(..) > 1 {
            let (mut runs, mut faults) = (Vec::new(), Vec::new());
            for i in inputs.ones() {
                let mut one = InputSet::with_capacity(inputs.len());
                one.insert(i);
                let (r, f) = self.step_shared(state, &one)?;
                runs.extend(r);
                faults.extend(f);
            }
            return Ok((runs, faults));
        }
        self.step_shared(state, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::absint::{bundled, explore_abstract, BUNDLED};
    use crate::runtime::Budget;

    /// Every run of each input stepped alone is covered by a run of the
    /// shared step that stands for that input: same outcome, every slot's
    /// interval inside. And the shared step keeps the precision: each of
    /// its runs is covered by the runs of each of its inputs alone joined.
    #[test]
    fn the_shared_step_is_the_step_of_each_input() {
        for rel in BUNDLED {
            let (p, m) = bundled(rel);
            let step = AbstractStep::new(&p, &m);
            let states = match explore_abstract(&p, &m, &Budget::unlimited()) {
                Ok(g) => g.values,
                Err(_) => vec![step.initial(&m)],
            };
            let n = p.inputs.len();
            let mut checked = 0;
            let mut all = InputSet::with_capacity(n);
            all.insert_range(..);
            for state in states.iter().take(200) {
                let Ok((shared, _)) = step.step_inputs(state, &all) else {
                    continue;
                };
                for i in 0..n {
                    let (alone, _) = step.step_or_faults(state, i).expect("one input steps");
                    let mine: Vec<&Run> = shared
                        .iter()
                        .filter(|(s, _)| s.contains(i))
                        .map(|(_, r)| r)
                        .collect();
                    for r in &alone {
                        let covered = mine.iter().any(|q| {
                            q.outcome == r.outcome
                                && q.post.iter().zip(&r.post).all(|(a, b)| a.join(*b) == *a)
                        });
                        assert!(covered, "{rel}: input {i}: {:?} not covered", r.outcome);
                        checked += 1;
                    }
                    for q in &mine {
                        let same: Vec<&Run> =
                            alone.iter().filter(|r| r.outcome == q.outcome).collect();
                        let within = (0..q.post.len()).all(|k| {
                            let hull = same.iter().map(|r| r.post[k]).reduce(|a, b| a.join(b));
                            hull.is_some_and(|h| h.join(q.post[k]) == h)
                        });
                        assert!(within, "{rel}: input {i}: a shared run is coarser");
                    }
                }
            }
            assert!(checked >= n, "{rel}: only {checked} runs compared");
        }
    }
}
