//! PREDICT (docs/orders.md) for Charge!: the odds of a side's orders for
//! the move, before it sends them.
//!
//! The orders are checked exactly as a submission is (the same
//! rejection). Each line-infantry volley (LINE INFANTRY MUSKETRY) is
//! reckoned exactly on the position the side's own movement leaves (the
//! checked plans' end positions; the enemy is assumed to stand): its dice
//! are the engine's own terms (firers, a die per `fire_per`, the first
//! volley or normal deduction of the range band, open or in cover), each
//! die's hits strike the figures of its target group of 6 by a figure die,
//! and the rank and file killed are enumerated exactly over every die.
//! Each number killed is then settled by the engine's own morale step
//! ([`engine::settle_losses`]) for each face of the morale die, on a copy.
//!
//! Light infantry's skirmishing fire, canister, picking off officers,
//! roundshot and shells ([`exact_gunfire`]: every throw of the placing
//! dice, then a die per figure covered) are reckoned exactly the same way,
//! with the morale of every other unit under the guns or in the cones
//! (each one's loss settled the same way) and of a unit whose officers
//! are picked off (every set of the officers hit dead, settled by the
//! engine's saving throws and morale step, [`engine::settle_officers`]).
//! A battery's shot that may strike a house has the engine's own house
//! step played on each face of its dice ([`engine::house_ways`]).
//!
//! A mêlée already in contact when the move begins is reckoned exactly by
//! the engine's own mêlée procedure ([`engine::melee_odds`]: its pairing
//! or second move, modifiers and a die a side for each combat).
//!
//! A charge made this move is reckoned exactly by the engine's own steps
//! played once for each count its dice decide ([`engine::charge_odds`]:
//! the defender's fire at its chargers, the ride-down, the first move of
//! the mêlée with the charge's impetus, the morale tests of its units),
//! and the morale tests after a mêlée already in contact the same way
//! ([`engine::melee_morale_odds`]); a charge at a unit already in a mêlée
//! fights both mêlées in the engine's order, each on what the other left,
//! and the side's other charges are played with it in the order written.
//!
//! The rest of the move (the whole move's figures) depends on the order of the
//! move's sequence and on earlier results: it is sampled from the
//! engine's own adjudication of the orders over [`SAMPLE_RUNS`] runs with
//! dice of PREDICT's own seeds, never the game's. Charge! has no hidden
//! information but the enemy's orders, which are unknown: the answer
//! assumes the enemy stands and does not fire. Nothing is stored.

use crate::charge::file::band_of;
use crate::charge::Ruleset;
use crate::charge::{self as engine, Action, Plan};
pub use crate::charge::{ChargeOdds, MeleeEnd};
use crate::charge::{State, Unit};
use crate::events::Charge;
use crate::geometry::fmt_len;
use adjutant_measured_core::predict::{
    add, kill_distribution, pc, sample_move, shares, wrap, States,
};
use adjutant_rules::Rejection;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most dice one volley or canister shot is reckoned for. Each die is
/// one step of an exact convolution (a volley's die over its faces and
/// figure dice, canister's a binomial step), so the work grows with the
/// dice times the target's figures: small even at this many. No volley
/// comes near it (a unit has at most 96 rank and file: 24 dice of
/// grenadiers); canister's dice are the figures in the guns' cones, which
/// passed the old bound of 40 (tests/cases/charge/predict-canister-84-dice.toml).
pub const MAX_DICE: u32 = 1_000;

/// The most terrains a battery's walk over its guns keeps apart
/// ([`exact_gunfire`]): beyond, the answer samples the move. A guard (a
/// PREDICT of four guns at a row of three sections answered in 0.13 s).
const MAX_TERRAINS: usize = 10_000;

/// PREDICT for `side`'s Charge! orders: the answer, or the rejection a
/// submission of the same orders would get.
pub fn predict(r: &Ruleset, st: &State, side: &str, orders: &str) -> Result<String, Rejection> {
    r.book().check(r, st, side, orders)?;
    let idx = st
        .side_index(side)
        .ok_or_else(|| Rejection::whole(format!("'{side}' is not a side of this game")))?;
    let plans = engine::check(r, st, idx, orders)?;
    // Forced moves (a rout, a retirement) come first in the move.
    let fired_on = engine::after_forced_moves(r, st);
    let moved: BTreeMap<String, Unit> = plans
        .iter()
        .map(|p| (p.unit.clone(), p.end.clone()))
        .collect();
    let mut out = format!("PREDICT for {side}: the odds of these orders, not played.\n");
    let mut n = 0;
    let mut sampled: Vec<String> = Vec::new();
    for p in &plans {
        let Some(a) = &p.action else { continue };
        n += 1;
        out.push('\n');
        match a {
            Action::Fire(x) if engine::troop(r, &p.end).musket == "line" => {
                let tg = fired_on.unit(x).filter(|u| u.side != idx);
                match tg {
                    Some(tg) => out.push_str(&volley_odds(r, &fired_on, &moved, n, &p.end, tg)),
                    None => {
                        let _ = writeln!(out, "Battle {n}: {} fires at {x}: no enemy unit", p.unit);
                    }
                }
            }
            Action::Fire(x) if engine::troop(r, &p.end).musket == "light" => {
                match fired_on.unit(x).filter(|u| u.side != idx) {
                    Some(tg) => out.push_str(&skirmish_odds(r, &fired_on, &moved, n, &p.end, tg)),
                    None => {
                        let _ = writeln!(out, "Battle {n}: {} fires at {x}: no enemy unit", p.unit);
                    }
                }
            }
            Action::Fire(x) if engine::troop(r, &p.end).is("artillery") => {
                match fired_on.unit(x).filter(|u| u.side != idx) {
                    Some(tg) => out.push_str(&gunfire_odds(r, &fired_on, &moved, n, &p.end, tg)),
                    None => {
                        let _ = writeln!(
                            out,
                            "Battle {n}: {} fires its guns at {x}: no enemy unit",
                            p.unit
                        );
                    }
                }
            }
            Action::Canister(x) => match fired_on.unit(x).filter(|u| u.side != idx) {
                Some(tg) => out.push_str(&canister_odds(r, &fired_on, &moved, n, &p.end, tg)),
                None => {
                    let _ = writeln!(
                        out,
                        "Battle {n}: {} fires canister at {x}: no enemy unit",
                        p.unit
                    );
                }
            },
            Action::PickOff(x) => match fired_on.unit(x).filter(|u| u.side != idx) {
                Some(tg) => out.push_str(&pick_off_odds(r, &fired_on, &moved, n, &p.end, tg)),
                None => {
                    let _ = writeln!(
                        out,
                        "Battle {n}: {} picks off at {x}: no enemy unit",
                        p.unit
                    );
                }
            },
            Action::Charge { target, .. } => {
                if let Some(text) = charge_block(r, &fired_on, &plans, n, &p.unit, target) {
                    out.push_str(&text);
                } else {
                    let _ = writeln!(
                        out,
                        "Battle {n}: {} charges {target}: its result depends on the move's sequence;\n    \
                         see the move's figures below.",
                        p.unit
                    );
                    sampled.push(target.to_string());
                }
            }
            _ => {
                let (what, x) = sampled_kind(r, p, a);
                let _ = writeln!(
                    out,
                    "Battle {n}: {} {what} {x}: its result depends on the move's sequence;\n    \
                     see the move's figures below.",
                    p.unit
                );
                sampled.push(x.to_string());
            }
        }
    }
    for a in fired_on.units.iter().filter(|u| {
        u.melee.as_ref().is_some_and(|m| {
            m.attacker && (u.side == idx || fired_on.unit(&m.with).is_some_and(|d| d.side == idx))
        })
    }) {
        if let Some(m) = engine::melee_odds(r, &fired_on, &a.id) {
            n += 1;
            out.push('\n');
            out.push_str(&melee_text(n, &m));
            if let Some(o) = engine::melee_morale_odds(r, &unseen(&fired_on, idx), &plans, &a.id) {
                out.push_str(&fate_text(&o, "  "));
            }
        }
    }
    if n == 0 {
        out.push_str("\nThese orders fight no battle: there are no odds to give.\n");
        return Ok(out + ASSUMED);
    }
    let mut watched: Vec<String> = plans
        .iter()
        .filter_map(|p| match &p.action {
            Some(Action::Fire(x) | Action::Canister(x) | Action::PickOff(x)) => Some(x.clone()),
            Some(Action::Charge { target, .. }) => Some(target.clone()),
            None => None,
        })
        .collect();
    watched.extend(
        plans
            .iter()
            .filter(|p| matches!(p.action, Some(Action::Charge { .. })))
            .map(|p| p.unit.clone()),
    );
    watched.sort();
    watched.dedup();
    out.push_str(&sample_move(
        r,
        st,
        (side, idx),
        orders,
        &watched,
        &CHARGE_STATES,
    ));
    Ok(out + ASSUMED)
}

const ASSUMED: &str = "\nAssumed: the enemy's orders and standing orders are unknown; the\n    \
enemy is taken to stand and not to fire. Each volley is reckoned on the\n    \
position the move's forced moves and your own movement leave, with no\n    \
loss before it.\n";

/// The odds text of a melee already in contact, `n`th of the answer
/// ([`engine::melee_odds`]): the figures each side loses in its next move
/// and how the move ends, exactly.
fn melee_text(n: usize, m: &engine::MeleeOdds) -> String {
    let mut lost = [Vec::new(), Vec::new()];
    let mut ends: BTreeMap<&str, f64> = BTreeMap::new();
    for ((la, ld, end), p) in &m.outcomes {
        for (v, k) in lost.iter_mut().zip([*la, *ld]) {
            if v.len() <= k as usize {
                v.resize(k as usize + 1, 0.0);
            }
            v[k as usize] += p;
        }
        *ends.entry(end).or_default() += p;
    }
    let mut out = wrap(&format!(
        "Melee {n}: {} attacking {}, move {} of the melee ({} v {} figures engaged{}): exact, a die a side for each combat",
        m.attacker,
        m.defender,
        m.round,
        m.engaged[0],
        m.engaged[1],
        if m.house { ", breaking into a house" } else { "" }
    ));
    out.push_str(&wrap(&format!(
        "  {} loses: {}",
        m.attacker,
        shares(&lost[0], "figure", "figures")
    )));
    out.push_str(&wrap(&format!(
        "  {} loses: {}",
        m.defender,
        shares(&lost[1], "figure", "figures")
    )));
    let at = |k: &str| pc(ends.get(k).copied().unwrap_or(0.0));
    out.push_str(&wrap(&format!(
        "  The attacker withdraws {}, the defender withdraws {}, a draw (both exhausted) {}, the melee continues {}",
        at("attacker withdraws"),
        at("defender withdraws"),
        at("draw"),
        at("continues")
    )));
    out
}

/// `st` with the standing orders of every unit not of side `idx` taken as
/// none (the enemy's are sealed: docs/rules/charge.md).
fn unseen(st: &State, idx: usize) -> State {
    let mut st = st.clone();
    for u in st.units.iter_mut().filter(|u| u.side != idx) {
        u.standing.clear();
    }
    st
}

/// The odds text of `unit`'s charge at `target`, `n`th of the answer,
/// reckoned exactly ([`engine::charge_odds`]) on `st` (after the move's
/// forced moves) with the enemy's standing orders taken as none, and, if
/// the target could fire at its chargers, again as if it does. None: not
/// reckoned exactly.
fn charge_block(
    r: &Ruleset,
    st: &State,
    plans: &[Plan],
    n: usize,
    unit: &str,
    target: &str,
) -> Option<String> {
    let idx = st.unit(unit)?.side;
    let plain = unseen(st, idx);
    let o = engine::charge_odds(r, &plain, plans, unit)?;
    let mut out = wrap(&format!(
        "Battle {n}: {unit} charges {target}{}: exact, {}a die a side for each combat, then the morale dice",
        if o.impetus {
            " (with impetus)"
        } else {
            " (at its normal rate, no impetus)"
        },
        if o.riders > 0 {
            format!("{} horsemen throwing to ride it down, ", o.riders)
        } else {
            String::new()
        }
    ));
    let others: Vec<&str> = plans
        .iter()
        .filter(|p| p.unit != unit && matches!(p.action, Some(Action::Charge { .. })))
        .map(|p| p.unit.as_str())
        .collect();
    if !others.is_empty() {
        out.push_str(&wrap(&format!(
            "  with this move's other charges ({}) played in the order written, each way their dice fall",
            others.join(", ")
        )));
    }
    if let Some(m) = st.unit(target).and_then(|u| u.melee.as_ref()) {
        out.push_str(&wrap(&format!(
            "  {target} is already in a melee with {}, fought in the same step (its own lines below): the losses here are {unit}'s melee's; the morale lines count both",
            m.with
        )));
    }
    out.push_str(&charge_lines(&o, "  "));
    let mut firing = plain.clone();
    if let Some(u) = firing.units.iter_mut().find(|u| u.id == target) {
        u.standing.push("FIRE AT CHARGERS".into());
    }
    if let Some(f) = engine::charge_odds(r, &firing, plans, unit).filter(|f| f.fired > 0.0) {
        out.push_str(&wrap(&format!(
            "  If {target} has standing orders to fire at chargers (it fires {}):",
            pc(f.fired)
        )));
        out.push_str(&charge_lines(&f, "    "));
    }
    Some(out)
}

/// The lines of a charge's exact odds: what each unit loses in the move,
/// the ride-down, how the mêlée's move ends, and the morale after it.
fn charge_lines(o: &engine::ChargeOdds, ind: &str) -> String {
    let mut ids: Vec<String> = vec![o.attacker.clone(), o.target.clone()];
    let mut lost: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut ends: BTreeMap<&str, f64> = BTreeMap::new();
    let mut through = 0.0;
    // The figures lost to the move's guns and musketry before the melee.
    let mut fired: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (e, p) in &o.outcomes {
        let mut add_lost = |id: &str, k: u32| {
            let v = lost.entry(id.to_string()).or_default();
            if v.len() <= k as usize {
                v.resize(k as usize + 1, 0.0);
            }
            v[k as usize] += p;
        };
        let shot = |id: &str| e.shot.iter().find(|(u, _)| u == id).map_or(0, |(_, k)| *k);
        for (id, k) in &e.shot {
            let v = fired.entry(id.clone()).or_default();
            if v.len() <= *k as usize {
                v.resize(*k as usize + 1, 0.0);
            }
            v[*k as usize] += p;
        }
        let mut add_lost = |id: &str, k: u32| add_lost(id, k + shot(id));
        add_lost(&o.attacker, e.fire_killed + e.losses[0]);
        if e.with == o.target {
            add_lost(&o.target, e.losses[1]);
        } else {
            through += p;
            add_lost(&o.target, e.ridden);
            if !e.with.is_empty() {
                if !ids.contains(&e.with) {
                    ids.push(e.with.clone());
                }
                add_lost(&e.with, e.losses[1]);
            }
        }
        *ends
            .entry(if e.outcome.is_empty() {
                "none"
            } else {
                e.outcome.as_str()
            })
            .or_default() += p;
    }
    let mut out = String::new();
    for (id, v) in &mut fired {
        let hit: f64 = v.iter().sum();
        v[0] += 1.0 - hit;
        out.push_str(&wrap(&format!(
            "{ind}{id} loses to this move's guns and musketry before the melee: {}",
            shares(v, "figure", "figures")
        )));
    }
    for id in &ids {
        if let Some(v) = lost.get(id) {
            out.push_str(&wrap(&format!(
                "{ind}{id} loses: {}",
                shares(v, "figure", "figures")
            )));
        }
    }
    if o.riders > 0 {
        out.push_str(&wrap(&format!(
            "{ind}The horsemen burst through {}",
            pc(through)
        )));
    }
    let at = |k: &str| pc(ends.get(k).copied().unwrap_or(0.0));
    out.push_str(&wrap(&format!(
        "{ind}The attacker withdraws {}, the defender withdraws {}, a draw (both exhausted) {}, the melee continues {}{}",
        at("attacker withdraws"),
        at("defender withdraws"),
        at("draw"),
        at("continues"),
        if ends.contains_key("none") {
            format!(", no melee {}", at("none"))
        } else {
            String::new()
        }
    )));
    out + &fate_text(o, ind)
}

/// The morale line of each unit of a mêlée's exact odds.
fn fate_text(o: &engine::ChargeOdds, ind: &str) -> String {
    let mut fates: BTreeMap<&str, [f64; 5]> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (e, p) in &o.outcomes {
        for (id, f) in &e.fates {
            if !order.contains(&id.as_str()) {
                order.push(id);
            }
            fates.entry(id).or_default()[*f] += p;
        }
    }
    let mut out = String::new();
    for id in order {
        let f = fates[id];
        let parts: Vec<String> = engine::FATES
            .iter()
            .zip(f)
            .map(|(w, p)| format!("{w} {}", pc(p)))
            .collect();
        out.push_str(&wrap(&format!(
            "{ind}{id}'s morale after the move: {}",
            parts.join(", ")
        )));
    }
    out
}

/// How a battle other than a line volley is named, and its target.
fn sampled_kind<'a>(r: &Ruleset, p: &Plan, a: &'a Action) -> (&'static str, &'a str) {
    match a {
        Action::Fire(x) if engine::troop(r, &p.end).is("artillery") => ("fires its guns at", x),
        Action::Fire(x) => ("skirmishes at", x),
        Action::Canister(x) => ("fires canister at", x),
        Action::PickOff(x) => ("picks off officers of", x),
        Action::Charge { target, .. } => ("charges", target),
    }
}

/// The odds text of line volley `n` of `sh` at `tg`.
fn volley_odds(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    n: usize,
    sh: &Unit,
    tg: &Unit,
) -> String {
    let mut out = format!("Battle {n}: {} fires at {}", sh.id, tg.id);
    let Some(v) = volley_terms(r, st, moved, sh, tg) else {
        out.push_str(": no volley (it cannot fire at it from where it ends)\n");
        return out;
    };
    out = wrap(&format!(
        "{out} ({}, {}, {}): {} firers, a die per {} = {} {}",
        fmt_len(v.range),
        if v.first { "first volley" } else { "normal" },
        if v.cover { "in cover" } else { "in the open" },
        v.firers,
        v.per,
        v.dice,
        if v.dice == 1 { "die" } else { "dice" }
    ));
    let _ = writeln!(
        out,
        "  Each die less {} ({} deductions to {}, {}); each hit a die for the\n    \
         figure of its target group of {} ({} rank and file)",
        v.deduct,
        if v.first { "first volley" } else { "normal" },
        fmt_len(v.band_to),
        if v.cover { "cover" } else { "open" },
        r.group,
        tg.rf
    );
    if v.dice > MAX_DICE {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return out;
    }
    let killed = volley_distribution(v.dice, v.deduct, tg.rf, r.group);
    out + &result_lines(r, st, sh.side, tg, &killed, &[])
}

/// The killed, morale and victory point lines of a fire whose killed
/// distribution is `killed`; `also`: the chance of each number killed of
/// every other unit the fire may kill men of (a battery's shots, canister),
/// whose enemy units' expected losses score too.
fn result_lines(
    r: &Ruleset,
    st: &State,
    by: usize,
    tg: &Unit,
    killed: &[f64],
    also: &[(String, Vec<f64>)],
) -> String {
    let mut out = wrap(&format!("  Killed: {}", shares(killed, "killed", "killed")));
    let fate = morale_fates(r, st, tg, by, killed);
    out.push_str(&fate_lines("  Morale", &fate));
    let mut parts = vec![(tg.id.clone(), mean(killed))];
    parts.extend(
        also.iter()
            .filter(|(id, _)| st.unit(id).is_some_and(|u| u.side != by))
            .map(|(id, d)| (id.clone(), mean(d))),
    );
    let total = expected_victory(st, by, &[(tg.id.clone(), killed.to_vec())], also);
    if parts.len() == 1 {
        let _ = writeln!(
            out,
            "  Expected victory points: {total:.2} (rank and file removed from the enemy)"
        );
    } else {
        let each: Vec<String> = parts.iter().map(|(id, m)| format!("{id} {m:.2}")).collect();
        out.push_str(&wrap(&format!(
            "  Expected victory points: {total:.2} (rank and file removed from the enemy: {})",
            each.join(", ")
        )));
    }
    out
}

/// The mean of a distribution of counts (index: the count).
fn mean(d: &[f64]) -> f64 {
    d.iter().enumerate().map(|(k, p)| k as f64 * p).sum()
}

/// The expected victory points of side `by`'s fire (issue 55): the
/// expected rank and file killed of every enemy unit among `target` and
/// `others` (each unit's chance of each number killed), as the engine
/// scores them (a side scores the enemy's rank and file it removes, its
/// own men killed by its guns score nothing: docs/rules/charge.md, "The
/// end of a game"). Expectation is additive, so the units' losses, though
/// thrown by the same shots, add up exactly.
#[must_use]
pub fn expected_victory(
    st: &State,
    by: usize,
    target: &[(String, Vec<f64>)],
    others: &[(String, Vec<f64>)],
) -> f64 {
    target
        .iter()
        .chain(others)
        .filter(|(id, _)| st.unit(id).is_some_and(|u| u.side != by))
        .map(|(_, d)| mean(d))
        .sum()
}

/// The odds text of light infantry's skirmishing fire `n` of `sh` at `tg`
/// (LIGHT INFANTRY MUSKETRY: a die per figure, the table by the target's
/// kind and cover).
fn skirmish_odds(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    n: usize,
    sh: &Unit,
    tg: &Unit,
) -> String {
    let head = format!("Battle {n}: {} fires into {}", sh.id, tg.id);
    let Some((sight, band)) = skirmish_terms(r, st, moved, sh, tg) else {
        return wrap(&format!(
            "{head}: no effect (out of reach or sight, or not at that range)"
        ));
    };
    let kill: Vec<String> = band.kill.iter().map(ToString::to_string).collect();
    let out = wrap(&format!(
        "{head} ({}, {}{}): a die per figure = {} {}, killing on {} ({} of 6)",
        fmt_len(sight.dist.floor()),
        if troop(r, tg).light {
            "light infantry"
        } else {
            "into the brown"
        },
        if sight.cover {
            ", in cover"
        } else {
            ", in the open"
        },
        sh.rf,
        if sh.rf == 1 { "die" } else { "dice" },
        kill.join(" or "),
        band.kill.len()
    ));
    let killed = kill_distribution(sh.rf, band.kill.len() as u32, tg.rf);
    out + &result_lines(r, st, sh.side, tg, &killed, &[])
}

fn troop<'a>(r: &'a Ruleset, u: &Unit) -> &'a crate::ruleset::Troop {
    engine::troop(r, u)
}

/// Light infantry's sight and band at `tg`, as the engine reckons them.
fn skirmish_terms(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    sh: &Unit,
    tg: &Unit,
) -> Option<(engine::Sight, crate::charge::file::Band)> {
    let sight = engine::musket_sight(r, st, sh, tg, moved).ok()?;
    let band = engine::skirmish_band(r, tg, &sight)?;
    Some((sight, band))
}

/// The exact odds of `shooter`'s line volley or light infantry's
/// skirmishing fire at `target` on `st` (after the move's forced moves): the chance of each number killed and of each morale outcome
/// (the answer's own arithmetic, for the property test
/// tests/it/predict_measured_property.rs). None: no volley.
#[must_use]
pub fn exact_volley(
    r: &Ruleset,
    st: &State,
    shooter: &str,
    target: &str,
) -> Option<(Vec<f64>, Fate)> {
    let st = &engine::after_forced_moves(r, st);
    let (sh, tg) = (st.unit(shooter)?, st.unit(target)?);
    let killed = if troop(r, sh).musket == "light" {
        let (_, band) = skirmish_terms(r, st, &BTreeMap::new(), sh, tg)?;
        kill_distribution(sh.rf, band.kill.len() as u32, tg.rf)
    } else {
        let v = volley_terms(r, st, &BTreeMap::new(), sh, tg)?;
        volley_distribution(v.dice, v.deduct, tg.rf, r.group)
    };
    let fate = morale_fates(r, st, tg, sh.side, &killed);
    Some((killed, fate))
}

/// Picking off officers (LIGHT INFANTRY MUSKETRY, "Picking off
/// individuals"; "Saving throw for officers"), as the engine reckons it:
/// a die per rank and file of the shooter, each on the band's faces a hit;
/// the hits go to the target's officers still standing, the highest first
/// (beyond the near band only mounted ones), at most one hit each; each
/// officer hit then throws his saving throw. The exact chance of each
/// number of officers hit and killed, with the dice and the faces; None:
/// no picking off from there (out of range, or line infantry in cover).
#[must_use]
pub fn exact_pick_off(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    sh: &Unit,
    tg: &Unit,
) -> Option<PickOff> {
    let sight = engine::musket_sight(r, st, sh, tg, moved).ok()?;
    let (_, band) = band_of(&r.pick_off, sight.dist)?;
    if sight.cover && !troop(r, tg).light {
        return None;
    }
    let eligible = tg
        .officers
        .iter()
        .filter(|o| o.alive && (!band.mounted_only || o.mounted))
        .count();
    let q = band.kill.len() as f64 / 6.0;
    let die = 1.0 - r.morale.officer_save.len() as f64 / 6.0;
    let dice = sh.rf;
    let mut hit = vec![0.0; eligible + 1];
    for (h, p) in binomial(dice, q).iter().enumerate() {
        hit[h.min(eligible)] += p;
    }
    let mut killed = vec![0.0; eligible + 1];
    for (m, pm) in hit.iter().enumerate() {
        for (k, pk) in binomial(m as u32, die).iter().enumerate() {
            killed[k] += pm * pk;
        }
    }
    let fate = pick_off_fate(r, st, tg, band.mounted_only, &hit, die);
    Some(PickOff {
        range: sight.dist.floor(),
        mounted_only: band.mounted_only,
        kill: band.kill.clone(),
        dice,
        hit,
        killed,
        fate,
    })
}

/// The morale of `tg` after officers picked off: `hit[m]` the chance m
/// officers are hit, the engine's choice (the highest-ranking standing,
/// the first of equals, mounted only when `mounted_only`), each dying
/// with chance `die`; every set of them dead, each face of the morale
/// die, settled by the engine's own saving throws and morale step.
fn pick_off_fate(
    r: &Ruleset,
    st: &State,
    tg: &Unit,
    mounted_only: bool,
    hit: &[f64],
    die: f64,
) -> Fate {
    let mut order: Vec<usize> = (0..tg.officers.len())
        .filter(|i| tg.officers[*i].alive && (!mounted_only || tg.officers[*i].mounted))
        .collect();
    order.sort_by_key(|i| (std::cmp::Reverse(tg.officers[*i].points), *i));
    let mut f = Fate::default();
    for (m, pm) in hit.iter().enumerate().filter(|(_, p)| **p > 0.0) {
        let struck = &order[..m.min(order.len())];
        for mask in 0_u32..(1 << struck.len()) {
            let dead: Vec<usize> = (0..struck.len())
                .filter(|j| mask & (1 << j) != 0)
                .map(|j| struck[j])
                .collect();
            let n = dead.len() as i32;
            let pd = pm * die.powi(n) * (1.0 - die).powi(struck.len() as i32 - n);
            if pd == 0.0 {
                continue;
            }
            for face in 1..=6 {
                let (after, ev) = engine::settle_officers(r, st, &tg.id, (struck, &dead), face);
                f.add(&after, &ev, &tg.id, pd / 6.0);
            }
        }
    }
    f
}

/// Canister ("Throw a D6 for each figure within the sector"), as the
/// engine's artillery step fires it: each gun of the battery that fires
/// (not destroyed, not resting a damaged gun's move) throws a die for every
/// figure of every unit within the canister range and half-angle of the
/// line from the gun to the target's centre, killing on the canister's
/// faces. The figures each unit has in the cones (summed over the guns),
/// in the order of the units' ids; None: no canister from there.
#[must_use]
pub fn canister_figures(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    gu: &Unit,
    tg: &Unit,
) -> Option<Vec<(String, u32)>> {
    use crate::geometry::{self as g, Dist2};
    let before: BTreeMap<String, Unit> = st
        .units
        .iter()
        .map(|u| (u.id.clone(), moved.get(&u.id).unwrap_or(u).clone()))
        .collect();
    engine::gun_sight(r, st, gu, tg, true, &before).ok()?;
    let aim = crate::state::footprint(r, tg).centre();
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for (gi, gp) in crate::state::gun_points(r, gu).into_iter().enumerate() {
        let Some(gs) = gu.guns.get(gi) else { continue };
        if gs.destroyed || (gs.damage >= r.cb_alternate && gs.fired_last) {
            continue;
        }
        let dir = i64::from(g::bearing(gp, aim));
        for u in before.values().filter(|u| u.id != gu.id) {
            let n = crate::state::figures(r, u)
                .into_iter()
                .filter(|fp| {
                    Dist2::of(gp.dist2(*fp)).within(r.canister_range)
                        && g::in_arc(gp, dir, r.canister_half_angle, *fp)
                })
                .count() as u32;
            if n > 0 {
                *per.entry(u.id.clone()).or_default() += n;
            }
        }
    }
    Some(per.into_iter().collect())
}

/// The exact chance of each number killed (index) of a unit with `figures`
/// figures in the canister's cones and `rf` rank and file.
#[must_use]
pub fn canister_killed(r: &Ruleset, figures: u32, rf: u32) -> Vec<f64> {
    kill_distribution(figures, r.canister_kill.len() as u32, rf)
}

/// The odds text of canister `n` of the battery `gu` at `tg`.
fn canister_odds(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    n: usize,
    gu: &Unit,
    tg: &Unit,
) -> String {
    let head = format!("Battle {n}: {} fires canister at {}", gu.id, tg.id);
    let Some(per) = canister_figures(r, st, moved, gu, tg) else {
        return format!("{head}: no canister from where it stands\n");
    };
    let at = |id: &str| per.iter().find(|(u, _)| u == id).map_or(0, |x| x.1);
    let faces = r
        .canister_kill
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = wrap(&format!(
        "{head}: a die for each figure in the guns' cones, {} of {}: {} dice, a {faces} kills",
        at(&tg.id),
        tg.id,
        at(&tg.id)
    ));
    if at(&tg.id) > MAX_DICE {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return out;
    }
    let killed = canister_killed(r, at(&tg.id), tg.rf);
    let also = canister_others(r, st, &per, &tg.id);
    out.push_str(&result_lines(r, st, gu.side, tg, &killed, &also));
    for ((id, k), (_, d)) in per.iter().filter(|(u, _)| *u != tg.id).zip(&also) {
        let _ = writeln!(
            out,
            "  Also in the cones: {id}, {k} figures: {:.2} killed on average",
            mean(d)
        );
        if let Some(f) = canister_fate(r, st, id, *k, gu.side) {
            out.push_str(&fate_lines(&format!("  {id}'s morale"), &f));
        }
    }
    out
}

/// The chance of each number killed of every unit in the canister's cones
/// (`per`, [`canister_figures`]) but the target `tg`.
#[must_use]
pub fn canister_others(
    r: &Ruleset,
    st: &State,
    per: &[(String, u32)],
    tg: &str,
) -> Vec<(String, Vec<f64>)> {
    per.iter()
        .filter(|(u, _)| u != tg)
        .map(|(id, k)| {
            let rf = st.unit(id).map_or(0, |u| u.rf);
            (id.clone(), canister_killed(r, *k, rf))
        })
        .collect()
}

/// The morale after the move of `unit`, `figures` of whose figures are in
/// the canister's cones of a battery of side `by` (its loss alone): each
/// number killed ([`canister_killed`]) settled by the engine's morale step
/// for each face of the morale die.
#[must_use]
pub fn canister_fate(r: &Ruleset, st: &State, unit: &str, figures: u32, by: usize) -> Option<Fate> {
    let u = st.unit(unit)?;
    Some(morale_fates(
        r,
        st,
        u,
        by,
        &canister_killed(r, figures, u.rf),
    ))
}

/// A battery's roundshot or shells at one target, reckoned exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct GunFire {
    /// A howitzer battery's shells (else roundshot).
    pub shell: bool,
    /// The guns that fire.
    pub guns: usize,
    /// The range to the aim (of the first gun that fires).
    pub range: i64,
    /// The faces that kill a figure covered.
    pub kill: Vec<u32>,
    /// The expected figures of the target covered, over the guns.
    pub covered: f64,
    /// Each gun that fires (its index in the battery) and the chance of
    /// each number of the target's figures its shot covers.
    pub per_gun: Vec<(usize, Vec<f64>)>,
    /// The chance of each number of the target's rank and file killed.
    pub killed: Vec<f64>,
    /// Every other unit a shot may cover (own units included), and the
    /// chance of each number of its rank and file killed.
    pub others: Vec<(String, Vec<f64>)>,
    /// The morale after the move of each of `others` (its loss alone).
    pub others_morale: Vec<(String, Fate)>,
    /// Counter-battery: every unit whose guns a shot may cover, and the
    /// chance of each damage its guns stand at after the move (gun by gun).
    pub guns_damage: Vec<(String, Damage)>,
    /// Every building section a shot may strike: the chance some shot
    /// strikes it and the damage points it takes on average.
    pub houses: Vec<(String, f64, f64)>,
    /// The expected victory points of the fire: the rank and file it
    /// removes from every enemy unit under its shots ([`expected_victory`]).
    pub victory: f64,
}

/// The chance of each set of damage points of a battery's guns.
pub type Damage = BTreeMap<Vec<u32>, f64>;

/// Roundshot or shells of the battery `gu` at `tg` (ARTILLERY ROUNDSHOT,
/// ARTILLERY HOWITZER), as the engine's artillery step fires them: each
/// gun that fires throws its placing dice (roundshot the + and - dice that
/// move the sleeve, a shell the sector die), then a die for each figure
/// covered, killing on the band's faces; the guns' kills are summed, at
/// most the target's rank and file. A shot that may strike a standing
/// house has the engine's house step played on each face of its dice, and
/// the guns are walked in order over the terrain each way leaves (issue
/// 55: a section fallen or on fire changes what later shots strike). Err:
/// why no exact odds are given (no shot from there).
pub fn exact_gunfire(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    gu: &Unit,
    tg: &Unit,
) -> Result<GunFire, &'static str> {
    let before: BTreeMap<String, Unit> = st
        .units
        .iter()
        .map(|u| (u.id.clone(), moved.get(&u.id).unwrap_or(u).clone()))
        .collect();
    engine::gun_sight(r, st, gu, tg, false, &before).map_err(|_| "no shot from where it stands")?;
    let aim = crate::state::footprint(r, tg).centre();
    let mut g = GunFire {
        shell: troop(r, gu).howitzer,
        guns: 0,
        range: -1,
        kill: Vec::new(),
        covered: 0.0,
        per_gun: Vec::new(),
        killed: vec![1.0],
        others: Vec::new(),
        others_morale: Vec::new(),
        guns_damage: Vec::new(),
        houses: Vec::new(),
        victory: 0.0,
    };
    let mut damage: BTreeMap<String, Damage> = BTreeMap::new();
    let mut at_fire = st.clone();
    at_fire.units = before.values().cloned().collect();
    let firing: Vec<(usize, crate::geometry::Pt)> = crate::state::gun_points(r, gu)
        .into_iter()
        .enumerate()
        .filter(|(gi, _)| engine::gun_fires(r, gu, *gi))
        .collect();
    // The guns fire one after another from where the units stood, their
    // kills applied once all have fired, so a later shot reads of the
    // earlier ones only the houses they struck (a fallen section, one on
    // fire): the walk's branches, each the chance of a terrain and, for
    // every unit, of each number of its rank and file killed so far,
    // merged where the later shots read alike ([`engine::house_key`]).
    let mut branches = vec![Branch {
        at: at_fire,
        p: 1.0,
        killed: before
            .keys()
            .filter(|id| **id != gu.id)
            .map(|id| (id.clone(), vec![1.0]))
            .collect(),
        struck: BTreeMap::new(),
    }];
    // Each section struck: the damage points it takes on average.
    let mut houses: BTreeMap<String, f64> = BTreeMap::new();
    let mut left = firing.len() as u32;
    for (gi, gp) in firing {
        left -= 1;
        if g.range < 0 {
            g.range = crate::geometry::Dist2::of(gp.dist2(aim)).floor();
        }
        let Some((kill, outcomes)) = engine::gun_outcomes(r, &before, gu, tg, gp) else {
            continue;
        };
        g.guns += 1;
        let mut cov: Vec<f64> = Vec::new();
        let mut next: BTreeMap<String, Branch> = BTreeMap::new();
        for b in &branches {
            let ways = gun_ways(r, &b.at, (gp, aim), g.shell, &outcomes).ok_or(
                "a shot the answer cannot follow: the result is in the move's figures below",
            )?;
            for w in &ways {
                let q = b.p * w.p;
                let n = covered_of(&w.figs, &tg.id);
                g.covered += q * f64::from(n);
                if cov.len() <= n as usize {
                    cov.resize(n as usize + 1, 0.0);
                }
                cov[n as usize] += q;
                for h in &w.hits {
                    *houses.entry(h.section.clone()).or_default() += q * f64::from(h.damage);
                }
                let terrain = w.terrain.as_ref().unwrap_or(&b.at.terrain);
                let e = next
                    .entry(engine::house_key(r, terrain, left))
                    .or_insert_with(|| {
                        let mut at = b.at.clone();
                        at.terrain.clone_from(terrain);
                        Branch {
                            at,
                            p: 0.0,
                            killed: BTreeMap::new(),
                            struck: BTreeMap::new(),
                        }
                    });
                e.follow(b, w, kill.len() as u32);
            }
        }
        if next.len() > MAX_TERRAINS {
            return Err(
                "too many ways the houses may stand: the result is in the move's figures below",
            );
        }
        branches = next.into_values().collect();
        counter_battery(r, &before, tg, gp, &outcomes, &mut damage);
        g.kill = kill;
        g.per_gun.push((gi, cov));
    }
    let (killed, struck) = Branch::totals(&branches);
    if g.guns == 0 {
        return Err("no gun of it fires from where it stands");
    }
    for (id, mut d) in killed {
        let cap = before.get(&id).map_or(0, |u| u.rf) as usize;
        if d.len() > cap + 1 {
            let over: f64 = d[cap..].iter().sum();
            d.truncate(cap + 1);
            d[cap] = over;
        }
        if id == tg.id {
            g.killed = d;
        } else if d.len() > 1 {
            if let Some(u) = st.unit(&id) {
                g.others_morale
                    .push((id.clone(), morale_fates(r, st, u, gu.side, &d)));
            }
            g.others.push((id, d));
        }
    }
    g.guns_damage = damage.into_iter().collect();
    g.houses = houses
        .into_iter()
        .map(|(name, dmg)| (name.clone(), struck.get(&name).copied().unwrap_or(0.0), dmg))
        .collect();
    g.victory = expected_victory(st, gu.side, &[(tg.id.clone(), g.killed.clone())], &g.others);
    Ok(g)
}

/// One way a gun's shot may fall: its chance, the figures diced one by
/// one, the rank and file the houses' table kills of each occupant, the
/// sections struck, and the terrain after it (None: unchanged).
struct Way {
    p: f64,
    figs: engine::Covered,
    kills: Vec<(String, u32)>,
    hits: Vec<crate::events::HouseHit>,
    terrain: Option<Vec<crate::state::Feature>>,
}

/// The figures of `id` a shot covers.
fn covered_of(c: &engine::Covered, id: &str) -> u32 {
    c.iter().filter(|(u, _)| u == id).count() as u32
}

/// One branch of a battery's walk over its guns ([`exact_gunfire`]): the
/// table as the earlier shots left it, its chance, and for every unit the
/// chance of the branch and each number of its rank and file killed so
/// far (summing to `p`), and of the branch and each section struck so far.
struct Branch {
    at: State,
    p: f64,
    killed: BTreeMap<String, Vec<f64>>,
    struck: BTreeMap<String, f64>,
}

impl Branch {
    /// The walk's end: for every unit the chance of each number of its
    /// rank and file killed, and for every section the chance it is
    /// struck, over all `branches`.
    fn totals(branches: &[Branch]) -> (BTreeMap<String, Vec<f64>>, BTreeMap<String, f64>) {
        let mut killed: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut struck: BTreeMap<String, f64> = BTreeMap::new();
        for b in branches {
            for (id, d) in &b.killed {
                let e = killed.entry(id.clone()).or_default();
                if e.len() < d.len() {
                    e.resize(d.len(), 0.0);
                }
                for (k, q) in d.iter().enumerate() {
                    e[k] += q;
                }
            }
            for (name, q) in &b.struck {
                *struck.entry(name.clone()).or_default() += q;
            }
        }
        (killed, struck)
    }

    /// Add to this branch the way `w` of the next gun's shot from the
    /// branch `b` (a figure covered dying on `kills` faces of 6).
    fn follow(&mut self, b: &Branch, w: &Way, kills: u32) {
        self.p += b.p * w.p;
        for (id, d) in &b.killed {
            let n = covered_of(&w.figs, id);
            let by_house: u32 = w.kills.iter().filter(|(u, _)| u == id).map(|x| x.1).sum();
            let mut one = vec![0.0; by_house as usize];
            one.extend(kill_distribution(n, kills, n));
            let sum = add(d, &one);
            let e = self.killed.entry(id.clone()).or_default();
            if e.len() < sum.len() {
                e.resize(sum.len(), 0.0);
            }
            for (k, q) in sum.iter().enumerate() {
                e[k] += w.p * q;
            }
        }
        let mut names: Vec<&String> = b.struck.keys().collect();
        names.extend(w.hits.iter().map(|h| &h.section));
        names.sort_unstable();
        names.dedup();
        for name in names {
            let was = b.struck.get(name).copied().unwrap_or(0.0);
            let now = if w.hits.iter().any(|h| h.section == *name) {
                b.p
            } else {
                was
            };
            *self.struck.entry(name.clone()).or_default() += w.p * now;
        }
    }
}

/// Each outcome of a gun's placing dice (`outcomes`, as
/// [`engine::gun_outcomes`] gives them: roundshot by the sleeve's offset
/// from -5" to 5", a shell the misfire then sectors 2 to 6) spread over
/// every way the house dice of the shot may fall ([`engine::house_ways`],
/// the engine's own steps on each face, on the terrain `at` holds), where
/// the shot may strike a standing house, each with the terrain it leaves.
/// None: outcomes not in that form.
fn gun_ways(
    r: &Ruleset,
    at: &State,
    (gp, aim): (crate::geometry::Pt, crate::geometry::Pt),
    shell: bool,
    outcomes: &[engine::ShotCover],
) -> Option<Vec<Way>> {
    let plain = |(p, f, _): &engine::ShotCover| Way {
        p: *p,
        figs: f.clone(),
        kills: Vec::new(),
        hits: Vec::new(),
        terrain: None,
    };
    let reach = engine::sections_in_reach(r, at, gp, aim, shell);
    if reach.is_empty() {
        return Some(outcomes.iter().map(plain).collect());
    }
    if outcomes.len() != if shell { 6 } else { 11 } {
        return None;
    }
    let range = crate::geometry::Dist2::of(gp.dist2(aim));
    let mut out = Vec::new();
    for (i, o) in outcomes.iter().enumerate() {
        let shot = match (shell, i) {
            (true, 0) => {
                out.push(plain(o));
                continue;
            }
            (true, _) => engine::HouseShot::Shell {
                sector: i as u32 + 1,
            },
            (false, _) => engine::HouseShot::Roundshot {
                off: (i as i64 - 5) * crate::geometry::PER_INCH,
                range,
            },
        };
        for w in engine::house_ways(r, at, gp, aim, shot, &o.1) {
            out.push(Way {
                p: o.0 * w.p,
                figs: w.figs,
                kills: w.kills,
                hits: w.hits,
                terrain: Some(w.terrain),
            });
        }
    }
    Some(out)
}

/// One firing gun's counter-battery damage ("Throw a D6 for each gun
/// under the sleeve or SBI"), each outcome of its placing dice weighed:
/// every gun it covers takes a die's points less the range's reduction,
/// added to what it stands at. Each battery's
/// distribution is updated on its own (its guns' dice are the shot's).
fn counter_battery(
    r: &Ruleset,
    before: &BTreeMap<String, Unit>,
    tg: &Unit,
    gp: crate::geometry::Pt,
    outcomes: &[engine::ShotCover],
    damage: &mut BTreeMap<String, Damage>,
) {
    let reduce = engine::cb_reduce(r, tg, gp);
    let mut ids: Vec<&str> = outcomes
        .iter()
        .flat_map(|o| o.2.iter().map(|(u, _)| u.as_str()))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let Some(u) = before.get(id) else { continue };
        let now = damage.entry(id.to_string()).or_insert_with(|| {
            let at: Vec<u32> = u.guns.iter().map(|x| x.damage).collect();
            BTreeMap::from([(at, 1.0)])
        });
        let mut next: Damage = BTreeMap::new();
        for (p, _, guns) in outcomes {
            let mut d: Damage = now.iter().map(|(k, q)| (k.clone(), q * p)).collect();
            for (_, gi) in guns.iter().filter(|(v, _)| v == id) {
                let mut e: Damage = BTreeMap::new();
                for (k, q) in &d {
                    for die in 1..=6_u32 {
                        let mut k = k.clone();
                        if let Some(x) = k.get_mut(*gi) {
                            *x += die.saturating_sub(reduce);
                        }
                        *e.entry(k).or_default() += q / 6.0;
                    }
                }
                d = e;
            }
            for (k, q) in d {
                *next.entry(k).or_default() += q;
            }
        }
        *now = next;
    }
}

/// The odds text of the battery `gu`'s roundshot or shells `n` at `tg`.
fn gunfire_odds(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    n: usize,
    gu: &Unit,
    tg: &Unit,
) -> String {
    let head = format!("Battle {n}: {} fires its guns at {}", gu.id, tg.id);
    let g = match exact_gunfire(r, st, moved, gu, tg) {
        Ok(g) => g,
        Err(why) => return wrap(&format!("{head}: {why}")),
    };
    let faces = g
        .kill
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let how = if g.shell {
        "shells: the sector die (1 a misfire), then a die for each figure in the sector"
    } else {
        "roundshot: the sleeve moved by the + and - dice, then a die for each figure under it"
    };
    let mut out = wrap(&format!(
        "{head} ({}, {} {}): {how}, a {faces} kills; {:.2} figures of {} covered on average",
        fmt_len(g.range),
        g.guns,
        if g.guns == 1 { "gun" } else { "guns" },
        g.covered,
        tg.id
    ));
    out.push_str(&result_lines(r, st, gu.side, tg, &g.killed, &g.others));
    out.push_str(&others_lines(r, st, &g));
    out
}

/// The lines of the other units a battery's shots may cover (their rank and
/// file killed) and of the guns they may damage (counter-battery), exactly.
fn others_lines(r: &Ruleset, st: &State, g: &GunFire) -> String {
    let mut out = String::new();
    for (id, d) in &g.others {
        let mean: f64 = d.iter().enumerate().map(|(k, q)| k as f64 * q).sum();
        out.push_str(&wrap(&format!(
            "  Also under the guns: {id}, killed: {}; {mean:.2} on average",
            shares(d, "killed", "killed")
        )));
        if let Some((_, f)) = g.others_morale.iter().find(|(u, _)| u == id) {
            out.push_str(&fate_lines(&format!("  {id}'s morale"), f));
        }
    }
    for (name, p, dmg) in &g.houses {
        out.push_str(&wrap(&format!(
            "  House under the guns: {name}, struck {}; {dmg:.2} damage points on average",
            pc(*p)
        )));
    }
    for (id, d) in &g.guns_damage {
        let Some(u) = st.unit(id) else { continue };
        let mut parts = Vec::new();
        let mut lost = vec![0.0; u.guns.len() + 1];
        for (k, q) in d {
            let n = k
                .iter()
                .zip(&u.guns)
                .filter(|(x, gs)| **x >= r.cb_destroyed && !gs.destroyed)
                .count();
            lost[n] += q;
        }
        for (i, gs) in u.guns.iter().enumerate().filter(|(_, gs)| !gs.destroyed) {
            let at = |k: &Vec<u32>| k.get(i).copied().unwrap_or(0);
            let mean: f64 = d
                .iter()
                .map(|(k, q)| f64::from(at(k).saturating_sub(gs.damage)) * q)
                .sum();
            let alt: f64 = d
                .iter()
                .filter(|(k, _)| (r.cb_alternate..r.cb_destroyed).contains(&at(k)))
                .map(|x| x.1)
                .sum();
            let gone: f64 = d
                .iter()
                .filter(|(k, _)| at(k) >= r.cb_destroyed)
                .map(|x| x.1)
                .sum();
            parts.push(format!(
                "gun {} +{mean:.2} points on average, at {} or more (fires alternate moves) {}, \
                 destroyed {}",
                i + 1,
                r.cb_alternate,
                pc(alt),
                pc(gone)
            ));
        }
        out.push_str(&wrap(&format!(
            "  Counter-battery on {id} (a die for each gun under a shot, less the range's \
             reduction): {}; guns destroyed: {}",
            parts.join("; "),
            shares(&lost, "gun", "guns")
        )));
    }
    out
}

/// [`exact_gunfire`] of the battery `gun` at `target` on `st` after the
/// move's forced moves, as the engine meets them (for the property test
/// tests/it/predict_measured_property.rs).
pub fn exact_gunfire_at(
    r: &Ruleset,
    st: &State,
    gun: &str,
    target: &str,
) -> Result<GunFire, &'static str> {
    let st = &engine::after_forced_moves(r, st);
    let (Some(gu), Some(tg)) = (st.unit(gun), st.unit(target)) else {
        return Err("no such unit");
    };
    exact_gunfire(r, st, &BTreeMap::new(), gu, tg)
}

/// [`exact_pick_off`] of `shooter` at `target` on `st` after the move's
/// forced moves, as the engine meets them (for the property test
/// tests/it/predict_measured_property.rs).
#[must_use]
pub fn exact_pick_off_at(r: &Ruleset, st: &State, shooter: &str, target: &str) -> Option<PickOff> {
    let st = &engine::after_forced_moves(r, st);
    exact_pick_off(r, st, &BTreeMap::new(), st.unit(shooter)?, st.unit(target)?)
}

/// The exact odds of picking off officers.
#[derive(Debug, Clone, PartialEq)]
pub struct PickOff {
    pub range: i64,
    pub mounted_only: bool,
    pub kill: Vec<u32>,
    pub dice: u32,
    /// The chance of each number of officers hit (index).
    pub hit: Vec<f64>,
    /// The chance of each number of officers killed after the saving throws.
    pub killed: Vec<f64>,
    /// The target's morale after the move (its officers' loss alone).
    pub fate: Fate,
}

/// The chance of each number of successes (index) of `n` trials of chance
/// `p` each.
fn binomial(n: u32, p: f64) -> Vec<f64> {
    let mut d = vec![1.0];
    for _ in 0..n {
        d = add(&d, &[1.0 - p, p]);
    }
    d
}

/// The odds text of picking off `n` of `sh` at `tg`.
fn pick_off_odds(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    n: usize,
    sh: &Unit,
    tg: &Unit,
) -> String {
    let head = format!("Battle {n}: {} picks off officers of {}", sh.id, tg.id);
    let Some(p) = exact_pick_off(r, st, moved, sh, tg) else {
        return format!(
            "{head}: no picking off from where it ends (out of range, or line infantry in cover)\n"
        );
    };
    let faces = p
        .kill
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let mut out = wrap(&format!(
        "{head} ({}): {} dice, a {faces} hits{}",
        fmt_len(p.range),
        p.dice,
        if p.mounted_only {
            " a mounted officer only"
        } else {
            " an officer"
        }
    ));
    out.push_str(&wrap(&format!(
        "  Officers hit: {}",
        shares(&p.hit, "hit", "hit")
    )));
    let saves = r
        .morale
        .officer_save
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    out.push_str(&wrap(&format!(
        "  Officers killed (a {saves} saves each one hit): {}",
        shares(&p.killed, "killed", "killed")
    )));
    let mean: f64 = p.killed.iter().enumerate().map(|(k, q)| k as f64 * q).sum();
    let _ = writeln!(out, "  Expected officers killed: {mean:.2}");
    out.push_str(&fate_lines("  Morale", &p.fate));
    out
}

/// The terms of a line volley, as the engine reckons them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volley {
    pub range: i64,
    pub band_to: i64,
    pub first: bool,
    pub cover: bool,
    pub firers: u32,
    pub per: u32,
    pub dice: u32,
    pub deduct: u32,
}

/// The terms of `sh`'s volley at `tg` (`moved`: where the side's units
/// end their movement), or None when it cannot fire at it.
#[must_use]
pub fn volley_terms(
    r: &Ruleset,
    st: &State,
    moved: &BTreeMap<String, Unit>,
    sh: &Unit,
    tg: &Unit,
) -> Option<Volley> {
    let sight = engine::musket_sight(r, st, sh, tg, moved).ok()?;
    let table = if sh.volleyed {
        &r.normal
    } else {
        &r.first_volley
    };
    let (_, band) = band_of(table, sight.dist)?;
    let firers = engine::firers(r, sh);
    let per = engine::troop(r, sh).fire_per.max(1);
    Some(Volley {
        range: sight.dist.floor(),
        band_to: band.to,
        first: !sh.volleyed,
        cover: sight.cover,
        firers,
        per,
        dice: firers / per,
        deduct: if sight.cover { band.cover } else { band.open },
    })
}

/// The exact chance of each number of rank and file killed (index) by a
/// volley of `dice` dice, each less `deduct`, at a unit of `rf` in target
/// groups of `group`: die k goes to group k mod groups (as the engine
/// deals them); each hit throws a figure die and kills that figure of its
/// group if it is there and not already hit.
#[must_use]
pub fn volley_distribution(dice: u32, deduct: u32, rf: u32, group: u32) -> Vec<f64> {
    let group = group.max(1);
    let groups = rf.div_ceil(group).max(1);
    let mut total = vec![1.0];
    for g in 0..groups {
        let size = rf.saturating_sub(g * group).min(group) as usize;
        let m = (0..dice).filter(|k| k % groups == g).count();
        total = add(&total, &group_struck(m, size, deduct));
    }
    total
}

/// The chance that j distinct figures (index) of a target group of `size`
/// are hit by `m` volley dice, each less `deduct`, each hit a figure die
/// ([`volley_distribution`]'s for one group).
pub(crate) fn group_struck(m: usize, size: usize, deduct: u32) -> Vec<f64> {
    let mut struck = vec![0.0; size + 1];
    struck[0] = 1.0;
    for _ in 0..m {
        let mut next = vec![0.0; size + 1];
        for face in 1..=6u32 {
            let mut s = struck.clone();
            for _ in 0..face.saturating_sub(deduct) {
                s = figure_die(&s, size);
            }
            for (j, p) in s.iter().enumerate() {
                next[j] += p / 6.0;
            }
        }
        struck = next;
    }
    struck
}

/// One figure die at a group of `size` with `s[j]` the chance j are hit.
fn figure_die(s: &[f64], size: usize) -> Vec<f64> {
    let mut next = vec![0.0; s.len()];
    for (j, p) in s.iter().enumerate() {
        let new = (size - j) as f64 / 6.0;
        next[j] += p * (1.0 - new);
        if j < size {
            next[j + 1] += p * new;
        }
    }
    next
}

/// The morale outcomes of a volley's target: the chance of each.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Fate {
    /// No loss, so no test.
    pub untouched: f64,
    pub good: f64,
    pub bad: f64,
    /// Broken by the 50% rule (routs).
    pub broken: f64,
    /// Destroyed or dispersed: off the table.
    pub removed: f64,
}

/// Each number killed settled by the engine's morale step for each face
/// of the morale die.
#[must_use]
pub fn morale_fates(r: &Ruleset, st: &State, tg: &Unit, by: usize, killed: &[f64]) -> Fate {
    let mut f = Fate::default();
    for (k, p) in killed.iter().enumerate() {
        if *p == 0.0 {
            continue;
        }
        for die in 1..=6 {
            let (after, ev) = engine::settle_losses(r, st, &tg.id, (k as u32, by), die);
            f.add(&after, &ev, &tg.id, p / 6.0);
        }
    }
    f
}

impl Fate {
    /// Add chance `q` to the outcome of `id` the engine's morale step left
    /// (`after`, its events `ev`).
    fn add(&mut self, after: &State, ev: &[Charge], id: &str, q: f64) {
        let test = ev.iter().find_map(|e| match e {
            Charge::Morale { result, .. } => Some(result.as_str()),
            _ => None,
        });
        match after.unit(id) {
            None => self.removed += q,
            Some(u) if u.broken => self.broken += q,
            Some(_) => match test {
                Some("good" | "rallies") => self.good += q,
                Some(_) => self.bad += q,
                None => self.untouched += q,
            },
        }
    }
}

fn fate_lines(head: &str, f: &Fate) -> String {
    wrap(&format!(
        "{head}: no loss, no test {}; test passed {}; test failed (bad morale) {}; \
         broken by the 50% rule, routs {}; destroyed or dispersed {}",
        pc(f.untouched),
        pc(f.good),
        pc(f.bad),
        pc(f.broken),
        pc(f.removed)
    ))
}

const CHARGE_STATES: States<crate::Charge> = States {
    turn: "move",
    bad: ("bad morale", |u| u.bad_morale.is_some() && !u.broken),
    broken: ("broken", |u| u.broken),
};

/// [`engine::melee_odds`] of the attacker `attacker`'s melee on `st` after
/// the move's forced moves, as the engine meets it (for the property test
/// tests/it/predict_measured_property.rs).
#[must_use]
pub fn exact_melee_at(r: &Ruleset, st: &State, attacker: &str) -> Option<engine::MeleeOdds> {
    let st = &engine::after_forced_moves(r, st);
    engine::melee_odds(r, st, attacker)
}

/// [`engine::charge_odds`] of `unit`'s charge in `side`'s `orders` on
/// `st` after the move's forced moves, with the standing orders `st`
/// gives every unit, as the engine meets them (for the property test
/// tests/it/predict_measured_property.rs).
#[must_use]
pub fn exact_charge_at(
    r: &Ruleset,
    st: &State,
    side: &str,
    orders: &str,
    unit: &str,
) -> Option<engine::ChargeOdds> {
    let idx = st.side_index(side)?;
    let plans = engine::check(r, st, idx, orders).ok()?;
    let st = &engine::after_forced_moves(r, st);
    engine::charge_odds(r, st, &plans, unit)
}

/// [`engine::melee_morale_odds`] of the attacker `attacker`'s melee on
/// `st` after the move's forced moves, no orders given (for the property
/// test tests/it/predict_measured_property.rs).
#[must_use]
pub fn exact_melee_morale_at(
    r: &Ruleset,
    st: &State,
    attacker: &str,
) -> Option<engine::ChargeOdds> {
    let st = &engine::after_forced_moves(r, st);
    engine::melee_morale_odds(r, st, &[], attacker)
}
