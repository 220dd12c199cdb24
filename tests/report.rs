//! The HTML report (`rigor solve --report`, `rigor report`): one row per
//! problem, numbers equal to the answer CSVs, wrong answers highlighted
//! against solutions, self-contained, and rendered by headless Chromium
//! with no console message (Debian's `chromium`, installed by `.ci/run`;
//! skipped with a message where it is missing). Screenshots go to
//! `target/report-*.png` for a person to look at.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{rers_dir, rigor_bin};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        eprintln!("chromium not found (apt install chromium): browser checks skipped");
    }
    found
}

/// Renders `page` headless: the DOM after its scripts ran, and every
/// console line (messages, uncaught errors). Writes a screenshot to `shot`.
fn render(browser: &str, page: &Path, shot: &Path) -> (String, Vec<String>) {
    let url = format!("file://{}", page.display());
    let common = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
    ];
    let o = Command::new(browser)
        .args(common)
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom", &url])
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let s = Command::new(browser)
        .args(common)
        .args([
            "--window-size=1300,1600",
            &format!("--screenshot={}", shot.display()),
            &url,
        ])
        .output()
        .unwrap();
    assert!(
        s.status.success() && shot.is_file(),
        "no screenshot of {}",
        page.display()
    );
    (String::from_utf8_lossy(&o.stdout).into_owned(), console)
}

/// Rows of the table `id` in a page: (problem, true, false, unknown).
fn rows(html: &str, id: &str) -> Vec<(String, usize, usize, usize)> {
    let Some(start) = html.find(&format!("id=\"{id}\"")) else {
        return Vec::new();
    };
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    table
        .split("<tr class=\"row")
        .skip(1)
        .map(|r| {
            let cells: Vec<String> = r
                .split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').unwrap() + 1..];
                    let text: String = c.split('<').next().unwrap().to_string();
                    if text.is_empty() {
                        // a link: the text after the <a ...>
                        c.split('>')
                            .nth(1)
                            .unwrap_or("")
                            .split('<')
                            .next()
                            .unwrap_or("")
                            .to_string()
                    } else {
                        text
                    }
                })
                .collect();
            (
                cells[0].clone(),
                cells[3].parse().unwrap(),
                cells[4].parse().unwrap(),
                cells[5].parse().unwrap(),
            )
        })
        .collect()
}

/// Counts the true and false lines of an answer CSV.
fn csv_counts(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let t = text.lines().filter(|l| l.ends_with(",true")).count();
    let f = text.lines().filter(|l| l.ends_with(",false")).count();
    (t, f)
}

fn solve_with_report(dir: &Path, out: &Path, extra: &[&str]) -> (PathBuf, String) {
    let page = out.join("report.html");
    let o = Command::new(rigor_bin())
        .arg("solve")
        .arg(dir)
        .arg("--out")
        .arg(out.join("answers"))
        .arg("--report")
        .arg(&page)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    (page, html)
}

fn check_page(page: &Path, html: &str, answers: &Path, problems: usize, shot: &str) {
    assert!(
        !html.contains("http"),
        "the page refers to something outside"
    );
    assert!(html.len() < 5 << 20, "{} bytes", html.len());
    let reach = rows(html, "table-reach");
    assert_eq!(reach.len(), problems);
    for (problem, t, f, _) in &reach {
        let stem = if problem.chars().all(|c| c.is_ascii_digit()) {
            format!("Problem{problem}")
        } else {
            problem.clone()
        };
        assert_eq!(
            csv_counts(&answers.join(format!("{stem}-reach.csv"))),
            (*t, *f),
            "problem {problem}"
        );
    }
    for (problem, t, f, _) in rows(html, "table-ltl") {
        let stem = format!("Problem{problem}");
        assert_eq!(
            csv_counts(&answers.join(format!("{stem}-ltl.csv"))),
            (t, f),
            "problem {problem} ltl"
        );
    }
    let Some(browser) = chromium() else { return };
    let shot = root().join("target").join(shot);
    let (dom, console) = render(browser, page, &shot);
    assert!(console.is_empty(), "console: {console:?}");
    assert_eq!(rows(&dom, "table-reach").len(), problems);
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn solve_report_on_the_bundled_problems() {
    let out = tempfile::tempdir().unwrap();
    let (page, html) = solve_with_report(&root().join("problems"), out.path(), &[]);
    let problems = std::fs::read_dir(out.path().join("answers"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with("-reach.csv")
        })
        .count();
    check_page(
        &page,
        &html,
        &out.path().join("answers"),
        problems,
        "report-problems.png",
    );
    // Plots, witnesses and drawings are there.
    assert!(html.contains("<svg class=\"plot\""));
    assert!(html.contains("<svg class=\"lts\""));
    assert!(html.contains("<table class=\"trace\">"));
    assert!(html.contains("cycle, repeated forever"));
}

#[test]
fn solve_report_on_the_2019_training_problems() {
    let Some(rers) = rers_dir() else { return };
    let out = tempfile::tempdir().unwrap();
    let dir = rers.join("2019/training-seq-reach");
    let (page, html) = solve_with_report(&dir, out.path(), &["--timeout", "300"]);
    check_page(
        &page,
        &html,
        &out.path().join("answers"),
        3,
        "report-training.png",
    );
}

#[test]
fn report_from_saved_json_scores_and_marks_wrong_answers() {
    let out = tempfile::tempdir().unwrap();
    let dir = root().join("problems/reach-arith");
    let program = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .unwrap();
    let o = Command::new(rigor_bin())
        .args(["reach", "--json"])
        .arg(&program)
        .output()
        .unwrap();
    let json = out.path().join("reach.json");
    std::fs::write(&json, &o.stdout).unwrap();
    // The right solution, then one with an answer flipped (planted).
    let right = dir.join("expected-reach.csv");
    let text = std::fs::read_to_string(&right).unwrap();
    let first = text.lines().next().unwrap();
    let flipped_line = if first.ends_with("true") {
        first.replace("true", "false")
    } else {
        first.replace("false", "true")
    };
    let wrong = out.path().join("wrong-reach.csv");
    std::fs::write(&wrong, text.replacen(first, &flipped_line, 1)).unwrap();
    for (solution, wrong_answers) in [(&right, 0), (&wrong, 1)] {
        let page = out.path().join("r.html");
        let o = Command::new(rigor_bin())
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(&page)
            .arg("--solution")
            .arg(solution)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains("Score against the solutions"));
        assert_eq!(html.matches("(wrong)").count(), wrong_answers);
        assert_eq!(html.matches("<tr class=\"row bad\"").count(), wrong_answers);
    }
    // Not a report: a located error.
    let o = Command::new(rigor_bin())
        .arg("report")
        .arg(&right)
        .arg("-o")
        .arg(out.path().join("x.html"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected-reach.csv"));
}

#[test]
fn the_browser_check_sees_a_planted_script_error() {
    let Some(browser) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    let page = out.path().join("bad.html");
    std::fs::write(
        &page,
        "<html><body><script>undefinedFunction();</script></body></html>",
    )
    .unwrap();
    let (_, console) = render(browser, &page, &out.path().join("bad.png"));
    assert!(
        console
            .iter()
            .any(|l| l.contains("Uncaught ReferenceError")),
        "{console:?}"
    );
}
