//! Appendix 3's "Suggested Variants" (the house rules): fictional sides that
//! convert official scenarios. Each variant is a game option with its own
//! module; what sets a variant's unit types apart is a `variant` table on
//! the type in rulesets/memoir44.toml ([`VariantUnit`]).

pub mod cybermen;
pub mod exterminate;
pub mod nineteen84;
pub mod worlds;
pub mod zombies;

use super::ruleset::{Ruleset, UnitSpec};
use super::stars::{Star, BOATS};
use super::state::{State, Unit};
use serde::{Deserialize, Serialize};

/// What sets a Suggested Variant's unit type apart (a unit type's
/// `variant` table).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct VariantUnit {
    /// "Achtung! Zombie!": a Zombie Unit (its retreat, its growth).
    #[serde(default)]
    pub zombie: bool,
    /// "They have the same number of Battle Dice as the number of Zombie
    /// figures in that hex" (its `dice` table gives the range only).
    #[serde(default)]
    pub dice_per_figure: bool,
    /// "Ignore all terrain limitations on Movement": any hex may be
    /// entered, nothing stops it or bars it from battle.
    #[serde(default)]
    pub terrain_free: bool,
    /// "Grenade Hits are treated as a Purple Flag" (dice rolled against it).
    #[serde(default)]
    pub grenades_are_flags: bool,
    /// "All Zombie Close Assaults are treated as Infantry Charges": the
    /// defender battles first.
    #[serde(default)]
    pub close_assault_is_charge: bool,
    /// "EX-TER-MIN-ATE!": a Dalek Unit (it may exterminate a town; while
    /// one is left its mercenaries fight on).
    #[serde(default)]
    pub dalek: bool,
    /// "EX-TER-MIN-ATE!": a Dalek Mercenary Unit ("will automatically
    /// surrender if all the Dalek Units are destroyed").
    #[serde(default)]
    pub mercenary: bool,
    /// "Additional Purple Flags result in the extermination of 1 model
    /// each. Daleks do not Retreat."
    #[serde(default)]
    pub flags_cost_models: bool,
    /// "EX-TER-MIN-ATE!": a Cyberman Unit (a close assault's casualties
    /// reinforce it).
    #[serde(default)]
    pub cyberman: bool,
    /// "War Of The Worlds": a Martian machine (Martian units pass through
    /// each other's hexes; the Common Cold).
    #[serde(default)]
    pub martian: bool,
    /// "Not effected by ... Purple Flags" (every flag is ignored).
    #[serde(default)]
    pub ignores_flags: bool,
    /// "Not effected by Landmines" (Daleks, Martian machines): a minefield
    /// neither stops it nor rolls against it.
    #[serde(default)]
    pub ignores_mines: bool,
    /// "Must Retreat for additional Purple Flags, even if it means
    /// Retreating off the Board (in which case it is lost)".
    #[serde(default)]
    pub retreat_off_board: bool,
}

/// Does a die rolled against `tgt` count as a flag instead of a hit?
#[must_use]
pub fn face_is_flag(tgt: &UnitSpec, face: &str) -> bool {
    tgt.variant.grenades_are_flags && face == "grenade"
}

/// The base dice of a unit whose dice are its figures, if it is one
/// (within its range).
#[must_use]
pub fn base_dice(spec: &UnitSpec, figures: u32, range: usize) -> Option<u32> {
    (spec.variant.dice_per_figure && (1..=spec.dice.len()).contains(&range)).then_some(figures)
}

/// A Suggested Variant, for [`exclusive`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Zombies,
    Nineteen84,
    Daleks,
    Cybermen,
    Worlds,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Zombies => "the zombies (\"Achtung! Zombie!\")",
            Which::Nineteen84 => "\"Nineteen Eighty-Four\"",
            Which::Daleks => "the Daleks (\"EX-TER-MIN-ATE!\")",
            Which::Cybermen => "the Cybermen (\"EX-TER-MIN-ATE!\")",
            Which::Worlds => "\"War Of The Worlds\"",
        }
    }
}

/// The Suggested Variants a game plays.
fn in_play(st: &State) -> Vec<Which> {
    [
        (st.zombies.is_some(), Which::Zombies),
        (st.nineteen84.is_some(), Which::Nineteen84),
        (st.exterminate.is_some(), Which::Daleks),
        (st.cybermen.is_some(), Which::Cybermen),
        (st.worlds.is_some(), Which::Worlds),
    ]
    .into_iter()
    .filter_map(|(on, w)| on.then_some(w))
    .collect()
}

/// Why `this` variant may not convert the game, if it may not: each
/// variant converts an official scenario on its own ("as the text says"),
/// so a game plays one. The one pair the text allows: "Cybermen may not be
/// used in the same game as Daleks or, at least, not on the same side" (the
/// side is checked by the conversion).
pub fn exclusive(st: &State, this: Which) -> Result<(), String> {
    for w in in_play(st) {
        if w == this {
            return Err(format!("the game plays {} already", this.name()));
        }
        if !matches!(
            (this, w),
            (Which::Daleks, Which::Cybermen) | (Which::Cybermen, Which::Daleks)
        ) {
            return Err(format!(
                "one Suggested Variant a game: this game plays {} already, so it may not play {}",
                w.name(),
                this.name()
            ));
        }
    }
    Ok(())
}

/// What a scenario said of the units a variant replaces goes with them:
/// their Demoralisation, a motorised weapon, their Assault Boats (a unit
/// whose "Movement is not effected by any Terrain limitations" needs none);
/// the equipment or prisoner their infantry carried lies on the hex.
pub fn forget(st: &mut State, replaced: &[u32]) {
    st.disorder.retain(|d| !replaced.contains(&d.unit));
    st.motorised.retain(|id| !replaced.contains(id));
    let of_replaced = |s: &Star| s.unit.is_some_and(|id| replaced.contains(&id));
    st.stars.retain(|s| !(s.kind == BOATS && of_replaced(s)));
    for s in &mut st.stars {
        if (s.kind == "equipment" || s.kind == "prisoner") && of_replaced(s) {
            s.unit = None;
        }
    }
}

/// The game options of the Suggested Variants, in the order they convert
/// the position.
pub const OPTIONS: [&str; 5] = [
    zombies::OPTION,
    nineteen84::OPTION,
    exterminate::OPTION,
    cybermen::OPTION,
    worlds::OPTION,
];

/// Apply one Suggested Variant's game option: `value` names the side it
/// converts (`none`, `false` or `no`: not played); "Nineteen Eighty-Four"
/// converts both sides (`true` or `false`).
pub fn apply_option(r: &Ruleset, st: &mut State, option: &str, value: &str) -> Result<(), String> {
    if option == nineteen84::OPTION {
        return match value {
            "" | "true" | "yes" => nineteen84::convert(r, st),
            "false" | "no" => Ok(()),
            other => Err(format!("'{other}' is not true or false")),
        };
    }
    if matches!(value, "none" | "false" | "no") {
        return Ok(());
    }
    let role = match option {
        zombies::OPTION => "the Dead Player's side",
        exterminate::OPTION => "the Dalek side",
        cybermen::OPTION => "the Cyberman side",
        worlds::OPTION => "the Martian Player's side",
        other => return Err(format!("'{other}' is not a Suggested Variant")),
    };
    let side = st
        .side_index(value)
        .ok_or_else(|| format!("name {role} ({}), not '{value}'", st.sides.join(" or ")))?;
    match option {
        zombies::OPTION => zombies::convert(r, st, side),
        exterminate::OPTION => exterminate::convert(r, st, side),
        cybermen::OPTION => cybermen::convert(r, st, side),
        _ => worlds::convert(r, st, side),
    }
}

/// A unit replaced in place by a variant's unit type of `full` figures. A
/// unit the position has already cut down keeps its losses (a scenario's
/// units start whole); markers of the old unit type (fixed, camouflaged)
/// go.
pub fn replace(u: &mut Unit, kind: &str, full: u32) {
    let lost = u.start.saturating_sub(u.figures);
    kind.clone_into(&mut u.kind);
    u.figures = full.saturating_sub(lost).max(1);
    u.start = full;
    u.fixed = false;
    u.concealed = false;
}
