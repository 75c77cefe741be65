//! The inbound use case (docs/architecture.md, "The service and the binary
//! by use-case"): one mail recorded, handled and answered in one
//! transaction: the duplicate check, the answer caps, authentication and
//! the STATUS answer here; the checks on the mail, the parse and one
//! handler per mail command in commands.rs.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The inbound pipeline: the database, the host's config (limits, caps,
/// addresses), the clock and the templates of its answers. Turns, seats,
/// deadlines, campaigns, standings, the referee's and a team's commands,
/// PREDICT and the outbox are other use cases, reached through `judge`.
/// [`Judge::inbound`] hands it out.
pub struct Pipeline<'a> {
    pub(super) judge: &'a Judge,
    pub(super) conn: &'a Connection,
    pub(super) cfg: &'a Config,
    pub(super) clock: &'a dyn Clock,
    pub(super) templates: &'a Templates,
}

impl Judge {
    /// The inbound use case, on this judge's database, config, clock and
    /// templates.
    #[must_use]
    pub fn inbound(&self) -> Pipeline<'_> {
        Pipeline {
            judge: self,
            conn: &self.conn,
            cfg: &self.cfg,
            clock: self.clock.as_ref(),
            templates: &self.templates,
        }
    }
}

/// What handling a mail did, before its commit.
struct Handled {
    outcome: String,
    /// The outcome's detail, for the log.
    detail: String,
    replies: usize,
}

impl Handled {
    /// Logs the mail's outcome (once its work is kept).
    fn logged(self, env: &Envelope) -> MailOutcome {
        let Handled {
            outcome,
            detail,
            replies,
        } = self;
        tracing::info!(
            "mail {} from {}: {outcome}{}",
            env.message_id.as_deref().unwrap_or("(no Message-ID)"),
            env.from.as_deref().unwrap_or("(no sender)"),
            if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            }
        );
        MailOutcome::Handled { outcome, replies }
    }
}

impl Pipeline<'_> {
    /// Record, handle and answer one inbound message, all in one transaction.
    pub fn handle_mail(&self, raw: &[u8], source: &str) -> Result<MailOutcome, ServiceError> {
        let read = Inbound::read(self.cfg, raw);
        self.handle_inbound(raw, read, source)
    }

    /// [`Pipeline::handle_mail`] for a mail already read by [`Inbound::read`]
    /// (perhaps on another thread: reading needs no database).
    pub fn handle_inbound(
        &self,
        raw: &[u8],
        read: Inbound,
        source: &str,
    ) -> Result<MailOutcome, ServiceError> {
        let Some(env) = self.not_seen(read)? else {
            return Ok(MailOutcome::Duplicate);
        };
        let tx = self.begin()?;
        let done = self.handle_in(&tx, raw, &env, source)?;
        crate::fault::full()?;
        crate::store::commit(tx)?;
        Ok(done.logged(&env.0))
    }

    /// [`Pipeline::handle_mail`] inside a commit group's transaction `tx`
    /// (src/daemon.rs, `Group`): the mail's work is a savepoint of it, kept
    /// when the mail is handled, undone alone when it fails (an error or a
    /// panic); the group's one commit makes it durable.
    pub fn handle_mail_in(
        &self,
        tx: &Transaction<'_>,
        raw: &[u8],
        source: &str,
    ) -> Result<MailOutcome, ServiceError> {
        self.handle_inbound_in(tx, raw, Inbound::read(self.cfg, raw), source)
    }

    /// [`Pipeline::handle_mail_in`] for a mail already read.
    pub fn handle_inbound_in(
        &self,
        tx: &Transaction<'_>,
        raw: &[u8],
        read: Inbound,
        source: &str,
    ) -> Result<MailOutcome, ServiceError> {
        let Some(env) = self.not_seen(read)? else {
            return Ok(MailOutcome::Duplicate);
        };
        let mail = store::Nested::begin(tx, "mail")?;
        let done = self.handle_in(tx, raw, &env, source)?;
        crate::fault::full()?;
        mail.keep()?;
        Ok(done.logged(&env.0))
    }

    /// The mail's envelope, or None for a duplicate (by Message-ID or
    /// content hash) of a mail in the inbox log.
    fn not_seen(&self, read: Inbound) -> Result<Option<(Envelope, String)>, ServiceError> {
        let Inbound { content_hash, env } = read;
        if store::inbox_seen(self.conn, env.message_id.as_deref(), &content_hash)?.is_some() {
            // A mail set aside and put back by the host (out of
            // quarantine/) is handled again, its failures counted afresh.
            if store::inbox_forget_set_aside(self.conn, &content_hash)? == 0 {
                return Ok(None);
            }
            tracing::info!("a mail set aside before is back: handled again");
            if store::inbox_seen(self.conn, env.message_id.as_deref(), &content_hash)?.is_some() {
                return Ok(None);
            }
        }
        Ok(Some((env, content_hash)))
    }

    /// Records, handles and answers a mail not seen before in `tx`: its
    /// inbox row, its commands, its answers queued in the outbox.
    fn handle_in(
        &self,
        tx: &Transaction<'_>,
        raw: &[u8],
        seen: &(Envelope, String),
        source: &str,
    ) -> Result<Handled, ServiceError> {
        let (env, content_hash) = (&seen.0, &seen.1);
        let now = self.now();
        let inbox_id = store::insert_inbox(
            tx,
            &InboxEntry {
                message_id: env.message_id.clone(),
                content_hash: content_hash.clone(),
                source: source.to_string(),
                sender: env.from.clone(),
                subject: Some(
                    protocol::hide_password(&env.subject)
                        .chars()
                        .take(200)
                        .collect(),
                ),
                size: raw.len(),
                received_at: now,
                outcome: "pending".into(),
                detail: String::new(),
            },
        )?;
        crate::fault::nth("inbound-recorded");
        let mut queue = Queue::new();
        let mut answer = Answer::default();
        let (mut outcome, detail) = self.decide(tx, inbox_id, env, &mut queue, &mut answer)?;
        if let Some(from) = env.from.as_deref() {
            let mails = self.answer_mails(env, from, answer);
            let (mails, why) = self.within_caps(tx, env, mails)?;
            if let Some(why) = why {
                outcome = format!("{outcome} (not answered: {why})");
            }
            for (m, kind) in mails {
                queue.push(m, kind);
            }
        }
        let (replies, failed) = self.judge.outbox().flush(tx, content_hash, queue)?;
        if !failed.is_empty() {
            // The log must not say "answered" when nothing went out.
            outcome = format!("{outcome} (not sent: {})", failed.join("; "));
        }
        store::set_inbox_outcome(tx, inbox_id, &outcome, &detail)?;
        Ok(Handled {
            outcome,
            detail,
            replies,
        })
    }

    pub(super) fn reply(&self, env: &Envelope, to: &str, subject: &str, text: String) -> Outgoing {
        Outgoing {
            to: to.to_string(),
            subject: if subject.is_empty() {
                format!(
                    "Re: {}",
                    protocol::safe_subject(protocol::strip_reply_prefixes(&env.subject), 100)
                )
            } else {
                subject.to_string()
            },
            text,
            in_reply_to: env.message_id.clone(),
            replying: true,
            ..Outgoing::default()
        }
    }

    pub(super) fn error_text(&self, intro: &str, problems: &[String], outro: &str) -> String {
        self.templates.render(
            "error.txt",
            json!({ "intro": intro, "problems": problems, "outro": outro }),
        )
    }

    /// The commands of a mail that will be done: each once (a repeated
    /// command is done once), at most `limits.commands_per_mail` of them;
    /// the answer says what was left undone.
    pub(super) fn commands_to_do(&self, commands: &[Command], answer: &mut Answer) -> Vec<Command> {
        let mut todo: Vec<Command> = Vec::new();
        let mut left = 0usize;
        for c in commands {
            if todo.contains(c) {
                continue;
            }
            if todo.len() >= self.cfg.limits.commands_per_mail {
                left += 1;
            } else {
                todo.push(c.clone());
            }
        }
        if left > 0 {
            answer.err(format!(
                "{left} more command(s) in your mail were not done: this judge does at most\n{} commands a mail. Send them in another mail.\n",
                self.cfg.limits.commands_per_mail
            ));
        }
        todo
    }

    /// Apply the caps on answers (`[limits]`) to a mail's answer mails.
    /// Returns the mails to send and, when some were held back, why.
    ///
    /// In order: a mail that answers one of our error answers gets no second
    /// error answer; an address gets at most `error_answers_per_address_day`
    /// error answers; everyone together gets at most `answers_per_hour` and
    /// `answers_per_day` answers; one address at most
    /// `answers_per_address_hour` and `answers_per_address_day`. The first
    /// mail over an address's cap gets one short note saying so, once per
    /// hour; every other one is logged and not answered. Every kind of
    /// answer counts (receipts, replies, errors, notices, these notes).
    pub(super) fn within_caps(
        &self,
        tx: &Transaction<'_>,
        env: &Envelope,
        mails: Vec<(Outgoing, &'static str)>,
    ) -> Result<(Vec<Mail>, Option<String>), ServiceError> {
        if mails.is_empty() {
            return Ok((mails, None));
        }
        let lim = &self.cfg.limits;
        let is_error = mails.iter().all(|(_, k)| *k == "error");
        // Loop brake: a mail answering one of our error answers, whatever it
        // is (a responder that ignores Auto-Submitted).
        if is_error {
            if let Some(irt) = env.in_reply_to.as_deref() {
                let ours = store::errors_with_message_id(tx, irt)?;
                if ours > 0 {
                    return Ok((Vec::new(), Some("it replies to an error answer".into())));
                }
            }
        }
        let now = self.clock.now();
        let hour = stamp(now - chrono::Duration::hours(1));
        let day = stamp(now - chrono::Duration::days(1));
        // A recipient's answers of some kinds since a time, by its index.
        let count = |to: &str, since: &str, kinds: AnswerKinds| -> Result<i64, ServiceError> {
            Ok(store::answers_to_since(tx, to, since, kinds)?)
        };
        // Everyone's answers since a time, from the tally kept by the
        // minute (an answer in the window's first minute counts whole):
        // walking every answer of the day made each mail of a backlog
        // slower than the one before.
        let everyone =
            |since: &str| -> Result<i64, ServiceError> { Ok(store::answers_since(tx, since)?) };
        use store::AnswerKinds;
        if is_error {
            let to = mails[0].0.to.as_str();
            if count(to, &day, AnswerKinds::Errors)? >= lim.error_answers_per_address_day {
                return Ok((
                    Vec::new(),
                    Some("too many error answers to this address today".into()),
                ));
            }
        }
        let n = mails.len() as i64;
        if everyone(&hour)? + n > lim.answers_per_hour || everyone(&day)? + n > lim.answers_per_day
        {
            return Ok((
                Vec::new(),
                Some("the judge's answers for this hour or day are used up".into()),
            ));
        }
        let mut out = Vec::new();
        let mut held = Vec::new();
        for (m, kind) in mails {
            let to = m.to.clone();
            let h = count(&to, &hour, AnswerKinds::All)?;
            let d = count(&to, &day, AnswerKinds::All)?;
            if h < lim.answers_per_address_hour && d < lim.answers_per_address_day {
                out.push((m, kind));
                continue;
            }
            held.push(to.clone());
            // Told once an hour that it is over the cap.
            if count(&to, &hour, AnswerKinds::Limits)? == 0 {
                let (cap, per) = if h >= lim.answers_per_address_hour {
                    (lim.answers_per_address_hour, "an hour")
                } else {
                    (lim.answers_per_address_day, "a day")
                };
                let mut note = self.reply(
                    env,
                    &to,
                    "Adjutant: answers paused",
                    format!(
                        "This judge answers an address at most {cap} times {per}, and {to}\nhas had that many. Your mails are still read and orders in them are\nstill used, but they are not answered until the count drops.\n"
                    ),
                );
                note.game_id = m.game_id;
                out.push((note, "limit"));
            }
        }
        let why = (!held.is_empty()).then(|| format!("answer cap reached for {}", held.join(", ")));
        Ok((out, why))
    }

    /// The mails that carry a mail's answer: one to the sender, and for an
    /// authenticated seat whose registered address is not the sender, a copy
    /// to that address (so a player learns at once if someone else is
    /// playing the seat). A referee's answer goes to its registered address
    /// only. Answers to senders without a seat are short (see `decide`).
    pub(super) fn answer_mails(
        &self,
        env: &Envelope,
        from: &str,
        answer: Answer,
    ) -> Vec<(Outgoing, &'static str)> {
        if answer.parts.is_empty() {
            return Vec::new();
        }
        let kind = if answer.is_error() { "error" } else { "reply" };
        let subject = match (&answer.subject, answer.parts.len()) {
            (Some(s), 1) => s.clone(),
            _ => String::new(),
        };
        let mut text = answer.parts.join("\n");
        let to_registered = answer.only_registered
            && answer
                .registered
                .as_deref()
                .is_some_and(|r| !r.eq_ignore_ascii_case(from));
        let copy = match answer.registered.as_deref() {
            Some(r) if !r.eq_ignore_ascii_case(from) && !answer.only_registered => {
                Some(r.to_string())
            }
            _ => None,
        };
        if let Some(r) = &copy {
            text = format!(
                "(A copy of this answer goes to {r},\nthe address registered for this seat.)\n\n{text}"
            );
        }
        let mut m = self.reply(env, from, &subject, text);
        if to_registered {
            m.to = answer.registered.clone().unwrap_or_default();
        }
        m.reply_to = answer.reply_to.clone();
        m.game_id = answer.game_id;
        let picture = answer.picture.unwrap_or(self.cfg.judge.picture);
        // A command's files go after view.json, within the mail's size
        // bound (show_board_with).
        match &answer.board {
            Some((heading, parts)) => {
                show_board_with(&mut m, parts, heading, picture, (None, &answer.files));
            }
            None => m.attachments.extend(answer.files.iter().cloned()),
        }
        let mut out = vec![(m.clone(), kind)];
        if let Some(r) = copy {
            let mut c = m;
            c.to = r;
            c.text = format!(
                "A mail for your seat in game {} came from {from}.\nThe judge's answer to it was:\n\n{}",
                answer.game_id.unwrap_or_default(),
                c.text
            );
            if let Some((heading, parts)) = &answer.board {
                show_board_with(&mut c, parts, heading, picture, (None, &answer.files));
            }
            out.push((c, kind));
        }
        out
    }

    /// Does this address have a seat, a referee desk or an observer place
    /// in any game here?
    pub(super) fn known_address(&self, email: &str) -> Result<bool, ServiceError> {
        Ok(store::seats::known_address(self.conn, email)?)
    }

    pub(super) fn not_authenticated(&self) -> String {
        self.error_text(
            "I could not tell which game and seat your mail is for.",
            &[],
            "Reply to a mail from the judge about your game (its reply address\ncarries your seat), or put the lines GAME <id> and PASSWORD <secret>\nfrom your welcome mail at the top of your mail.",
        )
    }

    /// The seat a mail speaks for: its plus-address token, or GAME and
    /// PASSWORD. `Err(Some(notice))` carries a mail for the registered
    /// address when a wrong secret was tried.
    pub(super) fn authenticate(
        &self,
        env: &Envelope,
        req: &Request,
    ) -> Result<Result<Seat, Option<Outgoing>>, ServiceError> {
        for to in &env.to {
            if let Some(tok) = protocol::token_of(to, self.cfg.local_part(), self.cfg.domain()) {
                if let Some(seat) = store::seat_by_token(self.conn, &tok)? {
                    return Ok(Ok(seat));
                }
                if let Some(seat) = self.judge.teams().member_by_token(&tok)? {
                    return Ok(Ok(seat));
                }
            }
        }
        if let (Some(game), Some(pw)) = (req.game, req.password.as_deref()) {
            let seats = store::seats(self.conn, game)?;
            if let Some(seat) = seats.iter().find(|s| s.secret == pw.to_ascii_lowercase()) {
                return Ok(Ok(seat.clone()));
            }
            if let Some(seat) = self.judge.teams().member_by_secret(game, pw)? {
                return Ok(Ok(seat));
            }
            // A wrong secret: tell the seat registered at the sender's address
            // (never the sender as such), at most 3 times a day per game.
            let from = env.from.clone().unwrap_or_default();
            if let Some(seat) = seats.iter().find(|s| s.email.eq_ignore_ascii_case(&from)) {
                let since = stamp(self.clock.now() - chrono::Duration::days(1));
                let recent = store::notices_since(self.conn, game, &since)?;
                if recent < 3 {
                    let text = format!(
                        "A mail for game {game} from this address gave a wrong secret, so it\nwas not used. If that was not you, someone may be trying to play\nyour seat; the judge never acts on a wrong secret.\n"
                    );
                    return Ok(Err(Some(Outgoing {
                        to: seat.email.clone(),
                        subject: format!("Game {game}: a mail with a wrong secret"),
                        text,
                        reply_to: Some(self.judge.seat_address(seat)),
                        game_id: Some(game),
                        ..Outgoing::default()
                    })));
                }
            }
        }
        Ok(Err(None))
    }

    /// The STATUS answer, to the registered address only: every seat of
    /// that address, what its game waits for as the seat may see it
    /// ([`sight`]), and the seat's secret as it stands. STATUS never
    /// changes a credential (docs/security.md, "Lost secrets"): the From
    /// address is all a STATUS has, and a forger gets nothing from it (the
    /// answer goes to the registered address) nor can make a player's
    /// written-down secret stop working.
    pub(super) fn status_text(&self, email: &str) -> Result<String, ServiceError> {
        let mut games = Vec::new();
        let mut seats = store::seats_of_email(self.conn, email)?;
        // Team members beyond a side's first seat (service/team.rs) too.
        for m in store::team::members_of_email(self.conn, email)? {
            seats.push(m.seat());
        }
        for seat in seats {
            let game = self.judge.game(seat.game_id)?;
            let viewer = Viewer::Side(seat.side.clone());
            let seen = sight::visible_turn(&game, &viewer);
            let waiting = if sight::holds_back(&game, &viewer) {
                sight::held_line(&game)
            } else if game.status == "over" {
                format!("The game is over. {}", result_line(game.result.as_deref()))
            } else {
                let Position { rules, state, .. } = self.judge.position(&game, None)?;
                let w = rules.phase(&state);
                let held = store::pending(self.conn, game.id)?
                    .iter()
                    .any(|p| p.side == seat.side);
                if held {
                    format!(
                        "Your orders for this phase are held until the others have sent\ntheirs. {}",
                        w.what
                    )
                } else if w.sides.contains(&seat.side) {
                    format!("Waiting for your orders. {}", w.what)
                } else {
                    waiting_line(&w)
                }
            };
            games.push(
                json!({"id": game.id, "scenario": game.scenario, "side": seat.side,
                               "turn": seen, "waiting": waiting,
                               // This answer goes only to the seat's
                               // registered address, never to a Reply-To.
                               "secret": seat.secret}),
            );
        }
        Ok(self
            .templates
            .render("status.txt", json!({ "games": games })))
    }

    /// An IMMEDIATE transaction on the pipeline's connection (`store::begin_immediate`).
    pub(super) fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    pub(super) fn now(&self) -> String {
        stamp(self.clock.now())
    }
}
