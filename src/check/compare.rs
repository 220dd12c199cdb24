//! The `rigor compare` pipeline: two program files in, a verdict on their
//! equivalence out, proved by the shape of the code
//! ([`crate::equivalence::structural`]), on the two interval abstractions
//! ([`crate::equivalence::abstraction`]), or by the lockstep search
//! ([`crate::equivalence::lockstep`]).

use super::InputError;
use crate::engine::Machine;
use crate::equivalence::lockstep::{compare, CompareReport, ReplayMismatch, Verdict};
use crate::equivalence::{abstraction, structural};
use crate::runtime::Budget;

/// State pairs explored to sanity-check an equivalence proved without it.
const SANITY_PAIRS: u64 = 200_000;

/// Loads, compiles and compares two programs: the `rigor compare`
/// pipeline. Equivalence is proved by the shape of the code, else on the
/// two interval abstractions (with `try_abstraction`, half the time), else
/// by a complete lockstep search, which gets what the proofs left.
pub fn solve(
    a: &str,
    b: &str,
    budget: &Budget,
    try_abstraction: bool,
    threads: usize,
) -> Result<CompareReport, CompareError> {
    let pa = crate::frontend::load(a).map_err(InputError::from)?;
    let pb = crate::frontend::load(b).map_err(InputError::from)?;
    let ma = Machine::compile(&pa).map_err(InputError::from)?;
    let mb = Machine::compile(&pb).map_err(InputError::from)?;
    let structure = structural::prove(&pa, &pb);
    // Without a proof by shape, try one on the two abstractions.
    let abstraction = match &structure {
        Ok(_) => None,
        Err(_) if !try_abstraction => None,
        Err(_) => {
            // The proof that can answer for large programs: half the time.
            let share = Budget {
                max_states: Some(crate::absint::explore::RUN_MAX_STATES as u64),
                ..budget.share(0.5)
            };
            Some(abstraction::prove((&pa, &ma), (&pb, &mb), &share))
        }
    };
    let proved = structure.is_ok() || matches!(abstraction, Some(Ok(_)));
    // Proved: the lockstep search only runs as a bounded sanity check (a
    // difference here would be a bug in the proof).
    let search = match proved {
        true => budget.clone().with_max_states(SANITY_PAIRS),
        false => budget.clone(),
    };
    let mut r = compare(&ma, &mb, a, b, &search, threads)?;
    // The proof, if any: its method and what it rests on.
    let proof = match (structure, abstraction) {
        (Ok(c), _) => Some((
            "structure",
            format!(
                "proved by the shape of the code: {} globals ({} with renamed values) and {} functions correspond",
                c.globals, c.renamed, c.functions
            ),
        )),
        (Err(shape), abstraction) => {
            r.notes
                .push(format!("not provable by the shape of the code: {shape}"));
            match abstraction {
                Some(Ok(p)) => Some((
                    "abstraction",
                    format!(
                        "proved on the interval abstractions ({} and {} abstract states): {} pairs of abstract-state sets, every step decided and the same on both sides",
                        p.states_a, p.states_b, p.pairs
                    ),
                )),
                Some(Err(why)) => {
                    r.notes
                        .push(format!("not provable on the abstractions: {why}"));
                    None
                }
                None => {
                    r.notes.push(
                        "not provable on the abstractions: not tried (--no-abstraction)".into(),
                    );
                    None
                }
            }
        }
    };
    if let Some((method, note)) = proof {
        match r.verdict {
            Verdict::Unknown | Verdict::Equivalent => {
                r.verdict = Verdict::Equivalent;
                r.method = method;
                r.notes.push(format!(
                    "{note}; {} state pairs also explored in lockstep without a difference",
                    r.pairs
                ));
            }
            _ => r.notes.push(format!(
                "internal: proved by {method} but the programs differ; the difference wins"
            )),
        }
    }
    Ok(r)
}

/// Why two programs could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A program could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A difference that does not replay: a bug in rigor.
    #[error(transparent)]
    Replay(#[from] ReplayMismatch),
}
