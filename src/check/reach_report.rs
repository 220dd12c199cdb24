//! What `rigor reach` answers: a verdict per error label, with its witness
//! and the evidence behind it, and the report of the whole run (the
//! answer CSV, the witness file, the counts).

use serde::Serialize;

use crate::answers::witness::write_witnesses;
use crate::answers::write::answer_csv;
use crate::answers::Track;
use crate::certificate::{Certificate, InvariantCertificate};
use crate::explore::ProgressPoint;
use crate::runtime::StopReason;
use crate::system::{replay, Outcome, System};

/// The answer for one error label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelVerdict {
    /// The error label number.
    pub property: u32,
    /// `Some(true)` reachable, `Some(false)` unreachable, `None` unknown.
    pub verdict: Option<bool>,
    /// For a reachable label: the input names of the witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Vec<String>>,
    /// What the verdict rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Evidence>,
    /// For an unreachable label proved by the abstraction: whether its
    /// certificate passed the independent check (never, so far, for a
    /// pruned exploration, which has no certificate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certified: Option<bool>,
}

/// Receives a label's verdict as soon as it is final (see
/// [`super::reach::ReachOptions::on_verdict`]): a reachable label with its
/// witness, or an unreachable one an accepted invariant proves.
pub type VerdictSink = std::sync::Arc<dyn Fn(&LabelVerdict) + Send + Sync>;

/// What a verdict rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// A witness replayed on the engine.
    Witness,
    /// A complete exploration of the concrete states.
    Exploration,
    /// The interval abstraction reaches no edge to the label.
    Abstraction,
    /// A complete exploration of the states the abstraction does not rule
    /// out, or a guided search that ran out of such states.
    PrunedExploration,
    /// An inductive invariant found by the invariant engine
    /// ([`crate::horn`]) and accepted by the checker.
    Invariant,
}

impl LabelVerdict {
    /// Makes the label reachable with witness `path` if `path` replays on
    /// `sys` to this label; otherwise leaves the verdict as it was and says
    /// why in a note for the report.
    pub(super) fn accept_witness<S: System>(
        &mut self,
        sys: &S,
        path: &[usize],
        what: &str,
    ) -> Option<String> {
        match replay(sys, path) {
            Ok(Outcome::Error(n)) if n == self.property => {
                self.verdict = Some(true);
                self.engine = Some(Evidence::Witness);
                self.witness = Some(path.iter().map(|&k| sys.inputs()[k].clone()).collect());
                None
            }
            other => Some(format!(
                "internal: {what} for error {} does not replay ({}); answering unknown",
                self.property,
                match other {
                    Ok(o) => format!("it ends with {o:?}"),
                    Err(e) => e.to_string(),
                }
            )),
        }
    }
}

/// Everything `rigor reach` reports.
#[derive(Clone, Debug, Serialize)]
pub struct ReachReport {
    /// The program file.
    pub program: String,
    /// Problem number (from the file name).
    pub problem: String,
    /// Always `reach`.
    pub track: &'static str,
    /// One verdict per error label of the program.
    pub verdicts: Vec<LabelVerdict>,
    /// States discovered.
    pub states: u64,
    /// Transitions executed.
    pub transitions: u64,
    /// BFS depth reached.
    pub depth: u32,
    /// Whether the whole state space was explored.
    pub complete: bool,
    /// Why the exploration stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Engine faults (undefined behaviour), first few.
    pub faults: Vec<String>,
    /// Exploration time in seconds.
    pub seconds: f64,
    /// Peak resident memory in bytes.
    pub peak_memory: Option<u64>,
    /// Bytes per stored state.
    pub state_bytes: usize,
    /// Ints per state after the layout analysis.
    pub state_width: usize,
    /// Abstract states of the interval abstraction, if it was used.
    pub abstract_states: Option<u64>,
    /// States not expanded because the abstraction reaches no label still
    /// wanted from them.
    pub pruned: u64,
    /// States stored by the guided search, if it ran.
    pub guided_states: u64,
    /// Why the abstraction was not used, if it was tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abstraction_note: Option<String>,
    /// Internal inconsistencies met on the way (a witness that does not
    /// replay, a certificate not accepted): each left its labels unknown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Seconds the independent check of the abstraction's certificate took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate_seconds: Option<f64>,
    /// Seconds of that check the second, independent reading of the
    /// program took (C programs; [`crate::crosscheck`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_reading_seconds: Option<f64>,
    /// The abstraction's certificate, when asked for
    /// ([`ReachOptions::keep_certificate`]).
    #[serde(skip)]
    pub certificate: Option<Certificate>,
    /// The invariants ([`crate::horn`]) the checker accepted, each with
    /// the labels it proves unreachable.
    #[serde(skip)]
    pub invariants: Vec<InvariantCertificate>,
    /// The run's progress over time (states, depth, labels found), for
    /// plots.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub progress: Vec<ProgressPoint>,
}

impl ReachReport {
    /// The RERS CSV lines of the report (unknown labels left out).
    pub fn csv(&self) -> String {
        let rows = (self.verdicts.iter())
            .filter_map(|v| Some((self.problem.as_str(), Track::Reach, v.property, v.verdict?)));
        answer_csv(rows, false)
    }

    /// The witness file text: one `label,input input ...` line per
    /// reachable label (`grammars/witness.ebnf`).
    pub fn witnesses(&self) -> String {
        let lines =
            (self.verdicts.iter()).filter_map(|v| Some((v.property, v.witness.as_deref()?)));
        write_witnesses(lines)
    }

    /// Number of labels with each verdict: (reachable, unreachable, unknown).
    pub fn counts(&self) -> (usize, usize, usize) {
        let r = self
            .verdicts
            .iter()
            .filter(|v| v.verdict == Some(true))
            .count();
        let u = self
            .verdicts
            .iter()
            .filter(|v| v.verdict == Some(false))
            .count();
        (r, u, self.verdicts.len() - r - u)
    }
}
