//! Appendix 3's "Suggested Variants" (seeds/004): fictional sides that
//! convert official scenarios. Each variant is a game option with its own
//! module; what sets a variant's unit types apart is a `variant` table on
//! the type in rulesets/memoir44.toml ([`VariantUnit`]).

pub mod exterminate;
pub mod nineteen84;
pub mod worlds;
pub mod zombies;

use super::ruleset::UnitSpec;
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
    /// "Daleks are not effected by Landmines": a minefield neither stops it
    /// nor rolls against it.
    #[serde(default)]
    pub mine_proof: bool,
    /// "Additional Purple Flags result in the extermination of 1 model
    /// each. Daleks do not Retreat."
    #[serde(default)]
    pub flags_cost_models: bool,
    /// "War Of The Worlds": a Martian machine (Martian units pass through
    /// each other's hexes; the Common Cold).
    #[serde(default)]
    pub martian: bool,
    /// "Not effected by ... Purple Flags" (every flag is ignored).
    #[serde(default)]
    pub ignores_flags: bool,
    /// "Not effected by Landmines": a minefield neither stops it nor rolls.
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
