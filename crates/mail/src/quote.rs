//! From a mail body's text to the new text the sender wrote.
//!
//! [`strip`] applies, in one pass over the lines (linear in the input):
//!
//! 1. **Normalising** ([`normalize`]): CRLF and lone CR become LF; no-break and
//!    other fixed-width spaces (U+00A0, U+2007, U+202F, U+2000..U+200A, U+3000)
//!    become a space; zero-width and direction marks (U+200B..U+200F, U+2060,
//!    U+FEFF, U+00AD, U+202A..U+202E, U+2066..U+2069) and other control
//!    characters except TAB are removed; trailing whitespace is trimmed.
//! 2. **Quoted lines**: a line whose first non-blank character is `>` is dropped.
//! 3. **Attribution lines**: "On ... wrote:" (and "Le ... a écrit :", "Am ...
//!    schrieb ...:", "El ... escribió:", "Op ... geschreven:", "Il ... ha
//!    scritto:"), also when a client wrapped it over up to three lines, and any
//!    line ending in a colon that says "wrote", "writes", "schrieb", "a écrit"
//!    (...) and is followed by a quoted line, are dropped.
//!    When the next non-blank line after an attribution is *not* quoted (a
//!    client that indents the quote instead of marking it), the attribution
//!    ends the text like reply history (rule 4).
//! 4. **Reply history**: Outlook's "-----Original Message-----" line (or its
//!    French, German, Spanish, Italian, Dutch forms), or a header block (a
//!    `From:` line followed by `Sent:`/`Date:`/`To:`/`Cc:`/`Subject:` lines, also
//!    `De :`/`Envoyé :`/`À :`/`Objet :` and `Von:`/`Gesendet:`/`An:`/`Betreff:`),
//!    ends the text: it and everything after it are dropped, with a separator
//!    line (`____`, `----`) just before it.
//! 5. **Signatures**: a line `-- ` (the standard delimiter, which trimming makes
//!    `--`) or a bare `--` drops itself and everything after it, except a
//!    forwarded message further down (see 7).
//! 6. **Mobile footers**: a short line such as "Sent from my iPhone", "Sent from
//!    my Android", "Get Outlook for iOS", "Sent from Yahoo Mail for iPhone",
//!    "Sent from Mail for Windows", "Envoyé de mon iPhone", "Von meinem iPhone
//!    gesendet" is dropped (only that line).
//! 7. **Forwarded messages**: a wrapper line ("---------- Forwarded message
//!    ---------", "Begin forwarded message:", "-------- Forwarded Message
//!    --------", localised forms) and the header block after it are dropped, and
//!    the forwarded body is **kept**, read by these same rules (so its own quotes
//!    and signature go). An Outlook header block whose `Subject:` starts with
//!    `FW:`/`Fwd:`/`TR:`/`WG:` is a forward too, not reply history; and when the
//!    mail's own subject says it is a forward ([`strip_mail`] with `forwarded`),
//!    so is the first Outlook wrapper ("-----Original Message-----" or header
//!    block), as Outlook forwards that way. Whatever the sender wrote above the
//!    wrapper is kept as well, before it.
//! 8. **Tidying**: runs of blank lines become one blank line; blank lines and
//!    separator lines at the start and end are removed. Line structure is
//!    otherwise kept; leading indentation is kept.

/// The new text of a mail body: see the module documentation for the rules.
#[must_use]
pub fn strip(text: &str) -> String {
    strip_mail(text, false)
}

/// [`strip`] for a mail whose subject says it is a forward (see
/// [`is_forward_subject`]): then the first Outlook-style wrapper (an
/// "-----Original Message-----" line or a `From:`/`Sent:` header block) starts
/// the forwarded message, whose body is kept, instead of reply history.
#[must_use]
pub fn strip_mail(text: &str, forwarded: bool) -> String {
    let mut forward_wrapper_pending = forwarded;
    let norm = normalize(text);
    let lines: Vec<&str> = norm.split('\n').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut i = 0;
    let mut in_signature = false;
    while i < lines.len() {
        let line = lines[i];
        if is_forward_marker(line) {
            trim_trailing_separators(&mut kept);
            i = skip_forward_headers(&lines, i + 1);
            in_signature = false;
            continue;
        }
        if in_signature {
            i += 1;
            continue;
        }
        if is_original_message_marker(line) {
            if forward_wrapper_pending {
                forward_wrapper_pending = false;
                trim_trailing_separators(&mut kept);
                i = skip_forward_headers(&lines, i + 1);
                continue;
            }
            break;
        }
        if let Some((len, forward)) = header_block(&lines, i) {
            trim_trailing_separators(&mut kept);
            if forward || forward_wrapper_pending {
                forward_wrapper_pending = false;
                i += len;
                continue;
            }
            break;
        }
        if is_signature_delimiter(line) {
            in_signature = true;
            i += 1;
            continue;
        }
        if is_quoted(line) {
            i += 1;
            continue;
        }
        if let Some(len) = attribution(&lines, i) {
            i += len;
            let next = lines[i..].iter().find(|l| !l.trim().is_empty());
            if next.is_some_and(|l| !is_quoted(l)) {
                // The quote is not marked with '>' (Yahoo, some webmails):
                // everything after the attribution is history.
                break;
            }
            continue;
        }
        if is_mobile_footer(line) {
            i += 1;
            continue;
        }
        kept.push(line);
        i += 1;
    }
    tidy(&kept)
}

/// Normalises line ends, odd spaces, invisible characters and trailing
/// whitespace (rule 1 of the module documentation). Runs of printable
/// ASCII and tabs, nearly all of a mail, are copied whole; the rest goes
/// character by character (issue 57: one `push` a character was 4% of a
/// pass's instructions).
#[must_use]
pub fn normalize(text: &str) -> String {
    fn trim_line_end(out: &mut String) {
        while out
            .chars()
            .next_back()
            .is_some_and(|c| c.is_whitespace() && c != '\n')
        {
            out.pop();
        }
    }
    fn end_line(out: &mut String) {
        trim_line_end(out);
        out.push('\n');
    }
    let plain = |b: &u8| *b == b'\t' || (b' '..=b'~').contains(b);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..]
            .iter()
            .position(|b| !plain(b))
            .map_or(bytes.len(), |n| i + n);
        // ASCII both ends, so both are character boundaries.
        out.push_str(&text[i..run]);
        i = run;
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        match c {
            '\r' => {
                if bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
                end_line(&mut out);
            }
            '\n' | '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{0b}' | '\u{0c}' => end_line(&mut out),
            '\u{a0}'
            | '\u{2007}'
            | '\u{202f}'
            | '\u{2000}'..='\u{200a}'
            | '\u{3000}'
            | '\u{205f}' => out.push(' '),
            '\u{200b}'..='\u{200f}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
            | '\u{ad}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    trim_line_end(&mut out);
    out
}

/// Undoes `format=flowed` (RFC 3676): removes space-stuffing and joins soft
/// line breaks (a line ending in a space) at the same quote depth. With `delsp`
/// the space before a soft break is deleted too.
#[must_use]
pub fn unflow(text: &str, delsp: bool) -> String {
    fn flush(out: &mut String, depth: usize, para: &mut String) {
        for _ in 0..depth {
            out.push('>');
        }
        if depth > 0 {
            out.push(' ');
        }
        out.push_str(para);
        out.push('\n');
        para.clear();
    }
    let mut out = String::with_capacity(text.len());
    let mut para = String::new();
    let mut open: Option<usize> = None;
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let depth = raw.bytes().take_while(|&b| b == b'>').count();
        let content = &raw[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        if let Some(d) = open {
            if d != depth {
                flush(&mut out, d, &mut para);
            }
        }
        let soft = content.ends_with(' ') && content != "-- ";
        if soft {
            para.push_str(if delsp {
                &content[..content.len() - 1]
            } else {
                content
            });
            open = Some(depth);
        } else {
            para.push_str(content);
            flush(&mut out, depth, &mut para);
            open = None;
        }
    }
    if let Some(d) = open {
        flush(&mut out, d, &mut para);
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

fn is_signature_delimiter(line: &str) -> bool {
    line == "--" || line == "-- "
}

/// The letters of a separator-style line, lower-cased, without the dashes,
/// underscores, equals signs and spaces around and inside it.
fn squeezed(line: &str) -> Option<String> {
    let t = line.trim();
    if t.len() > 80 {
        return None;
    }
    Some(
        t.chars()
            .filter(|c| !matches!(c, '-' | '_' | '=' | ' ' | '*'))
            .flat_map(char::to_lowercase)
            .collect(),
    )
}

fn is_original_message_marker(line: &str) -> bool {
    let t = line.trim();
    if !(t.starts_with('-') || t.starts_with('_') || t.starts_with('=')) {
        return false;
    }
    squeezed(t).is_some_and(|s| {
        matches!(
            s.as_str(),
            "originalmessage"
                | "ursprünglichenachricht"
                | "originalnachricht"
                | "messaged'origine"
                | "messagedorigine"
                | "mensajeoriginal"
                | "messaggiooriginale"
                | "oorspronkelijkbericht"
                | "originalbericht"
        )
    })
}

fn is_forward_marker(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('-') || t.starts_with('_') || t.starts_with('=') {
        if let Some(s) = squeezed(t) {
            let s = s.trim_end_matches(':');
            return matches!(
                s,
                "forwardedmessage"
                    | "forwardmessage"
                    | "weitergeleitetenachricht"
                    | "messagetransféré"
                    | "messagetransfere"
                    | "mensajereenviado"
                    | "messaggioinoltrato"
                    | "doorgestuurdbericht"
            );
        }
        return false;
    }
    if t.len() >= 80 {
        return false;
    }
    let lower = t.to_lowercase();
    lower.starts_with("begin forwarded message")
        || lower.starts_with("début du message réexpédié")
        || lower.starts_with("anfang der weitergeleiteten nachricht")
        || lower.starts_with("inicio del mensaje reenviado")
}

/// After a forward marker: skips blank lines and the forwarded header block,
/// returning the index of the forwarded body's first line.
fn skip_forward_headers(lines: &[&str], mut i: usize) -> usize {
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    let start = i;
    while i < lines.len() {
        let line = lines[i];
        let continuation =
            i > start && line.starts_with([' ', '\t']) && !line.trim().is_empty() && i - start < 20;
        if header_key(line).is_some() || continuation {
            i += 1;
        } else {
            break;
        }
    }
    i
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Key {
    From,
    Sent,
    To,
    Subject,
}

/// A mail header line as clients quote it (`From: ...`, `*Sent:* ...`,
/// `Objet : ...`): its key and value.
fn header_key(line: &str) -> Option<(Key, &str)> {
    let t = line.trim_start_matches([' ', '\t', '*']);
    let colon = t.find(':')?;
    if colon > 24 {
        return None;
    }
    let name = t[..colon].trim().trim_end_matches('*').trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphabetic() || c == '-' || c == ' ')
    {
        return None;
    }
    let value = t[colon + 1..].trim_start_matches([' ', '\t', '*']);
    let key = match name.to_lowercase().as_str() {
        "from" | "de" | "von" | "van" | "da" | "från" | "fra" | "od" => Key::From,
        "sent" | "date" | "envoyé" | "gesendet" | "datum" | "enviado" | "fecha" | "data"
        | "inviato" | "verzonden" | "skickat" | "sendt" => Key::Sent,
        "to" | "à" | "a" | "an" | "aan" | "para" | "til" | "till" | "cc" | "cci" | "bcc"
        | "kopie" | "reply-to" | "répondre à" => Key::To,
        "subject" | "objet" | "betreff" | "onderwerp" | "asunto" | "oggetto" | "ämne" | "emne" => {
            Key::Subject
        }
        _ => return None,
    };
    Some((key, value))
}

/// Whether a subject marks a forward: `Fwd:`, `FW:`, `TR:`, `WG:`, `RV:`
/// (also behind list tags such as `[Adjutant]`).
#[must_use]
pub fn is_forward_subject(value: &str) -> bool {
    let mut v = value.trim_start().to_lowercase();
    while v.starts_with('[') {
        match v.find(']') {
            Some(end) => v = v[end + 1..].trim_start().to_string(),
            None => break,
        }
    }
    ["fw:", "fwd:", "tr:", "wg:", "rv:", "fw :", "tr :", "fwd :"]
        .iter()
        .any(|p| v.starts_with(p))
}

/// A quoted header block starting at `i`: its length in lines, and whether it
/// introduces a forwarded message rather than reply history.
fn header_block(lines: &[&str], i: usize) -> Option<(usize, bool)> {
    let (key, _) = header_key(lines[i])?;
    if key != Key::From {
        return None;
    }
    let mut j = i + 1;
    let mut others = 0;
    let mut forward = false;
    while j < lines.len() && j < i + 16 {
        let line = lines[j];
        match header_key(line) {
            Some((Key::From, _)) => {}
            Some((k, value)) => {
                others += 1;
                if k == Key::Subject && is_forward_subject(value) {
                    forward = true;
                }
            }
            None if line.starts_with([' ', '\t']) && !line.trim().is_empty() => {}
            None => break,
        }
        j += 1;
    }
    (others >= 1).then_some((j - i, forward))
}

fn attribution_text(s: &str) -> bool {
    let s = s.trim();
    if s.len() > 400 {
        return false;
    }
    (s.starts_with("On ") && s.ends_with("wrote:"))
        || (s.starts_with("Le ") && (s.ends_with("écrit :") || s.ends_with("écrit:")))
        || (s.starts_with("Am ") && s.contains(" schrieb") && s.ends_with(':'))
        || (s.starts_with("El ") && s.ends_with("escribió:"))
        || (s.starts_with("Op ") && s.ends_with("geschreven:"))
        || (s.starts_with("Il ") && s.ends_with("ha scritto:"))
}

/// An attribution line (possibly wrapped over up to three lines) at `i`: the
/// number of lines it takes.
fn attribution(lines: &[&str], i: usize) -> Option<usize> {
    let first = lines[i].trim();
    let prefixed = ["On ", "Le ", "Am ", "El ", "Op ", "Il "]
        .iter()
        .any(|p| first.starts_with(p));
    if prefixed {
        let mut joined = String::new();
        for (k, line) in lines[i..].iter().take(3).enumerate() {
            if line.trim().is_empty() || (k > 0 && is_quoted(line)) || joined.len() > 400 {
                break;
            }
            if k > 0 {
                joined.push(' ');
            }
            joined.push_str(line.trim());
            if attribution_text(&joined) {
                return Some(k + 1);
            }
        }
    }
    // "Judge <judge@example.org> wrote:", "X schrieb am ...:", "X writes:"
    // directly above quoted text.
    let ends = first.ends_with(':')
        && [
            " wrote",
            " writes",
            " schrieb",
            " a écrit",
            " escribió",
            " ha scritto",
            " geschreven",
        ]
        .iter()
        .any(|w| first.contains(w));
    if ends && first.len() <= 400 {
        let next = lines[i + 1..].iter().take(3).find(|l| !l.trim().is_empty());
        if next.is_some_and(|l| is_quoted(l)) {
            return Some(1);
        }
    }
    None
}

fn is_mobile_footer(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() > 120 {
        return false;
    }
    let t = t.to_lowercase();
    const PREFIXES: &[&str] = &[
        "sent from my ",
        "sent from yahoo mail",
        "sent from mail for windows",
        "sent from outlook",
        "sent from samsung",
        "sent from the all new aol app",
        "sent from aol mobile mail",
        "sent from proton mail",
        "sent with proton mail",
        "sent from gmail mobile",
        "sent via ",
        "get outlook for ",
        "download outlook for ",
        "envoyé de mon ",
        "envoyé depuis ",
        "von meinem ",
        "gesendet von meinem ",
        "gesendet von outlook",
        "enviado desde mi ",
        "inviato da ",
        "verzonden vanaf mijn ",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p))
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 5 && t.chars().all(|c| matches!(c, '_' | '-' | '='))
}

fn trim_trailing_separators(kept: &mut Vec<&str>) {
    while kept
        .last()
        .is_some_and(|l| l.trim().is_empty() || is_separator(l))
    {
        kept.pop();
    }
}

fn tidy(kept: &[&str]) -> String {
    let mut out = String::new();
    let mut blank_pending = false;
    let end = kept
        .iter()
        .rposition(|l| !l.trim().is_empty() && !is_separator(l))
        .map_or(0, |p| p + 1);
    let start = kept
        .iter()
        .position(|l| !l.trim().is_empty() && !is_separator(l))
        .unwrap_or(end)
        .min(end);
    for line in &kept[start..end] {
        if line.trim().is_empty() {
            blank_pending = true;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank_pending {
                out.push('\n');
            }
        }
        blank_pending = false;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_forward_subject, normalize, strip, strip_mail, unflow};
    use proptest::strategy::Strategy as _;

    /// The character-by-character `normalize` the fast one replaced
    /// (issue 57), kept as the reference the property below holds it to.
    fn normalize_by_char(text: &str) -> String {
        fn trim_line_end(out: &mut String) {
            while out
                .chars()
                .next_back()
                .is_some_and(|c| c.is_whitespace() && c != '\n')
            {
                out.pop();
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    trim_line_end(&mut out);
                    out.push('\n');
                }
                '\n' | '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{0b}' | '\u{0c}' => {
                    trim_line_end(&mut out);
                    out.push('\n');
                }
                '\u{a0}'
                | '\u{2007}'
                | '\u{202f}'
                | '\u{2000}'..='\u{200a}'
                | '\u{3000}'
                | '\u{205f}' => out.push(' '),
                '\u{200b}'..='\u{200f}'
                | '\u{2060}'..='\u{2064}'
                | '\u{feff}'
                | '\u{ad}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}' => {}
                '\t' => out.push('\t'),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
        trim_line_end(&mut out);
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Mails' text of plain ASCII runs, every character `normalize`
        /// treats apart (line ends of each kind, odd spaces, invisibles,
        /// controls, DEL) and other UTF-8: the same as character by character.
        #[test]
        fn normalize_copies_runs_exactly_as_it_did_by_character(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[ -~]{0,40}",
                    proptest::sample::select(vec![
                        "\r", "\n", "\r\n", "\t", " ", "  \t", "\u{7f}", "\u{0}", "\u{1b}",
                        "\u{85}", "\u{2028}", "\u{2029}", "\u{0b}", "\u{0c}", "\u{a0}",
                        "\u{2007}", "\u{3000}", "\u{200b}", "\u{feff}", "\u{ad}", "\u{202e}",
                        "\u{2066}", "é", "ü", "€", "🎲", "\u{1680}", "\u{9f}",
                    ]).prop_map(str::to_string),
                    "\\PC{0,6}",
                ],
                0..40,
            )
        ) {
            let text: String = parts.concat();
            proptest::prop_assert_eq!(normalize(&text), normalize_by_char(&text));
        }
    }

    #[test]
    fn normalize_line_ends_spaces_and_invisibles() {
        assert_eq!(normalize("MOVE C2\r\nMAP\rHELP\n"), "MOVE C2\nMAP\nHELP\n");
        assert_eq!(normalize("MOVE\u{a0}C2\u{202f}C3"), "MOVE C2 C3");
        assert_eq!(
            normalize("\u{feff}OR\u{200b}DER C2\u{200d} D2"),
            "ORDER C2 D2"
        );
        assert_eq!(normalize("MAP   \t\nHELP  "), "MAP\nHELP");
        assert_eq!(normalize("A\u{0}B\u{1b}C\tD"), "ABC\tD");
    }

    #[test]
    fn quoted_lines_dropped() {
        assert_eq!(
            strip("MOVE C2 C3\n> old\n>> older\n  > indented\nMAP"),
            "MOVE C2 C3\nMAP"
        );
    }

    #[test]
    fn english_attribution_dropped_even_wrapped() {
        let t = "ORDER C2 D2\n\nOn Mon, 3 Mar 2025 at 10:00, Adjutant Judge <\njudge@example.org> wrote:\n\n> Turn 3\n";
        assert_eq!(strip(t), "ORDER C2 D2");
        let t = "On 03/03/2025 10:00, Judge wrote:\n> report\n\nMOVE C2 C3";
        assert_eq!(strip(t), "MOVE C2 C3");
    }

    #[test]
    fn attribution_before_unmarked_quote_ends_text() {
        let t = "MAP\n\nOn Mon, 3 Mar 2025, Judge <j@x> wrote:\n\n   Turn 3 report\n   MOVE X";
        assert_eq!(strip(t), "MAP");
    }

    #[test]
    fn french_and_german_attributions_dropped() {
        let t = "MAP\n\nLe lun. 3 mars 2025 à 10:00, Judge <judge@example.org> a écrit :\n> x";
        assert_eq!(strip(t), "MAP");
        let t =
            "STATUS\n\nAm Mo., 3. März 2025 um 10:00 Uhr schrieb Judge <judge@example.org>:\n> x";
        assert_eq!(strip(t), "STATUS");
    }

    #[test]
    fn bare_wrote_line_only_above_quotes() {
        assert_eq!(strip("Judge wrote:\n> x\nHELP"), "HELP");
        assert_eq!(strip("Judge <j@x> writes:\n\n> x\nHELP"), "HELP");
        assert_eq!(
            strip("Judge <j@x> schrieb am Do., 6. März 2025, 18:00:\n> x\nMAP"),
            "MAP"
        );
        assert_eq!(strip("Alice wrote:\nHELP"), "Alice wrote:\nHELP");
    }

    #[test]
    fn original_message_cuts() {
        let t = "BATTLE D3 E5\n\n-----Original Message-----\nFrom: Judge\nSent: today\n\nTurn 3";
        assert_eq!(strip(t), "BATTLE D3 E5");
        let t = "MAP\n----- Original Message -----\nold";
        assert_eq!(strip(t), "MAP");
        let t = "MAP\n-----Ursprüngliche Nachricht-----\nold";
        assert_eq!(strip(t), "MAP");
    }

    #[test]
    fn outlook_header_block_cuts_with_separator() {
        let t = "ORDER C2 D2\n\n________________________________\nFrom: Adjutant <judge@example.org>\nSent: Monday, March 3, 2025 10:00 AM\nTo: Alice\nSubject: RE: Turn 3\n\nTurn 3 report\nMOVE X";
        assert_eq!(strip(t), "ORDER C2 D2");
        let t = "MAP\n\nDe : Adjutant\nEnvoyé : lundi 3 mars 2025 10:00\nÀ : Alice\nObjet : Tour 3\n\nvieux";
        assert_eq!(strip(t), "MAP");
        let t = "MAP\n\n*From:* Adjutant\n*Sent:* Monday\n\nold";
        assert_eq!(strip(t), "MAP");
    }

    #[test]
    fn lone_from_line_is_kept() {
        assert_eq!(
            strip("From: the north\nMOVE C2 C3"),
            "From: the north\nMOVE C2 C3"
        );
    }

    #[test]
    fn signature_cuts_both_forms() {
        assert_eq!(strip("HELP\n-- \nAlice\nhttp://x"), "HELP");
        assert_eq!(strip("HELP\n--\nAlice"), "HELP");
        assert_eq!(strip("HELP\n---\nAlice"), "HELP\n---\nAlice");
    }

    #[test]
    fn mobile_footers_dropped() {
        for footer in [
            "Sent from my iPhone",
            "Sent from my Android",
            "Get Outlook for iOS",
            "Get Outlook for Android",
            "Sent from Yahoo Mail on Android",
            "Sent from Mail for Windows",
            "Envoyé de mon iPhone",
            "Von meinem iPhone gesendet",
        ] {
            assert_eq!(
                strip(&format!("STATUS\n\n{footer}\n")),
                "STATUS",
                "{footer}"
            );
        }
    }

    #[test]
    fn forwarded_message_body_kept() {
        let t = "Here are my orders\n\n---------- Forwarded message ---------\nFrom: Alice <a@example.org>\nDate: Mon, 3 Mar 2025 at 10:00\nSubject: orders\nTo: <alice@example.com>\n\n\nMOVE C2 C3\n-- \nAlice";
        assert_eq!(strip(t), "Here are my orders\n\nMOVE C2 C3");
        let t = "Begin forwarded message:\n\nFrom: Alice <a@example.org>\nSubject: orders\nDate: March 3, 2025\nTo: me\n\nMAP";
        assert_eq!(strip(t), "MAP");
    }

    #[test]
    fn outlook_forward_block_is_a_forward() {
        let t = "________________________________\nFrom: Alice\nSent: Monday\nTo: Bob\nSubject: FW: orders\n\nMOVE C2 C3";
        assert_eq!(strip(t), "MOVE C2 C3");
    }

    #[test]
    fn outlook_forward_known_by_the_mail_subject() {
        let t = "FYI\n________________________________\nFrom: Alice\nSent: Monday\nTo: Bob\nSubject: orders\n\nMOVE C2 C3\n\n-----Original Message-----\nFrom: Judge\nSent: Sunday\n\nold report";
        assert_eq!(strip_mail(t, true), "FYI\n\nMOVE C2 C3");
        assert_eq!(strip_mail(t, false), "FYI");
        let t = "-----Original Message-----\nFrom: Alice\nSent: Monday\nSubject: orders\n\nMAP";
        assert_eq!(strip_mail(t, true), "MAP");
    }

    #[test]
    fn forward_subjects() {
        for s in [
            "Fwd: orders",
            "FW: orders",
            "TR: ordres",
            "WG: Befehle",
            "[Adjutant] Fwd: x",
        ] {
            assert!(is_forward_subject(s), "{s}");
        }
        for s in ["Re: Fwd: x", "orders", "Forward march"] {
            assert!(!is_forward_subject(s), "{s}");
        }
    }

    #[test]
    fn forward_after_signature_resumes() {
        let t = "see below\n-- \nBob\n-------- Forwarded Message --------\nSubject: x\nDate: y\nFrom: z\n\nHELP";
        assert_eq!(strip(t), "see below\n\nHELP");
    }

    #[test]
    fn blank_runs_collapse_and_edges_trim() {
        assert_eq!(strip("\n\n  \nMOVE C2\n\n\n\nMAP\n\n"), "MOVE C2\n\nMAP");
        assert_eq!(strip(""), "");
        assert_eq!(strip("\n\n"), "");
    }

    #[test]
    fn leading_indent_kept() {
        assert_eq!(strip("  MOVE C2 C3"), "  MOVE C2 C3");
    }

    #[test]
    fn unflow_joins_soft_breaks_and_unstuffs() {
        assert_eq!(
            unflow("MOVE C2 C3 \r\nD3\r\n From x\r\n", false),
            "MOVE C2 C3 D3\nFrom x\n"
        );
        assert_eq!(unflow("MOVE C2 \nC3", true), "MOVE C2C3");
        assert_eq!(unflow("-- \nAlice", false), "-- \nAlice");
        assert_eq!(unflow("> a \n> b\nc", false), "> a b\nc");
        assert_eq!(unflow("a \n> b", false), "a \n> b");
    }

    #[test]
    fn strip_is_linear_on_many_lines() {
        let t = "> q\nMOVE C2 C3\nOn x\n".repeat(200_000);
        let out = strip(&t);
        assert_eq!(out.lines().count(), 400_000);
    }
}
