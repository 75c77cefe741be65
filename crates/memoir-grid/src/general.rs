//! The judge's general's own idea of sensible grid orders (docs/general.md,
//! `Family::general_orders`), beside the random generator's (random.rs),
//! which moves or fires each unit at random and seldom closes on the
//! enemy: in the artillery phase every gun fires at the weakest enemy it
//! may; in a move phase every unit that may fire from where it stands
//! fires at the weakest enemy in reach, and the rest close on the nearest
//! enemy (area by area, as far as the engine's check lets them) and fire
//! from there if they still may. Variants hold some units back at random
//! and vary the initiative choice. The general plays every candidate out
//! and keeps the best, so these need only be worth a look, and legal:
//! every line is added only if the engine's own check accepts the orders.
//!
//! It reads the position it is given only, and draws from `rng` only.

use super::board::Area;
use super::ruleset::Ruleset;
use super::state::{State, Step, Unit};
use adjutant_dice::Dice;
use adjutant_rules::Family;

/// Orders for side `side` worth the general's look (the pass when it has
/// nothing to fire or move); `None` after eight variants, or with no enemy
/// left.
pub fn general_orders(
    r: &Ruleset,
    st: &State,
    side: usize,
    rng: &mut dyn Dice,
    variant: u32,
) -> Option<String> {
    if st.over || variant >= 8 {
        return None;
    }
    let name = st.sides.get(side)?;
    let accepts = |lines: &[String]| {
        let mut text = lines.join("\n");
        text.push('\n');
        Family::check(r, st, name, &text).is_ok()
    };
    let enemies: Vec<&Unit> = st.units.iter().filter(|u| u.side != side).collect();
    if enemies.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = Vec::new();
    if variant % 4 == 3 {
        lines.push("INITIATIVE SECOND".into());
    } else if variant % 4 == 1 {
        lines.push("INITIATIVE FIRST".into());
    }
    if !lines.is_empty() && !accepts(&lines) {
        lines.clear();
    }
    let own: Vec<&Unit> = st.units.iter().filter(|u| u.side == side).collect();
    for u in own {
        let Some(spec) = r.unit(&u.kind) else {
            continue;
        };
        if let Step::Artillery = st.step {
            if !spec.artillery.is_empty() {
                fire(st, u.at, &enemies, &mut lines, &accepts);
            }
            continue;
        }
        // From the second variant on, one unit in three holds where it is.
        if variant > 0 && rng.roll(3) == 1 {
            continue;
        }
        if !spec.combat.is_empty() && fire(st, u.at, &enemies, &mut lines, &accepts) {
            continue;
        }
        let to = close_in(st, u, spec.r#move, &enemies, &mut lines, &accepts);
        if to != u.at && !spec.combat.is_empty() {
            fire(st, to, &enemies, &mut lines, &accepts);
        }
    }
    if lines.is_empty() {
        // Nothing to fire or move (an artillery phase with no gun in
        // range): the pass, which keeps the standing initiative choice.
        return Some("PASS\n".into());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Some(text)
}

/// FIRE from `from` at the weakest enemy the check accepts (the nearest of
/// equals); true if one was added.
fn fire(
    st: &State,
    from: Area,
    enemies: &[&Unit],
    lines: &mut Vec<String>,
    accepts: &dyn Fn(&[String]) -> bool,
) -> bool {
    let mut targets: Vec<&&Unit> = enemies.iter().collect();
    targets.sort_by_key(|e| (e.strength, st.grid.distance(from, e.at), e.at));
    for e in targets {
        lines.push(format!("FIRE {from} {}", e.at));
        if accepts(lines) {
            return true;
        }
        lines.pop();
    }
    false
}

/// MOVE `u` area by area towards the nearest enemy, while each step brings
/// it nearer and the check accepts the path; the area it ends in.
fn close_in(
    st: &State,
    u: &Unit,
    moves: u32,
    enemies: &[&Unit],
    lines: &mut Vec<String>,
    accepts: &dyn Fn(&[String]) -> bool,
) -> Area {
    let gap = |a: Area| {
        enemies
            .iter()
            .map(|e| st.grid.distance(a, e.at))
            .min()
            .unwrap_or(0)
    };
    let mut path = vec![u.at];
    let mut kept: Option<String> = None;
    for _ in 0..moves.max(1) {
        let here = *path.last().unwrap_or(&u.at);
        if gap(here) <= 1 {
            break;
        }
        let mut next: Vec<Area> = st
            .grid
            .neighbours(here)
            .into_iter()
            .filter(|a| !path.contains(a) && gap(*a) < gap(here))
            .collect();
        next.sort_by_key(|a| (gap(*a), *a));
        let mut stepped = false;
        for a in next {
            let mut p = path.clone();
            p.push(a);
            let line = format!(
                "MOVE {}",
                p.iter().map(Area::to_string).collect::<Vec<_>>().join(" ")
            );
            lines.push(line.clone());
            let ok = accepts(lines);
            lines.pop();
            if ok {
                path = p;
                kept = Some(line);
                stepped = true;
                break;
            }
        }
        if !stepped {
            break;
        }
    }
    match kept {
        Some(line) => {
            lines.push(line);
            *path.last().unwrap_or(&u.at)
        }
        None => u.at,
    }
}
