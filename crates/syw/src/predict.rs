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
//! ([`engine::odds::section_fire_terms`]); two or more sections at one
//! target (a refused line's `FIRE AT x`, or `WITH` sections naming one
//! target) as one fire of all their dice, the target tested once after the
//! step, as the engine does. A refused line marked red (reforming) is
//! disordered by its first shot unless it reforms first, so its later
//! sections are reckoned both ways, weighted by the engine's own reform
//! throw ([`engine::odds::reform_chance`]); a disordered (orange) firer
//! the same way: whole if it clears its disorder first, halved if not
//! ([`engine::odds::clear_chance`]). The rest (charges with the
//! other side's response, fire after another unit's result) is sampled from the engine's own adjudication
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
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most dice one fire is reckoned for. No legal fire reaches it (issue
/// 55): at most 48 figures, +2 fire bonus, +2 dense target, 52 dice
/// (crates/syw/tests/unit/predict.rs checks it against the tables).
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
            steps if shots_at(r, st, &p.unit, steps).is_some() => {
                let groups = shots_at(r, st, &p.unit, steps).unwrap_or_default();
                let late = late_sections(r, st, &p.unit, steps);
                for (k, (t, secs)) in groups.iter().enumerate() {
                    if k > 0 {
                        out.push('\n');
                    }
                    out.push_str(&sections_odds(r, st, n, (&p.unit, &late), t, secs));
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

/// Sections of a refused line that fire at one target: (name, fire bonus).
pub type Sections = Vec<(String, bool)>;

/// A refused line's shots in the order the fire step fires them: (target,
/// section, fire bonus) each (`FIRE AT x` of a refused line: every
/// section at x, the bonus with the centre; `FIRE AT x WITH sec [BONUS]`:
/// [`section_shots`]'s bonus). None: not a refused line's fire.
fn written_shots(
    r: &Ruleset,
    st: &State,
    unit: &str,
    steps: &[Step],
) -> Option<Vec<(String, String, bool)>> {
    let u = st.unit(unit)?;
    match steps {
        [Step::FireAt(t)] if !u.refused.is_empty() => Some(
            crate::line::sections(r, u)
                .iter()
                .map(|(n, _)| (t.clone(), (*n).to_string(), *n == "centre"))
                .collect(),
        ),
        _ => section_shots(steps),
    }
}

/// A refused line's shots, grouped by target in the order written: for
/// each target the sections that fire at it and whether each has the fire
/// bonus, as the fire step gives them ([`written_shots`]). None: not a
/// refused line's fire.
fn shots_at(
    r: &Ruleset,
    st: &State,
    unit: &str,
    steps: &[Step],
) -> Option<Vec<(String, Sections)>> {
    let mut groups: Vec<(String, Sections)> = Vec::new();
    for (t, sec, b) in written_shots(r, st, unit, steps)? {
        match groups.iter_mut().find(|g| g.0 == t) {
            Some(g) => g.1.push((sec, b)),
            None => groups.push((t, vec![(sec, b)])),
        }
    }
    (!groups.is_empty()).then_some(groups)
}

/// The sections of a red-marked (reforming) `unit` that fire after its
/// first shot: "A red unit that fires is disordered" (docs/rules/
/// seven-years-war.md), so if it has not reformed, each later section
/// fires disordered. Empty for a unit without a red marker.
fn late_sections(r: &Ruleset, st: &State, unit: &str, steps: &[Step]) -> Vec<String> {
    if st.unit(unit).and_then(|u| u.marker.as_deref()) != Some("red") {
        return Vec::new();
    }
    let shots = written_shots(r, st, unit, steps).unwrap_or_default();
    let first = shots
        .iter()
        .position(|(t, sec, b)| odds::section_fire_terms(r, st, (unit, sec, *b), t).is_ok());
    match first {
        Some(i) => shots[i + 1..].iter().map(|x| x.1.clone()).collect(),
        None => Vec::new(),
    }
}

/// The odds text of the sections `secs` of `unit` firing at `target`.
fn sections_odds(
    r: &Ruleset,
    st: &State,
    n: usize,
    (unit, late): (&str, &[String]),
    target: &str,
    secs: &[(String, bool)],
) -> String {
    let names: Vec<&str> = secs.iter().map(|x| x.0.as_str()).collect();
    let head = format!(
        "Battle {n}: {unit} ({} {}) fires at {target}",
        names.join(" and "),
        if secs.len() == 1 {
            "section"
        } else {
            "sections"
        }
    );
    match sections_exact(r, st, (unit, late), secs, target) {
        Ok((f, killed, fate)) => {
            let clear = orange_ways(r, st, unit).map(|w| {
                let dice = sections_terms(r, &w[0].1, unit, secs, target).map_or(0, |t| t.dice);
                (w[0].0, dice)
            });
            let mut out = fire_odds_of(
                r,
                st,
                &head,
                unit,
                target,
                Ok(f),
                Some((killed, fate, clear)),
            );
            let here: Vec<&str> = names
                .iter()
                .copied()
                .filter(|x| late.iter().any(|l| l == x))
                .collect();
            if !here.is_empty() {
                out.push_str(&wrap(&format!(
                    "  ({unit} has a red marker: it reforms first {}; if not, it is \
                     disordered once its first section has fired, and the {} \
                     {} then {} disordered, its dice halved: reckoned both ways)",
                    pc(odds::reform_chance(r, st, unit)),
                    here.join(" and "),
                    if here.len() == 1 {
                        "section"
                    } else {
                        "sections"
                    },
                    if here.len() == 1 { "fires" } else { "fire" }
                )));
            }
            if secs.len() > 1 {
                out.push_str(&wrap(
                    "  (each later section's dice reckoned on the figures the earlier \
                     ones leave; the target tested once, after the fire)",
                ));
            }
            out
        }
        Err(why) => fire_odds_of(r, st, &head, unit, target, Err(why), None),
    }
}

/// The exact odds of `secs` of `unit` firing at `target` in turn, as the
/// fire step throws them: each section's dice reckoned on the position the
/// earlier sections' kills leave (the target's figures, so its frontage,
/// facing figures and range, may change), no die once it has none left;
/// then each number killed settled once, with the artillery and flank
/// modifiers of the sections that fired. The terms on the starting
/// position (for the answer's text), the chance of each number killed and
/// of each fate.
fn sections_exact(
    r: &Ruleset,
    st: &State,
    (unit, late): (&str, &[String]),
    secs: &[(String, bool)],
    target: &str,
) -> Result<(odds::FireTerms, Vec<f64>, [f64; 6]), String> {
    let text = sections_terms(r, st, unit, secs, target)?;
    let tg = st.unit(target).ok_or("no such unit")?;
    let by = st.unit(unit).map_or(0, |u| u.side);
    // A red unit reforms first, or fires its later sections disordered;
    // an orange one clears its disorder first, or fires them all
    // disordered.
    let orange = st
        .unit(unit)
        .is_some_and(|u| u.marker.as_deref() == Some("orange"));
    let ways = if !late.is_empty() {
        let reform = odds::reform_chance(r, st, unit);
        vec![(true, reform), (false, 1.0 - reform)]
    } else if orange {
        let clear = odds::clear_chance(r, st, unit);
        vec![(true, clear), (false, 1.0 - clear)]
    } else {
        vec![(false, 1.0)]
    };
    // (killed so far, artillery fired, flank fired) -> chance.
    let mut paths: BTreeMap<(u32, bool, bool), f64> = BTreeMap::new();
    for (reformed, p) in ways {
        if p > 0.0 {
            for (k, q) in section_paths(r, st, (unit, late, reformed), secs, (target, tg.rf)) {
                *paths.entry(k).or_default() += p * q;
            }
        }
    }
    let mut killed = vec![0.0; tg.rf as usize + 1];
    let mut fate = [0.0; 6];
    for ((k, a, fl), p) in paths {
        killed[k as usize] += p;
        let mut one = vec![0.0; k as usize + 1];
        one[k as usize] = p;
        let f = odds::FireTerms {
            artillery: a,
            flank: fl,
            ..text.clone()
        };
        for (i, x) in fates(r, st, (&f, by), tg, &one).iter().enumerate() {
            fate[i] += x;
        }
    }
    Ok((text, killed, fate))
}

/// The sections `secs` of `unit` firing at `target` (of `rf` figures) in
/// turn: the chance of each (killed, artillery fired, flank fired). A red
/// `unit` that has not `reformed` fires its `late` sections disordered.
fn section_paths(
    r: &Ruleset,
    st: &State,
    (unit, late, reformed): (&str, &[String], bool),
    secs: &[(String, bool)],
    (target, rf): (&str, u32),
) -> BTreeMap<(u32, bool, bool), f64> {
    let mut paths: BTreeMap<(u32, bool, bool), f64> = BTreeMap::new();
    paths.insert((0, false, false), 1.0);
    for (sec, bonus) in secs {
        let mut next: BTreeMap<(u32, bool, bool), f64> = BTreeMap::new();
        for ((k, a, fl), p) in paths {
            let mut s2 = st.clone();
            if let Some(u) = s2.unit_mut(target) {
                u.rf = u.rf.saturating_sub(k);
            }
            if let Some(u) = s2.unit_mut(unit) {
                if reformed {
                    u.marker = None;
                } else if late.contains(sec) {
                    u.marker = Some("orange".into());
                }
            }
            let f = (k < rf)
                .then(|| odds::section_fire_terms(r, &s2, (unit, sec, *bonus), target).ok())
                .flatten();
            let Some(f) = f else {
                *next.entry((k, a, fl)).or_default() += p;
                continue;
            };
            let d = kill_distribution(f.dice, f.kill.len() as u32, rf - k);
            for (j, q) in d.iter().enumerate() {
                *next
                    .entry((k + j as u32, a || f.artillery, fl || f.flank))
                    .or_default() += p * q;
            }
        }
        paths = next;
    }
    paths
}

/// The terms of `secs` of `unit` all firing at `target`, as one fire: the
/// fire step throws each section's dice in turn and kills at once, every
/// die on the same faces, and tests the target's morale once, after the
/// step; the second section's dice do not depend on the first's result
/// (a target left with no figure is already all killed), so the number
/// killed is that of all the sections' dice together, at most the
/// target's figures. A section that cannot fire adds no die (the fire
/// step passes it by); Err only when none can.
fn sections_terms(
    r: &Ruleset,
    st: &State,
    unit: &str,
    secs: &[(String, bool)],
    target: &str,
) -> Result<odds::FireTerms, String> {
    let mut all: Option<odds::FireTerms> = None;
    let mut why_not = String::new();
    for (sec, bonus) in secs {
        match odds::section_fire_terms(r, st, (unit, sec, *bonus), target) {
            Ok(f) => {
                let line = format!("{sec}: {} = {}", f.why.join(", "), f.dice);
                all = Some(match all {
                    None if secs.len() == 1 => f,
                    None => odds::FireTerms {
                        why: vec![line],
                        ..f
                    },
                    Some(mut a) => {
                        a.dice += f.dice;
                        a.why.push(line);
                        a.artillery |= f.artillery;
                        a.flank |= f.flank;
                        a
                    }
                });
            }
            Err(why) => why_not = why,
        }
    }
    all.ok_or(why_not)
}

/// The exact odds of the sections `secs` (name, fire bonus) of the refused
/// line `shooter` all firing at `target`: the chance of each number killed
/// and of each fate, as [`exact_fire`] (for
/// tests/it/predict_measured_property.rs). None: no fire.
#[must_use]
pub fn exact_sections_fire(
    r: &Ruleset,
    st: &State,
    shooter: &str,
    secs: &[(String, bool)],
    target: &str,
) -> Option<(Vec<f64>, [f64; 6])> {
    let (_, killed, fate) = sections_exact(r, st, (shooter, &[]), secs, target).ok()?;
    Some((killed, fate))
}

/// The sections of `side`'s `orders` for the red-marked `unit` that fire
/// after its first shot ([`late_sections`]; for
/// tests/it/predict_measured_property.rs).
#[must_use]
pub fn red_late_sections(
    r: &Ruleset,
    st: &State,
    side: &str,
    orders: &str,
    unit: &str,
) -> Vec<String> {
    let Some(idx) = st.side_index(side) else {
        return Vec::new();
    };
    let Ok(plans) = engine::check(r, st, idx, orders) else {
        return Vec::new();
    };
    plans
        .iter()
        .find(|p| p.unit == unit)
        .map(|p| late_sections(r, st, unit, &p.steps))
        .unwrap_or_default()
}

/// [`exact_sections_fire`] of a refused line that may be marked red
/// (issue 55): `late` are the sections of `shooter`'s order that fire
/// after its first shot, disordered if it has not reformed; the reform
/// die's chance taken over both ways (for
/// tests/it/predict_measured_property.rs).
#[must_use]
pub fn exact_red_sections_fire(
    r: &Ruleset,
    st: &State,
    (shooter, late): (&str, &[String]),
    secs: &[(String, bool)],
    target: &str,
) -> Option<(Vec<f64>, [f64; 6])> {
    let (_, killed, fate) = sections_exact(r, st, (shooter, late), secs, target).ok()?;
    Some((killed, fate))
}

/// A refused line's section fire (`FIRE AT x WITH sec [BONUS]`):
/// (target, section, fire bonus) of each shot, the bonus given as the fire
/// step gives it ("No section named for the bonus: the first written").
/// None: not only section fire.
fn section_shots(steps: &[Step]) -> Option<Vec<(String, String, bool)>> {
    let ss: Vec<(String, String, bool)> = steps
        .iter()
        .map(|s| match s {
            Step::SectionFire(t, sec, b) => Some((t.clone(), sec.clone(), *b)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if ss.is_empty() {
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
    // A disordered firer throws to clear first: both ways reckoned.
    let ways = orange_ways(r, st, shooter);
    let exact = ways.as_ref().and_then(|w| mix(r, w, shooter, target));
    let (Some(w), Some(exact)) = (ways, exact) else {
        return fire_odds_of(r, st, &head, shooter, target, f, None);
    };
    let cleared = w[0].0;
    let dice = odds::fire_terms(r, &w[0].1, shooter, target).map_or(0, |t| t.dice);
    let (killed, fate) = exact;
    fire_odds_of(
        r,
        st,
        &head,
        shooter,
        target,
        f,
        Some((killed, fate, Some((cleared, dice)))),
    )
}

/// A disordered (orange) `shooter`'s clearing throw before its fire at
/// its target: [(cleared, the position with its marker gone), (not, `st`)]
/// with their chances (the engine's own clearing step,
/// [`odds::clear_chance`]). None: not an orange firer, or one whose
/// clearing cannot fail or cannot succeed.
fn orange_ways(r: &Ruleset, st: &State, shooter: &str) -> Option<Vec<(f64, State)>> {
    let u = st.unit(shooter)?;
    if u.marker.as_deref() != Some("orange") {
        return None;
    }
    let clear = odds::clear_chance(r, st, shooter);
    if clear <= 0.0 || clear >= 1.0 {
        return None;
    }
    let mut whole = st.clone();
    whole.unit_mut(shooter)?.marker = None;
    Some(vec![(clear, whole), (1.0 - clear, st.clone())])
}

/// The killed and fate odds of `shooter`'s fire at `target` over the
/// positions `ways` with their chances. None: no fire on one of them.
fn mix(
    r: &Ruleset,
    ways: &[(f64, State)],
    shooter: &str,
    target: &str,
) -> Option<(Vec<f64>, [f64; 6])> {
    let mut killed: Vec<f64> = Vec::new();
    let mut fate = [0.0; 6];
    for (p, s) in ways {
        let (k, f) = exact_one(r, s, shooter, target)?;
        if killed.len() < k.len() {
            killed.resize(k.len(), 0.0);
        }
        for (i, q) in k.iter().enumerate() {
            killed[i] += p * q;
        }
        for (i, q) in f.iter().enumerate() {
            fate[i] += p * q;
        }
    }
    Some((killed, fate))
}

/// A fire's exact odds as the answer gives them: the chance of each
/// number killed, of each fate, and for a disordered firer the chance it
/// clears first and its dice if it does.
type Reckoned = (Vec<f64>, [f64; 6], Option<(f64, u32)>);

/// The odds text of a fire whose terms are `f`, headed `head`.
fn fire_odds_of(
    r: &Ruleset,
    st: &State,
    head: &str,
    shooter: &str,
    target: &str,
    f: Result<odds::FireTerms, String>,
    exact: Option<Reckoned>,
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
    let clear = exact.as_ref().and_then(|e| e.2);
    if let Some((cleared, dice)) = clear {
        // The disordered firer's clearing throw, reckoned.
        out.push_str(&wrap(&format!(
            "  ({shooter} is disordered: it throws to clear its disorder first, \
             cleared {}; cleared, it fires whole with its fire bonus, {dice} {}; \
             else disordered as above: the odds below weigh both)",
            pc(cleared),
            if dice == 1 { "die" } else { "dice" }
        )));
    } else if st
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
    let by = st.unit(shooter).map_or(0, |u| u.side);
    let (killed, fate) = exact.map(|e| (e.0, e.1)).unwrap_or_else(|| {
        let killed = kill_distribution(f.dice, kills as u32, tg.rf);
        let fate = fates(r, st, (&f, by), tg, &killed);
        (killed, fate)
    });
    out.push_str(&wrap(&format!(
        "  Killed: {}",
        shares(&killed, "killed", "killed")
    )));
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
    match orange_ways(r, st, shooter) {
        Some(w) => mix(r, &w, shooter, target),
        None => exact_one(r, st, shooter, target),
    }
}

/// [`exact_fire`] on `st` as it stands (no clearing throw).
fn exact_one(r: &Ruleset, st: &State, shooter: &str, target: &str) -> Option<(Vec<f64>, [f64; 6])> {
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
