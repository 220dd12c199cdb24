//! Spacer queries in a process of their own, which can always be stopped.
//!
//! z3 does not always notice an interrupt: on 2019 challenge C P15, a
//! Spacer query went on at full speed (and 0.9 GB) for minutes past its
//! deadline, interrupted every 50 ms. In a thread, such a query outlives
//! the run that gave up on it and takes a core and its memory from every
//! problem after it (`rigor solve` runs a folder in one process). A
//! query in a worker process is killed instead, and its address space is
//! capped where the process starts.
//!
//! The worker is a program (the command line gives `rigor horn-worker`)
//! that reads the program at a path, asks for the labels until a number
//! of seconds have passed, and writes one verdict to its standard output
//! ([`write_verdict`], [`read_verdict`]). What it writes is only a claim:
//! the run checks every invariant it gets as it checks its own.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{HornVerdict, POLL};
use crate::certificate::InvariantCertificate;
use crate::system::Budget;

/// How long a worker past its own deadline is waited for before it is
/// killed.
const OVERRUN: Duration = Duration::from_secs(2);

/// How to start a worker: a program and the arguments that come before
/// the query's own (`PROGRAM --labels 1,2 --seconds S [--memory-limit B]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The program to run.
    pub program: PathBuf,
    /// Its first arguments.
    pub args: Vec<String>,
}

/// What a worker says when its query cannot even be stated (the step does
/// not encode): no other query on the program can be either.
pub const CANNOT_ENCODE: i32 = 3;

/// A worker's answer to one query.
#[derive(Debug)]
pub enum WorkerVerdict {
    /// The query's verdict.
    Verdict(HornVerdict),
    /// The worker could not encode the step ([`CANNOT_ENCODE`]).
    CannotEncode,
}

/// Runs one query on `source` in a worker started by `cmd`: until
/// `until` (the worker's own deadline; it is killed [`OVERRUN`] after
/// it), the budget is spent, or `stop` is set, with its address space
/// capped at `memory` bytes.
pub fn prove_in_worker(
    cmd: &WorkerCommand,
    source: &str,
    labels: &[u32],
    until: Instant,
    budget: &Budget,
    memory: Option<u64>,
    stop: &AtomicBool,
) -> WorkerVerdict {
    let unknown = WorkerVerdict::Verdict(HornVerdict::Unknown);
    let seconds = until
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let labels_arg: Vec<String> = labels.iter().map(u32::to_string).collect();
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .arg(source)
        .arg("--labels")
        .arg(labels_arg.join(","))
        .arg("--seconds")
        .arg(format!("{seconds:.3}"));
    if let Some(m) = memory {
        command.arg("--memory-limit").arg(m.to_string());
    }
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return unknown;
    };
    // Read as it comes: a long invariant would fill the pipe and stop the
    // worker before it exits.
    let mut out = child.stdout.take();
    let (send, text) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_string(&mut text);
        }
        let _ = send.send(text);
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        let over = Instant::now() >= until + OVERRUN
            || stop.load(Ordering::Acquire)
            || budget.spent_time_or_memory().is_some()
            || memory.is_some_and(|m| resident_of(child.id()).is_some_and(|r| r > m + m / 8));
        if over {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(POLL);
    };
    // A worker that exited has written everything; one that was killed
    // may have left the pipe to a process of its own.
    let text = text.recv_timeout(OVERRUN).unwrap_or_default();
    match status {
        Some(s) if s.code() == Some(CANNOT_ENCODE) => WorkerVerdict::CannotEncode,
        Some(s) if s.success() => WorkerVerdict::Verdict(read_verdict(&text)),
        _ => unknown,
    }
}

/// The text a worker writes for `v`: `invariant` and the certificate's
/// text form, `reachable` or `unknown`.
pub fn write_verdict(v: &HornVerdict) -> String {
    match v {
        HornVerdict::Invariant(c) => format!("invariant\n{}", c.to_text()),
        HornVerdict::Reachable => "reachable\n".into(),
        HornVerdict::Unknown => "unknown\n".into(),
    }
}

/// Reads what [`write_verdict`] wrote; anything else is unknown.
pub fn read_verdict(text: &str) -> HornVerdict {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    match first.trim() {
        "invariant" => InvariantCertificate::parse(rest, "the worker's answer")
            .map_or(HornVerdict::Unknown, HornVerdict::Invariant),
        "reachable" => HornVerdict::Reachable,
        _ => HornVerdict::Unknown,
    }
}

/// The resident size of the process `pid`, in bytes (Linux).
fn resident_of(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// The worker's side of one query: reads the program at `source` and asks
/// for `labels` for `seconds`, its own resident size held under `memory`
/// bytes (its queries are interrupted there; the run kills it an eighth
/// above). `None` when the program cannot be read or its step encoded.
pub fn answer(
    source: &str,
    labels: &[u32],
    seconds: f64,
    memory: Option<u64>,
) -> Option<HornVerdict> {
    let p = crate::frontend::load(source).ok()?;
    let frame = super::Frame::encode(&p).ok()?;
    let until = Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
    let stop = AtomicBool::new(false);
    Some(super::prove(
        &frame,
        labels,
        until,
        &Budget::unlimited(),
        memory,
        &stop,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> WorkerCommand {
        WorkerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into(), "worker".into()],
        }
    }

    fn ask(cmd: &WorkerCommand, seconds: u64, stop: &AtomicBool) -> (WorkerVerdict, Duration) {
        let t = Instant::now();
        let until = t + Duration::from_secs(seconds);
        let v = prove_in_worker(cmd, "p.c", &[3, 4], until, &Budget::unlimited(), None, stop);
        (v, t.elapsed())
    }

    /// The worker's arguments, and its answer read back.
    #[test]
    fn a_worker_is_asked_for_the_labels_and_its_certificate_read() {
        let c = InvariantCertificate {
            unreachable: vec![3, 4],
            formula: "(bvsle |pre.x| #x00000005)".into(),
        };
        let answer = write_verdict(&HornVerdict::Invariant(c.clone()));
        let script =
            format!("[ \"$1 $2 $3 $4\" = 'p.c --labels 3,4 --seconds' ] && printf '%s' '{answer}'");
        let stop = AtomicBool::new(false);
        match ask(&shell(&script), 60, &stop).0 {
            WorkerVerdict::Verdict(HornVerdict::Invariant(read)) => assert_eq!(read, c),
            other => panic!("{other:?}"),
        }
        let reachable = shell("echo reachable");
        assert!(matches!(
            ask(&reachable, 60, &stop).0,
            WorkerVerdict::Verdict(HornVerdict::Reachable)
        ));
        let garbled = shell("echo invariant; echo '(and'");
        assert!(matches!(
            ask(&garbled, 60, &stop).0,
            WorkerVerdict::Verdict(HornVerdict::Unknown)
        ));
        let cannot = shell(&format!("exit {CANNOT_ENCODE}"));
        assert!(matches!(
            ask(&cannot, 60, &stop).0,
            WorkerVerdict::CannotEncode
        ));
    }

    /// A worker that does not stop at its deadline is killed shortly
    /// after it; a stop request kills it at once.
    #[test]
    fn a_worker_past_its_deadline_or_stopped_is_killed() {
        let endless = shell("echo invariant; exec sleep 600");
        let stop = AtomicBool::new(false);
        let (v, took) = ask(&endless, 1, &stop);
        assert!(matches!(v, WorkerVerdict::Verdict(HornVerdict::Unknown)));
        assert!(took < Duration::from_secs(30), "{took:?}");
        stop.store(true, Ordering::Release);
        let (v, took) = ask(&endless, 600, &stop);
        assert!(matches!(v, WorkerVerdict::Verdict(HornVerdict::Unknown)));
        assert!(took < Duration::from_secs(30), "{took:?}");
    }
}
