//! Revoking credentials (docs/security.md, "A stolen token or secret"):
//! every seat (a side's first seat, a team's Field Marshal) and the
//! referee's desk can be given a new secret and reply token, by the host
//! (`adjutant rotate-secret GAME SIDE [--member EMAIL]`, `rotate-secret
//! GAME referee`) or by its holder (`ROTATE` by mail). The old secret and
//! token stop working at once; the new ones are mailed to the registered
//! address only, never to whoever asked.

use super::seats::Seats;
use super::{Queue, ServiceError};
use crate::mail::outbound::Outgoing;
use crate::rules::REFEREE_SIDE;
use crate::store::Transaction;
use crate::store::{self, Referee, Seat};

impl Seats<'_> {
    /// `adjutant rotate-secret`: new credentials for a side's first seat,
    /// for the member of `side` at `member`, or (`who` = `referee`) for
    /// the referee; mailed to the holder. Returns the address mailed.
    pub fn rotate_secret(
        &self,
        game_id: i64,
        who: &str,
        member: Option<&str>,
    ) -> Result<String, ServiceError> {
        let tx = self.begin()?;
        let mut q = Queue::new();
        let (email, token) = if who.eq_ignore_ascii_case(REFEREE_SIDE) {
            let r = self.rotate_referee_in(&tx, game_id, &mut q)?;
            (r.email, r.token)
        } else {
            let seat = self.holder(&tx, game_id, who, member)?;
            let s = self.rotate_seat_in(&tx, &seat, &mut q)?;
            (s.email, s.token)
        };
        // The outbox key names this rekeying without carrying the token.
        let tag = {
            use sha2::Digest as _;
            hex::encode(&sha2::Sha256::digest(token.as_bytes())[..8])
        };
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-rotate-{tag}"), q)?;
        crate::store::commit(tx)?;
        Ok(email)
    }

    /// `adjutant replace-seat GAME referee EMAIL` (issue 51 item 7): the
    /// referee's desk handed to `email` with new credentials, welcomed like
    /// a new referee; the old referee is told, and the old secret and reply
    /// address stop at once.
    pub fn replace_referee(&self, game_id: i64, email: &str) -> Result<(), ServiceError> {
        if email.parse::<lettre::Address>().is_err() {
            return Err(ServiceError::Invalid(format!(
                "'{email}' is not an email address"
            )));
        }
        let email = email.to_ascii_lowercase();
        let tx = self.begin()?;
        let Some(old) = store::referee(&tx, game_id)? else {
            store::game(&tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
            return Err(ServiceError::Invalid(format!(
                "game {game_id} has no referee"
            )));
        };
        store::set_referee_email(&tx, game_id, &email)?;
        let new = store::rekey_referee(&tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let mut q = Queue::new();
        q.push(
            self.judge.referee().referee_welcome(&tx, game_id, &new)?,
            "welcome",
        );
        if !old.email.eq_ignore_ascii_case(&email) {
            q.push(
                Outgoing {
                    to: old.email.clone(),
                    subject: format!("Game {game_id}: you no longer referee it"),
                    text: format!(
                        "The host has handed the referee's seat of game {game_id} to another\nreferee. Your secret and reply address no longer carry it.\n"
                    ),
                    game_id: Some(game_id),
                    ..Outgoing::default()
                },
                "seat",
            );
        }
        let tag = {
            use sha2::Digest as _;
            hex::encode(&sha2::Sha256::digest(new.token.as_bytes())[..8])
        };
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-referee-{tag}"), q)?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// The seat of `side` held at `member` (the side's first seat when
    /// `member` is None or its address).
    fn holder(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        side: &str,
        member: Option<&str>,
    ) -> Result<Seat, ServiceError> {
        let first = self.seat_of(game_id, side)?;
        let Some(email) = member.filter(|e| !e.eq_ignore_ascii_case(&first.email)) else {
            return Ok(first);
        };
        let members = store::team::members(tx, game_id)?;
        if let Some(m) = members
            .iter()
            .find(|m| m.side == first.side && m.email.eq_ignore_ascii_case(email))
        {
            return Ok(m.seat());
        }
        let mut held = vec![first.email.clone()];
        held.extend(
            members
                .iter()
                .filter(|m| m.side == first.side)
                .map(|m| m.email.clone()),
        );
        Err(ServiceError::Invalid(format!(
            "nobody at {email} plays {} in game {game_id} (its players: {})",
            first.side,
            held.join(", ")
        )))
    }

    /// New secret and token for `seat` (a side's first seat or a team
    /// member's), mailed to its registered address; returns the seat with
    /// them.
    pub(super) fn rotate_seat_in(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        queue: &mut Queue,
    ) -> Result<Seat, ServiceError> {
        let new = match store::team::member_by_token(tx, &seat.token)? {
            Some(m) => {
                store::team::replace_member(tx, m.game_id, &m.side, m.seat_no, &m.email)?.seat()
            }
            None => store::rekey_seat(tx, seat.game_id, &seat.side, true)?,
        };
        let (game_id, side) = (new.game_id, &new.side);
        queue.push(
            Outgoing {
                to: new.email.clone(),
                subject: format!("Game {game_id}: your seat ({side}) has a new secret"),
                text: format!(
                    "You play {side} in game {game_id}.\nYour new secret: {}\nYour old secret and the reply address of earlier mails no longer\ncarry your seat: reply to this mail.\nSend MAP for the position.\n",
                    new.secret
                ),
                reply_to: Some(self.judge.seat_address(&new)),
                game_id: Some(game_id),
                ..Outgoing::default()
            },
            "seat",
        );
        Ok(new)
    }

    /// New secret and token for a game's referee, mailed to the referee's
    /// registered address; returns the referee with them.
    pub(super) fn rotate_referee_in(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        queue: &mut Queue,
    ) -> Result<Referee, ServiceError> {
        let Some(r) = store::rekey_referee(tx, game_id)? else {
            store::game(tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
            return Err(ServiceError::Invalid(format!(
                "game {game_id} has no referee"
            )));
        };
        queue.push(
            Outgoing {
                to: r.email.clone(),
                subject: format!("Game {game_id}: your referee seat has a new secret"),
                text: format!(
                    "You referee game {game_id}.\nYour new secret: {}\nYour old secret and the reply address of earlier mails no longer\ncarry the referee's seat: reply to this mail.\n",
                    r.secret
                ),
                reply_to: Some(self.judge.address_of(&r.token)),
                game_id: Some(game_id),
                ..Outgoing::default()
            },
            "seat",
        );
        Ok(r)
    }
}

impl Seats<'_> {
    /// Why a mail's GAME or PASSWORD line contradicts its reply address
    /// (issue 51 item 4, issue 59 item 3): a reply to game 1's mail that
    /// says `GAME 2`, or carries a secret that is not the address's seat's
    /// (Bob's own PASSWORD sent to Alice's address). The mail is not used:
    /// either credential could be the mistake, and guessing would play
    /// one game's or seat's orders in another.
    pub(super) fn contradiction(
        &self,
        env: &crate::mail::parse::Envelope,
        req: &crate::protocol::Request,
    ) -> Result<Option<String>, ServiceError> {
        if req.game.is_none() && req.password.is_none() {
            return Ok(None);
        }
        let Some((game, secret)) = self.address_credential(env)? else {
            return Ok(None);
        };
        let refused = "So none of it was used: reply to a mail of the game and seat you\nmean, or send GAME and PASSWORD from a fresh mail to the judge's own\naddress.";
        if let Some(named) = req.game.filter(|g| *g != game) {
            return Ok(Some(format!(
                "This mail went to a reply address of game {game}, but its GAME line\nnames game {named}. {refused}"
            )));
        }
        if let Some(pw) = req.password.as_deref() {
            if pw.to_ascii_lowercase() != secret {
                return Ok(Some(format!(
                    "This mail went to a reply address of game {game}, but its PASSWORD line\nis not the secret of the seat that address is for. {refused}"
                )));
            }
        }
        Ok(None)
    }

    /// The game and secret of the seat, team member or referee desk whose
    /// reply token the mail was sent to, if any.
    fn address_credential(
        &self,
        env: &crate::mail::parse::Envelope,
    ) -> Result<Option<(i64, String)>, ServiceError> {
        for to in &env.to {
            let Some(tok) = crate::protocol::token_of(to, self.cfg.local_part(), self.cfg.domain())
            else {
                continue;
            };
            if let Some(r) = store::referee_by_token(self.conn, &tok)? {
                return Ok(Some((r.game_id, r.secret)));
            }
            if let Some(s) = store::seat_by_token(self.conn, &tok)? {
                return Ok(Some((s.game_id, s.secret)));
            }
            if let Some(s) = self.judge.teams().member_by_token(&tok)? {
                return Ok(Some((s.game_id, s.secret)));
            }
        }
        Ok(None)
    }
}
