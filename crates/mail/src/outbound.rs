//! Composing mail (lettre's builder) and delivering it.
//!
//! A message is composed once, when the transaction that caused it commits,
//! and stored whole in the outbox. Delivery sends those stored bytes; the file
//! transport writes them to a name fixed by the outbox row, so a delivery
//! repeated after a crash rewrites the same file rather than adding a second.

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::Message;
use std::path::Path;

/// The RFC 3834 `Auto-Submitted` header. Every mail the judge sends carries
/// it, so well-behaved responders do not answer and other judges ignore us.
#[derive(Debug, Clone)]
struct AutoSubmitted(String);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `X-Adjutant-Game`: lets a host filter and lets us recognise our own mail.
#[derive(Debug, Clone)]
struct GameHeader(String);

impl Header for GameHeader {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("X-Adjutant-Game")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(GameHeader(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// A mail to compose.
#[derive(Debug, Clone, Default)]
pub struct Outgoing {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// An HTML alternative to the text (the picture of the board).
    pub html: Option<String>,
    /// Parts the HTML shows inline, by `cid:` (Content-ID without
    /// brackets, MIME type, bytes): the board's PNG. With any, the HTML
    /// and they are one `multipart/related`.
    pub inline: Vec<(String, String, Vec<u8>)>,
    /// Attachments: (file name, MIME type, bytes).
    pub attachments: Vec<(String, String, Vec<u8>)>,
    /// The Message-ID (without brackets) this answers.
    pub in_reply_to: Option<String>,
    /// Where replies should go (the seat's own address), if not the judge's.
    pub reply_to: Option<String>,
    /// `auto-replied` for answers, `auto-generated` for everything else.
    pub replying: bool,
    pub game_id: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("bad address '{0}': {1}")]
    Address(String, String),
    #[error("cannot build the message: {0}")]
    Build(String),
}

/// The longest subject the judge writes, in characters; lettre folds it at
/// its spaces, so no header line comes near RFC 5322's 998.
pub const MAX_SUBJECT: usize = 150;

/// Header text as it may be written: control characters (CR, LF, ...)
/// become spaces, runs of white space one space, and it is cut to `max`
/// characters (a long word is broken so it folds).
#[must_use]
pub fn header_text(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut word = 0usize;
    for c in s.chars().map(|c| if c.is_control() { ' ' } else { c }) {
        if out.chars().count() >= max {
            out.push_str("...");
            break;
        }
        if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
            word = 0;
            continue;
        }
        if word >= 60 {
            out.push(' ');
            word = 0;
        }
        out.push(c);
        word += 1;
    }
    out.trim().to_string()
}

/// A message id fit to echo in In-Reply-To: printable, no spaces or angle
/// brackets, at most 250 bytes.
fn sane_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 250
        && id
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>')
}

/// Whether [`compose`] takes `addr` as an address (checked when a mail is
/// queued to be composed later).
pub fn check_address(addr: &str) -> Result<(), ComposeError> {
    addr.parse::<lettre::Address>()
        .map(|_| ())
        .map_err(|e| ComposeError::Address(addr.into(), e.to_string()))
}

/// A bound from above on the size of `m` as [`compose`] writes it, without
/// composing it (the report mails are held to 80 KB by it, issue 57):
/// each text part and text attachment quoted-printable at worst (`=XX`
/// for each non-ASCII byte and `=`, a soft line break each 73 bytes, CRLF
/// line ends) or base64 where that is shorter, as lettre chooses; each
/// inline part and binary attachment base64 in 76-column lines; and room
/// for the headers and the MIME boundaries.
#[must_use]
pub fn size_bound(m: &Outgoing) -> usize {
    const HEADERS: usize = 3_000;
    const PART: usize = 200;
    let base64 = |n: usize| n.div_ceil(3) * 4 * 78 / 76 + 2;
    let text = |b: &[u8]| {
        let (mut odd, mut lines) = (0, 1);
        for &c in b {
            odd += usize::from(c >= 128 || c == b'=');
            lines += usize::from(c == b'\n');
        }
        let n = b.len() + 2 * odd;
        let qp = n + n / 24 + 2 * lines;
        if odd == 0 {
            qp
        } else {
            qp.min(base64(b.len()))
        }
    };
    let file = |b: &[u8]| match std::str::from_utf8(b) {
        Ok(_) => text(b),
        Err(_) => base64(b.len()),
    };
    HEADERS
        + text(m.text.as_bytes())
        + m.html.as_ref().map_or(0, |h| text(h.as_bytes()))
        + m.inline
            .iter()
            .map(|p| base64(p.2.len()) + PART)
            .sum::<usize>()
        + m.attachments
            .iter()
            .map(|p| file(&p.2) + PART)
            .sum::<usize>()
}

/// Build the RFC 5322 bytes. `message_id` is without brackets.
pub fn compose(
    from_name: &str,
    from_addr: &str,
    message_id: &str,
    date: std::time::SystemTime,
    m: &Outgoing,
) -> Result<Vec<u8>, ComposeError> {
    let mbox = |name: Option<&str>, addr: &str| -> Result<Mailbox, ComposeError> {
        let a = addr.parse().map_err(|e: lettre::address::AddressError| {
            ComposeError::Address(addr.into(), e.to_string())
        })?;
        Ok(Mailbox::new(name.map(str::to_string), a))
    };
    let mut b = Message::builder()
        .from(mbox(Some(from_name), from_addr)?)
        .to(mbox(None, &m.to)?)
        .subject(header_text(&m.subject, MAX_SUBJECT))
        .date(date)
        .message_id(Some(format!("<{message_id}>")))
        .header(AutoSubmitted(
            if m.replying {
                "auto-replied"
            } else {
                "auto-generated"
            }
            .into(),
        ));
    if let Some(r) = &m.reply_to {
        b = b.reply_to(mbox(Some(from_name), r)?);
    }
    // A Message-ID from a mail is echoed only when it is a sane one.
    if let Some(irt) = m.in_reply_to.as_ref().filter(|i| sane_id(i)) {
        b = b
            .in_reply_to(format!("<{irt}>"))
            .references(format!("<{irt}>"));
    }
    if let Some(g) = m.game_id {
        b = b.header(GameHeader(g.to_string()));
    }
    let text_part = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(part_body(m.text.as_bytes(), true));
    let body = match &m.html {
        Some(html) => {
            let html_part = SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(part_body(html.as_bytes(), true));
            let alt = MultiPart::alternative().singlepart(text_part);
            if m.inline.is_empty() {
                alt.singlepart(html_part)
            } else {
                alt.multipart(related(html_part, &m.inline)?)
            }
        }
        None => MultiPart::mixed().singlepart(text_part),
    };
    let msg = if m.attachments.is_empty() && m.html.is_none() {
        b.singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_PLAIN)
                .body(part_body(m.text.as_bytes(), true)),
        )
    } else {
        let mut mixed = if m.html.is_some() {
            MultiPart::mixed().multipart(body)
        } else {
            body
        };
        for (name, mime, bytes) in &m.attachments {
            let ct = ContentType::parse(mime).map_err(|e| ComposeError::Build(e.to_string()))?;
            mixed =
                mixed.singlepart(Attachment::new(name.clone()).body(part_body(bytes, false), ct));
        }
        b.multipart(mixed)
    }
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(msg.formatted())
}

/// `multipart/related` (RFC 2387): the HTML, then each part it names by
/// `cid:`, inline, with its Content-ID.
fn related(
    html: SinglePart,
    inline: &[(String, String, Vec<u8>)],
) -> Result<MultiPart, ComposeError> {
    let mut rel = MultiPart::related().singlepart(html);
    for (cid, mime, bytes) in inline {
        let ct = ContentType::parse(mime).map_err(|e| ComposeError::Build(e.to_string()))?;
        rel = rel.singlepart(Attachment::new_inline(cid.clone()).body(part_body(bytes, false), ct));
    }
    // RFC 2387 3.1: `type` (the root part's type) is required; some
    // clients show a related part without it as attachments (issue 53).
    let ct = ContentType::parse(&format!(
        "multipart/related; type=\"text/html\"; boundary=\"{}\"",
        rel.boundary()
    ))
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    rel.headers_mut().set(ct);
    Ok(rel)
}

/// The HTML part's body: as 7-bit text when it is ASCII and every line fits
/// RFC 5322's 998 octets (the report's pages are: html::document writes
/// every other character as a reference), else whatever lettre finds best.
/// lettre itself takes 7 bits only for lines under 76 characters, and
/// quoted-printable writes each `=` of the SVG's attributes as `=3D`.
/// A part's body, encoded here when that is cheap and certain, by lettre
/// otherwise. ASCII text without CR or NUL and with lines of at most 990
/// bytes goes as 7bit (RFC 5322 allows 998), its line ends made CRLF: the
/// reports, maps and boards are such text, and lettre would encode them as
/// quoted-printable for any line of 76 or more. Other ASCII (the one-line
/// JSON view) is quoted-printable by [`qp_ascii`]; anything else is left to
/// lettre's own choice (UTF-8 text as 8bit or quoted-printable, other bytes
/// as base64).
fn part_body(bytes: &[u8], text: bool) -> lettre::message::Body {
    use lettre::message::header::ContentTransferEncoding;
    // One branch-free pass (it vectorises): any byte that is not ASCII, a
    // CR or a NUL.
    let odd = bytes
        .iter()
        .fold(false, |odd, &b| odd | (b >= 128) | (b == b'\r') | (b == 0));
    if odd {
        return match std::str::from_utf8(bytes) {
            Ok(t) if text => lettre::message::Body::new(t.to_string()),
            // A UTF-8 attachment (view.json with a `°` in an event, issue
            // 53): quoted-printable, each non-ASCII byte `=XX`, a few bytes
            // more than the text, where lettre's base64 took a third more
            // (Minden's report mails went over 80 KB).
            Ok(_) => lettre::message::Body::dangerous_pre_encoded(
                qp_ascii(bytes),
                ContentTransferEncoding::QuotedPrintable,
            ),
            Err(_) => lettre::message::Body::new(bytes.to_vec()),
        };
    }
    let mut crlf = Vec::with_capacity(bytes.len() + bytes.len() / 32 + 2);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n");
        if body.unwrap_or(line).len() > 990 {
            return lettre::message::Body::dangerous_pre_encoded(
                qp_ascii(bytes),
                ContentTransferEncoding::QuotedPrintable,
            );
        }
        match body {
            Some(body) => {
                crlf.extend_from_slice(body);
                crlf.extend_from_slice(b"\r\n");
            }
            None => crlf.extend_from_slice(line),
        }
    }
    lettre::message::Body::dangerous_pre_encoded(crlf, ContentTransferEncoding::SevenBit)
}

/// Quoted-printable (RFC 2045 6.7) of ASCII without CR or NUL: `=` and
/// control characters other than tab written `=XX`, a space or tab before a
/// line end written `=XX` too, a line end as CRLF, and a soft line break
/// (`=` CRLF) before an encoded line would pass 75 characters, so no line
/// is longer than 76 with its `=`. Runs of plain characters are copied
/// whole.
fn qp_ascii(bytes: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    const WIDTH: usize = 75;
    let plain = |b: u8| (33..=126).contains(&b) && b != b'=';
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 24 + 16);
    let mut col = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            out.extend_from_slice(b"\r\n");
            col = 0;
            i += 1;
        } else if plain(b) {
            let run = bytes[i..]
                .iter()
                .position(|&c| !plain(c))
                .unwrap_or(bytes.len() - i);
            let end = i + run;
            while i < end {
                if col == WIDTH {
                    out.extend_from_slice(b"=\r\n");
                    col = 0;
                }
                let take = (WIDTH - col).min(end - i);
                out.extend_from_slice(&bytes[i..i + take]);
                col += take;
                i += take;
            }
        } else {
            let at_end = bytes.get(i + 1).is_none_or(|&n| n == b'\n');
            let literal = (b == b' ' || b == b'\t') && !at_end;
            let width = if literal { 1 } else { 3 };
            if col + width > WIDTH {
                out.extend_from_slice(b"=\r\n");
                col = 0;
            }
            if literal {
                out.push(b);
            } else {
                out.extend_from_slice(&[b'=', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            }
            col += width;
            i += 1;
        }
    }
    out
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct DeliveryError {
    pub message: String,
    /// Worth trying again later (network down, 4xx), as opposed to permanent.
    pub transient: bool,
}

/// Write `raw` to `dir/NAME.eml` atomically: it appears whole or not at
/// all. On Linux the bytes go to an unnamed file in the folder
/// (`O_TMPFILE`) that is then linked under its name, so the folder gets
/// one new name a mail, not a temporary one created, looked up and renamed
/// (issue 57: those were most of the courier's kernel time in a big pass).
/// Where that cannot be done (a file system without unnamed files, no
/// `/proc`, a file of that name already there: a mail delivered again) a
/// temporary file is written and renamed over the name. The folder is made
/// when it is missing, and only then: making it before every mail was a
/// failed `mkdir` a mail (issue 57).
pub fn deliver_file(dir: &Path, name: &str, raw: &[u8]) -> Result<(), DeliveryError> {
    let err = |e: std::io::Error| DeliveryError {
        message: format!("cannot write to {}: {e}", dir.display()),
        transient: true,
    };
    #[cfg(target_os = "linux")]
    if link_unnamed(dir, &dir.join(format!("{name}.eml")), raw) {
        return Ok(());
    }
    let tmp = dir.join(format!(".{name}.tmp"));
    match std::fs::write(&tmp, raw) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(err)?;
            std::fs::write(&tmp, raw).map_err(err)?;
        }
        written => written.map_err(err)?,
    }
    std::fs::rename(&tmp, dir.join(format!("{name}.eml"))).map_err(err)?;
    Ok(())
}

/// Writes `raw` to an unnamed file in `dir` and links it as `to`; false
/// (nothing left behind: an unnamed file that is not linked is freed when
/// it is closed) if any step fails, for [`deliver_file`]'s rename to do it
/// or say why not.
#[cfg(target_os = "linux")]
fn link_unnamed(dir: &Path, to: &Path, raw: &[u8]) -> bool {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(mut f) = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
    else {
        return false;
    };
    if f.write_all(raw).is_err() {
        return false;
    }
    // linkat(AT_EMPTY_PATH) needs a capability most hosts lack; the
    // descriptor's /proc name followed as a link does not.
    let (Ok(from), Ok(to)) = (
        std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd())),
        std::ffi::CString::new(to.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // SAFETY: linkat with two NUL-terminated paths this function owns; it
    // only makes a directory entry for the open file.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    linked == 0
}

/// Hand `raw` to a sendmail-compatible command.
pub fn deliver_sendmail(
    command: &str,
    from: &str,
    to: &str,
    raw: &[u8],
) -> Result<(), DeliveryError> {
    use lettre::Transport;
    let env = lettre::address::Envelope::new(
        Some(from.parse().map_err(|e| DeliveryError {
            message: format!("bad sender {from}: {e}"),
            transient: false,
        })?),
        vec![to.parse().map_err(|e| DeliveryError {
            message: format!("bad recipient {to}: {e}"),
            transient: false,
        })?],
    )
    .map_err(|e| DeliveryError {
        message: e.to_string(),
        transient: false,
    })?;
    lettre::SendmailTransport::new_with_command(command)
        .send_raw(&env, raw)
        .map_err(|e| DeliveryError {
            message: format!("sendmail: {e}"),
            transient: true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outbox folder is made when it is missing (a host removed it,
    /// or its parent), and a mail into a folder that is there needs no
    /// `mkdir` (issue 57: one failed `mkdir` a delivered mail before).
    #[test]
    fn a_file_is_delivered_into_a_missing_folder_and_beside_the_others() {
        let root = std::env::temp_dir().join(format!("adj-deliver-{}", std::process::id()));
        let dir = root.join("mail").join("outbox");
        let _ = std::fs::remove_dir_all(&root);
        deliver_file(&dir, "one", b"first").unwrap();
        deliver_file(&dir, "two", b"second").unwrap();
        assert_eq!(std::fs::read(dir.join("one.eml")).unwrap(), b"first");
        assert_eq!(std::fs::read(dir.join("two.eml")).unwrap(), b"second");
        std::fs::remove_dir_all(&dir).unwrap();
        deliver_file(&dir, "three", b"third").unwrap();
        assert_eq!(std::fs::read(dir.join("three.eml")).unwrap(), b"third");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["three.eml"], "no temporary file is left");
        // A folder that cannot be made is a transient error, not a panic.
        std::fs::write(root.join("file"), b"").unwrap();
        let e = deliver_file(&root.join("file").join("outbox"), "four", b"x").unwrap_err();
        assert!(e.transient, "{}", e.message);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// The names that appear in `dir` (inotify: created or moved in)
    /// while `f` runs, in order.
    #[cfg(target_os = "linux")]
    fn names_appearing(dir: &Path, f: impl FnOnce()) -> Vec<String> {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: inotify calls on a descriptor this function owns and
        // closes; the buffer is read within the length the kernel gave.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(fd >= 0);
            let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
            let mask = libc::IN_CREATE | libc::IN_MOVED_TO;
            assert!(libc::inotify_add_watch(fd, path.as_ptr(), mask) >= 0);
            f();
            let mut buf = vec![0u8; 64 * 1024];
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            libc::close(fd);
            let mut names = Vec::new();
            let mut at = 0;
            let head = std::mem::size_of::<libc::inotify_event>();
            while n > 0 && at + head <= n as usize {
                let ev = std::ptr::read_unaligned(buf[at..].as_ptr().cast::<libc::inotify_event>());
                let name = &buf[at + head..at + head + ev.len as usize];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                names.push(String::from_utf8_lossy(&name[..end]).into_owned());
                at += head + ev.len as usize;
            }
            names
        }
    }

    /// A delivered file appears in the outbox whole and under its own name
    /// only: no temporary name is made in the folder and renamed (issue 57:
    /// creating, looking up and renaming a second name a mail was most of
    /// the courier's kernel time), and a mail delivered again (after a
    /// crash) replaces the first copy.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_delivered_file_appears_under_its_own_name_only() {
        let dir = std::env::temp_dir().join(format!("adj-deliver-name-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let names = names_appearing(&dir, || {
            deliver_file(&dir, "000001-reply", b"first").unwrap();
            deliver_file(&dir, "000002-report", b"second").unwrap();
        });
        assert_eq!(names, ["000001-reply.eml", "000002-report.eml"]);
        assert_eq!(
            std::fs::read(dir.join("000001-reply.eml")).unwrap(),
            b"first"
        );
        assert_eq!(
            std::fs::read(dir.join("000002-report.eml")).unwrap(),
            b"second"
        );
        // Delivered again: the new bytes, and still no other file.
        deliver_file(&dir, "000001-reply", b"again").unwrap();
        assert_eq!(
            std::fs::read(dir.join("000001-reply.eml")).unwrap(),
            b"again"
        );
        let mut all: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        all.sort();
        assert_eq!(all, ["000001-reply.eml", "000002-report.eml"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The size bound the report mails are held to 80 KB by (issue 57) is
    /// never under the composed mail's size, and not far over it, whatever
    /// the parts: plain ASCII, lines over 990 bytes, non-ASCII text, a PNG,
    /// a UTF-8 JSON attachment, a binary one.
    #[test]
    fn the_size_bound_is_above_the_composed_size_and_close_to_it() {
        let mut x = 99u32;
        let mut byte = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        };
        let ascii: String = (0..12_000)
            .map(|i| if i % 70 == 69 { '\n' } else { 'a' })
            .collect();
        let long_lines = "x".repeat(5_000);
        let accents = "Fuentes de Oñoro, 15° à l'est\n".repeat(300);
        let png: Vec<u8> = (0..40_000).map(|_| byte()).collect();
        let json = "{\"bearing\":\"15°\"}\n".repeat(400).into_bytes();
        let binary: Vec<u8> = (0..3_000).map(|_| byte()).collect();
        let mail = || Outgoing {
            to: "alice@example.org".into(),
            subject: "Game 1: turn 10 (axis), referee's copy".into(),
            in_reply_to: Some("abc@x".into()),
            reply_to: Some("judge+tok@example.org".into()),
            game_id: Some(1),
            ..Outgoing::default()
        };
        let cases: Vec<(&str, Outgoing)> = vec![
            (
                "text only",
                Outgoing {
                    text: ascii.clone(),
                    ..mail()
                },
            ),
            (
                "long lines",
                Outgoing {
                    text: long_lines.clone(),
                    ..mail()
                },
            ),
            (
                "a report",
                Outgoing {
                    text: accents.clone(),
                    html: Some(format!("<pre>{ascii}</pre>")),
                    inline: vec![("board1@adjutant".into(), "image/png".into(), png.clone())],
                    attachments: vec![
                        (
                            "desk.txt".into(),
                            "text/plain; charset=utf-8".into(),
                            ascii.clone().into_bytes(),
                        ),
                        ("view.json".into(), "application/json".into(), json.clone()),
                    ],
                    ..mail()
                },
            ),
            (
                "a binary attachment",
                Outgoing {
                    text: ascii.clone(),
                    attachments: vec![("x.bin".into(), "application/octet-stream".into(), binary)],
                    ..mail()
                },
            ),
        ];
        for (what, m) in cases {
            let raw = compose(
                "Adjutant",
                "judge@example.org",
                "id@example.org",
                std::time::UNIX_EPOCH,
                &m,
            )
            .expect("composes");
            let bound = size_bound(&m);
            assert!(
                raw.len() <= bound,
                "{what}: {} bytes over the bound {bound}",
                raw.len()
            );
            assert!(
                bound <= raw.len() + raw.len() / 16 + 4_000,
                "{what}: the bound {bound} is far over {} bytes",
                raw.len()
            );
        }
    }

    #[test]
    fn composed_mail_has_threading_and_loop_headers() {
        let m = Outgoing {
            to: "alice@example.org".into(),
            subject: "Re: orders".into(),
            text: "Hello\n".into(),
            in_reply_to: Some("abc@x".into()),
            reply_to: Some("judge+tok@example.org".into()),
            replying: true,
            game_id: Some(3),
            ..Outgoing::default()
        };
        let raw = compose(
            "Adjutant",
            "judge@example.org",
            "id1@example.org",
            std::time::UNIX_EPOCH,
            &m,
        )
        .unwrap();
        let s = String::from_utf8(raw).unwrap();
        assert!(s.contains("In-Reply-To: <abc@x>"), "{s}");
        assert!(s.contains("Auto-Submitted: auto-replied"), "{s}");
        assert!(s.contains("Message-ID: <id1@example.org>"), "{s}");
        assert!(s.contains("X-Adjutant-Game: 3"), "{s}");
        assert!(
            s.contains("Reply-To: Adjutant <judge+tok@example.org>"),
            "{s}"
        );
    }

    #[test]
    fn no_header_line_is_longer_than_rfc_5322_allows() {
        let m = Outgoing {
            to: "alice@example.org".into(),
            subject: format!(
                "Re: {}\r\nBcc: x@y {}",
                "x".repeat(50_000),
                "word ".repeat(5_000)
            ),
            text: "Hello\n".into(),
            in_reply_to: Some("a".repeat(50_000)),
            ..Outgoing::default()
        };
        let raw = compose(
            "Adjutant",
            "judge@example.org",
            "id1@example.org",
            std::time::UNIX_EPOCH,
            &m,
        )
        .unwrap();
        let s = String::from_utf8(raw).unwrap();
        let head = &s[..s.find("\r\n\r\n").unwrap()];
        for line in head.split("\r\n") {
            assert!(line.len() <= 78 + 2, "{} bytes: {line}", line.len());
            assert!(!line.starts_with("Bcc"), "{line}");
        }
        assert!(!head.contains("In-Reply-To"), "an absurd id is not echoed");
        assert!(head.len() < 1_000, "{head}");
    }

    #[test]
    fn bad_address_is_an_error_not_a_panic() {
        let m = Outgoing {
            to: "not an address".into(),
            ..Outgoing::default()
        };
        assert!(compose("A", "judge@x", "i@x", std::time::UNIX_EPOCH, &m).is_err());
    }

    /// Composes a mail with `text`, `html` and one attachment, and reads it
    /// back with mail-parser (the reader the judge uses for inbound mail).
    fn round_trip(text: &str, html: &str, attachment: &[u8]) -> (String, String, Vec<u8>, String) {
        let m = Outgoing {
            to: "alice@example.org".into(),
            subject: "Game 1".into(),
            text: text.into(),
            html: Some(html.into()),
            attachments: vec![(
                "view.json".into(),
                "application/json".into(),
                attachment.to_vec(),
            )],
            ..Outgoing::default()
        };
        let raw = compose("A", "judge@x.org", "i@x.org", std::time::UNIX_EPOCH, &m).unwrap();
        let s = String::from_utf8_lossy(&raw).into_owned();
        let msg = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let att = msg.attachment(0).unwrap().contents().to_vec();
        (
            msg.body_text(0).unwrap().into_owned(),
            msg.body_html(0).unwrap().into_owned(),
            att,
            s,
        )
    }

    #[test]
    fn ascii_text_goes_as_7bit_and_reads_back_the_same() {
        // A report line of 78 columns: lettre alone would quote-print it.
        let text = format!("{}\nline two \n. a dot\nFrom me\n", "x".repeat(78));
        let (t, h, a, raw) = round_trip(&text, "<p>board</p>\n", b"{}");
        assert_eq!(t.replace("\r\n", "\n"), text);
        assert_eq!(h.replace("\r\n", "\n"), "<p>board</p>\n");
        assert_eq!(a, b"{}");
        assert!(
            raw.contains("Content-Transfer-Encoding: 7bit\r\n\r\nxxxx"),
            "{raw}"
        );
        assert!(!raw.contains("quoted-printable"), "{raw}");
    }

    #[test]
    fn utf8_text_is_left_to_lettre_and_reads_back_the_same() {
        let text = "Caf\u{e9} \u{2014} the judge\n";
        let (t, ..) = round_trip(text, "<p>x</p>", b"{}");
        assert_eq!(t.replace("\r\n", "\n"), text);
    }

    #[test]
    fn a_utf8_attachment_is_quoted_printable_not_base64() {
        let json = "{\n  \"what\": \"wheels 45° left\"\n}\n".repeat(40);
        let (_, _, back, raw) = round_trip("text", "", json.as_bytes());
        // Line ends as CRLF, as for an ASCII attachment.
        assert_eq!(String::from_utf8(back).unwrap(), json.replace('\n', "\r\n"));
        assert!(raw.contains("45=C2=B0 left"), "{raw}");
        assert!(!raw.contains("base64"), "{raw}");
    }

    #[test]
    fn a_long_ascii_line_is_quoted_printable_within_76_columns() {
        let json = format!("{{\"a\":\"{}= \\t\",\"b\":[1,2,3]}} ", "y".repeat(3000));
        let (_, _, a, raw) = round_trip("t\n", "<p>x</p>", json.as_bytes());
        assert_eq!(a, json.as_bytes());
        let body = &raw[raw.find("application/json").unwrap()..];
        assert!(body.contains("quoted-printable"), "{body}");
        for line in body.split("\r\n") {
            assert!(line.len() <= 76, "{} bytes: {line}", line.len());
        }
        // The trailing space is encoded, so no transport can strip it.
        assert!(body.contains("=20"), "{body}");
    }

    #[test]
    fn qp_ascii_escapes_equals_controls_and_spaces_before_line_ends() {
        assert_eq!(qp_ascii(b"a=b"), b"a=3Db");
        assert_eq!(qp_ascii(b"tab\tin \nend \n"), b"tab\tin=20\r\nend=20\r\n");
        assert_eq!(qp_ascii(b"\x07bell"), b"=07bell");
        let long = qp_ascii(&[b'='; 100]);
        for line in long.split(|&b| b == b'\n') {
            assert!(line.len() <= 77, "{}", line.len());
        }
        assert!(!long.windows(3).any(|w| w == b"==\r"), "no escape is split");
    }

    proptest::proptest! {
        #[test]
        fn any_ascii_attachment_and_text_read_back_the_same(
            text in "[ -~\t\n]{0,400}",
            att in proptest::collection::vec(1u8..128, 0..2000),
        ) {
            let att: Vec<u8> = att.into_iter().filter(|&b| b != b'\r').collect();
            let (t, _, a, _) = round_trip(&text, "<p>x</p>", &att);
            // Line ends travel as CRLF (as lettre sent them before).
            let a = String::from_utf8(a).unwrap().replace("\r\n", "\n");
            proptest::prop_assert_eq!(a.as_bytes(), &att[..]);
            // mail-parser gives the text part back with its line ends.
            let t = t.replace("\r\n", "\n");
            proptest::prop_assert_eq!(t.trim_end(), text.trim_end());
        }
    }
}
