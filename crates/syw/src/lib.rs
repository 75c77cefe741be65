//! The Seven Years' War set (the rulebook of that name), a family of its
//! own (ruleset ids `seven-years-war*`, [`ENTRY`]) on the measured core
//! (`adjutant-measured-core`): its tables (`rulesets/seven-years-war.toml`),
//! its order language ([`orders`]) and its sequence of play ([`engine`]):
//! one player-turn per adjudication, the other side's interrupts decided by
//! its standing orders. Readings of the garbled passages:
//! docs/rules/seven-years-war.md.
//!
//! The core's modules are re-exported here by the paths the book's files
//! have always used (`crate::state`, `crate::geometry`, ...); the book's
//! own `book` and `predict` are its parts of the core's and its PREDICT.

pub use adjutant_measured_core::{
    amend, case, geometry, labels, order_line, random, report, ruleset, shipped_scenarios, state,
    Book, Outcome, Procedures,
};

mod family;
pub use family::ENTRY;

pub mod book;
pub mod engine;
pub mod entry;
pub mod events;
pub mod line;
pub mod orders;
pub mod predict;
pub mod split;
pub mod standing;
pub mod template;

mod procedures;
pub use book::{Refusal, SywKeys, SywState, SywTables, SywUnit};
pub use procedures::SevenYearsWar;

/// The Seven Years' War's position, unit and ruleset: the core's, with
/// the book's parts ([`SywState`], [`SywUnit`], [`SywTables`]).
pub type State = crate::state::State<SevenYearsWar>;
pub type Unit = crate::state::Unit<SevenYearsWar>;
pub type Ruleset = crate::ruleset::Ruleset<SevenYearsWar>;

use crate::geometry::PER_INCH;
use crate::ruleset::{toml_error, Inches, Reader, Terrain, Troop};
use crate::state::Placement;
use adjutant_rules::DataError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A troop type's Seven Years' War attributes (beside its shared [`Troop`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SywTroop {
    pub move_dice: u32,
    /// Sixteenths added in march or attack column.
    pub column_bonus: i64,
    pub weapon: String,
    /// Ranks that count when firing (0: all).
    pub fire_ranks: u32,
    pub response_only: bool,
    pub experience: String,
}

/// One experience level's dice modifiers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experience {
    pub clear: Vec<u32>,
    pub test: BTreeMap<String, i32>,
    pub bonus_dice: u32,
    pub minimum: u32,
}

impl Experience {
    /// The TEST modifier a die face gives.
    #[must_use]
    pub fn test_die(&self, face: u32) -> i32 {
        self.test.get(&face.to_string()).copied().unwrap_or(0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Weapon {
    pub canister: i64,
    pub short: i64,
    pub long: i64,
    pub cone: bool,
}

impl Weapon {
    /// The furthest it reaches.
    #[must_use]
    pub fn reach(&self) -> i64 {
        self.long.max(self.short)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossStep {
    pub percent: u32,
    pub value: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestResult {
    pub at_most: i32,
    pub result: String,
}

/// The TEST modifier table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestTable {
    pub losses: Vec<LossStep>,
    pub destroyed_at: u32,
    pub artillery_casualties: i32,
    pub flank_rear_casualties: i32,
    pub casualties_this_turn: i32,
    pub contacted_flank: i32,
    pub contacted_rear: i32,
    pub green: i32,
    pub trained: i32,
    pub veteran: i32,
    pub retreating: i32,
    pub routing_same: i32,
    pub routing_other: i32,
    pub destroyed_same: i32,
    pub destroyed_other: i32,
    pub charging: i32,
    pub supported: i32,
    pub command: i32,
    pub radius: u32,
    pub melee_casualties: u32,
    pub results: Vec<TestResult>,
}

/// One entry of an army's fog-of-war table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FogEntry {
    pub roll: u32,
    pub id: String,
    pub name: String,
    pub duration: String,
    #[serde(default)]
    pub guns: Option<u32>,
    #[serde(default)]
    pub inches: Option<u32>,
}

/// The events the engine knows how to carry out.
pub const FOG_EFFECTS: &[&str] = &[
    "commander-killed",
    "commander-unhorsed",
    "crisis-meeting",
    "no-cavalry-advance",
    "cavalry-no-command",
    "lost-orders",
    "rain",
    "dead-calm",
    "inspired-command",
    "guns-relocate-fire",
    "guns-fire-twice",
    "brigade-advance",
    "attack-column-advance",
    "remove-disorder",
];

/// The Seven Years' War tables, checked and in sixteenths.
#[derive(Debug, Clone)]
pub struct Tables {
    pub troops: BTreeMap<String, SywTroop>,
    pub experience: BTreeMap<String, Experience>,
    pub stop_short: i64,
    pub command_radius: i64,
    pub brigade_dice: u32,
    pub command_dice: u32,
    pub charge_distance: i64,
    pub draw_retreat: i64,
    pub counter_charge_dice: u32,
    pub weapons: BTreeMap<String, Weapon>,
    pub kill: Vec<u32>,
    /// Half-angle of a gun's cone, in sixteenths of a degree.
    pub gun_cone_16: i64,
    pub dense_dice: u32,
    pub canister_dice: u32,
    pub dense: Vec<String>,
    pub test_at: u32,
    pub response_dice: u32,
    pub over_gap: i64,
    pub test: TestTable,
    pub percentages: Vec<[u32; 5]>,
    pub off_table_needs: u32,
    pub fog_trigger: Vec<u32>,
    pub fog: BTreeMap<String, Vec<FogEntry>>,
    pub disorders: Vec<String>,
    pub hard: Vec<String>,
    /// Terrain that negates the charge bonus ("Soft ground").
    pub soft: Vec<String>,
    /// Terrain an attacker is disordered for attacking over.
    pub obstacles: Vec<String>,
}

impl Tables {
    #[must_use]
    pub fn troop(&self, id: &str) -> Option<&SywTroop> {
        self.troops.get(id)
    }
    #[must_use]
    pub fn weapon(&self, troop: &str) -> Weapon {
        self.troops
            .get(troop)
            .and_then(|t| self.weapons.get(&t.weapon))
            .cloned()
            .unwrap_or_default()
    }
    /// The experience of a unit (trained if unknown).
    #[must_use]
    pub fn exp(&self, u: &Unit) -> Experience {
        self.experience
            .get(&u.experience)
            .or_else(|| self.experience.get("trained"))
            .cloned()
            .unwrap_or(Experience {
                clear: vec![1],
                test: BTreeMap::new(),
                bonus_dice: 0,
                minimum: 0,
            })
    }
    /// Figures lost to reach a percentage column (10, 25, 33, 50) of a
    /// unit of `n` figures: the Percentage tables' row, else rounded up.
    #[must_use]
    pub fn pct(&self, n: u32, percent: u32) -> u32 {
        let col = match percent {
            10 => Some(1),
            25 => Some(2),
            33 => Some(3),
            50 => Some(4),
            _ => None,
        };
        if let Some(c) = col {
            if let Some(row) = self.percentages.iter().find(|r| r[0] == n) {
                return row[c];
            }
        }
        (n * percent).div_ceil(100).max(1)
    }
    /// The fog-of-war table a side uses.
    #[must_use]
    pub fn fog_table(&self, sides: &[String], side: usize) -> &[FogEntry] {
        let name = sides.get(side).cloned().unwrap_or_default();
        if let Some(t) = self.fog.get(&name) {
            return t;
        }
        let fallback = if side == 0 { "allied" } else { "french" };
        self.fog.get(fallback).map_or(&[], Vec::as_slice)
    }
}

/// The player-turn and the fog-of-war effects in force (part of the state).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sequence {
    /// The side whose player-turn it is.
    pub active: usize,
    /// Effects in force.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
    /// Units off the table ("Off table movement via umpire"), waiting to
    /// come on by dice or by the referee.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub off_table: Vec<entry::Reserve>,
}

/// A fog-of-war event in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effect {
    pub id: String,
    pub name: String,
    /// The side that rolled it.
    pub side: usize,
    /// The player-turn (see [`player_turn`]) before which it ends.
    pub until: u32,
    /// Rain: the checks made so far.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checks: u32,
    /// The brigade or guns it concerns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<String>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// Player-turns from the start: turn 1's first player is 0.
#[must_use]
pub fn player_turn(turn: u32, active: usize) -> u32 {
    turn.saturating_sub(1) * 2 + active as u32
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    id: String,
    name: String,
    procedures: String,
    troops: BTreeMap<String, TroopFile>,
    experience: BTreeMap<String, Experience>,
    movement: MovementFile,
    weapons: BTreeMap<String, WeaponFile>,
    fire: FireFile,
    test: TestTable,
    percentages: PercentFile,
    off_table: OffTableFile,
    fog: FogFile,
    terrain: BTreeMap<String, TerrainFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TroopFile {
    name: String,
    class: String,
    letter: String,
    figures: u32,
    formations: Vec<String>,
    figure: [Inches; 2],
    move_dice: u32,
    #[serde(default)]
    column_bonus: Option<Inches>,
    weapon: String,
    #[serde(default)]
    fire_ranks: Option<u32>,
    #[serde(default)]
    light: bool,
    #[serde(default)]
    response_only: bool,
    #[serde(default)]
    open_spacing: Option<Inches>,
    #[serde(default)]
    guns: Option<u32>,
    #[serde(default)]
    gun_frontage: Option<Inches>,
    #[serde(default)]
    experience: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MovementFile {
    stop_short: Inches,
    command_radius: Inches,
    brigade_dice: u32,
    command_dice: u32,
    charge_distance: Inches,
    draw_retreat: Inches,
    counter_charge_dice: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeaponFile {
    #[serde(default)]
    canister: Option<Inches>,
    short: Inches,
    long: Inches,
    #[serde(default)]
    cone: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FireFile {
    kill: Vec<u32>,
    gun_cone: Inches,
    dense_dice: u32,
    canister_dice: u32,
    dense: Vec<String>,
    test_at: u32,
    response_dice: u32,
    over_gap: Inches,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PercentFile {
    rows: Vec<[u32; 5]>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OffTableFile {
    needs: u32,
}

#[derive(Debug, Deserialize)]
struct FogFile {
    trigger: Vec<u32>,
    #[serde(flatten)]
    tables: BTreeMap<String, Vec<FogEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TerrainFile {
    name: String,
    #[serde(default)]
    cover: bool,
    #[serde(default)]
    hard: bool,
    #[serde(default)]
    blocks_sight: bool,
    #[serde(default)]
    line: bool,
    #[serde(default)]
    disorders: bool,
    /// "Soft ground may negate charge bonus": no charge bonus for a
    /// charge whose charge distance touches it.
    #[serde(default)]
    soft: bool,
    /// "Attackers ... are disordered if attack over obstacle".
    #[serde(default)]
    obstacle: bool,
}

const FORMATIONS: &[&str] = &[
    "line", "march", "attack", "square", "open", "deployed", "limbered", "mounted",
];

/// The Seven Years' War's shipped ruleset file.
pub const SEVEN_YEARS_WAR: &str = include_str!("../../../rulesets/seven-years-war.toml");

/// The Seven Years' War's shipped ruleset.
pub fn builtin() -> Result<Ruleset, DataError> {
    from_toml(SEVEN_YEARS_WAR, "rulesets/seven-years-war.toml")
}

/// Read a Seven Years' War ruleset file into the family's [`Ruleset`].
pub fn from_toml(text: &str, file: &str) -> Result<Ruleset, DataError> {
    let f: File = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let rd = Reader { text, file };
    let _ = &f.procedures;
    let mut troops = BTreeMap::new();
    let mut syw_troops = BTreeMap::new();
    for (id, t) in &f.troops {
        let (troop, syw) = troop_of(&rd, &f, id, t)?;
        troops.insert(id.clone(), troop);
        syw_troops.insert(id.clone(), syw);
    }
    check_experience(&rd, &f)?;
    let mut weapons = BTreeMap::new();
    for (k, w) in &f.weapons {
        let key = format!("[weapons.{k}]");
        weapons.insert(
            k.clone(),
            Weapon {
                canister: w.canister.map_or(Ok(0), |v| rd.len(&key, v))?,
                short: rd.len(&key, w.short)?,
                long: rd.len(&key, w.long)?,
                cone: w.cone,
            },
        );
    }
    let fog = fog_tables(&rd, &f)?;
    let ground = Ground::of(&f);
    let results_sorted = f
        .test
        .results
        .windows(2)
        .all(|w| w[0].at_most < w[1].at_most);
    if !results_sorted {
        return Err(rd.bad(
            "results",
            "test.results: worst first, at_most growing".into(),
        ));
    }
    let cone = rd.len("gun_cone", f.fire.gun_cone)?;
    let tables = Tables {
        troops: syw_troops,
        experience: f.experience.clone(),
        stop_short: rd.len("stop_short", f.movement.stop_short)?,
        command_radius: rd.len("command_radius", f.movement.command_radius)?,
        brigade_dice: f.movement.brigade_dice,
        command_dice: f.movement.command_dice,
        charge_distance: rd.len("charge_distance", f.movement.charge_distance)?,
        draw_retreat: rd.len("draw_retreat", f.movement.draw_retreat)?,
        counter_charge_dice: f.movement.counter_charge_dice,
        weapons,
        kill: f.fire.kill.clone(),
        gun_cone_16: cone,
        dense_dice: f.fire.dense_dice,
        canister_dice: f.fire.canister_dice,
        dense: f.fire.dense.clone(),
        test_at: f.fire.test_at,
        response_dice: f.fire.response_dice,
        over_gap: rd.len("over_gap", f.fire.over_gap)?,
        test: f.test.clone(),
        percentages: f.percentages.rows.clone(),
        off_table_needs: f.off_table.needs,
        fog_trigger: f.fog.trigger.clone(),
        fog,
        disorders: ground.disorders,
        hard: ground.hard,
        soft: ground.soft,
        obstacles: ground.obstacles,
    };
    Ok(Ruleset {
        id: f.id.clone(),
        name: f.name.clone(),
        troops,
        terrain: ground.terrain,
        book: SywTables {
            syw: Some(Box::new(tables)),
        },
    })
}

/// One troop type: the core's [`Troop`] and the set's own [`SywTroop`].
fn troop_of(
    rd: &Reader<'_>,
    f: &File,
    id: &str,
    t: &TroopFile,
) -> Result<(Troop, SywTroop), DataError> {
    let bad = |key: &str, msg: String| rd.bad(key, msg);
    let len = |key: &str, v: Inches| rd.len(key, v);
    let key = format!("[troops.{id}]");
    if !["infantry", "cavalry", "artillery", "command"].contains(&t.class.as_str()) {
        return Err(bad(
            &key,
            format!(
                "troops.{id}: class is infantry, cavalry, artillery or command, not '{}'",
                t.class
            ),
        ));
    }
    let letter = t
        .letter
        .chars()
        .next()
        .filter(|_| t.letter.chars().count() == 1)
        .ok_or_else(|| bad(&key, format!("troops.{id}: the letter is one character")))?;
    if t.formations.is_empty() {
        return Err(bad(&key, format!("troops.{id}: at least one formation")));
    }
    for fm in &t.formations {
        if !FORMATIONS.contains(&fm.as_str()) {
            return Err(bad(
                &key,
                format!(
                    "troops.{id}: unknown formation '{fm}' (known: {})",
                    FORMATIONS.join(", ")
                ),
            ));
        }
    }
    if !f.weapons.contains_key(&t.weapon) {
        return Err(bad(
            &key,
            format!("troops.{id}: unknown weapon '{}'", t.weapon),
        ));
    }
    let experience = t.experience.clone().unwrap_or_else(|| "trained".into());
    if !f.experience.contains_key(&experience) {
        return Err(bad(
            &key,
            format!("troops.{id}: unknown experience '{experience}'"),
        ));
    }
    if !(1..=6).contains(&t.move_dice) {
        return Err(bad(&key, format!("troops.{id}: move_dice is 1 to 6")));
    }
    let moves = t.formations.iter().map(|fm| (fm.clone(), 0)).collect();
    let troop = Troop {
        id: id.to_string(),
        name: t.name.clone(),
        class: t.class.clone(),
        letter,
        rank_and_file: t.figures.max(1),
        formations: t.formations.clone(),
        ranks: if t.light { 1 } else { 2 },
        column_files: 2,
        open_spacing: t.open_spacing.map_or(Ok(0), |v| len(&key, v))?,
        fig_w: len(&key, t.figure[0])?.max(1),
        fig_d: len(&key, t.figure[1])?.max(1),
        moves,
        musket: t.weapon.clone(),
        fire_per: 1,
        grenadiers: false,
        light: t.light,
        heavy: false,
        guns: t.guns.unwrap_or(0),
        howitzer: false,
        gun_frontage: t.gun_frontage.map_or(Ok(PER_INCH * 2), |v| len(&key, v))?,
        officers: Vec::new(),
        losses: Vec::new(),
    };
    let syw = SywTroop {
        move_dice: t.move_dice,
        column_bonus: t.column_bonus.map_or(Ok(0), |v| len(&key, v))?,
        weapon: t.weapon.clone(),
        fire_ranks: t.fire_ranks.unwrap_or(0),
        response_only: t.response_only,
        experience,
    };
    Ok((troop, syw))
}

/// Every experience's clearing throws and test faces.
fn check_experience(rd: &Reader<'_>, f: &File) -> Result<(), DataError> {
    for (k, e) in &f.experience {
        if e.clear.is_empty() || e.clear.iter().any(|n| !(1..=6).contains(n)) {
            return Err(rd.bad(
                &format!("[experience.{k}]"),
                format!("experience.{k}: clear is a list of throws of 1 to 6 dice"),
            ));
        }
        for face in e.test.keys() {
            if !matches!(face.parse::<u32>(), Ok(1..=6)) {
                return Err(rd.bad(
                    &format!("[experience.{k}]"),
                    format!("experience.{k}: test faces are 1 to 6, not '{face}'"),
                ));
            }
        }
    }
    Ok(())
}

/// Each army's fog-of-war table: one entry per roll of 2d6, known effects.
fn fog_tables(rd: &Reader<'_>, f: &File) -> Result<BTreeMap<String, Vec<FogEntry>>, DataError> {
    let mut fog = BTreeMap::new();
    for (army, entries) in &f.fog.tables {
        let key = format!("[[fog.{army}]]");
        let mut rolls: Vec<u32> = entries.iter().map(|e| e.roll).collect();
        rolls.sort_unstable();
        if rolls != (2..=12).collect::<Vec<_>>() {
            return Err(rd.bad(
                &key,
                format!("fog.{army}: one entry for each roll of 2d6, 2 to 12"),
            ));
        }
        for e in entries {
            if !FOG_EFFECTS.contains(&e.id.as_str()) {
                return Err(rd.bad(
                    &format!("id = \"{}\"", e.id),
                    format!(
                        "fog.{army}: unknown event '{}' (known: {})",
                        e.id,
                        FOG_EFFECTS.join(", ")
                    ),
                ));
            }
            if !["instant", "active", "turn", "rain"].contains(&e.duration.as_str()) {
                return Err(rd.bad(
                    &key,
                    format!(
                        "fog.{army}: duration is instant, active, turn or rain, not '{}'",
                        e.duration
                    ),
                ));
            }
        }
        fog.insert(army.clone(), entries.clone());
    }
    Ok(fog)
}

/// The terrain types, and which of them disorder, give hard cover, are
/// soft going or obstacles.
struct Ground {
    terrain: BTreeMap<String, Terrain>,
    disorders: Vec<String>,
    hard: Vec<String>,
    soft: Vec<String>,
    obstacles: Vec<String>,
}

impl Ground {
    fn of(f: &File) -> Ground {
        let mut g = Ground {
            terrain: BTreeMap::new(),
            disorders: Vec::new(),
            hard: Vec::new(),
            soft: Vec::new(),
            obstacles: Vec::new(),
        };
        for (id, t) in &f.terrain {
            if t.soft {
                g.soft.push(id.clone());
            }
            if t.obstacle {
                g.obstacles.push(id.clone());
            }
            if t.disorders {
                g.disorders.push(id.clone());
            }
            if t.hard {
                g.hard.push(id.clone());
            }
            g.terrain.insert(
                id.clone(),
                Terrain {
                    id: id.clone(),
                    name: t.name.clone(),
                    cover: t.cover,
                    blocks_sight: t.blocks_sight,
                    capacity: None,
                    crossing: BTreeMap::new(),
                    uphill: None,
                    line: t.line,
                    moves: BTreeMap::new(),
                },
            );
        }
        g
    }
}

/// The standing orders a Seven Years' War unit may hold.
pub const STANDING: &[&str] = &[
    "EVADE",
    "STAND",
    "COUNTER-CHARGE",
    "RESPONSE FIRE",
    "HOLD FIRE",
    "FIGHT ON",
    "BREAK OFF",
];

/// Fill a placed unit's Seven Years' War attributes.
pub fn place_unit(
    t: &Tables,
    troop: &Troop,
    p: &Placement<SywKeys>,
    u: &mut Unit,
) -> Result<(), String> {
    let st = t.troop(&troop.id).ok_or("no Seven Years' War troop")?;
    let exp = p
        .book
        .experience
        .clone()
        .unwrap_or_else(|| st.experience.clone())
        .trim()
        .to_ascii_lowercase();
    if !t.experience.contains_key(&exp) {
        return Err(format!(
            "experience is {}, not '{exp}'",
            t.experience.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    u.experience = exp;
    u.ranks = troop.ranks;
    // L: "Line cavalry move by squadron": only a line cavalry squadron
    // belongs to a regiment.
    if !u.regiment.is_empty() && (troop.class != "cavalry" || troop.light) {
        return Err(format!(
            "a regiment is made of line cavalry squadrons; {} is {}",
            u.id, troop.name
        ));
    }
    for w in &p.book.refused {
        let words: Vec<&str> = w.split_whitespace().collect();
        let x = line::parse(&words)?;
        line::room(troop, u, &x)?;
        u.refused.retain(|o| o.end != x.end);
        u.refused.push(x);
    }
    if let Some(m) = &p.book.marker {
        let m = m.trim().to_ascii_lowercase();
        if m != "red" && m != "orange" {
            return Err(format!("a marker is red or orange, not '{m}'"));
        }
        u.marker = Some(m);
    }
    if let Some(f) = &p.book.forced {
        u.forced = Some(match f.trim() {
            "rout" => crate::state::Forced::Rout,
            "retreat" | "retire" => crate::state::Forced::Retire,
            other => return Err(format!("forced is rout or retreat, not '{other}'")),
        });
    }
    for s in &p.standing {
        let s = s
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_uppercase();
        if !STANDING.contains(&s.as_str()) {
            return Err(format!(
                "'{s}' is not a standing order ({})",
                STANDING.join(", ")
            ));
        }
        u.standing.push(s);
    }
    if let Some((a, b)) = standing::contradiction(&u.standing) {
        return Err(format!("standing orders {a} and {b} contradict each other"));
    }
    Ok(())
}
