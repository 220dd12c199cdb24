//! A `FALSE` the RERS semantics agrees with.
//!
//! The expected verdicts of the RERS-derived SV-COMP tasks come from the
//! RERS solutions (sv-benchmarks' `createYml.py` inverts them), where every
//! error label ends the run. In `eca-rers2018` the error functions are
//! empty, so a C run goes on after calling one. A run that calls the
//! target only after another error function is a violation of the C
//! program that the RERS semantics, and so the task's expected verdict,
//! does not have. Every RERS run is a C run, so a `TRUE` holds under both,
//! and a `FALSE` is answered only where the RERS semantics reaches the
//! target too: either the witness itself calls no other error function
//! first, or a search of the program under RERS semantics finds a run that
//! does not (it then becomes the witness). Where the two semantics
//! disagree the answer is `UNKNOWN`, with the reason.

use super::{confirms, error_reached, values_of, PropertyResult, SvcompError, Verdict};
use crate::check::reach::{solve_program, ReachOptions};
use crate::frontend::c::{parse_c_with, ErrorCalls};
use crate::ir::Program;
use crate::runtime::Budget;

/// `r` (a `FALSE` on `target`, the program lowered for the property) if the
/// RERS semantics agrees, with a witness valid under both; else `UNKNOWN`.
pub(super) fn with_rers(
    program: &str,
    text: &str,
    target: &Program,
    r: PropertyResult,
    budget: &Budget,
    opts: &ReachOptions,
) -> Result<PropertyResult, SvcompError> {
    let (Some(label), Some(values)) = (r.label, r.witness_values.clone()) else {
        return Ok(r);
    };
    let rers = parse_c_with(program, text, &ErrorCalls::Rers)?;
    if error_reached(&rers, &values) == Some(label) {
        return Ok(r);
    }
    // The witness passes another error call first: search for a run that
    // does not, under RERS semantics.
    let report = solve_program(rers.clone(), program, budget, opts)?;
    let found = report.verdicts.iter().find(|v| v.property == label);
    let unknown = |why: String| {
        let mut u = PropertyResult::new(&r.property_file, &r.property, Verdict::Unknown, why);
        u.states = r.states + report.states;
        u
    };
    match found.map(|v| (v.verdict, v.witness.as_ref())) {
        Some((Some(true), Some(w))) => {
            let values = values_of(&rers, w);
            match values.filter(|v| confirms(target, v) && error_reached(&rers, v) == Some(label)) {
                Some(values) => {
                    let how = format!(
                        "a run of {} inputs calls it, and no other error function before (replayed)",
                        values.len()
                    );
                    let mut agreed =
                        PropertyResult::new(&r.property_file, &r.property, Verdict::False, how);
                    agreed.witness_values = Some(values);
                    agreed.label = Some(label);
                    agreed.states = r.states + report.states;
                    Ok(agreed)
                }
                None => Ok(unknown("internal: the RERS witness does not replay".into())),
            }
        }
        Some((Some(false), _)) => Ok(unknown(format!(
            "the C program calls it (after another error function, inputs {values:?}), \
             but under RERS semantics, where every error ends the run and which the \
             task's expected verdicts come from, it is unreachable"
        ))),
        _ => Ok(unknown(
            "every run found calls another error function first; RERS semantics undecided".into(),
        )),
    }
}
