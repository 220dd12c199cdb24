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
    if !problem.is_empty() && problem.chars().all(|c| c.is_ascii_digit()) {
        format!("Problem{problem}")
    } else {
        problem.to_string()
    }
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

/// Escapes text for an XML attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The XML document for `answers` on model `model`; `date` (an
/// `xsd:dateTime` with a zone, e.g. `2026-01-01T10:00:05Z`) goes into every
/// `statedby`. The grammar needs at least one verdict: an empty list is an
/// error.
pub fn verdicts_xml(model: &str, answers: &[Answer], date: Option<&str>) -> Result<String, String> {
    if answers.is_empty() {
        return Err(
            "no answers to export: a propertiesverdict file needs at least one verdict".into(),
        );
    }
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(&format!(
        "<toolspecific tool=\"propertiesverdict\" version=\"{VERSION}\">\n"
    ));
    s.push_str(&format!(
        "  <modelreference modelname=\"{}\"/>\n",
        escape(model)
    ));
    let date = date
        .map(|d| format!(" date=\"{}\"", escape(d)))
        .unwrap_or_default();
    for a in answers {
        s.push_str(&format!(
            "  <verdict category=\"{}\" reference=\"{}\" value=\"{}\">\n",
            category(a.track),
            escape(&reference(a)),
            a.verdict
        ));
        s.push_str(&format!(
            "    <modelinstance reference=\"{}\"/>\n",
            escape(&instance(&a.problem))
        ));
        s.push_str(&format!(
            "    <statedby tool=\"rigor\" version=\"{}\"{date}/>\n",
            env!("CARGO_PKG_VERSION")
        ));
        s.push_str("  </verdict>\n");
    }
    s.push_str("</toolspecific>\n");
    Ok(s)
}

/// The current UTC time as an `xsd:dateTime`: `2026-11-22T18:20:23Z`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc_date(secs)
}

/// `secs` since 1970-01-01T00:00:00Z as an `xsd:dateTime` in UTC.
pub fn utc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since the epoch (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
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
    fn escapes_attributes() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
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
