//! Movement checks, line of sight, battle dice, hits, retreats.

#![allow(clippy::too_many_arguments)]

mod fight;

use super::board::{line_of_sight, Board, Hex};
use super::events::{Event, Modifier};
use super::ruleset::{Ruleset, UnitSpec};
use super::state::{HexInfo, State, Unit};
use adjutant_dice::Dice;
use std::collections::BTreeSet;

/// The extra die's reason for a unit the Close Assault card orders.
pub const CLOSE_ASSAULT: &str = "Close Assault";

/// The ruleset and board, with a fallback unit spec for unreadable kinds.
pub struct Ctx<'a> {
    pub r: &'a Ruleset,
    pub board: Board,
    fallback: UnitSpec,
}

impl<'a> Ctx<'a> {
    #[must_use]
    pub fn new(r: &'a Ruleset) -> Ctx<'a> {
        let fallback = r.units.get("infantry").cloned().unwrap_or(UnitSpec {
            name: "unit".into(),
            letter: None,
            class: "infantry".into(),
            figures: 1,
            r#move: 0,
            move_and_battle: 0,
            dice: vec![1],
            dice_vs_armour: None,
            targets: vec![],
            close_only_vs_armour: false,
            armour_penalty: 0,
            indirect: false,
            ignores_grenades: false,
            ignores_first_flag: false,
            charge: false,
            take_ground: false,
            overrun: false,
            medal: true,
            special: false,
            star_is_flag_vs_armour: false,
            cross_hairs: false,
            move_only_on: vec![],
            move_class: None,
            battle_after_stop: false,
            hit_only_by: vec![],
            hits_on: vec![],
            flag_losses: true,
            retreat_up_to: None,
            ignores_terrain_dice: false,
            close_assault_ignores_terrain: false,
            engineer: false,
            one_per_side: false,
            support: Default::default(),
            variant: Default::default(),
        });
        Ctx {
            r,
            board: State::board(r),
            fallback,
        }
    }
    #[must_use]
    pub fn spec(&self, kind: &str) -> &UnitSpec {
        self.r.units.get(kind).unwrap_or(&self.fallback)
    }
    #[must_use]
    pub fn info(&self, st: &State, h: Hex) -> HexInfo<'a> {
        HexInfo::of(self.r, st, h)
    }
}

/// How a unit may move this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRule {
    pub max: u32,
    pub ignore_terrain: bool,
}

/// A checked path: its length and whether the unit may still battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathInfo {
    pub dist: u32,
    pub barred_from_battle: bool,
}

/// Can `spec` stand on `h` by its movement rules (passable, only-enter,
/// move-only-on)?
#[must_use]
pub fn may_enter(ctx: &Ctx<'_>, st: &State, spec: &UnitSpec, h: Hex) -> bool {
    if !ctx.board.contains(h) {
        return false;
    }
    let info = ctx.info(st, h);
    if !info.passable(spec) {
        return false;
    }
    if !spec.move_only_on.is_empty() && !spec.move_only_on.iter().any(|t| t == info.tile()) {
        return false;
    }
    true
}

/// Check a movement path hex by hex. `path[0]` is the unit's hex.
pub fn check_path(
    ctx: &Ctx<'_>,
    st: &State,
    unit: &Unit,
    path: &[Hex],
    rule: MoveRule,
) -> Result<PathInfo, String> {
    // Appendix 2: a train moves along the tracks (trains.rs).
    if unit.train.is_some() {
        return super::trains::check_move(ctx, st, unit, path, rule.max);
    }
    let spec = ctx.spec(&unit.kind);
    let Some((&start, rest)) = path.split_first() else {
        return Err("empty path".into());
    };
    if start != unit.at {
        return Err(format!("the unit is at {}, not {start}", unit.at));
    }
    if unit.fixed {
        return Err("artillery that starts the game in a bunker may not move".into());
    }
    let dist = if rule.ignore_terrain {
        rest.len() as u32
    } else {
        super::tiles::counted_distance(ctx, st, path)
    };
    if dist > rule.max {
        return Err(format!(
            "this unit may move at most {} hex(es) this turn; the path has {dist}",
            rule.max
        ));
    }
    let start_info = ctx.info(st, start);
    if !rule.ignore_terrain {
        for (k, t) in &start_info.specs {
            if let Some(m) = t.max_move_leaving {
                if dist > m {
                    return Err(format!(
                        "a unit leaving {} may move only {m} hex(es)",
                        ctx.r.feature(k).map_or(*k, |f| f.name.as_str())
                    ));
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    seen.insert(start);
    let mut prev = start;
    let mut barred = false;
    for (i, &h) in rest.iter().enumerate() {
        if !prev.adjacent(h) {
            return Err(format!(
                "{h} is not next to {prev}: write the path hex by hex"
            ));
        }
        if !seen.insert(h) {
            return Err(format!("the path enters {h} twice"));
        }
        if let Some(o) = st.unit_at(h) {
            // "War Of The Worlds": "Martian Units may pass through each
            // others hexes but may not end their Movement in the same hex."
            let through =
                i + 1 < rest.len() && super::variants::worlds::passes_through(ctx, st, unit, o);
            if o.id != unit.id && !through {
                if super::variants::worlds::passes_through(ctx, st, unit, o) {
                    return Err(format!(
                        "{h} holds a Martian unit: Martian units may pass through each other's hexes but may not end their move in the same hex"
                    ));
                }
                return Err(format!(
                    "{h} holds a unit: no unit may move onto or through another"
                ));
            }
        }
        // Suggested Variants: a wadi's wall (or a mountain's slope) is a
        // terrain limitation too.
        if !spec.variant.terrain_free {
            if let Some(why) = super::tiles::step_refusal(ctx, st, spec.movement_class(), prev, h) {
                return Err(why);
            }
        }
        let info = ctx.info(st, h);
        // Collapsible Assault Boats: "A Unit with Assault Boats may enter a
        // River hex. A Unit entering a River hex must stop and may Move no
        // further on that turn."
        let boats = super::stars::boats_enter(ctx, st, unit.id, h);
        if boats && i + 1 != rest.len() {
            return Err(format!(
                "a unit entering the river at {h} in its assault boats must stop there"
            ));
        }
        if !info.passable(spec) && !boats {
            return Err(format!(
                "{spec_name} may not enter {h} ({})",
                describe_hex(ctx, st, h),
                spec_name = spec.name
            ));
        }
        if !spec.move_only_on.is_empty() && !spec.move_only_on.iter().any(|t| t == info.tile()) {
            return Err(format!(
                "{} moves only on {}",
                spec.name,
                spec.move_only_on.join(", ")
            ));
        }
        let last = i + 1 == rest.len();
        // Minefields: "A Unit must stop, and may not Move any further on
        // that turn, when entering a Minefield" (friendly or enemy).
        if !last && !spec.variant.ignores_mines && super::mines::at(st, h).is_some() {
            return Err(format!(
                "a unit entering the minefield at {h} must stop there"
            ));
        }
        if !rule.ignore_terrain {
            for (k, t) in &info.specs {
                if super::tiles::stops(t, spec.movement_class()) && !last {
                    return Err(format!(
                        "a unit entering {} at {h} must stop there",
                        ctx.r.feature(k).map_or(*k, |f| f.name.as_str())
                    ));
                }
                if t.enter_from_adjacent_start && i != 0 {
                    return Err(format!(
                        "a unit must start its move next to the {} at {h} to enter it",
                        t.name.to_lowercase()
                    ));
                }
                if let Some(m) = t.max_move_entering {
                    if dist > m {
                        return Err(format!(
                            "a unit that moves onto {} may only move {m} hexes",
                            t.name
                        ));
                    }
                }
            }
        }
        barred |= last && barred_on_arrival(ctx, st, spec, &info, (start, h));
        prev = h;
    }
    Ok(PathInfo {
        dist,
        barred_from_battle: barred,
    })
}

/// May a unit not battle after a move from `start` that ends on `h`? "A
/// Unit may not Battle the turn it Moves onto" woods, a town, a hedgerow...
/// sits under Battle, not Movement: Behind Enemy Lines, which lifts the
/// movement limits only, still obeys it. A variant's terrain-free unit
/// ("Movement and Battle are not effected by any Terrain limitations") does
/// not.
fn barred_on_arrival(
    ctx: &Ctx<'_>,
    st: &State,
    spec: &UnitSpec,
    info: &HexInfo<'_>,
    (start, h): (Hex, Hex),
) -> bool {
    !spec.variant.terrain_free
        && ((info.any(|t| t.no_battle_after_entering) && !spec.battle_after_stop)
            || super::tiles::barred_on_or_off(ctx, st, spec.movement_class(), start, h))
}

#[must_use]
pub fn describe_hex(ctx: &Ctx<'_>, st: &State, h: Hex) -> String {
    let f = st.features(h);
    if f.is_empty() {
        return "open".into();
    }
    f.iter()
        .map(|x| {
            ctx.r
                .feature(x)
                .map_or(x.clone(), |t| t.name.to_lowercase())
        })
        .collect::<Vec<_>>()
        .join(" with ")
}

fn hill_component(ctx: &Ctx<'_>, st: &State, from: Hex) -> BTreeSet<Hex> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from];
    while let Some(h) = todo.pop() {
        if !ctx.board.contains(h) || !ctx.info(st, h).is_hill() || !seen.insert(h) {
            continue;
        }
        todo.extend(h.neighbours());
    }
    seen
}

/// Line of sight between two hexes: units and blocking terrain obstruct; a
/// hill obstructs unless both ends stand on that same hill.
#[must_use]
pub fn sees(ctx: &Ctx<'_>, st: &State, a: Hex, b: Hex) -> bool {
    sees_past(ctx, st, a, b, |_| true)
}

/// Line of sight for a unit of `side`. Kriegspiel: the line is drawn on the
/// side's own board, where a unit it does not see is not ("Camouflaged Units
/// are always left off the board"), so an unseen unit does not block it and
/// the answer does not depend on what the side cannot see
/// (docs/rules/kriegspiel.md). Without fog, as [`sees`].
#[must_use]
pub fn sees_for(ctx: &Ctx<'_>, st: &State, side: usize, a: Hex, b: Hex) -> bool {
    if st.fog.is_none() {
        return sees(ctx, st, a, b);
    }
    sees_past(ctx, st, a, b, |u| super::fog::sees(ctx.r, st, side, u))
}

/// Line of sight where only the units `blocks` keeps obstruct.
fn sees_past(ctx: &Ctx<'_>, st: &State, a: Hex, b: Hex, blocks: impl Fn(&Unit) -> bool) -> bool {
    let plateau = if ctx.info(st, a).is_hill() && ctx.info(st, b).is_hill() {
        let c = hill_component(ctx, st, a);
        if c.contains(&b) {
            c
        } else {
            BTreeSet::new()
        }
    } else {
        BTreeSet::new()
    };
    // Mountains: "Line Of Sight is not blocked when Units are at the same
    // height and on the same Mountain."
    let mountain = if super::tiles::is_mountain(ctx, st, a) {
        let m = super::tiles::mountain_of(ctx, st, a);
        if m.contains(&b) {
            m
        } else {
            BTreeSet::new()
        }
    } else {
        BTreeSet::new()
    };
    line_of_sight(&ctx.board, a, b, |h| {
        if st.unit_at(h).is_some_and(&blocks) {
            return true;
        }
        let info = ctx.info(st, h);
        if info.is_hill() && !plateau.contains(&h) {
            return true;
        }
        if info.any(|t| t.mountain) {
            return !mountain.contains(&h);
        }
        info.any(|t| t.blocks_los && !t.hill)
    }) && !super::tiles::pair_blocks(ctx, st, a, b)
}

/// Does `side` have a unit that sees `target` (for indirect fire)?
#[must_use]
pub fn spotted(ctx: &Ctx<'_>, st: &State, side: usize, target: Hex) -> bool {
    st.units
        .iter()
        .any(|u| u.side == side && sees_for(ctx, st, side, u.at, target))
}

/// Does protection at `h` count for a unit of `side`?
fn claims(st: &State, owner_only: bool, side: usize) -> bool {
    !owner_only || st.bunker_side.is_none_or(|b| b == side)
}

/// Dice for a battle: (base, modifiers). `extra` are card modifiers.
#[must_use]
pub fn battle_dice(
    ctx: &Ctx<'_>,
    st: &State,
    att: &Unit,
    tgt: &Unit,
    extra: &[Modifier],
) -> (u32, Vec<Modifier>) {
    let a = ctx.spec(&att.kind);
    let t = ctx.spec(&tgt.kind);
    let range = super::trains::range(st, att, tgt.at) as usize;
    let table = dice_table(ctx, st, att, a, &t.class);
    let base = table.get(range.wrapping_sub(1)).copied().unwrap_or(0);
    // Suggested Variants: a zombie unit rolls as many dice as it has figures.
    let base = super::variants::base_dice(a, att.figures, range).unwrap_or(base);
    let mut mods = Vec::new();
    // Battle Star Markers: the Heroic Leader's additional die.
    mods.extend(super::stars::battle_mods(st, att.id));
    // Collapsible Assault Boats: one die fewer on a river hex.
    mods.extend(super::stars::boat_mods(ctx, st, att.id));
    mods.extend(super::variants::exterminate::battle_mods(ctx, st, att.id));
    // Demoralisation, & Disorganisation: "reduce ... Battle Dice".
    mods.extend(super::disorder::battle_mods(st, att.id));
    // Supply Lines & Sieges: "All Battle Dice are reduced by 1."
    mods.extend(super::supply::battle_mods(ctx.r, st, att.id));
    // "War Of The Worlds", The Common Cold: "All Martian Units lose one
    // Battle Dice" for each level of sickness.
    mods.extend(super::variants::worlds::battle_mods(st, att));
    if a.armour_penalty > 0 && t.class == "armour" {
        mods.push(Modifier {
            dice: -(a.armour_penalty as i32),
            reason: "Artillery v Tank".into(),
        });
    }
    // Combat Engineers: "Ignores all Battle Dice terrain reductions when in
    // Close Assault."
    if a.ignores_terrain_dice || (a.close_assault_ignores_terrain && range == 1) {
        // "A Sniper's Battle Dice are not reduced by Terrain."
        mods.extend(cross_hair(st, a, att, tgt));
        mods.extend(extra.iter().cloned());
        return (base, mods);
    }
    // Terrain of the target's hex: only the highest reduction counts.
    let tinfo = ctx.info(st, tgt.at);
    // A hill protects only from below: an attacker on a hill or a mountain
    // is not below it.
    let att_hill = super::tiles::height(ctx, st, att.at) >= 1;
    let mut best: Option<(u32, String)> = None;
    for (_, f) in &tinfo.specs {
        if !claims(st, f.owner_only, tgt.side) {
            continue;
        }
        if f.protect_from_lower_only && att_hill {
            continue;
        }
        if f.mountain && !super::tiles::mountain_protects(ctx, st, att.at, tgt.at) {
            continue;
        }
        if !super::tiles::protects(f, &t.class) {
            continue;
        }
        let p = f
            .protect
            .get(super::trains::fire_class(ctx, att))
            .copied()
            .unwrap_or(0);
        if p > 0 && best.as_ref().is_none_or(|(b, _)| p > *b) {
            best = Some((p, f.name.clone()));
        }
    }
    if let Some((p, name)) = best {
        mods.push(Modifier {
            dice: -(p as i32),
            reason: format!("target in {name}"),
        });
    }
    // The attacker's own hex (Armour in a town, Infantry on wire).
    let ainfo = ctx.info(st, att.at);
    let mut pen: Option<(u32, String)> = None;
    for (_, f) in &ainfo.specs {
        let p = f.fire_penalty.get(&a.class).copied().unwrap_or(0);
        if p > 0 && pen.as_ref().is_none_or(|(b, _)| p > *b) {
            pen = Some((p, f.name.clone()));
        }
    }
    if let Some((p, name)) = pen {
        mods.push(Modifier {
            dice: -(p as i32),
            reason: format!("firing from {name}"),
        });
    }
    mods.extend(cross_hair(st, a, att, tgt));
    mods.extend(extra.iter().cloned());
    (base, mods)
}

/// The attacker's dice by range against a target of `tgt_class`: its own
/// (or its table against armour), or the terrain's artillery table
/// (Mountains: "It Battles at 3, 3, 2, 2, 1, 1, 1").
fn dice_table(ctx: &Ctx<'_>, st: &State, att: &Unit, a: &UnitSpec, tgt_class: &str) -> Vec<u32> {
    if let Some(t) = super::tiles::artillery_table(ctx, st, &a.class, att.at) {
        return t.to_vec();
    }
    match (&a.dice_vs_armour, tgt_class) {
        (Some(v), "armour") => v.clone(),
        _ => a.dice.clone(),
    }
}

/// Does the unit fire by the Big Guns rules (a Big-Gun Battery; any
/// artillery while its side holds a Forward Spotting hex)?
#[must_use]
pub fn big_guns(st: &State, a: &UnitSpec, att: &Unit) -> bool {
    a.cross_hairs || (a.class == "artillery" && super::stars::spotting(st, att.side))
}

/// A Big-Gun's +1 die against a unit marked with its cross-hair.
fn cross_hair(st: &State, a: &UnitSpec, att: &Unit, tgt: &Unit) -> Option<Modifier> {
    (big_guns(st, a, att)
        && st
            .cross_hairs
            .iter()
            .any(|c| c.gun == att.id && c.target == tgt.id))
    .then(|| Modifier {
        dice: 1,
        reason: "cross-hair".into(),
    })
}

#[must_use]
pub fn total(base: u32, mods: &[Modifier]) -> u32 {
    let t = i64::from(base) + mods.iter().map(|m| i64::from(m.dice)).sum::<i64>();
    t.max(0) as u32
}

/// Why `att` may not battle the unit on `target` now (range, targets, LOS,
/// Infantry v Tank, close assault). `los` false skips the LOS check.
pub fn target_check(ctx: &Ctx<'_>, st: &State, att: &Unit, target: Hex) -> Result<(), String> {
    let a = ctx.spec(&att.kind);
    if ctx.info(st, att.at).any(|t| t.no_battle_from) {
        return Err("a unit on an ocean hex may not battle".into());
    }
    let Some(tgt) = st.unit_at(target) else {
        return Err(format!("there is no unit at {target}"));
    };
    if tgt.side == att.side {
        return Err(format!("the unit at {target} is your own"));
    }
    let t = ctx.spec(&tgt.kind);
    let range = super::trains::range(st, att, target);
    if let Some(why) = super::trains::battle_refusal(ctx, st, att, range) {
        return Err(why);
    }
    if tgt.concealed && range > 1 {
        return Err(format!(
            "the unit at {target} is camouflaged: it may only be attacked through Close Assault"
        ));
    }
    let table = dice_table(ctx, st, att, a, &t.class);
    if range as usize > table.len() {
        return Err(format!(
            "{target} is {range} hexes away: out of range ({} battles up to {} hexes)",
            a.name,
            table.len()
        ));
    }
    if !a.targets.is_empty() && !a.targets.iter().any(|x| *x == t.class || *x == tgt.kind) {
        return Err(format!("{} may not battle {}", a.name, t.name));
    }
    if a.close_only_vs_armour && t.class == "armour" && range > 1 {
        return Err("Infantry v Tank: infantry may battle armour only in close assault".into());
    }
    if range > 1 && st.enemy_adjacent(att.at, att.side) {
        let can_target_adjacent = st.units.iter().any(|o| {
            o.side != att.side && o.at.adjacent(att.at) && {
                let os = ctx.spec(&o.kind);
                a.targets.is_empty() || a.targets.iter().any(|x| *x == os.class || *x == o.kind)
            }
        });
        if !can_target_adjacent {
            return Err(format!(
                "the unit is next to an enemy it may not battle: {} must move away before it may battle",
                a.name
            ));
        }
        return Err("the unit is in close assault: it must battle the adjacent enemy, not a more distant one".into());
    }
    if let Some(why) = super::tiles::close_only(ctx, st, &a.class, att.at, target) {
        return Err(why);
    }
    // Night & Severe Weather (weather.rs): out of sight, or spotted.
    if let Some(res) = super::weather::target_check(ctx, st, att, target, a.indirect) {
        return res;
    }
    // A train sees from either of its pieces (trains.rs).
    let seen = super::trains::cars(att)
        .iter()
        .any(|h| sees_for(ctx, st, att.side, *h, target));
    if !seen {
        if !a.indirect {
            return Err(format!("no line of sight from {} to {target}", att.at));
        }
        if !spotted(ctx, st, att.side, target) {
            return Err(format!("no line of sight to {target}: indirect fire needs a friendly unit that sees the target"));
        }
    }
    Ok(())
}

/// How hits are counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct HitRule {
    pub stars_hit: bool,
    pub grenades_ignored: bool,
    pub flags_unignorable: bool,
}

/// Roll and score dice against `tgt`. Returns (faces, hits, flags).
pub fn roll(
    ctx: &Ctx<'_>,
    dice: &mut dyn Dice,
    n: u32,
    att: Option<&UnitSpec>,
    tgt: &UnitSpec,
    rule: HitRule,
) -> (Vec<String>, u32, u32) {
    let sym = ctx.r.symbol(&tgt.class);
    let mut faces = Vec::new();
    let (mut hits, mut flags) = (0, 0);
    for _ in 0..n {
        let f = ctx.r.face(dice.roll(6));
        // Infantry Support Weapons: a mortar's grenades, a flame-thrower's
        // stars are flags.
        if super::support::face_is_flag(att, &f) || super::variants::face_is_flag(tgt, &f) {
            flags += 1;
            faces.push(f);
            continue;
        }
        let grenade_counts = !tgt.ignores_grenades && !rule.grenades_ignored;
        let hit = match att.filter(|a| !a.hits_on.is_empty()) {
            // A sniper "scores one Hit on a Red Grenade or Green Star".
            Some(a) => a.hits_on.contains(&f) && (f != "grenade" || grenade_counts),
            None => {
                (!sym.is_empty() && f == sym)
                    || (f == "grenade" && grenade_counts)
                    || (f == "star" && rule.stars_hit)
            }
        };
        // A sniper "can only be eliminated when Hit with a Red Grenade".
        let hit = hit && (tgt.hit_only_by.is_empty() || tgt.hit_only_by.contains(&f));
        if hit {
            hits += 1;
        } else if f == "flag"
            || (f == "star"
                && !rule.stars_hit
                && att.is_some_and(|a| a.star_is_flag_vs_armour)
                && tgt.class == "armour")
        {
            flags += 1;
        }
        faces.push(f);
    }
    (faces, hits, flags)
}

/// Remove a unit's markers when it moves, retreats or is eliminated.
pub fn unit_moved(st: &mut State, id: u32) {
    // Camouflage is lost the moment the unit moves.
    if let Some(u) = st.unit_mut(id) {
        u.concealed = false;
    }
    st.cross_hairs.retain(|c| c.gun != id && c.target != id);
    st.engagements.retain(|e| e.a != id && e.b != id);
}

/// The result of hits and flags on a unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    pub eliminated: bool,
    pub retreated: bool,
}

/// Remove `lost` figures; eliminate at zero. Returns true if eliminated.
pub fn lose(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    id: u32,
    lost: u32,
    by: usize,
    reason: &str,
    remover: &str,
) -> bool {
    let Some(u) = st.unit(id).cloned() else {
        return true;
    };
    // Appendix 2: the Armoured Train's artillery model may take a hit.
    let lost = super::trains::gun_takes_hit(st, ev, id, lost, reason);
    let lost = lost.min(u.figures);
    if lost == 0 {
        return false;
    }
    let left = u.figures - lost;
    if let Some(m) = st.unit_mut(id) {
        m.figures = left;
    }
    if by < 2 && by != u.side {
        st.figures_removed[by] += lost;
    }
    ev.push(Event::FiguresLost {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        at: u.at,
        lost,
        left,
        reason: reason.into(),
    });
    if left > 0 {
        // Appendix 2: the third hit on a train removes its wagon.
        super::trains::after_hits(ctx, st, ev, id);
        return false;
    }
    let medal = ctx.spec(&u.kind).medal && by < 2 && by != u.side;
    st.units.retain(|x| x.id != id);
    unit_moved(st, id);
    ev.push(Event::UnitEliminated {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        at: u.at,
        by: st.sides.get(by).cloned().unwrap_or_default(),
        medal,
    });
    if medal {
        // Appendix 2: a train that is a mission objective is worth its
        // mission's medals.
        let worth = super::trains::medals_for(&u);
        st.medal_units[by] += worth;
        let objective = u.train.as_ref().and_then(|t| t.mission.as_ref());
        if objective.is_some_and(|m| m.reach.is_none()) {
            ev.push(Event::TrainMission {
                side: st.sides[by].clone(),
                unit: u.kind.clone(),
                at: u.at,
                medals: worth,
                how: "destroyed".into(),
            });
        }
        ev.push(Event::MedalGained {
            side: st.sides[by].clone(),
            medals: st.medals(by),
            reason: format!("{} eliminated", u.kind),
        });
    }
    // Sandbags go when artillery, Big Guns, Barrage or Air Power eliminate.
    let mut removed = false;
    if let Some(fs) = st.terrain.get_mut(&u.at) {
        let before = fs.len();
        fs.retain(|f| {
            !ctx.r
                .feature(f)
                .is_some_and(|t| t.removed_by.iter().any(|x| x == remover))
        });
        removed = fs.len() != before;
    }
    if removed {
        ev.push(Event::SandbagRemoved { at: u.at });
    }
    true
}

/// Resolve flags on a surviving unit: ignore the first where allowed, then
/// No Retreat, artillery in bunkers, or retreat toward the own edge.
pub fn resolve_flags(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    id: u32,
    flags: u32,
    by: usize,
    rule: HitRule,
) -> (u32, Outcome) {
    let mut out = Outcome::default();
    let Some(u) = st.unit(id).cloned() else {
        out.eliminated = true;
        return (0, out);
    };
    if flags == 0 {
        return (0, out);
    }
    // "Achtung! Zombie!": a zombie unit retreats at most one hex a turn.
    if let Some(r) = super::variants::zombies::flags(ctx, st, ev, id, flags, by) {
        return r;
    }
    let spec = ctx.spec(&u.kind);
    let info = ctx.info(st, u.at);
    let mut ignored = 0;
    let mut flags = flags;
    if !rule.flags_unignorable && super::tiles::ignores_all_flags(&info) {
        return (flags, out);
    }
    // "War Of The Worlds": a Fighting Machine is "not effected by ...
    // Purple Flags".
    if spec.variant.ignores_flags {
        return (flags, out);
    }
    if !rule.flags_unignorable
        && (spec.ignores_first_flag
            || super::stars::ignores_first_flag(st, u.id)
            || info.specs.iter().any(|(_, t)| {
                super::tiles::ignores_first_flag(t, &spec.class) && claims(st, t.owner_only, u.side)
            }))
    {
        ignored = 1;
        flags -= 1;
    }
    if flags == 0 {
        return (ignored, out);
    }
    // "Nineteen Eighty-Four": "Purple Flags are casualties, not Retreats"
    // (those the unit or its hex may ignore are ignored first).
    if let Some(o) = super::variants::nineteen84::flags(ctx, st, ev, id, flags, by) {
        return (ignored, o);
    }
    // "EX-TER-MIN-ATE!": "Additional Purple Flags result in the
    // extermination of 1 model each. Daleks do not Retreat."
    if spec.variant.flags_cost_models {
        ev.push(Event::Retreat {
            side: st.sides[u.side].clone(),
            unit: u.kind.clone(),
            path: vec![u.at],
            blocked: 0,
            no_retreat: true,
        });
        out.eliminated = lose(ctx, st, ev, id, flags, by, "Daleks do not retreat", "flag");
        return (ignored, out);
    }
    // Appendix 2: a train retreats backwards along the tracks.
    if let Some(o) = super::trains::retreat(ctx, st, ev, id, flags, by) {
        return (ignored, o);
    }
    // "Retreat upto 3 hexes ... on any Purple Flag rolled. The number of
    // Purple Flags rolled is irrelevant": one retreat of 1 to N hexes.
    if spec.retreat_up_to.is_some() {
        flags = 1;
    }
    if let Some(o) = held_in_place(ctx, st, ev, (&u, spec, &info), flags, by) {
        return (ignored, o);
    }
    (ignored, retreat_move(ctx, st, ev, &u, flags, by))
}

/// Flags on a unit that may not retreat (artillery in a bunker, a unit in
/// assault boats on a river, No Retreat): what they cost it, or None if it
/// retreats.
fn held_in_place(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    (u, spec, info): (&Unit, &UnitSpec, &HexInfo<'_>),
    flags: u32,
    by: usize,
) -> Option<Outcome> {
    let mut out = Outcome::default();
    let id = u.id;
    let flag_losses = spec.flag_losses;
    let bunker_art = spec.class == "artillery"
        && info
            .specs
            .iter()
            .any(|(_, t)| t.artillery_no_retreat && claims(st, t.owner_only, u.side));
    let standing = st.standing.get(u.side).cloned().unwrap_or_default();
    if bunker_art {
        if flag_losses {
            out.eliminated = lose(
                ctx,
                st,
                ev,
                id,
                flags,
                by,
                "artillery in a bunker may not retreat",
                "flag",
            );
        }
        return Some(out);
    }
    // Collapsible Assault Boats: "A Purple Flag rolled against a Unit in
    // Assault Boats on a River hex causes a loss of one figure instead of a
    // Retreat."
    if super::stars::afloat(ctx, st, id) {
        out.eliminated = lose(
            ctx,
            st,
            ev,
            id,
            flags,
            by,
            "a flag costs a unit in assault boats on a river a figure",
            "flag",
        );
        return Some(out);
    }
    if standing.no_retreat_all || standing.no_retreat.contains(&id) {
        ev.push(Event::Retreat {
            side: st.sides[u.side].clone(),
            unit: u.kind.clone(),
            path: vec![u.at],
            blocked: 0,
            no_retreat: true,
        });
        if flag_losses {
            out.eliminated = lose(ctx, st, ev, id, flags, by, "No Retreat", "flag");
        }
        return Some(out);
    }
    None
}

/// The retreat itself: the path back (the side's standing preferences
/// first), the flags it could not take, and what they cost.
fn retreat_move(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    u: &Unit,
    flags: u32,
    by: usize,
) -> Outcome {
    let mut out = Outcome::default();
    let id = u.id;
    let flag_losses = ctx.spec(&u.kind).flag_losses;
    let standing = st.standing.get(u.side).cloned().unwrap_or_default();
    let prefs = standing
        .retreat
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    let path = retreat_path(ctx, st, u, flags, &prefs);
    let done = path.len() as u32 - 1;
    let blocked = flags.saturating_sub(done);
    if let (Some(last), Some(m)) = (path.last().copied(), st.unit_mut(id)) {
        m.at = last;
    }
    if done > 0 {
        unit_moved(st, id);
        out.retreated = true;
    }
    ev.push(Event::Retreat {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        path,
        blocked,
        no_retreat: false,
    });
    let last = st.unit(id).map_or(u.at, |m| m.at);
    if blocked > 0 && super::variants::worlds::retreats_off_board(ctx, u, last) {
        // A Handling Machine "must Retreat ... even if it means Retreating
        // off the Board (in which case it is lost)".
        out.eliminated = lose(
            ctx,
            st,
            ev,
            id,
            u.figures,
            by,
            "retreated off the board",
            "flag",
        );
    } else if blocked > 0 && flag_losses {
        out.eliminated = lose(ctx, st, ev, id, blocked, by, "retreat blocked", "flag");
    }
    ev.extend(super::victory::update_objectives(st));
    out
}

/// The hexes one retreat move back from `h` for `side`, in board order.
#[must_use]
pub fn back_hexes(h: Hex, side: usize) -> [Hex; 2] {
    let dr = if side == 0 { -1 } else { 1 };
    [
        Hex::new(h.col - 1, h.row + dr),
        Hex::new(h.col + 1, h.row + dr),
    ]
}

fn retreat_ok(ctx: &Ctx<'_>, st: &State, spec: &UnitSpec, h: Hex, id: u32) -> bool {
    if !ctx.board.contains(h) {
        return false;
    }
    if st.unit_at(h).is_some_and(|o| o.id != id) {
        return false;
    }
    let info = ctx.info(st, h);
    if info.any(|t| t.sea) {
        return false;
    }
    info.passable(spec)
}

/// How well a retreat path follows the named hexes, smaller first: the path
/// through more of them wins, then the one whose earlier steps are named
/// earlier in the standing order (each step's place in the list, step by
/// step). "The player controlling the Unit decides which hex his Unit
/// Retreats onto": every step, not only the first.
fn path_preference(p: &[Hex], prefs: &[Hex]) -> (std::cmp::Reverse<usize>, Vec<usize>) {
    let steps = p.get(1..).unwrap_or(&[]);
    let ranks: Vec<usize> = steps
        .iter()
        .map(|h| prefs.iter().position(|x| x == h).unwrap_or(usize::MAX))
        .collect();
    let named = ranks.iter().filter(|r| **r != usize::MAX).count();
    (std::cmp::Reverse(named), ranks)
}

/// Choose the retreat path (including the start hex). Most moves made first;
/// then the standing preferences (the path through more named hexes, see
/// `path_preference`); then hexes that protect, hexes not next to
/// an enemy, the column nearest the start, and the leftmost (from row 1).
/// A unit that retreats "up to" N hexes (`retreat_up_to`) may stop after any
/// move: it ends on the first preferred hex it can reach, else goes as far
/// as it can.
#[must_use]
pub fn retreat_path(ctx: &Ctx<'_>, st: &State, u: &Unit, flags: u32, prefs: &[Hex]) -> Vec<Hex> {
    let spec = ctx.spec(&u.kind);
    let up_to = spec.retreat_up_to.filter(|_| flags > 0);
    let moves = up_to.unwrap_or(flags);
    let mut paths: Vec<Vec<Hex>> = vec![vec![u.at]];
    let mut finished: Vec<Vec<Hex>> = Vec::new();
    for _ in 0..moves.min(8) {
        let mut next = Vec::new();
        for p in &paths {
            let last = *p.last().unwrap_or(&u.at);
            let mut any = false;
            for h in back_hexes(last, u.side) {
                if retreat_ok(ctx, st, spec, h, u.id)
                    && super::tiles::step_allowed(ctx, st, spec.movement_class(), last, h)
                {
                    let mut q = p.clone();
                    q.push(h);
                    next.push(q);
                    any = true;
                }
            }
            if !any || (up_to.is_some() && p.len() > 1) {
                finished.push(p.clone());
            }
        }
        if next.is_empty() {
            break;
        }
        paths = next;
    }
    finished.extend(paths);
    let score = |p: &Vec<Hex>| {
        let last = *p.last().unwrap_or(&u.at);
        // An "up to" retreat ends on the first named hex it can reach.
        let end = if up_to.is_some() {
            prefs.iter().position(|x| last == *x).unwrap_or(usize::MAX)
        } else {
            0
        };
        let info = ctx.info(st, last);
        let protect = info
            .specs
            .iter()
            .filter(|(_, t)| claims(st, t.owner_only, u.side))
            .map(|(_, t)| t.protect.values().copied().max().unwrap_or(0))
            .max()
            .unwrap_or(0);
        // Kriegspiel: the side chooses on its own board, where an enemy
        // unit it does not see is not (docs/rules/kriegspiel.md).
        let adj = st.units.iter().any(|o| {
            o.side != u.side && o.at.adjacent(last) && super::fog::sees(ctx.r, st, u.side, o)
        });
        let longest = usize::MAX - p.len();
        // Most moves first, then the named hexes; an "up to" retreat puts
        // where it ends first, then how many named hexes it passes, then
        // its length (the longest, where nothing named decides).
        let (first, last_resort) = if up_to.is_some() {
            (end, longest)
        } else {
            (longest, 0)
        };
        let (named, ranks) = path_preference(p, prefs);
        (
            first,
            named,
            last_resort,
            ranks,
            std::cmp::Reverse(protect),
            adj,
            (last.col - u.at.col).abs(),
            last.col,
        )
    };
    finished.sort_by_key(score);
    finished.into_iter().next().unwrap_or_else(|| vec![u.at])
}
