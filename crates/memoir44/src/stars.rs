//! Battle Star Markers (Optional) in the house rules: the markers a scenario places
//! (`[[battle_stars]]`) and what they do. Camouflage is a unit's
//! `camouflage = true` (state.rs `concealed`); the rest live here:
//! the Heroic Leader, Calling In Air Strikes (Hill 317 Rule), Capturing
//! Equipment and Freeing Prisoners, Sabotage (and the Supply Depot it may
//! destroy), Sabotaging A Dam, Collapsible Assault Boats and Forward
//! Spotting Artillery.

use super::battle::Ctx;
use super::board::Hex;
use super::events::{Event, Modifier};
use super::state::State;
use super::turn::Mode;
use adjutant_dice::Dice;
use serde::{Deserialize, Serialize};

/// The marker kinds a scenario may place.
pub const KINDS: &[&str] = &[
    "heroic-leader",
    "air-strikes",
    "equipment",
    "prisoner",
    // Drop-Zone: the Paratroops' supply-base (supply.rs).
    "drop-zone",
    SABOTAGE,
    DAM,
    BOATS,
    SPOTTING,
    // "EX-TER-MIN-ATE!": a Heroic Leader with the Human Factor
    // (variants/exterminate.rs).
    "human-factor",
];

/// Sabotage: the objective a side's unit may blow up (`SABOTAGE <hex>`).
pub const SABOTAGE: &str = "sabotage";
/// Sabotaging A Dam: a dam the side may sabotage; `count` its stars.
pub const DAM: &str = "dam";
/// Collapsible Assault Boats: with a unit.
pub const BOATS: &str = "assault-boats";
/// Forward Spotting Artillery: the hex a unit of the side must hold.
pub const SPOTTING: &str = "forward-spotting";
/// "When a fourth Battle Star is placed on the Dam, it is considered
/// successfully sabotaged."
pub const DAM_STARS: u32 = 4;

fn is_leader(kind: &str) -> bool {
    kind == "heroic-leader" || kind == "human-factor"
}

/// One Battle Star marker on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Star {
    pub kind: String,
    /// The side it belongs to (the Heroic Leader's; the side that calls the
    /// air strikes); None for equipment and prisoners (either side's
    /// infantry may take them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<usize>,
    /// Where it is: on the board, or with its unit.
    pub at: Hex,
    /// The unit it is with (a leader's unit, the infantry carrying it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<u32>,
    /// Sabotaging A Dam: the Battle Stars placed on the dam so far.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub count: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn leader_of(st: &State, id: u32) -> bool {
    st.stars
        .iter()
        .any(|s| s.kind == "heroic-leader" && s.unit == Some(id))
}

fn any_leader_of(st: &State, id: u32) -> bool {
    st.stars
        .iter()
        .any(|s| is_leader(&s.kind) && s.unit == Some(id))
}

/// Heroic Leader: "receives 1 additional Battle Die when accompanied by this
/// Leader."
#[must_use]
pub fn battle_mods(st: &State, attacker: u32) -> Option<Modifier> {
    leader_of(st, attacker).then(|| Modifier {
        dice: 1,
        reason: "Heroic Leader".into(),
    })
}

/// Heroic Leader: "A Unit ignores the first Purple Flag" (and the Human
/// Factor's: "A Unit ignores the first Purple Flag").
#[must_use]
pub fn ignores_first_flag(st: &State, id: u32) -> bool {
    any_leader_of(st, id)
}

/// Calling In Air Strikes (Hill 317 Rule): "For as long as a Unit occupies a
/// specific hex, the player may play any Recon Card as an Air Power Card."
#[must_use]
pub fn air_strikes(st: &State, side: usize) -> bool {
    st.stars.iter().any(|s| {
        s.kind == "air-strikes"
            && s.side == Some(side)
            && st.unit_at(s.at).is_some_and(|u| u.side == side)
    })
}

/// After each order of a turn: the Heroic Leader of an eliminated unit, and
/// equipment and prisoners picked up, carried, dropped or lost. `since` is
/// the index of the first event of the order (to see who eliminated a
/// carrier).
pub fn after_step(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    since: usize,
    dice: &mut dyn Dice,
) {
    if st.stars.is_empty() {
        return;
    }
    let mut stars = std::mem::take(&mut st.stars);
    let mut keep = Vec::new();
    for mut s in stars.drain(..) {
        match (s.kind.as_str(), s.unit) {
            ("human-factor" | "heroic-leader", Some(id)) if st.unit(id).is_none() => {
                leader_lost(ctx, st, ev, s, &mut keep, dice);
            }
            ("heroic-leader" | "human-factor", Some(id)) => {
                // "The Leader may not willingly leave the Unit": he moves
                // with it.
                if let Some(u) = st.unit(id) {
                    s.at = u.at;
                }
                keep.push(s);
            }
            (BOATS, Some(id)) => {
                let Some(u) = st.unit(id) else {
                    // The boats go with an eliminated unit.
                    continue;
                };
                // "Once the Unit has crossed the River, remove the Unit's
                // Battle Star": it stepped from a river hex onto land.
                if u.at != s.at && boat_water(ctx, st, s.at) && !boat_water(ctx, st, u.at) {
                    ev.push(Event::BattleStar {
                        marker: s.kind.clone(),
                        at: u.at,
                        what: "abandoned".into(),
                        faces: vec![],
                    });
                    continue;
                }
                s.at = u.at;
                keep.push(s);
            }
            (DAM, _) => {
                // "But if an Allied Unit captures the Dam hex at any point
                // before the Axis Battle Star count reaches four, the Battle
                // Stars are removed".
                let taken = st.unit_at(s.at).is_some_and(|u| Some(u.side) != s.side);
                if taken && s.count > 0 {
                    s.count = 0;
                    ev.push(Event::BattleStar {
                        marker: s.kind.clone(),
                        at: s.at,
                        what: "captured".into(),
                        faces: vec![],
                    });
                }
                keep.push(s);
            }
            ("equipment" | "prisoner", Some(id)) => match st.unit(id) {
                Some(u) => {
                    s.at = u.at;
                    keep.push(s);
                }
                None => carrier_lost(ctx, ev, since, s, &mut keep),
            },
            ("equipment" | "prisoner", None) => {
                // "An Infantry Unit must stop on that hex to pick it up."
                if let Some(u) = st
                    .unit_at(s.at)
                    .filter(|u| ctx.spec(&u.kind).class == "infantry")
                {
                    s.unit = Some(u.id);
                    ev.push(Event::BattleStar {
                        marker: s.kind.clone(),
                        at: s.at,
                        what: "picked up".into(),
                        faces: vec![],
                    });
                }
                keep.push(s);
            }
            _ => keep.push(s),
        }
    }
    st.stars = keep;
}

/// The unit a Heroic Leader or the Human Factor led is eliminated: Human
/// Factor: "If the Unit is eliminated, Move his Battle Star to the nearest
/// friendly Unit and continue the fight from there" (no roll for his loss);
/// Heroic Leader: "If the Unit is eliminated, roll two Battle Dice. If a
/// Green Star is rolled, the Heroic Leader is lost. Otherwise, Move his
/// Battle Star to the nearest friendly Unit".
fn leader_lost(
    ctx: &Ctx<'_>,
    st: &State,
    ev: &mut Vec<Event>,
    mut s: Star,
    keep: &mut Vec<Star>,
    dice: &mut dyn Dice,
) {
    let faces: Vec<String> = if s.kind == "heroic-leader" {
        (0..2).map(|_| ctx.r.face(dice.roll(6))).collect()
    } else {
        Vec::new()
    };
    let side = s.side.unwrap_or(0);
    let nearest = st
        .units
        .iter()
        .filter(|u| u.side == side && !leader_of_in(keep, u.id))
        .min_by_key(|u| (u.at.distance(s.at), u.id))
        .map(|u| (u.id, u.at));
    let lost = faces.iter().any(|f| f == "star") || nearest.is_none();
    let from = s.at;
    if let (false, Some((id, at))) = (lost, nearest) {
        s.unit = Some(id);
        s.at = at;
    }
    ev.push(Event::BattleStar {
        marker: s.kind.clone(),
        at: if lost { from } else { s.at },
        what: if lost { "lost" } else { "joins" }.into(),
        faces,
    });
    if !lost {
        keep.push(s);
    }
}

/// The unit carrying equipment or a prisoner is eliminated: "If the Unit is
/// destroyed, the equipment remains on the ground ... Artillery fire will
/// destroy the equipment if its attack also eliminates the carrying
/// Infantry Unit." "the prisoner is killed if the Unit freeing him is
/// destroyed."
fn carrier_lost(
    ctx: &Ctx<'_>,
    ev: &mut Vec<Event>,
    since: usize,
    mut s: Star,
    keep: &mut Vec<Star>,
) {
    let by_artillery = ev[since.min(ev.len())..].iter().rev().any(|e| {
        matches!(e, Event::Battle { attacker, .. }
            if ctx.r.units.get(attacker).is_some_and(|a| a.class == "artillery"))
    });
    let gone = s.kind == "prisoner" || by_artillery;
    ev.push(Event::BattleStar {
        marker: s.kind.clone(),
        at: s.at,
        what: if s.kind == "prisoner" {
            "killed"
        } else if gone {
            "destroyed"
        } else {
            "dropped"
        }
        .into(),
        faces: vec![],
    });
    if !gone {
        s.unit = None;
        keep.push(s);
    }
}

fn leader_of_in(stars: &[Star], id: u32) -> bool {
    stars
        .iter()
        .any(|s| is_leader(&s.kind) && s.unit == Some(id))
}

/// The report's sentence for a Battle Star event.
#[must_use]
pub fn describe_event(e: &Event) -> Option<String> {
    let Event::BattleStar {
        marker: kind,
        at,
        what,
        faces,
    } = e
    else {
        return None;
    };
    let dice = if faces.is_empty() {
        String::new()
    } else {
        format!(" [{}]", faces.join(" "))
    };
    match (kind.as_str(), what.as_str()) {
        (SABOTAGE, "destroyed") => {
            return Some(format!(
                "Sabotage at {at}{dice}: a star, the objective is destroyed and its tile removed (a victory marker)."
            ))
        }
        (SABOTAGE, _) => return Some(format!("Sabotage at {at}{dice}: no star, it stands.")),
        (DAM, "roll") => return Some(format!("The dam saboteurs roll{dice}.")),
        (DAM, "sabotaged") => {
            return Some(format!(
                "The dam at {at} is sabotaged: {DAM_STARS} victory markers."
            ))
        }
        (DAM, "captured") => {
            return Some(format!(
                "The dam at {at} is captured: its Battle Stars are removed."
            ))
        }
        (DAM, n) => return Some(format!("A Battle Star is placed on the dam at {at} ({n}).")),
        (BOATS, _) => {
            return Some(format!(
                "The unit at {at} has crossed the river and abandons its assault boats."
            ))
        }
        _ => {}
    }
    let name = match kind.as_str() {
        "heroic-leader" => "The Heroic Leader",
        "human-factor" => "The Heroic Leader (Human Factor)",
        "prisoner" => "The prisoner",
        _ => "The equipment",
    };
    Some(match what.as_str() {
        "lost" => format!("{name}'s unit is eliminated at {at}{dice}: the Heroic Leader is lost."),
        "joins" => format!(
            "{name}'s unit is eliminated{dice}: he joins the nearest friendly unit, at {at}."
        ),
        "picked up" => format!("{name} at {at} is picked up by the infantry there."),
        "dropped" => format!("{name}'s carriers are eliminated: it lies on the ground at {at}."),
        "destroyed" => format!("{name} is destroyed by the artillery fire at {at}."),
        "killed" => format!("{name}'s rescuers are destroyed at {at}: the prisoner is killed."),
        other => format!("{name} at {at}: {other}."),
    })
}

/// Sabotage: is there an objective `side` may blow up at `h`?
#[must_use]
pub fn sabotage_at(st: &State, side: usize, h: Hex) -> bool {
    st.stars
        .iter()
        .any(|s| s.kind == SABOTAGE && s.side == Some(side) && s.at == h)
}

/// Sabotage: "To destroy the objective, the Unit must be on the
/// corresponding hex and roll its Close Assault combat dice. If a Star is
/// rolled, the objective is destroyed. Take the Battle Star as a Victory
/// Marker, and remove the destroyed Tile from the map." The unit rolls the
/// dice of its table at 1 hex; a Supply Depot destroyed so also costs the
/// enemy's armour a hex of movement (Supply Depot, Comment).
pub fn sabotage(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, dice: &mut dyn Dice, id: u32) {
    let Some(u) = st.unit(id).cloned() else {
        return;
    };
    let n = ctx.spec(&u.kind).dice.first().copied().unwrap_or(0);
    let faces: Vec<String> = (0..n).map(|_| ctx.r.face(dice.roll(6))).collect();
    let blown = faces.iter().any(|f| f == "star");
    ev.push(Event::BattleStar {
        marker: SABOTAGE.into(),
        at: u.at,
        what: if blown { "destroyed" } else { "failed" }.into(),
        faces,
    });
    if !blown {
        return;
    }
    st.stars
        .retain(|s| !(s.kind == SABOTAGE && s.side == Some(u.side) && s.at == u.at));
    if let Some(m) = st.medal_units.get_mut(u.side) {
        *m += 1;
    }
    // The tile goes (the event above says so); its obstacles stay, and so
    // do the railway and the road through the hex (a station, a crossing:
    // the track is not the objective).
    let mut lost_move = 0;
    if let Some(fs) = st.terrain.get_mut(&u.at) {
        fs.retain(|f| match ctx.r.feature(f) {
            Some(t) if t.kind == "tile" && !t.road && !ctx.r.trains.track.contains(f) => {
                lost_move += t.destroyed_costs_armour_move;
                false
            }
            _ => true,
        });
        if fs.is_empty() {
            st.terrain.remove(&u.at);
        }
    }
    if lost_move > 0 {
        let enemy = State::other(u.side);
        if st.armour_move_lost.len() < 2 {
            st.armour_move_lost.resize(2, 0);
        }
        st.armour_move_lost[enemy] += lost_move;
    }
}

/// Supply Depot: "destroying an enemy Supply Depot reduces the Movement of
/// all enemy Armoured Units by one hex": both the most hexes such a unit
/// may move and the most it may move and still battle (as Deep Snow's "by
/// one hex").
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &super::state::Unit, m: Mode) -> Mode {
    let lost = st.armour_move_lost.get(u.side).copied().unwrap_or(0);
    if lost == 0 || ctx.spec(&u.kind).class != "armour" {
        return m;
    }
    let mut m = m;
    m.max_move = m.max_move.saturating_sub(lost);
    m.move_battle = m.move_battle.saturating_sub(lost);
    m
}

/// Sabotaging A Dam: "After playing a Command Card, and before any Units
/// are ordered, he rolls two Battle Dice. For each Green Star rolled, one
/// Battle Star is placed on the Dam. If two Green Stars are rolled and only
/// one Dam is occupied, only one Battle Star is placed on the occupied Dam.
/// When a fourth Battle Star is placed on the Dam, it is considered
/// successfully sabotaged. Remove the Battle Stars from the Dam hex and place
/// four Axis Victory Markers." At most one star a dam a roll; a single star
/// with two dams occupied goes on the dam with more stars (then the first in
/// board order).
pub fn dam_sabotage(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    side: usize,
) {
    let mut held: Vec<(u32, Hex)> = st
        .stars
        .iter()
        .filter(|s| {
            s.kind == DAM
                && s.side == Some(side)
                && st.unit_at(s.at).is_some_and(|u| u.side == side)
        })
        .map(|s| (s.count, s.at))
        .collect();
    if held.is_empty() {
        return;
    }
    held.sort_by_key(|(c, h)| (std::cmp::Reverse(*c), *h));
    let faces: Vec<String> = (0..2).map(|_| ctx.r.face(dice.roll(6))).collect();
    let stars = faces.iter().filter(|f| *f == "star").count();
    let first = held[0].1;
    ev.push(Event::BattleStar {
        marker: DAM.into(),
        at: first,
        what: "roll".into(),
        faces,
    });
    for (_, h) in held.into_iter().take(stars) {
        let Some(s) = st
            .stars
            .iter_mut()
            .find(|s| s.kind == DAM && s.side == Some(side) && s.at == h)
        else {
            continue;
        };
        s.count += 1;
        let n = s.count;
        if n >= DAM_STARS {
            st.stars
                .retain(|s| !(s.kind == DAM && s.side == Some(side) && s.at == h));
            if let Some(m) = st.medal_units.get_mut(side) {
                *m += DAM_STARS;
            }
            ev.push(Event::BattleStar {
                marker: DAM.into(),
                at: h,
                what: "sabotaged".into(),
                faces: vec![],
            });
        } else {
            ev.push(Event::BattleStar {
                marker: DAM.into(),
                at: h,
                what: format!("{n} of {DAM_STARS}"),
                faces: vec![],
            });
        }
    }
}

/// Collapsible Assault Boats: does unit `id` still have its boats?
#[must_use]
pub fn has_boats(st: &State, id: u32) -> bool {
    st.stars
        .iter()
        .any(|s| s.kind == BOATS && s.unit == Some(id))
}

/// Is `h` a hex Assault Boats may enter ("A Unit with Assault Boats may
/// enter a River hex")?
#[must_use]
pub fn boat_water(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    ctx.board.contains(h) && ctx.info(st, h).any(|t| t.assault_boats)
}

/// May unit `id` enter `h` in its boats?
#[must_use]
pub fn boats_enter(ctx: &Ctx<'_>, st: &State, id: u32, h: Hex) -> bool {
    has_boats(st, id) && boat_water(ctx, st, h)
}

/// Is unit `id` in its Assault Boats on a river hex?
#[must_use]
pub fn afloat(ctx: &Ctx<'_>, st: &State, id: u32) -> bool {
    st.unit(id)
        .is_some_and(|u| has_boats(st, id) && boat_water(ctx, st, u.at))
}

/// "Reduce the number of Battle Dice the Unit rolls by 1 when on a River
/// hex."
#[must_use]
pub fn boat_mods(ctx: &Ctx<'_>, st: &State, attacker: u32) -> Option<Modifier> {
    afloat(ctx, st, attacker).then(|| Modifier {
        dice: -1,
        reason: "in assault boats".into(),
    })
}

/// Forward Spotting Artillery: "Big Guns rules are in effect for all
/// Artillery Units for as long as a specified Unit occupies a specified
/// hex." Does `side` hold its spotting hex now?
#[must_use]
pub fn spotting(st: &State, side: usize) -> bool {
    st.stars.iter().any(|s| {
        s.kind == SPOTTING
            && s.side == Some(side)
            && st.unit_at(s.at).is_some_and(|u| u.side == side)
    })
}

/// The Battle Star Markers on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(
        &self,
        ctx: &Ctx<'_>,
        st: &State,
        u: &super::state::Unit,
        m: Mode,
        _: Option<&[Hex]>,
    ) -> Mode {
        // Sabotage of a Supply Depot: the armour's lost hex.
        mode(ctx, st, u, m)
    }

    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, since: usize) {
        after_step(p.ctx, p.st, p.ev, since, p.dice);
    }
}
