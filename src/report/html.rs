//! The report as one self-contained HTML page: inline CSS, an inline script
//! that sorts the tables, inline SVG; no reference to anything outside.

use std::fmt::Write as _;

use super::escape::escape;
use super::{svg, Page, Problem, TrackResult, Verdict, Witness};
use crate::answers::Track;

/// The heading of a track.
fn track_title(t: Track) -> &'static str {
    match t {
        Track::Reach => "Reachability",
        Track::Ltl => "LTL",
        Track::Ctl => "CTL",
    }
}

/// Megabytes, or a dash.
fn mib(b: Option<u64>) -> String {
    b.map_or("-".into(), |b| {
        format!("{:.1}", b as f64 / (1024.0 * 1024.0))
    })
}

/// The whole page; `generated` is the time it was made.
pub fn render(page: &Page, generated: &str) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rigor report: {t}</title><style>{STYLE}</style></head><body>\
         <header><h1>rigor report</h1><p class=\"sub\">{t} · generated {g} · rigor {v}</p>",
        t = escape(&page.title),
        g = escape(generated),
        v = env!("CARGO_PKG_VERSION"),
    );
    summary(&mut h, page);
    h.push_str("</header><main>");
    if page.score.is_some() {
        score_section(&mut h, page);
    }
    for track in [Track::Reach, Track::Ltl, Track::Ctl] {
        if page
            .problems
            .values()
            .any(|p| p.tracks.contains_key(&track))
        {
            track_table(&mut h, page, track);
        }
    }
    let errors: Vec<_> = page
        .problems
        .iter()
        .filter(|(_, p)| p.error.is_some())
        .collect();
    if !errors.is_empty() {
        h.push_str("<h2>Problems that could not be read</h2><ul class=\"errors\">");
        for (k, p) in errors {
            let _ = write!(
                h,
                "<li><b>{}</b>: {}</li>",
                escape(&k.0),
                escape(p.error.as_deref().unwrap_or(""))
            );
        }
        h.push_str("</ul>");
    }
    h.push_str("<h2>Problems</h2>");
    for (k, p) in &page.problems {
        problem_section(&mut h, page, &k.0, p);
    }
    let _ = writeln!(h, "</main><script>{SCRIPT}</script></body></html>");
    h
}

/// The cards at the top: problems, answers, unknowns, score.
fn summary(h: &mut String, page: &Page) {
    let (mut t, mut f, mut u) = (0, 0, 0);
    for p in page.problems.values() {
        for r in p.tracks.values() {
            let (a, b, c) = r.counts();
            (t, f, u) = (t + a, f + b, u + c);
        }
    }
    h.push_str("<div class=\"cards\">");
    let mut card = |label: &str, value: String, class: &str| {
        let _ = write!(h, "<div class=\"card {class}\"><div class=\"v\">{value}</div><div class=\"l\">{label}</div></div>");
    };
    card("problems", page.problems.len().to_string(), "");
    card("answered true", t.to_string(), "");
    card("answered false", f.to_string(), "");
    card("unknown", u.to_string(), if u > 0 { "warn" } else { "" });
    if let Some(s) = &page.score {
        card(
            "score p − q²",
            s.score.to_string(),
            if s.wrong.is_empty() { "good" } else { "bad" },
        );
        card(
            "wrong answers",
            s.wrong.len().to_string(),
            if s.wrong.is_empty() { "good" } else { "bad" },
        );
    }
    h.push_str("</div>");
}

/// The score against the solutions, per track, with the wrong answers.
fn score_section(h: &mut String, page: &Page) {
    let Some(s) = &page.score else { return };
    h.push_str(
        "<h2>Score against the solutions</h2><table class=\"sortable\" id=\"score\"><thead><tr>",
    );
    for c in [
        "track",
        "p",
        "q",
        "p − q²",
        "max",
        "answered",
        "correct",
        "wrong",
        "unanswered",
    ] {
        let _ = write!(h, "<th>{c}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for t in &s.tracks {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>",
            t.track.name(), t.p, t.q, t.score, t.max_score, t.answered, t.correct,
            if t.wrong > 0 { "bad" } else { "" }, t.wrong, t.unanswered
        );
    }
    h.push_str("</tbody></table>");
    for c in &s.categories {
        if let Some(m) = &c.achievement {
            let _ = write!(
                h,
                "<p class=\"medal\">{} {}: {:?}</p>",
                c.track.name(),
                escape(&c.name),
                m
            );
        }
    }
    if !s.wrong.is_empty() {
        h.push_str("<ul class=\"errors\">");
        for w in &s.wrong {
            let _ = write!(
                h,
                "<li class=\"bad\">Problem {} {} property {}: answered {}, the solution says {}</li>",
                escape(&w.problem), w.track.name(), w.property, w.answered, w.expected
            );
        }
        h.push_str("</ul>");
    }
}

/// One sortable table: a row per problem with that track.
fn track_table(h: &mut String, page: &Page, track: Track) {
    let _ = write!(
        h,
        "<h2>{}</h2><table class=\"sortable track\" id=\"table-{}\"><thead><tr>",
        track_title(track),
        track.name()
    );
    for (c, num) in [
        ("problem", true),
        ("program", false),
        ("properties", true),
        ("true", true),
        ("false", true),
        ("unknown", true),
        ("settled by", false),
        ("states", true),
        ("time (s)", true),
        ("peak memory (MiB)", true),
    ] {
        let _ = write!(h, "<th data-num=\"{num}\" title=\"sort\">{c}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for (k, p) in &page.problems {
        let Some(r) = p.tracks.get(&track) else {
            continue;
        };
        let (t, f, u) = r.counts();
        let wrong = r
            .verdicts
            .iter()
            .filter(|v| page.is_wrong(&k.0, track, v.property))
            .count();
        let engines: Vec<String> = r
            .engines()
            .iter()
            .map(|(e, n)| format!("{e} {n}"))
            .collect();
        let _ = write!(
            h,
            "<tr class=\"row{}\" data-problem=\"{p}\"><td><a href=\"#problem-{p}\">{p}</a></td><td class=\"file\">{}</td>\
             <td>{}</td><td>{t}</td><td>{f}</td><td class=\"{}\">{u}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td></tr>",
            if wrong > 0 { " bad" } else { "" },
            escape(&short(&p.program)),
            r.verdicts.len(),
            if u > 0 { "warn" } else { "" },
            escape(&engines.join(", ")),
            r.states,
            r.seconds,
            mib(r.peak_memory),
            p = escape(&k.0),
        );
    }
    h.push_str("</tbody></table>");
}

/// The file name of a path.
fn short(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or(path.to_string(), |f| f.to_string_lossy().into_owned())
}

/// One problem's collapsible section: per track the plot and the verdicts
/// with their witnesses; the drawing of a small system.
fn problem_section(h: &mut String, page: &Page, name: &str, p: &Problem) {
    let counts: Vec<String> = (p.tracks.iter())
        .map(|(t, r)| {
            let (a, b, c) = r.counts();
            format!("{} {a} true, {b} false, {c} unknown", t.name())
        })
        .collect();
    let _ = write!(
        h,
        "<details class=\"problem\" id=\"problem-{n}\"><summary><b>Problem {n}</b> <span class=\"file\">{}</span> · {}</summary>",
        escape(&p.program),
        escape(&counts.join(" · ")),
        n = escape(name),
    );
    for (track, r) in &p.tracks {
        track_detail(h, page, name, *track, r);
    }
    if let Some(g) = &p.graph {
        let _ = write!(
            h,
            "<h3>Transition system ({} states)</h3><div class=\"scroll\">{}</div>",
            g.depth.len(),
            svg::graph_drawing(g)
        );
    }
    h.push_str("</details>");
}

/// A track of a problem: plot, stop reason, verdicts.
fn track_detail(h: &mut String, page: &Page, name: &str, track: Track, r: &TrackResult) {
    let _ = write!(h, "<h3>{}</h3>", track_title(track));
    if r.progress.len() > 1 {
        h.push_str(&svg::progress_plot(&r.progress));
    }
    if let Some(s) = &r.stopped {
        let _ = write!(h, "<p class=\"warn\">stopped early: {}</p>", escape(s));
    }
    h.push_str("<table class=\"verdicts\"><thead><tr><th>property</th><th>verdict</th><th>settled by</th><th>witness</th></tr></thead><tbody>");
    for v in &r.verdicts {
        verdict_row(h, page.is_wrong(name, track, v.property), v);
    }
    h.push_str("</tbody></table>");
}

/// One verdict with its witness viewer.
fn verdict_row(h: &mut String, wrong: bool, v: &Verdict) {
    let answer = match v.verdict {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    };
    let property = match &v.formula {
        Some(f) => format!("{} <code>{}</code>", v.property, escape(f)),
        None => format!("error_{}", v.property),
    };
    let class = if wrong {
        "bad"
    } else if v.verdict.is_none() {
        "warn"
    } else {
        ""
    };
    let _ = write!(
        h,
        "<tr class=\"{class}\"><td>{property}</td><td>{answer}{}</td><td>{}</td><td>",
        if wrong { " (wrong)" } else { "" },
        escape(v.engine.as_deref().unwrap_or(if v.verdict.is_some() {
            "exploration"
        } else {
            ""
        })),
    );
    match &v.witness {
        Some(Witness::Path { inputs, outputs }) => {
            let steps = if inputs.len() == 1 {
                "1 step".to_string()
            } else {
                format!("{} steps", inputs.len())
            };
            let _ = write!(h, "<details><summary>{steps}</summary><table class=\"trace\"><tr><th>#</th><th>input</th><th>output</th></tr>");
            for (k, i) in inputs.iter().enumerate() {
                let o = outputs
                    .as_ref()
                    .and_then(|o| o.get(k))
                    .map_or("", String::as_str);
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    k + 1,
                    escape(i),
                    escape(o)
                );
            }
            h.push_str("</table></details>");
        }
        Some(Witness::Lasso { prefix, cycle }) => {
            let _ = write!(
                h,
                "<details><summary>lasso</summary><p>prefix <code>{}</code></p><p>cycle, repeated forever <code>{}</code></p></details>",
                escape(prefix),
                escape(cycle)
            );
        }
        Some(Witness::Text(t)) => {
            let _ = write!(
                h,
                "<details><summary>witness</summary><code>{}</code></details>",
                escape(t)
            );
        }
        None => {}
    }
    h.push_str("</td></tr>");
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1f2328;background:#f6f8fa}\
header{background:#24292f;color:#fff;padding:16px 24px}h1{margin:0;font-size:22px}.sub{margin:4px 0 12px;color:#c9d1d9}\
main{padding:8px 24px 40px}h2{margin-top:28px;border-bottom:1px solid #d0d7de;padding-bottom:4px}\
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:#32383f;border-radius:8px;padding:8px 14px;min-width:110px}\
.card .v{font-size:22px;font-weight:600}.card .l{font-size:12px;color:#c9d1d9}.card.good .v{color:#7ee787}.card.bad .v{color:#ff7b72}.card.warn .v{color:#e3b341}\
table{border-collapse:collapse;background:#fff;margin:8px 0;font-size:14px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}\
th{background:#eaeef2;cursor:pointer;user-select:none}th.asc::after{content:' ▲'}th.desc::after{content:' ▼'}\
td.file,.file{font-family:ui-monospace,monospace;font-size:12px;color:#57606a}\
tr.bad td,td.bad,.bad{color:#cf222e;font-weight:600}td.warn,tr.warn td,.warn{color:#9a6700}\
details.problem{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:8px 0;padding:6px 12px}\
details.problem>summary{cursor:pointer}svg.plot{width:560px;max-width:100%;background:#fff;border:1px solid #eaeef2}\
.axis{stroke:#8c959f}.tick,.legend{font-size:11px}.scroll{overflow:auto;max-height:600px}\
svg.lts .edge{fill:none;stroke:#8c959f}svg.lts .edge.error{stroke:#cf222e}.cross{fill:#cf222e;font-size:14px}\
svg.lts .state{fill:#ddf4ff;stroke:#0969da}svg.lts .initial{stroke-width:3}.sid{font-size:10px;text-anchor:middle}\
code{font-family:ui-monospace,monospace;font-size:12px}table.trace{font-size:12px}";

const SCRIPT: &str = "\
document.querySelectorAll('table.sortable').forEach(function(t){\
t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){\
var asc=!th.classList.contains('asc');t.querySelectorAll('th').forEach(function(x){x.classList.remove('asc','desc');});\
th.classList.add(asc?'asc':'desc');var num=th.dataset.num==='true';var body=t.tBodies[0];\
var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){\
var x=a.cells[i].textContent,y=b.cells[i].textContent;\
var c=num?(parseFloat(x)||0)-(parseFloat(y)||0):x.localeCompare(y,undefined,{numeric:true});return asc?c:-c;});\
rows.forEach(function(r){body.appendChild(r);});});});});";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ProblemKey;

    #[test]
    fn a_page_is_self_contained_and_escaped() {
        let mut page = Page::new("<folder>");
        let mut p = Problem {
            program: "x/Problem1.c".into(),
            ..Problem::default()
        };
        p.tracks.insert(
            Track::Reach,
            TrackResult {
                verdicts: vec![Verdict {
                    property: 3,
                    verdict: Some(true),
                    engine: Some("witness".into()),
                    witness: Some(Witness::Path {
                        inputs: vec!["A".into(), "B".into()],
                        outputs: Some(vec!["X".into(), "error_3".into()]),
                    }),
                    ..Verdict::default()
                }],
                states: 5,
                ..TrackResult::default()
            },
        );
        page.problems.insert(ProblemKey("1".into()), p);
        let html = render(&page, "2026-01-01T00:00:00Z");
        assert!(html.contains("&lt;folder&gt;") && !html.contains("<folder>"));
        assert!(!html.contains("http"));
        assert_eq!(html.matches("<tr class=\"row").count(), 1);
        assert!(html.contains("error_3") && html.contains("2 steps"));
    }
}
