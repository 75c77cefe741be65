//! Charge!'s ruleset file as it is written (`rulesets/charge.toml`): its
//! tables' TOML form, and their checking into [`super::tables`]'s types
//! (lengths in sixteenths). The troop and terrain types every measured
//! book has are the core's (`crate::ruleset`).

use crate::geometry::PER_INCH;
use crate::ruleset::{Inches, OfficerSpec, Reader, Terrain, Troop};
use adjutant_rules::DataError;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OfficerDef {
    Full(String, u32, bool),
    Short(String, u32),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TroopFile {
    pub name: String,
    pub class: String,
    pub letter: String,
    pub rank_and_file: u32,
    pub formations: Vec<String>,
    #[serde(default)]
    pub ranks: Option<u32>,
    #[serde(default)]
    pub column_files: Option<u32>,
    #[serde(default)]
    pub open_spacing: Option<Inches>,
    pub figure: [Inches; 2],
    pub moves: BTreeMap<String, Inches>,
    pub musket: String,
    #[serde(default)]
    pub fire_per: Option<u32>,
    #[serde(default)]
    pub grenadiers: bool,
    #[serde(default)]
    pub light: bool,
    #[serde(default)]
    pub heavy: bool,
    #[serde(default)]
    pub guns: Option<u32>,
    #[serde(default)]
    pub gun: Option<String>,
    #[serde(default)]
    pub gun_frontage: Option<Inches>,
    pub officers: Vec<OfficerDef>,
    pub losses: Vec<[u32; 3]>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandFile {
    pub to: Inches,
    #[serde(default)]
    pub kill: Vec<u32>,
    #[serde(default)]
    pub open: Option<u32>,
    #[serde(default)]
    pub cover: Option<u32>,
    #[serde(default)]
    pub mounted_only: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    pub id: String,
    pub name: String,
    pub troops: BTreeMap<String, TroopFile>,
    pub roundshot: RoundshotFile,
    pub counter_battery: CounterFile,
    pub howitzer: HowitzerFile,
    pub canister: CanisterFile,
    pub limber: LimberFile,
    pub musketry: MusketryFile,
    pub light_musketry: LightFile,
    pub terrain: BTreeMap<String, TerrainFile>,
    pub melee: MeleeFile,
    pub morale: MoraleFile,
    pub charge: ChargeFile,
    /// ROUNDSHOT EFFECT ON HOUSES (src/rules/measured/houses.rs).
    #[serde(default)]
    pub houses: Option<HousesFile>,
}

/// One range band of the roundshot-on-houses table: occupants killed by
/// each face 1 to 6, and the faces on which the shot goes on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HouseBandFile {
    pub to: Inches,
    pub kills: [u32; 6],
    #[serde(default)]
    pub goes_on: Vec<u32>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HousesFile {
    pub penetration: Vec<HouseBandFile>,
    pub destroyed: u32,
    pub reduce: Vec<ReduceFile>,
    pub shell_kills: [u32; 6],
    pub fire: u32,
    pub leave: Inches,
    pub burn: u32,
    pub spread: Vec<u32>,
}

/// A band of the roundshot-on-houses table, in sixteenths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HouseBand {
    pub to: i64,
    pub kills: [u32; 6],
    pub goes_on: Vec<u32>,
}

/// ROUNDSHOT EFFECT ON HOUSES, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Houses {
    pub penetration: Vec<HouseBand>,
    /// Total damage points that destroy a section.
    pub destroyed: u32,
    /// (from sixteenths, less) for roundshot damage.
    pub reduce: Vec<(i64, u32)>,
    pub shell_kills: [u32; 6],
    /// Shell damage points that set a section on fire.
    pub fire: u32,
    /// How far occupants of a burning section move away (sixteenths).
    pub leave: i64,
    /// Moves a fire burns before the ruins are revealed.
    pub burn: u32,
    /// Throws on which fire spreads to an adjoining section.
    pub spread: Vec<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundshotFile {
    pub bands: Vec<BandFile>,
    pub sleeve_length: Inches,
    pub sleeve_width: Inches,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReduceFile {
    pub from: Inches,
    pub by: u32,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterFile {
    pub alternate: u32,
    pub destroyed: u32,
    pub reduce: Vec<ReduceFile>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HowitzerFile {
    pub min: Inches,
    pub max: Inches,
    pub kill: Vec<u32>,
    pub radius: Inches,
    pub centre: Inches,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanisterFile {
    pub range: Inches,
    pub half_angle: u32,
    pub kill: Vec<u32>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimberFile {
    pub gap: Inches,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MusketryFile {
    pub group: u32,
    pub first_volley: Vec<BandFile>,
    pub normal: Vec<BandFile>,
    pub arc: u32,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightFile {
    pub brown: Vec<BandFile>,
    pub at_light_open: Vec<BandFile>,
    pub at_light_cover: Vec<BandFile>,
    pub at_line_cover: Vec<BandFile>,
    pub pick_off: Vec<BandFile>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    pub name: String,
    #[serde(default)]
    pub cover: bool,
    #[serde(default)]
    pub blocks_sight: bool,
    #[serde(default)]
    pub capacity: Option<u32>,
    #[serde(default)]
    pub crossing: BTreeMap<String, u32>,
    #[serde(default)]
    pub uphill: Option<u32>,
    #[serde(default)]
    pub line: bool,
    pub r#move: BTreeMap<String, u32>,
}
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeFile {
    pub combats: Vec<[String; 4]>,
    pub grenadiers: i32,
    pub charging: i32,
    pub downhill: i32,
    pub heavy_vs_light: i32,
    pub wall: i32,
    pub exhausted_rested: i32,
    pub exhausted_fresh: i32,
    /// The additions when the fighting with exhausted troops goes on for
    /// another move ("increased to 3 and 2 respectively").
    #[serde(default)]
    pub exhausted_rested_continued: Option<i32>,
    #[serde(default)]
    pub exhausted_fresh_continued: Option<i32>,
    /// Second move of melee: figures each side moves into contact at a
    /// time, by class ("4 figures of infantry or 2 of cavalry").
    #[serde(default)]
    pub second_move: BTreeMap<String, u32>,
    pub house: i32,
    pub break_in: Vec<u32>,
    pub moves: u32,
}
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleFile {
    pub good: i32,
    pub rally_step: i32,
    pub dispersed_after: i32,
    pub half: [u32; 2],
    pub officer_save: Vec<u32>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RideDown {
    pub ranks: u32,
    pub throw: Vec<u32>,
}
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChargeFile {
    pub light_cavalry_wheel: u32,
    pub light_cavalry_wheel_within: Inches,
    pub ride_down: Vec<RideDown>,
}

/// A range band: up to and including `to` sixteenths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Band {
    pub to: i64,
    pub kill: Vec<u32>,
    pub open: u32,
    pub cover: u32,
    pub mounted_only: bool,
}

/// One line of the melee combat table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combat {
    pub a_n: u32,
    pub a_class: String,
    pub b_n: u32,
    pub b_class: String,
    /// Each side's die in halves: 2 = x1, 3 = x1.5, 4 = x2.
    pub a_halves: i32,
    pub b_halves: i32,
}

/// The band a distance (exact squared) falls in: the first whose far edge
/// it does not pass.
#[must_use]
pub fn band_of(bands: &[Band], d: crate::geometry::Dist2) -> Option<(usize, &Band)> {
    bands.iter().enumerate().find(|(_, b)| d.within(b.to))
}

pub fn terrain_of(id: &str, t: &TerrainFile) -> Terrain {
    Terrain {
        id: id.to_string(),
        name: t.name.clone(),
        cover: t.cover,
        blocks_sight: t.blocks_sight,
        capacity: t.capacity,
        crossing: t.crossing.clone(),
        uphill: t.uphill,
        line: t.line,
        moves: t.r#move.clone(),
    }
}

/// A terrain type of a Charge! ruleset file.
pub fn bands(rd: &Reader<'_>, key: &str, v: &[BandFile]) -> Result<Vec<Band>, DataError> {
    let mut out: Vec<Band> = Vec::new();
    for b in v {
        let to = rd.len(key, b.to)?;
        if out.last().is_some_and(|l| l.to >= to) {
            return Err(rd.bad(key, format!("{key}: bands must grow in range")));
        }
        if b.kill.iter().any(|k| !(1..=6).contains(k)) {
            return Err(rd.bad(key, format!("{key}: a throw to kill is 1 to 6")));
        }
        out.push(Band {
            to,
            kill: b.kill.clone(),
            open: b.open.unwrap_or(0),
            cover: b.cover.unwrap_or(0),
            mounted_only: b.mounted_only,
        });
    }
    Ok(out)
}

/// One troop type: its class, letter, moves by formation, officers.
pub fn troop(rd: &Reader<'_>, id: &str, t: &TroopFile) -> Result<Troop, DataError> {
    let bad = |key: &str, msg: String| rd.bad(key, msg);
    if ![
        "infantry",
        "cavalry",
        "artillery",
        "wagon",
        "barge",
        "general",
    ]
    .contains(&t.class.as_str())
    {
        return Err(bad(
            &format!("[troops.{id}]"),
            format!(
                "troops.{id}: class is infantry, cavalry, artillery, wagon, barge or general, not '{}'",
                t.class
            ),
        ));
    }
    let letter = t
        .letter
        .chars()
        .next()
        .filter(|_| t.letter.chars().count() == 1)
        .ok_or_else(|| {
            bad(
                &format!("[troops.{id}]"),
                format!("troops.{id}: the letter is one character"),
            )
        })?;
    let mut moves = BTreeMap::new();
    for (k, v) in &t.moves {
        moves.insert(k.clone(), rd.len(&format!("[troops.{id}]"), *v)?);
    }
    for fm in &t.formations {
        if !["line", "column", "open", "deployed", "limbered"].contains(&fm.as_str()) {
            return Err(bad(
                &format!("[troops.{id}]"),
                format!("troops.{id}: unknown formation '{fm}'"),
            ));
        }
        if !moves.contains_key(fm) {
            return Err(bad(
                &format!("[troops.{id}]"),
                format!("troops.{id}: no move for formation '{fm}'"),
            ));
        }
    }
    let officers = t
        .officers
        .iter()
        .map(|o| match o {
            OfficerDef::Full(r, p, m) => OfficerSpec {
                rank: r.clone(),
                points: *p,
                mounted: *m,
            },
            OfficerDef::Short(r, p) => OfficerSpec {
                rank: r.clone(),
                points: *p,
                mounted: false,
            },
        })
        .collect();
    Ok(Troop {
        id: id.to_string(),
        name: t.name.clone(),
        class: t.class.clone(),
        letter,
        // A General is an officer figure with no rank and file.
        rank_and_file: if t.class == "general" {
            0
        } else {
            t.rank_and_file.max(1)
        },
        formations: t.formations.clone(),
        ranks: t.ranks.unwrap_or(1).max(1),
        column_files: t.column_files.unwrap_or(4).max(1),
        open_spacing: t
            .open_spacing
            .map_or(Ok(0), |v| rd.len("open_spacing", v))?,
        fig_w: rd.len("figure", t.figure[0])?.max(1),
        fig_d: rd.len("figure", t.figure[1])?.max(1),
        moves,
        musket: t.musket.clone(),
        fire_per: t.fire_per.unwrap_or(6).max(1),
        grenadiers: t.grenadiers,
        light: t.light,
        heavy: t.heavy,
        guns: t.guns.unwrap_or(0),
        howitzer: t.gun.as_deref() == Some("howitzer"),
        gun_frontage: t
            .gun_frontage
            .map_or(Ok(PER_INCH * 3), |v| rd.len("gun_frontage", v))?,
        officers,
        losses: t.losses.clone(),
    })
}

/// One line of the melee combats table.
pub fn combat(rd: &Reader<'_>, c: &[String; 4]) -> Result<Combat, DataError> {
    let side = |s: &str| -> Option<(u32, String)> {
        let (n, k) = s.trim().split_once(' ')?;
        Some((n.parse().ok()?, k.trim().to_string()))
    };
    let halves = |s: &str| -> Option<i32> {
        match s.trim() {
            "x1" => Some(2),
            "x1.5" => Some(3),
            "x2" => Some(4),
            _ => None,
        }
    };
    let (Some((a_n, a_class)), Some((b_n, b_class)), Some(ah), Some(bh)) =
        (side(&c[0]), side(&c[1]), halves(&c[2]), halves(&c[3]))
    else {
        return Err(rd.bad(
            "combats",
            format!(
                "melee.combats: cannot read {c:?} (\"N class\", \"N class\", \"x1|x1.5|x2\", ...)"
            ),
        ));
    };
    Ok(Combat {
        a_n,
        a_class,
        b_n,
        b_class,
        a_halves: ah,
        b_halves: bh,
    })
}

/// The houses table: penetration bands, damage, fire.
pub fn houses(rd: &Reader<'_>, h: &HousesFile) -> Result<Houses, DataError> {
    let mut penetration: Vec<HouseBand> = Vec::new();
    for b in &h.penetration {
        let to = rd.len("[houses]", b.to)?;
        if penetration.last().is_some_and(|l| l.to >= to) {
            return Err(rd.bad("[houses]", "houses: bands must grow in range".into()));
        }
        penetration.push(HouseBand {
            to,
            kills: b.kills,
            goes_on: b.goes_on.clone(),
        });
    }
    let mut reduce = Vec::new();
    for x in &h.reduce {
        reduce.push((rd.len("[houses]", x.from)?, x.by));
    }
    Ok(Houses {
        penetration,
        destroyed: h.destroyed.max(1),
        reduce,
        shell_kills: h.shell_kills,
        fire: h.fire.max(1),
        leave: rd.len("[houses]", h.leave)?,
        burn: h.burn.max(1),
        spread: h.spread.clone(),
    })
}
