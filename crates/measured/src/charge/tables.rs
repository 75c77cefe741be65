//! Charge!'s tables of a ruleset and the reading of its ruleset file
//! (`rulesets/charge.toml`, its TOML form in [`super::file`]): the shared
//! troops and terrain are the measured core's `ruleset`.

use super::file::{
    self, terrain_of, Band, Combat, Houses, MeleeFile, MoraleFile, RideDown, RuleFile,
};
use super::procedures::Charge;
use crate::ruleset::{at, toml_error, Reader, Ruleset};
use adjutant_rules::DataError;
use std::collections::BTreeMap;

/// Charge!'s shipped ruleset file.
pub const CHARGE: &str = include_str!("../../../../rulesets/charge.toml");

/// Charge!'s tables of a ruleset (each book has its own): fire, artillery, melee, morale, charges, houses.
#[derive(Debug, Clone, Default)]
pub struct ChargeTables {
    pub roundshot: Vec<Band>,
    pub sleeve_length: i64,
    pub sleeve_width: i64,
    pub cb_alternate: u32,
    pub cb_destroyed: u32,
    pub cb_reduce: Vec<(i64, u32)>,
    pub how_min: i64,
    pub how_max: i64,
    pub how_kill: Vec<u32>,
    pub sbi_radius: i64,
    pub sbi_centre: i64,
    pub canister_range: i64,
    pub canister_half_angle: i64,
    pub canister_kill: Vec<u32>,
    pub gun_gap: i64,
    pub group: u32,
    pub first_volley: Vec<Band>,
    pub normal: Vec<Band>,
    pub arc: i64,
    pub brown: Vec<Band>,
    pub at_light_open: Vec<Band>,
    pub at_light_cover: Vec<Band>,
    pub at_line_cover: Vec<Band>,
    pub pick_off: Vec<Band>,
    pub combats: Vec<Combat>,
    pub melee: MeleeFile,
    pub morale: MoraleFile,
    pub lc_wheel: i64,
    pub lc_wheel_within: i64,
    pub ride_down: Vec<RideDown>,
    /// Charge!'s roundshot and shells against houses (None: not in this
    /// ruleset file).
    pub houses: Option<Houses>,
}

/// Reading a Charge! ruleset: the core's `Ruleset` is generic over the
/// book, so Charge!'s constructors are this trait's (in scope through the
/// crate's root).
pub trait ChargeRuleset: Sized {
    /// Charge!'s shipped ruleset.
    fn builtin(id: &str) -> Result<Self, DataError>;
    /// A Charge! ruleset file (one with a `procedures` key is another
    /// book's, refused).
    fn from_toml(text: &str, file: &str) -> Result<Self, DataError>;
}

/// The book a ruleset file names (`procedures = "..."`; None: Charge!).
pub fn book_of(text: &str, file: &str) -> Result<Option<String>, DataError> {
    let probe: toml::Table = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    Ok(probe
        .get("procedures")
        .and_then(toml::Value::as_str)
        .map(str::to_string))
}

impl ChargeRuleset for Ruleset<Charge> {
    fn builtin(id: &str) -> Result<Self, DataError> {
        match id {
            "charge" => Self::from_toml(CHARGE, "rulesets/charge.toml"),
            other => Err(DataError::UnknownRuleset(other.to_string())),
        }
    }

    fn from_toml(text: &str, file: &str) -> Result<Self, DataError> {
        match book_of(text, file)? {
            None => {}
            Some(other) => {
                return Err(at(
                    text,
                    file,
                    text.find("procedures").unwrap_or(0),
                    format!(
                    "procedures: '{other}' is another book's; a Charge! ruleset file names none"
                ),
                ))
            }
        }
        let f: RuleFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
        let rd = Reader { text, file };
        let mut troops = BTreeMap::new();
        for (id, t) in &f.troops {
            troops.insert(id.clone(), file::troop(&rd, id, t)?);
        }
        let mut terrain = BTreeMap::new();
        for (id, t) in &f.terrain {
            terrain.insert(id.clone(), terrain_of(id, t));
        }
        let mut combats = Vec::new();
        for c in &f.melee.combats {
            combats.push(file::combat(&rd, c)?);
        }
        Ok(Ruleset {
            id: f.id.clone(),
            name: f.name.clone(),
            troops,
            terrain,
            book: ChargeTables {
                roundshot: file::bands(&rd, "[roundshot]", &f.roundshot.bands)?,
                sleeve_length: rd.len("sleeve_length", f.roundshot.sleeve_length)?,
                sleeve_width: rd.len("sleeve_width", f.roundshot.sleeve_width)?,
                cb_alternate: f.counter_battery.alternate,
                cb_destroyed: f.counter_battery.destroyed,
                cb_reduce: f
                    .counter_battery
                    .reduce
                    .iter()
                    .map(|r| Ok((rd.len("reduce", r.from)?, r.by)))
                    .collect::<Result<_, DataError>>()?,
                how_min: rd.len("[howitzer]", f.howitzer.min)?,
                how_max: rd.len("[howitzer]", f.howitzer.max)?,
                how_kill: f.howitzer.kill.clone(),
                sbi_radius: rd.len("[howitzer]", f.howitzer.radius)?,
                sbi_centre: rd.len("[howitzer]", f.howitzer.centre)?,
                canister_range: rd.len("[canister]", f.canister.range)?,
                canister_half_angle: i64::from(f.canister.half_angle.min(89)),
                canister_kill: f.canister.kill.clone(),
                gun_gap: rd.len("[limber]", f.limber.gap)?,
                group: f.musketry.group.max(1),
                first_volley: file::bands(&rd, "first_volley", &f.musketry.first_volley)?,
                normal: file::bands(&rd, "normal", &f.musketry.normal)?,
                arc: i64::from(f.musketry.arc.min(180)),
                brown: file::bands(&rd, "brown", &f.light_musketry.brown)?,
                at_light_open: file::bands(&rd, "at_light_open", &f.light_musketry.at_light_open)?,
                at_light_cover: file::bands(
                    &rd,
                    "at_light_cover",
                    &f.light_musketry.at_light_cover,
                )?,
                at_line_cover: file::bands(&rd, "at_line_cover", &f.light_musketry.at_line_cover)?,
                pick_off: file::bands(&rd, "pick_off", &f.light_musketry.pick_off)?,
                combats,
                melee: f.melee.clone(),
                morale: f.morale.clone(),
                lc_wheel: i64::from(f.charge.light_cavalry_wheel),
                lc_wheel_within: rd.len("[charge]", f.charge.light_cavalry_wheel_within)?,
                ride_down: f.charge.ride_down.clone(),
                houses: match &f.houses {
                    None => None,
                    Some(h) => Some(file::houses(&rd, h)?),
                },
            },
        })
    }
}
