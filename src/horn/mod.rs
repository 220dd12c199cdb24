//! The invariant engine: error labels proved unreachable by an inductive
//! invariant that z3's Spacer (IC3/PDR over constrained Horn clauses)
//! finds on the step's bit-vector encoding.
//!
//! The program is stated as three Horn clauses over one unknown relation
//! `inv` on the frame's variables ([`crate::smt::Frame`]): the initial
//! state is in `inv`; a step that goes on from a state in `inv` ends in
//! `inv`; no state in `inv` steps to a wanted label or a fault. When
//! Spacer finds such an `inv`, its interpretation is the invariant; it is
//! written as an [`InvariantCertificate`] and counts only once
//! [`crate::certificate::check_invariant`] accepts it. This engine needs no
//! abstract domain and no program shape: it is the prover for what the
//! interval abstraction ([`crate::absint`]) does not settle.
//!
//! Measured on the shared problems (z3 4.8.12, 32-bit vectors): all 76
//! unreachable labels of 2019 training P11 in one query of 18 s, single
//! labels of 2019 challenge P14 in about 7 s; nothing on P16 or P18 within
//! minutes. [`prove_labels`] therefore asks for every open label at once
//! first, then label by label, with slices of the time left.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use z3::ast::{Ast, Bool, BV};
use z3::{Context, FuncDecl, SatResult, Sort};

use crate::certificate::InvariantCertificate;
use crate::ir::Program;
use crate::runtime::{resident_bytes, total_memory, Budget};
use crate::smt::{EncodeError, Frame};

mod worker;
pub use worker::{
    read_verdict, serve, write_verdict, WorkerCommand, WorkerVerdict, Workers, CANNOT_ENCODE, END,
};

/// Share of the time left that the query for every open label gets.
const GROUP_SHARE: f64 = 1.0 / 3.0;

/// How often the watchdog looks at the limits.
const POLL: Duration = Duration::from_millis(50);

/// Share of the run's memory limit (else of the machine's memory) that one
/// query may add to the process: Spacer grew to 15 GB in 3 minutes on
/// 2019 challenge P12 (Java), which ended the search beside it.
const MEMORY_SHARE: f64 = 0.25;

/// What one query came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HornVerdict {
    /// An invariant: the labels are unreachable (once it is checked).
    Invariant(InvariantCertificate),
    /// Spacer found a run to one of the labels or to a fault.
    Reachable,
    /// No answer within the time given.
    Unknown,
}

/// Asks Spacer for an invariant that keeps the runs of `frame` away from
/// `labels` (and faults), until `until`, the budget is spent, the process
/// holds more than `most` bytes ([`memory_ceiling`]) or `stop` is set.
pub fn prove(
    frame: &Frame,
    labels: &[u32],
    until: Instant,
    budget: &Budget,
    most: Option<u64>,
    stop: &AtomicBool,
) -> HornVerdict {
    static SPACER: Once = Once::new();
    SPACER.call_once(|| z3::set_global_param("fp.engine", "spacer"));
    let bv = Sort::bitvector(32);
    let domain: Vec<&Sort> = frame.vars.iter().map(|_| &bv).collect();
    let inv = FuncDecl::new("inv", &domain, &Sort::bool());
    let holds = |terms: &[BV]| -> Bool {
        let args: Vec<&dyn Ast> = terms.iter().map(|t| t as &dyn Ast).collect();
        inv.apply(&args).as_bool().expect("inv is a predicate")
    };
    let pre: Vec<BV> = frame.vars.iter().map(|v| v.pre.clone()).collect();
    let post: Vec<BV> = frame.vars.iter().map(|v| v.post.clone()).collect();
    let init: Vec<BV> = (frame.vars.iter())
        .map(|v| BV::from_i64(v.init as i64, 32))
        .collect();
    let input = frame.step.input.term();
    let mut bound: Vec<&dyn Ast> = pre.iter().map(|t| t as &dyn Ast).collect();
    bound.push(&input);
    if stop.load(Ordering::Acquire) {
        return HornVerdict::Unknown;
    }
    let solver = match crate::smt::solver("HORN", None) {
        Some(s) => s,
        None => return HornVerdict::Unknown,
    };
    solver.assert(holds(&init));
    let step = Bool::and(&[holds(&pre), frame.goes_on()]).implies(holds(&post));
    solver.assert(z3::ast::forall_const(&bound, &[], &step));
    let bad = Bool::and(&[holds(&pre), frame.input_ok.clone(), frame.bad(labels)]);
    solver.assert(z3::ast::forall_const(&bound, &[], &bad.not()));
    let result = with_watchdog(until, budget, most, stop, || solver.check());
    match result {
        SatResult::Sat => match solver.get_model().and_then(|m| m.get_func_interp(&inv)) {
            Some(f) => HornVerdict::Invariant(InvariantCertificate {
                unreachable: labels.to_vec(),
                formula: named(frame, &f.get_else().to_string()),
            }),
            None => HornVerdict::Unknown,
        },
        SatResult::Unsat => HornVerdict::Reachable,
        SatResult::Unknown => HornVerdict::Unknown,
    }
}

/// The interpretation of `inv` as z3 prints it, its arguments (`(:var
/// k)`, the frame's `k`-th variable) replaced by the variables' names, in
/// standard SMT-LIB: z3's internal division and remainder that assume a
/// nonzero divisor (`bvsdiv_i`, ...) become the standard operators. That
/// only fixes their value at a zero divisor, which z3 left open, so an
/// invariant that held for every such value still holds (and the checker
/// decides it either way).
fn named(frame: &Frame, body: &str) -> String {
    static VAR: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\(:var (\d+)\)").expect("valid"));
    static INTERNAL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b(bv[su](?:div|rem|mod))_i\b").expect("valid")
    });
    let named = VAR.replace_all(body, |c: &regex::Captures| {
        let k: usize = c[1].parse().unwrap_or(usize::MAX);
        match frame.vars.get(k) {
            Some(v) => format!("|{}|", v.name),
            None => c[0].to_string(),
        }
    });
    INTERNAL.replace_all(&named, "$1").into_owned()
}

/// The resident size past which the engine's queries are interrupted:
/// what the process holds now plus [`MEMORY_SHARE`] of the memory limit.
pub fn memory_ceiling(budget: &Budget) -> Option<u64> {
    let limit = budget.memory_limit.or_else(total_memory)?;
    Some(resident_bytes()? + (limit as f64 * MEMORY_SHARE) as u64)
}

/// Whether the process holds more than `most` bytes.
fn past(most: Option<u64>) -> bool {
    most.is_some_and(|m| resident_bytes().is_some_and(|r| r > m))
}

/// Runs `work` (a solver call) while a second thread interrupts the
/// thread's z3 context at `until`, when the budget is spent, when the
/// process holds more than `most` bytes, or when `stop` is set (and again
/// every [`POLL`] until the call returns).
fn with_watchdog<T>(
    until: Instant,
    budget: &Budget,
    most: Option<u64>,
    stop: &AtomicBool,
    work: impl FnOnce() -> T,
) -> T {
    let ctx = Context::thread_local();
    let handle = ctx.handle();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let over = Instant::now() >= until
                    || stop.load(Ordering::Acquire)
                    || past(most)
                    || budget.spent_time_or_memory().is_some();
                // Interrupted again at every poll until the call returns:
                // an interrupt that comes before z3 has started the call
                // is lost (seen under load: a ceiling already passed, and
                // Spacer answered anyway).
                if over {
                    handle.interrupt();
                }
                std::thread::sleep(POLL);
            }
        });
        let out = work();
        done.store(true, Ordering::Release);
        out
    })
}

/// Where the engine's queries run.
#[derive(Clone, Copy, Debug)]
pub enum Prover<'a> {
    /// On the calling thread.
    InThread,
    /// Each in a worker process, on the program read from `source` (the
    /// same program), which can be killed when z3 does not stop.
    Worker {
        /// How to start a worker.
        cmd: &'a WorkerCommand,
        /// The program's file.
        source: &'a str,
    },
}

/// The invariants Spacer finds for the labels of `open` within the
/// budget: one for all of them if it can, else one per label, each label
/// given an equal slice of the time left. Labels that appear in `found`
/// (witnesses other engines found meanwhile) are skipped; `stop` ends the
/// work. Each invariant goes to `proved` as soon as it is found; it is not
/// checked here. The queries run where `prover` says.
pub fn prove_labels(
    p: &Program,
    open: &[u32],
    budget: &Budget,
    stop: &AtomicBool,
    found: &Mutex<BTreeSet<u32>>,
    mut proved: impl FnMut(InvariantCertificate),
    prover: Prover,
) -> Result<(), EncodeError> {
    let in_thread = matches!(prover, Prover::InThread);
    let mut frame = match prover {
        Prover::InThread => Some(Frame::encode(p)?),
        Prover::Worker { .. } => None,
    };
    // In a thread, the process may grow by a share of the memory limit; a
    // worker may hold that share.
    let most = match prover {
        Prover::InThread => memory_ceiling(budget),
        Prover::Worker { .. } => (budget.memory_limit.or_else(total_memory))
            .map(|limit| (limit as f64 * MEMORY_SHARE) as u64),
    };
    let mut workers = match prover {
        Prover::Worker { cmd, source } => Some(Workers::new(cmd, source, most)),
        Prover::InThread => None,
    };
    let mut query = |labels: &[u32], until: Instant| -> Result<HornVerdict, EncodeError> {
        if let Some(w) = workers.as_mut().filter(|_| frame.is_none()) {
            match w.prove(labels, until, budget, stop) {
                WorkerVerdict::Verdict(v) => return Ok(v),
                // Why a worker cannot is found here; if this process can,
                // the queries go on here.
                WorkerVerdict::CannotEncode => frame = Some(Frame::encode(p)?),
            }
        }
        Ok(match &frame {
            Some(frame) => prove(frame, labels, until, budget, most, stop),
            None => HornVerdict::Unknown,
        })
    };
    // Memory z3 took and kept in this process is not given back to the
    // next query: past the ceiling, the engine stops.
    let full = || in_thread && past(most);
    let left = |labels: &[u32]| -> Vec<u32> {
        let found = found.lock().map(|f| f.clone()).unwrap_or_default();
        labels
            .iter()
            .copied()
            .filter(|l| !found.contains(l))
            .collect()
    };
    let deadline = budget
        .deadline
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
    let slice = |share: f64| {
        let rest = deadline.saturating_duration_since(Instant::now());
        Instant::now() + rest.mul_f64(share)
    };
    let labels = left(open);
    if labels.len() > 1 {
        if let HornVerdict::Invariant(c) = query(&labels, slice(GROUP_SHARE))? {
            proved(c);
            return Ok(());
        }
    }
    let mut todo = labels;
    while !todo.is_empty() && !stop.load(Ordering::Acquire) && Instant::now() < deadline && !full()
    {
        let label = todo.remove(0);
        if !left(&[label]).is_empty() {
            let until = slice(1.0 / (todo.len() + 1) as f64);
            if let HornVerdict::Invariant(c) = query(&[label], until)? {
                proved(c);
            }
        }
        todo = left(&todo);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::check_invariant;

    /// The bundled problem `dir`, and its labels the expected answers call
    /// unreachable.
    fn problem(dir: &str, file: &str) -> (Program, Vec<u32>) {
        let root = format!("{}/problems/{dir}", env!("CARGO_MANIFEST_DIR"));
        let p = crate::frontend::load(&format!("{root}/{file}")).expect("loads");
        let expected =
            std::fs::read_to_string(format!("{root}/expected-reach.csv")).expect("reads");
        let unreachable = (expected.lines())
            .filter_map(|l| l.strip_suffix(",false")?.split(',').nth(1)?.parse().ok())
            .collect();
        (p, unreachable)
    }

    fn budget() -> Budget {
        Budget::unlimited().with_timeout(Duration::from_secs(120))
    }

    /// Every invariant found is accepted by both readings of the program
    /// and claims only labels the expected answers call unreachable; the engine proves
    /// some on every problem that has some.
    #[test]
    fn invariants_are_accepted_and_claim_only_unreachable_labels() {
        for (dir, file) in [
            ("reach-arith", "Problem902.c"),
            ("reach-arrays", "Problem903.c"),
            ("reach-counter", "Problem907.c"),
            ("reach-modes", "Problem909.c"),
        ] {
            let (p, unreachable) = problem(dir, file);
            let t = Instant::now();
            let stop = AtomicBool::new(false);
            let found = Mutex::new(BTreeSet::new());
            let mut certs = Vec::new();
            let keep = |c| certs.push(c);
            prove_labels(
                &p,
                &unreachable,
                &budget(),
                &stop,
                &found,
                keep,
                Prover::InThread,
            )
            .expect("encodes");
            let mut proved = BTreeSet::new();
            for c in &certs {
                check_invariant(&p, c, None).unwrap_or_else(|e| panic!("{dir}: {e}"));
                let path = format!("{}/problems/{dir}/{file}", env!("CARGO_MANIFEST_DIR"));
                let second = crate::crosscheck::check_invariant(&path, c, None);
                second.unwrap_or_else(|e| panic!("{dir}, second reading: {e}\n{}", c.formula));
                for l in &c.unreachable {
                    assert!(unreachable.contains(l), "{dir}: label {l} is reachable");
                    proved.insert(*l);
                }
            }
            assert!(
                unreachable.is_empty() || !proved.is_empty(),
                "{dir}: nothing proved"
            );
            eprintln!("{dir}: {proved:?} of {unreachable:?} in {:?}", t.elapsed());
        }
    }

    /// Spacer's arguments get the frame's names and z3's internal
    /// division and remainder their standard names; nothing else changes.
    #[test]
    fn invariants_are_written_in_standard_smt_lib() {
        let (p, _) = problem("reach-relational", "Problem911.c");
        let frame = Frame::encode(&p).expect("encodes");
        let first = &frame.vars[0].name;
        let text = named(
            &frame,
            "(and (bvsle (bvsdiv_i (:var 0) #x00000002) (bvsrem_i (:var 0) #x00000003)) \
             (= (bvudiv_i (:var 0) #x00000005) (bvsdiv (:var 0) #x00000005)))",
        );
        assert_eq!(
            text,
            format!(
                "(and (bvsle (bvsdiv |{first}| #x00000002) (bvsrem |{first}| #x00000003)) \
                 (= (bvudiv |{first}| #x00000005) (bvsdiv |{first}| #x00000005)))"
            )
        );
    }

    /// A label that is reachable gets no invariant: Spacer finds the run.
    #[test]
    fn a_reachable_label_gets_no_invariant() {
        let (p, unreachable) = problem("reach-arith", "Problem902.c");
        let reachable: Vec<u32> = (p.error_labels.iter().copied())
            .filter(|l| !unreachable.contains(l))
            .collect();
        let frame = Frame::encode(&p).expect("encodes");
        let stop = AtomicBool::new(false);
        let mut runs = 0;
        for &l in &reachable {
            let until = Instant::now() + Duration::from_secs(20);
            match prove(&frame, &[l], until, &budget(), None, &stop) {
                HornVerdict::Invariant(c) => panic!("label {l} is reachable: {c:?}"),
                HornVerdict::Reachable => runs += 1,
                HornVerdict::Unknown => {}
            }
        }
        // Error 0 is one input deep: Spacer finds that run.
        assert!(runs > 0, "no run found to {reachable:?}");
    }

    /// A process already over the ceiling: the query is interrupted (the
    /// two labels take Spacer seconds).
    #[test]
    fn a_query_over_its_memory_ceiling_has_no_answer() {
        let (p, unreachable) = problem("reach-arith", "Problem902.c");
        let frame = Frame::encode(&p).expect("encodes");
        let stop = AtomicBool::new(false);
        let until = Instant::now() + Duration::from_secs(120);
        let v = prove(&frame, &unreachable, until, &budget(), Some(0), &stop);
        assert_eq!(v, HornVerdict::Unknown);
    }

    /// A stop request ends the query at once, without an answer.
    #[test]
    fn a_stopped_query_has_no_answer() {
        let (p, unreachable) = problem("reach-arith", "Problem902.c");
        let frame = Frame::encode(&p).expect("encodes");
        let stop = AtomicBool::new(true);
        let until = Instant::now() + Duration::from_secs(120);
        let v = prove(&frame, &unreachable, until, &budget(), None, &stop);
        assert_eq!(v, HornVerdict::Unknown);
    }

    /// A worker that cannot encode the step (here, one that only says so)
    /// leaves the queries to this process, which can.
    #[test]
    fn where_a_worker_cannot_encode_the_queries_run_here() {
        let (p, unreachable) = problem("reach-relational", "Problem911.c");
        let cmd = WorkerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), format!("exit {CANNOT_ENCODE}"), "w".into()],
        };
        let worker = Prover::Worker {
            cmd: &cmd,
            source: "unused.c",
        };
        let (stop, found) = (AtomicBool::new(false), Mutex::new(BTreeSet::new()));
        let mut certs = Vec::new();
        let keep = |c| certs.push(c);
        prove_labels(&p, &unreachable, &budget(), &stop, &found, keep, worker).expect("encodes");
        assert!(!certs.is_empty(), "nothing proved");
        for c in &certs {
            check_invariant(&p, c, None).expect("accepted");
        }
    }
}
