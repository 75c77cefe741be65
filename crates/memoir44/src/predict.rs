//! PREDICT (docs/orders.md): the exact odds of a side's planned turn, before
//! it commits them.
//!
//! The orders are parsed and planned exactly as a submission is (the same
//! rejection for a refused order). The turn is then carried out on a copy
//! of the position as the side may know it (under Kriegspiel only the enemy
//! units it sees; no enemy card, so no Ambush) with dice that never hit
//! (every die shows a Star), so that each battle's dice are the engine's own
//! ([`crate::battle::battle_dice`] through the turn's own code, with the
//! card's modifiers). For each battle the distribution of hits and flags is
//! then exact: each face of the ruleset's die is scored by
//! [`crate::battle::roll`] itself, the faces are convolved over the number
//! of dice, and every (hits, flags) result is applied to a copy of the
//! position by the battle code ([`crate::battle::lose`],
//! [`crate::battle::resolve_flags`]) to learn whether the target is
//! eliminated or retreats and what medals it gives. Nothing is stored and
//! no die of the game's stream is drawn.

use crate::battle::{self, Ctx, HitRule};
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
    let idx = crate::mover_index(s, side)?;
    let ctx = Ctx::new(r);
    let lines = crate::orders::parse(&ctx.board, r, orders)?;
    let plan = crate::turn::plan(&ctx, s, idx, &lines)?;
    let known = known_position(r, s, idx);
    let mut dice = NoHit::new(r);
    let mut deck = ChaChaDice::from_seed([0; 32]);
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let (after, events) = crate::turn::apply(&ctx, &known, &plan, &mut chance);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PREDICT for {side}: the odds of these orders, not played."
    );
    let mut n = 0;
    for e in &events {
        if let Some(text) = battle_odds(&ctx, &after, idx, e) {
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
    out.push_str(&assumptions(s));
    Ok(out)
}

/// What the answer assumes, in the answer's own words.
fn assumptions(s: &State) -> String {
    let mut a = String::from(
        "\nAssumed: the enemy plays no reaction card (such as Ambush): its cards\n\
         are unknown. Each battle is reckoned on the position after this turn's\n\
         moves, as if the battles before it in these orders had no effect.\n",
    );
    if s.fog.is_some() {
        a.push_str(
            "Kriegspiel: only the enemy units your side sees now are counted; a\n\
             battle against a hex where you see no unit gets no odds.\n",
        );
    }
    a
}

/// The position `side` may know: the enemy's cards gone (no reaction card)
/// and, under Kriegspiel, only the enemy units it sees.
fn known_position(r: &Ruleset, s: &State, side: usize) -> State {
    let mut k = s.clone();
    for (i, hand) in k.hands.iter_mut().enumerate() {
        if i != side {
            hand.clear();
        }
    }
    if s.fog.is_some() {
        k.units.retain(|u| crate::fog::sees(r, s, side, u));
    }
    k
}

/// Dice that always show the Star (a face that scores nothing in an
/// ordinary battle), so the planned turn runs to its battles without any of
/// them changing the position.
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

/// The odds text of one battle event of `side`, or None for an event that
/// is not one of its battles.
fn battle_odds(ctx: &Ctx<'_>, after: &State, side: usize, e: &Event) -> Option<String> {
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
    if after.sides.get(side) != Some(who) {
        return None;
    }
    let tgt = after.unit_at(*at)?.clone();
    let aspec = from.map(|_| ctx.spec(attacker));
    let tspec = ctx.spec(target);
    let mut out = String::new();
    let by = match (from, aspec) {
        (Some(f), Some(a)) => format!("{} at {f}", a.name),
        _ => attacker.clone(),
    };
    let _ = writeln!(out, "{by} against {} at {at}", tspec.name);
    let mut shown = how.replace('-', " ");
    if let Some(c) = shown.get(..1) {
        shown = format!("{}{}", c.to_ascii_uppercase(), &shown[1..]);
    }
    let dice_line = format!(
        "  {shown}, range {range}: {}",
        crate::render::dice_why(*base_dice, modifiers, *dice)
    );
    // A long line goes on indented deeper than the answer's own lines, so
    // a reader (and a case's `[expect.predict]`) can tell it continues.
    let _ = write!(
        out,
        "{}",
        adjutant_rules::report::wrap(&dice_line, 78, "    ")
    );
    if *dice > MAX_DICE {
        let _ = writeln!(out, "  (more than {MAX_DICE} dice: no odds are reckoned)");
        return Some(out);
    }
    let rule = hit_rule(how);
    let limited = from.is_some().then(|| aspec.map(|a| a.class.clone()));
    let joint = distribution(
        ctx,
        after,
        *dice,
        aspec,
        tspec,
        rule,
        limited.flatten(),
        *at,
    );
    let total: u64 = joint.values().sum();
    let by_hits = marginal(&joint, |(h, _)| h);
    let by_flags = marginal(&joint, |(_, f)| f);
    let _ = writeln!(out, "  Hits:  {}", shares(&by_hits, total, "hit", "hits"));
    let _ = writeln!(
        out,
        "  Flags: {}",
        shares(&by_flags, total, "flag", "flags")
    );
    let fate = fates(
        ctx,
        after,
        side,
        tgt.id,
        &joint,
        rule,
        attacker_class(aspec),
    );
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
    Some(out)
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
}

fn fates(
    ctx: &Ctx<'_>,
    st: &State,
    side: usize,
    target: u32,
    joint: &BTreeMap<(u32, u32), u64>,
    rule: HitRule,
    remover: &str,
) -> Fate {
    let before = st.medals(side);
    let mut fate = Fate::default();
    for ((hits, flags), count) in joint {
        let mut s = st.clone();
        let mut ev = Vec::new();
        let mut out = battle::Outcome::default();
        if *hits > 0 {
            out.eliminated =
                battle::lose(ctx, &mut s, &mut ev, target, *hits, side, "hits", remover);
        }
        if !out.eliminated && *flags > 0 {
            out = battle::resolve_flags(ctx, &mut s, &mut ev, target, *flags, side, rule).1;
        }
        if out.eliminated {
            fate.eliminated += count;
        } else if out.retreated {
            fate.retreated += count;
        }
        fate.medals += u64::from(s.medals(side).saturating_sub(before)) * count;
    }
    fate
}
