//! The Cybermen of "EX-TER-MIN-ATE!" (the house rules, Appendix 3, Suggested
//! Variants): "Cyberman Unit - Special Infantry Unit, 4 Figures ...
//! Advances upto 3 hexes. Battle Range is 3 hexes with 3 Battle Dice.
//! Movement is not effected by any Terrain limitations. Cybermen are also
//! not effected by Grenade Hits or Purple Flags. Casualties inflicted on
//! enemy Units while in Close Assault are given to any Cyberman Unit as
//! reinforcements. Otherwise Cybermen are exactly the same as any other
//! Infantry Unit. One Cyberman Unit replaces each Infantry, Armour and
//! Artillery Unit. Cybermen may not be used in the same game as Daleks or,
//! at least, not on the same side."
//!
//! The game option `cybermen=<side>` names the Cyberman side; the other
//! side is the Human Player (with the Human Factor), or the Daleks
//! (`exterminate=<the other side>`). The unit is `[units.cyberman]` in
//! rulesets/memoir44.toml, the classes it replaces `[cybermen]`. Readings:
//! docs/rules/memoir44.md.

use super::super::battle::Ctx;
use super::super::events::Event;
use super::super::ruleset::Ruleset;
use super::super::state::State;
use serde::{Deserialize, Serialize};

/// The game option: `cybermen=<the Cyberman side>`.
pub const OPTION: &str = "cybermen";

/// The variant's table (`[cybermen]` in the ruleset).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CybermenRules {
    /// The Cyberman unit type.
    pub unit: String,
    /// "One Cyberman Unit replaces each Infantry, Armour and Artillery
    /// Unit": the classes replaced.
    pub replaces: Vec<String>,
}

impl Default for CybermenRules {
    fn default() -> Self {
        CybermenRules {
            unit: "cyberman".into(),
            replaces: vec!["infantry".into(), "armour".into(), "artillery".into()],
        }
    }
}

/// Convert a set-up position: each infantry, armour and artillery unit of
/// the Cyberman side becomes a Cyberman unit of 4 figures on its hex (less
/// the losses a position has already dealt it; a train, of none of these
/// classes, stays as it is).
pub fn convert(r: &Ruleset, st: &mut State, side: usize) -> Result<(), String> {
    let ctx = Ctx::new(r);
    let cr = &r.cybermen;
    super::exclusive(st, super::Which::Cybermen)?;
    if st.exterminate.as_ref().is_some_and(|x| x.daleks == side) {
        return Err(
            "\"Cybermen may not be used in the same game as Daleks or, at least, not on the same side\": this side plays the Daleks"
                .into(),
        );
    }
    let spec = r
        .units
        .get(&cr.unit)
        .ok_or_else(|| format!("the ruleset has no unit type '{}'", cr.unit))?;
    let mut converted = Vec::new();
    for u in st.units.iter_mut().filter(|u| u.side == side) {
        if u.train.is_some() || u.kind == cr.unit {
            continue;
        }
        if !cr.replaces.contains(&ctx.spec(&u.kind).class) {
            continue;
        }
        converted.push(u.id);
        super::replace(u, &cr.unit, spec.figures);
    }
    super::forget(st, &converted);
    st.cybermen = Some(side);
    Ok(())
}

/// After a Cyberman unit's battle: "Casualties inflicted on enemy Units
/// while in Close Assault are given to any Cyberman Unit as
/// reinforcements". The figures the battle removed (`removed_before`: the
/// side's count before it), if it was a close assault (`range` 1), go to
/// the unit that assaulted first, up to its full strength, then one at a
/// time to the Cyberman unit with the fewest figures (then the lowest id);
/// a figure no Cyberman unit has room for is lost.
pub fn after_battle(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    unit: u32,
    range: u32,
    removed_before: u32,
) {
    let Some(side) = st.cybermen else {
        return;
    };
    if range != 1 {
        return;
    }
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    if u.side != side || !ctx.spec(&u.kind).variant.cyberman {
        return;
    }
    let mut gained = st.figures_removed[side].saturating_sub(removed_before);
    let mut given: Vec<(u32, u32)> = Vec::new();
    let mut give = |st: &mut State, id: u32| {
        if let Some(m) = st.unit_mut(id) {
            m.figures += 1;
        }
        match given.iter_mut().find(|(g, _)| *g == id) {
            Some((_, n)) => *n += 1,
            None => given.push((id, 1)),
        }
    };
    while gained > 0 && st.unit(unit).is_some_and(|m| m.figures < m.start) {
        give(st, unit);
        gained -= 1;
    }
    while gained > 0 {
        let Some(id) = st
            .units
            .iter()
            .filter(|m| m.side == side && m.figures < m.start)
            .filter(|m| ctx.spec(&m.kind).variant.cyberman)
            .min_by_key(|m| (m.figures, m.id))
            .map(|m| m.id)
        else {
            break;
        };
        give(st, id);
        gained -= 1;
    }
    for (id, figures) in given {
        let Some(m) = st.unit(id) else { continue };
        ev.push(Event::Cybermen {
            side: st.sides[side].clone(),
            at: m.at,
            figures,
            left: m.figures,
        });
    }
}

/// One sentence for a report.
#[must_use]
pub fn describe(side: &str, at: super::super::board::Hex, figures: u32, left: u32) -> String {
    let s = if figures == 1 { "" } else { "s" };
    format!(
        "{side}: the casualties of the close assault join the Cybermen at {at} as reinforcements: +{figures} figure{s}, {left} now."
    )
}

/// The Cybermen on the turn's hooks (turn/hooks.rs): a close assault's
/// casualties reinforce them.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn after_battle(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        b: &crate::turn::hooks::Fought,
    ) {
        after_battle(p.ctx, p.st, p.ev, b.unit, b.range, b.removed);
    }
}
