//! Raw mail bytes -> [`Envelope`]. PLACEHOLDER until the full reader lands:
//! plain text only, with quoted lines and signatures dropped.

use mail_parser::MessageParser;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutoKind {
    AutoSubmitted(String),
    Precedence(String),
    EmptyReturnPath,
    MailerDaemon,
    ListMail,
    VacationLike,
}

#[derive(Debug, Clone, Default)]
pub struct Envelope {
    pub from: Option<String>,
    pub from_name: Option<String>,
    pub to: Vec<String>,
    pub message_id: Option<String>,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    pub subject: String,
    pub date: Option<i64>,
    pub auto: Option<AutoKind>,
    pub text: String,
    pub problems: Vec<String>,
    pub size: usize,
}

#[must_use]
pub fn parse(raw: &[u8]) -> Envelope {
    let mut env = Envelope {
        size: raw.len(),
        ..Envelope::default()
    };
    let Some(msg) = MessageParser::default().parse(raw) else {
        env.problems
            .push("the message could not be read as a mail".into());
        return env;
    };
    env.from = msg
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(str::to_ascii_lowercase);
    env.message_id = msg.message_id().map(str::to_string);
    env.in_reply_to = msg.in_reply_to().as_text().map(str::to_string);
    env.subject = msg.subject().unwrap_or("").to_string();
    for h in ["To", "Cc", "Delivered-To"] {
        if let Some(v) = msg.header_raw(h) {
            for part in v.split(',') {
                let a = part.trim();
                let a = a
                    .rsplit('<')
                    .next()
                    .unwrap_or(a)
                    .trim_end_matches('>')
                    .trim();
                if a.contains('@') {
                    env.to.push(a.to_ascii_lowercase());
                }
            }
        }
    }
    let h = |n: &str| msg.header_raw(n).map(|v| v.trim().to_ascii_lowercase());
    if let Some(v) = h("Auto-Submitted").filter(|v| v != "no") {
        env.auto = Some(AutoKind::AutoSubmitted(v));
    } else if let Some(v) =
        h("Precedence").filter(|v| ["bulk", "junk", "list"].contains(&v.as_str()))
    {
        env.auto = Some(AutoKind::Precedence(v));
    } else if h("Return-Path").is_some_and(|v| v == "<>") {
        env.auto = Some(AutoKind::EmptyReturnPath);
    } else if env
        .from
        .as_deref()
        .is_some_and(|f| f.starts_with("mailer-daemon@") || f.starts_with("postmaster@"))
    {
        env.auto = Some(AutoKind::MailerDaemon);
    }
    match msg.body_text(0) {
        Some(t) => {
            let mut out = Vec::new();
            for line in t.replace("\r\n", "\n").lines() {
                if line == "-- " {
                    break;
                }
                if line.trim_start().starts_with('>') {
                    continue;
                }
                out.push(line.trim_end().to_string());
            }
            env.text = out.join("\n").trim().to_string();
        }
        None => env.problems.push("the message has no text part".into()),
    }
    env
}
