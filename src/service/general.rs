//! Seats the judge plays (issue 58, docs/general.md): a practice opponent
//! (`new-game --ai SIDE`), a caretaker for a dropped player
//! (`replace-seat GAME SIDE --ai`) and the `ai` NMR policy.
//!
//! A seat the judge plays has the address [`JUDGE_SEAT`] (as an open seat
//! has `open`): it gets no mail, and whenever a phase waits for it the judge
//! decides its orders with `adjutant-general` from what the side may know and
//! submits them through the same path as a player's (`submit_orders`), in
//! the transaction that brought the phase: recorded as submissions with the
//! source `ai`, so `verify` replays them like any other orders.

use super::{Judge, Position, Queue, ServiceError};
use crate::store;
use crate::store::Transaction;

/// The address of a seat the judge plays.
pub const JUDGE_SEAT: &str = "judge";

/// The most phases the judge plays for its seats in one transaction (a
/// game of two judge-played seats ends long before; the bound keeps a
/// family that never ends from holding the lock).
const MOST_PHASES: usize = 2000;

impl Judge {
    /// Play every phase of `game_id` that waits for a seat the judge plays,
    /// until the game waits for a person (or is over, or held for review).
    /// Returns how many orders the judge gave.
    pub(super) fn judge_plays(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        queue: &mut Queue,
    ) -> Result<usize, ServiceError> {
        let mut given = 0;
        for _ in 0..MOST_PHASES {
            let Some(game) = store::game(tx, game_id)? else {
                break;
            };
            if game.status != "active" || game.held_from.is_some() {
                break;
            }
            let seats = store::seats(tx, game_id)?;
            if !seats.iter().any(|s| s.email == JUDGE_SEAT) {
                break;
            }
            let Position { rules, state, .. } = Self::position_in(tx, &game, None)?;
            let held = store::pending(tx, game_id)?;
            let master = Self::master(&game)?;
            let mut played = false;
            for side in rules.phase(&state).sides {
                let Some(seat) = seats
                    .iter()
                    .find(|s| s.side == side && s.email == JUDGE_SEAT)
                else {
                    continue;
                };
                if held.iter().any(|p| p.side == side) {
                    continue;
                }
                let orders = adjutant_general::orders(&rules, &state, &side, &master, game.turn)
                    .or_else(|| rules.pass_orders(&state, &side))
                    .unwrap_or_default();
                self.turns().submit_orders(tx, seat, &orders, "ai", queue)?;
                given += 1;
                played = true;
                // The phase may have been resolved: read the game again.
                break;
            }
            if !played {
                break;
            }
        }
        Ok(given)
    }

    /// The line a mail of a game carries when the judge plays a seat of it
    /// (empty when it plays none).
    pub(super) fn judge_plays_line(
        &self,
        conn: &crate::store::Connection,
        game_id: i64,
    ) -> Result<String, ServiceError> {
        let sides: Vec<String> = store::seats(conn, game_id)?
            .into_iter()
            .filter(|s| s.email == JUDGE_SEAT)
            .map(|s| s.side)
            .collect();
        Ok(if sides.is_empty() {
            String::new()
        } else {
            judge_plays_text(&sides)
        })
    }
}

/// The line naming the sides the judge plays, in the welcome, every turn
/// report and the game-over mail (issue 53): "The judge itself plays
/// french in this game." (players have the mails, not the distribution's
/// docs/).
pub(super) fn judge_plays_text(sides: &[String]) -> String {
    format!(
        "\nThe judge itself plays {} in this game.\n",
        sides.join(" and ")
    )
}
