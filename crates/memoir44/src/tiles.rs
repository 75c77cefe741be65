//! Appendix 2, tiles from expansion sets: the procedures behind the terrain
//! flags of `rulesets/memoir44.toml` that the main rules' tiles do not use
//! (stops by class, flags ignored by class, road movement, armour barred on
//! flooded fields and marshes, the fortress, tiles destroyed by fire, lakes).
//! The tables themselves are data; each function here reads them.

use super::battle::{lose, Ctx};
use super::board::{line_hexes, Hex};
use super::events::Event;
use super::ruleset::{Ruleset, TerrainSpec};
use super::state::{HexInfo, State};
use adjutant_dice::Dice;

/// Must a unit moving by the rules of `class` stop on entering a hex with
/// this tile or obstacle? ("An Armour Unit must stop when it Moves onto a
/// Railway Bridge hex.")
#[must_use]
pub fn stops(t: &TerrainSpec, class: &str) -> bool {
    t.stop || t.stop_classes.iter().any(|c| c == class)
}

/// Does the terrain let a unit of `class` ignore the first flag? ("An
/// Infantry Unit on a City Ruins hex may ignore the first Purple Flag.")
#[must_use]
pub fn ignores_first_flag(t: &TerrainSpec, class: &str) -> bool {
    if !t.ignore_first_flag_classes.is_empty() {
        return t.ignore_first_flag_classes.iter().any(|c| c == class);
    }
    t.ignore_first_flag
}

/// Does the terrain's battle-dice reduction protect a unit of `class`?
/// ("A Roadblock reduces ... when an occupying Infantry Unit is attacked.")
#[must_use]
pub fn protects(t: &TerrainSpec, class: &str) -> bool {
    t.protect_only_for.is_empty() || t.protect_only_for.iter().any(|c| c == class)
}

/// The hexes of a move that count against the unit's movement: a move spent
/// wholly on road hexes (its start included) may be one hex longer, and the
/// extra hex does not count ("A Unit that has spent its entire Move on a
/// Road, may Move 1 additional hex along the Road").
#[must_use]
pub fn counted_distance(ctx: &Ctx<'_>, st: &State, path: &[Hex]) -> u32 {
    let dist = path.len().saturating_sub(1) as u32;
    let all_road = path.len() >= 3 && path.iter().all(|h| ctx.info(st, *h).any(|t| t.road));
    if all_road {
        dist - 1
    } else {
        dist
    }
}

/// May a unit of `class` not battle after moving from `start` to `end`
/// ("Armour may not Battle when Moving onto, or out of, a Flooded Field")?
#[must_use]
pub fn barred_on_or_off(ctx: &Ctx<'_>, st: &State, class: &str, start: Hex, end: Hex) -> bool {
    if start == end {
        return false;
    }
    let hit = |h: Hex| {
        ctx.info(st, h)
            .any(|t| t.no_battle_moving_on_or_off.iter().any(|c| c == class))
    };
    hit(start) || hit(end)
}

/// Does the line from `a` to `b` sight across two adjacent hexes that block
/// only in pairs ("One Lake hex does not block Line Of Sight. Sighting across
/// two or more adjacent Lake hexes does block Line Of Sight.")?
#[must_use]
pub fn pair_blocks(ctx: &Ctx<'_>, st: &State, a: Hex, b: Hex) -> bool {
    let lakes: Vec<Hex> = line_hexes(&ctx.board, a, b)
        .into_iter()
        .map(|(h, _)| h)
        .filter(|h| ctx.info(st, *h).any(|t| t.blocks_los_in_pairs))
        .collect();
    lakes
        .iter()
        .any(|x| lakes.iter().any(|y| x != y && x.adjacent(*y)))
}

/// Hits on a unit standing where only some attackers and faces can hit it
/// ("Units in Fortress hexes are Hit by Artillery Units rolling a Green Star
/// only"). `None`: the terrain does not limit hits.
#[must_use]
pub fn limited_hits(
    ctx: &Ctx<'_>,
    st: &State,
    att_class: &str,
    at: Hex,
    faces: &[String],
) -> Option<u32> {
    let info = ctx.info(st, at);
    let t = info
        .specs
        .iter()
        .map(|(_, t)| *t)
        .find(|t| !t.hit_only_by.is_empty())?;
    let ok = t.hit_only_by.get(att_class);
    Some(
        faces
            .iter()
            .filter(|f| ok.is_some_and(|o| o.contains(f)))
            .count() as u32,
    )
}

/// Does the terrain make every flag against the unit ignored (Fortress)?
#[must_use]
pub fn ignores_all_flags(info: &HexInfo<'_>) -> bool {
    info.any(|t| t.ignore_all_flags)
}

/// A battle by a unit of `att_class` against the unit on `at`: tiles that
/// such fire destroys are replaced ("Russian Wooden Villages are removed from
/// play if subjected to Artillery fire"; "Armour and Artillery fire will
/// destroy a Radar Station and reduce it to City Ruins").
pub fn fire_on_hex(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, att_class: &str, at: Hex) {
    let Some(fs) = st.terrain.get_mut(&at) else {
        return;
    };
    let mut changed = Vec::new();
    for f in fs.iter_mut() {
        let Some(t) = ctx.r.feature(f) else {
            continue;
        };
        if t.destroyed_by_fire.iter().any(|c| c == att_class) {
            let becomes = t.destroyed_becomes.clone().unwrap_or_else(|| "open".into());
            changed.push((f.clone(), becomes.clone()));
            *f = becomes;
        }
    }
    for (tile, becomes) in changed {
        ev.push(Event::TileDestroyed { at, tile, becomes });
    }
}

/// Does any of `features` fix artillery that starts the game on it?
#[must_use]
pub fn fixes_artillery(r: &Ruleset, features: &[String]) -> bool {
    features
        .iter()
        .any(|f| f == "bunker" || r.feature(f).is_some_and(|t| t.fixes_artillery))
}

/// May armour that took ground onto `h` go on to an Armour Overrun?
#[must_use]
pub fn overrun_allowed(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    !ctx.info(st, h).any(|t| t.no_overrun)
}

fn walled(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    ctx.board.contains(h) && ctx.info(st, h).any(|t| t.walled)
}

/// The open ends of a walled hex (Wadi). The channel is the run of adjacent
/// wadi hexes: moving between two of them is moving along it. A wadi hex
/// with one wadi neighbour is an end, open on the side opposite that
/// neighbour; a lone wadi hex is open on its left and right (along the row);
/// a wadi hex inside the run has no open end (docs/rules/memoir44.md).
#[must_use]
pub fn open_ends(ctx: &Ctx<'_>, st: &State, w: Hex) -> Vec<Hex> {
    let ns = w.neighbours();
    let channel: Vec<usize> = (0..6).filter(|i| walled(ctx, st, ns[*i])).collect();
    match channel.as_slice() {
        [] => vec![ns[0], ns[3]],
        [i] => vec![ns[(i + 3) % 6]],
        _ => Vec::new(),
    }
}

/// May a unit of movement class `class` step from `from` to the adjacent
/// `to`? Why not, if it may not: a wadi's wall ("The side slopes of a Wadi
/// are impassable, both up from the Wadi hex or down into it. Moving along a
/// Wadi is allowed. But crossing its walls is impossible.") or a mountain's
/// slopes (`mountain_step`).
#[must_use]
pub fn step_refusal(ctx: &Ctx<'_>, st: &State, class: &str, from: Hex, to: Hex) -> Option<String> {
    let (wf, wt) = (walled(ctx, st, from), walled(ctx, st, to));
    let ok = match (wf, wt) {
        (false, false) | (true, true) => true,
        (true, false) => open_ends(ctx, st, from).contains(&to),
        (false, true) => open_ends(ctx, st, to).contains(&from),
    };
    if !ok {
        return Some(format!(
            "{from} to {to} crosses the wall of a wadi: units move into and out of a wadi only through its open ends"
        ));
    }
    mountain_step(ctx, st, class, from, to)
}

/// `step_refusal` as a yes or no.
#[must_use]
pub fn step_allowed(ctx: &Ctx<'_>, st: &State, class: &str, from: Hex, to: Hex) -> bool {
    step_refusal(ctx, st, class, from, to).is_none()
}

/// Is `h` a mountain hex (Appendix 2, Landmarks, Mountains)?
#[must_use]
pub fn is_mountain(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    ctx.board.contains(h) && ctx.info(st, h).any(|t| t.mountain)
}

/// The height of a hex: 2 on a mountain, 1 on a hill, 0 elsewhere.
#[must_use]
pub fn height(ctx: &Ctx<'_>, st: &State, h: Hex) -> u32 {
    if is_mountain(ctx, st, h) {
        2
    } else if ctx.info(st, h).is_hill() {
        1
    } else {
        0
    }
}

/// Mountains: "Only Infantry may Move up from a Hill onto an adjacent
/// Mountain hex, or down from a Mountain onto an adjacent Hill hex. Infantry
/// may also Move from a Mountain hex onto an adjacent Mountain hex. Movement
/// is not possible from other Tiles or an Open Countryside hex." Moves,
/// retreats and Take Ground alike; `class` is the unit's movement class.
#[must_use]
pub fn mountain_step(ctx: &Ctx<'_>, st: &State, class: &str, from: Hex, to: Hex) -> Option<String> {
    let (mf, mt) = (is_mountain(ctx, st, from), is_mountain(ctx, st, to));
    if !mf && !mt {
        return None;
    }
    if class != "infantry" {
        return Some(format!(
            "{from} to {to}: only infantry may move onto or off a mountain"
        ));
    }
    let other = if mf { to } else { from };
    if height(ctx, st, other) == 0 {
        return Some(if mt {
            format!(
                "{from} to {to}: a mountain may be climbed only from a hill or another mountain"
            )
        } else {
            format!("{from} to {to}: a unit comes down from a mountain only onto a hill or another mountain")
        });
    }
    None
}

/// The mountain hexes connected to `h` (the one mountain it is part of).
#[must_use]
pub fn mountain_of(ctx: &Ctx<'_>, st: &State, h: Hex) -> std::collections::BTreeSet<Hex> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![h];
    while let Some(x) = todo.pop() {
        if !is_mountain(ctx, st, x) || !seen.insert(x) {
            continue;
        }
        todo.extend(x.neighbours());
    }
    seen
}

/// Mountains: "Infantry and Armour reduce the number of Battle Dice by 2
/// when Battling an enemy Unit that is up a Mountain ... There are no Battle
/// Dice reductions when Battling an enemy Unit at the same height as your
/// Unit, unless the target Unit is on an unconnected Mountain hex." Does a
/// mountain's protection of `target` count against a unit on `from`?
#[must_use]
pub fn mountain_protects(ctx: &Ctx<'_>, st: &State, from: Hex, target: Hex) -> bool {
    !(is_mountain(ctx, st, from) && mountain_of(ctx, st, target).contains(&from))
}

/// Mountains: "An ordered Artillery Unit, permanently in position on a
/// Mountain hex, may target any enemy Unit with a Battle Range of 7 or fewer
/// hexes. It Battles at 3, 3, 2, 2, 1, 1, 1." The dice table of an
/// artillery-class unit on `at`, when the terrain gives one.
#[must_use]
pub fn artillery_table<'a>(ctx: &Ctx<'a>, st: &State, class: &str, at: Hex) -> Option<&'a [u32]> {
    if class != "artillery" {
        return None;
    }
    ctx.info(st, at)
        .specs
        .iter()
        .map(|(_, t)| *t)
        .find(|t| !t.artillery_dice.is_empty())
        .map(|t| t.artillery_dice.as_slice())
}

/// Why a unit of `class` may not battle from `from` to `to` at range ("Infantry
/// or Armour Battling into or out of a Wadi must be in Close Assault").
#[must_use]
pub fn close_only(ctx: &Ctx<'_>, st: &State, class: &str, from: Hex, to: Hex) -> Option<String> {
    if from.distance(to) <= 1 {
        return None;
    }
    let bars = |h: Hex| {
        ctx.info(st, h)
            .specs
            .iter()
            .find(|(_, t)| t.close_only_into_or_out.iter().any(|c| c == class))
            .map(|(_, t)| t.name.clone())
    };
    let (a, b) = (bars(from), bars(to));
    if a.is_some() && b.is_some() {
        // Both in the wadi: battling along it, neither into nor out of it.
        return None;
    }
    a.or(b).map(|name| {
        format!(
            "infantry or armour battling into or out of a {} must be in close assault",
            name.to_lowercase()
        )
    })
}

/// Are the North African Desert Rules in play (the scenario's `desert`, or
/// the game option `north-african-desert`)?
#[must_use]
pub fn desert_rules(st: &State) -> bool {
    st.variants.iter().any(|v| v == DESERT)
}

/// The game option (a `[variants]` entry of the ruleset) of the North
/// African Desert Rules.
pub const DESERT: &str = "north-african-desert";

/// A unit moved or retreated onto `hexes` (in order): on each hex that
/// tests the ground ("Roll two Battle Dice whenever a Unit Moves or Retreats
/// onto a Frozen River hex. For each Green Star rolled, 1 figure or model is
/// lost"), roll and take the losses (no medal: the ice took them).
pub fn entered(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    unit: u32,
    hexes: &[Hex],
) {
    for h in hexes {
        let Some(u) = st.unit(unit).cloned() else {
            return;
        };
        let info = ctx.info(st, *h);
        let Some(t) = info
            .specs
            .iter()
            .map(|(_, t)| *t)
            .find(|t| t.entry_dice > 0)
        else {
            continue;
        };
        let (n, face) = (t.entry_dice, t.entry_loss_face.clone().unwrap_or_default());
        let faces: Vec<String> = (0..n).map(|_| ctx.r.face(dice.roll(6))).collect();
        let lost = faces.iter().filter(|f| **f == face).count() as u32;
        ev.push(Event::IceRoll {
            side: st.sides[u.side].clone(),
            unit: u.kind.clone(),
            at: *h,
            faces,
            lost,
        });
        if lost > 0 && lose(ctx, st, ev, unit, lost, u.side, "the ice broke", "ice") {
            return;
        }
    }
}

/// The terrain tiles on the turn's hooks (turn/hooks.rs): a frozen river
/// tests the ice.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn entered(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        e: &crate::turn::hooks::Entered<'_>,
    ) {
        entered(p.ctx, p.st, p.ev, p.dice, e.unit, e.path);
    }
}
