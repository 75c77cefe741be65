//! Turn reports rendered when they are delivered, not in the transaction
//! that made the turn.
//!
//! A turn report is a pure function of what the database keeps for ever
//! (the game's snapshots, events and submissions) and of a few facts that
//! change later (the game's status and deadline, the recipient's seat).
//! The transaction of the mail that made the turn stores those facts, a
//! few hundred bytes, as the outbox row's body (a [`ReportJob`] behind
//! [`store::JOB`]); delivery renders the mail from them: the same bytes as
//! rendering it at once, since nothing it reads changes after the commit
//! (docs/performance.md, "Reports rendered at delivery"). The mail path's
//! transaction then writes a few pages instead of two reports' worth, and
//! the rendering runs beside the next mail's adjudication.

use super::{MadeTurn, ServiceError};
use crate::mail::outbound::{self, Outgoing};
use crate::report::picture::Picture;
use crate::report::Templates;
use crate::rules::{Load, Rules, State, Viewer};
use crate::store::Connection;
use crate::store::{self, Game};
use serde::{Deserialize, Serialize};

/// One recipient's report of turns `first..=last` of a game, as queued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct ReportJob {
    pub game: i64,
    pub first: u32,
    pub last: u32,
    /// The game's row as it was when the report was queued (later turns,
    /// a deadline moved or a review released change them).
    pub status: String,
    pub turn: u32,
    pub result: Option<String>,
    pub deadline_at: Option<String>,
    pub held_from: Option<u32>,
    /// The recipient and as whom it sees the board.
    pub to: String,
    pub viewer: Viewer,
    pub tz: String,
    pub reply_to: Option<String>,
    /// Team play: the member's sections and whether it leads the side
    /// (its own order template in place of the side's).
    pub member: Option<(Vec<String>, bool)>,
    /// What the recipient's mail shows of the board (issue 37). A job
    /// queued before there was a choice has none and keeps the inline SVG
    /// it would have had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<Picture>,
    /// The Message-ID of the recipient's welcome to the game: the report
    /// answers it (In-Reply-To, References), so a client keeps the game's
    /// mails in one thread (issue 53). None for a job queued before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The sides the judge itself plays (issue 58): the report names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge_plays: Vec<String>,
    /// The turn's hand-over in the process that made it ([`hand_over`]):
    /// its position and events wait in memory under this number, which
    /// only this committed row names. None: read them back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand: Option<u64>,
}

/// An outbox row's body before rendering: the job and what composing the
/// mail needs besides (the sender and the Date, fixed when it was queued).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Stored {
    pub from_name: String,
    pub from_addr: String,
    /// The Date header: seconds and nanoseconds since 1970.
    pub date: (u64, u32),
    pub report: ReportJob,
}

impl Stored {
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        let mut out = store::JOB.to_vec();
        // A job is plain data: serialising it cannot fail.
        out.extend_from_slice(&serde_json::to_vec(self).unwrap_or_default());
        out
    }
}

/// What rendering the reports of one turn shares between its recipients.
struct Loaded {
    game: Game,
    rules: Rules,
    state: State,
    made: Vec<MadeTurn>,
}

/// What [`Loaded`] is made of, as read from the database (or handed
/// across) before any of it is parsed: reading needs the connection, one
/// thread at a time; parsing does not, and runs on the rendering threads.
struct Unparsed {
    game: Game,
    rules: Rules,
    /// The last position: handed across, or its stored (turn, JSON).
    position: Result<State, (u32, String)>,
    /// (turn, movers, events' store forms, state hash) of each phase.
    made: Vec<(u32, Vec<String>, Vec<serde_json::Value>, String)>,
}

impl Unparsed {
    fn read(conn: &Connection, job: &ReportJob) -> Result<Unparsed, ServiceError> {
        crate::fault::point("report-load", job.game);
        crate::fault::abort("report-load-abort", job.game);
        let game = store::game(conn, job.game)?.ok_or(ServiceError::NoGame(job.game))?;
        let rules = Rules::of_game(&game.ruleset, game.ruleset_text.as_deref())?;
        if let Some(h) = job.hand.and_then(|t| take_handed(conn, job, t)) {
            // Made by this process in the transaction that queued this
            // row: its position and events as they were stored.
            let mut made = Vec::with_capacity(h.made.len());
            for (turn, hash, events) in h.made {
                made.push((turn, store::movers(conn, game.id, turn)?, events, hash));
            }
            return Ok(Unparsed {
                game,
                rules,
                position: Ok(h.state),
                made,
            });
        }
        let id = game.id;
        let (t, text, hash) = store::snapshot(conn, id, Some(job.last))?
            .ok_or_else(|| ServiceError::Invalid(format!("game {id} has no turn {}", job.last)))?;
        let mut made = Vec::new();
        for turn in job.first..=job.last {
            let hash = if turn == job.last {
                hash.clone()
            } else {
                store::snapshot(conn, id, Some(turn))?
                    .map(|(_, _, h)| h)
                    .unwrap_or_default()
            };
            let events = store::events(conn, id, Some(turn))?
                .into_iter()
                .map(|(_, e)| e)
                .collect();
            made.push((turn, store::movers(conn, id, turn)?, events, hash));
        }
        Ok(Unparsed {
            game,
            rules,
            position: Err((t, text)),
            made,
        })
    }

    /// The position parsed (as [`super::Judge::position_in`] parses it) and the
    /// events read as the family reads them.
    fn parse(self) -> Result<Loaded, ServiceError> {
        let Unparsed {
            game,
            rules,
            position,
            made,
        } = self;
        let state = match position {
            Ok(state) => state,
            Err((t, text)) => {
                let state = rules
                    .restore(&text)
                    .map_err(|e| ServiceError::Corrupt(game.id, e.to_string()))?;
                rules.numbered(state, t)
            }
        };
        let made = made
            .into_iter()
            .map(|(turn, movers, events, hash)| MadeTurn {
                turn,
                movers,
                events: events
                    .into_iter()
                    .map(|e| rules.event_from_store(e))
                    .collect(),
                hash,
            })
            .collect();
        Ok(Loaded {
            game,
            rules,
            state,
            made,
        })
    }
}

impl Loaded {
    fn load(conn: &Connection, job: &ReportJob) -> Result<Loaded, ServiceError> {
        Unparsed::read(conn, job)?.parse()
    }

    /// The report mail of `s`, composed with `message_id`.
    fn mail(
        &self,
        templates: &Templates,
        message_id: &str,
        s: &Stored,
    ) -> Result<Vec<u8>, ServiceError> {
        let job = &s.report;
        let mut game = self.game.clone();
        game.status.clone_from(&job.status);
        game.turn = job.turn;
        game.result.clone_from(&job.result);
        game.deadline_at.clone_from(&job.deadline_at);
        game.held_from = job.held_from;
        let m = report_mail(templates, &game, &self.rules, &self.made, &self.state, job)?;
        let date = std::time::UNIX_EPOCH + std::time::Duration::new(s.date.0, s.date.1);
        outbound::compose(&s.from_name, &s.from_addr, message_id, date, &m)
            .map_err(|e| ServiceError::Invalid(format!("cannot compose a report: {e}")))
    }
}

/// A turn as the thread that made it stored it, waiting in memory for
/// its reports' rendering in the same process: its last position
/// (numbered as [`super::Judge::position_in`] numbers it) and each phase's hash
/// and events' store forms (the values [`store::events`] reads back).
struct Handed {
    db: String,
    game: i64,
    /// The number its report jobs carry ([`ReportJob::hand`]).
    token: u64,
    first: u32,
    last: u32,
    state: State,
    /// (turn, state hash, events' store forms) of each phase, `first..=last`.
    made: Vec<(u32, String, Vec<serde_json::Value>)>,
    /// The length of its stored JSON: what it weighs, roughly.
    weight: usize,
}

/// At most this many turns wait to be rendered, of at most this much
/// stored JSON together (a few times that in memory); a renderer further
/// behind reads the older ones back from the database, as it always could.
/// 80 KiB: sixteen Pegasus Bridge turns, position and events (64 KiB,
/// sixteen positions, when the events were read back).
const HANDED_MAX: usize = 16;
const HANDED_WEIGHT: usize = 80 * 1024;

/// The turns handed across, oldest first (a few dozen at most: a list,
/// searched from the newest).
static HANDED: std::sync::Mutex<std::collections::VecDeque<Handed>> =
    std::sync::Mutex::new(std::collections::VecDeque::new());

fn handed() -> std::sync::MutexGuard<'static, std::collections::VecDeque<Handed>> {
    // Nothing panics while holding it; if something did, the list is
    // still whole (each change is one push or remove).
    HANDED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The database file a connection is on (none for one in memory).
fn db_of(conn: &Connection) -> Option<&str> {
    conn.path().filter(|p| !p.is_empty())
}

/// A number no other hand-over of this process has had, nor, but by a
/// chance of one in 2^40 or so, another process's: the process's random
/// start (from the system's randomness) plus a count.
fn next_token() -> u64 {
    static BASE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let base = *BASE.get_or_init(|| {
        let mut b = [0u8; 8];
        match getrandom::fill(&mut b) {
            Ok(()) => u64::from_le_bytes(b),
            // No randomness: the process id keeps processes apart.
            Err(_) => u64::from(std::process::id()) << 32,
        }
    });
    base.wrapping_add(COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// What [`hand_over`] keeps of a turn: its last position, each phase's
/// (turn, state hash, events' store forms as stored) and about what its
/// stored JSON weighs.
pub(super) struct Handing {
    pub state: State,
    pub made: Vec<(u32, String, Vec<serde_json::Value>)>,
    pub weight: usize,
}

/// Keeps `turn` (the phases of game `game` just stored in `conn`'s
/// transaction) for [`Loaded::load`], and marks the report jobs of those
/// phases that `queue` holds with its number. A job carries the number
/// only in the row the same transaction stores: a turn whose transaction
/// rolled back is never taken (no committed row names it), and one made
/// again is handed over again under a new number. A full list drops its
/// oldest turns (read back when their reports are drawn).
pub(super) fn hand_over(conn: &Connection, game: i64, turn: Handing, queue: &mut super::Queue) {
    let Some(db) = db_of(conn) else { return };
    let (Some(first), Some(last)) = (turn.made.first(), turn.made.last()) else {
        return;
    };
    let (first, last) = (first.0, last.0);
    if turn.weight > HANDED_WEIGHT / 8 {
        return; // a giant's turn is read back
    }
    let token = next_token();
    let mut marked = false;
    for (q, _) in &mut queue.mails {
        if let super::Queued::Report(job) = q {
            if job.game == game && job.first == first && job.last == last && job.hand.is_none() {
                job.hand = Some(token);
                marked = true;
            }
        }
    }
    if !marked {
        return;
    }
    let mut list = handed();
    let mut total: usize = list.iter().map(|h| h.weight).sum::<usize>() + turn.weight;
    while list.len() >= HANDED_MAX || total > HANDED_WEIGHT {
        let Some(old) = list.pop_front() else { break };
        total -= old.weight;
    }
    list.push_back(Handed {
        db: db.to_string(),
        game,
        token,
        first,
        last,
        state: turn.state,
        made: turn.made,
        weight: turn.weight,
    });
}

/// The turn `job` reports, handed across under `token` by this process
/// for this database, taken out of the list (its other recipients on the
/// same page share what [`Loaded::load`] made of it).
fn take_handed(conn: &Connection, job: &ReportJob, token: u64) -> Option<Handed> {
    let db = db_of(conn)?;
    let mut list = handed();
    let at = list.iter().rposition(|h| {
        h.token == token
            && h.game == job.game
            && h.first == job.first
            && h.last == job.last
            && h.db == db
    })?;
    list.remove(at)
}

fn read_job(json: &[u8]) -> Result<Stored, ServiceError> {
    serde_json::from_slice(json)
        .map_err(|e| ServiceError::Invalid(format!("an outbox job does not read: {e}")))
}

/// Renders stored report jobs into mails.
pub struct Renderer<'t> {
    templates: &'t Templates,
}

impl<'t> Renderer<'t> {
    #[must_use]
    pub fn new(templates: &'t Templates) -> Self {
        Renderer { templates }
    }

    /// The mail an outbox row stands for: `stored` itself when it is a
    /// mail, else the report its job describes, composed with the row's
    /// Message-ID.
    pub fn mail(
        &self,
        conn: &Connection,
        message_id: &str,
        stored: Vec<u8>,
    ) -> Result<Vec<u8>, ServiceError> {
        let Some(json) = stored.strip_prefix(store::JOB) else {
            return Ok(stored);
        };
        let s = read_job(json)?;
        Loaded::load(conn, &s.report)?.mail(self.templates, message_id, &s)
    }

    /// Renders in place every row of `page` that holds a report's job,
    /// and says, for each row, whether it could be: [`Renderer::read_part`],
    /// the part drawn on two threads ([`Renderer::draw_part`] on each, see
    /// [`super::beside`]), then [`Renderer::finish_part`].
    pub fn render_page(
        &self,
        conn: &Connection,
        page: &mut [store::OutMail],
    ) -> Vec<Result<(), ServiceError>> {
        let part = self.read_part(conn, page);
        super::beside(
            || self.draw_part(&part, End::Front),
            || self.draw_part(&part, End::Back),
        );
        self.finish_part(conn, part, page)
    }

    /// Reads what drawing the rows of `page` needs (on this thread: it
    /// needs the connection): each turn once for all its recipients. What
    /// it returns holds no borrow of the page, so the page's earlier rows
    /// may be sent while it is drawn.
    pub fn read_part(&self, conn: &Connection, page: &[store::OutMail]) -> Part {
        let mut out: Vec<Result<(), ServiceError>> = Vec::with_capacity(page.len());
        let mut turns: Vec<PartTurn> = Vec::new();
        let mut keys: Vec<(i64, u32, u32)> = Vec::new();
        let mut rows: Vec<PartRow> = Vec::new();
        for (i, m) in page.iter().enumerate() {
            let Some(json) = m.raw.strip_prefix(store::JOB) else {
                out.push(Ok(()));
                continue;
            };
            let r = read_job(json).and_then(|s| {
                let key = (s.report.game, s.report.first, s.report.last);
                let turn = match keys.iter().position(|k| *k == key) {
                    Some(at) => at,
                    None => {
                        let r = or_bug(|| Unparsed::read(conn, &s.report))?;
                        turns.push(PartTurn {
                            unparsed: std::sync::Mutex::new(Some(r)),
                            loaded: std::sync::OnceLock::new(),
                            error: std::sync::Mutex::new(None),
                        });
                        keys.push(key);
                        keys.len() - 1
                    }
                };
                rows.push(PartRow {
                    row: i,
                    job: s,
                    turn,
                    message_id: m.message_id.clone(),
                });
                Ok(())
            });
            out.push(r);
        }
        // A seat's rows together: the front's drawer and the back's each
        // draw one seat's boards in turn (a thread's canvas keeps the last
        // static layer it drew over, a seat's own), until they meet.
        let mut viewers: Vec<&Viewer> = Vec::new();
        let mut seat = Vec::with_capacity(rows.len());
        for r in &rows {
            let v = &r.job.report.viewer;
            seat.push(match viewers.iter().position(|w| *w == v) {
                Some(at) => at,
                None => {
                    viewers.push(v);
                    viewers.len() - 1
                }
            });
        }
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by_key(|&j| (seat[j], j));
        let mut slots: Vec<Option<PartRow>> = rows.into_iter().map(Some).collect();
        let rows: Vec<PartRow> = order.iter().filter_map(|&j| slots[j].take()).collect();
        let drawn = (0..rows.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        Part {
            ends: std::sync::Mutex::new((0, rows.len())),
            out,
            turns,
            rows,
            drawn,
            abandoned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Draws the rows of `part` not yet taken, taking them one at a time
    /// from its `end` (another thread may draw from the other end); a
    /// row's turn is parsed by the first to need it. Pure: the bytes do
    /// not depend on which thread drew what.
    pub fn draw_part(&self, part: &Part, end: End) {
        while let Some(j) = part.take(end) {
            let r = &part.rows[j];
            let turn = &part.turns[r.turn];
            let loaded = turn.loaded.get_or_init(|| {
                let u = lock(&turn.unparsed).take();
                match or_bug(|| u.map_or_else(|| Err(bug()), Unparsed::parse)) {
                    Ok(l) => Some(l),
                    Err(e) => {
                        *lock(&turn.error) = Some(e);
                        None
                    }
                }
            });
            let Some(l) = loaded else {
                continue; // finished on the connection's thread
            };
            // A bug in a family's report is this row's failure, not the
            // delivery's.
            let mail = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                l.mail(self.templates, &r.message_id, &r.job)
            }))
            .unwrap_or_else(|_| Err(ServiceError::Invalid("internal error (a bug)".into())));
            let _ = part.drawn[j].set(mail);
        }
    }

    /// Writes the drawn rows of `part` into `page` (the rows it was read
    /// from) and says, for each row, whether it could be rendered. A turn
    /// that did not parse is the failure of its first row; each other row
    /// of it reads it again, as every row always did.
    pub fn finish_part(
        &self,
        conn: &Connection,
        part: Part,
        page: &mut [store::OutMail],
    ) -> Vec<Result<(), ServiceError>> {
        let Part {
            mut out,
            turns,
            rows,
            drawn,
            ..
        } = part;
        let mut drawn: Vec<(PartRow, Option<Drawn>)> = rows
            .into_iter()
            .zip(drawn)
            .map(|(r, d)| (r, d.into_inner()))
            .collect();
        drawn.sort_by_key(|(r, _)| r.row);
        for (r, mail) in drawn {
            let i = r.row;
            let mail = match mail {
                Some(mail) => mail,
                None => match lock(&turns[r.turn].error).take() {
                    Some(e) => Err(e),
                    None => or_bug(|| Loaded::load(conn, &r.job.report))
                        .and_then(|l| l.mail(self.templates, &page[i].message_id, &r.job)),
                },
            };
            match mail {
                Ok(raw) => page[i].raw = raw,
                Err(e) => out[i] = Err(e),
            }
        }
        out
    }
}

/// The end of a [`Part`] a thread takes its rows from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Front,
    Back,
}

/// Rows of an outbox page read for drawing ([`Renderer::read_part`]),
/// drawn by one thread or two ([`Renderer::draw_part`]), then written back
/// ([`Renderer::finish_part`]).
pub struct Part {
    /// Per row of the page: its reading's failure, else Ok (a mail stored
    /// whole, or a job drawn below).
    out: Vec<Result<(), ServiceError>>,
    turns: Vec<PartTurn>,
    /// The rows to draw, a seat's together.
    rows: Vec<PartRow>,
    /// Each row's mail, once drawn; none for a row whose turn did not
    /// parse (or not drawn: abandoned).
    drawn: Vec<std::sync::OnceLock<Drawn>>,
    /// The rows not yet taken: `ends.0..ends.1`.
    ends: std::sync::Mutex<(usize, usize)>,
    abandoned: std::sync::atomic::AtomicBool,
}

impl Part {
    /// The next row to draw from `end`, if any is left.
    fn take(&self, end: End) -> Option<usize> {
        if self.abandoned.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let mut e = lock(&self.ends);
        if e.0 >= e.1 {
            return None;
        }
        Some(match end {
            End::Front => {
                e.0 += 1;
                e.0 - 1
            }
            End::Back => {
                e.1 -= 1;
                e.1
            }
        })
    }

    /// Whether a row of the part has a board picture drawn in PNG: work
    /// enough to draw beside the sending of the part before it. A part of
    /// text alone is drawn after (beside the sending it took some of the
    /// handling thread's core, where a big pass without pictures waits:
    /// docs/performance.md).
    #[must_use]
    pub fn pictured(&self) -> bool {
        self.rows
            .iter()
            .any(|r| matches!(r.job.report.picture, Some(Picture::Png | Picture::Both)))
    }

    /// No more of its rows are drawn: they will not be sent (the delivery
    /// stops). A row being drawn is finished.
    pub fn abandon(&self) {
        self.abandoned
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A row's mail drawn, or why it could not be.
type Drawn = Result<Vec<u8>, ServiceError>;

/// A turn of a [`Part`]: read, then parsed once by the first thread that
/// draws one of its rows.
struct PartTurn {
    unparsed: std::sync::Mutex<Option<Unparsed>>,
    loaded: std::sync::OnceLock<Option<Loaded>>,
    error: std::sync::Mutex<Option<ServiceError>>,
}

/// A row of a [`Part`] to draw: its index in the page, its job, its turn
/// (in [`Part::turns`]) and its Message-ID.
struct PartRow {
    row: usize,
    job: Stored,
    turn: usize,
    message_id: String,
}

/// The value behind `m`, a panic in another holder notwithstanding (what
/// it guards is whole between two statements).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The error of a bug in loading a game's history for its report.
fn bug() -> ServiceError {
    ServiceError::Invalid("internal error (a bug) loading the game for its report".into())
}

/// `f()`, or, if it panics, [`bug`]: a bug in loading a game's history is
/// its row's failure, not the delivery's (nor the daemon's).
fn or_bug<T>(f: impl FnOnce() -> Result<T, ServiceError>) -> Result<T, ServiceError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| Err(bug()))
}

/// One recipient's report mail of `made`.
pub(super) fn report_mail(
    templates: &Templates,
    game: &Game,
    rules: &Rules,
    made: &[MadeTurn],
    state: &State,
    job: &ReportJob,
) -> Result<Outgoing, ServiceError> {
    let viewer = &job.viewer;
    let picture = job.picture.unwrap_or(Picture::Svg);
    // A mail without a picture has no HTML part: the board (SVG, its HTML
    // and the compact map) would be drawn for nothing.
    let unpictured;
    let rules = if picture == Picture::None {
        unpictured = rules.without_board();
        &unpictured
    } else {
        rules
    };
    let (mut text, mut parts) =
        super::reports::report_text(templates, game, rules, made, state, viewer, &job.tz)?;
    if let (Viewer::Side(side), Some(t), Some((sections, leader))) =
        (viewer, parts.orders.clone(), &job.member)
    {
        if let Some(mt) = rules.member_template(state, side, sections, *leader) {
            text = text.replacen(&t, &mt, 1);
            parts.orders = Some(mt);
        }
    }
    if !job.judge_plays.is_empty() {
        text.push_str(&super::general::judge_plays_text(&job.judge_plays));
    }
    let mut desk_file = None;
    let copy = if *viewer == Viewer::Referee {
        let desk = referee_desk(game, rules, state, picture);
        text = format!("{text}\n{}", desk.text);
        if let Some(extra) = desk.html {
            parts.board_html = format!(
                "{}{extra}",
                crate::report::html::labelled_board("THE REFEREE'S BOARD", &parts.board_html)
            );
        }
        desk_file = desk.file;
        ", referee's copy"
    } else {
        ""
    };
    let subject = format!("Game {}: {}{copy}", game.id, super::made_heading(made));
    let mut m = Outgoing {
        to: job.to.clone(),
        subject,
        text,
        reply_to: job.reply_to.clone(),
        game_id: Some(game.id),
        in_reply_to: job.thread.clone(),
        ..Outgoing::default()
    };
    let heading = m.subject.clone();
    super::show_board_with(&mut m, &parts, &heading, picture, (desk_file, &[]));
    Ok(m)
}

/// What the referee's copy adds to the referee's report: the review's
/// notice and the desk (each side's board, labelled, as its player was
/// shown it).
struct Desk {
    /// Said after the report's text.
    text: String,
    /// What the HTML board fragment shows after the referee's own board,
    /// labelled (None: the fragment stays as it is).
    html: Option<String>,
    /// The desk as a file of its own (`desk.txt`): (name, MIME type, bytes).
    file: Option<(String, String, Vec<u8>)>,
}

/// The referee's desk for a report mail drawn as `picture`.
///
/// With a PNG (the default) a mail carries one picture, the referee's
/// board, and each side's map went twice (in the text and in the HTML
/// part's copy of it): four Memoir '44 referee's copies were 83-87 KB
/// (issue 53, acceptance 3). So the desk goes once, as `desk.txt`,
/// attached (every client shows or opens a text attachment), and the
/// text and the HTML say where. With SVG or both every board is drawn in
/// the HTML, under its heading, and the text carries the desk; with no
/// picture the text does.
fn referee_desk(game: &Game, rules: &Rules, state: &State, picture: Picture) -> Desk {
    let mut held = String::new();
    if let Some(t) = game.held_from {
        held.push_str(&format!(
            "HELD FOR YOUR REVIEW: the players have not seen turn {t} onwards.\nReply APPROVE to release the results, or AMEND to correct them first.\n\n"
        ));
    }
    let apart = picture == Picture::Png;
    // The side's board is not drawn when only its map travels.
    let unpictured;
    let rules = if apart {
        unpictured = rules.without_board();
        &unpictured
    } else {
        rules
    };
    let (mut desk, mut html_extra, mut labels) = (String::new(), String::new(), Vec::new());
    for side in rules.sides(state) {
        let p = rules.report_parts(state, &[], &Viewer::Side(side.clone()), None);
        let label = format!("WHAT {} SEES", side.to_uppercase());
        desk.push_str(&format!(
            "{label}\n{}\n{}\n",
            "=".repeat(label.len()),
            p.map
        ));
        if !apart {
            html_extra.push_str(&crate::report::html::labelled_board(&label, &p.board_html));
        }
        labels.push(label);
    }
    if !apart {
        return Desk {
            text: format!("{held}{desk}"),
            html: (!html_extra.is_empty()).then_some(html_extra),
            file: None,
        };
    }
    let where_ = wrap(
        &format!(
            "Each side's map as its player was shown it ({}) is in desk.txt, attached.",
            labels.join(", ")
        ),
        72,
    );
    Desk {
        text: format!("{held}{where_}"),
        html: None,
        file: Some((
            "desk.txt".into(),
            "text/plain; charset=utf-8".into(),
            desk.into_bytes(),
        )),
    }
}

/// `s` broken at spaces into lines of at most `width` characters.
fn wrap(s: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in s.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part_of(n: usize) -> Part {
        Part {
            out: Vec::new(),
            turns: Vec::new(),
            rows: Vec::new(),
            drawn: Vec::new(),
            ends: std::sync::Mutex::new((0, n)),
            abandoned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Two threads drawing a part from its two ends take every row once:
    /// the front's in order, the back's in reverse, none twice, none left.
    #[test]
    fn a_parts_rows_are_each_taken_once_from_either_end() {
        for n in [0, 1, 2, 3, 16, 1000] {
            let part = part_of(n);
            let (front, back) = std::thread::scope(|s| {
                let f =
                    s.spawn(|| std::iter::from_fn(|| part.take(End::Front)).collect::<Vec<_>>());
                let b = std::iter::from_fn(|| part.take(End::Back)).collect::<Vec<_>>();
                (f.join().unwrap(), b)
            });
            assert!(front.windows(2).all(|w| w[0] + 1 == w[1]), "{front:?}");
            assert!(back.windows(2).all(|w| w[0] == w[1] + 1), "{back:?}");
            let mut all: Vec<usize> = front.iter().chain(&back).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>());
        }
    }

    /// A part abandoned (the delivery stopped) gives no more rows to draw.
    #[test]
    fn an_abandoned_part_gives_no_more_rows() {
        let part = part_of(5);
        assert_eq!(part.take(End::Front), Some(0));
        assert_eq!(part.take(End::Back), Some(4));
        part.abandon();
        assert_eq!(part.take(End::Front), None);
        assert_eq!(part.take(End::Back), None);
    }
}
