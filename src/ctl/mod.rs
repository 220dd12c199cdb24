//! Action-based CTL (RERS 2019 industrial tracks): syntax, the fixpoint
//! checker, and a slow path-enumerating oracle for tests.

pub mod check;
pub mod slow;
pub mod syntax;

pub use check::{Checker, Witness};
pub use syntax::{parse_formula, parse_properties, Formula, Property, PropertyFile};

use serde::Serialize;

use crate::lts::LabelledGraph;

/// The answer for one property.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CtlVerdict {
    /// Property number.
    pub property: u32,
    /// The formula, as written back by rigor.
    pub formula: String,
    /// `Some(true)` holds, `Some(false)` fails, `None` unknown.
    pub verdict: Option<bool>,
    /// For a failing universal or holding existential property: a path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
    /// Actions the formula names that the model never does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_actions: Vec<String>,
}

/// Checks every property on one system. An incomplete system (an
/// exploration cut short) gives no verdict at all, and then the checker is
/// not even built (its adjacency lists would double the memory of a system
/// that already stopped at a limit).
pub fn check_all(lts: &(impl LabelledGraph + ?Sized), props: &[Property]) -> Vec<CtlVerdict> {
    let checker = lts.is_complete().then(|| Checker::new(lts));
    let labels = lts.label_names();
    props
        .iter()
        .map(|p| {
            let mut unknown_actions: Vec<String> = p
                .formula
                .actions()
                .into_iter()
                .filter(|a| !labels.iter().any(|l| l == a))
                .map(str::to_string)
                .collect();
            unknown_actions.sort();
            unknown_actions.dedup();
            let (verdict, witness) = match &checker {
                Some(c) => (
                    Some(c.holds(&p.formula)),
                    c.witness(&p.formula).map(|w| w.to_string()),
                ),
                None => (None, None),
            };
            CtlVerdict {
                property: p.index,
                formula: p.formula.to_string(),
                verdict,
                witness,
                unknown_actions,
            }
        })
        .collect()
}
