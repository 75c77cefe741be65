//! PREDICT's whole turn for Memoir '44, exactly (issue 55): the distribution
//! of the medals a side's orders gain this turn (and the enemy's, and the
//! game's end), with each battle reckoned on what the earlier steps of the
//! same orders leave: a target already eliminated or gone back, a line of
//! sight a retreat closes, a unit that took ground. (A battle a retreat
//! would open a line of sight for is refused when the orders are checked,
//! before any die: docs/orders.md, PREDICT.)
//!
//! The engine adjudicates every branch itself: the checked plan is carried
//! out by the turn's own code ([`crate::turn::begin_paused`],
//! [`crate::turn::step_paused`], [`crate::turn::finish_paused`]) one step at
//! a time, over a distribution of paused turns, so nothing here
//! re-implements a rule.
//!
//! - Each step is run from each paused turn with dice that show a chosen
//!   sequence of faces, the sequences found die by die: a run that asks
//!   for one die more than its sequence holds is run again once for each
//!   face the next die may show (the six values grouped by the face they
//!   show: the engine reads a die only by its face, `Ruleset::face`), so a
//!   battle that eliminates its target and then overruns, or a retreat
//!   whose path depends on the flags, is followed exactly.
//! - The paused turns each step leaves alike are merged (their state and
//!   what the turn carries besides it), so the work grows with the number
//!   of different positions, not with 6^(all the turn's dice).
//!
//! Counts are exact integers out of 6^(dice): no sampling. Where a turn
//! would need more than [`MAX_RUNS`] runs of a step, or a die that is not
//! a six-sided battle die, None: the answer says so instead.

use crate::battle::Ctx;
use crate::events::Event;
use crate::state::State;
use crate::turn::{self, Paused, Plan};
use adjutant_dice::{ChaChaDice, Dice};
use adjutant_rules::Chance;
use std::collections::BTreeMap;

/// The most runs of the turn's steps a whole turn is reckoned with.
pub const MAX_RUNS: u64 = 2_000;

/// The most dice one branch of a turn may throw (its counts are out of
/// 6^dice, which must fit a u128).
const MAX_DICE: u32 = 48;

/// Where the turn leaves the side: medals gained, medals the enemy gained
/// (the side's units lost this turn), and the winner if the game is over
/// (`Some("")` when it ends without one).
pub type TurnOutcome = (u32, u32, Option<String>);

/// The exact distribution of the whole turn: counts of each outcome out of
/// `total`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholeTurn {
    pub outcomes: BTreeMap<TurnOutcome, u128>,
    pub total: u128,
}

/// Dice that show a chosen sequence of values and then note that the run
/// asked for more.
struct Prefix {
    faces: Vec<u32>,
    next: usize,
    /// A die that is not six-sided was asked for.
    odd: bool,
}

impl Dice for Prefix {
    fn roll(&mut self, sides: u32) -> u32 {
        if sides != 6 {
            self.odd = true;
        }
        let v = self.faces.get(self.next).copied().unwrap_or(1);
        self.next += 1;
        v.clamp(1, sides.max(1))
    }
    fn rolled(&self) -> usize {
        self.next
    }
}

/// The values of the ruleset's die grouped by the face they show: (a value
/// showing it, how many of the six values show it).
fn face_groups(ctx: &Ctx<'_>) -> Vec<(u32, u128)> {
    let mut g: Vec<(String, u32, u128)> = Vec::new();
    for v in 1..=6 {
        let f = ctx.r.face(v);
        match g.iter_mut().find(|x| x.0 == f) {
            Some(x) => x.2 += 1,
            None => g.push((f, v, 1)),
        }
    }
    g.into_iter().map(|(_, v, m)| (v, m)).collect()
}

/// Every end of one piece of the turn run from one position: (what it
/// leaves, the weight of its faces, the dice it threw).
type Leaves<T> = Vec<(T, u128, u32)>;

/// The walk's budget of runs, spent as it goes.
struct Budget {
    runs: u64,
    groups: Vec<(u32, u128)>,
}

impl Budget {
    /// Run `piece` with every sequence of faces it may ask for (die by
    /// die), or None past the budget or on a die that is not a d6.
    fn leaves<T>(&mut self, mut piece: impl FnMut(&mut dyn Dice) -> T) -> Option<Leaves<T>> {
        let mut out = Vec::new();
        let mut todo: Vec<(Vec<u32>, u128)> = vec![(Vec::new(), 1)];
        while let Some((faces, w)) = todo.pop() {
            self.runs += 1;
            if self.runs > MAX_RUNS || faces.len() as u32 > MAX_DICE {
                return None;
            }
            let mut dice = Prefix {
                faces: faces.clone(),
                next: 0,
                odd: false,
            };
            let done = piece(&mut dice);
            if dice.odd {
                return None;
            }
            if dice.next > faces.len() {
                for (v, m) in &self.groups {
                    let mut f = faces.clone();
                    f.push(*v);
                    todo.push((f, w * m));
                }
            } else {
                out.push((done, w, faces.len() as u32));
            }
        }
        Some(out)
    }
}

/// Only what the rest of the turn reads of the events so far: the units
/// eliminated ("Nineteen Eighty-Four" replaces them at the turn's end). The
/// hooks after a step read only that step's events.
fn compact(mut p: Paused) -> Paused {
    p.ev.retain(|e| matches!(e, Event::UnitEliminated { .. }));
    p
}

fn key(p: &Paused) -> String {
    format!(
        "{}|{}|{:?}",
        serde_json::to_string(&p.st).unwrap_or_default(),
        p.key(),
        p.ev
    )
}

/// A distribution of paused turns: each with its count out of 6^dice.
struct Walk {
    at: BTreeMap<String, (Paused, u128)>,
    dice: u32,
}

/// The ends of a piece run from each position of a walk (each position's
/// count with its leaves) scaled to one denominator, the ends alike merged.
fn merge(all: Vec<(u128, Leaves<Paused>)>, before: u32) -> Option<Walk> {
    let most = all
        .iter()
        .flat_map(|(_, l)| l.iter().map(|x| x.2))
        .max()
        .unwrap_or(0);
    let dice = before + most;
    if dice > MAX_DICE {
        return None;
    }
    let mut at: BTreeMap<String, (Paused, u128)> = BTreeMap::new();
    for (w, leaves) in all {
        for (p, c, n) in leaves {
            let p = compact(p);
            let e = at.entry(key(&p)).or_insert((p, 0));
            e.1 += w * c * 6_u128.pow(most - n);
        }
    }
    Some(Walk { at, dice })
}

/// Run `f` with these dice and a deck of PREDICT's own (a fixed seed: the
/// deck is only shuffled, never read for the odds).
fn with_chance<T>(dice: &mut dyn Dice, f: impl FnOnce(&mut Chance<'_>) -> T) -> T {
    let mut deck = ChaChaDice::from_seed([0; 32]);
    let mut chance = Chance {
        dice,
        deck: &mut deck,
    };
    f(&mut chance)
}

/// The exact whole turn of the checked `plan` of `side` on `st` (the
/// position the side may know), or None where it would take more than
/// [`MAX_RUNS`] runs.
#[must_use]
pub fn whole_turn(ctx: &Ctx<'_>, st: &State, plan: &Plan) -> Option<WholeTurn> {
    let mut budget = Budget {
        runs: 0,
        groups: face_groups(ctx),
    };
    let start = budget.leaves(|d| with_chance(d, |c| turn::begin_paused(ctx, st, plan, c)))?;
    let mut walk = merge(vec![(1, start)], 0)?;
    for i in 0..plan.steps.len() {
        let mut all = Vec::new();
        for (p, w) in walk.at.into_values() {
            let leaves = budget
                .leaves(|d| with_chance(d, |c| turn::step_paused(ctx, p.clone(), plan, i, c)))?;
            all.push((w, leaves));
        }
        walk = merge(all, walk.dice)?;
    }
    let mut ends = Vec::new();
    for (p, w) in walk.at.into_values() {
        let leaves = budget
            .leaves(|d| with_chance(d, |c| turn::finish_paused(ctx, p.clone(), st, plan, c).0))?;
        ends.push((w, leaves));
    }
    let most = ends
        .iter()
        .flat_map(|(_, l)| l.iter().map(|x| x.2))
        .max()
        .unwrap_or(0);
    if walk.dice + most > MAX_DICE {
        return None;
    }
    let side = plan.side;
    let enemy = State::other(side);
    let (mine, theirs) = (st.medals(side), st.medals(enemy));
    let mut outcomes: BTreeMap<TurnOutcome, u128> = BTreeMap::new();
    let mut total = 0;
    for (w, leaves) in ends {
        for (end, c, n) in leaves {
            let o = (
                end.medals(side).saturating_sub(mine),
                end.medals(enemy).saturating_sub(theirs),
                end.over.then(|| end.winner.clone().unwrap_or_default()),
            );
            let count = w * c * 6_u128.pow(most - n);
            *outcomes.entry(o).or_insert(0) += count;
            total += count;
        }
    }
    Some(WholeTurn { outcomes, total })
}
