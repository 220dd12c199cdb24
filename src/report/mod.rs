//! The HTML report of a run: `rigor solve --report` and `rigor report`.
//!
//! The page is built from the JSON form of the pipelines' reports
//! ([`crate::check::reach::ReachReport`], [`crate::check::ltl::LtlReport`],
//! the CTL report), so that a finished `rigor solve` and a set of saved
//! `--json` reports go the same way: [`Page::add_report`] reads one report,
//! [`Page::score_against`] compares with solutions, [`html::render`] writes
//! one self-contained file (inline CSS, script and SVG; nothing fetched).
//!
//! - [`html`]: the page: a sortable table per track, the score, one
//!   collapsible section per problem;
//! - [`svg`]: the plots of progress over time and the drawing of small
//!   transition systems (a layered layout, no external program).

pub mod escape;
pub mod html;
pub mod svg;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::answers::score::{self, ScoreReport};
use crate::answers::{cmp_problems, AnswerMap, Key, Track};
use crate::engine::Machine;
use crate::explore::ProgressPoint;
use crate::system::{Outcome, System};

/// Everything the page shows.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// The heading (the folder or files reported on).
    pub title: String,
    /// The problems, in RERS order.
    pub problems: BTreeMap<ProblemKey, Problem>,
    /// The score against solutions, when given.
    pub score: Option<ScoreReport>,
    /// The wrong answers of the score, by key.
    pub wrong: Vec<Key>,
}

/// A problem name ordered as RERS orders them (`2` before `10`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProblemKey(pub String);

impl Ord for ProblemKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        cmp_problems(&self.0, &other.0)
    }
}

impl PartialOrd for ProblemKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One problem: its program and what each track found.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// The program (or model) file.
    pub program: String,
    /// Results per track.
    pub tracks: BTreeMap<Track, TrackResult>,
    /// Why the problem could not be solved, if so.
    pub error: Option<String>,
    /// The explored transition system, when it is small enough to draw.
    pub graph: Option<SmallGraph>,
}

/// What one track's run found.
#[derive(Clone, Debug, Default)]
pub struct TrackResult {
    /// One entry per property (label or formula).
    pub verdicts: Vec<Verdict>,
    /// Concrete states explored.
    pub states: u64,
    /// Seconds the run took.
    pub seconds: f64,
    /// Peak resident memory of the process, bytes.
    pub peak_memory: Option<u64>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
    /// Progress over time.
    pub progress: Vec<ProgressPoint>,
}

impl TrackResult {
    /// Properties answered true, false, and unknown.
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |b: Option<bool>| self.verdicts.iter().filter(|v| v.verdict == b).count();
        (n(Some(true)), n(Some(false)), n(None))
    }

    /// How many properties each engine settled (`witness: 3`, ...).
    pub fn engines(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for v in self.verdicts.iter().filter(|v| v.verdict.is_some()) {
            *m.entry(v.engine.clone().unwrap_or_else(|| "exploration".into()))
                .or_default() += 1;
        }
        m
    }
}

/// One property's answer.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    /// Label number or formula index.
    pub property: u32,
    /// The formula, for LTL and CTL.
    pub formula: Option<String>,
    /// The answer; `None` is unknown.
    pub verdict: Option<bool>,
    /// Which engine settled it.
    pub engine: Option<String>,
    /// Its witness or counterexample, if any.
    pub witness: Option<Witness>,
}

/// A witness, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Witness {
    /// A run to an error label: its inputs and the outputs they gave (the
    /// last one `error_N`), when the program could be run.
    Path {
        /// The inputs.
        inputs: Vec<String>,
        /// The output of each step, if known.
        outputs: Option<Vec<String>>,
    },
    /// A lasso of an LTL counterexample: prefix, then a cycle repeated.
    Lasso {
        /// The finite prefix.
        prefix: String,
        /// The cycle.
        cycle: String,
    },
    /// Any other witness, as rigor wrote it.
    Text(String),
}

/// A small explored transition system, to draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmallGraph {
    /// Breadth-first depth of each state (state 0 is initial).
    pub depth: Vec<u32>,
    /// Edges: source, target (`None` for an error or a blocked step), label
    /// (`input/output`).
    pub edges: Vec<(u32, Option<u32>, String)>,
}

/// Systems up to this many states are drawn.
pub const MAX_DRAWN_STATES: u64 = 300;

impl Page {
    /// An empty page titled `title`.
    pub fn new(title: impl Into<String>) -> Page {
        Page {
            title: title.into(),
            ..Page::default()
        }
    }

    /// Adds one report (the JSON of `rigor reach`, `ltl` or `ctl`). Returns
    /// `false` if `v` is none of them.
    pub fn add_report(&mut self, v: &Value) -> bool {
        let (Some(track), Some(problem)) = (
            v["track"].as_str().and_then(Track::parse),
            v["problem"].as_str(),
        ) else {
            return false;
        };
        let program = (v["program"].as_str().or(v["model"].as_str())).unwrap_or_default();
        let entry = self
            .problems
            .entry(ProblemKey(problem.to_string()))
            .or_default();
        if entry.program.is_empty() {
            entry.program = program.to_string();
        }
        let machine = (track == Track::Reach)
            .then(|| crate::frontend::load(program).ok())
            .flatten()
            .and_then(|p| Machine::compile(&p).ok());
        let verdicts = (v["verdicts"].as_array().into_iter().flatten())
            .map(|x| verdict_of(x, track, machine.as_ref()))
            .collect();
        let seconds = ["seconds", "explore_seconds"]
            .iter()
            .filter_map(|k| v[*k].as_f64())
            .fold(0.0, f64::max);
        let progress: Vec<ProgressPoint> =
            serde_json::from_value(v["progress"].clone()).unwrap_or_default();
        entry.tracks.insert(
            track,
            TrackResult {
                verdicts,
                states: v["states"].as_u64().unwrap_or(0),
                seconds: progress_end(&progress).unwrap_or(seconds).max(seconds),
                peak_memory: v["peak_memory"].as_u64(),
                stopped: stop_reason(&v["stopped"]),
                progress,
            },
        );
        true
    }

    /// Records that `problem` (program `program`) could not be solved.
    pub fn add_error(&mut self, problem: &str, program: &str, error: String) {
        let entry = self
            .problems
            .entry(ProblemKey(problem.to_string()))
            .or_default();
        entry.program = program.to_string();
        entry.error = Some(error);
    }

    /// Draws the transition system of `problem`'s program when it has at
    /// most [`MAX_DRAWN_STATES`] states (explored again, within `budget`).
    pub fn draw_small_system(&mut self, problem: &str, budget: &crate::runtime::Budget) {
        let Some(entry) = self.problems.get_mut(&ProblemKey(problem.to_string())) else {
            return;
        };
        let small = entry
            .tracks
            .values()
            .any(|t| t.states > 0 && t.states <= MAX_DRAWN_STATES);
        if !small {
            return;
        }
        entry.graph = small_graph(&entry.program, budget);
    }

    /// Scores the page's answers against `solution`, marking wrong ones.
    pub fn score_against(&mut self, solution: &AnswerMap) {
        let mut answers = AnswerMap::new();
        for (name, p) in &self.problems {
            for (track, t) in &p.tracks {
                for v in &t.verdicts {
                    if let Some(b) = v.verdict {
                        answers.insert(Key::new(name.0.clone(), *track, v.property), b);
                    }
                }
            }
        }
        let report = score::score(&answers, solution, &[]);
        self.wrong = (report.wrong.iter())
            .map(|w| Key::new(w.problem.clone(), w.track, w.property))
            .collect();
        self.score = Some(report);
    }

    /// Whether the answer to `key` is wrong against the solutions.
    pub fn is_wrong(&self, problem: &str, track: Track, property: u32) -> bool {
        self.wrong.contains(&Key::new(problem, track, property))
    }
}

/// Why a run stopped early, if it did (having found every label looked
/// for is no early stop).
fn stop_reason(v: &Value) -> Option<String> {
    let s = match v {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    (s != "AllErrorsFound").then_some(s)
}

/// The last point's time, if any.
fn progress_end(p: &[ProgressPoint]) -> Option<f64> {
    p.last().map(|x| x.seconds)
}

/// One verdict of a report's JSON.
fn verdict_of(x: &Value, track: Track, machine: Option<&Machine>) -> Verdict {
    let witness = match track {
        Track::Reach => x["witness"].as_array().map(|w| {
            let inputs: Vec<String> = w
                .iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
            let outputs = machine.and_then(|m| outputs_of(m, &inputs));
            Witness::Path { inputs, outputs }
        }),
        Track::Ltl => x["counterexample"].as_str().map(lasso),
        Track::Ctl => x["witness"].as_str().map(|s| Witness::Text(s.to_string())),
    };
    Verdict {
        property: x["property"].as_u64().unwrap_or(0) as u32,
        formula: x["formula"].as_str().map(str::to_string),
        verdict: x["verdict"].as_bool(),
        engine: x["engine"].as_str().map(str::to_string),
        witness,
    }
}

/// `[iA, oX] ([iB, oY])*` → prefix and cycle.
fn lasso(s: &str) -> Witness {
    match s.rfind(" (") {
        Some(k) if s.ends_with(")*") => Witness::Lasso {
            prefix: s[..k].to_string(),
            cycle: s[k + 2..s.len() - 2].to_string(),
        },
        _ => Witness::Text(s.to_string()),
    }
}

/// The output of each step of `inputs` on `m` (`error_N` where it ends).
pub fn outputs_of(m: &Machine, inputs: &[String]) -> Option<Vec<String>> {
    let indices: Option<Vec<usize>> = (inputs.iter())
        .map(|name| m.inputs().iter().position(|x| x == name))
        .collect();
    let outcomes = crate::system::replay_outcomes(m, &indices?).ok()?;
    Some(
        outcomes
            .into_iter()
            .map(|o| outcome_name(o, m.outputs()))
            .collect(),
    )
}

/// How the page names an outcome.
fn outcome_name(o: Outcome, outputs: &[String]) -> String {
    match o {
        Outcome::Output(k) => outputs[k as usize].clone(),
        Outcome::Silent => "-".into(),
        Outcome::Error(n) => format!("error_{n}"),
        Outcome::Invalid => "invalid".into(),
        Outcome::Blocked => "blocked".into(),
    }
}

/// The explored transition system of the program at `path`, if it is
/// complete within `budget` and [`MAX_DRAWN_STATES`] states.
fn small_graph(path: &str, budget: &crate::runtime::Budget) -> Option<SmallGraph> {
    let m = Machine::compile(&crate::frontend::load(path).ok()?).ok()?;
    let budget = budget.clone().with_max_states(MAX_DRAWN_STATES + 1);
    let opts = crate::explore::Options {
        keep_graph: true,
        ..Default::default()
    };
    let ex = crate::explore::explore(&m, &budget, &opts);
    let g = &ex.graph;
    if !ex.is_complete() || u64::from(g.n_states) > MAX_DRAWN_STATES {
        return None;
    }
    let n_inputs = g.n_inputs();
    let mut depth = vec![u32::MAX; g.n_states as usize];
    depth[0] = 0;
    let mut queue = std::collections::VecDeque::from([0u32]);
    let mut edges = Vec::new();
    while let Some(s) = queue.pop_front() {
        for i in 0..n_inputs {
            let e = &g.edges[s as usize * n_inputs + i];
            let o = e.outcome();
            let target = match o {
                Outcome::Output(_) | Outcome::Silent => Some(e.target),
                Outcome::Error(_) => None,
                // (An invalid input may change the state in 2012 programs.)
                Outcome::Invalid if e.target != crate::system::NO_STATE => Some(e.target),
                Outcome::Invalid | Outcome::Blocked => continue,
            };
            let out = outcome_name(o, &g.outputs);
            if let Some(t) = target {
                if depth[t as usize] == u32::MAX {
                    depth[t as usize] = depth[s as usize] + 1;
                    queue.push_back(t);
                }
            }
            edges.push((s, target, format!("{}/{}", g.inputs[i], out)));
        }
    }
    Some(SmallGraph { depth, edges })
}
