//! The `rigor check-certificate` pipeline: a program and a certificate
//! file in, the independent checker's verdict out; and the checking of a
//! certificate's LTL claims on its regions' graph.

use std::time::Instant;

use super::InputError;
use crate::certificate::cycle::accepting_cycle;
use crate::certificate::{
    check, Certificate, CheckError, Checked, EdgeStep, InvariantCertificate, Obligation,
    SecondReading,
};
use crate::crosscheck::Initiation;
use crate::ir::Program;
use crate::ltl::syntax::parse_formula;
use crate::ltl::translate::{translate, Alphabet};

/// How long the certificate check may take in a run without a deadline.
pub const CHECK_WITHOUT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

/// Until when the certificate check may run: the run's deadline, else
/// [`CHECK_WITHOUT_DEADLINE`] from now (a check that does not finish leaves
/// its labels unknown rather than the run without an end).
pub fn check_deadline(budget: &crate::runtime::Budget) -> Option<std::time::Instant> {
    Some(
        budget
            .deadline
            .unwrap_or_else(|| std::time::Instant::now() + CHECK_WITHOUT_DEADLINE),
    )
}

/// The least time the second reading gets within a run (see
/// [`second_reading_deadline`]).
pub const SECOND_READING_FLOOR: std::time::Duration = std::time::Duration::from_secs(20);

/// How many times the first check's time the second reading gets within a
/// run, beyond [`SECOND_READING_FLOOR`].
pub const SECOND_READING_FACTOR: u32 = 20;

/// Until when the second reading of a certificate may run within a run
/// whose first check took `first` and ends at `deadline`: the larger of
/// [`SECOND_READING_FLOOR`] and [`SECOND_READING_FACTOR`] times `first`
/// from now, and never past `deadline`. The run's labels wait for it: a
/// reading that cannot decide within that time keeps them waiting for
/// nothing, since an undecided second reading leaves the first check's
/// verdicts standing (with a note). `rigor check-certificate` is not
/// bounded so.
pub fn second_reading_deadline(
    first: std::time::Duration,
    deadline: Option<std::time::Instant>,
) -> Option<std::time::Instant> {
    let own = std::time::Instant::now() + SECOND_READING_FLOOR.max(first * SECOND_READING_FACTOR);
    Some(deadline.map_or(own, |d| d.min(own)))
}

/// A certificate check running on a thread of its own, beside the rest of
/// a run.
pub struct PendingCheck<T>(std::thread::JoinHandle<Result<T, CheckError>>);

/// How often a run waiting for its check looks whether it was cancelled.
const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(20);

impl<T: Send + 'static> PendingCheck<T> {
    /// Starts `check` (which owns what it checks) on its own thread.
    pub fn start(check: impl FnOnce() -> Result<T, CheckError> + Send + 'static) -> Self {
        PendingCheck(std::thread::spawn(check))
    }

    /// The check's outcome. If `budget` is cancelled first, the check
    /// still has [`crate::runtime::INTERRUPT_GRACE`] to end (its labels are
    /// proved already but for the check), then [`CheckError::Interrupted`]:
    /// an interrupted run does not wait longer for a solver, the thread is
    /// left to end with the process.
    pub fn wait(self, budget: &crate::runtime::Budget) -> Result<T, CheckError> {
        self.wait_with_grace(budget, crate::runtime::INTERRUPT_GRACE)
    }

    /// [`PendingCheck::wait`], with `grace` after a cancel.
    fn wait_with_grace(
        self,
        budget: &crate::runtime::Budget,
        grace: std::time::Duration,
    ) -> Result<T, CheckError> {
        let cancelled = || (budget.cancel.as_ref()).is_some_and(|c| c.is_cancelled());
        // The rest of the run, once it is cancelled.
        let mut last = None;
        while !self.0.is_finished() {
            if last.is_none() && cancelled() {
                last = Some(budget.after_cancel(grace));
            }
            if last
                .as_ref()
                .is_some_and(|b| b.remaining().is_some_and(|r| r.is_zero()))
            {
                return Err(CheckError::Interrupted);
            }
            std::thread::sleep(CANCEL_POLL);
        }
        self.0.join().unwrap_or(Err(CheckError::Stopped))
    }
}

/// Reads the program at `program` and the certificate at `file` (regions,
/// or an inductive invariant) and checks the certificate, giving up at
/// `deadline`.
pub fn solve(
    program: &str,
    file: &str,
    deadline: Option<Instant>,
) -> Result<Result<Checked, CheckError>, InputError> {
    let p = crate::frontend::load(program)?;
    let text = crate::source::read_text(file)?;
    if InvariantCertificate::is_invariant_text(&text) {
        let cert = InvariantCertificate::parse(&text, file)?;
        let checked = crate::certificate::check_invariant(&p, &cert, deadline);
        return Ok(checked.and_then(|checked| {
            second_reading_of_invariant(program, &cert, checked, deadline, true)
        }));
    }
    let cert = Certificate::parse(&text, file)?;
    let invalid_continues = crate::ltl::check::invalid_continues(p.step_return);
    Ok(
        check_all(&p, &cert, invalid_continues, deadline).and_then(|checked| {
            second_reading(
                program,
                &cert,
                checked,
                Initiation::Required,
                deadline,
                true,
            )
        }),
    )
}

/// Whether certificates about the program at `path` get the second,
/// independent reading ([`crate::crosscheck`]): C and Java programs.
pub fn has_second_reading(path: &str) -> bool {
    path.ends_with(".c") || path.ends_with(".java")
}

/// `checked`, with what the second, independent reading of the program
/// at `path` ([`crate::crosscheck`]) says of the certificate's regions
/// (where it has a reading of the program: [`has_second_reading`]), with
/// or without `initiation` as the first check had it. A rejection is an
/// error; so is an undecided reading where `strict`, else it is told in
/// [`Checked::second_reading`].
pub fn second_reading(
    path: &str,
    c: &Certificate,
    checked: Checked,
    initiation: Initiation,
    deadline: Option<Instant>,
    strict: bool,
) -> Result<Checked, CheckError> {
    if !has_second_reading(path) {
        return Ok(checked);
    }
    let read = crate::crosscheck::check_regions(path, c, initiation, deadline);
    with_second_reading(checked, read, strict)
}

/// `checked`, with what the second, independent reading of the program
/// at `path` says of the invariant certificate `c` (where it has a
/// reading of the program), as [`second_reading`] tells it.
pub fn second_reading_of_invariant(
    path: &str,
    c: &InvariantCertificate,
    checked: Checked,
    deadline: Option<Instant>,
    strict: bool,
) -> Result<Checked, CheckError> {
    if !has_second_reading(path) {
        return Ok(checked);
    }
    let read = crate::crosscheck::check_invariant(path, c, deadline);
    with_second_reading(checked, read, strict)
}

/// `checked` with the second reading's outcome `read`: a rejection is an
/// error, so is an undecided reading where `strict`, else it is told.
fn with_second_reading(
    mut checked: Checked,
    read: Result<crate::crosscheck::Accepted, crate::crosscheck::CrossError>,
    strict: bool,
) -> Result<Checked, CheckError> {
    match read {
        Ok(second) => {
            checked.obligations += second.obligations;
            checked.seconds += second.seconds;
            checked.second_reading = SecondReading::Accepted {
                seconds: second.seconds,
            };
        }
        Err(e @ crate::crosscheck::CrossError::Rejected { .. }) => {
            return Err(CheckError::SecondReadingRejects(e.to_string()))
        }
        Err(e) if strict => return Err(CheckError::SecondReadingUndecided(e.to_string())),
        Err(e) => checked.second_reading = SecondReading::Undecided { why: e.to_string() },
    }
    Ok(checked)
}

/// What a report says of the second reading of a certificate: the seconds it took to accept it, or the note that it did
/// not decide and that `what` (its labels, its properties) rest on the
/// first check.
pub fn second_reading_outcome(r: &SecondReading, what: &str) -> (Option<f64>, Option<String>) {
    match r {
        SecondReading::Accepted { seconds } => (Some(*seconds), None),
        SecondReading::Undecided { why } => (
            None,
            Some(format!(
                "the second, independent reading of the program did not decide the \
                 certificate of {what} ({why}); they rest on the first check"
            )),
        ),
        SecondReading::NotRun => (None, None),
    }
}

/// Checks every claim of `c` on `p`: the obligations of the invariant and
/// its edges ([`crate::certificate::check`]), then each LTL claim on the
/// regions' graph, whose runs include the program's (an invalid input goes
/// on with the run where `invalid_continues`).
///
/// The LTL claims are translated to automata by rigor's translator, the
/// one part the checker shares with the engine's LTL checker; the product
/// and its cycles are the checker's own ([`crate::certificate::cycle`]).
pub fn check_all(
    p: &Program,
    c: &Certificate,
    invalid_continues: bool,
    deadline: Option<Instant>,
) -> Result<Checked, CheckError> {
    let (checked, claims) = check_claims(p, c, invalid_continues, deadline)?;
    claims
        .into_iter()
        .find_map(Result::err)
        .map_or(Ok(checked), Err)
}

/// As [`check_all`], but each LTL claim on its own: the error of the
/// invariant's obligations (which every claim needs), else the outcome of
/// each claim, in order.
pub fn check_claims(
    p: &Program,
    c: &Certificate,
    invalid_continues: bool,
    deadline: Option<Instant>,
) -> Result<(Checked, Vec<Result<(), CheckError>>), CheckError> {
    let mut checked = check(p, c, deadline)?;
    let start = Instant::now();
    let inputs: Vec<String> = p.inputs.iter().map(|s| s.name.clone()).collect();
    let outputs: Vec<String> = p.outputs.iter().map(|s| s.name.clone()).collect();
    let alpha = Alphabet::of_program(&inputs, &outputs);
    let letter = |names: &[String], name: &str| names.iter().position(|n| n == name);
    // Per region: the letters of each edge (input, then the output if
    // any) and its target. Checked names (the obligations passed).
    let mut steps: Vec<Vec<(usize, Option<usize>, u64)>> = Vec::new();
    for r in &c.regions {
        let mut of_region = Vec::new();
        for e in &r.edges {
            let (Some(i), target) = (letter(&inputs, &e.input), e.target as u64) else {
                return Err(CheckError::NoSymbol(format!("i{}", e.input)));
            };
            match &e.step {
                EdgeStep::Output(o) => match letter(&outputs, o) {
                    Some(k) => of_region.push((i, Some(inputs.len() + k), target)),
                    None => return Err(CheckError::NoSymbol(format!("o{o}"))),
                },
                EdgeStep::Silent => of_region.push((i, None, target)),
                EdgeStep::Invalid if invalid_continues => of_region.push((i, None, target)),
                // Checked to leave the state as it was: the run ends.
                EdgeStep::Invalid | EdgeStep::Unchanged => {}
            }
        }
        steps.push(of_region);
    }
    let claim = |k: usize, text: &String| -> Result<(), CheckError> {
        let bad = |why: String| CheckError::BadFormula {
            text: text.clone(),
            why,
        };
        let f = parse_formula(text).map_err(|e| bad(e.to_string()))?;
        let tgba = translate(&f.negated(), &alpha).map_err(|e| bad(e.to_string()))?;
        let pack = |region: u64, q: u32| (region << 32) | q as u64;
        let initial: Vec<u64> = (checked.initial.iter())
            .flat_map(|&r| tgba.initial.iter().map(move |&q| pack(r as u64, q)))
            .collect();
        let mut succ = |x: u64, out: &mut Vec<(u64, u32)>| {
            let (r, q) = ((x >> 32) as usize, x as u32);
            for &(i, o, target) in &steps[r] {
                for &(q1, m1) in tgba.succ(q, i) {
                    match o {
                        None => out.push((pack(target, q1), m1)),
                        Some(o) => out.extend(
                            (tgba.succ(q1, o).iter()).map(|&(q2, m2)| (pack(target, q2), m1 | m2)),
                        ),
                    }
                }
            }
        };
        if let Some(cycle) = accepting_cycle(&initial, &mut succ, tgba.all_acc()) {
            let mut regions: Vec<u64> = cycle.iter().map(|x| x >> 32).collect();
            regions.sort_unstable();
            regions.dedup();
            regions.truncate(8);
            return Err(CheckError::Fails {
                obligation: Obligation::Property(k),
                detail: format!(
                    "`{text}`: the regions' graph has a run that violates it, \
                     cycling through regions {regions:?}"
                ),
                counterexample: None,
            });
        }
        Ok(())
    };
    let claims: Vec<Result<(), CheckError>> = (c.holds.iter().enumerate())
        .map(|(k, text)| claim(k, text))
        .collect();
    checked.obligations += claims.len();
    checked.seconds += start.elapsed().as_secs_f64();
    Ok((checked, claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Budget;
    use std::time::Duration;

    #[test]
    fn an_interrupted_run_waits_for_its_check_only_within_the_grace() {
        let (budget, interrupt) = Budget::unlimited().cancellable();
        interrupt.cancel();
        let quick = PendingCheck::start(|| {
            std::thread::sleep(Duration::from_millis(50));
            Ok(7)
        });
        let grace = Duration::from_secs(600);
        assert_eq!(quick.wait_with_grace(&budget, grace).ok(), Some(7));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let endless = PendingCheck::start(move || {
            let _ = rx.recv();
            Ok(0)
        });
        let waited = endless.wait_with_grace(&budget, Duration::ZERO);
        assert!(matches!(waited, Err(CheckError::Interrupted)));
        drop(tx);
    }

    #[test]
    fn the_second_reading_gets_a_share_of_the_run_and_never_more() {
        let now = std::time::Instant::now();
        let far = now + Duration::from_secs(3600);
        let left = |d: Option<std::time::Instant>| d.expect("a deadline").duration_since(now);
        let floor = left(second_reading_deadline(
            Duration::from_millis(10),
            Some(far),
        ));
        assert!(floor >= SECOND_READING_FLOOR && floor < SECOND_READING_FLOOR * 2);
        let scaled = left(second_reading_deadline(Duration::from_secs(5), Some(far)));
        assert!(scaled >= Duration::from_secs(100) && scaled < Duration::from_secs(110));
        let near = now + Duration::from_secs(3);
        assert_eq!(
            second_reading_deadline(Duration::from_secs(5), Some(near)),
            Some(near)
        );
        assert!(second_reading_deadline(Duration::ZERO, None).is_some());
    }
}
