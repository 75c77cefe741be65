//! The grid family draws its own reports from a [`View`] for one recipient:
//! an 80-column map (squares or offset hexes, coordinates on the edges),
//! a compact 40-column map, the combat report, the order template, an SVG
//! board and view.json. These rulebooks hide no unit, so a view is the
//! whole board; the one thing kept from the enemy is a side's standing
//! INITIATIVE choice, which only its own order template shows. A view is
//! still the only thing a renderer sees.

use super::board::{Area, GridKind};
use super::engine;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::{State, Step};
use adjutant_rules::report::html::esc;
use adjutant_rules::report::symbols::{self, Kind};
use adjutant_rules::report::{wrap, Parts};
use adjutant_rules::Viewer;
use serde::Serialize;
use std::fmt::Write;

mod route;
use route::{stack_dy, Box4, Clear};

#[derive(Debug, Clone, Serialize)]
pub struct UnitView {
    pub side: String,
    pub kind: String,
    pub name: String,
    pub letter: String,
    pub at: Area,
    pub strength: u32,
    pub max: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carrying: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wire_stuck: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fired: bool,
}

/// What one recipient sees (docs/report-json.md, grid family).
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub schema: u32,
    pub family: &'static str,
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    pub turn: u32,
    pub grid: super::board::Grid,
    pub sides: Vec<String>,
    pub bottom: String,
    pub viewer: Viewer,
    pub terrain: Vec<(Area, Vec<String>)>,
    pub units: Vec<UnitView>,
    pub destroyed: Vec<u32>,
    pub victory: u32,
    pub phase: String,
    pub waiting: Vec<String>,
    /// Written with sorted keys, as the store holds them.
    #[serde(serialize_with = "adjutant_rules::event::serialize_sorted")]
    pub last: Vec<Event>,
    pub over: bool,
    pub winner: Option<String>,
}

#[must_use]
pub fn view(r: &Ruleset, st: &State, viewer: &Viewer, events: &[Event]) -> View {
    View {
        schema: 1,
        family: "memoir_grid",
        ruleset: r.id.clone(),
        scenario: st.scenario.clone(),
        title: st.title.clone(),
        turn: st.turn,
        grid: st.grid,
        sides: st.sides.clone(),
        bottom: st.sides.get(st.bottom).cloned().unwrap_or_default(),
        viewer: viewer.clone(),
        terrain: st.terrain.iter().map(|(a, f)| (*a, f.clone())).collect(),
        units: st
            .units
            .iter()
            .map(|u| {
                let s = r.unit(&u.kind);
                UnitView {
                    side: st.sides.get(u.side).cloned().unwrap_or_default(),
                    kind: u.kind.clone(),
                    name: s.map_or_else(|| u.kind.clone(), |s| s.name.clone()),
                    letter: s.map_or_else(|| "U".into(), |s| s.letter.clone()),
                    at: u.at,
                    strength: u.strength,
                    max: u.max,
                    carrying: u.carrying.as_ref().map(|c| c.kind.clone()),
                    wire_stuck: u.wire_stuck,
                    fired: u.fired,
                }
            })
            .collect(),
        destroyed: st.destroyed.clone(),
        victory: st.victory,
        phase: match st.step {
            Step::Artillery => "artillery".into(),
            Step::Move { side, .. } => {
                format!("move ({})", st.sides.get(side).cloned().unwrap_or_default())
            }
        },
        waiting: engine::needs(r, st)
            .iter()
            .map(|i| st.sides[*i].clone())
            .collect(),
        last: events.to_vec(),
        over: st.over,
        winner: st.winner.clone(),
    }
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Whether the board is turned round for the viewer: a side whose edge is
/// the top one (the last row) sees it from its own seat, as Memoir '44
/// does; the referee and observers see it from the row-1 side.
fn turned(v: &View) -> bool {
    matches!(&v.viewer, Viewer::Side(s) if *s != v.bottom)
}

/// The side whose seat the board is drawn from.
fn seat(v: &View) -> &str {
    match &v.viewer {
        Viewer::Side(s) if turned(v) => s,
        _ => &v.bottom,
    }
}

/// The area seen from the viewer's seat: rows from the top of the page.
fn rows_top_down(v: &View) -> Vec<i32> {
    if turned(v) {
        (1..=v.grid.rows).collect()
    } else {
        (1..=v.grid.rows).rev().collect()
    }
}

/// The columns of `row` from the left of the page (turned round: the last
/// on the left).
fn cols_left_right(v: &View, row: i32) -> Vec<i32> {
    let n = v.grid.row_len(row);
    if turned(v) {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    }
}

fn code(r: &Ruleset, feats: &[String]) -> String {
    feats
        .iter()
        .filter_map(|f| r.feature(f))
        .max_by_key(|t| {
            u32::from(t.bridge || t.ford) * 8 + u32::from(t.stop) * 2 + u32::from(t.hill > 0)
        })
        .map_or_else(|| "..".into(), |t| t.code.clone())
}

fn token(v: &View, a: Area) -> String {
    let mut us: Vec<&UnitView> = v.units.iter().filter(|u| u.at == a).collect();
    us.sort_by_key(|u| u.kind == "general");
    match us.first() {
        None => "  ".into(),
        Some(u) => {
            let l = if u.side == seat(v) {
                u.letter.to_uppercase()
            } else {
                u.letter.to_lowercase()
            };
            let g = if us.len() > 1 { "g" } else { "" };
            format!("{l}{}{g}", u.strength)
        }
    }
}

/// The 80-column map.
#[must_use]
pub fn text_map(r: &Ruleset, v: &View) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}, turn {}", v.title, v.turn);
    let cols = v.grid.columns;
    let mut order: Vec<i32> = (0..cols).collect();
    if turned(v) {
        order.reverse();
    }
    let letters: String = order
        .iter()
        .map(|c| format!("  {}   ", (b'A' + *c as u8) as char))
        .collect();
    let _ = writeln!(o, "    {}", letters.trim_end());
    let terrain = |a: Area| -> String {
        v.terrain
            .iter()
            .find(|(x, _)| *x == a)
            .map_or_else(|| "..".into(), |(_, f)| code(r, f))
    };
    for row in rows_top_down(v) {
        let shift = if v.grid.kind == GridKind::Hex && row % 2 == 0 {
            "   "
        } else {
            ""
        };
        let mut l1 = format!("{row:>2}  {shift}");
        let mut l2 = format!("    {shift}");
        for col in cols_left_right(v, row) {
            let a = Area { col, row };
            let _ = write!(l1, " {}   ", terrain(a));
            let _ = write!(l2, " {:<4} ", token(v, a));
        }
        let _ = writeln!(o, "{}", l1.trim_end());
        let _ = writeln!(o, "{}", l2.trim_end());
    }
    let _ = writeln!(o, "    {}", letters.trim_end());
    let mut used: Vec<String> = v
        .terrain
        .iter()
        .flat_map(|(_, f)| f.iter().cloned())
        .collect();
    used.sort();
    used.dedup();
    let legend: Vec<String> = used
        .iter()
        .filter_map(|f| r.feature(f).map(|t| format!("{} {}", t.code, t.name)))
        .collect();
    let mut kinds: Vec<(String, String)> = v
        .units
        .iter()
        .map(|u| (u.letter.clone(), u.name.clone()))
        .collect();
    kinds.sort();
    kinds.dedup();
    let who = format!(
        "Seen from the {} edge (row {}). Capitals: {}; lower case: {}. The digit is strength; g: a general shares the area.",
        cap(seat(v)),
        if turned(v) { v.grid.rows } else { 1 },
        cap(seat(v)),
        v.sides.iter().find(|s| **s != seat(v)).map_or_else(String::new, |s| cap(s))
    );
    o.push_str(&wrap(&who, 78, "  "));
    o.push_str(&wrap(
        &format!("Terrain: .. open, {}.", legend.join(", ")),
        78,
        "  ",
    ));
    let kl: Vec<String> = kinds.iter().map(|(l, n)| format!("{l} {n}")).collect();
    o.push_str(&wrap(&format!("Units: {}.", kl.join(", ")), 78, "  "));
    let d: Vec<String> = v
        .sides
        .iter()
        .zip(&v.destroyed)
        .map(|(s, n)| format!("{} {n}", cap(s)))
        .collect();
    o.push_str(&wrap(
        &format!(
            "Enemy units destroyed: {} (of {} to win).",
            d.join(", "),
            v.victory
        ),
        78,
        "  ",
    ));
    o
}

/// The compact (40-column) map: one character of terrain or a unit letter.
#[must_use]
pub fn compact_map(r: &Ruleset, v: &View) -> String {
    let mut o = String::new();
    let cols = v.grid.columns;
    let mut order: Vec<i32> = (0..cols).collect();
    if turned(v) {
        order.reverse();
    }
    let head: String = order
        .iter()
        .map(|c| format!("{} ", (b'A' + *c as u8) as char))
        .collect();
    let _ = writeln!(o, "   {}", head.trim_end());
    for row in rows_top_down(v) {
        let shift = if v.grid.kind == GridKind::Hex && row % 2 == 0 {
            " "
        } else {
            ""
        };
        let mut l = format!("{row:>2} {shift}");
        for col in cols_left_right(v, row) {
            let a = Area { col, row };
            let t = token(v, a);
            let c = if t.trim().is_empty() {
                let code = v
                    .terrain
                    .iter()
                    .find(|(x, _)| *x == a)
                    .map_or_else(|| "..".into(), |(_, f)| code(r, f));
                if code == ".." {
                    '.'
                } else {
                    code.chars().next().unwrap_or('?').to_ascii_lowercase()
                }
            } else {
                t.chars().next().unwrap_or('?')
            };
            let _ = write!(l, "{c} ");
        }
        let _ = writeln!(o, "{}", l.trim_end());
    }
    o
}

/// One event in words, or None if the viewer may not read it.
#[must_use]
pub fn describe(e: &Event) -> Option<String> {
    let unit = |u: &str| u.replace('-', " ");
    Some(match e {
        Event::Fire {
            side,
            unit: u,
            from,
            target,
            at,
            dice,
            faces,
            ..
        } => format!(
            "{}: the {} at {from} fires at the {} at {at}: {dice} dice: {}.",
            cap(side),
            unit(u),
            unit(target),
            if faces.is_empty() {
                "none".into()
            } else {
                faces.join(", ")
            }
        ),
        Event::Loss {
            side,
            at,
            unit: u,
            lost,
            strength,
            fieldworks,
        } => format!(
            "The {} of {} at {at} loses {lost} (strength {strength} left){}.",
            unit(u),
            cap(side),
            if *fieldworks {
                " (in fieldworks: the first loss was ignored)"
            } else {
                ""
            }
        ),
        Event::Destroyed {
            side,
            at,
            unit: u,
            carried,
        } => format!(
            "The {} of {} at {at} is destroyed{}.",
            unit(u),
            cap(side),
            carried.as_deref().map_or_else(String::new, |c| format!(
                ", with the {} it carried",
                unit(c)
            ))
        ),
        Event::Retreat {
            side,
            unit: u,
            from,
            to,
        } => format!(
            "The {} of {} retreats from {from} to {to}.",
            unit(u),
            cap(side)
        ),
        Event::RetreatBlocked { side, unit: u, at } => format!(
            "The {} of {} at {at} cannot retreat and loses 1 instead.",
            unit(u),
            cap(side)
        ),
        Event::Initiative {
            rolls,
            winner,
            first,
            chose,
        } => {
            let rolls: Vec<String> = rolls.iter().map(u32::to_string).collect();
            format!(
                "Initiative: the dice show {}; {} wins and goes {chose}: {} moves first.",
                rolls.join(", "),
                cap(winner),
                cap(first)
            )
        }
        Event::Move {
            side,
            unit: u,
            path,
        } => format!(
            "{}: the {} moves {}.",
            cap(side),
            unit(u),
            path.join(" -> ")
        ),
        Event::Stop { at, why, .. } => format!("It stops at {at}: {why}."),
        Event::Minefield {
            side,
            at,
            unit: u,
            faces,
        } => format!(
            "The {} of {} enters the minefield at {at}: 4 dice: {}.",
            unit(u),
            cap(side),
            faces.join(", ")
        ),
        Event::WireRemoved { side, at } => {
            format!("{} removes the barbed wire at {at}.", cap(side))
        }
        Event::Load { side, at, unit: u }
        | Event::Limber { side, at, unit: u }
        | Event::Unload { side, at, unit: u }
        | Event::Unlimber { side, at, unit: u } => format!(
            "{}: {} the {} at {at}.",
            cap(side),
            match e {
                Event::Load { .. } => "loads",
                Event::Limber { .. } => "limbers",
                Event::Unload { .. } => "unloads",
                _ => "unlimbers",
            },
            unit(u)
        ),
        Event::Lapsed {
            side,
            order: Some(order),
            why,
            ..
        } => format!("{}: the order \"{order}\" lapses: {why}.", cap(side)),
        Event::Lapsed {
            side,
            order: None,
            at,
            why,
        } => format!(
            "{}: the order at {} lapses: {why}.",
            cap(side),
            at.as_deref().unwrap_or("")
        ),
        Event::GameOver { winner, reason, .. } => match winner.as_deref().unwrap_or("") {
            "" => format!("The game is over ({reason}): a draw."),
            w => format!("The game is over ({reason}): {} wins.", cap(w)),
        },
    })
}

/// The order template for the side(s) to move, as `viewer` may use it.
#[must_use]
pub fn template(r: &Ruleset, st: &State, viewer: &Viewer) -> Option<String> {
    let Viewer::Side(me) = viewer else {
        return None;
    };
    let side = st.side_index(me)?;
    if !engine::needs(r, st).contains(&side) {
        return None;
    }
    let mut o = String::new();
    match st.step {
        Step::Artillery => {
            let _ = writeln!(
                o,
                "# Your artillery phase orders (both sides fire at once):"
            );
            for u in st.units.iter().filter(|u| u.side == side) {
                if let Some(s) = r.unit(&u.kind).filter(|s| !s.artillery.is_empty()) {
                    o.push_str(&adjutant_rules::report::wrap(
                        &format!(
                            "# FIRE {} <target> # {} (strength {}), reaches {}",
                            u.at,
                            s.name,
                            u.strength,
                            s.artillery.len()
                        ),
                        72,
                        "#   ",
                    ));
                }
            }
            let _ = writeln!(
                o,
                "# INITIATIVE {}      # if you win the initiative (standing)",
                if st.second[side] { "SECOND" } else { "FIRST" }
            );
        }
        Step::Move { .. } => {
            let _ = writeln!(
                o,
                "# Your move: each unit moves and fights in the order you write."
            );
            for u in st.units.iter().filter(|u| u.side == side) {
                let Some(s) = r.unit(&u.kind) else { continue };
                let what = match (s.combat.is_empty(), s.move_fire) {
                    (true, _) if s.transport => format!("move {} or load/unload", s.r#move),
                    (true, _) => format!("move {}", s.r#move),
                    (false, None) => format!("move {} or fight", s.r#move),
                    (false, Some(0)) => format!("move {} or fight", s.r#move),
                    (false, Some(m)) => format!("move {}, or move {m} and fight", s.r#move),
                };
                let extra = if u.wire_stuck {
                    " (in wire: REMOVE-WIRE first)"
                } else if u.fired {
                    " (fired: may not move)"
                } else {
                    ""
                };
                o.push_str(&adjutant_rules::report::wrap(
                    &format!("# {} {} ({}): {what}{extra}", u.at, s.name, u.strength),
                    72,
                    "#   ",
                ));
            }
            o.push_str("# MOVE <from> <area> ... <to>\n# FIRE <from> <target>\n# PASS\n");
        }
    }
    Some(o)
}

/// The terrain colours of the picture: (colour, what the legend calls it).
fn fill(f: &[String]) -> (&'static str, &'static str) {
    let t: Vec<&str> = f.iter().map(String::as_str).collect();
    if t.contains(&"woods") {
        ("#5b8a46", "woods")
    } else if t.contains(&"town") {
        ("#c8a27a", "town")
    } else if t.iter().any(|x| matches!(*x, "river" | "stream" | "water")) {
        ("#6fa8dc", "water")
    } else if t.iter().any(|x| x.starts_with("hill")) {
        ("#b59b6a", "hill")
    } else if t
        .iter()
        .any(|x| matches!(*x, "difficult" | "mountain" | "rough"))
    {
        ("#9e9e8e", "rough")
    } else if t.contains(&"sand") {
        ("#e8d9a0", "sand")
    } else {
        ("#e3ead2", "open")
    }
}

/// The colour of a side's units: blue the row-1 side, red the other
/// (docs/reports.md, "The picture").
fn side_colour(v: &View, side: &str) -> &'static str {
    if side == v.bottom {
        "#2457a6"
    } else {
        "#b0322a"
    }
}

/// The SVG board drawn from the viewer's seat (turned round for the side
/// at the last row): squares or hexes, terrain, units with strength, last
/// turn's moves, retreats and fire as arrows with arrowheads (fire with
/// its hits), and a legend of the sides' colours and the terrain under the
/// board. Integer coordinates, one shape reused.
#[must_use]
pub fn svg(r: &Ruleset, v: &View) -> String {
    let hex = v.grid.kind == GridKind::Hex;
    let (cw, ch) = if hex { (52, 45) } else { (52, 52) };
    let w = v.grid.columns * cw + 40;
    let board_h = v.grid.rows * ch + 40;
    let kinds = kinds(r, v);
    let places = kind_places(&kinds, w);
    let h = board_h + 44 + 18 * places.iter().map(|p| p.2 + 1).max().unwrap_or(0);
    let turned = turned(v);
    let pos = |a: Area| -> (i32, i32) {
        let y = v.grid.rows - a.row;
        let shift = if hex && a.row % 2 == 0 { cw / 2 } else { 0 };
        let (x, y) = (20 + a.col * cw + shift + cw / 2, 20 + y * ch + ch / 2);
        if turned {
            (w - x, board_h - y)
        } else {
            (x, y)
        }
    };
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" aria-label=\"{}, turn {}, seen from the {} edge\">\
<defs><style>.a{{stroke:#555;stroke-width:1}}.t{{font-size:9px;fill:#333}}.u{{font-size:13px;font-weight:bold;fill:#111;stroke:#fff;stroke-width:2.5px;paint-order:stroke}}.l{{font-size:11px;fill:#222}}</style>",
        esc(&v.title),
        v.turn,
        esc(&cap(seat(v)))
    );
    if hex {
        o.push_str(
            "<polygon id=\"area\" class=\"a\" points=\"0,-30 26,-15 26,15 0,30 -26,15 -26,-15\"/>",
        );
    } else {
        o.push_str(
            "<rect id=\"area\" class=\"a\" x=\"-26\" y=\"-26\" width=\"52\" height=\"52\"/>",
        );
    }
    o.push_str(
        "<rect id=\"f\" x=\"-14\" y=\"-9\" width=\"28\" height=\"18\" rx=\"2\" stroke=\"#111\"/>",
    );
    o.push_str(&symbols::defs(&kinds));
    for (id, c) in [("mv", "#111"), ("rt", "#e07b00"), ("fr", "#d00")] {
        let _ = write!(
            o,
            "<marker id=\"{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{c}\"/></marker>"
        );
    }
    o.push_str("</defs>\n");
    let terrain = |a: Area| -> Vec<String> {
        v.terrain
            .iter()
            .find(|(t, _)| *t == a)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    };
    let mut used: Vec<(&str, &str)> = Vec::new();
    // The static layer (docs/performance.md): the same on every turn of a
    // scenario seen from one side, drawn once and kept by the picture.
    o.push_str("<g class=\"static\">");
    // Every area first, then every label, so no row covers the next's.
    for row in 1..=v.grid.rows {
        for col in 0..v.grid.row_len(row) {
            let a = Area { col, row };
            let (x, y) = pos(a);
            let (c, name) = fill(&terrain(a));
            if !used.contains(&(c, name)) {
                used.push((c, name));
            }
            let _ = write!(
                o,
                "<use href=\"#area\" class=\"area\" data-area=\"{a}\" x=\"{x}\" y=\"{y}\" fill=\"{c}\"/>"
            );
        }
    }
    // The names and codes, as boxes a little wider than 9px glyphs, for
    // the arrows' heads to keep off.
    let mut names: Vec<Box4> = Vec::new();
    let text_box = |x: i32, y: i32, t: &str| {
        let (x, y) = (f64::from(x), f64::from(y));
        (
            x - 1.0,
            y - 8.0,
            x + 6.0 * t.chars().count() as f64 + 1.0,
            y + 1.0,
        )
    };
    for row in 1..=v.grid.rows {
        for col in 0..v.grid.row_len(row) {
            let a = Area { col, row };
            let (x, y) = pos(a);
            names.push(text_box(x - 10, y - 14, &a.to_string()));
            let _ = write!(
                o,
                "<text class=\"t label\" x=\"{}\" y=\"{}\">{a}</text>",
                x - 10,
                y - 14
            );
            let extra: Vec<String> = terrain(a)
                .iter()
                .filter(|x| !matches!(x.as_str(), "woods" | "town" | "river" | "stream" | "water"))
                .filter_map(|x| r.feature(x).map(|t| t.code.clone()))
                .collect();
            if !extra.is_empty() {
                names.push(text_box(x - 10, y + 22, &extra.join(" ")));
                let _ = write!(
                    o,
                    "<text class=\"t label\" x=\"{}\" y=\"{}\">{}</text>",
                    x - 10,
                    y + 22,
                    esc(&extra.join(" "))
                );
            }
        }
    }
    o.push_str("</g>\n");
    units(&mut o, r, v, &pos);
    let board = (0.0, 0.0, f64::from(w), f64::from(board_h));
    let mut clear = Clear::new(v, &pos, board, &names);
    arrows(&mut o, v, &pos, &mut clear);
    legend(&mut o, v, &used, board_h);
    legend_kinds(&mut o, &places, board_h + 42);
    o.push_str("</svg>\n");
    o
}

/// The kind of symbol a unit is drawn with: its class's
/// (`adjutant_rules::report::symbols`).
fn kind_of(r: &Ruleset, u: &UnitView) -> Kind {
    Kind::of_class(
        r.unit(&u.kind)
            .map_or(u.kind.as_str(), |s| s.class.as_str()),
    )
}

/// The kinds of the units drawn, each once, in the legend's order.
fn kinds(r: &Ruleset, v: &View) -> Vec<Kind> {
    symbols::shown(v.units.iter().map(|u| kind_of(r, u)))
}

/// Each unit as the conventional symbol of its kind: a frame in its
/// side's colour holding the kind's mark, its letter and strength beside
/// it on the right.
fn units(o: &mut String, r: &Ruleset, v: &View, pos: &dyn Fn(Area) -> (i32, i32)) {
    for u in &v.units {
        let (x, y) = pos(u.at);
        // A general shares its area with a unit: the unit a little up,
        // the general under it, neither covering the other's label.
        let dy = stack_dy(v, u);
        let k = kind_of(r, u);
        let (fx, fy) = (-10, dy);
        let colour = side_colour(v, &u.side);
        // Placed by a translate, drawn about its area's centre: the picture
        // draws a unit of one side, kind and strength once, wherever it
        // stands (crates/picture, `sprite`).
        let _ = write!(
            o,
            "<g class=\"unit\" data-area=\"{}\" data-side=\"{}\" data-kind=\"{}\" transform=\"translate({x} {y})\"><use href=\"#f\" x=\"{fx}\" y=\"{fy}\" fill=\"{colour}\"/><use href=\"#k-{}\" x=\"{fx}\" y=\"{fy}\"/><text class=\"u\" x=\"-1\" y=\"{}\">{}{}</text>",
            u.at,
            esc(&u.side),
            k.id(),
            k.id(),
            1 + dy,
            esc(&u.letter),
            u.strength
        );
        // The strength at a glance (issue 53): a pip a step, the lost ones
        // hollow, under the letter and strength at the frame's right.
        symbols::pips(o, 15.0, f64::from(3 + dy), u.strength, u.max, colour);
        o.push_str("</g>");
    }
}

/// Last turn's moves (black), retreats (orange, dashed) and fire (red,
/// dashed, the hits beside the arrowhead), each with an arrowhead.
fn arrows(o: &mut String, v: &View, pos: &dyn Fn(Area) -> (i32, i32), clear: &mut Clear) {
    let line = |o: &mut String,
                clear: &mut Clear,
                class: &str,
                a: Area,
                b: Area,
                style: &str,
                joined: bool| {
        let ((x1, y1), (x2, y2)) = (pos(a), pos(b));
        let (p, q) = (
            (f64::from(x1), f64::from(y1)),
            (f64::from(x2), f64::from(y2)),
        );
        // A headed arrow runs where its head and shaft are clear of the
        // units and its head of the areas' names (issue 53); a leg
        // without a head, centre to centre.
        let (s, e) = if style.contains("marker-end") {
            clear.route(p, q)
        } else {
            (p, q)
        };
        // A leg continuing a path joins the routed arrow.
        if joined && s != p {
            let _ = write!(
                o,
                "<line class=\"{class}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{:.0}\" y2=\"{:.0}\" stroke=\"#111\" stroke-width=\"2\"/>",
                s.0,
                s.1
            );
        }
        let _ = write!(
            o,
            "<line class=\"{class}\" x1=\"{:.0}\" y1=\"{:.0}\" x2=\"{:.0}\" y2=\"{:.0}\" {style}/>",
            s.0, s.1, e.0, e.1
        );
        (s, e)
    };
    for (i, e) in v.last.iter().enumerate() {
        match e {
            Event::Move { path, .. } => {
                let p: Vec<Area> = path.iter().filter_map(|s| Area::parse(s)).collect();
                for (k, pair) in p.windows(2).enumerate() {
                    let head = if k + 2 == p.len() {
                        "marker-end=\"url(#mv)\""
                    } else {
                        ""
                    };
                    line(
                        o,
                        clear,
                        "move",
                        pair[0],
                        pair[1],
                        &format!("stroke=\"#111\" stroke-width=\"2\" {head}"),
                        k > 0,
                    );
                }
            }
            Event::Retreat { from, to, .. } => {
                if let (Some(a), Some(b)) = (Area::parse(from), Area::parse(to)) {
                    line(o, clear, "retreat", a, b, "stroke=\"#e07b00\" stroke-width=\"2\" stroke-dasharray=\"5,3\" marker-end=\"url(#rt)\"", false);
                }
            }
            Event::Fire { from, at, .. } => {
                let (Some(a), Some(b)) = (Area::parse(from), Area::parse(at)) else {
                    continue;
                };
                let hits: u32 = v.last[i + 1..]
                    .iter()
                    .take_while(|x| !matches!(x, Event::Fire { .. }))
                    .map(|x| match x {
                        Event::Loss { at: l, lost, .. } if l == at => *lost,
                        _ => 0,
                    })
                    .sum();
                let (s, e) = line(o, clear, "fire", a, b, "stroke=\"#d00\" stroke-width=\"2\" stroke-dasharray=\"5,3\" marker-end=\"url(#fr)\"", false);
                let text = if hits == 0 {
                    "miss".to_string()
                } else {
                    format!("{hits} hit{}", if hits == 1 { "" } else { "s" })
                };
                let (x, y) = clear.hits_at(s, e, &text);
                // A white halo, so that a grid line under it does not
                // strike it through.
                let _ = write!(
                    o,
                    "<text class=\"hits\" x=\"{x:.0}\" y=\"{y:.0}\" font-size=\"11\" font-weight=\"bold\" fill=\"#d00\" stroke=\"#fff\" stroke-width=\"2.5\" paint-order=\"stroke\">{text}</text>"
                );
            }
            _ => {}
        }
    }
}

/// The legend under the board: each side's colour (the viewer's marked
/// "you"), the arrows, and the terrain colours used.
fn legend(o: &mut String, v: &View, used: &[(&str, &str)], top: i32) {
    let mut x = 20;
    let y = top + 6;
    for s in &v.sides {
        let you = matches!(&v.viewer, Viewer::Side(me) if me == s);
        let name = format!("{}{}", cap(s), if you { " (you)" } else { "" });
        let _ = write!(
            o,
            "<g class=\"legend\"><rect x=\"{x}\" y=\"{y}\" width=\"14\" height=\"12\" rx=\"2\" fill=\"{}\"/><text class=\"l\" x=\"{}\" y=\"{}\">{}</text></g>",
            side_colour(v, s),
            x + 18,
            y + 10,
            esc(&name)
        );
        x += 34 + 8 * name.chars().count() as i32;
    }
    for (label, c) in [
        ("move", "#111"),
        ("retreat", "#e07b00"),
        ("fire, hits", "#d00"),
    ] {
        let _ = write!(
            o,
            "<g class=\"legend\"><line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"2\"/><text class=\"l\" x=\"{}\" y=\"{}\">{label}</text></g>",
            y + 6,
            x + 16,
            y + 6,
            x + 20,
            y + 10
        );
        x += 34 + 8 * label.len() as i32;
    }
    let mut x = 20;
    let y = top + 24;
    for (c, name) in used {
        let _ = write!(
            o,
            "<g class=\"legend\"><rect x=\"{x}\" y=\"{y}\" width=\"14\" height=\"12\" fill=\"{c}\" stroke=\"#555\"/><text class=\"l\" x=\"{}\" y=\"{}\">{name}</text></g>",
            x + 18,
            y + 10
        );
        x += 34 + 8 * name.len() as i32;
    }
}

/// What the legend calls the strength's pips (issue 53).
const STRENGTH: &str = "strength left, lost";

/// Where the legend puts each kind of unit drawn: (kind, x, line), the
/// lines after the legend's two, as many as the picture's width needs;
/// the strength's pips first (no kind).
fn kind_places(kinds: &[Kind], w: i32) -> Vec<(Option<Kind>, i32, i32)> {
    let (mut x, mut line) = (20, 0);
    let mut out = Vec::new();
    for k in std::iter::once(None).chain(kinds.iter().copied().map(Some)) {
        let name = k.map_or(STRENGTH, Kind::name);
        let step = 34 + 8 * name.len() as i32 + if k.is_none() { 8 } else { 0 };
        if x > 20 && x + step > w - 10 {
            (x, line) = (20, line + 1);
        }
        out.push((k, x, line));
        x += step;
    }
    out
}

/// The legend's lines of unit symbols: the strength's pips, then each
/// kind of unit drawn, its symbol (in grey: both sides draw it) and its
/// name.
fn legend_kinds(o: &mut String, places: &[(Option<Kind>, i32, i32)], top: i32) {
    for (k, x, line) in places {
        let y = top + 18 * line;
        let Some(k) = k else {
            let _ = write!(o, "<g class=\"legend\" data-legend=\"strength\">");
            let mut pips = String::new();
            symbols::pips(&mut pips, f64::from(x + 8), f64::from(y + 4), 2, 3, "#666");
            // The legend's sample is not a unit's strength.
            o.push_str(&pips.replacen("class=\"strength\"", "class=\"sample\"", 1));
            let _ = write!(
                o,
                "<text class=\"l\" x=\"{}\" y=\"{}\">{STRENGTH}</text></g>",
                x + 26,
                y + 10
            );
            continue;
        };
        let _ = write!(
            o,
            "<g class=\"legend\" data-legend=\"kind-{id}\"><g transform=\"translate({} {}) scale(0.5)\"><use href=\"#f\" fill=\"#666\"/><use href=\"#k-{id}\"/></g><text class=\"l\" x=\"{}\" y=\"{}\">{}</text></g>",
            x + 7,
            y + 6,
            x + 18,
            y + 10,
            k.name(),
            id = k.id(),
        );
    }
}

/// Every part of a report for `viewer`.
#[must_use]
pub fn parts(r: &Ruleset, st: &State, events: &[Event], viewer: &Viewer) -> Parts {
    parts_drawn(r, st, events, viewer, true)
}

/// [`parts`] without the board picture: no SVG, no HTML board, no compact
/// map (they go only into a mail's HTML part), every other part the same
/// (`Family::report_without_board`).
#[must_use]
pub fn parts_without_board(r: &Ruleset, st: &State, events: &[Event], viewer: &Viewer) -> Parts {
    parts_drawn(r, st, events, viewer, false)
}

/// A report's parts, the board picture drawn only if `board`.
fn parts_drawn(r: &Ruleset, st: &State, events: &[Event], viewer: &Viewer, board: bool) -> Parts {
    let v = view(r, st, viewer, events);
    let lines: Vec<String> = events.iter().filter_map(describe).collect();
    let combat = if lines.is_empty() {
        String::new()
    } else {
        let mut c = String::from("What happened:\n");
        for l in &lines {
            c.push_str(&wrap(&format!("  {l}"), 78, "    "));
        }
        c
    };
    if !board {
        return Parts {
            map: text_map(r, &v),
            combat,
            orders: template(r, st, viewer),
            json: serde_json::to_string_pretty(&v).unwrap_or_default(),
            ..Parts::default()
        };
    }
    let svg = svg(r, &v);
    let board_html = format!(
        "<p style=\"margin:4px 0;font-size:13px\">{}, turn {}. Seen from the {} edge.</p>\n<div style=\"max-width:100%;overflow-x:auto\">\n{svg}</div>\n",
        esc(&v.title),
        v.turn,
        esc(&cap(seat(&v)))
    );
    Parts {
        map: text_map(r, &v),
        compact: compact_map(r, &v),
        combat,
        orders: template(r, st, viewer),
        board_html,
        svg,
        json: serde_json::to_string_pretty(&v).unwrap_or_default(),
    }
}
