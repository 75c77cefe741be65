//! The inbound pipeline after the mail is read: the checks on the mail,
//! the parse, the referee's or the player's authentication, then one
//! handler per mail command and the orders (`decide`).

use super::clock::stamp;
use super::{
    clip_text, deadlines, late, picture_text, sealed_state, sight, Answer, Judge, Pipeline,
    Position, Queue, ServiceError, Submitted, STRANGER_HELP,
};
use crate::mail::outbound::Outgoing;
use crate::mail::parse::Envelope;
use crate::protocol::{self, Command, Request};
use crate::report::picture::Picture;
use crate::rules::Viewer;
use crate::store::Transaction;
use crate::store::{self, Seat};
use serde_json::json;

/// What the inbox log records of a mail: its outcome and a detail.
type Outcome = (String, String);

/// The seat a mail speaks for, or why it has none (and a notice to its
/// registered address, if any).
type Authenticated = Result<Seat, Option<Outgoing>>;

impl Pipeline<'_> {
    /// Decide what a message is and what it causes.
    pub(super) fn decide(
        &self,
        tx: &Transaction<'_>,
        inbox_id: i64,
        env: &Envelope,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<Outcome, ServiceError> {
        let from = match self.screen(env, answer) {
            Ok(from) => from,
            Err(outcome) => return Ok(outcome),
        };
        let req = protocol::parse(&env.subject, &env.text);
        if let Some(outcome) = self.unreadable(env, &req, answer) {
            return Ok(outcome);
        }
        if let Some(why) = self.judge.seats().contradiction(env, &req)? {
            answer.err(self.error_text(&why, &[], ""));
            return Ok(("answered: credentials contradict the address".into(), why));
        }
        if let Some(referee) = self.judge.referee().referee_of(env, &req)? {
            return self
                .judge
                .referee()
                .referee_mail(tx, &req, &referee, queue, answer);
        }
        let seat = self.authenticate(env, &req)?;
        // A mail that came in under a seat's address: every answer to it
        // (HELP, STATUS, an error) keeps that address as Reply-To, so a
        // reply to the answer still speaks for the seat (issue 54).
        if let Ok(s) = &seat {
            answer.reply_to = Some(self.judge.seat_address(s));
        }
        // PREDICT (service/predict.rs): the orders are reckoned, never
        // submitted; a mail without a seat gets the usual answer only.
        if req.commands.contains(&Command::Predict) {
            let seat = match seat {
                Ok(seat) => seat,
                Err(notice) => {
                    if let Some(notice) = notice {
                        queue.push(notice, "notice");
                    }
                    return Ok(self.unauthenticated(answer));
                }
            };
            return self.judge.predict().predict_mail(tx, &seat, &req, answer);
        }
        let mut done = Vec::new();
        // A seat given new credentials by ROTATE in this mail: the answer
        // goes to its registered address only, with its new reply address.
        let mut rotated: Option<Seat> = None;
        let commands = self.commands_to_do(&req.commands, answer);
        for cmd in &commands {
            // Team play: PROPOSE, TEAM, PRESS, and what a Field Marshal may
            // not do (service/team.rs).
            if let Command::Propose(_) | Command::Team(_) | Command::Press(_) = cmd {
                if seat.is_err() {
                    return Ok(self.unauthenticated(answer));
                }
            }
            if let Ok(s) = seat.as_ref() {
                if let Some(r) = self.judge.teams().team_command(tx, s, cmd, queue)? {
                    answer.for_seat(self.judge.seat_address(s), s);
                    match r {
                        Ok(text) => {
                            answer.ok(text);
                            done.push("team");
                        }
                        Err(why) => answer.err(self.error_text(&why, &[], "")),
                    }
                    continue;
                }
            }
            match cmd {
                Command::Propose(_) | Command::Team(_) | Command::Press(_) => {}
                Command::Approve
                | Command::Amend(..)
                | Command::Broadcast(_)
                | Command::Reveal
                | Command::Pause
                | Command::Resume
                | Command::Extend(_) => return Ok(self.not_the_referee(answer)),
                Command::Help => {
                    let text = if self.known_address(&from)? {
                        protocol::help_text(&self.cfg.judge.address)
                    } else {
                        STRANGER_HELP.to_string()
                    };
                    answer.titled("Adjutant: help", text);
                    done.push("help");
                }
                Command::Status => {
                    let text = self.status_text(&from)?;
                    answer.titled("Adjutant: your games", text);
                    done.push("status");
                }
                Command::Join(game_id) => {
                    if self.join_command(tx, *game_id, &from, queue, answer)? {
                        done.push("join");
                    }
                }
                Command::Rotate => {
                    let Some(old) = seat.as_ref().ok() else {
                        return Ok(self.unauthenticated(answer));
                    };
                    rotated = Some(self.rotate_command(tx, old, queue, answer)?);
                    done.push("rotate");
                }
                _ => {
                    let Some(seat) = seat.as_ref().ok() else {
                        return Ok(self.unauthenticated(answer));
                    };
                    done.push(self.seat_command(tx, seat, cmd, queue, answer)?);
                }
            }
        }
        if let Some(new) = &rotated {
            answer.for_seat(self.judge.seat_address(new), new);
            answer.only_registered = true;
            if req.has_orders {
                answer.err(self.error_text(
                    "Orders in a mail that asks ROTATE are not used: send them again,\nreplying to the mail with your new credentials.",
                    &[],
                    "",
                ));
                return Ok((format!("answered: {}", done.join(", ")), String::new()));
            }
        }
        if let Some(outcome) = self.orders_of_mail(tx, inbox_id, &req, seat, queue, answer)? {
            return Ok(outcome);
        }
        if req.has_orders {
            done.push("orders accepted");
        }
        Ok((format!("answered: {}", done.join(", ")), String::new()))
    }

    /// The checks before a mail is parsed: automatic mail, no sender, the
    /// judge's own mail, too large, over a limit. Ok(sender) to go on.
    fn screen(&self, env: &Envelope, answer: &mut Answer) -> Result<String, Outcome> {
        if let Some(kind) = &env.auto {
            return Err(("ignored: automatic mail".into(), format!("{kind:?}")));
        }
        let Some(from) = env.from.clone() else {
            return Err(("ignored: no sender address".into(), String::new()));
        };
        if from.eq_ignore_ascii_case(&self.cfg.judge.address)
            || protocol::token_of(&from, self.cfg.local_part(), self.cfg.domain()).is_some()
        {
            return Err(("ignored: mail from the judge itself".into(), String::new()));
        }
        if env.size > self.cfg.judge.max_message_bytes {
            let text = self.error_text(
                &format!(
                    "Your mail was not read: it was {} bytes, and this judge reads\nmails of at most {} bytes.",
                    env.size, self.cfg.judge.max_message_bytes
                ),
                &[],
                "Send your orders as plain text, without large attachments.",
            );
            answer.err(text);
            return Err(("refused: too large".into(), format!("{} bytes", env.size)));
        }
        if let Some(why) = &env.over_limit {
            let text = self.error_text(
                &format!("Your mail was not read: {why}."),
                &[],
                "Send your orders as plain text in the body of the mail.",
            );
            answer.err(text);
            return Err(("refused: over a limit".into(), why.clone()));
        }
        Ok(from)
    }

    /// A mail with nothing to do, or with lines that could not be read:
    /// the answer says which.
    fn unreadable(&self, env: &Envelope, req: &Request, answer: &mut Answer) -> Option<Outcome> {
        let nothing_to_do = req.commands.is_empty() && !req.has_orders;
        if nothing_to_do && req.errors.is_empty() {
            let mut problems: Vec<String> = env.problems.clone();
            if problems.is_empty() {
                problems.push("the mail has no commands and no orders in it".into());
            }
            if !req.ignored.is_empty() {
                problems.push(format!(
                    "no line starts with a command (HELP, STATUS, ...) or an order word\n  (PLAY, ORDER, MOVE, BATTLE, ...); it begins: \"{}\"",
                    req.ignored[0].1.chars().take(50).collect::<String>()
                ));
            }
            let text = self.error_text(
                "I could not find anything to do in your mail:",
                &problems,
                "",
            );
            answer.err(text);
            return Some(("answered: nothing to do".into(), problems.join("; ")));
        }
        if !req.errors.is_empty() {
            let mut problems: Vec<String> = req
                .errors
                .iter()
                .map(|(l, t, why)| format!("line {l}: \"{t}\": {why}"))
                .collect();
            if req.errors_total > req.errors.len() {
                problems.push(format!(
                    "and {} more such lines",
                    req.errors_total - req.errors.len()
                ));
            }
            let text = self.error_text("Some lines of your mail could not be read:", &problems, "");
            answer.err(text);
            return Some(("answered: malformed commands".into(), problems.join("; ")));
        }
        None
    }

    fn unauthenticated(&self, answer: &mut Answer) -> Outcome {
        answer.err(self.not_authenticated());
        ("answered: not authenticated".into(), String::new())
    }

    fn not_the_referee(&self, answer: &mut Answer) -> Outcome {
        let text = self.error_text(
            "Only a game's referee may APPROVE, AMEND, BROADCAST, REVEAL, PAUSE,\nRESUME or EXTEND, from the referee's own seat.",
            &[],
            "",
        );
        answer.err(text);
        (
            "answered: referee command from a non-referee".into(),
            String::new(),
        )
    }

    /// JOIN: true when the sender took the seat.
    fn join_command(
        &self,
        tx: &Transaction<'_>,
        game_id: i64,
        from: &str,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<bool, ServiceError> {
        match self.judge.seats().join(tx, game_id, from, queue)? {
            Ok(side) => {
                answer.ok(format!(
                    "You joined game {game_id} as {side}; your welcome mail follows.\n"
                ));
                Ok(true)
            }
            Err(why) => {
                answer.err(self.error_text(
                    &format!("You could not join game {game_id}: {why}."),
                    &[],
                    "",
                ));
                Ok(false)
            }
        }
    }

    /// ROTATE: the seat with its new credentials.
    fn rotate_command(
        &self,
        tx: &Transaction<'_>,
        old: &Seat,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<Seat, ServiceError> {
        let new = self.judge.seats().rotate_seat_in(tx, old, queue)?;
        answer.ok(format!(
            "Your seat in game {} ({}) has a new secret and reply address, in a\nmail of their own to {}. The old ones no longer work.\n",
            new.game_id, new.side, new.email
        ));
        Ok(new)
    }

    /// A command of an authenticated seat (WITHDRAW, MAP, CAMPAIGN, HISTORY,
    /// DRAW, RESIGN, TIMEZONE, PICTURE, ABSENCE, ABSENCE END): what the
    /// answer's outcome says was done.
    fn seat_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        cmd: &Command,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<&'static str, ServiceError> {
        let done = match cmd {
            Command::Withdraw => {
                self.withdraw_command(tx, seat, answer)?;
                "withdraw"
            }
            Command::Campaign => {
                let text = match self.judge.campaigns().of_game_text(seat.game_id)? {
                    Some(t) => t,
                    None => format!("Game {} is not part of a campaign.\n", seat.game_id),
                };
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.ok(text);
                "campaign"
            }
            Command::Standings => {
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.ok(self.judge.standings().text()?);
                "standings"
            }
            Command::Private(on) => {
                self.judge.standings().set_private(tx, &seat.email, *on)?;
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.ok(if *on {
                    format!(
                        "{} is left out of the standings from now on; your games still
count for your opponents. PRIVATE OFF lists you again.
",
                        seat.email
                    )
                } else {
                    format!(
                        "{} is listed in the standings again.
",
                        seat.email
                    )
                });
                "private"
            }
            Command::Map => {
                self.map_command(seat, answer)?;
                "map"
            }
            Command::History(turn) => {
                self.history_command(seat, *turn, answer)?;
                "history"
            }
            Command::Replay => {
                self.replay_command(seat, answer)?;
                "replay"
            }
            Command::TimeZone(z) => {
                self.timezone_command(tx, seat, z, answer)?;
                "timezone"
            }
            Command::Picture(p) => {
                self.picture_command(tx, seat, *p, answer)?;
                "picture"
            }
            Command::Absence(a, b) => {
                self.absence_command(tx, seat, a, b, answer)?;
                "absence"
            }
            Command::AbsenceEnd => {
                let text = if self.judge.deadlines().end_absence(seat)? {
                    format!("Noted: you are back. The deadlines of game {} apply to your side\nagain from now.\n", seat.game_id)
                } else {
                    format!(
                        "You had no absence recorded in game {}; nothing changed.\n",
                        seat.game_id
                    )
                };
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.ok(text);
                "absence end"
            }
            Command::Draw | Command::Resign => {
                if let Some(why) = self.judge.seats().ended_already(tx, seat, cmd)? {
                    answer.for_seat(self.judge.seat_address(seat), seat);
                    answer.err(self.error_text(&why, &[], ""));
                    "nothing: the game is over"
                } else if *cmd == Command::Draw {
                    self.judge.seats().draw(tx, seat, queue)?;
                    "draw"
                } else {
                    self.judge.seats().resign(tx, seat, queue)?;
                    "resign"
                }
            }
            // Handled before a seat is needed (a command added to the
            // protocol but not here must never fall through to another).
            other => {
                return Err(ServiceError::Invalid(format!(
                    "internal error: {other:?} is not a seat's command"
                )))
            }
        };
        Ok(done)
    }

    fn withdraw_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        answer: &mut Answer,
    ) -> Result<(), ServiceError> {
        let text = if store::clear_pending(tx, seat.game_id, Some(&seat.side))? {
            format!(
                "Your orders held for the current phase of game {} were withdrawn.\nSend new orders before the phase resolves.\n",
                seat.game_id
            )
        } else {
            format!(
                "You have no orders held in game {}: orders are adjudicated as\nsoon as every side the phase needs has sent them, and then they\ncannot be withdrawn.\n",
                seat.game_id
            )
        };
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.ok(text);
        Ok(())
    }

    fn map_command(&self, seat: &Seat, answer: &mut Answer) -> Result<(), ServiceError> {
        let game = self.judge.game(seat.game_id)?;
        let viewer = Viewer::Side(seat.side.clone());
        // In review mode, the position before the held turns.
        let seen = sight::visible_turn(&game, &viewer);
        let Position {
            rules, state, hash, ..
        } = self.judge.position(&game, Some(seen))?;
        let parts = rules.report_parts(&state, &[], &viewer, None);
        let heading = format!(
            "Game {}, turn {seen}: the position as {} sees it.",
            game.id, seat.side
        );
        let held = if sight::holds_back(&game, &viewer) {
            format!("{}\n", sight::held_line(&game))
        } else {
            String::new()
        };
        let text = format!(
            "{heading}\n\n{}\n{}\n{held}State {}\n",
            parts.map,
            parts.compact,
            sealed_state(&Judge::master(&game)?, &hash)
        );
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.ok(text);
        answer.board.get_or_insert((heading, parts));
        Ok(())
    }

    fn history_command(
        &self,
        seat: &Seat,
        turn: Option<u32>,
        answer: &mut Answer,
    ) -> Result<(), ServiceError> {
        let game = self.judge.game(seat.game_id)?;
        let viewer = Viewer::Side(seat.side.clone());
        let seen = sight::visible_turn(&game, &viewer);
        let t = turn.unwrap_or(seen);
        answer.for_seat(self.judge.seat_address(seat), seat);
        let report = if t > seen && t <= game.turn {
            Err(ServiceError::Invalid(sight::held_line(&game)))
        } else {
            self.judge.reports().turn_report(&game, t, &viewer)
        };
        match report {
            Ok((text, parts)) => {
                let heading = format!("Game {}: turn {t}", game.id);
                answer.ok(text);
                answer.board.get_or_insert((heading, parts));
            }
            Err(e) => {
                answer.err(self.error_text(&format!("No report for that turn: {e}"), &[], ""))
            }
        }
        Ok(())
    }

    /// REPLAY: the game as the seat saw it, every turn it may see, as a
    /// page attached (`crate::replay`, docs/replay.md).
    fn replay_command(&self, seat: &Seat, answer: &mut Answer) -> Result<(), ServiceError> {
        let game = self.judge.game(seat.game_id)?;
        let viewer = Viewer::Side(seat.side.clone());
        let seen = sight::visible_turn(&game, &viewer);
        let html = crate::replay::html(self.judge, game.id, &viewer)?;
        let file = crate::replay::attachment(game.id, html);
        let whose = if crate::replay::seen_as(&game, &viewer) == viewer {
            format!("as {} saw it", seat.side)
        } else {
            "the whole game".to_string()
        };
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.ok(format!(
            "The replay of game {}, turns 0 to {seen} ({whose}), is attached as\n{}: open it in a web browser and step through the turns\nwith the buttons or the arrow keys.\n",
            game.id, file.0
        ));
        answer.files.push(file);
        Ok(())
    }

    fn timezone_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        z: &str,
        answer: &mut Answer,
    ) -> Result<(), ServiceError> {
        let text = match z.parse::<chrono_tz::Tz>() {
            Ok(_) => {
                store::seats::set_timezone(tx, seat.game_id, &seat.side, z)?;
                format!(
                    "Deadlines of game {} are now shown in {z}.\n",
                    seat.game_id
                )
            }
            Err(_) => self.error_text(
                &format!("'{z}' is not a time zone name."),
                &[],
                "Use a name from the IANA list, such as Europe/London,\nAmerica/New_York or Australia/Sydney.",
            ),
        };
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.ok(text);
        Ok(())
    }

    fn picture_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        p: Picture,
        answer: &mut Answer,
    ) -> Result<(), ServiceError> {
        store::seats::set_picture(tx, seat.game_id, &seat.side, p.word())?;
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.picture = Some(p);
        answer.ok(picture_text(seat.game_id, p));
        Ok(())
    }

    fn absence_command(
        &self,
        tx: &Transaction<'_>,
        seat: &Seat,
        a: &str,
        b: &str,
        answer: &mut Answer,
    ) -> Result<(), ServiceError> {
        let game = self.judge.game(seat.game_id)?;
        // The zone as it is now: a TIMEZONE line above may have changed it.
        let tz = store::seats::timezone(tx, seat.game_id, &seat.side)?;
        let text = match deadlines::absence_span(a, b, &tz) {
            Ok(span) => match self.judge.deadlines().set_absence(seat, &span, game.max_absence_days) {
                Ok(()) => format!(
                    "Noted: you are away\n  from {}\n  to   {}.\nA deadline of game {} that falls in that time moves to its end\n(for your side only). ABSENCE END ends it early.\n",
                    deadlines::show(&stamp(span.from), &tz),
                    deadlines::show(&stamp(span.until), &tz),
                    seat.game_id
                ),
                Err(why) => self.error_text(&format!("The absence was not recorded: {why}."), &[], ""),
            },
            Err(why) => self.error_text(&format!("The absence was not recorded: {why}."), &[], ""),
        };
        answer.for_seat(self.judge.seat_address(seat), seat);
        answer.ok(text);
        Ok(())
    }

    /// The orders of a mail, if it has any: refused when they answer a
    /// turn already resolved, a team member's part (service/team.rs), or
    /// a seat's orders. Some(outcome) when they were not accepted.
    fn orders_of_mail(
        &self,
        tx: &Transaction<'_>,
        inbox_id: i64,
        req: &Request,
        seat: Authenticated,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<Option<Outcome>, ServiceError> {
        // Orders that name the turn they answer (TURN n) are refused when
        // that turn was already resolved (service/late.rs).
        if let (true, Some(n), Ok(s)) = (req.has_orders, req.turn, seat.as_ref()) {
            if let Some(why) = late::answered_turn_problem(tx, s, n)? {
                let text = self.error_text(
                    &format!(
                        "Your orders for game {} ({}) were not accepted:",
                        s.game_id, s.side
                    ),
                    std::slice::from_ref(&why),
                    "None of these orders were kept (orders you sent before for this\nphase, if any, still stand).",
                );
                answer.for_seat(self.judge.seat_address(s), s);
                answer.err(text);
                return Ok(Some((
                    "answered: orders for another turn".into(),
                    clip_text(&why, 5, 100),
                )));
            }
        }
        if !req.has_orders {
            return Ok(None);
        }
        // Team play: a member's part of his side's orders (service/team.rs);
        // None when the family cannot read the orders as a team's (then
        // the Commander-in-Chief's mail takes the ordinary path).
        let team_answer = match &seat {
            Ok(s) if self.judge.teams().in_team(tx, s)? => {
                let source = format!("mail:{inbox_id}");
                self.judge
                    .teams()
                    .team_orders(tx, s, &req.orders, &source, queue)?
            }
            _ => None,
        };
        match (team_answer, seat) {
            (Some(r), Ok(seat)) => {
                answer.for_seat(self.judge.seat_address(&seat), &seat);
                match r {
                    Ok(text) => {
                        answer.ok(text);
                        Ok(None)
                    }
                    Err(why) => {
                        let text = self.error_text(
                            &format!(
                                "Your orders for game {} ({}) were not accepted:",
                                seat.game_id, seat.side
                            ),
                            &[clip_text(&why, 20, 100)],
                            "Send the corrected orders in full; none of these were kept\n(orders you sent before for this turn, if any, still stand).",
                        );
                        answer.err(text);
                        Ok(Some((
                            "answered: orders rejected".into(),
                            clip_text(&why, 5, 100),
                        )))
                    }
                }
            }
            (_, Ok(seat)) => self.seat_orders(tx, inbox_id, req, &seat, queue, answer),
            (_, Err(why)) => {
                if let Some(notice) = why {
                    queue.push(notice, "notice");
                }
                answer.err(self.not_authenticated());
                Ok(Some((
                    "answered: orders without a valid seat".into(),
                    String::new(),
                )))
            }
        }
    }

    /// A seat's orders: the receipt, or why they were not accepted.
    fn seat_orders(
        &self,
        tx: &Transaction<'_>,
        inbox_id: i64,
        req: &Request,
        seat: &Seat,
        queue: &mut Queue,
        answer: &mut Answer,
    ) -> Result<Option<Outcome>, ServiceError> {
        let source = format!("mail:{inbox_id}");
        match self
            .judge
            .turns()
            .submit_orders(tx, seat, &req.orders, &source, queue)
        {
            Ok((submitted, orders)) => {
                let game =
                    store::game(tx, seat.game_id)?.ok_or(ServiceError::NoGame(seat.game_id))?;
                // The position the player may see (service/sight.rs):
                // in review mode, not the held one.
                let seen = sight::visible_turn(&game, &Viewer::Side(seat.side.clone()));
                let hash = store::snapshot(tx, seat.game_id, Some(seen))?
                    .map(|(_, _, h)| h)
                    .unwrap_or_default();
                let (turn, held, waiting_for, replaced) = match submitted {
                    Submitted::Resolved { turn } => (turn, false, Vec::new(), false),
                    Submitted::Held {
                        waiting_for,
                        replaced,
                    } => (game.turn + 1, true, waiting_for, replaced),
                };
                let (orders, orders_more) = crate::protocol::echo_lines(&orders);
                let orders = crate::protocol::echo_wrapped(orders);
                let text = self.templates.render(
                    "receipt.txt",
                    json!({"game_id": seat.game_id, "side": seat.side, "turn": turn,
                           "held": held, "waiting_for": waiting_for.join(" and "),
                           "replaced": replaced,
                           "orders": orders, "orders_more": orders_more,
                           "state_hash": sealed_state(&Judge::master(&game)?, &hash),
                           "ignored": crate::protocol::echo_wrapped(&req.ignored.iter()
                               .map(|(l, t)| format!("line {l}: {t}"))
                               .collect::<Vec<_>>()),
                           "ignored_more": req.ignored_total - req.ignored.len()}),
                );
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.ok(text);
                Ok(None)
            }
            Err(ServiceError::Rejected(rej)) => {
                let text = self.error_text(
                    &format!(
                        "Your orders for game {} ({}) were not accepted:",
                        seat.game_id, seat.side
                    ),
                    &[clip_text(&rej.to_string(), 20, 100)],
                    "Send the corrected orders in full; none of these were kept\n(orders you sent before for this phase, if any, still stand).",
                );
                answer.for_seat(self.judge.seat_address(seat), seat);
                answer.err(text);
                Ok(Some((
                    "answered: orders rejected".into(),
                    clip_text(&rej.to_string(), 5, 100),
                )))
            }
            Err(e) => Err(e),
        }
    }
}
