//! The tables of a grid rulebook, read from `rulesets/<id>.toml`.

use adjutant_rules::DataError;
use serde::Deserialize;
use std::collections::BTreeMap;

pub const MEMOIR_OF_BATTLE: &str = include_str!("../../../rulesets/memoir-of-battle.toml");
pub const MODERN_BATTLE: &str = include_str!("../../../rulesets/memoir-of-modern-battle.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    /// The six faces of a combat die.
    pub faces: Vec<String>,
    /// Face -> unit classes it takes strength from ("*": every unit).
    pub hits: BTreeMap<String, Vec<String>>,
    /// Classes that throw one more die with a general in their area.
    #[serde(default)]
    pub general_bonus: Vec<String>,
    #[serde(default)]
    pub armour_penalty: Option<ArmourPenalty>,
    pub units: BTreeMap<String, UnitSpec>,
    pub terrain: BTreeMap<String, TerrainSpec>,
}

/// Small arms against armour: dice fewer by the target's class.
#[derive(Debug, Clone, Deserialize)]
pub struct ArmourPenalty {
    pub firers: Vec<String>,
    #[serde(flatten)]
    pub against: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSpec {
    pub name: String,
    pub class: String,
    pub letter: String,
    pub strength: u32,
    pub r#move: u32,
    /// How far it may move and still conduct a Combat (0: only unmoved).
    #[serde(default)]
    pub move_fire: Option<u32>,
    #[serde(default)]
    pub irregular_move_fire: Option<u32>,
    /// Dice by range 1, 2, ... in the move phase's combat.
    #[serde(default)]
    pub combat: Vec<u32>,
    /// Dice by range in the artillery phase.
    #[serde(default)]
    pub artillery: Vec<u32>,
    #[serde(default)]
    pub artillery_vs_armour: Vec<u32>,
    #[serde(default)]
    pub min_range: Option<u32>,
    #[serde(default)]
    pub mountain: bool,
    #[serde(default)]
    pub general: bool,
    #[serde(default)]
    pub armour: bool,
    #[serde(default)]
    pub indirect: bool,
    #[serde(default)]
    pub fires_over: bool,
    #[serde(default)]
    pub ignores_wire: bool,
    #[serde(default)]
    pub transport: bool,
    /// May ride in a transport.
    #[serde(default)]
    pub carried: bool,
    /// May be limbered to a transport.
    #[serde(default)]
    pub towed: bool,
    #[serde(default)]
    pub no_penalty: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSpec {
    pub name: String,
    pub code: String,
    #[serde(default)]
    pub stop: bool,
    #[serde(default)]
    pub blocks_los: bool,
    /// Dice fewer against a unit in it.
    #[serde(default)]
    pub cover: u32,
    /// Hill height.
    #[serde(default)]
    pub hill: u32,
    #[serde(default)]
    pub river: bool,
    #[serde(default)]
    pub ford: bool,
    #[serde(default)]
    pub bridge: bool,
    #[serde(default)]
    pub road: bool,
    #[serde(default)]
    pub wire: bool,
    #[serde(default)]
    pub fieldworks: bool,
    #[serde(default)]
    pub max_move: Option<u32>,
    #[serde(default)]
    pub water: bool,
    /// Only these may enter: unit classes, or `mountain` (mountain artillery).
    #[serde(default)]
    pub only: Vec<String>,
    /// Combat dice thrown at a unit entering it.
    #[serde(default)]
    pub mines: u32,
}

impl Ruleset {
    /// A shipped ruleset.
    pub fn builtin(id: &str) -> Result<Ruleset, DataError> {
        match id {
            "memoir-of-battle" => {
                Self::from_toml(MEMOIR_OF_BATTLE, "rulesets/memoir-of-battle.toml")
            }
            "memoir-of-modern-battle" => {
                Self::from_toml(MODERN_BATTLE, "rulesets/memoir-of-modern-battle.toml")
            }
            other => Err(DataError::UnknownRuleset(other.to_string())),
        }
    }

    /// Parse and check a ruleset file.
    pub fn from_toml(text: &str, file: &str) -> Result<Ruleset, DataError> {
        let r: Ruleset = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
        let bad = |msg: String| Err(at(text, file, text.find("faces").unwrap_or(0), msg));
        if r.faces.len() != 6 {
            return bad(format!("a combat die has six faces, not {}", r.faces.len()));
        }
        for f in r.hits.keys() {
            if !r.faces.contains(f) {
                return bad(format!("[hits] names '{f}', which is not a face"));
            }
        }
        for (id, u) in &r.units {
            if u.letter.chars().count() != 1 {
                return bad(format!("unit {id}: the letter is one character"));
            }
        }
        Ok(r)
    }

    #[must_use]
    pub fn unit(&self, id: &str) -> Option<&UnitSpec> {
        self.units.get(id)
    }

    #[must_use]
    pub fn feature(&self, id: &str) -> Option<&TerrainSpec> {
        self.terrain.get(id)
    }

    /// The face name of a rolled value 1..=6.
    #[must_use]
    pub fn face(&self, value: u32) -> String {
        self.faces
            .get((value as usize).wrapping_sub(1))
            .cloned()
            .unwrap_or_default()
    }

    /// The value of a face name (its first place on the die).
    #[must_use]
    pub fn face_value(&self, name: &str) -> Option<u32> {
        let n = name.trim().to_ascii_lowercase();
        self.faces
            .iter()
            .position(|f| *f == n)
            .map(|p| p as u32 + 1)
    }

    /// Does `face` take strength from a unit of `class`?
    #[must_use]
    pub fn face_hits(&self, face: &str, class: &str) -> bool {
        self.hits
            .get(face)
            .is_some_and(|cs| cs.iter().any(|c| c == "*" || c == class))
    }
}

/// A positioned error from a TOML parse error, and at a byte offset of
/// a file: the interface crate's, shared by every family's readers.
pub use adjutant_rules::{error_at as at, toml_error};
