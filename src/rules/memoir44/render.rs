//! A plain text map with coordinates, for reports.

use super::board::Hex;
use super::ruleset::Ruleset;
use super::state::State;
use super::Viewer;
use std::fmt::Write;

fn terrain_code(id: &str) -> &'static str {
    match id {
        "woods" => "Wd",
        "town" => "Tn",
        "hill" => "Hl",
        "river" => "Rv",
        "bridge" => "Br",
        "hedgerow" => "Hg",
        "ocean" => "Oc",
        "beach" => "Bc",
        "road" => "Rd",
        _ => "??",
    }
}

fn obstacle_mark(id: &str) -> char {
    match id {
        "wire" => 'w',
        "bunker" => 'b',
        "hedgehog" => 'h',
        "sandbag" => 's',
        _ => '*',
    }
}

fn unit_code(r: &Ruleset, kind: &str) -> char {
    match kind {
        "infantry" => 'I',
        "elite-infantry" => 'E',
        "mechanised-infantry" => 'M',
        "militia-infantry" => 'L',
        "sniper" => 'S',
        "resistance" => 'F',
        "cavalry" => 'C',
        "ski-troops" => 'X',
        "medium-armour" => 'A',
        "heavy-armour" => 'H',
        "very-heavy-armour" => 'V',
        "reconnaissance" => 'R',
        "big-gun" => 'B',
        "anti-tank" | "88mm" => 'T',
        _ => match r.units.get(kind).map(|u| u.class.as_str()) {
            Some("armour") => 'K',
            Some("artillery") => 'G',
            _ => 'U',
        },
    }
}

/// The map, units, medals and (for the viewer's own side) the hand.
#[must_use]
pub fn text(r: &Ruleset, s: &State, viewer: &Viewer) -> String {
    let b = State::board(r);
    let mut out = String::new();
    let _ = writeln!(out, "{} (turn {})", s.title, s.turn + 1);
    let header = |odd: bool| {
        let mut h = String::from(if odd { "      " } else { "   " });
        let n = if odd { b.columns - 1 } else { b.columns };
        for l in 0..n {
            let _ = write!(h, "  {}   ", (b'A' + l as u8) as char);
        }
        h
    };
    let _ = writeln!(out, "{}", header(b.rows % 2 == 0));
    for row in (0..b.rows).rev() {
        let odd = row % 2 == 1;
        let mut line = format!("{:>2} ", row + 1);
        if odd {
            line.push_str("   ");
        }
        for l in 0..b.row_len(row) {
            let h = Hex::from_letter(l, row);
            let f = s.features(h);
            let tile = f
                .first()
                .filter(|x| r.feature(x).is_some_and(|t| t.kind == "tile"));
            let code = tile.map_or("..", |t| terrain_code(t));
            let obst: String = f
                .iter()
                .filter(|x| r.feature(x).is_some_and(|t| t.kind == "obstacle"))
                .map(|x| obstacle_mark(x))
                .take(1)
                .collect();
            let unit = match s.unit_at(h) {
                Some(u) => {
                    let c = unit_code(r, &u.kind);
                    let c = if u.side == 0 {
                        c
                    } else {
                        c.to_ascii_lowercase()
                    };
                    format!("{c}{}", u.figures)
                }
                None => "  ".into(),
            };
            let obj = if s.objectives.iter().any(|o| o.at == h) {
                "*"
            } else {
                ""
            };
            let cell = format!(
                "{code}{}{unit}{obj}",
                if obst.is_empty() { " " } else { &obst }
            );
            let _ = write!(line, "{cell:<6}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "{}", header(false));
    let _ = writeln!(
        out,
        "Row 1 is the {} edge; upper-case units are {}, lower-case {}.",
        s.sides[0], s.sides[0], s.sides[1]
    );
    let _ = writeln!(out, "Terrain: Wd woods, Tn town, Hl hill, Rv river, Br bridge, Hg hedgerow, Oc ocean, Bc beach; obstacles w wire, b bunker, h hedgehog, s sandbag; * objective.");
    let _ = writeln!(out, "Units: I infantry, E elite, M mechanised, L militia, S sniper, F resistance, C cavalry, X ski troops, A armour, H heavy, V very heavy, R recon, K other armour, G artillery, B big gun, T anti-tank; the digit is figures.");
    for (i, side) in s.sides.iter().enumerate() {
        let _ = writeln!(
            out,
            "{side}: {} medal(s) of {}; {} card(s) in hand",
            s.medals(i),
            s.victory,
            s.hands[i].len()
        );
    }
    for (i, side) in s.sides.iter().enumerate() {
        let show = match viewer {
            Viewer::Referee => true,
            Viewer::Side(v) => v == side,
            Viewer::Observer => false,
        };
        if show {
            let _ = writeln!(out, "{side} hand: {}", s.hands[i].join(", "));
        }
    }
    let _ = writeln!(
        out,
        "Deck: {} card(s); used pile: {}.",
        s.deck.len(),
        s.discard.len()
    );
    if s.over {
        let w = s.winner.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "Game over: {}.",
            if w.is_empty() {
                "a draw".to_string()
            } else {
                format!("{w} wins")
            }
        );
    } else {
        let _ = writeln!(out, "To move: {}.", s.sides[s.to_move]);
    }
    out
}
