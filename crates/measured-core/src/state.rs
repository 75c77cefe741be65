//! The position of a measured game, and scenario files (docs/testing.md,
//! "Measured tables"): the table, terrain shapes and units as formations of
//! figures, all in sixteenths of an inch.

use super::geometry::{self as g, Footprint, Pt, PER_INCH};
use super::ruleset::{at, toml_error, Inches, Ruleset, Troop};
use crate::book::Book;
pub use crate::placement::{BookKeys, Placement};
use adjutant_rules::DataError;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// One officer figure of a unit, with its morale points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Officer {
    pub rank: String,
    pub points: u32,
    pub mounted: bool,
    pub alive: bool,
}

/// One gun of a battery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gun {
    /// Counter-battery damage points.
    pub damage: u32,
    #[serde(default)]
    pub destroyed: bool,
    /// Fired last move (matters once damage makes it fire alternate moves).
    #[serde(default)]
    pub fired_last: bool,
}

/// What a unit must do next move whatever its orders say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Forced {
    /// Bad morale while advancing or firing: stand, no firing.
    Halt,
    /// Bad morale while stationary, or losing a melee 2:1: a normal move
    /// to the rear.
    Retire,
    /// Bad morale in melee: a complete move to the rear.
    BreakOff,
    /// A drawn melee: retire two normal moves, then rest two.
    Exhausted { retire: u32, rest: u32 },
    /// The 50% rule: straight to the rear, every move, until off the table.
    Rout,
}

/// An ongoing melee seen from one unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Melee {
    pub with: String,
    /// Moves of melee fought so far.
    pub moves: u32,
    /// This unit charged into it.
    pub attacker: bool,
}

/// A unit on the table: a formation of figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Unit<B: Book> {
    /// The short name players write in orders.
    pub id: String,
    pub name: String,
    pub side: usize,
    pub troop: String,
    pub formation: String,
    /// The centre of the front edge.
    pub front: Pt,
    /// Whole degrees, 0 = up the table, clockwise.
    pub facing: i32,
    /// Rank and file present and at the start.
    pub rf: u32,
    pub start_rf: u32,
    /// Ranks when in line.
    pub ranks: u32,
    pub officers: Vec<Officer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guns: Vec<Gun>,
    /// Has fired a volley (the first-volley deductions are spent).
    #[serde(default)]
    pub volleyed: bool,
    /// Morale is bad: the score needed to rally at the next test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_morale: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced: Option<Forced>,
    /// Broken by the 50% rule: plays no further part.
    #[serde(default)]
    pub broken: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub melee: Option<Melee>,
    /// Moves still to spend in a ford.
    #[serde(default)]
    pub crossing: u32,
    /// Moves of rest banked (heavy cavalry's 'battle' move).
    #[serde(default)]
    pub rest: u32,
    /// Written standing orders: "HOLD GROUND", "FIRE AT CHARGERS".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standing: Vec<String>,
    /// Exhausted by a drawn melee: moves since its fighting ended (for
    /// the +1 / +2 of attackers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exhausted_since: Option<u32>,
    /// The book's own fields (each skipped when empty).
    #[serde(flatten)]
    pub book: B::Unit,
}

impl<B: Book> std::ops::Deref for Unit<B> {
    type Target = B::Unit;
    fn deref(&self) -> &B::Unit {
        &self.book
    }
}

impl<B: Book> std::ops::DerefMut for Unit<B> {
    fn deref_mut(&mut self) -> &mut B::Unit {
        &mut self.book
    }
}

impl<B: Book> Unit<B> {
    pub fn alive_officers(&self) -> impl Iterator<Item = &Officer> {
        self.officers.iter().filter(|o| o.alive)
    }
    #[must_use]
    pub fn command_points(&self) -> i32 {
        self.alive_officers().map(|o| o.points as i32).sum()
    }
    /// Can still act (not broken; dispersed and fled units are removed).
    #[must_use]
    pub fn active(&self) -> bool {
        !self.broken
    }
}

/// Files, ranks, frontage and depth of a unit in its formation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub files: u32,
    pub ranks: u32,
    /// Spacing between files (figure width plus any open-order gap).
    pub pitch: i64,
    pub rank_depth: i64,
    pub width: i64,
    pub depth: i64,
}

/// The shape of `u` (by its troop type's figure size).
#[must_use]
pub fn shape<B: Book>(t: &Troop, u: &Unit<B>) -> Shape {
    let n = u.rf.max(1);
    let (files, ranks, pitch) = match u.formation.as_str() {
        "column" | "march" => {
            let files = t.column_files.min(n);
            (files, n.div_ceil(files), t.fig_w)
        }
        "attack" => {
            let ranks = 3.min(n);
            (n.div_ceil(ranks), ranks, t.fig_w)
        }
        "square" => {
            let mut files = 1;
            while files * files < n {
                files += 1;
            }
            (files, n.div_ceil(files), t.fig_w)
        }
        "open" => (n, 1, t.fig_w + t.open_spacing),
        "limbered" => (1, (u.guns.len() as u32).max(1) * 2, t.fig_w * 2),
        "deployed" => {
            let guns = (u.guns.len() as u32).max(1);
            let files = n.div_ceil(2).max(1);
            return Shape {
                files,
                ranks: 2,
                pitch: t.gun_frontage * i64::from(guns) / i64::from(files),
                rank_depth: t.fig_d * 3 / 2,
                width: t.gun_frontage * i64::from(guns),
                depth: t.fig_d * 3,
            };
        }
        _ => {
            let ranks = u.ranks.max(1).min(n);
            (n.div_ceil(ranks), ranks, t.fig_w)
        }
    };
    Shape {
        files,
        ranks,
        pitch,
        rank_depth: t.fig_d,
        width: pitch * i64::from(files),
        depth: t.fig_d * i64::from(ranks),
    }
}

/// A terrain feature: a polygon (woods, hills, buildings, rivers, fords,
/// swamps, scenic) or a polyline (walls, roads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feature {
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub points: Vec<Pt>,
    /// Hill contour level (1 = the lowest contour above the plain).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub level: u32,
    /// A building section's occupancy limit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub capacity: u32,
    /// A building section's damage points from roundshot and shells, and
    /// those from shell fire alone (src/rules/measured/houses.rs).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub damage: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shell: u32,
    /// A building section on fire: the moves it has burnt so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burning: Option<u32>,
    /// A river's downstream direction, whole degrees (barges).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<i32>,
    /// A hill designated to enhance (+) or impede (-) movement: dice added
    /// to or taken off a movement throw made on it, and the same for
    /// charges (Seven Years' War: "Hills may impede or enhance movement or
    /// charges as designated").
    #[serde(default, skip_serializing_if = "is_zero_i")]
    pub move_dice: i32,
    #[serde(default, skip_serializing_if = "is_zero_i")]
    pub charge_dice: i32,
}

fn is_zero_i(v: &i32) -> bool {
    *v == 0
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Feature {
    #[must_use]
    pub fn polygon(&self) -> geo::Polygon<i64> {
        g::polygon(&self.points)
    }
    #[must_use]
    pub fn polyline(&self) -> geo::LineString<i64> {
        g::polyline(&self.points)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct State<B: Book> {
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    pub sides: Vec<String>,
    /// Table width and depth in sixteenths.
    pub width: i64,
    pub depth: i64,
    pub terrain: Vec<Feature>,
    pub units: Vec<Unit<B>>,
    /// The move number, from 1.
    pub turn: u32,
    /// The game ends after this many moves.
    pub moves: u32,
    /// Rank and file each side has removed from the enemy.
    pub removed: Vec<u32>,
    pub over: bool,
    pub winner: Option<String>,
    /// The book's own fields (each skipped when empty).
    #[serde(flatten)]
    pub book: B::State,
}

impl<B: Book> std::ops::Deref for State<B> {
    type Target = B::State;
    fn deref(&self) -> &B::State {
        &self.book
    }
}

impl<B: Book> std::ops::DerefMut for State<B> {
    fn deref_mut(&mut self) -> &mut B::State {
        &mut self.book
    }
}

impl<B: Book> State<B> {
    #[must_use]
    pub fn unit(&self, id: &str) -> Option<&Unit<B>> {
        self.units.iter().find(|u| u.id.eq_ignore_ascii_case(id))
    }
    pub fn unit_mut(&mut self, id: &str) -> Option<&mut Unit<B>> {
        self.units
            .iter_mut()
            .find(|u| u.id.eq_ignore_ascii_case(id))
    }
    #[must_use]
    pub fn side_index(&self, id: &str) -> Option<usize> {
        let id = id.trim().to_ascii_lowercase();
        self.sides.iter().position(|s| *s == id)
    }
    /// The contour level at a point (0: the plain).
    #[must_use]
    pub fn level(&self, p: Pt) -> u32 {
        self.terrain
            .iter()
            .filter(|f| f.kind == "hill" && g::covered(&f.points, p))
            .map(|f| f.level)
            .max()
            .unwrap_or(0)
    }
    /// Area features containing a point.
    #[must_use]
    pub fn features_at(&self, p: Pt) -> Vec<&Feature> {
        self.terrain
            .iter()
            .filter(|f| f.points.len() >= 3 && f.kind != "wall" && f.kind != "road")
            .filter(|f| g::covered(&f.points, p))
            .collect()
    }
    #[must_use]
    pub fn on_table(&self, fp: &Footprint) -> bool {
        fp.corners()
            .iter()
            .all(|c| c.x >= 0 && c.y >= 0 && c.x <= self.width && c.y <= self.depth)
    }
}

// ------------------------------------------------------------ scenario files

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablePart {
    #[serde(default)]
    pub table: Option<Spanned<[Inches; 2]>>,
    #[serde(default)]
    pub sides: Option<Vec<String>>,
    #[serde(default)]
    pub terrain: Vec<FeatureFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "X: BookKeys"))]
pub struct ScenarioFile<X> {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub ruleset: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub history: Option<String>,
    #[serde(default)]
    pub moves: Option<u32>,
    #[serde(default)]
    pub table: Option<Spanned<[Inches; 2]>>,
    #[serde(default)]
    pub sides: Option<Vec<String>>,
    #[serde(default)]
    pub terrain: Vec<FeatureFile>,
    #[serde(default)]
    pub units: Vec<Placement<X>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureFile {
    pub kind: Spanned<String>,
    #[serde(default)]
    pub name: Option<String>,
    pub points: Spanned<Vec<[Inches; 2]>>,
    #[serde(default)]
    pub level: Option<u32>,
    #[serde(default)]
    pub capacity: Option<u32>,
    /// A building section's damage already taken (cases): all points, and
    /// those from shell fire.
    #[serde(default)]
    pub damage: Option<u32>,
    #[serde(default)]
    pub shell: Option<u32>,
    /// A building section already on fire for this many moves (cases).
    #[serde(default)]
    pub burning: Option<u32>,
    /// A river's downstream direction in degrees (barges go 9" with it).
    #[serde(default)]
    pub flow: Option<i64>,
    /// A hill's designation: dice it adds to (+) or takes off (-) moves
    /// and charges made on it.
    #[serde(default)]
    pub move_dice: Option<i32>,
    #[serde(default)]
    pub charge_dice: Option<i32>,
}

/// The placement keys both books read (crate::placement: a book's own
/// keys are its `Book::Placement`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    pub id: Spanned<String>,
    #[serde(default)]
    pub name: Option<String>,
    pub side: Spanned<String>,
    pub r#type: Spanned<String>,
    /// The centre of the front edge, inches.
    pub at: Spanned<[Inches; 2]>,
    #[serde(default)]
    pub facing: Option<Spanned<i64>>,
    #[serde(default)]
    pub formation: Option<Spanned<String>>,
    #[serde(default)]
    pub rank_and_file: Option<Spanned<u32>>,
    /// Rank and file at the start, if some are already lost (cases).
    #[serde(default)]
    pub start: Option<u32>,
    #[serde(default)]
    pub ranks: Option<Spanned<u32>>,
    /// Officers by rank absent (killed earlier), for cases.
    #[serde(default)]
    pub officers_lost: Vec<String>,
    #[serde(default)]
    pub volleyed: bool,
    #[serde(default)]
    pub standing: Vec<String>,
    #[serde(default)]
    pub bad_morale: Option<i32>,
    #[serde(default)]
    pub rest: Option<u32>,
    #[serde(default)]
    pub gun_damage: Vec<u32>,
    /// Guns of a battery, if not the establishment's.
    #[serde(default)]
    pub guns: Option<u32>,
    /// Already in melee with this unit (cases): moves fought, attacker.
    #[serde(default)]
    pub melee: Option<String>,
    #[serde(default)]
    pub melee_moves: u32,
    #[serde(default)]
    pub attacker: bool,
    /// Exhausted by a drawn melee (cases): moves of retreat left, moves of
    /// rest left, moves ended since its fighting.
    #[serde(default)]
    pub exhausted: Option<[u32; 3]>,
}

impl Shared {
    /// The keys above, as a file writes them (the placement reader sorts
    /// a table's keys by them; a unit test holds them to the fields).
    pub const KEYS: &'static [&'static str] = &[
        "id",
        "name",
        "side",
        "type",
        "at",
        "facing",
        "formation",
        "rank_and_file",
        "start",
        "ranks",
        "officers_lost",
        "volleyed",
        "standing",
        "bad_morale",
        "rest",
        "gun_damage",
        "guns",
        "melee",
        "melee_moves",
        "attacker",
        "exhausted",
    ];
}

fn len_at(text: &str, file: &str, off: usize, v: Inches) -> Result<i64, DataError> {
    v.sixteenths().ok_or_else(|| {
        at(
            text,
            file,
            off,
            format!("{} is not a whole number of sixteenths of an inch", v.0),
        )
    })
}

/// Build a position from a table part and placements (scenario or case).
pub fn place<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    table: &TablePart,
    units: &[Placement<B::Placement>],
) -> Result<State<B>, DataError> {
    let (width, depth) = table_size(text, file, table)?;
    let sides = table_sides(text, file, table)?;
    let mut terrain = Vec::new();
    for f in &table.terrain {
        terrain.push(terrain_feature(r, text, file, f, width, depth)?);
    }
    let mut st = State {
        ruleset: r.id.clone(),
        scenario: String::new(),
        title: String::new(),
        sides: sides.clone(),
        width,
        depth,
        terrain,
        units: Vec::new(),
        turn: 1,
        moves: 15,
        removed: vec![0; 2],
        over: false,
        winner: None,
        book: B::State::default(),
    };
    r.book().start(&mut st);
    for p in units {
        place_unit(r, text, file, &mut st, p)?;
    }
    Ok(st)
}

/// The table's width and depth, in sixteenths.
fn table_size(text: &str, file: &str, table: &TablePart) -> Result<(i64, i64), DataError> {
    Ok(match &table.table {
        None => (72 * PER_INCH, 48 * PER_INCH),
        Some(t) => {
            let off = t.span().start;
            let w = len_at(text, file, off, t.get_ref()[0])?;
            let d = len_at(text, file, off, t.get_ref()[1])?;
            let max = g::MAX_TABLE_INCHES * PER_INCH;
            if !(PER_INCH * 6..=max).contains(&w) || !(PER_INCH * 6..=max).contains(&d) {
                return Err(at(
                    text,
                    file,
                    off,
                    format!("a table is 6\" to {}\" each way", g::MAX_TABLE_INCHES),
                ));
            }
            (w, d)
        }
    })
}

/// The two sides' names.
fn table_sides(text: &str, file: &str, table: &TablePart) -> Result<Vec<String>, DataError> {
    let sides: Vec<String> = table
        .sides
        .clone()
        .unwrap_or_else(|| vec!["british".into(), "french".into()])
        .into_iter()
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    if sides.len() != 2
        || sides[0] == sides[1]
        || sides
            .iter()
            .any(|s| s.is_empty() || s == adjutant_rules::REFEREE_SIDE)
    {
        return Err(at(
            text,
            file,
            text.find("sides").unwrap_or(0),
            "a game has two sides with different names (not 'referee')",
        ));
    }
    Ok(sides)
}

/// One terrain feature of a table part, checked.
fn terrain_feature<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    f: &FeatureFile,
    width: i64,
    depth: i64,
) -> Result<Feature, DataError> {
    let kind = f.kind.get_ref().trim().to_ascii_lowercase();
    let Some(spec) = r.terrain.get(&kind) else {
        return Err(at(
            text,
            file,
            f.kind.span().start,
            format!(
                "unknown terrain '{kind}' (known: {})",
                r.terrain.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let off = f.points.span().start;
    let mut pts = Vec::new();
    for p in f.points.get_ref() {
        let q = Pt::new(
            len_at(text, file, off, p[0])?,
            len_at(text, file, off, p[1])?,
        );
        if q.x > width || q.y > depth {
            return Err(at(
                text,
                file,
                off,
                format!(
                    "the point ({}, {}) is off the table",
                    g::fmt_len(q.x),
                    g::fmt_len(q.y)
                ),
            ));
        }
        pts.push(q);
    }
    feature_shape(text, file, off, &kind, spec.line, &mut pts)?;
    feature_designation(text, file, f, &kind)?;
    Ok(Feature {
        kind: kind.clone(),
        name: f.name.clone().unwrap_or_default(),
        points: pts,
        level: f.level.unwrap_or(0),
        capacity: f.capacity.or(spec.capacity).unwrap_or(0),
        damage: f.damage.unwrap_or(0),
        shell: f.shell.unwrap_or(0),
        burning: f.burning,
        flow: f.flow.map(g::norm_deg),
        move_dice: f.move_dice.unwrap_or(0),
        charge_dice: f.charge_dice.unwrap_or(0),
    })
}

/// A line has two points or more, a shape three or more (closed here).
fn feature_shape(
    text: &str,
    file: &str,
    off: usize,
    kind: &str,
    line: bool,
    pts: &mut Vec<Pt>,
) -> Result<(), DataError> {
    if line {
        if pts.len() < 2 {
            return Err(at(
                text,
                file,
                off,
                format!("a {kind} is a line of at least 2 points"),
            ));
        }
    } else if kind == "road" {
        if pts.len() < 2 {
            return Err(at(text, file, off, "a road is a line of at least 2 points"));
        }
    } else {
        if pts.len() < 3 {
            return Err(at(
                text,
                file,
                off,
                format!("a {kind} is a shape of at least 3 points"),
            ));
        }
        if pts.first() != pts.last() {
            let first = pts[0];
            pts.push(first);
        }
    }
    Ok(())
}

/// A hill's contour level and its move and charge dice.
fn feature_designation(
    text: &str,
    file: &str,
    f: &FeatureFile,
    kind: &str,
) -> Result<(), DataError> {
    if kind == "hill" && f.level.unwrap_or(0) == 0 {
        return Err(at(
            text,
            file,
            f.kind.span().start,
            "a hill needs its contour level = 1, 2, ...",
        ));
    }
    let going = [f.move_dice, f.charge_dice];
    if going.iter().any(Option::is_some) && kind != "hill" {
        return Err(at(
            text,
            file,
            f.kind.span().start,
            format!("move_dice and charge_dice designate hills, not a {kind}"),
        ));
    }
    if going.iter().flatten().any(|v| !(-6..=6).contains(v)) {
        return Err(at(
            text,
            file,
            f.kind.span().start,
            "a hill's move_dice and charge_dice are -6 to 6",
        ));
    }
    Ok(())
}

/// One placement: the unit built, checked and put on the table (or held
/// off it).
fn place_unit<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    st: &mut State<B>,
    p: &Placement<B::Placement>,
) -> Result<(), DataError> {
    let (id, side) = unit_id_side(r, text, file, st, p)?;
    let kind = p.r#type.get_ref().trim().to_ascii_lowercase();
    let t = r.troop(&kind).ok_or_else(|| {
        at(
            text,
            file,
            p.r#type.span().start,
            format!(
                "unknown troop type '{kind}' (known: {})",
                r.troops.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    let off = p.at.span().start;
    let u = new_unit(text, file, p, t, id.clone(), side, kind)?;
    let Some(mut u) = r
        .book()
        .place_unit(r, t, p, u, st)
        .map_err(|m| at(text, file, off, m))?
    else {
        return Ok(());
    };
    let fp = footprint(r, &u);
    if !st.on_table(&fp) {
        return Err(at(
            text,
            file,
            off,
            format!("{id} does not fit on the table there"),
        ));
    }
    if let Some(o) = st.units.iter().find(|o| g::overlap(&footprint(r, o), &fp)) {
        return Err(at(text, file, off, format!("{id} overlaps {}", o.id)));
    }
    r.book().placed(r, st, t, &mut u);
    st.units.push(u);
    Ok(())
}

/// A placement's unit id (new on the table) and side.
fn unit_id_side<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    st: &State<B>,
    p: &Shared,
) -> Result<(String, usize), DataError> {
    let id = p.id.get_ref().trim().to_ascii_uppercase();
    if id.is_empty()
        || id.len() > 12
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/')
    {
        return Err(at(
            text,
            file,
            p.id.span().start,
            "a unit id is 1 to 12 letters, digits, '-' or '/'",
        ));
    }
    if st.unit(&id).is_some() || r.book().off_table(st).iter().any(|u| u.id == id) {
        return Err(at(
            text,
            file,
            p.id.span().start,
            format!("two units named {id}"),
        ));
    }
    let side = st
        .sides
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
    Ok((id, side))
}

/// A placement's formation, front and facing.
fn unit_stance(
    text: &str,
    file: &str,
    p: &Shared,
    t: &Troop,
    side: usize,
) -> Result<(String, Pt, i32), DataError> {
    let formation = match &p.formation {
        None => t.formations[0].clone(),
        Some(f) => {
            let fm = f.get_ref().trim().to_ascii_lowercase();
            if !t.formations.contains(&fm) {
                return Err(at(
                    text,
                    file,
                    f.span().start,
                    format!(
                        "a {} forms {}, not '{fm}'",
                        t.name,
                        t.formations.join(" or ")
                    ),
                ));
            }
            fm
        }
    };
    let off = p.at.span().start;
    let front = Pt::new(
        len_at(text, file, off, p.at.get_ref()[0])?,
        len_at(text, file, off, p.at.get_ref()[1])?,
    );
    let facing = match &p.facing {
        None => {
            if side == 0 {
                0
            } else {
                180
            }
        }
        Some(f) if (0..360).contains(f.get_ref()) => *f.get_ref() as i32,
        Some(f) => {
            return Err(at(text, file, f.span().start, "facing is 0 to 359 degrees"));
        }
    };
    Ok((formation, front, facing))
}

/// A placement's rank and file, at the start, and ranks.
fn unit_strength(
    text: &str,
    file: &str,
    p: &Shared,
    t: &Troop,
) -> Result<(u32, u32, u32), DataError> {
    let rf = match &p.rank_and_file {
        None => t.rank_and_file,
        Some(n) if (1..=t.rank_and_file * 2).contains(n.get_ref()) => *n.get_ref(),
        Some(n) => {
            return Err(at(
                text,
                file,
                n.span().start,
                format!("rank and file is 1 to {}", t.rank_and_file * 2),
            ))
        }
    };
    let start_rf = p.start.unwrap_or(rf).max(rf);
    let ranks = match &p.ranks {
        None => t.ranks,
        Some(n) if (1..=6).contains(n.get_ref()) => *n.get_ref(),
        Some(n) => return Err(at(text, file, n.span().start, "ranks is 1 to 6")),
    };
    Ok((rf, start_rf, ranks))
}

/// A unit's officers, guns and standing orders.
type Kit = (Vec<Officer>, Vec<Gun>, Vec<String>);

/// A placement's officers (those lost already dead) and guns; standing
/// orders are the book's ([`crate::Procedures::place_unit`]).
fn unit_kit(text: &str, file: &str, p: &Shared, t: &Troop, id: &str) -> Result<Kit, DataError> {
    let off = p.at.span().start;
    let mut officers: Vec<Officer> = t
        .officers
        .iter()
        .map(|o| Officer {
            rank: o.rank.clone(),
            points: o.points,
            mounted: o.mounted,
            alive: true,
        })
        .collect();
    for lost in &p.officers_lost {
        match officers
            .iter_mut()
            .find(|o| o.alive && o.rank.eq_ignore_ascii_case(lost.trim()))
        {
            Some(o) => o.alive = false,
            None => {
                return Err(at(text, file, off, format!("{id} has no officer '{lost}'")));
            }
        }
    }
    let guns = (0..p.guns.unwrap_or(t.guns).min(t.guns.max(1) * 2))
        .map(|k| Gun {
            damage: p.gun_damage.get(k as usize).copied().unwrap_or(0),
            destroyed: false,
            fired_last: false,
        })
        .collect();
    let standing = Vec::new();
    Ok((officers, guns, standing))
}

/// The unit a placement describes.
fn new_unit<B: Book>(
    text: &str,
    file: &str,
    p: &Placement<B::Placement>,
    t: &Troop,
    id: String,
    side: usize,
    kind: String,
) -> Result<Unit<B>, DataError> {
    let (formation, front, facing) = unit_stance(text, file, p, t, side)?;
    let (rf, start_rf, ranks) = unit_strength(text, file, p, t)?;
    let (officers, guns, standing) = unit_kit(text, file, p, t, &id)?;
    Ok(Unit {
        name: p.name.clone().unwrap_or_else(|| format!("{} {id}", t.name)),
        id,
        side,
        troop: kind,
        formation,
        front,
        facing,
        rf,
        start_rf,
        ranks,
        officers,
        guns,
        volleyed: p.volleyed,
        bad_morale: p.bad_morale,
        forced: p
            .exhausted
            .map(|[retire, rest, _]| Forced::Exhausted { retire, rest }),
        broken: false,
        melee: p.melee.as_ref().map(|w| Melee {
            with: w.trim().to_ascii_uppercase(),
            moves: p.melee_moves,
            attacker: p.attacker,
        }),
        crossing: 0,
        rest: p.rest.unwrap_or(0),
        standing,
        exhausted_since: p.exhausted.map(|e| e[2]),
        book: B::unit_from(p),
    })
}

/// Whether a unit occupies houses (its centre is inside a building), as
/// the 50% rule's exception reads it: "If occupying houses, the unit may
/// remain in the houses." Set-up and play both ask this.
#[must_use]
pub fn in_house<B: Book>(r: &Ruleset<B>, st: &State<B>, u: &Unit<B>) -> bool {
    let c = footprint(r, u).centre();
    st.terrain
        .iter()
        .any(|f| f.kind == "building" && g::in_polygon(&f.polygon(), c))
}

/// The standing orders a unit may hold.
pub const STANDING: &[&str] = &["HOLD GROUND", "FIRE AT CHARGERS"];

/// A unit's ground.
#[must_use]
pub fn footprint<B: Book>(r: &Ruleset<B>, u: &Unit<B>) -> Footprint {
    let sh = r.troop(&u.troop).map(|t| shape(t, u)).unwrap_or(Shape {
        files: 1,
        ranks: 1,
        pitch: PER_INCH,
        rank_depth: PER_INCH,
        width: PER_INCH,
        depth: PER_INCH,
    });
    Footprint {
        front: u.front,
        facing: u.facing,
        width: sh.width,
        depth: sh.depth,
    }
}

/// Where each rank-and-file figure of a unit stands (centres), rank by
/// rank from the front, left to right; the last rank may be short.
#[must_use]
pub fn figures<B: Book>(r: &Ruleset<B>, u: &Unit<B>) -> Vec<Pt> {
    let Some(t) = r.troop(&u.troop) else {
        return Vec::new();
    };
    let sh = shape(t, u);
    let mut out = Vec::new();
    let f = i64::from(u.facing);
    let mut left = u.rf;
    for rank in 0..sh.ranks {
        let n = left.min(sh.files);
        for file in 0..n {
            let right = -sh.width / 2 + sh.pitch * i64::from(file) + sh.pitch / 2;
            let fwd = -(sh.rank_depth * i64::from(rank) + sh.rank_depth / 2);
            out.push(g::offset(u.front, f, fwd, right));
        }
        left -= n;
    }
    out
}

/// Where each gun of a battery stands (front centre of its slot).
#[must_use]
pub fn gun_points<B: Book>(r: &Ruleset<B>, u: &Unit<B>) -> Vec<Pt> {
    let Some(t) = r.troop(&u.troop) else {
        return Vec::new();
    };
    let sh = shape(t, u);
    let n = u.guns.len() as i64;
    (0..n)
        .map(|k| {
            if u.formation == "deployed" {
                g::offset(
                    u.front,
                    i64::from(u.facing),
                    0,
                    -sh.width / 2 + t.gun_frontage * k + t.gun_frontage / 2,
                )
            } else {
                g::offset(u.front, i64::from(u.facing), -(sh.depth * k / n.max(1)), 0)
            }
        })
        .collect()
}

/// Read a scenario file (shipped or a club's).
pub fn load<B: Book>(r: &Ruleset<B>, text: &str, file: &str) -> Result<State<B>, DataError> {
    let sf: ScenarioFile<B::Placement> =
        toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let tp = TablePart {
        table: sf.table.clone(),
        sides: sf.sides.clone(),
        terrain: sf.terrain,
    };
    let mut st = place(r, text, file, &tp, &sf.units)?;
    st.scenario = sf.id.clone().unwrap_or_else(|| {
        std::path::Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario")
            .to_string()
    });
    st.title = sf.title.clone().unwrap_or_else(|| st.scenario.clone());
    if let Some(m) = sf.moves {
        st.moves = m.clamp(1, 200);
    }
    let _ = (&sf.ruleset, &sf.history);
    Ok(st)
}

/// Why a unit cannot stand on its ground now (None: it can).
#[must_use]
pub fn ground_taken<B: Book>(r: &Ruleset<B>, st: &State<B>, u: &Unit<B>) -> Option<String> {
    let fp = footprint(r, u);
    if !st.on_table(&fp) {
        return Some("it would not be on the table".into());
    }
    st.units
        .iter()
        .find(|o| o.id != u.id && g::overlap(&footprint(r, o), &fp))
        .map(|o| format!("{} stands on its ground", o.id))
}
