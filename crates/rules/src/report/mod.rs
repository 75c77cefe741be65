//! The generic part of reports: the mail templates in `templates/`, the
//! [`Parts`] of a report that each rules family fills from its own view, and
//! the HTML document around a board. Nothing here knows a rules family.

pub mod html;
pub mod symbols;

use minijinja::Environment;
use serde::Serialize;

/// The shipped templates, by name.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "welcome.txt",
        include_str!("../../../../templates/welcome.txt"),
    ),
    (
        "turn_report.txt",
        include_str!("../../../../templates/turn_report.txt"),
    ),
    (
        "receipt.txt",
        include_str!("../../../../templates/receipt.txt"),
    ),
    ("error.txt", include_str!("../../../../templates/error.txt")),
    (
        "status.txt",
        include_str!("../../../../templates/status.txt"),
    ),
    (
        "reminder.txt",
        include_str!("../../../../templates/reminder.txt"),
    ),
    (
        "game_over.txt",
        include_str!("../../../../templates/game_over.txt"),
    ),
];

/// Everything a report needs, rendered from one recipient's view.
#[derive(Debug, Clone, Default)]
pub struct Parts {
    /// Map, legend and status (80 columns).
    pub map: String,
    /// The compact map (40 columns).
    pub compact: String,
    /// The combat report of the last turn (empty if none).
    pub combat: String,
    /// The order template, for the side that moves next.
    pub orders: Option<String>,
    /// The board picture as an HTML fragment (SVG inline).
    pub board_html: String,
    /// The SVG alone.
    pub svg: String,
    /// The view as JSON (docs/report-json.md).
    pub json: String,
}

impl Parts {
    /// The HTML alternative of a mail whose plain text is `text`.
    #[must_use]
    pub fn html(&self, heading: &str, text: &str) -> String {
        html::document(&self.board_html, heading, text)
    }

    /// The attachment of the view: (name, MIME type, bytes), the JSON
    /// on one line and in ASCII ([`mail_json`]).
    #[must_use]
    pub fn attachment(&self) -> (String, String, Vec<u8>) {
        (
            "view.json".into(),
            "application/json".into(),
            mail_json(&self.json).into_bytes(),
        )
    }
}

/// JSON text as a mail carries it best: the white space between tokens
/// left out and every character past ASCII written as a `\u` escape (a
/// pair of them past U+FFFF), so the same value travels as ASCII text
/// without a byte of base64 and a third less than indented (issue 53,
/// acceptance 3: one `°` in an event made Minden's whole view.json
/// base64). Any JSON reads the same after it.
#[must_use]
pub fn mail_json(json: &str) -> String {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len() + json.len() / 8);
    // Runs of bytes kept as they are go out whole: only white space
    // between tokens is left out and only characters past ASCII escaped.
    // Inside a string the plain bytes are skipped eight at a time.
    let mut run = 0;
    let mut i = 0;
    let mut quoted = false;
    while i < bytes.len() {
        if quoted {
            i = plain_in_string(bytes, i);
            match bytes.get(i) {
                None => break,
                Some(b'"') => {
                    quoted = false;
                    i += 1;
                }
                // The escaped byte goes as it is (a character past ASCII
                // after it is escaped as anywhere else).
                Some(b'\\') => {
                    i += 1;
                    if bytes.get(i).is_some_and(u8::is_ascii) {
                        i += 1;
                    }
                }
                Some(_) => {
                    out.push_str(&json[run..i]);
                    i = push_char_escaped(&mut out, json, i);
                    run = i;
                }
            }
            continue;
        }
        let b = bytes[i];
        if b == b'"' {
            quoted = true;
            i += 1;
        } else if b.is_ascii_whitespace() {
            out.push_str(&json[run..i]);
            i += 1;
            run = i;
        } else if b >= 0x80 {
            out.push_str(&json[run..i]);
            i = push_char_escaped(&mut out, json, i);
            run = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&json[run..]);
    out
}

/// The first byte at or after `i` inside a JSON string that ends a run of
/// plain bytes: a quote, a backslash or a byte past ASCII (or the end).
/// Eight bytes at a time while none of them is one.
#[inline]
fn plain_in_string(bytes: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = LO * b'"' as u64;
    const BACKSLASHES: u64 = LO * b'\\' as u64;
    while let Some(word) = bytes.get(i..i + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let w = u64::from_le_bytes(eight);
        let (q, s) = (w ^ QUOTES, w ^ BACKSLASHES);
        // A zero byte in q or s is a quote or backslash in w; a high bit
        // in w a byte past ASCII.
        if ((q.wrapping_sub(LO) & !q) | (s.wrapping_sub(LO) & !s) | w) & HI != 0 {
            break;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b >= 0x80 {
            break;
        }
        i += 1;
    }
    i
}

/// Writes the character at byte `i` of `json` (past ASCII) as one `\u`
/// escape or a pair of them; returns the index after it.
fn push_char_escaped(out: &mut String, json: &str, i: usize) -> usize {
    let c = json[i..].chars().next().unwrap_or('\u{fffd}');
    let mut units = [0u16; 2];
    for u in c.encode_utf16(&mut units) {
        push_u_escape(out, *u);
    }
    i + c.len_utf8()
}

/// `\uXXXX` in lower-case hex.
fn push_u_escape(out: &mut String, u: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[usize::from((u >> shift) & 0xf)]));
    }
}

/// The mail templates: the shipped ones, each replaced by a host's text if
/// it gives one (the judge reads the host's files; this crate reads none).
#[derive(Clone)]
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The shipped templates.
    #[must_use]
    pub fn shipped() -> Templates {
        Templates::new(|_| None)
    }

    /// The shipped templates, each replaced by `custom(NAME)` where that
    /// gives a text (a host's `templates/NAME`).
    #[must_use]
    pub fn new(custom: impl Fn(&str) -> Option<String>) -> Templates {
        let mut env = Environment::new();
        if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .keep_trailing_newline(true)
            .build()
        {
            env.set_syntax(syntax);
        }
        // `{{ text|wrap(78, "  ") }}`: wrap to a width, indenting continuations.
        env.add_filter(
            "wrap",
            |text: String, width: Option<usize>, indent: Option<String>| -> String {
                wrap(&text, width.unwrap_or(78), indent.as_deref().unwrap_or(""))
                    .trim_end()
                    .to_string()
            },
        );
        for (name, text) in TEMPLATES {
            let body = custom(name).unwrap_or_else(|| (*text).to_string());
            if let Err(e) = env.add_template_owned(*name, body) {
                tracing::warn!("template {name} is invalid ({e}); using the shipped one");
                let _ = env.add_template(name, text);
            }
        }
        Templates { env }
    }

    /// Render a template; a broken host template falls back to a plain dump
    /// of the error rather than losing the mail.
    pub fn render<S: Serialize>(&self, name: &str, ctx: S) -> String {
        let ctx = minijinja::Value::from(minijinja::value::Serde(&ctx));
        match self.env.get_template(name).and_then(|t| t.render(ctx)) {
            Ok(s) => s,
            Err(e) => format!("(template {name} failed: {e})\n"),
        }
    }
}

/// Wrap a paragraph to `width` columns, keeping `indent` on continuation lines.
#[must_use]
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let indent_chars = indent.chars().count();
    for para in text.lines() {
        let body = para.trim_start_matches(' ');
        let mut line = String::with_capacity(para.len().min(width * 4));
        line.push_str(&para[..para.len() - body.len()]);
        let lead = line.len();
        // The line's width in characters, kept as it grows (counting
        // the whole line at every word made a long paragraph quadratic).
        let mut chars = lead;
        for word in body.split(' ') {
            let word_chars = if word.is_ascii() {
                word.len()
            } else {
                word.chars().count()
            };
            if line.len() > lead && chars + 1 + word_chars > width {
                out.push_str(line.trim_end());
                out.push('\n');
                line.clear();
                line.push_str(indent);
                chars = indent_chars;
            } else if line.len() > lead && !line.ends_with(' ') {
                line.push(' ');
                chars += 1;
            }
            line.push_str(word);
            chars += word_chars;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn every_template_parses() {
        let t = Templates::shipped();
        for (name, _) in TEMPLATES {
            assert!(t.env.get_template(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_view_travels_as_one_line_of_ascii_that_reads_the_same() {
        let v = serde_json::json!({
            "title": "Fuentes de O\u{f1}oro, \"1811\" \\ a\ttab",
            "events": [{"text": "facing 230\u{b0}, 12\" \u{2605} \u{1f3c7}", "n": [1, 2.5, null, true]}],
            "empty": {},
            "spaces": "  two  spaces  ",
        });
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let mail = mail_json(&pretty);
        assert!(mail.is_ascii(), "{mail}");
        assert!(!mail.contains('\n'), "{mail}");
        assert!(mail.len() < pretty.len());
        assert!(
            mail.contains("\\u00b0") && mail.contains("\\ud83c\\udfc7"),
            "{mail}"
        );
        let back: serde_json::Value = serde_json::from_str(&mail).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn wrap_keeps_lines_short() {
        let s = wrap(&"word ".repeat(50), 20, "  ");
        assert!(s.lines().all(|l| l.chars().count() <= 20), "{s}");
        assert!(s.lines().nth(1).unwrap().starts_with("  "));
    }

    /// The character-by-character `mail_json` this crate had before it
    /// copied runs whole: the new one must give the same bytes.
    fn mail_json_by_char(json: &str) -> String {
        let mut out = String::with_capacity(json.len());
        let (mut quoted, mut escaped) = (false, false);
        for c in json.chars() {
            if !quoted && c.is_ascii_whitespace() {
                continue;
            }
            if c.is_ascii() {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            if quoted {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    quoted = false;
                }
            } else if c == '"' {
                quoted = true;
            }
        }
        out
    }

    /// The `wrap` that counted the whole line at every word.
    fn wrap_by_counting(text: &str, width: usize, indent: &str) -> String {
        let mut out = String::new();
        for para in text.lines() {
            let body = para.trim_start_matches(' ');
            let mut line = para[..para.len() - body.len()].to_string();
            let lead = line.len();
            for word in body.split(' ') {
                if line.len() > lead && line.chars().count() + 1 + word.chars().count() > width {
                    out.push_str(line.trim_end());
                    out.push('\n');
                    line = indent.to_string();
                } else if line.len() > lead && !line.ends_with(' ') {
                    line.push(' ');
                }
                line.push_str(word);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// Deterministic texts mixing what both functions treat apart: spaces,
    /// tabs, line ends, quotes, backslashes, characters of 2, 3 and 4 bytes.
    fn texts() -> Vec<String> {
        const PIECES: [&str; 16] = [
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\"",
            "\\",
            "\\\"",
            "a",
            "word",
            "{\"k\":",
            "\u{b0}",
            "\u{2605}",
            "\u{1f3c7}",
            "Fuentes de O\u{f1}oro",
            "0123456789",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize
        };
        (0..3_000)
            .map(|_| {
                let n = next() % 60;
                (0..n).map(|_| PIECES[next() % PIECES.len()]).collect()
            })
            .collect()
    }

    #[test]
    fn mail_json_copies_runs_exactly_as_it_did_by_character() {
        for t in texts() {
            assert_eq!(mail_json(&t), mail_json_by_char(&t), "{t:?}");
        }
        let v = serde_json::json!({"t": "O\u{f1}o \"q\" \\ \u{1f3c7}", "n": [1, 2]});
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        assert_eq!(mail_json(&pretty), mail_json_by_char(&pretty));
    }

    /// Eight bytes at a time inside a string: a quote, a backslash or a
    /// character past ASCII at every offset of a word, after runs of every
    /// length, are found where the byte loop found them.
    #[test]
    fn mail_json_finds_every_stop_in_a_string_at_any_offset() {
        for stop in [
            "\"",
            "\\\"",
            "\\\\",
            "\\n",
            "\u{b0}",
            "\u{1f3c7}",
            "\\\u{2605}",
        ] {
            for before in 0..20 {
                for after in 0..12 {
                    let t = format!(
                        "{{ \"k\" : \"{}{stop}{}\" , \"n\" : [ 1 ,\t2 ] }}",
                        "ab c"
                            .repeat(before)
                            .chars()
                            .take(before)
                            .collect::<String>(),
                        "xyz w"
                            .repeat(after)
                            .chars()
                            .take(after)
                            .collect::<String>(),
                    );
                    assert_eq!(mail_json(&t), mail_json_by_char(&t), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn wrap_counting_as_it_goes_wraps_as_it_did() {
        for t in texts() {
            for (width, indent) in [(78, "  "), (40, " "), (10, ""), (1, "    ")] {
                assert_eq!(
                    wrap(&t, width, indent),
                    wrap_by_counting(&t, width, indent),
                    "{t:?} at {width}"
                );
            }
        }
    }
}
