//! SV-COMP property files (`.prp`): `CHECK( init(main()), LTL(...) )`.
//!
//! rigor decides `unreach-call`, `G ! call(f())`: no run of `main` calls
//! `f` (`reach_error` in the sv-benchmarks tasks, `reach_error_N` in the
//! per-label properties of `eca-rers2018`). The other SV-COMP properties
//! are recognised by name so that they can be answered `UNKNOWN`.

use std::sync::OnceLock;

use regex::Regex;

use super::SvcompError;
use crate::source::{read_text, Diagnostic};

/// What a property file asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// `G ! call(function())`: `function` is never called.
    UnreachCall {
        /// The function that must not be called.
        function: String,
    },
    /// A property rigor does not decide (`termination`, `valid-memsafety`,
    /// `no-overflow`, `no-data-race`, coverage ...), by its SV-COMP name.
    Other {
        /// The property's name, as in `FALSE(name)`.
        name: String,
    },
}

impl Property {
    /// The property's SV-COMP name (`unreach-call`, `termination`, ...).
    pub fn name(&self) -> &str {
        match self {
            Property::UnreachCall { .. } => "unreach-call",
            Property::Other { name } => name,
        }
    }
}

/// A property file: its path, its text (the `specification` of a witness)
/// and what it asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyFile {
    /// The file.
    pub path: String,
    /// The `CHECK(...)` text, trimmed.
    pub specification: String,
    /// What it asks.
    pub property: Property,
}

/// SV-COMP's `unreach-call.prp`, `G ! call(reach_error())`, for programs
/// given without a property file.
pub fn unreach_call() -> PropertyFile {
    PropertyFile {
        path: "unreach-call.prp".into(),
        specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )".into(),
        property: Property::UnreachCall {
            function: "reach_error".into(),
        },
    }
}

/// Reads the property file at `path`.
pub fn read_property(path: &str) -> Result<PropertyFile, SvcompError> {
    parse_property(path, &read_text(path)?)
}

/// Parses the property file `text` read from `path`.
pub fn parse_property(path: &str, text: &str) -> Result<PropertyFile, SvcompError> {
    static CHECK: OnceLock<Regex> = OnceLock::new();
    static UNREACH: OnceLock<Regex> = OnceLock::new();
    let check = CHECK.get_or_init(|| {
        Regex::new(r"^CHECK\s*\(\s*init\s*\(\s*(\w+)\s*\(\s*\)\s*\)\s*,\s*(.*)\)$")
            .expect("valid regex")
    });
    let unreach = UNREACH.get_or_init(|| {
        Regex::new(r"^LTL\s*\(\s*G\s*!\s*call\s*\(\s*(\w+)\s*\(\s*\)\s*\)\s*\)$")
            .expect("valid regex")
    });
    let lines: Vec<(usize, &str)> = (text.lines().enumerate())
        .map(|(k, l)| (k + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with("//"))
        .collect();
    if lines.is_empty() {
        return Err(SvcompError::Property(Diagnostic::file(
            path,
            "no property in the file",
        )));
    }
    let mut asks = Vec::new();
    for &(n, line) in &lines {
        let Some(c) = check.captures(line) else {
            return Err(SvcompError::Property(Diagnostic::at(
                path,
                n as u32,
                1,
                "expected `CHECK( init(main()), LTL(...) )`",
            )));
        };
        if &c[1] != "main" {
            return Err(SvcompError::Property(Diagnostic::at(
                path,
                n as u32,
                1,
                format!(
                    "the entry function is `{}`; rigor checks tasks that start in `main`",
                    &c[1]
                ),
            )));
        }
        asks.push(c[2].trim().to_string());
    }
    let property = match asks.as_slice() {
        [one] => match unreach.captures(one) {
            Some(u) => Property::UnreachCall {
                function: u[1].to_string(),
            },
            None => Property::Other {
                name: other_name(&asks),
            },
        },
        _ => Property::Other {
            name: other_name(&asks),
        },
    };
    Ok(PropertyFile {
        path: path.to_string(),
        specification: lines.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n"),
        property,
    })
}

/// The SV-COMP name of a property rigor does not decide, from its formulas.
fn other_name(asks: &[String]) -> String {
    let all = asks.join(" ");
    let name = if all.contains("valid-free") || all.contains("valid-deref") {
        "valid-memsafety"
    } else if all.contains("valid-memcleanup") {
        "valid-memcleanup"
    } else if all.contains("F end") {
        "termination"
    } else if all.contains("overflow") {
        "no-overflow"
    } else if all.contains("data-race") {
        "no-data-race"
    } else if all.contains("COVER") {
        "coverage"
    } else {
        "unsupported"
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_unreach_call_properties() {
        let p = parse_property(
            "u.prp",
            "CHECK( init(main()), LTL(G ! call(reach_error())) )\n\n",
        )
        .unwrap();
        assert_eq!(
            p.property,
            Property::UnreachCall {
                function: "reach_error".into()
            }
        );
        assert_eq!(p.property.name(), "unreach-call");
        assert_eq!(
            p.specification,
            "CHECK( init(main()), LTL(G ! call(reach_error())) )"
        );
        let p = parse_property(
            "u17.prp",
            "CHECK(init(main()),LTL(G!call(reach_error_17())))",
        )
        .unwrap();
        assert_eq!(
            p.property,
            Property::UnreachCall {
                function: "reach_error_17".into()
            }
        );
    }

    #[test]
    fn other_properties_are_named() {
        for (text, name) in [
            ("CHECK( init(main()), LTL(F end) )", "termination"),
            ("CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )", "valid-memsafety"),
            ("CHECK( init(main()), LTL(G ! overflow) )", "no-overflow"),
        ] {
            assert_eq!(parse_property("p.prp", text).unwrap().property.name(), name);
        }
    }

    #[test]
    fn bad_property_files_are_located() {
        for (text, want) in [
            ("", "p.prp: no property"),
            (
                "CHECK( init(main()), LTL(G ! call(f())) )\nnonsense\n",
                "p.prp:2:1: expected",
            ),
            (
                "CHECK( init(start()), LTL(G ! call(f())) )",
                "p.prp:1:1: the entry function is `start`",
            ),
        ] {
            let e = parse_property("p.prp", text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
