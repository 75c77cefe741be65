//! Campaigns (issue 11): a series of battles with the same seats, each
//! created as the last one ends (or all at once), the pre-battle dice of the
//! next battle from the last one's result (given to the family as the game
//! option `campaign-dice`; a family without campaign rules refuses it),
//! standings per player, and an export
//! that `verify` checks battle by battle and link by link.

use super::campaign_file::Plan;
use super::clock::Clock;
use super::{Game, GameOptions, Judge, Queue, ServiceError, OPEN_SEAT};
use crate::mail::outbound::Outgoing;
use crate::store::{self, campaign as cstore};
use crate::store::{Connection, Transaction};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a host asks for.
#[derive(Debug, Clone, Default)]
pub struct CampaignSpec {
    pub name: String,
    /// Scenario ids or files, in the order of the battles.
    pub scenarios: Vec<String>,
    /// (side, email): the same seats in every battle.
    pub players: Vec<(String, String)>,
    pub opts: GameOptions,
    /// Create every battle at once (no pre-battle dice then).
    pub all_at_once: bool,
    /// A campaign file's battles, roles and branches (`campaign new
    /// --file`): `players` are then (role, email) and `scenarios` unused.
    pub plan: Option<Plan>,
}

/// The options every battle is created with, as the campaign keeps them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
struct Stored {
    deadline_secs: Option<i64>,
    nmr_policy: String,
    grace_secs: i64,
    referee: Option<String>,
    referee_after: i64,
    review_secs: Option<i64>,
    rule_options: BTreeMap<String, String>,
    zones: Vec<(String, String)>,
    all_at_once: bool,
    /// The campaign file's plan: the players' records are then by role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    plan: Option<Plan>,
}

/// A battle's outcome as the campaign records it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Outcome {
    /// The winner's side, "" for a draw.
    pub winner: String,
    /// Victory points per side.
    pub points: BTreeMap<String, u32>,
    /// Who played each side when it ended (its Commander-in-Chief).
    pub players: BTreeMap<String, String>,
    /// A team's Field Marshals per side when it ended, in seat order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub team: BTreeMap<String, Vec<String>>,
}

impl Outcome {
    /// Did the player at `email` play `side` in this battle (as its
    /// Commander-in-Chief or one of its Field Marshals)?
    #[must_use]
    pub fn played(&self, side: &str, email: &str) -> bool {
        self.players.get(side).is_some_and(|e| e == email)
            || self
                .team
                .get(side)
                .is_some_and(|m| m.iter().any(|e| e == email))
    }
}

/// One player's record in a campaign.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub side: String,
    pub email: String,
    pub battles: u32,
    pub wins: u32,
    pub points: u32,
    /// Pre-battle dice rolled for this player.
    pub pre_battle_dice: u32,
    /// Orders sent in time; phases played for him by the NMR policy.
    pub orders: u32,
    pub nmr: u32,
    pub current: bool,
}

/// The campaigns use case: creating a campaign's battles, the next one
/// as the last ends, its records, text and export. It reads and writes the
/// database and tells the time by the judge's clock; a battle's game, its
/// export and the outbox are other use cases', reached through `judge`.
/// [`Judge::campaigns`] hands it out.
pub struct Campaigns<'a> {
    judge: &'a Judge,
    conn: &'a Connection,
    clock: &'a dyn Clock,
}

impl Judge {
    /// The campaigns use case, on this judge's database and clock.
    #[must_use]
    pub fn campaigns(&self) -> Campaigns<'_> {
        Campaigns {
            judge: self,
            conn: &self.conn,
            clock: self.clock.as_ref(),
        }
    }
}

impl Campaigns<'_> {
    /// `campaign new`: the campaign, its battles and players, and the first
    /// battle (or all of them) created and welcomed.
    pub fn create(&self, spec: &CampaignSpec) -> Result<(i64, Vec<i64>), ServiceError> {
        let name = spec.name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) || name.len() > 64 {
            return Err(ServiceError::Invalid(
                "a campaign name is one word of at most 64 characters".into(),
            ));
        }
        let scenarios: Vec<String> = match &spec.plan {
            Some(plan) => plan
                .path(&[])
                .into_iter()
                .map(|i| plan.battles[i].scenario.clone())
                .collect(),
            None => spec.scenarios.clone(),
        };
        if spec.plan.as_ref().is_some_and(|_| spec.all_at_once) {
            return Err(ServiceError::Invalid(
                "a campaign file's battles are played one by one (no --all-at-once)".into(),
            ));
        }
        if scenarios.is_empty() {
            return Err(ServiceError::Invalid(
                "a campaign needs at least one --scenario".into(),
            ));
        }
        if cstore::by_name(self.conn, name)?.is_some() {
            return Err(ServiceError::Invalid(format!(
                "there is already a campaign named {name}"
            )));
        }
        check_players(spec)?;
        match &spec.plan {
            Some(plan) => check_roles(spec, plan)?,
            None => check_battles(spec)?,
        }
        let stored = Stored {
            deadline_secs: spec.opts.deadline_secs,
            nmr_policy: spec.opts.nmr_policy.clone(),
            grace_secs: spec.opts.grace_secs,
            referee: spec.opts.referee.clone(),
            referee_after: spec.opts.referee_after,
            review_secs: spec.opts.review_secs,
            rule_options: spec.opts.rule_options.clone(),
            zones: spec.opts.zones.clone(),
            all_at_once: spec.all_at_once,
            plan: spec.plan.clone(),
        };
        let now = self.now();
        let tx = self.begin()?;
        let mut queue = Queue::new();
        let id = cstore::insert(
            &tx,
            name,
            &serde_json::to_string(&stored).unwrap_or_else(|_| "{}".into()),
            &now,
        )?;
        for (i, sc) in scenarios.iter().enumerate() {
            cstore::insert_battle(&tx, id, i as u32 + 1, sc)?;
        }
        for (side, email) in &spec.players {
            cstore::insert_player(
                &tx,
                id,
                &side.to_ascii_lowercase(),
                &email.to_ascii_lowercase(),
                &now,
            )?;
        }
        let c = cstore::by_name(&tx, name)?.ok_or_else(|| ServiceError::Invalid("lost".into()))?;
        let mut games = Vec::new();
        let upto = if spec.all_at_once { scenarios.len() } else { 1 };
        for seq in 1..=upto {
            // In the campaign's words: the battle by number and scenario.
            let game = self
                .create_battle(&tx, &c, seq as u32, &mut queue)
                .map_err(|e| match e {
                    ServiceError::Invalid(_) | ServiceError::NoSide(..) => {
                        ServiceError::Invalid(format!(
                            "battle {seq} ({}): {}",
                            scenarios[seq - 1],
                            campaign_words(&e)
                        ))
                    }
                    e => e,
                })?;
            games.push(game);
        }
        self.judge
            .outbox()
            .flush(&tx, &format!("campaign-{id}-start"), queue)?;
        crate::store::commit(tx)?;
        Ok((id, games))
    }

    /// Create battle `seq` of a campaign with its current players and, after
    /// the first in a campaign played one by one, the pre-battle dice.
    fn create_battle(
        &self,
        tx: &Transaction<'_>,
        c: &cstore::Campaign,
        seq: u32,
        queue: &mut Queue,
    ) -> Result<i64, ServiceError> {
        let stored: Stored = serde_json::from_str(&c.options).unwrap_or_default();
        let battle = cstore::battles(tx, c.id)?
            .into_iter()
            .find(|b| b.seq == seq)
            .ok_or_else(|| {
                ServiceError::Invalid(format!("campaign {} has no battle {seq}", c.name))
            })?;
        let seats = self.battle_seats(tx, c, seq, &stored)?;
        let mut opts = GameOptions {
            deadline_secs: stored.deadline_secs,
            nmr_policy: if stored.nmr_policy.is_empty() {
                "wait".into()
            } else {
                stored.nmr_policy.clone()
            },
            grace_secs: stored.grace_secs,
            referee: stored.referee.clone(),
            referee_after: stored.referee_after,
            zones: stored.zones.clone(),
            rule_options: stored.rule_options.clone(),
            review_secs: stored.review_secs,
            ..GameOptions::default()
        };
        let pre_battle = stored.plan.as_ref().and_then(|p| p.pre_battle_dice);
        if let Some(i) = self.plan_index(tx, c, &stored, seq)? {
            let plan = stored.plan.as_ref().expect("a plan index has a plan");
            opts.rule_options.extend(plan.battles[i].options.clone());
        }
        if !stored.all_at_once
            && seq > 1
            && pre_battle != Some(false)
            && has_pre_battle_rules(&battle.scenario, &opts)
        {
            let dice = self.campaign_dice(tx, c, seq)?;
            if dice.values().any(|n| *n > 0) {
                let v: Vec<String> = dice
                    .iter()
                    .filter(|(_, n)| **n > 0)
                    .map(|(s, n)| format!("{s}:{n}"))
                    .collect();
                opts.rule_options
                    .insert("campaign-dice".into(), v.join(","));
            }
        }
        // Each player's zone as he set it in the battle before (TIMEZONE),
        // so the welcome shows the deadline in it; his absence after.
        let before = self.battle_before(tx, c, seq, &stored)?;
        if let Some(g) = before {
            for s in store::seats(tx, g)? {
                if let Some((side, _)) =
                    seats.iter().find(|(_, e)| e.eq_ignore_ascii_case(&s.email))
                {
                    opts.zones.retain(|(z, _)| z != side);
                    opts.zones.push((side.clone(), s.tz.clone()));
                }
            }
        }
        let game = self
            .judge
            .turns()
            .new_game_in(tx, &battle.scenario, &seats, &opts, queue)?;
        if let Some(g) = before {
            store::carry_seat_settings(tx, g, game)?;
        }
        cstore::set_battle_game(tx, c.id, seq, game)?;
        cstore::set_starters(
            tx,
            c.id,
            seq,
            &serde_json::to_string(&seats).unwrap_or_default(),
        )?;
        Ok(game)
    }

    /// The game of the battle before `seq`, in a campaign played one by
    /// one.
    fn battle_before(
        &self,
        tx: &Transaction<'_>,
        c: &cstore::Campaign,
        seq: u32,
        stored: &Stored,
    ) -> Result<Option<i64>, ServiceError> {
        if stored.all_at_once {
            return Ok(None);
        }
        Ok(cstore::battles(tx, c.id)?
            .into_iter()
            .find(|b| b.seq + 1 == seq)
            .and_then(|b| b.game_id))
    }

    /// The seats of battle `seq`, the first of each side its
    /// Commander-in-Chief: those of the battle before it as they stand now
    /// (a replaced player's seat keeps its place in the team), or for the
    /// first battle the campaign's players in the order the host gave them.
    /// In a campaign file's battles each role takes its side of the battle.
    fn battle_seats(
        &self,
        tx: &Transaction<'_>,
        c: &cstore::Campaign,
        seq: u32,
        stored: &Stored,
    ) -> Result<Vec<(String, String)>, ServiceError> {
        let here = self.side_roles(tx, c, seq)?;
        let side_of = |role: &str| side_of_role(&here, role);
        let before = cstore::battles(tx, c.id)?
            .into_iter()
            .find(|b| b.seq + 1 == seq)
            .and_then(|b| b.game_id);
        let Some(g) = before.filter(|_| !stored.all_at_once) else {
            let mut seats: Vec<(String, String)> = cstore::players(tx, c.id)?
                .into_iter()
                .filter(|p| p.until.is_none())
                .map(|p| (side_of(&p.side), p.email))
                .collect();
            // The sides in the battle's order: a role's players keep theirs.
            if !here.is_empty() {
                seats.sort_by_key(|(s, _)| here.keys().position(|k| k == s));
            }
            return Ok(seats);
        };
        let there = self.side_roles(tx, c, seq - 1)?;
        let now = |side: &str| side_of(&role_of_side(&there, side));
        let members = store::team::members(tx, g)?;
        let mut seats = Vec::new();
        for s in store::seats(tx, g)? {
            seats.push((now(&s.side), s.email.clone()));
            for m in members.iter().filter(|m| m.side == s.side) {
                seats.push((now(&m.side), m.email.clone()));
            }
        }
        if !here.is_empty() {
            seats.sort_by_key(|(s, _)| here.keys().position(|k| k == s));
        }
        Ok(seats)
    }

    /// The plan index of battle `seq` of a campaign file's campaign: the
    /// path its battles' winners give.
    fn plan_index(
        &self,
        conn: &Connection,
        c: &cstore::Campaign,
        stored: &Stored,
        seq: u32,
    ) -> Result<Option<usize>, ServiceError> {
        let Some(plan) = &stored.plan else {
            return Ok(None);
        };
        let winners: Vec<Option<String>> = cstore::battles(conn, c.id)?
            .iter()
            .map(|b| {
                b.outcome
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Outcome>(t).ok())
                    .map(|o| o.winner)
            })
            .collect();
        Ok(plan.path(&winners).get(seq as usize - 1).copied())
    }

    /// side -> role in battle `seq` (empty for a campaign of the command
    /// line, whose records are by side).
    fn side_roles(
        &self,
        conn: &Connection,
        c: &cstore::Campaign,
        seq: u32,
    ) -> Result<BTreeMap<String, String>, ServiceError> {
        let stored: Stored = serde_json::from_str(&c.options).unwrap_or_default();
        Ok(match self.plan_index(conn, c, &stored, seq)? {
            Some(i) => stored
                .plan
                .as_ref()
                .map(|p| p.sides(i).clone())
                .unwrap_or_default(),
            None => BTreeMap::new(),
        })
    }

    /// The battles after `seq` that its winner gives, as far as they are
    /// known, added to the campaign's list (a campaign file's branch).
    fn extend_path(
        &self,
        tx: &Transaction<'_>,
        c: &cstore::Campaign,
        seq: u32,
    ) -> Result<(), ServiceError> {
        let stored: Stored = serde_json::from_str(&c.options).unwrap_or_default();
        let Some(plan) = &stored.plan else {
            return Ok(());
        };
        let battles = cstore::battles(tx, c.id)?;
        if battles.iter().any(|b| b.seq > seq) {
            return Ok(());
        }
        let winners: Vec<Option<String>> = battles
            .iter()
            .map(|b| {
                b.outcome
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Outcome>(t).ok())
                    .map(|o| o.winner)
            })
            .collect();
        for (k, i) in plan
            .path(&winners)
            .into_iter()
            .enumerate()
            .skip(seq as usize)
        {
            cstore::insert_battle(tx, c.id, k as u32 + 1, &plan.battles[i].scenario)?;
        }
        Ok(())
    }

    /// The pre-battle dice of battle `seq`: the victory points each side won
    /// in the battle before, plus one for each battle it has won in the
    /// campaign (the house rules, Appendix 3).
    fn campaign_dice(
        &self,
        conn: &Connection,
        c: &cstore::Campaign,
        seq: u32,
    ) -> Result<BTreeMap<String, u32>, ServiceError> {
        // By role: a player's wins follow him from side to side.
        let mut dice = BTreeMap::new();
        for b in cstore::battles(conn, c.id)?.iter().filter(|b| b.seq < seq) {
            let Some(o) = b
                .outcome
                .as_deref()
                .and_then(|t| serde_json::from_str::<Outcome>(t).ok())
            else {
                continue;
            };
            let roles = self.side_roles(conn, c, b.seq)?;
            if !o.winner.is_empty() {
                *dice.entry(role_of_side(&roles, &o.winner)).or_insert(0) += 1;
            }
            if b.seq + 1 == seq {
                for (side, p) in &o.points {
                    *dice.entry(role_of_side(&roles, side)).or_insert(0) += p;
                }
            }
        }
        let here = self.side_roles(conn, c, seq)?;
        Ok(dice
            .into_iter()
            .map(|(role, n)| (side_of_role(&here, &role), n))
            .collect())
    }

    /// A game has ended: record the outcome in its campaign, mail the
    /// standings, and create the next battle.
    pub(super) fn after_battle(
        &self,
        tx: &Transaction<'_>,
        game: &Game,
        queue: &mut Queue,
    ) -> Result<(), ServiceError> {
        let Some((c, seq)) = cstore::of_game(tx, game.id)? else {
            return Ok(());
        };
        let game = store::game(tx, game.id)?.ok_or(ServiceError::NoGame(game.id))?;
        let super::Position { rules, state, .. } = Judge::position_in(tx, &game, None)?;
        let outcome = Outcome {
            winner: game.result.clone().unwrap_or_default(),
            points: rules.score(&state).into_iter().collect(),
            players: store::seats(tx, game.id)?
                .into_iter()
                .map(|s| (s.side, s.email))
                .collect(),
            team: {
                let mut t: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for m in store::team::members(tx, game.id)? {
                    t.entry(m.side).or_default().push(m.email);
                }
                t
            },
        };
        cstore::set_outcome(
            tx,
            c.id,
            seq,
            &serde_json::to_string(&outcome).unwrap_or_default(),
        )?;
        self.extend_path(tx, &c, seq)?;
        let next = cstore::battles(tx, c.id)?
            .into_iter()
            .find(|b| b.seq == seq + 1 && b.game_id.is_none());
        // The welcome mails of the next battle go after the standings.
        let mut welcomes = Queue::new();
        let next_game = match next {
            Some(b) => Some(self.try_next_battle(tx, &c, &b, &mut welcomes)?),
            None => None,
        };
        let text = format!(
            "Battle {seq} of the campaign {} is over.\n{}\n{}",
            c.name,
            match &next_game {
                Some(Ok(g)) => format!(
                    "Battle {} begins as game {g}: your welcome mail follows.\n",
                    seq + 1
                ),
                Some(Err(why)) => format!(
                    "The campaign is stopped: {why}\nThe host has been told; the campaign goes on when he resumes it.\n"
                ),
                None => "That was the last battle of the campaign.\n".to_string(),
            },
            self.text(tx, &c)?
        );
        if let Some(Err(why)) = &next_game {
            self.tell_stopped(&c, game.id, why, queue);
        }
        // Every player of the battle gets the standings: each side's
        // Commander-in-Chief and his Field Marshals.
        let mut to: Vec<(&String, &String)> = outcome.players.iter().collect();
        for (side, members) in &outcome.team {
            to.extend(members.iter().map(|e| (side, e)));
        }
        for (side, email) in to {
            if email == OPEN_SEAT {
                continue;
            }
            queue.push(
                Outgoing {
                    to: email.clone(),
                    subject: format!("Campaign {}: standings after battle {seq} ({side})", c.name),
                    text: text.clone(),
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "campaign",
            );
        }
        // The battle's referee and observers get the standings too.
        for r in self
            .judge
            .recipients()
            .everyone_of_game(tx, game.id)?
            .into_iter()
            .filter(|r| !r.is_player())
        {
            queue.push(
                Outgoing {
                    to: r.email,
                    subject: format!("Campaign {}: standings after battle {seq}", c.name),
                    text: text.clone(),
                    game_id: Some(game.id),
                    ..Outgoing::default()
                },
                "campaign",
            );
        }
        queue.mails.append(&mut welcomes.mails);
        Ok(())
    }

    /// Create the next battle, or, if it cannot be created, leave the
    /// database as it was, mark the campaign stopped and give the reason:
    /// the battle that just ended stays ended whatever the next one does.
    fn try_next_battle(
        &self,
        tx: &Transaction<'_>,
        c: &cstore::Campaign,
        next: &cstore::Battle,
        queue: &mut Queue,
    ) -> Result<Result<i64, String>, ServiceError> {
        crate::store::savepoint(tx, "next_battle")?;
        match self.create_battle(tx, c, next.seq, queue) {
            Ok(g) => {
                crate::store::release(tx, "next_battle")?;
                Ok(Ok(g))
            }
            Err(e) => {
                crate::store::rollback_to(tx, "next_battle")?;
                queue.mails.clear();
                let why = format!(
                    "battle {} ({}) could not be created: {e}",
                    next.seq, next.scenario
                );
                cstore::set_stopped(tx, c.id, Some(&why))?;
                tracing::warn!(
                    "campaign {} stopped: {why}; mend it and run `adjutant campaign resume {}`",
                    c.name,
                    c.name
                );
                Ok(Err(why))
            }
        }
    }

    /// Tell the campaign's referee (if it has one) that it stopped; the host
    /// sees it in the log, `campaign list` and `campaign show`.
    fn tell_stopped(&self, c: &cstore::Campaign, game: i64, why: &str, queue: &mut Queue) {
        let stored: Stored = serde_json::from_str(&c.options).unwrap_or_default();
        if let Some(referee) = stored.referee {
            queue.push(
                Outgoing {
                    to: referee,
                    subject: format!("Campaign {}: stopped", c.name),
                    text: format!(
                        "The campaign {} is stopped: {why}\nThe battle before it (game {game}) is over and its players have the\nstandings. Once the cause is mended, the host resumes the campaign with\n`adjutant campaign resume {}`.\n",
                        c.name, c.name
                    ),
                    game_id: Some(game),
                    ..Outgoing::default()
                },
                "campaign",
            );
        }
    }

    /// `campaign resume NAME`: create the battle a stopped campaign could
    /// not create, now that its cause is mended. The game, or the error
    /// that still stops it (the campaign stays stopped then).
    pub fn resume(&self, name: &str) -> Result<i64, ServiceError> {
        let c = cstore::by_name(self.conn, name)?
            .ok_or_else(|| ServiceError::Invalid(format!("no campaign named {name}")))?;
        if cstore::stopped(self.conn, c.id)?.is_none() {
            return Err(ServiceError::Invalid(format!(
                "the campaign {name} is not stopped"
            )));
        }
        let battles = cstore::battles(self.conn, c.id)?;
        let next = battles
            .iter()
            .find(|b| b.game_id.is_none())
            .filter(|b| {
                b.seq == 1
                    || battles
                        .iter()
                        .any(|p| p.seq + 1 == b.seq && p.outcome.is_some())
            })
            .ok_or_else(|| {
                ServiceError::Invalid(format!("the campaign {name} has no battle to create"))
            })?;
        let tx = self.begin()?;
        let mut queue = Queue::new();
        let game = self.create_battle(&tx, &c, next.seq, &mut queue)?;
        cstore::set_stopped(&tx, c.id, None)?;
        self.judge.outbox().flush(
            &tx,
            &format!("campaign-{}-resume-{}", c.id, next.seq),
            queue,
        )?;
        crate::store::commit(tx)?;
        Ok(game)
    }

    /// Why a campaign is stopped, if it is.
    pub fn stopped(&self, name: &str) -> Result<Option<String>, ServiceError> {
        match cstore::by_name(self.conn, name)? {
            Some(c) => Ok(cstore::stopped(self.conn, c.id)?),
            None => Err(ServiceError::Invalid(format!("no campaign named {name}"))),
        }
    }

    /// Every player's record in a campaign (a replaced player keeps his).
    pub fn records(
        &self,
        conn: &Connection,
        c: &cstore::Campaign,
    ) -> Result<Vec<Record>, ServiceError> {
        let battles = cstore::battles(conn, c.id)?;
        let mut out = Vec::new();
        for p in cstore::players(conn, c.id)? {
            let mut r = Record {
                side: p.side.clone(),
                email: p.email.clone(),
                current: p.until.is_none(),
                ..Record::default()
            };
            let within =
                |at: &str| at >= p.since.as_str() && p.until.as_deref().is_none_or(|u| at < u);
            for b in &battles {
                let Some(g) = b.game_id else { continue };
                // The side this player's role played in this battle.
                let side = side_of_role(&self.side_roles(conn, c, b.seq)?, &p.side);
                let p = cstore::Player { side, ..p.clone() };
                if let Some(o) = b
                    .outcome
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Outcome>(t).ok())
                {
                    if o.played(&p.side, &p.email) {
                        r.battles += 1;
                        r.wins += u32::from(o.winner == p.side);
                        r.points += o.points.get(&p.side).copied().unwrap_or(0);
                    }
                }
                for s in store::submissions(conn, g)? {
                    if s.side != p.side || !within(&s.received_at) {
                        continue;
                    }
                    if s.source == "nmr" {
                        r.nmr += 1;
                    } else {
                        r.orders += 1;
                    }
                }
                // The dice belong to whoever held the side when the battle
                // began: a record closed later keeps them, a newcomer who
                // joined after the roll has none.
                let held = match cstore::starters(conn, c.id, b.seq)?
                    .and_then(|t| serde_json::from_str::<Vec<(String, String)>>(&t).ok())
                {
                    Some(starters) => starters
                        .iter()
                        .any(|(s, e)| *s == p.side && e.eq_ignore_ascii_case(&p.email)),
                    // A battle from before the starters were kept.
                    None => store::game(conn, g)?.is_some_and(|x| within(&x.created_at)),
                };
                for (_, e) in store::events(conn, g, None)? {
                    let e = crate::rules::Event::from_store(e);
                    match e.pre_battle_dice() {
                        Some((side, n)) if side == p.side && b.seq > 1 && held => {
                            r.pre_battle_dice += n as u32;
                        }
                        _ => {}
                    }
                }
            }
            out.push(r);
        }
        Ok(out)
    }

    /// The standings as text (every campaign mail, `campaign show`, CAMPAIGN).
    pub fn text(&self, conn: &Connection, c: &cstore::Campaign) -> Result<String, ServiceError> {
        let mut t = format!("Campaign {}\n", c.name);
        if let Some(why) = cstore::stopped(conn, c.id)? {
            t.push_str(&format!("Stopped: {why}\n"));
        }
        t.push_str("\nBattles:\n");
        for b in cstore::battles(conn, c.id)? {
            let state = match (b.game_id, b.outcome.as_deref()) {
                (_, Some(o)) => {
                    let o: Outcome = serde_json::from_str(o).unwrap_or_default();
                    let pts: Vec<String> =
                        o.points.iter().map(|(s, p)| format!("{s} {p}")).collect();
                    format!(
                        "{} ({})",
                        if o.winner.is_empty() {
                            "a draw".to_string()
                        } else {
                            format!("won by {}", o.winner)
                        },
                        pts.join(", ")
                    )
                }
                (Some(g), None) => format!("being played as game {g}"),
                (None, None) => "to come".into(),
            };
            t.push_str(&format!(
                "  {}. {:<24} {state}\n",
                b.seq,
                shown_scenario(&b.scenario)
            ));
        }
        t.push_str("\nPlayers (battles, wins, points, pre-battle dice, orders sent, NMR):\n");
        for r in self.records(conn, c)? {
            t.push_str(&format!(
                "  {:<8} {:<28} {:>2} {:>2} {:>3} {:>3} {:>4} {:>3}{}\n",
                r.side,
                r.email,
                r.battles,
                r.wins,
                r.points,
                r.pre_battle_dice,
                r.orders,
                r.nmr,
                if r.current { "" } else { "  (replaced)" }
            ));
        }
        Ok(t)
    }

    /// `campaign list`: (name, battles, battles over).
    pub fn list(&self) -> Result<Vec<(String, usize, usize)>, ServiceError> {
        let mut out = Vec::new();
        for c in cstore::all(self.conn)? {
            let b = cstore::battles(self.conn, c.id)?;
            let done = b.iter().filter(|b| b.outcome.is_some()).count();
            out.push((c.name, b.len(), done));
        }
        Ok(out)
    }

    /// `campaign show NAME`.
    pub fn show(&self, name: &str) -> Result<String, ServiceError> {
        let c = cstore::by_name(self.conn, name)?
            .ok_or_else(|| ServiceError::Invalid(format!("no campaign named {name}")))?;
        self.text(self.conn, &c)
    }

    /// The standings of the campaign a game belongs to (the CAMPAIGN mail
    /// command), if it belongs to one.
    pub(super) fn of_game_text(&self, game: i64) -> Result<Option<String>, ServiceError> {
        match cstore::of_game(self.conn, game)? {
            Some((c, _)) => Ok(Some(self.text(self.conn, &c)?)),
            None => Ok(None),
        }
    }

    /// A seat of a campaign battle changed hands: close the old player's
    /// record and open the newcomer's; later battles seat the newcomer.
    pub(super) fn replace_player(
        &self,
        tx: &Transaction<'_>,
        game: i64,
        side: &str,
        old: &str,
        email: &str,
    ) -> Result<(), ServiceError> {
        if let Some((c, seq)) = cstore::of_game(tx, game)? {
            let now = self.now();
            let role = role_of_side(&self.side_roles(tx, &c, seq)?, side);
            cstore::close_player(tx, c.id, &role, old, &now)?;
            cstore::insert_player(tx, c.id, &role, email, &now)?;
        }
        Ok(())
    }

    /// The whole campaign as JSON: each battle's export (with its seed once
    /// over, or `include_seed`) and the pre-battle dice each link implies.
    pub fn export(&self, name: &str, include_seed: bool) -> Result<CampaignExport, ServiceError> {
        let c = cstore::by_name(self.conn, name)?
            .ok_or_else(|| ServiceError::Invalid(format!("no campaign named {name}")))?;
        let mut battles = Vec::new();
        let mut plan = Vec::new();
        for b in cstore::battles(self.conn, c.id)? {
            if let Some(g) = b.game_id {
                battles.push(self.judge.exports().export(g, include_seed)?);
            }
            let outcome = b
                .outcome
                .as_deref()
                .and_then(|t| serde_json::from_str::<Outcome>(t).ok());
            plan.push(PlannedBattle {
                seq: b.seq,
                scenario: b.scenario,
                game: b.game_id.map(|g| g as u64),
                winner: outcome.as_ref().map(|o| o.winner.clone()),
                points: outcome.map(|o| o.points).unwrap_or_default(),
                roles: self.side_roles(self.conn, &c, b.seq)?,
            });
        }
        let stored = serde_json::from_str::<Stored>(&c.options).unwrap_or_default();
        let mut export = CampaignExport {
            format: CAMPAIGN_FORMAT.into(),
            name: c.name,
            all_at_once: stored.all_at_once,
            pre_battle_dice: stored.plan.and_then(|p| p.pre_battle_dice),
            stopped: cstore::stopped(self.conn, c.id)?,
            plan,
            battles,
            record: None,
        };
        export.record = Some(campaign_record(&export));
        Ok(export)
    }

    /// An IMMEDIATE transaction: it takes the write lock at once, so the
    /// daemon and a host's CLI never interleave a use case.
    fn begin(&self) -> Result<Transaction<'_>, ServiceError> {
        Ok(store::begin_immediate(self.conn)?)
    }

    fn now(&self) -> String {
        super::clock::stamp(self.clock.now())
    }
}

/// A battle's scenario as the players' mails name it: a club's scenario
/// file by its name, never the host's path to it (issue 51 item 12).
fn shown_scenario(scenario: &str) -> String {
    let p = std::path::Path::new(scenario);
    if p.components().count() > 1 || p.extension().is_some() {
        p.file_stem().map_or_else(
            || scenario.to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    } else {
        scenario.to_string()
    }
}

/// The role that plays `side` (a campaign of the command line: the side).
fn role_of_side(roles: &BTreeMap<String, String>, side: &str) -> String {
    roles.get(side).cloned().unwrap_or_else(|| side.to_string())
}

/// The side `role` plays (a campaign of the command line: the role is the
/// side).
fn side_of_role(roles: &BTreeMap<String, String>, role: &str) -> String {
    roles
        .iter()
        .find(|(_, r)| *r == role)
        .map_or_else(|| role.to_string(), |(s, _)| s.clone())
}

/// A battle's creation error in the campaign's terms: a side the scenario
/// lacks, not "game 0"; the players' flag, not `new-game`'s.
fn campaign_words(e: &ServiceError) -> String {
    match e {
        ServiceError::NoSide(_, side, sides) => {
            format!("it has no side '{side}' (its sides: {sides})")
        }
        e => e.to_string().replace("--seat", "--player"),
    }
}

/// Every `--player` is SIDE=EMAIL with an address (a campaign has no open
/// seats), named as the host wrote it.
fn check_players(spec: &CampaignSpec) -> Result<(), ServiceError> {
    for (side, email) in &spec.players {
        if !email.contains('@') || email.parse::<lettre::Address>().is_err() {
            return Err(ServiceError::Invalid(format!(
                "--player {side}={email}: '{email}' is not an email address"
            )));
        }
    }
    Ok(())
}

/// Check every battle of a campaign before any is created: its scenario is
/// known, its sides are the players', and its rulebook takes the campaign's
/// options. An error names the battle (number and scenario) and what is
/// wrong.
fn check_battles(spec: &CampaignSpec) -> Result<(), ServiceError> {
    let mut sides: Vec<String> = Vec::new();
    for (side, _) in &spec.players {
        let side = side.to_ascii_lowercase();
        if !sides.contains(&side) {
            sides.push(side);
        }
    }
    sides.sort();
    for (i, scenario) in spec.scenarios.iter().enumerate() {
        let wrong =
            |what: String| ServiceError::Invalid(format!("battle {} ({scenario}): {what}", i + 1));
        let (rules, mut source) =
            super::load_scenario(scenario).map_err(|e| wrong(e.to_string()))?;
        source.options = spec.opts.rule_options.clone();
        let state =
            super::setup_state(&rules, &source, &[0; 32]).map_err(|e| wrong(e.to_string()))?;
        let mut theirs = rules.sides(&state);
        theirs.sort();
        if theirs != sides {
            return Err(wrong(format!(
                "its sides are {}, but the players play {}: every battle of a campaign is fought \
                 by the players' sides (give each side with --player SIDE=EMAIL)",
                theirs.join(" and "),
                if sides.is_empty() {
                    "none".to_string()
                } else {
                    sides.join(" and ")
                }
            )));
        }
        // A side of several players is a team: the rulebook must have
        // board sections for them (docs/teams.md).
        for side in &theirs {
            let n = spec
                .players
                .iter()
                .filter(|(s, _)| s.eq_ignore_ascii_case(side))
                .count();
            if n > 1 {
                super::team::assign(&rules.sections(&state), n)
                    .map_err(|why| wrong(format!("side '{side}': {why}")))?;
            }
        }
    }
    Ok(())
}

/// Does the rulebook of `scenario` have pre-battle rules (does it take the
/// game option `campaign-dice`)? Battles of other rulebooks make a series
/// with standings only.
fn has_pre_battle_rules(scenario: &str, opts: &GameOptions) -> bool {
    let Ok((rules, mut source)) = super::load_scenario(scenario) else {
        return false;
    };
    source.options = opts.rule_options.clone();
    source.options.insert("campaign-dice".into(), String::new());
    super::setup_state(&rules, &source, &[0; 32]).is_ok()
}

/// Does the rulebook of `scenario` take pre-battle rules with these game
/// options (a campaign file's `pre_battle_dice = true` asks for them)?
#[must_use]
pub fn rulebook_has_pre_battle_rules(scenario: &str, options: &BTreeMap<String, String>) -> bool {
    has_pre_battle_rules(
        scenario,
        &GameOptions {
            rule_options: options.clone(),
            ..GameOptions::default()
        },
    )
}

/// A campaign file's roles against the `--player ROLE=EMAIL` given: each
/// role has a player, each player a role; a role of several players (a
/// team) needs board sections in every battle.
fn check_roles(spec: &CampaignSpec, plan: &Plan) -> Result<(), ServiceError> {
    for (role, email) in &spec.players {
        if !plan.roles.contains(&role.to_ascii_lowercase()) {
            return Err(ServiceError::Invalid(format!(
                "--player {role}={email}: the campaign file has no role '{role}' (its roles: {})",
                plan.roles.join(", ")
            )));
        }
    }
    for role in &plan.roles {
        let n = spec
            .players
            .iter()
            .filter(|(r, _)| r.eq_ignore_ascii_case(role))
            .count();
        if n == 0 {
            return Err(ServiceError::Invalid(format!(
                "the role '{role}' has no player: give it with --player {role}=EMAIL"
            )));
        }
        if n < 2 {
            continue;
        }
        for b in &plan.battles {
            let Some(side) = b.sides.iter().find(|(_, r)| *r == role).map(|(s, _)| s) else {
                continue;
            };
            let wrong = |what: String| {
                ServiceError::Invalid(format!("battle '{}' ({}): {what}", b.id, b.scenario))
            };
            let (rules, mut source) =
                super::load_scenario(&b.scenario).map_err(|e| wrong(e.to_string()))?;
            source.options = b.options.clone();
            let state =
                super::setup_state(&rules, &source, &[0; 32]).map_err(|e| wrong(e.to_string()))?;
            super::team::assign(&rules.sections(&state), n)
                .map_err(|why| wrong(format!("side '{side}' ({role}): {why}")))?;
        }
    }
    Ok(())
}

/// Version 4: each battle's export is of format 4 (its record chain), and
/// `record` links the campaign's own fields to the battles' records.
/// Version 3 adds a campaign file's roles to each listed battle and its
/// `pre_battle_dice`; version 2 lists every battle of the campaign with its
/// outcome (`plan`) and says why it stopped, if it did; version 1 had the
/// battles' exports alone. `verify` reads all three.
pub const CAMPAIGN_FORMAT: &str = "adjutant-campaign/4";

/// Every campaign export format this judge ever wrote, oldest first.
pub const CAMPAIGN_FORMATS: &[&str] = &[
    "adjutant-campaign/1",
    "adjutant-campaign/2",
    "adjutant-campaign/3",
    CAMPAIGN_FORMAT,
];

/// A campaign export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CampaignExport {
    pub format: String,
    pub name: String,
    pub all_at_once: bool,
    /// A campaign file's `pre_battle_dice`: false, none were rolled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_battle_dice: Option<bool>,
    /// Why the campaign is stopped (its next battle could not be created).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Every battle of the campaign in order, as the campaign records it.
    #[serde(default)]
    pub plan: Vec<PlannedBattle>,
    pub battles: Vec<super::export::Export>,
    /// The campaign's link of the record chain (format 4): its own fields
    /// and each battle's last link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

/// The campaign's record link from its fields and its battles' records.
fn campaign_record(c: &CampaignExport) -> String {
    super::export::link(
        "adjutant-campaign-record/1",
        &serde_json::json!({
            "name": c.name, "all_at_once": c.all_at_once,
            "pre_battle_dice": c.pre_battle_dice, "stopped": c.stopped, "plan": c.plan,
            "battles": c.battles.iter().map(|b| &b.record).collect::<Vec<_>>(),
        }),
    )
}

/// The campaign's own record link (format 4 on), named when it differs.
fn check_campaign_record(c: &CampaignExport, v: &mut super::export::Verification) {
    if CAMPAIGN_FORMATS.iter().position(|f| *f == c.format) < Some(3) {
        if c.record.is_some() {
            v.differences.push(format!(
                "format: the export says {}, which has no record chain, yet it carries one",
                c.format
            ));
        }
        return;
    }
    if c.record.as_deref() != Some(campaign_record(c).as_str()) {
        v.differences.push(
            "campaign: the record differs from the one the judge wrote (its name, options, list of battles or a battle's record changed)".into(),
        );
    }
}

/// One battle in a campaign export's list: its game once created, and its
/// outcome once over, which `verify` checks against the game's replay.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlannedBattle {
    pub seq: u32,
    pub scenario: String,
    pub game: Option<u64>,
    /// The winner's side ("" for a draw) once the battle is over.
    pub winner: Option<String>,
    /// Victory points per side once the battle is over.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub points: BTreeMap<String, u32>,
    /// A campaign file's battle: side -> the role that played it (the
    /// pre-battle dice follow the role).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roles: BTreeMap<String, String>,
}

/// The campaign's list of battles against its battles' exports and their
/// replays: every battle created is there, its outcome is the replay's,
/// and (one by one) a battle follows only an ended one.
fn check_plan(c: &CampaignExport, v: &mut super::export::Verification) {
    if c.format == CAMPAIGN_FORMATS[0] {
        v.notes.push(format!(
            "{} has no list of the campaign's battles: their outcomes were checked battle by battle only",
            c.format
        ));
        return;
    }
    for b in &c.battles {
        if !c.plan.iter().any(|p| p.game == Some(b.game)) {
            v.differences.push(format!(
                "game {}: in the export, but not in the campaign's list of battles",
                b.game
            ));
        }
    }
    for (i, p) in c.plan.iter().enumerate() {
        let name = format!("battle {} ({})", p.seq, p.scenario);
        let Some(g) = p.game else {
            let before = i.checked_sub(1).and_then(|j| c.plan.get(j));
            if !c.all_at_once && c.stopped.is_none() && before.is_some_and(|b| b.winner.is_some()) {
                v.differences.push(format!(
                    "{name}: the battle before it is over, yet it was never created and the campaign is not stopped"
                ));
            }
            continue;
        };
        let Some(ex) = c.battles.iter().find(|b| b.game == g) else {
            v.differences.push(format!(
                "{name}: game {g} is in the campaign's list, but its export is missing"
            ));
            continue;
        };
        check_planned_outcome(&name, p, ex, v);
    }
}

/// One listed battle's outcome against its game's export and replay.
fn check_planned_outcome(
    name: &str,
    p: &PlannedBattle,
    ex: &super::export::Export,
    v: &mut super::export::Verification,
) {
    let g = ex.game;
    let over = ex.status == "over";
    match &p.winner {
        Some(w) if !over || ex.result.as_deref() != Some(w.as_str()) => {
            v.differences.push(format!(
                "{name}, game {g}: winner: the campaign says {}, the game gives {}",
                winner_words(Some(w)),
                winner_words(ex.result.as_deref().filter(|_| over))
            ));
        }
        None if over => v.differences.push(format!(
            "{name}, game {g}: the campaign says the battle is being played, the game is over ({})",
            winner_words(ex.result.as_deref())
        )),
        _ => {}
    }
    if p.winner.is_some() {
        if let Some(points) = super::export::final_points(ex) {
            if points != p.points {
                let show = |m: &BTreeMap<String, u32>| {
                    m.iter()
                        .map(|(s, n)| format!("{s} {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                v.differences.push(format!(
                    "{name}, game {g}: points: the campaign says {}, the replay gives {}",
                    show(&p.points),
                    show(&points)
                ));
            }
        }
    }
}

fn winner_words(w: Option<&str>) -> String {
    match w {
        None => "no result".into(),
        Some("") => "a draw".into(),
        Some(s) => format!("won by {s}"),
    }
}

/// Verify every battle, and that each battle's pre-battle dice are what the
/// replayed results of the battles before it give.
pub fn verify_campaign(c: &CampaignExport) -> super::export::Verification {
    let mut v = super::export::Verification::default();
    if !CAMPAIGN_FORMATS.contains(&c.format.as_str()) {
        v.differences.push(format!(
            "unknown campaign format '{}' (this judge reads {})",
            c.format,
            CAMPAIGN_FORMATS.join(", ")
        ));
        return v;
    }
    check_campaign_record(c, &mut v);
    check_plan(c, &mut v);
    let mut wins: BTreeMap<String, u32> = BTreeMap::new();
    let mut last_points: BTreeMap<String, u32> = BTreeMap::new();
    for (i, b) in c.battles.iter().enumerate() {
        let one = super::export::verify(b);
        v.checked_turns += one.checked_turns;
        v.differences.extend(
            one.differences
                .iter()
                .map(|d| format!("battle {}: {d}", i + 1)),
        );
        v.notes
            .extend(one.notes.iter().map(|d| format!("battle {}: {d}", i + 1)));
        let roles = c
            .plan
            .iter()
            .find(|p| p.game == Some(b.game))
            .map(|p| p.roles.clone())
            .unwrap_or_default();
        if i > 0
            && !c.all_at_once
            && c.pre_battle_dice != Some(false)
            && super::export::has_pre_battle_rules(b)
        {
            let mut by_role: BTreeMap<String, u32> = wins.clone();
            for (s, p) in &last_points {
                *by_role.entry(s.clone()).or_insert(0) += p;
            }
            let mut want: BTreeMap<String, u32> = by_role
                .into_iter()
                .map(|(r, n)| (side_of_role(&roles, &r), n))
                .collect();
            want.retain(|_, n| *n > 0);
            let want: Vec<String> = want.iter().map(|(s, n)| format!("{s}:{n}")).collect();
            let want = want.join(",");
            let got = b
                .options
                .get("campaign-dice")
                .and_then(|x| x.as_str())
                .unwrap_or("")
                .to_string();
            if want != got {
                v.differences.push(format!(
                    "battle {}: the pre-battle dice are \"{got}\", the results before it give \"{want}\"",
                    i + 1
                ));
            }
        }
        // This battle's result and points, for the next link: from the
        // replay's last state when the seed is there, else as exported.
        if let Some(w) = b.result.as_deref().filter(|w| !w.is_empty()) {
            *wins.entry(role_of_side(&roles, w)).or_insert(0) += 1;
        }
        last_points = super::export::final_points(b)
            .unwrap_or_default()
            .into_iter()
            .map(|(s, n)| (role_of_side(&roles, &s), n))
            .collect();
    }
    v
}
