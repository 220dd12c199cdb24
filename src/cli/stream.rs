//! Answers written the moment they are proved, so that a run that is
//! killed or interrupted keeps them: RERS CSV lines on stdout and witness
//! lines in the `--witness` file, each flushed at once and each written
//! only once (the end of the run writes the answers not written yet). An
//! answer that contradicts one written before stops the run with an error
//! naming both ([`Error::Contradiction`]).

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::sync::Mutex;

use crate::answers::witness::witness_line;
use crate::answers::write::AnswerWriter;
use crate::error::Error;

/// Where a run's answers go as they come.
pub struct AnswerStream {
    problem: String,
    inner: Mutex<Written>,
}

/// What has been written so far.
struct Written {
    /// The CSV lines' destination, stdout (not with `--json`).
    csv: Option<AnswerWriter<std::io::Stdout>>,
    witness: Option<(String, File)>,
    /// The answers written, by property.
    answered: HashMap<usize, bool>,
    /// The first answer that contradicted one written before.
    contradiction: Option<Error>,
    /// Raised on a contradiction, to stop the run.
    stop: Option<crate::runtime::Cancel>,
    error: Option<Error>,
}

impl AnswerStream {
    /// A stream for `problem`'s answers: CSV lines on stdout when `csv`,
    /// witness lines in the file `witness` (created now, empty).
    pub fn new(problem: String, csv: bool, witness: Option<&str>) -> Result<AnswerStream, Error> {
        let witness = match witness {
            Some(path) => Some((
                path.to_string(),
                File::create(path).map_err(|e| Error::write(path, e))?,
            )),
            None => None,
        };
        Ok(AnswerStream {
            problem,
            inner: Mutex::new(Written {
                csv: csv.then(|| AnswerWriter::new(std::io::stdout())),
                witness,
                answered: HashMap::new(),
                contradiction: None,
                stop: None,
                error: None,
            }),
        })
    }

    /// The stream of a run on `program`: CSV lines unless `json`, witness
    /// lines in `witness`.
    pub fn for_run(
        program: &str,
        json: bool,
        witness: Option<&str>,
    ) -> Result<std::sync::Arc<AnswerStream>, Error> {
        let problem = crate::answers::naming::problem_name(program);
        Ok(std::sync::Arc::new(AnswerStream::new(
            problem, !json, witness,
        )?))
    }

    /// Raises `stop` (the run's cancellation) when an answer contradicts
    /// one written before.
    pub fn stop_on_contradiction(&self, stop: crate::runtime::Cancel) {
        if let Ok(mut w) = self.inner.lock() {
            w.stop = Some(stop);
        }
    }

    /// Writes the answer `verdict` for `property`, and its witness line
    /// (`property,witness`) if it has one, unless that property was
    /// answered already. The other answer for a property answered before
    /// is a contradiction: nothing is written, the run is stopped, and
    /// [`AnswerStream::finish`] reports it.
    pub fn answer(&self, property: usize, verdict: bool, witness: Option<&str>) {
        let Ok(mut w) = self.inner.lock() else {
            return;
        };
        match w.answered.get(&property) {
            Some(&first) if first != verdict => {
                if w.contradiction.is_none() {
                    w.contradiction = Some(Error::Contradiction {
                        property,
                        first,
                        second: verdict,
                        witness: witness.map(str::to_string),
                    });
                }
                if let Some(stop) = &w.stop {
                    stop.cancel();
                }
                return;
            }
            Some(_) => return,
            None => {
                w.answered.insert(property, verdict);
            }
        }
        if let Some(out) = w.csv.as_mut() {
            if let Err(e) = out.answer(&self.problem, None, property, verdict) {
                w.error.get_or_insert(Error::write("standard output", e));
            }
        }
        if let (Some(text), Some((path, file))) = (witness, w.witness.as_mut()) {
            let line = witness_line(property, text);
            if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
                let e = Error::write(path.clone(), e);
                w.error.get_or_insert(e);
            }
        }
    }

    /// The first contradiction, else the first error met while writing,
    /// if any.
    pub fn finish(self) -> Result<(), Error> {
        match self.inner.into_inner() {
            Ok(w) => w.contradiction.or(w.error).map_or(Ok(()), Err),
            Err(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_answer_is_written_once_with_its_witness() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("w.txt");
        let s = AnswerStream::new("7".into(), false, Some(path.to_str().unwrap())).unwrap();
        s.answer(3, true, Some("iA iB"));
        s.answer(3, true, Some("iA iB iC"));
        s.answer(4, false, None);
        s.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "3,iA iB\n");
    }

    #[test]
    fn a_contradicting_answer_stops_the_run_and_names_both() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("w.txt");
        let s = AnswerStream::new("7".into(), false, Some(path.to_str().unwrap())).unwrap();
        let stop = crate::runtime::Cancel::new();
        s.stop_on_contradiction(stop.clone());
        s.answer(3, false, None);
        s.answer(3, false, None);
        assert!(
            !stop.is_cancelled(),
            "the same answer twice is no contradiction"
        );
        s.answer(3, true, Some("iA iB"));
        assert!(stop.is_cancelled());
        s.answer(4, true, Some("iC"));
        let e = s.finish().unwrap_err().to_string();
        assert!(
            e.contains("property 3") && e.contains("false") && e.contains("true"),
            "{e}"
        );
        assert!(e.contains("iA iB"), "{e}");
        // The contradicting witness is not written.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "4,iC\n");
    }

    #[test]
    fn an_unwritable_witness_file_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("no/such/dir/w.txt");
        assert!(AnswerStream::new("7".into(), false, Some(path.to_str().unwrap())).is_err());
    }
}
