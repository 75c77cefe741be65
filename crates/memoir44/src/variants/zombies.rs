//! "Achtung! Zombie!" (the house rules, Appendix 3, Suggested Variants): the
//! Living against the Dead. The game option `zombies=<side>` names the side
//! whose units become Zombie Units (the Dead Player); the other side is the
//! Living Player. The tables (which units convert to how many zombie units,
//! the hexes that get victory markers, the size at which a unit divides) are
//! `[zombies]` in rulesets/memoir44.toml; the Zombie Unit is `[units.zombie]`
//! with a `variant` table. Readings: docs/rules/memoir44.md.

use super::super::battle::{back_hexes, lose, unit_moved, Ctx, Outcome};
use super::super::board::Hex;
use super::super::events::Event;
use super::super::orders::{Cmd, Line};
use super::super::ruleset::Ruleset;
use super::super::state::{State, Unit};
use super::super::turn::{default_mode, Mode, Step};
use super::super::Rejection;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The game option: `zombies=<the Dead Player's side>`.
pub const OPTION: &str = "zombies";

/// The variant's tables (`[zombies]` in the ruleset).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ZombieRules {
    /// The Zombie Unit's type id.
    pub unit: String,
    /// "For each Infantry-based Unit = 1 Zombie Unit; For each Artillery
    /// Unit = 2; For each Armour Unit = 3": zombie units per unit class.
    pub convert: BTreeMap<String, u32>,
    /// "Place a Victory Marker on every Towns & Villages or Bunkers hex":
    /// the tiles and obstacles that carry one.
    pub markers_on: Vec<String>,
    /// "If a Zombie Unit reaches 6 figures in size it immediately divides".
    pub divide_at: u32,
}

impl Default for ZombieRules {
    fn default() -> Self {
        ZombieRules {
            unit: "zombie".into(),
            convert: [("infantry", 1), ("artillery", 2), ("armour", 3)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            markers_on: vec!["town".into(), "bunker".into()],
            divide_at: 6,
        }
    }
}

/// A game of the variant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zombies {
    /// The Dead Player's side.
    pub dead: usize,
    /// The victory markers not yet removed by a zombie unit.
    pub markers: Vec<Hex>,
    /// The Living Player's figures when the game began.
    pub living_start: u32,
    /// Living figures retreated off the board (saved).
    pub saved: u32,
    /// Zombie units that have retreated this turn (at most one hex a turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retreated: Vec<u32>,
}

/// Is `side` the Dead Player?
#[must_use]
pub fn is_dead(st: &State, side: usize) -> bool {
    st.zombies.as_ref().is_some_and(|z| z.dead == side)
}

/// Living reinforcements (an airfield's, a train's load) came onto the
/// board: "the Living Player's figures" the score counts include them.
pub fn arrived(st: &mut State, side: usize, figures: u32) {
    if let Some(z) = st.zombies.as_mut().filter(|z| z.dead != side) {
        z.living_start += figures;
    }
}

fn is_zombie(ctx: &Ctx<'_>, u: &Unit) -> bool {
    ctx.spec(&u.kind).variant.zombie
}

/// Convert a set-up position for the variant: the Dead Player's units
/// become zombie units ("All Zombie Units are placed on the hexes indicated
/// in the Scenario. The extra Zombie Units are placed as close as possible
/// to the original positions, either to one side or behind ... They may not
/// be placed closer to the Living Player's Units"), every Towns & Villages
/// or Bunkers hex gets a victory marker ("Other Terrain Objectives are
/// ignored"), and the Dead Player holds no command cards.
pub fn convert(r: &Ruleset, st: &mut State, dead: usize) -> Result<(), String> {
    super::exclusive(st, super::Which::Zombies)?;
    let ctx = Ctx::new(r);
    let zr = &r.zombies;
    let zspec = r
        .units
        .get(&zr.unit)
        .ok_or_else(|| format!("the ruleset has no unit type '{}'", zr.unit))?;
    let living = State::other(dead);
    let mut extras: Vec<(Hex, u32)> = Vec::new();
    let mut converted = Vec::new();
    for u in st.units.iter_mut().filter(|u| u.side == dead) {
        let spec = ctx.spec(&u.kind);
        if spec.variant.zombie {
            continue;
        }
        let n = zr.convert.get(&spec.class).copied().unwrap_or(1).max(1);
        converted.push(u.id);
        u.kind.clone_from(&zr.unit);
        // A train of the Dead becomes a zombie unit on its engine's hex:
        // its wagon and load go.
        u.train = None;
        u.figures = zspec.figures;
        u.start = zspec.figures;
        u.fixed = false;
        u.concealed = false;
        if n > 1 {
            extras.push((u.at, n - 1));
        }
    }
    // A zombie unit starts with its 3 figures: what the scenario said of the
    // unit it replaced (Demoralisation, a motorised weapon) is gone with it.
    st.disorder.retain(|d| !converted.contains(&d.unit));
    st.motorised.retain(|id| !converted.contains(id));
    for (orig, n) in extras {
        for _ in 0..n {
            let Some(h) = extra_hex(&ctx, st, orig, dead, living) else {
                break;
            };
            let id = st.next_unit;
            st.next_unit += 1;
            st.units
                .push(Unit::arriving(id, dead, &zr.unit, h, zspec.figures));
        }
    }
    st.units.sort_by_key(|u| u.id);
    let markers: Vec<Hex> = st
        .terrain
        .iter()
        .filter(|(_, fs)| fs.iter().any(|f| zr.markers_on.contains(f)))
        .map(|(h, _)| *h)
        .collect();
    let hand = std::mem::take(&mut st.hands[dead]);
    st.deck.extend(hand);
    if let Some(n) = st.hand_size.get_mut(dead) {
        *n = 0;
    }
    st.objectives.clear();
    st.zombies = Some(Zombies {
        dead,
        markers,
        living_start: st
            .units
            .iter()
            .filter(|u| u.side == living)
            .map(|u| u.figures)
            .sum(),
        saved: 0,
        retreated: Vec::new(),
    });
    Ok(())
}

/// Where an extra zombie unit of a unit at `orig` goes: the nearest empty
/// hex level with it or behind it (from the Dead Player's edge) that is no
/// nearer the Living units than `orig`; level before behind, then the
/// leftmost from row 1.
fn extra_hex(ctx: &Ctx<'_>, st: &State, orig: Hex, dead: usize, living: usize) -> Option<Hex> {
    let near = |h: Hex| {
        st.units
            .iter()
            .filter(|u| u.side == living)
            .map(|u| u.at.distance(h))
            .min()
            .unwrap_or(u32::MAX)
    };
    let limit = near(orig);
    let back = |h: Hex| {
        if dead == 0 {
            orig.row - h.row
        } else {
            h.row - orig.row
        }
    };
    let mut best: Option<(u32, i32, Hex)> = None;
    for row in 0..ctx.board.rows {
        for l in 0..ctx.board.columns {
            let h = Hex::from_letter(l, row);
            if !ctx.board.contains(h) || st.unit_at(h).is_some() || back(h) < 0 || near(h) < limit {
                continue;
            }
            let key = (h.distance(orig), back(h), h);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
    }
    best.map(|(_, _, h)| h)
}

/// The Dead Player's turn: "The Dead Player is given no Command Cards.
/// Zombies DO NOT require orders." Every zombie unit is ordered; a card,
/// a DISCARD, an EXCHANGE or an ORDER line is refused.
pub fn check_dead_lines(lines: &[&Line]) -> Result<(), Rejection> {
    for l in lines {
        if matches!(
            l.cmd,
            Cmd::Play { .. }
                | Cmd::Discard { .. }
                | Cmd::Exchange { .. }
                | Cmd::Order { .. }
                | Cmd::OrderAll
        ) {
            return Err(l.reject(
                "the Dead Player is given no command cards and zombies do not require orders: write only MOVE and BATTLE lines",
            ));
        }
    }
    Ok(())
}

/// Every zombie unit of the Dead Player, with how it may act: "They may
/// Battle and Move one hex per turn", ignoring "all terrain limitations on
/// Movement".
#[must_use]
pub fn modes(ctx: &Ctx<'_>, st: &State, side: usize) -> (Vec<u32>, BTreeMap<u32, Mode>) {
    let mut ids = Vec::new();
    let mut modes = BTreeMap::new();
    for u in st.units.iter().filter(|u| u.side == side) {
        let mut m = default_mode(ctx, u);
        m.ignore_terrain = ctx.spec(&u.kind).variant.terrain_free;
        ids.push(u.id);
        modes.insert(u.id, m);
    }
    (ids, modes)
}

/// May the zombie unit `u` step onto `to` this turn (the weather may keep
/// it still: Deep Snow takes its one hex)?
fn can_step(ctx: &Ctx<'_>, st: &State, u: &Unit, to: Hex) -> bool {
    let (_, m) = modes(ctx, st, u.side);
    m.get(&u.id).is_some_and(|m| {
        super::super::weather::mode(ctx, st, u, m, Some(&[u.at, to])).max_move >= 1
    })
}

/// Is this battle a charge because of the variant ("All Zombie Close
/// Assaults are treated as Infantry Charges")?
#[must_use]
pub fn charges(ctx: &Ctx<'_>, u: &Unit, range: u32) -> bool {
    range == 1 && ctx.spec(&u.kind).variant.close_assault_is_charge
}

/// Zombie units standing on an unclaimed victory marker: they spend the
/// turn occupying it.
fn occupiers(st: &State) -> Vec<(u32, Hex)> {
    let Some(z) = &st.zombies else {
        return Vec::new();
    };
    z.markers
        .iter()
        .filter_map(|h| {
            st.unit_at(*h)
                .filter(|u| u.side == z.dead)
                .map(|u| (u.id, *h))
        })
        .collect()
}

/// The Dead Player's plan, after its MOVE and BATTLE lines were walked on
/// the scratch position `sc`:
/// - "A Zombie Unit takes a whole turn Occupying the hex": a zombie that
///   begins the turn on an unclaimed marker may not move;
/// - "One Zombie Unit must enter a Towns & Villages or Bunkers hex if it
///   begins its Move next to one";
/// - "Zombie Units must Battle when in Close Assault with the Living": each
///   zombie unit next to a Living unit that has no BATTLE line battles one
///   (the one with the fewest figures, then the first in board order).
pub fn finish_plan(
    ctx: &Ctx<'_>,
    st: &State,
    sc: &State,
    side: usize,
    steps: &mut Vec<Step>,
) -> Result<(), Rejection> {
    let Some(z) = &st.zombies else {
        return Ok(());
    };
    let occupying: BTreeMap<u32, Hex> = occupiers(st).into_iter().collect();
    let mut moved_to: BTreeMap<u32, Hex> = BTreeMap::new();
    let mut battled: BTreeSet<u32> = BTreeSet::new();
    for s in steps.iter() {
        match s {
            Step::Move {
                line, unit, path, ..
            } => {
                if let Some(h) = occupying.get(unit) {
                    if path.len() > 1 {
                        return Err(line.reject(format!(
                            "the zombie unit at {h} spends this turn occupying the victory marker's hex and may not move"
                        )));
                    }
                }
                if let Some(end) = path.last() {
                    moved_to.insert(*unit, *end);
                }
            }
            Step::Battle { unit, .. } => {
                battled.insert(*unit);
            }
            _ => {}
        }
    }
    for m in &z.markers {
        if st.unit_at(*m).is_some() {
            continue;
        }
        let near: Vec<&Unit> = st
            .units
            .iter()
            .filter(|u| {
                u.side == side
                    && u.at.adjacent(*m)
                    && !occupying.contains_key(&u.id)
                    && can_step(ctx, st, u, *m)
            })
            .collect();
        if near.is_empty() {
            continue;
        }
        let entered = moved_to.values().any(|h| h == m);
        let all_elsewhere = near.iter().all(|u| {
            moved_to
                .get(&u.id)
                .is_some_and(|h| *h != u.at && z.markers.contains(h))
        });
        if !entered && !all_elsewhere {
            let from: Vec<String> = near.iter().map(|u| u.at.to_string()).collect();
            return Err(Rejection::whole(format!(
                "one zombie unit must enter the hex at {m} (its victory marker), for zombies next to it begin their move there: MOVE {} {m}",
                from.join(" | ")
            )));
        }
    }
    for u in sc.units.iter().filter(|u| u.side == side) {
        if battled.contains(&u.id) || !is_zombie(ctx, u) {
            continue;
        }
        let target = sc
            .units
            .iter()
            .filter(|x| x.side != side && x.at.adjacent(u.at))
            .min_by_key(|x| (x.figures, x.at.row, x.at.col));
        if let Some(t) = target {
            let text = format!(
                "BATTLE {} {} (zombies must battle in close assault)",
                u.at, t.at
            );
            steps.push(Step::Battle {
                line: Line {
                    no: 0,
                    text,
                    cmd: Cmd::Battle {
                        from: u.at,
                        target: t.at,
                        take_ground: false,
                        overrun: None,
                        via: None,
                    },
                },
                unit: u.id,
                target: t.at,
                take_ground: false,
                overrun: None,
                firefight: false,
                charge: charges(ctx, u, 1),
                auto_overrun: false,
            });
        }
    }
    Ok(())
}

/// `EXIT <hex>`: "The Living Player may Retreat Units off the Board in
/// order to gain a Draw." An ordered Living unit on its own edge row that
/// has not moved or battled leaves the board over its own edge; its figures
/// are saved. Checked on the scratch position, from which it is removed.
pub fn exit_step(
    ctx: &Ctx<'_>,
    sc: &mut State,
    side: usize,
    line: &Line,
    at: Hex,
    ordered: bool,
    acted: bool,
) -> Result<Step, Rejection> {
    let Some(z) = &sc.zombies else {
        return Err(line.reject(
            "EXIT is the Living Player's retreat off the board in the Achtung! Zombie! variant (game option zombies), which this game does not play",
        ));
    };
    if z.dead == side {
        return Err(
            line.reject("the Dead Player may not attempt to Retreat any Units off the Board")
        );
    }
    let Some(u) = sc.unit_at(at).filter(|u| u.side == side).cloned() else {
        return Err(line.reject(format!("you have no unit at {at}")));
    };
    if !ordered {
        return Err(line.reject(format!("the unit at {at} was not ordered")));
    }
    if acted {
        return Err(line.reject(
            "a unit leaving the board does nothing else that turn: it may not move or battle first",
        ));
    }
    let edge = if side == 0 { 0 } else { ctx.board.rows - 1 };
    if at.row != edge {
        return Err(line.reject(format!(
            "a unit leaves the board over its own edge: {at} is not on your edge row ({})",
            edge + 1
        )));
    }
    sc.units.retain(|x| x.id != u.id);
    Ok(Step::Exit {
        line: line.clone(),
        unit: u.id,
    })
}

/// Carry out an exit.
pub fn exit(st: &mut State, ev: &mut Vec<Event>, unit: u32) {
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    st.units.retain(|x| x.id != unit);
    unit_moved(st, unit);
    // A Battle Star marker with the unit (a Heroic Leader, equipment it
    // carries) leaves the board with it.
    st.stars.retain(|s| s.unit != Some(unit));
    if let Some(z) = st.zombies.as_mut() {
        z.saved += u.figures;
    }
    ev.push(Event::Zombies {
        what: "saved".into(),
        side: st.sides[u.side].clone(),
        at: u.at,
        to: None,
        figures: u.figures,
    });
}

/// A zombie unit's flags: "A Zombie Unit Retreats a maximum of one hex in
/// any one turn regardless of the number actually required. A Zombie Unit
/// that is forced to Retreat into another simply dislodges that Unit back
/// one hex. Any Zombie Unit forced to Retreat off the Board is permanently
/// lost. Zombie Units must always Retreat when required." None: not a
/// zombie unit in a zombie game (the usual rules apply).
pub fn flags(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    id: u32,
    flags: u32,
    by: usize,
) -> Option<(u32, Outcome)> {
    st.zombies.as_ref()?;
    let u = st.unit(id).cloned()?;
    if !is_zombie(ctx, &u) {
        return None;
    }
    let mut out = Outcome::default();
    if flags == 0 {
        return Some((0, out));
    }
    let done = st
        .zombies
        .as_ref()
        .is_some_and(|z| z.retreated.contains(&id));
    let side_name = st.sides[u.side].clone();
    if done {
        // Already one hex back this turn: no further retreat, no loss.
        ev.push(Event::Retreat {
            side: side_name,
            unit: u.kind.clone(),
            path: vec![u.at],
            blocked: 0,
            no_retreat: false,
        });
        return Some((0, out));
    }
    if let Some(z) = st.zombies.as_mut() {
        z.retreated.push(id);
    }
    match back_one(ctx, st, ev, &u, 0) {
        Back::To(h) => {
            if let Some(m) = st.unit_mut(id) {
                m.at = h;
            }
            unit_moved(st, id);
            out.retreated = true;
            ev.push(Event::Retreat {
                side: side_name,
                unit: u.kind.clone(),
                path: vec![u.at, h],
                blocked: 0,
                no_retreat: false,
            });
        }
        Back::OffBoard => {
            ev.push(Event::Zombies {
                what: "off-board".into(),
                side: side_name,
                at: u.at,
                to: None,
                figures: u.figures,
            });
            out.eliminated = lose(
                ctx,
                st,
                ev,
                id,
                u.figures,
                by,
                "forced to retreat off the board",
                "flag",
            );
        }
        Back::Blocked => {
            ev.push(Event::Retreat {
                side: side_name,
                unit: u.kind.clone(),
                path: vec![u.at],
                blocked: 1,
                no_retreat: false,
            });
            out.eliminated = lose(ctx, st, ev, id, 1, by, "retreat blocked", "flag");
        }
    }
    Some((0, out))
}

enum Back {
    To(Hex),
    OffBoard,
    Blocked,
}

/// One hex back for zombie unit `u`: an empty hex first (the standing
/// retreat preferences, then board order); else a hex with another zombie
/// unit, which is dislodged one hex back in turn; with no hex on the board
/// behind it, or only one held by a Living unit beside the edge, it is
/// forced off the board; with both held by Living units, the move is
/// blocked.
fn back_one(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, u: &Unit, depth: u32) -> Back {
    let mut cands: Vec<Hex> = back_hexes(u.at, u.side).to_vec();
    let prefs = st
        .standing
        .get(u.side)
        .and_then(|s| s.retreat.iter().find(|(i, _)| *i == u.id))
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    cands.sort_by_key(|h| prefs.iter().position(|p| p == h).unwrap_or(usize::MAX));
    let on: Vec<Hex> = cands
        .iter()
        .copied()
        .filter(|h| ctx.board.contains(*h))
        .collect();
    if let Some(h) = on.iter().find(|h| st.unit_at(**h).is_none()) {
        return Back::To(*h);
    }
    if depth < ctx.board.rows.unsigned_abs() {
        for h in &on {
            let Some(o) = st.unit_at(*h).cloned() else {
                continue;
            };
            if o.side != u.side || !is_zombie(ctx, &o) {
                continue;
            }
            match back_one(ctx, st, ev, &o, depth + 1) {
                Back::To(to) => {
                    if let Some(m) = st.unit_mut(o.id) {
                        m.at = to;
                    }
                    unit_moved(st, o.id);
                    ev.push(Event::Zombies {
                        what: "dislodged".into(),
                        side: st.sides[o.side].clone(),
                        at: *h,
                        to: Some(to),
                        figures: o.figures,
                    });
                    return Back::To(*h);
                }
                Back::OffBoard => {
                    ev.push(Event::Zombies {
                        what: "off-board".into(),
                        side: st.sides[o.side].clone(),
                        at: *h,
                        to: None,
                        figures: o.figures,
                    });
                    let by = State::other(o.side);
                    lose(
                        ctx,
                        st,
                        ev,
                        o.id,
                        o.figures,
                        by,
                        "dislodged off the board",
                        "flag",
                    );
                    return Back::To(*h);
                }
                Back::Blocked => {}
            }
        }
    }
    if on.len() < cands.len() {
        Back::OffBoard
    } else {
        Back::Blocked
    }
}

/// After a zombie unit's battle: "All eliminated Living figures or models
/// are exchanged for Zombies on a one-for-one basis ... A new Zombie figure
/// is placed with the Zombie Unit that eliminated the Living figure/model
/// ... even if it means that there are now more than 3 Zombie figures in
/// the hex", and "If a Zombie Unit reaches 6 figures in size it immediately
/// divides into two equally-sized Zombie Units". `removed_before` is the
/// Dead Player's count of Living figures removed before the battle.
pub fn after_battle(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    unit: u32,
    removed_before: u32,
) {
    let Some(dead) = st.zombies.as_ref().map(|z| z.dead) else {
        return;
    };
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    if u.side != dead || !is_zombie(ctx, &u) {
        return;
    }
    let gained = st.figures_removed[dead].saturating_sub(removed_before);
    if gained == 0 {
        return;
    }
    if let Some(m) = st.unit_mut(unit) {
        m.figures += gained;
        m.start = m.start.max(m.figures);
    }
    ev.push(Event::Zombies {
        what: "raised".into(),
        side: st.sides[dead].clone(),
        at: u.at,
        to: None,
        figures: gained,
    });
    divide(ctx, st, ev, unit);
}

/// After any step of a turn: a Zombie Unit of 6 or more figures that found
/// no empty hex next to it when it grew "stays whole until it can divide"
/// (docs/rules/memoir44.md), so it divides once a hex beside it is free.
pub fn after_step(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>) {
    let Some(dead) = st.zombies.as_ref().map(|z| z.dead) else {
        return;
    };
    let big: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == dead && is_zombie(ctx, u) && u.figures >= ctx.r.zombies.divide_at)
        .map(|u| u.id)
        .collect();
    for id in big {
        divide(ctx, st, ev, id);
    }
}

/// "It immediately divides into two equally-sized Zombie Units. One Zombie
/// Unit remains on the original hex, the other one is placed on any
/// adjacent hex, provided that no Living Unit is already there": the first
/// empty adjacent hex, those behind first, then in board order (row, then
/// column from the left of row 1). An odd number leaves the larger
/// half on the original hex. With no empty hex next to it, it stays whole.
fn divide(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, unit: u32) {
    let at = ctx.r.zombies.divide_at.max(2);
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    if u.figures < at {
        return;
    }
    let back = back_hexes(u.at, u.side);
    let mut cands: Vec<Hex> = u.at.neighbours().to_vec();
    cands.sort_by_key(|h| (!back.contains(h), h.row, h.col));
    let Some(h) = cands
        .into_iter()
        .find(|h| ctx.board.contains(*h) && st.unit_at(*h).is_none())
    else {
        return;
    };
    let half = u.figures / 2;
    let id = st.next_unit;
    st.next_unit += 1;
    if let Some(m) = st.unit_mut(unit) {
        m.figures -= half;
        m.start = m.figures.max(ctx.spec(&m.kind).figures);
    }
    st.units.push(Unit {
        start: half.max(ctx.spec(&u.kind).figures),
        ..Unit::arriving(id, u.side, &u.kind, h, half)
    });
    ev.push(Event::Zombies {
        what: "divided".into(),
        side: st.sides[u.side].clone(),
        at: u.at,
        to: Some(h),
        figures: half,
    });
    divide(ctx, st, ev, unit);
    divide(ctx, st, ev, id);
}

/// The end of any turn of the variant: the markers occupied for the Dead
/// Player's whole turn are removed, zombie retreats start afresh, and the
/// game ends when a side is annihilated. "The Dead Player will win if he
/// annihilates all of the Living Units or lose if they annihilate all of
/// his ... If he saves more figures/models than were lost on the Board,
/// then the game is a Draw. Otherwise the Dead Player wins ... add the
/// number of unclaimed Victory Markers to the number of figures/models
/// saved by the Living Player when determining if there has been a Draw."
pub fn end_turn(st0: &State, st: &mut State, ev: &mut Vec<Event>, mover: usize) {
    let Some(dead) = st.zombies.as_ref().map(|z| z.dead) else {
        return;
    };
    if mover == dead {
        for (id, h) in occupiers(st0) {
            if st.unit(id).is_some_and(|u| u.at == h) {
                if let Some(z) = st.zombies.as_mut() {
                    z.markers.retain(|m| *m != h);
                }
                ev.push(Event::Zombies {
                    what: "marker-removed".into(),
                    side: st.sides[dead].clone(),
                    at: h,
                    to: None,
                    figures: 0,
                });
            }
        }
    }
    if let Some(z) = st.zombies.as_mut() {
        z.retreated.clear();
    }
    if st.over {
        return;
    }
    let living = State::other(dead);
    let any = |s: usize| st.units.iter().any(|u| u.side == s);
    let Some(z) = st.zombies.clone() else {
        return;
    };
    let lost = z.living_start.saturating_sub(
        z.saved
            + st.units
                .iter()
                .filter(|u| u.side == living)
                .map(|u| u.figures)
                .sum::<u32>(),
    );
    let kept = z.saved + z.markers.len() as u32;
    let score = vec![
        (st.sides[living].clone(), kept),
        (st.sides[dead].clone(), lost),
    ];
    let (winner, reason) = if !any(dead) {
        (
            st.sides[living].clone(),
            "the Living have annihilated every zombie unit".to_string(),
        )
    } else if !any(living) {
        if kept > lost {
            (
                String::new(),
                format!(
                    "no Living unit is left on the board; {} figures saved and {} victory markers unclaimed outnumber the {lost} lost: a draw",
                    z.saved,
                    z.markers.len()
                ),
            )
        } else {
            (
                st.sides[dead].clone(),
                format!(
                    "no Living unit is left on the board; {} figures saved and {} victory markers unclaimed do not outnumber the {lost} lost",
                    z.saved,
                    z.markers.len()
                ),
            )
        }
    } else {
        return;
    };
    st.over = true;
    st.winner = Some(winner.clone());
    ev.push(Event::GameOver {
        winner: Some(winner).filter(|w| !w.is_empty()),
        score,
        reason,
    });
}

/// NMR and random play for the Dead Player: the moves the marker rule
/// requires (the first free zombie next to each empty marker), nothing more.
#[must_use]
pub fn pass_orders(ctx: &Ctx<'_>, st: &State) -> String {
    let Some(z) = &st.zombies else {
        return String::new();
    };
    let occupying: BTreeSet<u32> = occupiers(st).into_iter().map(|(i, _)| i).collect();
    let mut used = BTreeSet::new();
    let mut text = String::from("# the Dead shamble on\n");
    for m in &z.markers {
        if st.unit_at(*m).is_some() {
            continue;
        }
        if let Some(u) = st.units.iter().find(|u| {
            u.side == z.dead
                && u.at.adjacent(*m)
                && !occupying.contains(&u.id)
                && !used.contains(&u.id)
                && can_step(ctx, st, u, *m)
        }) {
            used.insert(u.id);
            text.push_str(&format!("MOVE {} {m}\n", u.at));
        }
    }
    text
}

/// One sentence for a report.
#[must_use]
pub fn describe(what: &str, side: &str, at: Hex, to: Option<Hex>, figures: u32) -> String {
    let to = to.map(|h| h.to_string()).unwrap_or_default();
    match what {
        "raised" => {
            format!("{figures} fallen Living figure(s) rise and join the zombie unit at {at}.")
        }
        "divided" => {
            format!("The zombie unit at {at} divides: {figures} figure(s) shamble to {to}.")
        }
        "dislodged" => format!("The zombie unit at {at} is dislodged back to {to}."),
        "off-board" => {
            format!("The zombie unit at {at} is forced off the board and permanently lost.")
        }
        "marker-removed" => {
            format!("The zombies have searched {at}: its victory marker is removed for good.")
        }
        "saved" => {
            format!("{side}: the unit at {at} retreats off the board; {figures} figure(s) saved.")
        }
        other => format!("{side}: {other} at {at}."),
    }
}

/// A case's expectations of the variant (case.rs): the markers left and
/// the figures saved. Each difference as a sentence.
#[must_use]
pub fn case_check(st: &State, markers: Option<&[String]>, saved: Option<u32>) -> Vec<String> {
    let mut out = Vec::new();
    let z = st.zombies.clone().unwrap_or_default();
    if let Some(want) = markers {
        let mut want: Vec<String> = want.iter().map(|h| h.to_ascii_uppercase()).collect();
        want.sort();
        let mut got: Vec<String> = z.markers.iter().map(Hex::to_string).collect();
        got.sort();
        if want != got {
            out.push(format!("zombie_markers: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(n) = saved {
        if z.saved != n {
            out.push(format!("saved: expected {n}, got {}", z.saved));
        }
    }
    out
}

/// "Achtung! Zombie!" on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, _: usize) {
        after_step(p.ctx, p.st, p.ev);
    }

    /// The Living it killed rise with it.
    fn after_battle(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        b: &crate::turn::hooks::Fought,
    ) {
        after_battle(p.ctx, p.st, p.ev, b.unit, b.removed);
    }

    fn victory(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        before: &State,
        side: usize,
    ) -> bool {
        if p.st.zombies.is_none() {
            return false;
        }
        end_turn(before, p.st, p.ev, side);
        true
    }
}
