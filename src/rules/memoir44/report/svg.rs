//! The board as SVG: hexes coloured by terrain, coordinates, obstacles,
//! objectives, units, section lines, and last turn's moves, retreats and
//! battles drawn over them. Drawn from the recipient's seat, like the text
//! map. Every hex is a `<polygon class="hex" data-hex="E5">`, every unit a
//! `<g class="unit" data-hex="E5" data-side="allies">`.

use super::textmap::{obstacle_mark, unit_letter};
use crate::rules::memoir44::view::View;
use crate::rules::memoir44::{Event, Hex};
use std::fmt::Write;

/// Hex circumradius in SVG units.
const R: f64 = 30.0;
const MARGIN: f64 = 28.0;

fn half_width() -> f64 {
    R * 3f64.sqrt() / 2.0
}

/// Fill colour and short label of a tile.
#[must_use]
pub fn tile_style(tile: &str) -> (&'static str, &'static str) {
    match tile {
        "woods" => ("#5d8a4a", "woods"),
        "town" => ("#c9a27a", "town"),
        "hill" => ("#b59b5b", "hill"),
        "river" => ("#6fa8dc", "river"),
        "ocean" => ("#3d78b5", "ocean"),
        "bridge" => ("#9c8a6e", "bridge"),
        "hedgerow" => ("#7f9f5a", "hedge"),
        "beach" => ("#e8d9a0", "beach"),
        "road" => ("#d4caa8", "road"),
        "open" => ("#dfe8c8", ""),
        _ => ("#cccccc", "?"),
    }
}

fn side_colour(v: &View, side: &str) -> &'static str {
    if v.sides.first().is_some_and(|s| s.id == side) {
        "#2b5fa8"
    } else {
        "#a83232"
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

struct Geo {
    max_col: i32,
    rows: i32,
    flipped: bool,
}

impl Geo {
    fn centre(&self, h: Hex) -> (f64, f64) {
        let (c, r) = if self.flipped {
            (self.max_col - h.col, h.row)
        } else {
            (h.col, self.rows - 1 - h.row)
        };
        (
            MARGIN + half_width() * f64::from(c + 1),
            MARGIN + R + 1.5 * R * f64::from(r),
        )
    }
    fn size(&self) -> (f64, f64) {
        (
            2.0 * MARGIN + half_width() * f64::from(self.max_col + 2),
            2.0 * MARGIN + 2.0 * R + 1.5 * R * f64::from(self.rows - 1),
        )
    }
}

fn points(x: f64, y: f64) -> String {
    let hw = half_width();
    let p = [
        (x, y - R),
        (x + hw, y - R / 2.0),
        (x + hw, y + R / 2.0),
        (x, y + R),
        (x - hw, y + R / 2.0),
        (x - hw, y - R / 2.0),
    ];
    p.iter()
        .map(|(a, b)| format!("{a:.1},{b:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The board as a standalone SVG document.
#[must_use]
pub fn board(v: &View) -> String {
    let g = Geo {
        max_col: 2 * (v.board.columns - 1),
        rows: v.board.rows,
        flipped: v.flipped(),
    };
    let (w, h) = g.size();
    let mut o = String::new();
    let _ = writeln!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" font-family="sans-serif" role="img" aria-label="{}">"##,
        esc(&v.title)
    );
    o.push_str(r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker><marker id="arrow-red" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c00"/></marker></defs>
"##);
    let _ = writeln!(
        o,
        r##"<rect width="{w:.0}" height="{h:.0}" fill="#f6f3ea"/>"##
    );
    // Hexes.
    o.push_str("<g class=\"hexes\">\n");
    for hx in v.all_hexes() {
        let (x, y) = g.centre(hx);
        let hv = v.hex(hx);
        let tile = hv.map_or("open", |t| t.tile.as_str());
        let (fill, label) = tile_style(tile);
        let _ = writeln!(
            o,
            r##"<polygon class="hex" data-hex="{hx}" data-tile="{tile}" points="{}" fill="{fill}" stroke="#6b6b5a" stroke-width="1"/>"##,
            points(x, y)
        );
        let _ = writeln!(
            o,
            r##"<text x="{x:.1}" y="{:.1}" font-size="8" text-anchor="middle" fill="#333">{hx}</text>"##,
            y - R + 10.0
        );
        if !label.is_empty() {
            let _ = writeln!(
                o,
                r##"<text x="{x:.1}" y="{:.1}" font-size="7" text-anchor="middle" fill="#222" font-style="italic">{label}</text>"##,
                y + R - 5.0
            );
        }
        if let Some(t) = hv {
            for (i, ob) in t.obstacles.iter().enumerate() {
                let _ = writeln!(
                    o,
                    r##"<text class="obstacle" x="{:.1}" y="{:.1}" font-size="9" font-weight="bold" fill="#5a2d0c">{}<title>{ob}</title></text>"##,
                    x - half_width() + 3.0,
                    y + 3.0 + 9.0 * i as f64,
                    obstacle_mark(ob)
                );
            }
        }
    }
    o.push_str("</g>\n");
    // Section lines.
    for l in v.board.section_lines {
        let (x, _) = g.centre(Hex::new(l, 1));
        let _ = writeln!(
            o,
            r##"<line class="section" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#444" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            MARGIN - 6.0,
            h - MARGIN + 6.0
        );
    }
    // Coordinates on the edges: row numbers left and right.
    for r in 0..v.board.rows {
        let (x0, y) = g.centre(Hex::new(if g.flipped { g.max_col } else { 0 }, r));
        let (x1, _) = g.centre(Hex::new(if g.flipped { 0 } else { g.max_col }, r));
        let (xa, xb) = (x0.min(x1), x0.max(x1));
        for x in [xa - half_width() - 10.0, xb + half_width() + 10.0] {
            let _ = writeln!(
                o,
                r##"<text class="coord" x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#333">{}</text>"##,
                y + 4.0,
                r + 1
            );
        }
    }
    // Objectives.
    for ob in &v.objectives {
        let (x, y) = g.centre(ob.at);
        let fill = if ob.held {
            side_colour(v, &ob.side)
        } else {
            "#ffffff"
        };
        let _ = writeln!(
            o,
            r##"<circle class="objective" data-hex="{}" cx="{:.1}" cy="{:.1}" r="6" fill="{fill}" stroke="#d4a017" stroke-width="2.5"><title>objective of {}{}</title></circle>"##,
            ob.at,
            x + half_width() - 9.0,
            y - 6.0,
            esc(&ob.side),
            if ob.held { ", held" } else { "" }
        );
    }
    // Last turn: moves, retreats, battles.
    o.push_str("<g class=\"last-turn\">\n");
    for e in &v.last_turn {
        match e {
            Event::Move { path, .. } | Event::Retreat { path, .. } if path.len() > 1 => {
                let retreat = matches!(e, Event::Retreat { .. });
                let pts: Vec<String> = path
                    .iter()
                    .map(|hx| {
                        let (x, y) = g.centre(*hx);
                        format!("{x:.1},{y:.1}")
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    r##"<polyline class="{}" points="{}" fill="none" stroke="{}" stroke-width="3" stroke-opacity="0.75" marker-end="url(#arrow)"{}/>"##,
                    if retreat { "retreat" } else { "move" },
                    pts.join(" "),
                    if retreat { "#e08a00" } else { "#222" },
                    if retreat {
                        r#" stroke-dasharray="5 3""#
                    } else {
                        ""
                    }
                );
            }
            Event::TakeGround { from, to, .. } | Event::Overrun { from, to, .. } => {
                let (x1, y1) = g.centre(*from);
                let (x2, y2) = g.centre(*to);
                let _ = writeln!(
                    o,
                    r##"<line class="move" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#222" stroke-width="3" stroke-opacity="0.75" marker-end="url(#arrow)"/>"##
                );
            }
            Event::Battle {
                from: Some(f),
                at,
                hits,
                ..
            } => {
                let (x1, y1) = g.centre(*f);
                let (x2, y2) = g.centre(*at);
                let _ = writeln!(
                    o,
                    r##"<line class="battle" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#c00" stroke-width="2.5" stroke-dasharray="4 3" marker-end="url(#arrow-red)"/>"##
                );
                let _ = writeln!(
                    o,
                    r##"<text class="hits" x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#c00" text-anchor="middle">{hits}</text>"##,
                    (x1 + x2) / 2.0 + 6.0,
                    (y1 + y2) / 2.0 - 4.0
                );
            }
            _ => {}
        }
    }
    o.push_str("</g>\n");
    // Units.
    o.push_str("<g class=\"units\">\n");
    for u in &v.units {
        let (x, y) = g.centre(u.at);
        let colour = side_colour(v, &u.side);
        let letter = unit_letter(u);
        let _ = writeln!(
            o,
            r##"<g class="unit" data-hex="{}" data-side="{}" data-kind="{}" data-figures="{}"><title>{} {} ({} figures) at {}</title><rect x="{:.1}" y="{:.1}" width="28" height="18" rx="3" fill="{colour}" stroke="#111"/><text x="{x:.1}" y="{:.1}" font-size="12" font-weight="bold" text-anchor="middle" fill="#fff">{letter}{}</text></g>"##,
            u.at,
            esc(&u.side),
            esc(&u.kind),
            u.figures,
            esc(&u.side),
            esc(&u.kind),
            u.figures,
            u.at,
            x - 14.0,
            y - 9.0,
            y + 4.5,
            u.figures
        );
    }
    o.push_str("</g>\n</svg>\n");
    o
}
