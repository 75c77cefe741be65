//! Reports of a measured game, drawn from a [`View`] for one recipient: the
//! position as text (every unit with its formation, position, facing and
//! strength, and a coarse sketch of the table), the move's report with
//! every measured distance and die, the order template, a to-scale SVG of
//! the table and view.json. The table is open, so a view is the whole
//! position except the enemy's standing orders, which stay sealed until
//! they are carried out ([`sealed`]); the order template differs per side.

use super::engine;
use super::geometry::{fmt_len, PER_INCH};
use super::ruleset::Ruleset;
use super::state::{footprint, Feature, Forced, State, Unit};
use adjutant_rules::report::html::esc;
use adjutant_rules::report::{wrap, Parts};
use adjutant_rules::Viewer;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write;

/// What one recipient sees (docs/report-json.md, measured family).
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
    pub units: Vec<Unit>,
    pub removed: Vec<u32>,
    pub waiting: Vec<String>,
    pub last: Vec<Value>,
    pub over: bool,
    pub winner: Option<String>,
}

#[must_use]
pub fn view(st: &State, viewer: &Viewer, events: &[Value]) -> View {
    View {
        schema: 1,
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
        units: st.units.clone(),
        removed: st.removed.clone(),
        waiting: engine::needs(st)
            .iter()
            .map(|i| st.sides[*i].clone())
            .collect(),
        last: events.to_vec(),
        over: st.over,
        winner: st.winner.clone(),
    }
}

fn at(x: i64, y: i64) -> String {
    format!("({}, {})", fmt_len(x), fmt_len(y))
}

fn status(u: &Unit) -> String {
    let mut s = Vec::new();
    if !u.experience.is_empty() {
        s.push(u.experience.clone());
        if !u.brigade.is_empty() {
            s.push(format!("brigade {}", u.brigade));
        }
        if !u.regiment.is_empty() {
            s.push(format!("regiment {}", u.regiment));
        }
        for x in &u.refused {
            s.push(format!(
                "{} wing refused ({} files {}° {})",
                x.end,
                x.files,
                x.angle.abs(),
                if x.angle < 0 { "back" } else { "forward" }
            ));
        }
        match u.marker.as_deref() {
            Some("red") => s.push("RED marker (reforming)".into()),
            Some("orange") => s.push("ORANGE marker (disordered)".into()),
            _ => {}
        }
    }
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
    if let Some(n) = u.rallying {
        s.push(format!(
            "rallied by its General: fit for action in {n} move{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if !u.standing.is_empty() {
        s.push(format!("standing: {}", u.standing.join(", ")));
    }
    s.join("; ")
}

fn unit_line(r: &Ruleset, st: &State, u: &Unit) -> String {
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

/// A coarse sketch: one character per cell of `cell` sixteenths.
fn sketch(r: &Ruleset, st: &State, cols_max: i64) -> String {
    let cell = ((st.width + cols_max - 1) / cols_max).max(PER_INCH);
    let cols = (st.width + cell - 1) / cell;
    let rows = (st.depth + cell * 2 - 1) / (cell * 2);
    let mut o = String::new();
    let grounds: Vec<_> = st.units.iter().map(|u| footprint(r, u).corners()).collect();
    for row in (0..rows).rev() {
        let mut l = String::new();
        for col in 0..cols {
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
        st.sides[0]
    );
    let _ = writeln!(o, "  . plain  - hill level 1  + level 2  ^ higher  & woods  # building  ~ river  = ford  , swamp  % scenic");
    let _ = writeln!(
        o,
        "  units by letter: {} upper case, {} lower case",
        st.sides[0], st.sides[1]
    );
    o
}

/// The position as text (80 columns).
#[must_use]
pub fn text_map(r: &Ruleset, st: &State, width: i64) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
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
    );
    o.push_str(&sketch(r, st, width));
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

fn js(v: &Value, k: &str) -> String {
    match v.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(x) if !x.is_null() => x.to_string(),
        _ => String::new(),
    }
}

/// One event as a line of text, with its distances and dice.
#[must_use]
pub fn describe(e: &Value) -> Option<String> {
    let k = e.get("kind")?.as_str()?;
    if e.get("syw").is_some() {
        return Some(js(e, "text"));
    }
    Some(match k {
        "move" => format!("Move {}:", js(e, "turn")),
        "moved" => {
            let m: Vec<String> = e.get("measured")?.as_array()?.iter().filter_map(|x| x.as_str().map(str::to_string)).collect();
            format!("{} {}: now in {} facing {}°", js(e, "unit"), m.join(", "), js(e, "formation"), js(e, "facing"))
        }
        "limber" => format!("{} is now {}", js(e, "unit"), js(e, "formation")),
        "blocked" => format!("{} stays where it was: its move would meet {}", js(e, "unit"), js(e, "by")),
        "lapse" => format!("{}: {}", js(e, "unit"), js(e, "why")),
        "retire" => format!("{} {} ({})", js(e, "unit"), js(e, "why"), js(e, "text")),
        "fled" => format!("{} leaves the table ({})", js(e, "unit"), js(e, "why")),
        "note" => js(e, "text"),
        "charge" => {
            let f = e.get("fire_at_chargers").filter(|v| !v.is_null());
            let fire = f.map_or(String::new(), |f| {
                format!(
                    "; firing at chargers: attacker {} defender {}{}",
                    js(f, "attacker"),
                    js(f, "defender"),
                    if f.get("fired").and_then(Value::as_bool) == Some(true) {
                        format!(", the defender fires first and kills {}", js(f, "killed"))
                    } else {
                        ", contact without a volley".into()
                    }
                )
            });
            format!("{} charges {} ({}, strikes its {}){}", js(e, "unit"), js(e, "target"), js(e, "text"), js(e, "face"), fire)
        }
        "volley" => {
            let dice: Vec<String> = e
                .get("dice")?
                .as_array()?
                .iter()
                .map(|d| format!("{}-{}={} hits on group {} of {} {:?}", js(d, "die"), js(e, "deduct"), js(d, "hits"), js(d, "group"), js(d, "size"), d.get("figures").map(ToString::to_string).unwrap_or_default()))
                .collect();
            format!(
                "{} fires at {} ({}{}, {}{}): {} firers, a die per {}: {}; {} killed",
                js(e, "unit"),
                js(e, "target"),
                js(e, "text"),
                if e.get("text").is_some_and(Value::is_null) { "close range" } else { "" },
                if e.get("first").and_then(Value::as_bool) == Some(true) { "first volley" } else { "normal" },
                if e.get("cover").and_then(Value::as_bool) == Some(true) { ", in cover" } else { ", in the open" },
                js(e, "firers"),
                js(e, "per"),
                if dice.is_empty() { "no dice".into() } else { dice.join("; ") },
                js(e, "killed")
            )
        }
        "fires_first" => format!(
            "{} and {} fire at each other: dice {}; {}",
            js(e, "a"),
            js(e, "b"),
            js(e, "dice"),
            match e.get("first").and_then(Value::as_str) {
                Some(f) => format!("{f} fires first"),
                None => "a draw: simultaneous".into(),
            }
        ),
        "skirmish" => format!("{} fires into {} at {}: dice {} (kill on {}); {} killed", js(e, "unit"), js(e, "target"), js(e, "text"), js(e, "dice"), js(e, "kill"), js(e, "killed")),
        "pick_off" => format!("{} picks off officers of {} at {}: dice {} (hit on {}); hit: {}", js(e, "unit"), js(e, "target"), js(e, "text"), js(e, "dice"), js(e, "kill"), js(e, "officers_hit")),
        "officer" => format!(
            "{}'s {} is hit: saving throw {} - {}",
            js(e, "unit"),
            js(e, "rank"),
            js(e, "save"),
            if e.get("saved").and_then(Value::as_bool) == Some(true) { "saved" } else { "killed" }
        ),
        "roundshot" => format!(
            "{} gun {} roundshot at {} ({}; kill on {}): + die {} - die {}, sleeve moved {} ; {} figures under the sleeve, dice {}; killed {}{}{}",
            js(e, "unit"),
            js(e, "gun"),
            js(e, "target"),
            js(e, "text"),
            js(e, "kill"),
            js(e, "plus"),
            js(e, "minus"),
            js(e, "sleeve_text"),
            js(e, "figures"),
            js(e, "dice"),
            js(e, "killed"),
            cb(e),
            house_text(e)
        ),
        "shell" if e.get("misfire").and_then(Value::as_bool) == Some(true) => {
            format!("{} gun {} fires a shell at {} ({}): the SBI die is 1, a misfire", js(e, "unit"), js(e, "gun"), js(e, "target"), js(e, "text"))
        }
        "shell" => format!(
            "{} gun {} shell at {} ({}): bursts in section {}; {} figures there, dice {} (kill on {}); killed {}{}{}",
            js(e, "unit"),
            js(e, "gun"),
            js(e, "target"),
            js(e, "text"),
            js(e, "sector"),
            js(e, "figures"),
            js(e, "dice"),
            js(e, "kill"),
            js(e, "killed"),
            cb(e),
            house_text(e)
        ),
        "canister" => format!(
            "{} gun {} canister at {} ({}): {} figures in the sector, dice {} (kill on {}); killed {}",
            js(e, "unit"),
            js(e, "gun"),
            js(e, "target"),
            js(e, "text"),
            js(e, "figures"),
            js(e, "dice"),
            js(e, "kill"),
            js(e, "killed")
        ),
        "gun_rests" => format!("{} gun {} does not fire ({})", js(e, "unit"), js(e, "gun"), js(e, "why")),
        "gun_destroyed" => format!("{} gun {} is destroyed ({} damage points)", js(e, "unit"), js(e, "gun"), js(e, "damage")),
        "melee" => {
            let c: Vec<String> = e
                .get("combats")?
                .as_array()?
                .iter()
                .map(|c| format!("{}v{}: {} ({}) v {} ({}) {}", js(c, "a"), js(c, "d"), js(c, "a_die"), js(c, "a_score"), js(c, "d_die"), js(c, "d_score"), js(c, "winner")))
                .collect();
            let second = match e.get("second") {
                Some(v) if !v.is_null() => {
                    let b: Vec<String> = v
                        .get("batches")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().map(|x| format!("{} {}", x.get(0).and_then(Value::as_str).unwrap_or(""), x.get(1).map(ToString::to_string).unwrap_or_default())).collect())
                        .unwrap_or_default();
                    format!(
                        " (second move: dice {} for who moves first, the {} moves first; figures brought into contact and pinned in turn: {}; idle {})",
                        v.get("throws").map(ToString::to_string).unwrap_or_default(),
                        v.get("first").and_then(Value::as_str).unwrap_or(""),
                        b.join(", "),
                        v.get("idle").map(ToString::to_string).unwrap_or_default()
                    )
                }
                _ => String::new(),
            };
            format!(
                "Melee, move {}{}: {} against {}, {} figures v {}, modifiers {} ({}); combats: {}; losses {}{}; {}",
                js(e, "move"),
                second,
                js(e, "attacker"),
                js(e, "defender"),
                e.get("engaged").and_then(|v| v.get(0)).map(ToString::to_string).unwrap_or_default(),
                e.get("engaged").and_then(|v| v.get(1)).map(ToString::to_string).unwrap_or_default(),
                js(e, "mods"),
                js(e, "why"),
                c.join("; "),
                js(e, "losses"),
                if js(e, "fire_credit") != "0" { format!(" (+{} from fire at the chargers)", js(e, "fire_credit")) } else { String::new() },
                js(e, "outcome")
            )
        }
        "ride_down" => {
            let mut t = format!(
                "{} rides down {} ({} ranks deep: {} to break through): dice {}, {} broke through, {} killed",
                js(e, "unit"),
                js(e, "target"),
                js(e, "ranks"),
                js(e, "need"),
                js(e, "throws"),
                js(e, "broke"),
                js(e, "killed")
            );
            if e.get("through").and_then(Value::as_bool) == Some(true) {
                t.push_str("; the horsemen burst through");
                match e.get("next") {
                    Some(n) if !n.is_null() => t.push_str(&format!(
                        " and veer {}° to strike {} {} further on",
                        js(n, "veer"),
                        js(n, "target"),
                        js(n, "text")
                    )),
                    _ => t.push_str(" and halt clear of the infantry"),
                }
            } else {
                let why = js(e, "why");
                t.push_str("; they stay in the melee");
                if !why.is_empty() {
                    t.push_str(&format!(" ({why})"));
                }
            }
            t
        }
        "morale" => format!(
            "{} tests morale: {} points - {} for losses + die {} = {} against {}: {}",
            js(e, "unit"),
            js(e, "points"),
            js(e, "losses"),
            js(e, "die"),
            js(e, "score"),
            js(e, "need"),
            js(e, "result")
        ),
        "half" => format!("{} is down to {} of {} rank and file: the 50% rule{}", js(e, "unit"), js(e, "rf"), js(e, "start"), e.get("note").map_or(String::new(), |n| format!(" ({})", n.as_str().unwrap_or("")))),
        "destroyed" => format!("{} is destroyed", js(e, "unit")),
        "house_fire" => format!("{} is on fire ({} points from shell fire)", js(e, "section"), js(e, "shell")),
        "house_ruins" if js(e, "why") == "destroyed" => format!("{} is destroyed ({} damage points): the outer shell is removed, ruins", js(e, "section"), js(e, "damage")),
        "house_ruins" => format!("{} has burnt for {} moves: ruins", js(e, "section"), js(e, "moves")),
        "house_spread" => format!("fire in {} spreads to {}? die {}: {}", js(e, "from"), js(e, "section"), js(e, "die"),
            if e.get("spreads").and_then(Value::as_bool) == Some(true) { "it catches fire" } else { "no effect" }),
        "house_leave" if e.get("trapped").is_some() => format!("{} cannot get {} clear of the burning {}", js(e, "unit"), js(e, "clear"), js(e, "section")),
        "house_leave" => format!("{} leaves the burning {}: moves {} to stand {} away", js(e, "unit"), js(e, "section"), js(e, "text"), js(e, "clear")),
        "general_rally" => format!("{} rides {} to {} and attaches himself to it: die {}, fit for action after {} move{}", js(e, "unit"), js(e, "text"), js(e, "target"), js(e, "die"), js(e, "die"), if js(e, "die") == "1" { "" } else { "s" }),
        "general_fit" => format!("{} is rallied: fit for action", js(e, "unit")),
        "general_falls" => format!("General {} is dead and removed", js(e, "unit")),
        "game_over" => match e.get("winner").and_then(Value::as_str) {
            Some("") | None => "The game ends in a draw.".into(),
            Some(w) => format!("The game is over: {w} win."),
        },
        _ => return None,
    })
}

fn cb(e: &Value) -> String {
    let Some(a) = e.get("counter_battery").and_then(Value::as_array) else {
        return String::new();
    };
    if a.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = a
        .iter()
        .map(|c| {
            format!(
                "{} gun {}: die {} - {} = {} damage",
                js(c, "unit"),
                js(c, "gun"),
                js(c, "die"),
                js(c, "less"),
                js(c, "damage")
            )
        })
        .collect();
    format!("; counter-battery: {}", parts.join(", "))
}

/// The order template for a side: each unit with its formation and what it
/// may still do.
#[must_use]
pub fn template(r: &Ruleset, st: &State, viewer: &Viewer) -> Option<String> {
    let Viewer::Side(side) = viewer else {
        return None;
    };
    let s = st.side_index(side)?;
    if r.syw.is_some() {
        return super::syw::template::template(r, st, s);
    }
    if st.over || !engine::needs(st).contains(&s) {
        return None;
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Orders for move {} ({}): one line per unit; delete or change HOLD.",
        st.turn, side
    );
    for u in st.units.iter().filter(|u| u.side == s) {
        let Some(t) = r.troop(&u.troop) else { continue };
        match engine::orderable(u) {
            Err(why) => {
                let _ = writeln!(o, "# {}: {why}", u.id);
            }
            Ok(()) => {
                let mv = t.moves.get(&u.formation).copied().unwrap_or(0);
                let mut may = vec![format!("move {}", fmt_len(mv))];
                if u.formation == "line" {
                    if let Some(f) = t.moves.get("firing") {
                        may.push(format!("{} if firing", fmt_len(*f)));
                    }
                }
                if t.heavy && u.rest > 0 {
                    if let Some(b) = t.moves.get("battle") {
                        may.push(format!(
                            "'battle' move {} ({} rest banked)",
                            fmt_len(*b),
                            u.rest
                        ));
                    }
                }
                if t.is("cavalry") || (t.is("infantry") && u.formation == "column") {
                    if let Some(c) = t.moves.get("charge") {
                        may.push(format!("charge {}", fmt_len(*c)));
                    }
                }
                if u.bad_morale.is_some() {
                    may = vec!["bad morale: no advance, fire or charge".into()];
                }
                let _ = writeln!(
                    o,
                    "UNIT {}: HOLD    # {}, {}, {}/{} r&f; {}",
                    u.id,
                    t.name,
                    u.formation,
                    u.rf,
                    u.start_rf,
                    may.join(", ")
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "# Steps: FORWARD n, BACK n, WHEEL LEFT|RIGHT deg, ABOUT, FORM LINE|COLUMN|OPEN,"
    );
    let _ = writeln!(
        o,
        "#   LIMBER, UNLIMBER, HOLD, FIRE AT u, FIRE CANISTER AT u, PICK OFF u, CHARGE u"
    );
    let _ = writeln!(
        o,
        "# STANDING <unit>: HOLD GROUND, FIRE AT CHARGERS (or NONE) lasts until changed."
    );
    Some(o)
}

const SCALE: i64 = 10; // pixels per inch

fn px(v: i64) -> String {
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

/// The to-scale SVG of the table (10 px to the inch; the first side's edge
/// at the bottom): terrain, units drawn as their formations with a heavy
/// front edge, this move's paths, lines of fire, sleeves and charges.
#[must_use]
pub fn svg(r: &Ruleset, st: &State, events: &[Value]) -> String {
    let (w, d) = (st.width, st.depth);
    let x = |v: i64| px(v);
    let y = |v: i64| px(d - v);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"9\">",
        x(w),
        px(d),
        x(w),
        px(d)
    );
    let _ = writeln!(o, "<title>{}, move {}</title>", esc(&st.title), st.turn);
    let _ = writeln!(o, "<rect class=\"table\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#dfe8c8\" stroke=\"#333\"/>", x(w), px(d));
    // Inch grid every 6".
    let mut k = 6 * PER_INCH;
    while k < w {
        let _ = writeln!(o, "<line x1=\"{}\" y1=\"0\" x2=\"{}\" y2=\"{}\" stroke=\"#c8d4b0\" stroke-width=\"0.5\"/>", x(k), x(k), px(d));
        k += 6 * PER_INCH;
    }
    let mut k = 6 * PER_INCH;
    while k < d {
        let _ = writeln!(o, "<line x1=\"0\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c8d4b0\" stroke-width=\"0.5\"/>", y(k), x(w), y(k));
        k += 6 * PER_INCH;
    }
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
            "building" => ("#b05a4a", "#5a2018", false),
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
        if !f.name.is_empty() {
            if let Some(p) = f.points.first() {
                let _ = writeln!(
                    o,
                    "<text x=\"{}\" y=\"{}\" fill=\"#333\" font-style=\"italic\">{}</text>",
                    x(p.x),
                    y(p.y),
                    esc(&f.name)
                );
            }
        }
    }
    // This move: paths, fire and sleeves, charges.
    for e in events {
        let k = e.get("kind").and_then(Value::as_str).unwrap_or("");
        let pt = |key: &str| -> Option<(i64, i64)> {
            let a = e.get(key)?.as_array()?;
            Some((a.first()?.as_i64()?, a.get(1)?.as_i64()?))
        };
        match k {
            "moved" => {
                if let (Some(a), Some(b)) = (pt("from"), pt("to")) {
                    let _ = writeln!(o, "<line class=\"path\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
                }
            }
            "roundshot" | "shell" => {
                if let (Some(a), Some(b)) = (pt("from"), pt("aim")) {
                    let _ = writeln!(o, "<line class=\"fire\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00\" stroke-width=\"1\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
                    if k == "shell" {
                        let _ = writeln!(o, "<circle class=\"sbi\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"#c00\"/>", x(b.0), y(b.1), px(r.sbi_radius));
                    } else if let Some(off) = e.get("sleeve").and_then(Value::as_i64) {
                        // The sleeve: its centre `off` beyond the aim point.
                        let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
                        let l = (dx * dx + dy * dy).sqrt().max(1.0);
                        let c0 = off as f64 - r.sleeve_length as f64 / 2.0;
                        let c1 = c0 + r.sleeve_length as f64;
                        let p0 = (b.0 as f64 + dx / l * c0, b.1 as f64 + dy / l * c0);
                        let p1 = (b.0 as f64 + dx / l * c1, b.1 as f64 + dy / l * c1);
                        // Drawing only: floats never decide a rule here.
                        let f = |v: f64| format!("{:.1}", v * SCALE as f64 / PER_INCH as f64);
                        let _ = writeln!(
                            o,
                            "<line class=\"sleeve\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00\" stroke-width=\"{}\" stroke-opacity=\"0.4\"/>",
                            f(p0.0),
                            f(d as f64 - p0.1),
                            f(p1.0),
                            f(d as f64 - p1.1),
                            px(r.sleeve_width)
                        );
                    }
                }
            }
            _ => {}
        }
    }
    for u in &st.units {
        let fp = footprint(r, u);
        let c = fp.corners();
        let pts: Vec<String> = c.iter().map(|p| format!("{},{}", x(p.x), y(p.y))).collect();
        let (fill, stroke) = if u.side == 0 {
            ("#d33", "#600")
        } else {
            ("#36c", "#013")
        };
        let _ = writeln!(
            o,
            "<g class=\"unit\" data-id=\"{}\"><polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"{}\" stroke=\"{stroke}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\" fill=\"#000\">{}</text></g>",
            esc(&u.id),
            pts.join(" "),
            if u.broken { "0.3" } else { "0.75" },
            x(c[0].x),
            y(c[0].y),
            x(c[1].x),
            y(c[1].y),
            x(c[2].x),
            y(c[2].y),
            esc(&format!("{} {}", u.id, u.rf))
        );
    }
    let _ = writeln!(o, "</svg>");
    o
}

/// The position as `viewer` may know it: standing orders are sealed
/// (docs/rules/charge.md and seven-years-war.md, "Standing orders"): a
/// side sees its own units' and none of the enemy's, an observer none, the
/// referee all. An order shows itself only when it is carried out (the
/// report of the evade, the held fire, the ground held).
#[must_use]
pub fn sealed<'a>(st: &'a State, viewer: &Viewer) -> std::borrow::Cow<'a, State> {
    let own = match viewer {
        Viewer::Referee => return std::borrow::Cow::Borrowed(st),
        Viewer::Side(s) => st.side_index(s),
        Viewer::Observer => None,
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
pub fn parts(r: &Ruleset, st: &State, events: &[Value], viewer: &Viewer) -> Parts {
    let st = &*sealed(st, viewer);
    let v = view(st, viewer, events);
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
    let svg = svg(r, st, events);
    let board_html = format!(
        "<p style=\"margin:4px 0;font-size:13px\">{}, move {}. To scale: 10 pixels to the inch, the {} edge at the bottom.</p>\n<div style=\"max-width:100%;overflow-x:auto\">\n{svg}</div>\n",
        esc(&st.title),
        st.turn,
        esc(&st.sides[0])
    );
    Parts {
        map: text_map(r, st, 76),
        compact: text_map(r, st, 36),
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

/// The houses a roundshot or shell struck.
fn house_text(e: &Value) -> String {
    let Some(a) = e.get("houses").and_then(Value::as_array) else {
        return String::new();
    };
    a.iter()
        .map(|h| {
            let less = js(h, "less");
            format!(
                "; {} hit: die {}{} = {} damage points, {} killed{}",
                js(h, "section"),
                js(h, "die"),
                if less.is_empty() || less == "0" {
                    String::new()
                } else {
                    format!(" - {less}")
                },
                js(h, "damage"),
                js(h, "killed"),
                match h.get("goes_on").and_then(Value::as_bool) {
                    Some(true) => ", the shot goes on",
                    Some(false) if h.get("penetrates").and_then(Value::as_bool) == Some(true) =>
                        ", the shot stops",
                    Some(false) => ", no penetration",
                    None => "",
                }
            )
        })
        .collect()
}
