//! Tests of the answer readers, one per format and per error.

use super::*;

fn read(path: &str, text: &str) -> Result<AnswerFile> {
    parse(path, text, &ReadOptions::default())
}

fn triples(f: &AnswerFile) -> Vec<(String, Track, u32, bool)> {
    f.answers()
        .unwrap()
        .into_iter()
        .map(|a| (a.problem, a.track, a.property, a.verdict))
        .collect()
}

fn t(p: &str, tr: Track, n: u32, v: bool) -> (String, Track, u32, bool) {
    (p.to_string(), tr, n, v)
}

#[test]
fn rers_csv_with_track_from_file_name() {
    let f = read("out/reach-11.csv", "11,3,true\n11,4,false\n").unwrap();
    assert_eq!(f.format, Format::RersCsv);
    assert_eq!(
        triples(&f),
        [
            t("11", Track::Reach, 3, true),
            t("11", Track::Reach, 4, false)
        ]
    );
}

#[test]
fn rers_csv_without_track_needs_context() {
    let f = read("answers.csv", "11,3,true\n").unwrap();
    let e = f
        .answers()
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert!(e.message.contains("--track"), "{e}");
    assert_eq!(e.at.line, 1);
    let a = f
        .answers_with(|p| (p == "11").then_some(Track::Reach))
        .unwrap();
    assert_eq!(a, [Answer::new("11", Track::Reach, 3, true)]);
    let opts = ReadOptions {
        track: Some(Track::Ltl),
        ..Default::default()
    };
    let f = parse("answers.csv", "11,3,true\n", &opts).unwrap();
    assert_eq!(f.answers().unwrap()[0].track, Track::Ltl);
}

#[test]
fn property_csv_takes_problem_from_folder() {
    let f = read("x/Problem2/constraints-solution.csv", "0,false\n1,TRUE\n").unwrap();
    assert_eq!(f.format, Format::PropertyCsv);
    assert_eq!(
        triples(&f),
        [t("2", Track::Ltl, 0, false), t("2", Track::Ltl, 1, true)]
    );
    let f = read("Problem1402_reachability_solutions.csv", "7,yes\n").unwrap();
    assert_eq!(triples(&f), [t("1402", Track::Reach, 7, true)]);
}

#[test]
fn csv_2012_splits_labels_and_formulas() {
    let text = "0,no,9\n60,no,9\n61,yes,9\n160,no,9\n";
    let f = read("Problem3-solutions.csv", text).unwrap();
    assert_eq!(f.format, Format::Csv2012);
    assert_eq!(
        triples(&f),
        [
            t("3", Track::Reach, 0, false),
            t("3", Track::Ltl, 0, true),
            t("3", Track::Ltl, 99, false)
        ]
    );
    // Label 60 is kept when said reachable, or when asked for.
    let f = read("Problem3-solutions.csv", "60,yes,9\n").unwrap();
    assert_eq!(triples(&f), [t("3", Track::Reach, 60, true)]);
    let opts = ReadOptions {
        labels: Some(61),
        ..Default::default()
    };
    let f = parse("Problem3-solutions.csv", text, &opts).unwrap();
    assert_eq!(
        f.answers().unwrap()[1],
        Answer::new("3", Track::Reach, 60, false)
    );
}

#[test]
fn track_csv_and_headers() {
    let f = read(
        "a.csv",
        "problem,track,property,verdict\n1,ltl,0,true\n11,reach,error_5,no\n",
    )
    .unwrap();
    assert_eq!(f.format, Format::HeadedCsv);
    assert_eq!(
        triples(&f),
        [t("1", Track::Ltl, 0, true), t("11", Track::Reach, 5, false)]
    );
    let f = read("a.csv", "1,ltl,0,true\n").unwrap();
    assert_eq!(f.format, Format::TrackCsv);
    assert_eq!(triples(&f), [t("1", Track::Ltl, 0, true)]);
}

#[test]
fn bbc_rows_are_refuted_properties() {
    let text =
        "problem,learner,property,fixed,relative\n1,TTT,25,0,0\n1,TTT,12,0,0\n1,TTT,25,3,0\n";
    let f = read("Problem1-TTT.csv", text).unwrap();
    assert_eq!(f.format, Format::BbcCsv);
    assert_eq!(f.tool.as_deref(), Some("TTT"));
    assert_eq!(
        triples(&f),
        [t("1", Track::Ltl, 25, false), t("1", Track::Ltl, 12, false)]
    );
    let f = read(
        "bbc/Problem8-MalerPnueli.csv",
        "problem,learner,property,fixed\n",
    )
    .unwrap();
    assert_eq!(
        (f.format, f.tool.as_deref()),
        (Format::BbcCsv, Some("MalerPnueli"))
    );
    assert!(f.entries.is_empty());
    let e = read("x.csv", "problem,learner,property\n1,TTT,2\n1,ADT,3\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 3);
}

#[test]
fn unknown_answers_are_left_out() {
    let f = read("reach.csv", "\u{feff}11,1,unknown\r\n11,2,true\r\n").unwrap();
    assert_eq!(triples(&f), [t("11", Track::Reach, 2, true)]);
}

#[test]
fn malformed_lines_name_file_and_line() {
    let e = read("reach.csv", "11,1,true\n11,2,maybe\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!((e.at.file.as_str(), e.at.line), ("reach.csv", 2));
    let e = read("reach.csv", "11,1,true\n\n11,true\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 3);
    let e = read("reach.csv", "hello world\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 1);
    let e = read("reach.csv", "11,x,true\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert!(e.message.contains("bad property"), "{e}");
    let e = read("Problem1-solutions.csv", "0,no,9\n1,no,high\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 2);
}

#[test]
fn conflicting_answers_are_an_error() {
    let f = read("reach.csv", "11,1,true\n11,1,true\n11,1,false\n").unwrap();
    let e = f
        .answers()
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 3);
    assert!(e.message.contains("line 1"), "{e}");
}

const TEXT_2012: &str = "Reachability problems:
===============================
error_44 reachable via input sequence
[A, B, C, A]
---------------

All other errors unreachable


LTL problems:
===============================
Formula: (! oZ WU (oU & ! oZ))
\"output U occurs before output Z\"
Formula is satisfied.
---------------

Formula: (! oV WU oX)
\"output V does never occur before output X\"
Formula is not satisfied! An error path is 
[iB, oV] ([iA, oX])*
---------------

1 constraints satisfied, 1 unsatisfied.
";

#[test]
fn solution_text_2012() {
    let f = read("Problem1-solutions.txt", TEXT_2012).unwrap();
    assert_eq!(f.format, Format::SolutionText);
    let a = triples(&f);
    assert_eq!(a.len(), 62);
    assert!(a.contains(&t("1", Track::Reach, 44, true)));
    assert!(a.contains(&t("1", Track::Reach, 0, false)));
    assert!(a.contains(&t("1", Track::Reach, 59, false)));
    assert!(!a.iter().any(|x| x.1 == Track::Reach && x.2 == 60));
    assert!(a.contains(&t("1", Track::Ltl, 0, true)));
    assert!(a.contains(&t("1", Track::Ltl, 1, false)));
}

#[test]
fn solution_text_reach_only_has_100_labels() {
    let text = "Reachability problems:\n=====\nerror_1 reachable via input sequence\n[E, C]\n-----\n\nAll other errors unreachable\n";
    let f = read("solutions/Problem10-solutions.txt", text).unwrap();
    let a = triples(&f);
    assert_eq!(a.len(), 100);
    assert_eq!(a.iter().filter(|x| x.3).count(), 1);
    let opts = ReadOptions {
        labels: Some(10),
        ..Default::default()
    };
    let f = parse("Problem10-solutions.txt", text, &opts).unwrap();
    assert_eq!(f.answers().unwrap().len(), 10);
}

#[test]
fn solution_text_errors() {
    let bad = TEXT_2012.replace("1 constraints satisfied", "2 constraints satisfied");
    let e = read("Problem1-solutions.txt", &bad)
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 23);
    let bad = TEXT_2012.replace("Formula is satisfied.", "Formula holds, probably.");
    let e = read("Problem1-solutions.txt", &bad)
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 14);
    let e = read("notes.txt", "Formula: (true)\nFormula is satisfied.\n")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert!(e.message.contains("problem"), "{e}");
}

#[test]
fn json_reports() {
    let text = r#"{"program": "p/Problem11.c", "problem": "11", "track": "reach",
        "verdicts": [{"property": 0, "verdict": true, "witness": ["A"]},
                     {"property": 1, "verdict": false},
                     {"property": 2, "verdict": null}], "states": 3}"#;
    let f = read("r.json", text).unwrap();
    assert_eq!(f.format, Format::Json);
    assert_eq!(
        triples(&f),
        [
            t("11", Track::Reach, 0, true),
            t("11", Track::Reach, 1, false)
        ]
    );
    let arr = format!("[{text}, {{\"problem\": 2, \"track\": \"ltl\", \"verdicts\": []}}]");
    assert_eq!(read("r.json", &arr).unwrap().entries.len(), 2);
    let e = read("r.json", "{\"problem\": \"1\"}")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert!(e.message.contains("verdicts"), "{e}");
    let e = read("r.json", "{\"problem\": \n\"1\",,}")
        .unwrap_err()
        .diagnostic()
        .cloned()
        .expect("located");
    assert_eq!(e.at.line, 2);
}
