//! Text made safe inside HTML and SVG markup, for the page ([`super::html`])
//! and its figures ([`super::svg`]) alike.

/// Escapes text for HTML and SVG: the five characters markup gives a
/// meaning.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
