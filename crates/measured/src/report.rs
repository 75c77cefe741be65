//! Reports of a measured game, drawn from a [`View`] for one recipient: the
//! position as text (every unit with its formation, position, facing and
//! strength, and a coarse sketch of the table), the move's report with
//! every measured distance and die, the order template, a to-scale SVG of
//! the table and view.json. The table is open, so a view is the whole
//! position except the enemy's standing orders, which stay sealed until
//! they are carried out ([`sealed`]); the order template differs per side.

use super::charge as engine;
use super::events::{Charge, CounterBattery, HouseHit};
use super::geometry::{fmt_len, PER_INCH};
use super::labels;
use super::order_line::commented;
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
#[derive(Debug, Clone, Serialize)]
#[serde(bound = "")]
pub struct View<B: Book> {
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
    pub units: Vec<Unit<B>>,
    pub removed: Vec<u32>,
    pub waiting: Vec<String>,
    /// Written with sorted keys, as the store holds them.
    #[serde(serialize_with = "adjutant_rules::event::serialize_sorted")]
    pub last: Vec<B::Event>,
    pub over: bool,
    pub winner: Option<String>,
}

#[must_use]
pub fn view<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    viewer: &Viewer,
    events: &[B::Event],
) -> View<B> {
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
        waiting: r
            .book()
            .needs(st)
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

/// A coarse sketch: one character per cell of `cell` sixteenths.
fn sketch<B: Book>(r: &Ruleset<B>, st: &State<B>, cols_max: i64) -> String {
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

/// The position as text (80 columns).
#[must_use]
pub fn text_map<B: Book>(r: &Ruleset<B>, st: &State<B>, width: i64) -> String {
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

/// A value as JSON text, as the reports have always printed lists and
/// scores (`[1,2]`, `3.0`).
fn j<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// An optional value as text, or nothing.
fn opt<T: Serialize>(v: Option<&T>) -> String {
    v.map_or(String::new(), j)
}

/// One Charge! event as a line of text, with its distances and dice.
#[must_use]
pub fn describe_charge(e: &Charge) -> String {
    match e {
        Charge::Move { turn } => format!("Move {turn}:"),
        Charge::Moved { unit, measured, facing, formation, .. } => {
            format!("{unit} {}: now in {formation} facing {facing}°", measured.join(", "))
        }
        Charge::Limber { unit, formation } => format!("{unit} is now {formation}"),
        Charge::Blocked { unit, by } => format!("{unit} stays where it was: its move would meet {by}"),
        Charge::Lapse { unit, why } => format!("{unit}: {why}"),
        Charge::Retire { unit, why, text, .. } => format!("{unit} {why} ({text})"),
        Charge::Fled { unit, why } => format!("{unit} leaves the table ({why})"),
        Charge::Note { text } => text.clone(),
        Charge::Charge { unit, target, text, face, fire_at_chargers, .. } => {
            let fire = fire_at_chargers.as_ref().map_or(String::new(), |f| {
                format!(
                    "; firing at chargers: attacker {} defender {}{}",
                    f.attacker,
                    f.defender,
                    if f.fired {
                        format!(", the defender fires first and kills {}", opt(f.killed.as_ref()))
                    } else {
                        ", contact without a volley".into()
                    }
                )
            });
            format!("{unit} charges {target} ({text}, strikes its {face}){fire}")
        }
        Charge::Volley { unit, target, firers, per, text, first, cover, deduct, dice, killed, .. } => {
            let dice: Vec<String> = dice
                .iter()
                .map(|d| format!("{}-{deduct}={} hits on group {} of {} {:?}", d.die, d.hits, d.group, d.size, j(&d.figures)))
                .collect();
            format!(
                "{unit} fires at {target} ({}{}, {}{}): {firers} firers, a die per {per}: {}; {killed} killed",
                text.as_deref().unwrap_or(""),
                if text.is_none() { "close range" } else { "" },
                if *first { "first volley" } else { "normal" },
                if *cover { ", in cover" } else { ", in the open" },
                if dice.is_empty() { "no dice".into() } else { dice.join("; ") },
            )
        }
        Charge::FiresFirst { a, b, dice, first } => format!(
            "{a} and {b} fire at each other: dice {}; {}",
            j(dice),
            match first {
                Some(f) => format!("{f} fires first"),
                None => "a draw: simultaneous".into(),
            }
        ),
        Charge::Skirmish { unit, target, text, kill, dice, killed, .. } => format!("{unit} fires into {target} at {text}: dice {} (kill on {}); {killed} killed", j(dice), j(kill)),
        Charge::PickOff { unit, target, text, kill, dice, officers_hit, .. } => format!("{unit} picks off officers of {target} at {text}: dice {} (hit on {}); hit: {}", j(dice), j(kill), j(officers_hit)),
        Charge::Officer { unit, rank, save, saved } => format!(
            "{unit}'s {rank} is hit: saving throw {save} - {}",
            if *saved { "saved" } else { "killed" }
        ),
        Charge::Roundshot { unit, gun, target, text, kill, plus, minus, sleeve_text, figures, dice, killed, counter_battery, houses, .. } => format!(
            "{unit} gun {gun} roundshot at {target} ({text}; kill on {}): + die {plus} - die {minus}, sleeve moved {sleeve_text} ; {figures} figures under the sleeve, dice {}; killed {}{}{}",
            j(kill),
            j(dice),
            j(killed),
            cb(counter_battery),
            house_text(houses)
        ),
        Charge::Shell { unit, gun, target, text, misfire: Some(true), .. } => {
            format!("{unit} gun {gun} fires a shell at {target} ({text}): the SBI die is 1, a misfire")
        }
        Charge::Shell { unit, gun, target, text, sector, figures, dice, kill, killed, counter_battery, houses, .. } => format!(
            "{unit} gun {gun} shell at {target} ({text}): bursts in section {sector}; {} figures there, dice {} (kill on {}); killed {}{}{}",
            opt(figures.as_ref()),
            opt(dice.as_ref()),
            opt(kill.as_ref()),
            opt(killed.as_ref()),
            counter_battery.as_deref().map_or(String::new(), cb),
            houses.as_deref().map_or(String::new(), house_text)
        ),
        Charge::Canister { unit, gun, target, text, figures, dice, kill, killed, .. } => format!(
            "{unit} gun {gun} canister at {target} ({text}): {figures} figures in the sector, dice {} (kill on {}); killed {}",
            j(dice),
            j(kill),
            j(killed)
        ),
        Charge::GunRests { unit, gun, why } => format!("{unit} gun {gun} does not fire ({why})"),
        Charge::GunDestroyed { unit, gun, damage } => format!("{unit} gun {gun} is destroyed ({damage} damage points)"),
        Charge::Melee { .. } => describe_melee(e),
        Charge::RideDown { .. } => describe_ride_down(e),
        Charge::Morale { unit, points, losses, die, score, need, result } => format!(
            "{unit} tests morale: {points} points - {losses} for losses + die {die} = {score} against {need}: {result}"
        ),
        Charge::Half { unit, rf, start, note, .. } => format!("{unit} is down to {rf} of {start} rank and file: the 50% rule{}", note.as_ref().map_or(String::new(), |n| format!(" ({n})"))),
        Charge::Destroyed { unit } => format!("{unit} is destroyed"),
        Charge::HouseFire { section, shell, .. } => format!("{section} is on fire ({shell} points from shell fire)"),
        Charge::HouseRuins { section, damage, why, .. } if why == "destroyed" => format!("{section} is destroyed ({} damage points): the outer shell is removed, ruins", opt(damage.as_ref())),
        Charge::HouseRuins { section, moves, .. } => format!("{section} has burnt for {} moves: ruins", opt(moves.as_ref())),
        Charge::HouseSpread { from, section, die, spreads } => format!("fire in {from} spreads to {section}? die {die}: {}",
            if *spreads { "it catches fire" } else { "no effect" }),
        Charge::HouseLeave { unit, section, clear, trapped: Some(_), .. } => format!("{unit} cannot get {clear} clear of the burning {section}"),
        Charge::HouseLeave { unit, section, text, clear, .. } => format!("{unit} leaves the burning {section}: moves {text} to stand {clear} away"),
        Charge::GeneralRally { unit, target, text, die, .. } => format!("{unit} rides {text} to {target} and attaches himself to it: die {die}, fit for action after {die} move{}", if *die == 1 { "" } else { "s" }),
        Charge::GeneralFit { unit } => format!("{unit} is rallied: fit for action"),
        Charge::Amended { text, .. } => text.clone(),
        Charge::GeneralFalls { unit } => format!("General {unit} is dead and removed"),
        Charge::GameOver { winner, .. } => match winner.as_str() {
            "" => "The game ends in a draw.".into(),
            w => format!("The game is over: {w} win."),
        },
    }
}

fn describe_melee(e: &Charge) -> String {
    let Charge::Melee {
        attacker,
        defender,
        round,
        engaged,
        mods,
        why,
        second,
        combats,
        losses,
        fire_credit,
        outcome,
    } = e
    else {
        return String::new();
    };
    let c: Vec<String> = combats
        .iter()
        .map(|c| {
            format!(
                "{}v{}: {} ({}) v {} ({}) {}",
                c.a,
                c.d,
                c.a_die,
                j(&c.a_score),
                c.d_die,
                j(&c.d_score),
                c.winner
            )
        })
        .collect();
    let second = match second {
        Some(v) => {
            let b: Vec<String> = v.batches.iter().map(|(s, n)| format!("{s} {n}")).collect();
            format!(
                " (second move: dice {} for who moves first, the {} moves first; figures brought into contact and pinned in turn: {}; idle {})",
                j(&v.throws),
                v.first,
                b.join(", "),
                j(&v.idle)
            )
        }
        None => String::new(),
    };
    format!(
        "Melee, move {round}{second}: {attacker} against {defender}, {} figures v {}, modifiers {} ({}); combats: {}; losses {}{}; {outcome}",
        engaged[0],
        engaged[1],
        j(mods),
        j(why),
        c.join("; "),
        j(losses),
        if *fire_credit != 0 { format!(" (+{fire_credit} from fire at the chargers)") } else { String::new() },
    )
}

fn describe_ride_down(e: &Charge) -> String {
    let Charge::RideDown {
        unit,
        target,
        ranks,
        need,
        throws,
        broke,
        killed,
        through,
        why,
        next,
    } = e
    else {
        return String::new();
    };
    let mut t = format!(
        "{unit} rides down {target} ({ranks} ranks deep: {} to break through): dice {}, {broke} broke through, {killed} killed",
        j(need),
        j(throws),
    );
    if *through {
        t.push_str("; the horsemen burst through");
        match next {
            Some(n) => t.push_str(&format!(
                " and veer {}° to strike {} {} further on",
                n.veer, n.target, n.text
            )),
            None => t.push_str(" and halt clear of the infantry"),
        }
    } else {
        t.push_str("; they stay in the melee");
        if !why.is_empty() {
            t.push_str(&format!(" ({why})"));
        }
    }
    t
}

fn cb(a: &[CounterBattery]) -> String {
    if a.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = a
        .iter()
        .map(|c| {
            format!(
                "{} gun {}: die {} - {} = {} damage",
                c.unit, c.gun, c.die, c.less, c.damage
            )
        })
        .collect();
    format!("; counter-battery: {}", parts.join(", "))
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

/// Charge!'s order template for a side (by index, and as the viewer
/// names it).
#[must_use]
pub fn charge_template(
    r: &engine::Ruleset,
    st: &engine::State,
    s: usize,
    side: &str,
) -> Option<String> {
    if st.over || !engine::needs(st).contains(&s) {
        return None;
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Orders for move {} ({side}): one line per unit; change HOLD,",
        st.turn
    );
    let _ = writeln!(o, "# or delete the line.");
    for u in st.units.iter().filter(|u| u.side == s) {
        let Some(t) = r.troop(&u.troop) else { continue };
        match engine::orderable(u) {
            Err(why) => commented(&mut o, &format!("# {}:", u.id), &why),
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
                commented(
                    &mut o,
                    &format!("UNIT {}: HOLD    #", u.id),
                    &format!(
                        "{}, {}, {}/{} r&f; {}",
                        t.name,
                        u.formation,
                        u.rf,
                        u.start_rf,
                        may.join(", ")
                    ),
                );
            }
        }
    }
    o.push_str(
        "# Steps: FORWARD n, BACK n, WHEEL LEFT|RIGHT deg, ABOUT,\n\
         #   FORM LINE|COLUMN|OPEN, LIMBER, UNLIMBER, HOLD, FIRE AT u,\n\
         #   FIRE CANISTER AT u, PICK OFF u, CHARGE u\n\
         # STANDING <unit>: HOLD GROUND  # or FIRE AT CHARGERS, or NONE;\n\
         #   a standing order lasts until changed.\n",
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
    terrain(&mut o, st, &x, &y);
    o.push_str("</g>\n");
    units(&mut o, r, st, &x, &y);
    // This move: paths, fire and sleeves, charges, over the units (each
    // book draws its own events).
    let pen = Pen {
        x: &x,
        y: &y,
        w,
        d,
        turned,
    };
    for e in events {
        B::draw(&mut o, r, st, e, &pen);
    }
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
}

/// A move's path on the picture, from `a` to `b`.
pub fn move_line(o: &mut String, pen: &Pen<'_>, a: (i64, i64), b: (i64, i64)) {
    let (x, y) = (pen.x, pen.y);
    let _ = writeln!(o, "<line class=\"path move\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"1.5\" marker-end=\"url(#mv)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
}

/// Fire on the picture, from `a` to `b`.
pub fn fire_line(o: &mut String, pen: &Pen<'_>, a: (i64, i64), b: (i64, i64)) {
    let (x, y) = (pen.x, pen.y);
    let _ = writeln!(o, "<line class=\"fire\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00\" stroke-width=\"1.5\" marker-end=\"url(#fr)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
}

/// A Charge! event on the picture: a move's path, a shot with its sleeve
/// or its shell's burst.
pub fn draw_charge(o: &mut String, r: &engine::Ruleset, c: &Charge, pen: &Pen<'_>) {
    let (x, y, w, d, turned) = (pen.x, pen.y, pen.w, pen.d, pen.turned);
    let (k, from, to, sleeve) = match c {
        Charge::Moved { from, to, .. } => ("moved", *from, *to, None),
        Charge::Roundshot {
            from, aim, sleeve, ..
        } => ("roundshot", *from, *aim, Some(*sleeve)),
        Charge::Shell {
            from: Some(from),
            aim: Some(aim),
            ..
        } => ("shell", *from, *aim, None),
        _ => return,
    };
    // The move's start (or the gun) and its end (or the aim point).
    let pt = |key: &str| -> Option<(i64, i64)> {
        match key {
            "from" => Some((from[0], from[1])),
            _ => Some((to[0], to[1])),
        }
    };
    match k {
        "moved" => {
            if let (Some(a), Some(b)) = (pt("from"), pt("to")) {
                let _ = writeln!(o, "<line class=\"path move\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"1.5\" marker-end=\"url(#mv)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
            }
        }
        "roundshot" | "shell" => {
            if let (Some(a), Some(b)) = (pt("from"), pt("aim")) {
                let _ = writeln!(o, "<line class=\"fire\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00\" stroke-width=\"1.5\" marker-end=\"url(#fr)\"/>", x(a.0), y(a.1), x(b.0), y(b.1));
                if k == "shell" {
                    let _ = writeln!(o, "<circle class=\"sbi\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"#c00\"/>", x(b.0), y(b.1), px(r.sbi_radius));
                } else if let Some(off) = sleeve {
                    // The sleeve: its centre `off` beyond the aim point.
                    let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
                    let l = (dx * dx + dy * dy).sqrt().max(1.0);
                    let c0 = off as f64 - r.sleeve_length as f64 / 2.0;
                    let c1 = c0 + r.sleeve_length as f64;
                    let p0 = (b.0 as f64 + dx / l * c0, b.1 as f64 + dy / l * c0);
                    let p1 = (b.0 as f64 + dx / l * c1, b.1 as f64 + dy / l * c1);
                    // Drawing only: floats never decide a rule here.
                    let f = |v: f64| format!("{:.1}", v * SCALE as f64 / PER_INCH as f64);
                    let (p0, p1) = if turned {
                        (
                            (w as f64 - p0.0, d as f64 - p0.1),
                            (w as f64 - p1.0, d as f64 - p1.1),
                        )
                    } else {
                        (p0, p1)
                    };
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

/// The table's terrain: hills under woods under rivers, roads and walls as
/// lines, names inside the table whichever way it is turned.
fn terrain<B: Book>(
    o: &mut String,
    st: &State<B>,
    x: &dyn Fn(i64) -> String,
    y: &dyn Fn(i64) -> String,
) {
    let (w, d) = (st.width, st.depth);
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
        if !f.name.is_empty() {
            if let Some(p) = f.points.first() {
                // Inside the table whichever way it is turned.
                let num = |s: String| s.parse::<f64>().unwrap_or(0.0);
                let room = px_i(w) as f64 - 5.2 * f.name.chars().count() as f64 - 2.0;
                let _ = writeln!(
                    o,
                    "<text class=\"name\" x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\" font-style=\"italic\">{}</text>",
                    num(x(p.x)).clamp(2.0, room.max(2.0)),
                    num(y(p.y)).clamp(10.0, px_i(d) as f64 - 2.0),
                    esc(&f.name)
                );
            }
        }
    }
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
/// strength at its centre, or, where it does not fit, beside it clear of
/// every other unit and label and inside the table (crate::labels).
fn units<B: Book>(
    o: &mut String,
    r: &Ruleset<B>,
    st: &State<B>,
    x: &dyn Fn(i64) -> String,
    y: &dyn Fn(i64) -> String,
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
    let mut placed = Vec::new();
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
        let _ = writeln!(
            o,
            "<g class=\"unit\" data-id=\"{}\" data-side=\"{}\" data-kind=\"{}\"><polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"{}\" stroke=\"{stroke}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\" stroke-width=\"2\"/><text class=\"label\" x=\"{tx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" fill=\"{ink}\">{}</text><g class=\"symbol\" shape-rendering=\"crispEdges\" transform=\"translate({sx:.1} {sy:.1}) scale(0.5)\"><use href=\"#f\" fill=\"{fill}\" stroke=\"{stroke}\"/><use href=\"#k-{}\"/></g></g>",
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
pub fn parts<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    events: &[B::Event],
    viewer: &Viewer,
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
    let svg = svg(r, st, events, seat);
    let board_html = format!(
        "<p style=\"margin:4px 0;font-size:13px\">{}, move {}. Seen from the {} edge; to scale: 10 pixels to the inch.</p>\n<div style=\"max-width:100%;overflow-x:auto\">\n{svg}</div>\n",
        esc(&st.title),
        st.turn,
        esc(st.sides.get(seat).map_or("", String::as_str))
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
fn house_text(a: &[HouseHit]) -> String {
    a.iter()
        .map(|h| {
            let less = opt(h.less.as_ref());
            format!(
                "; {} hit: die {}{} = {} damage points, {} killed{}",
                h.section,
                h.die,
                if less.is_empty() || less == "0" {
                    String::new()
                } else {
                    format!(" - {less}")
                },
                h.damage,
                h.killed,
                match h.goes_on {
                    Some(true) => ", the shot goes on",
                    Some(false) if h.penetrates == Some(true) => ", the shot stops",
                    Some(false) => ", no penetration",
                    None => "",
                }
            )
        })
        .collect()
}
