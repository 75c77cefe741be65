//! Reports of a measured game, drawn from a [`View`] for one recipient: the
//! position as text (every unit with its formation, position, facing and
//! strength, and a coarse sketch of the table), the move's report with
//! every measured distance and die, the order template, a to-scale SVG of
//! the table and view.json. The table is open, so a view is the whole
//! position except the enemy's standing orders, which stay sealed until
//! they are carried out ([`sealed`]); the order template differs per side.

use super::geometry::{fmt_len, PER_INCH};
use super::labels;
use super::ruleset::Ruleset;
use super::state::{footprint, Feature, Forced, State, Unit};
use crate::book::Book;
use adjutant_rules::report::html::esc;
use adjutant_rules::report::symbols::{self, Kind};
use adjutant_rules::report::{wrap, Parts};
use adjutant_rules::Viewer;
use serde::Serialize;
use std::fmt::Write;

/// What one recipient sees (docs/report-json.md, measured family).
///
/// The mail carries it beside the text report, so it leaves out what
/// only repeats: a unit's fields at their default and an event's
/// sentence, which is the report's line (issue 53, acceptance 3: Minden's
/// busy turn's view.json was 18 KB of an 85 KB mail).
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub schema: u32,
    pub family: &'static str,
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    pub turn: u32,
    pub moves: u32,
    /// Table in sixteenths of an inch.
    pub width: i64,
    pub depth: i64,
    pub sides: Vec<String>,
    pub viewer: Viewer,
    pub terrain: Vec<Feature>,
    /// The units, each without its fields at their default
    /// ([`UNIT_DEFAULTS`]).
    pub units: Vec<serde_json::Value>,
    pub removed: Vec<u32>,
    pub waiting: Vec<String>,
    /// The events with sorted keys, as the store holds them, less what the
    /// text report repeats ([`event_json`]).
    pub last: Vec<serde_json::Value>,
    pub over: bool,
    pub winner: Option<String>,
}

/// A unit's fields that view.json leaves out at their default: no
/// officers, no volley fired, not broken, no moves still to spend in a
/// ford, no rest banked.
pub const UNIT_DEFAULTS: [&str; 5] = ["officers", "volleyed", "broken", "crossing", "rest"];

/// A unit as view.json writes it: its stored fields but those of
/// [`UNIT_DEFAULTS`] at their default (an empty list, false, 0).
fn unit_json<B: Book>(u: &Unit<B>) -> serde_json::Value {
    let mut v = serde_json::to_value(u).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        for k in UNIT_DEFAULTS {
            let default = m.get(k).is_some_and(|f| {
                f == &serde_json::Value::Bool(false)
                    || f.as_u64() == Some(0)
                    || f.as_array().is_some_and(Vec::is_empty)
            });
            if default {
                m.remove(k);
            }
        }
    }
    v
}

/// An event as view.json writes it: as the store holds it (keys sorted),
/// without its `text` where that is the sentence the report prints for it
/// (the report's "What happened" line) and without the book's own marks
/// ([`Book::VIEW_MARKS`]: `ruleset` names the rulebook). A Charge! event's `text` (a length as written) stays.
fn event_json<B: Book>(e: &B::Event) -> serde_json::Value {
    let mut v = serde_json::to_value(e).unwrap_or_default();
    let sentence = B::describe(e);
    if let Some(m) = v.as_object_mut() {
        if sentence.is_some() && m.get("text").and_then(|t| t.as_str()) == sentence.as_deref() {
            m.remove("text");
        }
        for k in B::VIEW_MARKS {
            if m.get(*k) == Some(&serde_json::Value::Bool(true)) {
                m.remove(*k);
            }
        }
    }
    v
}

#[must_use]
pub fn view<B: Book>(r: &Ruleset<B>, st: &State<B>, viewer: &Viewer, events: &[B::Event]) -> View {
    View {
        // 2: units' fields at their default and the events' sentences left
        // out (docs/report-json.md, "The measured family").
        schema: 2,
        family: "measured",
        ruleset: st.ruleset.clone(),
        scenario: st.scenario.clone(),
        title: st.title.clone(),
        turn: st.turn,
        moves: st.moves,
        width: st.width,
        depth: st.depth,
        sides: st.sides.clone(),
        viewer: viewer.clone(),
        terrain: st.terrain.clone(),
        units: st.units.iter().map(unit_json).collect(),
        removed: st.removed.clone(),
        waiting: r
            .book()
            .needs(st)
            .iter()
            .map(|i| st.sides[*i].clone())
            .collect(),
        last: events.iter().map(event_json::<B>).collect(),
        over: st.over,
        winner: st.winner.clone(),
    }
}

fn at(x: i64, y: i64) -> String {
    format!("({}, {})", fmt_len(x), fmt_len(y))
}

fn status<B: Book>(u: &Unit<B>) -> String {
    let (first, last) = B::status(u);
    let mut s = first;
    if u.broken {
        s.push("BROKEN (50%)".to_string());
    }
    if let Some(n) = u.bad_morale {
        s.push(format!("bad morale (rallies on {n})"));
    }
    if let Some(m) = &u.melee {
        s.push(format!("in melee with {} (move {})", m.with, m.moves + 1));
    }
    match &u.forced {
        Some(Forced::Halt) => s.push("halts next move".into()),
        Some(Forced::Retire) => s.push("retires next move".into()),
        Some(Forced::BreakOff) => s.push("breaks off next move".into()),
        Some(Forced::Rout) => s.push("to the rear".into()),
        Some(Forced::Exhausted { retire, rest }) => {
            s.push(format!("exhausted ({retire} retire, {rest} rest)"))
        }
        None => {}
    }
    if u.crossing > 0 {
        s.push(format!("in a ford, {} more moves", u.crossing));
    }
    s.extend(last);
    if !u.standing.is_empty() {
        s.push(format!("standing: {}", u.standing.join(", ")));
    }
    s.join("; ")
}

fn unit_line<B: Book>(r: &Ruleset<B>, st: &State<B>, u: &Unit<B>) -> String {
    let t = r.troop(&u.troop);
    let officers: Vec<String> = u
        .officers
        .iter()
        .filter(|o| o.alive)
        .map(|o| format!("{} {}", o.rank, o.points))
        .collect();
    let guns = if u.guns.is_empty() {
        String::new()
    } else {
        let g: Vec<String> = u
            .guns
            .iter()
            .map(|g| {
                if g.destroyed {
                    "destroyed".into()
                } else {
                    format!("{} dmg", g.damage)
                }
            })
            .collect();
        format!(", guns: {}", g.join("/"))
    };
    let st_text = status(u);
    let fp = footprint(r, u);
    format!(
        "{:<7} {:<8} {:<18} {:<8} front {} facing {:>3}°, {} x {}, {}/{} r&f{}; officers {}{}",
        u.id,
        st.sides.get(u.side).cloned().unwrap_or_default(),
        t.map_or(u.troop.clone(), |t| t.name.clone()),
        u.formation,
        at(u.front.x, u.front.y),
        u.facing,
        fmt_len(fp.width),
        fmt_len(fp.depth),
        u.rf,
        u.start_rf,
        guns,
        if officers.is_empty() {
            "none".into()
        } else {
            officers.join(", ")
        },
        if st_text.is_empty() {
            String::new()
        } else {
            format!(" [{st_text}]")
        }
    )
}

/// A coarse sketch: one character per cell of `cell` sixteenths, drawn
/// from the edge of side `seat` (issue 53: the second side sees the table
/// turned round, its own edge at the bottom, as its picture does).
fn sketch<B: Book>(r: &Ruleset<B>, st: &State<B>, cols_max: i64, seat: usize) -> String {
    let cell = ((st.width + cols_max - 1) / cols_max).max(PER_INCH);
    let cols = (st.width + cell - 1) / cell;
    let rows = (st.depth + cell * 2 - 1) / (cell * 2);
    let mut o = String::new();
    let grounds: Vec<_> = st.units.iter().map(|u| footprint(r, u).corners()).collect();
    let turned = seat == 1;
    let row_order: Vec<i64> = if turned {
        (0..rows).collect()
    } else {
        (0..rows).rev().collect()
    };
    for row in row_order {
        let mut l = String::new();
        for k in 0..cols {
            let col = if turned { cols - 1 - k } else { k };
            let p = super::geometry::Pt::new(col * cell + cell / 2, row * cell * 2 + cell);
            let unit = st
                .units
                .iter()
                .zip(&grounds)
                .find(|(_, c)| super::geometry::covered(&c[..], p))
                .map(|(u, _)| u);
            let ch = match unit {
                Some(u) => {
                    let c = r.troop(&u.troop).map_or('U', |t| t.letter);
                    if u.side == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                }
                None => {
                    let fs = st.features_at(p);
                    let pick = ["building", "ford", "river", "woods", "swamp", "scenic"]
                        .iter()
                        .find(|k| fs.iter().any(|f| f.kind == **k));
                    match pick {
                        Some(&"building") => '#',
                        Some(&"ford") => '=',
                        Some(&"river") => '~',
                        Some(&"woods") => '&',
                        Some(&"swamp") => ',',
                        Some(&"scenic") => '%',
                        _ => match st.level(p) {
                            0 => '.',
                            1 => '-',
                            2 => '+',
                            _ => '^',
                        },
                    }
                }
            };
            l.push(ch);
        }
        let _ = writeln!(o, "|{l}|");
    }
    let _ = writeln!(
        o,
        "  (one character = {} across, {} up; {} edge at the bottom)",
        fmt_len(cell),
        fmt_len(cell * 2),
        st.sides.get(seat).unwrap_or(&st.sides[0]),
    );
    let _ = writeln!(
        o,
        "  . plain  - hill level 1  + level 2  ^ higher  & woods  # building"
    );
    let _ = writeln!(o, "  ~ river  = ford  , swamp  % scenic");
    let _ = writeln!(
        o,
        "  units by letter: {} upper case, {} lower case",
        st.sides[0], st.sides[1]
    );
    o
}

/// The position as text (80 columns), the sketch drawn from the edge of
/// side `seat`.
#[must_use]
pub fn text_map<B: Book>(r: &Ruleset<B>, st: &State<B>, width: i64, seat: usize) -> String {
    let mut o = wrap(
        &format!(
            "{}, {}. Table {} x {}; positions are (across, up) from the {} edge's left corner.",
            st.title,
            // After the last move the state counts one beyond it.
            if st.turn > st.moves {
                format!("after the last move ({})", st.moves)
            } else {
                format!("move {} of {}", st.turn, st.moves)
            },
            fmt_len(st.width),
            fmt_len(st.depth),
            st.sides[0]
        ),
        78,
        "  ",
    );
    o.push_str(&sketch(r, st, width, seat));
    let _ = writeln!(o, "Units (front = the centre of the front rank):");
    for u in &st.units {
        o.push_str(&wrap(
            &format!("  {}", unit_line(r, st, u)),
            78,
            "          ",
        ));
    }
    let _ = writeln!(o, "Terrain:");
    for f in &st.terrain {
        let pts: Vec<String> = f.points.iter().map(|p| at(p.x, p.y)).collect();
        let what = match (f.kind.as_str(), f.level, f.capacity) {
            ("hill", l, _) => format!("hill, contour {l}"),
            (k, _, c) if c > 0 => format!("{k}, holds {c}{}", section_state(f)),
            (k, _, _) => format!("{k}{}", section_state(f)),
        };
        o.push_str(&wrap(
            &format!(
                "  {}{}: {}",
                what,
                if f.name.is_empty() {
                    String::new()
                } else {
                    format!(" \"{}\"", f.name)
                },
                pts.join(" ")
            ),
            78,
            "      ",
        ));
    }
    let _ = writeln!(
        o,
        "Rank and file removed: {} {}, {} {}.",
        st.sides[0], st.removed[0], st.sides[1], st.removed[1]
    );
    if st.over {
        let _ = writeln!(
            o,
            "The game is over: {}.",
            match st.winner.as_deref() {
                Some("") | None => "a draw".to_string(),
                Some(w) => format!("{w} win"),
            }
        );
    }
    o
}

/// The order template for a side: each unit with its formation and what it
/// may still do.
#[must_use]
pub fn template<B: Book>(r: &Ruleset<B>, st: &State<B>, viewer: &Viewer) -> Option<String> {
    let Viewer::Side(side) = viewer else {
        return None;
    };
    let s = st.side_index(side)?;
    r.book().template(r, st, s, side)
}

pub const SCALE: i64 = 10; // pixels per inch

pub fn px(v: i64) -> String {
    let n = v * SCALE;
    let (w, f) = (n / PER_INCH, (n % PER_INCH).abs());
    if f == 0 {
        format!("{w}")
    } else {
        format!(
            "{}{}.{:04}",
            if n < 0 && w == 0 { "-" } else { "" },
            w,
            f * 625
        )
        .trim_end_matches('0')
        .to_string()
    }
}

/// The 6" scale: a tick inward from each edge of the table every 6".
/// Grid lines across the whole table cost a busy turn's PNG 9 KB (issue
/// 53, acceptance 3) and ran through every unit.
fn grid(o: &mut String, w: i64, d: i64, x: &dyn Fn(i64) -> String, y: &dyn Fn(i64) -> String) {
    let step = 6 * PER_INCH;
    let at = |n: i64| (1..).map(move |k| k * step).take_while(move |&v| v < n);
    let mut ticks = String::new();
    for v in at(w) {
        let _ = write!(ticks, "M{},0v6M{},{}v-6", x(v), x(v), px(d));
    }
    for v in at(d) {
        let _ = write!(ticks, "M0,{}h6M{},{}h-6", y(v), px(w), y(v));
    }
    let _ = writeln!(o, "<path class=\"scale\" d=\"{ticks}\" stroke=\"#333\"/>");
}

/// The to-scale SVG of the table (10 px to the inch; the first side's edge
/// at the bottom): terrain, units drawn as their formations with a heavy
/// front edge, this move's paths, lines of fire, sleeves and charges.
///
/// `seat` is the side whose edge is at the bottom (issue 53: each side
/// sees the table from its own edge; the referee and observers from the
/// first side's): for the second side the table is turned round.
#[must_use]
pub fn svg<B: Book>(r: &Ruleset<B>, st: &State<B>, events: &[B::Event], seat: usize) -> String {
    let (w, d) = (st.width, st.depth);
    let turned = seat == 1;
    let x = |v: i64| px(if turned { w - v } else { v });
    let y = |v: i64| px(if turned { v } else { d - v });
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"9\" aria-label=\"{}, move {}, seen from the {} edge\">",
        px(w),
        px_i(d) + LEGEND_H,
        px(w),
        px_i(d) + LEGEND_H,
        esc(&st.title),
        st.turn,
        esc(st.sides.get(seat).map_or("", String::as_str))
    );
    o.push_str("<defs><marker id=\"mv\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#222\"/></marker><marker id=\"fr\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c00\"/></marker><rect id=\"f\" x=\"-14\" y=\"-9\" width=\"28\" height=\"18\" rx=\"2\"/>");
    let kinds = symbols::shown(st.units.iter().map(|u| kind_of(r, u)));
    o.push_str(&symbols::defs(&kinds));
    o.push_str("</defs>\n");
    let _ = writeln!(o, "<title>{}, move {}</title>", esc(&st.title), st.turn);
    // The static layer (docs/performance.md): the same on every move of a
    // scenario seen from one edge, drawn once and kept by the picture.
    o.push_str("<g class=\"static\">\n");
    let _ = writeln!(o, "<rect class=\"table\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#dfe8c8\" stroke=\"#333\"/>", px(w), px(d));
    grid(&mut o, w, d, &x, &y);
    // The terrain's names, which the units' labels keep clear of (issue 53).
    let mut avoid = terrain(&mut o, st, &x, &y);
    o.push_str("</g>\n");
    // This move: paths, fire and sleeves, charges (each book draws its own
    // events), drawn over the units but laid out first: the units' labels
    // keep clear of their arrowheads (issue 53).
    let pen = Pen {
        x: &x,
        y: &y,
        w,
        d,
        turned,
        heads: std::cell::RefCell::new(Vec::new()),
    };
    let mut drawn = String::new();
    for e in events {
        B::draw(&mut drawn, r, st, e, &pen);
    }
    avoid.extend(pen.heads.take().into_iter().map(|(hx, hy)| {
        (
            hx - HEAD_ROOM,
            hy - HEAD_ROOM,
            hx + HEAD_ROOM,
            hy + HEAD_ROOM,
        )
    }));
    units(&mut o, r, st, (&x, &y), avoid);
    o.push_str(&drawn);
    legend(&mut o, st, seat, px_i(d), &kinds);
    let _ = writeln!(o, "</svg>");
    o
}
/// Where a picture draws an event: the table's coordinates as the viewer
/// sees them (`x`, `y`), the table's size and whether it is turned.
pub struct Pen<'a> {
    pub x: &'a dyn Fn(i64) -> String,
    pub y: &'a dyn Fn(i64) -> String,
    pub w: i64,
    pub d: i64,
    pub turned: bool,
    /// Where each arrowhead drawn points, in pixels ([`move_line`] and
    /// [`fire_line`] note them): the units' labels are placed clear of
    /// them.
    pub heads: std::cell::RefCell<Vec<labels::P>>,
}

/// How far round an arrow's point its head is kept clear of labels: the
/// head (9 pixels long for a 1.5-pixel line) reaches 0.9 past the point,
/// and a label's glyphs may be a little wider than their estimate.
const HEAD_ROOM: f64 = 5.0;

impl Pen<'_> {
    /// Notes an arrowhead at the table's point `b`.
    fn head(&self, b: (i64, i64)) {
        let num = |s: String| s.parse::<f64>().unwrap_or(0.0);
        self.heads
            .borrow_mut()
            .push((num((self.x)(b.0)), num((self.y)(b.1))));
    }
}

/// A move's path on the picture, from `a` to `b`.
pub fn move_line(o: &mut String, pen: &Pen<'_>, a: (i64, i64), b: (i64, i64)) {
    let (x, y) = (pen.x, pen.y);
    pen.head(b);
    let _ = writeln!(o, "<line class=\"path move\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"1.5\" marker-end=\"url(#mv)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
}

/// Fire on the picture, from `a` to `b`.
pub fn fire_line(o: &mut String, pen: &Pen<'_>, a: (i64, i64), b: (i64, i64)) {
    let (x, y) = (pen.x, pen.y);
    pen.head(b);
    let _ = writeln!(o, "<line class=\"fire\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00\" stroke-width=\"1.5\" marker-end=\"url(#fr)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
}

/// The table's terrain: hills under woods under rivers, roads and walls as
/// lines, then the names, each at its feature's top left corner as seen,
/// clear of the others and inside the table whichever way it is turned.
/// Returns the names' boxes (as [`name_box`] estimates them).
fn terrain<B: Book>(
    o: &mut String,
    st: &State<B>,
    x: &dyn Fn(i64) -> String,
    y: &dyn Fn(i64) -> String,
) -> Vec<labels::Box4> {
    let (w, d) = (st.width, st.depth);
    let mut names = Vec::new();
    let mut written = String::new();
    let mut feats: Vec<&Feature> = st.terrain.iter().collect();
    feats.sort_by_key(|f| (f.kind != "hill", f.level, f.kind != "river"));
    for f in feats {
        let pts: Vec<String> = f
            .points
            .iter()
            .map(|p| format!("{},{}", x(p.x), y(p.y)))
            .collect();
        let (fill, stroke, line) = match f.kind.as_str() {
            "hill" => (
                ["#e6dcb4", "#d8c890", "#c8b070", "#b89850"][(f.level as usize).clamp(1, 4) - 1],
                "#8a7440",
                false,
            ),
            "woods" => ("#7fae6a", "#3d6b2e", false),
            "swamp" => ("#a7c4b0", "#557", false),
            "scenic" => ("#c9b99a", "#776", false),
            "building" => ("#8a7a6a", "#3a3028", false),
            "ruins" => ("#a8a29a", "#555", false),
            "canal" => ("#7fb2e0", "#3a6fa0", false),
            "river" => ("#7fb2e0", "#3a6fa0", false),
            "ford" => ("#b6d4ee", "#3a6fa0", false),
            "wall" => ("none", "#555", true),
            "road" => ("none", "#a08050", true),
            _ => ("#ccc", "#777", false),
        };
        if line {
            let _ = writeln!(
                o,
                "<polyline class=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
                f.kind,
                pts.join(" "),
                if f.kind == "road" { 8 } else { 3 }
            );
        } else {
            let _ = writeln!(
                o,
                "<polygon class=\"{}\" points=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\"/>",
                f.kind,
                pts.join(" ")
            );
        }
        if let Some(n) = f.burning {
            let _ = writeln!(
                o,
                "<polygon class=\"burning\" points=\"{}\" fill=\"#ff6a00\" fill-opacity=\"0.7\" stroke=\"#c00\" stroke-width=\"2\"><title>on fire, {n} moves burnt</title></polygon>",
                pts.join(" ")
            );
        }
        // The name at the feature's top left corner as the viewer sees it
        // (from either edge the same corner of the picture, just above the
        // feature), inside the table.
        let num = |s: String| s.parse::<f64>().unwrap_or(0.0);
        let corner = f.points.iter().fold(None, |m: Option<(f64, f64)>, p| {
            let (px, py) = (num(x(p.x)), num(y(p.y)));
            Some(m.map_or((px, py), |(mx, my)| (mx.min(px), my.min(py))))
        });
        if let (false, Some((cx, cy))) = (f.name.is_empty(), corner) {
            let n = f.name.chars().count();
            let room = px_i(w) as f64 - NAME_CHAR_W * n as f64 - 2.0;
            let nx = cx.clamp(2.0, room.max(2.0));
            let ny = name_row(&names, nx, cy, n, px_i(d));
            names.push(name_box(nx, ny, n));
            let _ = writeln!(
                written,
                "<text class=\"name\" x=\"{nx:.1}\" y=\"{ny:.1}\" fill=\"#333\" font-style=\"italic\">{}</text>",
                esc(&f.name)
            );
        }
    }
    // The names over every feature: a house drawn after its neighbour's
    // name covered it ("lower lane, ea").
    o.push_str(&written);
    names
}

/// The baseline of a terrain's name of `chars` characters starting at
/// `x`: at `y` (the feature's top left corner), or the nearest line above or
/// under it (10 pixels apart, the table's height `d` kept) clear of the
/// names placed before (`placed`): Fuentes de Oñoro's two houses of a lane
/// gave two names 110 pixels long 60 apart, one over the other (issue
/// 53). The names are the picture's static layer: placed from the terrain
/// alone, never from the units.
fn name_row(placed: &[labels::Box4], x: f64, y: f64, chars: usize, d: i64) -> f64 {
    let at = |dy: f64| (y + dy).clamp(10.0, d as f64 - 2.0);
    (0..9)
        .map(|k| at(f64::from((k + 1) / 2 * if k % 2 == 0 { 10 } else { -10 })))
        .find(|&y| {
            let b = name_box(x, y, chars);
            placed.iter().all(|p| !labels::boxes_overlap(b, *p))
        })
        .unwrap_or_else(|| at(0.0))
}

/// Pixels a character of a terrain's name (9-pixel italic) takes at most
/// on average.
const NAME_CHAR_W: f64 = 5.2;

/// The box of a terrain's name of `chars` characters starting at (x, y),
/// its baseline: capitals above, descenders under, rounded out to whole
/// tenths as drawn.
fn name_box(x: f64, y: f64, chars: usize) -> labels::Box4 {
    let (x, y) = ((x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0);
    (x - 0.5, y - 7.5, x + NAME_CHAR_W * chars as f64, y + 2.5)
}

/// The height of the legend band under the table, in pixels: two rows,
/// the sides, arrows and scale, then the unit symbols drawn (on one row
/// they ran off a 720-unit table such as El Bodon's).
const LEGEND_H: i64 = 48;

/// The colour of a side's units: blue the first side (whose edge is
/// `y = 0`), red the other (docs/reports.md, "The picture").
const SIDE_COLOURS: [(&str, &str); 2] = [("#2457a6", "#0b2350"), ("#b0322a", "#5a1010")];

fn px_i(v: i64) -> i64 {
    v * SCALE / PER_INCH
}

/// Each unit as its formation with a heavy front edge, its name and
/// strength at its centre, or, where it does not fit (or would lie under
/// one of `avoid`: the terrain's names and this move's arrowheads), beside
/// it clear of every other unit and label and of `avoid`, inside the table
/// (crate::labels).
fn units<B: Book>(
    o: &mut String,
    r: &Ruleset<B>,
    st: &State<B>,
    (x, y): (&dyn Fn(i64) -> String, &dyn Fn(i64) -> String),
    avoid: Vec<labels::Box4>,
) {
    let (tw, td) = (px_i(st.width) as f64, px_i(st.depth) as f64);
    let num = |s: String| s.parse::<f64>().unwrap_or(0.0);
    // Every unit's outline first: each label is placed clear of them all
    // and of the labels placed before it (crate::labels).
    let outlines: Vec<Vec<labels::P>> = st
        .units
        .iter()
        .map(|u| {
            footprint(r, u)
                .corners()
                .iter()
                .map(|p| (num(x(p.x)), num(y(p.y))))
                .collect()
        })
        .collect();
    // What the labels keep clear of: `avoid`, then each label placed.
    let mut placed = avoid;
    for (i, u) in st.units.iter().enumerate() {
        let c = footprint(r, u).corners();
        let pts: Vec<String> = c.iter().map(|p| format!("{},{}", x(p.x), y(p.y))).collect();
        let (fill, stroke) = SIDE_COLOURS[u.side.min(1)];
        let label = format!("{} {}", u.id, u.rf);
        let n = label.chars().count();
        // The label's place holds the symbol too when it is on the unit
        // (the symbol at its left, the text at its right); off the unit,
        // the symbol sits at the unit's centre.
        let (cx, cy, on) = labels::place(&outlines, i, n + SYMBOL_CHARS, (tw, td), &mut placed);
        let half = labels::CHAR_W * (n + SYMBOL_CHARS) as f64 / 2.0;
        let (sx, sy, tx) = if on {
            (
                cx - half + 7.0,
                cy - 3.5,
                cx + half - labels::CHAR_W * n as f64 / 2.0,
            )
        } else {
            let o = &outlines[i];
            let k = o.len().max(1) as f64;
            (
                o.iter().map(|p| p.0).sum::<f64>() / k,
                o.iter().map(|p| p.1).sum::<f64>() / k,
                cx,
            )
        };
        let ink = if on { "#000" } else { "#111" };
        let k = kind_of(r, u);
        // The strength at a glance (issue 53): a bar under the label, its
        // dark part the rank and file left of those the unit began with.
        let mut strength = String::new();
        let bar_w = labels::CHAR_W * (n + if on { SYMBOL_CHARS } else { 0 }) as f64;
        symbols::bar(
            &mut strength,
            if on { cx - half } else { tx - bar_w / 2.0 },
            cy + labels::BAR_DOWN,
            bar_w,
            u.rf,
            u.start_rf,
            stroke,
        );
        let _ = writeln!(
            o,
            "<g class=\"unit\" data-id=\"{}\" data-side=\"{}\" data-kind=\"{}\"><polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"{}\" stroke=\"{stroke}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\" stroke-width=\"2\"/><text class=\"label\" x=\"{tx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" fill=\"{ink}\">{}</text><g class=\"symbol\" shape-rendering=\"crispEdges\" transform=\"translate({sx:.1} {sy:.1}) scale(0.5)\"><use href=\"#f\" fill=\"{fill}\" stroke=\"{stroke}\"/><use href=\"#k-{}\"/></g>{strength}</g>",
            esc(&u.id),
            esc(st.sides.get(u.side).map_or("", String::as_str)),
            k.id(),
            pts.join(" "),
            if u.broken { "0.3" } else { "0.75" },
            x(c[0].x),
            y(c[0].y),
            x(c[1].x),
            y(c[1].y),
            esc(&label),
            k.id(),
        );
    }
}

/// The characters' room a unit's symbol (14 by 9 pixels, half the other
/// families' frame) takes beside its label.
const SYMBOL_CHARS: usize = 3;

/// The kind of symbol a unit is drawn with: its troop's class
/// (`adjutant_rules::report::symbols`).
fn kind_of<B: Book>(r: &Ruleset<B>, u: &Unit<B>) -> Kind {
    Kind::of_class(r.troop(&u.troop).map_or("", |t| t.class.as_str()))
}

/// The band under the table: each side's colour (the one seated at the
/// bottom marked), the unit symbols drawn, the arrows and the scale (a
/// tick every 6").
fn legend<B: Book>(o: &mut String, st: &State<B>, seat: usize, d: i64, kinds: &[Kind]) {
    let y = d + 8;
    let mut x = 6;
    for (i, s) in st.sides.iter().enumerate() {
        let name = if i == seat {
            format!("{s} (this edge)")
        } else {
            s.clone()
        };
        let _ = writeln!(
            o,
            "<g class=\"legend\"><rect x=\"{x}\" y=\"{y}\" width=\"14\" height=\"10\" fill=\"{}\" fill-opacity=\"0.9\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text></g>",
            SIDE_COLOURS[i.min(1)].0,
            x + 18,
            y + 9,
            esc(&name)
        );
        x += 32 + 7 * name.chars().count() as i64;
    }
    for (label, c) in [("move", "#222"), ("fire", "#c00")] {
        let _ = writeln!(
            o,
            "<g class=\"legend\"><line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"1.5\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{label}</text></g>",
            y + 5,
            x + 16,
            y + 5,
            x + 20,
            y + 9
        );
        x += 30 + 7 * label.len() as i64;
    }
    let _ = writeln!(
        o,
        "<g class=\"legend\"><path d=\"M{},{}v-6\" stroke=\"#333\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">edge ticks 6&quot; apart</text></g>",
        x + 2,
        y + 10,
        x + 8,
        y + 9
    );
    // The strength's bar (issue 53): the dark part the rank and file left.
    let x = x + 160;
    let mut bar = String::new();
    symbols::bar(&mut bar, x as f64, y as f64 + 3.5, 24.0, 2, 3, "#333");
    let _ = writeln!(
        o,
        "<g class=\"legend\" data-legend=\"strength\">{}<text x=\"{}\" y=\"{}\" font-size=\"11\">rank and file left, lost</text></g>",
        // The legend's sample is not a unit's strength.
        bar.replacen("class=\"strength\"", "class=\"sample\"", 1),
        x + 28,
        y + 9
    );
    // The unit symbols drawn (issue 53), each named, on a second row.
    let (mut x, y) = (6, y + 15);
    for k in kinds {
        let _ = writeln!(
            o,
            "<g class=\"legend\" data-legend=\"kind-{id}\"><g transform=\"translate({} {}) scale(0.5)\"><use href=\"#f\" fill=\"#666\" stroke=\"#111\"/><use href=\"#k-{id}\"/></g><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text></g>",
            x + 7,
            y + 5,
            x + 18,
            y + 9,
            k.name(),
            id = k.id(),
        );
        x += 30 + 7 * k.name().len() as i64;
    }
}

/// The position as `viewer` may know it: standing orders are sealed
/// (docs/rules/charge.md and seven-years-war.md, "Standing orders"): a
/// side sees its own units' and none of the enemy's, an observer none, the
/// referee all. An order shows itself only when it is carried out (the
/// report of the evade, the held fire, the ground held).
#[must_use]
pub fn sealed<'a, B: Book>(st: &'a State<B>, viewer: &Viewer) -> std::borrow::Cow<'a, State<B>> {
    let own = match viewer {
        Viewer::Referee => return std::borrow::Cow::Borrowed(st),
        Viewer::Side(s) => st.side_index(s),
        Viewer::Observer | Viewer::Revealed(_) => None,
    };
    if st
        .units
        .iter()
        .all(|u| u.standing.is_empty() || Some(u.side) == own)
    {
        return std::borrow::Cow::Borrowed(st);
    }
    let mut v = st.clone();
    for u in v.units.iter_mut().filter(|u| Some(u.side) != own) {
        u.standing.clear();
    }
    std::borrow::Cow::Owned(v)
}

/// Every part of a report for `viewer`.
#[must_use]
pub fn parts<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    events: &[B::Event],
    viewer: &Viewer,
) -> Parts {
    parts_drawn(r, st, events, viewer, true)
}

/// [`parts`] without the board picture: no SVG, no HTML board, no compact
/// map (they go only into a mail's HTML part), every other part the same
/// (`Family::report_without_board`).
#[must_use]
pub fn parts_without_board<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    events: &[B::Event],
    viewer: &Viewer,
) -> Parts {
    parts_drawn(r, st, events, viewer, false)
}

/// A report's parts, the board picture drawn only if `board`.
fn parts_drawn<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    events: &[B::Event],
    viewer: &Viewer,
    board: bool,
) -> Parts {
    let st = &*sealed(st, viewer);
    let v = view(r, st, viewer, events);
    let lines: Vec<String> = events.iter().filter_map(B::describe).collect();
    let combat = if lines.is_empty() {
        String::new()
    } else {
        let mut c = String::from("What happened:\n");
        for l in &lines {
            c.push_str(&wrap(&format!("  {l}"), 78, "    "));
        }
        c
    };
    let seat = match viewer {
        Viewer::Side(s) => st.side_index(s).unwrap_or(0),
        _ => 0,
    };
    if !board {
        return Parts {
            map: text_map(r, st, 76, seat),
            combat,
            orders: template(r, st, viewer),
            json: serde_json::to_string_pretty(&v).unwrap_or_default(),
            ..Parts::default()
        };
    }
    let svg = svg(r, st, events, seat);
    let board_html = format!(
        "<p style=\"margin:4px 0;font-size:13px\">{}, move {}. Seen from the {} edge; to scale: 10 pixels to the inch.</p>\n<div style=\"max-width:100%;overflow-x:auto\">\n{svg}</div>\n",
        esc(&st.title),
        st.turn,
        esc(st.sides.get(seat).map_or("", String::as_str))
    );
    Parts {
        map: text_map(r, st, 76, seat),
        compact: text_map(r, st, 36, seat),
        combat,
        orders: template(r, st, viewer),
        board_html,
        svg,
        json: serde_json::to_string_pretty(&v).unwrap_or_default(),
    }
}

/// A building section's damage, fire or ruin, for the terrain list.
fn section_state(f: &Feature) -> String {
    let mut s = Vec::new();
    if f.damage > 0 {
        s.push(format!(
            "{} damage points ({} from shells)",
            f.damage, f.shell
        ));
    }
    if let Some(n) = f.burning {
        s.push(format!("ON FIRE ({n} of 15 moves burnt)"));
    }
    if f.kind == "ruins" {
        s.push("in ruins".to_string());
    }
    if s.is_empty() {
        String::new()
    } else {
        format!(", {}", s.join(", "))
    }
}
