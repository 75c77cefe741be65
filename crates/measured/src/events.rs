//! What happens in a measured game, as reports, the case runner and the
//! store read it. Each event's JSON form is the one the store has always
//! held: a `kind` and its fields; a Seven Years' War event also carries
//! `"syw": true` and its sentence (`text`). Lengths are in the engine's
//! units (`fmt_len` writes them), points as `[x, y]`.
//!
//! The two procedures share some kinds ("lapse", "charge", "game_over"),
//! so they are two enums; an `Event` is one or the other, told apart by
//! the `syw` field.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Event {
    /// A Seven Years' War event (tried first: it must have `syw`).
    Syw(SywNote),
    /// An event of the Charge! procedures.
    Charge(Charge),
}

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
}

impl Charge {
    /// How many kinds there are.
    pub const KINDS: usize = 32;

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
        }
    }
}

impl From<Charge> for Event {
    fn from(c: Charge) -> Self {
        Event::Charge(c)
    }
}

impl Event {
    /// The `kind` of the JSON form (what cases name in `events`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Syw(n) => n.what.kind(),
            Event::Charge(c) => c.kind(),
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

#[cfg(test)]
mod tests {
    use super::{Charge, Event, Syw};
    use serde_json::json;

    /// One of each Seven Years' War event the engine writes, as stored.
    fn syw_samples() -> Vec<serde_json::Value> {
        let n = |kind: &str, extra: serde_json::Value| {
            let mut v = json!({"kind": kind, "syw": true, "text": "a sentence"});
            if let (Some(m), serde_json::Value::Object(x)) = (v.as_object_mut(), extra) {
                m.extend(x);
            }
            v
        };
        vec![
            n("player_turn", json!({"turn": 3, "side": "prussia"})),
            n("destroyed", json!({"unit": "IR1"})),
            n("rain", json!({"die": 1})),
            n("rain", json!({})),
            n("effect_ends", json!({"event": "rain"})),
            n("fog_roll", json!({"die": 6})),
            n(
                "fog_roll",
                json!({"die": 1, "dice": [3, 4], "event": "lost"}),
            ),
            n(
                "fog_event",
                json!({"event": "lost", "side": "austria", "units": ["A", "B"]}),
            ),
            n("fog_move", json!({"unit": "IR1", "moved": 40})),
            n("compulsory", json!({"unit": "IR1", "dice": [2, 5]})),
            n(
                "compulsory",
                json!({"unit": "IR1", "dice": [2, 5], "moved": 70}),
            ),
            n("interpenetrated", json!({"unit": "IR2", "by": "IR1"})),
            n("clear", json!({"unit": "IR1", "cleared": false})),
            n(
                "clear",
                json!({"unit": "IR1", "dice": [[4, 5], [6]], "cleared": true}),
            ),
            n("stop", json!({"unit": "IR1"})),
            n("terrain", json!({"unit": "IR1"})),
            n(
                "response_fire",
                json!({"unit": "IR1", "target": "H1", "dice": [1, 6], "killed": 1}),
            ),
            n("lapse", json!({"unit": "IR1"})),
            n(
                "regiment_support",
                json!({"regiment": "R", "charger": "R-1", "units": ["R-2"]}),
            ),
            n(
                "moved",
                json!({"unit": "IR1", "moved": 80, "at": [100, -20], "facing": 270}),
            ),
            n(
                "charge",
                json!({"unit": "H1", "target": "IR1", "path": 90, "allowance": 120}),
            ),
            n("evade", json!({"unit": "IR1", "dice": [3]})),
            n("evade", json!({"unit": "IR1"})),
            n("evade", json!({"unit": "IR1", "dice": [3], "moved": 30})),
            n("pursuit", json!({"unit": "H1", "target": "IR1"})),
            n(
                "secondary_charge",
                json!({"unit": "H1", "evader": "IR1", "target": "IR2"}),
            ),
            n("charge_short", json!({"unit": "H1"})),
            n(
                "counter_charge",
                json!({"unit": "H2", "dice": [4, 4], "reached": true}),
            ),
            n("stand", json!({"unit": "IR1"})),
            n("contact", json!({"unit": "H1", "target": "G1"})),
            n("contact", json!({"unit": "H1", "target": "IR1", "face": 2})),
            n("over_obstacle", json!({"unit": "H1"})),
            n("soft_ground", json!({"unit": "H1"})),
            n(
                "fire",
                json!({"unit": "IR1", "target": "IR2", "dice": [1, 2, 3], "killed": 2}),
            ),
            n(
                "test",
                json!({"unit": "IR1", "score": -1, "die": 2, "result": null}),
            ),
            n(
                "test",
                json!({"unit": "IR1", "score": 7, "die": 5, "result": "rout"}),
            ),
            n(
                "game_over",
                json!({"winner": "prussia", "removed": [10, 30]}),
            ),
            n(
                "melee",
                json!({"attacker": "H1", "attackers": ["H1", "H2"], "defender": "IR1",
                "scores": [5, -2], "dice": [4, 1]}),
            ),
            n(
                "melee_result",
                json!({"winner": "H1", "loser": "IR1", "losers": ["IR1"]}),
            ),
            n("melee_draw", json!({"attacker": "H1", "defender": "IR1"})),
            n(
                "melee_draw",
                json!({"attacker": "H1", "defender": "IR1", "retreat": 30}),
            ),
            n("retreat", json!({"unit": "IR1", "distance": 30})),
            n("manufactured_retreat", json!({"unit": "IR1", "killed": 3})),
            n(
                "enters",
                json!({"unit": "IR1", "dice": [5, 6], "delayed": 0}),
            ),
            n(
                "entry_delayed",
                json!({"unit": "IR1", "dice": [1], "delayed": 1}),
            ),
            n(
                "split",
                json!({"unit": "B1", "new": "B1-2", "crew": [8, 8]}),
            ),
            n("amended", json!({"lines": ["MOVE IR1 TO 10 20"]})),
        ]
    }

    /// One of each Charge! event the engine writes, as stored.
    fn charge_samples() -> Vec<serde_json::Value> {
        let cb = json!([{"unit": "B1", "gun": 1, "die": 4, "less": 1, "damage": 3}]);
        let houses = json!([
            {"section": "farm", "die": 5, "less": 0, "damage": 5, "killed": 1,
                "occupant": "IR1", "penetrates": true, "goes_on": false},
            {"section": "mill", "die": 2, "damage": 2, "killed": 0, "occupant": null}
        ]);
        vec![
            json!({"kind": "move", "turn": 2}),
            json!({"kind": "fled", "unit": "IR1", "why": "routs"}),
            json!({"kind": "retire", "unit": "IR1", "dist": 0, "text": "0\"", "why": "x; blocked"}),
            json!({"kind": "lapse", "unit": "IR1", "why": "gone"}),
            json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
                "face": "front", "impetus": true, "fire_at_chargers": null, "side": "british"}),
            json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
                "face": "rear", "impetus": false, "side": "french",
                "fire_at_chargers": {"attacker": 2, "defender": 5, "fired": true, "killed": 3}}),
            json!({"kind": "charge", "unit": "H1", "target": "IR1", "dist": 96, "text": "6\"",
                "face": "rear", "impetus": false, "side": "french",
                "fire_at_chargers": {"attacker": 5, "defender": 2, "fired": false}}),
            json!({"kind": "note", "text": "a note"}),
            json!({"kind": "blocked", "unit": "IR1", "by": "IR2"}),
            json!({"kind": "moved", "unit": "IR1", "orders": ["FORWARD 4"], "measured": ["4\""],
                "from": [0, 16], "to": [0, 80], "facing": 90, "formation": "line"}),
            json!({"kind": "limber", "unit": "B1", "formation": "limbered"}),
            json!({"kind": "gun_rests", "unit": "B1", "gun": 2, "why": "damaged"}),
            json!({"kind": "canister", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
                "text": "10\"", "figures": 4, "dice": [1, 6], "kill": [5, 6], "killed": {"IR1": 1}}),
            json!({"kind": "shell", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
                "text": "10\"", "sector": 1, "misfire": true}),
            json!({"kind": "shell", "unit": "B1", "gun": 1, "target": "IR1", "range": 160,
                "text": "10\"", "sector": 3, "figures": 2, "dice": [6], "kill": [6],
                "killed": {"IR1": 1}, "counter_battery": cb, "houses": houses,
                "aim": [10, 20], "from": [0, 0]}),
            json!({"kind": "roundshot", "unit": "B1", "gun": 1, "target": "IR1", "range": 400,
                "text": "25\"", "kill": [4, 5, 6], "plus": 3, "minus": 5, "sleeve": -32,
                "sleeve_text": "-2\"", "figures": 3, "dice": [1, 2, 3], "killed": {},
                "counter_battery": [], "houses": [], "aim": [10, 20], "from": [0, 0]}),
            json!({"kind": "gun_destroyed", "unit": "B1", "gun": 1, "damage": 6}),
            json!({"kind": "volley", "unit": "IR1", "target": "IR2", "firers": 24, "per": 4,
                "range": null, "text": null, "band_to": 64, "first": true, "cover": false,
                "deduct": 1, "dice": [{"die": 4, "hits": 3, "group": 1, "size": 6,
                "figures": [1, 2, 6]}], "killed": 3}),
            json!({"kind": "volley", "unit": "IR1", "target": "IR2", "firers": 24, "per": 4,
                "range": 100, "text": "6\"", "band_to": 128, "first": false, "cover": true,
                "deduct": 2, "dice": [], "killed": 0}),
            json!({"kind": "fires_first", "a": "IR1", "b": "IR2", "dice": [3, 3], "first": null}),
            json!({"kind": "fires_first", "a": "IR1", "b": "IR2", "dice": [4, 3], "first": "IR1"}),
            json!({"kind": "pick_off", "unit": "LI1", "target": "IR1", "range": 100, "text": "6\"",
                "kill": [6], "dice": [6, 1], "officers_hit": ["captain"]}),
            json!({"kind": "skirmish", "unit": "LI1", "target": "IR1", "range": 100, "text": "6\"",
                "cover": true, "kill": [6], "dice": [6, 1], "killed": 1}),
            json!({"kind": "officer", "unit": "IR1", "rank": "captain", "save": 3, "saved": false}),
            json!({"kind": "melee", "attacker": "H1", "defender": "IR1", "move": 1,
                "engaged": [8, 6], "mods": [1, -1], "why": [["charging"], []], "second": null,
                "combats": [{"a": 1, "d": 1, "a_die": 4, "d_die": 2, "a_score": 2.5,
                "d_score": 1.0, "winner": "attacker", "break_in": null}],
                "losses": [0, 1], "fire_credit": 0, "outcome": "continues"}),
            json!({"kind": "melee", "attacker": "H1", "defender": "IR1", "move": 2,
                "engaged": [8, 6], "mods": [0, 0], "why": [[], []],
                "second": {"throws": [[2, 2], [5, 1]], "first": "attacker",
                "batches": [["attacker", 2], ["defender", 1]], "idle": [0, 3]},
                "combats": [{"a": 2, "d": 1, "a_die": 1, "d_die": 6, "a_score": 1.0,
                "d_score": 3.0, "winner": "defender", "break_in": 4}],
                "losses": [2, 0], "fire_credit": 1, "outcome": "attacker withdraws"}),
            json!({"kind": "half", "unit": "IR1", "rf": 10, "start": 24, "note": "first"}),
            json!({"kind": "half", "unit": "IR1", "rf": 10, "start": 24, "in_house": false}),
            json!({"kind": "destroyed", "unit": "IR1"}),
            json!({"kind": "morale", "unit": "IR1", "points": 5, "losses": 2, "die": 3,
                "score": 6, "need": 7, "result": "retire"}),
            json!({"kind": "game_over", "winner": "", "removed": [3, 4]}),
            json!({"kind": "ride_down", "unit": "H1", "target": "IR1", "ranks": 2, "need": [5, 6],
                "throws": [5, 1], "broke": 1, "killed": 2, "through": false, "why": "", "next": null}),
            json!({"kind": "ride_down", "unit": "H1", "target": "IR1", "ranks": 2, "need": [5, 6],
                "throws": [5, 6], "broke": 2, "killed": 2, "through": true, "why": "",
                "next": {"target": "IR2", "dist": 32, "text": "2\"", "veer": 15}}),
            json!({"kind": "house_ruins", "section": "farm", "damage": 12, "why": "destroyed"}),
            json!({"kind": "house_ruins", "section": "farm", "moves": 3, "why": "burnt out"}),
            json!({"kind": "house_fire", "section": "farm", "shell": 4, "why": "shell fire"}),
            json!({"kind": "house_leave", "unit": "IR1", "section": "farm", "dist": 32,
                "text": "2\"", "clear": "1\""}),
            json!({"kind": "house_leave", "unit": "IR1", "section": "farm", "dist": 0,
                "text": "0\"", "clear": "1\"", "trapped": true}),
            json!({"kind": "house_spread", "from": "farm", "section": "barn", "die": 6,
                "spreads": true}),
            json!({"kind": "general_rally", "unit": "G1", "target": "IR1", "dist": 64,
                "text": "4\"", "die": 2}),
            json!({"kind": "general_falls", "unit": "G1"}),
            json!({"kind": "general_fit", "unit": "G1"}),
        ]
    }

    #[test]
    fn every_charge_event_round_trips_through_its_stored_json() {
        let mut kinds = std::collections::BTreeSet::new();
        for stored in charge_samples() {
            let e: Event = serde_json::from_value(stored.clone())
                .unwrap_or_else(|x| panic!("{stored} does not parse: {x}"));
            let Event::Charge(c) = &e else {
                panic!("not read as a Charge! event: {stored}");
            };
            kinds.insert(c.kind());
            assert_eq!(stored["kind"], c.kind());
            assert_eq!(serde_json::to_value(&e).expect("serializes"), stored);
        }
        assert_eq!(kinds.len(), Charge::KINDS, "a sample of every kind");
    }

    /// Every event is described: the report's words come from its fields.
    #[test]
    fn every_sample_is_described() {
        for stored in charge_samples().into_iter().chain(syw_samples()) {
            let e: Event = serde_json::from_value(stored.clone()).expect("parses");
            let line = crate::report::describe(&e).expect("described");
            assert!(!line.is_empty(), "{stored}");
        }
    }

    #[test]
    fn every_syw_event_round_trips_through_its_stored_json() {
        let mut kinds = std::collections::BTreeSet::new();
        for stored in syw_samples() {
            let e: Event = serde_json::from_value(stored.clone()).expect("parses");
            let Event::Syw(note) = &e else {
                panic!("not read as a Seven Years' War event: {stored}");
            };
            kinds.insert(note.what.kind());
            assert_eq!(stored["kind"], note.what.kind());
            assert_eq!(serde_json::to_value(&e).expect("serializes"), stored);
        }
        assert_eq!(kinds.len(), Syw::KINDS, "a sample of every kind");
    }
}
