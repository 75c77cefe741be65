//! Paratroops & Glider Landings (the house rules, "Infantry Units"):
//!
//! > Airdrop Method - At the beginning of the game, select one figure for
//! > each Unit of Paratroops or Gliders. Hold the Infantry figures in your
//! > hand about 12 inches above the battlefield and then drop them. If a
//! > figure falls off the Board or lands in a hex with another friendly or
//! > enemy Unit, then this figure is placed back in the box. The Unit it
//! > represents is considered lost, but no Victory Points are awarded to the
//! > opposing player on this occasion.
//!
//! > Alternate Airdrop Method - ... move your hand across the Board from one
//! > side to the other with a slight pause when a figure or two is dropped.
//!
//! A mail game cannot drop figures, so the judge drops them by dice, in a
//! phase of its own before the first turn (`airdrop`), from that phase's
//! dice stream: `verify` replays every drop. The tables are data
//! (`[airdrop]` in the ruleset); the reading is in docs/rules/memoir44.md.

use super::board::Hex;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::{State, Unit};
use super::Chance;
use adjutant_rules::Phase;
use serde::{Deserialize, Serialize};

/// One stick still to be dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drop {
    pub side: usize,
    /// Unit type id.
    pub kind: String,
    /// Airdrop Method: the hex the figure is let go over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aim: Option<Hex>,
    /// Alternate Airdrop Method: the plane's line, from the first hex it
    /// flies over toward the second (and on, to the board's edge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flight: Option<(Hex, Hex)>,
}

/// The words for the six directions, in `Hex::neighbours` order.
pub const DIRECTIONS: [&str; 6] = [
    "right",
    "up-right",
    "up-left",
    "left",
    "down-left",
    "down-right",
];

/// The direction (index into `Hex::neighbours`) that leads from `a` to `b`
/// in a straight line, if there is one.
#[must_use]
pub fn straight(a: Hex, b: Hex) -> Option<usize> {
    if a == b {
        return None;
    }
    let n = a.distance(b);
    (0..6).find(|&d| step(a, d, n) == b)
}

/// `n` steps from `h` in direction `d` (off the board or not).
#[must_use]
pub fn step(h: Hex, d: usize, n: u32) -> Hex {
    let mut x = h;
    for _ in 0..n {
        x = x.neighbours()[d % 6];
    }
    x
}

/// The phase while sticks are still to be dropped.
#[must_use]
pub fn phase(s: &State) -> Option<Phase> {
    if s.airdrops.is_empty() || s.pre_battle.is_some() {
        return None;
    }
    Some(Phase {
        name: "airdrop".into(),
        sides: Vec::new(),
        what: "the judge drops the paratroops and gliders by dice".into(),
    })
}

fn d6(chance: &mut Chance<'_>) -> u32 {
    chance.dice.roll(6)
}

/// Drop every stick, in the scenario's order, and clear the list.
pub fn drop_all(r: &Ruleset, s: &State, chance: &mut Chance<'_>) -> (State, Vec<Event>) {
    let mut st = s.clone();
    let sticks = std::mem::take(&mut st.airdrops);
    let board = State::board(r);
    let mut ev = Vec::new();
    // Per flight line: how far along it the plane has flown (hexes from
    // the hex before its first).
    let mut flown: Vec<((Hex, Hex), u32)> = Vec::new();
    for d in sticks {
        let side = st.sides.get(d.side).cloned().unwrap_or_default();
        let spec = r.unit(&d.kind);
        let name = spec.map_or(d.kind.clone(), |u| u.name.clone());
        let mut rolls = Vec::new();
        // Where the figure is let go.
        let release = match (d.aim, d.flight) {
            (Some(a), _) => Some(a),
            (None, Some(line)) => {
                let roll = d6(chance);
                rolls.push(roll);
                let on = r.airdrop.pause.get(roll as usize - 1).copied().unwrap_or(1);
                let k = match flown.iter_mut().find(|(l, _)| *l == line) {
                    Some((_, k)) => {
                        *k += on;
                        *k
                    }
                    None => {
                        flown.push((line, on));
                        on
                    }
                };
                let dir = straight(line.0, line.1).unwrap_or(0);
                let p = step(line.0, dir, k - 1);
                board.contains(p).then_some(p)
            }
            (None, None) => None,
        };
        let Some(from) = release else {
            ev.push(Event::Airdrop {
                side,
                unit: name,
                released: None,
                flight: true,
                rolls,
                drift: 0,
                direction: None,
                at: None,
                lost: Some(
                    "the plane had flown past the board's edge: the figure fell off the board"
                        .into(),
                ),
                on: None,
            });
            continue;
        };
        let roll = d6(chance);
        rolls.push(roll);
        let drift = r
            .airdrop
            .scatter
            .get(roll as usize - 1)
            .copied()
            .unwrap_or(0);
        let mut direction = None;
        let mut at = from;
        if drift > 0 {
            let dr = d6(chance);
            rolls.push(dr);
            let dir = (dr as usize - 1) % 6;
            direction = Some(DIRECTIONS[dir].to_string());
            at = step(from, dir, drift);
        }
        let lost = if !board.contains(at) {
            Some("it fell off the board".to_string())
        } else if let Some(u) = st.unit_at(at) {
            Some(format!(
                "it landed on the hex of another unit ({} {}) at {at}",
                st.sides.get(u.side).cloned().unwrap_or_default(),
                r.unit(&u.kind).map_or(u.kind.as_str(), |x| x.name.as_str())
            ))
        } else {
            None
        };
        if lost.is_none() {
            let figures = spec.map_or(4, |u| u.figures);
            let id = st.next_unit;
            st.next_unit += 1;
            st.units
                .push(Unit::arriving(id, d.side, &d.kind, at, figures));
        }
        ev.push(Event::Airdrop {
            side,
            unit: name,
            released: Some(from),
            flight: d.flight.is_some(),
            rolls,
            drift,
            direction,
            on: (lost.is_some() && st.unit_at(at).is_some()).then_some(at),
            at: lost.is_none().then_some(at),
            lost,
        });
    }
    super::victory::update_objectives(&mut st);
    (st, ev)
}

/// The sentence of an `airdrop` event.
#[must_use]
pub fn describe(e: &Event) -> Option<String> {
    let Event::Airdrop {
        side,
        unit,
        released,
        flight,
        rolls,
        drift,
        direction,
        at,
        lost,
        ..
    } = e
    else {
        return None;
    };
    let who = super::render::side_name(side);
    let dice = rolls
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let over = match (released, flight) {
        (Some(h), true) => format!(" from the plane over {h}"),
        (Some(h), false) => format!(" over {h}"),
        (None, _) => String::new(),
    };
    let how = match (direction, released) {
        (Some(d), _) => format!("; it drifted {drift} hex(es) {d}"),
        (None, Some(_)) => "; it did not drift".to_string(),
        (None, None) => String::new(),
    };
    let end = match (at, lost) {
        (Some(h), _) => format!(": landed at {h}."),
        (_, Some(why)) => format!(": lost, {why} (no medal to the enemy)."),
        _ => ".".into(),
    };
    Some(format!(
        "{who} airdrop {unit}{over} (dice {dice}{how}){end}"
    ))
}
