//! The whole position of a game: everything a later turn needs.

use super::board::{Board, Hex};
use super::ruleset::{Ruleset, TerrainSpec, UnitSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One unit on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: u32,
    /// Index into `State::sides`.
    pub side: usize,
    /// Unit type id (`infantry`, `medium-armour`, ...).
    pub kind: String,
    pub at: Hex,
    pub figures: u32,
    /// Starting strength.
    pub start: u32,
    /// May not move (artillery that starts the game in a bunker).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fixed: bool,
    /// Camouflaged (a Battle Star marker, the house rules' "Camouflage"): may only
    /// be attacked through Close Assault; lost the moment it battles, is
    /// battled or moves. Under Kriegspiel it is off the enemy's board.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub concealed: bool,
    /// Appendix 2, Trains: a train's wagon and load (trains.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<super::trains::Train>,
}

/// A terrain objective (a victory marker of `side`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Objective {
    pub at: Hex,
    /// Whose victory marker it is.
    pub side: usize,
    /// True while `side` holds it (captured and not retaken).
    pub held: bool,
}

/// The card a side played on its last turn, as it took effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    pub card: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// Two units in close assault, who may go on battling without orders
/// (the house-rule Firefight).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Engagement {
    pub a: u32,
    pub b: u32,
    /// The turn it began; it may be continued on later turns.
    pub since: u32,
}

/// A Big-Gun cross-hair marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossHair {
    pub gun: u32,
    pub target: u32,
}

/// What a side told the judge to do in the other side's turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// Units (by id) that take losses instead of retreating.
    #[serde(default)]
    pub no_retreat: Vec<u32>,
    #[serde(default)]
    pub no_retreat_all: bool,
    /// Preferred retreat hexes per unit, in order.
    #[serde(default)]
    pub retreat: Vec<(u32, Vec<Hex>)>,
    /// Ambush: None = default (the first close assault); Some(empty) = never;
    /// Some(ids) = only for these units.
    #[serde(default)]
    pub ambush: Option<Vec<u32>>,
    /// Discard Method 1: (card to take from the exchanger, card to give).
    #[serde(default)]
    pub swaps: Vec<(String, String)>,
}

/// The tile and obstacles of every hex that is not open countryside, read
/// and changed as the map it derefs to. Clones of a position share it until
/// one of them changes it (`Arc::make_mut`): every plan and every random
/// order tried works on a clone of the whole State, and the terrain, the
/// biggest part of it, seldom changes. Serialised as the map itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terrain(Arc<BTreeMap<Hex, Vec<String>>>);

impl std::ops::Deref for Terrain {
    type Target = BTreeMap<Hex, Vec<String>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Terrain {
    fn deref_mut(&mut self) -> &mut Self::Target {
        Arc::make_mut(&mut self.0)
    }
}

impl From<BTreeMap<Hex, Vec<String>>> for Terrain {
    fn from(m: BTreeMap<Hex, Vec<String>>) -> Terrain {
        Terrain(Arc::new(m))
    }
}

impl<'a> IntoIterator for &'a Terrain {
    type Item = (&'a Hex, &'a Vec<String>);
    type IntoIter = std::collections::btree_map::Iter<'a, Hex, Vec<String>>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Terrain {
    type Item = (&'a Hex, &'a mut Vec<String>);
    type IntoIter = std::collections::btree_map::IterMut<'a, Hex, Vec<String>>;
    fn into_iter(self) -> Self::IntoIter {
        Arc::make_mut(&mut self.0).iter_mut()
    }
}

impl Serialize for Terrain {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.as_ref().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Terrain {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Terrain, D::Error> {
        BTreeMap::deserialize(d).map(Terrain::from)
    }
}

/// The state of one game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    /// Side ids; the first sits at row 1.
    pub sides: Vec<String>,
    pub side_names: Vec<String>,
    pub air_power_dice: Vec<u32>,
    /// Tile and obstacles of every hex that is not open countryside.
    pub terrain: Terrain,
    /// Units by id order.
    pub units: Vec<Unit>,
    pub next_unit: u32,
    pub hands: Vec<Vec<String>>,
    pub hand_size: Vec<u32>,
    /// Draw from the front.
    pub deck: Vec<String>,
    pub discard: Vec<String>,
    /// Units each side has eliminated that count as medals.
    pub medal_units: Vec<u32>,
    /// Enemy figures each side has removed (end-of-game damage).
    pub figures_removed: Vec<u32>,
    pub objectives: Vec<Objective>,
    /// Victory points needed.
    pub victory: u32,
    /// The side that may claim bunkers, if any.
    pub bunker_side: Option<usize>,
    /// Turns played so far.
    pub turn: u32,
    /// The judge's count of phases played to reach this state, when the
    /// judge told it (`Family::numbered`): with a campaign's pre-battle
    /// phases or an airdrop before the first turn it runs ahead of `turn`,
    /// and the board shows it, as every mail does. Display only: never
    /// stored, never part of the state's hash.
    #[serde(skip)]
    pub phases: Option<u32>,
    pub to_move: usize,
    pub last_played: Vec<Option<Played>>,
    pub standing: Vec<Standing>,
    pub engagements: Vec<Engagement>,
    pub cross_hairs: Vec<CrossHair>,
    pub exchanged: Vec<bool>,
    /// The side that plays the house-rule last Counter-Attack turn.
    pub final_turn: Option<usize>,
    /// Campaign battles: the pre-battle rolls, until the battle begins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_battle: Option<super::campaign::PreBattle>,
    /// Per side: started with a smaller hand (a pre-battle star) and draws
    /// two cards a turn until it holds the briefing's number again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_hand: Vec<bool>,
    /// Kriegspiel: each side sees only what its units see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fog: Option<super::fog::Fog>,
    /// The house rules' "Variant For Young Generals" (game option
    /// `young-generals`): section cards only, no Take Ground or Overrun.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub young_generals: bool,
    /// Appendix 3's Army Manoeuvres variants this game plays (game options
    /// `colonel-blimp`, `colonel-chapman`, `general-melchett`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// Per side: the once-per-game manoeuvre cards it has used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manoeuvres_used: Vec<Vec<String>>,
    /// Paratroops & Glider Landings: the sticks still to drop (the judge's
    /// `airdrop` phase before the first turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub airdrops: Vec<super::airdrop::Drop>,
    /// Appendix 1, Minefields: the pieces on the board (their strength is
    /// the referee's alone until revealed: view.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minefields: Vec<super::mines::Minefield>,
    /// Bridge Demolition: bridges rigged for detonation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charges: Vec<super::bridges::Charge>,
    /// Bridge Demolition, Option 3: tank symbols scored on bridges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bridge_damage: Vec<super::bridges::Damage>,
    /// Night & Severe Weather Conditions (Optional): the conditions in
    /// force and the night visibility track (weather.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<super::weather::Weather>,
    /// Blitzkrieg Rules (Optional): the side that uses them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blitzkrieg: Option<usize>,
    /// Battle Star Markers (Optional): the markers on the board (stars.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stars: Vec<super::stars::Star>,
    /// Demoralisation, & Disorganisation (Optional): the affected units
    /// (disorder.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disorder: Vec<super::disorder::Disorder>,
    /// Political Commissar (Eastern Front Only): the side with the marker
    /// and the card face down under it (commissar.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commissar: Option<super::commissar::Commissar>,
    /// "Nineteen Eighty-Four" (Appendix 3): "Political Commissar rules are
    /// always in effect" for both sides, so the other side's marker too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_commissar: Option<super::commissar::Commissar>,
    /// Motorised Infantry Support Weapons the scenario names (support.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub motorised: Vec<u32>,
    /// Appendix 2, Airfield: the reinforcements each side may still land
    /// (landmarks.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reinforcements: Vec<super::landmarks::Reinforcement>,
    /// Supply Lines & Sieges (Optional): the sides that trace lines, the
    /// scenario's exclusions and each unit's turns out of supply
    /// (supply.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply: Option<super::supply::Supply>,
    /// Appendix 2, Bridge, Pontoon: the sides a scenario allows to build
    /// Pontoon Bridges ("only ... in scenarios allowing them").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pontoon_sides: Vec<usize>,
    /// "Achtung! Zombie!" (Appendix 3, game option `zombies`): the Dead
    /// Player's side and the variant's score (variants/zombies.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zombies: Option<super::variants::zombies::Zombies>,
    /// "Nineteen Eighty-Four" (Appendix 3, game option
    /// `nineteen-eighty-four`): the replacements still to come on
    /// (variants/nineteen84.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nineteen84: Option<super::variants::nineteen84::Nineteen84>,
    /// Battle Star Markers, Sabotage of a Supply Depot: per side, the hexes
    /// of movement its armour has lost (stars.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub armour_move_lost: Vec<u32>,
    /// "EX-TER-MIN-ATE!" (Appendix 3, game option `exterminate`): the Dalek
    /// side, its victory points, the towns exterminated
    /// (variants/exterminate.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exterminate: Option<super::variants::exterminate::Exterminate>,
    /// "EX-TER-MIN-ATE!", the Cybermen (Appendix 3, game option
    /// `cybermen`): the Cyberman side (variants/cybermen.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cybermen: Option<usize>,
    /// "War Of The Worlds" (Appendix 3, game option `worlds`): the Martian
    /// Player's side, the sickness and the towns (variants/worlds.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worlds: Option<super::variants::worlds::Worlds>,
    pub over: bool,
    /// Winner side id, or "" for a draw, once over.
    pub winner: Option<String>,
}

impl Unit {
    /// A unit that comes onto the board during the game at full strength
    /// (reinforcements, a train's load).
    #[must_use]
    pub fn arriving(id: u32, side: usize, kind: &str, at: Hex, figures: u32) -> Unit {
        Unit {
            id,
            side,
            kind: kind.to_string(),
            at,
            figures,
            start: figures,
            fixed: false,
            concealed: false,
            train: None,
        }
    }
}

impl State {
    /// The turn a board and its events show: the judge's count of phases
    /// when the judge told it ([`State::phases`]), else the turns played.
    #[must_use]
    pub fn shown_turn(&self) -> u32 {
        self.phases.unwrap_or(self.turn)
    }

    /// Does this game play the variant (a game option)?
    #[must_use]
    pub fn plays(&self, variant: &str) -> bool {
        self.variants.iter().any(|v| v == variant)
    }

    /// Has `side` used the once-per-game manoeuvre card `card`?
    #[must_use]
    pub fn manoeuvre_used(&self, side: usize, card: &str) -> bool {
        self.manoeuvres_used
            .get(side)
            .is_some_and(|v| v.iter().any(|c| c == card))
    }

    #[must_use]
    pub fn board(r: &Ruleset) -> Board {
        let l = &r.board.section_lines;
        Board {
            columns: r.board.columns,
            rows: r.board.rows,
            lines: [
                l.first().copied().unwrap_or(7),
                l.get(1).copied().unwrap_or(17),
            ],
        }
    }

    #[must_use]
    pub fn unit_at(&self, h: Hex) -> Option<&Unit> {
        // A train's wagon holds its hex too (trains.rs).
        self.units
            .iter()
            .find(|u| u.at == h || u.train.as_ref().is_some_and(|t| t.wagon && t.rear == h))
    }

    #[must_use]
    pub fn unit(&self, id: u32) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    pub fn unit_mut(&mut self, id: u32) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.id == id)
    }

    /// The tile and obstacles of a hex (empty = open).
    #[must_use]
    pub fn features(&self, h: Hex) -> &[String] {
        self.terrain.get(&h).map_or(&[], Vec::as_slice)
    }

    #[must_use]
    pub fn has_feature(&self, h: Hex, id: &str) -> bool {
        self.features(h).iter().any(|f| f == id)
    }

    /// The side index of a side id.
    #[must_use]
    pub fn side_index(&self, id: &str) -> Option<usize> {
        let id = id.trim().to_ascii_lowercase();
        self.sides.iter().position(|s| *s == id)
    }

    #[must_use]
    pub fn other(side: usize) -> usize {
        1 - side.min(1)
    }

    /// Medals of a side: eliminated units that count, plus held objectives.
    #[must_use]
    pub fn medals(&self, side: usize) -> u32 {
        self.medal_units.get(side).copied().unwrap_or(0)
            + self
                .objectives
                .iter()
                .filter(|o| o.side == side && o.held)
                .count() as u32
    }

    /// Units of `side` adjacent to `h`'s enemies.
    #[must_use]
    pub fn enemy_adjacent(&self, h: Hex, side: usize) -> bool {
        self.units
            .iter()
            .any(|u| u.side != side && u.at.adjacent(h))
    }
}

/// Terrain facts of one hex, for the rules.
pub struct HexInfo<'a> {
    pub specs: Vec<(&'a str, &'a TerrainSpec)>,
}

impl<'a> HexInfo<'a> {
    #[must_use]
    pub fn of(r: &'a Ruleset, s: &State, h: Hex) -> HexInfo<'a> {
        let mut specs = Vec::new();
        for f in s.features(h) {
            if let Some((k, t)) = r.terrain.get_key_value(f.as_str()) {
                specs.push((k.as_str(), t));
            }
        }
        HexInfo { specs }
    }
    #[must_use]
    pub fn any(&self, f: impl Fn(&TerrainSpec) -> bool) -> bool {
        self.specs.iter().any(|(_, t)| f(t))
    }
    #[must_use]
    pub fn is_hill(&self) -> bool {
        self.any(|t| t.hill)
    }
    /// The tile id ("open" when none).
    #[must_use]
    pub fn tile(&self) -> &'a str {
        self.specs
            .iter()
            .find(|(_, t)| t.kind == "tile")
            .map_or("open", |(k, _)| *k)
    }
    /// Can a unit of this spec enter (or retreat onto) the hex?
    #[must_use]
    pub fn passable(&self, u: &UnitSpec) -> bool {
        // Suggested Variants: "ignore all terrain limitations on Movement".
        if u.variant.terrain_free {
            return true;
        }
        let bridge = self.any(|t| t.bridge);
        if !bridge && self.any(|t| t.impassable) {
            return false;
        }
        let class = u.movement_class();
        if self.any(|t| !t.only_enter.is_empty() && !t.only_enter.iter().any(|c| c == class)) {
            return false;
        }
        // Infantry Support Weapons: "Mortars may not occupy Bunkers".
        if self
            .specs
            .iter()
            .any(|(k, _)| u.support.may_not_enter.iter().any(|x| x == k))
        {
            return false;
        }
        true
    }
}
