//! Answers to RERS properties, whoever gave them: rigor's own reports, other
//! tools' answer files, the official solutions.
//!
//! - [`read`]: every answer and solution format found in the RERS data
//!   (grammar in `grammars/answers.ebnf`);
//! - [`score`]: the RERS 2019 tokens, score `p − q²` and achievements;
//! - [`consensus`]: the Model Checking Contest 2016 reference values from
//!   several tools' answers (confidence, rules E-2 and E-3.1);
//! - [`mcc`]: the MCC `propertiesverdict` XML (grammar version 2.0);
//! - [`naming`]: problem names from program and answer file names;
//! - [`write`]: the one place answer lines are written (`csv::Writer`);
//! - [`witness`]: the witness lines that go with reachable labels and
//!   violated properties.
//!
//! One answer is `(problem, track, property, verdict)`. Verdicts follow the
//! RERS conventions: reachability `true` = the error label IS reachable;
//! LTL / CTL `true` = the property HOLDS. Properties are numbered as RERS
//! does: the label number for reachability (`error_5` → 5), the 0-based index
//! of the formula in its property file for LTL and CTL.

pub mod consensus;
pub mod mcc;
pub mod naming;
pub mod read;
pub mod score;
pub mod witness;
pub mod write;

use std::cmp::Ordering;
use std::fmt;

use serde::Serialize;

use crate::source::{Diagnostic, ReadError};

/// An answer or solution file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The file, or a line of it, is not a set of answers, or it
    /// contradicts itself.
    #[error(transparent)]
    Invalid(Diagnostic),
}

impl AnswerError {
    /// The located message, where there is one.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            AnswerError::Read(_) => None,
            AnswerError::Invalid(d) => Some(d),
        }
    }
}

/// A RERS track (the kind of property).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Track {
    /// Reachability of error labels.
    Reach,
    /// LTL properties over input/output events.
    Ltl,
    /// Action-based CTL properties.
    Ctl,
}

impl Track {
    /// All tracks, in output order.
    pub const ALL: [Track; 3] = [Track::Reach, Track::Ltl, Track::Ctl];

    /// The name used in files and reports: `reach`, `ltl`, `ctl`.
    pub fn name(self) -> &'static str {
        match self {
            Track::Reach => "reach",
            Track::Ltl => "ltl",
            Track::Ctl => "ctl",
        }
    }

    /// Parses a track name (case-insensitive; `reachability` too).
    pub fn parse(s: &str) -> Option<Track> {
        match s.trim().to_ascii_lowercase().as_str() {
            "reach" | "reachability" => Some(Track::Reach),
            "ltl" => Some(Track::Ltl),
            "ctl" => Some(Track::Ctl),
            _ => None,
        }
    }

    /// The track a file name suggests: `reach` in it for reachability, `ltl`
    /// or `constraints` (the RERS LTL property files and their solutions) for
    /// LTL, `ctl` for CTL; `None` when it says nothing or is ambiguous.
    pub fn from_file_name(path: &str) -> Option<Track> {
        let name = std::path::Path::new(path)
            .file_name()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let found: Vec<Track> = [
            (Track::Reach, name.contains("reach")),
            (
                Track::Ltl,
                name.contains("ltl") || name.contains("constraints"),
            ),
            (Track::Ctl, name.contains("ctl")),
        ]
        .into_iter()
        .filter(|(_, hit)| *hit)
        .map(|(t, _)| t)
        .collect();
        match found.as_slice() {
            [t] => Some(*t),
            _ => None,
        }
    }
}

impl fmt::Display for Track {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Compares problem names: numerically when both are numbers (`2` < `11`),
/// else as text.
pub fn cmp_problems(a: &str, b: &str) -> Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// What an answer is about: one property of one problem.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Key {
    /// The problem name (`11` for `Problem11`, `m24` for industrial ones).
    pub problem: String,
    /// The track.
    pub track: Track,
    /// Error label number (reach) or 0-based formula index (LTL, CTL).
    pub property: u32,
}

impl Key {
    /// A key.
    pub fn new(problem: impl Into<String>, track: Track, property: u32) -> Key {
        Key {
            problem: problem.into(),
            track,
            property,
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.track
            .cmp(&other.track)
            .then_with(|| cmp_problems(&self.problem, &other.problem))
            .then_with(|| self.property.cmp(&other.property))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Key {
    /// `problem 11 reach error_5`, `problem 1 ltl #3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.track {
            Track::Reach => write!(f, "problem {} reach error_{}", self.problem, self.property),
            t => write!(f, "problem {} {} #{}", self.problem, t, self.property),
        }
    }
}

/// One answer: a verdict on one property.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Answer {
    /// The problem name.
    pub problem: String,
    /// The track.
    pub track: Track,
    /// Error label number (reach) or 0-based formula index (LTL, CTL).
    pub property: u32,
    /// Reach: `true` = reachable. LTL / CTL: `true` = holds.
    pub verdict: bool,
}

impl Answer {
    /// An answer.
    pub fn new(problem: impl Into<String>, track: Track, property: u32, verdict: bool) -> Answer {
        Answer {
            problem: problem.into(),
            track,
            property,
            verdict,
        }
    }

    /// The property it answers.
    pub fn key(&self) -> Key {
        Key::new(self.problem.clone(), self.track, self.property)
    }
}

/// Answers by property, in [`Key`] order.
pub type AnswerMap = std::collections::BTreeMap<Key, bool>;

/// The RERS answer CSV of a set of answers: `problem,property,verdict`
/// lines in key order, or `problem,track,property,verdict` when the answers
/// span several tracks (a RERS CSV has no track column).
pub fn to_csv(answers: &AnswerMap) -> String {
    let mixed = answers
        .keys()
        .map(|k| k.track)
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        > 1;
    let rows = answers
        .iter()
        .map(|(k, &v)| (k.problem.as_str(), k.track, k.property, v));
    write::answer_csv(rows, mixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn track_names() {
        for t in Track::ALL {
            assert_eq!(Track::parse(t.name()), Some(t));
        }
        assert_eq!(Track::parse("Reachability"), Some(Track::Reach));
        assert_eq!(Track::parse("liveness"), None);
    }

    #[test]
    fn track_from_file_names() {
        assert_eq!(
            Track::from_file_name("a/reachability-solution-Problem11.csv"),
            Some(Track::Reach)
        );
        assert_eq!(
            Track::from_file_name("Problem1401_ltl_solutions.csv"),
            Some(Track::Ltl)
        );
        assert_eq!(
            Track::from_file_name("Problem1/constraints-solution.csv"),
            Some(Track::Ltl)
        );
        assert_eq!(Track::from_file_name("m24-ctl.csv"), Some(Track::Ctl));
        assert_eq!(Track::from_file_name("answers.csv"), None);
        assert_eq!(Track::from_file_name("reach-and-ltl.csv"), None);
    }

    #[test]
    fn keys_sort_by_track_then_problem_number() {
        let mut keys = [
            Key::new("11", Track::Reach, 2),
            Key::new("2", Track::Reach, 9),
            Key::new("1", Track::Ltl, 0),
            Key::new("11", Track::Reach, 1),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        assert_eq!(
            shown,
            [
                "problem 2 reach error_9",
                "problem 11 reach error_1",
                "problem 11 reach error_2",
                "problem 1 ltl #0"
            ]
        );
    }

    #[test]
    fn csv_has_a_track_column_only_when_mixed() {
        let mut m = AnswerMap::new();
        m.insert(Key::new("11", Track::Reach, 3), true);
        assert_eq!(to_csv(&m), "11,3,true\n");
        m.insert(Key::new("1", Track::Ltl, 0), false);
        assert_eq!(to_csv(&m), "11,reach,3,true\n1,ltl,0,false\n");
    }
}
