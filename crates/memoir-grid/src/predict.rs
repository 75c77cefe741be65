//! PREDICT (docs/orders.md) for Memoir of Battle and Memoir of Modern
//! Battle: the exact odds of each FIRE of a side's orders, before it
//! commits them.
//!
//! The orders are checked exactly as a submission is ([`Family::check`]:
//! the same rejection). Each FIRE is then reckoned on the position the
//! earlier order lines leave (the engine's own dice-free run of those
//! lines: moves made, no die thrown, so the earlier battles have no
//! effect). Its dice are the engine's own terms
//! ([`engine::combat_terms`], [`engine::artillery_terms`]); each face of the
//! ruleset's die is scored by [`engine::face_result`], the faces are
//! convolved over the number of dice, and every (hits, retreat results)
//! result is settled by the engine's code ([`engine::settle_counts`] for
//! fieldworks, [`engine::settle`] for losses, retreat and victory) on a
//! copy of the position. The grid games have no hidden information: the
//! side sees the whole board. Nothing is stored; no die of the game's
//! stream is drawn.

use crate::engine::{self, Cmd, DiceTerm};
use crate::events::Event;
use crate::ruleset::Ruleset;
use crate::state::{State, Step, Unit};
use adjutant_rules::{Family, Orders, Rejection};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most dice one battle is reckoned for (6^n results, convolved die by
/// die: small work). No grid table gives more than six or seven dice.
pub const MAX_DICE: u32 = 12;

/// The answer's lines are at most this wide.
const WIDTH: usize = 78;

/// PREDICT for `side`'s orders: the answer's text, or the rejection a
/// submission of the same orders would get.
pub fn predict(r: &Ruleset, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
    r.check(s, side, orders)?;
    let idx = s
        .side_index(side)
        .ok_or_else(|| Rejection::whole(format!("'{side}' is not a side of this game")))?;
    let lines = engine::parse(s, orders)?;
    let mut out = format!("PREDICT for {side}: the odds of these orders, not played.\n");
    let mut n = 0;
    for (line_no, _, cmd) in &lines {
        let Cmd::Fire(from, target) = cmd else {
            continue;
        };
        let before = position_before(r, s, side, orders, *line_no);
        let Some(firer) = engine::own(&before, idx, *from) else {
            continue;
        };
        let Some(tg) = before.unit_at(*target).filter(|u| u.side != idx).cloned() else {
            continue;
        };
        n += 1;
        out.push('\n');
        out.push_str(&battle_odds(r, &before, idx, (n, &firer), &tg));
    }
    if n == 0 {
        out.push_str("\nThese orders fight no battle: there are no odds to give.\n");
    }
    let exact = crate::whole_turn::whole_turn(r, s, idx, orders);
    match exact {
        Some(t) => out.push_str(&whole_turn_text(&t, n)),
        None => {
            if let Some(text) = game_end(r, s, idx, orders, n) {
                out.push_str(&text);
            }
        }
    }
    out.push_str(&assumptions(s));
    Ok(out)
}

/// Runs of the engine the whole-turn figure is sampled over.
pub const GAME_END_RUNS: u64 = 2_000;

/// The chance the game ends with this turn's orders, for whom, where it
/// can: sampled from the engine's own adjudication of the whole order set
/// ([`GAME_END_RUNS`] runs with dice of a fixed seed of PREDICT's own, never
/// the game's), since a battle's result changes the later ones. None when
/// these battles cannot end the game (and the turn limit does not).
fn game_end(r: &Ruleset, s: &State, side: usize, orders: &str, battles: usize) -> Option<String> {
    let have = s.destroyed.get(side).copied().unwrap_or(0) as usize;
    let last_phase =
        matches!(s.step, Step::Move { second: true, .. }) && s.turns.is_some_and(|t| s.turn >= t);
    if !last_phase && (battles == 0 || have + battles < s.victory as usize) {
        return None;
    }
    let o = [Orders {
        side: s.sides[side].clone(),
        text: orders.to_string(),
    }];
    let mut ends: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..GAME_END_RUNS {
        let mut seed = [0x5e_u8; 32];
        seed[..8].copy_from_slice(&i.to_le_bytes());
        let mut dice = adjutant_dice::ChaChaDice::from_seed(seed);
        let mut deck = adjutant_dice::ChaChaDice::from_seed([0; 32]);
        let mut chance = adjutant_rules::Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let Ok(done) = engine::run(r, s, &o, Some(&mut chance)) else {
            return None;
        };
        if done.st.over {
            let who = done.st.winner.clone().unwrap_or_default();
            *ends.entry(who).or_insert(0) += 1;
        }
    }
    let total: u64 = ends.values().sum();
    let p = total as f64 / GAME_END_RUNS as f64;
    let margin = 196.0 * (p * (1.0 - p) / GAME_END_RUNS as f64).sqrt();
    let whom = ends
        .iter()
        .map(|(w, c)| {
            let w = if w.is_empty() { "a draw" } else { w.as_str() };
            format!("{w} {}", pct(*c, GAME_END_RUNS))
        })
        .collect::<Vec<_>>()
        .join(", ");
    Some("\n".to_string() + &wrap(&format!(
        "The whole turn: the game ends with these orders {}{}; sampled from the engine's own adjudication of all of them over {GAME_END_RUNS} runs (95% margin +-{margin:.1}%).",
        pct(total, GAME_END_RUNS),
        if whom.is_empty() { String::new() } else { format!(" ({whom})") }
    )))
}

/// The exact whole turn in words: the victory points the orders gain and
/// the chance the game ends, each battle reckoned on what the lines before
/// it leave ([`crate::whole_turn`]). Nothing when the orders fight no
/// battle and can neither gain a point nor end the game.
fn whole_turn_text(t: &crate::whole_turn::WholeTurn, battles: usize) -> String {
    let mut points: BTreeMap<u32, u128> = BTreeMap::new();
    let mut lost: BTreeMap<u32, u128> = BTreeMap::new();
    let mut ends: BTreeMap<String, u128> = BTreeMap::new();
    for ((p, l, end), c) in &t.outcomes {
        *points.entry(*p).or_insert(0) += c;
        *lost.entry(*l).or_insert(0) += c;
        if let Some(w) = end {
            *ends.entry(w.clone()).or_insert(0) += c;
        }
    }
    let quiet = points.keys().chain(lost.keys()).all(|p| *p == 0) && ends.is_empty();
    if battles == 0 && quiet {
        return String::new();
    }
    let share = |c: u128| format!("{:.1}%", 100.0 * c as f64 / t.total as f64);
    let vp = points
        .iter()
        .map(|(p, c)| format!("{p} {}", share(*c)))
        .collect::<Vec<_>>()
        .join(", ");
    let expected: f64 = points
        .iter()
        .map(|(p, c)| f64::from(*p) * *c as f64)
        .sum::<f64>()
        / t.total as f64;
    let theirs = if lost.keys().all(|l| *l == 0) {
        String::new()
    } else {
        let l = lost
            .iter()
            .map(|(p, c)| format!("{p} {}", share(*c)))
            .collect::<Vec<_>>()
            .join(", ");
        format!("; the enemy's (your units destroyed) {l}")
    };
    let ended: u128 = ends.values().sum();
    let end = if ended == 0 {
        "The game does not end with these orders.".to_string()
    } else {
        let whom = ends
            .iter()
            .map(|(w, c)| {
                let w = if w.is_empty() { "a draw" } else { w.as_str() };
                format!("{w} {}", share(*c))
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!("The game ends with these orders {} ({whom}).", share(ended))
    };
    "\n".to_string()
        + &wrap(&format!(
            "The whole turn, exactly, each battle reckoned on what the lines before it leave (a target destroyed or gone back, a minefield's losses): victory points {vp}; expected {expected:.2}{theirs}. {end}"
        ))
}

/// What the answer assumes, in the answer's own words.
fn assumptions(s: &State) -> String {
    let mut a = String::from(
        "\nAssumed: each battle's own odds are reckoned on the position your orders\n\
         before it leave, as if the battles before it had no effect; the whole\n\
         turn reckons each on what the earlier ones leave.\n",
    );
    if s.step == Step::Artillery {
        a.push_str(
            "Artillery fire is simultaneous: the enemy's fire this phase is unknown\n\
             and not counted.\n",
        );
    }
    a
}

/// The position when the order on line `line_no` is carried out: the
/// engine's dice-free run of the lines before it (moves made, every die a
/// miss). Artillery fire is simultaneous: every battery fires at the
/// position of the phase's start.
fn position_before(r: &Ruleset, s: &State, side: &str, orders: &str, line_no: usize) -> State {
    if s.step == Step::Artillery || line_no <= 1 {
        return s.clone();
    }
    let text: String = orders
        .lines()
        .take(line_no - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let o = [Orders {
        side: side.to_string(),
        text,
    }];
    let mut st = s.clone();
    // The orders were checked whole, so their first lines are valid too.
    if let Ok(done) = engine::run(r, s, &o, None) {
        // Only where the units stand and the terrain they changed: the
        // turn itself has not advanced.
        st.units = done.st.units;
        st.terrain = done.st.terrain;
    }
    st
}

fn unit_name(r: &Ruleset, u: &Unit) -> String {
    r.unit(&u.kind)
        .map_or_else(|| u.kind.clone(), |s| s.name.clone())
}

/// The odds text of battle `n` of the orders, fought by `firer`.
fn battle_odds(
    r: &Ruleset,
    st: &State,
    side: usize,
    (n, firer): (usize, &Unit),
    tg: &Unit,
) -> String {
    let artillery = st.step == Step::Artillery;
    let terms = if artillery {
        engine::artillery_terms(r, st, firer, tg)
    } else {
        engine::combat_terms(r, st, firer, tg)
    };
    let mut out = wrap(&format!(
        "Battle {n}: {} at {} against {} at {}, strength {}",
        unit_name(r, firer),
        firer.at,
        unit_name(r, tg),
        tg.at,
        tg.strength
    ));
    let terms = match terms {
        Ok(t) => t,
        // Checked as a submission: not reached; said plainly if it were.
        Err(why) => {
            let _ = writeln!(out, "  no odds: {why}");
            return out;
        }
    };
    let dice = engine::total(&terms);
    let range = st.grid.distance(firer.at, tg.at);
    let what = if artillery {
        "Artillery fire"
    } else {
        "Combat"
    };
    out.push_str(&wrap(&format!(
        "  {what}, range {range}: {}",
        dice_why(&terms, dice)
    )));
    out.push_str(&wrap(&format!("  {}", faces_line(r, tg))));
    if dice > MAX_DICE {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return out;
    }
    let joint = distribution(r, tg, dice);
    let total: u64 = joint.values().sum();
    let hits = marginal(&joint, |(h, _)| h);
    let flags = marginal(&joint, |(_, f)| f);
    out.push_str(&wrap(&format!(
        "  Hits: {}",
        shares(&hits, total, "hit", "hits")
    )));
    out.push_str(&wrap(&format!(
        "  Retreat results: {}",
        shares(&flags, total, "retreat", "retreats")
    )));
    if engine::dug_in(r, st, tg.at) {
        out.push_str(&wrap(
            "  Fieldworks: the first loss is ignored; two retreat results to retreat.",
        ));
    }
    let fate = fates(r, st, side, firer.at, tg, &joint);
    out.push_str(&wrap(&format!(
        "  Target destroyed {}, retreats {}, cannot retreat and loses 1 {}, holds its ground {}",
        pct(fate.destroyed, total),
        pct(fate.retreated, total),
        pct(fate.blocked, total),
        pct(
            total - fate.destroyed - fate.retreated - fate.blocked,
            total
        )
    )));
    let _ = writeln!(
        out,
        "  Expected victory points: {:.2} (one for each enemy unit destroyed)",
        fate.points as f64 / total as f64
    );
    if fate.wins > 0 {
        let _ = writeln!(
            out,
            "  This battle wins the game: {}",
            pct(fate.wins, total)
        );
    }
    out
}

/// "4 at range 1, -1 target in woods = 3 dice".
fn dice_why(terms: &[DiceTerm], dice: u32) -> String {
    let mut s = terms.first().map(|t| t.0.clone()).unwrap_or_default();
    for (why, n) in terms.iter().skip(1) {
        let _ = write!(s, ", {n:+} {why}");
    }
    let _ = write!(s, " = {dice} {}", if dice == 1 { "die" } else { "dice" });
    s
}

/// "A die hits a cavalry on cavalry, all (2 of 6); retreat on 1 of 6."
fn faces_line(r: &Ruleset, tg: &Unit) -> String {
    let mut hit: Vec<String> = Vec::new();
    let mut hits = 0;
    let mut flags = 0;
    for v in 1..=6 {
        let face = r.face(v);
        let (h, f) = engine::face_result(r, tg, &face);
        hits += h;
        flags += f;
        if h > 0 && !hit.contains(&face) {
            hit.push(face);
        }
    }
    format!(
        "A die hits the {} on {} ({hits} of 6); retreat on {flags} of 6.",
        unit_name(r, tg),
        if hit.is_empty() {
            "no face".to_string()
        } else {
            hit.join(", ")
        }
    )
}

/// The exact joint distribution of (hits, retreat results) of `n` dice at
/// `tg`, as counts out of 6^n: each face scored by the engine's
/// [`engine::face_result`], convolved die by die.
#[must_use]
pub fn distribution(r: &Ruleset, tg: &Unit, n: u32) -> BTreeMap<(u32, u32), u64> {
    let one: Vec<(u32, u32)> = (1..=6)
        .map(|v| engine::face_result(r, tg, &r.face(v)))
        .collect();
    adjutant_rules::odds::convolve(&one, n)
}

pub use adjutant_rules::odds::pct;
use adjutant_rules::odds::{marginal, shares};

/// A line wrapped at [`WIDTH`] columns after a comma or a space, the rest
/// indented under it; ends with a newline.
fn wrap(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let mut out = String::new();
    let mut cur = " ".repeat(indent);
    let mut empty = true;
    for word in line.split_whitespace() {
        if !empty && cur.len() + 1 + word.len() > WIDTH {
            out.push_str(&cur);
            out.push('\n');
            cur = " ".repeat((indent + 2).max(4));
            empty = true;
        }
        if !empty {
            cur.push(' ');
        }
        cur.push_str(word);
        empty = false;
    }
    out.push_str(&cur);
    out.push('\n');
    out
}

/// What the results do to the target, by the engine's own code.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Fate {
    pub destroyed: u64,
    pub retreated: u64,
    /// Could not retreat and lost a strength point for it (and survived).
    pub blocked: u64,
    /// Victory points gained, summed over the results weighted by counts.
    pub points: u64,
    /// Results after which `side` has won the game.
    pub wins: u64,
}

/// The fate of `tg` under every (hits, retreat results) of `joint`, fired
/// at from `from` by `side`.
#[must_use]
pub fn fates(
    r: &Ruleset,
    st: &State,
    side: usize,
    from: crate::board::Area,
    tg: &Unit,
    joint: &BTreeMap<(u32, u32), u64>,
) -> Fate {
    // Results settled alike (fieldworks) are carried out once.
    let mut settled: BTreeMap<(u32, bool), u64> = BTreeMap::new();
    for ((h, f), c) in joint {
        *settled
            .entry(engine::settle_counts(r, st, tg, *h, *f))
            .or_insert(0) += c;
    }
    let before = st.destroyed.get(side).copied().unwrap_or(0);
    let name = st.sides.get(side).cloned();
    let mut fate = Fate::default();
    for ((losses, retreats), count) in settled {
        let (after, ev) = engine::settle(r, st, side, from, tg.id, losses, retreats);
        if after.unit(tg.id).is_none() {
            fate.destroyed += count;
        } else if ev.iter().any(|e| matches!(e, Event::Retreat { .. })) {
            fate.retreated += count;
        } else if ev.iter().any(|e| matches!(e, Event::RetreatBlocked { .. })) {
            fate.blocked += count;
        }
        let gained = after.destroyed.get(side).copied().unwrap_or(0);
        fate.points += u64::from(gained.saturating_sub(before)) * count;
        if after.over && after.winner == name {
            fate.wins += count;
        }
    }
    fate
}

/// Where a battle leaves its target: (its strength, its area), the area
/// None once it is destroyed.
pub type Outcome = (u32, Option<crate::board::Area>);

/// The exact outcomes of `side`'s FIRE from `from` at `target` on the
/// position `st` (the phase's own kind of fire), as counts out of 6^n, and
/// 6^n: the same convolution and settling as the answer's. For the
/// property test that holds it to the engine's adjudication
/// (tests/it/predict_property.rs). Err: why there is no such battle.
pub fn exact_outcomes(
    r: &Ruleset,
    st: &State,
    side: usize,
    from: crate::board::Area,
    target: crate::board::Area,
) -> Result<(BTreeMap<Outcome, u64>, u64), String> {
    let firer = engine::own(st, side, from).ok_or("no firing unit")?;
    let tg = st
        .unit_at(target)
        .filter(|u| u.side != side)
        .cloned()
        .ok_or("no target")?;
    let terms = if st.step == Step::Artillery {
        engine::artillery_terms(r, st, &firer, &tg)?
    } else {
        engine::combat_terms(r, st, &firer, &tg)?
    };
    let joint = distribution(r, &tg, engine::total(&terms));
    let mut out: BTreeMap<Outcome, u64> = BTreeMap::new();
    for ((h, f), c) in &joint {
        let (losses, retreats) = engine::settle_counts(r, st, &tg, *h, *f);
        let (after, _) = engine::settle(r, st, side, firer.at, tg.id, losses, retreats);
        let key = after
            .unit(tg.id)
            .map_or((0, None), |u| (u.strength, Some(u.at)));
        *out.entry(key).or_insert(0) += c;
    }
    Ok((out, joint.values().sum()))
}
