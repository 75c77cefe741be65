//! PREDICT (docs/orders.md): the exact odds of a side's planned turn, before
//! it commits them.
//!
//! The orders are parsed and planned exactly as a submission is (the same
//! rejection for a refused order). The turn is then carried out on a copy
//! of the position as the side may know it (under Kriegspiel only the enemy
//! units it sees; no enemy card, so no Ambush) with dice that show only the
//! Star (a miss in most battles; what it does in the others, a sniper's or
//! Air Power's, is undone before the odds are reckoned), so that each
//! battle's dice are the engine's own ([`crate::battle::battle_dice`]
//! through the turn's own code, with the card's modifiers), and each battle
//! meets the enemy units as they stood before the turn. For each battle the
//! distribution of hits and flags is
//! then exact: each face of the ruleset's die is scored by
//! [`crate::battle::roll`] itself, the faces are convolved over the number
//! of dice, and every (hits, flags) result is applied to a copy of the
//! position by the battle code ([`crate::battle::lose`],
//! [`crate::battle::resolve_flags`]) to learn whether the target is
//! eliminated or retreats and what medals it gives. Then the whole turn,
//! exactly ([`crate::whole_turn`]): the checked plan carried out by the
//! turn's own code step by step over every throw, each battle on what the
//! earlier ones leave. Nothing is stored and no die of the game's stream is
//! drawn.

use crate::battle::{self, Ctx, HitRule};
use crate::board::Hex;
use crate::events::Event;
use crate::ruleset::Ruleset;
use crate::state::State;
use adjutant_dice::{ChaChaDice, Dice, ForcedDice};
use adjutant_rules::{Chance, Rejection};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most dice one battle is enumerated for (6^n results, convolved die by
/// die, so the work is small; a battle of more dice is answered without
/// odds). No Memoir '44 battle rolls more than a handful.
pub const MAX_DICE: u32 = 12;

/// PREDICT for `side`'s orders: the answer's text, or the rejection a
/// submission of the same orders would get.
pub fn predict(r: &Ruleset, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
    if s.pre_battle.is_some() || !s.airdrops.is_empty() {
        // The same refusal or acceptance as a submission; no battle here.
        adjutant_rules::Family::check(r, s, side, orders)?;
        return Ok("No battle is fought in this phase: there are no odds to give.\n".into());
    }
    let ctx = Ctx::new(r);
    let p = planned(&ctx, r, s, side, orders)?;
    let (after, events, idx) = (&p.after, &p.events, p.idx);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PREDICT for {side}: the odds of these orders, not played."
    );
    let mut n = 0;
    for e in events {
        if let Some(text) = battle_odds(&ctx, after, idx, e) {
            n += 1;
            let _ = write!(out, "\nBattle {n}: {text}");
        }
    }
    if n == 0 {
        let _ = writeln!(
            out,
            "\nThese orders fight no battle: there are no odds to give."
        );
    }
    let whole = crate::whole_turn::whole_turn(&ctx, &p.known, &p.plan);
    out.push_str(&whole_turn_text(whole.as_ref(), n));
    out.push_str(&assumptions(s));
    Ok(out)
}

/// The exact whole turn in words ([`crate::whole_turn`]): the medals the
/// orders gain and the chance the game ends, each battle reckoned on what
/// the steps before it leave. Nothing when the orders fight no battle and
/// can neither gain nor lose a medal nor end the game.
fn whole_turn_text(t: Option<&crate::whole_turn::WholeTurn>, battles: usize) -> String {
    let Some(t) = t else {
        if battles == 0 {
            return String::new();
        }
        let line = format!(
            "The whole turn: more than {} runs of its steps would be needed, so no exact figure is given for it; each battle's odds above stand alone.",
            crate::whole_turn::MAX_RUNS
        );
        return "\n".to_string() + &adjutant_rules::report::wrap(&line, 78, "    ");
    };
    let mut gained: BTreeMap<u32, u128> = BTreeMap::new();
    let mut lost: BTreeMap<u32, u128> = BTreeMap::new();
    let mut ends: BTreeMap<String, u128> = BTreeMap::new();
    for ((g, l, end), c) in &t.outcomes {
        *gained.entry(*g).or_insert(0) += c;
        *lost.entry(*l).or_insert(0) += c;
        if let Some(w) = end {
            *ends.entry(w.clone()).or_insert(0) += c;
        }
    }
    let quiet = gained.keys().chain(lost.keys()).all(|m| *m == 0) && ends.is_empty();
    if battles == 0 && quiet {
        return String::new();
    }
    let share = |c: u128| format!("{:.1}%", 100.0 * c as f64 / t.total as f64);
    let list = |m: &BTreeMap<u32, u128>| {
        m.iter()
            .map(|(k, c)| format!("{k} {}", share(*c)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let expected = gained
        .iter()
        .map(|(k, c)| f64::from(*k) * *c as f64)
        .sum::<f64>()
        / t.total as f64;
    let theirs = if lost.keys().all(|l| *l == 0) {
        String::new()
    } else {
        format!("; the enemy's (your units lost) {}", list(&lost))
    };
    let ended: u128 = ends.values().sum();
    let end = if ended == 0 {
        "The game does not end with these orders.".to_string()
    } else {
        let whom = ends
            .iter()
            .map(|(w, c)| {
                let w = if w.is_empty() {
                    "no winner"
                } else {
                    w.as_str()
                };
                format!("{w} {}", share(*c))
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!("The game ends with these orders {} ({whom}).", share(ended))
    };
    let line = format!(
        "The whole turn, exactly, each battle reckoned on what the steps before it leave (a target eliminated or gone back, a line of sight a retreat closes): medals {}; expected {expected:.2}{theirs}. {end}",
        list(&gained)
    );
    "\n".to_string() + &adjutant_rules::report::wrap(&line, 78, "    ")
}

/// The planned turn of a side's orders, carried out with dice that never
/// hit.
struct Planned {
    /// The position after it (the enemy's units as before it).
    after: State,
    /// Its events.
    events: Vec<Event>,
    /// The side's index.
    idx: usize,
    /// The position the side may know, the turn planned on it.
    known: State,
    plan: crate::turn::Plan,
}

/// The planned turn of `side`'s orders carried out on the position it may
/// know with dice that never hit, or the rejection a submission would get.
fn planned(
    ctx: &Ctx<'_>,
    r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
) -> Result<Planned, Rejection> {
    let idx = crate::mover_index(s, side)?;
    let lines = crate::orders::parse(&ctx.board, r, orders)?;
    // Planned on the position the side knows (fog::knowledge), so its
    // refusals and its odds are a function of what the side knows.
    let known = crate::fog::knowledge(r, s, idx);
    let plan = crate::turn::plan(ctx, &known, idx, &lines)?;
    let mut dice = NoHit::new(r);
    let mut deck = ChaChaDice::from_seed([0; 32]);
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let (after, events) = crate::turn::apply(ctx, &known, &plan, &mut chance);
    Ok(Planned {
        after: undo_enemy_losses(after, &known, idx),
        events,
        idx,
        known,
        plan,
    })
}

/// The position after the turn with the enemy's units and `side`'s medals
/// as they were before it. The Star is no miss for every battle (a
/// sniper's or Air Power's star hits, a flame-thrower's is a flag), so the
/// turn's battles may have taken figures, hexes or whole units from the
/// enemy; each battle is to be reckoned as if those before it had no
/// effect. Only this turn's battles touch enemy units in its own turn, so
/// the units as they stood before it are the ones each battle meets; the
/// side's own units stay where the turn's moves put them.
fn undo_enemy_losses(mut after: State, known: &State, side: usize) -> State {
    after.units.retain(|u| u.side == side);
    after
        .units
        .extend(known.units.iter().filter(|u| u.side != side).cloned());
    after.units.sort_by_key(|u| u.id);
    after.medal_units.clone_from(&known.medal_units);
    after
}

/// Where a battle leaves its target: its figures and its hex, or `(0,
/// None)` when it is eliminated.
pub type Outcome = (u32, Option<Hex>);

/// One battle's exact outcomes, as PREDICT reckons them.
#[derive(Debug, Clone)]
pub struct ExactBattle {
    /// The target unit's id.
    pub target: u32,
    /// Each outcome with its count out of `total`.
    pub outcomes: BTreeMap<Outcome, u64>,
    /// 6 to the power of the battle's dice.
    pub total: u64,
}

/// The exact distribution of where each battle of `side`'s orders leaves
/// its target, by the same arithmetic as the answer (the faces convolved,
/// each result carried out by the battle code), for the property test that
/// holds it to the engine's own adjudication (tests/it/predict_m44_property.rs).
/// A battle of more than [`MAX_DICE`] dice is left out.
pub fn exact_outcomes(
    r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
) -> Result<Vec<ExactBattle>, Rejection> {
    let ctx = Ctx::new(r);
    let p = planned(&ctx, r, s, side, orders)?;
    let (after, idx) = (&p.after, p.idx);
    let mut out = Vec::new();
    for e in &p.events {
        if let Some(b) = battle_reckoning(&ctx, after, idx, e) {
            let mut outcomes = BTreeMap::new();
            for ((hits, flags), count) in &b.joint {
                let (st, _) = settle(&ctx, after, idx, &b, *hits, *flags);
                let o = st
                    .unit(b.target)
                    .map_or((0, None), |u| (u.figures, Some(u.at)));
                *outcomes.entry(o).or_insert(0) += count;
            }
            let total = outcomes.values().sum();
            out.push(ExactBattle {
                target: b.target,
                outcomes,
                total,
            });
        }
    }
    Ok(out)
}

/// The exact whole turn of `side`'s orders as the answer reckons it
/// ([`crate::whole_turn`]), for the property test that holds it to the
/// engine's own adjudication (tests/it/predict_m44_property.rs): None where
/// it would take more than [`crate::whole_turn::MAX_RUNS`] runs.
pub fn exact_whole_turn(
    r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
) -> Result<Option<crate::whole_turn::WholeTurn>, Rejection> {
    let ctx = Ctx::new(r);
    let p = planned(&ctx, r, s, side, orders)?;
    Ok(crate::whole_turn::whole_turn(&ctx, &p.known, &p.plan))
}

/// What the answer assumes, in the answer's own words.
fn assumptions(s: &State) -> String {
    let mut a = String::from(
        "\nAssumed: the enemy plays no reaction card (such as Ambush): its cards\n\
         are unknown. Each battle's own odds are reckoned on the position after\n\
         this turn's moves, as if the battles before it in these orders had no\n\
         effect; the whole turn reckons each on what the earlier ones leave.\n",
    );
    if s.fog.is_some() {
        a.push_str(
            "Kriegspiel: only the enemy units your side sees now are counted; a\n\
             battle against a hex where you see no unit gets no odds.\n",
        );
    }
    a
}

/// Dice that always show the Star (a face that scores nothing in an
/// ordinary battle), so the planned turn runs to its battles; what a star
/// does in the others is undone ([`undo_enemy_losses`]).
struct NoHit {
    face: u32,
    rolled: usize,
}

impl NoHit {
    fn new(r: &Ruleset) -> NoHit {
        NoHit {
            face: r.face_value("star").unwrap_or(1),
            rolled: 0,
        }
    }
}

impl Dice for NoHit {
    fn roll(&mut self, sides: u32) -> u32 {
        self.rolled += 1;
        self.face.clamp(1, sides.max(1))
    }
    fn rolled(&self) -> usize {
        self.rolled
    }
}

/// How the battle code counted hits for a battle of this kind (as
/// battle/fight.rs and turn/apply/steps.rs set [`HitRule`]).
fn hit_rule(how: &str) -> HitRule {
    HitRule {
        stars_hit: how == "air-power",
        grenades_ignored: how == "firefight",
        flags_unignorable: how == "air-power" || how == "barrage",
    }
}

/// One battle of the side's, reckoned: its target and the exact joint
/// distribution of (hits, flags), with how the battle code settles them.
struct Reckoning {
    target: u32,
    joint: BTreeMap<(u32, u32), u64>,
    rule: HitRule,
    remover: &'static str,
}

/// `e` if it is one of `side`'s battles: (the event's fields we need).
fn own_battle<'e>(after: &State, side: usize, e: &'e Event) -> Option<BattleOf<'e>> {
    let Event::Battle {
        side: who,
        attacker,
        from,
        target,
        at,
        range,
        how,
        base_dice,
        modifiers,
        dice,
        ..
    } = e
    else {
        return None;
    };
    (after.sides.get(side) == Some(who)).then_some(BattleOf {
        by: side,
        attacker,
        from: *from,
        target,
        at: *at,
        range: *range,
        how,
        base_dice: *base_dice,
        modifiers,
        dice: *dice,
    })
}

/// The fields of a battle event PREDICT reads.
struct BattleOf<'e> {
    /// The side fighting it.
    by: usize,
    attacker: &'e String,
    from: Option<Hex>,
    target: &'e String,
    at: Hex,
    range: u32,
    how: &'e String,
    base_dice: u32,
    modifiers: &'e [crate::events::Modifier],
    dice: u32,
}

/// The enemy unit at the battle's target hex (never one of the side's own:
/// a unit that took ground there in the planned turn stands on it too).
fn target_unit<'s>(after: &'s State, b: &BattleOf<'_>) -> Option<&'s crate::state::Unit> {
    after.units.iter().find(|u| u.at == b.at && u.side != b.by)
}

/// The exact reckoning of one battle (None past [`MAX_DICE`] dice, or if
/// no unit stands at its target hex).
fn reckon(ctx: &Ctx<'_>, after: &State, b: &BattleOf<'_>) -> Option<Reckoning> {
    if b.dice > MAX_DICE {
        return None;
    }
    let tgt = target_unit(after, b)?;
    let aspec = b.from.map(|_| ctx.spec(b.attacker));
    let tspec = ctx.spec(b.target);
    let rule = hit_rule(b.how);
    let limited = b.from.and(aspec).map(|a| a.class.clone());
    let joint = distribution(ctx, after, b.dice, aspec, tspec, rule, limited, b.at);
    Some(Reckoning {
        target: tgt.id,
        joint,
        rule,
        remover: attacker_class(aspec),
    })
}

/// The reckoning of `e` if it is one of `side`'s battles.
fn battle_reckoning(ctx: &Ctx<'_>, after: &State, side: usize, e: &Event) -> Option<Reckoning> {
    reckon(ctx, after, &own_battle(after, side, e)?)
}

/// A card's id in its printed words: "air-power" -> "Air Power".
fn title_words(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The odds text of one battle event of `side`, or None for an event that
/// is not one of its battles.
fn battle_odds(ctx: &Ctx<'_>, after: &State, side: usize, e: &Event) -> Option<String> {
    let b = own_battle(after, side, e)?;
    target_unit(after, &b)?;
    let aspec = b.from.map(|_| ctx.spec(b.attacker));
    let tspec = ctx.spec(b.target);
    let mut out = String::new();
    // A card's battle (Air Power, Barrage) is fought by no unit and at no
    // range: it is named as the card is, "Air Power", not "air-power,
    // range 0" (issue 53).
    let card = b.from.is_none();
    let by = match (b.from, aspec) {
        (Some(f), Some(a)) => format!("{} at {f}", a.name),
        _ => title_words(b.attacker),
    };
    let _ = writeln!(out, "{by} against {} at {}", tspec.name, b.at);
    let why = crate::render::dice_why(b.base_dice, b.modifiers, b.dice);
    let dice_line = if card {
        format!(
            "  {} (the card's dice, no range): {why}",
            title_words(b.how)
        )
    } else {
        let mut shown = b.how.replace('-', " ");
        if let Some(c) = shown.get(..1) {
            shown = format!("{}{}", c.to_ascii_uppercase(), &shown[1..]);
        }
        format!("  {shown}, range {}: {why}", b.range)
    };
    // A long line goes on indented deeper than the answer's own lines, so
    // a reader (and a case's `[expect.predict]`) can tell it continues.
    let _ = write!(
        out,
        "{}",
        adjutant_rules::report::wrap(&dice_line, 78, "    ")
    );
    let Some(k) = reckon(ctx, after, &b) else {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return Some(out);
    };
    let total: u64 = k.joint.values().sum();
    let by_hits = marginal(&k.joint, |(h, _)| h);
    let by_flags = marginal(&k.joint, |(_, f)| f);
    let _ = writeln!(out, "  Hits:  {}", shares(&by_hits, total, "hit", "hits"));
    let _ = writeln!(
        out,
        "  Flags: {}",
        shares(&by_flags, total, "flag", "flags")
    );
    let fate = fates(ctx, after, side, &k);
    let _ = writeln!(
        out,
        "  Target eliminated {}, retreats {}, holds its ground {}",
        pct(fate.eliminated, total),
        pct(fate.retreated, total),
        pct(total - fate.eliminated - fate.retreated, total)
    );
    let _ = writeln!(
        out,
        "  Expected medals: {:.2}",
        fate.medals as f64 / total as f64
    );
    if fate.reached > 0 && after.final_turn.is_none() {
        let _ = writeln!(
            out,
            "{}",
            victory_line(ctx, after, side, fate.reached, total)
        );
    }
    Some(out)
}

/// The chance this battle alone brings the side to its victory points, and
/// what follows (victory.rs): the enemy's one last turn where the house
/// rules give it (Counter-Attack), else the game's end.
fn victory_line(ctx: &Ctx<'_>, st: &State, side: usize, reached: u64, total: u64) -> String {
    let need = crate::variants::exterminate::victory_for(st, side);
    // The rule is the rulebook's "Counter-Attack", but that is also a
    // command card's name, which an answer names only if the side holds it.
    let then = if ctx.r.options.counter_attack_turn {
        "the enemy then plays one last turn, and the game ends"
    } else {
        "the game ends"
    };
    let line = format!(
        "  This battle reaches the victory points ({need}): {}; {then}",
        pct(reached, total)
    );
    adjutant_rules::report::wrap(&line, 78, "    ")
        .trim_end()
        .to_string()
}

fn attacker_class(a: Option<&crate::ruleset::UnitSpec>) -> &'static str {
    match a.map(|a| a.class.as_str()) {
        Some("artillery") => "artillery",
        _ => "unit",
    }
}

/// The exact joint distribution of (hits, flags) of `n` dice, as counts out
/// of 6^n: each face scored by the battle code's own [`battle::roll`] (and
/// a Fortress's [`crate::tiles::limited_hits`]), convolved die by die.
#[allow(clippy::too_many_arguments)]
fn distribution(
    ctx: &Ctx<'_>,
    st: &State,
    n: u32,
    att: Option<&crate::ruleset::UnitSpec>,
    tgt: &crate::ruleset::UnitSpec,
    rule: HitRule,
    limited_class: Option<String>,
    at: crate::board::Hex,
) -> BTreeMap<(u32, u32), u64> {
    let sides = 6u32;
    let one: Vec<(u32, u32)> = (1..=sides)
        .map(|v| {
            let mut d = ForcedDice::new(vec![v]);
            let (faces, hits, flags) = battle::roll(ctx, &mut d, 1, att, tgt, rule);
            let hits = limited_class
                .as_deref()
                .and_then(|c| crate::tiles::limited_hits(ctx, st, c, at, &faces))
                .unwrap_or(hits);
            (hits, flags)
        })
        .collect();
    adjutant_rules::odds::convolve(&one, n)
}

pub use adjutant_rules::odds::pct;
use adjutant_rules::odds::{marginal, shares};

/// What the (hits, flags) results do to the target, by the battle code.
#[derive(Default)]
struct Fate {
    eliminated: u64,
    retreated: u64,
    /// Medals gained, summed over the results weighted by their counts.
    medals: u64,
    /// Results that bring the side to its victory points.
    reached: u64,
}

fn fates(ctx: &Ctx<'_>, st: &State, side: usize, k: &Reckoning) -> Fate {
    let before = st.medals(side);
    let had_won = crate::victory::reached(st, side);
    let mut fate = Fate::default();
    for ((hits, flags), count) in &k.joint {
        let (s, out) = settle(ctx, st, side, k, *hits, *flags);
        if out.eliminated {
            fate.eliminated += count;
        } else if out.retreated {
            fate.retreated += count;
        }
        fate.medals += u64::from(s.medals(side).saturating_sub(before)) * count;
        if !had_won && crate::victory::reached(&s, side) {
            fate.reached += count;
        }
    }
    fate
}

/// One (hits, flags) result carried out on a copy of the position by the
/// battle code, as battle/fight.rs does: the hits, then the flags.
fn settle(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    k: &Reckoning,
    hits: u32,
    flags: u32,
) -> (State, battle::Outcome) {
    let mut s = st.clone();
    let mut ev = Vec::new();
    let mut out = battle::Outcome::default();
    if hits > 0 {
        out.eliminated = battle::lose(
            ctx, &mut s, &mut ev, k.target, hits, side, "hits", k.remover,
        );
    }
    if !out.eliminated && flags > 0 {
        out = battle::resolve_flags(ctx, &mut s, &mut ev, k.target, flags, side, k.rule).1;
    }
    (s, out)
}
