//! Native confirmation of LTL counterexamples: the original program,
//! compiled by gcc or javac ([`super`], [`super::java`]),
//! fed the lasso's inputs.
//!
//! A counterexample `u v^ω` is confirmed when the native program, fed the
//! inputs of `u v v`, reads every one of them and prints exactly the
//! lasso's word: each input's outputs in order, nothing where the lasso has
//! none (an invalid input prints no output either). That the cycle closes
//! (the state after `u v` is the one after `u`) rests on rigor's replay of
//! the lasso ([`crate::ltl::check::replay_lasso`]), which runs it twice too; the
//! native run confirms that the program, not rigor's reading of it, prints
//! that word.

use std::path::Path;
use std::time::Duration;

use super::java::JavaHarness;
use super::{Harness, NativeOutcome, ValidateError};
use crate::ir::Symbol;
use crate::ltl::lasso::LassoWord;

/// What the native program did on one lasso.
#[derive(Clone, Debug)]
pub struct LassoCheck {
    /// The property (0-based, file order).
    pub property: usize,
    /// How the native run ended.
    pub native: NativeOutcome,
    /// The word it printed, in the lasso's letters (`iA`, `oX`).
    pub word: Vec<String>,
    /// Whether it read every input and printed exactly the lasso's word.
    pub confirmed: bool,
}

/// The letters of `u v v`: what a confirmed native run prints.
pub fn unrolled(lasso: &LassoWord) -> Vec<String> {
    let mut word = lasso.prefix.clone();
    word.extend(lasso.cycle.iter().cloned());
    word.extend(lasso.cycle.iter().cloned());
    word
}

/// The input names of a word (its `i` letters, without the `i`).
fn input_names(word: &[String]) -> Vec<String> {
    (word.iter())
        .filter_map(|l| l.strip_prefix('i'))
        .map(str::to_string)
        .collect()
}

/// The word a native run printed: `i<name>` for each input it read (the
/// harness's `RIGOR_IN` lines, named after the inputs fed), `o<name>` for
/// each output line, named by `output`; `None` where a line is neither.
fn printed_word(
    printed: &[String],
    fed: &[String],
    output: impl Fn(&str) -> Option<String>,
) -> Option<Vec<String>> {
    let mut word = Vec::new();
    let mut read = 0;
    for line in printed.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
        if line == "RIGOR_IN" {
            // The harness marks a read before it knows there is an input.
            if let Some(name) = fed.get(read) {
                word.push(format!("i{name}"));
            }
            read += 1;
        } else {
            word.push(format!("o{}", output(line)?));
        }
    }
    Some(word)
}

/// Checks each `(property, lasso)` on the program at `path` compiled
/// natively; `timeout` bounds each run.
pub fn confirm_lassos(
    path: &Path,
    inputs: &[Symbol],
    outputs: &[Symbol],
    lassos: &[(usize, LassoWord)],
    timeout: Duration,
) -> Result<Vec<LassoCheck>, ValidateError> {
    let words: Vec<Vec<String>> = lassos.iter().map(|(_, l)| unrolled(l)).collect();
    let fed: Vec<Vec<String>> = words.iter().map(|w| input_names(w)).collect();
    let java = path.extension().is_some_and(|e| e == "java");
    let runs: Vec<(NativeOutcome, Vec<String>)> = if java {
        let h = JavaHarness::build(path)?;
        let runs: Vec<&[String]> = fed.iter().map(Vec::as_slice).collect();
        h.run_all(&runs, timeout)?
    } else {
        let h = Harness::build(path)?;
        let value = |name: &String| inputs.iter().find(|s| &s.name == name).map(|s| s.value);
        (fed.iter())
            .map(|names| {
                let values: Vec<i32> = names.iter().filter_map(value).collect();
                h.run_printing(&values, timeout)
            })
            .collect::<Result<_, _>>()?
    };
    // C prints an output's number, Java its name.
    let output = |line: &str| -> Option<String> {
        let found = match java {
            true => outputs.iter().find(|s| s.name == line),
            false => (line.parse::<i32>().ok()).and_then(|v| outputs.iter().find(|s| s.value == v)),
        };
        found.map(|s| s.name.clone())
    };
    Ok((lassos.iter().zip(words).zip(fed).zip(runs))
        .map(|((((property, _), expected), fed), (native, printed))| {
            let word = printed_word(&printed, &fed, output).unwrap_or_default();
            let read_all = matches!(native, NativeOutcome::End { inputs } if inputs == fed.len());
            LassoCheck {
                property: *property,
                confirmed: read_all && word == expected,
                native,
                word,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letters(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn the_printed_word_names_inputs_and_outputs() {
        let printed = letters(&["RIGOR_IN", "18", "RIGOR_IN", "RIGOR_IN", "19", "RIGOR_IN"]);
        let fed = letters(&["A", "B", "C"]);
        let name = |l: &str| match l {
            "18" => Some("R".to_string()),
            "19" => Some("S".to_string()),
            _ => None,
        };
        assert_eq!(
            printed_word(&printed, &fed, name),
            Some(letters(&["iA", "oR", "iB", "iC", "oS"]))
        );
        assert_eq!(printed_word(&letters(&["noise"]), &fed, name), None);
    }

    #[test]
    fn a_lasso_unrolls_its_cycle_twice() {
        let l = LassoWord {
            prefix: letters(&["iA", "oX"]),
            cycle: letters(&["iB", "oY"]),
        };
        assert_eq!(unrolled(&l), letters(&["iA", "oX", "iB", "oY", "iB", "oY"]));
        assert_eq!(input_names(&unrolled(&l)), letters(&["A", "B", "B"]));
    }
}
