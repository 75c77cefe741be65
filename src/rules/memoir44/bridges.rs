//! Appendix 1, "Bridge Demolition Rules" (seeds/004).
//!
//! "Only an Engineer Unit at one end of a Bridge may place charges on a
//! Bridge. However, a Scenario may state that the Bridge is already rigged
//! for detonation ... Play a Section Card corresponding to the Section of the
//! Board in which the Bridge lays." Option 1: `CHARGE <engineer hex> <bridge
//! hex>` (the engineers' whole action). Option 2: `DETONATE <bridge hex>`
//! ("the same as ordering a Unit"): two dice, a star fails (a star or an
//! infantry symbol once a battle took place on the bridge after the charges
//! were placed). Option 3: four tank symbols from Heavy Artillery or
//! Big-Guns firing at the bridge.

use super::board::Hex;
use super::events::Event;
use super::state::State;
use crate::engine::dice::Dice;
use serde::{Deserialize, Serialize};

/// A bridge rigged for detonation (a Battle Star on it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charge {
    pub at: Hex,
    /// The side whose charges they are.
    pub side: usize,
    /// A battle took place on the bridge after the charges were placed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub battled: bool,
}

/// Option 3: tank symbols scored on a bridge (Battle Stars mark them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Damage {
    pub at: Hex,
    pub hits: u32,
}

/// Is `h` a bridge?
#[must_use]
pub fn is_bridge(st: &State, h: Hex) -> bool {
    st.has_feature(h, "bridge")
}

/// The charge on `h`, if any.
#[must_use]
pub fn charge(st: &State, h: Hex) -> Option<&Charge> {
    st.charges.iter().find(|c| c.at == h)
}

fn destroy(st: &mut State, ev: &mut Vec<Event>, h: Hex, side: usize, how: &str) {
    if let Some(fs) = st.terrain.get_mut(&h) {
        fs.retain(|f| f != "bridge");
        if fs.is_empty() {
            st.terrain.remove(&h);
        }
    }
    st.charges.retain(|c| c.at != h);
    st.bridge_damage.retain(|d| d.at != h);
    ev.push(Event::BridgeDestroyed {
        side: st.sides[side].clone(),
        at: h,
        how: how.into(),
    });
}

/// Option 1: the engineers place charges.
pub fn place(st: &mut State, ev: &mut Vec<Event>, side: usize, unit_at: Hex, h: Hex) {
    st.charges.retain(|c| c.at != h);
    st.charges.push(Charge {
        at: h,
        side,
        battled: false,
    });
    ev.push(Event::BridgeCharged {
        side: st.sides[side].clone(),
        from: unit_at,
        at: h,
    });
}

/// Option 2: two dice; a star (or, after a battle on the bridge, a star or
/// an infantry symbol) and the bridge stands.
pub fn detonate(
    r: &super::Ruleset,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    side: usize,
    h: Hex,
) {
    let battled = charge(st, h).is_some_and(|c| c.battled);
    let mut faces = Vec::new();
    for _ in 0..2 {
        faces.push(r.face(dice.roll(6)));
    }
    let failed = faces
        .iter()
        .any(|f| f == "star" || (battled && f == "infantry"));
    ev.push(Event::BridgeDetonation {
        side: st.sides[side].clone(),
        at: h,
        faces,
        destroyed: !failed,
    });
    if !failed {
        destroy(st, ev, h, side, "demolition");
    }
}

/// Option 3: tank symbols from Heavy Artillery or Big-Guns on a bridge not
/// rigged for detonation.
pub fn bombard(
    r: &super::Ruleset,
    st: &mut State,
    ev: &mut Vec<Event>,
    side: usize,
    from: Hex,
    h: Hex,
    faces: Vec<String>,
) {
    let hits = faces.iter().filter(|f| *f == "armour").count() as u32;
    let before = st
        .bridge_damage
        .iter()
        .find(|d| d.at == h)
        .map_or(0, |d| d.hits);
    ev.push(Event::BridgeBombarded {
        side: st.sides[side].clone(),
        from,
        at: h,
        faces,
        hits,
        total: before + hits,
    });
    if hits == 0 {
        return;
    }
    let total = match st.bridge_damage.iter_mut().find(|d| d.at == h) {
        Some(d) => {
            d.hits += hits;
            d.hits
        }
        None => {
            st.bridge_damage.push(Damage { at: h, hits });
            hits
        }
    };
    if total >= r.bridge_demolition.hits_to_destroy {
        destroy(st, ev, h, side, "bombardment");
    }
}

/// After any change of position: "A battle has taken place on the Bridge"
/// marks the charge; "The explosive charges are considered to be removed if
/// the Bridge is ever occupied by the enemy."
pub fn after_step(st: &mut State, ev: &mut Vec<Event>) {
    let mut gone = Vec::new();
    for c in &st.charges {
        if st.unit_at(c.at).is_some_and(|u| u.side != c.side) {
            gone.push(c.at);
        }
    }
    for h in gone {
        st.charges.retain(|c| c.at != h);
        ev.push(Event::BridgeChargesRemoved { at: h });
    }
}

/// A battle from or against a unit on `a` or `b`.
pub fn battled(st: &mut State, a: Hex, b: Hex) {
    for c in &mut st.charges {
        if c.at == a || c.at == b {
            c.battled = true;
        }
    }
}
