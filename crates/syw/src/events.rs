//! What happens in a Seven Years' War game, as reports, the case runner
//! and the store read it: each event is its sentence (`text`) and what it
//! records, a `kind` and its fields; its JSON form also carries
//! `"syw": true`, as the store has always held it. Lengths are in the
//! engine's units (`fmt_len` writes them), points as `[x, y]`.

use serde::{Deserialize, Serialize};

/// One thing that happened in a Seven Years' War game.
pub type Event = SywNote;

/// A Seven Years' War event: its sentence and what it records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SywNote {
    /// Always true: it marks the event as the Seven Years' War's.
    pub syw: bool,
    /// The sentence the report prints.
    pub text: String,
    #[serde(flatten)]
    pub what: Syw,
}

impl SywNote {
    #[must_use]
    pub fn new(text: String, what: Syw) -> Self {
        SywNote {
            syw: true,
            text,
            what,
        }
    }
}

/// The kinds of Seven Years' War events, with the fields each records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Syw {
    PlayerTurn {
        turn: u32,
        side: String,
    },
    Destroyed {
        unit: String,
    },
    /// The die of a rain check; none when the rain ceases unchecked.
    Rain {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        die: Option<u32>,
    },
    EffectEnds {
        event: String,
    },
    /// The trigger die; then the two dice and the event they picked.
    FogRoll {
        die: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice: Option<[u32; 2]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<String>,
    },
    FogEvent {
        event: String,
        side: String,
        units: Vec<String>,
    },
    FogMove {
        unit: String,
        moved: i64,
    },
    /// A compulsory move: `moved` is absent when the unit left the table.
    Compulsory {
        unit: String,
        dice: Vec<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved: Option<i64>,
    },
    Interpenetrated {
        unit: String,
        by: String,
    },
    Clear {
        unit: String,
        /// The throws, one list of dice each.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice: Option<Vec<Vec<u32>>>,
        cleared: bool,
    },
    Stop {
        unit: String,
    },
    Terrain {
        unit: String,
    },
    ResponseFire {
        unit: String,
        target: String,
        dice: Vec<u32>,
        killed: u32,
    },
    Lapse {
        unit: String,
    },
    RegimentSupport {
        regiment: String,
        charger: String,
        units: Vec<String>,
    },
    Moved {
        unit: String,
        moved: i64,
        at: [i64; 2],
        facing: i32,
        /// Where the front's centre was before the move (the picture's
        /// arrow); absent in events stored before it was recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<[i64; 2]>,
    },
    Charge {
        unit: String,
        target: String,
        path: i64,
        allowance: i64,
    },
    /// An evade: no dice when it cannot; no `moved` when it left the table.
    Evade {
        unit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved: Option<i64>,
    },
    Pursuit {
        unit: String,
        target: String,
    },
    SecondaryCharge {
        unit: String,
        evader: String,
        target: String,
    },
    ChargeShort {
        unit: String,
    },
    CounterCharge {
        unit: String,
        dice: Vec<u32>,
        reached: bool,
    },
    Stand {
        unit: String,
    },
    Contact {
        unit: String,
        target: String,
        /// The face contacted (0 front, 1 right, 2 rear, 3 left); absent
        /// for a command unit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        face: Option<usize>,
    },
    OverObstacle {
        unit: String,
    },
    SoftGround {
        unit: String,
    },
    Fire {
        unit: String,
        target: String,
        dice: Vec<u32>,
        killed: u32,
    },
    /// A morale test; `result` is null for steady.
    Test {
        unit: String,
        score: i32,
        die: u32,
        result: Option<String>,
    },
    GameOver {
        winner: String,
        removed: Vec<u32>,
    },
    Melee {
        attacker: String,
        attackers: Vec<String>,
        defender: String,
        scores: [i32; 2],
        dice: [u32; 2],
    },
    MeleeResult {
        winner: String,
        loser: String,
        losers: Vec<String>,
    },
    /// A drawn melee; `retreat` when both sides break off.
    MeleeDraw {
        attacker: String,
        defender: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retreat: Option<i64>,
    },
    Retreat {
        unit: String,
        distance: i64,
    },
    ManufacturedRetreat {
        unit: String,
        killed: u32,
    },
    Enters {
        unit: String,
        dice: Vec<u32>,
        delayed: u32,
    },
    EntryDelayed {
        unit: String,
        dice: Vec<u32>,
        delayed: u32,
    },
    Split {
        unit: String,
        new: String,
        crew: [u32; 2],
    },
    /// A referee's correction of the position: its lines.
    Amended {
        lines: Vec<String>,
    },
}

impl Syw {
    /// How many kinds there are.
    pub const KINDS: usize = 38;

    /// The `kind` of the JSON form (what cases name in `events`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Syw::PlayerTurn { .. } => "player_turn",
            Syw::Destroyed { .. } => "destroyed",
            Syw::Rain { .. } => "rain",
            Syw::EffectEnds { .. } => "effect_ends",
            Syw::FogRoll { .. } => "fog_roll",
            Syw::FogEvent { .. } => "fog_event",
            Syw::FogMove { .. } => "fog_move",
            Syw::Compulsory { .. } => "compulsory",
            Syw::Interpenetrated { .. } => "interpenetrated",
            Syw::Clear { .. } => "clear",
            Syw::Stop { .. } => "stop",
            Syw::Terrain { .. } => "terrain",
            Syw::ResponseFire { .. } => "response_fire",
            Syw::Lapse { .. } => "lapse",
            Syw::RegimentSupport { .. } => "regiment_support",
            Syw::Moved { .. } => "moved",
            Syw::Charge { .. } => "charge",
            Syw::Evade { .. } => "evade",
            Syw::Pursuit { .. } => "pursuit",
            Syw::SecondaryCharge { .. } => "secondary_charge",
            Syw::ChargeShort { .. } => "charge_short",
            Syw::CounterCharge { .. } => "counter_charge",
            Syw::Stand { .. } => "stand",
            Syw::Contact { .. } => "contact",
            Syw::OverObstacle { .. } => "over_obstacle",
            Syw::SoftGround { .. } => "soft_ground",
            Syw::Fire { .. } => "fire",
            Syw::Test { .. } => "test",
            Syw::GameOver { .. } => "game_over",
            Syw::Melee { .. } => "melee",
            Syw::MeleeResult { .. } => "melee_result",
            Syw::MeleeDraw { .. } => "melee_draw",
            Syw::Retreat { .. } => "retreat",
            Syw::ManufacturedRetreat { .. } => "manufactured_retreat",
            Syw::Enters { .. } => "enters",
            Syw::EntryDelayed { .. } => "entry_delayed",
            Syw::Split { .. } => "split",
            Syw::Amended { .. } => "amended",
        }
    }
}
