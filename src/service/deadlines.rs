//! Deadlines: reminders before, the NMR (no move received) policy after.
//!
//! Deadlines are instants (UTC in the database). A reminder goes out 24 real
//! hours before, whatever daylight-saving does to the wall clocks in between;
//! each player sees the instant in their own zone.

use super::clock::stamp;
use super::{Judge, Position, Queue, ServiceError};
use crate::mail::outbound::Outgoing;
use crate::rules::{Rules, State};
use crate::store;
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
}

impl Judge {
    /// Send due reminders and apply the NMR policy to games past their deadline.
    pub fn tick(&mut self) -> Result<Tick, ServiceError> {
        let now = self.clock.now();
        let mut tick = Tick::default();
        for game in store::games(&self.conn)? {
            // Results held for the referee's review: no orders are taken,
            // so no deadline runs (APPROVE gives a full turn).
            if game.status != "active" || game.paused || game.held_from.is_some() {
                continue;
            }
            let Some(deadline) = game.deadline_at.as_deref().and_then(parse) else {
                continue;
            };
            let Position { rules, state, .. } = self.position(&game, None)?;
            let waiting = rules.phase(&state);
            // Sides whose orders are held for this phase are not late.
            let held = store::pending(&self.conn, game.id)?;
            let seats: Vec<store::Seat> = store::seats(&self.conn, game.id)?
                .into_iter()
                .filter(|s| waiting.sides.contains(&s.side))
                .filter(|s| !held.iter().any(|p| p.side == s.side))
                .collect();
            if seats.is_empty() {
                continue;
            }
            // The latest effective deadline among the seats waited for.
            let due = seats
                .iter()
                .map(|s| effective(deadline, s))
                .max()
                .unwrap_or(deadline);
            let turn = i64::from(game.turn);
            if game.reminded_turn < turn
                && now >= due - Duration::seconds(REMINDER_BEFORE)
                && now < due
            {
                let tx = self.begin()?;
                let mut q = Queue::new();
                for s in &seats {
                    // Every member of the side (docs/teams.md), each in his zone.
                    for m in self.members_of_side(&tx, game.id, &s.side)? {
                        let tz = m.seat.as_ref().map_or(s.tz.as_str(), |m| m.tz.as_str());
                        let text = self.templates.render(
                            "reminder.txt",
                            json!({"game_id": game.id, "scenario": game.scenario, "side": s.side,
                                   "deadline": show(&stamp(effective(deadline, s)), tz)}),
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
                }
                tx.prepare_cached("UPDATE games SET reminded_turn = ?2 WHERE id = ?1")?
                    .execute(rusqlite::params![game.id, turn])?;
                self.flush(&tx, &format!("game-{}-turn-{turn}-reminder", game.id), q)?;
                tx.commit()?;
            }
            if game.nmr_turn < turn && now >= due + Duration::seconds(game.grace_secs) {
                // A team plays what it has held (service/team.rs).
                if self.team_at_deadline(&game)? {
                    tick.nmr += 1;
                    continue;
                }
                self.apply_nmr(&game, &rules, &state, &seats, &mut tick)?;
            }
        }
        Ok(tick)
    }

    fn apply_nmr(
        &mut self,
        game: &store::Game,
        rules: &Rules,
        state: &State,
        seats: &[store::Seat],
        tick: &mut Tick,
    ) -> Result<(), ServiceError> {
        let tx = self.begin()?;
        let mut q = Queue::new();
        let turn = i64::from(game.turn);
        tx.prepare_cached("UPDATE games SET nmr_turn = ?2 WHERE id = ?1")?
            .execute(rusqlite::params![game.id, turn])?;
        let mut late = Vec::new();
        for s in seats {
            tx.prepare_cached(
                "UPDATE seats SET misses = misses + 1 WHERE game_id = ?1 AND side = ?2",
            )?
            .execute(rusqlite::params![game.id, s.side])?;
            late.push((s.clone(), s.misses + 1));
        }
        tick.nmr += 1;
        let mut passed = Vec::new();
        if game.nmr_policy == "pass" {
            for (s, _) in &late {
                if let Some(orders) = rules.pass_orders(state, &s.side) {
                    // The last missing side's pass resolves the phase with
                    // the orders the others sent in time.
                    match self.submit_orders(&tx, s, &orders, "nmr", &mut q) {
                        Ok(_) => passed.push(s.side.clone()),
                        Err(e) => {
                            tracing::warn!("game {}: NMR pass for {} failed: {e}", game.id, s.side)
                        }
                    }
                }
            }
        }
        for (s, misses) in &late {
            let what = if passed.contains(&s.side) {
                "The judge played the side's standing orders (a pass) as the rules of this game say."
            } else {
                "The game waits for the orders; send them as soon as you can."
            };
            for m in self.members_of_side(&tx, game.id, &s.side)? {
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
                .filter(|_| *misses >= game.referee_after)
            {
                q.push(
                    Outgoing {
                        to: referee.to_string(),
                        subject: format!("Game {}: {} missed {misses} deadlines", game.id, s.side),
                        text: format!(
                            "{} ({}) has missed {misses} deadlines in a row in game {}.\nThe last deadline was {}.\nYou may extend the deadline, pause the game, or replace the player.\n",
                            s.side,
                            s.email,
                            game.id,
                            show(game.deadline_at.as_deref().unwrap_or(""), &game.referee_tz)
                        ),
                        game_id: Some(game.id),
                        ..Outgoing::default()
                    },
                    "referee",
                );
            }
        }
        if passed.is_empty() && game.nmr_policy == "wait" {
            // Keep waiting: the next deadline is one turn length from now.
            if let Some(secs) = game.deadline_secs {
                let next = stamp(self.clock.now() + Duration::seconds(secs));
                tx.prepare_cached("UPDATE games SET deadline_at = ?2 WHERE id = ?1")?
                    .execute(rusqlite::params![game.id, next])?;
            }
        }
        self.flush(&tx, &format!("game-{}-turn-{turn}-nmr", game.id), q)?;
        tx.commit()?;
        Ok(())
    }

    /// Pause or resume a game's clock. Resuming gives a full turn's time.
    pub fn set_paused(&self, game_id: i64, paused: bool) -> Result<(), ServiceError> {
        let game = self.game(game_id)?;
        let deadline = (!paused)
            .then_some(game.deadline_secs)
            .flatten()
            .map(|s| stamp(self.clock.now() + Duration::seconds(s)))
            .or(game.deadline_at);
        self.conn
            .prepare_cached("UPDATE games SET paused = ?2, deadline_at = ?3 WHERE id = ?1")?
            .execute(rusqlite::params![game_id, paused, deadline])?;
        Ok(())
    }

    /// Move the current deadline by `secs`; returns the new deadline.
    pub fn extend(&self, game_id: i64, secs: i64) -> Result<String, ServiceError> {
        let game = self.game(game_id)?;
        let base = game
            .deadline_at
            .as_deref()
            .and_then(parse)
            .ok_or_else(|| ServiceError::Invalid(format!("game {game_id} has no deadline")))?;
        let at = stamp(base + Duration::seconds(secs));
        self.conn
            .prepare_cached("UPDATE games SET deadline_at = ?2, reminded_turn = -1 WHERE id = ?1")?
            .execute(rusqlite::params![game_id, at])?;
        Ok(at)
    }

    /// Record a seat's absence (from a mail's ABSENCE command).
    pub fn set_absence(
        &self,
        seat: &store::Seat,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
        max_days: i64,
    ) -> Result<(), String> {
        if until <= from {
            return Err("the absence must end after it starts".into());
        }
        if until - from > Duration::days(max_days) {
            return Err(format!(
                "this game allows absences of at most {max_days} days"
            ));
        }
        self.conn
            .prepare_cached("UPDATE seats SET absent_from = ?3, absent_until = ?4 WHERE game_id = ?1 AND side = ?2")
            .and_then(|mut st| st.execute(rusqlite::params![seat.game_id, seat.side, stamp(from), stamp(until)]))
            .map_err(|e| e.to_string())?;
        Ok(())
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
