//! Kriegspiel & The Fog Of War (the house rules): what each side sees, and the
//! redaction of a turn's events for a side. Every report is rendered from a
//! view, and the view takes its units and events from here, so a renderer
//! cannot show what this module leaves out. Each rule is written down, with
//! the sentence behind it, in docs/rules/kriegspiel.md.

use super::board::Hex;

mod cards;
mod redact;
use super::events::Event;
use super::mines::Minefield;
use super::ruleset::Ruleset;
use super::state::{State, Unit};
use super::Viewer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// Per side: the turned-over minefields it knows are turned over (it
    /// was told of the turn-over, or has seen the hex since). Empty when no
    /// side knows of any. A counter flipped where a side sees nothing is
    /// not flipped on its board: that would say an enemy unit stepped there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mines_known: Vec<Vec<Hex>>,
    /// Per side, then the observers last: the hexes whose tiles or
    /// obstacles changed out of its sight (wire cut, sandbags laid, a bridge
    /// blown), with what it last saw there, until its units see the hex
    /// again (observers, who see no unit, never do). Empty when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terrain_seen: Vec<BTreeMap<Hex, Vec<String>>>,
}

/// Read the option's value.
pub fn parse_option(v: &str) -> Result<Fog, String> {
    match v.trim() {
        "true" | "on" | "yes" | "" => Ok(Fog::default()),
        "known-start" => Ok(Fog {
            known_start: true,
            ..Fog::default()
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

/// Does `side` see the minefield `m` turned over? Without fog, whenever it
/// is; under fog, only where the side was told of the turn-over or sees the
/// hex now (Appendix 1's "its numbered side visible to both players" meets
/// Kriegspiel's "Players can only 'see' enemy Units on their Board when they
/// come into Battle Range of their own Units": the counter turns over because
/// an enemy unit stepped on it).
#[must_use]
pub fn sees_turned_over(r: &Ruleset, s: &State, side: usize, m: &Minefield) -> bool {
    let Some(f) = &s.fog else {
        return m.revealed;
    };
    m.revealed
        && (f.mines_known.get(side).is_some_and(|k| k.contains(&m.at))
            || sees_hex(r, s, side, m.at))
}

/// The tiles and obstacles `viewer` sees on hex `h`: what it last saw there
/// if they changed out of its sight (`Fog::terrain_seen`: a side's, or the
/// observers'), else the truth (the referee, a game without fog).
#[must_use]
pub fn features_seen<'a>(s: &'a State, viewer: &Viewer, h: Hex) -> &'a [String] {
    let slot = match fogged_side(s, viewer) {
        None => None,
        Some(Some(i)) => Some(i),
        Some(None) => Some(s.sides.len()),
    };
    slot.and_then(|i| s.fog.as_ref()?.terrain_seen.get(i)?.get(&h))
        .map_or_else(|| s.features(h), Vec::as_slice)
}

/// After a turn of a fog game, what each side learnt: the minefields turned
/// over, and the tiles and obstacles it saw change or did not.
pub fn learn_after_turn(r: &Ruleset, before: &State, next: &mut State, events: &[Event]) {
    learn_minefields(r, next, events);
    learn_terrain(r, before, next);
}

/// A hex whose tiles or obstacles changed this turn where a side saw neither
/// before nor after keeps, on its board, what it last saw there ("Players
/// can only 'see' enemy Units on their Board when they come into Battle
/// Range of their own Units": wire cut or sandbags laid out of sight would
/// say where an enemy unit stood); once its units see the hex it sees the
/// truth.
fn learn_terrain(r: &Ruleset, before: &State, next: &mut State) {
    let Some(f) = &next.fog else {
        return;
    };
    let mut seen = f.terrain_seen.clone();
    // The sides, then the observers (who see no hex).
    let sides = next.sides.len();
    seen.resize(sides + 1, BTreeMap::new());
    let sees = |st: &State, i: usize, h: Hex| i < sides && sees_hex(r, st, i, h);
    let changed: Vec<Hex> = if before.terrain == next.terrain {
        Vec::new()
    } else {
        let mut hs: Vec<Hex> = before
            .terrain
            .keys()
            .chain(next.terrain.keys())
            .copied()
            .collect();
        hs.sort();
        hs.dedup();
        hs.retain(|&h| before.features(h) != next.features(h));
        hs
    };
    for (i, believed) in seen.iter_mut().enumerate() {
        for &h in &changed {
            if !sees(before, i, h) && !sees(next, i, h) {
                believed
                    .entry(h)
                    .or_insert_with(|| before.features(h).to_vec());
            }
        }
        believed.retain(|&h, was| !sees(next, i, h) && was.as_slice() != next.features(h));
    }
    if seen.iter().all(BTreeMap::is_empty) {
        seen.clear();
    }
    if let Some(f) = next.fog.as_mut() {
        f.terrain_seen = seen;
    }
}

/// After a turn of a fog game: each side learns of the minefields turned
/// over where it was told of the turn-over (its own unit stepped there, or it
/// saw the hex: `redact`) or sees the hex now. What it knew stays known.
fn learn_minefields(r: &Ruleset, next: &mut State, events: &[Event]) {
    let Some(f) = &next.fog else {
        return;
    };
    let mut known = f.mines_known.clone();
    known.resize(next.sides.len(), Vec::new());
    // The redaction runs only in a turn that turned a minefield over.
    let turned = events
        .iter()
        .any(|e| matches!(e, Event::MinefieldRevealed { .. }));
    for (i, k) in known.iter_mut().enumerate() {
        if turned {
            let viewer = Viewer::Side(next.sides[i].clone());
            for e in redact(r, next, &viewer, events.to_vec()) {
                if let Event::MinefieldRevealed { at, .. } = e {
                    k.push(at);
                }
            }
        }
        for m in next.minefields.iter().filter(|m| m.revealed) {
            if sees_hex(r, next, i, m.at) {
                k.push(m.at);
            }
        }
        k.retain(|h| next.minefields.iter().any(|m| m.revealed && m.at == *h));
        k.sort();
        k.dedup();
    }
    if known.iter().all(Vec::is_empty) {
        known.clear();
    }
    if let Some(f) = next.fog.as_mut() {
        f.mines_known = known;
    }
}

/// The enemy units `side` sees now.
#[must_use]
pub fn seen_units<'a>(r: &Ruleset, s: &'a State, side: usize) -> Vec<&'a Unit> {
    s.units
        .iter()
        .filter(|u| u.side != side && sees(r, s, side, u))
        .collect()
}

/// The position as `side` knows it: the whole design of "orders under fog"
/// (docs/rules/kriegspiel.md, "What a side's answers are computed on").
/// Every check a side can observe (order validation and its refusals,
/// PREDICT, the order templates) runs on this position, never on the truth,
/// so it is a function of what the side knows: its own units and hand, the
/// enemy units it sees now, and the public facts (tiles, objectives, medals,
/// the hands' sizes). The enemy units it does not see are taken off (with
/// the engagements and cross-hairs that name them), the enemy's hand,
/// standing orders and last card are blanked ("A player may not know which
/// Command Cards his opponent has or are being played"). Without fog, the
/// enemy's hand and standing orders are blanked only.
#[must_use]
pub fn knowledge(r: &Ruleset, s: &State, side: usize) -> State {
    let mut k = s.clone();
    for (i, hand) in k.hands.iter_mut().enumerate() {
        if i != side {
            hand.clear();
        }
    }
    if s.fog.is_none() {
        return k;
    }
    k.units.retain(|u| sees(r, s, side, u));
    for m in &mut k.minefields {
        m.revealed = sees_turned_over(r, s, side, m);
    }
    if let Some(seen) = s.fog.as_ref().and_then(|f| f.terrain_seen.get(side)) {
        for (h, was) in seen {
            if was.is_empty() {
                k.terrain.remove(h);
            } else {
                k.terrain.insert(*h, was.clone());
            }
        }
    }
    let kept = |id: u32| k.units.iter().any(|u| u.id == id);
    let engagements: Vec<_> = k
        .engagements
        .iter()
        .filter(|e| kept(e.a) && kept(e.b))
        .cloned()
        .collect();
    let cross_hairs: Vec<_> = k
        .cross_hairs
        .iter()
        .filter(|c| kept(c.gun) && kept(c.target))
        .cloned()
        .collect();
    k.engagements = engagements;
    k.cross_hairs = cross_hairs;
    for (i, st) in k.standing.iter_mut().enumerate() {
        if i != side {
            *st = Default::default();
        }
    }
    for (i, p) in k.last_played.iter_mut().enumerate() {
        if i != side {
            *p = None;
        }
    }
    k
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
        Viewer::Referee | Viewer::Revealed(None) => None,
        Viewer::Side(id) | Viewer::Revealed(Some(id)) => Some(s.side_index(id)),
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
    let mut red = redact::Redactor::new(r, s, side, &events);
    events.iter().filter_map(|e| red.keep(e)).collect()
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
