//! The ruleset data file (`rulesets/memoir44.toml`): every table of the rulebook.

use super::DataError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The shipped ruleset text.
pub const BUILTIN: &str = include_str!("../../../rulesets/memoir44.toml");

/// A loaded, checked Memoir '44 ruleset.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    pub board: BoardSpec,
    pub sides: Vec<SideSpec>,
    pub dice: DiceSpec,
    pub classes: BTreeMap<String, ClassSpec>,
    #[serde(default)]
    pub options: Options,
    pub units: BTreeMap<String, UnitSpec>,
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    pub terrain: BTreeMap<String, TerrainSpec>,
    #[serde(default, rename = "terrain-aliases")]
    pub terrain_aliases: BTreeMap<String, String>,
    pub cards: Vec<CardSpec>,
    #[serde(default, rename = "card-aliases")]
    pub card_aliases: BTreeMap<String, String>,
    /// Appendix 3's variants chosen per game (`new-game --option ID`), with
    /// their numbers. Each manoeuvre card names the variant that gives it.
    #[serde(default)]
    pub variants: BTreeMap<String, VariantSpec>,
    /// Paratroops & Glider Landings: the drop by dice.
    #[serde(default)]
    pub airdrop: AirdropSpec,
    /// Appendix 1, Minefields: the pieces in the box and what clears one.
    #[serde(default)]
    pub minefields: MinefieldSpec,
    /// Appendix 1, Bridge Demolition Rules, Option 3.
    #[serde(default)]
    pub bridge_demolition: BridgeSpec,
    /// Night & Severe Weather Conditions (Optional): each condition.
    #[serde(default)]
    pub weather: BTreeMap<String, super::weather::ConditionSpec>,
    /// The night visibility track (weather.rs).
    #[serde(default)]
    pub night_track: super::weather::NightTrackSpec,
    /// Appendix 2, Trains, Railway Engines and Wagons (trains.rs).
    #[serde(default)]
    pub trains: super::trains::TrainsSpec,
    /// Appendix 2, Flooded Field scenarios (landmarks.rs).
    #[serde(default)]
    pub flooding: super::landmarks::FloodingSpec,
    /// Supply Lines & Sieges (Optional): what a line runs along and what
    /// being out of supply costs (supply.rs).
    #[serde(default)]
    pub supply: super::supply::SupplyRules,
    /// "Achtung! Zombie!" (Appendix 3): the variant's tables.
    #[serde(default)]
    pub zombies: super::variants::zombies::ZombieRules,
    /// "Nineteen Eighty-Four" (Appendix 3): the variant's tables.
    #[serde(default, rename = "nineteen-eighty-four")]
    pub nineteen84: super::variants::nineteen84::Rules1984,
    /// "EX-TER-MIN-ATE!" (Appendix 3): the variant's tables.
    #[serde(default)]
    pub exterminate: super::variants::exterminate::ExterminateRules,
    /// "War Of The Worlds" (Appendix 3): the variant's tables.
    #[serde(default)]
    pub worlds: super::variants::worlds::WorldsRules,
    /// "EX-TER-MIN-ATE!", the Cybermen.
    #[serde(default)]
    pub cybermen: super::variants::cybermen::CybermenRules,
}

/// Bridge Demolition Rules, Option 3 (the house rules).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeSpec {
    /// Unit types that may fire at a bridge.
    pub bombard_units: Vec<String>,
    /// Tank symbols that destroy it.
    pub hits_to_destroy: u32,
    /// Appendix 2, Bridge, Pontoon: the cards that build one ("play an
    /// Attack Command Card") and the tiles it is placed on ("the River hex").
    #[serde(default = "attack_cards")]
    pub pontoon_cards: Vec<String>,
    #[serde(default = "rivers")]
    pub pontoon_rivers: Vec<String>,
}

fn attack_cards() -> Vec<String> {
    ["attack-left-flank", "attack-centre", "attack-right-flank"]
        .iter()
        .map(|s| (*s).to_string())
        .collect()
}

fn rivers() -> Vec<String> {
    vec!["river".into()]
}

impl Default for BridgeSpec {
    fn default() -> Self {
        BridgeSpec {
            bombard_units: vec!["heavy-artillery".into(), "big-gun".into()],
            hits_to_destroy: 4,
            pontoon_cards: attack_cards(),
            pontoon_rivers: rivers(),
        }
    }
}

/// Appendix 1, "Minefields" and "Minefield Clearance" (the house rules).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MinefieldSpec {
    /// The numbered sides of the Minefield pieces in the box (0 = Decoy),
    /// mixed and drawn at random for a scenario's minefield hexes.
    pub pieces: Vec<u32>,
    /// The faces of an Engineer Unit's single clearance die that remove it.
    pub engineer_clears_on: Vec<String>,
    /// The faces of an artillery clearance roll that remove it.
    pub artillery_clears_on: Vec<String>,
}

impl Default for MinefieldSpec {
    fn default() -> Self {
        MinefieldSpec {
            pieces: vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
            engineer_clears_on: vec!["infantry".into(), "grenade".into()],
            artillery_clears_on: vec!["grenade".into()],
        }
    }
}

/// A variant of the card rules, chosen per game (Appendix 3, "Army
/// Manoeuvres").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    /// Colonel Blimp: the most command cards played in one turn, at most one
    /// a section ("to a maximum of three cards").
    #[serde(default)]
    pub cards_per_turn: Option<u32>,
}

/// Paratroops & Glider Landings (the house rules): how a dropped figure drifts,
/// as d6 tables (index = the die's number - 1).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AirdropSpec {
    /// Hexes a figure drifts from where it was let go.
    pub scatter: Vec<u32>,
    /// Alternate Airdrop Method: hexes the plane flies on before each drop.
    pub pause: Vec<u32>,
}

impl Default for AirdropSpec {
    fn default() -> Self {
        AirdropSpec {
            scatter: vec![0, 1, 1, 2, 2, 3],
            pause: vec![1, 2, 3, 4, 5, 6],
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSpec {
    pub columns: i32,
    pub rows: i32,
    pub section_lines: Vec<i32>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SideSpec {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default = "one")]
    pub air_power_dice: u32,
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DiceSpec {
    pub faces: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    #[serde(default)]
    pub symbol: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "yes")]
    pub starting_hand_method: bool,
    #[serde(default = "yes")]
    pub firefight: bool,
    #[serde(default = "yes")]
    pub infantry_charge: bool,
    #[serde(default = "yes")]
    pub counter_attack_turn: bool,
    #[serde(default = "two")]
    pub recon_draw: u32,
    #[serde(default = "three")]
    pub cross_hair_markers: u32,
    #[serde(default)]
    pub ordered_extra_die_cards: Vec<String>,
    /// Night & Severe Weather Conditions (Optional): a scenario's or a
    /// game's conditions are played (false: refused).
    #[serde(default = "yes")]
    pub night_and_weather: bool,
    /// Blitzkrieg Rules (Optional): a scenario or game may name the side
    /// that uses them (false: refused).
    #[serde(default = "yes")]
    pub blitzkrieg: bool,
    /// Infantry Support Weapons (Optional): scenarios may place them
    /// (false: refused).
    #[serde(default = "yes")]
    pub infantry_support_weapons: bool,
    /// Battle Star Markers (Optional): scenarios may place them (false:
    /// refused).
    #[serde(default = "yes")]
    pub battle_stars: bool,
    /// Demoralisation, & Disorganisation (Optional): scenarios and games
    /// may name affected units (false: refused).
    #[serde(default = "yes")]
    pub demoralisation: bool,
    /// Political Commissar (Eastern Front Only): scenarios and games may
    /// name the side with the marker (false: refused).
    #[serde(default = "yes")]
    pub political_commissar: bool,
    /// Supply Lines & Sieges (Optional): scenarios and games may put them
    /// in force (false: refused).
    #[serde(default = "yes")]
    pub supply_lines: bool,
}

fn two() -> u32 {
    2
}
fn three() -> u32 {
    3
}

impl Default for Options {
    fn default() -> Self {
        Options {
            starting_hand_method: true,
            firefight: true,
            infantry_charge: true,
            counter_attack_turn: true,
            recon_draw: 2,
            cross_hair_markers: 3,
            ordered_extra_die_cards: vec![],
            night_and_weather: true,
            blitzkrieg: true,
            infantry_support_weapons: true,
            battle_stars: true,
            demoralisation: true,
            political_commissar: true,
            supply_lines: true,
        }
    }
}

/// One unit type.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSpec {
    pub name: String,
    /// The letter the maps print for it (upper case for the side at the
    /// bottom of the reader's map).
    #[serde(default)]
    pub letter: Option<String>,
    /// infantry, armour or artillery.
    pub class: String,
    pub figures: u32,
    pub r#move: u32,
    pub move_and_battle: u32,
    /// Dice by range; index 0 is an adjacent target.
    pub dice: Vec<u32>,
    #[serde(default)]
    pub dice_vs_armour: Option<Vec<u32>>,
    /// Classes or unit ids it may battle; empty means any.
    #[serde(default)]
    pub targets: Vec<String>,
    #[serde(default)]
    pub close_only_vs_armour: bool,
    #[serde(default)]
    pub armour_penalty: u32,
    #[serde(default)]
    pub indirect: bool,
    #[serde(default)]
    pub ignores_grenades: bool,
    #[serde(default)]
    pub ignores_first_flag: bool,
    #[serde(default)]
    pub charge: bool,
    #[serde(default)]
    pub take_ground: bool,
    #[serde(default)]
    pub overrun: bool,
    #[serde(default = "yes")]
    pub medal: bool,
    #[serde(default)]
    pub special: bool,
    #[serde(default)]
    pub star_is_flag_vs_armour: bool,
    #[serde(default)]
    pub cross_hairs: bool,
    /// Terrain it may move on; empty means any.
    #[serde(default)]
    pub move_only_on: Vec<String>,
    /// The class whose terrain movement rules it follows (default: its own).
    #[serde(default)]
    pub move_class: Option<String>,
    /// May battle the turn it moves onto terrain where other units must
    /// stop and not battle (it still stops there).
    #[serde(default)]
    pub battle_after_stop: bool,
    /// The only die faces that hit it (empty: its class symbol and grenades).
    #[serde(default)]
    pub hit_only_by: Vec<String>,
    /// The die faces its own battle dice score hits on (empty: the usual).
    #[serde(default)]
    pub hits_on: Vec<String>,
    /// False: blocked retreats and No Retreat cost it no figure.
    #[serde(default = "yes")]
    pub flag_losses: bool,
    /// On any number of flags it retreats 1 to this many hexes.
    #[serde(default)]
    pub retreat_up_to: Option<u32>,
    /// Its battle dice are never reduced by terrain.
    #[serde(default)]
    pub ignores_terrain_dice: bool,
    /// Its battle dice are not reduced by terrain in Close Assault (Combat
    /// Engineers: "Ignores all Battle Dice terrain reductions when in Close
    /// Assault").
    #[serde(default)]
    pub close_assault_ignores_terrain: bool,
    /// The Engineer Unit of Appendix 1: clears minefields, removes wire and
    /// hedgehogs it moves onto, places charges on bridges.
    #[serde(default)]
    pub engineer: bool,
    /// "A Player may only have one of these Units on the Board."
    #[serde(default)]
    pub one_per_side: bool,
    /// Infantry Support Weapons (Optional): support.rs.
    #[serde(default)]
    pub support: super::support::SupportSpec,
    /// Appendix 3's Suggested Variants: variants/mod.rs.
    #[serde(default)]
    pub variant: super::variants::VariantUnit,
}

impl UnitSpec {
    #[must_use]
    pub fn movement_class(&self) -> &str {
        self.move_class.as_deref().unwrap_or(&self.class)
    }
}

/// One tile or obstacle.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSpec {
    pub name: String,
    /// "tile" or "obstacle".
    pub kind: String,
    #[serde(default)]
    pub stop: bool,
    #[serde(default)]
    pub no_battle_after_entering: bool,
    #[serde(default)]
    pub protect: BTreeMap<String, u32>,
    #[serde(default)]
    pub protect_from_lower_only: bool,
    #[serde(default)]
    pub fire_penalty: BTreeMap<String, u32>,
    #[serde(default)]
    pub blocks_los: bool,
    #[serde(default)]
    pub hill: bool,
    #[serde(default)]
    pub impassable: bool,
    #[serde(default)]
    pub bridge: bool,
    #[serde(default)]
    pub only_enter: Vec<String>,
    #[serde(default)]
    pub max_move_entering: Option<u32>,
    #[serde(default)]
    pub max_move_leaving: Option<u32>,
    #[serde(default)]
    pub enter_from_adjacent_start: bool,
    #[serde(default)]
    pub no_battle_from: bool,
    #[serde(default)]
    pub sea: bool,
    #[serde(default)]
    pub ignore_first_flag: bool,
    #[serde(default)]
    pub owner_only: bool,
    #[serde(default)]
    pub wire: bool,
    #[serde(default)]
    pub removed_by: Vec<String>,
    #[serde(default)]
    pub artillery_no_retreat: bool,
    /// An Engineer Unit that moves onto the hex removes it (Combat
    /// Engineers: "Must remove Barbed Wire or Hedgehog hex").
    #[serde(default)]
    pub engineer_removes: bool,
    // Appendix 2, tiles from expansion sets (procedures in tiles.rs).
    /// Artillery that starts the game here may not move (bunkers, fortress).
    #[serde(default)]
    pub fixes_artillery: bool,
    /// Units of these classes must stop on entering (empty: see `stop`).
    #[serde(default)]
    pub stop_classes: Vec<String>,
    /// The first flag is ignored only by a unit of these classes (empty:
    /// see `ignore_first_flag`).
    #[serde(default)]
    pub ignore_first_flag_classes: Vec<String>,
    /// Every flag rolled against a unit here is ignored (Fortress).
    #[serde(default)]
    pub ignore_all_flags: bool,
    /// `protect` counts only when the unit here is of one of these classes
    /// (Road-Block: an occupying infantry unit).
    #[serde(default)]
    pub protect_only_for: Vec<String>,
    /// Units of these classes may not battle the turn they move onto or out
    /// of the hex (Flooded Fields, Marshes: armour).
    #[serde(default)]
    pub no_battle_moving_on_or_off: Vec<String>,
    /// Armour taking ground onto the hex may not go on to an Armour Overrun.
    #[serde(default)]
    pub no_overrun: bool,
    /// A road: a move spent wholly on road hexes may go 1 hex further.
    #[serde(default)]
    pub road: bool,
    /// Only these attacking classes can hit a unit here, and only with these
    /// faces (Fortress: artillery, stars).
    #[serde(default)]
    pub hit_only_by: BTreeMap<String, Vec<String>>,
    /// Battle by a unit of one of these classes against a unit here destroys
    /// the tile: it becomes `destroyed_becomes` (Russian Wooden Village,
    /// Radar Station).
    #[serde(default)]
    pub destroyed_by_fire: Vec<String>,
    #[serde(default)]
    pub destroyed_becomes: Option<String>,
    /// One such hex does not block line of sight; a line across two adjacent
    /// such hexes does (Lake).
    #[serde(default)]
    pub blocks_los_in_pairs: bool,
    /// Walled (Wadi): units step into or out of the hex only through its
    /// open ends (tiles.rs reads where they are).
    #[serde(default)]
    pub walled: bool,
    /// Units of these classes battling into or out of the hex must be in
    /// close assault (Wadi: infantry and armour).
    #[serde(default)]
    pub close_only_into_or_out: Vec<String>,
    /// Dice rolled when a unit moves or retreats onto the hex, and the face
    /// that costs a figure each (Frozen River: two dice, stars).
    #[serde(default)]
    pub entry_dice: u32,
    #[serde(default)]
    pub entry_loss_face: Option<String>,
    /// A Mountain: climbed only from a hill or another mountain, and only
    /// by infantry; its protection does not count for a unit on the same
    /// mountain; line of sight across it is blocked except between two
    /// hexes of it (tiles.rs, battle.rs).
    #[serde(default)]
    pub mountain: bool,
    /// The dice an artillery unit battles with from here, by range
    /// (Mountain: 3, 3, 2, 2, 1, 1, 1).
    #[serde(default)]
    pub artillery_dice: Vec<u32>,
    /// Hexes of movement the owner's armour loses when the tile is
    /// destroyed by Sabotage (Supply Depot: 1).
    #[serde(default)]
    pub destroyed_costs_armour_move: u32,
    /// A unit with Collapsible Assault Boats may enter the hex (River).
    #[serde(default)]
    pub assault_boats: bool,
    /// An ordered infantry unit here may recover lost figures as with a
    /// Medics & Mechanics card, when the scenario says so (Oasis).
    #[serde(default)]
    pub recovers_figures: bool,
}

/// How many units a section card orders in one section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Count {
    N(u32),
    All(AllWord),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllWord {
    All,
}

impl Count {
    #[must_use]
    pub fn limit(self) -> usize {
        match self {
            Count::N(n) => n as usize,
            Count::All(_) => usize::MAX,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CardSpec {
    pub id: String,
    pub name: String,
    pub count: u32,
    /// "section" or "tactic".
    pub kind: String,
    #[serde(default)]
    pub orders: BTreeMap<String, Count>,
    #[serde(default)]
    pub recon: bool,
    #[serde(default)]
    pub effect: Option<String>,
    #[serde(default)]
    pub units: Option<u32>,
    #[serde(default)]
    pub unit_class: Option<String>,
    /// kind = "manoeuvre": the variant (game option) that gives each player
    /// this card once per game, outside the deck.
    #[serde(default)]
    pub variant: Option<String>,
    /// The Big Push: hexes an artillery unit may march forward instead of
    /// battling.
    #[serde(default)]
    pub artillery_march: Option<u32>,
    /// The Big Push: extra battle dice for artillery that does not march.
    #[serde(default)]
    pub artillery_extra_dice: Option<u32>,
}

/// The Army Manoeuvres cards the engine knows (kind = "manoeuvre").
pub const MANOEUVRES: &[&str] = &["restoring-order", "big-push"];

/// The tactic effects the engine knows.
pub const EFFECTS: &[&str] = &[
    "air-power",
    "ambush",
    "armor-assault",
    "artillery-bombard",
    "barrage",
    "behind-enemy-lines",
    "close-assault",
    "counter-attack",
    "dig-in",
    "direct-from-hq",
    "firefight",
    "infantry-assault",
    "medics-and-mechanics",
    "move-out",
    "their-finest-hour",
];

/// Byte offset to 1-based (line, column).
#[must_use]
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    for (i, ch) in text.char_indices() {
        if i >= offset {
            break;
        }
        if ch == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}

/// A `DataError::At` from a toml error.
#[must_use]
pub fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> DataError {
    let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
    DataError::At {
        file: file.to_string(),
        line,
        column,
        message: e.message().trim().to_string(),
    }
}

/// A `DataError::At` at a span.
#[must_use]
pub fn at(
    text: &str,
    file: &str,
    span: std::ops::Range<usize>,
    message: impl Into<String>,
) -> DataError {
    let (line, column) = line_col(text, span.start);
    DataError::At {
        file: file.to_string(),
        line,
        column,
        message: message.into(),
    }
}

/// Find the span of `key` (as a TOML key) in the text, for content errors in
/// tables we deserialize without spans.
fn key_span(text: &str, key: &str) -> std::ops::Range<usize> {
    for pat in [
        format!("[units.{key}]"),
        format!("[terrain.{key}]"),
        format!("\"{key}\""),
    ] {
        if let Some(p) = text.find(&pat) {
            return p..p + pat.len();
        }
    }
    0..0
}

impl Ruleset {
    /// The shipped ruleset.
    pub fn builtin() -> Result<Ruleset, DataError> {
        Self::from_toml(BUILTIN, "rulesets/memoir44.toml")
    }

    /// Parse and check a ruleset file.
    pub fn from_toml(text: &str, file: &str) -> Result<Ruleset, DataError> {
        let r: Ruleset = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
        let bad = |key: &str, msg: String| Err(at(text, file, key_span(text, key), msg));
        if r.sides.len() != 2 {
            return bad("sides", "a Memoir '44 ruleset has exactly two sides".into());
        }
        if let Some((key, msg)) =
            super::trains::check_spec(&r).or_else(|| super::landmarks::check_spec(&r))
        {
            return bad(&key, msg);
        }
        if r.dice.faces.len() != 6 {
            return bad("faces", "the battle die has six faces".into());
        }
        if r.board.columns < 2 || r.board.rows < 1 || r.board.columns > 26 || r.board.rows > 30 {
            return bad("columns", "board size out of range".into());
        }
        if r.airdrop.scatter.len() != 6 || r.airdrop.scatter.iter().any(|d| *d > 12) {
            return bad(
                "scatter",
                "airdrop.scatter gives the drift for each of the 6 numbers of a die (0 to 12 hexes)"
                    .into(),
            );
        }
        if r.airdrop.pause.len() != 6 || r.airdrop.pause.iter().any(|d| *d == 0 || *d > 26) {
            return bad(
                "pause",
                "airdrop.pause gives the plane's flight for each of the 6 numbers of a die (1 to 26 hexes)"
                    .into(),
            );
        }
        if let Some((key, msg)) = check_units(&r) {
            return bad(&key, msg);
        }
        for (a, t) in &r.aliases {
            if !r.units.contains_key(t) {
                return bad(a, format!("alias '{a}' names unknown unit '{t}'"));
            }
        }
        for (id, t) in &r.terrain {
            if t.kind != "tile" && t.kind != "obstacle" {
                return bad(
                    id,
                    format!("terrain '{id}': kind must be \"tile\" or \"obstacle\""),
                );
            }
        }
        for (id, t) in &r.terrain {
            if let Some(b) = &t.destroyed_becomes {
                if !r.terrain.contains_key(b) {
                    return bad(
                        id,
                        format!("terrain '{id}': destroyed_becomes names unknown terrain '{b}'"),
                    );
                }
            }
        }
        for (a, t) in &r.terrain_aliases {
            if !r.terrain.contains_key(t) {
                return bad(a, format!("alias '{a}' names unknown terrain '{t}'"));
            }
        }
        if let Some((key, msg)) = check_cards(&r) {
            return bad(&key, msg);
        }
        for (id, v) in &r.variants {
            if v.cards_per_turn == Some(0) {
                return bad(
                    id,
                    format!("variant '{id}': cards_per_turn must be at least 1"),
                );
            }
        }
        Ok(r)
    }

    /// A unit id from what a player or a file wrote (aliases, case-blind).
    #[must_use]
    pub fn unit_id(&self, word: &str) -> Option<String> {
        let w = word.trim().to_ascii_lowercase().replace('_', "-");
        if self.units.contains_key(&w) {
            return Some(w);
        }
        self.aliases.get(&w).cloned()
    }

    /// A terrain id (tile or obstacle) from what a file wrote.
    #[must_use]
    pub fn terrain_id(&self, word: &str) -> Option<String> {
        let w = word.trim().to_ascii_lowercase().replace('_', "-");
        if self.terrain.contains_key(&w) {
            return Some(w);
        }
        self.terrain_aliases.get(&w).cloned()
    }

    /// A card id from what a player wrote.
    #[must_use]
    pub fn card_id(&self, word: &str) -> Option<String> {
        let w = word.trim().to_ascii_lowercase().replace('_', "-");
        if self.cards.iter().any(|c| c.id == w) {
            return Some(w);
        }
        self.card_aliases.get(&w).cloned()
    }

    #[must_use]
    pub fn card(&self, id: &str) -> Option<&CardSpec> {
        self.cards.iter().find(|c| c.id == id)
    }

    #[must_use]
    pub fn unit(&self, id: &str) -> Option<&UnitSpec> {
        self.units.get(id)
    }

    #[must_use]
    pub fn feature(&self, id: &str) -> Option<&TerrainSpec> {
        self.terrain.get(id)
    }

    /// The die face name for a rolled value 1..=6.
    #[must_use]
    pub fn face(&self, value: u32) -> String {
        self.dice
            .faces
            .get((value as usize).wrapping_sub(1))
            .cloned()
            .unwrap_or_default()
    }

    /// The rolled value of a face name (the first face with that name).
    #[must_use]
    pub fn face_value(&self, name: &str) -> Option<u32> {
        let n = name.trim().to_ascii_lowercase();
        let n = if n == "armor" || n == "tank" {
            "armour".to_string()
        } else {
            n
        };
        self.dice
            .faces
            .iter()
            .position(|f| *f == n)
            .map(|p| p as u32 + 1)
    }

    /// The whole deck, in the file's order.
    #[must_use]
    pub fn deck(&self) -> Vec<String> {
        let mut v = Vec::new();
        for c in &self.cards {
            for _ in 0..c.count {
                v.push(c.id.clone());
            }
        }
        v
    }

    /// The symbol that hits a class.
    #[must_use]
    pub fn symbol(&self, class: &str) -> &str {
        self.classes.get(class).map_or("", |c| c.symbol.as_str())
    }
}

/// The first unit type of a ruleset that does not hold together: (its key,
/// why).
fn check_units(r: &Ruleset) -> Option<(String, String)> {
    for (id, u) in &r.units {
        if !r.classes.contains_key(&u.class) {
            return Some((
                id.clone(),
                format!("unit '{id}': unknown class '{}'", u.class),
            ));
        }
        if u.dice.is_empty() {
            return Some((id.clone(), format!("unit '{id}': no battle dice")));
        }
        if u.figures == 0 {
            return Some((id.clone(), format!("unit '{id}': no figures")));
        }
        for t in &u.targets {
            if !r.classes.contains_key(t) && !r.units.contains_key(t) {
                return Some((id.clone(), format!("unit '{id}': unknown target '{t}'")));
            }
        }
        for f in u.hit_only_by.iter().chain(&u.hits_on) {
            if !r.dice.faces.contains(f) {
                return Some((id.clone(), format!("unit '{id}': unknown die face '{f}'")));
            }
        }
        if u.retreat_up_to == Some(0) {
            return Some((
                id.clone(),
                format!("unit '{id}': retreat_up_to must be at least 1"),
            ));
        }
        for t in &u.move_only_on {
            if !r.terrain.contains_key(t) {
                return Some((id.clone(), format!("unit '{id}': unknown terrain '{t}'")));
            }
        }
    }
    None
}

/// The first card of a ruleset that does not hold together: (its id, why).
fn check_cards(r: &Ruleset) -> Option<(String, String)> {
    let sections = ["left", "centre", "right"];
    for c in &r.cards {
        match c.kind.as_str() {
            "section" => {
                if c.orders.is_empty() || c.orders.keys().any(|k| !sections.contains(&k.as_str())) {
                    return Some((
                        c.id.clone(),
                        format!("card '{}': orders must name left, centre or right", c.id),
                    ));
                }
            }
            "tactic" => match &c.effect {
                Some(e) if EFFECTS.contains(&e.as_str()) => {}
                _ => return Some((c.id.clone(), format!("card '{}': unknown effect", c.id))),
            },
            "manoeuvre" => {
                if !c.effect.as_deref().is_some_and(|e| MANOEUVRES.contains(&e)) {
                    return Some((
                        c.id.clone(),
                        format!(
                            "card '{}': a manoeuvre's effect is one of {}",
                            c.id,
                            MANOEUVRES.join(", ")
                        ),
                    ));
                }
                if !c
                    .variant
                    .as_ref()
                    .is_some_and(|v| r.variants.contains_key(v))
                {
                    return Some((
                        c.id.clone(),
                        format!("card '{}': variant must name a [variants] entry", c.id),
                    ));
                }
                if c.count != 0 {
                    return Some((
                        c.id.clone(),
                        format!("card '{}': a manoeuvre is never dealt: count = 0", c.id),
                    ));
                }
            }
            _ => {
                return Some((
                    c.id.clone(),
                    format!("card '{}': kind must be section, tactic or manoeuvre", c.id),
                ));
            }
        }
    }
    None
}
