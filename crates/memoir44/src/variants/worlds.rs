//! "War Of The Worlds" (the house rules, Appendix 3, Suggested Variants): the
//! Martians against the Humans. The game option `worlds=<side>` names the
//! side whose units become Martian machines (the Martian Player); the other
//! side is the Human Player. The tables (how many units make one machine,
//! which is a Handling Machine, the Human Resistance replacements, the towns
//! that are Martian Terrain Objectives, the die face of the Common Cold) are
//! `[worlds]` in rulesets/memoir44.toml; the machines are
//! `[units.martian-fighting-machine]` and `[units.martian-handling-machine]`
//! with a `variant` table. Readings: docs/rules/memoir44.md.

use super::super::battle::{back_hexes, lose, Ctx};
use super::super::board::Hex;
use super::super::events::{Event, Modifier};
use super::super::ruleset::Ruleset;
use super::super::state::{State, Unit};
use super::super::turn::Mode;
use adjutant_dice::Dice;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The game option: `worlds=<the Martian Player's side>`.
pub const OPTION: &str = "worlds";

/// The variant's tables (`[worlds]` in the ruleset).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorldsRules {
    /// The Martian Fighting Machine's unit type id.
    pub fighting: String,
    /// The Martian Handling Machine's unit type id.
    pub handling: String,
    /// "1 Martian Unit replaces every 2 Infantry, Artillery, and Armour
    /// Units (rounded down)": the classes counted ...
    pub replaced_classes: Vec<String>,
    /// ... and how many of them make one Martian unit.
    pub units_per_martian: u32,
    /// "Every 4th Unit has to be a Martian Handling Machine".
    pub handling_every: u32,
    /// "They receive two extra Command Cards above the Scenario limit".
    pub extra_cards: u32,
    /// "All Towns & Villages hexes are Martian Terrain Objectives": the
    /// tiles that are one.
    pub objectives_on: Vec<String>,
    /// "All obstacles on the Martian side are removed": the obstacles
    /// (wire, hedgehogs, ...; not bunkers, railways or bridges).
    pub obstacles: Vec<String>,
    /// "All Human Infantry are Special Infantry Units ... The Human Player
    /// also replaces all Medium Artillery with Heavy Artillery": unit type
    /// -> the type it becomes.
    pub human_replace: BTreeMap<String, String>,
    /// "One Armour Unit in three to be a Heavy Armour Unit": the type ...
    pub heavy_armour: String,
    /// ... and one in how many armour units.
    pub heavy_every: u32,
    /// "All other Martian Attacks on Towns & Villages will reduce that hex to
    /// City Ruins": the tile a town becomes.
    pub ruins: String,
    /// The Common Cold: "A Green Star means that they have become sick".
    pub sick_face: String,
}

impl Default for WorldsRules {
    fn default() -> Self {
        WorldsRules {
            fighting: "martian-fighting-machine".into(),
            handling: "martian-handling-machine".into(),
            replaced_classes: vec!["infantry".into(), "artillery".into(), "armour".into()],
            units_per_martian: 2,
            handling_every: 4,
            extra_cards: 2,
            objectives_on: vec!["town".into()],
            obstacles: vec!["wire".into(), "hedgehog".into(), "sandbag".into()],
            human_replace: BTreeMap::new(),
            heavy_armour: "heavy-armour".into(),
            heavy_every: 3,
            ruins: "city-ruins".into(),
            sick_face: "star".into(),
        }
    }
}

/// A game of the variant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worlds {
    /// The Martian Player's side.
    pub martian: usize,
    /// Levels of sickness (the Battle Stars on the Martian side).
    pub sick: u32,
    /// The Martian Terrain Objectives not yet seized.
    pub objectives: Vec<Hex>,
    /// Those seized (their markers on the Martian Medal Stands).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seized: Vec<Hex>,
    /// Human units when the game began.
    pub humans_start: u32,
    /// Martian units when the game began.
    pub martians_start: u32,
    /// Martian Handling Machines when the game began.
    pub handling_start: u32,
}

/// Is `side` the Martian Player?
#[must_use]
pub fn is_martian(st: &State, side: usize) -> bool {
    st.worlds.as_ref().is_some_and(|w| w.martian == side)
}

fn rear_row(ctx: &Ctx<'_>, side: usize) -> i32 {
    if side == 0 {
        0
    } else {
        ctx.board.rows - 1
    }
}

/// Is `h` on `side`'s half of the board (the middle row of an odd board is
/// on neither)?
fn on_side_of(ctx: &Ctx<'_>, h: Hex, side: usize) -> bool {
    let from_edge = (h.row - rear_row(ctx, side)).abs();
    from_edge * 2 < ctx.board.rows - 1
}

/// Convert a set-up position for the variant. The Martian side's units go;
/// "1 Martian Unit replaces every 2 Infantry, Artillery, and Armour Units
/// (rounded down). However, every 4th Unit has to be a Martian Handling
/// Machine, the rest are all Martian Fighting Machines", and "Martian Units
/// may only be placed on the rear-line of hexes, along the edge of the
/// board": the k-th Martian unit replaces the scenario's units 2k-1 and 2k
/// (by column from the left, then row) and stands on the free rear-line hex
/// nearest the first of them (the leftmost of equals). "All obstacles on
/// the Martian side are removed." "They receive two extra Command Cards."
/// Human Resistance: the `human_replace` types, and every third armour unit
/// (by column from the left, then row) becomes Heavy Armour. Every Towns &
/// Villages hex is a Martian Terrain Objective; "Other Terrain Objectives
/// are ignored".
pub fn convert(r: &Ruleset, st: &mut State, martian: usize) -> Result<(), String> {
    super::exclusive(st, super::Which::Worlds)?;
    let ctx = Ctx::new(r);
    let wr = &r.worlds;
    for id in [&wr.fighting, &wr.handling, &wr.heavy_armour]
        .into_iter()
        .chain(wr.human_replace.values())
    {
        if !r.units.contains_key(id) {
            return Err(format!("the ruleset has no unit type '{id}'"));
        }
    }
    let human = State::other(martian);
    let by_board = |a: &Unit, b: &Unit| (a.at.col, a.at.row).cmp(&(b.at.col, b.at.row));
    // The Martian side.
    let mut old: Vec<Unit> = st
        .units
        .iter()
        .filter(|u| u.side == martian && u.train.is_none())
        .filter(|u| wr.replaced_classes.contains(&ctx.spec(&u.kind).class))
        .cloned()
        .collect();
    old.sort_by(by_board);
    let gone: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == martian && !ctx.spec(&u.kind).variant.martian)
        .map(|u| u.id)
        .collect();
    st.units.retain(|u| !gone.contains(&u.id));
    st.disorder.retain(|d| !gone.contains(&d.unit));
    st.motorised.retain(|id| !gone.contains(id));
    st.stars
        .retain(|s| s.unit.is_none_or(|u| !gone.contains(&u)));
    // Its airfield reinforcements and paratroops are not Martian machines.
    st.reinforcements.retain(|x| x.side != martian);
    st.airdrops.retain(|x| x.side != martian);
    let per = wr.units_per_martian.max(1) as usize;
    let every = wr.handling_every.max(1) as usize;
    let row = rear_row(&ctx, martian);
    for (k, pair) in old.chunks(per).enumerate() {
        if pair.len() < per {
            break;
        }
        let kind = if (k + 1) % every == 0 {
            &wr.handling
        } else {
            &wr.fighting
        };
        let orig = pair[0].at;
        let Some(h) = (0..ctx.board.columns)
            .map(|l| Hex::from_letter(l, row))
            .filter(|h| ctx.board.contains(*h) && st.unit_at(*h).is_none())
            .min_by_key(|h| (h.distance(orig), h.col))
        else {
            break;
        };
        let id = st.next_unit;
        st.next_unit += 1;
        let figures = ctx.spec(kind).figures;
        st.units.push(Unit::arriving(id, martian, kind, h, figures));
    }
    // Obstacles on the Martian side.
    for (h, fs) in &mut st.terrain {
        if on_side_of(&ctx, *h, martian) {
            fs.retain(|f| !wr.obstacles.contains(f));
        }
    }
    st.terrain.retain(|_, fs| !fs.is_empty());
    // Human Resistance.
    let mut armour: Vec<(Hex, u32)> = Vec::new();
    for u in st.units.iter_mut().filter(|u| u.side == human) {
        if u.train.is_some() {
            continue;
        }
        if let Some(to) = wr.human_replace.get(&u.kind) {
            replace(&ctx, u, to);
        } else if ctx.spec(&u.kind).class == "armour" {
            armour.push((u.at, u.id));
        }
    }
    armour.sort_by_key(|(h, _)| (h.col, h.row));
    let heavy_every = wr.heavy_every.max(1) as usize;
    for (i, (_, id)) in armour.iter().enumerate() {
        if (i + 1) % heavy_every != 0 {
            continue;
        }
        if let Some(u) = st.unit_mut(*id) {
            replace(&ctx, u, &wr.heavy_armour);
        }
    }
    st.units.sort_by_key(|u| u.id);
    // Two extra command cards.
    if let Some(n) = st.hand_size.get_mut(martian) {
        *n += wr.extra_cards;
    }
    for _ in 0..wr.extra_cards {
        if st.deck.is_empty() {
            break;
        }
        let c = st.deck.remove(0);
        st.hands[martian].push(c);
    }
    st.objectives.clear();
    let objectives: Vec<Hex> = st
        .terrain
        .iter()
        .filter(|(_, fs)| fs.iter().any(|f| wr.objectives_on.contains(f)))
        .map(|(h, _)| *h)
        .collect();
    let count = |st: &State, f: &dyn Fn(&Unit) -> bool| st.units.iter().filter(|u| f(u)).count();
    let martians_start = count(st, &|u| u.side == martian) as u32;
    let handling_start = count(st, &|u| u.side == martian && u.kind == wr.handling) as u32;
    let humans_start = count(st, &|u| u.side == human) as u32;
    st.worlds = Some(Worlds {
        martian,
        sick: 0,
        objectives,
        seized: Vec::new(),
        humans_start,
        martians_start,
        handling_start,
    });
    Ok(())
}

/// A Human unit becomes type `to`, short of its new type's full strength
/// (and of its strength at the start) by as many figures as before.
fn replace(ctx: &Ctx<'_>, u: &mut Unit, to: &str) {
    let full = ctx.spec(&u.kind).figures;
    let short = full.saturating_sub(u.start);
    let lost = u.start.saturating_sub(u.figures);
    u.kind = to.to_string();
    u.start = ctx.spec(to).figures.saturating_sub(short).max(1);
    u.figures = u.start.saturating_sub(lost).max(1);
}

/// Start a game (a case) at sickness level `n`: every Martian unit's full
/// strength is `n` models less, and its models at most that.
pub fn set_sickness(r: &Ruleset, st: &mut State, n: u32) {
    let Some(martian) = st.worlds.as_ref().map(|w| w.martian) else {
        return;
    };
    if let Some(w) = st.worlds.as_mut() {
        w.sick = n;
    }
    for u in st.units.iter_mut().filter(|u| u.side == martian) {
        let full = r.units.get(&u.kind).map_or(0, |s| s.figures);
        u.start = full.saturating_sub(n).max(1);
        u.figures = u.figures.min(u.start);
    }
}

/// An ordered unit's movement: a Martian machine's "Movement and Battle are
/// not effected by any Terrain limitations", and "All Martian Movement is
/// reduced by one hex" for each level of sickness.
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &Unit, mut m: Mode) -> Mode {
    let Some(w) = &st.worlds else {
        return m;
    };
    let spec = ctx.spec(&u.kind);
    if spec.variant.terrain_free {
        m.ignore_terrain = true;
    }
    if u.side == w.martian {
        m.max_move = m.max_move.saturating_sub(w.sick);
        m.move_battle = m.move_battle.saturating_sub(w.sick);
    }
    m
}

/// "All Martian Units lose one Battle Dice" for each level of sickness.
#[must_use]
pub fn battle_mods(st: &State, att: &Unit) -> Vec<Modifier> {
    match &st.worlds {
        Some(w) if w.sick > 0 && att.side == w.martian => vec![Modifier {
            dice: -(w.sick as i32),
            reason: format!("the Common Cold (sickness level {})", w.sick),
        }],
        _ => Vec::new(),
    }
}

/// May the Martian unit `u` pass through `o`'s hex? "Martian Units may pass
/// through each others hexes but may not end their Movement in the same
/// hex."
#[must_use]
pub fn passes_through(ctx: &Ctx<'_>, st: &State, u: &Unit, o: &Unit) -> bool {
    st.worlds.is_some()
        && u.side == o.side
        && ctx.spec(&u.kind).variant.martian
        && ctx.spec(&o.kind).variant.martian
}

/// A Martian Handling Machine "must Retreat for additional Purple Flags,
/// even if it means Retreating off the Board (in which case it is lost)":
/// its retreat, stopped at `last` with flags still to go, ends off the
/// board when no hex behind `last` is on it.
#[must_use]
pub fn retreats_off_board(ctx: &Ctx<'_>, u: &Unit, last: Hex) -> bool {
    ctx.spec(&u.kind).variant.retreat_off_board
        && back_hexes(last, u.side)
            .iter()
            .all(|h| !ctx.board.contains(*h))
}

/// After a Martian unit's battle: "All other Martian Attacks on Towns &
/// Villages will reduce that hex to City Ruins" (the objective stays one).
pub fn after_battle(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    attacker_side: usize,
    target: Hex,
) {
    let Some(w) = &st.worlds else {
        return;
    };
    if attacker_side != w.martian {
        return;
    }
    let wr = &ctx.r.worlds;
    let side = st.sides[w.martian].clone();
    // A unit left standing in the town that could not stand in City Ruins
    // (armour) keeps it a town: the ruins would trap it on terrain it may
    // not enter.
    let stays = st.unit_at(target).is_none_or(|u| {
        let spec = ctx.spec(&u.kind);
        spec.variant.terrain_free
            || ctx.r.feature(&wr.ruins).is_none_or(|t| {
                t.only_enter.is_empty() || t.only_enter.iter().any(|c| c == spec.movement_class())
            })
    });
    if !stays {
        return;
    }
    let Some(fs) = st.terrain.get_mut(&target) else {
        return;
    };
    let before = fs.len();
    fs.retain(|f| !wr.objectives_on.contains(f));
    if fs.len() == before {
        return;
    }
    fs.insert(0, wr.ruins.clone());
    ev.push(Event::Worlds {
        what: "ruined".into(),
        side,
        at: Some(target),
        level: 0,
        faces: Vec::new(),
    });
}

/// The end of any turn of the variant: the towns a Handling Machine has
/// held for the Martian Player's whole turn are seized, the game ends when
/// a side has won, and (for the beginning of the next turn) the Common Cold
/// is rolled: "Apply the following rules at the beginning of the second
/// turn and every turn thereafter. Roll one Battle Dice ... A Green Star
/// means that they have become sick (or sicker)".
pub fn end_turn(
    ctx: &Ctx<'_>,
    st0: &State,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    mover: usize,
) {
    let Some(w) = st.worlds.clone() else {
        return;
    };
    let wr = &ctx.r.worlds;
    if mover == w.martian {
        for h in &w.objectives {
            let held = |s: &State| s.unit_at(*h).map(|u| (u.id, u.kind == wr.handling));
            if let (Some((a, true)), Some((b, true))) = (held(st0), held(st)) {
                if a != b {
                    continue;
                }
                if let Some(w) = st.worlds.as_mut() {
                    w.objectives.retain(|o| o != h);
                    w.seized.push(*h);
                }
                ev.push(Event::Worlds {
                    what: "seized".into(),
                    side: st.sides[w.martian].clone(),
                    at: Some(*h),
                    level: 0,
                    faces: Vec::new(),
                });
            }
        }
    }
    if st.over {
        return;
    }
    if victory(ctx, st, ev, mover, false) {
        return;
    }
    let face = ctx.r.face(dice.roll(6));
    let sick = face == wr.sick_face;
    let level = w.sick + u32::from(sick);
    ev.push(Event::Worlds {
        what: if sick { "sicker" } else { "healthy" }.into(),
        side: st.sides[w.martian].clone(),
        at: None,
        level,
        faces: vec![face],
    });
    if !sick {
        return;
    }
    if let Some(w) = st.worlds.as_mut() {
        w.sick = level;
    }
    let human = State::other(w.martian);
    let mut ids: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == w.martian)
        .map(|u| u.id)
        .collect();
    // Kriegspiel: told in the order of their hexes, for the order of ids
    // would tell which machine is which (docs/rules/kriegspiel.md).
    if st.fog.is_some() {
        ids.sort_by_key(|id| st.unit(*id).map(|u| u.at));
    }
    let since = ev.len();
    for id in ids {
        // "Losses ... due to Green Stars accumulate and are permanent": the
        // model is gone from the unit's full strength too (no card brings
        // it back).
        if let Some(u) = st.unit_mut(id) {
            u.start = u.start.saturating_sub(1);
        }
        lose(ctx, st, ev, id, 1, human, "the Common Cold", "sickness");
    }
    // A Battle Star with a machine the sickness finished goes as the
    // marker's rules say (a Heroic Leader rolls for his loss).
    super::super::stars::after_step(ctx, st, ev, since, dice);
    victory(ctx, st, ev, mover, true);
}

/// Has a side won? "The Martian Player needs to eliminate three-quarters of
/// all Human Units, and achieve its required Terrain Objectives, to win the
/// game. The Human Player needs only eliminate half of the Martian Units,
/// or all Martian Handling Machines, to win ... All figures are rounded
/// down." "The game automatically ends in a Human Victory if all Martian
/// Units lose the last of their models to sickness." The side that just
/// moved is judged first.
fn victory(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, mover: usize, cold: bool) -> bool {
    let Some(w) = st.worlds.clone() else {
        return false;
    };
    let human = State::other(w.martian);
    let on = |f: &dyn Fn(&Unit) -> bool| st.units.iter().filter(|u| f(u)).count() as u32;
    let martians = on(&|u| u.side == w.martian);
    let handling = on(&|u| u.side == w.martian && u.kind == ctx.r.worlds.handling);
    let humans = on(&|u| u.side == human);
    let martians_lost = w.martians_start.saturating_sub(martians);
    let humans_lost = w.humans_start.saturating_sub(humans);
    let need_h = (w.martians_start / 2).max(1);
    let need_m = (w.humans_start * 3 / 4).max(1);
    let human_win = if martians == 0 && cold {
        Some("every Martian unit has lost its last model to the Common Cold".to_string())
    } else if martians == 0 {
        // A scenario too small for one Martian unit, or every unit gone.
        Some("no Martian unit is left on the board".to_string())
    } else if martians_lost >= need_h {
        Some(format!(
            "{martians_lost} of the {} Martian units are eliminated (half is {need_h})",
            w.martians_start
        ))
    } else if w.handling_start > 0 && handling == 0 {
        Some("every Martian Handling Machine is eliminated".to_string())
    } else {
        None
    };
    // "If the Scenario has no Martian Handling Machines then the Terrain
    // Objectives rule is ignored."
    let objectives_held = w.handling_start == 0 || w.objectives.is_empty();
    let martian_win = (humans_lost >= need_m && objectives_held).then(|| {
        format!(
            "{humans_lost} of the {} Human units are eliminated (three-quarters is {need_m}){}",
            w.humans_start,
            if w.handling_start == 0 {
                String::new()
            } else {
                format!(" and all {} towns are seized", w.seized.len())
            }
        )
    });
    let (winner, reason) = match (human_win, martian_win) {
        (Some(h), Some(m)) => {
            if mover == w.martian {
                (w.martian, m)
            } else {
                (human, h)
            }
        }
        (Some(h), None) => (human, h),
        (None, Some(m)) => (w.martian, m),
        (None, None) => return false,
    };
    let score = vec![
        (st.sides[human].clone(), martians_lost),
        (st.sides[w.martian].clone(), humans_lost),
    ];
    st.over = true;
    st.winner = Some(st.sides[winner].clone());
    ev.push(Event::GameOver {
        winner: Some(st.sides[winner].clone()),
        score,
        reason,
    });
    true
}

/// One sentence for a report.
#[must_use]
pub fn describe(what: &str, side: &str, at: Option<Hex>, level: u32) -> String {
    let at = at.map(|h| h.to_string()).unwrap_or_default();
    match what {
        "seized" => format!(
            "{side}: a Handling Machine has held {at} a whole turn: the town is seized and its marker goes to the Martian medal stand."
        ),
        "ruined" => format!("{side}: the Martian attack reduces the town at {at} to City Ruins."),
        "sicker" => format!(
            "The Common Cold: a Green Star; the Martians are sicker (level {level}): every Martian unit loses a model, a hex of movement and a battle die."
        ),
        "healthy" => format!(
            "The Common Cold: no Green Star; the Martians stay at sickness level {level}."
        ),
        other => format!("{side}: {other} {at}."),
    }
}

/// A case's expectations of the variant (case.rs): the sickness level and
/// the towns seized. Each difference as a sentence.
#[must_use]
pub fn case_check(st: &State, sick: Option<u32>, seized: Option<&[String]>) -> Vec<String> {
    let mut out = Vec::new();
    let w = st.worlds.clone().unwrap_or_default();
    if let Some(n) = sick {
        if w.sick != n {
            out.push(format!("sickness: expected {n}, got {}", w.sick));
        }
    }
    if let Some(want) = seized {
        let mut want: Vec<String> = want.iter().map(|h| h.to_ascii_uppercase()).collect();
        want.sort();
        let mut got: Vec<String> = w.seized.iter().map(Hex::to_string).collect();
        got.sort();
        if want != got {
            out.push(format!("seized: expected {want:?}, got {got:?}"));
        }
    }
    out
}

/// The variant's invariants after a turn (random games): the sickness
/// level never falls, no Martian unit has more models than its type less
/// the sickness, objectives seized stay seized.
#[must_use]
pub fn invariant(r: &Ruleset, before: &State, after: &State) -> Option<String> {
    let (Some(a), Some(b)) = (&before.worlds, &after.worlds) else {
        return (before.worlds.is_some() != after.worlds.is_some())
            .then(|| "the variant came or went".to_string());
    };
    if b.sick < a.sick {
        return Some(format!("sickness fell from {} to {}", a.sick, b.sick));
    }
    if a.seized.iter().any(|h| !b.seized.contains(h)) {
        return Some("a seized town was given back".into());
    }
    for u in after.units.iter().filter(|u| u.side == b.martian) {
        let most = r.units.get(&u.kind).map_or(0, |s| s.figures);
        if u.figures > u.start || u.start + b.sick > most {
            return Some(format!(
                "the Martian unit at {} has {} models at sickness {} (type has {most})",
                u.at, u.figures, b.sick
            ));
        }
    }
    None
}

/// "War Of The Worlds" on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    /// The machines and the Common Cold.
    fn mode(
        &self,
        ctx: &Ctx<'_>,
        st: &State,
        u: &Unit,
        m: Mode,
        _: Option<&[crate::board::Hex]>,
    ) -> Mode {
        mode(ctx, st, u, m)
    }

    /// A Martian attack ruins a town.
    fn after_battle(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        b: &crate::turn::hooks::Fought,
    ) {
        after_battle(p.ctx, p.st, p.ev, b.side, b.target);
    }

    fn victory(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        before: &State,
        side: usize,
    ) -> bool {
        if p.st.worlds.is_none() {
            return false;
        }
        end_turn(p.ctx, before, p.st, p.ev, p.dice, side);
        true
    }
}
