//! The mail protocol: what a mail asks for, and who sent it.
//!
//! A mail body is read line by line. Lines that start with a command word are
//! commands; every other non-blank line is an order for the game. Game and
//! seat come from the per-seat reply address (`judge+TOKEN@host`) or from
//! `GAME <id>` and `PASSWORD <secret>` lines (in the body or the subject).
//! The From address alone never authenticates anything.

use crate::rules::Load;
use std::fmt::Write as _;

/// A command word and what it takes. One table feeds the parser, the HELP
/// reply and docs/orders.md, so they cannot disagree.
pub struct CommandSpec {
    pub word: &'static str,
    pub args: &'static str,
    pub help: &'static str,
}

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        word: "HELP",
        args: "",
        help: "this list",
    },
    CommandSpec {
        word: "STATUS",
        args: "",
        help: "your games and what each is waiting for",
    },
    CommandSpec {
        word: "MAP",
        args: "",
        help: "the current position of the game",
    },
    CommandSpec {
        word: "HISTORY",
        args: "[TURN]",
        help: "the report of a past turn (default: the last)",
    },
    CommandSpec {
        word: "REPLAY",
        args: "",
        help: "the game turn by turn as you saw it, a page for a browser",
    },
    CommandSpec {
        word: "GAME",
        args: "ID",
        help: "the game this mail is for (not needed in a reply)",
    },
    CommandSpec {
        word: "PASSWORD",
        args: "SECRET",
        help: "your seat's secret (not needed in a reply)",
    },
    CommandSpec {
        word: "ROTATE",
        args: "",
        help: "new secret and reply address (the old ones stop)",
    },
    CommandSpec {
        word: "TURN",
        args: "N",
        help: "the turn your orders answer (the order template writes it)",
    },
    CommandSpec {
        word: "ORDERS",
        args: "",
        help: "optional: the lines after it are your orders",
    },
    CommandSpec {
        word: "RESIGN",
        args: "",
        help: "concede the game",
    },
    CommandSpec {
        word: "DRAW",
        args: "",
        help: "offer a draw, or accept the one offered",
    },
    CommandSpec {
        word: "JOIN",
        args: "ID",
        help: "take an open seat in game ID",
    },
    CommandSpec {
        word: "WITHDRAW",
        args: "",
        help: "take back orders not yet adjudicated",
    },
    CommandSpec {
        word: "PREDICT",
        args: "",
        help: "the odds of the orders after it, not played",
    },
    CommandSpec {
        word: "TIMEZONE",
        args: "ZONE",
        help: "show deadlines in your zone, e.g. Europe/Paris",
    },
    CommandSpec {
        word: "PICTURE",
        args: "KIND",
        help: "the board in your mails: PNG, SVG, BOTH or NONE",
    },
    CommandSpec {
        word: "ABSENCE",
        args: "FROM TO",
        help: "away on these dates (YYYY-MM-DD), at most 14 days",
    },
    CommandSpec {
        word: "ABSENCE END",
        args: "",
        help: "back early: your absence ends now",
    },
    CommandSpec {
        word: "CAMPAIGN",
        args: "",
        help: "the standings of your game's campaign",
    },
    CommandSpec {
        word: "STANDINGS",
        args: "",
        help: "the club's standings over every finished game",
    },
    CommandSpec {
        word: "PRIVATE",
        args: "[OFF]",
        help: "leave your address out of the standings (OFF: list it)",
    },
    CommandSpec {
        word: "PROPOSE",
        args: "CARD [# WHY]",
        help: "team play: suggest the card to your team",
    },
    CommandSpec {
        word: "TEAM",
        args: "TEXT",
        help: "team play: a message to your own team only",
    },
    CommandSpec {
        word: "PRESS",
        args: "TEXT",
        help: "a message to everyone in the game",
    },
    CommandSpec {
        word: "APPROVE",
        args: "",
        help: "referee: release the results held for review",
    },
    CommandSpec {
        word: "AMEND",
        args: "FIX BECAUSE WHY",
        help: "referee: correct the position",
    },
    CommandSpec {
        word: "BROADCAST",
        args: "TEXT",
        help: "referee: a message to every player",
    },
    CommandSpec {
        word: "REVEAL",
        args: "",
        help: "referee: both boards to everyone",
    },
    CommandSpec {
        word: "PAUSE",
        args: "",
        help: "referee: stop the game's clock",
    },
    CommandSpec {
        word: "RESUME",
        args: "",
        help: "referee: restart it with a full turn",
    },
    CommandSpec {
        word: "EXTEND",
        args: "TIME",
        help: "referee: move the deadline, e.g. EXTEND 48h",
    },
];

/// One recognised command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    Status,
    Map,
    History(Option<u32>),
    /// The game's replay as the seat saw it, attached (docs/replay.md).
    Replay,
    Resign,
    Draw,
    Join(i64),
    Withdraw,
    /// PREDICT: the odds of the mail's orders, which are not submitted.
    Predict,
    TimeZone(String),
    /// What the seat's mails show of the board (issue 37).
    Picture(crate::report::picture::Picture),
    /// Dates as written (YYYY-MM-DD), checked against the seat's zone later.
    Absence(String, String),
    /// ABSENCE END: the seat's absence ends now.
    AbsenceEnd,
    /// The standings of the campaign of the seat's game.
    Campaign,
    /// The club's standings over every finished game (docs/standings.md).
    Standings,
    /// Leave the sender out of the standings (true), or list it again.
    Private(bool),
    /// New credentials for the seat (or the referee's desk) the mail is
    /// for, mailed to its registered address; the old ones stop working.
    Rotate,
    /// Team play: a card suggested to the team (the rest of the line).
    Propose(String),
    /// Team play: a message to the sender's team only.
    Team(String),
    /// A message to everyone in the game.
    Press(String),
    /// The referee's commands.
    Approve,
    /// A correction line and the reason given for it.
    Amend(String, String),
    Broadcast(String),
    Reveal,
    Pause,
    Resume,
    Extend(String),
}

/// What a mail's text says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub game: Option<i64>,
    /// The judge's turn the orders answer (a `TURN n` line), if given.
    pub turn: Option<u32>,
    pub password: Option<String>,
    pub commands: Vec<Command>,
    /// The order lines, with every other line blanked so that line numbers
    /// match the text the player sent.
    pub orders: String,
    pub has_orders: bool,
    /// Lines around the orders that were not read as orders: (line, text),
    /// the first [`KEEP_QUOTED`] of them, each cut to [`QUOTE_CHARS`].
    pub ignored: Vec<(usize, String)>,
    /// How many lines were not read as orders in all.
    pub ignored_total: usize,
    /// Lines that looked like commands but were malformed: (line, text,
    /// why), the first [`KEEP_QUOTED`], each line cut to [`QUOTE_CHARS`].
    pub errors: Vec<(usize, String, String)>,
    /// How many malformed command lines there were in all.
    pub errors_total: usize,
}

/// A PROPOSE, TEAM or PRESS line is relayed up to this many characters.
pub const MESSAGE_CHARS: usize = 500;

/// At most this many lines of a mail are kept to be quoted back.
pub const KEEP_QUOTED: usize = 5;
/// A line quoted back to a sender is cut to this many characters.
pub const QUOTE_CHARS: usize = 60;

/// A receipt echoes at most this many order lines as read; "... and N more
/// lines" stands for the rest (docs/orders.md, "Sending orders by mail").
pub const ECHO_LINES: usize = 200;
/// An order line is at most this many characters (every family's parser
/// refuses a longer one, naming it), so an echo is bounded too.
pub use crate::rules::ORDER_LINE_CHARS;

/// The order lines a receipt echoes: the first [`ECHO_LINES`] of `lines`,
/// and how many more there were.
#[must_use]
pub fn echo_lines(lines: &[String]) -> (&[String], usize) {
    let shown = &lines[..lines.len().min(ECHO_LINES)];
    (shown, lines.len() - shown.len())
}

/// Echoed lines as a receipt prints them (`  # ` before each): a line
/// longer than fits [`WRAP_MIN`] columns goes on over further lines, each
/// starting with two spaces after its `# ` (issue 53: a reply quoting the
/// receipt unmarked is not wrapped by a mail client at all, so no order
/// word it echoes can start a line of its own).
#[must_use]
pub fn echo_wrapped(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        let w = crate::report::wrap(l, WRAP_MIN - 5, "  ");
        out.extend(w.lines().map(str::to_string));
    }
    out
}

/// A line as it may be quoted back: control characters gone, at most
/// `max` characters (an ellipsis says it was cut), and a `PASSWORD` line's
/// secret hidden.
#[must_use]
pub fn quotable(line: &str, max: usize) -> String {
    let line = line.trim();
    let mut words = line.split_whitespace();
    if words
        .next()
        .is_some_and(|w| w.trim_end_matches(':').eq_ignore_ascii_case("PASSWORD"))
    {
        return "PASSWORD ...".into();
    }
    let mut out: String = line.chars().filter(|c| !c.is_control()).take(max).collect();
    if line.chars().filter(|c| !c.is_control()).nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// `text` with the word after every `PASSWORD` replaced by `...`, all else
/// (spacing, control characters) as it was: what may be kept in the log.
#[must_use]
pub fn hide_password(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut hide = false;
    let mut rest = text;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        if hide && !word.is_empty() {
            out.push_str("...");
            hide = false;
        } else {
            out.push_str(word);
            hide = word.trim_end_matches(':').eq_ignore_ascii_case("PASSWORD");
        }
        rest = &rest[end..];
    }
    out
}

/// A subject as it may be echoed in an answer's subject: any `PASSWORD
/// <secret>` hidden, control characters gone, cut to `max` characters.
#[must_use]
pub fn safe_subject(subject: &str, max: usize) -> String {
    quotable(&hide_password(subject), max)
}

/// A line without its first word.
fn rest_of(line: &str) -> &str {
    line.trim()
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r.trim())
}

/// A command word alone on its line (HELP, STATUS, MAP, ...).
fn bare_command(first: &str, arg: Option<&str>) -> Option<Command> {
    if arg.is_some() {
        return None;
    }
    Some(match first {
        "HELP" => Command::Help,
        "STATUS" => Command::Status,
        "MAP" => Command::Map,
        "REPLAY" => Command::Replay,
        "RESIGN" => Command::Resign,
        "DRAW" => Command::Draw,
        "WITHDRAW" => Command::Withdraw,
        "PREDICT" => Command::Predict,
        "CAMPAIGN" => Command::Campaign,
        "STANDINGS" => Command::Standings,
        "PRIVATE" => Command::Private(true),
        "ROTATE" => Command::Rotate,
        "APPROVE" => Command::Approve,
        "REVEAL" => Command::Reveal,
        "PAUSE" => Command::Pause,
        "RESUME" => Command::Resume,
        _ => return None,
    })
}

/// A line that starts with a command word (or ORDERS, TURN, GAME,
/// PASSWORD): false when it is not one (then it is an order line).
fn command_line(
    req: &mut Request,
    line_no: usize,
    line: &str,
    first: &str,
    arg: Option<&str>,
    extra: bool,
) -> bool {
    if let Some(c) = bare_command(first, arg) {
        req.commands.push(c);
        return true;
    }
    if first == "ORDERS" && arg.is_none() {
        return true;
    }
    argued_command(req, line_no, line, first, arg, extra)
        || message_command(req, line_no, line, first)
        || header_line(req, line_no, line, first, arg, extra)
}

/// A command with arguments: JOIN, HISTORY, TIMEZONE, PICTURE, EXTEND, ABSENCE.
fn argued_command(
    req: &mut Request,
    line_no: usize,
    line: &str,
    first: &str,
    arg: Option<&str>,
    extra: bool,
) -> bool {
    match first {
        "PRIVATE" => match (arg.map(str::to_ascii_uppercase).as_deref(), extra) {
            (Some("OFF"), false) => req.commands.push(Command::Private(false)),
            (Some("ON"), false) => req.commands.push(Command::Private(true)),
            _ => req.errors.push((
                line_no,
                line.into(),
                "PRIVATE takes nothing, or OFF to be listed again".into(),
            )),
        },
        "JOIN" => match (arg.map(|a| a.trim_start_matches('#').parse::<i64>()), extra) {
            (Some(Ok(id)), false) => req.commands.push(Command::Join(id)),
            _ => req.errors.push((
                line_no,
                line.into(),
                "JOIN takes one game number, e.g. JOIN 12".into(),
            )),
        },
        "HISTORY" if !extra => match arg.map(str::parse::<u32>) {
            None => req.commands.push(Command::History(None)),
            Some(Ok(n)) => req.commands.push(Command::History(Some(n))),
            Some(Err(_)) => {
                req.errors
                    .push((line_no, line.into(), "HISTORY takes a turn number".into()))
            }
        },
        "TIMEZONE" => match (arg, extra) {
            (Some(z), false) => req.commands.push(Command::TimeZone(z.to_string())),
            _ => req.errors.push((
                line_no,
                line.into(),
                "TIMEZONE takes one zone name, e.g. TIMEZONE Europe/Paris".into(),
            )),
        },
        "PICTURE" => match (arg.and_then(crate::report::picture::Picture::parse), extra) {
            (Some(p), false) => req.commands.push(Command::Picture(p)),
            _ => req.errors.push((
                line_no,
                line.into(),
                "PICTURE takes one of PNG, SVG, BOTH or NONE, e.g. PICTURE PNG".into(),
            )),
        },
        "EXTEND" => match (arg, extra) {
            (Some(d), false) => req.commands.push(Command::Extend(d.to_string())),
            _ => req.errors.push((
                line_no,
                line.into(),
                "EXTEND takes one duration, e.g. EXTEND 48h".into(),
            )),
        },
        "ABSENCE" if arg.is_some_and(|a| a.eq_ignore_ascii_case("END")) && !extra => {
            req.commands.push(Command::AbsenceEnd)
        }
        "ABSENCE" => {
            let mut w = line.split_whitespace().skip(1);
            match (w.next(), w.next(), w.next()) {
                (Some(a), Some(b), None) => req.commands.push(Command::Absence(a.into(), b.into())),
                _ => req.errors.push((
                    line_no,
                    line.into(),
                    "ABSENCE takes two dates, e.g. ABSENCE 2026-12-20 2027-01-03".into(),
                )),
            }
        }
        _ => return false,
    }
    true
}

/// A command with a message or a correction: PROPOSE, TEAM, PRESS,
/// BROADCAST, AMEND.
fn message_command(req: &mut Request, line_no: usize, line: &str, first: &str) -> bool {
    match first {
        w @ ("PROPOSE" | "TEAM" | "PRESS") => {
            let text = rest_of(line);
            if text.is_empty() {
                let what = if w == "PROPOSE" {
                    "PROPOSE takes a card, e.g. PROPOSE attack-left-flank # why"
                } else {
                    "takes the message on the same line"
                };
                let why = if w == "PROPOSE" {
                    what.to_string()
                } else {
                    format!("{w} {what}")
                };
                req.errors.push((line_no, line.into(), why));
            } else {
                let text: String = text.chars().take(MESSAGE_CHARS).collect();
                req.commands.push(match w {
                    "PROPOSE" => Command::Propose(text),
                    "TEAM" => Command::Team(text),
                    _ => Command::Press(text),
                });
            }
        }
        "BROADCAST" => {
            let text = rest_of(line);
            if text.is_empty() {
                req.errors.push((
                    line_no,
                    line.into(),
                    "BROADCAST takes the message on the same line".into(),
                ));
            } else {
                req.commands.push(Command::Broadcast(text.to_string()));
            }
        }
        "AMEND" => {
            let rest = rest_of(line);
            let upper = rest.to_ascii_uppercase();
            match upper.find(" BECAUSE ") {
                    Some(i) if !rest[..i].trim().is_empty() && !rest[i + 9..].trim().is_empty() => {
                        req.commands.push(Command::Amend(
                            rest[..i].trim().to_string(),
                            rest[i + 9..].trim().to_string(),
                        ));
                    }
                    _ => req.errors.push((
                        line_no,
                        line.into(),
                        "AMEND takes a correction and its reason, e.g.\n  AMEND UNIT F5 FIGURES 2 BECAUSE the battle was rolled twice".into(),
                    )),
                }
        }
        _ => return false,
    }
    true
}

/// A line that says which turn, game or secret the mail is for: TURN,
/// GAME, PASSWORD.
fn header_line(
    req: &mut Request,
    line_no: usize,
    line: &str,
    first: &str,
    arg: Option<&str>,
    extra: bool,
) -> bool {
    match first {
        "TURN" => {
            // Anything after a `#` is a comment (the template explains
            // the line there).
            let bare = line.split('#').next().unwrap_or("");
            let mut w = bare.split_whitespace().skip(1);
            match (w.next().map(str::parse::<u32>), w.next()) {
                (Some(Ok(n)), None) => req.turn = Some(n),
                _ => req.errors.push((
                    line_no,
                    line.into(),
                    "TURN takes the turn number your orders answer, e.g. TURN 7".into(),
                )),
            }
        }
        "GAME" => match (arg.map(|a| a.trim_start_matches('#').parse::<i64>()), extra) {
            (Some(Ok(id)), false) => req.game = Some(id),
            _ => req.errors.push((
                line_no,
                line.into(),
                "GAME takes one game number, e.g. GAME 12".into(),
            )),
        },
        "PASSWORD" => match (arg, extra) {
            (Some(p), false) => req.password = Some(p.to_string()),
            _ => req.errors.push((
                line_no,
                line.into(),
                "PASSWORD takes your seat's secret, one word".into(),
            )),
        },
        _ => return false,
    }
    true
}

/// No mail client wraps a line shorter than this (fold, Outlook and Gmail
/// wrap at 72 to 78 columns; the property test wraps from 60 up): a line
/// shorter than it, with the next line's first word added, was not wrapped.
pub const WRAP_MIN: usize = 60;

/// Which lines are the end of a long comment that a mail client wrapped
/// onto a line of its own (issue 53). Line `i` is one when the line above
/// it is, or holds, a comment (`#`), was full (with this line's first word
/// it would reach [`WRAP_MIN`] bytes, where `fold -w 60` breaks: `fold` counts bytes, and a byte count
/// is never below the character count a client wraps by), and either
/// ends in a space (what `fold -s` and a soft line break leave, where the
/// mail keeps it), or this line's first word is no command and no order
/// word (it could not have been meant as an order anyway), or is written
/// in lower case (the templates' notes are; their order words are not). A short line after a comment, or an
/// order after a short comment, is read as it always was.
#[must_use]
pub fn comment_continuations(lines: &[&str]) -> Vec<bool> {
    let mut out = vec![false; lines.len()];
    for i in 1..lines.len() {
        let (prev, cur) = (lines[i - 1], lines[i].trim());
        let Some(first) = cur.split_whitespace().next() else {
            continue;
        };
        if !(out[i - 1] || prev.contains('#')) || cur.starts_with('>') {
            continue;
        }
        if prev.trim_end().len() + 1 + first.len() < WRAP_MIN {
            continue;
        }
        let word = first.trim_end_matches(':').to_ascii_uppercase();
        let known = crate::rules::order_words().contains(&word.as_str())
            || COMMANDS.iter().any(|c| c.word == word);
        // The templates write every order word in capitals and their notes
        // in lower case ("move 6\"", "charge 18\""): a lower-case word
        // after a full comment line goes on with the comment.
        let lower = !first.chars().any(|c| c.is_ascii_uppercase());
        let soft = prev.ends_with([' ', '\t']);
        out[i] = soft || !known || lower;
    }
    out
}

/// Read the commands and orders out of the subject and the text of a mail.
#[must_use]
pub fn parse(subject: &str, text: &str) -> Request {
    let mut req = Request::default();
    let mut order_lines = Vec::new();
    let all: Vec<&str> = text.lines().collect();
    let wrapped = comment_continuations(&all);
    for (i, raw) in all.iter().copied().enumerate() {
        let line_no = i + 1;
        if wrapped[i] {
            // The rest of the comment above, wrapped by the mail client.
            order_lines.push("");
            continue;
        }
        let line = raw.trim();
        let mut words = line.split_whitespace();
        let first = words
            .next()
            .map(|w| w.trim_end_matches(':').to_ascii_uppercase());
        let arg = words.next();
        let extra = words.next().is_some();
        let mut blank = true;
        let errors_before = req.errors.len();
        if let Some(first) = first.as_deref() {
            if !command_line(&mut req, line_no, line, first, arg, extra) {
                blank = false;
                req.has_orders = true;
            }
        }
        if req.errors.len() > errors_before {
            req.errors_total += 1;
            if req.errors.len() > KEEP_QUOTED {
                req.errors.pop();
            } else if let Some(e) = req.errors.last_mut() {
                e.1 = quotable(&e.1, QUOTE_CHARS);
            }
        }
        order_lines.push(if blank { "" } else { raw });
    }
    // Chatter around the orders ("Hi judge,", "Thanks, Bob") is not read:
    // lines before the first and after the last line that starts with an
    // order word are set aside (and listed in the receipt). Lines between
    // order lines are kept, so a mistyped order is refused, not skipped.
    let is_order = |l: &str| {
        l.split_whitespace()
            .next()
            .is_some_and(|w| crate::rules::order_words().contains(&w.to_ascii_uppercase().as_str()))
    };
    let first = order_lines.iter().position(|l| is_order(l));
    let last = order_lines.iter().rposition(|l| is_order(l));
    let span = first.zip(last);
    for (i, l) in order_lines.iter_mut().enumerate() {
        // No line starts with an order word: nothing here is an order.
        let outside = span.is_none_or(|(first, last)| i < first || i > last);
        if outside && !l.trim().is_empty() {
            req.ignored_total += 1;
            if req.ignored.len() < KEEP_QUOTED {
                req.ignored.push((i + 1, quotable(l, QUOTE_CHARS)));
            }
            *l = "";
        }
    }
    req.has_orders = span.is_some();
    req.orders = order_lines.join("\n");
    // The subject may carry GAME and PASSWORD, or a lone command word.
    let subj = strip_reply_prefixes(subject);
    let mut sw = subj.split_whitespace().peekable();
    while let Some(w) = sw.next() {
        match w.to_ascii_uppercase().as_str() {
            "GAME" => {
                if let Some(id) = sw
                    .peek()
                    .and_then(|a| a.trim_start_matches('#').parse::<i64>().ok())
                {
                    req.game.get_or_insert(id);
                    sw.next();
                }
            }
            "PASSWORD" => {
                if let Some(p) = sw.next() {
                    req.password.get_or_insert(p.to_string());
                }
            }
            _ => {}
        }
    }
    if req.commands.is_empty() && !req.has_orders {
        match subj.trim().to_ascii_uppercase().as_str() {
            "HELP" => req.commands.push(Command::Help),
            "STATUS" => req.commands.push(Command::Status),
            "MAP" => req.commands.push(Command::Map),
            _ => {}
        }
    }
    req
}

/// "Re: Fwd: AW: x" -> "x".
#[must_use]
pub fn strip_reply_prefixes(subject: &str) -> &str {
    let mut s = subject.trim();
    loop {
        let lower = s.to_ascii_lowercase();
        let cut = ["re:", "fwd:", "fw:", "aw:", "sv:", "tr:", "wg:"]
            .iter()
            .find(|p| lower.starts_with(*p))
            .map(|p| p.len());
        match cut {
            Some(n) => s = s[n..].trim_start(),
            None => return s,
        }
    }
}

/// The token in a plus-address `local+TOKEN@domain` for our `local` and `domain`.
#[must_use]
pub fn token_of(address: &str, local: &str, domain: &str) -> Option<String> {
    let (lp, dom) = address.rsplit_once('@')?;
    if !dom.eq_ignore_ascii_case(domain) {
        return None;
    }
    let (base, tok) = lp.split_once('+')?;
    (base.eq_ignore_ascii_case(local) && !tok.is_empty()).then(|| tok.to_ascii_lowercase())
}

/// The HELP text, from the command table.
#[must_use]
pub fn help_text(judge: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Adjutant, the play-by-email judge at {judge}, understands these"
    );
    let _ = writeln!(
        s,
        "commands, one per line, in the body of a mail (case does not matter):"
    );
    let _ = writeln!(s);
    for c in COMMANDS {
        let head = if c.args.is_empty() {
            c.word.to_string()
        } else {
            format!("{} {}", c.word, c.args)
        };
        let _ = writeln!(s, "  {head:<18} {}", c.help);
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Every other line is an order for your game. The easiest way to send"
    );
    let _ = writeln!(
        s,
        "orders is to reply to the judge's last mail for your game: the reply"
    );
    let _ = writeln!(
        s,
        "address carries your game and seat. From a fresh mail, add the lines"
    );
    let _ = writeln!(s, "GAME <id> and PASSWORD <secret> from your welcome mail.");
    let _ = writeln!(s);
    // Each rules family says its own orders in brief.
    let mut seen = Vec::new();
    for id in crate::rules::rulesets() {
        if let Ok(r) = crate::rules::Rules::load(id) {
            let help = r.order_help();
            if !seen.contains(&help) {
                s.push_str(&help);
                let _ = writeln!(s);
                seen.push(help);
            }
        }
    }
    // Players have the mails, not the distribution's docs/ (issue 53): the
    // order template of each report is where the rest is.
    let _ = writeln!(
        s,
        "Lines starting with # are comments. Each report that asks for your"
    );
    let _ = writeln!(
        s,
        "orders ends with your order template: your units and the orders each"
    );
    let _ = writeln!(
        s,
        "may take. Send PREDICT with orders for their odds before you commit."
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_orders_keep_line_numbers() {
        let r = parse(
            "Re: Re: turn 3",
            "GAME 12\npassword s3cret\n\nPLAY probe-centre\nORDER D4\nhelp\n",
        );
        assert_eq!(r.game, Some(12));
        assert_eq!(r.password.as_deref(), Some("s3cret"));
        assert_eq!(r.commands, vec![Command::Help]);
        assert!(r.has_orders);
        let lines: Vec<&str> = r.orders.lines().collect();
        assert_eq!(lines[3], "PLAY probe-centre");
        assert_eq!(lines[4], "ORDER D4");
        assert_eq!(lines[0], "");
    }

    #[test]
    fn chatter_around_orders_is_set_aside_but_not_between_them() {
        let r = parse(
            "",
            "Hi judge,\nPLAY probe-centre\nORDR D4\nMOVE D4 D5\nThanks,\nBob\n",
        );
        assert_eq!(
            r.ignored,
            vec![
                (1, "Hi judge,".to_string()),
                (5, "Thanks,".to_string()),
                (6, "Bob".to_string())
            ]
        );
        let lines: Vec<&str> = r.orders.lines().collect();
        assert_eq!(
            lines[2], "ORDR D4",
            "a mistyped order between orders is kept, to be refused"
        );
        assert_eq!(lines[0], "");
        let prose = parse("", "I am away until Monday.\n");
        assert!(!prose.has_orders);
        assert_eq!(prose.ignored.len(), 1);
    }

    #[test]
    fn a_wrapped_comment_goes_on_as_a_comment() {
        // Outlook at 60: the note of a Seven Years' War template line.
        let r = parse(
            "",
            "UNIT 12TH: HOLD # Line infantry, line, 24/24 r&f; moves 1d6\"\n\
             (veteran +2d: throws 3d6, keeps the best 1)\n\
             UNIT 37TH: FORWARD 3\n",
        );
        let lines: Vec<&str> = r.orders.lines().collect();
        assert_eq!(lines[1], "", "the comment's continuation is no order");
        assert_eq!(lines[2], "UNIT 37TH: FORWARD 3");
        assert!(r.ignored.is_empty());
        // fold -s keeps the space it broke at: even an order word there
        // goes on with the comment.
        let r = parse(
            "",
            "  # UNIT 12TH: FORWARD 3, WHEEL LEFT 45, FORWARD 2, THEN \nFIRE AT CHAS\n",
        );
        assert!(!r.has_orders, "{:?}", r.orders);
    }

    #[test]
    fn an_order_after_a_comment_is_still_read() {
        // Short comments: nothing was wrapped, a typo is refused as ever.
        let r = parse(
            "",
            "UNIT 12TH: HOLD   # stay\nUNTI 37TH: FORWARD 3\nUNIT 20TH: HOLD\n",
        );
        let lines: Vec<&str> = r.orders.lines().collect();
        assert_eq!(lines[1], "UNTI 37TH: FORWARD 3");
        // A long comment without the space a wrap leaves, then an order.
        let r = parse(
            "",
            "MOVE D4 D5   # and then, if the enemy has left the woods, on\nBATTLE D5 E6\n",
        );
        let lines: Vec<&str> = r.orders.lines().collect();
        assert_eq!(lines[1], "BATTLE D5 E6");
    }

    #[test]
    fn subject_carries_game_and_lone_commands() {
        let r = parse("Fwd: GAME 7 PASSWORD abc", "");
        assert_eq!((r.game, r.password.as_deref()), (Some(7), Some("abc")));
        assert_eq!(parse("help", "").commands, vec![Command::Help]);
        assert_eq!(parse("Re: status", "  ").commands, vec![Command::Status]);
    }

    #[test]
    fn malformed_commands_are_reported_not_guessed() {
        let r = parse("", "GAME twelve\nHISTORY x\nPASSWORD\n");
        assert_eq!(r.errors.len(), 3);
        assert_eq!(r.errors[0].0, 1);
        assert!(r.game.is_none());
    }

    #[test]
    fn secrets_are_never_quoted_back() {
        assert_eq!(
            safe_subject("Re: GAME 1 PASSWORD s3cret now", 100),
            "Re: GAME 1 PASSWORD ... now"
        );
        assert_eq!(
            hide_password("a\r\npassword: x\ty"),
            "a\r\npassword: ...\ty"
        );
        assert_eq!(quotable("PASSWORD abc def", 60), "PASSWORD ...");
        assert_eq!(quotable(&"x".repeat(100), 10), "xxxxxxxxxx...");
        let r = parse("", &format!("JOIN {}\n", "9".repeat(1_000_000)));
        assert_eq!(r.errors.len(), 1);
        assert!(r.errors[0].1.len() < 80, "a quoted line is cut");
    }

    #[test]
    fn quoted_lines_are_few_however_many_there_are() {
        let text = format!("{}PLAY probe-centre\n", "hello there\n".repeat(100_000));
        let r = parse("", &text);
        assert_eq!(r.ignored.len(), KEEP_QUOTED);
        assert_eq!(r.ignored_total, 100_000);
        let bad = parse("", &"GAME x\n".repeat(1000));
        assert_eq!(bad.errors.len(), KEEP_QUOTED);
        assert_eq!(bad.errors_total, 1000);
    }

    #[test]
    fn plus_tokens() {
        assert_eq!(
            token_of("Judge+AbC1@Example.org", "judge", "example.org").as_deref(),
            Some("abc1")
        );
        assert_eq!(token_of("judge@example.org", "judge", "example.org"), None);
        assert_eq!(
            token_of("other+x@example.org", "judge", "example.org"),
            None
        );
        assert_eq!(token_of("judge+x@evil.org", "judge", "example.org"), None);
    }

    /// Issue 38: the TURN line the order templates write (its comment
    /// ignored), and ABSENCE END.
    #[test]
    fn turn_lines_and_absence_end() {
        let r = parse("", "TURN 7    # keep this line\nPASS\nABSENCE END\n");
        assert_eq!(r.turn, Some(7));
        assert_eq!(r.commands, vec![Command::AbsenceEnd]);
        assert!(r.has_orders && r.errors.is_empty(), "{r:?}");
        let bad = parse("", "TURN seven\n");
        assert_eq!(bad.turn, None);
        assert_eq!(bad.errors.len(), 1);
        let two = parse("", "ABSENCE 2026-12-20 2027-01-03\n");
        assert_eq!(
            two.commands,
            vec![Command::Absence("2026-12-20".into(), "2027-01-03".into())]
        );
    }

    #[test]
    fn help_lists_every_command() {
        let h = help_text("judge@x");
        for c in COMMANDS {
            assert!(h.contains(c.word));
        }
        assert!(h.lines().all(|l| l.chars().count() <= 80));
        // Players have the mails, not the distribution's docs (issue 53).
        assert!(!h.contains("docs/"), "{h}");
    }
}

#[cfg(test)]
mod doc_tests {
    use super::COMMANDS;

    /// docs/orders.md lists exactly the commands of the table, in its order.
    #[test]
    fn docs_list_the_same_commands() {
        let doc = include_str!("../../docs/orders.md");
        let start = doc.find("<!-- commands:").expect("commands marker");
        let end = doc.find("<!-- end commands -->").expect("end marker");
        let rows: Vec<String> = doc[start..end]
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(str::to_string)
            .collect();
        let want: Vec<String> = COMMANDS
            .iter()
            .map(|c| {
                let head = if c.args.is_empty() {
                    c.word.to_string()
                } else {
                    format!("{} {}", c.word, c.args)
                };
                format!("| `{head}` | {} |", c.help)
            })
            .collect();
        assert_eq!(rows, want, "update docs/orders.md from COMMANDS");
    }
}
