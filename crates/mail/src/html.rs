//! HTML mail bodies to plain text, well enough that one order per line survives.
//!
//! This is not a browser. It is a single forward scan over the markup (linear in
//! the input; the element stack is bounded) that:
//!
//! - turns `<br>` into a line break, and block elements (`<p>`, `<div>`, `<li>`,
//!   `<tr>`, headings, `<hr>`, `<table>`, ...) into "start a new line" (a `<p>` is
//!   one line, not a line and a blank line; an empty `<div><br></div>` is a blank
//!   line, as the sender saw it);
//! - collapses runs of whitespace in text to one space, except inside `<pre>`;
//! - decodes character references (`&amp;`, `&nbsp;`, `&#233;`, `&#xE9;`, and the
//!   common named ones); unknown references are kept literally;
//! - drops `<head>`, `<style>`, `<script>`, `<title>`, comments, `<!DOCTYPE>` and
//!   Outlook's `<![if ...]>` conditionals;
//! - drops quoted history: every `<blockquote>`, and any element whose `class` or
//!   `id` marks a quote or a signature (Gmail's `gmail_quote`, Thunderbird's
//!   `moz-cite-prefix`, Yahoo's `yahoo_quoted`, anything named `*signature*`);
//! - stops at Outlook's reply markers: an element with id `divRplyFwdMsg`,
//!   `appendonsend`, `mail-editor-reference-message-container` or
//!   `OLK_SRC_BODY_SECTION` starts the quoted message, so everything from it on is
//!   dropped.
//!
//! List items are not given bullets, so `<li>MOVE C2 C3</li>` is the line
//! `MOVE C2 C3`. Table cells are separated by a space.

/// Elements the stack remembers at most; deeper nesting is treated as flat so a
/// hostile document cannot make closing tags expensive.
const MAX_DEPTH: usize = 256;

/// Converts an HTML document or fragment to plain text (see the module docs).
#[must_use]
pub fn to_text(html: &str) -> String {
    let mut conv = Converter {
        out: String::with_capacity(html.len() / 2),
        stack: Vec::new(),
        dropped: 0,
        pre: 0,
        pending_space: false,
    };
    conv.run(html);
    conv.out
}

struct Open {
    name: String,
    drop: bool,
    pre: bool,
}

struct Converter {
    out: String,
    stack: Vec<Open>,
    /// How many open elements on the stack are dropped (quotes, signatures, head).
    dropped: usize,
    /// How many open `<pre>` elements.
    pre: usize,
    pending_space: bool,
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "br" | "hr"
            | "img"
            | "meta"
            | "link"
            | "input"
            | "wbr"
            | "col"
            | "area"
            | "base"
            | "source"
            | "embed"
            | "param"
            | "track"
            | "keygen"
            | "o:p"
    )
}

fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "li"
            | "ul"
            | "ol"
            | "dl"
            | "dt"
            | "dd"
            | "tr"
            | "table"
            | "tbody"
            | "thead"
            | "tfoot"
            | "caption"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "blockquote"
            | "section"
            | "article"
            | "header"
            | "footer"
            | "aside"
            | "nav"
            | "address"
            | "center"
            | "form"
            | "fieldset"
            | "figure"
            | "figcaption"
            | "main"
            | "body"
            | "html"
    )
}

/// Elements whose content is raw text up to their closing tag and never shown.
fn is_raw_hidden(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "title" | "textarea" | "template" | "noscript" | "xml"
    )
}

/// A `class` or `id` value that marks quoted history or a signature.
fn marks_dropped(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    v.contains("gmail_quote")
        || v.contains("gmail_attr")
        || v.contains("moz-cite-prefix")
        || v.contains("yahoo_quoted")
        || v.contains("signature")
        || v.contains("protonmail_quote")
        || v.contains("zmail_extra")
}

/// A `class` or `id` value after which everything is the quoted message.
fn marks_end(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    v == "divrplyfwdmsg"
        || v == "appendonsend"
        || v == "mail-editor-reference-message-container"
        || v == "olk_src_body_section"
}

/// Finds `needle` (ASCII, lower-case) in `hay` from `from`, ignoring ASCII case.
fn find_ci(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    let first = needle[0];
    let mut i = from;
    while i + needle.len() <= hay.len() {
        if hay[i].to_ascii_lowercase() == first
            && hay[i..i + needle.len()]
                .iter()
                .zip(needle)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The end (index after `>`) of a tag starting at `start`, honouring quoted
/// attribute values; `None` when the tag never ends.
fn tag_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(i + 1),
            None => {}
        }
        i += 1;
    }
    None
}

/// The values of the `class` and `id` attributes in a tag's attribute text.
fn class_and_id(attrs: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let b = attrs.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Skip to an attribute name.
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let name_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'/' {
            i += 1;
        }
        let name = &attrs[name_start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let (vs, ve);
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                vs = i + 1;
                i = vs;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                ve = i;
                i = (i + 1).min(b.len());
            } else {
                vs = i;
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                ve = i;
            }
            if name.eq_ignore_ascii_case("class") || name.eq_ignore_ascii_case("id") {
                found.push(&attrs[vs..ve]);
            }
        } else if name_start == i {
            // No progress: skip one byte to be safe.
            i += 1;
        }
    }
    found
}

impl Converter {
    fn visible(&self) -> bool {
        self.dropped == 0
    }

    fn newline(&mut self) {
        if self.visible() {
            self.out.push('\n');
            self.pending_space = false;
        }
    }

    fn ensure_line_start(&mut self) {
        if self.visible() && !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.pending_space = false;
    }

    fn push_char(&mut self, c: char) {
        if !self.visible() {
            return;
        }
        if self.pre > 0 {
            self.out.push(c);
            return;
        }
        if c.is_whitespace() && c != '\u{a0}' {
            self.pending_space = true;
            return;
        }
        if self.pending_space && !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push(' ');
        }
        self.pending_space = false;
        self.out.push(c);
    }

    fn text(&mut self, s: &str) {
        if !self.visible() {
            return;
        }
        let mut rest = s;
        while let Some(amp) = rest.find('&') {
            for c in rest[..amp].chars() {
                self.push_char(c);
            }
            rest = &rest[amp..];
            match decode_entity(rest) {
                Some((c, len)) => {
                    // `&nbsp;` and friends: kept as a character the caller normalises.
                    self.push_char(c);
                    rest = &rest[len..];
                }
                None => {
                    self.push_char('&');
                    rest = &rest[1..];
                }
            }
        }
        for c in rest.chars() {
            self.push_char(c);
        }
    }

    fn open(&mut self, name: String, attrs: &str, self_closing: bool) -> bool {
        let values = class_and_id(attrs);
        if values.iter().any(|v| marks_end(v)) {
            return false;
        }
        let drop =
            name == "blockquote" || name == "head" || values.iter().any(|v| marks_dropped(v));
        if name == "br" {
            self.newline();
            return true;
        }
        if is_block(&name) || name == "hr" {
            self.ensure_line_start();
        } else if name == "td" || name == "th" {
            self.pending_space = true;
        }
        if is_void(&name) || self_closing || self.stack.len() >= MAX_DEPTH {
            return true;
        }
        let pre = name == "pre";
        if drop {
            self.dropped += 1;
        }
        if pre {
            self.pre += 1;
        }
        self.stack.push(Open { name, drop, pre });
        true
    }

    fn close(&mut self, name: &str) {
        if is_block(name) {
            self.ensure_line_start();
        }
        if let Some(pos) = self.stack.iter().rposition(|o| o.name == name) {
            for o in self.stack.drain(pos..) {
                if o.drop {
                    self.dropped -= 1;
                }
                if o.pre {
                    self.pre -= 1;
                }
            }
        }
        if is_block(name) {
            self.ensure_line_start();
        }
    }

    fn run(&mut self, html: &str) {
        let bytes = html.as_bytes();
        let mut i = 0;
        let mut text_start = 0;
        while i < bytes.len() {
            if bytes[i] != b'<' {
                i += 1;
                continue;
            }
            let next = bytes.get(i + 1).copied().unwrap_or(0);
            let is_markup =
                next.is_ascii_alphabetic() || next == b'/' || next == b'!' || next == b'?';
            if !is_markup {
                i += 1;
                continue;
            }
            self.text(&html[text_start..i]);
            if bytes[i..].starts_with(b"<!--") {
                i = find(bytes, i + 4, b"-->").map_or(bytes.len(), |p| p + 3);
                text_start = i;
                continue;
            }
            let Some(end) = tag_end(bytes, i + 1) else {
                // An unterminated tag: the rest is not text anyone wrote.
                return;
            };
            if next == b'!' || next == b'?' {
                i = end;
                text_start = i;
                continue;
            }
            let closing = next == b'/';
            let name_start = if closing { i + 2 } else { i + 1 };
            let mut name_end = name_start;
            while name_end < end - 1
                && (bytes[name_end].is_ascii_alphanumeric()
                    || bytes[name_end] == b':'
                    || bytes[name_end] == b'-')
            {
                name_end += 1;
            }
            let name = html[name_start..name_end].to_ascii_lowercase();
            let attrs_end = if end >= 2 && bytes[end - 2] == b'/' {
                end - 2
            } else {
                end - 1
            };
            let attrs = html.get(name_end..attrs_end.max(name_end)).unwrap_or("");
            i = end;
            text_start = i;
            if name.is_empty() {
                continue;
            }
            if closing {
                self.close(&name);
                continue;
            }
            if is_raw_hidden(&name) {
                let mut needle = Vec::with_capacity(name.len() + 2);
                needle.extend_from_slice(b"</");
                needle.extend_from_slice(name.as_bytes());
                match find_ci(bytes, i, &needle) {
                    Some(p) => {
                        i = tag_end(bytes, p).unwrap_or(bytes.len());
                    }
                    None => i = bytes.len(),
                }
                text_start = i;
                continue;
            }
            let self_closing = end >= 2 && bytes[end - 2] == b'/';
            if !self.open(name, attrs, self_closing) {
                return;
            }
        }
        self.text(&html[text_start..]);
    }
}

/// Decodes the character reference at the start of `s` (which begins with `&`),
/// returning the character and the length consumed.
fn decode_entity(s: &str) -> Option<(char, usize)> {
    let b = s.as_bytes();
    let limit = b.len().min(40);
    let semi = b[1..limit].iter().position(|&c| c == b';')? + 1;
    let body = &s[1..semi];
    let c = if let Some(num) = body.strip_prefix('#') {
        let n = if let Some(hex) = num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
            u32::from_str_radix(hex, 16).ok()?
        } else {
            num.parse::<u32>().ok()?
        };
        match n {
            0 => '\u{fffd}',
            // Windows-1252 code points written as numeric references.
            0x80..=0x9f => cp1252(n).unwrap_or('\u{fffd}'),
            _ => char::from_u32(n).unwrap_or('\u{fffd}'),
        }
    } else {
        named_entity(body)?
    };
    Some((c, semi + 1))
}

fn cp1252(n: u32) -> Option<char> {
    Some(match n {
        0x80 => '€',
        0x85 => '…',
        0x91 => '\u{2018}',
        0x92 => '\u{2019}',
        0x93 => '\u{201c}',
        0x94 => '\u{201d}',
        0x96 => '–',
        0x97 => '—',
        _ => return None,
    })
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" | "AMP" => '&',
        "lt" | "LT" => '<',
        "gt" | "GT" => '>',
        "quot" | "QUOT" => '"',
        "apos" => '\'',
        "nbsp" | "NBSP" => '\u{a0}',
        "ensp" | "emsp" | "thinsp" => ' ',
        "zwnj" => '\u{200c}',
        "zwj" => '\u{200d}',
        "shy" => '\u{ad}',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "lsquo" => '\u{2018}',
        "rsquo" => '\u{2019}',
        "ldquo" => '\u{201c}',
        "rdquo" => '\u{201d}',
        "laquo" => '«',
        "raquo" => '»',
        "bull" => '•',
        "middot" => '·',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "deg" => '°',
        "times" => '×',
        "euro" => '€',
        "pound" => '£',
        "sect" => '§',
        "eacute" => 'é',
        "Eacute" => 'É',
        "egrave" => 'è',
        "ecirc" => 'ê',
        "agrave" => 'à',
        "acirc" => 'â',
        "ccedil" => 'ç',
        "ocirc" => 'ô',
        "ucirc" => 'û',
        "icirc" => 'î',
        "iuml" => 'ï',
        "auml" => 'ä',
        "ouml" => 'ö',
        "uuml" => 'ü',
        "Auml" => 'Ä',
        "Ouml" => 'Ö',
        "Uuml" => 'Ü',
        "szlig" => 'ß',
        "aacute" => 'á',
        "iacute" => 'í',
        "oacute" => 'ó',
        "uacute" => 'ú',
        "ntilde" => 'ñ',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::to_text;

    #[test]
    fn br_and_blocks_make_lines() {
        assert_eq!(
            to_text("<div>ORDER C2 D2</div><div>MOVE C2 C3</div>ORDER<br>MOVE<br/>BATTLE"),
            "ORDER C2 D2\nMOVE C2 C3\nORDER\nMOVE\nBATTLE"
        );
        assert_eq!(to_text("<p>GAME 12</p><p>HELP</p>"), "GAME 12\nHELP\n");
    }

    #[test]
    fn empty_div_with_br_is_a_blank_line() {
        assert_eq!(
            to_text("<div>A</div><div><br></div><div>B</div>"),
            "A\n\nB\n"
        );
    }

    #[test]
    fn whitespace_collapses_outside_pre() {
        assert_eq!(to_text("<div>MOVE\n   C2\tC3</div>"), "MOVE C2 C3\n");
        assert_eq!(
            to_text("<pre>MOVE  C2\nMOVE C3</pre>"),
            "MOVE  C2\nMOVE C3\n"
        );
    }

    #[test]
    fn lists_become_lines() {
        assert_eq!(
            to_text("<ul><li>ORDER C2 D2</li><li>MOVE C2 C3</li></ul>"),
            "ORDER C2 D2\nMOVE C2 C3\n"
        );
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            to_text("A&amp;B &lt;x&gt; &#233;&#xE9; &eacute; &nbsp;&bogus; &"),
            "A&B <x> éé é \u{a0}&bogus; &"
        );
        assert_eq!(to_text("&#150;&#0;&#x110000;"), "–\u{fffd}\u{fffd}");
    }

    #[test]
    fn head_style_script_comments_dropped() {
        let html = "<!DOCTYPE html><html><head><title>T</title><style>p{x:1}</style></head>\
                    <body><!-- note --><script>alert(1)</script><p>STATUS</p></body></html>";
        assert_eq!(to_text(html), "STATUS\n");
    }

    #[test]
    fn unclosed_style_drops_rest() {
        assert_eq!(to_text("HELP<style>p{}"), "HELP");
    }

    #[test]
    fn blockquote_dropped() {
        assert_eq!(
            to_text("<div>MAP</div><blockquote type=\"cite\"><div>old</div></blockquote><div>STATUS</div>"),
            "MAP\nSTATUS\n"
        );
    }

    #[test]
    fn gmail_quote_dropped() {
        let html = "<div dir=\"ltr\">MOVE C2 C3</div><br><div class=\"gmail_quote\">\
                    <div dir=\"ltr\" class=\"gmail_attr\">On Mon, Judge wrote:<br></div>\
                    <blockquote class=\"gmail_quote\">report</blockquote></div>";
        assert_eq!(to_text(html).trim(), "MOVE C2 C3");
    }

    #[test]
    fn signature_div_dropped() {
        let html = "<div>HELP</div><div class=\"moz-signature\">-- <br>Alice</div>";
        assert_eq!(to_text(html), "HELP\n");
    }

    #[test]
    fn outlook_markers_end_text() {
        let html = "<div>ORDER C2 D2</div><div id=\"appendonsend\"></div><hr>\
                    <div id=\"divRplyFwdMsg\"><b>From:</b> Judge</div><div>old report</div>";
        assert_eq!(to_text(html), "ORDER C2 D2\n");
        let html = "<p>MAP</p><div id=divRplyFwdMsg>From: x</div>";
        assert_eq!(to_text(html), "MAP\n");
    }

    #[test]
    fn tables_cells_are_spaced() {
        assert_eq!(
            to_text("<table><tr><td>MOVE</td><td>C2</td></tr><tr><td>MAP</td></tr></table>"),
            "MOVE C2\nMAP\n"
        );
    }

    #[test]
    fn stray_angle_brackets_are_text() {
        assert_eq!(to_text("a < b and 3<4"), "a < b and 3<4");
        assert_eq!(to_text("HELP <div"), "HELP");
    }

    #[test]
    fn mismatched_close_tags_do_not_unbalance_drops() {
        assert_eq!(
            to_text("<blockquote><div>q</span></blockquote></blockquote><p>OK</p>"),
            "OK\n"
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut html = "<div>".repeat(100_000);
        html.push_str("MAP");
        html.push_str(&"</div>".repeat(100_000));
        assert_eq!(to_text(&html).trim(), "MAP");
        let html = "<span>".repeat(50_000) + "X" + &"</i>".repeat(50_000);
        assert_eq!(to_text(&html), "X");
    }
}
