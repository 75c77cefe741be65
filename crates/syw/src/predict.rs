//! PREDICT (docs/orders.md) for the Seven Years' War: the odds of the
//! active side's orders for its player-turn, before it sends them.
//!
//! The orders are checked exactly as a submission is (the same
//! rejection). Each FIRE AT of a whole unit that does nothing else (a
//! unit that moves cannot fire) is reckoned exactly: its dice are the
//! fire step's own ([`engine::odds::fire_terms`]: figures facing the
//! target, the halvings, the fire bonus, dense targets, canister, the
//! weather in force), each die kills on the table's faces, and every
//! number killed is settled by the engine's own code for each face of the
//! TEST die ([`engine::odds::settle_fire`]: disorder at 2 casualties,
//! removal at 75%, the morale TEST) on a copy.
//!
//! The player-turn's fog-of-war throw is the game's own and unknown: the
//! exact odds assume no new fog event (the effects in force stand). A
//! refused line's section fire (FIRE AT x WITH section), each section at a
//! target of its own, is reckoned exactly the same way, a section's dice
//! as the fire step reckons a section's shot
//! ([`engine::odds::section_fire_terms`]). The rest (charges with the
//! other side's response, two sections at one target, fire after another
//! unit's result) is sampled from the engine's own adjudication
//! of the orders over [`adjutant_measured_core::predict::SAMPLE_RUNS`] runs with dice of
//! PREDICT's own seeds (the fog-of-war table thrown with them too), the
//! enemy's standing orders unknown and taken as none. Nothing is stored.

use super::engine::{self, odds, Plan};
use super::orders::Step;
use crate::geometry::fmt_len;
use crate::state::Forced;
use crate::Ruleset;
use crate::{State, Unit};
use adjutant_measured_core::predict::{kill_distribution, pc, sample_move, shares, wrap, States};
use adjutant_rules::Rejection;
use std::fmt::Write as _;

/// The most dice one fire is reckoned for.
pub const MAX_DICE: u32 = 200;

/// PREDICT for `side`'s orders: the answer, or the rejection a submission
/// of the same orders would get.
pub fn predict(r: &Ruleset, st: &State, side: &str, orders: &str) -> Result<String, Rejection> {
    r.book().check(r, st, side, orders)?;
    let idx = st
        .side_index(side)
        .ok_or_else(|| Rejection::whole(format!("'{side}' is not a side of this game")))?;
    let plans = engine::check(r, st, idx, orders)?;
    let mut out = format!("PREDICT for {side}: the odds of these orders, not played.\n");
    let mut n = 0;
    let mut watched: Vec<String> = Vec::new();
    for p in &plans {
        let Some(target) = target_of(p) else { continue };
        n += 1;
        out.push('\n');
        watched.push(target.to_string());
        match p.steps.as_slice() {
            [Step::FireAt(t)] if st.unit(t).is_some_and(|u| u.forced.is_some()) => {
                out.push_str(&wrap(&format!(
                    "Battle {n}: {} fires at {t}: {t} must retreat or rout first, by its own \
                     movement dice, so the range is not known; see the player-turn's figures \
                     below.",
                    p.unit
                )));
            }
            [Step::FireAt(t)] if st.unit(&p.unit).is_some_and(|u| u.refused.is_empty()) => {
                out.push_str(&fire_odds(r, st, n, &p.unit, t));
            }
            steps if section_shots(steps).is_some() => {
                for (k, (t, sec, bonus)) in
                    section_shots(steps).unwrap_or_default().iter().enumerate()
                {
                    if k > 0 {
                        out.push('\n');
                    }
                    let head = format!("Battle {n}: {} ({sec} section) fires at {t}", p.unit);
                    let f = odds::section_fire_terms(r, st, (&p.unit, sec, *bonus), t);
                    out.push_str(&fire_odds_of(r, st, &head, &p.unit, t, f));
                }
            }
            _ => out.push_str(&wrap(&format!(
                "Battle {n}: {} {} {target}: its result depends on the player-turn's \
                 sequence; see the player-turn's figures below.",
                p.unit,
                if matches!(p.steps.last(), Some(Step::Charge(_) | Step::ChargeWith(..))) {
                    "charges"
                } else {
                    "fires at"
                }
            ))),
        }
        if matches!(p.steps.last(), Some(Step::Charge(_) | Step::ChargeWith(..))) {
            watched.push(p.unit.clone());
        }
    }
    if n == 0 {
        out.push_str("\nThese orders fight no battle: there are no odds to give.\n");
        return Ok(out + ASSUMED);
    }
    watched.sort();
    watched.dedup();
    out.push_str(&sample_move(
        r,
        st,
        (side, idx),
        orders,
        &watched,
        &SYW_STATES,
    ));
    Ok(out + ASSUMED)
}

const SYW_STATES: States<super::SevenYearsWar> = States {
    turn: "player-turn",
    bad: ("retreats or disordered", |u| {
        u.forced == Some(Forced::Retire) || u.marker.as_deref() == Some("orange")
    }),
    broken: ("routs", |u| u.forced == Some(Forced::Rout)),
};

const ASSUMED: &str =
    "\nAssumed: no new fog-of-war event this player-turn (the game's own throw\n    \
is unknown; the effects in force stand) in the exact odds; the enemy's\n    \
standing orders are unknown and taken as none. Each fire is reckoned on\n    \
the position at the start of the player-turn, with no loss before it.\n";

/// The unit a plan fires at or charges.
fn target_of(p: &Plan) -> Option<&str> {
    p.steps.iter().rev().find_map(|s| match s {
        Step::FireAt(t) | Step::Charge(t) | Step::SectionFire(t, ..) | Step::ChargeWith(t, _) => {
            Some(t.as_str())
        }
        _ => None,
    })
}

/// A refused line's section fire (`FIRE AT x WITH sec [BONUS]`, each
/// section at a target of its own): (target, section, fire bonus) of each
/// shot, the bonus given as the fire step gives it ("No section named for
/// the bonus: the first written"). None: not only section fire, or two
/// sections at one target (the second's dice then depend on the first's
/// result: sampled).
fn section_shots(steps: &[Step]) -> Option<Vec<(String, String, bool)>> {
    let ss: Vec<(String, String, bool)> = steps
        .iter()
        .map(|s| match s {
            Step::SectionFire(t, sec, b) => Some((t.clone(), sec.clone(), *b)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut targets: Vec<&String> = ss.iter().map(|x| &x.0).collect();
    targets.sort();
    targets.dedup();
    if ss.is_empty() || targets.len() != ss.len() {
        return None;
    }
    let any = ss.iter().any(|x| x.2);
    Some(
        ss.iter()
            .enumerate()
            .map(|(i, (t, sec, b))| (t.clone(), sec.clone(), *b || (!any && i == 0)))
            .collect(),
    )
}

/// The odds text of battle `n`: `shooter`'s fire at `target`.
fn fire_odds(r: &Ruleset, st: &State, n: usize, shooter: &str, target: &str) -> String {
    let head = format!("Battle {n}: {shooter} fires at {target}");
    let f = odds::fire_terms(r, st, shooter, target);
    fire_odds_of(r, st, &head, shooter, target, f)
}

/// The odds text of a fire whose terms are `f`, headed `head`.
fn fire_odds_of(
    r: &Ruleset,
    st: &State,
    head: &str,
    shooter: &str,
    target: &str,
    f: Result<odds::FireTerms, String>,
) -> String {
    let (f, tg) = match (f, st.unit(target)) {
        (Ok(f), Some(tg)) => (f, tg),
        (Err(why), _) => return wrap(&format!("{head}: no fire ({why})")),
        (_, None) => return wrap(&format!("{head}: no such unit")),
    };
    let mut out = wrap(&format!(
        "{head} at {}: {} = {} {}",
        fmt_len(f.range),
        f.why.join(", "),
        f.dice,
        if f.dice == 1 { "die" } else { "dice" }
    ));
    if st
        .unit(shooter)
        .is_some_and(|u| u.marker.as_deref() == Some("orange"))
    {
        out.push_str(&wrap(&format!(
            "  ({shooter} is disordered: reckoned so; if it clears its disorder \
             first, it fires whole, with its fire bonus)"
        )));
    }
    let kills = f.kill.len();
    out.push_str(&wrap(&format!(
        "  A die kills on {} ({kills} of 6); {} has {} figures",
        f.kill
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" or "),
        tg.id,
        tg.rf
    )));
    if f.dice > MAX_DICE {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return out;
    }
    let killed = kill_distribution(f.dice, kills as u32, tg.rf);
    out.push_str(&wrap(&format!(
        "  Killed: {}",
        shares(&killed, "killed", "killed")
    )));
    let by = st.unit(shooter).map_or(0, |u| u.side);
    let fate = fates(r, st, (&f, by), tg, &killed);
    out.push_str(&wrap(&format!(
        "  Target: no loss {}; steady {}; disordered {}; retreats {}; routs {}; \
         removed from play {}",
        pc(fate[0]),
        pc(fate[1]),
        pc(fate[2]),
        pc(fate[3]),
        pc(fate[4]),
        pc(fate[5])
    )));
    let mean: f64 = killed.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
    let _ = writeln!(
        out,
        "  Expected victory points: {mean:.2} (figures removed from the enemy)"
    );
    out
}

/// The exact odds of `shooter`'s whole-unit fire at `target` on `st`: the
/// chance of each number killed and of each fate ([`fates`]), the
/// answer's own arithmetic (for tests/it/predict_measured_property.rs).
/// None: no fire.
#[must_use]
pub fn exact_fire(
    r: &Ruleset,
    st: &State,
    shooter: &str,
    target: &str,
) -> Option<(Vec<f64>, [f64; 6])> {
    let f = odds::fire_terms(r, st, shooter, target).ok()?;
    let (sh, tg) = (st.unit(shooter)?, st.unit(target)?);
    let killed = kill_distribution(f.dice, f.kill.len() as u32, tg.rf);
    let fate = fates(r, st, (&f, sh.side), tg, &killed);
    Some((killed, fate))
}

/// The exact odds of one section of the refused line `shooter` firing at
/// `target` (its fire bonus if `bonus`): the chance of each number killed
/// and of each fate, as [`exact_fire`] (for
/// tests/it/predict_measured_property.rs). None: no fire.
#[must_use]
pub fn exact_section_fire(
    r: &Ruleset,
    st: &State,
    (shooter, section, bonus): (&str, &str, bool),
    target: &str,
) -> Option<(Vec<f64>, [f64; 6])> {
    let f = odds::section_fire_terms(r, st, (shooter, section, bonus), target).ok()?;
    let (sh, tg) = (st.unit(shooter)?, st.unit(target)?);
    let killed = kill_distribution(f.dice, f.kill.len() as u32, tg.rf);
    let fate = fates(r, st, (&f, sh.side), tg, &killed);
    Some((killed, fate))
}

/// The chance of each fate of the target: [no loss, steady after its
/// loss, disordered, retreats, routs, removed], each number killed settled
/// by the engine for each face of the TEST die.
#[must_use]
pub fn fates(
    r: &Ruleset,
    st: &State,
    (f, by): (&odds::FireTerms, usize),
    tg: &Unit,
    killed: &[f64],
) -> [f64; 6] {
    let mut fate = [0.0; 6];
    for (k, p) in killed.iter().enumerate() {
        if *p == 0.0 {
            continue;
        }
        if k == 0 {
            fate[0] += p;
            continue;
        }
        for die in 1..=6 {
            let (after, _) = odds::settle_fire(r, st, f, (&tg.id, k as u32, by), die);
            fate[fate_of(after.unit(&tg.id))] += p / 6.0;
        }
    }
    fate
}

/// Index of a target's fate after the player-turn: 1 steady, 2
/// disordered, 3 retreats, 4 routs, 5 removed.
#[must_use]
pub fn fate_of(u: Option<&Unit>) -> usize {
    match u {
        None => 5,
        Some(u) if u.forced == Some(Forced::Rout) => 4,
        Some(u) if u.forced == Some(Forced::Retire) => 3,
        Some(u) if u.marker.as_deref() == Some("orange") => 2,
        Some(_) => 1,
    }
}
