//! Deadlines: reminders before, the NMR (no move received) policy after.
//!
//! Deadlines are instants (UTC in the database). A reminder goes out 24 real
//! hours before, whatever daylight-saving does to the wall clocks in between;
//! each player sees the instant in their own zone.

use super::clock::{stamp, Clock};
use super::{Judge, Position, Queue, ServiceError};
use crate::mail::outbound::Outgoing;
use crate::report::Templates;
use crate::rules::{Rules, State};
use crate::store::{self, Connection, Transaction};
use chrono::{DateTime, Duration, Utc};
use serde_json::json;

/// How long before a deadline the reminder goes out.
pub const REMINDER_BEFORE: i64 = 24 * 3600;

fn parse(at: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(at)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// An instant as a player in `tz` reads it, e.g. "Mon 26 Oct 2026 12:00 GMT
/// (12:00 UTC)".
#[must_use]
pub fn show(at: &str, tz: &str) -> String {
    let Some(t) = parse(at) else {
        return at.to_string();
    };
    let zone: chrono_tz::Tz = tz.parse().unwrap_or(chrono_tz::UTC);
    let local = t.with_timezone(&zone);
    if zone == chrono_tz::UTC {
        local.format("%a %d %b %Y %H:%M UTC").to_string()
    } else {
        format!(
            "{} ({} UTC)",
            local.format("%a %d %b %Y %H:%M %Z"),
            t.format("%H:%M")
        )
    }
}

/// The deadline that applies to a seat: the game's, moved to the end of the
/// seat's declared absence when it falls inside it.
#[must_use]
pub fn effective(deadline: DateTime<Utc>, seat: &store::Seat) -> DateTime<Utc> {
    match (
        seat.absent_from.as_deref().and_then(parse),
        seat.absent_until.as_deref().and_then(parse),
    ) {
        (Some(from), Some(until)) if from <= deadline && deadline < until => until,
        _ => deadline,
    }
}

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    pub reminders: usize,
    pub nmr: usize,
    /// Games whose deadlines could not be handled (each logged by number).
    pub failed: usize,
}

/// A seat the current phase waits for, and the deadline that applies to it.
struct Waited {
    seat: store::Seat,
    due: DateTime<Utc>,
}

/// The seats `state`'s phase waits for (none of whose orders are held),
/// each with its own deadline: one side's absence moves only its own.
fn waited(
    conn: &store::Connection,
    game: &store::Game,
    rules: &Rules,
    state: &State,
    deadline: DateTime<Utc>,
) -> Result<Vec<Waited>, ServiceError> {
    let phase = rules.phase(state);
    let held = store::pending(conn, game.id)?;
    Ok(store::seats(conn, game.id)?
        .into_iter()
        .filter(|s| phase.sides.contains(&s.side))
        .filter(|s| !held.iter().any(|p| p.side == s.side))
        .map(|s| Waited {
            due: effective(deadline, &s),
            seat: s,
        })
        .collect())
}

/// Who changed a game's clock, as the players are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockBy {
    Host,
    Referee,
}

impl ClockBy {
    fn name(self) -> &'static str {
        match self {
            ClockBy::Host => "the host",
            ClockBy::Referee => "the referee",
        }
    }
}

/// The deadlines use case: the clock of every game (reminders, the NMR
/// policy, pause, resume, extensions, absences). It reads and writes through
/// the database, tells the time by the judge's clock and renders the
/// reminder from the templates; a pass, a team's held parts, who is told and
/// the outbox are other use cases', reached through `judge`.
/// [`Judge::deadlines`] hands it out.
pub struct Deadlines<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    clock: &'a dyn Clock,
    templates: &'a Templates,
}

impl Judge {
    /// The deadlines use case, on this judge's database, clock and templates.
    #[must_use]
    pub fn deadlines(&self) -> Deadlines<'_> {
        Deadlines {
            judge: self,
            conn: &self.conn,
            clock: self.clock.as_ref(),
            templates: &self.templates,
        }
    }
}

impl Deadlines<'_> {
    /// Send due reminders and apply the NMR policy to games past their
    /// deadline. Each game is handled on its own: a fault in one is logged
    /// with its number and the others are still handled.
    pub fn tick(&self) -> Result<Tick, ServiceError> {
        let now = self.clock.now();
        let mut tick = Tick::default();
        for game in store::games_paged(self.conn)? {
            let game = game?;
            // Results held for the referee's review: no orders are taken,
            // so no deadline runs (APPROVE gives a full turn).
            if game.status != "active" || game.paused || game.held_from.is_some() {
                continue;
            }
            if let Err(e) = self.tick_game(&game, now, &mut tick) {
                tick.failed += 1;
                tracing::error!("deadlines: game {}: {e}", game.id);
            }
        }
        Ok(tick)
    }

    fn tick_game(
        &self,
        game: &store::Game,
        now: DateTime<Utc>,
        tick: &mut Tick,
    ) -> Result<(), ServiceError> {
        let Some(deadline) = game.deadline_at.as_deref().and_then(parse) else {
            return Ok(());
        };
        let Position { rules, state, .. } = Judge::position_in(self.conn, game, None)?;
        let seats = waited(self.conn, game, &rules, &state, deadline)?;
        let turn = i64::from(game.turn);
        self.remind(game, turn, &seats, now, tick)?;
        let grace = Duration::seconds(game.grace_secs);
        let mut missed = Vec::new();
        for w in seats {
            if now >= w.due + grace
                && !store::deadline_marked(
                    self.conn,
                    game.id,
                    &w.seat.side,
                    "miss",
                    turn,
                    &stamp(w.due),
                )?
            {
                missed.push(w);
            }
        }
        if missed.is_empty() {
            return Ok(());
        }
        // A team plays what it has held (service/team.rs).
        if self.judge.teams().team_at_deadline(game)? {
            tick.nmr += 1;
            return Ok(());
        }
        self.apply_nmr(game, &rules, &state, &missed, now, tick)
    }

    /// Remind each seat whose deadline is less than a day away, once per
    /// turn and deadline (an extension gets a fresh reminder).
    fn remind(
        &self,
        game: &store::Game,
        turn: i64,
        seats: &[Waited],
        now: DateTime<Utc>,
        tick: &mut Tick,
    ) -> Result<(), ServiceError> {
        let due: Vec<&Waited> = seats
            .iter()
            .filter(|w| now >= w.due - Duration::seconds(REMINDER_BEFORE) && now < w.due)
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        let tx = self.begin()?;
        for w in due {
            let at = stamp(w.due);
            let s = &w.seat;
            if !store::mark_deadline(&tx, game.id, &s.side, "reminder", turn, &at, &self.now())? {
                continue;
            }
            let mut q = Queue::new();
            // Every member of the side whose part is still missing (a
            // team's held parts: docs/teams.md), each in his zone.
            let sent: Vec<i64> = store::team::parts(&tx, game.id, &s.side)?
                .iter()
                .map(|p| p.seat_no)
                .collect();
            for m in self
                .judge
                .recipients()
                .members_of_side(&tx, game.id, &s.side)?
            {
                if matches!(&m.role, super::recipients::Role::Member { seat_no, .. } if sent.contains(seat_no))
                {
                    continue;
                }
                let tz = m.seat.as_ref().map_or(s.tz.as_str(), |m| m.tz.as_str());
                let text = self.templates.render(
                    "reminder.txt",
                    json!({"game_id": game.id, "scenario": game.scenario, "side": s.side,
                           "deadline": show(&at, tz)}),
                );
                q.push(
                    Outgoing {
                        to: m.email.clone(),
                        subject: format!("Game {}: your orders are due", game.id),
                        text,
                        reply_to: m.reply_to.clone(),
                        game_id: Some(game.id),
                        ..Outgoing::default()
                    },
                    "reminder",
                );
            }
            tick.reminders += 1;
            let cause = format!("game-{}-turn-{turn}-{}-reminder-{at}", game.id, s.side);
            self.judge.outbox().flush(&tx, &cause, q)?;
        }
        crate::store::commit(tx)?;
        Ok(())
    }

    fn apply_nmr(
        &self,
        game: &store::Game,
        rules: &Rules,
        state: &State,
        missed: &[Waited],
        now: DateTime<Utc>,
        tick: &mut Tick,
    ) -> Result<(), ServiceError> {
        let tx = self.begin()?;
        let mut q = Queue::new();
        let turn = i64::from(game.turn);
        let mut late = Vec::new();
        for w in missed {
            let s = &w.seat;
            if !store::mark_deadline(
                &tx,
                game.id,
                &s.side,
                "miss",
                turn,
                &stamp(w.due),
                &self.now(),
            )? {
                continue;
            }
            store::seats::add_miss(&tx, game.id, &s.side)?;
            late.push((w, s.misses + 1));
        }
        if late.is_empty() {
            return Ok(());
        }
        tick.nmr += 1;
        let mut passed = Vec::new();
        if game.nmr_policy == "pass" {
            let master = Judge::master(game)?;
            let ai = store::nmr_ai(&tx, game.id)?;
            for (w, _) in &late {
                // `--nmr ai`: the judge's general plays the side's turn.
                let general = ai
                    .then(|| {
                        adjutant_general::orders(rules, state, &w.seat.side, &master, game.turn)
                    })
                    .flatten();
                if let Some(orders) = general.or_else(|| rules.pass_orders(state, &w.seat.side)) {
                    // The last missing side's pass resolves the phase with
                    // the orders the others sent in time.
                    match self
                        .judge
                        .turns()
                        .submit_orders(&tx, &w.seat, &orders, "nmr", &mut q)
                    {
                        Ok(_) => passed.push(w.seat.side.clone()),
                        Err(e) => tracing::warn!(
                            "game {}: NMR pass for {} failed: {e}",
                            game.id,
                            w.seat.side
                        ),
                    }
                }
            }
        }
        // The deadline moves on first, so the notices can say when the
        // next one is (issue 51 item 12).
        self.move_on(&tx, game, now)?;
        let next = store::game(&tx, game.id)?
            .filter(|g| g.status == "active" && g.turn == game.turn)
            .and_then(|g| g.deadline_at);
        let mut notices = Queue::new();
        for (w, misses) in &late {
            let members = self
                .judge
                .recipients()
                .members_of_side(&tx, game.id, &w.seat.side)?;
            let passed = passed.contains(&w.seat.side);
            self.miss_notices(
                game,
                w,
                &members,
                *misses,
                (passed, next.as_deref().filter(|_| !passed)),
                &mut notices,
            );
        }
        // A pass that ended the game: the notices of the deadline come
        // before the report that says the game is over (and a campaign's
        // standings), not after it.
        if store::game(&tx, game.id)?.is_some_and(|g| g.status == "over") {
            notices.mails.append(&mut q.mails);
            q = notices;
        } else {
            q.mails.append(&mut notices.mails);
        }
        let what: Vec<String> = late
            .iter()
            .map(|(w, _)| format!("{}@{}", w.seat.side, stamp(w.due)))
            .collect();
        let cause = format!("game-{}-turn-{turn}-nmr-{}", game.id, what.join(","));
        self.judge.outbox().flush(&tx, &cause, q)?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// The mails of one seat's missed deadline: every member's of its side, and the
    /// referee's after `referee_after` misses in a row.
    fn miss_notices(
        &self,
        game: &store::Game,
        w: &Waited,
        members: &[super::recipients::Recipient],
        misses: i64,
        (passed, next): (bool, Option<&str>),
        q: &mut Queue,
    ) {
        let s = &w.seat;
        let what = if passed {
            "The judge played the side's standing orders (a pass) as the rules of this game say."
        } else {
            "The game waits for the orders; send them as soon as you can."
        };
        for m in members {
            let tz = m.seat.as_ref().map_or(s.tz.as_str(), |m| m.tz.as_str());
            let what = match next {
                Some(at) => format!("{what}\nThe next deadline is {}.", show(at, tz)),
                None => what.to_string(),
            };
            q.push(
                Outgoing {
                    to: m.email.clone(),
                    subject: format!("Game {}: the deadline passed without your orders", game.id),
                    text: format!(
                        "No orders from {} reached the judge by the deadline of game {}.\n{what}\nDeadlines missed in a row: {misses}.\n",
                        s.side, game.id
                    ),
                    reply_to: m.reply_to.clone(),
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "nmr",
            );
        }
        if let Some(referee) = game
            .referee
            .as_deref()
            .filter(|_| misses >= game.referee_after)
        {
            q.push(
                Outgoing {
                    to: referee.to_string(),
                    subject: format!(
                        "Game {}: {} missed {misses} deadline{}",
                        game.id,
                        s.side,
                        plural(misses)
                    ),
                    text: format!(
                        "{} ({}) has missed {misses} deadline{} in a row in game {}.\nThe last deadline was {}.\nYou may extend the deadline, pause the game, or replace the player.\n",
                        s.side,
                        s.email,
                        plural(misses),
                        game.id,
                        show(&stamp(w.due), &game.referee_tz)
                    ),
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "referee",
            );
        }
    }

    /// After missed deadlines, keep the game moving: when it still waits
    /// for the same phase, its deadline moves one turn length on from now
    /// under `wait`, and under `pass` when no seat it waits for has a
    /// deadline still to come (a side with no pass, a pass refused).
    fn move_on(
        &self,
        tx: &store::Transaction<'_>,
        game: &store::Game,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let Some(g) = store::game(tx, game.id)? else {
            return Ok(());
        };
        if g.turn != game.turn || g.status != "active" {
            return Ok(());
        }
        let Some(secs) = g.deadline_secs else {
            return Ok(());
        };
        let keep = match (
            g.nmr_policy.as_str(),
            g.deadline_at.as_deref().and_then(parse),
        ) {
            ("pass", Some(deadline)) => {
                let Position { rules, state, .. } = Judge::position_in(tx, &g, None)?;
                let grace = Duration::seconds(g.grace_secs);
                waited(tx, &g, &rules, &state, deadline)?
                    .iter()
                    .any(|w| w.due + grace > now)
            }
            _ => false,
        };
        if !keep {
            let next = stamp(now + Duration::seconds(secs));
            store::games::set_deadline(tx, game.id, Some(&next))?;
        }
        Ok(())
    }

    /// Pause or resume a game's clock (the host at the command line),
    /// telling everyone in the game; returns the new deadline.
    pub fn set_paused(
        &self,
        game_id: i64,
        paused: bool,
        by: ClockBy,
    ) -> Result<Option<String>, ServiceError> {
        let tx = self.begin()?;
        let mut q = Queue::new();
        let game = store::game(&tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let at = self.set_paused_in(&tx, &game, paused, by, &mut q)?;
        let what = if paused { "pause" } else { "resume" };
        let cause = format!(
            "game-{game_id}-{what}-{}-{}",
            self.now(),
            at.as_deref().unwrap_or("")
        );
        self.judge.outbox().flush(&tx, &cause, q)?;
        crate::store::commit(tx)?;
        Ok(at)
    }

    /// Pause or resume inside `tx`. A resume gives a full turn from now,
    /// plus what the deadline was extended by while paused. Pausing a
    /// paused game or resuming a running one is refused.
    pub(super) fn set_paused_in(
        &self,
        tx: &store::Transaction<'_>,
        game: &store::Game,
        paused: bool,
        by: ClockBy,
        q: &mut Queue,
    ) -> Result<Option<String>, ServiceError> {
        let id = game.id;
        if game.status != "active" {
            return Err(ServiceError::Invalid(format!("game {id} is over")));
        }
        if paused && game.paused {
            return Err(ServiceError::Invalid(format!(
                "game {id} is paused already"
            )));
        }
        if !paused && !game.paused {
            return Err(ServiceError::Invalid(format!(
                "game {id} is not paused: its clock is running"
            )));
        }
        if paused {
            store::games::pause(tx, id)?;
            self.clock_notices(tx, game, &ClockChange::Paused, by, q)?;
            return Ok(game.deadline_at.clone());
        }
        let before = store::games::paused_deadline(tx, id)?;
        let extra = match (
            before.as_deref().and_then(parse),
            game.deadline_at.as_deref().and_then(parse),
        ) {
            (Some(b), Some(d)) if d > b => d - b,
            _ => Duration::zero(),
        };
        let now = self.clock.now();
        let at = game
            .deadline_secs
            .map(|s| now + Duration::seconds(s) + extra)
            .or_else(|| {
                game.deadline_at
                    .as_deref()
                    .and_then(parse)
                    .filter(|d| *d > now)
            })
            .map(stamp);
        store::games::resume(tx, id, at.as_deref())?;
        self.clock_notices(tx, game, &ClockChange::Resumed(at.clone()), by, q)?;
        Ok(at)
    }

    /// Move the current deadline by `secs` (the host at the command line),
    /// telling everyone in the game; returns the new deadline.
    pub fn extend(&self, game_id: i64, secs: i64, by: ClockBy) -> Result<String, ServiceError> {
        let tx = self.begin()?;
        let mut q = Queue::new();
        let game = store::game(&tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let at = self.extend_in(&tx, &game, secs, by, &mut q)?;
        self.judge.outbox().flush(
            &tx,
            &format!("game-{game_id}-extend-{}-{at}", self.now()),
            q,
        )?;
        crate::store::commit(tx)?;
        Ok(at)
    }

    /// Extend inside `tx`. The deadline moves `secs` on; one already past
    /// (a running game) moves `secs` on from now, so it is in the future.
    pub(super) fn extend_in(
        &self,
        tx: &store::Transaction<'_>,
        game: &store::Game,
        secs: i64,
        by: ClockBy,
        q: &mut Queue,
    ) -> Result<String, ServiceError> {
        let id = game.id;
        if game.status != "active" {
            return Err(ServiceError::Invalid(format!("game {id} is over")));
        }
        let base = game
            .deadline_at
            .as_deref()
            .and_then(parse)
            .ok_or_else(|| ServiceError::Invalid(format!("game {id} has no deadline")))?;
        let now = self.clock.now();
        let mut at = base + Duration::seconds(secs);
        if !game.paused && at <= now {
            at = now + Duration::seconds(secs);
        }
        let at = stamp(at);
        store::games::set_deadline(tx, id, Some(&at))?;
        let change = ClockChange::Extended(at.clone(), secs, game.paused);
        self.clock_notices(tx, game, &change, by, q)?;
        Ok(at)
    }

    /// Tell every seat, team member, observer and the referee of a change
    /// to the game's clock, each deadline in the reader's own zone.
    fn clock_notices(
        &self,
        tx: &store::Transaction<'_>,
        game: &store::Game,
        change: &ClockChange,
        by: ClockBy,
        q: &mut Queue,
    ) -> Result<(), ServiceError> {
        let mut zones: Vec<(String, String)> = store::seats(tx, game.id)?
            .into_iter()
            .chain(self.judge.teams().extra_members(tx, game.id)?)
            .map(|s| (s.email.to_ascii_lowercase(), s.tz))
            .collect();
        let mut to = self.judge.referee().audience(tx, game)?;
        if let Some(r) = &game.referee {
            zones.push((r.to_ascii_lowercase(), game.referee_tz.clone()));
            to.push((r.clone(), None));
        }
        let mut seen: Vec<String> = Vec::new();
        for (email, reply_to) in to {
            let key = email.to_ascii_lowercase();
            if seen.contains(&key) {
                continue;
            }
            seen.push(key.clone());
            let tz = zones
                .iter()
                .find(|(e, _)| *e == key)
                .map_or("UTC", |(_, z)| z.as_str());
            let (subject, text) = change.text(game.id, by, tz);
            q.push(
                Outgoing {
                    to: email,
                    subject,
                    text,
                    reply_to,
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "clock",
            );
        }
        Ok(())
    }

    /// Record a seat's absence (from a mail's ABSENCE command): `days` is
    /// the number of days from its first date to its last, in the player's
    /// zone. An absence wholly past is refused.
    pub fn set_absence(
        &self,
        seat: &store::Seat,
        span: &AbsenceSpan,
        max_days: i64,
    ) -> Result<(), String> {
        if span.until <= span.from {
            return Err("the absence must end after it starts".into());
        }
        if span.days > max_days {
            return Err(format!(
                "this game allows absences of at most {max_days} days (this one is {})",
                span.days
            ));
        }
        if span.until <= self.clock.now() {
            return Err("that absence is over already".into());
        }
        store::seats::set_absence(
            self.conn,
            seat.game_id,
            &seat.side,
            &stamp(span.from),
            &stamp(span.until),
        )
        .map_err(|e| e.detail())?;
        Ok(())
    }

    /// End a seat's absence now (ABSENCE END); false when it had none to
    /// come or running.
    pub fn end_absence(&self, seat: &store::Seat) -> Result<bool, ServiceError> {
        let now = self.clock.now();
        let current = store::seats::absence(self.conn, seat.game_id, &seat.side)?;
        let running = current
            .1
            .as_deref()
            .and_then(parse)
            .is_some_and(|u| u > now);
        store::seats::clear_absence(self.conn, seat.game_id, &seat.side)?;
        Ok(running)
    }
    /// An IMMEDIATE transaction: it takes the write lock at once, so the
    /// daemon and a host's CLI never interleave a use case.
    fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    fn now(&self) -> String {
        stamp(self.clock.now())
    }
}

/// An ABSENCE as the player wrote it, read in the player's zone: from the
/// start of the first date to the end of the last; `days` is the last date
/// less the first (ABSENCE 2026-12-20 2027-01-03 is 14 days), whatever
/// daylight saving does in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsenceSpan {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub days: i64,
}

/// Read "2026-12-20" "2027-01-03" in zone `tz`.
pub fn absence_span(from: &str, to: &str, tz: &str) -> Result<AbsenceSpan, String> {
    use chrono::{NaiveDate, TimeZone};
    let zone: chrono_tz::Tz = tz.parse().unwrap_or(chrono_tz::UTC);
    let day = |s: &str| {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map_err(|_| format!("'{s}' is not a date like 2026-12-20"))
    };
    let (first, last) = (day(from)?, day(to)?);
    let start = first.and_hms_opt(0, 0, 0).ok_or("bad date")?;
    let end = last
        .succ_opt()
        .ok_or("bad date")?
        .and_hms_opt(0, 0, 0)
        .ok_or("bad date")?;
    let local = |t: chrono::NaiveDateTime| {
        zone.from_local_datetime(&t)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| "that time does not exist in your zone".to_string())
    };
    Ok(AbsenceSpan {
        from: local(start)?,
        until: local(end)?,
        days: (last - first).num_days(),
    })
}

/// A change to a game's clock, as told to everyone in the game.
enum ClockChange {
    Paused,
    /// The new deadline, if the game has one.
    Resumed(Option<String>),
    /// The new deadline, the extension in seconds, and whether the game
    /// is paused.
    Extended(String, i64, bool),
}

impl ClockChange {
    fn text(&self, game: i64, by: ClockBy, tz: &str) -> (String, String) {
        let who = by.name();
        match self {
            ClockChange::Paused => (
                format!("Game {game}: the clock is paused"),
                format!(
                    "{} paused the clock of game {game}: no deadline runs until it is\nresumed. Orders are still taken.\n",
                    capital(who)
                ),
            ),
            ClockChange::Resumed(at) => (
                format!("Game {game}: the clock runs again"),
                format!(
                    "{} resumed the clock of game {game}.\n{}",
                    capital(who),
                    at.as_deref().map_or_else(String::new, |at| format!(
                        "The next deadline is {}.\n",
                        show(at, tz)
                    ))
                ),
            ),
            ClockChange::Extended(at, secs, paused) => (
                format!("Game {game}: the deadline is extended"),
                format!(
                    "{} extended the deadline of game {game} by {}.\n{}",
                    capital(who),
                    duration_words(*secs),
                    if *paused {
                        "The game is paused: the extension is added to the deadline it gets\nwhen it resumes.\n".to_string()
                    } else {
                        format!("The deadline is now {}.\n", show(at, tz))
                    }
                ),
            ),
        }
    }
}

/// "1 day", "2 days", "36 hours".
fn duration_words(secs: i64) -> String {
    let words = super::human_duration(secs);
    match words.strip_prefix("1 ") {
        Some(unit) => format!("1 {}", unit.trim_end_matches('s')),
        None => words,
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// "s" after a count other than one.
fn plural(n: i64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_instant_in_three_zones_across_a_dst_change() {
        // 2026-10-26 12:00 UTC: London has left summer time (25 Oct), New York
        // has not (1 Nov), Sydney is in summer time (since 4 Oct).
        let at = "2026-10-26T12:00:00Z";
        assert_eq!(
            show(at, "Europe/London"),
            "Mon 26 Oct 2026 12:00 GMT (12:00 UTC)"
        );
        assert_eq!(
            show(at, "America/New_York"),
            "Mon 26 Oct 2026 08:00 EDT (12:00 UTC)"
        );
        assert_eq!(
            show(at, "Australia/Sydney"),
            "Mon 26 Oct 2026 23:00 AEDT (12:00 UTC)"
        );
        assert_eq!(show(at, "UTC"), "Mon 26 Oct 2026 12:00 UTC");
        // A day earlier London was still on BST.
        assert_eq!(
            show("2026-10-25T00:30:00Z", "Europe/London"),
            "Sun 25 Oct 2026 01:30 BST (00:30 UTC)"
        );
    }
}
