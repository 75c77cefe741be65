//! What happens in a turn, as reports and `verify` read it (the sentences
//! players read are written by `render::describe`).

use super::board::Hex;
use serde::{Deserialize, Serialize};

/// A change to the dice of a battle, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub dice: i32,
    pub reason: String,
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Event {
    TurnBegun {
        turn: u32,
        side: String,
    },
    CardPlayed {
        side: String,
        card: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        section: Option<String>,
        /// For Counter-Attack: the card it copies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        as_card: Option<String>,
    },
    /// A card drawn: private to `side`.
    CardDrawn {
        side: String,
        card: String,
        private: bool,
    },
    CardDiscarded {
        side: String,
        card: String,
        /// Face down (Method 2, Recon's second card): private to `side`.
        private: bool,
    },
    CardsExchanged {
        side: String,
        shown: Vec<String>,
        taken: Vec<(String, String)>,
    },
    DeckReshuffled {
        cards: usize,
    },
    UnitOrdered {
        side: String,
        unit: String,
        at: Hex,
    },
    Move {
        side: String,
        unit: String,
        path: Vec<Hex>,
    },
    Battle {
        side: String,
        attacker: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<Hex>,
        target: String,
        at: Hex,
        range: u32,
        /// "combat", "close-assault", "firefight", "ambush", "charge-reply",
        /// "air-power", "barrage", "overrun".
        how: String,
        base_dice: u32,
        modifiers: Vec<Modifier>,
        dice: u32,
        faces: Vec<String>,
        hits: u32,
        flags: u32,
        ignored_flags: u32,
    },
    /// An order that could not be carried out because of earlier dice.
    OrderSkipped {
        side: String,
        order: String,
        reason: String,
    },
    WireRemoved {
        at: Hex,
        by: String,
    },
    SandbagPlaced {
        at: Hex,
    },
    /// Combat Engineers of `side` remove the wire or hedgehog (`obstacle`,
    /// its name) they stand on.
    ObstacleRemoved {
        side: String,
        unit: String,
        at: Hex,
        obstacle: String,
    },
    /// Bridge Demolition, Option 1: engineers of `side` at `from` place
    /// charges on the bridge at `at`.
    BridgeCharged {
        side: String,
        from: Hex,
        at: Hex,
    },
    /// Option 2: the detonation's two dice.
    BridgeDetonation {
        side: String,
        at: Hex,
        faces: Vec<String>,
        destroyed: bool,
    },
    /// Option 3: Heavy Artillery or a Big-Gun of `side` fires at a bridge.
    BridgeBombarded {
        side: String,
        from: Hex,
        at: Hex,
        faces: Vec<String>,
        hits: u32,
        total: u32,
        /// Barrage or Air Power (a card, not guns at `from`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<String>,
    },
    /// A bridge removed from the board (by `side`).
    BridgeDestroyed {
        side: String,
        at: Hex,
        how: String,
    },
    /// "The explosive charges are considered to be removed if the Bridge is
    /// ever occupied by the enemy."
    BridgeChargesRemoved {
        at: Hex,
    },
    /// Appendix 1, Minefields: a unit of `side` stops on a minefield of its
    /// own side ("will ignore the Minefield, never revealing its strength").
    MinefieldIgnored {
        side: String,
        unit: String,
        at: Hex,
    },
    /// A minefield's numbered side turned over, after a unit of `side`
    /// entered it (a Decoy, strength 0, is removed).
    MinefieldRevealed {
        side: String,
        at: Hex,
        strength: u32,
    },
    /// A minefield's dice against the unit of `side` that entered it: hits
    /// on the unit's symbol and grenades only.
    MinefieldExploded {
        side: String,
        unit: String,
        at: Hex,
        strength: u32,
        faces: Vec<String>,
        hits: u32,
    },
    /// An attempt of `side` to clear the minefield at `at`: an Engineer
    /// Unit's single die (`from` = None: the engineer stands on it), or
    /// artillery firing at it from `from`.
    MinefieldClearance {
        side: String,
        unit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<Hex>,
        at: Hex,
        faces: Vec<String>,
        cleared: bool,
    },
    SandbagRemoved {
        at: Hex,
    },
    /// Appendix 2, Frozen River: the dice rolled as a unit moved or
    /// retreated onto the ice, and the figures the ice took.
    IceRoll {
        side: String,
        unit: String,
        at: Hex,
        faces: Vec<String>,
        lost: u32,
    },
    /// Fire destroyed a tile (Appendix 2: Russian Wooden Village, Radar
    /// Station); `becomes` is what the hex holds now.
    TileDestroyed {
        at: Hex,
        tile: String,
        becomes: String,
    },
    /// Appendix 2, Airfield: reinforcements landed.
    Reinforced {
        side: String,
        unit: String,
        at: Hex,
    },
    /// "Nineteen Eighty-Four" (variants/nineteen84.rs): a replacement for
    /// an eliminated unit comes on at its side's edge (None: no free hex
    /// there yet), in the section the card drawn shows.
    Replacement {
        side: String,
        unit: String,
        at: Option<Hex>,
        card: Option<String>,
        section: String,
    },
    /// Appendix 2, Trains: what became of a train (its wagon removed, its
    /// artillery model lost, a unit disembarked).
    Train {
        side: String,
        unit: String,
        at: Hex,
        note: String,
    },
    /// Appendix 2, "Trains may also be mission objectives": `side` gains
    /// `medals`, its train having `reached` its hex, or the enemy's train
    /// (`unit`, at `at`) being `destroyed`.
    TrainMission {
        side: String,
        unit: String,
        at: Hex,
        medals: u32,
        how: String,
    },
    FiguresLost {
        side: String,
        unit: String,
        at: Hex,
        lost: u32,
        left: u32,
        reason: String,
    },
    FiguresReturned {
        side: String,
        unit: String,
        at: Hex,
        returned: u32,
        now: u32,
        faces: Vec<String>,
    },
    Retreat {
        side: String,
        unit: String,
        path: Vec<Hex>,
        /// Retreat moves that could not be made (each cost a figure).
        blocked: u32,
        no_retreat: bool,
    },
    UnitEliminated {
        side: String,
        unit: String,
        at: Hex,
        by: String,
        medal: bool,
    },
    MedalGained {
        side: String,
        medals: u32,
        reason: String,
    },
    TakeGround {
        side: String,
        unit: String,
        from: Hex,
        to: Hex,
    },
    Overrun {
        side: String,
        unit: String,
        from: Hex,
        to: Hex,
    },
    ObjectiveTaken {
        side: String,
        at: Hex,
        held: bool,
    },
    CrossHairPlaced {
        gun: Hex,
        target: Hex,
    },
    AmbushPlayed {
        side: String,
        at: Hex,
    },
    OrdersByDice {
        side: String,
        faces: Vec<String>,
        ordered: Vec<Hex>,
    },
    VictoryReached {
        side: String,
        medals: u32,
        last_turn_for: Option<String>,
    },
    /// Kriegspiel: a moving unit ran into an enemy unit it did not see (it
    /// stops before it) or came into close assault distance of a
    /// camouflaged one (it stops there): "the active player should be
    /// informed".
    Contact {
        side: String,
        unit: String,
        /// Where the moving unit stopped.
        at: Hex,
        /// The enemy unit's hex.
        enemy: Hex,
        /// "collision" or "camouflage".
        how: String,
    },
    /// Kriegspiel: what a side may know of an enemy action it did not see
    /// (only in a side's view; never stored).
    Fog {
        note: String,
    },
    GameOver {
        winner: Option<String>,
        score: Vec<(String, u32)>,
        reason: String,
    },
    /// Night & Severe Weather: the roll for dawn on the night visibility
    /// track (weather.rs), made before `side`'s turn.
    NightTrack {
        side: String,
        faces: Vec<String>,
        advanced: u32,
        track_box: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        visibility: Option<u32>,
        daylight: bool,
    },
    /// Battle Star Markers (stars.rs): a Heroic Leader lost or moved (with
    /// his two dice), equipment or a prisoner picked up, dropped, destroyed
    /// or killed.
    BattleStar {
        marker: String,
        at: Hex,
        what: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        faces: Vec<String>,
    },
    /// Paratroops & Glider Landings: one stick dropped by dice
    /// (airdrop.rs). `rolls` are the d6 numbers in the order rolled.
    Airdrop {
        side: String,
        /// The unit type's name.
        unit: String,
        /// Where the figure was let go (none: the plane was past the edge).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        released: Option<Hex>,
        /// Dropped by the Alternate Airdrop Method.
        #[serde(default)]
        flight: bool,
        rolls: Vec<u32>,
        #[serde(default)]
        drift: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        direction: Option<String>,
        /// Where it landed and the unit now stands.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Hex>,
        /// Why the stick is lost (no medal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lost: Option<String>,
        /// Lost on the hex of another unit: which hex (so a fog-of-war view
        /// can keep an unseen enemy unit there out of the dropping side's
        /// report).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<Hex>,
    },
    /// Supply Lines & Sieges (supply.rs): at the beginning of `side`'s
    /// turn, its units out of supply (hex, turns running) and those back in
    /// supply.
    Supply {
        side: String,
        out: Vec<(Hex, u32)>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        restored: Vec<Hex>,
    },
    /// Supply Lines & Sieges, "Third Turn Losses": one die for a unit out of
    /// supply; `lost` when it showed the loss face.
    SupplyRoll {
        side: String,
        unit: String,
        at: Hex,
        /// The one die (a list, as every event's dice, for `verify`).
        faces: Vec<String>,
        lost: bool,
    },
    /// The Drop-Zone Battle Star of `side` taken by enemy occupation.
    DropZoneLost {
        side: String,
        at: Hex,
    },
    /// Appendix 2, Bridge, Pontoon: engineers at `from` place one on the
    /// river hex `at`.
    PontoonBuilt {
        side: String,
        from: Hex,
        at: Hex,
    },
    /// "Achtung! Zombie!" (variants/zombies.rs): zombies raised, a unit
    /// divided, dislodged or lost off the board, a victory marker removed,
    /// Living figures saved off the board.
    Zombies {
        what: String,
        side: String,
        at: Hex,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<Hex>,
        figures: u32,
    },
    /// "EX-TER-MIN-ATE!" (variants/exterminate.rs): a Dalek unit sets about
    /// exterminating a town, mercenaries surrender.
    Daleks {
        what: String,
        side: String,
        at: Hex,
    },
    /// "EX-TER-MIN-ATE!", the Cybermen (variants/cybermen.rs): a close
    /// assault's casualties join a Cyberman unit as reinforcements.
    Cybermen {
        side: String,
        at: Hex,
        figures: u32,
        /// Its figures after them.
        left: u32,
    },
    /// "War Of The Worlds" (variants/worlds.rs): a town seized or ruined,
    /// the Common Cold's roll and the sickness level after it.
    Worlds {
        what: String,
        side: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Hex>,
        level: u32,
        /// The Common Cold's die.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        faces: Vec<String>,
    },
    /// A referee's correction (`AMEND`): the lines applied. A side is told
    /// only that the position was corrected (they may name hidden units).
    Amended {
        lines: Vec<String>,
    },
    /// A campaign battle's pre-battle dice (docs/campaigns.md): `side`
    /// rolled `faces` (the interface's `PRE_BATTLE_ROLL`).
    PreBattleRoll {
        side: String,
        faces: Vec<String>,
    },
    /// A star: `side` starts with one card fewer.
    PreBattleHand {
        side: String,
        cards: usize,
    },
    /// A pre-battle result of `side` that can strike nothing.
    PreBattleVoid {
        side: String,
        effect: super::campaign::Effect,
    },
    /// A unit of `side` falls back before the battle.
    PreBattleRetreat {
        side: String,
        from: String,
        to: String,
    },
    /// A unit of `side` loses a figure before the battle (`figures` left).
    PreBattleLoss {
        side: String,
        at: String,
        unit: String,
        figures: u32,
        effect: super::campaign::Effect,
        by: String,
    },
    /// `side` eliminated the unit at `at` before the battle: a medal.
    PreBattleMedal {
        side: String,
        at: String,
    },
}

impl Event {
    /// One of a campaign battle's pre-battle events.
    #[must_use]
    pub fn is_pre_battle(&self) -> bool {
        matches!(
            self,
            Event::PreBattleRoll { .. }
                | Event::PreBattleHand { .. }
                | Event::PreBattleVoid { .. }
                | Event::PreBattleRetreat { .. }
                | Event::PreBattleLoss { .. }
                | Event::PreBattleMedal { .. }
        )
    }
}
