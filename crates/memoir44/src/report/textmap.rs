//! The text map: an 80-column hex map for monospace mail, and a compact
//! 40-column one for phones. Both are drawn from a [`View`], from the
//! recipient's own seat (their edge at the bottom), with the board's own
//! coordinates printed on the edges.

use crate::render::{card_name, side_name, unit_name};
use crate::view::{HexView, ObjectiveView, UnitView, View};
use crate::Hex;
use adjutant_rules::Viewer;
use std::fmt::Write;

/// Two-letter terrain codes of the full map.
#[must_use]
pub fn terrain_code(id: &str) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Borrowed(match id {
        "open" => "..",
        "woods" => "Wd",
        "town" => "Tn",
        "hill" => "Hl",
        "river" => "Rv",
        "bridge" => "Br",
        "hedgerow" => "Hg",
        "ocean" => "Oc",
        "beach" => "Bc",
        "road" => "Rd",
        other => match appendix2_code(other) {
            Some(c) => c,
            None => return std::borrow::Cow::Owned(fallback_code(other)),
        },
    })
}

/// Appendix 2's tiles (expansion sets): a distinct code each.
fn appendix2_code(id: &str) -> Option<&'static str> {
    Some(match id {
        "city-ruins" => "Cr",
        "factory" => "Fc",
        "hill-village" => "Hv",
        "russian-town" => "Rt",
        "wooden-village" => "Wv",
        "railway-bridge" => "Rb",
        "station" => "St",
        "road-rail-crossing" => "Rx",
        "road-over-hill" => "Rh",
        "hill-woods" => "Hw",
        "ravine" => "Ra",
        "fordable-river" => "Fr",
        "headwaters" => "Hd",
        "frozen-river" => "Fz",
        "lake" => "Lk",
        "winter-woods" => "Ww",
        "flooded-field" => "Ff",
        "high-ground" => "Hi",
        "marsh" => "Ma",
        "airfield" => "Af",
        "cemetery" => "Ce",
        "dam" => "Dm",
        "power-plant" => "Pp",
        "prison-camp" => "Pc",
        "supply-depot" => "Sd",
        "barracks" => "Bk",
        "church" => "Ch",
        "lighthouse" => "Lh",
        "radar-station" => "Rs",
        "desert-town" => "Dt",
        "oasis" => "Oa",
        "palm-trees" => "Pa",
        "wadi" => "Wa",
        "mountain" => "Mo",
        _ => return None,
    })
}

fn fallback_code(other: &str) -> String {
    let mut c = other.chars();
    let a = c.next().unwrap_or('?').to_ascii_uppercase();
    let b = c.next().unwrap_or('?').to_ascii_lowercase();
    format!("{a}{b}")
}

/// One-character terrain symbols of the compact map.
#[must_use]
pub fn terrain_symbol(id: &str) -> char {
    match id {
        "open" => '.',
        "woods" => '%',
        "town" => '#',
        "hill" => '^',
        "river" | "ocean" => '~',
        "bridge" => '=',
        "hedgerow" => '&',
        "beach" => ',',
        "road" | "road-rail-crossing" => '-',
        "city-ruins" | "factory" | "russian-town" | "wooden-village" | "station" | "barracks"
        | "church" | "lighthouse" | "radar-station" | "desert-town" => '#',
        "hill-village" | "hill-woods" | "road-over-hill" | "high-ground" => '^',
        "mountain" => 'M',
        "winter-woods" | "palm-trees" => '%',
        "fordable-river" | "frozen-river" | "headwaters" | "lake" | "flooded-field" | "marsh" => {
            '~'
        }
        "railway-bridge" => '=',
        "oasis" => 'o',
        "ravine" | "wadi" => 'v',
        _ => '?',
    }
}

#[must_use]
pub fn obstacle_mark(id: &str) -> char {
    match id {
        "wire" => 'w',
        "bunker" => 'b',
        "hedgehog" => 'h',
        "sandbag" => 's',
        "field-bunker" => 'f',
        "winter-bunker" => 'n',
        "dragons-teeth" => 'd',
        "trenches" => 't',
        "railway" => 'r',
        "roadblock" => 'k',
        "fortress" => 'F',
        _ => '+',
    }
}

/// The letter of a unit (upper case), as the ruleset names it.
#[must_use]
pub fn unit_letter(u: &UnitView) -> char {
    u.letter
        .chars()
        .next()
        .map_or('U', |c| c.to_ascii_uppercase())
}

/// A unit's token: letter and figures, capitals for the bottom side.
fn unit_token(v: &View, u: &UnitView) -> String {
    let c = unit_letter(u);
    let c = if u.side == v.bottom_side() {
        c
    } else {
        c.to_ascii_lowercase()
    };
    let mut t = String::with_capacity(4);
    t.push(c);
    let _ = write!(t, "{}", u.figures);
    t
}

/// [`unit_token`] put straight on the canvas.
fn put_unit(c: &mut Canvas, y: usize, x: usize, bottom: &str, u: &UnitView) {
    let l = unit_letter(u);
    c.put_char(
        y,
        x,
        if u.side == bottom {
            l
        } else {
            l.to_ascii_lowercase()
        },
    );
    match char::from_digit(u.figures, 10) {
        Some(d) => c.put_char(y, x + 1, d),
        None => c.put(y, x + 1, &u.figures.to_string()),
    }
}

/// Appendix 2, Trains: the train whose wagon stands on `h`.
fn wagon_at(v: &View, h: Hex) -> Option<&UnitView> {
    v.units
        .iter()
        .find(|u| u.train.as_ref().and_then(|t| t.wagon) == Some(h))
}

/// A wagon's token: its train's letter (case as the train's) and `=`.
fn wagon_token(v: &View, u: &UnitView) -> String {
    let mut t: String = unit_token(v, u).chars().take(1).collect();
    t.push('=');
    t
}

/// What the map draws at each hex, looked up once a map: the view's lists
/// searched hex by hex made the 80-column map cost more than the rest of
/// the report's text together.
struct Cells<'a> {
    columns: usize,
    rows: usize,
    hex: Vec<Option<&'a HexView>>,
    unit: Vec<Option<&'a UnitView>>,
    wagon: Vec<Option<&'a UnitView>>,
    objective: Vec<Option<&'a ObjectiveView>>,
    marker: Vec<bool>,
}

impl<'a> Cells<'a> {
    fn of(v: &'a View) -> Cells<'a> {
        let columns = usize::try_from(2 * v.board.columns.max(0) + 1).unwrap_or(1);
        let rows = usize::try_from(v.board.rows.max(0)).unwrap_or(0);
        let n = columns * rows;
        let mut c = Cells {
            columns,
            rows,
            hex: vec![None; n],
            unit: vec![None; n],
            wagon: vec![None; n],
            objective: vec![None; n],
            marker: vec![false; n],
        };
        // The first of a list at a hex, as `find` gave it.
        for h in &v.board.hexes {
            if let Some(i) = c.index(h.at) {
                c.hex[i].get_or_insert(h);
            }
        }
        for u in &v.units {
            if let Some(i) = c.index(u.at) {
                c.unit[i].get_or_insert(u);
            }
            if let Some(i) = u
                .train
                .as_ref()
                .and_then(|t| t.wagon)
                .and_then(|w| c.index(w))
            {
                c.wagon[i].get_or_insert(u);
            }
        }
        for o in &v.objectives {
            if let Some(i) = c.index(o.at) {
                c.objective[i].get_or_insert(o);
            }
        }
        for m in &v.markers {
            if let Some(i) = c.index(m.at) {
                c.marker[i] = true;
            }
        }
        c
    }
    fn index(&self, h: Hex) -> Option<usize> {
        let col = usize::try_from(h.col).ok()?;
        let row = usize::try_from(h.row).ok()?;
        (col < self.columns && row < self.rows).then_some(row * self.columns + col)
    }
}

/// The objective mark: `*` not held, `O` held by the capitals side, `o` by
/// the other.
fn objective_mark(v: &View, h: Hex) -> Option<char> {
    mark_of(v, v.objective_at(h))
}

fn mark_of(v: &View, o: Option<&ObjectiveView>) -> Option<char> {
    o.map(|o| {
        if !o.held {
            '*'
        } else if o.side == v.bottom_side() {
            'O'
        } else {
            'o'
        }
    })
}

/// The mark of a hex with a Battle Star marker (or charges, or hits on a
/// bridge), under its tile code after the unit.
pub const MARKER: char = '!';

/// A character canvas.
struct Canvas {
    lines: Vec<Vec<char>>,
}

impl Canvas {
    fn new(height: usize) -> Canvas {
        Canvas::with_width(height, 0)
    }
    /// A canvas whose lines hold `width` characters without growing.
    fn with_width(height: usize, width: usize) -> Canvas {
        Canvas {
            lines: (0..height).map(|_| Vec::with_capacity(width)).collect(),
        }
    }
    fn put(&mut self, y: usize, x: usize, s: &str) {
        for (i, ch) in s.chars().enumerate() {
            self.put_char(y, x + i, ch);
        }
    }
    fn put_char(&mut self, y: usize, x: usize, ch: char) {
        let line = &mut self.lines[y];
        if line.len() <= x {
            line.resize(x + 1, ' ');
        }
        line[x] = ch;
    }
    fn mark_if_blank(&mut self, y: usize, x: usize, ch: char) {
        let line = &mut self.lines[y];
        if line.len() <= x {
            line.resize(x + 1, ' ');
        }
        if line[x] == ' ' {
            line[x] = ch;
        }
    }
    fn render(&self, out: &mut String) {
        out.reserve(self.lines.iter().map(|l| l.len() + 1).sum());
        for l in &self.lines {
            let end = l
                .iter()
                .rposition(|c| !c.is_whitespace())
                .map_or(0, |i| i + 1);
            out.extend(&l[..end]);
            out.push('\n');
        }
    }
}

struct Geometry {
    max_col: i32,
    rows: i32,
    flipped: bool,
}

impl Geometry {
    fn of(v: &View) -> Geometry {
        Geometry {
            max_col: 2 * (v.board.columns - 1),
            rows: v.board.rows,
            flipped: v.flipped(),
        }
    }
    /// The doubled column on screen (0 at the left).
    fn screen_col(&self, col: i32) -> i32 {
        if self.flipped {
            self.max_col - col
        } else {
            col
        }
    }
    /// Board rows from the top of the screen down.
    fn rows_top_down(&self) -> Vec<i32> {
        if self.flipped {
            (0..self.rows).collect()
        } else {
            (0..self.rows).rev().collect()
        }
    }
}

fn letter(l: i32) -> char {
    (b'A' + l.clamp(0, 25) as u8) as char
}

/// The 80-column map with its coordinate lines (no legend).
#[must_use]
pub fn map(v: &View) -> String {
    let g = Geometry::of(v);
    let pw = format!("{}", g.rows).len() + 1;
    let rows = g.rows_top_down();
    // Lines: sections, long-row letters, short-row letters, 2 per row, then
    // short-row and long-row letters again.
    let height = 3 + 2 * rows.len() + 2;
    let mut c = Canvas::with_width(height, pw + (g.max_col.max(0) as usize) * 3 + 8);
    let cells = Cells::of(v);
    let bottom = v.bottom_side();
    let x_of = |col: i32| pw + (g.screen_col(col) as usize) * 3;
    // Coordinates.
    let head = |c: &mut Canvas, y: usize, parity: i32| {
        let n = if parity == 0 {
            v.board.columns
        } else {
            v.board.columns - 1
        };
        for l in 0..n {
            let h = Hex::from_letter(l, parity);
            c.put_char(y, x_of(h.col) + 2, letter(l));
        }
    };
    // Section names, from the bottom seat: left, centre, right on screen.
    let lines: Vec<usize> = {
        let mut ls: Vec<usize> = v.board.section_lines.iter().map(|l| x_of(*l) + 3).collect();
        ls.sort_unstable();
        ls
    };
    if let [a, b] = lines[..] {
        let end = pw + (g.max_col as usize) * 3 + 6;
        let label = |c: &mut Canvas, from: usize, to: usize, s: &str| {
            let mid = (from + to) / 2;
            c.put(0, mid.saturating_sub(s.len() / 2), s);
        };
        label(&mut c, pw, a, "left");
        label(&mut c, a, b, "centre");
        label(&mut c, b, end, "right");
    }
    let top_parity = rows.first().copied().unwrap_or(0) % 2;
    head(&mut c, 1, top_parity);
    head(&mut c, 2, 1 - top_parity);
    for (i, row) in rows.iter().enumerate() {
        let y = 3 + 2 * i;
        c.put(y, 0, &format!("{:>w$}", row + 1, w = pw - 1));
        let n = if row % 2 == 0 {
            v.board.columns
        } else {
            v.board.columns - 1
        };
        for l in 0..n {
            let h = Hex::from_letter(l, *row);
            let x = x_of(h.col);
            let i = cells.index(h);
            let hv = i.and_then(|i| cells.hex[i]);
            let tile = hv.map_or("open", |x| x.tile.as_str());
            let obst = hv
                .and_then(|x| x.obstacles.first())
                .map_or(' ', |o| obstacle_mark(o));
            let obj = mark_of(v, i.and_then(|i| cells.objective[i])).unwrap_or(' ');
            let code = terrain_code(tile);
            c.put(y, x + 1, &code);
            let k = x + 1 + code.chars().count();
            c.put_char(y, k, obst);
            c.put_char(y, k + 1, obj);
            if let Some(u) = i.and_then(|i| cells.unit[i]) {
                put_unit(&mut c, y + 1, x + 1, bottom, u);
            } else if let Some(u) = i.and_then(|i| cells.wagon[i]) {
                c.put(y + 1, x + 1, &wagon_token(v, u));
            }
            // Battle Star markers, charges, bridge hits: listed in the legend.
            if i.is_some_and(|i| cells.marker[i]) {
                c.mark_if_blank(y + 1, x + 4, MARKER);
            }
        }
    }
    let bottom_parity = rows.last().copied().unwrap_or(0) % 2;
    head(&mut c, height - 2, 1 - bottom_parity);
    head(&mut c, height - 1, bottom_parity);
    for y in 1..height {
        for x in &lines {
            c.mark_if_blank(y, *x, ':');
        }
    }
    let mut out = String::new();
    c.render(&mut out);
    out
}

/// The compact map for narrow screens (at most 40 columns).
#[must_use]
pub fn compact(v: &View) -> String {
    let g = Geometry::of(v);
    let pw = format!("{}", g.rows).len() + 1;
    let rows = g.rows_top_down();
    let height = rows.len() + 2;
    let mut c = Canvas::new(height);
    let x_of = |col: i32| pw + (g.screen_col(col) as usize * 3) / 2;
    let head = |c: &mut Canvas, y: usize, parity: i32| {
        let n = if parity == 0 {
            v.board.columns
        } else {
            v.board.columns - 1
        };
        for l in 0..n {
            c.put_char(y, x_of(Hex::from_letter(l, parity).col), letter(l));
        }
    };
    head(&mut c, 0, 0);
    for (i, row) in rows.iter().enumerate() {
        let y = 1 + i;
        c.put(y, 0, &format!("{:>w$}", row + 1, w = pw - 1));
        let n = if row % 2 == 0 {
            v.board.columns
        } else {
            v.board.columns - 1
        };
        for l in 0..n {
            let h = Hex::from_letter(l, *row);
            let x = x_of(h.col);
            let cell = match v.unit_at(h) {
                Some(u) => unit_token(v, u),
                None if wagon_at(v, h).is_some() => wagon_at(v, h)
                    .map(|u| wagon_token(v, u))
                    .unwrap_or_default(),
                None => {
                    let hv = v.hex(h);
                    let t = terrain_symbol(hv.map_or("open", |x| x.tile.as_str()));
                    let second = objective_mark(v, h)
                        .or_else(|| {
                            hv.and_then(|x| x.obstacles.first())
                                .map(|o| obstacle_mark(o))
                        })
                        .unwrap_or(' ');
                    format!("{t}{second}")
                }
            };
            c.put(y, x, &cell);
        }
    }
    head(&mut c, height - 1, 0);
    let mut out = String::new();
    c.render(&mut out);
    out
}

fn who(v: &View, side: &str) -> String {
    let you = matches!(&v.viewer, Viewer::Side(s) if s == side);
    if you {
        format!("{} (you)", side_name(side))
    } else {
        side_name(side)
    }
}

/// The legend of the full map, for this view (only what is on the board).
#[must_use]
pub fn legend(v: &View) -> String {
    let bottom = v.bottom_side().to_string();
    let other = v
        .sides
        .iter()
        .find(|s| s.id != bottom)
        .map(|s| s.id.clone())
        .unwrap_or_default();
    let mut out = String::new();
    let row1 = v
        .sides
        .iter()
        .find(|s| s.row_one)
        .map(|s| s.id.clone())
        .unwrap_or_default();
    let mut t = format!(
        "Seen from the {} edge. Capitals: {}; lower case: {}. Row 1 is the {} edge; rows {} sit half a hex right of the rows of {} (seen from row 1); the second letter line names them. Dotted lines split the sections.",
        side_name(&bottom),
        who(v, &bottom),
        who(v, &other),
        side_name(&row1),
        short_rows(v),
        v.board.columns
    );
    t.push('\n');
    // Each distinct tile and obstacle named once (then sorted and freed of
    // any names that came out the same, as the names were kept before).
    let mut tile_ids: Vec<&str> = Vec::new();
    let mut obst_ids: Vec<&str> = Vec::new();
    for h in &v.board.hexes {
        if h.tile != "open" && !tile_ids.contains(&h.tile.as_str()) {
            tile_ids.push(&h.tile);
        }
        for o in &h.obstacles {
            if !obst_ids.contains(&o.as_str()) {
                obst_ids.push(o);
            }
        }
    }
    let mut tiles: Vec<String> = tile_ids
        .iter()
        .map(|t| format!("{} {t}", terrain_code(t)))
        .collect();
    let mut obst: Vec<String> = obst_ids
        .iter()
        .map(|o| format!("{} {o}", obstacle_mark(o)))
        .collect();
    tiles.sort();
    tiles.dedup();
    obst.sort();
    obst.dedup();
    tiles.insert(0, ".. open".into());
    t.push_str(&format!("Terrain: {}.", tiles.join(", ")));
    if !obst.is_empty() {
        t.push_str(&format!(" Obstacles: {}.", obst.join(", ")));
    }
    if !v.minefields.is_empty() {
        let list: Vec<String> = v
            .minefields
            .iter()
            .map(|m| match m.strength {
                Some(n) if m.revealed => format!("{} ({}, strength {n})", m.at, side_name(&m.side)),
                Some(n) => format!("{} ({}, hidden: {n})", m.at, side_name(&m.side)),
                None => format!("{} ({}, hidden)", m.at, side_name(&m.side)),
            })
            .collect();
        t.push_str(&format!(" Minefields: {}.", list.join(", ")));
    }
    if !v.markers.is_empty() {
        let list: Vec<String> = v
            .markers
            .iter()
            .map(|m| format!("{} {}", m.at, m.describe()))
            .collect();
        t.push_str(&format!(
            " Markers ({MARKER} on the map): {}.",
            list.join("; ")
        ));
    }
    if !v.objectives.is_empty() {
        t.push_str(&format!(
            " Objectives: * not held, O held by {}, o held by {}.",
            side_name(&bottom),
            side_name(&other)
        ));
    }
    t.push('\n');
    let mut kinds: Vec<(char, &str)> = Vec::new();
    for u in &v.units {
        let k = (unit_letter(u), u.kind.as_str());
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let mut units: Vec<String> = kinds
        .iter()
        .map(|(l, k)| format!("{l} {}", unit_name(k)))
        .collect();
    units.sort();
    units.dedup();
    t.push_str(&format!(
        "Units: {}; the digit is its figures.",
        units.join(", ")
    ));
    // Appendix 2, Trains: the wagons and what they carry.
    let trains: Vec<String> = v
        .units
        .iter()
        .filter_map(|u| {
            let tr = u.train.as_ref()?;
            let mut s = format!("{} {} at {}", side_name(&u.side), unit_name(&u.kind), u.at);
            match tr.wagon {
                Some(w) => s.push_str(&format!(", wagon {w}")),
                None => s.push_str(", wagon lost"),
            }
            if tr.gun {
                s.push_str(", artillery model");
            }
            if !tr.carries.is_empty() {
                s.push_str(&format!(", carrying {}", tr.carries.join(", ")));
            }
            if let Some(m) = &tr.mission {
                s.push_str(&format!(", {}", m.describe()));
            }
            Some(s)
        })
        .collect();
    if !trains.is_empty() {
        t.push_str(&format!(
            " Trains (a train's digit is the hits it may still take; its letter and = mark its wagon): {}.",
            trains.join("; ")
        ));
    }
    out.push_str(&adjutant_rules::report::wrap(&t, 78, "  "));
    out
}

fn short_rows(v: &View) -> String {
    let rows: Vec<String> = (1..v.board.rows)
        .step_by(2)
        .map(|r| (r + 1).to_string())
        .collect();
    match rows.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// Medals, hands, deck and who moves, for this view.
#[must_use]
pub fn status(v: &View) -> String {
    let mut out = String::new();
    for s in &v.sides {
        let mut line = format!(
            "{}: {} of {} medals; {} card{} in hand",
            who(v, &s.id),
            s.medals,
            v.victory,
            s.hand_size,
            if s.hand_size == 1 { "" } else { "s" }
        );
        if let Some(p) = &s.last_played {
            let _ = write!(line, "; last played {}", card_name(&p.card));
        }
        line.push('.');
        // A long card name ("Assault Right Flank") took it to 80 columns.
        out.push_str(&adjutant_rules::report::wrap(&line, 78, "  "));
    }
    for s in &v.sides {
        if let Some(h) = &s.hand {
            let names: Vec<String> = h
                .iter()
                .map(|c| format!("{} ({c})", card_name(c)))
                .collect();
            let t = format!("{} hand: {}.", side_name(&s.id), names.join(", "));
            out.push_str(&adjutant_rules::report::wrap(&t, 78, "  "));
        }
        // Political Commissar: the card face down under the marker.
        if let Some(c) = &s.commissar {
            let _ = writeln!(
                out,
                "{} Commissar marker holds {}.",
                side_name(&s.id),
                if c == crate::view::HIDDEN {
                    "a card, face down".to_string()
                } else {
                    format!("{} ({c})", card_name(c))
                }
            );
        }
    }
    if let (Some(deck), Some(used)) = (v.deck_size, v.discard_size) {
        let _ = writeln!(out, "Deck: {deck} cards; used pile: {used}.");
    }
    if v.over {
        let w = v.winner.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "Game over: {}.",
            if w.is_empty() {
                "a draw".to_string()
            } else {
                format!("{} win", side_name(&w))
            }
        );
    } else if let Some(m) = &v.to_move {
        let _ = writeln!(out, "To move: {}.", who(v, m));
    }
    out
}

/// Title, map, legend and status: the position as text (80 columns).
#[must_use]
pub fn position(v: &View) -> String {
    let mut out = format!("{}, after turn {}\n\n", v.title, v.turn);
    if let Some(w) = &v.weather {
        out.push_str(&adjutant_rules::report::wrap(w, 78, "  "));
        out.push('\n');
    }
    if let Some(w) = &v.supply {
        out.push_str(&adjutant_rules::report::wrap(w, 78, "  "));
        out.push('\n');
    }
    out.push_str(&map(v));
    out.push('\n');
    out.push_str(&legend(v));
    out.push('\n');
    out.push_str(&status(v));
    out
}

/// The compact map with a short legend (40 columns).
#[must_use]
pub fn compact_position(v: &View) -> String {
    let bottom = v.bottom_side().to_string();
    let mut out = compact(v);
    let mut t = format!(
        "Capitals {}. . open % woods # town ^ hill ~ water = bridge & hedge , beach; * O o objective; w b h s obstacles.",
        side_name(&bottom)
    );
    let objs: Vec<String> = v
        .objectives
        .iter()
        .map(|o| {
            format!(
                "{} {}{}",
                o.at,
                side_name(&o.side),
                if o.held { " held" } else { "" }
            )
        })
        .collect();
    if !objs.is_empty() {
        t.push_str(&format!(" Objectives: {}.", objs.join(", ")));
    }
    out.push_str(&adjutant_rules::report::wrap(&t, 40, " "));
    out
}
