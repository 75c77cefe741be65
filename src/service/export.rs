//! `export` writes a whole game as JSON; `verify` replays it.
//!
//! A game is its scenario, its seed and its accepted submissions: replaying
//! them must give every event and every state byte for byte. Any difference is
//! named (turn, event, field) so a player can see exactly what does not match.

use super::{adjudicate_turn, setup_state, state_hash, Judge, Position, ServiceError};
use crate::engine::dice::{self, ChaChaDice, Dice, Seed};
use crate::rules::Load;
use crate::rules::{Orders, Rules, Scenario, State, REFEREE_SIDE};
use crate::store::{self, Connection};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version 4: the export is a chain of records (`setup_record`, each
/// turn's `record`, `record` at the end): each link the SHA-256 of the one
/// before and of its part in canonical JSON, the ending, status, result and
/// messages in the last link (issue 51), so no single field (a time, an
/// option, a flipped ending) changes without `verify` naming where.
/// Version 3: a game ended outside its rules (a resignation, a draw agreed
/// by mail) says how in `ending`, so that `verify` can recompute every
/// result. Version 2: a turn is one phase and holds the orders of every
/// side it took (none for a phase of the judge's own); version 1 had one
/// side's. `verify` reads every version ([`parse`]); the tag changes
/// whenever the schema does (a test pins the schema to the tag).
pub const FORMAT: &str = "adjutant-export/4";

/// Every export format this judge ever wrote, oldest first.
pub const FORMATS: &[&str] = &[
    "adjutant-export/1",
    "adjutant-export/2",
    "adjutant-export/3",
    FORMAT,
];

/// The first format whose exports carry the record chain.
pub const CHAINED_FROM: usize = 3;

/// How a game ended outside its rules, as the game's record keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Ending {
    /// `resigned` (the other side wins) or `draw-agreed`.
    pub kind: String,
    /// The side that resigned, or that accepted the draw.
    pub side: String,
    /// The side that offered the draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_by: Option<String>,
    /// The phases played when it ended (the game's last turn).
    pub turn: u32,
}

/// A resignation.
pub const RESIGNED: &str = "resigned";
/// A draw offered by one side and accepted by the other.
pub const DRAW_AGREED: &str = "draw-agreed";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Export {
    pub format: String,
    pub game: u64,
    pub ruleset: String,
    pub scenario: String,
    /// The scenario file's text when it is not a shipped scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_text: Option<String>,
    /// The house-rule variant's text when the game does not use a shipped ruleset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset_text: Option<String>,
    pub options: Value,
    pub status: String,
    pub result: Option<String>,
    pub sides: Vec<String>,
    /// SHA-256 of the seed, mailed to every player at the start.
    pub seed_commitment: String,
    /// The seed itself: present once the game is over (or in a host backup).
    pub seed: Option<String>,
    pub setup_state_hash: String,
    pub turns: Vec<ExportTurn>,
    /// How the game ended, if outside its rules (a resignation, an agreed
    /// draw): `verify` derives the result from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// The game's messages (docs/teams.md): PRESS always; a team's TEAM
    /// lines and proposals only once the game is over (or in the host's
    /// backup and the referee's export), so an export never tells one team
    /// what the other said among itself. Not part of the replay.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<crate::store::team::Message>,
    /// The first link of the record chain: the game's set-up (format 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_record: Option<String>,
    /// The last link: the last turn's, then status, result, ending and
    /// messages (format 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ExportTurn {
    pub turn: u32,
    /// The orders this phase took, in the order they were adjudicated.
    pub orders: Vec<ExportOrders>,
    /// SHA-256 of this turn's dice seed, mailed before the turn.
    pub dice_commitment: String,
    /// This turn's dice seed, revealed after the turn.
    pub dice_seed: String,
    pub events: Vec<Value>,
    pub state_hash: String,
    /// This turn's link of the record chain (format 4).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub record: String,
}

/// One side's orders in a turn, as the player wrote them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ExportOrders {
    pub side: String,
    pub orders: String,
    pub received_at: String,
}

/// What an event private to one side shows in an export made while the
/// game runs: its kind, its side, that it is private, and its dice (dice
/// are public: every turn's dice seed is revealed); every other field reads
/// [`HIDDEN`].
#[must_use]
pub fn redact(event: &Value) -> Value {
    let Some(obj) = event.as_object() else {
        return event.clone();
    };
    if obj.get("private").and_then(Value::as_bool) != Some(true) {
        return event.clone();
    }
    let mut out = serde_json::Map::new();
    for (k, v) in obj {
        let keep = crate::rules::event::PUBLIC_FIELDS.contains(&k.as_str());
        out.insert(
            k.clone(),
            if keep {
                v.clone()
            } else {
                Value::String(HIDDEN.into())
            },
        );
    }
    Value::Object(out)
}

/// How a game over by no rule ended, for a game that ended before the judge
/// recorded it (the database's migration 16): with a winner, the other
/// side resigned (a game of two sides; resigning was the only way to win
/// outside the rules); with none, the sides agreed a draw, and who accepted
/// it was not recorded (no side). None for a game its rules ended.
fn derived_ending(rules: &Rules, last: &State, result: Option<&str>, turn: u32) -> Option<Ending> {
    if rules.result(last).is_some() {
        return None;
    }
    let (kind, side) = match result? {
        "" => (DRAW_AGREED, String::new()),
        winner => {
            let sides = rules.sides(last);
            let others: Vec<&String> = sides.iter().filter(|s| *s != winner).collect();
            let [resigned] = others.as_slice() else {
                return None;
            };
            (RESIGNED, (*resigned).clone())
        }
    };
    Some(Ending {
        kind: kind.into(),
        side,
        offered_by: None,
        turn,
    })
}

/// The text in place of a private event's fields in a redacted export.
pub const HIDDEN: &str = "hidden";

/// The export use case: a game's record as `adjutant export` writes it
/// (and `verify` reads it back, free functions below). It only reads the
/// database. [`Judge::exports`] hands it out.
pub struct Exports<'a> {
    conn: &'a Connection,
}

impl Judge {
    /// The export use case, on this judge's database.
    #[must_use]
    pub fn exports(&self) -> Exports<'_> {
        Exports { conn: &self.conn }
    }
}

impl Exports<'_> {
    /// The export of a game; the seed only if the game is over or
    /// `include_seed`. While the game runs, events private to one side (a
    /// card drawn, a card discarded face down) are [`redact`]ed, unless the
    /// seed is included (the host's backup) or `full` (the referee's export).
    pub fn export(&self, game_id: i64, include_seed: bool) -> Result<Export, ServiceError> {
        self.export_with(game_id, include_seed, false)
    }

    /// [`Exports::export`], with every private event when `full`.
    pub fn export_with(
        &self,
        game_id: i64,
        include_seed: bool,
        full: bool,
    ) -> Result<Export, ServiceError> {
        let game = store::game(self.conn, game_id)?.ok_or(ServiceError::NoGame(game_id))?;
        let master = Judge::master(&game)?;
        let Position {
            rules,
            state: setup,
            hash: setup_hash,
            ..
        } = Judge::position_in(self.conn, &game, Some(0))?;
        // The players' export is what a player may see now (service/sight.rs):
        // in review mode it stops before the turns held for the referee.
        let players = !include_seed && !full;
        let viewer = if players {
            crate::rules::Viewer::Observer
        } else {
            crate::rules::Viewer::Referee
        };
        let last = super::sight::visible_turn(&game, &viewer);
        let (status, result) = super::sight::visible_status(&game, &viewer);
        let hide = status != "over" && players;
        if hide && rules.fog_of_war(&setup) {
            // Orders and events name every unit: under fog of war, the
            // players' export can only come when the game is over.
            return Err(ServiceError::Invalid(format!(
                "game {game_id} has fog of war: while it runs, its export would show every \
                 unit to whoever gets it; make the referee's (--referee) or the host's backup \
                 (--include-seed), and give the players theirs when the game is over"
            )));
        }
        let events: Vec<(u32, Value)> = store::events(self.conn, game_id, None)?
            .into_iter()
            .map(|(t, e)| (t, if hide { redact(&e) } else { e }))
            .collect();
        let submissions = store::submissions(self.conn, game_id)?;
        // While the game runs, a player's export holds no order text (an
        // INITIATIVE choice for the next roll, a standing order) and no plain
        // state hash (a side could try the values of what it cannot see
        // against it): the hashes are sealed as the mails' State lines are,
        // and both come in full when the game is over (docs/security.md).
        let seal = |hash: String| {
            if hide {
                super::sealed_state(&master, &hash)
            } else {
                hash
            }
        };
        let mut turns = Vec::new();
        for turn in 1..=last {
            let hash = store::snapshot(self.conn, game_id, Some(turn))?
                .map(|(_, _, h)| h)
                .unwrap_or_default();
            let ts = dice::turn_seed(&master, turn);
            turns.push(ExportTurn {
                turn,
                orders: submissions
                    .iter()
                    .filter(|s| s.turn == turn)
                    .map(|s| ExportOrders {
                        side: s.side.clone(),
                        orders: if hide {
                            HIDDEN.into()
                        } else {
                            s.orders.clone()
                        },
                        received_at: s.received_at.clone(),
                    })
                    .collect(),
                dice_commitment: dice::commitment(&ts),
                dice_seed: hex::encode(ts),
                events: events
                    .iter()
                    .filter(|(t, _)| *t == turn)
                    .map(|(_, e)| e.clone())
                    .collect(),
                state_hash: seal(hash),
                record: String::new(),
            });
        }
        // A game over outside its rules before the judge recorded how
        // (database migration 16): the ending its stored record gives.
        let ending =
            match store::ending(self.conn, game_id)?.and_then(|e| serde_json::from_str(&e).ok()) {
                Some(e) => Some(e),
                None if status == "over" => {
                    let end = Judge::position_in(self.conn, &game, Some(last))?;
                    derived_ending(&rules, &end.state, result.as_deref(), last)
                }
                None => None,
            };
        let mut export = Export {
            format: FORMAT.into(),
            game: game.id as u64,
            ruleset: game.ruleset.clone(),
            scenario: game.scenario.clone(),
            scenario_text: game.scenario_text.clone(),
            ruleset_text: game.ruleset_text.clone(),
            options: serde_json::from_str(&game.options).unwrap_or(Value::Null),
            status: status.clone(),
            result,
            sides: rules.sides(&setup),
            seed_commitment: dice::commitment(&master),
            seed: (status == "over" || include_seed).then(|| game.seed.clone()),
            setup_state_hash: seal(setup_hash),
            turns,
            ending,
            messages: crate::store::team::messages(self.conn, game_id)?
                .into_iter()
                .filter(|m| !hide || m.kind == "press")
                .collect(),
            setup_record: None,
            record: None,
        };
        let chain = record_chain(&export);
        export.setup_record = Some(chain.setup);
        for (t, link) in export.turns.iter_mut().zip(chain.turns) {
            t.record = link;
        }
        export.record = Some(chain.end);
        Ok(export)
    }
}

/// A value as canonical JSON: every object's keys sorted, no spaces.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&o[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// One link of the record chain: the link before it and its part.
pub(super) fn link(before: &str, part: &Value) -> String {
    dice::sha256_hex(format!("{before}\n{}", canonical(part)).as_bytes())
}

/// The record chain of an export as its fields give it.
struct Chain {
    setup: String,
    turns: Vec<String>,
    end: String,
}

/// The record chain (format 4): the set-up, each turn in order (its
/// number, orders with their times, dice, events and state), then the
/// end (status, result, ending, messages). Computed from the export's own
/// fields (a running game's redacted ones too), never from its links.
fn record_chain(e: &Export) -> Chain {
    let setup = link(
        "adjutant-record/1",
        &serde_json::json!({
            "game": e.game, "ruleset": e.ruleset, "scenario": e.scenario,
            "scenario_text": e.scenario_text, "ruleset_text": e.ruleset_text,
            "options": e.options, "sides": e.sides,
            "seed_commitment": e.seed_commitment, "setup_state_hash": e.setup_state_hash,
        }),
    );
    let mut last = setup.clone();
    let mut turns = Vec::new();
    for t in &e.turns {
        last = link(
            &last,
            &serde_json::json!({
                "turn": t.turn, "orders": t.orders, "dice_commitment": t.dice_commitment,
                "dice_seed": t.dice_seed, "events": t.events, "state_hash": t.state_hash,
            }),
        );
        turns.push(last.clone());
    }
    let end = link(
        &last,
        &serde_json::json!({
            "status": e.status, "result": e.result, "ending": e.ending, "messages": e.messages,
        }),
    );
    Chain { setup, turns, end }
}

/// Check an export's record chain against its fields: the first link that
/// differs is named (set-up, a turn, the end). An export from before the
/// chain (format 3 or older) is noted, and one that claims such a format
/// while carrying links is refused.
fn check_record(export: &Export, v: &mut Verification) {
    let chained = FORMATS
        .iter()
        .position(|f| *f == export.format)
        .is_some_and(|i| i >= CHAINED_FROM);
    let carries = export.setup_record.is_some()
        || export.record.is_some()
        || export.turns.iter().any(|t| !t.record.is_empty());
    if !chained {
        if carries {
            v.differences.push(format!(
                "format: the export says {}, which has no record chain, yet it carries one",
                export.format
            ));
        } else {
            v.notes.push(format!(
                "{} has no record chain: what the replay does not recompute (the times of orders, options the rules ignore) was not checked",
                export.format
            ));
        }
        return;
    }
    let chain = record_chain(export);
    if export.setup_record.as_deref() != Some(chain.setup.as_str()) {
        v.differences.push(
            "set-up: the record differs from the one the judge wrote (game, ruleset, scenario, options, sides, seed commitment or set-up state changed)".into(),
        );
        return;
    }
    for (i, (t, want)) in export.turns.iter().zip(&chain.turns).enumerate() {
        if t.record != *want {
            v.differences.push(format!(
                "turn {} (the export's turn {}): the record differs from the one the judge wrote (its orders, their times, dice, events or state changed, or a turn was dropped or moved)",
                t.turn,
                i + 1
            ));
            return;
        }
    }
    if export.record.as_deref() != Some(chain.end.as_str()) {
        v.differences.push(
            "end: the record differs from the one the judge wrote (status, result, ending or messages changed, or the last turn was dropped)".into(),
        );
    }
}

/// The first difference between two JSON values, as a path and both sides.
#[must_use]
pub fn first_difference(path: &str, exported: &Value, replayed: &Value) -> Option<String> {
    match (exported, replayed) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(&format!("{path}.{k}"), va, vb) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{path}.{k}: in the export, not in the replay")),
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}.{k}: in the replay, not in the export"))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), va, vb) {
                    return Some(d);
                }
            }
            (a.len() != b.len()).then(|| {
                format!(
                    "{path}: the export has {} entries, the replay {}",
                    a.len(),
                    b.len()
                )
            })
        }
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: the export says {a}, the replay gives {b}")),
    }
}

/// Check the die faces recorded in one turn's events, in order, against the
/// turn's revealed dice stream: needs nothing but what a player received.
/// Returns the first face that differs.
#[must_use]
pub fn check_dice(
    face_names: &[String],
    dice_seed: &Seed,
    turn: u32,
    events: &[Value],
) -> Option<String> {
    let sides = face_names.len() as u32;
    let mut stream = ChaChaDice::stream(dice_seed, "battle");
    for (i, e) in events.iter().enumerate() {
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("event");
        // Plain numbered dice (an initiative D6): `rolls`, of `sides` faces
        // (6 unless the event says), drawn from the same stream.
        if let Some(rolls) = e.get("rolls").and_then(Value::as_array) {
            let n = e
                .get("sides")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(6);
            for (j, r) in rolls.iter().enumerate() {
                let rolled = stream.roll(n);
                if r.as_u64() != Some(u64::from(rolled)) {
                    return Some(format!(
                        "turn {turn}, event {} ({kind}).rolls[{j}]: the export says {r}, the turn's dice stream gives {rolled}",
                        i + 1
                    ));
                }
            }
        }
        let Some(faces) = e.get("faces").and_then(Value::as_array) else {
            continue;
        };
        for (j, f) in faces.iter().enumerate() {
            let rolled = stream.roll(sides);
            let name = face_names
                .get((rolled - 1) as usize)
                .map_or("?", String::as_str);
            if f.as_str() != Some(name) {
                return Some(format!(
                    "turn {turn}, event {} ({kind}).faces[{j}]: the export says {f}, the turn's dice stream gives \"{name}\"",
                    i + 1
                ));
            }
        }
    }
    None
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Verification {
    pub checked_turns: usize,
    pub differences: Vec<String>,
    pub notes: Vec<String>,
}

/// What an export shows without its game seed: every revealed dice seed
/// against its commitment and its turn's faces, and how many private
/// events it hides.
fn check_revealed(export: &Export, v: &mut Verification) {
    // Every revealed dice seed must match the commitment mailed before its
    // turn, and every face in the turn's events must come from its stream.
    let faces = Rules::of_game(&export.ruleset, export.ruleset_text.as_deref())
        .map(|r| r.die_faces())
        .unwrap_or_default();
    for t in &export.turns {
        match dice::parse_seed(&t.dice_seed) {
            Some(s) if dice::commitment(&s) == t.dice_commitment => {
                if let Some(d) = check_dice(&faces, &s, t.turn, &t.events) {
                    v.differences.push(d);
                }
            }
            Some(_) => v.differences.push(format!(
                "turn {}: the dice seed does not match the commitment mailed before the turn",
                t.turn
            )),
            None => v.differences.push(format!(
                "turn {}: the dice seed is not 64 hex digits",
                t.turn
            )),
        }
    }
    let hidden = export
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| e.get("private").and_then(Value::as_bool) == Some(true))
        .filter(|e| {
            e.as_object()
                .is_some_and(|o| o.values().any(|v| v == HIDDEN))
        })
        .count();
    if hidden > 0 {
        v.notes.push(format!(
            "{hidden} events private to one side are hidden in this export (the game is running)"
        ));
    }
}

/// Replay an export and list every difference.
pub fn verify(export: &Export) -> Verification {
    let mut v = Verification::default();
    if !FORMATS.contains(&export.format.as_str()) {
        v.differences.push(format!(
            "unknown export format '{}' (this judge reads {})",
            export.format,
            FORMATS.join(", ")
        ));
        return v;
    }
    check_record(export, &mut v);
    check_revealed(export, &mut v);
    let Some(seed_hex) = &export.seed else {
        v.notes.push(format!(
            "the game seed is not in this export (it is revealed when the game ends): the dice of {} turns were checked against their revealed seeds, but the turns were not replayed",
            export.turns.len()
        ));
        return v;
    };
    let Some(master) = dice::parse_seed(seed_hex) else {
        v.differences.push("the seed is not 64 hex digits".into());
        return v;
    };
    if dice::commitment(&master) != export.seed_commitment {
        v.differences
            .push("the seed does not match the commitment mailed at the start".into());
    }
    let rules = match Rules::of_game(&export.ruleset, export.ruleset_text.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            v.differences.push(e.to_string());
            return v;
        }
    };
    // The game's rule options, as strings (older exports have none).
    let source = scenario_of(export);
    let mut state = match setup_state(&rules, &source, &master) {
        Ok(s) => s,
        Err(e) => {
            v.differences.push(format!("set-up: {e}"));
            return v;
        }
    };
    let setup_hash = state_hash(&rules.to_json(&state));
    if setup_hash != export.setup_state_hash {
        v.differences.push(format!(
            "set-up: the export says state {}, the replay gives {setup_hash}",
            export.setup_state_hash,
        ));
    }
    for t in &export.turns {
        if dice::parse_seed(&t.dice_seed) != Some(dice::turn_seed(&master, t.turn)) {
            v.differences.push(format!(
                "turn {}: the revealed dice seed is not the game's",
                t.turn
            ));
        }
        let orders: Vec<Orders> = t
            .orders
            .iter()
            .map(|o| Orders {
                side: o.side.clone(),
                text: o.orders.clone(),
            })
            .collect();
        let replay = match orders.as_slice() {
            [one] if one.side == REFEREE_SIDE => {
                super::referee::amend_turn(&rules, &state, &one.text)
            }
            _ => adjudicate_turn(&rules, &state, &master, t.turn, &orders),
        };
        match replay {
            Ok(adj) => {
                for (i, (a, b)) in t.events.iter().zip(&adj.events).enumerate() {
                    let kind = b.kind();
                    if let Some(d) = first_difference("", a, &b.to_store()) {
                        v.differences
                            .push(format!("turn {}, event {} ({kind}){d}", t.turn, i + 1));
                    }
                }
                if t.events.len() != adj.events.len() {
                    v.differences.push(format!(
                        "turn {}: the export has {} events, the replay {}",
                        t.turn,
                        t.events.len(),
                        adj.events.len()
                    ));
                }
                let hash = state_hash(&rules.to_json(&adj.state));
                // The game seed opens the State line of every mail.
                v.notes.push(format!(
                    "turn {}: the mails' State line reads {}",
                    t.turn,
                    super::sealed_state(&master, &hash)
                ));
                if hash != t.state_hash {
                    v.differences.push(format!(
                        "turn {}: the export says state {}, the replay gives {hash}",
                        t.turn, t.state_hash,
                    ));
                }
                state = adj.state;
                v.checked_turns += 1;
            }
            Err(rej) => {
                v.differences.push(format!(
                    "turn {}: the replay rejects the orders: {rej}",
                    t.turn
                ));
                return v;
            }
        }
    }
    check_result(export, &rules, &state, &mut v);
    v
}

/// How a result reads in a difference: a side, a draw, or none.
fn result_words(r: Option<&str>) -> String {
    match r {
        None => "no result (the game runs)".into(),
        Some("") => "a draw".into(),
        Some(side) => format!("won by {side}"),
    }
}

/// The result and status the replay gives: the rules' result at the last
/// state, or the recorded ending's (a resignation, an agreed draw), which
/// must come at the last turn of a game its rules had not ended.
fn replayed_result(export: &Export, rules: &Rules, last: &State) -> Result<Option<String>, String> {
    let by_rules = rules.result(last);
    let Some(end) = &export.ending else {
        return Ok(by_rules);
    };
    let last_turn = export.turns.last().map_or(0, |t| t.turn);
    if end.turn != last_turn {
        return Err(format!(
            "ending.turn: the export says the game ended at turn {}, its last turn is {last_turn}",
            end.turn
        ));
    }
    if let Some(r) = by_rules {
        return Err(format!(
            "ending: the export says {} {}, but the rules had already ended the game ({})",
            end.side,
            end.kind,
            result_words(Some(&r))
        ));
    }
    // A draw from before endings were recorded names no side (who
    // accepted it is not known); `check_result` notes it.
    let unknown_draw = end.kind == DRAW_AGREED && end.side.is_empty();
    if !export.sides.contains(&end.side) && !unknown_draw {
        return Err(format!(
            "ending.side: '{}' is not a side of the game",
            end.side
        ));
    }
    match end.kind.as_str() {
        RESIGNED => Ok(export.sides.iter().find(|s| **s != end.side).cloned()),
        DRAW_AGREED => Ok(Some(String::new())),
        other => Err(format!("ending.kind: '{other}' is no way a game ends")),
    }
}

/// The export's stated result and status against the replay's (issue 39).
fn check_result(export: &Export, rules: &Rules, last: &State, v: &mut Verification) {
    let game = export.game;
    let want = match replayed_result(export, rules, last) {
        Ok(w) => w,
        Err(d) => {
            v.differences.push(format!("game {game}: {d}"));
            return;
        }
    };
    if want.is_none()
        && export.status == "over"
        && export.ending.is_none()
        && export.format != FORMAT
    {
        v.notes.push(format!(
            "game {game}: {} does not record how a game ended outside its rules, so its result ({}) was not checked",
            export.format,
            result_words(export.result.as_deref())
        ));
        return;
    }
    if export.result != want {
        v.differences.push(format!(
            "game {game}: result: the export says {}, the replay gives {}",
            result_words(export.result.as_deref()),
            result_words(want.as_deref())
        ));
    }
    if let Some(end) = export
        .ending
        .as_ref()
        .filter(|e| e.kind == DRAW_AGREED && e.side.is_empty())
    {
        v.notes.push(format!(
            "game {game}: the draw at turn {} ended the game before the judge recorded who agreed it",
            end.turn
        ));
    }
    let status = if want.is_some() { "over" } else { "active" };
    if export.status != status {
        v.differences.push(format!(
            "game {game}: status: the export says {}, the replay gives {status}",
            export.status
        ));
    }
}

/// A format-1 export: one turn per side's orders.
#[derive(Deserialize)]
struct ExportV1 {
    format: String,
    game: u64,
    ruleset: String,
    scenario: String,
    #[serde(default)]
    scenario_text: Option<String>,
    #[serde(default)]
    ruleset_text: Option<String>,
    options: Value,
    status: String,
    result: Option<String>,
    sides: Vec<String>,
    seed_commitment: String,
    seed: Option<String>,
    setup_state_hash: String,
    turns: Vec<TurnV1>,
}

#[derive(Deserialize)]
struct TurnV1 {
    turn: u32,
    side: String,
    orders: String,
    received_at: String,
    dice_commitment: String,
    dice_seed: String,
    events: Vec<Value>,
    state_hash: String,
}

impl From<ExportV1> for Export {
    fn from(o: ExportV1) -> Export {
        let mut turns: Vec<ExportTurn> = Vec::new();
        for t in o.turns {
            let orders = ExportOrders {
                side: t.side,
                orders: t.orders,
                received_at: t.received_at,
            };
            // Two sides' orders of one phase were two format-1 turns.
            match turns.last_mut() {
                Some(last) if last.turn == t.turn => last.orders.push(orders),
                _ => turns.push(ExportTurn {
                    turn: t.turn,
                    orders: vec![orders],
                    dice_commitment: t.dice_commitment,
                    dice_seed: t.dice_seed,
                    events: t.events,
                    state_hash: t.state_hash,
                    record: String::new(),
                }),
            }
        }
        Export {
            format: o.format,
            game: o.game,
            ruleset: o.ruleset,
            scenario: o.scenario,
            scenario_text: o.scenario_text,
            ruleset_text: o.ruleset_text,
            options: o.options,
            status: o.status,
            result: o.result,
            sides: o.sides,
            seed_commitment: o.seed_commitment,
            seed: o.seed,
            setup_state_hash: o.setup_state_hash,
            turns,
            ending: None,
            messages: Vec::new(),
            setup_record: None,
            record: None,
        }
    }
}

/// Read an export of any format this judge ever wrote ([`FORMATS`]); an
/// unknown one is named with the formats this judge reads.
pub fn parse(text: &str) -> Result<Export, String> {
    #[derive(Deserialize)]
    struct Tag {
        format: String,
    }
    let tag: Tag = serde_json::from_str(text).map_err(|e| located(&e))?;
    match tag.format.as_str() {
        "adjutant-export/1" => serde_json::from_str::<ExportV1>(text)
            .map(Export::from)
            .map_err(|e| located(&e)),
        f if FORMATS.contains(&f) => serde_json::from_str(text).map_err(|e| located(&e)),
        f => Err(format!(
            "format '{f}' is not one this judge reads ({}); a newer release of Adjutant may read it",
            FORMATS.join(", ")
        )),
    }
}

fn located(e: &serde_json::Error) -> String {
    format!("{}:{}: {e}", e.line(), e.column())
}

/// The scenario of an export, with its rule options as strings.
fn scenario_of(export: &Export) -> Scenario {
    let mut source = match &export.scenario_text {
        Some(text) => Scenario {
            id: export.scenario.clone(),
            text: Some(text.clone()),
            file: format!("{}.toml", export.scenario),
            options: Default::default(),
        },
        None => Scenario::shipped(&export.scenario),
    };
    if let Some(o) = export.options.as_object() {
        source.options = o
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
    }
    source
}

/// Does the rulebook of an exported game have pre-battle rules (does it
/// take the game option `campaign-dice`)? A campaign's battles of other
/// rulebooks have no pre-battle dice.
#[must_use]
pub fn has_pre_battle_rules(export: &Export) -> bool {
    let Ok(rules) = Rules::of_game(&export.ruleset, export.ruleset_text.as_deref()) else {
        return false;
    };
    let mut source = scenario_of(export);
    source.options.insert("campaign-dice".into(), String::new());
    setup_state(&rules, &source, &[0; 32]).is_ok()
}

/// The victory points of each side at the end of an exported game, from a
/// replay (None without the seed or when the replay fails).
#[must_use]
pub fn final_points(export: &Export) -> Option<std::collections::BTreeMap<String, u32>> {
    let master = dice::parse_seed(export.seed.as_deref()?)?;
    let rules = Rules::of_game(&export.ruleset, export.ruleset_text.as_deref()).ok()?;
    let mut state = setup_state(&rules, &scenario_of(export), &master).ok()?;
    for t in &export.turns {
        let orders: Vec<Orders> = t
            .orders
            .iter()
            .map(|o| Orders {
                side: o.side.clone(),
                text: o.orders.clone(),
            })
            .collect();
        let adj = match orders.as_slice() {
            [one] if one.side == REFEREE_SIDE => {
                super::referee::amend_turn(&rules, &state, &one.text).ok()?
            }
            _ => adjudicate_turn(&rules, &state, &master, t.turn, &orders).ok()?,
        };
        state = adj.state;
    }
    Some(rules.score(&state).into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn private_events_are_redacted_public_ones_kept() {
        let drawn =
            json!({"kind": "card-drawn", "side": "axis", "card": "recon-left", "private": true});
        assert_eq!(
            redact(&drawn),
            json!({"kind": "card-drawn", "side": "axis", "card": "hidden", "private": true})
        );
        let open = json!({"kind": "card-discarded", "side": "axis", "card": "x", "private": false});
        assert_eq!(redact(&open), open);
        let battle = json!({"kind": "battle", "faces": ["star"]});
        assert_eq!(redact(&battle), battle);
    }

    /// Every path of a JSON value with its type, sorted: an export's shape.
    fn shape(path: &str, v: &Value, out: &mut Vec<String>) {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(a) => {
                for x in a {
                    shape(&format!("{path}[]"), x, out);
                }
                "array"
            }
            Value::Object(o) => {
                for (k, x) in o {
                    shape(&format!("{path}.{k}"), x, out);
                }
                "object"
            }
        };
        out.push(format!("{path}: {kind}"));
    }

    fn shape_hash(v: &Value) -> String {
        let mut out = Vec::new();
        shape("", v, &mut out);
        out.sort();
        out.dedup();
        dice::sha256_hex(out.join("\n").as_bytes())[..16].to_string()
    }

    /// An export with every field filled.
    fn full_export() -> Export {
        Export {
            format: FORMAT.into(),
            game: 1,
            ruleset: "r".into(),
            scenario: "s".into(),
            scenario_text: Some("t".into()),
            ruleset_text: Some("t".into()),
            options: json!({}),
            status: "over".into(),
            result: Some("a".into()),
            sides: vec!["a".into()],
            seed_commitment: "c".into(),
            seed: Some("s".into()),
            setup_state_hash: "h".into(),
            turns: vec![ExportTurn {
                turn: 1,
                orders: vec![ExportOrders {
                    side: "a".into(),
                    orders: "o".into(),
                    received_at: "t".into(),
                }],
                dice_commitment: "c".into(),
                dice_seed: "s".into(),
                events: vec![json!({})],
                state_hash: "h".into(),
                record: "r".into(),
            }],
            ending: Some(Ending {
                kind: RESIGNED.into(),
                side: "a".into(),
                offered_by: Some("b".into()),
                turn: 1,
            }),
            messages: vec![crate::store::team::Message {
                turn: 1,
                kind: "press".into(),
                side: "a".into(),
                seat_no: 0,
                email: "e".into(),
                text: "t".into(),
                sent_at: "t".into(),
            }],
            setup_record: Some("r".into()),
            record: Some("r".into()),
        }
    }

    /// The schema of the exports is pinned to their format tags: a change
    /// of either fields or types fails here until the tag changes too (and
    /// the old tag stays readable: `FORMATS`, `parse`).
    #[test]
    fn the_schema_is_pinned_to_the_format_tag() {
        use crate::service::campaign::{
            CampaignExport, PlannedBattle, CAMPAIGN_FORMAT, CAMPAIGN_FORMATS,
        };
        let game = serde_json::to_value(full_export()).unwrap();
        let campaign = serde_json::to_value(CampaignExport {
            format: CAMPAIGN_FORMAT.into(),
            name: "n".into(),
            all_at_once: false,
            pre_battle_dice: Some(true),
            stopped: Some("why".into()),
            plan: vec![PlannedBattle {
                seq: 1,
                scenario: "s".into(),
                game: Some(1),
                winner: Some("a".into()),
                points: [("a".to_string(), 1)].into_iter().collect(),
                roles: [("a".to_string(), "p".to_string())].into_iter().collect(),
            }],
            battles: vec![full_export()],
            record: Some("r".into()),
        })
        .unwrap();
        // (format, shape hash) of every format written since the pin.
        let pinned = [
            (FORMAT, "323be4fc523188c8"),
            (CAMPAIGN_FORMAT, "37dd534ab51fcae4"),
        ];
        assert_eq!(
            [
                (FORMAT, shape_hash(&game).as_str()),
                (CAMPAIGN_FORMAT, shape_hash(&campaign).as_str())
            ],
            pinned,
            "the export's schema changed: give it a new format tag, keep the old one readable"
        );
        assert_eq!(FORMATS.last(), Some(&FORMAT));
        assert_eq!(CAMPAIGN_FORMATS.last(), Some(&CAMPAIGN_FORMAT));
    }

    #[test]
    fn a_format_1_export_parses_with_two_sides_orders_merged() {
        // A registered family's first shipped scenario: the reading of the
        // format names no family.
        let (scenario, ruleset) = (crate::rules::families()[0].scenarios)()
            .into_iter()
            .next()
            .expect("a shipped scenario");
        let text = json!({
            "format": "adjutant-export/1", "game": 3, "ruleset": ruleset,
            "scenario": scenario, "options": {}, "status": "active",
            "result": null, "sides": ["allies", "axis"], "seed_commitment": "c",
            "seed": null, "setup_state_hash": "h",
            "turns": [
                {"turn": 1, "side": "allies", "orders": "PASS", "received_at": "t1",
                 "dice_commitment": "c1", "dice_seed": "s1", "events": [], "state_hash": "a"},
                {"turn": 1, "side": "axis", "orders": "PASS", "received_at": "t2",
                 "dice_commitment": "c1", "dice_seed": "s1", "events": [], "state_hash": "a"},
                {"turn": 2, "side": "allies", "orders": "X", "received_at": "t3",
                 "dice_commitment": "c2", "dice_seed": "s2", "events": [], "state_hash": "b"}
            ]
        })
        .to_string();
        let ex = parse(&text).unwrap();
        assert_eq!(ex.format, "adjutant-export/1");
        assert_eq!(ex.turns.len(), 2);
        assert_eq!(ex.turns[0].orders.len(), 2);
        assert_eq!(ex.turns[1].orders[0].orders, "X");
        let e = parse(&text.replace("export/1", "export/9")).unwrap_err();
        assert!(
            e.contains("'adjutant-export/9' is not one this judge reads"),
            "{e}"
        );
    }

    #[test]
    fn differences_are_named() {
        let a = json!({"kind": "battle", "faces": ["star", "flag"]});
        let b = json!({"kind": "battle", "faces": ["star", "grenade"]});
        let d = first_difference("", &a, &b).unwrap();
        assert_eq!(
            d,
            ".faces[1]: the export says \"flag\", the replay gives \"grenade\""
        );
        assert!(first_difference("", &a, &a).is_none());
        assert!(first_difference("", &json!([1]), &json!([1, 2])).is_some());
    }
}
