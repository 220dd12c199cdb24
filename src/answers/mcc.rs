//! Answers as a Model Checking Contest `propertiesverdict` XML file
//! (grammar version 2.0, `shared/docs/seeds/001_*.txt`).
//!
//! The file is a `toolspecific` root (`tool="propertiesverdict"`,
//! `version="2.0"`), one `modelreference` naming the model, then one
//! `verdict` per answer with, in the grammar's order, the attributes
//! `category`, `reference`, `value`, a `modelinstance` naming the RERS
//! problem, and a `statedby` naming rigor and its version (and the date,
//! when given).
//!
//! RERS properties are about actions (input, output and error events), the
//! MCC's analogue of transition firing, so the categories are the MCC's
//! `Fireability` ones: reachability of an error label is
//! `ReachabilityFireability`, LTL `LTLFireability`, CTL `CTLFireability`.
//! A property's reference is `INSTANCE-CATEGORY-N`, like the MCC's formula
//! ids, with `INSTANCE` = `ProblemP` (or the problem name when it is not a
//! number) and `N` the RERS property number.

use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;

use super::{Answer, Track};

/// The grammar version written.
pub const VERSION: &str = "2.0";

/// The MCC category of a track.
pub fn category(track: Track) -> &'static str {
    match track {
        Track::Reach => "ReachabilityFireability",
        Track::Ltl => "LTLFireability",
        Track::Ctl => "CTLFireability",
    }
}

/// The model instance of a problem: `ProblemP`, or the name itself when it
/// is not a number (`m24`).
pub fn instance(problem: &str) -> String {
    super::naming::answer_stem(problem)
}

/// The reference of an answer's property: `Problem11-ReachabilityFireability-5`.
pub fn reference(a: &Answer) -> String {
    format!(
        "{}-{}-{}",
        instance(&a.problem),
        category(a.track),
        a.property
    )
}

/// Why no verdict file can be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The grammar needs at least one verdict.
    #[error("no answers to export: a propertiesverdict file needs at least one verdict")]
    NoAnswers,
}

/// The XML document for `answers` on model `model`; `date` (an
/// `xsd:dateTime` with a zone, e.g. `2026-01-01T10:00:05Z`) goes into every
/// `statedby`. The grammar needs at least one verdict: an empty list is an
/// error. Written with `quick-xml`, which escapes attribute values.
pub fn verdicts_xml(
    model: &str,
    answers: &[Answer],
    date: Option<&str>,
) -> Result<String, ExportError> {
    if answers.is_empty() {
        return Err(ExportError::NoAnswers);
    }
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let version = env!("CARGO_PKG_VERSION");
    // Writing to memory cannot fail.
    let written = "an XML writer on a Vec does not fail";
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .expect(written);
    w.create_element("toolspecific")
        .with_attributes([("tool", "propertiesverdict"), ("version", VERSION)])
        .write_inner_content(|w| {
            w.create_element("modelreference")
                .with_attribute(("modelname", model))
                .write_empty()?;
            for a in answers {
                let value = a.verdict.to_string();
                w.create_element("verdict")
                    .with_attributes([
                        ("category", category(a.track)),
                        ("reference", &reference(a)),
                        ("value", &value),
                    ])
                    .write_inner_content(|w| {
                        w.create_element("modelinstance")
                            .with_attribute(("reference", instance(&a.problem).as_str()))
                            .write_empty()?;
                        let mut by = w
                            .create_element("statedby")
                            .with_attributes([("tool", "rigor"), ("version", version)]);
                        if let Some(d) = date {
                            by = by.with_attribute(("date", d));
                        }
                        by.write_empty()?;
                        Ok(())
                    })?;
            }
            Ok(())
        })
        .expect(written);
    Ok(xml_text(w))
}

/// The text of an XML document written into memory, ending in a newline.
pub fn xml_text(w: quick_xml::Writer<Vec<u8>>) -> String {
    let mut text = String::from_utf8(w.into_inner()).expect("XML written from UTF-8 strings");
    text.push('\n');
    text
}

/// The current UTC time as an `xsd:dateTime`: `2026-11-22T18:20:23Z`.
pub fn utc_now() -> String {
    utc_date(time::OffsetDateTime::now_utc().unix_timestamp().max(0) as u64)
}

/// `secs` since 1970-01-01T00:00:00Z as an `xsd:dateTime` in UTC.
pub fn utc_date(secs: u64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(secs as i64)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    t.format(&format).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_instances() {
        let a = Answer::new("11", Track::Reach, 5, true);
        assert_eq!(reference(&a), "Problem11-ReachabilityFireability-5");
        let a = Answer::new("m24", Track::Ctl, 0, false);
        assert_eq!(reference(&a), "m24-CTLFireability-0");
    }

    #[test]
    fn document_shape() {
        let x = verdicts_xml(
            "RERS<2019>",
            &[Answer::new("1", Track::Ltl, 3, false)],
            Some("2026-01-01T10:00:05Z"),
        )
        .unwrap();
        assert!(x.contains("<modelreference modelname=\"RERS&lt;2019&gt;\"/>"));
        assert!(x.contains(
            "<verdict category=\"LTLFireability\" reference=\"Problem1-LTLFireability-3\" value=\"false\">"
        ));
        assert!(x.contains("date=\"2026-01-01T10:00:05Z\""));
        assert!(verdicts_xml("m", &[], None).is_err());
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_date(1_798_021_223), "2026-12-23T10:20:23Z");
    }
}
