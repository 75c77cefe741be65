//! Infantry Support Weapons (Optional) in the house rules: anti-tank infantry,
//! machine-guns, flame-throwers and mortars. They are unit types of the
//! ruleset (`[units.*]` with a `support` table); this module holds what the
//! main rules have no word for: a mortar's grenades and a flame-thrower's
//! stars scored as flags, terrain a weapon may not enter, the cards that
//! also order it, and the one flame-thrower a side may have.

use super::ruleset::{Ruleset, UnitSpec};
use super::state::{State, Unit};
use super::turn::Mode;
use serde::{Deserialize, Serialize};

/// What sets an Infantry Support Weapon apart (a unit type's `support`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SupportSpec {
    /// An Infantry Support Weapon (the optional rule; `[options]
    /// infantry_support_weapons = false` refuses it in scenarios).
    #[serde(default)]
    pub weapon: bool,
    /// "Red Grenade Hits count as Purple Flags" (its own battle dice).
    #[serde(default)]
    pub grenades_are_flags: bool,
    /// "treats Star results as additional Purple Flags".
    #[serde(default)]
    pub stars_are_flags: bool,
    /// Terrain it may not move onto ("Mortars may not occupy Bunkers").
    #[serde(default)]
    pub may_not_enter: Vec<String>,
    /// Card unit classes that also order it ("The "Artillery Bombard" card
    /// also activates Mortars").
    #[serde(default)]
    pub ordered_by: Vec<String>,
    /// "A player may only have one Flame-Thrower Unit on the Board."
    #[serde(default)]
    pub one_per_side: bool,
}

/// May a card that orders `class` units order a unit of this type?
#[must_use]
pub fn ordered_as(spec: &UnitSpec, class: &str) -> bool {
    spec.class == class || spec.support.ordered_by.iter().any(|c| c == class)
}

/// How one of its battle dice scores: Some(true) a flag instead of what the
/// face would do, None as usual.
#[must_use]
pub fn face_is_flag(att: Option<&UnitSpec>, face: &str) -> bool {
    att.is_some_and(|a| {
        (a.support.grenades_are_flags && face == "grenade")
            || (a.support.stars_are_flags && face == "star")
    })
}

/// Motorised Infantry Support Weapons: "If all the Infantry Units on a
/// player's side are Special Infantry Units, then so are all of the Infantry
/// Support Weapons. A Scenario may also state that only particular Infantry
/// Support Weapons are Special Units." The side's other infantry are
/// counted as the board stands (at least one, every one special).
#[must_use]
pub fn motorised(r: &Ruleset, st: &State, u: &Unit) -> bool {
    let Some(spec) = r.units.get(&u.kind) else {
        return false;
    };
    if !spec.support.weapon {
        return false;
    }
    if st.motorised.contains(&u.id) {
        return true;
    }
    let mut infantry = st
        .units
        .iter()
        .filter(|o| o.side == u.side)
        .filter_map(|o| r.units.get(&o.kind))
        .filter(|s| s.class == "infantry" && !s.support.weapon)
        .peekable();
    infantry.peek().is_some() && infantry.all(|s| s.special)
}

/// "the Unit also shares in the increased Movement of upto 2 hexes.
/// However, it must still choose between Movement or Battle": a motorised
/// weapon moves up to 2 hexes, and a weapon that moves does not battle.
#[must_use]
pub fn mode(r: &Ruleset, st: &State, u: &Unit, m: Mode) -> Mode {
    let mut m = m;
    // Mud: "Special Infantry Units are reduced to Regular Infantry Units".
    let mud = st.weather.as_ref().is_some_and(|w| {
        w.conditions.iter().any(|c| {
            r.weather
                .get(c)
                .is_some_and(|cs| cs.special_infantry_as.is_some())
        })
    });
    if !mud && motorised(r, st, u) {
        m.max_move = m.max_move.max(2);
        m.move_battle = 0;
    }
    m
}

/// Check a position's support weapons: the optional rule is played, and a
/// side has at most one of a one-per-side type. Returns the offending unit's
/// index in `st.units` and why.
pub fn check_position(r: &Ruleset, st: &State) -> Result<(), (usize, String)> {
    for (i, u) in st.units.iter().enumerate() {
        let Some(spec) = r.units.get(&u.kind) else {
            continue;
        };
        if spec.support.weapon && !r.options.infantry_support_weapons {
            return Err((
                i,
                format!(
                    "this ruleset does not play the optional Infantry Support Weapons ({})",
                    spec.name
                ),
            ));
        }
        if spec.support.one_per_side
            && st.units[..i]
                .iter()
                .any(|o| o.side == u.side && o.kind == u.kind)
        {
            return Err((
                i,
                format!("a player may only have one {} on the board", spec.name),
            ));
        }
    }
    Ok(())
}

/// Support weapons on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(
        &self,
        ctx: &crate::battle::Ctx<'_>,
        st: &State,
        u: &Unit,
        m: Mode,
        _: Option<&[crate::board::Hex]>,
    ) -> Mode {
        mode(ctx.r, st, u, m)
    }
}
