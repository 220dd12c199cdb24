//! Inline SVG for the report: progress plots and small transition systems.
//! No external program lays anything out: the plots are polylines over
//! scaled axes, the systems a layered drawing (one column per breadth-first
//! depth).

use std::fmt::Write as _;

use super::escape::escape;
use super::SmallGraph;
use crate::explore::ProgressPoint;

/// Width and height of a plot, in SVG units.
const PLOT: (f64, f64) = (560.0, 200.0);
/// Margins: left, right, top, bottom.
const MARGIN: (f64, f64, f64, f64) = (48.0, 12.0, 12.0, 30.0);

/// One plotted quantity of a progress point.
type Series = fn(&ProgressPoint) -> f64;

/// The progress of a run: states stored, breadth-first depth and properties
/// settled over time, each scaled to its own maximum (given in the legend).
pub fn progress_plot(points: &[ProgressPoint]) -> String {
    let (w, h) = PLOT;
    let (l, r, t, b) = MARGIN;
    let t_max = points
        .iter()
        .map(|p| p.seconds)
        .fold(0.0, f64::max)
        .max(1e-3);
    let series: [(&str, &str, Series); 3] = [
        ("states", "#1f6feb", |p| p.states as f64),
        ("depth", "#d97706", |p| f64::from(p.depth)),
        ("settled", "#16a34a", |p| p.settled as f64),
    ];
    let x = |s: f64| l + (w - l - r) * s / t_max;
    let mut svg = format!(
        "<svg class=\"plot\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"progress over time\">\
         <line x1=\"{l}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" class=\"axis\"/>\
         <line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{y0}\" class=\"axis\"/>\
         <text x=\"{l}\" y=\"{ty}\" class=\"tick\">0 s</text>\
         <text x=\"{x1}\" y=\"{ty}\" class=\"tick\" text-anchor=\"end\">{t_max:.2} s</text>\
         <text x=\"{lx}\" y=\"{t2}\" class=\"tick\" text-anchor=\"end\">max</text>\
         <text x=\"{lx}\" y=\"{y0}\" class=\"tick\" text-anchor=\"end\">0</text>",
        y0 = h - b,
        x1 = w - r,
        ty = h - b + 16.0,
        lx = l - 4.0,
        t2 = t + 8.0,
    );
    let mut legend = String::new();
    for (k, (name, colour, value)) in series.iter().enumerate() {
        let max = points.iter().map(*value).fold(0.0, f64::max);
        let y = |v: f64| (h - b) - (h - b - t) * if max > 0.0 { v / max } else { 0.0 };
        let pts: Vec<String> = (points.iter())
            .map(|p| format!("{:.1},{:.1}", x(p.seconds), y(value(p))))
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            pts.join(" ")
        );
        let _ = write!(
            legend,
            "<text x=\"{:.0}\" y=\"{:.0}\" class=\"legend\" fill=\"{colour}\">{name} (max {max})</text>",
            l + 8.0 + 170.0 * k as f64,
            h - 2.0
        );
    }
    svg.push_str(&legend);
    svg.push_str("</svg>");
    svg
}

/// A drawing of a small transition system: states in columns by depth,
/// edges with their `input/output` labels (shown on hover), error steps
/// ending in a red cross.
pub fn graph_drawing(g: &SmallGraph) -> String {
    const DX: f64 = 90.0;
    const DY: f64 = 44.0;
    let mut rows: Vec<u32> = Vec::new();
    let mut at = vec![(0.0, 0.0); g.depth.len()];
    for (s, &d) in g.depth.iter().enumerate() {
        let d = if d == u32::MAX { 0 } else { d } as usize;
        if rows.len() <= d {
            rows.resize(d + 1, 0);
        }
        at[s] = (30.0 + DX * d as f64, 30.0 + DY * f64::from(rows[d]));
        rows[d] += 1;
    }
    let width = 60.0 + DX * rows.len() as f64 + 40.0;
    let height = 60.0 + DY * f64::from(rows.iter().copied().max().unwrap_or(1));
    let mut svg = format!(
        "<svg class=\"lts\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" role=\"img\" aria-label=\"transition system\">"
    );
    for (src, target, label) in &g.edges {
        let (x1, y1) = at[*src as usize];
        let title = format!("<title>{}</title>", escape(label));
        match target {
            Some(t) if t == src => {
                let _ = write!(
                    svg,
                    "<path class=\"edge\" d=\"M{:.0},{:.0} c-18,-26 18,-26 0,-10\">{title}</path>",
                    x1 - 4.0,
                    y1 - 8.0
                );
            }
            Some(t) => {
                let (x2, y2) = at[*t as usize];
                let bend = if x2 <= x1 { 24.0 } else { 0.0 };
                let _ = write!(
                    svg,
                    "<path class=\"edge\" d=\"M{x1:.0},{y1:.0} Q{:.0},{:.0} {x2:.0},{y2:.0}\" marker-end=\"url(#arrow)\">{title}</path>",
                    (x1 + x2) / 2.0 + bend,
                    (y1 + y2) / 2.0 - bend
                );
            }
            None => {
                let (x2, y2) = (x1 + 34.0, y1 + 16.0);
                let _ = write!(
                    svg,
                    "<path class=\"edge error\" d=\"M{x1:.0},{y1:.0} L{x2:.0},{y2:.0}\">{title}</path>\
                     <text class=\"cross\" x=\"{x2:.0}\" y=\"{:.0}\">✕<title>{}</title></text>",
                    y2 + 5.0,
                    escape(label)
                );
            }
        }
    }
    for (s, (x, y)) in at.iter().enumerate() {
        let class = if s == 0 { "state initial" } else { "state" };
        let _ = write!(
            svg,
            "<circle class=\"{class}\" cx=\"{x:.0}\" cy=\"{y:.0}\" r=\"11\"><title>state {s}</title></circle>\
             <text class=\"sid\" x=\"{x:.0}\" y=\"{:.0}\">{s}</text>",
            y + 4.0
        );
    }
    svg.push_str(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"20\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#888\"/></marker></defs></svg>",
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_scale_every_series() {
        let points: Vec<ProgressPoint> = (0..5)
            .map(|k| ProgressPoint {
                seconds: f64::from(k),
                states: 10 * k as u64,
                depth: k,
                settled: k as usize / 2,
            })
            .collect();
        let svg = progress_plot(&points);
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert!(svg.contains("states (max 40)") && svg.contains("4.00 s"));
        assert!(!svg.contains("NaN"));
        assert!(!progress_plot(&[]).contains("NaN"));
    }

    #[test]
    fn drawings_place_every_state_and_edge() {
        let g = SmallGraph {
            depth: vec![0, 1, 1],
            edges: vec![
                (0, Some(1), "A/X".into()),
                (0, Some(2), "B/-".into()),
                (1, Some(1), "A/Y".into()),
                (2, None, "A/error_3".into()),
            ],
        };
        let svg = graph_drawing(&g);
        assert_eq!(svg.matches("<circle").count(), 3);
        assert_eq!(svg.matches("class=\"edge").count(), 4);
        assert!(svg.contains("A/error_3") && svg.contains("✕"));
    }
}
