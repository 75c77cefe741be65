//! Supply Lines & Sieges (Optional) in the house rules, and the Drop-Zone Battle
//! Star that leans on it.
//!
//! "Every Unit needs to be in Supply. Lines Of Supply are traced along Roads
//! and Railway Tracks ... to the players own edge of the Board. Units Line
//! Of Supply continues along the shortest possible route of hexes to the
//! nearest Road or Railway Track." A line is "broken if an enemy Unit is
//! occupying a hex along the Line Of Supply, or the Line Of Supply is in
//! Battle Range of an unconcealed, enemy Armoured or Infantry Unit."
//!
//! The judge looks at a side's supply at the beginning of each of its turns
//! (in a mail game: at the end of the other side's turn, so the report the
//! side reads before writing its orders says it). A unit out of supply for a
//! second turn running is restricted ([`mode`], [`battle_mods`]); from the
//! third it rolls one die, a star losing a figure. The tables are
//! `[supply]` in rulesets/memoir44.toml; docs/rules/memoir44.md has the
//! readings.

use super::battle::Ctx;
use super::board::Hex;
use super::events::{Event, Modifier};
use super::ruleset::{at, Ruleset};
use super::scenario::{file_hex, file_side, Layout};
use super::state::{State, Unit};
use super::turn::Mode;
use super::DataError;
use adjutant_dice::Dice;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use toml::Spanned;

/// The game option: `supply` (both sides), `supply=<side>` (that side
/// only), `supply=false` (not the scenario's).
pub const OPTION: &str = "supply";

/// The Battle Star marker of a Drop-Zone.
pub const DROP_ZONE: &str = "drop-zone";

/// The ruleset's numbers (`[supply]` in rulesets/memoir44.toml).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SupplyRules {
    /// Tiles and obstacles a line is traced along as a road.
    pub roads: Vec<String>,
    /// ... and as railway tracks (a scenario may forbid them to a side).
    pub railways: Vec<String>,
    /// "Units may be Out Of Supply for one turn, after which they experience
    /// problems": the turns without effect.
    pub free_turns: u32,
    /// "Armoured Movement is reduced by one hex".
    pub armour_move_less: u32,
    /// "all Special Infantry Units temporarily become Regular Infantry".
    pub special_infantry_as: String,
    /// "Artillery may not Move at all".
    pub artillery_move: u32,
    /// "All Battle Dice are reduced by 1".
    pub battle_dice_less: u32,
    /// "Third Turn Losses": from this turn out of supply, one die a unit.
    pub loss_from: u32,
    /// "A Green Star means that an Out Of Supply Unit must lose 1 figure".
    pub loss_face: String,
    /// "an unconcealed, enemy Armoured or Infantry Unit": the classes whose
    /// Battle Range breaks a line.
    pub interrupting_classes: Vec<String>,
}

impl Default for SupplyRules {
    fn default() -> Self {
        SupplyRules {
            roads: vec![
                "road".into(),
                "road-rail-crossing".into(),
                "road-over-hill".into(),
                "bridge".into(),
            ],
            railways: vec![
                "railway".into(),
                "railway-bridge".into(),
                "station".into(),
                "road-rail-crossing".into(),
            ],
            free_turns: 1,
            armour_move_less: 1,
            special_infantry_as: "infantry".into(),
            artillery_move: 0,
            battle_dice_less: 1,
            loss_from: 3,
            loss_face: "star".into(),
            interrupting_classes: vec!["armour".into(), "infantry".into()],
        }
    }
}

/// The supply rules in force in a game (`State::supply`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Supply {
    /// The sides whose units must trace lines of supply.
    pub sides: Vec<usize>,
    /// Sides forbidden the railway tracks ("the German player may be
    /// forbidden the use of Railway Tracks in a Barbarossa Scenario").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_railways: Vec<usize>,
    /// Sides forbidden the roads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_roads: Vec<usize>,
    /// Units the scenario excludes from lines of supply ("if the Units
    /// concerned start the game already besieged", an airlift).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exempt: Vec<u32>,
    /// Whole sides so excluded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exempt_sides: Vec<usize>,
    /// (unit, turns): "how many turns these Units have ... before they are
    /// considered Out Of Supply" (Paratroops deep behind enemy lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grace: Vec<(u32, u32)>,
    /// Paratroops and Glider-borne Troops a Drop-Zone supplies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub airborne: Vec<u32>,
    /// Sides whose Drop-Zone the enemy has occupied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones_lost: Vec<usize>,
    /// (unit, turns): the unit began its side's last `turns` turns out of
    /// supply, in id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub out: Vec<(u32, u32)>,
    /// Turns each side has begun under these rules.
    #[serde(default)]
    pub begun: Vec<u32>,
}

/// A scenario's or a case's `[supply]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupplySpec {
    /// The sides that trace lines (default: every side).
    #[serde(default)]
    pub sides: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub no_railways: Vec<Spanned<String>>,
    #[serde(default)]
    pub no_roads: Vec<Spanned<String>>,
    /// Units (by their hex at the start) never out of supply.
    #[serde(default)]
    pub exempt: Vec<Spanned<String>>,
    #[serde(default)]
    pub exempt_sides: Vec<Spanned<String>>,
    /// Units in supply for their side's first `turns` turns.
    #[serde(default)]
    pub grace: Vec<UnitTurns>,
    /// Units a Drop-Zone of their side supplies.
    #[serde(default)]
    pub airborne: Vec<Spanned<String>>,
    /// Units that have already begun `turns` turns out of supply.
    #[serde(default)]
    pub out: Vec<UnitTurns>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitTurns {
    pub at: Spanned<String>,
    pub turns: Spanned<u32>,
}

fn unit_of(r: &Ruleset, st: &State, l: &Layout<'_>, h: &Spanned<String>) -> Result<u32, DataError> {
    let x = file_hex(r, l, h)?;
    st.unit_at(x)
        .map(|u| u.id)
        .ok_or_else(|| at(l.text, l.file, h.span(), format!("there is no unit at {x}")))
}

/// Put a file's `[supply]` in force, with line:column errors.
pub fn place(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    spec: &SupplySpec,
    key: std::ops::Range<usize>,
) -> Result<(), DataError> {
    if !r.options.supply_lines {
        return Err(at(
            l.text,
            l.file,
            key,
            "this ruleset does not play the optional Supply Lines & Sieges rules",
        ));
    }
    let sides = |v: &[Spanned<String>]| -> Result<Vec<usize>, DataError> {
        let mut out = Vec::new();
        for s in v {
            let i = file_side(l, s)?;
            if !out.contains(&i) {
                out.push(i);
            }
        }
        Ok(out)
    };
    let mut s = Supply {
        sides: match &spec.sides {
            Some(v) => sides(v)?,
            None => (0..st.sides.len()).collect(),
        },
        no_railways: sides(&spec.no_railways)?,
        no_roads: sides(&spec.no_roads)?,
        exempt_sides: sides(&spec.exempt_sides)?,
        begun: vec![0; st.sides.len()],
        ..Supply::default()
    };
    for h in &spec.exempt {
        s.exempt.push(unit_of(r, st, l, h)?);
    }
    for h in &spec.airborne {
        s.airborne.push(unit_of(r, st, l, h)?);
    }
    for g in &spec.grace {
        s.grace
            .push((unit_of(r, st, l, &g.at)?, *g.turns.get_ref()));
    }
    for o in &spec.out {
        let id = unit_of(r, st, l, &o.at)?;
        if *o.turns.get_ref() > 0 {
            s.out.push((id, *o.turns.get_ref()));
        }
    }
    s.out.sort_unstable();
    s.exempt.sort_unstable();
    s.airborne.sort_unstable();
    st.supply = Some(s);
    Ok(())
}

/// The game option: `Some(sides)` puts the rules in force for those sides
/// (keeping a scenario's exclusions), `None` takes them out.
pub fn set(r: &Ruleset, st: &mut State, sides: Option<Vec<usize>>) -> Result<(), String> {
    match sides {
        None => st.supply = None,
        Some(v) => {
            if !r.options.supply_lines {
                return Err(
                    "this ruleset does not play the optional Supply Lines & Sieges rules".into(),
                );
            }
            let n = st.sides.len();
            let s = st.supply.get_or_insert_with(|| Supply {
                begun: vec![0; n],
                ..Supply::default()
            });
            s.sides = v;
        }
    }
    Ok(())
}

/// Parse the game option's value into the sides that trace lines (`None`:
/// the rules are off).
pub fn parse_option(st: &State, v: &str) -> Result<Option<Vec<usize>>, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "true" | "yes" | "on" | "all" | "both" => Ok(Some((0..st.sides.len()).collect())),
        "false" | "no" | "off" | "none" => Ok(None),
        s => st.side_index(s).map(|i| Some(vec![i])).ok_or_else(|| {
            format!(
                "'{v}' is not true, false or a side (sides: {})",
                st.sides.join(", ")
            )
        }),
    }
}

/// Turns `id` has begun out of supply (0: in supply).
#[must_use]
pub fn turns_out(st: &State, id: u32) -> u32 {
    st.supply
        .as_ref()
        .and_then(|s| s.out.iter().find(|(u, _)| *u == id))
        .map_or(0, |(_, n)| *n)
}

/// "Second Turn": is the unit under the restrictions this turn?
#[must_use]
pub fn restricted(r: &Ruleset, st: &State, id: u32) -> bool {
    turns_out(st, id) > r.supply.free_turns
}

/// "Armoured Movement is reduced by one hex, all Special Infantry Units
/// temporarily become Regular Infantry, and Artillery may not Move at all."
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &Unit, base: Mode) -> Mode {
    let mut m = base;
    if !restricted(ctx.r, st, u.id) {
        return m;
    }
    let s = &ctx.r.supply;
    let spec = ctx.spec(&u.kind);
    match spec.class.as_str() {
        "armour" => {
            m.max_move = m.max_move.saturating_sub(s.armour_move_less);
            m.move_battle = m.move_battle.saturating_sub(s.armour_move_less);
        }
        "artillery" => {
            m.max_move = m.max_move.min(s.artillery_move);
            m.move_battle = m.move_battle.min(s.artillery_move);
        }
        _ => {
            // A card that gives every infantry unit its own movement
            // (Infantry Assault) gives it to Regular Infantry too: only the
            // unit's own movement becomes Regular Infantry's.
            let own = m.max_move == spec.r#move && m.move_battle == spec.move_and_battle;
            if let Some(reg) = ctx.r.units.get(&s.special_infantry_as) {
                if spec.special && own {
                    m.max_move = m.max_move.min(reg.r#move);
                    m.move_battle = m.move_battle.min(reg.move_and_battle);
                }
            }
        }
    }
    m
}

/// "All Battle Dice are reduced by 1."
#[must_use]
pub fn battle_mods(r: &Ruleset, st: &State, attacker: u32) -> Option<Modifier> {
    restricted(r, st, attacker).then(|| Modifier {
        dice: -(r.supply.battle_dice_less as i32),
        reason: "out of supply".into(),
    })
}

/// The hexes a side's lines may run along, connected to its own edge, and
/// those from which an uninterrupted road leads there.
struct Lines {
    edge: i32,
    net: BTreeSet<Hex>,
    good: BTreeSet<Hex>,
    bad: BTreeSet<Hex>,
}

fn carries(r: &Ruleset, s: &Supply, st: &State, side: usize, h: Hex) -> bool {
    st.features(h).iter().any(|f| {
        (!s.no_roads.contains(&side) && r.supply.roads.contains(f))
            || (!s.no_railways.contains(&side) && r.supply.railways.contains(f))
    })
}

/// The farthest range at which a unit type rolls a die.
fn battle_range(ctx: &Ctx<'_>, u: &Unit) -> u32 {
    let spec = ctx.spec(&u.kind);
    let far = |d: &[u32]| d.iter().rposition(|n| *n > 0).map_or(0, |i| i as u32 + 1);
    far(&spec.dice).max(spec.dice_vs_armour.as_deref().map_or(0, far))
}

fn lines(ctx: &Ctx<'_>, s: &Supply, st: &State, side: usize) -> Lines {
    let board = &ctx.board;
    let edge = if side == 0 { 0 } else { board.rows - 1 };
    let all: BTreeSet<Hex> = board
        .hexes()
        .into_iter()
        .filter(|h| carries(ctx.r, s, st, side, *h))
        .collect();
    // "A Line Of Supply is broken if an enemy Unit is occupying a hex along
    // the Line Of Supply, or the Line Of Supply is in Battle Range of an
    // unconcealed, enemy Armoured or Infantry Unit."
    let reach: Vec<(Hex, u32)> = st
        .units
        .iter()
        .filter(|u| u.side != side && !u.concealed)
        .filter(|u| {
            ctx.r
                .supply
                .interrupting_classes
                .contains(&ctx.spec(&u.kind).class)
        })
        .map(|u| (u.at, battle_range(ctx, u)))
        .collect();
    let bad: BTreeSet<Hex> = board
        .hexes()
        .into_iter()
        .filter(|h| {
            st.unit_at(*h).is_some_and(|u| u.side != side)
                || reach.iter().any(|(a, n)| a.distance(*h) <= *n)
        })
        .collect();
    let spread = |start: Vec<Hex>, ok: &dyn Fn(Hex) -> bool| {
        let mut seen: BTreeSet<Hex> = start.iter().copied().collect();
        let mut todo = start;
        while let Some(h) = todo.pop() {
            for n in h.neighbours() {
                if all.contains(&n) && ok(n) && seen.insert(n) {
                    todo.push(n);
                }
            }
        }
        seen
    };
    let edge_hexes = |ok: &dyn Fn(Hex) -> bool| -> Vec<Hex> {
        all.iter()
            .copied()
            .filter(|h| h.row == edge && ok(*h))
            .collect()
    };
    let net = spread(edge_hexes(&|_| true), &|_| true);
    let good = spread(edge_hexes(&|h| !bad.contains(&h)), &|h| !bad.contains(&h));
    Lines {
        edge,
        net,
        good,
        bad,
    }
}

fn traced_with(li: &Lines, at: Hex) -> bool {
    // The unit's own hex is where its line starts: "Every Unit forward of
    // the point of interruption" is out of supply, so the point lies behind
    // the unit.
    if li.net.contains(&at) {
        return at.row == li.edge || at.neighbours().iter().any(|n| li.good.contains(n));
    }
    // "the shortest possible route of hexes to the nearest Road or Railway
    // Track": any shortest route to any of the nearest such hexes will do.
    let Some(d) = li.net.iter().map(|h| h.distance(at)).min() else {
        return false;
    };
    let targets: Vec<Hex> = li
        .net
        .iter()
        .copied()
        .filter(|h| h.distance(at) == d)
        .collect();
    let mut front: BTreeSet<Hex> = [at].into_iter().collect();
    for k in 1..=d {
        let left = d - k;
        let mut next = BTreeSet::new();
        for h in &front {
            for n in h.neighbours() {
                if !li.bad.contains(&n) && targets.iter().any(|t| t.distance(n) == left) {
                    next.insert(n);
                }
            }
        }
        front = next;
    }
    front.iter().any(|h| li.good.contains(h))
}

/// Can the unit on `at` trace an uninterrupted line of supply now?
#[must_use]
pub fn traced(ctx: &Ctx<'_>, st: &State, side: usize, at: Hex) -> bool {
    let Some(s) = &st.supply else {
        return true;
    };
    traced_with(&lines(ctx, s, st, side), at)
}

/// Is the unit in supply, all the scenario's exclusions counted?
fn supplied(st: &State, s: &Supply, li: &Lines, u: &Unit) -> bool {
    if !s.sides.contains(&u.side) || s.exempt.contains(&u.id) || s.exempt_sides.contains(&u.side) {
        return true;
    }
    let begun = s.begun.get(u.side).copied().unwrap_or(0);
    if s.grace.iter().any(|(id, n)| *id == u.id && begun <= *n) {
        return true;
    }
    if s.airborne.contains(&u.id) {
        // Drop-Zone: "This is the supply-base for all associated Paratroops
        // and Glider-borne Troops. The loss of their Drop-Zone through enemy
        // occupation means that these Units are now Out Of Supply".
        if s.zones_lost.contains(&u.side) {
            return false;
        }
        if st
            .stars
            .iter()
            .any(|z| z.kind == DROP_ZONE && z.side == Some(u.side))
        {
            return true;
        }
    }
    traced_with(li, u.at)
}

/// The units of `side` out of supply now (ids in order).
#[must_use]
pub fn cut_off(ctx: &Ctx<'_>, st: &State, side: usize) -> Vec<u32> {
    let Some(s) = &st.supply else {
        return Vec::new();
    };
    let li = lines(ctx, s, st, side);
    st.units
        .iter()
        .filter(|u| u.side == side && !supplied(st, s, &li, u))
        .map(|u| u.id)
        .collect()
}

/// The beginning of `side`'s turn: count each unit's turns out of supply
/// and, from the third, roll for losses. `dice` is None before the game's
/// first turn (no roll is due then). Returns true when a medal was won.
pub fn begin_turn(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    side: usize,
    dice: Option<&mut dyn Dice>,
) -> bool {
    let Some(mut s) = st.supply.take() else {
        return false;
    };
    if s.begun.len() < st.sides.len() {
        s.begun.resize(st.sides.len(), 0);
    }
    s.begun[side] += 1;
    let li = lines(ctx, &s, st, side);
    let mut out = Vec::new();
    let mut restored = Vec::new();
    let mut next: Vec<(u32, u32)> = s
        .out
        .iter()
        .copied()
        .filter(|(id, _)| st.unit(*id).is_some_and(|u| u.side != side))
        .collect();
    for u in st.units.iter().filter(|u| u.side == side) {
        let before = s.out.iter().find(|(id, _)| *id == u.id).map_or(0, |x| x.1);
        if supplied(st, &s, &li, u) {
            if before > 0 {
                restored.push(u.at);
            }
        } else {
            next.push((u.id, before + 1));
            out.push((u.at, before + 1));
        }
    }
    next.sort_unstable();
    s.out = next;
    st.supply = Some(s);
    if !out.is_empty() || !restored.is_empty() {
        ev.push(Event::Supply {
            side: st.sides[side].clone(),
            out,
            restored,
        });
    }
    let Some(dice) = dice else {
        return false;
    };
    // "Third Turn Losses - Roll one Battle Dice at the beginning of the
    // players turn for each Unit. A Green Star means that an Out Of Supply
    // Unit must lose 1 figure/model."
    let due: Vec<u32> = st
        .supply
        .iter()
        .flat_map(|s| s.out.iter())
        .filter(|(id, n)| {
            *n >= ctx.r.supply.loss_from && st.unit(*id).is_some_and(|u| u.side == side)
        })
        .map(|(id, _)| *id)
        .collect();
    let enemy = State::other(side);
    let medals = st.medals(enemy);
    let since = ev.len();
    let mut any_lost = false;
    for id in due {
        let Some(u) = st.unit(id).cloned() else {
            continue;
        };
        let face = ctx.r.face(dice.roll(6));
        let lost = face == ctx.r.supply.loss_face;
        ev.push(Event::SupplyRoll {
            side: st.sides[side].clone(),
            unit: u.kind.clone(),
            at: u.at,
            faces: vec![face],
            lost,
        });
        if lost {
            any_lost = true;
            super::battle::lose(ctx, st, ev, id, 1, enemy, "out of supply", "supply");
        }
    }
    if any_lost {
        // A Heroic Leader whose unit fell, equipment its carriers dropped.
        super::stars::after_step(ctx, st, ev, since, dice);
        super::variants::exterminate::after_step(ctx, st, ev);
    }
    if let Some(s) = st.supply.as_mut() {
        s.out.retain(|(id, _)| st.units.iter().any(|u| u.id == *id));
    }
    st.medals(enemy) > medals
}

/// Set a game's opening: the first side's units begin its first turn in or
/// out of supply (a scenario's own `out` turns stand).
pub fn start(r: &Ruleset, st: &mut State) {
    if st.supply.is_none() || st.over {
        return;
    }
    let ctx = Ctx::new(r);
    let side = st.to_move;
    let units: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == side)
        .map(|u| u.id)
        .collect();
    if let Some(s) = st.supply.as_mut() {
        if s.begun.get(side).copied().unwrap_or(0) > 0 {
            // Counted already (before the airdrop): count the opening again.
            s.begun[side] -= 1;
            s.out.retain(|(id, n)| *n > 1 || !units.contains(id));
            for x in &mut s.out {
                if units.contains(&x.0) {
                    x.1 -= 1;
                }
            }
        }
    }
    let mut ev = Vec::new();
    begin_turn(&ctx, st, &mut ev, side, None);
}

/// After each order: "The loss of their Drop-Zone through enemy
/// occupation". An enemy unit standing on it takes the marker for good.
pub fn after_step(st: &mut State, ev: &mut Vec<Event>) {
    let lost: Vec<(usize, Hex)> = st
        .stars
        .iter()
        .filter(|z| z.kind == DROP_ZONE)
        .filter_map(|z| {
            let side = z.side?;
            st.unit_at(z.at)
                .is_some_and(|u| u.side != side)
                .then_some((side, z.at))
        })
        .collect();
    for (side, h) in lost {
        st.stars
            .retain(|z| !(z.kind == DROP_ZONE && z.side == Some(side) && z.at == h));
        if let Some(s) = st.supply.as_mut() {
            if !s.zones_lost.contains(&side) {
                s.zones_lost.push(side);
            }
        }
        ev.push(Event::DropZoneLost {
            side: st.sides[side].clone(),
            at: h,
        });
    }
}

/// After the airdrop phase: the units that landed are the Paratroops a
/// Drop-Zone of their side supplies.
pub fn landed(r: &Ruleset, before: &State, st: &mut State) {
    let zone_sides: Vec<usize> = st
        .stars
        .iter()
        .filter(|z| z.kind == DROP_ZONE)
        .filter_map(|z| z.side)
        .collect();
    let new: Vec<u32> = st
        .units
        .iter()
        .filter(|u| before.unit(u.id).is_none() && zone_sides.contains(&u.side))
        .map(|u| u.id)
        .collect();
    if let Some(s) = st.supply.as_mut() {
        s.airborne.extend(new);
        s.airborne.sort_unstable();
        s.airborne.dedup();
    }
    start(r, st);
}

/// The line the reports print: the viewer's units out of supply (the
/// referee's: every side's).
#[must_use]
pub fn status(r: &Ruleset, st: &State, viewer: &super::Viewer) -> Option<String> {
    let s = st.supply.as_ref()?;
    let fog = super::fog::fogged_side(st, viewer);
    let mut parts = Vec::new();
    for (side, id) in st.sides.iter().enumerate() {
        let mine = match viewer {
            super::Viewer::Side(v) => v == id,
            super::Viewer::Referee => true,
            _ => fog.is_none(),
        };
        if !mine || !s.sides.contains(&side) {
            continue;
        }
        let units: Vec<String> = s
            .out
            .iter()
            .filter_map(|(uid, n)| {
                let u = st.unit(*uid).filter(|u| u.side == side)?;
                let name = r.units.get(&u.kind).map_or(u.kind.as_str(), |x| &x.name);
                let what = if *n >= r.supply.loss_from {
                    "restricted, rolls for losses"
                } else if *n > r.supply.free_turns {
                    "restricted"
                } else {
                    "no effect yet"
                };
                Some(format!("{} {name} (turn {n}: {what})", u.at))
            })
            .collect();
        let name = st.side_names.get(side).unwrap_or(id);
        parts.push(if units.is_empty() {
            format!("{name}: every unit in supply")
        } else {
            format!("{name} out of supply: {}", units.join(", "))
        });
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("Supply: {}.", parts.join("; ")))
}

/// The report's sentence for a supply event.
#[must_use]
pub fn describe_event(e: &Event, side_name: &dyn Fn(&str) -> String) -> Option<String> {
    Some(match e {
        Event::Supply {
            side,
            out,
            restored,
        } => {
            let mut t = String::new();
            if !out.is_empty() {
                let l: Vec<String> = out.iter().map(|(h, n)| format!("{h} (turn {n})")).collect();
                t = format!("{} units out of supply: {}.", side_name(side), l.join(", "));
            }
            if !restored.is_empty() {
                let l: Vec<String> = restored.iter().map(Hex::to_string).collect();
                if !t.is_empty() {
                    t.push(' ');
                }
                t.push_str(&format!(
                    "{} units back in supply: {}.",
                    side_name(side),
                    l.join(", ")
                ));
            }
            t
        }
        Event::SupplyRoll {
            side,
            unit,
            at,
            faces,
            lost,
        } => format!(
            "{} {unit} at {at}, out of supply, rolls [{}]: {}.",
            side_name(side),
            faces.join(" "),
            if *lost {
                "it loses a figure"
            } else {
                "no loss"
            }
        ),
        Event::DropZoneLost { side, at } => format!(
            "The enemy occupies the {} Drop-Zone at {at}: its Paratroops are out of supply.",
            side_name(side)
        ),
        _ => return None,
    })
}

/// Supply Lines & Sieges on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(&self, ctx: &Ctx<'_>, st: &State, u: &Unit, m: Mode, _: Option<&[Hex]>) -> Mode {
        // A unit out of supply a second turn.
        mode(ctx, st, u, m)
    }

    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, _: usize) {
        after_step(p.st, p.ev);
    }
}
