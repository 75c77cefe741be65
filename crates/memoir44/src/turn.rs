//! One player turn: every order is checked against the position first (a
//! [`Plan`]); only a fully legal plan is applied, with dice.

#![allow(clippy::too_many_arguments)]

use super::battle::{
    battle_dice, check_path, lose, may_enter, resolve_flags, roll, spotted, target_check, total,
    unit_moved, Ctx, HitRule, MoveRule, Outcome,
};
use super::board::{Hex, Section};
use super::events::{Event, Modifier};
use super::orders::{Cmd, Line, StandingCmd};
use super::ruleset::CardSpec;
use super::state::{CrossHair, Engagement, Played, Standing, State, Unit};
use super::{Chance, Rejection};
use adjutant_dice::shuffle;
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
fn enemy_seen_at(ctx: &Ctx<'_>, st: &State, side: usize, h: Hex) -> bool {
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

/// Can a unit of `side` at `h` dig in (no equal protection there already)?
#[must_use]
pub fn may_dig_in(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    let sandbag = ctx.r.feature("sandbag");
    let need: BTreeMap<String, u32> = sandbag.map(|t| t.protect.clone()).unwrap_or_default();
    let info = ctx.info(st, h);
    if st.has_feature(h, "sandbag") {
        return false;
    }
    let covered = need.iter().filter(|(_, v)| **v > 0).all(|(k, v)| {
        info.specs.iter().any(|(_, t)| {
            !t.protect_from_lower_only && t.protect.get(k).copied().unwrap_or(0) >= *v
        })
    });
    !covered
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

/// The units of `side` a card may order, and the modes they get.
fn card_orders(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    card: &CardSpec,
    section: Option<Section>,
    line: &Line,
    ordered: &[(u32, Line)],
    all: bool,
) -> Result<(Vec<u32>, BTreeMap<u32, Mode>), Rejection> {
    let bottom = side == 0;
    let own: Vec<&Unit> = st.units.iter().filter(|u| u.side == side).collect();
    let effect = card.effect.clone().unwrap_or_default();
    let mut modes = BTreeMap::new();
    let unit = |id: u32| st.unit(id).cloned();
    let first_line = |i: usize| ordered.get(i).map_or(line, |(_, l)| l);
    // The units eligible under the card, for ORDER ALL and checks.
    let class = card.unit_class.clone();
    let in_section = |u: &Unit| section.is_none_or(|s| ctx.board.in_section(u.at, s, bottom));
    let of_class: Vec<&Unit> = own
        .iter()
        .copied()
        .filter(|u| {
            class
                .as_ref()
                .is_none_or(|c| super::support::ordered_as(ctx.spec(&u.kind), c))
                && (effect != "infantry-assault" || in_section(u))
        })
        .collect();
    let fallback = class.is_some() && of_class.is_empty();
    let mut ids: Vec<u32> = ordered.iter().map(|(i, _)| *i).collect();
    if card.kind == "manoeuvre" {
        // "He may order all his Units" (Restoring Order); "Every Unit must
        // advance" (The Big Push): the declaration orders every unit.
        if let Some((_, l)) = ordered.first() {
            return Err(l.reject(format!(
                "{} orders every one of your units: no ORDER lines",
                card.name
            )));
        }
        let mut ids = Vec::new();
        for u in &own {
            let mut m = default_mode(ctx, u);
            if effect == "restoring-order" {
                m.regroup = true;
            } else {
                m.push = true;
                if class_of(ctx, u) == "artillery" {
                    // "Artillery Units can March forward one hex or Battle
                    // with one additional Battle-Die."
                    m.max_move = card.artillery_march.unwrap_or(1);
                    m.move_battle = 0;
                    m.forward_only = true;
                    m.extra = card.artillery_extra_dice.unwrap_or(1) as i32;
                    m.extra_reason = card.name.clone();
                }
            }
            ids.push(u.id);
            modes.insert(u.id, m);
        }
        return Ok((ids, modes));
    }
    if card.kind == "section" {
        if all {
            if card.orders.values().any(|c| c.limit() != usize::MAX) {
                return Err(line.reject("ORDER ALL is only for cards that order every unit of a section or kind; name the hexes"));
            }
            ids = own
                .iter()
                .filter(|u| {
                    card.orders.keys().any(|s| {
                        Section::parse(s)
                            .is_some_and(|s| super::trains::sections(ctx, u, bottom).contains(&s))
                    })
                })
                .map(|u| u.id)
                .collect();
        }
        let limits: BTreeMap<Section, usize> = card
            .orders
            .iter()
            .filter_map(|(k, v)| Section::parse(k).map(|s| (s, v.limit())))
            .collect();
        let mut opts = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let Some(u) = unit(*id) else { continue };
            let secs: Vec<Section> = super::trains::sections(ctx, &u, bottom)
                .into_iter()
                .filter(|s| limits.contains_key(s))
                .collect();
            if secs.is_empty() {
                return Err(first_line(i).reject(format!(
                    "the unit at {} is not in a section {} orders (sections are seen from your own side of the board)",
                    u.at, card.name
                )));
            }
            opts.push(secs);
        }
        if !fits(&opts, &limits) {
            return Err(first_line(0).reject(format!(
                "{} does not order that many units in those sections",
                card.name
            )));
        }
        for id in &ids {
            if let Some(u) = unit(*id) {
                modes.insert(*id, default_mode(ctx, &u));
            }
        }
        return Ok((ids, modes));
    }
    // Tactic cards.
    if all {
        ids = match effect.as_str() {
            "close-assault" => own
                .iter()
                .filter(|u| matches!(class_of(ctx, u), "infantry" | "armour") && st.enemy_adjacent(u.at, side))
                .map(|u| u.id)
                .collect(),
            "artillery-bombard" | "infantry-assault" if !fallback => of_class.iter().map(|u| u.id).collect(),
            _ => return Err(line.reject("ORDER ALL is only for Assault, Close Assault, Artillery Bombard and Infantry Assault; name the hexes")),
        };
    }
    let max = match effect.as_str() {
        "air-power" | "barrage" => 0,
        _ if fallback => 1,
        "artillery-bombard" | "close-assault" | "infantry-assault" | "their-finest-hour" => {
            usize::MAX
        }
        _ => card.units.map_or(usize::MAX, |n| n as usize),
    };
    if ids.len() > max {
        let msg = if max == 0 {
            format!("{} orders no units; give its TARGET instead", card.name)
        } else if fallback {
            format!(
                "with no {} unit, {} orders 1 unit of your choice",
                class.clone().unwrap_or_default(),
                card.name
            )
        } else {
            format!("{} orders at most {max} unit(s)", card.name)
        };
        return Err(first_line(max.min(ids.len().saturating_sub(1))).reject(msg));
    }
    for (i, id) in ids.iter().enumerate() {
        let Some(u) = unit(*id) else { continue };
        let l = first_line(i);
        let cls = class_of(ctx, &u);
        let mut m = default_mode(ctx, &u);
        if !fallback {
            if let Some(c) = &class {
                if !super::support::ordered_as(ctx.spec(&u.kind), c) {
                    return Err(l.reject(format!(
                        "{} orders only {c} units; the unit at {} is {}",
                        card.name, u.at, cls
                    )));
                }
            }
            match effect.as_str() {
                "armor-assault" => {
                    m.extra = 1;
                    m.extra_close_only = true;
                    m.extra_reason = "Armour Assault".into();
                }
                "artillery-bombard" => {
                    m.max_move = 3;
                    m.move_battle = 0;
                    m.battles = 2;
                }
                "behind-enemy-lines" => {
                    m.max_move = 3;
                    m.move_battle = 3;
                    m.ignore_terrain = true;
                    m.extra = 1;
                    m.extra_reason = "Behind Enemy Lines".into();
                    m.second_move = true;
                }
                "dig-in" => {
                    if !may_dig_in(ctx, st, u.at) {
                        return Err(l.reject(format!(
                            "the hex {} already gives equal protection: no sandbag",
                            u.at
                        )));
                    }
                    m.nothing = true;
                }
                "infantry-assault" => {
                    if !in_section(&u) {
                        return Err(l.reject(format!(
                            "the unit at {} is not in the section of the Infantry Assault",
                            u.at
                        )));
                    }
                    // Never less than the unit's own (cavalry, ski troops).
                    m.max_move = m.max_move.max(3);
                    m.move_battle = m.move_battle.max(2);
                }
                _ => {}
            }
        }
        match effect.as_str() {
            "close-assault" => {
                if !matches!(cls, "infantry" | "armour") || !st.enemy_adjacent(u.at, side) {
                    return Err(l.reject(format!("Close Assault orders infantry and armour next to an enemy; the unit at {} is not", u.at)));
                }
                m.max_move = 0;
                m.extra = 1;
                m.extra_reason = "Close Assault".into();
            }
            "firefight" => {
                if st.enemy_adjacent(u.at, side) {
                    return Err(l.reject(format!(
                        "Firefight orders units not next to an enemy; the unit at {} is",
                        u.at
                    )));
                }
                m.max_move = 0;
                m.extra = 1;
                m.extra_reason = "Firefight card".into();
            }
            "medics-and-mechanics" if u.figures >= u.start => {
                return Err(l.reject(format!("the unit at {} has lost no figures", u.at)));
            }
            "their-finest-hour" => {
                m.extra = 1;
                m.extra_reason = "Their Finest Hour".into();
            }
            _ => {}
        }
        modes.insert(*id, m);
    }
    Ok((ids, modes))
}

/// Check one PLAY line: the card is in the hand (or, for a manoeuvre, the
/// game plays its variant and the side has not used it), may be played, and
/// takes a section only where the card needs one.
fn play_action(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    first: &Line,
    card: &String,
    section: &Option<Section>,
    hand: &[String],
) -> Result<Action, Rejection> {
    let in_hand = |c: &str| hand.iter().any(|h| h == c);
    let spec = ctx
        .r
        .card(card)
        .ok_or_else(|| first.reject("unknown card"))?;
    if st.young_generals && spec.kind != "section" {
        return Err(first.reject(format!(
            "Young Generals play with section cards only; {} is a tactic card",
            spec.name
        )));
    }
    super::weather::card_check(ctx.r, st, spec).map_err(|m| first.reject(m))?;
    if spec.kind == "manoeuvre" {
        // Army Manoeuvres (Appendix 3): "May only be used by each player
        // once per game. Instead of playing a Command Card ..."
        let variant = spec.variant.clone().unwrap_or_default();
        if !st.plays(&variant) {
            let name = ctx
                .r
                .variants
                .get(&variant)
                .map_or(variant.clone(), |v| v.name.clone());
            return Err(first.reject(format!(
                "{} belongs to the {name} variant, which this game does not play (game option {variant})",
                spec.name
            )));
        }
        if st.manoeuvre_used(side, card) {
            return Err(first.reject(format!(
                "{} may be used only once per game, and you have used it",
                spec.name
            )));
        }
        if section.is_some() {
            return Err(first.reject(format!("{} takes no section", spec.name)));
        }
        return Ok(Action::Card {
            played: card.clone(),
            effect: card.clone(),
            section: None,
        });
    }
    if !in_hand(card) {
        return Err(first.reject(format!("{card} is not in your hand")));
    }
    let (effect, mut sec) = match spec.effect.as_deref() {
        Some("ambush") => {
            return Err(first.reject("Ambush is played only in the opponent's turn, against a close assault; keep it in your hand"))
        }
        Some("counter-attack") => match counter_card(ctx, st, side) {
            Some((c, s)) => (c, s),
            None => return Err(first.reject("Counter-Attack copies the card your opponent played last turn, and there is none")),
        },
        _ => (card.clone(), *section),
    };
    let espec = ctx
        .r
        .card(&effect)
        .ok_or_else(|| first.reject("unknown card"))?;
    if espec.effect.as_deref() == Some("infantry-assault") {
        if sec.is_none() {
            sec = *section;
        }
        if sec.is_none() {
            return Err(first.reject(
                "Infantry Assault needs a section: PLAY infantry-assault LEFT|CENTRE|RIGHT",
            ));
        }
    } else if section.is_some() && spec.effect.as_deref() != Some("counter-attack") {
        return Err(first.reject(format!("{} takes no section", spec.name)));
    } else {
        sec = None;
    }
    Ok(Action::Card {
        played: card.clone(),
        effect,
        section: sec,
    })
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

/// The Big Push, once every order is walked: "Every Unit must advance at
/// least one hex towards the enemy" (a unit that could step forward and has
/// no MOVE is refused; artillery "can" march, so it need not), and a unit
/// that ends in close assault and may battle must ("Infantry Units must
/// Infantry Charge ... if the opportunity presents itself").
fn big_push_check(
    ctx: &Ctx<'_>,
    sc: &State,
    side: usize,
    first: &Line,
    modes: &BTreeMap<u32, Mode>,
    track: &BTreeMap<u32, Track>,
) -> Result<(), Rejection> {
    for u in sc.units.iter().filter(|u| u.side == side) {
        let Some(m) = modes.get(&u.id) else { continue };
        let t = track.get(&u.id).cloned().unwrap_or_default();
        let cls = class_of(ctx, u);
        if cls == "artillery" || !m.push {
            continue;
        }
        if t.moved.is_none_or(|d| d == 0) {
            let step = u.at.neighbours().into_iter().find(|n| {
                forward(side, u.at, *n) > 0
                    && ctx.board.contains(*n)
                    && sc.unit_at(*n).is_none()
                    && check_path(
                        ctx,
                        sc,
                        u,
                        &[u.at, *n],
                        MoveRule {
                            max: m.max_move,
                            ignore_terrain: false,
                        },
                    )
                    .is_ok()
            });
            if let Some(n) = step {
                return Err(first.reject(format!(
                    "The Big Push: every unit must advance at least one hex towards the enemy; the unit at {} has no MOVE and could move to {n}",
                    u.at
                )));
            }
        }
        if t.battles > 0 || t.wire {
            continue;
        }
        let spec = ctx.spec(&u.kind);
        for n in u.at.neighbours() {
            let Some(e) = sc.unit_at(n).filter(|e| e.side != side) else {
                continue;
            };
            let may = match t.moved {
                Some(d) if d > m.move_battle => {
                    ctx.r.options.infantry_charge
                        && spec.charge
                        && d == 2
                        && matches!(class_of(ctx, e), "infantry" | "artillery")
                }
                _ => true,
            } && !t.barred
                && target_check(ctx, sc, u, n).is_ok();
            if may {
                return Err(first.reject(format!(
                    "The Big Push: the unit at {} is in close assault with the enemy at {n} and may battle, so it must (BATTLE {} {n})",
                    u.at, u.at
                )));
            }
        }
    }
    Ok(())
}

/// The game option of Colonel Blimp's extra command cards.
pub const BLIMP: &str = "colonel-blimp";

/// The sections a card takes under Colonel Blimp: a section card those it
/// names, Infantry Assault the one it is played on, and every other card
/// (a tactic card for no particular or for every section, a manoeuvre) all
/// three.
fn claims(ctx: &Ctx<'_>, effect: &str, section: Option<Section>) -> Vec<Section> {
    let Some(spec) = ctx.r.card(effect) else {
        return Section::ALL.to_vec();
    };
    if spec.kind == "section" {
        return Section::ALL
            .iter()
            .copied()
            .filter(|s| spec.orders.contains_key(s.id()))
            .collect();
    }
    match (spec.effect.as_deref(), section) {
        (Some("infantry-assault"), Some(s)) => vec![s],
        _ => Section::ALL.to_vec(),
    }
}

/// Colonel Blimp (Appendix 3, "Army Manoeuvres"): "At least one Command
/// Card may be played for each Board Section to a maximum of three cards.
/// Units may not receive more than one Order per turn. Sections may not
/// receive more than one Command Card, even if a card being used applies to
/// more than one Section. A Section cannot be given any orders if the player
/// has no cards for it that turn." Each ordered unit goes to the card of
/// its section; a unit on a hex two sections share goes to whichever card
/// lets every card's limits hold.
fn blimp_orders(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    cards: &[(Line, Action)],
    ordered: &[(u32, Line)],
    all: bool,
) -> Result<(Vec<u32>, BTreeMap<u32, Mode>), Rejection> {
    let max = ctx
        .r
        .variants
        .get(BLIMP)
        .and_then(|v| v.cards_per_turn)
        .unwrap_or(3) as usize;
    if let Some((l, _)) = cards.get(max) {
        return Err(l.reject(format!(
            "Colonel Blimp: at most {max} cards a turn, one a section"
        )));
    }
    let mut taken: BTreeMap<Section, String> = BTreeMap::new();
    let mut cl: Vec<Vec<Section>> = Vec::new();
    for (l, a) in cards {
        let Action::Card {
            played,
            effect,
            section,
        } = a
        else {
            return Err(l.reject("only PLAY lines may join other cards"));
        };
        let name = ctx
            .r
            .card(played)
            .map_or(played.clone(), |c| c.name.clone());
        if ctx.r.card(played).is_some_and(|c| c.kind == "manoeuvre") {
            return Err(l.reject(format!(
                "{name} is declared instead of playing command cards: it stands alone"
            )));
        }
        let secs = claims(ctx, effect, *section);
        for s in &secs {
            if let Some(other) = taken.get(s) {
                let other_all = cl.iter().any(|c| c.len() == 3);
                let why = if other_all {
                    format!(
                        "{other} is for every section (or no particular one), so it is played alone"
                    )
                } else if secs.len() == 3 {
                    format!(
                        "{name} is for every section (or no particular one), so it is played alone"
                    )
                } else {
                    format!("{name} is also for the {} section", s.id())
                };
                return Err(l.reject(format!(
                    "Colonel Blimp: a section receives one card a turn; the {} section already has {other}: {why}",
                    s.id()
                )));
            }
        }
        for s in &secs {
            taken.insert(*s, name.clone());
        }
        cl.push(secs);
    }
    if all {
        return Err(cards[0]
            .0
            .reject("with several cards, name the units each orders: ORDER <hex> ..."));
    }
    let bottom = side == 0;
    // The cards each ordered unit could belong to.
    let mut options: Vec<Vec<usize>> = Vec::new();
    for (id, l) in ordered {
        let Some(u) = st.unit(*id) else {
            options.push(vec![0]);
            continue;
        };
        let secs = super::trains::sections(ctx, u, bottom);
        let fit: Vec<usize> = (0..cards.len())
            .filter(|i| secs.iter().any(|s| cl[*i].contains(s)))
            .collect();
        if fit.is_empty() {
            let names: Vec<&str> = secs.iter().map(|s| s.id()).collect();
            return Err(l.reject(format!(
                "the unit at {} is in the {} section, and no card you play this turn is for it: a section with no card receives no orders",
                u.at,
                names.join("/")
            )));
        }
        options.push(fit);
    }
    // Try every way to share the units of shared hexes (at most 2^8).
    let shared: Vec<usize> = (0..options.len())
        .filter(|i| options[*i].len() > 1)
        .collect();
    let mut first_err: Option<Rejection> = None;
    for mask in 0u32..(1u32 << shared.len().min(10)) {
        let pick = |i: usize| -> usize {
            match shared.iter().position(|x| *x == i) {
                Some(b) => {
                    let o = &options[i];
                    o[((mask >> b) & 1) as usize % o.len()]
                }
                None => options[i][0],
            }
        };
        let mut ids = Vec::new();
        let mut modes = BTreeMap::new();
        let mut bad = None;
        for (ci, (l, a)) in cards.iter().enumerate() {
            let Action::Card {
                effect, section, ..
            } = a
            else {
                continue;
            };
            let Some(spec) = ctx.r.card(effect) else {
                continue;
            };
            let mine: Vec<(u32, Line)> = ordered
                .iter()
                .enumerate()
                .filter(|(i, _)| pick(*i) == ci)
                .map(|(_, x)| x.clone())
                .collect();
            match card_orders(ctx, st, side, spec, *section, l, &mine, false) {
                Ok((i, m)) => {
                    ids.extend(i);
                    modes.extend(m);
                }
                Err(e) => {
                    bad = Some(e);
                    break;
                }
            }
        }
        match bad {
            None => {
                let order: Vec<u32> = ordered
                    .iter()
                    .map(|(i, _)| *i)
                    .filter(|i| ids.contains(i))
                    .collect();
                return Ok((order, modes));
            }
            Some(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    Err(first_err.unwrap_or_else(|| Rejection::whole("these cards cannot order those units")))
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
    ctx.spec(&u.kind).engineer
        && m.battles > 0
        && !m.nothing
        && dist <= m.move_battle
        && (!barred || m.ignore_terrain)
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

/// Bridge Demolition: "Play a Section Card corresponding to the Section of
/// the Board in which the Bridge lays. If the Bridge is across two Sections
/// of the Board, then the player may play a Section Card from either end."
fn bridge_card(
    ctx: &Ctx<'_>,
    action: &Action,
    side: usize,
    bridge: Hex,
    l: &Line,
) -> Result<(), Rejection> {
    let secs = ctx.board.sections(bridge, side == 0);
    let ok = match action {
        Action::Card { effect, .. } => ctx.r.card(effect).is_some_and(|c| {
            c.kind == "section"
                && c.orders.iter().any(|(k, n)| {
                    n.limit() > 0 && Section::parse(k).is_some_and(|s| secs.contains(&s))
                })
        }),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(l.reject(format!(
            "the bridge at {bridge} needs a Section Card for its section ({})",
            secs.iter().map(|s| s.id()).collect::<Vec<_>>().join(" or ")
        )))
    }
}

/// Check a whole orders text against the position.
pub fn plan(ctx: &Ctx<'_>, st: &State, side: usize, lines: &[Line]) -> Result<Plan, Rejection> {
    // Political Commissar (commissar.rs): the card under the marker is
    // played from there; COMMISSAR puts the next one under it.
    let (st, lines, commissar) = super::commissar::prepare(ctx, st, side, lines)?;
    let (st, lines) = (st.as_ref(), lines.as_slice());
    let standing_lines: Vec<Line> = lines
        .iter()
        .filter(|l| matches!(l.cmd, Cmd::Standing(_)))
        .cloned()
        .collect();
    let standing = if standing_lines.is_empty() {
        None
    } else {
        Some(standing_from(
            st,
            side,
            &standing_lines,
            Standing::default(),
        )?)
    };
    let mut keep = Vec::new();
    let mut rest: Vec<&Line> = Vec::new();
    for l in lines {
        match &l.cmd {
            Cmd::Standing(_) => {}
            Cmd::Keep { cards } => keep.extend(cards.iter().cloned()),
            _ => rest.push(l),
        }
    }
    // "Achtung! Zombie!": the Dead Player plays no card (variants/zombies.rs).
    let horde = super::variants::zombies::is_dead(st, side);
    let horde_line;
    let (first, after): (&Line, &[&Line]) = if horde {
        super::variants::zombies::check_dead_lines(&rest)?;
        horde_line = Line {
            no: 0,
            text: "(the Dead Player's turn)".into(),
            cmd: Cmd::OrderAll,
        };
        (&horde_line, &rest[..])
    } else {
        let Some((first, after)) = rest.split_first() else {
            return Err(Rejection::whole(
                "no card played: a turn starts with PLAY <card> (or DISCARD / EXCHANGE)",
            ));
        };
        (*first, after)
    };
    let hand = st.hands.get(side).cloned().unwrap_or_default();
    let in_hand = |c: &str| hand.iter().any(|h| h == c);
    let action = match &first.cmd {
        _ if horde => Action::Horde,
        Cmd::Play { card, section } => play_action(ctx, st, side, first, card, section, &hand)?,
        Cmd::Discard { card } => {
            if !in_hand(card) {
                return Err(first.reject(format!("{card} is not in your hand")));
            }
            Action::Discard(card.clone())
        }
        Cmd::Exchange { cards } => {
            if st.exchanged.get(side).copied().unwrap_or(true) {
                return Err(first.reject("Method 1 exchanges may be used only once per game"));
            }
            let mut h = hand.clone();
            for c in cards {
                match h.iter().position(|x| x == c) {
                    Some(p) => {
                        h.remove(p);
                    }
                    None => return Err(first.reject(format!("{c} is not in your hand"))),
                }
            }
            if let Some(l) = after.first() {
                return Err(l.reject("an EXCHANGE (Method 1) is the whole turn: no other orders"));
            }
            Action::Exchange(cards.clone())
        }
        _ => return Err(first.reject("a turn starts with PLAY <card> (or DISCARD / EXCHANGE)")),
    };
    // Blitzkrieg Air Attack: a Recon card with a TARGET line is Air Power.
    let action = super::blitzkrieg::air_attack(ctx, st, side, first, action, after)?;
    // ORDER lines come first.
    let mut ordered: Vec<(u32, Line)> = Vec::new();
    let mut all = false;
    let mut seen_step = false;
    let mut step_lines: Vec<&Line> = Vec::new();
    // Colonel Blimp: further PLAY lines, before the first MOVE or BATTLE.
    let mut more: Vec<(Line, Action)> = Vec::new();
    let blimp = st.plays(BLIMP) && matches!(action, Action::Card { .. });
    for l in after {
        match &l.cmd {
            Cmd::Play { card, section } if blimp && !seen_step => {
                let mut left = hand.clone();
                let mut taken: Vec<&Line> = vec![first];
                taken.extend(more.iter().map(|(x, _)| x));
                for t in taken {
                    if let Cmd::Play { card: c, .. } = &t.cmd {
                        if let Some(p) = left.iter().position(|x| x == c) {
                            left.remove(p);
                        }
                    }
                }
                let a = play_action(ctx, st, side, l, card, section, &left)?;
                more.push(((*l).clone(), a));
            }
            Cmd::Play { .. } | Cmd::Discard { .. } | Cmd::Exchange { .. } => {
                return Err(l.reject(if blimp {
                    "Colonel Blimp: every PLAY comes before the first MOVE or BATTLE"
                } else {
                    "only one card is played per turn"
                }));
            }
            Cmd::Order { hexes } => {
                if seen_step {
                    return Err(l.reject("announce every ORDER before the first MOVE or BATTLE"));
                }
                if matches!(action, Action::Discard(_)) {
                    return Err(l.reject("after a DISCARD (Method 2) no unit is ordered: one unit may battle without moving"));
                }
                for h in hexes {
                    match st.unit_at(*h) {
                        Some(u) if u.side == side => {
                            if ordered.iter().any(|(i, _)| *i == u.id) {
                                return Err(l.reject(format!("the unit at {h} is ordered twice")));
                            }
                            ordered.push((u.id, (*l).clone()));
                        }
                        Some(_) => return Err(l.reject(not_yours(st, *h))),
                        None => return Err(l.reject(no_unit(st, *h))),
                    }
                }
            }
            Cmd::OrderAll => {
                if seen_step {
                    return Err(l.reject("announce every ORDER before the first MOVE or BATTLE"));
                }
                all = true;
            }
            _ => {
                seen_step = true;
                step_lines.push(l);
            }
        }
    }
    let mut gate = Gate::None;
    let (ids, mut modes, effect) = match &action {
        Action::Card {
            effect, section, ..
        } => {
            let spec = ctx
                .r
                .card(effect)
                .ok_or_else(|| first.reject("unknown card"))?;
            let (ids, modes) = if more.is_empty() {
                card_orders(ctx, st, side, spec, *section, first, &ordered, all)?
            } else {
                let mut cards = vec![((*first).clone(), action.clone())];
                cards.extend(more.iter().cloned());
                blimp_orders(ctx, st, side, &cards, &ordered, all)?
            };
            match spec.effect.as_deref() {
                Some("medics-and-mechanics") => {
                    if let Some(id) = ids.first() {
                        gate = Gate::Medics(*id);
                    } else {
                        return Err(first.reject(
                            "Medics & Mechanics needs ORDER <hex> of a unit that has lost figures",
                        ));
                    }
                }
                Some("their-finest-hour") => gate = Gate::FinestHour(ids.clone()),
                _ => {}
            }
            (ids, modes, spec.effect.clone().unwrap_or_default())
        }
        Action::Horde => {
            let (ids, modes) = super::variants::zombies::modes(ctx, st, side);
            (ids, modes, String::new())
        }
        _ => (vec![], BTreeMap::new(), String::new()),
    };
    // Night & Severe Weather (weather.rs): the conditions slow the ordered
    // units; a move wholly on terrain a condition spares is not slowed.
    // Blitzkrieg (blitzkrieg.rs): the enemy's armour moves at most 2.
    let base_modes = modes.clone();
    for (id, m) in &mut modes {
        if let Some(u) = st.unit(*id) {
            let w = super::weather::mode(ctx, st, u, m, None);
            let w = super::blitzkrieg::mode(ctx, st, u, w);
            let w = super::support::mode(ctx.r, st, u, w);
            let w = super::disorder::mode(st, u, w);
            // Sabotage of a Supply Depot: the armour's lost hex.
            let w = super::stars::mode(ctx, st, u, w);
            // Supply Lines & Sieges: a unit out of supply a second turn.
            let w = super::supply::mode(ctx, st, u, w);
            // "War Of The Worlds": the machines and the Common Cold.
            *m = super::variants::worlds::mode(ctx, st, u, w);
        }
    }
    // Walk the steps on a scratch position.
    let mut sc = st.clone();
    let mut track: BTreeMap<u32, Track> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut battled = false;
    let mut targeted = false;
    let mut discard_battler: Option<u32> = None;
    // Kriegspiel: units stopped short, by the hex their orders moved them to.
    let mut stopped: BTreeMap<Hex, u32> = BTreeMap::new();
    // Minefields: "Only one attempt per turn may be made to clear a Minefield."
    let mut mine_tries: BTreeSet<Hex> = BTreeSet::new();
    // Bridge Demolition: bridges detonated this turn ("once per turn").
    let mut detonated: BTreeSet<Hex> = BTreeSet::new();
    let turn_no = st.turn + 1;
    for l in step_lines {
        match &l.cmd {
            Cmd::Move { path } => {
                if matches!(action, Action::Exchange(_)) {
                    return Err(l.reject("an EXCHANGE is the whole turn"));
                }
                let Some(u) = sc.unit_at(path[0]).cloned() else {
                    return Err(l.reject(no_unit(&sc, path[0])));
                };
                if u.side != side {
                    return Err(l.reject(not_yours(&sc, path[0])));
                }
                let Some(m) = modes.get(&u.id).cloned() else {
                    return Err(l.reject(format!("the unit at {} was not ordered", path[0])));
                };
                let m = match base_modes.get(&u.id).filter(|_| sc.weather.is_some()) {
                    Some(b) => {
                        let w = super::weather::mode(ctx, &sc, &u, b, Some(path.as_slice()));
                        let w = super::blitzkrieg::mode(ctx, &sc, &u, w);
                        let w = super::support::mode(ctx.r, &sc, &u, w);
                        let w = super::disorder::mode(&sc, &u, w);
                        let w = super::stars::mode(ctx, &sc, &u, w);
                        let w = super::supply::mode(ctx, &sc, &u, w);
                        modes.insert(u.id, w.clone());
                        w
                    }
                    None => m,
                };
                if m.nothing {
                    return Err(l.reject("a unit that digs in does nothing else this turn"));
                }
                let t = track.entry(u.id).or_default().clone();
                let second = m.second_move && t.battles > 0 && !t.second_moved;
                if t.moved.is_some() && !second {
                    return Err(l.reject("a unit moves only once per turn"));
                }
                if battled && !second {
                    return Err(l.reject("all movement comes before the first battle"));
                }
                let max = if second {
                    // Behind Enemy Lines' second move, slowed by the weather.
                    let b = Mode {
                        max_move: 3,
                        ..m.clone()
                    };
                    super::weather::mode(ctx, &sc, &u, &b, Some(path.as_slice())).max_move
                } else {
                    m.max_move
                };
                if t.charging {
                    return Err(l.reject(
                        "placing charges on a bridge or a Pontoon Bridge is the engineers' entire action: they may not move or battle",
                    ));
                }
                if t.exterminating {
                    return Err(l.reject(EXTERMINATING));
                }
                if let Some(why) = engineer_stuck(ctx, &sc, &u) {
                    if path.len() > 1 && t.moved.is_none() {
                        return Err(l.reject(why));
                    }
                }
                // Kriegspiel: the move stops short of an enemy unit it did
                // not see, or where it comes next to a camouflaged one.
                let (path, contact) = super::fog::fog_path(ctx.r, &sc, side, path);
                manoeuvre_path(l, side, &m, &path)?;
                let (dist, barred) = if path.len() < 2 {
                    (0, false)
                } else {
                    let info = check_path(
                        ctx,
                        &sc,
                        &u,
                        &path,
                        MoveRule {
                            max,
                            ignore_terrain: m.ignore_terrain,
                        },
                    )
                    .map_err(|e| l.reject(e))?;
                    (info.dist, info.barred_from_battle)
                };
                if let Some(x) = sc.unit_mut(u.id) {
                    x.at = *path.last().unwrap_or(&u.at);
                }
                super::trains::moved(ctx, &mut sc, &u, &path);
                if contact.is_some() {
                    if let Some(end) = l_path_end(&l.cmd) {
                        stopped.insert(end, u.id);
                    }
                }
                let t = track.entry(u.id).or_default();
                if second {
                    t.second_moved = true;
                } else {
                    t.moved = Some(dist);
                    t.barred = barred;
                }
                // Combat Engineers: "Must clear a Minefield hex instead of
                // Battling on the same turn that it moves onto the hex,
                // provided that it is eligible to Battle."
                let end = *path.last().unwrap_or(&u.at);
                if path.len() > 1
                    && super::mines::enemy_at(&sc, end, side)
                    && engineer_clears(ctx, &u, &m, dist, barred)
                {
                    t.clearing = true;
                    mine_tries.insert(end);
                }
                steps.push(Step::Move {
                    line: l.clone(),
                    unit: u.id,
                    path,
                    contact,
                });
            }
            Cmd::Battle {
                from,
                target,
                take_ground,
                overrun,
                via,
            } => {
                if via.is_some() && !super::tiles::desert_rules(&sc) {
                    return Err(l.reject(
                        "VIA: the North African Armour Overrun needs the North African Desert Rules (the scenario's desert = true)",
                    ));
                }
                if matches!(action, Action::Exchange(_)) {
                    return Err(l.reject("an EXCHANGE is the whole turn"));
                }
                // Kriegspiel: a unit stopped short battles from where it
                // stopped if it can; if not, the order lapses.
                let redirected = stopped
                    .get(from)
                    .filter(|_| sc.unit_at(*from).is_none_or(|x| x.side != side))
                    .and_then(|id| sc.unit(*id))
                    .cloned();
                let u = match redirected {
                    Some(u) => {
                        let seen = sc.unit_at(*target).is_some_and(|x| {
                            x.side != side && super::fog::sees(ctx.r, &sc, side, x)
                        });
                        let why = if seen {
                            target_check(ctx, &sc, &u, *target).err()
                        } else {
                            Some(format!("it sees no enemy unit at {target}"))
                        };
                        if let Some(why) = why {
                            steps.push(Step::Lapse {
                                line: l.clone(),
                                reason: format!("the unit was stopped short at {}: {why}", u.at),
                            });
                            continue;
                        }
                        u
                    }
                    None => {
                        let Some(u) = sc.unit_at(*from).cloned() else {
                            return Err(l.reject(no_unit(&sc, *from)));
                        };
                        if u.side != side {
                            return Err(l.reject(not_yours(&sc, *from)));
                        }
                        u
                    }
                };
                let spec = ctx.spec(&u.kind);
                // Kriegspiel: a side may only target what it sees.
                let tgt = sc
                    .unit_at(*target)
                    .filter(|x| x.side == side || super::fog::sees(ctx.r, &sc, side, x))
                    .cloned();
                let engaged = ctx.r.options.firefight
                    && tgt.as_ref().is_some_and(|t| {
                        sc.engagements.iter().any(|e| {
                            e.since < turn_no
                                && ((e.a == u.id && e.b == t.id) || (e.b == u.id && e.a == t.id))
                        })
                    });
                let mut firefight = false;
                let m = match modes.get(&u.id).cloned() {
                    Some(m) => m,
                    None if engaged && !modes.contains_key(&u.id) => {
                        firefight = true;
                        let mut m = default_mode(ctx, &u);
                        m.max_move = 0;
                        modes.insert(u.id, m.clone());
                        m
                    }
                    None if matches!(action, Action::Discard(_)) && discard_battler.is_none() => {
                        discard_battler = Some(u.id);
                        let mut m = default_mode(ctx, &u);
                        m.max_move = 0;
                        modes.insert(u.id, m.clone());
                        m
                    }
                    None => return Err(l.reject(match action {
                        Action::Discard(_) => {
                            "after a DISCARD only one unit may battle (and units in a firefight)"
                                .to_string()
                        }
                        _ => format!("the unit at {from} was not ordered"),
                    })),
                };
                if m.nothing {
                    return Err(l.reject("a unit that digs in does nothing else this turn"));
                }
                let t = track.entry(u.id).or_default().clone();
                // Restoring Order: "Only Units that do not Move may Battle".
                if m.regroup && t.moved.is_some_and(|d| d > 0) {
                    return Err(l.reject(
                        "Restoring Order: only units that do not move may battle; this unit moved",
                    ));
                }
                if m.regroup && (*take_ground || overrun.is_some()) {
                    return Err(l.reject(
                        "Restoring Order: no Take Ground or Overrun, for units may not advance towards the enemy",
                    ));
                }
                if t.wire {
                    return Err(l.reject("this unit removes barbed wire instead of battling"));
                }
                if t.charging {
                    return Err(l.reject(
                        "placing charges on a bridge or a Pontoon Bridge is the engineers' entire action: they may not move or battle",
                    ));
                }
                if t.exterminating {
                    return Err(l.reject(EXTERMINATING));
                }
                if t.clearing {
                    return Err(l.reject(
                        "Engineer Units may not battle while engaged in Minefield Clearance: this unit clears the minefield it moved onto instead of battling",
                    ));
                }
                if t.battles >= m.battles {
                    return Err(l.reject("a unit battles only once per turn"));
                }
                let range = super::trains::range(&sc, &u, *target);
                let mut charge = false;
                if let Some(d) = t.moved {
                    if d > m.move_battle {
                        let can_charge = ctx.r.options.infantry_charge
                            && spec.charge
                            && d == 2
                            && !m.ignore_terrain
                            && range == 1
                            && tgt.as_ref().is_some_and(|t| {
                                t.side != side
                                    && matches!(class_of(ctx, t), "infantry" | "artillery")
                            });
                        if !can_charge {
                            return Err(l.reject(format!(
                                "this unit moved {d} hex(es) and may not battle this turn"
                            )));
                        }
                        charge = true;
                    }
                    if t.barred && !m.ignore_terrain {
                        return Err(l.reject("a unit may not battle the turn it moves onto woods, a town or a hedgerow"));
                    }
                }
                // "All Zombie Close Assaults are treated as Infantry Charges".
                let charge = charge || super::variants::zombies::charges(ctx, &u, range);
                match &tgt {
                    Some(_) => target_check(ctx, &sc, &u, *target).map_err(|e| l.reject(e))?,
                    None if spec.class == "artillery"
                        && sc
                            .features(*target)
                            .iter()
                            .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire)) =>
                    {
                        if range as usize > spec.dice.len() {
                            return Err(l.reject(format!("the wire at {target} is out of range")));
                        }
                        in_sight(ctx, &sc, &u, *target, spec.indirect).map_err(|e| l.reject(e))?;
                        if *take_ground || overrun.is_some() {
                            return Err(l.reject("artillery may not take ground"));
                        }
                    }
                    None if ctx.r.bridge_demolition.bombard_units.contains(&u.kind)
                        && super::bridges::is_bridge(&sc, *target)
                        && super::bridges::charge(&sc, *target).is_none() =>
                    {
                        // Bridge Demolition, Option 3.
                        if range as usize > spec.dice.len() {
                            return Err(l.reject(format!("the bridge at {target} is out of range")));
                        }
                        in_sight(ctx, &sc, &u, *target, spec.indirect).map_err(|e| l.reject(e))?;
                        if *take_ground || overrun.is_some() {
                            return Err(l.reject("artillery may not take ground"));
                        }
                    }
                    None if spec.class == "artillery"
                        && super::mines::at(&sc, *target).is_some() =>
                    {
                        // "Artillery may also attempt to clear a Minefield
                        // by firing at it."
                        if range as usize > spec.dice.len() {
                            return Err(
                                l.reject(format!("the minefield at {target} is out of range"))
                            );
                        }
                        in_sight(ctx, &sc, &u, *target, spec.indirect).map_err(|e| l.reject(e))?;
                        if *take_ground || overrun.is_some() {
                            return Err(l.reject("artillery may not take ground"));
                        }
                        if !mine_tries.insert(*target) {
                            return Err(l.reject(format!(
                                "only one attempt per turn may be made to clear a minefield: {target} already has one"
                            )));
                        }
                    }
                    None if sc.fog.is_some() => {
                        return Err(l.reject(format!("you see no enemy unit at {target}")))
                    }
                    None => return Err(l.reject(format!("there is no enemy unit at {target}"))),
                }
                if *take_ground || overrun.is_some() {
                    if sc.young_generals {
                        return Err(
                            l.reject("Young Generals play without Take Ground or Armour Overrun")
                        );
                    }
                    if firefight {
                        return Err(l.reject("units in a firefight may not Take Ground or Overrun"));
                    }
                    if range != 1 {
                        return Err(
                            l.reject("Take Ground and Armour Overrun follow only a close assault")
                        );
                    }
                    if *take_ground && !(spec.take_ground || spec.overrun) {
                        return Err(l.reject(format!("{} may not take ground", spec.name)));
                    }
                    if overrun.is_some() && super::variants::nineteen84::on(&sc) {
                        return Err(l.reject(
                            "Nineteen Eighty-Four: no Armour Overruns are allowed (TAKE-GROUND only)",
                        ));
                    }
                    if overrun.is_some() && !spec.overrun {
                        return Err(l.reject(format!(
                            "{} may not make an Armour Overrun (only armour and cavalry may)",
                            spec.name
                        )));
                    }
                    if *overrun == Some(*target) {
                        return Err(l.reject("the overrun target must be another unit"));
                    }
                }
                // The Big Push: "Infantry Units must ... Take Ground if the
                // opportunity presents itself. Armour Units must Armour
                // Overrun if the opportunity presents itself."
                let push = m.push && range == 1 && !sc.young_generals && !firefight;
                let take_ground = *take_ground || (push && (spec.take_ground || spec.overrun));
                let auto_overrun = push
                    && spec.overrun
                    && overrun.is_none()
                    && !super::variants::nineteen84::on(&sc);
                track.entry(u.id).or_default().battles += 1;
                battled = true;
                steps.push(Step::Battle {
                    line: l.clone(),
                    unit: u.id,
                    target: *target,
                    take_ground,
                    overrun: *overrun,
                    firefight,
                    charge,
                    auto_overrun,
                });
            }
            Cmd::Target { hexes } => {
                if targeted {
                    return Err(l.reject("only one TARGET line"));
                }
                targeted = true;
                match effect.as_str() {
                    "air-power" => {
                        let set: BTreeSet<Hex> = hexes.iter().copied().collect();
                        if set.len() != hexes.len() || hexes.len() > 4 {
                            return Err(l.reject("Air Power targets up to 4 different hexes"));
                        }
                        for h in hexes {
                            // Bridge Demolition, Option 3: a bridge not
                            // rigged, with no unit on it, may be a target.
                            if !enemy_seen_at(ctx, &sc, side, *h)
                                && !super::bridges::card_target(&sc, *h)
                            {
                                return Err(l.reject(if sc.fog.is_some() {
                                    format!("Air Power targets enemy units; you see none at {h}")
                                } else {
                                    format!("Air Power targets enemy units; there is none at {h}")
                                }));
                            }
                        }
                        // The group must be connected.
                        let mut reach = BTreeSet::new();
                        let mut todo = vec![hexes[0]];
                        while let Some(h) = todo.pop() {
                            if reach.insert(h) {
                                todo.extend(h.neighbours().into_iter().filter(|n| set.contains(n)));
                            }
                        }
                        if reach.len() != set.len() {
                            return Err(l.reject("Air Power targets a group of units on hexes adjacent to each other"));
                        }
                        super::blitzkrieg::check_targets(ctx, side, &action, hexes)
                            .map_err(|m| l.reject(m))?;
                    }
                    "barrage" => {
                        if hexes.len() != 1
                            || (!enemy_seen_at(ctx, &sc, side, hexes[0])
                                && !super::bridges::card_target(&sc, hexes[0]))
                        {
                            return Err(l.reject("Barrage targets one enemy unit: TARGET <hex>"));
                        }
                    }
                    _ => return Err(l.reject("TARGET is only for Air Power and Barrage")),
                }
                steps.push(Step::Target {
                    line: l.clone(),
                    hexes: hexes.clone(),
                });
            }
            Cmd::RemoveWire { at } => {
                let Some(u) = sc
                    .unit_at(*at)
                    .filter(|u| u.side == side || sc.fog.is_none())
                    .cloned()
                else {
                    // Kriegspiel: an enemy hex answers as an empty one.
                    return Err(l.reject(no_unit(&sc, *at)));
                };
                let Some(m) = modes.get(&u.id).cloned().filter(|_| u.side == side) else {
                    return Err(
                        l.reject(format!("the unit at {at} is not one of your ordered units"))
                    );
                };
                if class_of(ctx, &u) != "infantry"
                    || !sc
                        .features(*at)
                        .iter()
                        .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire))
                {
                    return Err(
                        l.reject("only an infantry unit on a barbed-wire hex may remove the wire")
                    );
                }
                let t = track.entry(u.id).or_default();
                if t.battles > 0
                    || m.nothing
                    || t.moved.is_some_and(|d| d > m.move_battle)
                    || t.barred
                {
                    return Err(l.reject(
                        "removing wire takes the unit's battle, and it may not battle this turn",
                    ));
                }
                t.wire = true;
                t.battles = m.battles;
                steps.push(Step::RemoveWire {
                    line: l.clone(),
                    unit: u.id,
                });
            }
            Cmd::Recover { at } => {
                let (u, _) = ordered_unit(&sc, &modes, side, *at, l)?;
                if let Some(why) = super::landmarks::recover_refusal(ctx, &sc, &u) {
                    return Err(l.reject(why));
                }
                let t = track.entry(u.id).or_default();
                if t.moved.is_some() || t.battles > 0 || t.recovered {
                    return Err(l.reject(
                        "RECOVER comes before the unit moves or battles, once a turn: the unit in the oasis rolls first",
                    ));
                }
                t.recovered = true;
                steps.push(Step::Recover {
                    line: l.clone(),
                    unit: u.id,
                });
            }
            Cmd::Sabotage { at } => {
                let (u, m) = ordered_unit(&sc, &modes, side, *at, l)?;
                if !super::stars::sabotage_at(&sc, side, *at) {
                    return Err(l.reject(format!(
                        "there is no objective of the scenario's Sabotage rule for your side at {at}"
                    )));
                }
                let t = track.entry(u.id).or_default();
                if t.battles > 0
                    || m.nothing
                    || t.moved.is_some_and(|d| d > m.move_battle)
                    || t.barred
                {
                    return Err(l.reject(
                        "sabotage is rolled with the unit's close assault dice: it takes the unit's battle, and the unit may not battle this turn",
                    ));
                }
                t.battles = m.battles;
                steps.push(Step::Sabotage {
                    line: l.clone(),
                    unit: u.id,
                });
            }
            Cmd::Charge { unit: at, bridge } => {
                let (u, m) = ordered_unit(&sc, &modes, side, *at, l)?;
                if !ctx.spec(&u.kind).engineer {
                    return Err(l.reject(
                        "only an Engineer Unit at one end of a bridge may place charges on it",
                    ));
                }
                if !super::bridges::is_bridge(&sc, *bridge) {
                    return Err(l.reject(format!("there is no bridge at {bridge}")));
                }
                if !u.at.adjacent(*bridge) {
                    return Err(l.reject(format!(
                        "only an Engineer Unit at one end of a bridge may place charges: {at} is not next to {bridge}"
                    )));
                }
                bridge_card(ctx, &action, side, *bridge, l)?;
                whole_action(&mut track, &u, &m, l, "placing charges on a bridge")?;
                super::bridges::place(&mut sc, &mut Vec::new(), side, u.at, *bridge);
                steps.push(Step::Charge {
                    line: l.clone(),
                    unit: u.id,
                    bridge: *bridge,
                });
            }
            Cmd::Pontoon { unit: at, river } => {
                let (u, m) = ordered_unit(&sc, &modes, side, *at, l)?;
                let why = super::bridges::pontoon_check(ctx, &sc, &action, side, &u, *river);
                why.map_err(|m| l.reject(m))?;
                bridge_card(ctx, &action, side, *river, l)?;
                whole_action(&mut track, &u, &m, l, "placing a Pontoon Bridge")?;
                super::bridges::build_pontoon(&mut sc, &mut Vec::new(), side, u.at, *river);
                steps.push(Step::Pontoon {
                    line: l.clone(),
                    unit: u.id,
                    river: *river,
                });
            }
            Cmd::Detonate { bridge } => {
                if super::bridges::charge(&sc, *bridge).is_none_or(|c| c.side != side) {
                    return Err(l.reject(format!(
                        "the bridge at {bridge} is not rigged for detonation by your side"
                    )));
                }
                bridge_card(ctx, &action, side, *bridge, l)?;
                if !detonated.insert(*bridge) {
                    return Err(l.reject(
                        "a bridge may be detonated only once per turn (further rolls on later turns)",
                    ));
                }
                if sc.unit_at(*bridge).is_some() {
                    return Err(l.reject(format!(
                        "the bridge at {bridge} holds a unit: it is not blown with troops on it"
                    )));
                }
                // "Detonation of a Bridge is the same as ordering a Unit."
                if let Action::Card { effect, .. } = &action {
                    let limit = ctx.r.card(effect).map_or(0, |c| {
                        c.orders
                            .values()
                            .fold(0usize, |a, n| a.saturating_add(n.limit()))
                    });
                    if ids.len() + detonated.len() > limit {
                        return Err(l.reject(format!(
                            "this card orders at most {limit} units, and a detonation counts as ordering one"
                        )));
                    }
                }
                steps.push(Step::Detonate {
                    line: l.clone(),
                    bridge: *bridge,
                });
            }
            Cmd::Land { at } => {
                // Appendix 2, Airfield (landmarks.rs): one unit per card.
                if steps.iter().any(|s| matches!(s, Step::Land { .. })) {
                    return Err(l.reject("one Infantry Unit lands per Direct From HQ card"));
                }
                super::landmarks::land(ctx, &mut sc, side, *at, &effect)
                    .map_err(|e| l.reject(e))?;
                steps.push(Step::Land {
                    line: l.clone(),
                    at: *at,
                });
            }
            Cmd::Unload { train, to, kind } => {
                // Appendix 2, Trains (trains.rs): the train is one of the
                // ordered units; the unit may not move this turn.
                let tid = sc.unit_at(*train).map(|u| u.id);
                let ordered = tid.is_some_and(|id| modes.contains_key(&id));
                let (id, _) = super::trains::unload(
                    ctx,
                    &mut sc,
                    side,
                    *train,
                    *to,
                    kind.as_deref(),
                    ordered,
                )
                .map_err(|e| l.reject(e))?;
                if let Some(u) = sc.unit(id) {
                    let mut m = default_mode(ctx, u);
                    m.max_move = 0;
                    modes.insert(id, m);
                }
                steps.push(Step::Unload {
                    line: l.clone(),
                    unit: tid.unwrap_or_default(),
                    to: *to,
                    kind: kind.clone(),
                });
            }
            Cmd::Exit { at } => {
                // "Achtung! Zombie!": the Living retreat off the board.
                let id = sc.unit_at(*at).map(|u| u.id);
                let acted = id.is_some_and(|i| {
                    track
                        .get(&i)
                        .is_some_and(|t| t.moved.is_some() || t.battles > 0)
                });
                let ordered = id.is_some_and(|i| modes.contains_key(&i));
                let step = super::variants::zombies::exit_step(
                    ctx, &mut sc, side, l, *at, ordered, acted,
                )?;
                steps.push(step);
            }
            Cmd::Exterminate { at } => {
                // "EX-TER-MIN-ATE!": "This takes the Unit a whole turn".
                let (u, m) = ordered_unit(&sc, &modes, side, *at, l)?;
                super::variants::exterminate::check(ctx, &sc, &u).map_err(|e| l.reject(e))?;
                let t = track.entry(u.id).or_default();
                if t.moved.is_some()
                    || t.battles > 0
                    || t.clearing
                    || t.charging
                    || t.exterminating
                    || m.nothing
                {
                    return Err(l.reject(EXTERMINATING));
                }
                t.exterminating = true;
                steps.push(Step::Exterminate {
                    line: l.clone(),
                    unit: u.id,
                });
            }
            _ => return Err(l.reject("unexpected order here")),
        }
    }
    if horde {
        super::variants::zombies::finish_plan(ctx, st, &sc, side, &mut steps)?;
    }
    if matches!(effect.as_str(), "air-power" | "barrage") && !targeted {
        return Err(first.reject("this card needs its targets: TARGET <hex> ..."));
    }
    if effect == "big-push" {
        big_push_check(ctx, &sc, side, first, &modes, &track)?;
    }
    let _ = (&ids, &gate);
    Ok(Plan {
        side,
        action,
        more: more.into_iter().map(|(_, a)| a).collect(),
        ordered: ids,
        modes,
        steps,
        keep,
        standing,
        gate,
        commissar,
    })
}

// ------------------------------------------------------------------ apply

struct Turn<'a, 'b, 'c> {
    ctx: &'a Ctx<'b>,
    st: State,
    ev: Vec<Event>,
    chance: &'a mut Chance<'c>,
    side: usize,
    ambush_draw: bool,
    overrun_used: BTreeSet<u32>,
    modes_extra: BTreeMap<u32, (i32, bool, String)>,
    /// Combat Engineers that removed wire or a hedgehog this turn: "reduces
    /// the number of Battle Dice it rolls by 1".
    obstacle_cost: BTreeSet<u32>,
}

impl Turn<'_, '_, '_> {
    fn skip(&mut self, line: &Line, reason: &str) {
        self.ev.push(Event::OrderSkipped {
            side: self.st.sides[self.side].clone(),
            order: line.text.clone(),
            reason: reason.into(),
        });
    }

    fn draw(&mut self, side: usize) -> Option<String> {
        if self.st.deck.is_empty() {
            let mut d = std::mem::take(&mut self.st.discard);
            if d.is_empty() {
                return None;
            }
            shuffle(&mut d, &mut *self.chance.deck);
            self.ev.push(Event::DeckReshuffled { cards: d.len() });
            self.st.deck = d;
        }
        let c = self.st.deck.remove(0);
        self.ev.push(Event::CardDrawn {
            side: self.st.sides[side].clone(),
            card: c.clone(),
            private: true,
        });
        Some(c)
    }

    /// A battle between two units. Returns the target's outcome, or None
    /// when it could not be fought.
    fn fight(
        &mut self,
        att_id: u32,
        tgt_id: u32,
        how: &str,
        extra: Vec<Modifier>,
        rule: HitRule,
    ) -> Option<Outcome> {
        let att = self.st.unit(att_id)?.clone();
        let tgt = self.st.unit(tgt_id)?.clone();
        let ctx = self.ctx;
        super::bridges::battled(&mut self.st, att.at, tgt.at);
        let mut extra = extra;
        if self.obstacle_cost.contains(&att_id) {
            extra.push(Modifier {
                dice: -1,
                reason: "removing an obstacle".into(),
            });
        }
        let (base, mods) = battle_dice(ctx, &self.st, &att, &tgt, &extra);
        let n = total(base, &mods);
        let aspec = ctx.spec(&att.kind);
        let tspec = ctx.spec(&tgt.kind);
        let (faces, hits, flags) = roll(ctx, &mut *self.chance.dice, n, Some(aspec), tspec, rule);
        // Appendix 2: a Fortress is hit by artillery stars only.
        let hits =
            super::tiles::limited_hits(ctx, &self.st, &aspec.class, tgt.at, &faces).unwrap_or(hits);
        let idx = self.ev.len();
        self.ev.push(Event::Battle {
            side: self.st.sides[att.side].clone(),
            attacker: att.kind.clone(),
            from: Some(att.at),
            target: tgt.kind.clone(),
            at: tgt.at,
            range: super::trains::range(&self.st, &att, tgt.at),
            how: how.into(),
            base_dice: base,
            modifiers: mods,
            dice: n,
            faces,
            hits,
            flags,
            ignored_flags: 0,
        });
        let remover = if aspec.class == "artillery" {
            "artillery"
        } else {
            "unit"
        };
        let mut out = Outcome::default();
        if hits > 0 {
            out.eliminated = lose(
                ctx,
                &mut self.st,
                &mut self.ev,
                tgt_id,
                hits,
                att.side,
                "hits",
                remover,
            );
        }
        if !out.eliminated && flags > 0 {
            let (ig, o) = resolve_flags(
                ctx,
                &mut self.st,
                &mut self.ev,
                tgt_id,
                flags,
                att.side,
                rule,
            );
            out = o;
            if let Some(Event::Battle { ignored_flags, .. }) = self.ev.get_mut(idx) {
                *ignored_flags = ig;
            }
            // Appendix 2: a retreat onto a frozen river tests the ice.
            let retreat = self.ev[idx..].iter().rev().find_map(|e| match e {
                Event::Retreat { path, .. } if path.len() > 1 => Some(path[1..].to_vec()),
                _ => None,
            });
            if let Some(path) = retreat {
                super::tiles::entered(
                    ctx,
                    &mut self.st,
                    &mut self.ev,
                    &mut *self.chance.dice,
                    tgt_id,
                    &path,
                );
                if self.st.unit(tgt_id).is_none() {
                    out.eliminated = true;
                }
            }
        }
        // Appendix 2: fire that destroys the tile the target stood on.
        super::tiles::fire_on_hex(ctx, &mut self.st, &mut self.ev, &aspec.class, tgt.at);
        // Big-Gun cross-hairs; Forward Spotting Artillery gives every
        // artillery unit the Big Guns rules while its hex is held.
        if super::battle::big_guns(&self.st, aspec, &att)
            && hits > 0
            && !out.eliminated
            && !out.retreated
        {
            let have = self
                .st
                .cross_hairs
                .iter()
                .filter(|c| c.gun == att_id)
                .count() as u32;
            if have < ctx.r.options.cross_hair_markers
                && !self
                    .st
                    .cross_hairs
                    .iter()
                    .any(|c| c.gun == att_id && c.target == tgt_id)
            {
                self.st.cross_hairs.push(CrossHair {
                    gun: att_id,
                    target: tgt_id,
                });
                self.ev.push(Event::CrossHairPlaced {
                    gun: att.at,
                    target: tgt.at,
                });
            }
        }
        Some(out)
    }

    /// The defender's reaction before a close assault: Ambush, then the
    /// Infantry Charge reply. Returns false if the attack is cancelled.
    fn reactions(&mut self, att_id: u32, tgt_id: u32, charge: bool) -> bool {
        let ctx = self.ctx;
        let Some(tgt) = self.st.unit(tgt_id).cloned() else {
            return true;
        };
        let dside = tgt.side;
        let can_reply = |st: &State| -> bool {
            let (Some(d), Some(a)) = (st.unit(tgt_id), st.unit(att_id)) else {
                return false;
            };
            target_check(ctx, st, d, a.at).is_ok()
        };
        let policy = self.st.standing.get(dside).and_then(|s| s.ambush.clone());
        let wants = match &policy {
            None => true,
            Some(ids) => ids.contains(&tgt_id),
        };
        if wants
            && self
                .st
                .hands
                .get(dside)
                .is_some_and(|h| h.iter().any(|c| c == "ambush"))
            && can_reply(&self.st)
        {
            if let Some(p) = self.st.hands[dside].iter().position(|c| c == "ambush") {
                let c = self.st.hands[dside].remove(p);
                self.st.discard.push(c);
            }
            self.ambush_draw = true;
            self.ev.push(Event::AmbushPlayed {
                side: self.st.sides[dside].clone(),
                at: tgt.at,
            });
            let before = self.st.unit(att_id).map(|u| u.at);
            self.fight(tgt_id, att_id, "ambush", vec![], HitRule::default());
            if self.st.unit(att_id).map(|u| u.at) != before {
                return false;
            }
        }
        if charge && can_reply(&self.st) {
            let before = self.st.unit(att_id).map(|u| u.at);
            self.fight(tgt_id, att_id, "charge-reply", vec![], HitRule::default());
            if self.st.unit(att_id).map(|u| u.at) != before {
                return false;
            }
        }
        true
    }

    fn card_extra(&self, unit: u32, range: u32) -> Vec<Modifier> {
        match self.modes_extra.get(&unit) {
            Some((e, close_only, reason)) if *e != 0 && (!*close_only || range == 1) => {
                vec![Modifier {
                    dice: *e,
                    reason: reason.clone(),
                }]
            }
            _ => vec![],
        }
    }
}

/// Apply a checked plan with dice.
pub fn apply(
    ctx: &Ctx<'_>,
    st0: &State,
    plan: &Plan,
    chance: &mut Chance<'_>,
) -> (State, Vec<Event>) {
    let side = plan.side;
    let mut t = Turn {
        ctx,
        st: st0.clone(),
        ev: Vec::new(),
        chance,
        side,
        ambush_draw: false,
        overrun_used: BTreeSet::new(),
        obstacle_cost: BTreeSet::new(),
        modes_extra: plan
            .modes
            .iter()
            .map(|(k, m)| (*k, (m.extra, m.extra_close_only, m.extra_reason.clone())))
            .collect(),
    };
    super::commissar::begin(&mut t.st, side, &plan.commissar);
    let sname = t.st.sides[side].clone();
    let turn_no = t.st.turn + 1;
    t.ev.push(Event::TurnBegun {
        turn: turn_no,
        side: sname.clone(),
    });
    if let Some(sd) = &plan.standing {
        t.st.standing[side] = sd.clone();
    }
    let hand_count = t.st.hands[side].len() as u32;
    let mut allowed: Option<BTreeSet<u32>> = None;
    // The cards played, each with whether it is a Recon card.
    let mut played_cards: Vec<(String, bool)> = Vec::new();
    let mut finest = false;
    match &plan.action {
        Action::Card {
            played,
            effect,
            section,
        } if ctx.r.card(played).is_some_and(|c| c.kind == "manoeuvre") => {
            // Army Manoeuvres: declared instead of a command card; the hand
            // is untouched and nothing is drawn. Once per game.
            t.ev.push(Event::CardPlayed {
                side: sname.clone(),
                card: played.clone(),
                section: section.map(|s| s.id().to_string()),
                as_card: (played != effect).then(|| effect.clone()),
            });
            if t.st.manoeuvres_used.len() < t.st.sides.len() {
                t.st.manoeuvres_used.resize(t.st.sides.len(), Vec::new());
            }
            t.st.manoeuvres_used[side].push(played.clone());
            // Not a command card, so a Counter-Attack cannot copy it.
            t.st.last_played[side] = None;
            for id in &plan.ordered {
                if let Some(u) = t.st.unit(*id) {
                    t.ev.push(Event::UnitOrdered {
                        side: sname.clone(),
                        unit: u.kind.clone(),
                        at: u.at,
                    });
                }
            }
        }
        Action::Card {
            played,
            effect,
            section,
        } => {
            let mut all = vec![(played, effect, section)];
            for a in &plan.more {
                if let Action::Card {
                    played,
                    effect,
                    section,
                } = a
                {
                    all.push((played, effect, section));
                }
            }
            for (played, effect, section) in all {
                if let Some(p) = t.st.hands[side].iter().position(|c| c == played) {
                    t.st.hands[side].remove(p);
                }
                t.ev.push(Event::CardPlayed {
                    side: sname.clone(),
                    card: played.clone(),
                    section: section.map(|s| s.id().to_string()),
                    as_card: (played != effect).then(|| effect.clone()),
                });
                let spec = ctx.r.card(effect);
                played_cards.push((played.clone(), spec.is_some_and(|c| c.recon)));
                t.st.last_played[side] = Some(Played {
                    card: effect.clone(),
                    section: section.map(|s| s.id().to_string()),
                });
            }
            let spec = ctx.r.card(effect);
            finest = spec.and_then(|c| c.effect.as_deref()) == Some("their-finest-hour");
            if !matches!(plan.gate, Gate::FinestHour(_)) {
                for id in &plan.ordered {
                    if let Some(u) = t.st.unit(*id) {
                        t.ev.push(Event::UnitOrdered {
                            side: sname.clone(),
                            unit: u.kind.clone(),
                            at: u.at,
                        });
                    }
                }
            }
            if spec.and_then(|c| c.effect.as_deref()) == Some("dig-in") {
                for id in &plan.ordered {
                    if let Some(h) = t.st.unit(*id).map(|u| u.at) {
                        t.st.terrain.entry(h).or_default().push("sandbag".into());
                        t.ev.push(Event::SandbagPlaced { at: h });
                    }
                }
            }
        }
        Action::Horde => {}
        Action::Discard(card) => {
            if let Some(p) = t.st.hands[side].iter().position(|c| c == card) {
                let c = t.st.hands[side].remove(p);
                t.st.discard.push(c);
            }
            t.ev.push(Event::CardDiscarded {
                side: sname.clone(),
                card: card.clone(),
                private: true,
            });
            t.st.last_played[side] = None;
            if let Some(c) = t.draw(side) {
                t.st.hands[side].push(c);
            }
        }
        Action::Exchange(cards) => {
            let other = State::other(side);
            let mut shown = cards.clone();
            for c in cards {
                if let Some(p) = t.st.hands[side].iter().position(|x| x == c) {
                    t.st.hands[side].remove(p);
                }
            }
            let mut taken = Vec::new();
            let swaps = t.st.standing[other].swaps.clone();
            for (take, give) in swaps {
                if let (Some(p), Some(q)) = (
                    shown.iter().position(|x| *x == take),
                    t.st.hands[other].iter().position(|x| *x == give),
                ) {
                    let c = shown.remove(p);
                    let g = t.st.hands[other].remove(q);
                    t.st.hands[other].push(c.clone());
                    t.st.hands[side].push(g.clone());
                    taken.push((c, g));
                }
            }
            t.ev.push(Event::CardsExchanged {
                side: sname.clone(),
                shown: cards.clone(),
                taken,
            });
            t.st.discard.extend(shown);
            t.st.exchanged[side] = true;
            t.st.last_played[side] = None;
            while (t.st.hands[side].len() as u32) < t.st.hand_size[side] {
                match t.draw(side) {
                    Some(c) => t.st.hands[side].push(c),
                    None => break,
                }
            }
        }
    }
    // Dice that decide which orders stand.
    match &plan.gate {
        Gate::Medics(id) => {
            if let Some(u) = t.st.unit(*id).cloned() {
                let sym = ctx.r.symbol(&ctx.spec(&u.kind).class).to_string();
                let mut faces = Vec::new();
                let mut n = 0;
                for _ in 0..hand_count {
                    let f = ctx.r.face(t.chance.dice.roll(6));
                    if f == "star" || (!sym.is_empty() && f == sym) {
                        n += 1;
                    }
                    faces.push(f);
                }
                let back = n.min(u.start - u.figures.min(u.start));
                if let Some(m) = t.st.unit_mut(*id) {
                    m.figures += back;
                }
                t.ev.push(Event::FiguresReturned {
                    side: sname.clone(),
                    unit: u.kind.clone(),
                    at: u.at,
                    returned: back,
                    now: u.figures + back,
                    faces,
                });
                allowed = Some(if back > 0 {
                    [*id].into_iter().collect()
                } else {
                    BTreeSet::new()
                });
            }
        }
        Gate::FinestHour(ids) => {
            let mut faces = Vec::new();
            for _ in 0..hand_count {
                faces.push(ctx.r.face(t.chance.dice.roll(6)));
            }
            let mut pool = faces.clone();
            let mut ok = BTreeSet::new();
            let mut hexes = Vec::new();
            for id in ids {
                let Some(u) = t.st.unit(*id) else { continue };
                let sym = ctx.r.symbol(&ctx.spec(&u.kind).class).to_string();
                let pos = pool
                    .iter()
                    .position(|f| !sym.is_empty() && *f == sym)
                    .or_else(|| pool.iter().position(|f| f == "star"));
                if let Some(p) = pos {
                    pool.remove(p);
                    ok.insert(*id);
                    hexes.push(u.at);
                }
            }
            t.ev.push(Event::OrdersByDice {
                side: sname.clone(),
                faces,
                ordered: hexes,
            });
            allowed = Some(ok);
        }
        Gate::None => {}
    }
    // Sabotaging A Dam (stars.rs): "After playing a Command Card, and before
    // any Units are ordered, he rolls two Battle Dice."
    // (An Army Manoeuvre is declared "instead of playing a Command Card".)
    let command_card = matches!(&plan.action, Action::Card { played, .. }
        if ctx.r.card(played).is_some_and(|c| c.kind != "manoeuvre"));
    if command_card {
        super::stars::dam_sabotage(ctx, &mut t.st, &mut t.ev, &mut *t.chance.dice, side);
    }
    // Combat Engineers standing on wire or a hedgehog they have not removed
    // remove it when next ordered, before they may move away.
    for id in &plan.ordered {
        if allowed.as_ref().is_some_and(|a| !a.contains(id)) {
            continue;
        }
        if let Some(h) = t.st.unit(*id).map(|u| u.at) {
            t.engineer_removes(*id, h);
        }
    }
    // Battle Star Markers (stars.rs): after each order, what became of them.
    let mut since = t.ev.len();
    // Appendix 2, Oasis: units whose recovery roll returned no figure (as
    // with Medics & Mechanics, they may not move or battle).
    let mut stalled: BTreeSet<u32> = BTreeSet::new();
    for step in &plan.steps {
        // Bridge Demolition: charges on a bridge the enemy now occupies go.
        super::bridges::after_step(&mut t.st, &mut t.ev);
        super::trains::missions(&mut t.st, &mut t.ev);
        super::variants::zombies::after_step(ctx, &mut t.st, &mut t.ev);
        super::stars::after_step(ctx, &mut t.st, &mut t.ev, since, &mut *t.chance.dice);
        super::variants::exterminate::after_step(ctx, &mut t.st, &mut t.ev);
        super::supply::after_step(&mut t.st, &mut t.ev);
        since = t.ev.len();
        let (line, unit) = match step {
            Step::Move { line, unit, .. }
            | Step::Battle { line, unit, .. }
            | Step::RemoveWire { line, unit }
            | Step::Sabotage { line, unit }
            | Step::Recover { line, unit }
            | Step::Unload { line, unit, .. }
            | Step::Charge { line, unit, .. }
            | Step::Pontoon { line, unit, .. }
            | Step::Exit { line, unit }
            | Step::Exterminate { line, unit } => (line, Some(*unit)),
            Step::Target { line, .. }
            | Step::Lapse { line, .. }
            | Step::Land { line, .. }
            | Step::Detonate { line, .. } => (line, None),
        };
        if let (Some(a), Some(u)) = (&allowed, unit) {
            let firefight = matches!(
                step,
                Step::Battle {
                    firefight: true,
                    ..
                }
            );
            if !a.contains(&u) && !firefight {
                t.skip(line, "the unit was not ordered by the dice");
                continue;
            }
        }
        if let Some(u) = unit {
            if t.st.unit(u).is_none() {
                t.skip(line, "the unit is no longer on the board");
                continue;
            }
            if stalled.contains(&u) {
                t.skip(
                    line,
                    "the unit recovered no figure in the oasis: it may not move or battle this turn",
                );
                continue;
            }
        }
        match step {
            Step::Lapse { line, reason } => t.skip(line, reason),
            Step::Move {
                line,
                unit,
                path,
                contact,
            } => {
                let Some(u) = t.st.unit(*unit).cloned() else {
                    continue;
                };
                if path.len() < 2 {
                    // Stopped before its first step (Kriegspiel).
                    t.ev.extend(contact.iter().cloned());
                    continue;
                }
                let m = plan
                    .modes
                    .get(unit)
                    .cloned()
                    .unwrap_or_else(|| default_mode(ctx, &u));
                let max = if path.first() == Some(&u.at) && m.second_move {
                    m.max_move.max(3)
                } else {
                    m.max_move
                };
                let info = match check_path(
                    ctx,
                    &t.st,
                    &u,
                    path,
                    MoveRule {
                        max,
                        ignore_terrain: m.ignore_terrain,
                    },
                ) {
                    Ok(i) => i,
                    Err(e) => {
                        t.skip(line, &e);
                        continue;
                    }
                };
                let dest = *path.last().unwrap_or(&u.at);
                if let Some(x) = t.st.unit_mut(*unit) {
                    x.at = dest;
                }
                super::trains::moved(ctx, &mut t.st, &u, path);
                unit_moved(&mut t.st, *unit);
                t.ev.push(Event::Move {
                    side: sname.clone(),
                    unit: u.kind.clone(),
                    path: path.clone(),
                });
                t.ev.extend(contact.iter().cloned());
                t.wire_on_entry(*unit, dest);
                t.engineer_removes(*unit, dest);
                let e = super::victory::update_objectives(&mut t.st);
                t.ev.extend(e);
                // Appendix 2: a frozen river tests the ice.
                super::tiles::entered(
                    ctx,
                    &mut t.st,
                    &mut t.ev,
                    &mut *t.chance.dice,
                    *unit,
                    path.get(1..).unwrap_or(&[]),
                );
                let clearing = engineer_clears(ctx, &u, &m, info.dist, info.barred_from_battle);
                super::mines::entered(
                    ctx,
                    &mut t.st,
                    &mut t.ev,
                    &mut *t.chance.dice,
                    *unit,
                    dest,
                    clearing,
                );
            }
            Step::Land { line, at } => {
                let effect = match &plan.action {
                    Action::Card { effect, .. } => effect.clone(),
                    _ => String::new(),
                };
                match super::landmarks::land(ctx, &mut t.st, side, *at, &effect) {
                    Ok((_, e)) => t.ev.push(e),
                    Err(e) => t.skip(line, &e),
                }
            }
            Step::Unload {
                line,
                unit,
                to,
                kind,
            } => {
                let Some(h) = t.st.unit(*unit).map(|u| u.at) else {
                    continue;
                };
                match super::trains::unload(ctx, &mut t.st, side, h, *to, kind.as_deref(), true) {
                    Ok((_, e)) => {
                        t.ev.push(e);
                        let e = super::victory::update_objectives(&mut t.st);
                        t.ev.extend(e);
                    }
                    Err(e) => t.skip(line, &e),
                }
            }
            Step::Exit { unit, .. } => {
                super::variants::zombies::exit(&mut t.st, &mut t.ev, *unit);
            }
            Step::Exterminate { unit, .. } => {
                super::variants::exterminate::begin(&mut t.st, &mut t.ev, *unit);
            }
            Step::Charge { unit, bridge, .. } => {
                if let Some(h) = t.st.unit(*unit).map(|u| u.at) {
                    super::bridges::place(&mut t.st, &mut t.ev, side, h, *bridge);
                }
            }
            Step::Pontoon { unit, river, .. } => {
                if let Some(h) = t.st.unit(*unit).map(|u| u.at) {
                    super::bridges::build_pontoon(&mut t.st, &mut t.ev, side, h, *river);
                }
            }
            Step::Detonate { line, bridge } => {
                if t.st.unit_at(*bridge).is_some() {
                    t.skip(line, "the bridge holds a unit");
                } else if super::bridges::charge(&t.st, *bridge).is_some_and(|c| c.side == side) {
                    super::bridges::detonate(
                        ctx.r,
                        &mut t.st,
                        &mut t.ev,
                        &mut *t.chance.dice,
                        side,
                        *bridge,
                    );
                } else {
                    t.skip(line, "the charges are no longer on the bridge");
                }
            }
            Step::Recover { line, unit } => {
                let refusal =
                    t.st.unit(*unit)
                        .and_then(|u| super::landmarks::recover_refusal(ctx, &t.st, u));
                if let Some(why) = refusal {
                    t.skip(line, &why);
                    stalled.insert(*unit);
                } else if !super::landmarks::recover(
                    ctx,
                    &mut t.st,
                    &mut t.ev,
                    &mut *t.chance.dice,
                    *unit,
                    hand_count,
                ) {
                    stalled.insert(*unit);
                }
            }
            Step::Sabotage { line, unit } => {
                // The unit may have been pushed off the objective since the
                // orders were checked (a minefield's retreat).
                if t.st
                    .unit(*unit)
                    .is_some_and(|u| super::stars::sabotage_at(&t.st, u.side, u.at))
                {
                    super::stars::sabotage(ctx, &mut t.st, &mut t.ev, &mut *t.chance.dice, *unit);
                } else {
                    t.skip(line, "the unit is no longer on its objective");
                }
            }
            Step::RemoveWire { unit, .. } => {
                if let Some(h) = t.st.unit(*unit).map(|u| u.at) {
                    if let Some(fs) = t.st.terrain.get_mut(&h) {
                        fs.retain(|f| !ctx.r.feature(f).is_some_and(|x| x.wire));
                    }
                    t.ev.push(Event::WireRemoved {
                        at: h,
                        by: "infantry".into(),
                    });
                }
            }
            Step::Target { hexes, .. } => {
                let air =
                    matches!(&plan.action, Action::Card { effect, .. } if effect == "air-power");
                let (how, per) = if air {
                    (
                        "air-power",
                        super::blitzkrieg::air_dice(ctx, &plan.action)
                            .unwrap_or(t.st.air_power_dice[side]),
                    )
                } else {
                    ("barrage", 4)
                };
                for h in hexes {
                    let Some(tgt) = t.st.unit_at(*h).cloned() else {
                        // Bridge Demolition, Option 3: "four Black Tank
                        // Hits from ... Barrage, and/or Air Power".
                        if super::bridges::card_target(&t.st, *h) {
                            let faces = (0..per)
                                .map(|_| ctx.r.face(t.chance.dice.roll(6)))
                                .collect();
                            super::bridges::bombard(
                                ctx.r,
                                &mut t.st,
                                &mut t.ev,
                                side,
                                *h,
                                *h,
                                faces,
                                Some(how),
                            );
                        }
                        continue;
                    };
                    if tgt.side == side {
                        continue;
                    }
                    let tspec = ctx.spec(&tgt.kind);
                    let rule = HitRule {
                        stars_hit: air,
                        grenades_ignored: false,
                        flags_unignorable: true,
                    };
                    let (faces, hits, flags) =
                        roll(ctx, &mut *t.chance.dice, per, None, tspec, rule);
                    t.ev.push(Event::Battle {
                        side: sname.clone(),
                        attacker: how.into(),
                        from: None,
                        target: tgt.kind.clone(),
                        at: *h,
                        range: 0,
                        how: how.into(),
                        base_dice: per,
                        modifiers: vec![],
                        dice: per,
                        faces,
                        hits,
                        flags,
                        ignored_flags: 0,
                    });
                    let mut gone = false;
                    if hits > 0 {
                        gone = lose(ctx, &mut t.st, &mut t.ev, tgt.id, hits, side, "hits", how);
                    }
                    if !gone && flags > 0 {
                        resolve_flags(ctx, &mut t.st, &mut t.ev, tgt.id, flags, side, rule);
                    }
                }
            }
            Step::Battle {
                line,
                unit,
                target,
                take_ground,
                overrun,
                firefight,
                charge,
                auto_overrun,
            } => {
                let removed = t.st.figures_removed.get(side).copied().unwrap_or(0);
                // The range the battle is fought at (as `battle` reckons it).
                let range =
                    t.st.unit(*unit)
                        .map_or(0, |u| super::trains::range(&t.st, u, *target));
                t.battle(
                    line,
                    *unit,
                    *target,
                    *take_ground,
                    *overrun,
                    *firefight,
                    *charge,
                    *auto_overrun,
                );
                // "Achtung! Zombie!": the Living it killed rise with it.
                super::variants::zombies::after_battle(ctx, &mut t.st, &mut t.ev, *unit, removed);
                // The Cybermen: a close assault's casualties reinforce them.
                super::variants::cybermen::after_battle(
                    ctx, &mut t.st, &mut t.ev, *unit, range, removed,
                );
                // "War Of The Worlds": a Martian attack ruins a town.
                super::variants::worlds::after_battle(ctx, &mut t.st, &mut t.ev, side, *target);
            }
        }
    }
    super::bridges::after_step(&mut t.st, &mut t.ev);
    super::trains::missions(&mut t.st, &mut t.ev);
    super::variants::zombies::after_step(ctx, &mut t.st, &mut t.ev);
    super::stars::after_step(ctx, &mut t.st, &mut t.ev, since, &mut *t.chance.dice);
    super::variants::exterminate::after_step(ctx, &mut t.st, &mut t.ev);
    super::supply::after_step(&mut t.st, &mut t.ev);
    // Draw: one card for each card played (Colonel Blimp: up to three).
    let any_played = !played_cards.is_empty();
    for (c, recon) in played_cards {
        t.st.discard.push(c);
        if finest {
            let mut all = std::mem::take(&mut t.st.discard);
            all.append(&mut t.st.deck);
            shuffle(&mut all, &mut *t.chance.deck);
            t.ev.push(Event::DeckReshuffled { cards: all.len() });
            t.st.deck = all;
        }
        if recon {
            let mut drawn = Vec::new();
            for _ in 0..ctx.r.options.recon_draw.max(1) {
                if let Some(c) = t.draw(side) {
                    drawn.push(c);
                }
            }
            let keep_i = plan
                .keep
                .iter()
                .find_map(|k| drawn.iter().position(|d| d == k))
                .unwrap_or(0);
            for (i, c) in drawn.into_iter().enumerate() {
                if i == keep_i {
                    t.st.hands[side].push(c);
                } else {
                    t.ev.push(Event::CardDiscarded {
                        side: sname.clone(),
                        card: c.clone(),
                        private: false,
                    });
                    t.st.discard.push(c);
                }
            }
        } else if let Some(c) = t.draw(side) {
            t.st.hands[side].push(c);
        }
    }
    if any_played {
        // A hand cut short before a campaign battle draws two a turn until
        // it holds the briefing's number again (seeds/004, Appendix 3).
        if t.st.short_hand.get(side).copied().unwrap_or(false) {
            if (t.st.hands[side].len() as u32) < t.st.hand_size[side] {
                if let Some(c) = t.draw(side) {
                    t.st.hands[side].push(c);
                }
            }
            if (t.st.hands[side].len() as u32) >= t.st.hand_size[side] {
                t.st.short_hand[side] = false;
            }
        }
    }
    super::commissar::end(&mut t.st, side, &plan.commissar);
    if t.ambush_draw {
        let o = State::other(side);
        if let Some(c) = t.draw(o) {
            t.st.hands[o].push(c);
        }
    }
    let e = super::victory::update_objectives(&mut t.st);
    t.ev.extend(e);
    // "EX-TER-MIN-ATE!": the towns exterminated this turn.
    super::variants::exterminate::end_turn(ctx, &mut t.st, &mut t.ev);
    if t.st.zombies.is_some() {
        super::variants::zombies::end_turn(st0, &mut t.st, &mut t.ev, side);
    } else if t.st.worlds.is_some() {
        super::variants::worlds::end_turn(
            ctx,
            st0,
            &mut t.st,
            &mut t.ev,
            &mut *t.chance.dice,
            side,
        );
    } else {
        let e = super::victory::end_of_turn(ctx.r, &mut t.st, side);
        t.ev.extend(e);
    }
    // "Nineteen Eighty-Four": the units eliminated this turn are replaced
    // before the next turn begins (and before its supply is judged).
    super::variants::nineteen84::collect(&mut t.st, &t.ev);
    super::variants::nineteen84::place(ctx, &mut t.st, &mut t.ev);
    // Bridge Demolition: "The explosive charges are considered to be
    // removed if the Bridge is ever occupied by the enemy", also by a unit
    // placed at the end of the turn (a replacement, the risen Dead).
    super::bridges::after_step(&mut t.st, &mut t.ev);
    let supply_mark = t.ev.len();
    // Supply Lines & Sieges: the beginning of the other side's turn (its
    // units' supply, and the Third Turn Losses) is judged now, so that its
    // report says it before it writes its orders. (Under "Achtung!
    // Zombie!" the variant's own victory, judged above, stands.)
    if !t.st.over
        && super::supply::begin_turn(
            ctx,
            &mut t.st,
            &mut t.ev,
            State::other(side),
            Some(&mut *t.chance.dice),
        )
        && t.st.zombies.is_none()
        && t.st.worlds.is_none()
    {
        let e = super::victory::end_of_turn(ctx.r, &mut t.st, side);
        t.ev.extend(e);
    }
    // "Nineteen Eighty-Four": the units lost at the beginning of the next
    // side's turn (supply losses, judged just above) are replaced at the end
    // of that turn.
    super::variants::nineteen84::collect(&mut t.st, &t.ev[supply_mark..]);
    t.st.turn += 1;
    t.st.to_move = State::other(side);
    (t.st, t.ev)
}

impl Turn<'_, '_, '_> {
    fn wire_on_entry(&mut self, unit: u32, h: Hex) {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit) else { return };
        if ctx.spec(&u.kind).class != "armour" {
            return;
        }
        if let Some(fs) = self.st.terrain.get_mut(&h) {
            let before = fs.len();
            fs.retain(|f| !ctx.r.feature(f).is_some_and(|x| x.wire));
            if fs.len() != before {
                self.ev.push(Event::WireRemoved {
                    at: h,
                    by: "armour".into(),
                });
            }
        }
    }

    /// North African Armour Overrun (Appendix 2): the one additional hex
    /// after taking ground. False (and the line skipped) if it cannot be
    /// made; the armour then stays on the ground it took.
    fn desert_step(&mut self, line: &Line, unit: u32, to: Hex) -> bool {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return false;
        };
        let spec = ctx.spec(&u.kind);
        let why = if !u.at.adjacent(to) {
            Some(format!("{to} is not next to {}", u.at))
        } else if self.st.unit_at(to).is_some() {
            Some(format!("{to} holds a unit"))
        } else if !may_enter(ctx, &self.st, spec, to)
            || !super::tiles::step_allowed(ctx, &self.st, spec.movement_class(), u.at, to)
        {
            Some(format!("{} may not enter {to}", spec.name))
        } else {
            None
        };
        if let Some(why) = why {
            self.skip(line, &format!("the additional hex of the overrun: {why}"));
            return false;
        }
        if let Some(x) = self.st.unit_mut(unit) {
            x.at = to;
        }
        unit_moved(&mut self.st, unit);
        self.ev.push(Event::Move {
            side: self.st.sides[u.side].clone(),
            unit: u.kind.clone(),
            path: vec![u.at, to],
        });
        self.wire_on_entry(unit, to);
        let e = super::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        if super::tiles::barred_on_or_off(ctx, &self.st, spec.movement_class(), u.at, to) {
            self.skip(
                line,
                "the overrun moved onto or out of terrain where armour may not battle",
            );
            return false;
        }
        true
    }

    fn take_ground(&mut self, unit: u32, to: Hex, overrun: bool) -> bool {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return false;
        };
        if self.st.unit_at(to).is_some()
            || !may_enter(ctx, &self.st, ctx.spec(&u.kind), to)
            || !super::tiles::step_allowed(
                ctx,
                &self.st,
                ctx.spec(&u.kind).movement_class(),
                u.at,
                to,
            )
        {
            return false;
        }
        if let Some(x) = self.st.unit_mut(unit) {
            x.at = to;
        }
        unit_moved(&mut self.st, unit);
        let side = self.st.sides[u.side].clone();
        if overrun {
            self.ev.push(Event::Overrun {
                side,
                unit: u.kind.clone(),
                from: u.at,
                to,
            });
        } else {
            self.ev.push(Event::TakeGround {
                side,
                unit: u.kind.clone(),
                from: u.at,
                to,
            });
        }
        self.wire_on_entry(unit, to);
        let e = super::victory::update_objectives(&mut self.st);
        self.ev.extend(e);
        // Appendix 2: a frozen river tests the ice.
        super::tiles::entered(
            ctx,
            &mut self.st,
            &mut self.ev,
            &mut *self.chance.dice,
            unit,
            &[to],
        );
        // Taking ground onto a minefield is entering it.
        super::mines::entered(
            ctx,
            &mut self.st,
            &mut self.ev,
            &mut *self.chance.dice,
            unit,
            to,
            false,
        );
        self.st.unit(unit).is_some()
    }

    /// Combat Engineers: "Must remove Barbed Wire or Hedgehog hex on the
    /// same turn that it moves onto the hex but reduces the number of Battle
    /// Dice it rolls by 1."
    fn engineer_removes(&mut self, unit: u32, h: Hex) {
        let ctx = self.ctx;
        let Some(u) = self.st.unit(unit).cloned() else {
            return;
        };
        if !ctx.spec(&u.kind).engineer {
            return;
        }
        let Some(fs) = self.st.terrain.get_mut(&h) else {
            return;
        };
        let gone: Vec<String> = fs
            .iter()
            .filter(|f| ctx.r.feature(f).is_some_and(|x| x.engineer_removes))
            .cloned()
            .collect();
        if gone.is_empty() {
            return;
        }
        fs.retain(|f| !gone.contains(f));
        if fs.is_empty() {
            self.st.terrain.remove(&h);
        }
        let (side, kind) = (self.st.sides[u.side].clone(), u.kind.clone());
        for g in gone {
            let name = ctx.r.feature(&g).map_or(g.clone(), |x| x.name.clone());
            self.ev.push(Event::ObstacleRemoved {
                side: side.clone(),
                unit: kind.clone(),
                at: h,
                obstacle: name,
            });
        }
        self.obstacle_cost.insert(unit);
    }

    #[allow(clippy::too_many_arguments)]
    fn battle(
        &mut self,
        line: &Line,
        unit: u32,
        target: Hex,
        take_ground: bool,
        overrun: Option<Hex>,
        firefight: bool,
        charge: bool,
        auto_overrun: bool,
    ) {
        let ctx = self.ctx;
        let Some(att) = self.st.unit(unit).cloned() else {
            return;
        };
        // Kriegspiel: a camouflaged unit the side does not see is not on
        // its board; a shot at the wire, bridge or minefield of its hex is
        // a shot at those, and nothing of the unit is told.
        let hidden = |t: &Unit| {
            self.st.fog.is_some()
                && t.side != att.side
                && t.concealed
                && !super::fog::sees(ctx.r, &self.st, att.side, t)
        };
        let Some(tgt) = self.st.unit_at(target).filter(|t| !hidden(t)).cloned() else {
            // Artillery against barbed wire.
            let spec = ctx.spec(&att.kind);
            if spec.class == "artillery"
                && self
                    .st
                    .features(target)
                    .iter()
                    .any(|f| ctx.r.feature(f).is_some_and(|x| x.wire))
            {
                let range = att.at.distance(target);
                let base = spec
                    .dice
                    .get((range as usize).wrapping_sub(1))
                    .copied()
                    .unwrap_or(0);
                // Demoralisation: "reduce ... Battle Dice".
                let less = super::disorder::battle_mods(&self.st, att.id);
                let n = total(base, less.as_slice());
                let mut faces = Vec::new();
                let mut hit = false;
                for _ in 0..n {
                    let f = ctx.r.face(self.chance.dice.roll(6));
                    hit |= f == "infantry" || f == "grenade";
                    faces.push(f);
                }
                self.ev.push(Event::Battle {
                    side: self.st.sides[self.side].clone(),
                    attacker: att.kind.clone(),
                    from: Some(att.at),
                    target: "wire".into(),
                    at: target,
                    range,
                    how: "wire".into(),
                    base_dice: base,
                    modifiers: less.into_iter().collect(),
                    dice: n,
                    faces,
                    hits: u32::from(hit),
                    flags: 0,
                    ignored_flags: 0,
                });
                if hit {
                    if let Some(fs) = self.st.terrain.get_mut(&target) {
                        fs.retain(|f| !ctx.r.feature(f).is_some_and(|x| x.wire));
                    }
                    self.ev.push(Event::WireRemoved {
                        at: target,
                        by: "artillery".into(),
                    });
                }
            } else if ctx.r.bridge_demolition.bombard_units.contains(&att.kind)
                && super::bridges::is_bridge(&self.st, target)
                && super::bridges::charge(&self.st, target).is_none()
            {
                let range = att.at.distance(target);
                let base = spec
                    .dice
                    .get((range as usize).wrapping_sub(1))
                    .copied()
                    .unwrap_or(0);
                // Demoralisation: "reduce ... Battle Dice".
                let less = super::disorder::battle_mods(&self.st, att.id);
                let n = total(base, less.as_slice());
                let mut faces = Vec::new();
                for _ in 0..n {
                    faces.push(ctx.r.face(self.chance.dice.roll(6)));
                }
                super::bridges::bombard(
                    ctx.r,
                    &mut self.st,
                    &mut self.ev,
                    att.side,
                    att.at,
                    target,
                    faces,
                    None,
                );
            } else if spec.class == "artillery" && super::mines::at(&self.st, target).is_some() {
                super::mines::artillery_clear(
                    ctx,
                    &mut self.st,
                    &mut self.ev,
                    &mut *self.chance.dice,
                    unit,
                    target,
                );
            } else {
                self.skip(
                    line,
                    &format!("there is no enemy unit at {target} any more"),
                );
            }
            return;
        };
        if tgt.side == att.side {
            self.skip(line, "the target hex now holds your own unit");
            return;
        }
        if let Err(e) = target_check(ctx, &self.st, &att, target) {
            self.skip(line, &e);
            return;
        }
        // Camouflage: "A Unit loses its concealment the moment it Battles,
        // is Battled by an enemy Unit, or Moves."
        for id in [unit, tgt.id] {
            if let Some(x) = self.st.unit_mut(id) {
                x.concealed = false;
            }
        }
        // From the nearer piece of a train to the nearer piece of a train
        // (as the order check and the dice reckon it).
        let range = super::trains::range(&self.st, &att, target);
        if range == 1 && !self.reactions(unit, tgt.id, charge) {
            self.skip(
                line,
                "the attack is cancelled: the unit was forced back or eliminated",
            );
            return;
        }
        if self.st.unit(unit).is_none() {
            return;
        }
        if self.st.unit(tgt.id).is_none() {
            return;
        }
        let mut extra = if firefight {
            vec![]
        } else {
            self.card_extra(unit, range)
        };
        let mut rule = HitRule::default();
        let how = if firefight {
            extra.push(Modifier {
                dice: -1,
                reason: "Firefight (no orders)".into(),
            });
            rule.grenades_ignored = true;
            "firefight"
        } else if charge {
            "charge"
        } else if range == 1 {
            "close-assault"
        } else {
            "combat"
        };
        let Some(out) = self.fight(unit, tgt.id, how, extra, rule) else {
            return;
        };
        if range == 1 && !out.eliminated && !out.retreated && self.st.unit(unit).is_some() {
            let turn_no = self.st.turn + 1;
            if !self
                .st
                .engagements
                .iter()
                .any(|e| (e.a == unit && e.b == tgt.id) || (e.a == tgt.id && e.b == unit))
            {
                self.st.engagements.push(Engagement {
                    a: unit,
                    b: tgt.id,
                    since: turn_no,
                });
            }
        }
        let vacated = out.eliminated || out.retreated;
        if range != 1 || firefight || !vacated {
            return;
        }
        let overrun = match overrun {
            Some(h) => Some(Some(h)),
            None if auto_overrun => Some(None),
            None => None,
        };
        // Appendix 2: armour that takes ground onto a flooded field or a
        // marsh "may Take Ground but may not make an Armour Overrun".
        let overrun = if overrun.is_some() && !super::tiles::overrun_allowed(ctx, &self.st, target)
        {
            if self.take_ground(unit, target, false) {
                self.skip(
                    line,
                    "an armour unit that takes ground onto this terrain may not overrun",
                );
            }
            return;
        } else {
            overrun
        };
        if let Some(named) = overrun {
            if self.overrun_used.contains(&unit) || !self.take_ground(unit, target, true) {
                return;
            }
            // North African Armour Overrun: "may Take Ground and may then
            // Move one additional hex. It can then Battle again."
            if let Cmd::Battle { via: Some(v), .. } = &line.cmd {
                if !self.desert_step(line, unit, *v) {
                    return;
                }
            }
            // The Big Push without a named target: the armour overruns the
            // weakest enemy unit it may battle from its new hex (fewest
            // figures, then the lowest unit id), if there is one.
            let next = match named {
                Some(h) => h,
                None => {
                    let Some(a2) = self.st.unit(unit).cloned() else {
                        return;
                    };
                    let mut foes: Vec<&Unit> = self
                        .st
                        .units
                        .iter()
                        .filter(|e| e.side != a2.side && e.at.distance(a2.at) == 1)
                        .filter(|e| target_check(ctx, &self.st, &a2, e.at).is_ok())
                        .collect();
                    foes.sort_by_key(|e| (e.figures, e.id));
                    match foes.first() {
                        Some(e) => e.at,
                        None => return,
                    }
                }
            };
            self.overrun_used.insert(unit);
            let Some(a2) = self.st.unit(unit).cloned() else {
                return;
            };
            if ctx
                .info(&self.st, a2.at)
                .any(|t| t.no_battle_after_entering)
                && !ctx.spec(&a2.kind).battle_after_stop
            {
                self.skip(
                    line,
                    "the overrun ends on terrain where a unit may not battle the turn it enters",
                );
                return;
            }
            // Kriegspiel: a unit the side does not see from its new hex (a
            // camouflaged one beyond close assault) is not on its board: the
            // overrun lapses as at an empty hex, naming nothing of it.
            let check = if self.st.fog.is_some() && !enemy_seen_at(ctx, &self.st, a2.side, next) {
                Err(format!("you see no enemy unit at {next}"))
            } else {
                target_check(ctx, &self.st, &a2, next)
            };
            if let Err(e) = check {
                self.skip(line, &format!("overrun: {e}"));
                return;
            }
            let Some(t2) = self.st.unit_at(next).cloned() else {
                return;
            };
            let r2 = a2.at.distance(next);
            if r2 == 1 && !self.reactions(unit, t2.id, false) {
                self.skip(line, "the overrun attack is cancelled");
                return;
            }
            let extra = self.card_extra(unit, r2);
            let Some(o2) = self.fight(unit, t2.id, "overrun", extra, HitRule::default()) else {
                return;
            };
            if take_ground && r2 == 1 && (o2.eliminated || o2.retreated) {
                self.take_ground(unit, next, false);
            }
        } else if take_ground {
            self.take_ground(unit, target, false);
        }
    }
}
