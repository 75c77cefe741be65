//! Kriegspiel & The Fog Of War (seeds/004): what each side sees, and the
//! redaction of a turn's events for a side. Every report is rendered from a
//! view, and the view takes its units and events from here, so a renderer
//! cannot show what this module leaves out. Each rule is written down, with
//! the sentence behind it, in docs/rules/kriegspiel.md.

use super::board::Hex;

mod cards;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::{State, Unit};
use super::Viewer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The game option: `kriegspiel=true`, or `kriegspiel=known-start` when the
/// players know where the opponent's units started ("Players may also know
/// which Units his opponent has or even where they started").
pub const OPTION: &str = "kriegspiel";

/// A Kriegspiel game's fog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fog {
    /// Each side sees the opponent's starting position until the first turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub known_start: bool,
    /// Per side: the hexes of the enemy units it saw when the last turn
    /// began (the events of that turn are told as far as it could know
    /// them: from where it saw them, to where it sees them).
    #[serde(default)]
    pub seen_before: Vec<Vec<Hex>>,
}

/// Read the option's value.
pub fn parse_option(v: &str) -> Result<Fog, String> {
    match v.trim() {
        "true" | "on" | "yes" | "" => Ok(Fog::default()),
        "known-start" => Ok(Fog {
            known_start: true,
            seen_before: Vec::new(),
        }),
        "false" | "off" | "no" => Err("to play without fog, leave the option out".into()),
        other => Err(format!(
            "'{other}' is not a Kriegspiel setting (true or known-start)"
        )),
    }
}

/// A unit's Battle Range in hexes: the length of its dice-by-range row.
fn battle_range(r: &Ruleset, u: &Unit) -> u32 {
    r.units.get(&u.kind).map_or(3, |s| s.dice.len() as u32)
}

/// Does `side` see the unit `u` (of the other side)? "Players can only
/// 'see' enemy Units on their Board when they come into Battle Range of
/// their own Units"; "Camouflaged Units are always left off the board until
/// they have lost their concealment" (seen here only in close assault
/// distance, where "the active player should be informed").
#[must_use]
pub fn sees(r: &Ruleset, s: &State, side: usize, u: &Unit) -> bool {
    if u.side == side {
        return true;
    }
    let Some(fog) = &s.fog else {
        return true;
    };
    if fog.known_start && s.turn == 0 && s.pre_battle.is_none() {
        return true;
    }
    s.units.iter().filter(|o| o.side == side).any(|o| {
        let d = o.at.distance(u.at);
        if u.concealed {
            d <= 1
        } else {
            d <= super::weather::seen_range(r, s, battle_range(r, o))
        }
    })
}

/// Does `side` see the hex `h` (a marker on it)? As for an enemy unit in
/// the open there: one of its units is within battle range (weather
/// permitting), or it is not a fog game.
#[must_use]
pub fn sees_hex(r: &Ruleset, s: &State, side: usize, h: Hex) -> bool {
    if s.fog.is_none() {
        return true;
    }
    s.units
        .iter()
        .filter(|o| o.side == side)
        .any(|o| o.at.distance(h) <= super::weather::seen_range(r, s, battle_range(r, o)))
}

/// The enemy units `side` sees now.
#[must_use]
pub fn seen_units<'a>(r: &Ruleset, s: &'a State, side: usize) -> Vec<&'a Unit> {
    s.units
        .iter()
        .filter(|u| u.side != side && sees(r, s, side, u))
        .collect()
}

/// The hexes of the enemy units each side sees now (stored before a turn).
#[must_use]
pub fn seen_hexes(r: &Ruleset, s: &State) -> Vec<Vec<Hex>> {
    (0..s.sides.len())
        .map(|i| seen_units(r, s, i).iter().map(|u| u.at).collect())
        .collect()
}

/// Is the state a fog game and `viewer` someone who sees only a side's part?
/// Returns the side index the view is for (None for the referee, who sees
/// everything, and for games without fog). Observers see no unit at all.
#[must_use]
pub fn fogged_side(s: &State, viewer: &Viewer) -> Option<Option<usize>> {
    s.fog.as_ref()?;
    match viewer {
        Viewer::Referee => None,
        Viewer::Side(id) => Some(s.side_index(id)),
        Viewer::Observer => Some(None),
    }
}

/// Should `viewer` see unit `u`?
#[must_use]
pub fn visible(r: &Ruleset, s: &State, viewer: &Viewer, u: &Unit) -> bool {
    match fogged_side(s, viewer) {
        None => true,
        Some(None) => false,
        Some(Some(side)) => sees(r, s, side, u),
    }
}

/// The events of the turn that led to `s`, as `viewer` may know them.
#[must_use]
pub fn redact(r: &Ruleset, s: &State, viewer: &Viewer, events: Vec<Event>) -> Vec<Event> {
    let side = match fogged_side(s, viewer) {
        None => return events,
        Some(None) => None,
        Some(Some(i)) => Some(i),
    };
    let me = side
        .and_then(|i| s.sides.get(i).cloned())
        .unwrap_or_default();
    let mine = |who: &str| side.is_some() && who == me;
    // Where it saw enemy units: at the start of the turn, now, and every hex
    // its own units battled (it knows what it shot at) or were battled from
    // a hex it saw.
    let mut known: BTreeSet<Hex> = BTreeSet::new();
    if let Some(i) = side {
        if let Some(fog) = &s.fog {
            if let Some(v) = fog.seen_before.get(i) {
                known.extend(v.iter().copied());
            }
        }
        known.extend(seen_units(r, s, i).iter().map(|u| u.at));
        known.extend(s.units.iter().filter(|u| u.side == i).map(|u| u.at));
    }
    let now: BTreeSet<Hex> = match side {
        Some(i) => seen_units(r, s, i).iter().map(|u| u.at).collect(),
        None => BTreeSet::new(),
    };
    for e in &events {
        if let Event::Battle { side: by, at, .. } = e {
            if mine(by) {
                known.insert(*at);
            }
        }
        if let Event::Move { side: by, path, .. } | Event::Retreat { side: by, path, .. } = e {
            if mine(by) {
                known.extend(path.iter().copied());
            }
        }
        // Where its own units stood when battled, even if they are gone
        // or have retreated: a side is always told of a battle against
        // one of its units.
        if let Event::UnitEliminated { side: by, at, .. }
        | Event::FiguresLost { side: by, at, .. } = e
        {
            if mine(by) {
                known.insert(*at);
            }
        }
    }
    let fog = |text: String| Event::Fog { note: text };
    let mut out = Vec::new();
    let mut drew_told = false;
    // The medal for a unit eliminated out of sight names no kind.
    let mut unseen_kill = false;
    for e in events {
        let keep = match &e {
            // "A player may not know which Command Cards his opponent has
            // or are being played": the enemy's cards are told only as
            // having been played.
            Event::CardPlayed { side: by, .. } if !mine(by) => {
                Some(fog("The enemy plays a command card.".into()))
            }
            Event::CardsExchanged { side: by, .. } if !mine(by) => {
                Some(fog("The enemy exchanges command cards.".into()))
            }
            Event::CardDiscarded { side: by, .. } if !mine(by) => None,
            // What the enemy's cards do to the deck would name them (two
            // draws are Recon, a reshuffle with cards left Their Finest
            // Hour): one draw is told whatever it drew, no reshuffle.
            Event::CardDrawn { side: by, .. } if !mine(by) => {
                let first = !drew_told;
                drew_told = true;
                first.then(|| e.clone())
            }
            Event::DeckReshuffled { .. } => None,
            Event::MedalGained {
                side: by,
                medals,
                reason,
            } if unseen_kill && reason.ends_with(" eliminated") => {
                unseen_kill = false;
                Some(Event::MedalGained {
                    side: by.clone(),
                    medals: *medals,
                    reason: "a unit eliminated out of sight".into(),
                })
            }
            // Ambush is a card: its battle is told as a close assault.
            Event::AmbushPlayed { side: by, .. } if !mine(by) => None,
            Event::BridgeBombarded { side: by, .. } if !mine(by) => cards::bombarded_seen(&e, &known),
            // "Achtung! Zombie!": told where the side sees.
            Event::Zombies { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            // "EX-TER-MIN-ATE!": told where the side sees.
            Event::Daleks { side: by, at, .. } | Event::Cybermen { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            // A Battle Star marker's fate: told where the side sees.
            Event::BattleStar { at, .. } if !known.contains(at) => None,
            Event::TurnBegun { .. }
            | Event::Amended { .. }
            | Event::PreBattleRoll { .. }
            | Event::PreBattleHand { .. }
            | Event::PreBattleVoid { .. }
            | Event::PreBattleRetreat { .. }
            | Event::PreBattleLoss { .. }
            | Event::PreBattleMedal { .. }
            | Event::BattleStar { .. }
            | Event::CardPlayed { .. }
            | Event::CardDrawn { .. }
            | Event::CardDiscarded { .. }
            | Event::CardsExchanged { .. }
            | Event::MedalGained { .. }
            | Event::VictoryReached { .. }
            | Event::GameOver { .. }
            // "War Of The Worlds": the Common Cold's Battle Stars and the
            // markers on the Martian medal stand are in plain view.
            | Event::Worlds { .. }
            // The night track's roll for dawn is seen by both sides.
            | Event::NightTrack { .. }
            | Event::Fog { .. } => Some(e.clone()),
            Event::UnitOrdered { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            Event::Move {
                side: by,
                unit,
                path,
            }
            | Event::Retreat {
                side: by,
                unit,
                path,
                ..
            } => {
                let retreat = matches!(e, Event::Retreat { .. });
                let (Some(a), Some(b)) = (path.first(), path.last()) else {
                    continue;
                };
                if mine(by) || (path.iter().all(|h| known.contains(h)) && now.contains(b)) {
                    Some(e.clone())
                } else {
                    match (known.contains(a), now.contains(b)) {
                        (true, true) => Some(fog(format!(
                            "The enemy {unit} at {a} {} out of sight and is seen again at {b}.",
                            if retreat { "retreats" } else { "moves" }
                        ))),
                        (true, false) => Some(fog(format!(
                            "The enemy {unit} at {a} {} out of sight.",
                            if retreat { "retreats" } else { "moves" }
                        ))),
                        (false, true) => {
                            Some(fog(format!("An enemy {unit} comes into sight at {b}.")))
                        }
                        (false, false) => None,
                    }
                }
            }
            Event::Battle {
                side: by,
                from,
                at,
                dice,
                faces,
                hits,
                flags,
                how,
                target,
                ..
            } => {
                if mine(by) {
                    Some(e.clone())
                } else if from.is_some_and(|f| known.contains(&f)) {
                    // Seen whole, but not the enemy's card: no modifier
                    // the side cannot see on the table, no card's name.
                    Some(cards::battle_seen(&e))
                } else if known.contains(at) {
                    // Battled from a hex it does not see: the dice and what
                    // they did to its own unit, nothing of the firer.
                    Some(Event::Battle {
                        side: by.clone(),
                        attacker: "unseen enemy unit".into(),
                        from: None,
                        target: target.clone(),
                        at: *at,
                        range: 0,
                        how: cards::neutral_how(how, 0),
                        base_dice: *dice,
                        modifiers: Vec::new(),
                        dice: *dice,
                        faces: faces.clone(),
                        hits: *hits,
                        flags: *flags,
                        ignored_flags: 0,
                    })
                } else {
                    None
                }
            }
            Event::OrderSkipped { side: by, .. } => mine(by).then(|| e.clone()),
            // Minefields and Combat Engineers: told to the side whose unit
            // it was, and to the other where it sees the hex.
            Event::ObstacleRemoved { side: by, at, .. }
            | Event::MinefieldIgnored { side: by, at, .. }
            | Event::MinefieldRevealed { side: by, at, .. }
            | Event::MinefieldExploded { side: by, at, .. }
            | Event::BridgeDetonation { side: by, at, .. }
            | Event::BridgeDestroyed { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            // Fired or placed from a hex: told whole only where the side
            // sees both ends.
            Event::MinefieldClearance {
                side: by,
                at,
                from: Some(from),
                ..
            }
            | Event::BridgeCharged {
                side: by, at, from, ..
            }
            | Event::PontoonBuilt {
                side: by, at, from, ..
            }
            | Event::BridgeBombarded {
                side: by, at, from, ..
            } => (mine(by) || (known.contains(at) && known.contains(from))).then(|| e.clone()),
            Event::MinefieldClearance { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            Event::Contact { side: by, .. } => mine(by).then(|| e.clone()),
            // Supply Lines & Sieges: a side's supply is its own business;
            // a roll and the Drop-Zone's loss where the enemy sees the hex.
            Event::Supply { side: by, .. } => mine(by).then(|| e.clone()),
            Event::SupplyRoll { side: by, at, .. } | Event::DropZoneLost { side: by, at } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            Event::WireRemoved { at, .. }
            | Event::BridgeChargesRemoved { at }
            | Event::SandbagPlaced { at }
            | Event::SandbagRemoved { at }
            | Event::TileDestroyed { at, .. }
            | Event::AmbushPlayed { at, .. } => known.contains(at).then(|| e.clone()),
            // "Nineteen Eighty-Four": a replacement is told to its side,
            // and to the enemy where it sees the hex.
            Event::Replacement { side: by, at, .. } => (mine(by)
                || at.is_some_and(|h| known.contains(&h)))
            .then(|| e.clone()),
            Event::Train { side: by, at, .. }
            | Event::TrainMission { side: by, at, .. }
            | Event::Reinforced { side: by, at, .. }
            | Event::IceRoll { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            // Medics & Mechanics: the figures are seen back on the table,
            // not the card's roll.
            Event::FiguresReturned {
                side: by,
                unit,
                at,
                now,
                ..
            } => {
                if mine(by) {
                    Some(e.clone())
                } else {
                    known.contains(at).then(|| {
                        fog(format!("The enemy {unit} at {at} now has {now} figures."))
                    })
                }
            }
            Event::FiguresLost { side: by, at, .. } => {
                (mine(by) || known.contains(at)).then(|| e.clone())
            }
            Event::UnitEliminated {
                side: owner,
                at,
                by: who,
                ..
            } => {
                if mine(owner) || known.contains(at) {
                    Some(e.clone())
                } else {
                    unseen_kill = true;
                    Some(fog(format!(
                        "An enemy unit out of sight is eliminated ({} gains the medal).",
                        who
                    )))
                }
            }
            Event::TakeGround {
                side: by,
                from,
                to,
                unit,
            }
            | Event::Overrun {
                side: by,
                from,
                to,
                unit,
            } => {
                if mine(by) || (known.contains(from) && known.contains(to)) {
                    Some(e.clone())
                } else if now.contains(to) {
                    Some(fog(format!("An enemy {unit} comes into sight at {to}.")))
                } else {
                    None
                }
            }
            Event::ObjectiveTaken { side: by, at, held } => {
                if mine(by) || known.contains(at) {
                    Some(e.clone())
                } else if *held {
                    Some(fog("The enemy takes an objective (a medal).".into()))
                } else {
                    Some(fog("The enemy loses an objective.".into()))
                }
            }
            Event::CrossHairPlaced { gun, .. } => known.contains(gun).then(|| e.clone()),
            // An enemy airdrop: the planes are seen, where a stick came down
            // only if a unit of the side sees it now.
            Event::Airdrop {
                side: by,
                unit,
                at,
                on,
                ..
            } => {
                if mine(by)
                    && on.is_some_and(|h| {
                        !known.contains(&h) && s.unit_at(h).is_none_or(|u| Some(u.side) != side)
                    })
                {
                    // Lost on an enemy unit the side does not see: the
                    // dice and the hex would say where that unit is.
                    Some(fog(format!(
                        "Your {unit} dropped by air is lost: it came down where no unit of yours can see (no medal to the enemy)."
                    )))
                } else if mine(by) {
                    Some(e.clone())
                } else if let Some(h) = at.filter(|h| now.contains(h)) {
                    Some(fog(format!("An enemy {unit} lands by air at {h}.")))
                } else {
                    Some(fog("Enemy aircraft drop troops out of sight.".into()))
                }
            }
            // Orders by dice are Their Finest Hour's alone: the enemy's are
            // not told (its units' moves and battles are, as far as seen).
            Event::OrdersByDice { side: by, .. } => mine(by).then(|| e.clone()),
        };
        if let Some(k) = keep {
            out.push(k);
        }
    }
    out
}

/// Kriegspiel: the part of a MOVE path a unit really makes, and the contact
/// that stopped it. "A move into or through an unseen unit's hex stops where
/// the collision happens and says so" (what the side did not see when the
/// move began); "If a Camouflaged Unit is within Close Assault distance of a
/// Moving Unit, then the active player should be informed and his Unit is
/// left in Close Assault" (it stops on the first hex next to one). Without
/// fog, the path as written.
#[must_use]
pub fn fog_path(r: &Ruleset, s: &State, side: usize, path: &[Hex]) -> (Vec<Hex>, Option<Event>) {
    if s.fog.is_none() || path.len() < 2 {
        return (path.to_vec(), None);
    }
    let mover = s.unit_at(path[0]);
    let kind = mover.map(|u| u.kind.clone()).unwrap_or_default();
    let me = s.sides.get(side).cloned().unwrap_or_default();
    let unseen = |h: Hex| {
        s.unit_at(h)
            .filter(|e| e.side != side && !sees(r, s, side, e))
            .map(|e| e.at)
    };
    for i in 1..path.len() {
        if let Some(enemy) = unseen(path[i]) {
            return (
                path[..i].to_vec(),
                Some(Event::Contact {
                    side: me,
                    unit: kind,
                    at: path[i - 1],
                    enemy,
                    how: "collision".into(),
                }),
            );
        }
        let hidden_next = s.units.iter().find(|e| {
            e.side != side && e.concealed && e.at.distance(path[i]) == 1 && !sees(r, s, side, e)
        });
        if let Some(e) = hidden_next {
            return (
                path[..=i].to_vec(),
                Some(Event::Contact {
                    side: me,
                    unit: kind,
                    at: path[i],
                    enemy: e.at,
                    how: "camouflage".into(),
                }),
            );
        }
    }
    (path.to_vec(), None)
}
