//! Random legal orders for a grid game (property tests, benchmarks, fuzz
//! corpora): each needed side's units move one area, fight something in
//! range, or load, unload, limber or unlimber, each line checked by the
//! engine; a side with nothing legal passes.

use super::engine;
use super::ruleset::Ruleset;
use super::state::{State, Step};
use adjutant_dice::Dice;
use adjutant_rules::{Family, Orders};

/// Orders for `side` in the current phase, legal by the engine's check.
pub fn random_orders(r: &Ruleset, st: &State, side: usize, rng: &mut dyn Dice) -> String {
    let mut lines = Vec::new();
    let enemies: Vec<_> = st
        .units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| u.at)
        .collect();
    if rng.roll(4) == 1 {
        lines.push(
            if rng.roll(2) == 1 {
                "INITIATIVE SECOND"
            } else {
                "INITIATIVE FIRST"
            }
            .to_string(),
        );
    }
    for u in st.units.iter().filter(|u| u.side == side) {
        let Some(spec) = r.unit(&u.kind) else {
            continue;
        };
        let try_line = |lines: &Vec<String>, l: String| -> bool {
            let mut t = lines.clone();
            t.push(l);
            Family::check(r, st, &st.sides[side], &t.join("\n")).is_ok()
        };
        match st.step {
            Step::Artillery => {
                if spec.artillery.is_empty() || rng.roll(3) == 1 {
                    continue;
                }
                let k = enemies.len();
                if k == 0 {
                    continue;
                }
                for _ in 0..3 {
                    let target = enemies[(rng.roll(k as u32) - 1) as usize];
                    let l = format!("FIRE {} {}", u.at, target);
                    if try_line(&lines, l.clone()) {
                        lines.push(l);
                        break;
                    }
                }
            }
            Step::Move { .. } if spec.transport && rng.roll(2) == 1 => {
                // Load or limber a neighbour, or set down what it carries.
                let n = st.grid.neighbours(u.at);
                if n.is_empty() {
                    continue;
                }
                let to = n[(rng.roll(n.len() as u32) - 1) as usize];
                let verb = match (&u.carrying, rng.roll(2)) {
                    (Some(c), _) if r.unit(&c.kind).is_some_and(|s| s.towed) => "UNLIMBER",
                    (Some(_), _) => "UNLOAD",
                    (None, 1) => "LIMBER",
                    (None, _) => "LOAD",
                };
                let l = format!("{verb} {} {to}", u.at);
                if try_line(&lines, l.clone()) {
                    lines.push(l);
                }
            }
            Step::Move { .. } => match rng.roll(3) {
                1 => {
                    let n = st.grid.neighbours(u.at);
                    if n.is_empty() {
                        continue;
                    }
                    let to = n[(rng.roll(n.len() as u32) - 1) as usize];
                    let l = if u.wire_stuck {
                        format!("REMOVE-WIRE {}", u.at)
                    } else {
                        format!("MOVE {} {to}", u.at)
                    };
                    if try_line(&lines, l.clone()) {
                        lines.push(l);
                    }
                }
                2 => {
                    let k = enemies.len();
                    if k == 0 || spec.combat.is_empty() {
                        continue;
                    }
                    for _ in 0..3 {
                        let target = enemies[(rng.roll(k as u32) - 1) as usize];
                        let l = format!("FIRE {} {}", u.at, target);
                        if try_line(&lines, l.clone()) {
                            lines.push(l);
                            break;
                        }
                    }
                }
                _ => {}
            },
        }
    }
    if lines.is_empty() {
        "PASS\n".into()
    } else {
        lines.join("\n") + "\n"
    }
}

/// Every needed side's random orders for the current phase.
pub fn random_phase(r: &Ruleset, st: &State, rng: &mut dyn Dice) -> Vec<Orders> {
    engine::needs(r, st)
        .into_iter()
        .map(|s| Orders {
            side: st.sides[s].clone(),
            text: random_orders(r, st, s, rng),
        })
        .collect()
}
