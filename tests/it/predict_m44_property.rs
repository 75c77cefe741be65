//! PREDICT's exact odds against the engine's own adjudication (issue 32,
//! acceptance 3), for Memoir '44: for random positions (every kind of unit
//! that battles at range or in close assault: infantry, elite infantry,
//! armour light to heavy, artillery, anti-tank guns and the 88mm, snipers,
//! the Infantry Support Weapons (mortar, flame-thrower, machine-gun, anti-tank
//! infantry), cavalry; targets as various, militia, ski troops and
//! very heavy armour among them; the target in the open, woods, a town, a
//! hedgerow, on a hill, behind sandbags or in a bunker, at full strength or
//! down to its last figures, on its own board edge or with units behind it
//! that block a retreat; the order given by Direct from HQ, or by Close
//! Assault and Firefight, which add a die; or Air Power and Barrage on the
//! target's hex, where a star hits or flags cannot be ignored) and one
//! battle, the exact distribution of where the battle leaves the target
//! (its figures and hex, or eliminated), as PREDICT reckons it
//! (`predict::exact_outcomes`: the die's faces convolved, each result
//! carried out by the battle code), agrees with the frequencies of the
//! engine's adjudication of the same orders over seeded runs.
//!
//! Tolerance: for an outcome of exact probability p over N runs, the count
//! seen is within 4 standard errors, 4 * sqrt(N p (1 - p)), plus 2 runs (a
//! slack for outcomes so rare that N p is well below one); an outcome of
//! probability 0 must never be seen. The positions take close assault,
//! ranged combat and a card's dice in turn. The seeds are fixed, so a run
//! is the same every time (at 4 standard errors a fresh seed set of
//! hundreds of positions may, rarely, show one outcome past it by chance:
//! replay the position with more runs before calling it a bug). Quick by
//! default (1,500 runs of 10 positions, a few seconds); `ADJUTANT_DEEP=1`
//! runs 6,000 of 20 (`PREDICT_M44_RUNS`, `PREDICT_M44_POSITIONS` set exact
//! counts).
//!
//! The whole turn (issue 55): for random positions where two units battle
//! the same target (a second unit of the side's, infantry or armour, next
//! to the target; the first battle may eliminate the target, make it
//! retreat or leave it weaker), the exact distribution of the turn's medals
//! (each side's, and the game's end) as PREDICT reckons it
//! (`predict::exact_whole_turn`: the turn's own code carried out step by step
//! over every throw) agrees with the engine's adjudication of the same
//! orders over seeded runs, to the same tolerance. Quick by default (1,500
//! runs of 6 positions); `ADJUTANT_DEEP=1` runs 6,000 of 30
//! (`PREDICT_M44_TURN_POSITIONS` sets an exact count).

use crate::common::depth;
use adjutant::engine::dice::{ChaChaDice, Dice};
use adjutant::rules::memoir44::predict::{self, exact_outcomes, ExactBattle, Outcome};
use adjutant::rules::memoir44::{self as m44, Hex, Ruleset, State};
use adjutant::rules::{Chance, Family};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const ATTACKERS: &[&str] = &[
    "infantry",
    "elite-infantry",
    "medium-armour",
    "light-medium-armour",
    "heavy-armour",
    "heavy-artillery",
    "medium-artillery",
    "anti-tank",
    "88mm",
    "sniper",
    "mortar",
    "flame-thrower",
    "machine-gun",
    "anti-tank-infantry",
    "cavalry",
];
const TARGETS: &[&str] = &[
    "infantry",
    "elite-infantry",
    "medium-armour",
    "heavy-armour",
    "infantry-tanks",
    "heavy-artillery",
    "sniper",
    "militia-infantry",
    "ski-troops",
    "very-heavy-armour",
];
/// The target hex's tile (a list: a tile and an obstacle).
const COVER: &[&str] = &[
    "\"open\"",
    "\"woods\"",
    "\"town\"",
    "\"hedgerow\"",
    "\"hill\"",
    "[\"open\", \"sandbag\"]",
    "[\"open\", \"bunker\"]",
];
/// The card; Air Power and Barrage target the hex (no attacking unit).
/// The kinds of battle the positions take in turn.
const KINDS: [&str; 3] = ["close assault", "ranged combat", "a card's dice"];
const CARDS: &[&str] = &[
    "direct-from-hq",
    "direct-from-hq",
    "close-assault",
    "firefight",
    "air-power",
    "barrage",
];

fn pick<T: Copy>(rng: &mut ChaChaDice, v: &[T]) -> T {
    v[rng.roll(v.len() as u32) as usize - 1]
}

/// A hex name of the board ("E5"), letter `l` (0 = A) and row `row` (1-9),
/// or None off the board (even rows hold A-L only).
fn hex_name(l: i32, row: i32) -> Option<String> {
    let last = if row % 2 == 1 { 12 } else { 11 };
    ((0..=last).contains(&l) && (1..=9).contains(&row))
        .then(|| format!("{}{row}", char::from(b'A' + l as u8)))
}

/// A random position and one battle of the Allies' that the engine
/// accepts: (state, the orders, the kind of battle), or None if this draw
/// gave no legal battle.
fn position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<(State, String, &'static str)> {
    let (fl, fr) = (rng.roll(13) as i32 - 1, rng.roll(6) as i32);
    let from = hex_name(fl, fr)?;
    // The target ahead (toward the Axis edge, row 9), 1 to 4 rows on, or
    // on row 9 itself a fifth of the time.
    let tr = if rng.roll(5) == 1 {
        9
    } else {
        (fr + rng.roll(4) as i32).min(9)
    };
    let tl = fl + rng.roll(3) as i32 - 2;
    let target = hex_name(tl, tr)?;
    let mut text = String::from(
        "id = \"prop\"\nname = \"prop\"\nruleset = \"memoir44\"\nvictory = 6\nfirst = \"allies\"\n\
         [[sides]]\nid = \"allies\"\nname = \"Allies\"\ncards = 1\n\
         [[sides]]\nid = \"axis\"\nname = \"Axis\"\ncards = 1\n[terrain]\n",
    );
    let _ = writeln!(text, "{target} = {}", pick(rng, COVER));
    let mut unit = |at: &str, side: &str, kind: &str| {
        let _ = write!(
            text,
            "[[units]]\nat = \"{at}\"\nside = \"{side}\"\ntype = \"{kind}\"\n"
        );
    };
    unit(&from, "allies", pick(rng, ATTACKERS));
    unit(&target, "axis", pick(rng, TARGETS));
    // Units behind the target that may block its retreat (either side's).
    let mut used = vec![from.clone(), target.clone()];
    for _ in 0..rng.roll(4) - 1 {
        let Some(b) = hex_name(tl + rng.roll(3) as i32 - 2, tr + rng.roll(2) as i32 - 1) else {
            continue;
        };
        if !used.contains(&b) {
            unit(
                &b,
                pick(rng, &["allies", "axis"]),
                pick(rng, &["infantry", "medium-armour"]),
            );
            used.push(b);
        }
    }
    let mut st = m44::load_scenario(r, &text, "prop.toml").ok()?;
    let at = Hex::parse(&target)?;
    // A target down to its last figures a third of the time.
    let weaken = rng.roll(3) == 1;
    if let Some(u) = st.units.iter_mut().find(|u| u.at == at) {
        if weaken && u.figures > 1 {
            u.figures = rng.roll(u.figures - 1);
        }
    }
    let card = pick(rng, CARDS);
    st.hands = vec![vec![card.to_string()], vec![]];
    st.deck = r.deck();
    if let Some(p) = st.deck.iter().position(|c| c == card) {
        st.deck.remove(p);
    }
    st.to_move = 0;
    st.turn = 1;
    let orders = if matches!(card, "air-power" | "barrage") {
        format!("PLAY {card}\nTARGET {target}\n")
    } else {
        format!("PLAY {card}\nORDER {from}\nBATTLE {from} {target}\n")
    };
    Family::check(r, &st, "allies", &orders).ok()?;
    let kind = if matches!(card, "air-power" | "barrage") {
        "a card's dice"
    } else if Hex::parse(&from)?.distance(at) == 1 {
        "close assault"
    } else {
        "ranged combat"
    };
    Some((st, orders, kind))
}

use crate::common::seed_from as seed;

/// Where the engine's adjudication of `orders` left the target.
fn adjudicated(r: &Ruleset, st: &State, target: u32, orders: &str, s: [u8; 32]) -> Outcome {
    let mut dice = ChaChaDice::from_seed(s);
    let mut deck = ChaChaDice::from_seed(seed(&[7, 7, 7, 7]));
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let (out, _) = m44::adjudicate(r, st, "allies", orders, &mut chance)
        .expect("the checked orders are played");
    out.unit(target)
        .map_or((0, None), |u| (u.figures, Some(u.at)))
}

/// One position: the exact distribution against `runs` seeded runs.
/// Returns how many outcomes the exact distribution has.
fn agree(r: &Ruleset, k: u64, st: &State, orders: &str, runs: u64) -> usize {
    let battles = exact_outcomes(r, st, "allies", orders).expect("checked orders");
    let [ExactBattle {
        target,
        outcomes: exact,
        total,
    }] = battles.as_slice()
    else {
        panic!(
            "position {k}: one BATTLE, {} reckoned\n{orders}{}\n{:?}",
            battles.len(),
            predict::predict(r, st, "allies", orders).unwrap_or_default(),
            st.units
        );
    };
    let mut seen: BTreeMap<Outcome, u64> = BTreeMap::new();
    for i in 0..runs {
        let o = adjudicated(r, st, *target, orders, seed(&[k, i, 44, 32]));
        *seen.entry(o).or_insert(0) += 1;
    }
    let n = runs as f64;
    let keys: Vec<Outcome> = exact.keys().chain(seen.keys()).copied().collect();
    for key in keys {
        let p = exact.get(&key).copied().unwrap_or(0) as f64 / *total as f64;
        let got = seen.get(&key).copied().unwrap_or(0) as f64;
        let allowed = if p == 0.0 {
            0.0
        } else {
            4.0 * (n * p * (1.0 - p)).sqrt() + 2.0
        };
        assert!(
            (got - n * p).abs() <= allowed,
            "position {k}, {orders}outcome {key:?}: exact {p:.5} ({} of {total}), \
             engine {got} of {runs} (allowed +-{allowed:.1})\nexact {exact:?}\nseen {seen:?}\n{:?}",
            exact.get(&key).copied().unwrap_or(0),
            st.units
        );
    }
    exact.len()
}

#[test]
fn m44_exact_odds_agree_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_M44_RUNS", 1_500, 6_000);
    let positions = depth::games("PREDICT_M44_POSITIONS", 10, 20);
    let r = Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[44, 32, 32, 32]));
    let (mut done, mut tries, mut varied) = (0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some((st, orders, kind)) = position(&r, &mut rng) else {
            continue;
        };
        // The kinds of battle in turn, so that every depth has each.
        if kind != KINDS[done as usize % KINDS.len()] {
            continue;
        }
        if agree(&r, done, &st, &orders, runs) > 2 {
            varied += 1;
        }
        kinds.insert(kind);
        done += 1;
    }
    // More than "hit or miss", and every kind of battle.
    assert!(varied > 0, "every position had two outcomes or fewer");
    assert_eq!(
        kinds.len(),
        3,
        "the positions fought only {kinds:?}: want close assault, ranged combat and a card's dice"
    );
}

/// Where the engine's adjudication of `orders` leaves the turn: (the
/// Allies' medals gained, the Axis's, the winner if the game is over).
fn adjudicated_turn(
    r: &Ruleset,
    st: &State,
    orders: &str,
    s: [u8; 32],
) -> adjutant::rules::memoir44::whole_turn::TurnOutcome {
    let mut dice = ChaChaDice::from_seed(s);
    let mut deck = ChaChaDice::from_seed(seed(&[7, 7, 7, 7]));
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let (out, _) = m44::adjudicate(r, st, "allies", orders, &mut chance)
        .expect("the checked orders are played");
    (
        out.medals(0).saturating_sub(st.medals(0)),
        out.medals(1).saturating_sub(st.medals(1)),
        out.over.then(|| out.winner.clone().unwrap_or_default()),
    )
}

/// A position of [`position`]'s with a second unit of the Allies' next to
/// the target, both ordered by Direct from HQ and both battling it.
fn two_battles(r: &Ruleset, rng: &mut ChaChaDice) -> Option<(State, String)> {
    let (mut st, orders, kind) = position(r, rng)?;
    if kind == "a card's dice" {
        return None;
    }
    let line = orders.lines().find(|l| l.starts_with("BATTLE "))?;
    let mut words = line.split_whitespace().skip(1);
    let (from, target) = (words.next()?.to_string(), words.next()?.to_string());
    let at = Hex::parse(&target)?;
    let on_board = |h: &Hex| {
        let name = h.to_string();
        let l = i32::from(name.as_bytes()[0]) - i32::from(b'A');
        let row: i32 = name[1..].parse().unwrap_or(0);
        hex_name(l, row).is_some_and(|n| n == name)
    };
    let free: Vec<Hex> = at
        .neighbours()
        .into_iter()
        .filter(|h| on_board(h) && st.units.iter().all(|u| u.at != *h))
        .collect();
    if free.is_empty() {
        return None;
    }
    let second = free[rng.roll(free.len() as u32) as usize - 1];
    let (kind, figures) = pick(rng, &[("infantry", 4), ("medium-armour", 3)]);
    let id = st.units.iter().map(|u| u.id).max().unwrap_or(0) + 1;
    st.units
        .push(m44::state::Unit::arriving(id, 0, kind, second, figures));
    st.next_unit = st.next_unit.max(id + 1);
    st.hands = vec![vec!["direct-from-hq".to_string()], vec![]];
    st.deck = r.deck();
    if let Some(p) = st.deck.iter().position(|c| c == "direct-from-hq") {
        st.deck.remove(p);
    }
    let orders = format!(
        "PLAY direct-from-hq\nORDER {from}\nORDER {second}\nBATTLE {from} {target}\nBATTLE {second} {target}\n"
    );
    Family::check(r, &st, "allies", &orders).ok()?;
    Some((st, orders))
}

#[test]
fn m44_whole_turn_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_M44_RUNS", 1_500, 6_000);
    let positions = depth::games("PREDICT_M44_TURN_POSITIONS", 6, 15);
    let r = Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[44, 55, 55, 55]));
    let (mut done, mut tries, mut varied) = (0, 0, 0);
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some((st, orders)) = two_battles(&r, &mut rng) else {
            continue;
        };
        let exact = predict::exact_whole_turn(&r, &st, "allies", &orders)
            .expect("checked orders")
            .unwrap_or_else(|| panic!("position {done}: no exact whole turn\n{orders}"));
        let mut seen = BTreeMap::new();
        for i in 0..runs {
            let o = adjudicated_turn(&r, &st, &orders, seed(&[done, i, 44, 55]));
            *seen.entry(o).or_insert(0_u64) += 1;
        }
        let n = runs as f64;
        let keys: Vec<_> = exact.outcomes.keys().chain(seen.keys()).cloned().collect();
        for key in keys {
            let c = exact.outcomes.get(&key).copied().unwrap_or(0);
            let p = c as f64 / exact.total as f64;
            let got = seen.get(&key).copied().unwrap_or(0) as f64;
            let allowed = if p == 0.0 {
                0.0
            } else {
                4.0 * (n * p * (1.0 - p)).sqrt() + 2.0
            };
            assert!(
                (got - n * p).abs() <= allowed,
                "position {done}, {orders}outcome {key:?}: exact {p:.5} ({c} of {}), \
                 engine {got} of {runs} (allowed +-{allowed:.1})\nexact {:?}\nseen {seen:?}\n{:?}",
                exact.total,
                exact.outcomes,
                st.units
            );
        }
        if exact.outcomes.len() > 1 {
            varied += 1;
        }
        done += 1;
    }
    assert!(varied > 0, "every position's turn had one outcome");
}
