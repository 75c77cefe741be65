//! PREDICT (docs/orders.md): a seat's orders answered with their odds and
//! not submitted. The service knows nothing of dice: the family computes
//! the odds behind the rules interface (`Rules::predict`); a family without
//! them answers that PREDICT is not available. Nothing is stored but the
//! answer and the inbox log's line; no die of the game is drawn.

use super::clock::{stamp, Clock};
use super::{sight, Answer, Judge, Position, ServiceError};
use crate::protocol::Request;
use crate::rules::Viewer;
use crate::store::{self, Seat};
use crate::store::{Connection, Transaction};

/// At most this many PREDICT answers per seat in 24 hours (the mails over
/// it get a short error answer, itself under the error answers' cap).
pub const PREDICT_ANSWERS_PER_SEAT_DAY: i64 = 20;

/// The inbox log's outcome of an answered PREDICT (its detail names the
/// seat, which is how the cap counts them).
const OUTCOME: &str = "answered: predict";

/// The PREDICT use case: it reads the database and tells the time by the
/// judge's clock (the answers' cap); the seat's reply address and the error
/// answers' wording are reached through `judge`. [`Judge::predict`] hands
/// it out.
pub struct Predict<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    clock: &'a dyn Clock,
}

impl Judge {
    /// The PREDICT use case, on this judge's database and clock.
    #[must_use]
    pub fn predict(&self) -> Predict<'_> {
        Predict {
            judge: self,
            conn: &self.conn,
            clock: self.clock.as_ref(),
        }
    }
}

impl Predict<'_> {
    /// PREDICT for an authenticated seat: the odds of the mail's orders as
    /// the answer, nothing submitted. Returns the inbox log's outcome.
    pub(super) fn predict_mail(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        req: &Request,
        answer: &mut Answer,
    ) -> Result<(String, String), ServiceError> {
        answer.for_seat(self.judge.seat_address(seat), seat);
        let detail = seat_detail(seat);
        let since = stamp(self.clock.now() - chrono::Duration::days(1));
        let done = store::outcomes_since(tx, OUTCOME, &detail, &since)?;
        if done >= PREDICT_ANSWERS_PER_SEAT_DAY {
            answer.err(self.judge.inbound().error_text(
                &format!(
                    "This judge answers at most {PREDICT_ANSWERS_PER_SEAT_DAY} PREDICT mails a day for one seat,\nand game {} ({}) has had that many. Your orders were not used.",
                    seat.game_id, seat.side
                ),
                &[],
                "",
            ));
            return Ok(("answered: predict cap reached".into(), detail));
        }
        if !req.has_orders {
            answer.err(self.judge.inbound().error_text(
                "PREDICT needs the orders to reckon, on the lines after it.",
                &[],
                "Nothing was submitted.",
            ));
            return Ok(("answered: predict without orders".into(), detail));
        }
        match self.predict_text(seat.game_id, &seat.side, &req.orders)? {
            Ok(text) => {
                answer.titled(
                    &format!("Game {} ({}): PREDICT", seat.game_id, seat.side),
                    format!(
                        "{text}\nNothing was submitted: send the orders without PREDICT to play them.\n"
                    ),
                );
                Ok((OUTCOME.into(), detail))
            }
            Err(why) => {
                answer.err(self.judge.inbound().error_text(
                    &format!(
                        "Your orders for game {} ({}) could not be reckoned:",
                        seat.game_id, seat.side
                    ),
                    std::slice::from_ref(&why),
                    "They would be refused as a submission too. Nothing was submitted.",
                ));
                Ok(("answered: predict refused".into(), why))
            }
        }
    }

    /// The PREDICT answer for `side` of game `game_id` (the CLI's `predict`
    /// too): Ok(text), or Err(why the orders cannot be used), as the side
    /// may see the game.
    pub fn predict_text(
        &self,
        game_id: i64,
        side: &str,
        orders: &str,
    ) -> Result<Result<String, String>, ServiceError> {
        let game = store::game(self.conn, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let viewer = Viewer::Side(side.to_string());
        if sight::holds_back(&game, &viewer) {
            return Ok(Err(sight::held_line(&game)));
        }
        let Position { rules, state, .. } = Judge::position_in(self.conn, &game, None)?;
        Ok(rules
            .predict(&state, side, orders)
            .map_err(|r| r.to_string()))
    }
}

/// How the inbox log names a seat's PREDICT (the cap's key).
fn seat_detail(seat: &Seat) -> String {
    format!("game {} side {}", seat.game_id, seat.side)
}
