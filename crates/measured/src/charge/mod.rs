//! One move of a measured game. Both sides write orders; the judge checks
//! them all (no dice) and then carries out the move in this order
//! (docs/rules/charge.md, "The sequence of a move"):
//!
//! 1. forced moves (retire, break off, rout, exhaustion) and charges, with
//!    the firing-at-chargers die in the move contact is made;
//! 2. every other unit's movement, at once (a unit whose ground would
//!    overlap another's stays where it was);
//! 3. artillery, all batteries at once;
//! 4. musketry, with the who-fires-first dice between units firing at each
//!    other;
//! 5. melee, one move of it for every pair in contact;
//! 6. morale: the 50% rule, then a test for every unit that lost figures
//!    or whose morale is bad.

use super::events::{Charge, Combat, CounterBattery, Event, FireAtChargers, VolleyDie};
use super::geometry::{self as g, fmt_len, Dist2, Footprint, Pt, PER_INCH};
use super::ruleset::Troop;
use super::state::{self, figures, footprint, gun_points, shape, Forced, Melee};
use adjutant_rules::{Chance, Orders, Rejection};
use file::{band_of, Band};
use orders::{parse, Line, Step};

/// Charge!'s position, unit and ruleset: the core's, with Charge!'s parts.
pub type State = crate::state::State<procedures::Charge>;
pub type Unit = crate::state::Unit<procedures::Charge>;
pub type Ruleset = crate::ruleset::Ruleset<procedures::Charge>;
use std::collections::{BTreeMap, BTreeSet};

// The move's steps, each in its own file, in the order above: `check`
// (the orders, before any die) and `sight`, `moves` (1 and 2), `artillery`
// (3), `fire` and `officers` (4), `melee` (5), `morale` (6); this file
// holds the turn (`run`) and the end of the move. Procedures added to the
// move: the General's rally (`general`), houses under fire (`houses`),
// barges on the water (`water`), heavy cavalry riding down infantry
// (`ride_down`), the second move of melee (`pinning`). The order language
// is `orders`; `procedures` implements [`crate::Procedures`] with them.
mod artillery;
pub mod book;
mod check;
pub mod file;
mod fire;
mod general;
mod houses;
mod melee;
mod morale;
mod moves;
mod odds;
mod officers;
pub mod orders;
mod pinning;
pub mod procedures;
pub mod report;
mod ride_down;
mod sight;
pub mod tables;
mod water;

use artillery::*;
use check::*;
use fire::*;
use melee::*;
use morale::*;
use moves::*;
use officers::*;
use sight::*;

pub(crate) use artillery::{cb_reduce, gun_fires, gun_outcomes, Covered, ShotCover};
pub use check::check;
pub(crate) use fire::{firers, skirmish_band};
pub(crate) use houses::{house_key, house_ways, sections_in_reach, HouseShot};
pub use melee::{melee_odds, MeleeOdds};
pub(crate) use morale::{settle_losses, settle_officers};
pub use odds::{charge_odds, melee_morale_odds, ChargeOdds, MeleeEnd, FATES};
pub(crate) use sight::gun_sight;
pub use sight::{musket_sight, Sight};

/// What one move of Charge! did.
pub type Outcome = crate::Outcome<procedures::Charge>;

/// What a unit fires or charges this move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Fire(String),
    Canister(String),
    PickOff(String),
    Charge {
        target: String,
        /// Where the charger ends, in contact.
        front: Pt,
        facing: i32,
        /// Charge distance covered (sixteenths).
        dist: i64,
        /// The face of the target struck: front, right, rear, left.
        face: usize,
        impetus: bool,
    },
}

/// A unit's checked orders for this move.
#[derive(Debug, Clone)]
pub struct Plan {
    pub line: usize,
    pub text: String,
    pub unit: String,
    pub steps: Vec<Step>,
    /// The unit as it stands after its movement steps.
    pub end: Unit,
    /// Ground it passes over (the swept rectangles of its steps).
    pub sweep: Vec<Footprint>,
    pub advanced: bool,
    pub moved: bool,
    /// Distances of its steps, for the report.
    pub measured: Vec<String>,
    pub action: Option<Action>,
    pub battle_move: bool,
    pub enters_ford: Option<u32>,
    pub limber: Option<String>,
}

/// Who must send orders: each side with a unit free to take them.
#[must_use]
pub fn needs(st: &State) -> Vec<usize> {
    if st.over {
        return Vec::new();
    }
    (0..st.sides.len())
        .filter(|s| {
            st.units
                .iter()
                .any(|u| u.side == *s && orderable(u).is_ok())
        })
        .collect()
}

/// Can the unit be given orders this move, or why not.
pub fn orderable(u: &Unit) -> Result<(), String> {
    if u.broken {
        return Err(format!(
            "{} is broken (the 50% rule) and plays no further part",
            u.id
        ));
    }
    if let Some(m) = &u.melee {
        return Err(format!("{} is in melee with {}", u.id, m.with));
    }
    if let Some(n) = u.rallying {
        return Err(format!(
            "{} is being rallied by its General: fit for action in {n} more move{}",
            u.id,
            if n == 1 { "" } else { "s" }
        ));
    }
    match &u.forced {
        Some(Forced::Halt) => {}
        Some(Forced::Retire) => {
            return Err(format!(
                "{} must retire this move (bad morale or a lost melee)",
                u.id
            ))
        }
        Some(Forced::BreakOff) => {
            return Err(format!(
                "{} breaks off to the rear this move (bad morale in melee)",
                u.id
            ))
        }
        Some(Forced::Rout) => {
            return Err(format!(
                "{} moves directly to the rear (the 50% rule)",
                u.id
            ))
        }
        Some(Forced::Exhausted { retire, .. }) if *retire > 0 => {
            return Err(format!(
                "{} retires after a drawn melee ({retire} more moves)",
                u.id
            ))
        }
        Some(Forced::Exhausted { .. }) | None => {}
    }
    if u.crossing > 0 {
        return Err(format!(
            "{} is crossing a ford ({} more moves)",
            u.id, u.crossing
        ));
    }
    Ok(())
}

pub(crate) fn troop<'a>(r: &'a Ruleset, u: &Unit) -> &'a Troop {
    r.troop(&u.troop)
        .or_else(|| r.troops.values().next())
        .expect("a ruleset has troop types")
}

// ------------------------------------------------------------------ the move

struct Turn<'a, 'c, 'd> {
    r: &'a Ruleset,
    st: State,
    ev: Vec<Event>,
    chance: Option<&'c mut Chance<'d>>,
    /// Rank and file lost this move, by unit (for morale and melee).
    lost: BTreeMap<String, u32>,
    /// Casualties a defender's fire at chargers gave its charger.
    melee_credit: BTreeMap<String, u32>,
    /// Exhausted units that retired or fought this move (not a move of rest).
    not_rested: BTreeSet<String>,
}

impl Turn<'_, '_, '_> {
    fn roll(&mut self) -> u32 {
        match self.chance.as_mut() {
            Some(c) => c.dice.roll(6),
            None => 1,
        }
    }
    fn rolls(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.roll()).collect()
    }
    fn kill(&mut self, id: &str, n: u32, by: usize) -> u32 {
        let Some(u) = self.st.unit_mut(id) else {
            return 0;
        };
        let k = n.min(u.rf);
        u.rf -= k;
        // Only the enemy's rank and file score ("the side that removed
        // more enemy rank and file wins", docs/rules/charge.md): a
        // battery's shot or canister that kills its own side's men scores
        // nothing.
        let enemy = u.side != by;
        *self.lost.entry(id.to_string()).or_default() += k;
        if let Some(s) = self.st.removed.get_mut(by).filter(|_| enemy) {
            *s += k;
        }
        k
    }
}

/// Check and carry out the move. `chance` None: check only.
pub fn run(
    r: &Ruleset,
    st: &State,
    orders: &[Orders],
    chance: Option<&mut Chance<'_>>,
) -> Result<Outcome, Rejection> {
    if st.over {
        return Err(Rejection::whole("the game is over"));
    }
    let need = needs(st);
    let mut plans: Vec<(usize, Vec<Plan>)> = Vec::new();
    let mut standing: Vec<(String, Vec<String>)> = Vec::new();
    for o in orders {
        let Some(side) = st.side_index(&o.side) else {
            return Err(Rejection::whole(format!(
                "'{}' is not a side of this game",
                o.side
            )));
        };
        if !need.contains(&side) {
            return Err(Rejection::whole(format!(
                "{} has no orders to give this move",
                o.side
            )));
        }
        if plans.iter().any(|(s, _)| *s == side) {
            return Err(Rejection::whole(format!(
                "two sets of orders for {}",
                o.side
            )));
        }
        plans.push((side, check(r, st, side, &o.text)?));
        for (_, _, l) in parse(&o.text)? {
            if let Line::Standing { id, orders } = l {
                standing.push((id, orders));
            }
        }
    }
    plans.sort_by_key(|(s, _)| *s);
    let Some(chance) = chance else {
        return Ok(Outcome {
            st: st.clone(),
            ev: Vec::new(),
        });
    };
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: Some(chance),
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    t.ev.push(Charge::Move { turn: st.turn });
    for (id, o) in standing {
        if let Some(u) = t.st.unit_mut(&id) {
            if o.iter().any(|x| x == "NONE") {
                u.standing.clear();
            }
            for x in o.into_iter().filter(|x| x != "NONE") {
                if !u.standing.contains(&x) {
                    u.standing.push(x);
                }
            }
        }
    }
    let all: Vec<Plan> = plans.into_iter().flat_map(|(_, p)| p).collect();
    // A halt (bad morale) governed this move's orders, already checked.
    for u in t.st.units.iter_mut() {
        if u.forced == Some(Forced::Halt) {
            u.forced = None;
        }
    }
    let burning = houses::burning_now(&t.st);
    forced_moves(&mut t);
    charges(&mut t, &all);
    let moved_ids = movement(&mut t, &all);
    let rallied = general::rallies(&mut t, &all);
    artillery(&mut t, &all);
    houses::leave_fires(&mut t);
    musketry(&mut t, &all);
    general::fallen(&mut t);
    let contact = in_contact(&t.st);
    melee(&mut t);
    morale(&mut t, &all, &moved_ids);
    keep_contact_apart(&mut t, &contact);
    houses::end_of_move(&mut t, &burning);
    general::end_of_move(&mut t, &rallied);
    end_of_move(&mut t, &all, &moved_ids);
    Ok(Outcome { st: t.st, ev: t.ev })
}

/// PREDICT: the position after the move's forced moves (retire, break
/// off, rout, exhaustion), which come before any fire; no die is thrown.
pub(crate) fn after_forced_moves(r: &Ruleset, st: &State) -> State {
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: None,
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    forced_moves(&mut t);
    t.st
}

/// (attacker, defender) of every melee.
fn in_contact(st: &State) -> Vec<(String, String)> {
    st.units
        .iter()
        .filter_map(|u| {
            u.melee
                .as_ref()
                .filter(|m| m.attacker)
                .map(|m| (u.id.clone(), m.with.clone()))
        })
        .collect()
}

/// Units in melee touch. A unit whose ranks thin is redrawn narrower about
/// the centre of its front, and the corners of a slanted rectangle round
/// to the sixteenth differently, so its opponent can end a sixteenth
/// inside it: the attacker stands back until the two only touch.
/// `pairs`: (attacker, defender) in contact this move, whether or not
/// their melee has ended since.
fn keep_contact_apart(t: &mut Turn<'_, '_, '_>, pairs: &[(String, String)]) {
    let r = t.r;
    for (a, d) in pairs {
        let Some(dfp) = t.st.unit(d).map(|u| footprint(r, u)) else {
            continue;
        };
        for _ in 0..8 {
            let Some(u) = t.st.unit(a) else { break };
            if !g::overlap(&footprint(r, u), &dfp) {
                break;
            }
            let back = g::offset(u.front, i64::from(u.facing), -1, 0);
            if let Some(m) = t.st.unit_mut(a) {
                m.front = back;
            }
        }
    }
}

fn end_of_move(t: &mut Turn<'_, '_, '_>, all: &[Plan], moved: &BTreeSet<String>) {
    let fired: BTreeSet<String> = all
        .iter()
        .filter(|p| {
            p.action
                .as_ref()
                .is_some_and(|a| matches!(a, Action::Fire(_) | Action::Canister(_)))
        })
        .map(|p| p.unit.clone())
        .collect();
    for u in t.st.units.iter_mut() {
        if u.crossing > 0 && !moved.contains(&u.id) {
            u.crossing -= 1;
        }
        if !moved.contains(&u.id) && u.melee.is_none() && u.forced.is_none() {
            u.rest += 1;
        }
        for gk in u.guns.iter_mut() {
            if !fired.contains(&u.id) {
                gk.fired_last = false;
            }
        }
        if let Some(k) = u.exhausted_since.as_mut() {
            *k += 1;
        }
        // A move of rest is one neither retiring nor fighting: "two of
        // retreat and two of rest".
        if let Some(Forced::Exhausted { retire: 0, rest }) = u.forced.clone() {
            if !t.not_rested.contains(&u.id) && u.melee.is_none() {
                u.forced = if rest <= 1 {
                    None
                } else {
                    Some(Forced::Exhausted {
                        retire: 0,
                        rest: rest - 1,
                    })
                };
            }
        }
        // Exhaustion ends with its rest, but not in the middle of a fight.
        if !matches!(u.forced, Some(Forced::Exhausted { .. })) && u.melee.is_none() {
            u.exhausted_since = None;
        }
    }
    let turn = t.st.turn;
    t.st.turn += 1;
    let active: Vec<usize> = (0..t.st.sides.len())
        .map(|s| {
            t.st.units
                .iter()
                .filter(|u| u.side == s && !u.broken && !general::non_combatant(troop(t.r, u)))
                .count()
        })
        .collect();
    let winner = if active[0] == 0 && active[1] == 0 {
        Some(String::new())
    } else if active[0] == 0 {
        Some(t.st.sides[1].clone())
    } else if active[1] == 0 {
        Some(t.st.sides[0].clone())
    } else if turn >= t.st.moves {
        Some(match t.st.removed[0].cmp(&t.st.removed[1]) {
            std::cmp::Ordering::Greater => t.st.sides[0].clone(),
            std::cmp::Ordering::Less => t.st.sides[1].clone(),
            std::cmp::Ordering::Equal => String::new(),
        })
    } else {
        None
    };
    if let Some(w) = winner {
        t.st.over = true;
        t.ev.push(Charge::GameOver {
            winner: w.to_string(),
            removed: t.st.removed.clone(),
        });
        t.st.winner = Some(w);
    }
}
