//! The referee's desk: a referee seat with its own token and secret, review
//! mode (each phase's results go to the referee first and reach the players
//! on APPROVE or when the review time runs out), corrections (AMEND) that
//! are turns of their own so `verify` replays and checks them, BROADCAST,
//! REVEAL, and the clock commands by mail. docs/referee.md is the guide.

use super::clock::{stamp, Clock};
use super::deadlines::{self, ClockBy};
use super::{
    parse_duration, random_word, state_hash, Audience, Game, Judge, MadeTurn, Position, Queue,
    ServiceError,
};
use crate::config::Config;
use crate::mail::outbound::Outgoing;
use crate::mail::parse::Envelope;
use crate::protocol::{self, Command, Request};
use crate::rules::{Adjudication, Rejection, Rules, State, Viewer, REFEREE_SIDE};
use crate::store::{self, Referee, Submission};
use crate::store::{Connection, Transaction};

/// Apply a correction stored as a turn's orders: a first line
/// `REASON <why>`, then the family's correction lines. Pure, so `verify`
/// replays it exactly; the reason becomes the first event.
pub fn amend_turn(rules: &Rules, state: &State, text: &str) -> Result<Adjudication, Rejection> {
    let mut lines = text.lines();
    let reason = lines
        .next()
        .and_then(|l| l.strip_prefix("REASON "))
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .ok_or_else(|| Rejection::whole("a correction needs a reason"))?;
    // Keep the line numbers of the text as the referee wrote it.
    let rest = format!("\n{}", lines.collect::<Vec<_>>().join("\n"));
    let mut adj = rules.amend(state, &rest)?;
    adj.events.insert(0, crate::rules::Event::referee(reason));
    Ok(adj)
}

/// The referee's use case: the referee's welcome and mail (AMEND, APPROVE,
/// BROADCAST, REVEAL, the clock, MAP), the host's `adjutant amend`,
/// `approve`, `broadcast` and `reveal`, and review mode's timeout. It reads
/// and writes the database, reads the judge's address from the config and
/// tells the time by the judge's clock; the reports, the clock commands,
/// the seats' credentials, a campaign's next battle and the outbox are
/// other use cases', reached through `judge`. [`Judge::referee`] hands it
/// out.
pub struct Desk<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    cfg: &'a Config,
    clock: &'a dyn Clock,
}

impl Judge {
    /// The referee's use case, on this judge's database, config and clock.
    #[must_use]
    pub fn referee(&self) -> Desk<'_> {
        Desk {
            judge: self,
            conn: &self.conn,
            cfg: &self.cfg,
            clock: self.clock.as_ref(),
        }
    }
}

impl Desk<'_> {
    /// The welcome mail of a game's referee: its secret, how to reply, and
    /// what it may do.
    pub(super) fn referee_welcome(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        r: &Referee,
    ) -> Result<Outgoing, ServiceError> {
        let game = store::game(tx, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let review = game.review_secs.map_or_else(
            || "Results go to the players at once; you get a copy of every report.".to_string(),
            |s| {
                format!(
                    "Review mode: every phase's results come to you first and reach the\nplayers when you reply APPROVE (or after {} if you do not).",
                    super::human_duration(s)
                )
            },
        );
        let text = format!(
            "You referee game {game_id} ({}).\n\nYour secret: {}\nReply to this mail (its reply address carries your seat), or put\nGAME {game_id} and PASSWORD <secret> at the top of a fresh mail.\n\n{review}\n\nBy mail you may send, one per line:\n  APPROVE                       release the results held for review\n  AMEND <fix> BECAUSE <why>     correct the position, e.g.\n                                AMEND UNIT F5 FIGURES 2 BECAUSE rolled twice\n  BROADCAST <text>              a message to every player\n  REVEAL                        both boards to everyone\n  PAUSE, RESUME, EXTEND 48h     the game's clock\n  MAP                           the position as you and each side see it\nSend HELP for every command.\n",
            game.scenario, r.secret
        );
        Ok(Outgoing {
            to: r.email.clone(),
            subject: format!("Game {game_id}: you are the referee"),
            text,
            reply_to: Some(self.judge.address_of(&r.token)),
            game_id: Some(game_id),
            ..Outgoing::default()
        })
    }

    /// The referee a mail speaks for: its plus-address token, or GAME and
    /// PASSWORD with the referee's secret.
    pub(super) fn referee_of(
        &self,
        env: &Envelope,
        req: &Request,
    ) -> Result<Option<Referee>, ServiceError> {
        for to in &env.to {
            if let Some(tok) = protocol::token_of(to, self.cfg.local_part(), self.cfg.domain()) {
                if let Some(r) = store::referee_by_token(self.conn, &tok)? {
                    return Ok(Some(r));
                }
            }
        }
        if let (Some(game), Some(pw)) = (req.game, req.password.as_deref()) {
            if let Some(r) = store::referee(self.conn, game)? {
                if r.secret == pw.to_ascii_lowercase() {
                    return Ok(Some(r));
                }
            }
        }
        Ok(None)
    }

    /// Everything a referee's mail asks, answered in one mail.
    pub(super) fn referee_mail(
        &self,
        tx: &Transaction<'_>,
        req: &Request,
        r: &Referee,
        queue: &mut Queue,
        reply: &mut super::Answer,
    ) -> Result<(String, String), ServiceError> {
        let mut answer: Vec<String> = Vec::new();
        let mut done: Vec<&str> = Vec::new();
        if req.has_orders {
            answer.push(
                "A referee gives no orders: the lines that looked like orders were not\nused. Use AMEND to correct the position."
                    .into(),
            );
        }
        if self.referee_amends(tx, req, r, queue, &mut answer)? {
            done.push("amend");
        }
        let commands = self.judge.inbound().commands_to_do(&req.commands, reply);
        // The reply address of the answer: the new one after a ROTATE.
        let mut token = r.token.clone();
        for cmd in &commands {
            let game = store::game(tx, r.game_id)?.ok_or(ServiceError::NoGame(r.game_id))?;
            match cmd {
                Command::Amend(..) => {}
                Command::Approve => match self.approve_in(tx, &game, queue)? {
                    Some((a, b)) => {
                        answer.push(format!(
                            "Released: the players now have the results of {}.",
                            if a == b {
                                format!("turn {a}")
                            } else {
                                format!("turns {a}-{b}")
                            }
                        ));
                        done.push("approve");
                    }
                    None => answer.push("Nothing is held for review.".into()),
                },
                Command::Broadcast(text) => {
                    self.broadcast_in(tx, &game, text, queue)?;
                    answer.push("Your message went to every player.".into());
                    done.push("broadcast");
                }
                Command::Reveal => {
                    self.reveal_in(tx, &game, queue)?;
                    answer.push("Both boards went to every player.".into());
                    done.push("reveal");
                }
                Command::Pause | Command::Resume => {
                    let pause = *cmd == Command::Pause;
                    let (text, clocked) = self.referee_clock(tx, &game, pause, queue)?;
                    answer.push(text);
                    if clocked {
                        done.push("clock");
                    }
                }
                Command::Extend(d) => match parse_duration(d) {
                    Some(secs) => match self.judge.deadlines().extend_in(tx, &game, secs, ClockBy::Referee, queue) {
                        Ok(at) => {
                            answer.push(format!(
                                "The deadline is now {}.",
                                deadlines::show(&at, &game.referee_tz)
                            ));
                            done.push("extend");
                        }
                        Err(ServiceError::Invalid(why)) => answer.push(format!("Not extended: {why}.")),
                        Err(e) => return Err(e),
                    },
                    None => answer.push(format!("'{d}' is not a duration like 48h or 3d.")),
                },
                Command::Map | Command::Status => {
                    answer.push(Self::referee_map(tx, &game)?);
                    done.push("map");
                }
                Command::Help => {
                    answer.push(protocol::help_text(&self.cfg.judge.address));
                    done.push("help");
                }
                Command::Rotate => {
                    let new = self.judge.seats().rotate_referee_in(tx, r.game_id, queue)?;
                    answer.push(format!(
                        "Your new secret and reply address went to {} in a mail of their\nown. The old ones no longer work.",
                        new.email
                    ));
                    token = new.token;
                    done.push("rotate");
                }
                other => answer.push(format!(
                    "{other:?} is a player's command; as referee you may APPROVE, AMEND,\nBROADCAST, REVEAL, PAUSE, RESUME, EXTEND, ROTATE or ask for the MAP."
                )),
            }
        }
        if answer.is_empty() {
            answer.push("Your mail held no referee command (see HELP).".into());
        }
        // One answer, to the referee's registered address only.
        reply.ok(answer.join("\n\n") + "\n");
        reply.reply_to = Some(self.judge.address_of(&token));
        reply.game_id = Some(r.game_id);
        reply.registered = Some(r.email.clone());
        reply.only_registered = true;
        Ok((format!("referee: {}", done.join(", ")), String::new()))
    }

    /// The AMEND lines of a referee's mail, made as one correction: true
    /// when it was made (the answer says what came of it).
    fn referee_amends(
        &self,
        tx: &Transaction<'_>,
        req: &Request,
        r: &Referee,
        queue: &mut Queue,
        answer: &mut Vec<String>,
    ) -> Result<bool, ServiceError> {
        let amend: Vec<(&String, &String)> = req
            .commands
            .iter()
            .filter_map(|c| match c {
                Command::Amend(fix, why) => Some((fix, why)),
                _ => None,
            })
            .collect();
        if !amend.is_empty() {
            let fix: Vec<&str> = amend.iter().map(|(f, _)| f.as_str()).collect();
            let mut why: Vec<&str> = amend.iter().map(|(_, w)| w.as_str()).collect();
            why.dedup();
            let game = store::game(tx, r.game_id)?.ok_or(ServiceError::NoGame(r.game_id))?;
            match self.amend_in(tx, &game, &fix.join("\n"), &why.join("; "), queue) {
                Ok(turn) => {
                    answer.push(format!(
                        "Corrected as turn {turn}:\n{}",
                        fix.iter()
                            .map(|l| format!("  # {l}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ));
                    return Ok(true);
                }
                Err(ServiceError::Rejected(rej)) => {
                    answer.push(format!("The correction was not made: {rej}"));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }

    /// A referee's MAP: the whole position, then what each side sees.
    fn referee_map(tx: &Transaction<'_>, game: &Game) -> Result<String, ServiceError> {
        let Position {
            rules, state, hash, ..
        } = Judge::position_in(tx, game, None)?;
        let mut text = rules.report_parts(&state, &[], &Viewer::Referee, None).map;
        for side in rules.sides(&state) {
            let p = rules.report_parts(&state, &[], &Viewer::Revealed(Some(side.clone())), None);
            text.push_str(&format!("\nWHAT {} SEES\n{}", side.to_uppercase(), p.map));
        }
        if let Some(t) = game.held_from {
            text.push_str(&format!("\nHeld for your review from turn {t}.\n"));
        }
        Ok(format!(
            "Game {}, turn {}:\n{text}State {}",
            game.id,
            game.turn,
            super::sealed_state(&Judge::master(game)?, &hash)
        ))
    }

    /// A referee's PAUSE or RESUME: the answer's text, and whether the
    /// clock changed.
    fn referee_clock(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        pause: bool,
        queue: &mut Queue,
    ) -> Result<(String, bool), ServiceError> {
        match self
            .judge
            .deadlines()
            .set_paused_in(tx, game, pause, ClockBy::Referee, queue)
        {
            Ok(at) => Ok((
                format!(
                    "The clock of game {} is {}.{}",
                    game.id,
                    if pause { "paused" } else { "running again" },
                    at.filter(|_| !pause).map_or_else(String::new, |at| format!(
                        " The next deadline is {}.",
                        deadlines::show(&at, &game.referee_tz)
                    ))
                ),
                true,
            )),
            Err(ServiceError::Invalid(why)) => Ok((format!("Not done: {why}."), false)),
            Err(e) => Err(e),
        }
    }

    /// A correction as a turn of its own (stored as orders of the side
    /// `referee`), reported like any turn: in review mode to the referee
    /// first. Returns the turn made.
    fn amend_in(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        fix: &str,
        reason: &str,
        queue: &mut Queue,
    ) -> Result<u32, ServiceError> {
        let reason = reason.lines().next().unwrap_or("").trim();
        if reason.is_empty() {
            return Err(ServiceError::Rejected(Rejection::whole(
                "a correction needs a reason (AMEND <fix> BECAUSE <why>)",
            )));
        }
        if game.status == "over" {
            // docs/referee.md: the judge never rewrites a past turn, and a
            // finished game's record ends with its last turn (issue 51).
            return Err(ServiceError::Rejected(Rejection::whole(format!(
                "game {} is over ({}): a correction after the end would add a turn\nto a finished record",
                game.id,
                super::result_line(game.result.as_deref()).trim_end_matches('.')
            ))));
        }
        let Position { rules, state, .. } = Judge::position_in(tx, game, None)?;
        let text = format!("REASON {reason}\n{fix}");
        let adj = amend_turn(&rules, &state, &text).map_err(ServiceError::Rejected)?;
        let turn = game.turn + 1;
        store::insert_submission(
            tx,
            game.id,
            &Submission {
                turn,
                side: REFEREE_SIDE.to_string(),
                orders: text,
                source: "referee".into(),
                received_at: self.now(),
            },
        )?;
        store::insert_events(tx, game.id, turn, &super::stored(&adj.events))?;
        let json = rules.to_json(&adj.state);
        let hash = state_hash(&json);
        store::insert_snapshot(tx, game.id, turn, &json, &hash)?;
        store::games::set_turn(tx, game.id, turn)?;
        let game = store::game(tx, game.id)?.ok_or(ServiceError::NoGame(game.id))?;
        let made = [MadeTurn {
            turn,
            movers: vec![REFEREE_SIDE.to_string()],
            events: adj.events,
            hash,
        }];
        self.judge
            .reports()
            .report_made(tx, &game, &rules, &made, &adj.state, queue)?;
        // A correction may leave the phase waiting for the judge's seat.
        self.judge_seat_plays(tx, game.id, queue);
        Ok(turn)
    }

    /// Release the results held for review: the players get one report of
    /// every turn since the review began, and a full turn's time. Returns
    /// the turns released, or None if nothing was held.
    fn approve_in(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        queue: &mut Queue,
    ) -> Result<Option<(u32, u32)>, ServiceError> {
        let Some(from) = game.held_from else {
            return Ok(None);
        };
        let Position { rules, state, .. } = Judge::position_in(tx, game, None)?;
        let events = store::events(tx, game.id, None)?;
        let subs = store::submissions(tx, game.id)?;
        let mut made = Vec::new();
        for turn in from..=game.turn {
            let hash = store::snapshot(tx, game.id, Some(turn))?
                .map(|(_, _, h)| h)
                .unwrap_or_default();
            made.push(MadeTurn {
                turn,
                movers: subs
                    .iter()
                    .filter(|s| s.turn == turn)
                    .map(|s| s.side.clone())
                    .collect(),
                events: events
                    .iter()
                    .filter(|(t, _)| *t == turn)
                    .map(|(_, e)| rules.event_from_store(e.clone()))
                    .collect(),
                hash,
            });
        }
        let deadline_at = game
            .deadline_secs
            .filter(|_| game.status != "over")
            .map(|s| stamp(self.clock.now() + chrono::Duration::seconds(s)));
        store::games::release(tx, game.id, deadline_at.as_deref())?;
        let game = store::game(tx, game.id)?.ok_or(ServiceError::NoGame(game.id))?;
        self.judge.reports().queue_reports(
            tx,
            &game,
            &rules,
            &made,
            &state,
            Audience::Players,
            queue,
        )?;
        if game.status == "over" {
            let result = super::result_line(game.result.as_deref());
            self.judge
                .seats()
                .game_over_mails(tx, &game, &result, queue)?;
            self.judge.campaigns().after_battle(tx, &game, queue)?;
        }
        // The released phase may wait for a seat the judge plays: it plays
        // now, not when somebody next writes (docs/general.md).
        self.judge_seat_plays(tx, game.id, queue);
        Ok(Some((from, game.turn)))
    }

    /// Let the judge play its seats after the referee's release or
    /// correction. Its failure is logged, not the referee's: the referee's
    /// own act stands, and the judge plays again at the next submission.
    fn judge_seat_plays(&self, tx: &Transaction<'_>, game_id: i64, queue: &mut Queue) {
        if let Err(e) = self.judge.judge_plays(tx, game_id, queue) {
            tracing::warn!("game {game_id}: the judge's seat did not play: {e}");
        }
    }

    /// A message from the referee to every seat and observer.
    fn broadcast_in(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        text: &str,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let body = format!(
            "A message from the referee of game {}:\n\n  {}\n",
            game.id,
            crate::report::wrap(text, 76, "  ").trim_end()
        );
        for (to, reply_to) in self.audience(tx, game)? {
            queue.push(
                Outgoing {
                    to,
                    subject: format!("Game {}: a message from the referee", game.id),
                    text: body.clone(),
                    reply_to,
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "broadcast",
            );
        }
        Ok(())
    }

    /// Both boards (the referee's view and each side's) to every seat and
    /// observer.
    fn reveal_in(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let Position {
            rules, state, hash, ..
        } = Judge::position_in(tx, game, None)?;
        let parts = rules.report_parts(&state, &[], &Viewer::Revealed(None), None);
        let mut text = format!(
            "The referee of game {} reveals the whole position, as the referee\nsees it, after turn {}.\n\n{}",
            game.id, game.turn, parts.map
        );
        for side in rules.sides(&state) {
            let p = rules.report_parts(&state, &[], &Viewer::Revealed(Some(side.clone())), None);
            text.push_str(&format!("\nWHAT {} SAW\n{}", side.to_uppercase(), p.map));
        }
        text.push_str(&format!(
            "\nState {}\n",
            super::sealed_state(&Judge::master(game)?, &hash)
        ));
        let subject = format!("Game {}: the referee reveals both boards", game.id);
        for (to, reply_to) in self.audience(tx, game)? {
            let mut m = Outgoing {
                to,
                subject: subject.clone(),
                text: text.clone(),
                reply_to,
                game_id: Some(game.id),
                ..Outgoing::default()
            };
            super::show_board(&mut m, &parts, &subject, self.cfg.judge.picture);
            queue.push(m, "reveal");
        }
        Ok(())
    }

    /// Every player (with his reply address) and observer of a game:
    /// everyone of the game but the referee (`Recipients::everyone_of_game`).
    pub(super) fn audience(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
    ) -> Result<Vec<(String, Option<String>)>, ServiceError> {
        Ok(self
            .judge
            .recipients()
            .everyone_of_game(tx, game.id)?
            .into_iter()
            .filter(|r| r.role != super::recipients::Role::Referee)
            .map(|r| (r.email, r.reply_to))
            .collect())
    }

    /// Host or referee at the command line: `adjutant amend`.
    pub fn amend(&self, game_id: i64, fix: &str, reason: &str) -> Result<u32, ServiceError> {
        let game = self.judge.game(game_id)?;
        let tx = self.begin()?;
        let mut q = Queue::new();
        let turn = self.amend_in(&tx, &game, fix, reason, &mut q)?;
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-amend-{turn}"), q)?;
        crate::store::commit(tx)?;
        Ok(turn)
    }

    /// `adjutant approve`: release held results; the turns released.
    pub fn approve(&self, game_id: i64) -> Result<Option<(u32, u32)>, ServiceError> {
        let game = self.judge.game(game_id)?;
        let tx = self.begin()?;
        let mut q = Queue::new();
        let r = self.approve_in(&tx, &game, &mut q)?;
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-approve-{}", game.turn), q)?;
        crate::store::commit(tx)?;
        Ok(r)
    }

    /// `adjutant broadcast`.
    pub fn broadcast(&self, game_id: i64, text: &str) -> Result<(), ServiceError> {
        let game = self.judge.game(game_id)?;
        let tx = self.begin()?;
        let mut q = Queue::new();
        self.broadcast_in(&tx, &game, text, &mut q)?;
        let tag = random_word(8)?;
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-broadcast-{tag}"), q)?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// `adjutant reveal`.
    pub fn reveal(&self, game_id: i64) -> Result<(), ServiceError> {
        let game = self.judge.game(game_id)?;
        let tx = self.begin()?;
        let mut q = Queue::new();
        self.reveal_in(&tx, &game, &mut q)?;
        self.judge
            .outbox()
            .flush(&tx, &format!("game-{game_id}-reveal-{}", game.turn), q)?;
        crate::store::commit(tx)?;
        Ok(())
    }

    /// An IMMEDIATE transaction: it takes the write lock at once, so the
    /// daemon and a host's CLI never interleave a use case.
    fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    fn now(&self) -> String {
        stamp(self.clock.now())
    }

    /// Release reviews whose time has run out (from the daemon's tick).
    pub fn review_tick(&self) -> Result<usize, ServiceError> {
        let now = self.clock.now();
        let mut released = 0;
        for game in store::games_paged(self.conn)? {
            let game = game?;
            let (Some(secs), Some(since)) = (game.review_secs, game.held_since.as_deref()) else {
                continue;
            };
            let Ok(since) = chrono::DateTime::parse_from_rfc3339(since) else {
                continue;
            };
            if now < since.with_timezone(&chrono::Utc) + chrono::Duration::seconds(secs) {
                continue;
            }
            let tx = self.begin()?;
            let mut q = Queue::new();
            if let Some((a, b)) = self.approve_in(&tx, &game, &mut q)? {
                if let Some(r) = store::referee(&tx, game.id)? {
                    q.push(
                        Outgoing {
                            to: r.email.clone(),
                            subject: format!("Game {}: results released", game.id),
                            text: format!(
                                "The review time of game {} ran out, so the results of turns\n{a}-{b} went to the players as they stood.\n",
                                game.id
                            ),
                            reply_to: Some(self.judge.address_of(&r.token)),
                            game_id: Some(game.id),
                            ..Outgoing::default()
                        },
                        "notice",
                    );
                }
                released += 1;
            }
            self.judge.outbox().flush(
                &tx,
                &format!("game-{}-review-timeout-{}", game.id, game.turn),
                q,
            )?;
            crate::store::commit(tx)?;
        }
        Ok(released)
    }
}
