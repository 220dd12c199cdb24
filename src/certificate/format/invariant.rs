//! Certificates that are one inductive invariant, as data: the labels
//! claimed unreachable and the invariant, one SMT-LIB term over the
//! bit-vector constants `|pre.a17|`, `|pre.a5[3]|` (32 bits each) of the
//! state before a step. The invariant engine ([`crate::horn`]) writes
//! them; both checkers read them ([`crate::certificate::invariant`] on
//! the provers' reading of the program, [`crate::crosscheck`] on its own).
//!
//! Text form: comment lines `; rigor invariant certificate` and
//! `; unreachable 3 17 42`, then the formula. A term that is not one
//! balanced term is rejected, so that wrapped in an assertion it cannot
//! issue commands of its own.

use super::FormatError;
use crate::source::Diagnostic;

/// First line of the text form.
const HEADER: &str = "; rigor invariant certificate";

/// Labels line of the text form.
const UNREACHABLE: &str = "; unreachable";

/// An inductive invariant and the labels it proves unreachable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantCertificate {
    /// The labels claimed unreachable.
    pub unreachable: Vec<u32>,
    /// The invariant: one SMT-LIB term over the frame's variables.
    pub formula: String,
}

impl InvariantCertificate {
    /// The text form.
    pub fn to_text(&self) -> String {
        let labels: Vec<String> = self.unreachable.iter().map(u32::to_string).collect();
        format!(
            "{HEADER}\n{UNREACHABLE} {}\n{}\n",
            labels.join(" "),
            self.formula
        )
    }

    /// Whether `text` is meant as an invariant certificate (its first line).
    pub fn is_invariant_text(text: &str) -> bool {
        text.trim_start().starts_with(HEADER)
    }

    /// Reads the text form (of the file `file`, for messages).
    pub fn parse(text: &str, file: &str) -> Result<InvariantCertificate, FormatError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let bad = |line: usize, what: &str| {
            FormatError(Diagnostic::at(file, line as u32 + 1, 1, what.to_string()))
        };
        match lines.next() {
            Some((_, l)) if l.trim() == HEADER => {}
            Some((n, _)) => return Err(bad(n, "expected `; rigor invariant certificate`")),
            None => return Err(bad(0, "empty certificate")),
        }
        let (n, l) = lines
            .next()
            .ok_or_else(|| bad(1, "expected `; unreachable`"))?;
        let rest = (l.trim().strip_prefix(UNREACHABLE))
            .ok_or_else(|| bad(n, "expected `; unreachable` and the labels"))?;
        let unreachable = (rest.split_whitespace())
            .map(|w| w.parse::<u32>().map_err(|_| bad(n, "a label is a number")))
            .collect::<Result<Vec<u32>, FormatError>>()?;
        let formula: Vec<&str> = lines.map(|(_, l)| l).collect();
        let formula = formula.join("\n");
        if !one_term(&formula) {
            return Err(bad(
                n + 1,
                "the invariant must be one balanced SMT-LIB term",
            ));
        }
        Ok(InvariantCertificate {
            unreachable,
            formula,
        })
    }
}

/// Whether `s` is one term: an atom, or one parenthesised list that
/// closes at its very end (so that, wrapped in an assertion, it cannot
/// close the assertion and issue commands of its own).
pub fn one_term(s: &str) -> bool {
    let s = s.trim();
    if !s.starts_with('(') {
        let atom = |c: char| c.is_alphanumeric() || "_.-#".contains(c);
        return !s.is_empty() && s.chars().all(atom);
    }
    let mut depth = 0i64;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '|' => quoted = !quoted,
            _ if quoted => {}
            '"' | ';' => return false,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0 && !quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_term_accepts_terms_and_nothing_more() {
        assert!(one_term("true"));
        assert!(one_term(" (and |pre.a1| (bvsle |pre.a[2]| #x00000003)) "));
        assert!(one_term("(= |pre.a)(| #x00000001)"));
        assert!(!one_term(""));
        assert!(!one_term("true false"));
        assert!(!one_term("(and a b)) (assert false"));
        assert!(!one_term("(and a b) (c)"));
        assert!(!one_term("(and a (b)"));
        assert!(!one_term("(and a b ; c)"));
    }

    #[test]
    fn the_text_form_reads_back() {
        let c = InvariantCertificate {
            unreachable: vec![1, 3],
            formula: "(bvsle |pre.a1| #x00000003)".into(),
        };
        let back = InvariantCertificate::parse(&c.to_text(), "c.inv").expect("parses");
        assert_eq!(back, c);
        assert!(InvariantCertificate::is_invariant_text(&c.to_text()));
        let e = InvariantCertificate::parse(
            "; rigor invariant certificate\n; unreachable x\ntrue",
            "c.inv",
        );
        assert!(e.is_err());
        let e = InvariantCertificate::parse(
            "; rigor invariant certificate\n; unreachable 1\ntrue) (assert false",
            "c.inv",
        );
        assert!(e.is_err());
    }
}
