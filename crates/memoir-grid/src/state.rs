//! The position of a grid game, and scenario files.

use super::board::{Area, Grid, GridKind};
use super::ruleset::{at, toml_error, Ruleset};
use adjutant_rules::DataError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Spanned;

/// One unit on the board (or carried by a transport).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: u32,
    /// Index into `State::sides`.
    pub side: usize,
    pub kind: String,
    pub at: Area,
    pub strength: u32,
    /// Strength at the start (basic value with quality).
    pub max: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub irregular: bool,
    /// Entered barbed wire: must remove it before moving again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wire_stuck: bool,
    /// Entered a river at a ford this turn or before: leaves it next turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_river: bool,
    /// Artillery that fired this turn (may not move).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fired: bool,
    /// A unit carried or towed by this transport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrying: Option<Box<Unit>>,
}

/// Where the turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "step")]
pub enum Step {
    /// 1: artillery fire, both sides at once; then 2: initiative.
    Artillery,
    /// 3 and 4: one side moves and fights unit by unit.
    Move { side: usize, second: bool },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    pub sides: Vec<String>,
    /// The side whose edge is row 1.
    pub bottom: usize,
    pub grid: Grid,
    /// Terrain of every area that is not open.
    pub terrain: BTreeMap<Area, Vec<String>>,
    pub units: Vec<Unit>,
    pub next_unit: u32,
    /// Game turns, from 1.
    pub turn: u32,
    pub step: Step,
    /// Per side: chooses to go second if it wins the initiative.
    pub second: Vec<bool>,
    /// Enemy units each side has destroyed.
    pub destroyed: Vec<u32>,
    /// Enemy units to destroy to win.
    pub victory: u32,
    /// After this many turns the side that destroyed more wins (or a draw).
    #[serde(default)]
    pub turns: Option<u32>,
    pub over: bool,
    pub winner: Option<String>,
}

impl State {
    #[must_use]
    pub fn unit_at(&self, a: Area) -> Option<&Unit> {
        // A general shares its area: the other unit is the one found.
        self.units
            .iter()
            .filter(|u| u.at == a)
            .min_by_key(|u| u32::from(u.kind == "general"))
    }
    #[must_use]
    pub fn units_at(&self, a: Area) -> Vec<&Unit> {
        self.units.iter().filter(|u| u.at == a).collect()
    }
    #[must_use]
    pub fn unit(&self, id: u32) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }
    pub fn unit_mut(&mut self, id: u32) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.id == id)
    }
    #[must_use]
    pub fn has(&self, a: Area, feature: &str) -> bool {
        self.terrain
            .get(&a)
            .is_some_and(|v| v.iter().any(|f| f == feature))
    }
    #[must_use]
    pub fn features(&self, a: Area) -> &[String] {
        self.terrain.get(&a).map_or(&[], Vec::as_slice)
    }
    #[must_use]
    pub fn side_index(&self, id: &str) -> Option<usize> {
        let id = id.trim().to_ascii_lowercase();
        self.sides.iter().position(|s| *s == id)
    }
    /// The row of a side's own edge.
    #[must_use]
    pub fn home_row(&self, side: usize) -> i32 {
        if side == self.bottom {
            1
        } else {
            self.grid.rows
        }
    }
}

/// A scenario or case file's board, sides and units.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub ruleset: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub history: Option<String>,
    #[serde(default)]
    pub grid: Option<Spanned<String>>,
    #[serde(default)]
    pub columns: Option<Spanned<i64>>,
    #[serde(default)]
    pub rows: Option<Spanned<i64>>,
    #[serde(default)]
    pub sides: Option<Vec<String>>,
    #[serde(default)]
    pub bottom: Option<Spanned<String>>,
    #[serde(default)]
    pub terrain: BTreeMap<Spanned<String>, Spanned<OneOrMany>>,
    #[serde(default)]
    pub units: Vec<Placement>,
    #[serde(default)]
    pub victory: Option<u32>,
    #[serde(default)]
    pub turns: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardPart {
    #[serde(default)]
    pub grid: Option<Spanned<String>>,
    #[serde(default)]
    pub columns: Option<Spanned<i64>>,
    #[serde(default)]
    pub rows: Option<Spanned<i64>>,
    #[serde(default)]
    pub sides: Option<Vec<String>>,
    #[serde(default)]
    pub bottom: Option<Spanned<String>>,
    #[serde(default)]
    pub terrain: BTreeMap<Spanned<String>, Spanned<OneOrMany>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub at: Spanned<String>,
    pub side: Spanned<String>,
    pub r#type: Spanned<String>,
    #[serde(default)]
    pub strength: Option<u32>,
    #[serde(default)]
    pub quality: Option<Spanned<String>>,
    #[serde(default)]
    pub irregular: bool,
    #[serde(default)]
    pub carrying: Option<Spanned<String>>,
    #[serde(default)]
    pub fired: bool,
}

/// Build a position from a board part and placements (scenario or case).
pub fn place(
    r: &Ruleset,
    text: &str,
    file: &str,
    board: &BoardPart,
    units: &[Placement],
) -> Result<State, DataError> {
    let grid = grid_of(text, file, board)?;
    let (sides, bottom) = sides_of(text, file, board)?;
    let terrain = terrain_of(r, text, file, board, &grid)?;
    let mut st = State {
        ruleset: r.id.clone(),
        scenario: String::new(),
        title: String::new(),
        sides: sides.clone(),
        bottom,
        grid,
        terrain,
        units: Vec::new(),
        next_unit: 1,
        turn: 1,
        step: Step::Artillery,
        second: vec![false; 2],
        destroyed: vec![0; 2],
        victory: 4,
        turns: None,
        over: false,
        winner: None,
    };
    for p in units {
        place_unit(r, text, file, &sides, &mut st, p)?;
    }
    Ok(st)
}

/// One placement checked and put on the board (with the unit it carries).
fn place_unit(
    r: &Ruleset,
    text: &str,
    file: &str,
    sides: &[String],
    st: &mut State,
    p: &Placement,
) -> Result<(), DataError> {
    let a = st.grid.parse(p.at.get_ref()).ok_or_else(|| {
        at(
            text,
            file,
            p.at.span().start,
            format!("'{}' is not an area of the board", p.at.get_ref()),
        )
    })?;
    let side = sides
        .iter()
        .position(|s| *s == p.side.get_ref().trim().to_ascii_lowercase())
        .ok_or_else(|| {
            at(
                text,
                file,
                p.side.span().start,
                format!("unknown side '{}'", p.side.get_ref()),
            )
        })?;
    let kind = p.r#type.get_ref().trim().to_ascii_lowercase();
    let spec = r.unit(&kind).ok_or_else(|| {
        at(
            text,
            file,
            p.r#type.span().start,
            format!(
                "unknown unit type '{kind}' (known: {})",
                r.units.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    let q = quality(text, file, p)?;
    let max = (i64::from(spec.strength) + q).max(0) as u32;
    let strength = p.strength.unwrap_or(max);
    if strength > max.max(1) || (strength == 0 && spec.strength > 0) {
        return Err(at(
            text,
            file,
            p.at.span().start,
            format!("a {kind} of this quality has strength 1 to {max}"),
        ));
    }
    let general = spec.general;
    if st.units.iter().any(|u| u.at == a && u.side != side) {
        return Err(at(
            text,
            file,
            p.at.span().start,
            format!("{a} holds an enemy unit (a general shares an area only with its own side)"),
        ));
    }
    if st.units.iter().any(|u| {
        u.at == a
            && (!general && r.unit(&u.kind).is_some_and(|s| !s.general)
                || general && r.unit(&u.kind).is_some_and(|s| s.general))
    }) {
        return Err(at(
            text,
            file,
            p.at.span().start,
            format!("two units in {a}"),
        ));
    }
    let carrying = match &p.carrying {
        None => None,
        Some(c) => {
            let ck = c.get_ref().trim().to_ascii_lowercase();
            let cs = r
                .unit(&ck)
                .filter(|cs| spec.transport && (cs.carried || cs.towed))
                .ok_or_else(|| {
                    at(
                        text,
                        file,
                        c.span().start,
                        format!("a {kind} cannot carry '{ck}'"),
                    )
                })?;
            st.next_unit += 1;
            Some(Box::new(Unit {
                id: st.next_unit - 1,
                side,
                kind: ck,
                at: a,
                strength: cs.strength,
                max: cs.strength,
                irregular: false,
                wire_stuck: false,
                in_river: false,
                fired: false,
                carrying: None,
            }))
        }
    };
    st.units.push(Unit {
        id: st.next_unit,
        side,
        kind,
        at: a,
        strength,
        max,
        irregular: p.irregular,
        wire_stuck: false,
        in_river: false,
        fired: p.fired,
        carrying,
    });
    st.next_unit += 1;
    Ok(())
}

/// A placement's quality: +1 elite, 0 regular (or none), -1 poor.
fn quality(text: &str, file: &str, p: &Placement) -> Result<i64, DataError> {
    Ok(
        match p
            .quality
            .as_ref()
            .map(|q| (q.get_ref().to_ascii_lowercase(), q.span()))
        {
            None => 0i64,
            Some((q, _)) if q == "regular" => 0,
            Some((q, _)) if q == "elite" => 1,
            Some((q, _)) if q == "poor" => -1,
            Some((q, sp)) => {
                return Err(at(
                    text,
                    file,
                    sp.start,
                    format!("quality is elite, regular or poor, not '{q}'"),
                ))
            }
        },
    )
}

/// The board's grid: square or hex, and its size.
fn grid_of(text: &str, file: &str, board: &BoardPart) -> Result<Grid, DataError> {
    let kind = match board
        .grid
        .as_ref()
        .map(|g| (g.get_ref().as_str(), g.span()))
    {
        None | Some(("square", _)) => GridKind::Square,
        Some(("hex", _)) => GridKind::Hex,
        Some((other, sp)) => {
            return Err(at(
                text,
                file,
                sp.start,
                format!("grid is square or hex, not '{other}'"),
            ))
        }
    };
    let dim = |v: &Option<Spanned<i64>>, name: &str, max: i64| -> Result<i32, DataError> {
        match v {
            None => Ok(8),
            Some(s) if (2..=max).contains(s.get_ref()) => Ok(*s.get_ref() as i32),
            Some(s) => Err(at(
                text,
                file,
                s.span().start,
                format!("{name} must be 2 to {max}"),
            )),
        }
    };
    Ok(Grid {
        kind,
        columns: dim(&board.columns, "columns", 26)?,
        rows: dim(&board.rows, "rows", 99)?,
    })
}

/// The two sides, and which of them has the bottom edge.
fn sides_of(text: &str, file: &str, board: &BoardPart) -> Result<(Vec<String>, usize), DataError> {
    let sides: Vec<String> = board
        .sides
        .clone()
        .unwrap_or_else(|| vec!["blue".into(), "red".into()])
        .into_iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    if sides.len() != 2
        || sides[0] == sides[1]
        || sides.iter().any(|s| s == adjutant_rules::REFEREE_SIDE)
    {
        return Err(at(
            text,
            file,
            text.find("sides").unwrap_or(0),
            "a game has two sides with different names (not 'referee')",
        ));
    }
    let bottom = match &board.bottom {
        None => 0,
        Some(b) => sides
            .iter()
            .position(|s| *s == b.get_ref().trim().to_ascii_lowercase())
            .ok_or_else(|| {
                at(
                    text,
                    file,
                    b.span().start,
                    format!("unknown side '{}'", b.get_ref()),
                )
            })?,
    };
    Ok((sides, bottom))
}

/// The terrain of each area the board names.
fn terrain_of(
    r: &Ruleset,
    text: &str,
    file: &str,
    board: &BoardPart,
    grid: &Grid,
) -> Result<BTreeMap<Area, Vec<String>>, DataError> {
    let mut terrain: BTreeMap<Area, Vec<String>> = BTreeMap::new();
    for (k, v) in &board.terrain {
        let a = grid.parse(k.get_ref()).ok_or_else(|| {
            at(
                text,
                file,
                k.span().start,
                format!("'{}' is not an area of the board", k.get_ref()),
            )
        })?;
        let list = match v.get_ref() {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(l) => l.clone(),
        };
        let mut feats = Vec::new();
        for f in list {
            let f = f.trim().to_ascii_lowercase();
            if f == "open" {
                continue;
            }
            if r.feature(&f).is_none() {
                return Err(at(
                    text,
                    file,
                    v.span().start,
                    format!(
                        "unknown terrain '{f}' (known: {})",
                        r.terrain.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            feats.push(f);
        }
        if !feats.is_empty() {
            terrain.insert(a, feats);
        }
    }
    Ok(terrain)
}

/// Read a scenario file (shipped or a club's).
pub fn load(r: &Ruleset, text: &str, file: &str) -> Result<State, DataError> {
    let sf: ScenarioFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let board = BoardPart {
        grid: sf.grid.clone(),
        columns: sf.columns.clone(),
        rows: sf.rows.clone(),
        sides: sf.sides.clone(),
        bottom: sf.bottom.clone(),
        terrain: sf.terrain.clone(),
    };
    let mut st = place(r, text, file, &board, &sf.units)?;
    st.scenario = sf.id.clone().unwrap_or_else(|| {
        std::path::Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario")
            .to_string()
    });
    st.title = sf.title.clone().unwrap_or_else(|| st.scenario.clone());
    if let Some(v) = sf.victory {
        st.victory = v.max(1);
    }
    st.turns = sf.turns;
    Ok(st)
}

/// Shipped scenarios: (id, ruleset id, text).
pub const SHIPPED: &[(&str, &str, &str)] = &[
    (
        "le-cateau-1914",
        "memoir-of-battle",
        include_str!("../../../scenarios/memoir-of-battle/le-cateau-1914.toml"),
    ),
    (
        "villers-bocage-1944",
        "memoir-of-modern-battle",
        include_str!("../../../scenarios/memoir-of-modern-battle/villers-bocage-1944.toml"),
    ),
];
