//! Charge!'s part of the report: its events as lines of text, its order
//! template and its events on the picture (the shared report, text map
//! and drawing are the measured core's `report`).

use super as engine;
use crate::events::{Charge, CounterBattery, HouseHit};
use crate::geometry::{fmt_len, PER_INCH};

use crate::order_line::commented;
use crate::report::{px, Pen, SCALE};
use serde::Serialize;
use std::fmt::Write;

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
                crate::report::move_line(o, pen, a, b);
            }
        }
        "roundshot" | "shell" => {
            if let (Some(a), Some(b)) = (pt("from"), pt("aim")) {
                crate::report::fire_line(o, pen, a, b);
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
