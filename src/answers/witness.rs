//! Reachability witness files (`grammars/witness.ebnf`): one
//! `label,input input ...` line per reachable label, as `rigor reach
//! --witness` writes them and `rigor validate` reads them.

use super::AnswerError;
use crate::source::{read_text, Diagnostic};

/// One witness: the error label and the names of its inputs.
pub type Witness = (u32, Vec<String>);

/// Reads a witness file into `(label, input names)` pairs.
pub fn read_witnesses(path: &str) -> Result<Vec<Witness>, AnswerError> {
    parse_witnesses(path, &read_text(path)?)
}

/// Parses the text of a witness file read from `path`.
pub fn parse_witnesses(path: &str, text: &str) -> Result<Vec<Witness>, AnswerError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i as u32 + 1;
        let bad = |m: String| AnswerError::Invalid(Diagnostic::at(path, ln, 0, m));
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (label, seq) = line
            .split_once(',')
            .ok_or_else(|| bad("expected `label,input input ...`".into()))?;
        let label = label.trim();
        let label: u32 = (label.strip_prefix("error_").unwrap_or(label).parse())
            .map_err(|_| bad(format!("expected an error label number, found `{label}`")))?;
        out.push((label, seq.split_whitespace().map(str::to_string).collect()));
    }
    Ok(out)
}

/// The text of a witness file: one `label,input input ...` line each.
pub fn write_witnesses<'a>(witnesses: impl IntoIterator<Item = (u32, &'a [String])>) -> String {
    let mut s = String::new();
    for (label, inputs) in witnesses {
        s.push_str(&witness_line(label, &inputs.join(" ")));
    }
    s
}

/// One witness line: the property, a comma, then the witness as the rest
/// of the line: inputs separated by spaces for a label, the RERS lasso
/// `[a, b] ([c])*` for an LTL property. Not a CSV record: a reader splits
/// at the first comma only, so the lasso's commas are not quoted.
pub fn witness_line(property: impl std::fmt::Display, witness: &str) -> String {
    format!("{property},{witness}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let a = ["A".to_string(), "B".to_string()];
        let text = write_witnesses([(3, &a[..]), (5, &[][..])]);
        let back = parse_witnesses("w.txt", &format!("# c\n\n{text}error_7,C\n")).unwrap();
        assert_eq!(
            back,
            [(3, a.to_vec()), (5, vec![]), (7, vec!["C".to_string()])]
        );
        let e = parse_witnesses("w.txt", "x,A\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("w.txt:1: expected an error label"),
            "{e}"
        );
    }
}
