//! The Seven Years' War order template: the side whose player-turn it is
//! gets one line per unit in its own order language (docs/orders.md,
//! "Seven Years' War"), with what each unit throws for its move, and the
//! steps and standing orders that language has. Nothing of Charge!'s
//! (canister, picking off, HOLD GROUND) is offered: its parser refuses them.

use super::{engine, Tables};
use crate::geometry::fmt_len;
use crate::order_line::commented;
use crate::Ruleset;
use crate::{State, Unit};
use std::fmt::Write;

/// The template for side `s` (None when it is not its player-turn).
#[must_use]
pub fn template(r: &Ruleset, st: &State, s: usize) -> Option<String> {
    let t = r.syw.as_deref()?;
    if st.over || !engine::needs(st).contains(&s) {
        return None;
    }
    let side = st.sides.get(s)?;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Orders for turn {}, {side}'s player-turn: one line per unit;",
        st.turn
    );
    let _ = writeln!(o, "# change HOLD, or delete the line.");
    for u in st.units.iter().filter(|u| u.side == s) {
        match engine::orderable(u) {
            Err(why) => commented(&mut o, &format!("# {}:", u.id), &why),
            Ok(()) => commented(
                &mut o,
                &format!("UNIT {}: HOLD    #", u.id),
                &unit_note(r, t, u),
            ),
        }
    }
    trailer(&mut o, r, st, s);
    Some(o)
}

/// What the template says of one unit: its type, formation, strength, its
/// movement throw and its standing orders.
fn unit_note(r: &Ruleset, t: &Tables, u: &Unit) -> String {
    let name = r
        .troop(&u.troop)
        .map_or(u.troop.clone(), |x| x.name.clone());
    let mut parts = vec![
        format!("{name}, {}, {}/{} r&f", u.formation, u.rf, u.start_rf),
        throw_text(t, u),
    ];
    match u.marker.as_deref() {
        Some("red") => parts.push("RED marker: moves only once it reforms".into()),
        Some("orange") => parts.push("disordered".into()),
        _ => {}
    }
    if !u.standing.is_empty() {
        parts.push(format!("standing: {}", u.standing.join(", ")));
    }
    parts.join("; ")
}

/// "moves 1d6" (trained +1d: throws 2d6, keeps the best 1), up to 6"": the
/// movement rate in dice and what the unit's own bonus dice add (command in
/// 18" and a brigade line add one more, rain takes two off: the report of
/// the throw says which applied).
fn throw_text(t: &Tables, u: &Unit) -> String {
    let Some(tr) = t.troop(&u.troop) else {
        return "moves by the dice".into();
    };
    let base = tr.move_dice;
    let column = if tr.column_bonus > 0 && matches!(u.formation.as_str(), "march" | "attack") {
        tr.column_bonus
    } else {
        0
    };
    let most = i64::from(base) * 6 * crate::geometry::PER_INCH + column;
    let bonus = if u.marker.as_deref() == Some("orange") {
        0
    } else {
        t.exp(u).bonus_dice
    };
    let mut s = format!("moves {base}d6\"");
    if column > 0 {
        s.push_str(&format!(" +{} in column", fmt_len(column)));
    }
    if bonus > 0 {
        s.push_str(&format!(
            " ({} +{bonus}d: throws {}d6, keeps the best {base})",
            u.experience,
            base + bonus
        ));
    }
    s.push_str(&format!(", up to {}", fmt_len(most)));
    s
}

/// The steps, the standing orders and the fog-of-war lines, with the
/// side's brigades and guns that `FOG BRIGADE` and `FOG GUNS` may name.
fn trailer(o: &mut String, r: &Ruleset, st: &State, s: usize) {
    o.push_str(
        "# Steps: FORWARD n|ALL, BACK n, WHEEL LEFT|RIGHT deg, ABOUT, HOLD,\n\
         #   FORM LINE|MARCH|ATTACK|SQUARE|OPEN, LIMBER, UNLIMBER,\n\
         #   REFUSE LEFT|RIGHT files BACK|FORWARD deg,\n\
         #   FIRE AT u [WITH LEFT|CENTRE|RIGHT [BONUS]] (no move before it),\n\
         #   CHARGE u (the last step).\n\
         # BRIGADE <brigade>: steps    # one throw for the brigade, +1 die\n\
         # REGIMENT <regiment>: steps  # may end CHARGE u WITH squadron\n\
         # STANDING <unit>: orders     # they last until changed (or NONE)\n\
         # The orders a unit may stand on: one of EVADE, STAND,\n\
         #   COUNTER-CHARGE (cavalry only); one of RESPONSE FIRE, HOLD FIRE;\n\
         #   one of FIGHT ON, BREAK OFF.\n",
    );
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    commented(
        o,
        "# FOG BRIGADE <brigade>       #",
        &list(fog_brigades(r, st, s)),
    );
    commented(
        o,
        "# FOG GUNS <guns>             #",
        &format!("up to 3 of {}", list(fog_guns(r, st, s))),
    );
    o.push_str(
        "# SPLIT <battery>\n\
         # RETREAT <unit>              # after a melee lost by one\n\
         # PASS\n",
    );
}

/// The side's infantry brigades, the ones a fog-of-war advance can move.
#[must_use]
pub fn fog_brigades(r: &Ruleset, st: &State, s: usize) -> Vec<String> {
    let mut b: Vec<String> = st
        .units
        .iter()
        .filter(|u| u.side == s && !u.brigade.is_empty())
        .filter(|u| r.troop(&u.troop).is_some_and(|t| t.class == "infantry"))
        .map(|u| u.brigade.clone())
        .collect();
    b.sort();
    b.dedup();
    b
}

/// The side's guns, the ones a fog-of-war event can let fire.
#[must_use]
pub fn fog_guns(r: &Ruleset, st: &State, s: usize) -> Vec<String> {
    st.units
        .iter()
        .filter(|u| u.side == s)
        .filter(|u| r.troop(&u.troop).is_some_and(|t| t.class == "artillery"))
        .map(|u| u.id.clone())
        .collect()
}
