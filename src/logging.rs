//! The judge's log (standard error), for a terminal or a host's collector
//! (issue 31): colours only on a terminal, `--log-format json` for log
//! collectors (one JSON object a line), and every line logged while a mail
//! is handled carries its Message-ID (the `mail` span).
//!
//! Levels (`ADJUTANT_LOG`, an env-filter such as `info` or
//! `adjutant=debug`): error (a mail or delivery failed, the mailbox
//! unreachable), warn (a delivery to retry, a file unreadable, a watcher
//! given up), info (each mail handled, each pass's deliveries, outages'
//! ends), debug (IDLE reconnections and the like).

use std::io::IsTerminal;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human lines (coloured on a terminal only).
    #[default]
    Text,
    /// One JSON object a line (tracing-subscriber's JSON).
    Json,
}

/// Installs the global subscriber: `ADJUTANT_LOG` filters (default
/// `info`), standard error is written.
pub fn init(format: LogFormat) {
    let _ = FORMAT.set(format);
    let filter = tracing_subscriber::EnvFilter::try_from_env("ADJUTANT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(colours()).init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// Colours only on a terminal, and never with `NO_COLOR` set (non-empty;
/// <https://no-color.org>).
fn colours() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// A refusal (a configuration fault, a command that failed): one line on
/// standard error, `adjutant: ...`, or with `--log-format json` one JSON
/// object in the log's own shape (level ERROR), written whatever
/// `ADJUTANT_LOG` filters, so a collector parses every line and the host
/// always sees why the judge stopped.
pub fn refuse(line: &str) {
    use std::io::Write;
    let line = match FORMAT.get() {
        Some(LogFormat::Json) => serde_json::json!({
            "timestamp": crate::service::clock::from_env()
                .now()
                .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "level": "ERROR",
            "fields": { "message": line },
            "target": "adjutant",
        })
        .to_string(),
        _ => format!("adjutant: {line}"),
    };
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The format [`init`] installed.
static FORMAT: std::sync::OnceLock<LogFormat> = std::sync::OnceLock::new();

/// A message for the person who started the judge (where to drop mail,
/// what a run did): a plain line on standard error, or with `--log-format
/// json` an info event, so that every line there parses as JSON.
pub fn say(message: &str) {
    match FORMAT.get() {
        Some(LogFormat::Json) => tracing::info!("{message}"),
        _ => eprintln!("{message}"),
    }
}

/// The span of one mail's handling: what is logged inside it names the
/// mail by its Message-ID (`-` when it has none).
pub fn mail_span(raw: &[u8]) -> tracing::Span {
    let id = message_id(raw);
    tracing::info_span!("mail", message_id = %id.as_deref().unwrap_or("-"))
}

/// The Message-ID header's value without its angle brackets, read from the
/// header block only (no full parse: this is for the log), with control
/// characters dropped so that no log line can be forged.
#[must_use]
pub fn message_id(raw: &[u8]) -> Option<String> {
    let head = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n"))
        .map_or(raw, |end| &raw[..end]);
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if !name.trim().eq_ignore_ascii_case("message-id") {
            continue;
        }
        let mut value = value.trim().to_string();
        // A folded header goes on in lines that start with white space.
        while let Some(next) = lines.next_if(|l| l.starts_with([' ', '\t'])) {
            value.push_str(next.trim());
        }
        let id: String = value
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .chars()
            .filter(|c| !c.is_control())
            .take(256)
            .collect();
        return (!id.is_empty()).then_some(id);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::message_id;

    #[test]
    fn the_message_id_is_read_from_the_header_only() {
        let raw = b"From: a@b\r\nMessage-Id: <x1@example.org>\r\n\r\nMessage-ID: <body@x>\r\n";
        assert_eq!(message_id(raw).as_deref(), Some("x1@example.org"));
        let folded = b"Subject: s\nMessage-ID:\n <folded@x>\n\nbody";
        assert_eq!(message_id(folded).as_deref(), Some("folded@x"));
        assert_eq!(message_id(b"Subject: s\r\n\r\nMessage-ID: <no@x>"), None);
        let forged = b"Message-ID: <a\x1b[31m@x>\r\n\r\n";
        assert_eq!(message_id(forged).as_deref(), Some("a[31m@x"));
    }
}
