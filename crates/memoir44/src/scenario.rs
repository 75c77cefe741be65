//! Scenario files (`scenarios/memoir44/*.toml`) and the set-up of a game.

use super::board::Hex;
use super::ruleset::{at, toml_error, Ruleset};
use super::state::{Objective, Standing, State, Terrain, Unit};
use super::DataError;
use adjutant_dice::{shuffle, Dice};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// The shipped scenarios: (id, text).
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "pegasus-bridge",
        include_str!("../../../scenarios/memoir44/pegasus-bridge.toml"),
    ),
    (
        "sainte-mere-eglise",
        include_str!("../../../scenarios/memoir44/sainte-mere-eglise.toml"),
    ),
    (
        "arnhem-bridge",
        include_str!("../../../scenarios/memoir44/arnhem-bridge.toml"),
    ),
    (
        "maleme",
        include_str!("../../../scenarios/memoir44/maleme.toml"),
    ),
    (
        "miteiriya-ridge",
        include_str!("../../../scenarios/memoir44/miteiriya-ridge.toml"),
    ),
    (
        "bir-hakeim",
        include_str!("../../../scenarios/memoir44/bir-hakeim.toml"),
    ),
    (
        "merville-battery",
        include_str!("../../../scenarios/memoir44/merville-battery.toml"),
    ),
    (
        "fall-of-london",
        include_str!("../../../scenarios/memoir44/fall-of-london.toml"),
    ),
];

/// One or several terrain ids for a hex.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    #[must_use]
    pub fn list(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// A unit placement as written in a file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub at: Spanned<String>,
    pub side: Spanned<String>,
    pub r#type: Spanned<String>,
    #[serde(default)]
    pub figures: Option<Spanned<u32>>,
    /// Camouflaged at the start (only on a tile: the house rules' "Camouflage").
    #[serde(default)]
    pub camouflage: Option<Spanned<bool>>,
    /// Motorised Infantry Support Weapons: "A Scenario may also state that
    /// only particular Infantry Support Weapons are Special Units."
    #[serde(default)]
    pub motorised: Option<Spanned<bool>>,
    /// Appendix 2, Trains: the wagon's hex (a train only; trains.rs).
    #[serde(default)]
    pub wagon: Option<Spanned<String>>,
    /// Appendix 2, Trains: a Supply Train's reinforcements, by unit type.
    #[serde(default)]
    pub carries: Option<Vec<Spanned<String>>>,
    /// Appendix 2, Trains: "Trains may also be mission objectives".
    #[serde(default)]
    pub objective: Option<Spanned<TrainObjective>>,
}

/// A train as a mission objective: `objective = { medals = 2 }` (the train
/// itself: worth `medals` to the side that destroys it) or `objective = {
/// reach = "M4", medals = 1 }` (its side gains `medals` once its engine
/// reaches the hex). `medals` defaults to 1.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainObjective {
    #[serde(default)]
    pub medals: Option<Spanned<u32>>,
    #[serde(default)]
    pub reach: Option<Spanned<String>>,
}

/// Paratroops & Glider Landings: sticks the judge drops by dice before the
/// first turn (airdrop.rs). `aim` for the Airdrop Method, `flight` (two hexes
/// on a straight line) for the Alternate Airdrop Method.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    pub side: Spanned<String>,
    pub r#type: Spanned<String>,
    #[serde(default)]
    pub aim: Option<Spanned<String>>,
    #[serde(default)]
    pub flight: Option<Spanned<Vec<Spanned<String>>>>,
    /// How many units (sticks) of this type; default 1.
    #[serde(default)]
    pub sticks: Option<Spanned<u32>>,
}

/// Bridge Demolition: "a Scenario may state that the Bridge is already
/// rigged for detonation", by `side`. `battled`: a battle has taken place on
/// it since (a case's position).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiggedSpec {
    pub at: Spanned<String>,
    pub side: Spanned<String>,
    #[serde(default)]
    pub battled: bool,
}

/// Appendix 1, Minefields: a minefield hex of the scenario, laid by `side`.
/// Without `strength` the judge draws its piece from the mixed box at set-up
/// (a case gives the strength).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MineSpec {
    pub at: Spanned<String>,
    pub side: Spanned<String>,
    #[serde(default)]
    pub strength: Option<Spanned<u32>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectiveSpec {
    pub at: Spanned<String>,
    pub side: Spanned<String>,
    #[serde(default)]
    pub held: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSide {
    pub id: Spanned<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default = "four")]
    pub cards: u32,
    /// Starting Hand Method with fewer than 4 cards: the Recon card kept.
    #[serde(default)]
    pub choice: Option<Spanned<String>>,
    /// An exact starting hand (replaces the Starting Hand Method).
    #[serde(default)]
    pub hand: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub air_power_dice: Option<u32>,
}

fn four() -> u32 {
    4
}

/// A scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub ruleset: Option<String>,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub briefing: String,
    pub victory: u32,
    pub first: Spanned<String>,
    #[serde(default)]
    pub bunkers: Option<Spanned<String>>,
    #[serde(default)]
    pub starting_hand_method: Option<bool>,
    /// Played as Kriegspiel: "true" or "known-start" (the game option
    /// `kriegspiel` given at new-game wins over this).
    #[serde(default)]
    pub kriegspiel: Option<Spanned<String>>,
    pub sides: Vec<ScenarioSide>,
    #[serde(default)]
    pub terrain: BTreeMap<Spanned<String>, Spanned<OneOrMany>>,
    #[serde(default)]
    pub units: Vec<Placement>,
    #[serde(default)]
    pub objectives: Vec<ObjectiveSpec>,
    #[serde(default)]
    pub airdrops: Vec<DropSpec>,
    /// Appendix 1, Minefields: the minefield hexes and who laid them.
    #[serde(default)]
    pub minefields: Vec<MineSpec>,
    /// Bridge Demolition: bridges the scenario rigs for detonation.
    #[serde(default)]
    pub rigged_bridges: Vec<RiggedSpec>,
    /// The Minefield pieces in the box, when not the ruleset's.
    #[serde(default)]
    pub minefield_pieces: Option<Spanned<Vec<u32>>>,
    /// Appendix 2: the North African Desert Rules are in play.
    #[serde(default)]
    pub desert: bool,
    /// Appendix 2, Oasis: infantry in an oasis may recover figures.
    #[serde(default)]
    pub oasis_recovery: bool,
    /// Night & Severe Weather Conditions (Optional).
    #[serde(default)]
    pub weather: Option<WeatherSpec>,
    /// Blitzkrieg Rules (Optional): the side that uses them.
    #[serde(default)]
    pub blitzkrieg: Option<Spanned<String>>,
    /// Battle Star Markers (Optional).
    #[serde(default)]
    pub battle_stars: Vec<StarSpec>,
    /// Demoralisation, & Disorganisation (Optional): the affected units.
    #[serde(default)]
    pub demoralisation: Vec<super::disorder::DisorderSpec>,
    /// Political Commissar (Eastern Front Only): the Russian side.
    #[serde(default)]
    pub commissar: Option<Spanned<String>>,
    /// Appendix 2: a Flooded Field scenario (landmarks.rs).
    #[serde(default)]
    pub flooded: bool,
    /// Appendix 2, Airfield: reinforcements allowed (landmarks.rs).
    #[serde(default)]
    pub airfield_reinforcements: Vec<super::landmarks::ReinforcementSpec>,
    /// Supply Lines & Sieges (Optional): in force, with its exclusions.
    #[serde(default)]
    pub supply: Option<Spanned<super::supply::SupplySpec>>,
    /// The sides the scenario allows to build Pontoon Bridges.
    #[serde(default)]
    pub pontoon_bridges: Vec<Spanned<String>>,
    /// Appendix 3's Suggested Variants the scenario is written for, as the
    /// game options name them (`variant = { worlds = "martians" }`):
    /// applied once the scenario is set up and dealt.
    #[serde(default)]
    pub variant: BTreeMap<Spanned<String>, Spanned<String>>,
}

/// A Battle Star marker as a file places it (stars.rs).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    pub kind: Spanned<String>,
    pub at: Spanned<String>,
    #[serde(default)]
    pub side: Option<Spanned<String>>,
    /// Sabotaging A Dam: Battle Stars already on the dam (0 to 3).
    #[serde(default)]
    pub count: Option<Spanned<u32>>,
}

/// Place a file's Battle Star markers, with line:column errors.
pub fn place_stars(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    specs: &[StarSpec],
) -> Result<(), DataError> {
    for s in specs {
        let kind = s.kind.get_ref().trim().to_ascii_lowercase();
        if !super::stars::KINDS.contains(&kind.as_str()) {
            return Err(at(
                l.text,
                l.file,
                span(&s.kind),
                format!(
                    "unknown Battle Star marker '{}' (known: {})",
                    s.kind.get_ref(),
                    super::stars::KINDS.join(", ")
                ),
            ));
        }
        if !r.options.battle_stars {
            return Err(at(
                l.text,
                l.file,
                span(&s.kind),
                "this ruleset does not play the optional Battle Star Markers",
            ));
        }
        let h = file_hex(r, l, &s.at)?;
        let side = match &s.side {
            Some(x) => Some(file_side(l, x)?),
            None => None,
        };
        let (side, unit) = star_owner(r, st, l, s, &kind, h, side)?;
        let count = match &s.count {
            None => 0,
            Some(c) if kind == super::stars::DAM && *c.get_ref() < super::stars::DAM_STARS => {
                *c.get_ref()
            }
            Some(c) => {
                return Err(at(
                    l.text,
                    l.file,
                    span(c),
                    format!(
                        "count is the Battle Stars already on a dam: 0 to {}",
                        super::stars::DAM_STARS - 1
                    ),
                ))
            }
        };
        st.stars.push(super::stars::Star {
            kind,
            side,
            at: h,
            unit,
            count,
        });
    }
    Ok(())
}

/// The side and unit a Battle Star marker of `kind` at `h` belongs to,
/// checked against what the marker needs (a unit, a side, a tile).
fn star_owner(
    r: &Ruleset,
    st: &State,
    l: &Layout<'_>,
    s: &StarSpec,
    kind: &str,
    h: Hex,
    side: Option<usize>,
) -> Result<(Option<usize>, Option<u32>), DataError> {
    Ok(match kind {
        // "EX-TER-MIN-ATE!": the Human Factor's leader is a Heroic
        // Leader too (variants/exterminate.rs).
        "heroic-leader" | "human-factor" => {
            let Some(u) = st.unit_at(h) else {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("a Heroic Leader is placed with a unit: there is none at {h}"),
                ));
            };
            if side.is_some_and(|x| x != u.side) {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("the unit at {h} is not of the Heroic Leader's side"),
                ));
            }
            (Some(u.side), Some(u.id))
        }
        "air-strikes" => {
            if side.is_none() {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.kind),
                    "air-strikes names the side that calls them: side = \"<side>\"",
                ));
            }
            (side, None)
        }
        // Drop-Zone: "Place a Battle Star on an Open Countryside hex.
        // This is the supply-base for all associated Paratroops" (see
        // optional Supply Lines & Sieges: supply.rs).
        super::supply::DROP_ZONE => {
            let Some(side) = side else {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.kind),
                    "a drop-zone names the side whose Paratroops it supplies: side = \"<side>\"",
                ));
            };
            let tile = super::state::HexInfo::of(r, st, h).tile();
            if tile != "open" {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("a Drop-Zone is placed on an Open Countryside hex, not {tile} ({h})"),
                ));
            }
            if st.supply.is_none() {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.kind),
                    "a Drop-Zone is the Paratroops' supply-base: it needs the Supply Lines & Sieges rules ([supply])",
                ));
            }
            (Some(side), None)
        }
        // Collapsible Assault Boats: "Place a Battle Star in the same
        // hex as each Unit".
        super::stars::BOATS => {
            let Some(u) = st.unit_at(h) else {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("Assault Boats are placed with a unit: there is none at {h}"),
                ));
            };
            if side.is_some_and(|x| x != u.side) {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("the unit at {h} is not of the Assault Boats' side"),
                ));
            }
            (Some(u.side), Some(u.id))
        }
        // Sabotaging A Dam: "the Schwammenauel and Urft dams".
        super::stars::DAM => {
            let Some(side) = side else {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.kind),
                    "a dam marker names the side that may sabotage it: side = \"<side>\"",
                ));
            };
            let tile = super::state::HexInfo::of(r, st, h).tile();
            if tile != "dam" {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.at),
                    format!("Sabotaging A Dam needs a Dam hex, not {tile} ({h})"),
                ));
            }
            (Some(side), None)
        }
        super::stars::SABOTAGE | super::stars::SPOTTING => {
            if side.is_none() {
                return Err(at(
                    l.text,
                    l.file,
                    span(&s.kind),
                    format!("{kind} names the side whose units use it: side = \"<side>\""),
                ));
            }
            (side, None)
        }
        _ => (None, None),
    })
}

/// A scenario's `[weather]`: the conditions in force, and for a night that
/// may end, the side that rolls for dawn on the night track.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherSpec {
    pub conditions: Spanned<Vec<String>>,
    #[serde(default)]
    pub dawn: Option<Spanned<String>>,
    /// The night track's box at the start (default 1).
    #[serde(default)]
    pub track_box: Option<Spanned<u32>>,
}

/// Set the weather of a file's `[weather]` (scenario or case), with
/// line:column errors.
pub fn place_weather(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    w: &WeatherSpec,
) -> Result<(), DataError> {
    let conds = super::weather::parse_conditions(r, w.conditions.get_ref())
        .map_err(|m| at(l.text, l.file, span(&w.conditions), m))?;
    let dawn = match &w.dawn {
        Some(d) => Some(file_side(l, d)?),
        None => None,
    };
    let b = w.track_box.as_ref().map_or(1, |b| *b.get_ref());
    let where_ = w
        .track_box
        .as_ref()
        .map_or_else(|| span(&w.conditions), span);
    super::weather::set(r, st, conds, dawn, b).map_err(|m| at(l.text, l.file, where_, m))
}

/// Shipped scenario ids.
#[must_use]
pub fn ids() -> Vec<String> {
    SHIPPED.iter().map(|(id, _)| (*id).to_string()).collect()
}

/// The text of a shipped scenario.
#[must_use]
pub fn text(id: &str) -> Option<&'static str> {
    SHIPPED.iter().find(|(i, _)| *i == id).map(|(_, t)| *t)
}

/// Everything needed to place a position, already parsed.
pub struct Layout<'a> {
    pub text: &'a str,
    pub file: &'a str,
    pub sides: Vec<String>,
    pub terrain: &'a BTreeMap<Spanned<String>, Spanned<OneOrMany>>,
    pub units: &'a [Placement],
    pub objectives: &'a [ObjectiveSpec],
    pub airdrops: &'a [DropSpec],
    pub minefields: &'a [MineSpec],
    pub rigged: &'a [RiggedSpec],
}

fn span<T>(s: &Spanned<T>) -> std::ops::Range<usize> {
    s.span()
}

/// Parse a hex of a file, checking it is on the board.
pub fn file_hex(r: &Ruleset, l: &Layout<'_>, s: &Spanned<String>) -> Result<Hex, DataError> {
    let b = State::board(r);
    match Hex::parse(s.get_ref()) {
        Some(h) if b.contains(h) => Ok(h),
        Some(_) => Err(at(
            l.text,
            l.file,
            span(s),
            format!("hex '{}' is off the board", s.get_ref()),
        )),
        None => Err(at(
            l.text,
            l.file,
            span(s),
            format!(
                "'{}' is not a hex (write a letter and a row, like E5)",
                s.get_ref()
            ),
        )),
    }
}

pub fn file_side(l: &Layout<'_>, s: &Spanned<String>) -> Result<usize, DataError> {
    let id = s.get_ref().trim().to_ascii_lowercase();
    l.sides.iter().position(|x| *x == id).ok_or_else(|| {
        at(
            l.text,
            l.file,
            span(s),
            format!(
                "unknown side '{}' (sides: {})",
                s.get_ref(),
                l.sides.join(", ")
            ),
        )
    })
}

/// Place terrain, units and objectives into `st`.
pub fn place(r: &Ruleset, st: &mut State, l: &Layout<'_>) -> Result<(), DataError> {
    for (k, v) in l.terrain {
        place_terrain(r, st, l, k, v)?;
    }
    for p in l.units {
        place_unit(r, st, l, p)?;
    }
    for o in l.objectives {
        let h = file_hex(r, l, &o.at)?;
        let side = file_side(l, &o.side)?;
        st.objectives.push(Objective {
            at: h,
            side,
            held: o.held,
        });
    }
    for d in l.airdrops {
        place_airdrop(r, st, l, d)?;
    }
    place_minefields(r, st, l)?;
    for b in l.rigged {
        let h = file_hex(r, l, &b.at)?;
        let side = file_side(l, &b.side)?;
        if !st.has_feature(h, "bridge") {
            return Err(at(
                l.text,
                l.file,
                span(&b.at),
                format!("{h} is not a bridge"),
            ));
        }
        st.charges.push(super::bridges::Charge {
            at: h,
            side,
            battled: b.battled,
        });
    }
    one_per_side(r, l)?;
    if let Err((i, m)) = super::support::check_position(r, st) {
        // The unit's own placement line, when it came from this file.
        let first = st.units.len().saturating_sub(l.units.len());
        let where_ = i
            .checked_sub(first)
            .and_then(|k| l.units.get(k))
            .map_or(0..0, |p| span(&p.r#type));
        return Err(at(l.text, l.file, where_, m));
    }
    super::victory::update_objectives(st);
    Ok(())
}

/// One hex's terrain: the tile first, then obstacles.
fn place_terrain(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    k: &Spanned<String>,
    v: &Spanned<OneOrMany>,
) -> Result<(), DataError> {
    let h = file_hex(r, l, k)?;
    let mut list = Vec::new();
    let mut tiles = 0;
    for w in v.get_ref().list() {
        let Some(id) = r.terrain_id(&w) else {
            return Err(at(
                l.text,
                l.file,
                span(v),
                format!("unknown terrain '{w}'"),
            ));
        };
        if r.feature(&id).is_some_and(|t| t.kind == "tile") {
            tiles += 1;
        }
        if !list.contains(&id) {
            list.push(id);
        }
    }
    if let Some(why) = super::landmarks::hedgerow_road(r, &list, Some(h)) {
        return Err(at(l.text, l.file, span(v), why));
    }
    if tiles > 1 && !(tiles == 2 && list.iter().any(|x| x == "bridge")) {
        return Err(at(
            l.text,
            l.file,
            span(v),
            "a hex holds one tile (a river may also hold a bridge)",
        ));
    }
    // The tile first, then obstacles.
    list.sort_by_key(|id| r.feature(id).map_or(1, |t| usize::from(t.kind != "tile")));
    list.retain(|x| x != "open");
    if !list.is_empty() {
        st.terrain.insert(h, list);
    }
    Ok(())
}

/// One unit: its kind, figures, camouflage, train and motorisation.
fn place_unit(r: &Ruleset, st: &mut State, l: &Layout<'_>, p: &Placement) -> Result<(), DataError> {
    let h = file_hex(r, l, &p.at)?;
    let side = file_side(l, &p.side)?;
    let Some(kind) = r.unit_id(p.r#type.get_ref()) else {
        return Err(at(
            l.text,
            l.file,
            span(&p.r#type),
            format!("unknown unit type '{}'", p.r#type.get_ref()),
        ));
    };
    let spec = r
        .unit(&kind)
        .ok_or_else(|| at(l.text, l.file, span(&p.r#type), "unknown unit type"))?;
    if st.unit_at(h).is_some() {
        return Err(at(l.text, l.file, span(&p.at), format!("two units on {h}")));
    }
    // "Achtung! Zombie!": a zombie unit grows to one figure short of
    // dividing ("even if it means that there are now more than 3").
    let most = if spec.variant.zombie {
        spec.figures.max(r.zombies.divide_at.saturating_sub(1))
    } else {
        spec.figures
    };
    let figures = match &p.figures {
        Some(f) if *f.get_ref() == 0 || *f.get_ref() > most => {
            return Err(at(
                l.text,
                l.file,
                span(f),
                format!("a {} unit has 1 to {most} figures", spec.name),
            ))
        }
        Some(f) => *f.get_ref(),
        None => spec.figures,
    };
    let fixed = spec.class == "artillery" && super::tiles::fixes_artillery(r, st.features(h));
    let concealed = match &p.camouflage {
        Some(c) if *c.get_ref() && st.features(h).is_empty() => {
            return Err(at(
                l.text,
                l.file,
                span(c),
                format!("camouflage only on a tile: {h} is open countryside"),
            ))
        }
        Some(c) => *c.get_ref(),
        None => false,
    };
    let train = super::trains::placement(r, st, l, p, &kind, h, figures)?;
    let id = st.next_unit;
    st.next_unit += 1;
    st.units.push(Unit {
        id,
        side,
        kind,
        at: h,
        figures,
        start: spec.figures,
        fixed,
        concealed,
        train,
    });
    if let Some(m) = p.motorised.as_ref().filter(|m| *m.get_ref()) {
        if !spec.support.weapon {
            return Err(at(
                l.text,
                l.file,
                span(m),
                format!(
                    "only an Infantry Support Weapon is made a motorised Special Unit, not a {}",
                    spec.name
                ),
            ));
        }
        st.motorised.push(id);
    }
    Ok(())
}

/// Paratroops & Glider Landings: one airdrop's sticks, dropped before the
/// first turn.
fn place_airdrop(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    d: &DropSpec,
) -> Result<(), DataError> {
    let side = file_side(l, &d.side)?;
    let Some(kind) = r.unit_id(d.r#type.get_ref()) else {
        return Err(at(
            l.text,
            l.file,
            span(&d.r#type),
            format!("unknown unit type '{}'", d.r#type.get_ref()),
        ));
    };
    if r.unit(&kind).is_none_or(|u| u.class != "infantry") {
        return Err(at(
            l.text,
            l.file,
            span(&d.r#type),
            "paratroops and gliders are dropped as infantry figures: the type must be of the infantry class",
        ));
    }
    let (aim, flight) = match (&d.aim, &d.flight) {
        (Some(a), None) => (Some(file_hex(r, l, a)?), None),
        (None, Some(f)) => {
            let [a, b] = f.get_ref().as_slice() else {
                return Err(at(
                    l.text,
                    l.file,
                    span(f),
                    "flight names two hexes: where the plane enters the board and a hex further along its line",
                ));
            };
            let (ha, hb) = (file_hex(r, l, a)?, file_hex(r, l, b)?);
            if super::airdrop::straight(ha, hb).is_none() {
                return Err(at(
                    l.text,
                    l.file,
                    span(f),
                    format!("the flight {ha} -> {hb} is not a straight line of hexes (along a row or a diagonal)"),
                ));
            }
            (None, Some((ha, hb)))
        }
        _ => {
            return Err(at(
                l.text,
                l.file,
                span(&d.side),
                "an airdrop names either aim = \"<hex>\" (Airdrop Method) or flight = [\"<hex>\", \"<hex>\"] (Alternate Airdrop Method)",
            ))
        }
    };
    let n = match &d.sticks {
        Some(n) if *n.get_ref() == 0 || *n.get_ref() > 12 => {
            return Err(at(l.text, l.file, span(n), "sticks is 1 to 12"))
        }
        Some(n) => *n.get_ref(),
        None => 1,
    };
    for _ in 0..n {
        st.airdrops.push(super::airdrop::Drop {
            side,
            kind: kind.clone(),
            aim,
            flight,
        });
    }
    Ok(())
}

/// Appendix 1's minefields, each with its strength (or one drawn later).
fn place_minefields(r: &Ruleset, st: &mut State, l: &Layout<'_>) -> Result<(), DataError> {
    for m in l.minefields {
        let h = file_hex(r, l, &m.at)?;
        let side = file_side(l, &m.side)?;
        if st.minefields.iter().any(|x| x.at == h) {
            return Err(at(
                l.text,
                l.file,
                span(&m.at),
                format!("two minefields on {h}"),
            ));
        }
        if let Some(s) = &m.strength {
            if *s.get_ref() > 6 {
                return Err(at(
                    l.text,
                    l.file,
                    span(s),
                    "a minefield's strength is the number of battle dice it rolls: 0 (a Decoy) to 6",
                ));
            }
        }
        st.minefields.push(super::mines::Minefield {
            at: h,
            side,
            strength: m.strength.as_ref().map_or(0, |s| *s.get_ref()),
            revealed: false,
            undrawn: m.strength.is_none(),
        });
    }
    Ok(())
}

/// Combat Engineers: "A Player may only have one of these Units on the
/// Board."
fn one_per_side(r: &Ruleset, l: &Layout<'_>) -> Result<(), DataError> {
    for p in l.units {
        let Some(kind) = r.unit_id(p.r#type.get_ref()) else {
            continue;
        };
        if !r.unit(&kind).is_some_and(|u| u.one_per_side) {
            continue;
        }
        let side = file_side(l, &p.side)?;
        let first = l.units.iter().find(|q| {
            r.unit_id(q.r#type.get_ref()).as_deref() == Some(kind.as_str())
                && file_side(l, &q.side).ok() == Some(side)
        });
        if first.is_some_and(|q| !std::ptr::eq(q, p)) {
            let name = r.unit(&kind).map_or(kind.clone(), |u| u.name.clone());
            return Err(at(
                l.text,
                l.file,
                span(&p.r#type),
                format!("a side may only have one {name} unit on the board"),
            ));
        }
    }
    Ok(())
}

/// An empty position for two sides.
#[must_use]
pub fn blank(
    r: &Ruleset,
    scenario: &str,
    title: &str,
    sides: Vec<String>,
    names: Vec<String>,
) -> State {
    let air = sides
        .iter()
        .map(|s| {
            r.sides
                .iter()
                .find(|x| x.id == *s)
                .map_or(1, |x| x.air_power_dice)
        })
        .collect();
    State {
        ruleset: r.id.clone(),
        scenario: scenario.to_string(),
        title: title.to_string(),
        air_power_dice: air,
        side_names: names,
        sides,
        terrain: Terrain::default(),
        units: vec![],
        next_unit: 1,
        hands: vec![vec![], vec![]],
        hand_size: vec![4, 4],
        deck: vec![],
        discard: vec![],
        medal_units: vec![0, 0],
        figures_removed: vec![0, 0],
        objectives: vec![],
        victory: 4,
        bunker_side: None,
        turn: 0,
        phases: None,
        to_move: 0,
        last_played: vec![None, None],
        standing: vec![Standing::default(), Standing::default()],
        engagements: vec![],
        cross_hairs: vec![],
        exchanged: vec![false, false],
        final_turn: None,
        pre_battle: None,
        short_hand: Vec::new(),
        fog: None,
        young_generals: false,
        variants: Vec::new(),
        manoeuvres_used: Vec::new(),
        airdrops: vec![],
        minefields: vec![],
        charges: vec![],
        bridge_damage: vec![],
        weather: None,
        blitzkrieg: None,
        supply: None,
        pontoon_sides: Vec::new(),
        armour_move_lost: Vec::new(),
        stars: Vec::new(),
        disorder: Vec::new(),
        commissar: None,
        second_commissar: None,
        motorised: Vec::new(),
        reinforcements: Vec::new(),
        zombies: None,
        nineteen84: None,
        exterminate: None,
        cybermen: None,
        worlds: None,
        over: false,
        winner: None,
    }
}

/// Parse and check a scenario text (no dealing).
pub fn load(r: &Ruleset, text: &str, file: &str) -> Result<(ScenarioFile, State), DataError> {
    let sf: ScenarioFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    if sf.sides.len() != 2 {
        return Err(DataError::At {
            file: file.into(),
            line: 1,
            column: 1,
            message: "a scenario has exactly two [[sides]]".into(),
        });
    }
    if let Some(rs) = &sf.ruleset {
        // A club's variant (`memoir44-<name>`) plays the family's scenarios.
        if *rs != r.id && !r.id.starts_with(&format!("{rs}-")) {
            return Err(DataError::Invalid {
                file: file.into(),
                message: format!("scenario is for ruleset '{rs}'"),
            });
        }
    }
    let sides: Vec<String> = sf
        .sides
        .iter()
        .map(|s| s.id.get_ref().trim().to_ascii_lowercase())
        .collect();
    if sides[0] == sides[1] {
        return Err(at(
            text,
            file,
            sf.sides[1].id.span(),
            "the two sides need different ids",
        ));
    }
    let names = sf
        .sides
        .iter()
        .map(|s| {
            if s.name.is_empty() {
                s.id.get_ref().clone()
            } else {
                s.name.clone()
            }
        })
        .collect();
    let mut st = blank(r, &sf.id, &sf.name, sides.clone(), names);
    for (i, s) in sf.sides.iter().enumerate() {
        if let Some(a) = s.air_power_dice {
            st.air_power_dice[i] = a;
        }
        st.hand_size[i] = s.cards;
        for c in s.hand.iter().flatten().chain(s.choice.iter()) {
            if r.card_id(c.get_ref()).is_none() {
                return Err(at(
                    text,
                    file,
                    c.span(),
                    format!("unknown card '{}'", c.get_ref()),
                ));
            }
        }
    }
    st.victory = sf.victory;
    let layout = Layout {
        text,
        file,
        sides: sides.clone(),
        terrain: &sf.terrain,
        units: &sf.units,
        objectives: &sf.objectives,
        airdrops: &sf.airdrops,
        minefields: &sf.minefields,
        rigged: &sf.rigged_bridges,
    };
    let first = file_side(&layout, &sf.first)?;
    st.to_move = first;
    if let Some(b) = &sf.bunkers {
        st.bunker_side = Some(file_side(&layout, b)?);
    }
    if sf.desert && r.variants.contains_key(super::tiles::DESERT) {
        st.variants.push(super::tiles::DESERT.to_string());
    }
    if sf.oasis_recovery && r.variants.contains_key(super::landmarks::OASIS_RECOVERY) {
        st.variants
            .push(super::landmarks::OASIS_RECOVERY.to_string());
    }
    place(r, &mut st, &layout)?;
    if sf.flooded {
        super::landmarks::flood(r, &mut st);
    }
    if let Some(w) = &sf.weather {
        place_weather(r, &mut st, &layout, w)?;
    }
    if let Some(sp) = &sf.supply {
        super::supply::place(r, &mut st, &layout, sp.get_ref(), sp.span())?;
    }
    for s in &sf.pontoon_bridges {
        let i = file_side(&layout, s)?;
        if !st.pontoon_sides.contains(&i) {
            st.pontoon_sides.push(i);
        }
    }
    place_stars(r, &mut st, &layout, &sf.battle_stars)?;
    super::disorder::place(r, &mut st, &layout, &sf.demoralisation)?;
    if let Some(c) = &sf.commissar {
        super::commissar::place(r, &mut st, &layout, c)?;
    }
    super::landmarks::place_reinforcements(r, &mut st, &layout, &sf.airfield_reinforcements)?;
    if let Some(b) = &sf.blitzkrieg {
        let side = file_side(&layout, b)?;
        super::blitzkrieg::set(r, &mut st, Some(side)).map_err(|m| at(text, file, b.span(), m))?;
    }
    if let Some(k) = &sf.kriegspiel {
        st.fog =
            Some(super::fog::parse_option(k.get_ref()).map_err(|m| at(text, file, k.span(), m))?);
    }
    Ok((sf, st))
}

fn take(deck: &mut Vec<String>, id: &str) -> Option<String> {
    let p = deck.iter().position(|c| c == id)?;
    Some(deck.remove(p))
}

/// Set up a shipped scenario or a scenario text: place, shuffle and deal.
pub fn setup(r: &Ruleset, scenario: &str, dice: &mut dyn Dice) -> Result<State, DataError> {
    let text = text(scenario)
        .ok_or_else(|| DataError::UnknownScenario(scenario.into(), ids().join(", ")))?;
    let file = format!("scenarios/memoir44/{scenario}.toml");
    setup_text(r, text, &file, dice)
}

/// Set up from a scenario text.
pub fn setup_text(
    r: &Ruleset,
    text: &str,
    file: &str,
    dice: &mut dyn Dice,
) -> Result<State, DataError> {
    let (sf, mut st) = load(r, text, file)?;
    let method = sf
        .starting_hand_method
        .unwrap_or(r.options.starting_hand_method);
    let mut deck = r.deck();
    let fixed = [
        "recon-left-flank",
        "recon-centre",
        "recon-right-flank",
        "direct-from-hq",
    ];
    let mut discard = Vec::new();
    for (i, s) in sf.sides.iter().enumerate() {
        if let Some(hand) = &s.hand {
            for c in hand {
                let id = r.card_id(c.get_ref()).unwrap_or_default();
                match take(&mut deck, &id) {
                    Some(c) => st.hands[i].push(c),
                    None => {
                        return Err(at(
                            text,
                            file,
                            c.span(),
                            format!("no '{id}' card left in the deck"),
                        ))
                    }
                }
            }
        } else if method {
            if s.cards >= 4 {
                for f in fixed {
                    if let Some(c) = take(&mut deck, f) {
                        st.hands[i].push(c);
                    }
                }
            } else if s.cards >= 1 {
                let choice = s
                    .choice
                    .as_ref()
                    .and_then(|c| r.card_id(c.get_ref()))
                    .unwrap_or_else(|| "recon-centre".into());
                if s.cards >= 2 {
                    if let Some(c) = take(&mut deck, "direct-from-hq") {
                        st.hands[i].push(c);
                    }
                    if let Some(c) = take(&mut deck, &choice) {
                        st.hands[i].push(c);
                    }
                } else if let Some(c) = take(&mut deck, "direct-from-hq") {
                    st.hands[i].push(c);
                }
                for f in fixed {
                    if !st.hands[i].iter().any(|c| c == f) {
                        if let Some(c) = take(&mut deck, f) {
                            discard.push(c);
                        }
                    }
                }
            }
        }
    }
    shuffle(&mut deck, dice);
    // Minefields: "mix all Minefield pieces with their numbered side hidden.
    // Place one Minefield piece, selected at random ... on each Minefield
    // hex" (from the hidden-shuffle stream, after the deck).
    let pieces = sf
        .minefield_pieces
        .as_ref()
        .map_or_else(|| r.minefields.pieces.clone(), |p| p.get_ref().clone());
    if let Err(m) = super::mines::draw(&mut st, &pieces, dice) {
        return Err(match (&sf.minefield_pieces, sf.minefields.first()) {
            (Some(p), _) => at(text, file, p.span(), m),
            (None, Some(f)) => at(text, file, f.at.span(), m),
            (None, None) => DataError::Invalid {
                file: file.into(),
                message: m,
            },
        });
    }
    for i in 0..2 {
        while (st.hands[i].len() as u32) < st.hand_size[i] && !deck.is_empty() {
            st.hands[i].push(deck.remove(0));
        }
    }
    st.deck = deck;
    st.discard = discard;
    // The Suggested Variant the scenario is written for, in the options'
    // order.
    for k in sf.variant.keys() {
        if !super::variants::OPTIONS.contains(&k.get_ref().as_str()) {
            return Err(at(
                text,
                file,
                k.span(),
                format!(
                    "unknown Suggested Variant '{}' (known: {})",
                    k.get_ref(),
                    super::variants::OPTIONS.join(", ")
                ),
            ));
        }
    }
    for option in super::variants::OPTIONS {
        if let Some((_, v)) = sf.variant.iter().find(|(k, _)| k.get_ref() == option) {
            super::variants::apply_option(r, &mut st, option, v.get_ref())
                .map_err(|m| at(text, file, v.span(), m))?;
        }
    }
    super::variants::exterminate::human_factor(r, &mut st);
    Ok(st)
}
