//! Turn reports: what each reader of a game is sent after a turn, and
//! the text of a turn as one viewer sees it (HISTORY, `show`).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The reports use case: who is sent each turn's report and as whom (a
/// job rendered at delivery), review mode's hold, and a past turn's report
/// (HISTORY, `show`, the replay page). It reads the database, the host's
/// picture from the config, tells the time by the judge's clock and
/// renders from the templates; the teams' members and the seats' reply
/// addresses are reached through `judge`. [`Judge::reports`] hands it out.
pub struct Reports<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    cfg: &'a Config,
    clock: &'a dyn Clock,
    templates: &'a Templates,
}

impl Judge {
    /// The reports use case, on this judge's database, config, clock and
    /// templates.
    #[must_use]
    pub fn reports(&self) -> Reports<'_> {
        Reports {
            judge: self,
            conn: &self.conn,
            cfg: &self.cfg,
            clock: self.clock.as_ref(),
            templates: &self.templates,
        }
    }
}

impl Reports<'_> {
    /// Queue the reports of `made`: to everyone, or, in review mode, to the
    /// referee alone until it approves (the players' reports of every turn
    /// since the review began are sent then, as one).
    pub(super) fn report_made(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        rules: &Rules,
        made: &[MadeTurn],
        state: &State,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let review = game.review_secs.is_some() && store::referee(tx, game.id)?.is_some();
        if review {
            if game.held_from.is_none() {
                if let Some(first) = made.first() {
                    store::games::hold(tx, game.id, first.turn, &stamp(self.clock.now()))?;
                }
            }
            let game = store::game(tx, game.id)?.ok_or(ServiceError::NoGame(game.id))?;
            self.queue_reports(tx, &game, rules, made, state, Audience::Referee, queue)
        } else {
            self.queue_reports(tx, game, rules, made, state, Audience::All, queue)
        }
    }

    /// Queue one report of `made` per recipient of `audience`, as a job
    /// rendered at delivery ([`deferred`]): `state` is the position after
    /// `made`'s last turn, as stored, and `game` the row as it is now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn queue_reports(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        rules: &Rules,
        made: &[MadeTurn],
        state: &State,
        audience: Audience,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        // Who gets this turn's report, and as whom: every seat from its own
        // side, observers as the public, the referee from above.
        let host = self.cfg.judge.picture;
        // The sides the judge plays (issue 58), named in each report.
        // The seats, read once (each read derives every seat's words).
        let seats = store::seats(tx, game.id)?;
        let judge_plays: Vec<String> = seats
            .iter()
            .filter(|s| s.email == super::JUDGE_SEAT)
            .map(|s| s.side.clone())
            .collect();
        let mut recipients: Vec<Recipient> = Vec::new();
        if audience != Audience::Referee {
            let seats = seats
                .into_iter()
                .filter(|s| s.email != OPEN_SEAT && s.email != super::JUDGE_SEAT);
            for s in seats.chain(self.judge.teams().extra_members(tx, game.id)?) {
                let (reply_to, picture) =
                    (Some(self.judge.seat_address(&s)), self.judge.picture_of(&s));
                recipients.push((
                    s.email,
                    Viewer::Side(s.side),
                    s.tz,
                    reply_to,
                    "report",
                    picture,
                ));
            }
            for o in store::observers(tx, game.id)? {
                recipients.push((o, Viewer::Observer, "UTC".into(), None, "observer", host));
            }
        }
        if audience != Audience::Players {
            if let Some(referee) = game.referee.clone() {
                let reply_to =
                    store::referee(tx, game.id)?.map(|r| self.judge.address_of(&r.token));
                recipients.push((
                    referee,
                    Viewer::Referee,
                    game.referee_tz.clone(),
                    reply_to,
                    "referee",
                    host,
                ));
            }
        }
        // Team play: each member's own order template in place of the side's.
        let members = self
            .judge
            .teams()
            .team_recipients(tx, rules, state, game.id)?;
        for (to, viewer, tz, reply_to, kind, picture) in recipients {
            let member = match &viewer {
                Viewer::Side(side) => members
                    .iter()
                    .find(|(s, ..)| {
                        &s.side == side
                            && reply_to.as_deref() == Some(self.judge.seat_address(s).as_str())
                    })
                    .map(|(_, no, sections)| (sections.clone(), *no == 0)),
                _ => None,
            };
            let (Some(first), Some(last)) = (made.first(), made.last()) else {
                return Err(ServiceError::Invalid("no turn to report".into()));
            };
            // Rendered at delivery from what the database keeps (see
            // [`deferred`]); the game's row as it is now goes with it.
            let thread = store::welcome_message_id(tx, game.id, &to)?;
            queue.mails.push((
                Queued::Report(Box::new(deferred::ReportJob {
                    game: game.id,
                    first: first.turn,
                    last: last.turn,
                    status: game.status.clone(),
                    turn: game.turn,
                    result: game.result.clone(),
                    deadline_at: game.deadline_at.clone(),
                    held_from: game.held_from,
                    to,
                    viewer,
                    tz,
                    reply_to,
                    member,
                    picture: Some(picture),
                    thread,
                    judge_plays: judge_plays.clone(),
                    // Set by the turn's hand-over (`deferred::hand_over`).
                    hand: None,
                })),
                kind,
            ));
        }
        Ok(())
    }

    /// The report of a past turn, for `viewer`, as text.
    pub fn turn_report_text(
        &self,
        game: &Game,
        turn: u32,
        viewer: &Viewer,
    ) -> Result<String, ServiceError> {
        self.turn_report(game, turn, viewer).map(|(t, _)| t)
    }

    /// The report of a past turn, for `viewer`: its text and every part
    /// (HTML board, SVG, JSON view).
    pub fn turn_report(
        &self,
        game: &Game,
        turn: u32,
        viewer: &Viewer,
    ) -> Result<(String, crate::report::Parts), ServiceError> {
        let Position {
            rules, state, hash, ..
        } = Judge::position_in(self.conn, game, Some(turn))?;
        if turn == 0 {
            let parts = rules.report_parts(&state, &[], viewer, None);
            let text = format!("Game {}: the opening position.\n\n{}", game.id, parts.map);
            return Ok((text, parts));
        }
        let events: Vec<crate::rules::Event> = store::events(self.conn, game.id, Some(turn))?
            .into_iter()
            .map(|(_, e)| rules.event_from_store(e))
            .collect();
        let movers = store::submissions(self.conn, game.id)?
            .into_iter()
            .filter(|s| s.turn == turn)
            .map(|s| s.side)
            .collect();
        let tz = match viewer {
            Viewer::Side(side) => store::seats(self.conn, game.id)?
                .into_iter()
                .find(|s| &s.side == side)
                .map_or_else(|| "UTC".to_string(), |s| s.tz),
            _ => game.referee_tz.clone(),
        };
        let made = [MadeTurn {
            turn,
            movers,
            events,
            hash,
        }];
        report_text(self.templates, game, &rules, &made, &state, viewer, &tz)
    }
}

/// The report of `made` (one phase, or one and the judge's own phases
/// after it) for `viewer`: its text and every part.
pub(super) fn report_text(
    templates: &Templates,
    game: &Game,
    rules: &Rules,
    made: &[MadeTurn],
    state: &State,
    viewer: &Viewer,
    tz: &str,
) -> Result<(String, crate::report::Parts), ServiceError> {
    let master = Judge::master(game)?;
    let Some(last) = made.last() else {
        return Err(ServiceError::Invalid("no turn to report".into()));
    };
    let turn = last.turn;
    let events: Vec<crate::rules::Event> =
        made.iter().flat_map(|m| m.events.iter().cloned()).collect();
    let movers = made
        .iter()
        .find(|m| !m.movers.is_empty())
        .map(|m| m.movers.clone())
        .unwrap_or_default();
    let mover = match movers.as_slice() {
        [one] if one != crate::rules::REFEREE_SIDE => Some(one.as_str()),
        _ => None,
    };
    // The referee's corrections are said first, whatever the family's
    // combat report makes of the turn.
    let by_referee = |m: &&MadeTurn| m.movers.iter().any(|s| s == crate::rules::REFEREE_SIDE);
    let of = |referee: bool| -> Vec<crate::rules::Event> {
        made.iter()
            .filter(|m| by_referee(m) == referee)
            .flat_map(|m| m.events.iter().cloned())
            .collect()
    };
    let lines = rules.describe_events(state, &of(false), viewer);
    let referee_lines = rules.describe_events(state, &of(true), viewer);
    let over = game.status == "over" && game.turn == turn;
    let parts = rules.report_parts(state, &events, viewer, mover);
    let earlier: Vec<serde_json::Value> = made[..made.len() - 1]
        .iter()
        .map(|m| json!({"turn": m.turn, "seed": hex::encode(dice::turn_seed(&master, m.turn))}))
        .collect();
    // Fog of war: the seeds would replay the dice of what a side cannot
    // see; they are the referee's until the game ends (the game seed
    // then opens them all). The commitments still go out at once.
    let seeds_sealed = !over && rules.fog_of_war(state) && !matches!(viewer, Viewer::Referee);
    let text = templates.render(
        "turn_report.txt",
        json!({
            "game_id": game.id, "scenario": game.scenario,
            "turn": turn, "turns": made_turns(made),
            "mover": mover_label(&movers),
            "events": lines, "combat": parts.combat, "map": parts.map,
            "referee_lines": referee_lines,
            "orders_template": parts.orders,
            "over": over, "result": result_line(game.result.as_deref()),
            "seed": if over { game.seed.clone() } else { String::new() },
            "waiting": waiting_line(&rules.phase(state)),
            "deadline": game.deadline_at.as_deref().map(|d| deadlines::show(d, tz)),
            "earlier_seeds": if seeds_sealed { Vec::new() } else { earlier },
            "seeds_sealed": seeds_sealed,
            "turn_seed": if seeds_sealed { String::new() } else { hex::encode(dice::turn_seed(&master, turn)) },
            "next_commitment": dice::commitment(&dice::turn_seed(&master, turn + 1)),
            "state_hash": sealed_state(&master, &last.hash),
        }),
    );
    Ok((text, parts))
}
