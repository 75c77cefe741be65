//! One player turn: every order is checked against the position first (a
//! [`Plan`]); only a fully legal plan is applied, with dice.

#![allow(clippy::too_many_arguments)]

mod apply;
mod cards;
pub mod hooks;
mod plan;

pub(crate) use apply::Turn;
pub use apply::{apply, begin_paused, finish_paused, step_paused, Paused};
pub use cards::BLIMP;
pub use hooks::Hook;
pub use plan::plan;

use super::battle::{check_path, spotted, Ctx, MoveRule};
use super::board::{Hex, Section};
use super::events::Event;
use super::orders::{Cmd, Line, StandingCmd};
use super::state::{Played, Standing, State, Unit};
use super::{Chance, Rejection};
use std::collections::{BTreeMap, BTreeSet};

/// How an ordered unit may act this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    pub max_move: u32,
    pub move_battle: u32,
    pub ignore_terrain: bool,
    pub battles: u32,
    pub extra: i32,
    pub extra_close_only: bool,
    pub extra_reason: String,
    pub second_move: bool,
    pub nothing: bool,
    /// Restoring Order (Colonel Chapman): no step towards the enemy, and a
    /// unit that moves may not battle.
    pub regroup: bool,
    /// The Big Push (General Melchett): the unit must advance, and its close
    /// assaults Take Ground (armour: Overrun) when they can.
    pub push: bool,
    /// Every step of the move goes towards the enemy (the Big Push's
    /// artillery: "March forward one hex").
    pub forward_only: bool,
}

/// What the player does with the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Card {
        played: String,
        effect: String,
        section: Option<Section>,
    },
    Discard(String),
    Exchange(Vec<String>),
    /// "Achtung! Zombie!": the Dead Player's turn, without cards or orders
    /// (variants/zombies.rs).
    Horde,
}

/// Orders that wait on dice rolled at the start of the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    None,
    Medics(u32),
    FinestHour(Vec<u32>),
}

#[derive(Debug, Clone)]
pub enum Step {
    Move {
        line: Line,
        unit: u32,
        path: Vec<Hex>,
        /// Kriegspiel: why the move stopped short, as an event to report.
        contact: Option<Event>,
    },
    /// An order that cannot be carried out, found while checking (a unit
    /// stopped short under Kriegspiel): reported as not carried out.
    Lapse {
        line: Line,
        reason: String,
    },
    Battle {
        line: Line,
        unit: u32,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        firefight: bool,
        charge: bool,
        /// The Big Push: armour overruns the nearest weak enemy by itself
        /// when its close assault empties the hex and no OVERRUN was given.
        auto_overrun: bool,
    },
    Target {
        line: Line,
        hexes: Vec<Hex>,
    },
    RemoveWire {
        line: Line,
        unit: u32,
    },
    /// Battle Star Markers: Sabotage.
    Sabotage {
        line: Line,
        unit: u32,
    },
    /// Appendix 2, Oasis: the Medics & Mechanics roll of a unit there.
    Recover {
        line: Line,
        unit: u32,
    },
    /// Bridge Demolition, Option 1.
    Charge {
        line: Line,
        unit: u32,
        bridge: Hex,
    },
    /// Bridge Demolition, Option 2.
    Detonate {
        line: Line,
        bridge: Hex,
    },
    /// Appendix 2, Airfield: reinforcements land.
    Land {
        line: Line,
        at: Hex,
    },
    /// Appendix 2, Trains: a unit disembarks from the train `unit`.
    Unload {
        line: Line,
        unit: u32,
        to: Hex,
        kind: Option<String>,
    },
    /// Appendix 2, Bridge, Pontoon: the engineers place one.
    Pontoon {
        line: Line,
        unit: u32,
        river: Hex,
    },
    /// "Achtung! Zombie!": a Living unit retreats off the board (`EXIT`).
    Exit {
        line: Line,
        unit: u32,
    },
    /// "EX-TER-MIN-ATE!": a Dalek unit spends the turn exterminating the
    /// town it occupies (`EXTERMINATE`).
    Exterminate {
        line: Line,
        unit: u32,
    },
}

/// A checked turn.
#[derive(Debug, Clone)]
pub struct Plan {
    pub side: usize,
    pub action: Action,
    /// Colonel Blimp: the turn's further cards, one a section.
    pub more: Vec<Action>,
    pub ordered: Vec<u32>,
    pub modes: BTreeMap<u32, Mode>,
    pub steps: Vec<Step>,
    pub keep: Vec<String>,
    pub standing: Option<Standing>,
    pub gate: Gate,
    /// Political Commissar: what the turn does with the marker.
    pub commissar: super::commissar::Use,
}

pub fn default_mode(ctx: &Ctx<'_>, u: &Unit) -> Mode {
    let s = ctx.spec(&u.kind);
    Mode {
        max_move: s.r#move,
        move_battle: s.move_and_battle,
        // Suggested Variants: "Movement is not effected by any Terrain
        // limitations" (a Dalek; a zombie's own modes say the same).
        ignore_terrain: s.variant.terrain_free,
        battles: 1,
        extra: 0,
        extra_close_only: false,
        extra_reason: String::new(),
        second_move: false,
        nothing: false,
        regroup: false,
        push: false,
        forward_only: false,
    }
}

/// "There is no unit at X", which under Kriegspiel does not say whether an
/// enemy unit is there.
fn no_unit(st: &State, h: Hex) -> String {
    if st.fog.is_some() {
        format!("you have no unit at {h}")
    } else {
        format!("there is no unit at {h}")
    }
}

/// "The unit at X is not yours", the same words as [`no_unit`] under
/// Kriegspiel.
fn not_yours(st: &State, h: Hex) -> String {
    if st.fog.is_some() {
        format!("you have no unit at {h}")
    } else {
        format!("the unit at {h} is not yours")
    }
}

/// Does `side` see an enemy unit at `h`? Under Kriegspiel a unit it does
/// not see is not on its board, so a target there answers as an empty hex
/// (docs/rules/kriegspiel.md); without fog, is there an enemy unit.
pub(crate) fn enemy_seen_at(ctx: &Ctx<'_>, st: &State, side: usize, h: Hex) -> bool {
    st.unit_at(h)
        .is_some_and(|u| u.side != side && super::fog::sees(ctx.r, st, side, u))
}

/// The last hex of a MOVE order as written.
fn l_path_end(c: &Cmd) -> Option<Hex> {
    match c {
        Cmd::Move { path } => path.last().copied(),
        _ => None,
    }
}

/// Build a side's standing orders from STANDING lines.
pub fn standing_from(
    st: &State,
    side: usize,
    lines: &[Line],
    base: Standing,
) -> Result<Standing, Rejection> {
    let mut sd = base;
    let own = |l: &Line, h: Hex| -> Result<u32, Rejection> {
        match st.unit_at(h) {
            Some(u) if u.side == side => Ok(u.id),
            Some(_) => Err(l.reject(not_yours(st, h))),
            None => Err(l.reject(no_unit(st, h))),
        }
    };
    for l in lines {
        let Cmd::Standing(c) = &l.cmd else { continue };
        match c {
            StandingCmd::Clear => sd = Standing::default(),
            StandingCmd::NoRetreatAll => sd.no_retreat_all = true,
            StandingCmd::NoRetreat(hs) => {
                for h in hs {
                    let id = own(l, *h)?;
                    if !sd.no_retreat.contains(&id) {
                        sd.no_retreat.push(id);
                    }
                }
            }
            StandingCmd::Retreat(h, prefs) => {
                let id = own(l, *h)?;
                sd.retreat.retain(|(i, _)| *i != id);
                sd.retreat.push((id, prefs.clone()));
            }
            StandingCmd::AmbushNever => sd.ambush = Some(vec![]),
            StandingCmd::AmbushFirst => sd.ambush = None,
            StandingCmd::AmbushAt(hs) => {
                let mut v = Vec::new();
                for h in hs {
                    v.push(own(l, *h)?);
                }
                sd.ambush = Some(v);
            }
            StandingCmd::Swap(a, b) => sd.swaps.push((a.clone(), b.clone())),
        }
    }
    Ok(sd)
}

/// The card a Counter-Attack copies: the opponent's last card, flanks mirrored.
pub fn counter_card(ctx: &Ctx<'_>, st: &State, side: usize) -> Option<(String, Option<Section>)> {
    let p = st.last_played.get(State::other(side))?.as_ref()?;
    let mut id = p.card.clone();
    if id.contains("left-flank") {
        id = id.replace("left-flank", "right-flank");
    } else if id.contains("right-flank") {
        id = id.replace("right-flank", "left-flank");
    }
    ctx.r.card(&id)?;
    let sec = p
        .section
        .as_deref()
        .and_then(Section::parse)
        .map(Section::mirror);
    Some((id, sec))
}

/// Can a unit at `h` dig in? Dig-In has no terrain limit (the card's own
/// text; the house rules give "a Sandbag Emplacement on a Towns & Villages
/// hex" as an obstacle adding its feature to a tile): only a hex that already
/// holds a sandbag takes no second one.
#[must_use]
pub fn may_dig_in(st: &State, h: Hex) -> bool {
    !st.has_feature(h, "sandbag")
}

/// Assign straddling units to sections within the card's limits.
fn fits(units: &[Vec<Section>], limits: &BTreeMap<Section, usize>) -> bool {
    fn go(i: usize, units: &[Vec<Section>], left: &mut BTreeMap<Section, usize>) -> bool {
        let Some(opts) = units.get(i) else {
            return true;
        };
        for s in opts {
            if let Some(n) = left.get_mut(s) {
                if *n > 0 {
                    *n -= 1;
                    if go(i + 1, units, left) {
                        return true;
                    }
                    if let Some(n) = left.get_mut(s) {
                        *n += 1;
                    }
                }
            }
        }
        false
    }
    let mut left = limits.clone();
    go(0, units, &mut left)
}

fn class_of<'a>(ctx: &'a Ctx<'_>, u: &Unit) -> &'a str {
    ctx.spec(&u.kind).class.as_str()
}

/// Rows towards the enemy's edge from `a` to `b` (negative: back).
fn forward(side: usize, a: Hex, b: Hex) -> i32 {
    if side == 0 {
        b.row - a.row
    } else {
        a.row - b.row
    }
}

/// The path rules of Restoring Order and the Big Push.
fn manoeuvre_path(l: &Line, side: usize, m: &Mode, path: &[Hex]) -> Result<(), Rejection> {
    let (Some(a), Some(b)) = (path.first(), path.last()) else {
        return Ok(());
    };
    if path.len() < 2 {
        return Ok(());
    }
    if m.regroup {
        // "they may not advance towards the enemy": no step of the path.
        if let Some(w) = path.windows(2).find(|w| forward(side, w[0], w[1]) > 0) {
            return Err(l.reject(format!(
                "Restoring Order: units may not advance towards the enemy; {} to {} does",
                w[0], w[1]
            )));
        }
    }
    if m.forward_only {
        if let Some(w) = path.windows(2).find(|w| forward(side, w[0], w[1]) <= 0) {
            return Err(l.reject(format!(
                "The Big Push: artillery may only march forward; {} to {} is not towards the enemy",
                w[0], w[1]
            )));
        }
    }
    if m.push && forward(side, *a, *b) <= 0 {
        return Err(l.reject(format!(
            "The Big Push: every unit must advance at least one hex towards the enemy; {a} to {b} does not"
        )));
    }
    Ok(())
}

/// Artillery fire at wire, a bridge or a minefield: the target must be in
/// sight as a unit would be: line of sight (or a spotter for indirect fire),
/// and within the visibility of Night & Severe Weather, which limits every
/// battle.
fn in_sight(
    ctx: &Ctx<'_>,
    st: &State,
    u: &Unit,
    target: Hex,
    indirect: bool,
) -> Result<(), String> {
    if let Some(res) = super::weather::target_check(ctx, st, u, target, indirect) {
        return res;
    }
    if super::battle::sees_for(ctx, st, u.side, u.at, target)
        || indirect && spotted(ctx, st, u.side, target)
    {
        return Ok(());
    }
    Err(format!("no line of sight to {target}"))
}

/// Combat Engineers: an Engineer Unit that stands on barbed wire or a
/// hedgehog it has not removed "must do so the next time it is ordered
/// before being able to move away": why it may not move this turn.
fn engineer_stuck(ctx: &Ctx<'_>, st: &State, u: &Unit) -> Option<String> {
    if !ctx.spec(&u.kind).engineer {
        return None;
    }
    let f = st
        .features(u.at)
        .iter()
        .find(|f| ctx.r.feature(f).is_some_and(|x| x.engineer_removes))?;
    let name = ctx.r.feature(f).map_or(f.as_str(), |x| x.name.as_str());
    Some(format!(
        "the Engineer Unit at {} removes the {name} it stands on this turn before it may move away",
        u.at
    ))
}

/// May this Engineer Unit, having moved `dist` hexes, still battle (so it
/// clears a minefield it moved onto instead)?
fn engineer_clears(ctx: &Ctx<'_>, u: &Unit, m: &Mode, dist: u32, barred: bool) -> bool {
    ctx.spec(&u.kind).engineer && m.battles > 0 && !m.nothing && dist <= m.move_battle && !barred
}

/// The unit of `side` at `at`, ordered this turn, with its mode.
fn ordered_unit(
    sc: &State,
    modes: &BTreeMap<u32, Mode>,
    side: usize,
    at: Hex,
    l: &Line,
) -> Result<(Unit, Mode), Rejection> {
    let Some(u) = sc.unit_at(at).cloned() else {
        return Err(l.reject(no_unit(sc, at)));
    };
    match modes.get(&u.id).cloned().filter(|_| u.side == side) {
        Some(m) => Ok((u, m)),
        // Kriegspiel: an enemy hex answers as an empty one.
        None if u.side != side && sc.fog.is_some() => Err(l.reject(no_unit(sc, at))),
        None => Err(l.reject(format!("the unit at {at} is not one of your ordered units"))),
    }
}

const EXTERMINATING: &str =
    "exterminating a town takes the Dalek unit a whole turn: it may not move or battle";

/// Engineers placing charges or a Pontoon Bridge: "uses its entire action
/// ... It may nor Move or Battle".
fn whole_action(
    track: &mut BTreeMap<u32, Track>,
    u: &Unit,
    m: &Mode,
    l: &Line,
    what: &str,
) -> Result<(), Rejection> {
    let t = track.entry(u.id).or_default();
    if t.moved.is_some() || t.battles > 0 || t.clearing || t.charging || m.nothing {
        return Err(l.reject(format!(
            "{what} is the engineers' entire action: they may not move or battle"
        )));
    }
    t.charging = true;
    Ok(())
}

#[derive(Default, Clone)]
struct Track {
    moved: Option<u32>,
    barred: bool,
    battles: u32,
    second_moved: bool,
    wire: bool,
    /// An Engineer Unit clearing a minefield instead of battling.
    clearing: bool,
    /// Engineers placing charges on a bridge: their entire action.
    charging: bool,
    /// Appendix 2, Oasis: the unit has rolled to recover figures.
    recovered: bool,
    /// "EX-TER-MIN-ATE!": a Dalek unit exterminating a town: its whole turn.
    exterminating: bool,
}
