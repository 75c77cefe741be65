//! Random legal orders for a measured game (the property test): each unit
//! tries a few random steps (move, wheel, form, fire, charge) and keeps the
//! first the book's check accepts; a unit that finds none holds. A book
//! adds lines and steps of its own ([`crate::Procedures::random_lines`],
//! [`crate::Procedures::random_step`]).

use super::ruleset::Ruleset;
use super::state::State;
use crate::book::Book;
use adjutant_dice::Dice;
use adjutant_rules::Orders;

/// One of `v` at random (None: `v` is empty).
pub fn pick<'a>(rng: &mut dyn Dice, v: &'a [String]) -> Option<&'a String> {
    if v.is_empty() {
        None
    } else {
        v.get((rng.roll(v.len() as u32) - 1) as usize)
    }
}

/// Orders for `side`, legal by the engine's check.
pub fn random_orders<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    side: usize,
    rng: &mut dyn Dice,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    let enemies: Vec<String> = st
        .units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.id.clone())
        .collect();
    let book = r.book();
    lines.extend(book.random_lines(r, st, side, rng));
    for u in st.units.iter().filter(|u| u.side == side) {
        if book.orderable(u).is_err() {
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
                    book.check_side(r, st, side, &t.join("\n")).is_ok()
                });
            if let Some(l) = rally {
                lines.push(l);
                continue;
            }
        }
        for _ in 0..4 {
            let k = rng.roll(9);
            let step = if let Some(own) = book.random_step(k, rng) {
                own
            } else {
                match k {
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
                }
            };
            let l = format!("UNIT {}: {step}", u.id);
            let mut t = lines.clone();
            t.push(l.clone());
            if book.check_side(r, st, side, &t.join("\n")).is_ok() {
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

/// Orders for the judge's general (docs/general.md): every unit of `side`
/// that may fire from where it stands (the book's check accepts the line)
/// fires at one of the enemies it may, drawn from `rng`; on odd `variant`s
/// each other unit advances 1d8" half the time. `None` when no unit has a
/// line to give.
pub fn general_orders<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    side: usize,
    rng: &mut dyn Dice,
    variant: u32,
) -> Option<String> {
    let book = r.book();
    let enemies: Vec<&str> = st
        .units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.id.as_str())
        .collect();
    let mut lines: Vec<String> = Vec::new();
    for u in st.units.iter().filter(|u| u.side == side) {
        if book.orderable(u).is_err() {
            continue;
        }
        let targets: Vec<String> = enemies
            .iter()
            .map(|e| format!("UNIT {}: FIRE AT {e}", u.id))
            .filter(|l| book.check_side(r, st, side, l).is_ok())
            .collect();
        let line = if let Some(l) = pick(rng, &targets) {
            l.clone()
        } else if variant % 2 == 1 && rng.roll(2) == 1 {
            format!("UNIT {}: FORWARD {}", u.id, rng.roll(8))
        } else {
            continue;
        };
        let mut t = lines.clone();
        t.push(line.clone());
        if book.check_side(r, st, side, &t.join("\n")).is_ok() {
            lines.push(line);
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n") + "\n")
}

/// Every needed side's random orders for the move.
pub fn random_move<B: Book>(r: &Ruleset<B>, st: &State<B>, rng: &mut dyn Dice) -> Vec<Orders> {
    r.book()
        .needs(st)
        .into_iter()
        .map(|s| Orders {
            side: st.sides[s].clone(),
            text: random_orders(r, st, s, rng),
        })
        .collect()
}
