//! Orders that answer a phase already resolved (issue 38). The order
//! template of every report and welcome mail writes a `TURN n` line, n the
//! judge's turn the orders are for; a mail that keeps it and arrives after
//! that turn was resolved (by the deadline, say) is refused with the
//! reason, never applied to the next phase. A mail without the line is
//! taken for the phase the game waits for, as before.

use super::{deadlines, Judge, ServiceError};
use crate::store::Connection;
use crate::store::{self, Game, Seat};

/// Why orders that say `TURN n` cannot be taken now; None when `n` is
/// the turn the game waits for.
pub(super) fn answered_turn_problem(
    conn: &Connection,
    seat: &Seat,
    n: u32,
) -> Result<Option<String>, ServiceError> {
    let game = store::game(conn, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
    let next = game.turn + 1;
    if n == next || game.status != "active" {
        return Ok(None);
    }
    if n > next || n == 0 {
        return Ok(Some(format!(
            "your orders say TURN {n}, but game {} waits for the orders of turn\n{next}; the order template of the judge's latest mail writes the line",
            game.id
        )));
    }
    let done = resolved_text(conn, &game, seat, n)?;
    Ok(Some(format!(
        "{done}.\nThese orders (TURN {n}) were not applied to turn {next}; send the orders\nfor turn {next} (the judge's latest mail has its template)"
    )))
}

/// How turn `n` of `game` was resolved, as `seat` is told: "the
/// artillery phase of turn 3 was resolved at the deadline (...), with
/// PASS for your side".
fn resolved_text(
    conn: &Connection,
    game: &Game,
    seat: &Seat,
    n: u32,
) -> Result<String, ServiceError> {
    let before = Judge::position_in(conn, game, Some(n.saturating_sub(1)))?;
    let phase = before.rules.phase(&before.state);
    let name = if phase.name.is_empty() || phase.name == "turn" {
        format!("turn {n}")
    } else {
        format!("the {} phase of turn {n}", phase.name)
    };
    let mine = store::first_submission(conn, game.id, n, &seat.side)?;
    Ok(match mine {
        Some((source, at)) if source == "nmr" => format!(
            "{name} was resolved at the deadline\n({}), with PASS for your side",
            deadlines::show(&at, &seat.tz)
        ),
        Some(_) => format!("{name} was resolved with the orders your side sent"),
        None => format!("{name} was resolved without orders from your side"),
    })
}

/// For a side whose orders came when it is not its turn: how the turn
/// just made treated it, when the deadline passed for it (a pass).
pub(super) fn late_note(
    conn: &Connection,
    game: &Game,
    seat: &Seat,
) -> Result<Option<String>, ServiceError> {
    if game.turn == 0 {
        return Ok(None);
    }
    let nmr = store::passed_at_deadline(conn, game.id, game.turn, &seat.side)?;
    if !nmr {
        return Ok(None);
    }
    Ok(Some(resolved_text(conn, game, seat, game.turn)?))
}
