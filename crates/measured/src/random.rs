//! Random legal orders for a measured game (the property test): each unit
//! tries a few random steps (move, wheel, form, fire, charge) and keeps the
//! first the engine's check accepts; a unit that finds none holds. For the
//! Seven Years' War also random standing orders and fog-table choices.

use super::engine;
use super::ruleset::Ruleset;
use super::state::State;
use adjutant_dice::Dice;
use adjutant_rules::Orders;

fn pick<'a>(rng: &mut dyn Dice, v: &'a [String]) -> Option<&'a String> {
    if v.is_empty() {
        None
    } else {
        v.get((rng.roll(v.len() as u32) - 1) as usize)
    }
}

/// Orders for `side`, legal by the engine's check.
pub fn random_orders(r: &Ruleset, st: &State, side: usize, rng: &mut dyn Dice) -> String {
    let mut lines: Vec<String> = Vec::new();
    let enemies: Vec<String> = st
        .units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.id.clone())
        .collect();
    let syw = r.syw.is_some();
    if syw {
        // The Seven Years' War's own lines: standing orders and the fog
        // table's choices, now and then.
        let mine: Vec<String> = st
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.id.clone())
            .collect();
        // FOG BRIGADE names one of the side's infantry brigades.
        let brigades = super::syw::template::fog_brigades(r, st, side);
        if let Some(u) = pick(rng, &mine) {
            let cavalry = st
                .unit(u)
                .and_then(|u| r.troop(&u.troop))
                .is_some_and(|t| t.class == "cavalry");
            let s = match rng.roll(7) {
                1 => "EVADE",
                2 => "STAND",
                3 if cavalry => "COUNTER-CHARGE",
                3 => "STAND",
                4 => "HOLD FIRE",
                5 => "BREAK OFF",
                6 => "FIGHT ON",
                _ => "RESPONSE FIRE",
            };
            lines.push(format!("STANDING {u}: {s}"));
        }
        if let Some(b) = pick(rng, &brigades) {
            lines.push(format!("FOG BRIGADE {b}"));
        }
        let guns: Vec<String> = st
            .units
            .iter()
            .filter(|u| u.side == side && r.troop(&u.troop).is_some_and(|t| t.class == "artillery"))
            .map(|u| u.id.clone())
            .collect();
        if !guns.is_empty() {
            lines.push(format!(
                "FOG GUNS {}",
                guns.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
            ));
        }
    }
    for u in st.units.iter().filter(|u| u.side == side) {
        if engine::orderable(u).is_err() {
            continue;
        }
        // A General first tries to rally each of his side's units in turn.
        if r.troop(&u.troop).is_some_and(|t| t.is("general")) {
            let rally = st
                .units
                .iter()
                .filter(|o| o.side == side && o.id != u.id)
                .map(|o| format!("UNIT {}: RALLY {}", u.id, o.id))
                .find(|l| {
                    let mut t = lines.clone();
                    t.push(l.clone());
                    engine::check(r, st, side, &t.join("\n")).is_ok()
                });
            if let Some(l) = rally {
                lines.push(l);
                continue;
            }
        }
        for _ in 0..4 {
            let step = match rng.roll(9) {
                1 if syw => "FORWARD ALL".into(),
                5 if syw => match rng.roll(6) {
                    1 => "FORM LINE".into(),
                    2 => "FORM MARCH".into(),
                    3 => "FORM ATTACK".into(),
                    4 => "FORM SQUARE".into(),
                    5 => "LIMBER".into(),
                    _ => "UNLIMBER".into(),
                },
                1 | 2 => format!("FORWARD {}", rng.roll(8)),
                3 => format!("BACK {}", rng.roll(3)),
                4 => format!(
                    "WHEEL {} {}",
                    if rng.roll(2) == 1 { "LEFT" } else { "RIGHT" },
                    rng.roll(6) * 10
                ),
                5 => match rng.roll(5) {
                    1 => "FORM LINE".into(),
                    2 => "FORM COLUMN".into(),
                    3 => "LIMBER".into(),
                    4 => "UNLIMBER".into(),
                    _ => "FORM OPEN".into(),
                },
                6 | 7 => match pick(rng, &enemies) {
                    Some(e) => format!("FIRE AT {e}"),
                    None => continue,
                },
                8 => match pick(rng, &enemies) {
                    Some(e) => format!("CHARGE {e}"),
                    None => continue,
                },
                _ => match pick(rng, &enemies) {
                    Some(e) => format!("FORWARD {}, FIRE AT {e}", rng.roll(3)),
                    None => continue,
                },
            };
            let l = format!("UNIT {}: {step}", u.id);
            let mut t = lines.clone();
            t.push(l.clone());
            if engine::check(r, st, side, &t.join("\n")).is_ok() {
                lines.push(l);
                break;
            }
        }
    }
    if lines.iter().all(|l| !l.starts_with("UNIT ")) {
        lines.push("PASS".into());
    }
    lines.join("\n") + "\n"
}

/// Every needed side's random orders for the move.
pub fn random_move(r: &Ruleset, st: &State, rng: &mut dyn Dice) -> Vec<Orders> {
    engine::needs(st)
        .into_iter()
        .map(|s| Orders {
            side: st.sides[s].clone(),
            text: random_orders(r, st, s, rng),
        })
        .collect()
}
