//! Appendix 1, "Bridge Demolition Rules" (the house rules).
//!
//! "Only an Engineer Unit at one end of a Bridge may place charges on a
//! Bridge. However, a Scenario may state that the Bridge is already rigged
//! for detonation ... Play a Section Card corresponding to the Section of the
//! Board in which the Bridge lays." Option 1: `CHARGE <engineer hex> <bridge
//! hex>` (the engineers' whole action). Option 2: `DETONATE <bridge hex>`
//! ("the same as ordering a Unit"): two dice, a star fails (a star or an
//! infantry symbol once a battle took place on the bridge after the charges
//! were placed). Option 3: four tank symbols from Heavy Artillery or
//! Big-Guns firing at the bridge, or from Barrage and Air Power cards.

use super::board::Hex;
use super::events::Event;
use super::state::State;
use adjutant_dice::Dice;
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

/// The bridges Bridge Demolition destroys ("a Road, Pontoon or Railroad
/// Bridge": the railway bridge is left to the Trains rules).
pub const BRIDGES: &[&str] = &["bridge", PONTOON];

/// A Pontoon Bridge over a river hex (Appendix 2, Roads & Railways).
pub const PONTOON: &str = "pontoon-bridge";

/// Is `h` a bridge?
#[must_use]
pub fn is_bridge(st: &State, h: Hex) -> bool {
    BRIDGES.iter().any(|b| st.has_feature(h, b))
}

/// May the engineers `u` of `side` build a Pontoon Bridge on `river` with
/// this turn's card? "Pontoon Bridges may only be used in scenarios
/// allowing them ... To construct a Pontoon Bridge, play an Attack Command
/// Card. An Engineer Unit next to a River uses the turn to place a Pontoon
/// Bridge on the River hex." (The card's section is checked as for charges.)
pub fn pontoon_check(
    ctx: &super::battle::Ctx<'_>,
    st: &State,
    action: &super::turn::Action,
    side: usize,
    u: &super::state::Unit,
    river: Hex,
) -> Result<(), String> {
    if !st.pontoon_sides.contains(&side) {
        return Err(
            "Pontoon Bridges may only be used in scenarios allowing them (this one does not, for your side)"
                .into(),
        );
    }
    if !ctx.spec(&u.kind).engineer {
        return Err("only an Engineer Unit may construct a Pontoon Bridge".into());
    }
    let spec = &ctx.r.bridge_demolition;
    if !st
        .features(river)
        .iter()
        .any(|f| spec.pontoon_rivers.contains(f))
    {
        return Err(format!(
            "a Pontoon Bridge is placed on a River hex: {river} is not one"
        ));
    }
    if is_bridge(st, river) {
        return Err(format!("there is already a bridge at {river}"));
    }
    if !u.at.adjacent(river) {
        return Err(format!(
            "an Engineer Unit next to a River places the Pontoon Bridge: {} is not next to {river}",
            u.at
        ));
    }
    let attack = matches!(action, super::turn::Action::Card { effect, .. }
        if spec.pontoon_cards.contains(effect));
    if !attack {
        return Err("to construct a Pontoon Bridge, play an Attack Command Card".into());
    }
    Ok(())
}

/// Place a Pontoon Bridge over the river hex.
pub fn build_pontoon(st: &mut State, ev: &mut Vec<Event>, side: usize, from: Hex, river: Hex) {
    let fs = st.terrain.entry(river).or_default();
    if !fs.iter().any(|f| f == PONTOON) {
        fs.push(PONTOON.into());
    }
    ev.push(Event::PontoonBuilt {
        side: st.sides[side].clone(),
        from,
        at: river,
    });
}

/// The charge on `h`, if any.
#[must_use]
pub fn charge(st: &State, h: Hex) -> Option<&Charge> {
    st.charges.iter().find(|c| c.at == h)
}

fn destroy(st: &mut State, ev: &mut Vec<Event>, h: Hex, side: usize, how: &str) {
    if let Some(fs) = st.terrain.get_mut(&h) {
        fs.retain(|f| !BRIDGES.contains(&f.as_str()));
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

/// Option 3 by a card: may Barrage or Air Power target the hex as a bridge
/// ("Not Rigged For Detonation & No Engineer Unit Present": a bridge with no
/// charge and no unit on it)?
#[must_use]
pub fn card_target(st: &State, h: Hex) -> bool {
    is_bridge(st, h) && charge(st, h).is_none() && st.unit_at(h).is_none()
}

/// Option 3: tank symbols from Heavy Artillery or Big-Guns (from their hex)
/// or from a Barrage or Air Power card (`card`) on a bridge not rigged for
/// detonation.
#[allow(clippy::too_many_arguments)]
pub fn bombard(
    r: &super::Ruleset,
    st: &mut State,
    ev: &mut Vec<Event>,
    side: usize,
    from: Hex,
    h: Hex,
    faces: Vec<String>,
    card: Option<&str>,
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
        card: card.map(str::to_string),
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

/// Bridge Demolition on the turn's hooks (turn/hooks.rs): charges on a
/// bridge the enemy now occupies go.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, _: usize) {
        after_step(p.st, p.ev);
    }
}
