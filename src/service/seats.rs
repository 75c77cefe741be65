//! Seats and their end: JOIN, DRAW, RESIGN, the end of a game, and the
//! host's replacing of a seat or a team member.

#[allow(clippy::wildcard_imports)]
use super::*;

/// An attached file: (name, MIME type, bytes).
type File = (String, String, Vec<u8>);

/// The seats use case: JOIN, DRAW, RESIGN, the end of a game, the host's
/// replacing of a seat, a member or the referee, and the seats' credentials
/// (ROTATE, the contradiction check: credentials.rs). It reads and writes
/// the database, reads the host's address from the config, tells the time
/// by the judge's clock and renders the game-over mail from the templates;
/// a welcome, who is told, the judge's own seats, a campaign's next battle
/// and the outbox are other use cases', reached through `judge`.
/// [`Judge::seats`] hands it out. Its fields are the service's, for
/// credentials.rs's half of the use case.
pub struct Seats<'a> {
    pub(super) judge: &'a Judge,
    pub(super) conn: &'a Connection,
    pub(super) cfg: &'a Config,
    pub(super) clock: &'a dyn Clock,
    pub(super) templates: &'a Templates,
}

impl Judge {
    /// The seats use case, on this judge's database, config, clock and
    /// templates.
    #[must_use]
    pub fn seats(&self) -> Seats<'_> {
        Seats {
            judge: self,
            conn: &self.conn,
            cfg: &self.cfg,
            clock: self.clock.as_ref(),
            templates: &self.templates,
        }
    }
}

impl Seats<'_> {
    /// Take an open seat of a game for `email`: Ok(side) or Err(why).
    pub(super) fn join(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        email: &str,
        queue: &mut Queue,
    ) -> Result<Result<String, String>, ServiceError> {
        let Some(game) = store::game(tx, game_id)? else {
            return Ok(Err("there is no such game".into()));
        };
        if game.status != "active" {
            return Ok(Err("the game is over".into()));
        }
        let seats = store::seats(tx, game_id)?;
        if seats.iter().any(|s| s.email.eq_ignore_ascii_case(email)) {
            return Ok(Err("you already have a seat in it".into()));
        }
        let Some(seat) = seats.into_iter().find(|s| s.email == OPEN_SEAT) else {
            return Ok(Err("it has no open seat".into()));
        };
        store::seats::set_email(tx, game_id, &seat.side, email)?;
        let seat = Seat {
            email: email.to_string(),
            ..seat
        };
        queue.push(self.judge.turns().welcome(tx, game_id, &seat)?, "welcome");
        Ok(Ok(seat.side))
    }

    /// Why a RESIGN or DRAW cannot be done: its game is over already (an
    /// answer, never silence: issue 51).
    pub(super) fn ended_already(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        cmd: &crate::protocol::Command,
    ) -> Result<Option<String>, ServiceError> {
        let game = store::game(tx, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
        if game.status != "over" {
            return Ok(None);
        }
        let what = match cmd {
            crate::protocol::Command::Draw => "no draw to offer or accept",
            _ => "nothing to resign",
        };
        let viewer = crate::rules::Viewer::Side(seat.side.clone());
        if super::sight::holds_back(&game, &viewer) {
            // The ending is the referee's to release: say no more than MAP.
            return Ok(Some(format!(
                "{}\nYour {} was not done.",
                super::sight::held_line(&game),
                format!("{cmd:?}").to_uppercase()
            )));
        }
        Ok(Some(format!(
            "Game {} is over: {} There is {what}.",
            game.id,
            super::result_line(game.result.as_deref())
        )))
    }

    /// Offer a draw, or accept the other side's offer.
    pub(super) fn draw(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let game = store::game(tx, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
        if game.status == "over" {
            return Ok(());
        }
        let key = format!("draw-offer:{}", game.id);
        match store::kv_get(tx, &key)? {
            Some(by) if by != seat.side => {
                let result = format!(
                    "{} accepted the draw {by} offered: it is a draw.",
                    seat.side
                );
                let ending = export::Ending {
                    kind: export::DRAW_AGREED.into(),
                    side: seat.side.clone(),
                    offered_by: Some(by.clone()),
                    turn: game.turn,
                };
                self.end_game(tx, &game, &ending, "", &result, queue)?;
            }
            _ => {
                store::kv_set(tx, &key, &seat.side)?;
                // Every member of the other sides is told.
                for r in self
                    .judge
                    .recipients()
                    .everyone_of_game(tx, game.id)?
                    .into_iter()
                    .filter(|r| r.is_player() && !r.of_side(&seat.side))
                {
                    queue.push(
                        Outgoing {
                            to: r.email.clone(),
                            subject: format!("Game {}: {} offers a draw", game.id, seat.side),
                            text: format!(
                                "{} offers a draw in game {}. Reply DRAW to accept; the offer\nstands until the game ends.\n",
                                seat.side, game.id
                            ),
                            reply_to: r.reply_to.clone(),
                            game_id: Some(game.id),
                            ..Outgoing::default()
                        },
                        "draw",
                    );
                }
            }
        }
        Ok(())
    }

    pub(super) fn resign(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let game = store::game(tx, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
        if game.status == "over" {
            return Ok(());
        }
        let seats = store::seats(tx, game.id)?;
        let winner = seats
            .iter()
            .find(|s| s.side != seat.side)
            .map(|s| s.side.clone());
        let result = format!(
            "{} resigned; {} wins.",
            seat.side,
            winner.clone().unwrap_or_default()
        );
        let ending = export::Ending {
            kind: export::RESIGNED.into(),
            side: seat.side.clone(),
            offered_by: None,
            turn: game.turn,
        };
        self.end_game(
            tx,
            &game,
            &ending,
            winner.as_deref().unwrap_or(""),
            &result,
            queue,
        )
    }

    /// End a game outside the rules (resignation, agreed draw): record the
    /// result (`winner` "" for a draw) and how it came (`ending`, which the
    /// export carries for `verify`), and mail every seat the seed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn end_game(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        ending: &export::Ending,
        winner: &str,
        result: &str,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        store::games::end(tx, game.id, winner)?;
        store::kv_set(tx, &super::standings::ended_key(game.id), &self.now())?;
        store::set_ending(
            tx,
            game.id,
            &serde_json::to_string(ending).unwrap_or_default(),
        )?;
        store::kv_delete(tx, &format!("draw-offer:{}", game.id))?;
        let over = store::game(tx, game.id)?.ok_or(ServiceError::NoGame(game.id))?;
        self.game_over_mails(tx, &over, result, queue)?;
        // A campaign's next battle comes after the game-over mails, so the
        // newest mail a player has is the one to reply to.
        self.judge.campaigns().after_battle(tx, &over, queue)?;
        Ok(())
    }

    /// The game-over mail to everyone of `over` (a game just ended, by
    /// resignation, agreement or its rules): the result in `result`'s
    /// words, the seed to verify every roll with, and the whole game's
    /// replay page attached (docs/replay.md).
    pub(super) fn game_over_mails(
        &self,
        tx: &Transaction<'_>,
        over: &Game,
        result: &str,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let game = over;
        // Everyone of the game: every member of both sides, the referee and
        // the observers.
        let mut text = self.templates.render(
            "game_over.txt",
            json!({"game_id": game.id, "scenario": game.scenario, "result": result, "seed": game.seed}),
        );
        text.push_str(&self.judge.judge_plays_line(tx, game.id)?);
        let mut pages = Vec::new();
        for r in self.judge.recipients().everyone_of_game(tx, game.id)? {
            let viewer = match &r.role {
                super::recipients::Role::Member { side, .. } => Viewer::Side(side.clone()),
                super::recipients::Role::Referee => Viewer::Referee,
                super::recipients::Role::Observer => Viewer::Observer,
            };
            queue.push(
                Outgoing {
                    to: r.email,
                    subject: format!("Game {}: over", game.id),
                    text: text.clone(),
                    reply_to: r.reply_to,
                    game_id: Some(game.id),
                    attachments: self.replay_page(over, &viewer, &mut pages),
                    ..Outgoing::default()
                },
                "game-over",
            );
        }
        Ok(())
    }

    /// The replay page `viewer` gets of `game` (docs/replay.md), as an
    /// attachment: after the end that is the whole game, the same page for
    /// every viewer, so `pages` keeps each page made once by what it shows.
    /// A page that cannot be made is left out rather than the mail.
    fn replay_page(
        &self,
        game: &Game,
        viewer: &Viewer,
        pages: &mut Vec<((Viewer, u32), File)>,
    ) -> Vec<File> {
        let key = (
            crate::replay::seen_as(game, viewer),
            sight::visible_turn(game, viewer),
        );
        if let Some((_, file)) = pages.iter().find(|(k, _)| *k == key) {
            return vec![file.clone()];
        }
        match crate::replay::html(self.judge, game.id, viewer) {
            Ok(html) => {
                let file = crate::replay::attachment(game.id, html);
                pages.push((key, file.clone()));
                vec![file]
            }
            Err(e) => {
                tracing::warn!(game = game.id, "no replay page for the game-over mail: {e}");
                Vec::new()
            }
        }
    }

    /// A game's seat by side (case-blind).
    pub(super) fn seat_of(&self, game_id: i64, side: &str) -> Result<Seat, ServiceError> {
        let seats = store::seats(self.conn, game_id)?;
        if seats.is_empty() {
            return Err(ServiceError::NoGame(game_id));
        }
        seats
            .iter()
            .find(|s| s.side.eq_ignore_ascii_case(side))
            .cloned()
            .ok_or_else(|| {
                let sides: Vec<&str> = seats.iter().map(|s| s.side.as_str()).collect();
                ServiceError::NoSide(game_id, side.into(), sides.join(", "))
            })
    }

    /// Give a seat a new secret and token, and optionally a new player. The
    /// player is mailed the new secret; an old player is told they left.
    pub fn replace_seat(
        &self,
        game_id: i64,
        side: &str,
        email: Option<&str>,
    ) -> Result<(), ServiceError> {
        let old = self.seat_of(game_id, side)?;
        if let Some(e) = email.filter(|e| *e != super::JUDGE_SEAT) {
            if e.parse::<lettre::Address>().is_err() {
                return Err(ServiceError::Invalid(format!(
                    "'{e}' is not an email address"
                )));
            }
        }
        let email = email.map_or_else(|| old.email.clone(), str::to_ascii_lowercase);
        let tx = self.begin()?;
        store::seats::replace(&tx, game_id, side, &email)?;
        let seat = store::rekey_seat(&tx, game_id, side, true)?;
        let judge = |e: &str| e == super::JUDGE_SEAT;
        if old.email != seat.email && !judge(&old.email) && !judge(&seat.email) {
            self.judge
                .campaigns()
                .replace_player(&tx, game_id, side, &old.email, &seat.email)?;
            // The standings' reliability record: a game this player left.
            store::kv_set(
                &tx,
                &super::standings::left_key(game_id, side, &old.email),
                &self.now(),
            )?;
        }
        let mut q = Queue::new();
        if judge(&seat.email) {
            // The judge plays the seat: no mail to it (docs/general.md).
        } else if old.email != seat.email {
            // A new player (a new Commander-in-Chief in a team): the
            // welcome of the seat, with the position and his secret.
            q.push(self.judge.turns().welcome(&tx, game_id, &seat)?, "welcome");
        } else {
            self.queue_new_secret(&mut q, game_id, side, &seat);
        }
        if old.email != seat.email && !judge(&old.email) {
            q.push(
                Outgoing {
                    to: old.email.clone(),
                    subject: format!("Game {game_id}: you no longer play {side}"),
                    text: if judge(&seat.email) {
                        format!("The host has handed your seat ({side}) in game {game_id} to the judge, who plays it until a player takes it back.\n")
                    } else {
                        format!("The host has handed your seat ({side}) in game {game_id} to another player.\n")
                    },
                    game_id: Some(game_id),
                    ..Outgoing::default()
                },
                "seat",
            );
        }
        // The outbox key names this rekeying without carrying the token.
        let tag = {
            use sha2::Digest as _;
            hex::encode(&sha2::Sha256::digest(seat.token.as_bytes())[..8])
        };
        // A seat handed to the judge plays at once if its phase is waiting.
        self.judge.judge_plays(&tx, game_id, &mut q)?;
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-seat-{side}-{tag}"), q)?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// The mail of a seat given a new secret, to the player who keeps it.
    pub(super) fn queue_new_secret(&self, q: &mut Queue, game_id: i64, side: &str, seat: &Seat) {
        q.push(
            Outgoing {
                to: seat.email.clone(),
                subject: format!("Game {game_id}: your seat ({side}) has a new secret"),
                text: format!(
                    "You play {side} in game {game_id}.\nYour new secret: {}\nMails from before this one no longer carry your seat: reply to this one.\nSend MAP for the position.\n",
                    seat.secret
                ),
                reply_to: Some(self.judge.seat_address(seat)),
                game_id: Some(game_id),
                ..Outgoing::default()
            },
            "seat",
        );
    }

    /// Hand the seat of the player of `side` at `old` to `email`: the
    /// Commander-in-Chief's seat as [`Seats::replace_seat`] does, or a Field
    /// Marshal's (a team member's) with a fresh secret and reply address.
    /// The new member is mailed his secret, the old one is told he left,
    /// and a campaign closes the old player's record and opens the
    /// newcomer's.
    pub fn replace_player(
        &self,
        game_id: i64,
        side: &str,
        old: &str,
        email: &str,
    ) -> Result<(), ServiceError> {
        let cinc = self.seat_of(game_id, side)?;
        if cinc.email.eq_ignore_ascii_case(old) {
            return self.replace_seat(game_id, side, Some(email));
        }
        if email.parse::<lettre::Address>().is_err() {
            return Err(ServiceError::Invalid(format!(
                "'{email}' is not an email address"
            )));
        }
        let email = email.to_ascii_lowercase();
        let members = store::team::members(self.conn, game_id)?;
        let Some(m) = members
            .iter()
            .find(|m| m.side == cinc.side && m.email.eq_ignore_ascii_case(old))
        else {
            let mut held: Vec<String> = vec![cinc.email.clone()];
            held.extend(
                members
                    .iter()
                    .filter(|m| m.side == cinc.side)
                    .map(|m| m.email.clone()),
            );
            return Err(ServiceError::Invalid(format!(
                "nobody at {old} plays {side} in game {game_id} (its players: {})",
                held.join(", ")
            )));
        };
        let tx = self.begin()?;
        let new = store::team::replace_member(&tx, game_id, &m.side, m.seat_no, &email)?;
        if !m.email.eq_ignore_ascii_case(&email) {
            self.judge
                .campaigns()
                .replace_player(&tx, game_id, &m.side, &m.email, &email)?;
            // The standings' reliability record, as for a C-in-C (issue 51).
            store::kv_set(
                &tx,
                &super::standings::left_key(game_id, &m.side, &m.email),
                &self.now(),
            )?;
        }
        let seat = new.seat();
        let mut q = Queue::new();
        q.push(
            Outgoing {
                to: email.clone(),
                subject: format!("Game {game_id}: you now play {side} (seat {})", m.seat_no + 1),
                text: format!(
                    "You play {side} in game {game_id}, as a Field Marshal of the team (seat {} of the side).\nYour secret: {}\nReply to this mail to send orders. Send MAP for the position.\n",
                    m.seat_no + 1,
                    seat.secret
                ),
                reply_to: Some(self.judge.seat_address(&seat)),
                game_id: Some(game_id),
                ..Outgoing::default()
            },
            "seat",
        );
        if !m.email.eq_ignore_ascii_case(&email) {
            q.push(
                Outgoing {
                    to: m.email.clone(),
                    subject: format!("Game {game_id}: you no longer play {side}"),
                    text: format!("The host has handed your seat ({side}) in game {game_id} to another player.\n"),
                    game_id: Some(game_id),
                    ..Outgoing::default()
                },
                "seat",
            );
        }
        let tag = {
            use sha2::Digest as _;
            hex::encode(&sha2::Sha256::digest(seat.token.as_bytes())[..8])
        };
        self.judge.outbox().flush(
            &tx,
            &format!("game-{game_id}-seat-{side}-{}-{tag}", m.seat_no),
            q,
        )?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// An IMMEDIATE transaction: it takes the write lock at once, so the
    /// daemon and a host's CLI never interleave a use case.
    pub(super) fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    pub(super) fn now(&self) -> String {
        stamp(self.clock.now())
    }
}
