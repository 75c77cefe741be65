//! Use-cases over the store and the engine. No SMTP or IMAP code here: mail
//! arrives as bytes and leaves as rows of the outbox.

pub mod campaign;
pub mod campaign_file;
pub mod clock;
mod commands;
mod credentials;
pub mod deadlines;
mod deferred;
pub mod export;
mod general;
mod inbound;
mod late;
mod outbox;
mod predict;
pub mod recipients;
pub mod referee;
mod reports;
mod seats;
pub mod sight;
pub mod standings;
pub mod team;
mod turns;
pub use deferred::{End, Part, Renderer};
pub use inbound::Pipeline;
pub use outbox::Outbox;
pub use predict::{Predict, PREDICT_ANSWERS_PER_SEAT_DAY};
pub use reports::Reports;
pub use seats::Seats;
pub use turns::Turns;

use crate::config::Config;
use crate::engine::dice::{self, ChaChaDice, Seed};
use crate::mail::outbound::Outgoing;
use crate::mail::parse::{self as mailparse, Envelope};
use crate::protocol::{self, Command, Request};
use crate::report::picture::Picture;
use crate::report::{Parts, Templates};
use crate::rules::Load;
use crate::rules::{Chance, Orders, Phase, Rejection, Rules, Scenario, State, Viewer};
use crate::store::{self, Game, InboxEntry, Seat, StoreError, Submission};
use clock::{stamp, Clock};
use serde_json::json;
use store::{Connection, Transaction};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Data(#[from] crate::rules::DataError),
    #[error("no game {0}")]
    NoGame(i64),
    #[error("game {0} has no side '{1}' (sides: {2})")]
    NoSide(i64, String, String),
    #[error("{0}")]
    Invalid(String),
    #[error("orders rejected: {0}")]
    Rejected(Rejection),
    #[error("stored game {0} is damaged: {1}")]
    Corrupt(i64, String),
}

impl ServiceError {
    /// Whether the same work may succeed if tried again later: the
    /// database was busy or locked by another process, or the disk is full
    /// or failing (the host's to mend: [`ServiceError::is_disk`]); not a
    /// damaged row, a bug or bad data, which fail the same way every time.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(self, ServiceError::Store(e) if e.is_busy() || e.is_disk())
    }

    /// Whether the disk under the database is full (SQLITE_FULL) or
    /// failing (SQLITE_IOERR): nothing the mail did, and a smaller write (a
    /// failure count) may still fit where the mail's transaction did not,
    /// so such a failure never counts toward setting a mail aside (issue
    /// 52).
    #[must_use]
    pub fn is_disk(&self) -> bool {
        matches!(self, ServiceError::Store(e) if e.is_disk())
    }
}

/// The email of a seat nobody has taken yet (`--seat SIDE=open`).
pub const OPEN_SEAT: &str = "open";
pub use general::JUDGE_SEAT;

/// Error answers one address may get in 24 hours (a mail-loop brake).
pub const MAX_ERROR_REPLIES_A_DAY: i64 = 10;

/// The HELP answer to an address that has no seat, referee desk or
/// observer place here: short, so a forged From cannot make the judge send
/// a stranger much.
pub const STRANGER_HELP: &str = "This is Adjutant, a play-by-email judge. Players of its games write\nHELP, STATUS, MAP, JOIN <game> or their orders, one per line; the full\nlist is sent to addresses that have a seat in a game here.\n";

/// What happened to one inbound message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailOutcome {
    /// Seen before (same Message-ID or the same bytes): nothing done.
    Duplicate,
    /// Logged; `outcome` says what, `replies` how many mails were queued.
    Handled { outcome: String, replies: usize },
}

/// The judge: a config, a database and a clock.
pub struct Judge {
    pub cfg: Config,
    pub conn: Connection,
    pub clock: Box<dyn Clock>,
    pub templates: Templates,
}

/// How a game is run.
#[derive(Debug, Clone)]
pub struct GameOptions {
    /// The time each turn may take; none: no deadlines.
    pub deadline_secs: Option<i64>,
    /// On a missed deadline: `wait` (remind and tell the referee) or `pass`
    /// (adjudicate the side's standing orders / a pass).
    pub nmr_policy: String,
    /// Extra time after the deadline before the NMR policy applies.
    pub grace_secs: i64,
    /// The referee's address: told after `referee_after` missed deadlines in a row.
    pub referee: Option<String>,
    pub referee_after: i64,
    /// Time zones by side (or `referee`), IANA names.
    pub zones: Vec<(String, String)>,
    /// A house-rule variant of the ruleset: (file name, text).
    pub ruleset_file: Option<(String, String)>,
    /// Observers' addresses: they get every turn as the public sees it.
    pub observers: Vec<String>,
    /// Rule options for the family (`--option KEY=VALUE`), kept with the game.
    pub rule_options: std::collections::BTreeMap<String, String>,
    /// Review mode: each phase's results go to the referee first and reach
    /// the players on APPROVE, or after this many seconds.
    pub review_secs: Option<i64>,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            deadline_secs: None,
            nmr_policy: "wait".into(),
            grace_secs: 0,
            referee: None,
            referee_after: 2,
            zones: Vec::new(),
            ruleset_file: None,
            observers: Vec::new(),
            rule_options: std::collections::BTreeMap::new(),
            review_secs: None,
        }
    }
}

impl GameOptions {
    fn zone_of(&self, who: &str) -> String {
        self.zones
            .iter()
            .find(|(w, _)| w.eq_ignore_ascii_case(who))
            .map_or_else(|| "UTC".to_string(), |(_, z)| z.clone())
    }
}

/// A mail to queue and its kind (reply, error, report, ...).
type Mail = (Outgoing, &'static str);

/// The one answer a mail gets: what every command in it asked, together.
/// A mail with 2,000 HELP lines gets one answer, not 2,000.
#[derive(Default)]
pub(crate) struct Answer {
    /// The answer's sections, in the order the mail asked.
    parts: Vec<String>,
    /// Sections that say something was done or shown.
    ok: usize,
    /// The subject when the answer is one command's (else "Re: ...").
    subject: Option<String>,
    /// The authenticated seat or referee it speaks for: its reply address,
    /// its game, and its registered address (copied when it is not the sender).
    reply_to: Option<String>,
    game_id: Option<i64>,
    registered: Option<String>,
    /// A referee's answer goes to the registered address only.
    only_registered: bool,
    /// The board (HTML and attachment) of a MAP or HISTORY: (heading, parts).
    board: Option<(String, crate::report::Parts)>,
    /// How the seat it speaks for sees the board (None: the host's default).
    picture: Option<Picture>,
    /// Files attached to the answer (REPLAY's page): (name, MIME type, bytes).
    files: Vec<(String, String, Vec<u8>)>,
}

impl Answer {
    /// A section saying what was done.
    fn ok(&mut self, text: impl Into<String>) {
        self.parts.push(text.into());
        self.ok += 1;
    }
    /// A section saying what went wrong.
    fn err(&mut self, text: impl Into<String>) {
        self.parts.push(text.into());
    }
    fn titled(&mut self, subject: &str, text: impl Into<String>) {
        self.subject.get_or_insert_with(|| subject.to_string());
        self.ok(text);
    }
    /// The answer speaks for this seat.
    fn for_seat(&mut self, address: String, seat: &Seat) {
        self.reply_to = Some(address);
        self.game_id = Some(seat.game_id);
        self.registered = Some(seat.email.clone());
        // A PICTURE line above in the same mail has the last word.
        if self.picture.is_none() {
            self.picture = seat.picture.as_deref().and_then(Picture::parse);
        }
    }
    /// An answer made only of errors is an error answer (the loop brakes
    /// count those).
    fn is_error(&self) -> bool {
        self.ok == 0
    }
}

/// The answer to PICTURE.
fn picture_text(game: i64, p: Picture) -> String {
    let what = match p {
        Picture::Png => "the board as a picture (PNG) every mail client shows",
        Picture::Svg => "the board as the SVG drawing inline (Gmail and Outlook do not show it)",
        Picture::Both => "the board as a picture (PNG), with the SVG drawing attached",
        Picture::None => "no picture of the board: the text and view.json only",
    };
    format!(
        "From now on your mails of game {game} show {what}.
"
    )
}

/// A report's recipient: address, viewer, time zone, Reply-To, outbox
/// kind and what it shows of the board.
type Recipient = (
    String,
    Viewer,
    String,
    Option<String>,
    &'static str,
    Picture,
);

/// `m` showing a board: the HTML and its pictures as `picture` says
/// (docs/reports.md, "The picture"), view.json and any other file.
pub(crate) fn show_board(m: &mut Outgoing, parts: &Parts, heading: &str, picture: Picture) {
    show_board_with(m, parts, heading, picture, (None, &[]));
}

/// The size a report mail is held under (issue 57: "every mail stays
/// under 80 KB"), by [`adjutant_mail::outbound::size_bound`].
pub(crate) const MAIL_BOUND: usize = 80 * 1024;

/// [`show_board`], with `first` attached before view.json (the referee's
/// desk) and `more` after it (a command's files). A mail whose bound is over [`MAIL_BOUND`] with the picture as
/// the mail path draws it (fast, in bands over the board's kept layer)
/// gets the same picture at its smallest instead (one deflate stream at
/// level 9: 10-15% smaller, some 30 ms more): a busy board, with a long
/// report or a referee's desk beside it.
pub(crate) fn show_board_with(
    m: &mut Outgoing,
    parts: &Parts,
    heading: &str,
    picture: Picture,
    (first, more): (
        Option<crate::report::picture::Part>,
        &[crate::report::picture::Part],
    ),
) {
    let mut b = crate::report::mail_html(parts, heading, &m.text, picture);
    let mut attachments: Vec<_> = first.into_iter().collect();
    attachments.push(parts.attachment());
    attachments.append(&mut b.files);
    attachments.extend(more.iter().cloned());
    let fill = |m: &mut Outgoing, b: crate::report::picture::MailHtml| {
        m.html = b.html;
        m.inline = b.inline;
    };
    fill(m, b);
    m.attachments = attachments;
    if !m.inline.is_empty() && adjutant_mail::outbound::size_bound(m) > MAIL_BOUND {
        let small = crate::report::mail_html_smallest(parts, heading, &m.text, picture);
        fill(m, small);
    }
}

/// An inbound mail as read, before the database is asked anything: its
/// content hash and what it says.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub content_hash: String,
    pub env: Envelope,
}

impl Inbound {
    /// Hash and parse `raw` under the configured limits (a mail over the
    /// size limit is not parsed beyond its header).
    #[must_use]
    pub fn read(cfg: &Config, raw: &[u8]) -> Inbound {
        let env = if raw.len() > cfg.judge.max_message_bytes {
            mailparse::parse_header_only(raw)
        } else {
            mailparse::parse_with(
                raw,
                &mailparse::Limits {
                    max_attachment_bytes: cfg.limits.max_attachment_bytes,
                    max_mime_depth: cfg.limits.max_mime_depth,
                },
            )
        };
        Inbound {
            content_hash: dice::sha256_hex(raw),
            env,
        }
    }
}

/// A queued mail: composed now, or a turn report rendered at delivery.
/// Mails are the common case and live a moment in a short Vec: boxing
/// each would cost an allocation per mail for nothing.
#[allow(clippy::large_enum_variant)]
enum Queued {
    Mail(Outgoing),
    Report(Box<deferred::ReportJob>),
}

impl Queued {
    fn to(&self) -> &str {
        match self {
            Queued::Mail(m) => &m.to,
            Queued::Report(j) => &j.to,
        }
    }
}

/// The mails one use-case queues, written in the same transaction.
struct Queue {
    mails: Vec<(Queued, &'static str)>,
}

impl Queue {
    fn new() -> Self {
        Queue { mails: Vec::new() }
    }
    fn push(&mut self, m: Outgoing, kind: &'static str) {
        self.mails.push((Queued::Mail(m), kind));
    }
    /// Every kind of mail is listed, with who gets it, in
    /// [`recipients::MAIL_KINDS`] (docs/teams.md): a test build stops on
    /// one that is not.
    fn check_kinds(&self) {
        for (_, kind) in &self.mails {
            debug_assert!(
                recipients::is_kind(kind),
                "mail kind '{kind}' is not in recipients::MAIL_KINDS (docs/teams.md)"
            );
        }
    }
}

/// A state's short fingerprint, kept with each snapshot (and in exports):
/// SHA-256 of the canonical JSON the store keeps ([`Rules::to_json`]).
#[must_use]
pub fn state_hash(json: &str) -> String {
    dice::sha256_hex(json.as_bytes())[..16].to_string()
}

/// The options of a new game that are wrong before its scenario is read:
/// a time zone, review mode without a referee, the NMR policy.
fn check_options(opts: &GameOptions) -> Result<(), ServiceError> {
    for (who, tz) in &opts.zones {
        if tz.parse::<chrono_tz::Tz>().is_err() {
            return Err(ServiceError::Invalid(format!(
                "'{tz}' (for {who}) is not a time zone; use an IANA name such as Europe/Paris"
            )));
        }
    }
    if opts.review_secs.is_some() && opts.referee.is_none() {
        return Err(ServiceError::Invalid(
            "review mode needs a referee: give --referee EMAIL".into(),
        ));
    }
    if !["wait", "pass", "ai"].contains(&opts.nmr_policy.as_str()) {
        return Err(ServiceError::Invalid(
            "the NMR policy is wait or pass".into(),
        ));
    }
    Ok(())
}

/// Every seat of a new game names a side of it and an address (or `open`),
/// and every side has a seat.
fn check_seats(seats: &[(String, String)], sides: &[String]) -> Result<(), ServiceError> {
    for (side, email) in seats {
        if !sides.contains(side) {
            // No game exists yet to name (issue 53: "game 0 has no side").
            return Err(ServiceError::Invalid(format!(
                "the scenario has no side '{side}' (sides: {})",
                sides.join(", ")
            )));
        }
        if email != OPEN_SEAT
            && email != JUDGE_SEAT
            && (!email.contains('@') || email.parse::<lettre::Address>().is_err())
        {
            return Err(ServiceError::Invalid(format!(
                "'{email}' is not an email address (or `open` for a seat anyone may JOIN, `judge` for one the judge plays)"
            )));
        }
    }
    for side in sides {
        if !seats.iter().any(|(s, _)| s == side) {
            return Err(ServiceError::Invalid(format!(
                "side '{side}' has no seat: give --seat {side}=EMAIL"
            )));
        }
    }
    Ok(())
}

/// The first seat of each side of a new game (a side seated again is a
/// team: service/team.rs seats the others).
fn insert_first_seats(
    tx: &Transaction<'_>,
    id: i64,
    seats: &[(String, String)],
    opts: &GameOptions,
) -> Result<Vec<Seat>, ServiceError> {
    let mut seat_rows = Vec::new();
    // A side seated again is a team (service/team.rs): its first seat
    // is the Commander-in-Chief, the others its Field Marshals.
    let firsts: Vec<&(String, String)> = seats
        .iter()
        .enumerate()
        .filter(|(i, (side, _))| !seats[..*i].iter().any(|(s, _)| s == side))
        .map(|(_, s)| s)
        .collect();
    for (side, email) in firsts {
        let seat = Seat {
            game_id: id,
            side: side.clone(),
            email: email.to_ascii_lowercase(),
            secret: String::new(),
            token: String::new(),
            tz: opts.zone_of(side),
            misses: 0,
            absent_from: None,
            absent_until: None,
            picture: None,
        };
        let seat = store::insert_seat(tx, &seat)?;
        seat_rows.push(seat);
    }
    Ok(seat_rows)
}

/// The `State` line of a mail: the state's fingerprint sealed with a key
/// drawn from the game's secret seed. Every seat gets the same line for the
/// same position, so the sides can compare it, but nobody can test a guess
/// about a hidden part of the state against it (a hand, an unseen unit, a
/// sealed choice): that needs the key. The game seed, revealed at the end,
/// opens every seal (`adjutant verify` prints them). README, "Honest dice".
#[must_use]
pub fn sealed_state(master: &Seed, hash: &str) -> String {
    hex::encode(dice::derive(
        "adjutant/state-seal",
        &[master, hash.as_bytes()],
    ))[..16]
        .to_string()
}

/// A game's position at some turn: its ruleset, the typed state, and the
/// state's fingerprint.
pub struct Position {
    pub rules: Rules,
    /// Adjudications done (phases resolved) up to this state.
    pub turn: u32,
    pub state: State,
    pub hash: String,
}

/// What became of orders a side sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// Adjudicated at once (with the held orders of the other sides, if
    /// any); the game is now at `turn`.
    Resolved { turn: u32 },
    /// Held until the other sides of the phase have sent theirs.
    Held {
        waiting_for: Vec<String>,
        replaced: bool,
    },
}

/// At most this many phases of the judge's own (needing no orders) are
/// adjudicated one after another; a family that never waits again is a bug,
/// and the judge must not spin on it.
const MAX_AUTOMATIC_PHASES: usize = 16;

fn random_bytes<const N: usize>() -> Result<[u8; N], ServiceError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| ServiceError::Invalid(format!("no OS randomness: {e}")))?;
    Ok(b)
}

/// Random lower-case letters and digits (no look-alikes), from the OS.
fn random_word(len: usize) -> Result<String, ServiceError> {
    const ALPHA: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    let bytes = random_bytes::<32>()?;
    Ok(bytes
        .iter()
        .take(len)
        .map(|b| ALPHA[(*b as usize) % ALPHA.len()] as char)
        .collect())
}

/// The two streams of one turn: open dice and hidden shuffles.
pub fn streams(master: &Seed, turn: u32) -> (ChaChaDice, ChaChaDice) {
    let dice = ChaChaDice::stream(&dice::turn_seed(master, turn), "battle");
    let deck = ChaChaDice::stream(&dice::deck_seed(master), &format!("turn-{turn}"));
    (dice, deck)
}

/// Set up a game's opening state from its seed.
pub fn setup_state(
    rules: &Rules,
    scenario: &Scenario,
    master: &Seed,
) -> Result<State, ServiceError> {
    let (_, mut deck) = streams(master, 0);
    Ok(rules.numbered(rules.setup(scenario, &mut deck)?, 0))
}

/// The rules and source of a scenario: a shipped id, or a file (for the
/// CLI's `duel`).
pub fn scenario_source(scenario: &str) -> Result<(Rules, Scenario), ServiceError> {
    load_scenario(scenario)
}

/// The rules and source of a scenario: a shipped id, or a file.
pub(crate) fn load_scenario(scenario: &str) -> Result<(Rules, Scenario), ServiceError> {
    let path = std::path::Path::new(scenario);
    if scenario.ends_with(".toml") || path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ServiceError::Invalid(format!("cannot read {scenario}: {e}")))?;
        let (source, ruleset) = Scenario::from_text(&text, scenario)?;
        Ok((Rules::load(&ruleset)?, source))
    } else {
        Ok((Rules::for_scenario(scenario)?, Scenario::shipped(scenario)))
    }
}

/// Adjudicate one phase (`turn`, counted in phases resolved) on `state` with
/// the game's dice for it and every needed side's orders.
pub fn adjudicate_turn(
    rules: &Rules,
    state: &State,
    master: &Seed,
    turn: u32,
    orders: &[Orders],
) -> Result<crate::rules::Adjudication, Rejection> {
    let (mut d, mut k) = streams(master, turn);
    let mut chance = Chance {
        dice: &mut d,
        deck: &mut k,
    };
    rules.adjudicate(state, orders, &mut chance)
}

impl Judge {
    /// Open the judge for a config (creating and migrating the database).
    pub fn open(cfg: Config, clock: Box<dyn Clock>) -> Result<Judge, ServiceError> {
        let conn = store::open(&cfg.database_path())?;
        let templates = crate::report::load_templates(Some(&cfg.path("templates")));
        Ok(Judge {
            cfg,
            conn,
            clock,
            templates,
        })
    }

    /// What `seat`'s mails show of the board: its PICTURE choice, else
    /// the host's `judge.picture`.
    fn picture_of(&self, seat: &Seat) -> Picture {
        seat.picture
            .as_deref()
            .and_then(Picture::parse)
            .unwrap_or(self.cfg.judge.picture)
    }

    fn seat_address(&self, seat: &Seat) -> String {
        self.address_of(&seat.token)
    }

    /// The judge's plus-address carrying a token.
    fn address_of(&self, token: &str) -> String {
        plus_address(&self.cfg, token)
    }

    /// The mail an outbox row holds, as delivery sends it (a report still
    /// to render is rendered); None when there is no such row. Empty once
    /// its bytes were dropped after delivery.
    pub fn outbox_mail(&self, id: i64) -> Result<Option<Vec<u8>>, ServiceError> {
        let Some((message_id, stored)) = store::outbox_body(&self.conn, id)? else {
            return Ok(None);
        };
        if stored.is_empty() {
            return Ok(Some(stored));
        }
        Renderer::new(&self.templates)
            .mail(&self.conn, &message_id, stored)
            .map(Some)
    }

    pub fn game(&self, id: i64) -> Result<Game, ServiceError> {
        store::game(&self.conn, id)?.ok_or(ServiceError::NoGame(id))
    }

    /// A game's latest position, or its position after `turn` phases.
    pub fn position(&self, game: &Game, turn: Option<u32>) -> Result<Position, ServiceError> {
        Self::position_in(&self.conn, game, turn)
    }

    /// [`Judge::position`] inside a transaction (or on any connection).
    fn position_in(
        conn: &Connection,
        game: &Game,
        turn: Option<u32>,
    ) -> Result<Position, ServiceError> {
        let id = game.id;
        let rules = Rules::of_game(&game.ruleset, game.ruleset_text.as_deref())?;
        let (t, text, hash) = store::snapshot(conn, id, turn)?.ok_or_else(|| match turn {
            Some(t) => ServiceError::Invalid(format!("game {id} has no turn {t}")),
            None => ServiceError::NoGame(id),
        })?;
        let state = rules
            .restore(&text)
            .map_err(|e| ServiceError::Corrupt(id, e.to_string()))?;
        let state = rules.numbered(state, t);
        Ok(Position {
            rules,
            turn: t,
            state,
            hash,
        })
    }

    fn master(game: &Game) -> Result<Seed, ServiceError> {
        dice::parse_seed(&game.seed)
            .ok_or_else(|| ServiceError::Corrupt(game.id, "bad seed".into()))
    }
}

/// The judge's plus-address carrying a token (a seat's, a member's or
/// the referee's reply address), by the config's address.
fn plus_address(cfg: &Config, token: &str) -> String {
    format!("{}+{}@{}", cfg.local_part(), token, cfg.domain())
}

/// At most `lines` lines of `text`, each cut to `cols` characters: what a
/// message built from a mail's words may quote back.
fn clip_text(text: &str, lines: usize, cols: usize) -> String {
    let mut out: Vec<String> = text
        .lines()
        .take(lines)
        .map(|l| {
            let indent = &l[..l.len() - l.trim_start().len()];
            format!("{indent}{}", protocol::quotable(l, cols))
        })
        .collect();
    let total = text.lines().count();
    if total > lines {
        out.push(format!("(and {} more lines)", total - lines));
    }
    out.join("\n")
}

/// Who a report goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Audience {
    All,
    Players,
    Referee,
}

/// One phase made by [`Turns::resolve`].
struct MadeTurn {
    turn: u32,
    /// The sides whose orders it took (none for a phase of the judge's own).
    movers: Vec<String>,
    events: Vec<crate::rules::Event>,
    hash: String,
}

/// The store boundary of events: the JSON objects the store keeps.
fn stored(events: &[crate::rules::Event]) -> Vec<serde_json::Value> {
    events.iter().map(crate::rules::Event::to_store).collect()
}

/// Runs `helper` on the process's render helper thread while this thread
/// runs `own`, and returns `own`'s result once both are done (a panic in
/// the helper is raised again here). On a machine of one core there is no
/// helper: `own` runs, then `helper`. The work given is the drawing of a
/// part of the outbox (pure, its bytes not depending on the thread), and,
/// for the courier, the sending of the part before it.
pub(crate) fn beside<R>(helper: impl FnOnce() + Send, own: impl FnOnce() -> R) -> R {
    // One helper thread for the process, kept: a thread started per mail
    // cost its start, a fresh stack and a fresh heap every time.
    static HELPER: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = HELPER.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores >= 2)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .thread_name(|_| "adjutant-render".into())
                    .build()
                    .ok()
            })
            .flatten()
    });
    let Some(pool) = pool.as_ref() else {
        let r = own();
        helper();
        return r;
    };
    // The helper's work is spawned, this thread does its own, and the
    // scope waits for both (a panic in either is raised again here).
    pool.in_place_scope(|s| {
        s.spawn(|_| helper());
        own()
    })
}

/// "turn 7" or "turns 7-8".
fn made_turns(made: &[MadeTurn]) -> String {
    match (made.first(), made.last()) {
        (Some(a), Some(b)) if a.turn != b.turn => format!("turns {}-{}", a.turn, b.turn),
        (_, Some(b)) => format!("turn {}", b.turn),
        _ => String::new(),
    }
}

/// Who made a phase: one side, several at once, or the judge.
fn mover_label(movers: &[String]) -> String {
    if movers.is_empty() {
        "the judge".to_string()
    } else {
        movers.join(" and ")
    }
}

/// The subject of a report: "turn 7 (allies)".
fn made_heading(made: &[MadeTurn]) -> String {
    let movers = made
        .iter()
        .find(|m| !m.movers.is_empty())
        .map(|m| m.movers.clone())
        .unwrap_or_default();
    format!("{} ({})", made_turns(made), mover_label(&movers))
}

/// What a new game waits for, in its welcome: a game that opens with a
/// phase of the judge's own (a campaign battle's pre-battle roll, an
/// airdrop) is not over, its first report follows the welcome.
fn welcome_waiting_line(rules: &Rules, state: &State) -> String {
    let w = rules.phase(state);
    if w.sides.is_empty() && rules.result(state).is_none() {
        return crate::report::wrap(
            &format!(
                "The battle begins with a phase of the judge's own ({}): its report follows this mail.",
                w.what
            ),
            78,
            "  ",
        )
        .trim_end()
        .to_string();
    }
    waiting_line(&w)
}

fn waiting_line(w: &Phase) -> String {
    if w.sides.is_empty() {
        "The game is over.".into()
    } else {
        crate::report::wrap(
            &format!("Waiting for: {} ({})", w.sides.join(", "), w.what),
            78,
            "  ",
        )
        .trim_end()
        .to_string()
    }
}

pub(super) fn result_line(result: Option<&str>) -> String {
    match result {
        Some("") => "It is a draw.".into(),
        Some(w) => format!("{w} wins."),
        None => String::new(),
    }
}

/// "72h" -> 259200 seconds; also "3d", "90m", "3600s".
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
    let n: i64 = num.parse().ok()?;
    let mult = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return None,
    };
    n.checked_mul(mult).filter(|v| *v > 0)
}

pub(crate) fn human_duration(secs: i64) -> String {
    if secs % 86400 == 0 {
        format!("{} days", secs / 86400)
    } else if secs % 3600 == 0 {
        format!("{} hours", secs / 3600)
    } else {
        format!("{} minutes", secs / 60)
    }
}

/// What is kept of a submission's orders (issue 59): the lines read as
/// orders, without the blank lines that stood for a mail's chatter and
/// commands (they keep the mail's line numbers while the orders are
/// checked; a mail of 666,000 short lines stored them all). Leading and
/// trailing blank lines go, and a run of blank lines between orders
/// becomes one. The orders' meaning is unchanged: blank lines are no
/// orders in any family.
fn stored_orders(orders: &str) -> String {
    let mut out = String::with_capacity(orders.len().min(4096));
    let mut blank_run = false;
    for line in orders.lines() {
        if line.trim().is_empty() {
            blank_run = !out.is_empty();
            continue;
        }
        if blank_run {
            out.push('\n');
            blank_run = false;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn stored_orders_drop_the_padding_but_not_the_orders() {
        assert_eq!(
            super::stored_orders("\n\n\nPLAY x\n\n\n\nORDER D4\n  \nMOVE D4 D5\n\n\n"),
            "PLAY x\n\nORDER D4\n\nMOVE D4 D5"
        );
        assert_eq!(super::stored_orders("\n\n"), "");
        assert_eq!(super::stored_orders("PASS"), "PASS");
    }

    use super::*;

    /// A report mail whose bound the mail path's picture takes over 80 KB
    /// gets the same picture at its smallest (issue 57: every mail under
    /// 80 KB); one under it keeps the mail path's picture.
    #[test]
    fn a_report_over_its_bound_takes_the_picture_at_its_smallest() {
        use crate::rules::{Load, Rules, State, Viewer};
        let s = crate::rules::memoir44::report::sample::standard();
        let rules = Rules::load("memoir44").expect("rules");
        let state = State::of(s.state.clone());
        let parts = rules.report_parts(&state, &[], &Viewer::Side("allies".into()), Some(&s.mover));
        let mail = |text: String| {
            let mut m = Outgoing {
                to: "allies@example.org".into(),
                subject: "Game 1: turn 1".into(),
                text,
                ..Outgoing::default()
            };
            show_board_with(&mut m, &parts, "Game 1: turn 1", Picture::Png, (None, &[]));
            m
        };
        let fast = crate::report::mail_html(&parts, "Game 1: turn 1", "", Picture::Png);
        let png = &fast.inline[0].2;
        let small = crate::report::mail_html_smallest(&parts, "Game 1: turn 1", "", Picture::Png);
        let smallest = &small.inline[0].2;
        assert!(
            smallest.len() < png.len(),
            "{} against {}",
            smallest.len(),
            png.len()
        );
        let short = mail(parts.map.clone());
        assert!(adjutant_mail::outbound::size_bound(&short) <= MAIL_BOUND);
        assert_eq!(
            &short.inline[0].2, png,
            "under the bound: the mail path's picture"
        );
        // A report long enough that with the mail path's picture it would
        // be over the bound, and under it at its smallest (the text goes
        // twice: the plain part and the HTML's).
        let room = MAIL_BOUND - adjutant_mail::outbound::size_bound(&short);
        let saved = (png.len() - smallest.len()) * 4 / 3;
        let line = format!("{}\n", "x".repeat(60));
        let long = format!("{}{}", parts.map, line.repeat((room + saved / 2) / 2 / 64));
        let with_fast = Outgoing {
            text: long.clone(),
            html: crate::report::mail_html(&parts, "Game 1: turn 1", &long, Picture::Png).html,
            ..short.clone()
        };
        assert!(
            adjutant_mail::outbound::size_bound(&with_fast) > MAIL_BOUND,
            "the mail path's picture takes it over"
        );
        let m = mail(long);
        assert_eq!(
            &m.inline[0].2, smallest,
            "over the bound: the picture at its smallest"
        );
        assert!(adjutant_mail::outbound::size_bound(&m) <= MAIL_BOUND);
        assert_eq!(m.attachments[0].0, "view.json");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("72h"), Some(259_200));
        assert_eq!(parse_duration("3d"), Some(259_200));
        assert_eq!(parse_duration("h"), None);
        assert_eq!(parse_duration("0h"), None);
        assert_eq!(parse_duration("5y"), None);
    }
}

#[cfg(test)]
mod transient_tests {
    use super::*;

    fn sqlite(code: i32) -> ServiceError {
        ServiceError::Store(StoreError::of_code(code))
    }

    /// A report that met a busy or locked database is tried again later; a
    /// damaged game, a bug or bad data fail the same way every time.
    #[test]
    fn only_a_busy_or_locked_database_is_worth_another_try() {
        assert!(sqlite(store::code::BUSY).is_transient());
        assert!(sqlite(store::code::LOCKED).is_transient());
        assert!(sqlite(store::code::FULL).is_transient());
        assert!(!sqlite(store::code::CORRUPT).is_transient());
        assert!(!ServiceError::NoGame(9).is_transient());
        assert!(!ServiceError::Invalid("internal error (a bug)".into()).is_transient());
    }
}
