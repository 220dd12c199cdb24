//! One run through the abstract step (`step`): what it holds
//! while it runs (values, status, writes), joining runs, and what a
//! finished run tells its caller.

use super::interval::Interval;
use crate::system::Outcome;

/// A set of inputs, by number in the program's input alphabet.
pub type InputSet = fixedbitset::FixedBitSet;

/// The runs of a step on a set of inputs, each with the inputs it stands
/// for, and the fault sites met, each with its inputs.
pub type SharedStep = (Vec<(InputSet, Run)>, Vec<(InputSet, FaultSite)>);

/// Where an abstract run may fault ([`super::bounds`]): why, and the state slots the faulting
/// index reads (the refinement keeps them in the keys of the states before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultSite {
    /// What may go wrong, located.
    pub why: String,
    /// The state slots the index reads.
    pub reads: Vec<usize>,
}

/// Where a run stands.
#[derive(Clone, Debug)]
pub(super) enum Status {
    Running,
    Returned,
    Ended(Outcome),
    /// Ended where an index may be out of bounds: a candidate fault, not
    /// a step of the abstraction ([`super::bounds`]).
    Faulted(Box<FaultSite>),
}

/// A run under way: the values of the state, the engine's other globals
/// and the locals, and what it did so far.
#[derive(Clone, Debug)]
pub(super) struct Path {
    /// The inputs this run stands for ([`super::inputs`]).
    pub(super) inputs: InputSet,
    /// The locals (below 64) that hold the input as it was given: their
    /// value is the hull of `inputs`' values.
    pub(super) input_locals: u64,
    pub(super) mem: Vec<Interval>,
    pub(super) temps: Vec<Interval>,
    pub(super) locals: Vec<Interval>,
    pub(super) output: Option<u16>,
    pub(super) status: Status,
    /// Per state slot: whether this run has overwritten it.
    pub(super) written: Vec<bool>,
    /// Whether this run may have stored into any global, of the state or
    /// not (a weak update, or a run joined in, included).
    pub(super) touched: bool,
    /// The value the function being run returned (calls in expressions).
    pub(super) ret: Option<Interval>,
}

/// One way a step may end (`AbstractStep::step_written`).
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ends.
    pub outcome: Outcome,
    /// The state after it.
    pub post: Vec<Interval>,
    /// Per state slot: whether every run joined into this one overwrote it
    /// (a write through an index that may name several slots does not
    /// count).
    pub written: Vec<bool>,
    /// Whether it may have stored into some global (of the state, or one
    /// the engine keeps apart); when not, every global after it has the
    /// value it had before.
    pub touched: bool,
}

/// `paths` with the running ones of the same output and the same inputs
/// joined into one (the interval hull of every variable; a slot counts as
/// overwritten only if every joined run overwrote it). The runs that ended
/// stay as they are.
pub(super) fn merge_running(paths: Vec<Path>) -> Vec<Path> {
    let mut out: Vec<Path> = Vec::with_capacity(paths.len());
    let mut running_of: Vec<(Option<u16>, usize)> = Vec::new();
    for p in paths {
        if !matches!(p.status, Status::Running) {
            out.push(p);
            continue;
        }
        let same = |&&(o, i): &&(Option<u16>, usize)| o == p.output && out[i].inputs == p.inputs;
        match running_of.iter().find(same) {
            Some(&(_, i)) => out[i].absorb(&p),
            None => {
                running_of.push((p.output, out.len()));
                out.push(p);
            }
        }
    }
    out
}

/// How many runs each input of `paths` has, on average over the inputs
/// some run stands for: the number of runs where each stands for one.
pub(super) fn runs_per_input(paths: &[Path]) -> usize {
    let mut alive = InputSet::new();
    let mut runs = 0;
    for p in paths {
        alive.union_with(&p.inputs);
        runs += p.inputs.count_ones(..);
    }
    runs / alive.count_ones(..).max(1)
}

impl Path {
    /// Joins `other` into this run: every value either may have.
    fn absorb(&mut self, other: &Path) {
        let hull = |a: &mut Vec<Interval>, b: &Vec<Interval>| {
            for (x, y) in a.iter_mut().zip(b) {
                *x = x.join(*y);
            }
        };
        hull(&mut self.mem, &other.mem);
        hull(&mut self.temps, &other.temps);
        hull(&mut self.locals, &other.locals);
        for (w, o) in self.written.iter_mut().zip(&other.written) {
            *w &= *o;
        }
        self.touched |= other.touched;
        self.input_locals &= other.input_locals;
        self.ret = match (self.ret, other.ret) {
            (Some(a), Some(b)) => Some(a.join(b)),
            (a, b) => a.or(b),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(inputs: &[usize]) -> Path {
        let mut set = InputSet::with_capacity(8);
        inputs.iter().for_each(|&i| set.insert(i));
        Path {
            inputs: set,
            input_locals: 0,
            mem: Vec::new(),
            temps: Vec::new(),
            locals: Vec::new(),
            output: None,
            status: Status::Running,
            written: Vec::new(),
            touched: false,
            ret: None,
        }
    }

    #[test]
    fn runs_are_counted_per_input() {
        // One input: every run counts.
        assert_eq!(
            runs_per_input(&[run_of(&[3]), run_of(&[3]), run_of(&[3])]),
            3
        );
        // Four inputs in one run, and one of them in two more: 6 / 4.
        let runs = [run_of(&[0, 1, 2, 3]), run_of(&[1]), run_of(&[1])];
        assert_eq!(runs_per_input(&runs), 1);
        assert_eq!(runs_per_input(&[]), 0);
    }
}
