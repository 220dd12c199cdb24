//! Spacer queries in a process of their own, which can always be stopped.
//!
//! z3 does not always notice an interrupt: on 2019 challenge C P15, a
//! Spacer query went on at full speed (and 0.9 GB) for minutes past its
//! deadline, interrupted every 50 ms. In a thread, such a query outlives
//! the run that gave up on it and takes a core and its memory from every
//! problem after it (`rigor solve` runs a folder in one process). A query
//! in a worker process is killed instead, and the worker's resident size
//! is watched.
//!
//! The worker is a program (the command line gives `rigor horn-worker`)
//! that reads the program at a path and encodes its step once, then
//! answers queries: each a line `LABELS SECONDS` on its standard input
//! (`3,4 12.5`), each answer a verdict ([`write_verdict`]) and a line
//! [`END`] on its standard output. A worker killed for overrunning is
//! replaced by a new one for the next query. What a worker writes is only
//! a claim: the run checks every invariant it gets as it checks its own.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{HornVerdict, POLL};
use crate::certificate::InvariantCertificate;
use crate::runtime::Budget;

/// How long a worker past a query's deadline is waited for before it is
/// killed.
const OVERRUN: Duration = Duration::from_secs(2);

/// The line that ends an answer.
pub const END: &str = ".";

/// The exit code of a worker that cannot read the program or encode its
/// step: no query on it can be stated.
pub const CANNOT_ENCODE: i32 = 3;

/// How to start a worker: a program and the arguments that come before
/// the worker's own (`PROGRAM [--memory-limit B]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The program to run.
    pub program: PathBuf,
    /// Its first arguments.
    pub args: Vec<String>,
}

/// A worker's answer to one query.
#[derive(Debug)]
pub enum WorkerVerdict {
    /// The query's verdict (unknown also when the worker was killed).
    Verdict(HornVerdict),
    /// The worker could not encode the step ([`CANNOT_ENCODE`]).
    CannotEncode,
}

/// A running worker.
struct Running {
    child: Child,
    input: ChildStdin,
    /// Its answers, each whole, as they come.
    answers: Receiver<String>,
}

impl Running {
    fn start(cmd: &WorkerCommand, source: &str, memory: Option<u64>) -> Option<Running> {
        let mut command = Command::new(&cmd.program);
        command.args(&cmd.args).arg(source);
        if let Some(m) = memory {
            command.arg("--memory-limit").arg(m.to_string());
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let (input, output) = (child.stdin.take()?, child.stdout.take()?);
        let (send, answers) = channel();
        std::thread::spawn(move || {
            let mut answer = String::new();
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if line == END {
                    if send.send(std::mem::take(&mut answer)).is_err() {
                        break;
                    }
                } else {
                    answer.push_str(&line);
                    answer.push('\n');
                }
            }
        });
        Some(Running {
            child,
            input,
            answers,
        })
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Queries answered by worker processes started with `cmd` on the
/// program at `source`, one worker at a time.
pub struct Workers<'a> {
    cmd: &'a WorkerCommand,
    source: &'a str,
    /// Resident bytes a worker may hold (its queries are interrupted
    /// there; it is killed an eighth above).
    memory: Option<u64>,
    running: Option<Running>,
}

impl<'a> Workers<'a> {
    /// No worker runs until the first query.
    pub fn new(cmd: &'a WorkerCommand, source: &'a str, memory: Option<u64>) -> Workers<'a> {
        Workers {
            cmd,
            source,
            memory,
            running: None,
        }
    }

    /// Asks for an invariant for `labels` until `until` (the worker's own
    /// deadline; it is killed [`OVERRUN`] after it), the budget is spent,
    /// or `stop` is set.
    pub fn prove(
        &mut self,
        labels: &[u32],
        until: Instant,
        budget: &Budget,
        stop: &AtomicBool,
    ) -> WorkerVerdict {
        let unknown = WorkerVerdict::Verdict(HornVerdict::Unknown);
        if self.running.is_none() {
            self.running = Running::start(self.cmd, self.source, self.memory);
        }
        let Some(w) = self.running.as_mut() else {
            return unknown;
        };
        let seconds = until
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let listed: Vec<String> = labels.iter().map(u32::to_string).collect();
        let asked = writeln!(w.input, "{} {seconds:.3}", listed.join(","));
        let ceiling = self.memory.map(|m| m + m / 8);
        let answer = asked.ok().and_then(|_| loop {
            match w.answers.recv_timeout(POLL) {
                Ok(text) => break Some(text),
                Err(RecvTimeoutError::Disconnected) => break None,
                Err(RecvTimeoutError::Timeout) => {}
            }
            let over = Instant::now() >= until + OVERRUN
                || stop.load(Ordering::Acquire)
                || budget.spent_time_or_memory().is_some()
                || ceiling.is_some_and(|m| resident_of(w.child.id()).is_some_and(|r| r > m));
            if over {
                break None;
            }
        });
        if let Some(text) = answer {
            return WorkerVerdict::Verdict(read_verdict(&text));
        }
        // Killed, or ended on its own: the next query starts another.
        w.kill();
        let ended = w.child.try_wait().ok().flatten();
        self.running = None;
        match ended.and_then(|s| s.code()) {
            Some(CANNOT_ENCODE) => WorkerVerdict::CannotEncode,
            _ => unknown,
        }
    }
}

impl Drop for Workers<'_> {
    fn drop(&mut self) {
        if let Some(w) = self.running.as_mut() {
            w.kill();
        }
    }
}

/// The text a worker writes for `v` (before its [`END`] line):
/// `invariant` and the certificate's text form, `reachable` or `unknown`.
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

/// The worker's side: reads the program at `source`, encodes its step,
/// and answers each query line of `queries` on `answers` (each answer
/// ended by [`END`] and flushed), its queries interrupted once the
/// process holds `memory` bytes. `Ok(false)` when the program cannot be
/// read or its step encoded; an error when the answers cannot be written.
pub fn serve(
    source: &str,
    memory: Option<u64>,
    queries: impl BufRead,
    mut answers: impl Write,
) -> std::io::Result<bool> {
    let Ok(p) = crate::frontend::load(source) else {
        return Ok(false);
    };
    let Ok(frame) = super::Frame::encode(&p) else {
        return Ok(false);
    };
    let stop = AtomicBool::new(false);
    for line in queries.lines() {
        let line = line?;
        let mut fields = line.split_whitespace();
        let labels: Option<Vec<u32>> = (fields.next().unwrap_or(""))
            .split(',')
            .map(|l| l.parse().ok())
            .collect();
        let seconds: Option<f64> = fields.next().and_then(|s| s.parse().ok());
        let verdict = match (labels, seconds) {
            (Some(labels), Some(s)) if s.is_finite() => {
                let until = Instant::now() + Duration::from_secs_f64(s.max(0.0));
                super::prove(
                    &frame,
                    labels.as_slice(),
                    until,
                    &Budget::unlimited(),
                    memory,
                    &stop,
                )
            }
            _ => HornVerdict::Unknown,
        };
        answers.write_all(write_verdict(&verdict).as_bytes())?;
        writeln!(answers, "{END}")?;
        answers.flush()?;
    }
    Ok(true)
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

    fn ask(w: &mut Workers, seconds: u64, stop: &AtomicBool) -> (WorkerVerdict, Duration) {
        let t = Instant::now();
        let until = t + Duration::from_secs(seconds);
        let v = w.prove(&[3, 4], until, &Budget::unlimited(), stop);
        (v, t.elapsed())
    }

    /// One worker answers query after query; its answers are read back.
    #[test]
    fn a_worker_answers_each_query_and_its_certificate_is_read() {
        let c = InvariantCertificate {
            unreachable: vec![3, 4],
            formula: "(bvsle |pre.x| #x00000005)".into(),
        };
        let answer = write_verdict(&HornVerdict::Invariant(c.clone()));
        // Started once on p.c; each query `3,4 SECONDS` is answered in turn.
        let script = format!(
            "[ \"$1\" = p.c ] || exit 9; read q; [ \"${{q% *}}\" = 3,4 ] || exit 9; \
             printf '%s.\\n' '{answer}'; read q; printf 'reachable\\n.\\n'; \
             read q; printf 'invariant\\n(and\\n.\\n'"
        );
        let cmd = shell(&script);
        let mut w = Workers::new(&cmd, "p.c", None);
        let stop = AtomicBool::new(false);
        match ask(&mut w, 60, &stop).0 {
            WorkerVerdict::Verdict(HornVerdict::Invariant(read)) => assert_eq!(read, c),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            ask(&mut w, 60, &stop).0,
            WorkerVerdict::Verdict(HornVerdict::Reachable)
        ));
        // A garbled certificate is no certificate.
        assert!(matches!(
            ask(&mut w, 60, &stop).0,
            WorkerVerdict::Verdict(HornVerdict::Unknown)
        ));
        let cannot = shell(&format!("exit {CANNOT_ENCODE}"));
        let mut w = Workers::new(&cannot, "p.c", None);
        assert!(matches!(
            ask(&mut w, 60, &stop).0,
            WorkerVerdict::CannotEncode
        ));
    }

    /// A worker that does not answer by its deadline is killed shortly
    /// after it, and the next query gets a new one; a stop request kills
    /// it at once.
    #[test]
    fn a_worker_past_its_deadline_or_stopped_is_killed() {
        let slow = shell("read q; exec sleep 600");
        let mut w = Workers::new(&slow, "p.c", None);
        let stop = AtomicBool::new(false);
        let (v, took) = ask(&mut w, 1, &stop);
        assert!(matches!(v, WorkerVerdict::Verdict(HornVerdict::Unknown)));
        assert!(took < Duration::from_secs(30), "{took:?}");
        assert!(w.running.is_none());
        stop.store(true, Ordering::Release);
        let (v, took) = ask(&mut w, 600, &stop);
        assert!(matches!(v, WorkerVerdict::Verdict(HornVerdict::Unknown)));
        assert!(took < Duration::from_secs(30), "{took:?}");
    }

    /// The worker's side answers each query line, and says when the
    /// program cannot be read.
    #[test]
    fn the_worker_side_answers_each_line() {
        let path = format!(
            "{}/problems/reach-relational/Problem911.c",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut out = Vec::new();
        let queries: &[u8] = b"0,2 60\n1 60\nnonsense\n";
        assert!(serve(&path, None, queries, &mut out).expect("writes"));
        let text = String::from_utf8(out).expect("text");
        let answers: Vec<&str> = text.split(".\n").collect();
        assert_eq!(answers.len(), 4, "{text}");
        assert!(answers[0].starts_with("invariant\n"), "{text}");
        assert!(matches!(
            read_verdict(answers[0]),
            HornVerdict::Invariant(_)
        ));
        // Label 1 is reachable.
        assert!(!answers[1].starts_with("invariant"), "{text}");
        assert_eq!(answers[2], "unknown\n");
        let none: &[u8] = b"";
        assert!(!serve("/nonexistent.c", None, none, Vec::new()).expect("nothing written"));
    }
}
