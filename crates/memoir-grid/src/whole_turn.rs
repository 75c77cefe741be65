//! PREDICT's whole turn for the grid games, exactly (issue 55): the
//! distribution of the victory points a side's orders gain this phase, and
//! of the game ending, with each battle reckoned on what the earlier lines of
//! the same orders leave (a target already destroyed or gone back, a
//! minefield's losses, the victory points that end the game).
//!
//! The engine adjudicates every branch itself: [`engine::run`] is given the
//! orders with forced dice, so nothing here re-implements a rule.
//!
//! - The move phase (Turn Sequence 3 and 4: "one side then the other", its
//!   units acting one order line after another). The turn is walked line by
//!   line over a distribution of positions. Each line is run by the engine
//!   alone on each position, once for every multiset of the faces its dice
//!   may show (the grid engine scores a throw by how many of each face it
//!   holds, never by their order: [`engine::face_result`] and
//!   [`engine::settle_counts`]), weighted by how many of the 6^n throws show
//!   it; a battle's faces are grouped by what each does to its target (a
//!   hit, a retreat result, nothing), fewer groups than faces. Positions
//!   the lines leave alike for the rest of the turn are merged ([`key`]:
//!   the units near what the lines still to come name, each side's units
//!   left, the victory points), so the work grows with the number of
//!   different positions the later lines can tell apart, not with 6^(all
//!   the dice): battles far apart add their positions, not multiply them.
//!   A unit's strength is kept only while a line still to come names its
//!   area, and a battle's multisets that settle alike run once
//!   ([`settled_classes`]), so battles crowded together stay exact too.
//! - The artillery phase ("Artillery fire is simultaneous; all losses of
//!   strength value are marked immediately and destroyed Units are removed
//!   after all Artillery Units have fired"): every battery's dice are fixed
//!   by the phase's opening position, so the whole phase is run once for
//!   every combination of the batteries' throws, each battery's grouped by
//!   what they settle to on its target (its losses, at most the target's
//!   strength, and whether it must retreat).
//!
//! Counts are exact integers out of 6^(dice): no sampling. Where a turn
//! would need more than [`MAX_RUNS`] runs of the engine, None: the caller
//! says so instead of giving a figure.

use crate::board::Area;
use crate::engine::{self, Cmd};
use crate::events::Event;
use crate::ruleset::Ruleset;
use crate::state::{State, Step, Unit};
use adjutant_dice::{Dice, ForcedDice};
use adjutant_rules::{Chance, Orders};
use std::collections::BTreeMap;

/// The most runs of the engine a whole turn is reckoned with.
pub const MAX_RUNS: u64 = 150_000;

/// The most dice one branch of a turn may throw (its counts are out of
/// 6^dice, which must fit a u128).
const MAX_DICE: u32 = 48;

/// Where the turn leaves the side: victory points gained, victory points
/// the enemy gained (the side's units destroyed: a minefield's), and the
/// winner if the game is over (`Some("")` a draw).
pub type TurnOutcome = (u32, u32, Option<String>);

/// The exact distribution of the whole turn: counts of each outcome out of
/// `total`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholeTurn {
    pub outcomes: BTreeMap<TurnOutcome, u128>,
    pub total: u128,
}

/// The values of the ruleset's die grouped by what they do: by the face
/// they show, or, for a battle at `target`, by what the face does to it
/// ([`engine::face_result`]: a hit, a retreat result, nothing; the battle
/// reads its dice only so). (a value of the group, how many of the six
/// values are in it.)
fn face_groups(r: &Ruleset, target: Option<&Unit>) -> Vec<(u32, u128)> {
    let mut g: Vec<(String, u32, u128)> = Vec::new();
    for v in 1..=6 {
        let f = r.face(v);
        let f = match target {
            Some(tg) => format!("{:?}", engine::face_result(r, tg, &f)),
            None => f,
        };
        match g.iter_mut().find(|x| x.0 == f) {
            Some(x) => x.2 += 1,
            None => g.push((f, v, 1)),
        }
    }
    g.into_iter().map(|(_, v, m)| (v, m)).collect()
}

fn binomial(n: u32, k: u32) -> u128 {
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * u128::from(n - i) / u128::from(i + 1);
    }
    c
}

/// Every multiset of `n` dice over the face groups: (values showing it, in
/// any order, and how many of the 6^n ordered throws show it).
#[must_use]
pub fn multisets(r: &Ruleset, n: u32) -> Vec<(Vec<u32>, u128)> {
    multisets_of(&face_groups(r, None), n)
}

/// Every multiset of `n` dice over these groups of values.
fn multisets_of(groups: &[(u32, u128)], n: u32) -> Vec<(Vec<u32>, u128)> {
    fn go(
        g: &[(u32, u128)],
        left: u32,
        seq: &mut Vec<u32>,
        w: u128,
        out: &mut Vec<(Vec<u32>, u128)>,
    ) {
        let Some((&(v, m), rest)) = g.split_first() else {
            if left == 0 {
                out.push((seq.clone(), w));
            }
            return;
        };
        if rest.is_empty() {
            let len = seq.len();
            seq.extend(std::iter::repeat_n(v, left as usize));
            out.push((seq.clone(), w * m.pow(left)));
            seq.truncate(len);
            return;
        }
        for k in 0..=left {
            let len = seq.len();
            seq.extend(std::iter::repeat_n(v, k as usize));
            go(rest, left - k, seq, w * binomial(left, k) * m.pow(k), out);
            seq.truncate(len);
        }
    }
    let mut out = Vec::new();
    go(groups, n, &mut Vec::new(), 1, &mut out);
    out
}

/// A battle's multisets grouped by what the engine does with them: it
/// reads a battle's faces only as the losses and the retreat they settle
/// to ([`engine::settle_counts`] in engine.rs `fire`), and a target that
/// loses its last strength point (or any, if it has no strength to lose)
/// is destroyed whatever its retreat results. One multiset stands for
/// each group, weighted by all of the group's throws, so a battle is run
/// once for each different result rather than for each multiset.
fn settled_classes(
    r: &Ruleset,
    st: &State,
    tg: &Unit,
    all: Vec<(Vec<u32>, u128)>,
) -> Vec<(Vec<u32>, u128)> {
    let mut classes: BTreeMap<(u32, bool), (Vec<u32>, u128)> = BTreeMap::new();
    for (faces, c) in all {
        let (h, f) = faces.iter().fold((0, 0), |(h, f), v| {
            let (a, b) = engine::face_result(r, tg, &r.face(*v));
            (h + a, f + b)
        });
        let (losses, retreats) = engine::settle_counts(r, st, tg, h, f);
        let destroyed = losses > 0 && (losses >= tg.strength || tg.max == 0);
        let class = if destroyed {
            (u32::MAX, false)
        } else {
            (losses, retreats)
        };
        classes.entry(class).or_insert((faces, 0)).1 += c;
    }
    classes.into_values().collect()
}

/// Run `text` as `side`'s orders on `st` with these faces: the position it
/// leaves (None: the engine refused it there) and the dice it threw, with
/// the events.
fn run_with(
    r: &Ruleset,
    st: &State,
    side: &str,
    text: &str,
    faces: Vec<u32>,
) -> (Option<engine::Outcome>, usize) {
    let o = [Orders {
        side: side.to_string(),
        text: text.to_string(),
    }];
    let mut dice = ForcedDice::new(faces);
    let mut deck = ForcedDice::new(Vec::new());
    let done = {
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        engine::run(r, st, &o, Some(&mut chance)).ok()
    };
    (done, dice.rolled())
}

/// The fields a line changes, carried onto the walk's position (whose step
/// stays the phase's own: the engine's end of phase is applied once, at the
/// end).
fn carry(base: &State, after: State) -> State {
    let mut s = base.clone();
    s.units = after.units;
    s.terrain = after.terrain;
    s.destroyed = after.destroyed;
    s.next_unit = after.next_unit;
    s.over = after.over;
    s.winner = after.winner;
    s
}

/// The areas an order line names: its unit's, its target's, its path's.
fn named(c: &Cmd) -> Vec<Area> {
    match c {
        Cmd::Fire(a, b)
        | Cmd::Load(a, b)
        | Cmd::Unload(a, b)
        | Cmd::Limber(a, b)
        | Cmd::Unlimber(a, b) => vec![*a, *b],
        Cmd::Move(p) => p.clone(),
        Cmd::RemoveWire(a) => vec![*a],
        Cmd::Initiative(_) | Cmd::Pass => Vec::new(),
    }
}

/// Whether a unit at `x` may be read by a line naming `areas`: within 2
/// areas of one of them (the unit itself, its target, a general with it,
/// a retreat's areas and who holds them, a path and the areas next to it),
/// or within 2 of the way between two of them (the line of sight). The
/// engine reads nothing farther (engine.rs: `fire`, `retreat`, `los`,
/// `combat_terms`, `check_move`), but the whole board's counts (victory
/// points, units left), which the key keeps whole.
fn near(s: &State, x: Area, areas: &[Area]) -> bool {
    let d = |a: Area, b: Area| s.grid.distance(a, b);
    areas.iter().any(|a| d(x, *a) <= 2)
        || areas.iter().enumerate().any(|(i, a)| {
            areas[i + 1..]
                .iter()
                .any(|b| d(*a, x) + d(x, *b) <= d(*a, *b) + 2)
        })
}

/// What the rest of the turn may read of a position: the units near the
/// areas the lines still to come name (whole), how many units each side
/// has, the terrain, the victory points and the game's end. Positions
/// alike in it are alike for the rest of the turn (its lines and its end
/// of phase read nothing else), so they are merged even where they differ
/// in a unit no later line comes near: battles that touch different units
/// do not multiply the positions (issue 55).
///
/// A unit's strength is read only when it takes losses (its own battle, a
/// blocked retreat, a minefield it enters: engine.rs `apply_losses`), so
/// it is kept only for the units standing on an area a line still to come
/// names; a unit moves or retreats only by a line naming its area, so no
/// other unit can come to take losses. Near units elsewhere are kept for
/// what they are and where they stand (a retreat's way, a line of fire, a
/// general's die), not for their strength: a target whose battles are
/// over stops multiplying the positions when battles crowd together.
fn key(s: &State, rest: &[Vec<Area>]) -> String {
    let named: Vec<Area> = rest.iter().flatten().copied().collect();
    let units: Vec<Unit> = s
        .units
        .iter()
        .filter(|u| rest.iter().any(|a| near(s, u.at, a)))
        .map(|u| {
            let mut k = u.clone();
            if !named.contains(&u.at) {
                k.strength = 0;
                k.max = 0;
            }
            k
        })
        .collect();
    let counts: Vec<usize> = (0..s.sides.len())
        .map(|i| s.units.iter().filter(|u| u.side == i).count())
        .collect();
    serde_json::to_string(&(
        units,
        counts,
        &s.terrain,
        &s.destroyed,
        s.next_unit,
        s.over,
        &s.winner,
    ))
    .unwrap_or_default()
}

/// The exact whole turn of `side`'s `orders` on `s` (checked already), or
/// None where it would take more than [`MAX_RUNS`] runs.
#[must_use]
pub fn whole_turn(r: &Ruleset, s: &State, side: usize, orders: &str) -> Option<WholeTurn> {
    let name = s.sides.get(side)?.clone();
    let finals = if s.step == Step::Artillery {
        artillery_turn(r, s, &name, orders)?
    } else {
        move_turn(r, s, &name, orders)?
    };
    let before = s.destroyed.get(side).copied().unwrap_or(0);
    let enemy = 1 - side.min(1);
    let given = s.destroyed.get(enemy).copied().unwrap_or(0);
    let mut outcomes: BTreeMap<TurnOutcome, u128> = BTreeMap::new();
    let mut total = 0;
    for (st, w) in finals {
        let gained = st
            .destroyed
            .get(side)
            .copied()
            .unwrap_or(0)
            .saturating_sub(before);
        let end = if st.over {
            Some(st.winner.clone().unwrap_or_default())
        } else {
            None
        };
        let lost = st
            .destroyed
            .get(enemy)
            .copied()
            .unwrap_or(0)
            .saturating_sub(given);
        *outcomes.entry((gained, lost, end)).or_insert(0) += w;
        total += w;
    }
    Some(WholeTurn { outcomes, total })
}

/// The move phase, line by line: the final positions (after the engine's
/// own end of the phase) with their counts.
fn move_turn(r: &Ruleset, s: &State, name: &str, orders: &str) -> Option<Vec<(State, u128)>> {
    let lines = engine::parse(s, orders).ok()?;
    let mut base = s.clone();
    if let Step::Move { side, .. } = s.step {
        // The walk's positions stay in the first half of the turn, so that
        // running one line does not end the game turn under it.
        base.step = Step::Move {
            side,
            second: false,
        };
    }
    let areas: Vec<Vec<Area>> = lines.iter().map(|l| named(&l.2)).collect();
    let mut dist: BTreeMap<String, (State, u128)> = BTreeMap::new();
    dist.insert(key(&base, &areas), (base, 1));
    let (mut runs, mut thrown) = (0_u64, 0_u32);
    for (i, (_, text, cmd)) in lines.iter().enumerate() {
        let text = format!("{text}\n");
        let rest = &areas[i + 1..];
        let sized: Vec<(State, u128, usize)> = dist
            .into_values()
            .map(|(st, w)| {
                let n = run_with(r, &st, name, &text, Vec::new()).1;
                (st, w, n)
            })
            .collect();
        runs += sized.len() as u64;
        let most = sized.iter().map(|x| x.2).max().unwrap_or(0) as u32;
        thrown += most;
        if thrown > MAX_DICE {
            return None;
        }
        let mut next: BTreeMap<String, (State, u128)> = BTreeMap::new();
        for (st, w, n) in sized {
            let scale = 6_u128.pow(most - n as u32);
            let target = match cmd {
                Cmd::Fire(_, at) => st.unit_at(*at),
                _ => None,
            };
            let throws = if n == 0 {
                vec![(Vec::new(), 1)]
            } else {
                let all = multisets_of(&face_groups(r, target), n as u32);
                match target {
                    Some(tg) => settled_classes(r, &st, tg, all),
                    None => all,
                }
            };
            runs += throws.len() as u64;
            if runs > MAX_RUNS {
                return None;
            }
            for (faces, c) in throws {
                let after = match run_with(r, &st, name, &text, faces).0 {
                    Some(done) => carry(&st, done.st),
                    None => st.clone(),
                };
                let e = next.entry(key(&after, rest)).or_insert((after, 0));
                e.1 += w * c * scale;
            }
        }
        dist = next;
    }
    // The engine's own end of the phase (the turn limit among it).
    Some(
        dist.into_values()
            .map(|(mut st, w)| {
                st.step = s.step;
                let end = run_with(r, &st, name, "", Vec::new()).0;
                (end.map_or(st, |d| d.st), w)
            })
            .collect(),
    )
}

/// The artillery phase: every combination of the batteries' throws, the
/// whole phase run by the engine for each. A battery's throws are grouped
/// by what they settle to on its target ([`settled_classes`] on the
/// phase's opening position): the phase is simultaneous ("all losses of
/// strength value are marked immediately and destroyed Units are removed
/// after all Artillery Units have fired"), so a battery's dice depend on
/// the opening position alone, its losses add to the others' on the same
/// target, and losses past the target's opening strength change nothing
/// (engine.rs `artillery`: a target already marked destroyed takes no
/// more). Le Cateau's three German batteries at close range take a few
/// hundred runs, not millions.
fn artillery_turn(r: &Ruleset, s: &State, name: &str, orders: &str) -> Option<Vec<(State, u128)>> {
    let (probe, _) = run_with(r, s, name, orders, Vec::new());
    let shots: Vec<(u32, Option<&Unit>)> = probe?
        .ev
        .iter()
        .filter_map(|e| match e {
            Event::Fire { dice, at, .. } => {
                Some((*dice, s.grid.parse(at).and_then(|a| s.unit_at(a))))
            }
            _ => None,
        })
        .collect();
    if shots.iter().map(|x| x.0).sum::<u32>() > MAX_DICE {
        return None;
    }
    let each: Vec<Vec<(Vec<u32>, u128)>> = shots
        .iter()
        .map(|(n, tg)| match tg {
            Some(tg) => settled_classes(r, s, tg, multisets_of(&face_groups(r, Some(tg)), *n)),
            None => multisets(r, *n),
        })
        .collect();
    let runs = each
        .iter()
        .try_fold(1_u64, |a, m| a.checked_mul(m.len() as u64))?;
    if runs > MAX_RUNS {
        return None;
    }
    let mut out = Vec::new();
    let mut pick = vec![0_usize; each.len()];
    loop {
        let mut faces = Vec::new();
        let mut w: u128 = 1;
        for (k, m) in pick.iter().zip(&each) {
            faces.extend_from_slice(&m[*k].0);
            w *= m[*k].1;
        }
        if let Some(done) = run_with(r, s, name, orders, faces).0 {
            out.push((done.st, w));
        }
        // The next combination, the last battery's multiset fastest.
        let mut i = pick.len();
        loop {
            if i == 0 {
                return Some(out);
            }
            i -= 1;
            pick[i] += 1;
            if pick[i] < each[i].len() {
                break;
            }
            pick[i] = 0;
        }
    }
}
