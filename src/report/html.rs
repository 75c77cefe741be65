//! The HTML part of a mail: the SVG board inline, a colour key, then the
//! whole text of the mail (combat report, status, order template) in a
//! `<pre>`, so the two parts never disagree. No script, no external resource.

use super::svg;
use crate::rules::memoir44::render::side_name;
use crate::rules::memoir44::view::View;
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A whole HTML document: `heading`, the board, and `text` (the plain part).
#[must_use]
pub fn page(v: &View, heading: &str, text: &str) -> String {
    document(&board(v), heading, text)
}

/// The document around a board fragment from [`board`].
#[must_use]
pub fn document(board: &str, heading: &str, text: &str) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{}</title></head>\n<body style=\"font-family:sans-serif;background:#fff;color:#111;margin:8px\">\n\
<h2 style=\"font-size:18px;margin:4px 0\">{}</h2>\n",
        esc(heading),
        esc(heading)
    );
    o.push_str(board);
    let _ = writeln!(
        o,
        "<pre style=\"font-size:12px;line-height:1.25\">{}</pre>\n</body></html>",
        esc(text)
    );
    o
}

/// The board picture with its caption and colour key (an HTML fragment).
#[must_use]
pub fn board(v: &View) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<p style=\"margin:4px 0;font-size:13px\">{}, after turn {}. Seen from the {} edge.</p>",
        esc(&v.title),
        v.turn,
        esc(&side_name(v.bottom_side()))
    );
    o.push_str("<div style=\"max-width:100%;overflow-x:auto\">\n");
    o.push_str(&svg::board(v));
    o.push_str("</div>\n");
    let first = v
        .sides
        .first()
        .map(|s| side_name(&s.id))
        .unwrap_or_default();
    let second = v.sides.get(1).map(|s| side_name(&s.id)).unwrap_or_default();
    let _ = writeln!(
        o,
        "<p style=\"font-size:12px\">Blue: {}. Red: {}. Letters: I infantry, E elite, A armour, G artillery, T anti-tank; the digit is figures. Black arrows: moves; orange: retreats; red dashes: battles, with the hits. Gold rings: objectives (filled when held).</p>",
        esc(&first),
        esc(&second)
    );
    o
}
