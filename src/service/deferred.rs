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

use super::{Judge, MadeTurn, Position, ServiceError};
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
    key: (i64, u32, u32),
    game: Game,
    rules: Rules,
    state: State,
    made: Vec<MadeTurn>,
}

impl Loaded {
    fn load(conn: &Connection, job: &ReportJob) -> Result<Loaded, ServiceError> {
        crate::fault::point("report-load", job.game);
        let game = store::game(conn, job.game)?.ok_or(ServiceError::NoGame(job.game))?;
        let Position {
            rules, state, hash, ..
        } = position_handed(conn, &game, job.last)?;
        let mut made = Vec::new();
        for turn in job.first..=job.last {
            let hash = if turn == job.last {
                hash.clone()
            } else {
                store::snapshot(conn, game.id, Some(turn))?
                    .map(|(_, _, h)| h)
                    .unwrap_or_default()
            };
            made.push(MadeTurn {
                turn,
                movers: store::movers(conn, game.id, turn)?,
                events: store::events(conn, game.id, Some(turn))?
                    .into_iter()
                    .map(|(_, e)| rules.event_from_store(e))
                    .collect(),
                hash,
            });
        }
        Ok(Loaded {
            key: (job.game, job.first, job.last),
            game,
            rules,
            state,
            made,
        })
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

/// A turn's last position as the thread that made the turn stored it
/// (numbered as [`Judge::position_in`] numbers it), waiting in memory for
/// its reports' rendering in the same process.
struct Handed {
    db: String,
    game: i64,
    turn: u32,
    hash: String,
    state: State,
    /// The length of its stored JSON: what it weighs, roughly.
    weight: usize,
}

/// At most this many positions wait to be rendered, of at most this much
/// stored JSON together (a few times that in memory); a renderer further
/// behind reads the older ones back from the database, as it always could.
const HANDED_MAX: usize = 16;
const HANDED_WEIGHT: usize = 64 * 1024;

/// The positions handed across, oldest first (a few dozen at most: a
/// list, searched from the newest).
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

/// Keeps `state`, just stored as turn `turn` of game `game` with the hash
/// `hash`, for [`Loaded::load`]. Taken only by a renderer that reads
/// that same hash from the database's snapshot of that turn: a position
/// whose transaction rolled back is never found (its hash is not in the
/// database), or is the same position again.
pub(super) fn hand_over(
    conn: &Connection,
    game: i64,
    turn: u32,
    hash: &str,
    state: State,
    weight: usize,
) {
    let Some(db) = db_of(conn) else { return };
    if weight > HANDED_WEIGHT / 8 {
        return; // a giant's position is read back
    }
    let mut list = handed();
    let mut total: usize = list.iter().map(|h| h.weight).sum::<usize>() + weight;
    while list.len() >= HANDED_MAX || total > HANDED_WEIGHT {
        let Some(old) = list.pop_front() else { break };
        total -= old.weight;
    }
    list.push_back(Handed {
        db: db.to_string(),
        game,
        turn,
        hash: hash.to_string(),
        state,
        weight,
    });
}

/// The position of turn `turn` of `game`: handed across in memory if the
/// snapshot the database holds is the one handed over, else read back
/// and parsed.
fn position_handed(conn: &Connection, game: &Game, turn: u32) -> Result<Position, ServiceError> {
    if let (Some(db), Some((t, hash))) = (db_of(conn), store::snapshot_hash(conn, game.id, turn)?) {
        let found = {
            let mut list = handed();
            list.iter()
                .rposition(|h| h.game == game.id && h.turn == t && h.hash == hash && h.db == db)
                .and_then(|at| list.remove(at))
        };
        if let Some(h) = found {
            let rules = Rules::of_game(&game.ruleset, game.ruleset_text.as_deref())?;
            return Ok(Position {
                rules,
                turn: t,
                state: h.state,
                hash,
            });
        }
    }
    Judge::position_in(conn, game, Some(turn))
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
    /// and says, for each row, whether it could be. Each turn's position
    /// is read once for all its recipients; the reports are drawn on two
    /// threads (`par_map`: a report is a pure function of its inputs).
    pub fn render_page(
        &self,
        conn: &Connection,
        page: &mut [store::OutMail],
    ) -> Vec<Result<(), ServiceError>> {
        let mut out: Vec<Result<(), ServiceError>> = Vec::with_capacity(page.len());
        let mut loaded: Vec<Loaded> = Vec::new();
        // (row, job, which of `loaded`) for every row to render.
        let mut todo: Vec<(usize, Stored, usize)> = Vec::new();
        for (i, m) in page.iter().enumerate() {
            let Some(json) = m.raw.strip_prefix(store::JOB) else {
                out.push(Ok(()));
                continue;
            };
            let r = read_job(json).and_then(|s| {
                let key = (s.report.game, s.report.first, s.report.last);
                let at = match loaded.iter().position(|l| l.key == key) {
                    Some(at) => at,
                    None => {
                        // A bug in loading a game's history is this row's
                        // failure, not the delivery's (nor the daemon's).
                        let l = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            Loaded::load(conn, &s.report)
                        }))
                        .unwrap_or_else(|_| {
                            Err(ServiceError::Invalid(
                                "internal error (a bug) loading the game for its report".into(),
                            ))
                        })?;
                        loaded.push(l);
                        loaded.len() - 1
                    }
                };
                todo.push((i, s, at));
                Ok(())
            });
            out.push(r);
        }
        let templates = self.templates;
        let (loaded, rows) = (&loaded, &*page);
        let drawn = super::par_map(&todo, |(i, s, at)| {
            // A bug in a family's report is this row's failure, not the
            // delivery's.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                loaded[*at].mail(templates, &rows[*i].message_id, s)
            }))
            .unwrap_or_else(|_| Err(ServiceError::Invalid("internal error (a bug)".into())))
        });
        for ((i, ..), raw) in todo.iter().zip(drawn) {
            match raw {
                Ok(raw) => page[*i].raw = raw,
                Err(e) => out[*i] = Err(e),
            }
        }
        out
    }
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
    super::show_board(&mut m, &parts, &heading, picture);
    if let Some(file) = desk_file {
        m.attachments.insert(0, file);
    }
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
