//! The invariant engine ([`crate::horn`]) beside the search of `rigor
//! reach`: it looks for inductive invariants for the labels the interval
//! abstraction does not claim, each one checked on its own
//! ([`crate::certificate::check_invariant`]) before it counts.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::reach_report::{Evidence, LabelVerdict, ReachReport, VerdictSink};
use crate::certificate::{check_invariant, CheckError, Checked, InvariantCertificate};
use crate::horn::{Prover, WorkerCommand};
use crate::ir::Program;
use crate::runtime::{Budget, Cancel};

/// What the invariant engine settled: the certificates the checker
/// accepted, and notes for the report.
#[derive(Default)]
pub struct InvariantsFound {
    /// Accepted certificates.
    pub accepted: Vec<InvariantCertificate>,
    /// Why the others did not count.
    pub notes: Vec<String>,
}

/// How long the end of a run waits for the engine to stop: z3 does not
/// always notice an interruption at once (Spacer on 2019 challenge P16 ran
/// on for up to 30 s), and a run does not outlive its limits for it.
const GRACE: Duration = Duration::from_secs(2);

/// The invariant engine running on its own thread.
pub struct PendingInvariants {
    stop: Arc<AtomicBool>,
    /// What it settled so far.
    settled: Arc<Mutex<InvariantsFound>>,
    /// Closed when the thread ends.
    done: Receiver<()>,
}

impl PendingInvariants {
    /// Starts the engine on `open` (labels neither claimed nor found yet),
    /// skipping those that enter `found` meanwhile. Each label an accepted
    /// invariant proves unreachable is told to `sink` at once; once every
    /// label of `open` is found or proved, `search` is raised: the search
    /// has nothing left to look for. With `defer`, the engine steps back
    /// as the search does while the abstraction's certificate is checked
    /// (`runtime::priority`): that check settles every label it claims at
    /// once. `path` is the program's file, which the second reading of
    /// each invariant reads ([`both_readings`]); with `worker` (how to
    /// start one), each query runs in a worker process
    /// ([`crate::horn::Prover::Worker`]).
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        p: &Arc<Program>,
        open: Vec<u32>,
        budget: &Budget,
        found: Arc<Mutex<BTreeSet<u32>>>,
        sink: Option<VerdictSink>,
        search: Cancel,
        defer: bool,
        path: &str,
        worker: Option<WorkerCommand>,
    ) -> PendingInvariants {
        let stop = Arc::new(AtomicBool::new(false));
        let settled = Arc::new(Mutex::new(InvariantsFound::default()));
        let (p, budget) = (Arc::clone(p), budget.clone());
        let (halt, out) = (stop.clone(), settled.clone());
        let (send, done) = channel();
        let path = path.to_string();
        std::thread::spawn(move || {
            if defer {
                crate::runtime::priority::defer_this_thread();
            }
            run(
                &p,
                &open,
                &budget,
                &halt,
                &found,
                sink.as_ref(),
                &out,
                &search,
                &path,
                worker.as_ref(),
            );
            drop(send);
        });
        PendingInvariants {
            stop,
            settled,
            done,
        }
    }

    /// Stops the engine (the search is over) and applies what it proved to
    /// `r`. A label with a replayed witness keeps it: an invariant that
    /// contradicts one is reported and counts for nothing.
    pub fn finish(self, r: &mut ReachReport) {
        self.stop.store(true, Ordering::Release);
        if let Err(RecvTimeoutError::Timeout) = self.done.recv_timeout(GRACE) {
            r.notes
                .push("the invariant engine did not stop in time".into());
        }
        let found = match self.settled.lock() {
            Ok(mut f) => std::mem::take(&mut *f),
            Err(_) => {
                r.notes
                    .push("the invariant engine stopped unexpectedly".into());
                return;
            }
        };
        r.notes.extend(found.notes);
        for c in &found.accepted {
            let contradicted = (r.verdicts.iter())
                .any(|v| c.unreachable.contains(&v.property) && v.verdict == Some(true));
            if contradicted {
                r.notes.push(format!(
                    "internal: an accepted invariant for label(s) {:?} contradicts a \
                     replayed witness; it is ignored",
                    c.unreachable
                ));
                continue;
            }
            for v in &mut r.verdicts {
                if c.unreachable.contains(&v.property) && v.verdict.is_none() {
                    *v = proved(v.property);
                }
            }
        }
        r.invariants = found.accepted;
    }
}

/// The engine's work: invariants for `open`, each checked, the accepted
/// ones put in `out` (and their labels told to `sink`) as they come;
/// `search` raised once every label of `open` is found or proved.
#[allow(clippy::too_many_arguments)]
fn run(
    p: &Program,
    open: &[u32],
    budget: &Budget,
    stop: &AtomicBool,
    found: &Mutex<BTreeSet<u32>>,
    sink: Option<&VerdictSink>,
    out: &Mutex<InvariantsFound>,
    search: &Cancel,
    path: &str,
    worker: Option<&WorkerCommand>,
) {
    let mut settled = BTreeSet::new();
    let note = |n: String| {
        if let Ok(mut o) = out.lock() {
            o.notes.push(n);
        }
    };
    let accept = |c: InvariantCertificate| match both_readings(p, path, &c, budget.deadline) {
        Ok(checked) => {
            let what = format!("label(s) {:?}", c.unreachable);
            note_second_reading(&checked, &what, &note);
            for &label in &c.unreachable {
                if let Some(tell) = sink {
                    tell(&proved(label));
                }
            }
            settled.extend(c.unreachable.iter().copied());
            if let Ok(mut o) = out.lock() {
                o.accepted.push(c);
            }
            let found = found.lock().map(|f| f.clone()).unwrap_or_default();
            if open
                .iter()
                .all(|l| settled.contains(l) || found.contains(l))
            {
                search.cancel();
            }
        }
        Err(e) => note(format!(
            "an invariant for label(s) {:?} was not accepted ({e}); they stay unknown",
            c.unreachable
        )),
    };
    let prover = match worker {
        Some(cmd) => Prover::Worker { cmd, source: path },
        None => Prover::InThread,
    };
    if let Err(e) = crate::horn::prove_labels(p, open, budget, stop, found, accept, prover) {
        note(format!("the invariant engine cannot encode the step: {e}"));
    }
}

/// Checks the invariant `c` on the program `p` read from `path`: the
/// first check, then the second, independent reading of the file
/// ([`crate::crosscheck`]) within a share of the time
/// ([`super::certify::second_reading_deadline`]). A rejection by either is
/// an error; an undecided second reading leaves the first check's
/// acceptance, and says so in [`Checked::second_reading`].
pub fn both_readings(
    p: &Program,
    path: &str,
    c: &InvariantCertificate,
    deadline: Option<Instant>,
) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let checked = check_invariant(p, c, deadline)?;
    let second = super::certify::second_reading_deadline(start.elapsed(), deadline);
    super::certify::second_reading_of_invariant(path, c, checked, second, false)
}

/// Tells `note` where the second reading did not decide.
fn note_second_reading(checked: &Checked, what: &str, note: &impl Fn(String)) {
    let (_, undecided) = super::certify::second_reading_outcome(&checked.second_reading, what);
    if let Some(n) = undecided {
        note(n);
    }
}

/// The verdict of a label an accepted invariant proves unreachable.
fn proved(label: u32) -> LabelVerdict {
    LabelVerdict {
        property: label,
        verdict: Some(false),
        witness: None,
        engine: Some(Evidence::Invariant),
        certified: Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::SecondReading;

    /// `x` counts inputs 1 up to 5 and starts over; label 3 needs `x == 9`.
    const COUNTER: &str = "extern void __VERIFIER_error(int);\n\
        int x = 0;\n\
        void calculate_output(int input) {\n\
          if (input == 1) { x = x + 1; if (x > 5) { x = 0; } }\n\
          if (input == 2 && x == 9) { __VERIFIER_error(3); }\n\
        }\n\
        int main() { int input; while (1) { scanf(\"%d\", &input); calculate_output(input); } }\n";

    /// An invariant right for the program the first check read is accepted
    /// by both readings of its file, and rejected by the second reading of
    /// a file where one rule differs (what a misreading front end would
    /// have proved).
    #[test]
    fn invariants_get_the_second_reading() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("Problem1.c");
        std::fs::write(&path, COUNTER).expect("written");
        let path = path.to_str().expect("utf-8");
        let p = crate::frontend::load(path).expect("loads");
        let c = InvariantCertificate {
            unreachable: vec![3],
            formula: "(and (bvsge |pre.x| #x00000000) (bvsle |pre.x| #x00000005))".into(),
        };
        let both = both_readings(&p, path, &c, None).expect("accepted");
        assert!(matches!(
            both.second_reading,
            SecondReading::Accepted { .. }
        ));
        std::fs::write(path, COUNTER.replace("x > 5", "x > 6")).expect("written");
        let got = both_readings(&p, path, &c, None);
        assert!(
            matches!(got, Err(CheckError::SecondReadingRejects(_))),
            "{got:?}"
        );
    }
}
