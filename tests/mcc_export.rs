//! The Model Checking Contest's verdict XML: what `rigor export-verdicts`
//! writes follows the `propertiesverdict` 2.0 grammar, from hand-written
//! answers and from a `rigor reach` run on a real RERS problem.

use crate::common;

use common::{rigor_json, rigor_ok as rigor};
use std::process::Command;

#[test]
fn rigor_reach_output_feeds_score_and_export() {
    let Some(dir) = common::rers_dir() else {
        return;
    };
    let program = dir.join("2012/Problem1.c");
    let sol = dir.join("2012/Problem1-solutions.txt");
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("p1-reach.csv");
    let json = tmp.path().join("p1.json");
    std::fs::write(
        &csv,
        rigor(&["reach", program.to_str().unwrap(), "--quiet"]),
    )
    .unwrap();
    std::fs::write(
        &json,
        rigor(&["reach", program.to_str().unwrap(), "--quiet", "--json"]),
    )
    .unwrap();
    for answers in [&csv, &json] {
        let r = rigor_json(&[
            "score",
            answers.to_str().unwrap(),
            "--solution",
            sol.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(r["q"], 0, "rigor reach gave a wrong answer");
        let reach = &r["tracks"][0];
        assert_eq!(reach["track"], "reach");
        assert_eq!(reach["p"], reach["max_score"]);
        assert_eq!(reach["max_score"], 13 + 47 * 2);
        assert_eq!(r["unanswered"], 100, "the LTL properties are unanswered");
    }
    let xml = rigor(&[
        "export-verdicts",
        json.to_str().unwrap(),
        "--model",
        "RERS2012-Problem1",
    ]);
    check_propertiesverdict(&xml).unwrap();
    assert_eq!(xml.matches("<verdict ").count(), 60);
}

fn elements<'a, 'i>(n: roxmltree::Node<'a, 'i>) -> Vec<roxmltree::Node<'a, 'i>> {
    n.children().filter(|c| c.is_element()).collect()
}

/// Checks a document against the `propertiesverdict` 2.0 grammar (RELAX NG
/// compact, `shared/docs/seeds/001_*.txt`): element order, required and
/// allowed attributes (in the grammar's order), allowed values.
fn check_propertiesverdict(xml: &str) -> Result<(), String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let attrs = |n: roxmltree::Node| -> Vec<(String, String)> {
        n.attributes()
            .map(|a| (a.name().to_string(), a.value().to_string()))
            .collect()
    };
    let no_text = |n: roxmltree::Node| -> Result<(), String> {
        match n
            .children()
            .find(|c| c.is_text() && !c.text().unwrap_or("").trim().is_empty())
        {
            Some(_) => Err(format!("<{}> must not contain text", n.tag_name().name())),
            None => Ok(()),
        }
    };
    let root = doc.root_element();
    if root.tag_name().name() != "toolspecific" {
        return Err("root must be <toolspecific>".into());
    }
    let want = vec![
        ("tool".to_string(), "propertiesverdict".to_string()),
        ("version".into(), "2.0".into()),
    ];
    if attrs(root) != want {
        return Err(format!("toolspecific attributes {:?}", attrs(root)));
    }
    no_text(root)?;
    let kids = elements(root);
    let (first, verdicts) = kids.split_first().ok_or("toolspecific is empty")?;
    if first.tag_name().name() != "modelreference" {
        return Err("modelreference must come first".into());
    }
    match attrs(*first).as_slice() {
        [(n, _)] if n == "modelname" => {}
        a => return Err(format!("modelreference attributes {a:?}")),
    }
    if verdicts.is_empty() {
        return Err("at least one verdict".into());
    }
    let mcc_categories = [
        "StateSpace",
        "UpperBounds",
        "ReachabilityDeadlock",
        "QuasiLiveness",
        "StableMarking",
        "Liveness",
        "OneSafe",
        "ReachabilityFireability",
        "ReachabilityCardinality",
        "LTLFireability",
        "LTLCardinality",
        "CTLFireability",
        "CTLCardinality",
    ];
    let date = regex::Regex::new(r"^.+T.+(Z|[+-].+)$").unwrap();
    let url = regex::Regex::new(r"^https?://.*$").unwrap();
    for v in verdicts {
        if v.tag_name().name() != "verdict" {
            return Err(format!(
                "unexpected <{}> after modelreference",
                v.tag_name().name()
            ));
        }
        no_text(*v)?;
        let a = attrs(*v);
        let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
        if names != ["category", "reference", "value"] {
            return Err(format!("verdict attributes {names:?}"));
        }
        let (category, value) = (a[0].1.as_str(), a[2].1.as_str());
        if category == "GENERIC" || !mcc_categories.contains(&category) {
            return Err(format!(
                "category {category} is not an MCC formula category"
            ));
        }
        if !["true", "false", "unknown"].contains(&value) {
            return Err(format!("value {value}"));
        }
        // modelinstance*, explanation?, statedby?, techniques?, trace?
        let order = [
            "modelinstance",
            "explanation",
            "statedby",
            "techniques",
            "trace",
        ];
        let mut at = 0;
        let mut statedby = 0;
        for c in elements(*v) {
            let name = c.tag_name().name();
            let pos = order
                .iter()
                .position(|o| *o == name)
                .ok_or(format!("<{name}> in a verdict"))?;
            if pos < at || (pos == at && pos > 0) {
                return Err(format!("<{name}> out of order or repeated"));
            }
            at = pos;
            match name {
                "modelinstance" => {
                    let a = attrs(c);
                    if a.len() != 1 || a[0].0 != "reference" {
                        return Err(format!("modelinstance attributes {a:?}"));
                    }
                }
                "statedby" => {
                    statedby += 1;
                    let a = attrs(c);
                    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
                    let allowed = [
                        &["tool", "version"][..],
                        &["tool", "version", "date"],
                        &["tool", "version", "reference"],
                        &["tool", "version", "date", "reference"],
                    ];
                    if !allowed.contains(&names.as_slice()) {
                        return Err(format!("statedby attributes {names:?}"));
                    }
                    for (n, val) in &a {
                        if n == "date" && !date.is_match(val) {
                            return Err(format!("date {val}"));
                        }
                        if n == "reference" && !url.is_match(val) {
                            return Err(format!("reference {val}"));
                        }
                    }
                    if a[0].1 != "rigor" || a[1].1 != env!("CARGO_PKG_VERSION") {
                        return Err(format!("statedby names {a:?}"));
                    }
                }
                _ => {}
            }
        }
        if statedby != 1 {
            return Err("each verdict must be stated by rigor".into());
        }
    }
    Ok(())
}

#[test]
fn exported_xml_follows_the_grammar() {
    let tmp = tempfile::tempdir().unwrap();
    let answers = tmp.path().join("answers.csv");
    std::fs::write(
        &answers,
        "problem,track,property,verdict\n11,reach,5,true\n1,ltl,0,false\nm24,ctl,3,true\n",
    )
    .unwrap();
    let out = tmp.path().join("v.xml");
    rigor(&[
        "export-verdicts",
        answers.to_str().unwrap(),
        "--model",
        "RERS & co",
        "-o",
        out.to_str().unwrap(),
    ]);
    let xml = std::fs::read_to_string(&out).unwrap();
    check_propertiesverdict(&xml).unwrap();
    assert!(xml.contains("modelname=\"RERS &amp; co\""));
    assert!(xml.contains("reference=\"Problem11-ReachabilityFireability-5\" value=\"true\""));
    assert!(xml.contains("reference=\"Problem1-LTLFireability-0\" value=\"false\""));
    assert!(xml.contains("<modelinstance reference=\"m24\"/>"));
    let fixed = rigor(&[
        "export-verdicts",
        answers.to_str().unwrap(),
        "--model",
        "M",
        "--no-date",
    ]);
    check_propertiesverdict(&fixed).unwrap();
    assert!(!fixed.contains("date="));

    // The checker itself rejects what the grammar rejects...
    let bad_date = regex::Regex::new(r#"date="[^"]*""#).unwrap();
    let bad = [
        xml.replace("version=\"2.0\"", "version=\"1.0\""),
        xml.replace("<modelreference modelname=\"RERS &amp; co\"/>", ""),
        xml.replace("value=\"true\"", "value=\"1\""),
        xml.replace("category=\"LTLFireability\"", "category=\"LTL\""),
        xml.replacen("tool=\"rigor\" version", "version", 1),
        bad_date.replace(&xml, "date=\"yesterday\"").to_string(),
        xml.replacen("</verdict>", "<explanation>x</explanation></verdict>", 1),
        xml.replacen(
            "</verdict>",
            "<modelinstance reference=\"x\"/></verdict>",
            1,
        ),
    ];
    for (i, b) in bad.iter().enumerate() {
        assert!(
            check_propertiesverdict(b).is_err(),
            "case {i} accepted:\n{b}"
        );
    }
    // ... and accepts what it allows: an explanation before statedby.
    let ok = xml.replacen("<statedby", "<explanation>x</explanation><statedby", 1);
    check_propertiesverdict(&ok).unwrap();

    // No answers: an error, not an empty document.
    let empty = tmp.path().join("none-reach.csv");
    std::fs::write(&empty, "").unwrap();
    let st = Command::new(common::rigor_bin())
        .args(["export-verdicts", empty.to_str().unwrap(), "--model", "M"])
        .output()
        .unwrap();
    assert!(!st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("at least one verdict"));
}
