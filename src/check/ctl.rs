//! The `rigor ctl` pipeline: action-based CTL on a program or a model, and
//! the labelled transition system every model loads into (also what `rigor
//! export` writes).

use serde::Serialize;

use super::InputError;
use crate::ctl::{self, CtlVerdict};
use crate::engine::Machine;
use crate::explore::{explore, Observer, Options};
use crate::lts::{self, LabelledGraph, Lts, ProgramLts};
use crate::runtime::Budget;

/// How to build the labelled transition system of a program.
#[derive(Clone, Default)]
pub struct LoadOptions {
    /// An Abbadingo log whose traces are explored first.
    pub seed_log: Option<String>,
    /// Told how the exploration goes.
    pub observer: Option<Observer>,
}

/// A loaded labelled transition system: a model file's [`Lts`], or the
/// view of an explored program ([`ProgramLts`], nothing copied).
pub type LoadedModel = Box<dyn LabelledGraph + Send + Sync>;

/// Loads a model by its extension: `.aut`, `.dot`, or a program (`.c`,
/// `.java`), explored within `budget`. A program whose exploration stopped
/// early gives a system marked incomplete.
pub fn load_model(
    path: &str,
    budget: &Budget,
    opts: &LoadOptions,
) -> Result<LoadedModel, InputError> {
    if let Some(l) = lts::read_model(path) {
        return Ok(Box::new(l?));
    }
    let m = Machine::compile(&crate::frontend::load(path)?)?;
    let seeds = match &opts.seed_log {
        Some(log) => crate::abbadingo::read(log)?.input_sequences(&m)?,
        None => Vec::new(),
    };
    let options = Options {
        keep_graph: true,
        observer: opts.observer.clone(),
        seeds,
        ..Options::default()
    };
    let ex = explore(&m, budget, &options);
    let complete = ex.is_complete();
    Ok(Box::new(ProgramLts::new(ex.graph, complete)))
}

/// [`load_model`], copied into an [`Lts`].
pub fn load_lts(path: &str, budget: &Budget, opts: &LoadOptions) -> Result<Lts, InputError> {
    Ok(load_model(path, budget, opts)?.to_lts())
}

/// The report of `rigor ctl`.
#[derive(Serialize, Debug)]
pub struct CtlReport {
    /// The model file.
    pub model: String,
    /// Problem name (from the file name).
    pub problem: String,
    /// Always `ctl`.
    pub track: &'static str,
    /// States of the labelled transition system.
    pub states: u32,
    /// Its transitions.
    pub transitions: usize,
    /// Whether the system is the whole reachable one.
    pub complete: bool,
    /// One verdict per property.
    pub verdicts: Vec<CtlVerdict>,
    /// Loading plus checking time in seconds.
    pub seconds: f64,
}

/// Checks every property of the CTL file `properties` on the model or
/// program `model`.
pub fn solve(
    model: &str,
    properties: &str,
    budget: &Budget,
    opts: &LoadOptions,
) -> Result<CtlReport, InputError> {
    let start = std::time::Instant::now();
    let props = ctl::syntax::read_properties(properties)?;
    let l = load_model(model, budget, opts)?;
    let verdicts = ctl::check_all(&*l, &props.properties);
    Ok(CtlReport {
        model: model.to_string(),
        problem: crate::answers::naming::problem_name(model),
        track: "ctl",
        states: l.n_states(),
        transitions: l.n_transitions(),
        complete: l.is_complete(),
        verdicts,
        seconds: start.elapsed().as_secs_f64(),
    })
}
