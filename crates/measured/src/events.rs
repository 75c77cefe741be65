//! What happens in a game of Charge!, as reports, the case runner and the
//! store read it. Each event's JSON form is the one the store has always
//! held: a `kind` and its fields. Lengths are in the engine's units
//! (`fmt_len` writes them), points as `[x, y]`. (The other book's events
//! are its own type: each book names its events, [`crate::Book::Event`].)

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One thing that happened in a game of Charge!.
pub type Event = Charge;

/// The kinds of Charge! events, with the fields each records. `range`,
/// `dist` and the like are lengths; `text` is that length as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Charge {
    /// The start of a move.
    Move {
        turn: u32,
    },
    Fled {
        unit: String,
        why: String,
    },
    Retire {
        unit: String,
        dist: i64,
        text: String,
        why: String,
    },
    Lapse {
        unit: String,
        why: String,
    },
    Charge {
        unit: String,
        target: String,
        dist: i64,
        text: String,
        face: String,
        impetus: bool,
        /// Written as null when the target did not fire at the chargers.
        fire_at_chargers: Option<FireAtChargers>,
        side: String,
    },
    Note {
        text: String,
    },
    Blocked {
        unit: String,
        by: String,
    },
    Moved {
        unit: String,
        orders: Vec<String>,
        measured: Vec<String>,
        from: [i64; 2],
        to: [i64; 2],
        facing: i32,
        formation: String,
    },
    Limber {
        unit: String,
        formation: String,
    },
    GunRests {
        unit: String,
        gun: usize,
        why: String,
    },
    Canister {
        unit: String,
        gun: usize,
        target: String,
        range: i64,
        text: String,
        figures: usize,
        dice: Vec<u32>,
        kill: Vec<u32>,
        killed: BTreeMap<String, u32>,
    },
    /// A shell: a misfire has only the fields up to `sector` (1) and
    /// `misfire` (true); a burst has the rest.
    Shell {
        unit: String,
        gun: usize,
        target: String,
        range: i64,
        text: String,
        sector: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        misfire: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        figures: Option<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kill: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        killed: Option<BTreeMap<String, u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counter_battery: Option<Vec<CounterBattery>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        houses: Option<Vec<HouseHit>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aim: Option<[i64; 2]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<[i64; 2]>,
    },
    Roundshot {
        unit: String,
        gun: usize,
        target: String,
        range: i64,
        text: String,
        kill: Vec<u32>,
        plus: u32,
        minus: u32,
        /// How far the sleeve's centre is moved beyond the aim point.
        sleeve: i64,
        sleeve_text: String,
        figures: usize,
        dice: Vec<u32>,
        killed: BTreeMap<String, u32>,
        counter_battery: Vec<CounterBattery>,
        houses: Vec<HouseHit>,
        aim: [i64; 2],
        from: [i64; 2],
    },
    GunDestroyed {
        unit: String,
        gun: usize,
        damage: u32,
    },
    /// A volley; `range` and `text` are null at close range.
    Volley {
        unit: String,
        target: String,
        firers: u32,
        per: u32,
        range: Option<i64>,
        text: Option<String>,
        band_to: i64,
        first: bool,
        cover: bool,
        deduct: u32,
        dice: Vec<VolleyDie>,
        killed: u32,
    },
    /// Two units firing at each other; `first` is null for a draw.
    FiresFirst {
        a: String,
        b: String,
        dice: [u32; 2],
        first: Option<String>,
    },
    PickOff {
        unit: String,
        target: String,
        range: i64,
        text: String,
        kill: Vec<u32>,
        dice: Vec<u32>,
        /// The officers hit, by rank.
        officers_hit: Vec<String>,
    },
    Skirmish {
        unit: String,
        target: String,
        range: i64,
        text: String,
        cover: bool,
        kill: Vec<u32>,
        dice: Vec<u32>,
        killed: u32,
    },
    Officer {
        unit: String,
        rank: String,
        save: u32,
        saved: bool,
    },
    /// A move of melee: the attacker's and defender's figures engaged,
    /// modifiers and their reasons, losses, each pair's combat.
    Melee {
        attacker: String,
        defender: String,
        #[serde(rename = "move")]
        round: u32,
        engaged: [u32; 2],
        mods: [i32; 2],
        why: [Vec<String>; 2],
        /// The second move's pinning (null in the first move).
        second: Option<SecondMove>,
        combats: Vec<Combat>,
        losses: [u32; 2],
        fire_credit: u32,
        outcome: String,
    },
    /// The 50% rule: `note` when the melee goes on first, `in_house` else.
    Half {
        unit: String,
        rf: u32,
        start: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        in_house: Option<bool>,
    },
    Destroyed {
        unit: String,
    },
    Morale {
        unit: String,
        points: i32,
        losses: i32,
        die: u32,
        score: i32,
        need: i32,
        result: String,
    },
    GameOver {
        winner: String,
        removed: Vec<u32>,
    },
    RideDown {
        unit: String,
        target: String,
        ranks: u32,
        need: Vec<u32>,
        throws: Vec<u32>,
        broke: u32,
        killed: u32,
        through: bool,
        why: String,
        /// Whom the horsemen strike next (null if no one).
        next: Option<RideDownNext>,
    },
    /// A house in ruins: `damage` when shot to pieces, `moves` when burnt.
    HouseRuins {
        section: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        damage: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<u32>,
        why: String,
    },
    HouseFire {
        section: String,
        shell: u32,
        why: String,
    },
    HouseLeave {
        unit: String,
        section: String,
        dist: i64,
        text: String,
        clear: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trapped: Option<bool>,
    },
    HouseSpread {
        from: String,
        section: String,
        die: u32,
        spreads: bool,
    },
    GeneralRally {
        unit: String,
        target: String,
        dist: i64,
        text: String,
        die: u32,
    },
    GeneralFalls {
        unit: String,
    },
    GeneralFit {
        unit: String,
    },
    /// A referee's correction: its sentence and the lines as applied. (A
    /// game stored before Charge! had events of its own wrote this one with
    /// a `"syw": true` key too; reading ignores it.)
    Amended {
        text: String,
        lines: Vec<String>,
    },
}

impl Charge {
    /// How many kinds there are.
    pub const KINDS: usize = 33;

    /// The `kind` of the JSON form (what cases name in `events`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Charge::Move { .. } => "move",
            Charge::Fled { .. } => "fled",
            Charge::Retire { .. } => "retire",
            Charge::Lapse { .. } => "lapse",
            Charge::Charge { .. } => "charge",
            Charge::Note { .. } => "note",
            Charge::Blocked { .. } => "blocked",
            Charge::Moved { .. } => "moved",
            Charge::Limber { .. } => "limber",
            Charge::GunRests { .. } => "gun_rests",
            Charge::Canister { .. } => "canister",
            Charge::Shell { .. } => "shell",
            Charge::Roundshot { .. } => "roundshot",
            Charge::GunDestroyed { .. } => "gun_destroyed",
            Charge::Volley { .. } => "volley",
            Charge::FiresFirst { .. } => "fires_first",
            Charge::PickOff { .. } => "pick_off",
            Charge::Skirmish { .. } => "skirmish",
            Charge::Officer { .. } => "officer",
            Charge::Melee { .. } => "melee",
            Charge::Half { .. } => "half",
            Charge::Destroyed { .. } => "destroyed",
            Charge::Morale { .. } => "morale",
            Charge::GameOver { .. } => "game_over",
            Charge::RideDown { .. } => "ride_down",
            Charge::HouseRuins { .. } => "house_ruins",
            Charge::HouseFire { .. } => "house_fire",
            Charge::HouseLeave { .. } => "house_leave",
            Charge::HouseSpread { .. } => "house_spread",
            Charge::GeneralRally { .. } => "general_rally",
            Charge::GeneralFalls { .. } => "general_falls",
            Charge::GeneralFit { .. } => "general_fit",
            Charge::Amended { .. } => "amended",
        }
    }
}

/// Firing at chargers: the two dice; `killed` when the defender fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireAtChargers {
    pub attacker: u32,
    pub defender: u32,
    pub fired: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed: Option<u32>,
}

/// One die of a volley and the figures its hits strike.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolleyDie {
    pub die: u32,
    pub hits: u32,
    pub group: u32,
    pub size: u32,
    pub figures: Vec<u32>,
}

/// A gun's counter-battery damage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterBattery {
    pub unit: String,
    pub gun: usize,
    pub die: u32,
    pub less: u32,
    pub damage: u32,
}

/// A house section struck by a shot; `less`, `penetrates` and `goes_on`
/// only for roundshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseHit {
    pub section: String,
    pub die: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub less: Option<u32>,
    pub damage: u32,
    pub killed: u32,
    /// Written as null when the section was empty.
    pub occupant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penetrates: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goes_on: Option<bool>,
}

/// One combat of a melee; `break_in` is the die to break into a house
/// (null outside one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Combat {
    pub a: u32,
    pub d: u32,
    pub a_die: u32,
    pub d_die: u32,
    pub a_score: f64,
    pub d_score: f64,
    pub winner: String,
    pub break_in: Option<u32>,
}

/// The second move of a melee: who moves first and the batches of
/// figures brought into contact, in turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondMove {
    pub throws: Vec<[u32; 2]>,
    pub first: String,
    pub batches: Vec<(String, u32)>,
    pub idle: [u32; 2],
}

/// The next target of horsemen who burst through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RideDownNext {
    pub target: String,
    pub dist: i64,
    pub text: String,
    pub veer: i64,
}
