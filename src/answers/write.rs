//! Writing answers: the one place RERS answer lines are made
//! (`grammars/answers.ebnf`). Lines go through [`csv::Writer`], quoting a
//! field only where it needs it, so an ordinary answer reads
//! `problem,property,verdict` and a problem name with a comma or a quote
//! in it still makes a well-formed line.
//!
//! [`AnswerWriter`] writes line by line and flushes each one (the stream
//! of a run, so that a killed run keeps its answers); [`answer_csv`] makes
//! the text of a whole file.

use std::fmt::Display;
use std::io::{self, Write};

use super::Track;

/// Writes RERS answer lines to `W`, each flushed when written.
pub struct AnswerWriter<W: Write> {
    csv: csv::Writer<W>,
}

impl<W: Write> AnswerWriter<W> {
    /// A writer of answer lines to `out` (no header).
    pub fn new(out: W) -> AnswerWriter<W> {
        let csv = csv::WriterBuilder::new()
            .has_headers(false)
            .flexible(true)
            .quote_style(csv::QuoteStyle::Necessary)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        AnswerWriter { csv }
    }

    /// Writes `problem,property,verdict`, or
    /// `problem,track,property,verdict` when `track` is given (a file
    /// whose answers span several tracks), and flushes it.
    pub fn answer(
        &mut self,
        problem: &str,
        track: Option<Track>,
        property: impl Display,
        verdict: bool,
    ) -> io::Result<()> {
        let property = property.to_string();
        let verdict = if verdict { "true" } else { "false" };
        let written = match track {
            Some(t) => self
                .csv
                .write_record([problem, t.name(), &property, verdict]),
            None => self.csv.write_record([problem, &property, verdict]),
        };
        written.map_err(io::Error::other)?;
        self.csv.flush()
    }

    /// The destination, everything written flushed.
    pub fn into_inner(self) -> io::Result<W> {
        self.csv.into_inner().map_err(|e| e.into_error())
    }
}

/// One answer of a file: problem, track, property, verdict.
pub type AnswerRow<'a, P> = (&'a str, Track, P, bool);

/// The text of an answer file: one line per answer, in the order given,
/// with a track column only when `track_column`.
pub fn answer_csv<'a, P: Display>(
    rows: impl IntoIterator<Item = AnswerRow<'a, P>>,
    track_column: bool,
) -> String {
    let mut w = AnswerWriter::new(Vec::new());
    for (problem, track, property, verdict) in rows {
        let track = track_column.then_some(track);
        // Writing to memory cannot fail: no I/O, and every record is
        // accepted (the writer is flexible).
        if w.answer(problem, track, property, verdict).is_err() {
            break;
        }
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_and_quoted_fields() {
        let rows = [
            ("11", Track::Reach, 3u32, true),
            ("a,b", Track::Ltl, 0, false),
        ];
        assert_eq!(answer_csv(rows, false), "11,3,true\n\"a,b\",0,false\n");
        assert_eq!(
            answer_csv(rows, true),
            "11,reach,3,true\n\"a,b\",ltl,0,false\n"
        );
    }

    #[test]
    fn streamed_lines_are_flushed_one_by_one() {
        let mut w = AnswerWriter::new(Vec::new());
        w.answer("m24", None, 7, false).unwrap();
        assert_eq!(w.csv.get_ref().as_slice(), b"m24,7,false\n");
        w.answer("m24", None, 8, true).unwrap();
        assert_eq!(w.into_inner().unwrap(), b"m24,7,false\nm24,8,true\n");
    }

    #[test]
    fn what_is_written_reads_back() {
        let rows = [
            ("12", Track::Reach, 5u32, true),
            ("12", Track::Reach, 6, false),
        ];
        let text = answer_csv(rows, false);
        let opts = crate::answers::read::ReadOptions {
            track: Some(Track::Reach),
            ..Default::default()
        };
        let back = crate::answers::read::parse("a.csv", &text, &opts).unwrap();
        let back = back.answers().unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!((back[0].property, back[0].verdict), (5, true));
    }
}
