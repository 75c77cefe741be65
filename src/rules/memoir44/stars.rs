//! Battle Star Markers (Optional), seeds/004: the markers a scenario places
//! (`[[battle_stars]]`) and what they do. Camouflage is a unit's
//! `camouflage = true` (state.rs `concealed`); the rest live here:
//! the Heroic Leader, Calling In Air Strikes (Hill 317 Rule), Capturing
//! Equipment and Freeing Prisoners.

use super::battle::Ctx;
use super::board::Hex;
use super::events::{Event, Modifier};
use super::state::State;
use crate::engine::dice::Dice;
use serde::{Deserialize, Serialize};

/// The marker kinds a scenario may place.
pub const KINDS: &[&str] = &[
    "heroic-leader",
    "air-strikes",
    "equipment",
    "prisoner",
    // Drop-Zone: the Paratroops' supply-base (supply.rs).
    "drop-zone",
    // "EX-TER-MIN-ATE!": a Heroic Leader with the Human Factor
    // (variants/exterminate.rs).
    "human-factor",
];

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
            ("human-factor", Some(id)) if st.unit(id).is_none() => {
                // Human Factor: "If the Unit is eliminated, Move his Battle
                // Star to the nearest friendly Unit and continue the fight
                // from there" (no roll for his loss).
                let side = s.side.unwrap_or(0);
                let nearest = st
                    .units
                    .iter()
                    .filter(|u| u.side == side && !leader_of_in(&keep, u.id))
                    .min_by_key(|u| (u.at.distance(s.at), u.id))
                    .map(|u| (u.id, u.at));
                let from = s.at;
                if let Some((id, at)) = nearest {
                    s.unit = Some(id);
                    s.at = at;
                }
                ev.push(Event::BattleStar {
                    marker: s.kind.clone(),
                    at: if nearest.is_none() { from } else { s.at },
                    what: if nearest.is_none() { "lost" } else { "joins" }.into(),
                    faces: vec![],
                });
                if nearest.is_some() {
                    keep.push(s);
                }
            }
            ("heroic-leader", Some(id)) if st.unit(id).is_none() => {
                // "If the Unit is eliminated, roll two Battle Dice. If a Green
                // Star is rolled, the Heroic Leader is lost. Otherwise, Move
                // his Battle Star to the nearest friendly Unit".
                let faces: Vec<String> = (0..2).map(|_| ctx.r.face(dice.roll(6))).collect();
                let side = s.side.unwrap_or(0);
                let nearest = st
                    .units
                    .iter()
                    .filter(|u| u.side == side && !leader_of_in(&keep, u.id))
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
            ("heroic-leader" | "human-factor", Some(id)) => {
                // "The Leader may not willingly leave the Unit": he moves
                // with it.
                if let Some(u) = st.unit(id) {
                    s.at = u.at;
                }
                keep.push(s);
            }
            ("equipment" | "prisoner", Some(id)) => match st.unit(id) {
                Some(u) => {
                    s.at = u.at;
                    keep.push(s);
                }
                None => {
                    // "If the Unit is destroyed, the equipment remains on the
                    // ground ... Artillery fire will destroy the equipment if
                    // its attack also eliminates the carrying Infantry Unit."
                    // "the prisoner is killed if the Unit freeing him is
                    // destroyed."
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
    let name = match kind.as_str() {
        "heroic-leader" => "The Heroic Leader",
        "human-factor" => "The Heroic Leader (Human Factor)",
        "prisoner" => "The prisoner",
        _ => "The equipment",
    };
    let dice = if faces.is_empty() {
        String::new()
    } else {
        format!(" [{}]", faces.join(" "))
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
