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
        .body(m.text.clone());
    let body = match &m.html {
        Some(html) => MultiPart::alternative().singlepart(text_part).singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(html_body(html)),
        ),
        None => MultiPart::mixed().singlepart(text_part),
    };
    let msg = if m.attachments.is_empty() && m.html.is_none() {
        b.singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_PLAIN)
                .body(m.text.clone()),
        )
    } else {
        let mut mixed = if m.html.is_some() {
            MultiPart::mixed().multipart(body)
        } else {
            body
        };
        for (name, mime, bytes) in &m.attachments {
            let ct = ContentType::parse(mime).map_err(|e| ComposeError::Build(e.to_string()))?;
            mixed = mixed.singlepart(Attachment::new(name.clone()).body(bytes.clone(), ct));
        }
        b.multipart(mixed)
    }
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(msg.formatted())
}

/// The HTML part's body: as 7-bit text when it is ASCII and every line fits
/// RFC 5322's 998 octets (the report's pages are: html::document writes
/// every other character as a reference), else whatever lettre finds best.
/// lettre itself takes 7 bits only for lines under 76 characters, and
/// quoted-printable writes each `=` of the SVG's attributes as `=3D`.
fn html_body(html: &str) -> lettre::message::Body {
    use lettre::message::header::ContentTransferEncoding;
    let fits = html.is_ascii()
        && !html.bytes().any(|b| b == 0 || b == b'\r')
        && html.lines().all(|l| l.len() <= 990);
    if fits {
        let crlf = html.replace('\n', "\r\n");
        lettre::message::Body::dangerous_pre_encoded(
            crlf.into_bytes(),
            ContentTransferEncoding::SevenBit,
        )
    } else {
        lettre::message::Body::new(html.to_string())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct DeliveryError {
    pub message: String,
    /// Worth trying again later (network down, 4xx), as opposed to permanent.
    pub transient: bool,
}

/// Write `raw` to `dir/NAME.eml` atomically (write a temporary file, then rename).
pub fn deliver_file(dir: &Path, name: &str, raw: &[u8]) -> Result<(), DeliveryError> {
    let err = |e: std::io::Error| DeliveryError {
        message: format!("cannot write to {}: {e}", dir.display()),
        transient: true,
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, raw).map_err(err)?;
    std::fs::rename(&tmp, dir.join(format!("{name}.eml"))).map_err(err)?;
    Ok(())
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
}
