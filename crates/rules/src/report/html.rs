//! The HTML part of a mail: the SVG board inline, a colour key, then the
//! whole text of the mail (combat report, status, order template) in a
//! `<pre>`, so the two parts never disagree. No script, no external resource.

use std::fmt::Write;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
        "<div style=\"max-width:100%;overflow-x:auto\"><pre style=\"font-size:12px;line-height:1.25\">{}</pre></div>\n</body></html>",
        esc(text)
    );
    ascii(&o)
}

/// `s` with every character beyond ASCII written as a character reference,
/// so the mail can carry the page as 7-bit text instead of quoted-printable
/// (which writes every `=` of the SVG's attributes as `=3D`).
fn ascii(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut o = String::with_capacity(s.len() + 64);
    for c in s.chars() {
        if c.is_ascii() {
            o.push(c);
        } else {
            let _ = write!(o, "&#x{:X};", u32::from(c));
        }
    }
    o
}

/// A board fragment under a heading (the referee's mail shows several).
#[must_use]
pub fn labelled_board(label: &str, board: &str) -> String {
    format!(
        "<section style=\"border-top:2px solid #555;margin-top:8px\"><h3 style=\"font-size:15px;margin:6px 0\">{}</h3>\n{board}</section>\n",
        esc(label)
    )
}

#[cfg(test)]
mod ascii_tests {
    use super::*;

    #[test]
    fn a_page_is_ascii_and_keeps_every_character() {
        let page = document("<svg/>", "Sainte-Mère-Église", "Deadline — 24 h · ok");
        assert!(page.is_ascii(), "{page}");
        assert!(page.contains("Sainte-M&#xE8;re-&#xC9;glise"), "{page}");
        assert!(page.contains("Deadline &#x2014; 24 h &#xB7; ok"), "{page}");
    }
}
