//! The Martian general's plan for the War of the Worlds' towns
//! (docs/general.md, "The Martian general"): which Handling Machine goes to
//! which town still to seize, and in what order, so that the machines split
//! the towns between them and the last one is seized as early as the board
//! allows. Scenario-agnostic: any number of machines and towns.
//!
//! Deterministic: units by id, towns by hex, ties by the order enumerated.

use super::super::board::Hex;
use super::super::ruleset::Ruleset;
use super::super::state::State;
use super::super::variants::worlds::Worlds;

/// One Handling Machine's round of the towns still to seize: its unit id,
/// where it stands, its towns in the order it is to take them, and what
/// the round costs in hexes (every leg, and a machine's move for each
/// town, the whole turn it must stay there).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Round {
    pub id: u32,
    pub at: Hex,
    pub towns: Vec<Hex>,
    pub cost: u32,
}

/// More assignments of towns to machines than this and each town goes to
/// its nearest machine instead (no shipped scenario comes near it).
const MAX_ASSIGNMENTS: usize = 4096;

/// The machines' move this turn: the type's move less the sickness, at
/// least 1.
fn step(r: &Ruleset, w: &Worlds) -> u32 {
    r.units
        .get(&r.worlds.handling)
        .map_or(3, |u| u.r#move)
        .saturating_sub(w.sick)
        .max(1)
}

/// The rounds of the Martian Handling Machines in `s`: every town still to
/// seize given to one machine, the split that seizes the last town soonest
/// (the longest round shortest, then the rounds' sum). Empty outside the
/// variant, with no machine or no town left.
pub(super) fn rounds(r: &Ruleset, s: &State) -> Vec<Round> {
    let Some(w) = &s.worlds else {
        return Vec::new();
    };
    let mut machines: Vec<(u32, Hex)> = s
        .units
        .iter()
        .filter(|u| u.side == w.martian && u.kind == r.worlds.handling)
        .map(|u| (u.id, u.at))
        .collect();
    machines.sort_unstable();
    let mut towns = w.objectives.clone();
    towns.sort_unstable();
    if machines.is_empty() || towns.is_empty() {
        return Vec::new();
    }
    let hold = step(r, w);
    let m = machines.len();
    let combos = u32::try_from(towns.len())
        .ok()
        .and_then(|t| m.checked_pow(t))
        .filter(|c| *c <= MAX_ASSIGNMENTS);
    let split = |owner: &[usize]| -> Vec<Round> {
        machines
            .iter()
            .enumerate()
            .map(|(i, &(id, at))| {
                let mine: Vec<Hex> = towns
                    .iter()
                    .zip(owner)
                    .filter(|(_, o)| **o == i)
                    .map(|(t, _)| *t)
                    .collect();
                let (order, legs) = best_order(at, &mine);
                Round {
                    id,
                    at,
                    cost: legs + hold * u32::try_from(order.len()).unwrap_or(u32::MAX),
                    towns: order,
                }
            })
            .collect()
    };
    let key = |rs: &[Round]| {
        (
            rs.iter().map(|x| x.cost).max().unwrap_or(0),
            rs.iter().map(|x| x.cost).sum::<u32>(),
        )
    };
    let Some(combos) = combos else {
        // Too many to try: each town to its nearest machine.
        let owner: Vec<usize> = towns
            .iter()
            .map(|t| {
                (0..m)
                    .min_by_key(|&i| (machines[i].1.distance(*t), i))
                    .unwrap_or(0)
            })
            .collect();
        return split(&owner);
    };
    let mut best: Option<((u32, u32), Vec<Round>)> = None;
    for c in 0..combos {
        let mut owner = Vec::with_capacity(towns.len());
        let mut x = c;
        for _ in 0..towns.len() {
            owner.push(x % m);
            x /= m;
        }
        let rs = split(&owner);
        let k = key(&rs);
        if best.as_ref().is_none_or(|(b, _)| k < *b) {
            best = Some((k, rs));
        }
    }
    best.map(|(_, rs)| rs).unwrap_or_default()
}

/// The order of `towns` from `at` with the fewest hexes in all (every
/// order up to six towns, else the nearest next), and those hexes.
fn best_order(at: Hex, towns: &[Hex]) -> (Vec<Hex>, u32) {
    let legs = |order: &[Hex]| -> u32 {
        let mut from = at;
        let mut sum = 0;
        for t in order {
            sum += from.distance(*t);
            from = *t;
        }
        sum
    };
    if towns.len() > 6 {
        let mut left = towns.to_vec();
        let mut order = Vec::new();
        let mut from = at;
        while !left.is_empty() {
            let i = (0..left.len())
                .min_by_key(|&i| (from.distance(left[i]), i))
                .unwrap_or(0);
            from = left.remove(i);
            order.push(from);
        }
        let l = legs(&order);
        return (order, l);
    }
    let mut best: (Vec<Hex>, u32) = (towns.to_vec(), legs(towns));
    let mut perm = towns.to_vec();
    permute(&mut perm, 0, &mut |p| {
        let l = legs(p);
        if l < best.1 {
            best = (p.to_vec(), l);
        }
    });
    best
}

fn permute(v: &mut Vec<Hex>, k: usize, f: &mut dyn FnMut(&[Hex])) {
    if k + 1 >= v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, f);
        v.swap(k, i);
    }
}

/// The town a Handling Machine is to go to next (its round's first), if it
/// has one.
pub(super) fn target(rounds: &[Round], id: u32) -> Option<Hex> {
    rounds
        .iter()
        .find(|x| x.id == id)
        .and_then(|x| x.towns.first().copied())
}

/// What the Martians' rounds of the towns are worth to them: each machine
/// on the town it is holding 10, less 1.5 a hex of the longest round and
/// of all the rounds together (the longest round is when the last town
/// falls, so its hexes count twice). A machine's progress along a round
/// always gains.
pub(super) fn rounds_value(r: &Ruleset, s: &State) -> f64 {
    let rs = rounds(r, s);
    let holding = rs.iter().filter(|x| x.towns.first() == Some(&x.at)).count() as f64;
    let longest = rs.iter().map(|x| x.cost).max().unwrap_or(0);
    let all: u32 = rs.iter().map(|x| x.cost).sum();
    10.0 * holding - 1.5 * f64::from(longest + all)
}
