//! The board as SVG: hexes coloured by terrain, coordinates, obstacles,
//! objectives, units, section lines, and last turn's moves, retreats and
//! battles drawn over them. Drawn from the recipient's seat, like the text
//! map. Every hex is a `<use data-hex="E5">` of one hex shape inside
//! `<g class="hexes">` (grouped by tile, `<g data-tile="woods">`), every unit
//! a `<g class="unit" data-hex="E5" data-side="allies">` whose `<title>`
//! says its kind and figures. The names of a row of hexes are one `<text>`
//! and the drawing is packed on few lines: a turn report mail stays under
//! 30 KB.

use super::textmap::{obstacle_mark, unit_letter};
use crate::view::{UnitView, View};
use crate::{Event, Hex};
use adjutant_rules::report::symbols::{self, Kind};
use std::fmt::Write;

/// Hex circumradius and half width in SVG units: whole numbers, so that
/// every coordinate is an integer (a hex 26 wide for 30 high differs from a
/// regular one by less than a tenth of a pixel).
const R: i32 = 30;
const HW: i32 = 26;
const MARGIN: i32 = 28;

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
        // Appendix 2, tiles from expansion sets.
        "city-ruins" => ("#8f8a84", "ruins"),
        "factory" => ("#a48a78", "factory"),
        "hill-village" => ("#c2a266", "hill vil."),
        "russian-town" => ("#b88e6a", "rus. town"),
        "wooden-village" => ("#a97c50", "wood vil."),
        "railway-bridge" => ("#7d6e5a", "rail br."),
        "station" => ("#b39b86", "station"),
        "road-rail-crossing" => ("#cbbf98", "rd x rail"),
        "road-over-hill" => ("#c4aa6e", "road hill"),
        "hill-woods" => ("#7a8a45", "hill wds"),
        "ravine" => ("#9b8465", "ravine"),
        "fordable-river" => ("#9cc3e6", "ford"),
        "headwaters" => ("#5b97cf", "headwtr"),
        "frozen-river" => ("#d8ecf5", "frozen"),
        "lake" => ("#2f6eaa", "lake"),
        "winter-woods" => ("#9fb8a5", "w. woods"),
        "flooded-field" => ("#a9cfd6", "flooded"),
        "high-ground" => ("#d6cf9a", "high gr."),
        "marsh" => ("#8fae94", "marsh"),
        "airfield" => ("#c8c8bd", "airfield"),
        "cemetery" => ("#b7c2a8", "cemetery"),
        "dam" => ("#8c9aa8", "dam"),
        "power-plant" => ("#a6a08f", "power"),
        "prison-camp" => ("#a89a8a", "prison"),
        "supply-depot" => ("#b8a882", "depot"),
        "barracks" => ("#b49470", "barracks"),
        "church" => ("#d1b08c", "church"),
        "lighthouse" => ("#d8c7a8", "lighthse"),
        "radar-station" => ("#a3a9b0", "radar"),
        "desert-town" => ("#dcc28f", "town"),
        "oasis" => ("#6fb88a", "oasis"),
        "palm-trees" => ("#9fbf5f", "palms"),
        "wadi" => ("#c9a36b", "wadi"),
        "mountain" => ("#8a7560", "mountain"),
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

fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;"),
    )
}

/// Appends a whole number. The board is hundreds of coordinates, and
/// `write!` costs several times as much for each (issue 10's profile).
fn num(o: &mut String, n: i32) {
    let mut buf = [0u8; 11];
    let mut i = buf.len();
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    o.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// Appends a hex's name (`E5`), as its `Display` writes it.
fn hex_name(o: &mut String, h: Hex) {
    let l = h.letter();
    o.push(if (0..26).contains(&l) {
        (b'A' + l as u8) as char
    } else {
        '?'
    });
    num(o, h.row + 1);
}

struct Geo {
    max_col: i32,
    rows: i32,
    flipped: bool,
}

impl Geo {
    fn centre(&self, h: Hex) -> (i32, i32) {
        let (c, r) = if self.flipped {
            (self.max_col - h.col, h.row)
        } else {
            (h.col, self.rows - 1 - h.row)
        };
        (MARGIN + HW * (c + 1), MARGIN + R + 3 * R / 2 * r)
    }
    fn size(&self) -> (i32, i32) {
        (
            2 * MARGIN + HW * (self.max_col + 2),
            2 * MARGIN + 2 * R + 3 * R / 2 * (self.rows - 1),
        )
    }
}

/// The board as a standalone SVG document. Shapes are defined once and
/// reused, and every style an element shares with its neighbours sits on
/// the group that holds them, so the picture costs few bytes per hex.
#[must_use]
pub fn board(v: &View) -> String {
    let g = Geo {
        max_col: 2 * (v.board.columns - 1),
        rows: v.board.rows,
        flipped: v.flipped(),
    };
    let (w, board_h) = g.size();
    let legend = legend_items(v);
    let item_w = legend_item_width(&legend);
    let per_row = ((w - 2 * MARGIN) / item_w).max(1) as usize;
    let legend_rows = legend.len().div_ceil(per_row) as i32;
    let h = board_h + LEGEND_LINE * legend_rows + if legend_rows > 0 { 8 } else { 0 };
    let mut o = String::new();
    head(&mut o, v, w, h);
    // Hexes, one group per kind of tile: <use data-hex="E5"> each.
    let hexes: Vec<(Hex, &str)> = v
        .all_hexes()
        .into_iter()
        .map(|hx| (hx, v.hex(hx).map_or("open", |t| t.tile.as_str())))
        .collect();
    // The static layer (docs/performance.md): the same on every turn of a
    // scenario seen from one side, drawn once and kept by the picture.
    o.push_str("<g class=\"static\">\n");
    hex_tiles(&mut o, &g, &hexes);
    hex_names(&mut o, &g, &hexes);
    tile_labels(&mut o, &g, &hexes);
    o.push_str("</g>\n");
    obstacles(&mut o, v, &g, &hexes);
    minefields(&mut o, v, &g);
    markers(&mut o, v, &g);
    // Section lines.
    for l in v.board.section_lines {
        let (x, _) = g.centre(Hex::new(l, 1));
        let _ = writeln!(
            o,
            r##"<line class="section" x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#444" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            MARGIN - 6,
            board_h - MARGIN + 6
        );
    }
    coordinates(&mut o, v, &g);
    objectives(&mut o, v, &g);
    last_turn(&mut o, v, &g);
    units(&mut o, v, &g);
    legend_group(&mut o, &legend, (per_row, item_w), board_h);
    o.push_str("</svg>\n");
    pack(&o)
}

/// The `<svg>` element, the shapes, the background and the weather line.
fn head(o: &mut String, v: &View, w: i32, h: i32) {
    let _ = writeln!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" role="img" aria-label="{}, turn {}, seen from the {} edge">"##,
        esc(&v.title),
        v.turn,
        esc(&crate::render::side_name(v.bottom_side()))
    );
    let _ = write!(
        o,
        r##"<defs><polygon id="h" points="0,-{R} {HW},-{r2} {HW},{r2} 0,{R} -{HW},{r2} -{HW},-{r2}"/><rect id="u" x="-14" y="-9" width="28" height="18" rx="3" stroke="#111" stroke-width="1" paint-order="normal"/><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker><marker id="arrow-red" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c00"/></marker><marker id="arrow-orange" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{RETREAT}"/></marker>"##,
        r2 = R / 2
    );
    o.push_str(&symbols::defs(&kinds(v)));
    o.push_str("</defs>\n");
    let _ = writeln!(o, r##"<rect width="{w}" height="{h}" fill="#f6f3ea"/>"##);
    // Night & Severe Weather: the conditions, in the top margin.
    if let Some(wx) = &v.weather {
        let _ = writeln!(
            o,
            r##"<text class="weather" x="6" y="11" font-size="10" fill="#223">{}</text>"##,
            esc(wx
                .split(" (")
                .next()
                .unwrap_or_default()
                .trim_end_matches('.'))
        );
    }
}

/// The hexes, one group per kind of tile: `<use data-hex="E5">` each.
fn hex_tiles(o: &mut String, g: &Geo, hexes: &[(Hex, &str)]) {
    let mut tiles: Vec<&str> = hexes.iter().map(|(_, t)| *t).collect();
    tiles.sort_unstable();
    tiles.dedup();
    // The grid's edges drawn crisp, 2 pixels wide at the PNG's 1.5 pixels
    // a unit: as heavy as the anti-aliased 1-unit edge looked, and 4.4 KB
    // less PNG for a busy turn of Pegasus Bridge (10%: its report mail was
    // 80.7 of the 80 KB allowed, issue 53).
    o.push_str("<g class=\"hexes\" stroke=\"#6b6b5a\" stroke-width=\"1.333\" shape-rendering=\"crispEdges\">\n");
    for tile in &tiles {
        let (fill, _) = tile_style(tile);
        let _ = writeln!(o, r##"<g data-tile="{tile}" fill="{fill}">"##);
        for (hx, _) in hexes.iter().filter(|(_, t)| t == tile) {
            let (x, y) = g.centre(*hx);
            o.push_str(r##"<use href="#h" x=""##);
            num(o, x);
            o.push_str("\" y=\"");
            num(o, y);
            o.push_str("\" data-hex=\"");
            hex_name(o, *hx);
            o.push_str("\"/>\n");
        }
        o.push_str("</g>\n");
    }
    o.push_str("</g>\n");
}

/// Each hex's name at its top. The names of a row are one `<text>`: each
/// character placed on its own (SVG's list of x), centred where the
/// centred name put it.
fn hex_names(o: &mut String, g: &Geo, hexes: &[(Hex, &str)]) {
    o.push_str("<g class=\"names\" font-size=\"8\" text-anchor=\"middle\" fill=\"#333\">\n");
    let mut rows: Vec<(i32, Vec<(i32, Hex)>)> = Vec::new();
    for (hx, _) in hexes {
        let (x, y) = g.centre(*hx);
        let y = y - R + 10;
        match rows.iter_mut().find(|(ry, _)| *ry == y) {
            Some((_, names)) => names.push((x, *hx)),
            None => rows.push((y, vec![(x, *hx)])),
        }
    }
    for (y, names) in &rows {
        o.push_str("<text y=\"");
        num(o, *y);
        o.push_str("\" x=\"");
        let text = name_row(o, names);
        o.push_str("\">");
        o.push_str(&esc(&text));
        o.push_str("</text>\n");
    }
    o.push_str("</g>\n");
}

/// The tile's name at the foot of each hex.
fn tile_labels(o: &mut String, g: &Geo, hexes: &[(Hex, &str)]) {
    o.push_str("<g class=\"tiles\" font-size=\"7\" text-anchor=\"middle\" fill=\"#222\" font-style=\"italic\">\n");
    for (hx, tile) in hexes {
        let (_, label) = tile_style(tile);
        if !label.is_empty() {
            let (x, y) = g.centre(*hx);
            o.push_str("<text x=\"");
            num(o, x);
            o.push_str("\" y=\"");
            num(o, y + R - 5);
            o.push_str("\">");
            o.push_str(label);
            o.push_str("</text>\n");
        }
    }
    o.push_str("</g>\n");
}

/// The obstacles of each hex, one mark a line at its left.
fn obstacles(o: &mut String, v: &View, g: &Geo, hexes: &[(Hex, &str)]) {
    o.push_str("<g class=\"obstacles\" font-size=\"9\" font-weight=\"bold\" fill=\"#5a2d0c\">\n");
    for (hx, _) in hexes {
        let Some(t) = v.hex(*hx) else { continue };
        let (x, y) = g.centre(*hx);
        for (i, ob) in (0i32..).zip(t.obstacles.iter()) {
            let _ = writeln!(
                o,
                r##"<text class="obstacle" x="{}" y="{}">{}<title>{ob}</title></text>"##,
                x - HW + 3,
                y + 3 + 9 * i,
                obstacle_mark(ob)
            );
        }
    }
    o.push_str("</g>\n");
}

/// Appendix 1, Minefields: a mine mark, with the strength once revealed
/// (the referee's board shows every strength).
fn minefields(o: &mut String, v: &View, g: &Geo) {
    if v.minefields.is_empty() {
        return;
    }
    o.push_str("<g class=\"minefields\" font-size=\"9\" font-weight=\"bold\" fill=\"#8b0000\">\n");
    for m in &v.minefields {
        let (x, y) = g.centre(m.at);
        let label = match m.strength {
            Some(n) => format!("M{n}"),
            None => "M?".into(),
        };
        let _ = writeln!(
            o,
            r##"<text class="minefield" data-hex="{}" x="{}" y="{}">{label}<title>minefield of {}{}</title></text>"##,
            m.at,
            x + HW - 16,
            y + 10,
            esc(&m.side),
            if m.revealed { ", revealed" } else { "" }
        );
    }
    o.push_str("</g>\n");
}

/// Battle Star markers, charges on rigged bridges, hits on a bridge: a
/// star at the hex's lower left, its meaning in the title (and the legend).
fn markers(o: &mut String, v: &View, g: &Geo) {
    if v.markers.is_empty() {
        return;
    }
    o.push_str(
        "<g class=\"markers\" font-size=\"15\" fill=\"#d4a017\" stroke=\"#5a2d0c\" stroke-width=\"0.6\">\n",
    );
    for m in &v.markers {
        let (x, y) = g.centre(m.at);
        let _ = writeln!(
            o,
            r##"<text class="marker" data-hex="{}" data-marker="{}" x="{}" y="{}">{MARKER_STAR}<title>{}</title></text>"##,
            m.at,
            esc(&m.kind),
            x - HW + 4,
            y + 16,
            esc(&m.describe())
        );
    }
    o.push_str("</g>\n");
}

/// Coordinates on the edges: row numbers left and right.
fn coordinates(o: &mut String, v: &View, g: &Geo) {
    o.push_str("<g class=\"coords\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">\n");
    for r in 0..v.board.rows {
        let (x0, y) = g.centre(Hex::new(if g.flipped { g.max_col } else { 0 }, r));
        let (x1, _) = g.centre(Hex::new(if g.flipped { 0 } else { g.max_col }, r));
        let (xa, xb) = (x0.min(x1), x0.max(x1));
        for x in [xa - HW - 10, xb + HW + 10] {
            let _ = writeln!(o, r##"<text x="{x}" y="{}">{}</text>"##, y + 4, r + 1);
        }
    }
    o.push_str("</g>\n");
}

/// Objectives: a ring at the hex's upper right, filled by its holder.
fn objectives(o: &mut String, v: &View, g: &Geo) {
    for ob in &v.objectives {
        let (x, y) = g.centre(ob.at);
        let fill = if ob.held {
            side_colour(v, &ob.side)
        } else {
            "#ffffff"
        };
        let _ = writeln!(
            o,
            r##"<circle class="objective" data-hex="{}" cx="{}" cy="{}" r="6" fill="{fill}" stroke="#d4a017" stroke-width="2.5"><title>objective of {}{}</title></circle>"##,
            ob.at,
            x + HW - 9,
            y - 6,
            esc(&ob.side),
            if ob.held { ", held" } else { "" }
        );
    }
}

/// Last turn: moves, retreats, battles.
fn last_turn(o: &mut String, v: &View, g: &Geo) {
    o.push_str(
        "<g class=\"last-turn\" stroke-width=\"3\" stroke-opacity=\"0.75\" fill=\"none\">\n",
    );
    // Where the battles' hits are written so far.
    let mut placed: Vec<(i32, i32)> = Vec::new();
    for e in &v.last_turn {
        match e {
            Event::Move { path, .. } | Event::Retreat { path, .. } if path.len() > 1 => {
                let retreat = matches!(e, Event::Retreat { .. });
                let mut at: Vec<(i32, i32)> = path.iter().map(|hx| g.centre(*hx)).collect();
                let n = at.len();
                at[n - 1] = short_of_unit(at[n - 2], at[n - 1]);
                // Placed by a translate from its first point: the picture
                // draws an arrow of one shape once, wherever it lies.
                let (x0, y0) = at[0];
                let pts: Vec<String> = at
                    .iter()
                    .map(|(x, y)| format!("{},{}", x - x0, y - y0))
                    .collect();
                let _ = writeln!(
                    o,
                    r##"<polyline class="{}" transform="translate({x0} {y0})" points="{}" stroke="{}" marker-end="url(#{})"{}/>"##,
                    if retreat { "retreat" } else { "move" },
                    pts.join(" "),
                    if retreat { RETREAT } else { "#222" },
                    // A retreat's head is orange as its dashes (it was the
                    // moves' black, issue 53).
                    if retreat { "arrow-orange" } else { "arrow" },
                    if retreat {
                        r#" stroke-dasharray="5 3""#
                    } else {
                        ""
                    }
                );
            }
            Event::TakeGround { from, to, .. } | Event::Overrun { from, to, .. } => {
                let (x1, y1) = g.centre(*from);
                let (x2, y2) = short_of_unit((x1, y1), g.centre(*to));
                let _ = writeln!(
                    o,
                    r##"<line class="move" transform="translate({x1} {y1})" x1="0" y1="0" x2="{}" y2="{}" stroke="#222" marker-end="url(#arrow)"/>"##,
                    x2 - x1,
                    y2 - y1
                );
            }
            Event::Battle {
                from: Some(f),
                at,
                hits,
                ..
            } => {
                let (x1, y1) = g.centre(*f);
                let (x2, y2) = short_of_unit((x1, y1), g.centre(*at));
                let _ = writeln!(
                    o,
                    r##"<line class="battle" transform="translate({x1} {y1})" x1="0" y1="0" x2="{}" y2="{}" stroke="#c00" stroke-width="2.5" stroke-opacity="1" stroke-dasharray="4 3" marker-end="url(#arrow-red)"/>"##,
                    x2 - x1,
                    y2 - y1
                );
                let (hx, hy) = hits_at(g.centre(*f), g.centre(*at), &placed);
                placed.push((hx, hy));
                let _ = writeln!(
                    o,
                    r##"<text class="hits" transform="translate({hx} {hy})" x="0" y="0" font-size="11" font-weight="bold" fill="#c00" stroke="#fff" stroke-width="3" stroke-opacity="1" paint-order="stroke" text-anchor="middle">{hits}</text>"##
                );
            }
            _ => {}
        }
    }
    o.push_str("</g>\n");
}

/// Where a battle's hits are written (the text's anchor and baseline):
/// beside the shaft just behind the head, half a hex short of the target's
/// centre (between two neighbouring hexes' units, where the head lies),
/// 12 units off the line on its upper side (clear of the head, 15 units
/// wide), on a white halo. They were written 6 units right of the middle
/// of the drawn shaft, which between neighbouring hexes is mostly under
/// the firer's unit: the count was hidden and the arrow read as a stub
/// (issue 53, seen in Pegasus Bridge's reports). Where an earlier
/// battle's hits are written there (two units battling one target from
/// one direction), the other side of the shaft, then a hex further back.
fn hits_at(from: (i32, i32), to: (i32, i32), placed: &[(i32, i32)]) -> (i32, i32) {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // The normal that points up (or right, for an upright line).
    let (mut nx, mut ny) = (-dy / len, dx / len);
    if ny > 0.0 || (ny == 0.0 && nx < 0.0) {
        (nx, ny) = (-nx, -ny);
    }
    let at = |back: f64, side: f64| {
        let back = back.min(len / 2.0);
        // The digits' box is about 7 by 8 units above the baseline: its
        // centre 12 units off the line.
        (
            (f64::from(to.0) - dx / len * back + 12.0 * side * nx).round() as i32,
            (f64::from(to.1) - dy / len * back + 12.0 * side * ny + 4.0).round() as i32,
        )
    };
    let clear = |(x, y): (i32, i32)| {
        placed
            .iter()
            .all(|p| (p.0 - x).abs() >= 12 || (p.1 - y).abs() >= 12)
    };
    let hex = f64::from(2 * HW);
    [0.0, 1.0, 2.0]
        .into_iter()
        .filter(|k| *k == 0.0 || f64::from(HW) + hex * k < len - f64::from(HW))
        .flat_map(|k| {
            [
                at(f64::from(HW) + hex * k, 1.0),
                at(f64::from(HW) + hex * k, -1.0),
            ]
        })
        .find(|p| clear(*p))
        .unwrap_or_else(|| at(f64::from(HW), 1.0))
}

/// The end of an arrow from `from` to the hex centred at `to`, pulled back
/// to the edge of the unit's whole box there (its frame, its pips and its
/// letter and figures under them, taken as one: [`UNIT_BOX`]) and a gap
/// beyond it: an arrowhead drawn at the centre hid under the unit, and one
/// stopped at the frame's edge lay on the `I4` under it when it came from
/// below (issue 53). The shaft keeps a few pixels where the hexes are
/// close.
fn short_of_unit(from: (i32, i32), to: (i32, i32)) -> (i32, i32) {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1.0 {
        return to;
    }
    let (ux, uy) = (dx / len, dy / len);
    let (left, top, right, bottom) = UNIT_BOX;
    // From the hex's centre back along the arrow, where it leaves the box
    // and the gap round it: through the side it came in by.
    let side_x = if ux > 0.0 { -left } else { right } + ARROW_GAP;
    let side_y = if uy > 0.0 { -top } else { bottom } + ARROW_GAP;
    let t_x = if ux.abs() > 1e-9 {
        side_x / ux.abs()
    } else {
        f64::MAX
    };
    let t_y = if uy.abs() > 1e-9 {
        side_y / uy.abs()
    } else {
        f64::MAX
    };
    let back = t_x.min(t_y).min(len - 6.0).max(0.0);
    (
        (f64::from(to.0) - ux * back).round() as i32,
        (f64::from(to.1) - uy * back).round() as i32,
    )
}

/// A unit's whole box about its hex's centre, (left, top, right, bottom):
/// the frame (`#u`, 28 x 18, [`UNIT_UP`] above the centre), the pips under
/// it and the letter and figures (10-unit bold with a white halo, baseline
/// [`LABEL_DOWN`] under the centre), with half a pixel for the strokes.
const UNIT_BOX: (f64, f64, f64, f64) = (-15.0, -16.0, 15.0, 20.0);

/// How far beyond a unit's box an arrow's end stops: its head's point
/// reaches 3.6 units past the end (the marker's `refX`, scaled by the
/// stroke), and a pixel more.
const ARROW_GAP: f64 = 5.0;

/// The kind of symbol a unit is drawn with: its class's, but for the
/// infantry-class units the book shows on horseback or behind a weapon
/// (cavalry, machine guns, mortars) and reconnaissance (armoured cars).
fn kind_of(u: &UnitView) -> Kind {
    match u.kind.as_str() {
        "cavalry" => Kind::Cavalry,
        "machine-gun" => Kind::MachineGun,
        "mortar" => Kind::Mortar,
        "reconnaissance" => Kind::ArmouredCar,
        _ => Kind::of_class(&u.class),
    }
}

/// The kinds of the units drawn, each once, in the legend's order.
fn kinds(v: &View) -> Vec<Kind> {
    symbols::shown(v.units.iter().map(kind_of))
}

/// Units: the frame in the side's colour holding the mark of its kind
/// (`adjutant_rules::report::symbols`), the letter and figures under it;
/// then the trains' wagons.
fn units(o: &mut String, v: &View, g: &Geo) {
    o.push_str("<g class=\"units\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111\" stroke=\"#fff\" stroke-width=\"2.5\" paint-order=\"stroke\">\n");
    for u in &v.units {
        let (x, y) = g.centre(u.at);
        let colour = side_colour(v, &u.side);
        let (side, kind) = (esc(&u.side), esc(&u.kind));
        let k = kind_of(u);
        o.push_str("<g class=\"unit\" data-hex=\"");
        hex_name(o, u.at);
        o.push_str("\" data-side=\"");
        o.push_str(&side);
        o.push_str("\" data-kind=\"");
        o.push_str(k.id());
        // Placed by a translate, drawn about its hex's centre: the picture
        // draws a unit of one side, kind and strength once, wherever it
        // stands (crates/picture, `sprite`).
        o.push_str("\" transform=\"translate(");
        num(o, x);
        o.push(' ');
        num(o, y);
        o.push_str(")\"><title>");
        o.push_str(&side);
        o.push(' ');
        o.push_str(&kind);
        o.push_str(" (");
        let _ = write!(o, "{}", u.figures);
        o.push_str(" figures) at ");
        hex_name(o, u.at);
        o.push_str("</title>");
        symbol(o, k, 0, -UNIT_UP, colour, "");
        o.push_str("<text x=\"0\" y=\"");
        num(o, LABEL_DOWN);
        o.push_str("\">");
        o.push(unit_letter(u));
        let _ = write!(o, "{}", u.figures);
        o.push_str("</text>");
        // The strength at a glance (issue 53): a pip a figure under the
        // frame, the lost ones hollow.
        symbols::pips(o, 0.0, f64::from(-UNIT_UP + 11), u.figures, u.start, colour);
        o.push_str("</g>\n");
    }
    wagons(o, v, g);
    o.push_str("</g>\n");
}

/// How far above the hex's centre a unit's frame sits: its pips, then its
/// letter and figures, go under it, clear of the terrain's name.
const UNIT_UP: i32 = 6;

/// The baseline of a unit's letter and figures under the hex's centre.
const LABEL_DOWN: i32 = 18;

/// A unit's symbol centred at (x, y): the frame (`#u`) in the side's
/// colour and its kind's mark over it.
fn symbol(o: &mut String, k: Kind, x: i32, y: i32, colour: &str, extra: &str) {
    for href in ["u", "k-"] {
        o.push_str("<use href=\"#");
        o.push_str(href);
        if href == "k-" {
            o.push_str(k.id());
        }
        o.push_str("\" x=\"");
        num(o, x);
        o.push_str("\" y=\"");
        num(o, y);
        if href == "u" {
            o.push_str("\" fill=\"");
            o.push_str(colour);
            o.push('"');
            o.push_str(extra);
            o.push_str("/>");
        } else {
            o.push_str("\"/>");
        }
    }
}

/// Appendix 2, Trains: a wagon is its train's symbol, paler, marked `=`.
fn wagons(o: &mut String, v: &View, g: &Geo) {
    for u in &v.units {
        let Some(t) = &u.train else { continue };
        let Some(w) = t.wagon else { continue };
        let (x, y) = g.centre(w);
        let mut what = String::new();
        if t.gun {
            what.push_str(", with its artillery model");
        }
        if !t.carries.is_empty() {
            what.push_str(&format!(", carrying {}", t.carries.join(", ")));
        }
        let _ = write!(
            o,
            r##"<g class="wagon" data-hex="{w}" data-side="{side}" data-kind="{}" transform="translate({x} {y})"><title>wagon of the {side} {kind} at {at}{}</title>"##,
            kind_of(u).id(),
            esc(&what),
            at = u.at,
            side = esc(&u.side),
            kind = esc(&u.kind),
        );
        symbol(
            o,
            kind_of(u),
            0,
            -UNIT_UP,
            side_colour(v, &u.side),
            " fill-opacity=\"0.6\"",
        );
        let _ = writeln!(
            o,
            r##"<text x="0" y="{LABEL_DOWN}">{}=</text></g>"##,
            unit_letter(u)
        );
    }
}

/// The legend: every tile and obstacle on this board, under it.
fn legend_group(
    o: &mut String,
    legend: &[LegendItem],
    (per_row, item_w): (usize, i32),
    board_h: i32,
) {
    if legend.is_empty() {
        return;
    }
    o.push_str("<g class=\"legend\" font-size=\"10\" fill=\"#222\" stroke=\"#6b6b5a\">\n");
    for (i, item) in legend.iter().enumerate() {
        let x = MARGIN + item_w * (i % per_row) as i32;
        let y = board_h + LEGEND_LINE * (i / per_row) as i32;
        let name = esc(&item.name);
        if let Some(sample) = item.sample {
            legend_sample(o, &item.id, sample, x, y, &name);
            continue;
        }
        if let Some(k) = item.kind {
            let _ = writeln!(
                o,
                r##"<g data-legend="{id}"><g transform="translate({} {}) scale(0.5)"><use href="#u" fill="#666"/><use href="#k-{}"/></g><text x="{}" y="{y}" stroke="none">{name}</text></g>"##,
                x + 7,
                y - 4,
                k.id(),
                x + 18,
                id = item.id,
            );
            continue;
        }
        match item.mark {
            None => {
                let _ = writeln!(
                    o,
                    r##"<g data-legend="{id}"><rect x="{x}" y="{}" width="14" height="10" fill="{fill}"/><text x="{}" y="{y}" stroke="none">{name}</text></g>"##,
                    y - 9,
                    x + 18,
                    id = item.id,
                    fill = item.fill,
                );
            }
            Some(m) => {
                let _ = writeln!(
                    o,
                    r##"<g data-legend="{id}"><text x="{}" y="{y}" stroke="none" font-weight="bold" fill="#5a2d0c">{m}</text><text x="{}" y="{y}" stroke="none">{name}</text></g>"##,
                    x + 3,
                    x + 18,
                    id = item.id,
                );
            }
        }
    }
    o.push_str("</g>\n");
}

/// A legend entry drawn as what it explains: an arrow of last turn, or a
/// unit's pips.
#[derive(Clone, Copy)]
enum Sample {
    /// An arrow: its colour, its marker, dashed or not.
    Arrow(&'static str, &'static str, bool),
    /// Three pips, the last hollow.
    Strength,
}

/// One legend entry drawn with its sample at (x, y), its name beside it.
fn legend_sample(o: &mut String, id: &str, sample: Sample, x: i32, y: i32, name: &str) {
    let _ = write!(o, r##"<g data-legend="{id}">"##);
    match sample {
        Sample::Arrow(colour, marker, dashed) => {
            let _ = write!(
                o,
                r##"<line x1="{x}" y1="{}" x2="{}" y2="{}" stroke="{colour}" stroke-width="2.5"{} marker-end="url(#{marker})"/>"##,
                y - 4,
                x + 14,
                y - 4,
                if dashed {
                    r#" stroke-dasharray="4 2""#
                } else {
                    ""
                }
            );
        }
        Sample::Strength => {
            let mut pips = String::new();
            symbols::pips(&mut pips, f64::from(x + 7), f64::from(y - 6), 2, 3, "#666");
            // The legend's sample is not a unit's strength.
            o.push_str(&pips.replacen("class=\"strength\"", "class=\"sample\"", 1));
        }
    }
    let _ = writeln!(
        o,
        r##"<text x="{}" y="{y}" stroke="none">{name}</text></g>"##,
        x + 18
    );
}

/// The colour of a retreat's arrow, its dashes and its head.
const RETREAT: &str = "#e08a00";

/// The mark of a Battle Star marker on the board.
const MARKER_STAR: char = '\u{2605}';

/// The narrowest legend entry and the height of a legend line, in SVG units.
const LEGEND_ITEM: i32 = 96;

/// The width of the legend's entries: room for the longest name (about
/// 6 units a character at 10), at least [`LEGEND_ITEM`]. Entries 150 wide
/// put Pegasus Bridge's twelve on three rows, and its busy-turn mail over
/// 80 KB with the strength's pips (issue 53); at 96 (room for "figures
/// left") its fourteen with the sides' colours are seven to a row, on two.
fn legend_item_width(legend: &[LegendItem]) -> i32 {
    legend
        .iter()
        .map(|i| 24 + 6 * i.name.chars().count() as i32)
        .max()
        .unwrap_or(0)
        .max(LEGEND_ITEM)
}
const LEGEND_LINE: i32 = 16;

/// One entry of the board's legend: a tile (its colour) or an obstacle
/// (its mark).
struct LegendItem {
    id: String,
    name: String,
    fill: &'static str,
    mark: Option<char>,
    /// A kind of unit: its symbol (in grey: both sides draw it).
    kind: Option<Kind>,
    /// An arrow or the strength: drawn as on the board.
    sample: Option<Sample>,
}

/// The tiles, then the obstacles, found on the board, each once, in the
/// order of their ids.
fn legend_items(v: &View) -> Vec<LegendItem> {
    let mut tiles: Vec<String> = Vec::new();
    let mut obstacles: Vec<String> = Vec::new();
    for hx in v.all_hexes() {
        let Some(t) = v.hex(hx) else { continue };
        if t.tile != "open" && !tiles.contains(&t.tile) {
            tiles.push(t.tile.clone());
        }
        for ob in &t.obstacles {
            if !obstacles.contains(ob) {
                obstacles.push(ob.clone());
            }
        }
    }
    tiles.sort();
    obstacles.sort();
    // The sides' colours first (issue 53: the legend had none).
    let mut out: Vec<LegendItem> = v
        .sides
        .iter()
        .map(|s| LegendItem {
            id: format!("side-{}", s.id),
            name: crate::render::side_name(&s.id),
            fill: side_colour(v, &s.id),
            mark: None,
            kind: None,
            sample: None,
        })
        .collect();
    out.extend(tiles.into_iter().map(|id| LegendItem {
        name: id.replace('-', " "),
        fill: tile_style(&id).0,
        mark: None,
        kind: None,
        sample: None,
        id,
    }));
    out.extend(obstacles.into_iter().map(|id| LegendItem {
        name: id.replace('-', " "),
        fill: "",
        mark: Some(obstacle_mark(&id)),
        kind: None,
        sample: None,
        id,
    }));
    if !v.markers.is_empty() {
        out.push(LegendItem {
            id: "battle-star".into(),
            name: "battle star marker".into(),
            fill: "",
            mark: Some(MARKER_STAR),
            kind: None,
            sample: None,
        });
    }
    // Appendix 2, Trains: the wagon's mark.
    if v.units.iter().any(|u| u.train.is_some()) {
        out.push(LegendItem {
            id: "train-wagon".into(),
            name: "railway wagon".into(),
            fill: "",
            mark: Some('='),
            kind: None,
            sample: None,
        });
    }
    // The unit symbols drawn (issue 53), each named.
    out.extend(kinds(v).into_iter().map(|k| LegendItem {
        id: format!("kind-{}", k.id()),
        name: k.name().into(),
        fill: "",
        mark: None,
        kind: Some(k),
        sample: None,
    }));
    // The strength at a glance and last turn's arrows (issue 53).
    let samples = [
        ("strength", "figures left", Sample::Strength),
        ("arrow-move", "move", Sample::Arrow("#222", "arrow", false)),
        (
            "arrow-retreat",
            "retreat",
            Sample::Arrow(RETREAT, "arrow-orange", true),
        ),
        (
            "arrow-battle",
            "battle, hits",
            Sample::Arrow("#c00", "arrow-red", true),
        ),
    ];
    out.extend(samples.into_iter().map(|(id, name, sample)| LegendItem {
        id: id.into(),
        name: name.into(),
        fill: "",
        mark: None,
        kind: None,
        sample: Some(sample),
    }));
    out
}

/// The advance of a character at the names' size (8), in tenths of a
/// unit: a sans-serif's widths (Helvetica's metrics, which Arial and
/// Liberation Sans share), so that a narrow `I` or `1` does not leave a
/// gap ("I9", not "I 9").
fn name_advance(c: char) -> i32 {
    match c {
        'I' => 22,
        'J' => 40,
        'F' | 'T' | 'Z' => 49,
        'L' | '0'..='9' => 45,
        'C' | 'D' | 'H' | 'N' | 'R' | 'U' => 58,
        'G' | 'O' | 'Q' => 62,
        'M' => 67,
        'W' => 76,
        _ => 53,
    }
}

/// The x of each character's centre of `name` centred at `x`: where it
/// falls in the name set at its own advance ([`name_advance`]).
#[must_use]
pub fn name_centres(name: &str, x: i32) -> Vec<i32> {
    let width: i32 = name.chars().map(name_advance).sum();
    // Tenths of a unit from the name's left edge.
    let mut at = x * 10 - width / 2;
    name.chars()
        .map(|c| {
            let centre = at + name_advance(c) / 2;
            at += name_advance(c);
            (centre + 5).div_euclid(10)
        })
        .collect()
}

/// One row of names, each (centre, hex): appends the x list to `o` and
/// returns the text ([`name_centres`]).
fn name_row(o: &mut String, names: &[(i32, Hex)]) -> String {
    let mut text = String::new();
    let mut name = String::new();
    for (x, hx) in names {
        name.clear();
        hex_name(&mut name, *hx);
        for (c, cx) in name.chars().zip(name_centres(&name, *x)) {
            if !text.is_empty() {
                o.push(' ');
            }
            num(o, cx);
            text.push(c);
        }
    }
    text
}

/// The drawing on few lines (each element stays whole, lines stay far
/// under the 998 octets a mail allows): a line break costs two bytes in a
/// mail, and the board has hundreds of elements.
fn pack(svg: &str) -> String {
    const WIDTH: usize = 900;
    let mut out = String::with_capacity(svg.len());
    let mut line = 0;
    for l in svg.lines() {
        if line > 0 && line + l.len() > WIDTH {
            out.push('\n');
            line = 0;
        }
        out.push_str(l);
        line += l.len();
    }
    out.push('\n');
    out
}
