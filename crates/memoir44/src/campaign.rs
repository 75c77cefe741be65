//! The house rules' "Simplified Campaign Rules" (Appendix 3):
//! before a campaign battle each player rolls battle dice equal to the
//! victory points he won in the previous battle, plus one per victory in the
//! campaign, and every face changes the starting position.
//!
//! The game option `campaign-dice = "allies:3,axis:1"` (set by the
//! campaign when it creates the battle) turns this on. Two phases come
//! before the first turn:
//! 1. `pre-battle roll`, the judge's own: both sides' dice, from the turn's
//!    committed dice stream (side by side in scenario order); stars shrink
//!    the opponent's starting hand at once.
//! 2. `pre-battle`, simultaneous, for the sides that have a choice to make:
//!    which of his own units loses a tank model (tank) or an infantry figure
//!    (infantry) or retreats a hex (flag) for the victim, which enemy unit
//!    loses a figure (grenade) for the roller. A choice not given takes the
//!    documented default (docs/rules/memoir44.md, "Campaigns").
//!
//! Orders of the `pre-battle` phase, one per choice, in any order:
//! `REMOVE <hex>` (a figure of the unit there: your own for a tank or
//! infantry result against you, the enemy's for your grenade) and
//! `RETREAT <hex> <to>` (your unit at <hex> one hex back to <to>); `PASS`
//! takes the defaults.

use super::battle::{retreat_path, Ctx};
use super::events::Event;
use super::state::{State, Unit};
use super::Ruleset;
use adjutant_rules::{Chance, Orders, Phase, Rejection};
use serde::{Deserialize, Serialize};

/// The game option that turns the pre-battle rolls on.
pub const OPTION: &str = "campaign-dice";

/// What a die face asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// The victim removes one tank model from one of his armour units.
    Tank,
    /// The victim removes one figure from one of his infantry units.
    Infantry,
    /// The victim retreats one unit one hex.
    Flag,
    /// The roller removes one figure from any one enemy unit.
    Grenade,
}

/// A choice one side owes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// The side that makes it.
    pub by: usize,
    /// The side that rolled the face.
    pub roller: usize,
    pub effect: Effect,
}

/// The pre-battle rolls of a campaign battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreBattle {
    /// Dice per side, in scenario order.
    pub dice: Vec<u32>,
    /// False until the dice are rolled.
    #[serde(default)]
    pub rolled: bool,
    /// The choices still owed, once rolled.
    #[serde(default)]
    pub choices: Vec<Choice>,
}

/// Parse `allies:3,axis:1` against the sides.
pub fn parse_option(value: &str, sides: &[String]) -> Result<Vec<u32>, String> {
    let mut dice = vec![0; sides.len()];
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (side, n) = part
            .split_once(':')
            .ok_or_else(|| format!("'{part}' is not SIDE:DICE"))?;
        let i = sides
            .iter()
            .position(|s| s.eq_ignore_ascii_case(side.trim()))
            .ok_or_else(|| format!("no side '{}'", side.trim()))?;
        dice[i] = n
            .trim()
            .parse()
            .ok()
            .filter(|n| *n <= 20)
            .ok_or_else(|| format!("'{}' is not a number of dice (0 to 20)", n.trim()))?;
    }
    Ok(dice)
}

/// The phase while the pre-battle is not over, if it is not.
#[must_use]
pub fn phase(s: &State) -> Option<Phase> {
    let pb = s.pre_battle.as_ref()?;
    if !pb.rolled {
        return Some(Phase {
            name: "pre-battle roll".into(),
            sides: Vec::new(),
            what: "the judge rolls the pre-battle dice".into(),
        });
    }
    let mut sides: Vec<usize> = pb.choices.iter().map(|c| c.by).collect();
    sides.sort_unstable();
    sides.dedup();
    let owed: Vec<String> = sides
        .iter()
        .map(|i| {
            let theirs: Vec<&str> = pb
                .choices
                .iter()
                .filter(|c| c.by == *i)
                .map(|c| effect_word(c.effect))
                .collect();
            format!("{} {}", s.sides[*i], theirs.join(", "))
        })
        .collect();
    Some(Phase {
        name: "pre-battle".into(),
        sides: sides.iter().map(|i| s.sides[*i].clone()).collect(),
        what: format!("pre-battle choices: {}", owed.join("; ")),
    })
}

fn effect_word(e: Effect) -> &'static str {
    match e {
        Effect::Tank => "tank",
        Effect::Infantry => "infantry",
        Effect::Flag => "flag",
        Effect::Grenade => "grenade",
    }
}

/// What a choice asks of the side that makes it, and the line that
/// answers it.
fn asked(s: &State, c: &Choice) -> (String, &'static str) {
    let roller = super::render::side_name(&s.sides[c.roller]);
    match c.effect {
        Effect::Tank => (
            format!("Tank, rolled by the {roller}: one of your armour units loses a tank."),
            "REMOVE <hex>",
        ),
        Effect::Infantry => (
            format!("Infantry, rolled by the {roller}: one of your infantry units loses a figure."),
            "REMOVE <hex>",
        ),
        Effect::Flag => (
            format!("Flag, rolled by the {roller}: one of your units falls back one hex."),
            "RETREAT <hex> <to>",
        ),
        Effect::Grenade => (
            "Your grenade: any one enemy unit loses a figure.".to_string(),
            "REMOVE <hex>",
        ),
    }
}

/// The order part of a pre-battle report to `side`: each choice it owes,
/// the line that makes it and the hexes it may name, what the other sides
/// owe, and the defaults. None before the roll, once the choices are
/// made, or for a side that owes none (the waiting line names the sides
/// that do and their choices).
#[must_use]
pub fn template(r: &Ruleset, s: &State, side: usize) -> Option<String> {
    let pb = s.pre_battle.as_ref().filter(|p| p.rolled)?;
    if !pb.choices.iter().any(|c| c.by == side) {
        return None;
    }
    let known = s.fog.as_ref().map(|_| super::fog::knowledge(r, s, side));
    let s = known.as_ref().unwrap_or(s);
    let wrap = |t: &str| adjutant_rules::report::wrap(t, 78, "#   ");
    let mut out = format!(
        "Your pre-battle choices ({}), before the first turn
",
        s.sides[side]
    );
    out.push_str(&wrap(
        "# The pre-battle dice left you these choices. Write one line for each, all in one mail; delete the \"# \" in front of the lines you mean. PASS takes the defaults for every choice you do not write.",
    ));
    for (n, c) in pb.choices.iter().filter(|c| c.by == side).enumerate() {
        let (what, how) = asked(s, c);
        let hexes: Vec<String> = eligible(r, s, c).iter().map(|u| u.at.to_string()).collect();
        out.push_str(&wrap(&format!("# {}. {what}", n + 1)));
        out.push_str(&wrap(&format!(
            "#    {how}, <hex> one of: {}",
            hexes.join(", ")
        )));
    }
    for (i, name) in s.sides.iter().enumerate().filter(|(i, _)| *i != side) {
        let theirs: Vec<&str> = pb
            .choices
            .iter()
            .filter(|c| c.by == i)
            .map(|c| effect_word(c.effect))
            .collect();
        if !theirs.is_empty() {
            out.push_str(&wrap(&format!(
                "# The {} choose at the same time: {}.",
                super::render::side_name(name),
                theirs.join(", ")
            )));
        }
    }
    out.push_str(&wrap(
        "# The defaults (PASS, or a missed deadline under --nmr pass): the victim loses from his strongest unit of the kind struck and retreats the first unit that can; a grenade strikes the weakest enemy unit (docs/campaigns.md).",
    ));
    out.push_str("# PASS\n");
    Some(out)
}

fn class<'a>(r: &'a Ruleset, u: &Unit) -> &'a str {
    r.unit(&u.kind).map_or("", |s| s.class.as_str())
}

/// Units `c` may strike, in id order.
fn eligible<'a>(r: &Ruleset, s: &'a State, c: &Choice) -> Vec<&'a Unit> {
    let victim = if c.effect == Effect::Grenade {
        State::other(c.roller)
    } else {
        c.by
    };
    s.units
        .iter()
        .filter(|u| u.side == victim)
        .filter(|u| match c.effect {
            Effect::Tank => class(r, u) == "armour",
            Effect::Infantry => class(r, u) == "infantry",
            Effect::Flag | Effect::Grenade => true,
        })
        .collect()
}

/// Roll the pre-battle dice (the judge's own phase).
pub fn roll(r: &Ruleset, s: &State, chance: &mut Chance<'_>) -> (State, Vec<Event>) {
    let mut st = s.clone();
    let mut ev = Vec::new();
    let Some(pb) = st.pre_battle.clone() else {
        return (st, ev);
    };
    let faces = r.dice.faces.len() as u32;
    let mut choices = Vec::new();
    for (side, n) in pb.dice.iter().enumerate() {
        let rolled: Vec<String> = (0..*n).map(|_| r.face(chance.dice.roll(faces))).collect();
        ev.push(Event::PreBattleRoll {
            side: st.sides[side].clone(),
            faces: rolled.clone(),
        });
        let opp = State::other(side);
        for f in &rolled {
            match f.as_str() {
                "armour" => choices.push(Choice {
                    by: opp,
                    roller: side,
                    effect: Effect::Tank,
                }),
                "infantry" => choices.push(Choice {
                    by: opp,
                    roller: side,
                    effect: Effect::Infantry,
                }),
                "flag" => choices.push(Choice {
                    by: opp,
                    roller: side,
                    effect: Effect::Flag,
                }),
                "grenade" => choices.push(Choice {
                    by: side,
                    roller: side,
                    effect: Effect::Grenade,
                }),
                "star" => {
                    // One card fewer at the start, never below one; it goes
                    // back on top of the deck, as if never dealt.
                    let hand = &mut st.hands[opp];
                    if hand.len() > 1 {
                        if let Some(c) = hand.pop() {
                            st.deck.insert(0, c);
                        }
                        if let Some(f) = st.short_hand.get_mut(opp) {
                            *f = true;
                        }
                        ev.push(Event::PreBattleHand {
                            side: st.sides[opp].clone(),
                            cards: st.hands[opp].len(),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    // Choices that can strike nothing lapse now.
    let mut owed = Vec::new();
    for c in choices {
        if eligible(r, &st, &c).is_empty() {
            ev.push(Event::PreBattleVoid {
                side: st.sides[c.roller].clone(),
                effect: c.effect,
            });
        } else {
            owed.push(c);
        }
    }
    st.pre_battle = Some(PreBattle {
        dice: pb.dice,
        rolled: true,
        choices: owed,
    });
    if st.pre_battle.as_ref().is_some_and(|p| p.choices.is_empty()) {
        st.pre_battle = None;
    }
    (st, ev)
}

/// One order of the `pre-battle` phase, parsed.
enum Pick {
    Remove(super::Hex),
    Retreat(super::Hex, super::Hex),
}

fn parse(ctx: &Ctx<'_>, text: &str) -> Result<Vec<(usize, String, Pick)>, Rejection> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.eq_ignore_ascii_case("PASS") {
            // PASS: the defaults for every choice not named.
            continue;
        }
        let n = i + 1;
        let w: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let hex = |t: &str| {
            ctx.board
                .parse(t)
                .ok_or_else(|| Rejection::at(n, line, format!("'{t}' is not a hex of the board")))
        };
        let pick = match w.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["REMOVE", h] => Pick::Remove(hex(h)?),
            ["RETREAT", h, to] => Pick::Retreat(hex(h)?, hex(to)?),
            _ => {
                return Err(Rejection::at(
                    n,
                    line,
                    "before the battle the orders are REMOVE <hex> or RETREAT <hex> <to>",
                ))
            }
        };
        out.push((n, line.to_string(), pick));
    }
    Ok(out)
}

/// The hex a unit retreats to by default: the one the rules' retreat path
/// for one flag would take.
fn default_retreat(ctx: &Ctx<'_>, s: &State, u: &Unit) -> Option<super::Hex> {
    let p = retreat_path(ctx, s, u, 1, &[]);
    p.get(1).copied()
}

/// The choices of `side`, matched with its orders (defaults for the rest):
/// (choice index, unit id, retreat hex).
fn resolve_side(
    r: &Ruleset,
    s: &State,
    side: usize,
    text: &str,
) -> Result<Vec<(usize, u32, Option<super::Hex>)>, Rejection> {
    let ctx = Ctx::new(r);
    // Kriegspiel: a side chooses on its own board, where only the enemy
    // units it sees stand (fog::knowledge): its grenade strikes one of
    // those, and its answers name nothing else.
    let known = s.fog.as_ref().map(|_| super::fog::knowledge(r, s, side));
    let s = known.as_ref().unwrap_or(s);
    let pb = s
        .pre_battle
        .as_ref()
        .ok_or_else(|| Rejection::whole("the battle has begun"))?;
    let mine: Vec<usize> = pb
        .choices
        .iter()
        .enumerate()
        .filter(|(_, c)| c.by == side)
        .map(|(i, _)| i)
        .collect();
    let mut taken: Vec<(usize, u32, Option<super::Hex>)> = Vec::new();
    for (n, line, pick) in parse(&ctx, text)? {
        let (at, to) = match pick {
            Pick::Remove(h) => (h, None),
            Pick::Retreat(h, t) => (h, Some(t)),
        };
        let u = s
            .unit_at(at)
            .ok_or_else(|| Rejection::at(n, &line, format!("no unit at {at}")))?;
        let fits = |c: &Choice| {
            (to.is_some() == (c.effect == Effect::Flag))
                && eligible(r, s, c).iter().any(|e| e.id == u.id)
        };
        let Some(ci) = mine
            .iter()
            .copied()
            .find(|i| !taken.iter().any(|t| t.0 == *i) && fits(&pb.choices[*i]))
        else {
            return Err(Rejection::at(
                n,
                &line,
                format!("no pre-battle result of yours lets you strike the unit at {at} so"),
            ));
        };
        if let Some(t) = to {
            let back = retreat_path(&ctx, s, u, 1, &[t]);
            if back.get(1) != Some(&t) {
                return Err(Rejection::at(
                    n,
                    &line,
                    format!("{at} cannot retreat to {t} (one hex back, free, on the board)"),
                ));
            }
        }
        taken.push((ci, u.id, to));
    }
    for ci in mine {
        if taken.iter().any(|t| t.0 == ci) {
            continue;
        }
        let c = &pb.choices[ci];
        let units = eligible(r, s, c);
        // Defaults: the victim loses from its strongest unit (most figures,
        // then lowest id) and retreats the first unit that can; the roller's
        // grenade strikes the weakest enemy unit (fewest figures, lowest id).
        let pick = match c.effect {
            Effect::Grenade => units.iter().min_by_key(|u| (u.figures, u.id)),
            Effect::Flag => units.iter().find(|u| default_retreat(&ctx, s, u).is_some()),
            _ => units
                .iter()
                .max_by_key(|u| (u.figures, std::cmp::Reverse(u.id))),
        };
        if let Some(u) = pick {
            let to = (c.effect == Effect::Flag)
                .then(|| default_retreat(&ctx, s, u))
                .flatten();
            taken.push((ci, u.id, to));
        }
    }
    Ok(taken)
}

/// Check one side's pre-battle orders: the picks in canonical spelling.
pub fn check(r: &Ruleset, s: &State, side: usize, text: &str) -> Result<Vec<String>, Rejection> {
    let picks = resolve_side(r, s, side, text)?;
    Ok(picks
        .iter()
        .filter_map(|(_, id, to)| {
            let u = s.unit(*id)?;
            Some(match to {
                Some(t) => format!("RETREAT {} {t}", u.at),
                None => format!("REMOVE {}", u.at),
            })
        })
        .collect())
}

/// Apply every side's choices (orders, or defaults for sides that sent
/// none), then the battle begins.
pub fn choose(r: &Ruleset, s: &State, orders: &[Orders]) -> Result<(State, Vec<Event>), Rejection> {
    let Some(pb) = s.pre_battle.clone() else {
        return Err(Rejection::whole("the battle has begun"));
    };
    let mut all = Vec::new();
    for side in 0..s.sides.len() {
        let text = orders
            .iter()
            .find(|o| o.side == s.sides[side])
            .map_or("", |o| o.text.as_str());
        all.extend(resolve_side(r, s, side, text)?);
    }
    all.sort_by_key(|t| t.0);
    let mut st = s.clone();
    let mut ev = Vec::new();
    for (ci, id, to) in all {
        let c = &pb.choices[ci];
        let Some(u) = st.unit(id).cloned() else {
            continue;
        };
        match to {
            // Kriegspiel: a fall-back chosen on the side's own board onto a
            // hex an unseen enemy unit holds is not made (the unit stays).
            Some(t) if st.unit_at(t).is_some() => {}
            Some(t) => {
                if let Some(m) = st.unit_mut(id) {
                    m.at = t;
                }
                ev.push(Event::PreBattleRetreat {
                    side: st.sides[u.side].clone(),
                    from: u.at.to_string(),
                    to: t.to_string(),
                });
            }
            None => {
                let left = u.figures.saturating_sub(1);
                ev.push(Event::PreBattleLoss {
                    side: st.sides[u.side].clone(),
                    at: u.at.to_string(),
                    unit: u.kind.clone(),
                    figures: left,
                    effect: c.effect,
                    by: st.sides[c.roller].clone(),
                });
                if left == 0 {
                    // "You gain a Victory Point if all of the figures/models of
                    // an opponent's Unit are removed before the Battle begins."
                    st.units.retain(|x| x.id != id);
                    if let Some(m) = st.medal_units.get_mut(c.roller) {
                        *m += 1;
                    }
                    ev.push(Event::PreBattleMedal {
                        side: st.sides[c.roller].clone(),
                        at: u.at.to_string(),
                    });
                } else if let Some(m) = st.unit_mut(id) {
                    m.figures = left;
                }
            }
        }
    }
    st.pre_battle = None;
    Ok((st, ev))
}

/// One line for a pre-battle event, or None for another kind.
#[must_use]
pub fn describe(e: &Event) -> Option<String> {
    use super::render::{side_name, unit_name};
    Some(match e {
        Event::PreBattleRoll { side, faces } => {
            let side = side_name(side);
            if faces.is_empty() {
                format!("{side} roll no pre-battle dice.")
            } else {
                format!("{side} roll their pre-battle dice: {}.", faces.join(", "))
            }
        }
        Event::PreBattleHand { side, cards } => format!(
            "{} start with one card fewer ({cards} in hand) and draw two a turn until whole.",
            side_name(side)
        ),
        Event::PreBattleVoid { side, .. } => {
            format!(
                "A pre-battle result of {} strikes nothing.",
                side_name(side)
            )
        }
        Event::PreBattleRetreat { side, from, to } => format!(
            "Before the battle a unit of {} falls back from {from} to {to}.",
            side_name(side)
        ),
        Event::PreBattleLoss {
            side,
            at,
            unit,
            figures,
            ..
        } => format!(
            "Before the battle the {} of {} at {at} loses a figure ({figures} left).",
            unit_name(unit),
            side_name(side)
        ),
        Event::PreBattleMedal { side, at } => format!(
            "{} eliminate the unit at {at} before the battle: a medal.",
            side_name(side)
        ),
        _ => return None,
    })
}
