//! Aldebaran `.aut` files: a header `des (initial, transitions, states)`
//! then one `(from, "label", to)` line per transition. Labels may also be
//! written unquoted; a quoted label may contain commas.

use super::{LabelledGraph, Lts, LtsBuilder};
use crate::source::{read_text, Diagnostic};

type Result<T> = std::result::Result<T, Diagnostic>;

/// Writes a system in `.aut` form (labels always quoted) to `out`,
/// transition by transition.
pub fn write_to(
    lts: &(impl LabelledGraph + ?Sized),
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let labels = lts.label_names();
    let header = (lts.initial(), lts.n_transitions(), lts.n_states());
    writeln!(out, "des ({}, {}, {})", header.0, header.1, header.2)?;
    let mut result = Ok(());
    lts.for_each_transition(&mut |t| {
        if result.is_ok() {
            result = writeln!(
                out,
                "({}, \"{}\", {})",
                t.from, labels[t.label as usize], t.to
            );
        }
    });
    result
}

/// A system in `.aut` form (labels always quoted), as one string.
pub fn write(lts: &(impl LabelledGraph + ?Sized)) -> String {
    let mut bytes = Vec::with_capacity(32 * lts.n_transitions() + 64);
    write_to(lts, &mut bytes).expect("writing to memory does not fail");
    String::from_utf8(bytes).expect("labels are strings")
}

/// Reads a `.aut` text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Lts> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (hl, header) = lines.next().ok_or_else(|| {
        Diagnostic::file(
            file,
            "empty file, expected `des (initial, transitions, states)`",
        )
    })?;
    let (initial, n_trans, n_states) = parse_header(file, hl as u32 + 1, header)?;
    let mut b = LtsBuilder::new();
    b.ensure_states(n_states);
    if n_states == 0 {
        return Err(Diagnostic::at(
            file,
            hl as u32 + 1,
            1,
            "a system needs at least one state",
        ));
    }
    if initial >= n_states {
        return Err(Diagnostic::at(
            file,
            hl as u32 + 1,
            1,
            format!("initial state {initial} is not below the state count {n_states}"),
        ));
    }
    b.initial(initial);
    let mut count = 0u32;
    for (ln, line) in lines {
        let ln = ln as u32 + 1;
        let (from, label, to) = parse_transition(file, ln, line)?;
        for (v, what) in [(from, "source"), (to, "target")] {
            if v >= n_states {
                return Err(Diagnostic::at(
                    file,
                    ln,
                    1,
                    format!("{what} state {v} is not below the state count {n_states}"),
                ));
            }
        }
        b.edge(from, &label, to);
        count += 1;
    }
    if count != n_trans {
        return Err(Diagnostic::at(
            file,
            hl as u32 + 1,
            1,
            format!("header says {n_trans} transitions, the file has {count}"),
        ));
    }
    Ok(b.finish())
}

/// Reads a `.aut` file.
pub fn read(path: &str) -> std::result::Result<Lts, super::ModelError> {
    Ok(parse(path, &read_text(path)?)?)
}

fn parse_header(file: &str, ln: u32, line: &str) -> Result<(u32, u32, u32)> {
    let bad = |col: usize, what: &str| {
        Diagnostic::at(
            file,
            ln,
            col as u32 + 1,
            format!("{what}; expected `des (initial, transitions, states)`"),
        )
    };
    let t = line.trim_start();
    let lead = line.len() - t.len();
    let rest = t
        .strip_prefix("des")
        .ok_or_else(|| bad(lead, "missing `des`"))?;
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| bad(lead + 3, "missing parentheses"))?;
    let nums: Vec<&str> = inner.split(',').map(str::trim).collect();
    if nums.len() != 3 {
        return Err(bad(lead + 3, "need three numbers"));
    }
    let mut v = [0u32; 3];
    for (k, n) in nums.iter().enumerate() {
        v[k] = n
            .parse()
            .map_err(|_| bad(lead + 3, &format!("`{n}` is not a number")))?;
    }
    Ok((v[0], v[1], v[2]))
}

fn parse_transition(file: &str, ln: u32, line: &str) -> Result<(u32, String, u32)> {
    let t = line.trim();
    let lead = (line.len() - line.trim_start().len()) as u32;
    let bad = |col: u32, what: &str| {
        Diagnostic::at(
            file,
            ln,
            col + 1,
            format!("{what}; expected `(from, \"label\", to)`"),
        )
    };
    let inner = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| bad(lead, "missing parentheses"))?;
    let first = inner.find(',').ok_or_else(|| bad(lead, "missing commas"))?;
    let last = inner
        .rfind(',')
        .ok_or_else(|| bad(lead, "missing commas"))?;
    if first == last {
        return Err(bad(lead, "need three fields"));
    }
    let from_s = inner[..first].trim();
    let from = from_s
        .parse()
        .map_err(|_| bad(lead + 1, &format!("`{from_s}` is not a state number")))?;
    let to_s = inner[last + 1..].trim();
    let to = to_s.parse().map_err(|_| {
        bad(
            lead + 2 + last as u32,
            &format!("`{to_s}` is not a state number"),
        )
    })?;
    let label = inner[first + 1..last].trim();
    let label = match label.strip_prefix('"') {
        Some(r) => r
            .strip_suffix('"')
            .ok_or_else(|| bad(lead + 2 + first as u32, "unterminated label"))?,
        None => label,
    };
    if label.is_empty() {
        return Err(bad(lead + 2 + first as u32, "empty label"));
    }
    Ok((from, label.to_string(), to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let text = "des (0, 3, 3)\n(0, \"a\", 1)\n(1, \"b, c\", 2)\n(2, tau, 0)\n";
        let l = parse("t.aut", text).unwrap();
        assert_eq!(l.n_states, 3);
        assert_eq!(l.labels, vec!["a", "b, c", "tau"]);
        let again = parse("t.aut", &write(&l)).unwrap();
        assert_eq!(l, again);
    }

    #[test]
    fn located_errors() {
        let e = parse("t.aut", "des (0, 2, 2)\n(0, \"a\", 1)\n").unwrap_err();
        assert!(e.message.contains("2 transitions"), "{e}");
        let e = parse("t.aut", "des (0, 1, 2)\n(0, \"a\", 5)\n").unwrap_err();
        assert_eq!(e.at.line, 2);
        let e = parse("t.aut", "des (0, 1, 2)\n  (x, \"a\", 1)\n").unwrap_err();
        assert_eq!((e.at.line, e.at.col), (2, 4));
        let e = parse("t.aut", "dex (0, 1, 2)\n").unwrap_err();
        assert_eq!(e.at.line, 1);
    }
}
