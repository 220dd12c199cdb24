//! Task-definition files (SV-COMP format 2.0): the program, its properties
//! with their expected verdicts, the language and data model.
//!
//! ```yaml
//! format_version: '2.0'
//! input_files: 'Problem01_label20.c'      # a string or a list
//! properties:
//!   - property_file: ../properties/unreach-call.prp
//!     expected_verdict: false
//! options:
//!   language: C
//!   data_model: ILP32
//! ```
//!
//! Paths are resolved relative to the task file. The expected verdicts are
//! read for reports only: nothing decides with them.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use super::SvcompError;
use crate::source::{read_text, Diagnostic};

/// One task-definition file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// The task file.
    pub path: String,
    /// `format_version`.
    pub format_version: String,
    /// The programs (`input_files`), resolved.
    pub input_files: Vec<String>,
    /// The properties, in the file's order.
    pub properties: Vec<TaskProperty>,
    /// `options.language` (`C` when absent).
    pub language: String,
    /// `options.data_model` (`ILP32`, `LP64`), if given.
    pub data_model: Option<String>,
}

/// One entry of `properties`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskProperty {
    /// The property file, resolved.
    pub property_file: String,
    /// `expected_verdict`, if given.
    pub expected_verdict: Option<bool>,
    /// `subproperty` (memory safety), if given.
    pub subproperty: Option<String>,
}

/// Reads the task file at `path`.
pub fn read_task(path: &str) -> Result<Task, SvcompError> {
    parse_task(path, &read_text(path)?)
}

/// Parses the task file `text` read from `path`.
pub fn parse_task(path: &str, text: &str) -> Result<Task, SvcompError> {
    let bad = |message: String| SvcompError::Task(Diagnostic::file(path, message));
    let docs = YamlLoader::load_from_str(text).map_err(|e| {
        let m = e.marker();
        SvcompError::Task(Diagnostic::at(
            path,
            m.line() as u32,
            m.col() as u32 + 1,
            format!("not YAML: {}", e.info()),
        ))
    })?;
    let doc = match docs.as_slice() {
        [d @ Yaml::Hash(_)] => d,
        _ => return Err(bad("a task file is one YAML mapping".into())),
    };
    let format_version = match &doc["format_version"] {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::BadValue => return Err(bad("no `format_version`".into())),
        _ => return Err(bad("`format_version` is not a version string".into())),
    };
    if !format_version.starts_with("2.") {
        return Err(bad(format!(
            "task-definition format {format_version}: rigor reads format 2.x"
        )));
    }
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let resolve = |f: &str| dir.join(f).to_string_lossy().into_owned();
    let input_files = match &doc["input_files"] {
        Yaml::String(s) => vec![resolve(s)],
        Yaml::Array(a) => (a.iter())
            .map(|f| f.as_str().map(resolve))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| bad("`input_files` holds something other than file names".into()))?,
        _ => {
            return Err(bad(
                "no `input_files` (a file name or a list of them)".into()
            ))
        }
    };
    if input_files.is_empty() {
        return Err(bad("`input_files` is empty".into()));
    }
    let properties = match &doc["properties"] {
        Yaml::Array(a) => a
            .iter()
            .map(|p| {
                let file = p["property_file"]
                    .as_str()
                    .ok_or_else(|| bad("a property without `property_file`".into()))?;
                let expected_verdict = match &p["expected_verdict"] {
                    Yaml::Boolean(b) => Some(*b),
                    Yaml::BadValue | Yaml::Null => None,
                    _ => {
                        return Err(bad(format!(
                            "{file}: `expected_verdict` is not true or false"
                        )))
                    }
                };
                Ok(TaskProperty {
                    property_file: resolve(file),
                    expected_verdict,
                    subproperty: p["subproperty"].as_str().map(str::to_string),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Yaml::BadValue | Yaml::Null => Vec::new(),
        _ => return Err(bad("`properties` is not a list".into())),
    };
    let options = &doc["options"];
    Ok(Task {
        path: path.to_string(),
        format_version,
        input_files,
        properties,
        language: options["language"].as_str().unwrap_or("C").to_string(),
        data_model: options["data_model"].as_str().map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "format_version: '2.0'\n\n# old file name: x.c\ninput_files: 'P.c'\n\nproperties:\n  - property_file: ../properties/termination.prp\n    expected_verdict: false\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\n\noptions:\n  language: C\n  data_model: ILP32\n";

    #[test]
    fn reads_the_sv_benchmarks_shape() {
        let t = parse_task("tasks/dir/P.yml", TASK).unwrap();
        assert_eq!(t.format_version, "2.0");
        assert_eq!(t.input_files, vec!["tasks/dir/P.c"]);
        assert_eq!(t.properties.len(), 2);
        assert_eq!(
            t.properties[1].property_file,
            "tasks/dir/../properties/unreach-call.prp"
        );
        assert_eq!(t.properties[1].expected_verdict, Some(true));
        assert_eq!(t.language, "C");
        assert_eq!(t.data_model.as_deref(), Some("ILP32"));
    }

    #[test]
    fn input_files_may_be_a_list() {
        let t = parse_task("P.yml", "format_version: '2.0'\ninput_files: [a.c, b.c]\n").unwrap();
        assert_eq!(t.input_files, vec!["a.c", "b.c"]);
        assert!(t.properties.is_empty());
    }

    #[test]
    fn bad_tasks_are_located_errors() {
        for (text, want) in [
            ("input_files: a.c\n", "no `format_version`"),
            ("format_version: '1.0'\ninput_files: a.c\n", "format 1.0"),
            ("format_version: '2.0'\n", "no `input_files`"),
            ("format_version: '2.0'\ninput_files: a.c\nproperties: 3\n", "not a list"),
            ("format_version: '2.0'\ninput_files: a.c\nproperties:\n  - expected_verdict: true\n", "without `property_file`"),
            ("format_version: [\n", "P.yml:"),
            ("- 1\n- 2\n", "one YAML mapping"),
        ] {
            let e = parse_task("P.yml", text).unwrap_err().to_string();
            assert!(e.contains(want) && e.starts_with("P.yml"), "{text:?}: {e}");
        }
    }
}
