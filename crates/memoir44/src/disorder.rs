//! Demoralisation, & Disorganisation (Optional) in the house rules: "Effected Units
//! start the game below strength ... Typically reduce the number of
//! figures/models per Unit, number of hexes a Unit can Move, and Battle Dice
//! by a factor of 1. Only in exceptional cases of near-collapse should these
//! be reduced by a factor of 2." A scenario names the affected units in
//! `[[demoralisation]]` (side, which units, factor); a host sets or clears
//! them per game (`new-game --option demoralisation=axis:infantry:1`); a
//! club's ruleset may refuse the rule (`[options] demoralisation = false`).

use super::events::Modifier;
use super::ruleset::{at, Ruleset};
use super::scenario::{file_hex, file_side, Layout};
use super::state::{State, Unit};
use super::turn::Mode;
use super::DataError;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// The game option (`none` plays without the scenario's).
pub const OPTION: &str = "demoralisation";

/// One affected unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disorder {
    pub unit: u32,
    /// 1, or 2 "in exceptional cases of near-collapse".
    pub factor: u32,
    /// Figures taken off at set-up (given back if a game option clears it).
    pub removed: u32,
}

/// `[[demoralisation]]` as a scenario or case file writes it: "Effected
/// Units should be clearly defined, such as "all of them", or "all the
/// Infantry", or "only the Rumanians"".
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisorderSpec {
    pub side: Spanned<String>,
    /// "all" (default), a unit class (infantry, armour, artillery) or a unit
    /// type.
    #[serde(default)]
    pub units: Option<Spanned<String>>,
    /// Only the units set up on these hexes ("only the Rumanians").
    #[serde(default)]
    pub at: Option<Vec<Spanned<String>>>,
    /// 1 (default) or 2.
    #[serde(default)]
    pub factor: Option<Spanned<u32>>,
}

/// Which units of a side a selector names: Ok(None) every unit.
fn selector(r: &Ruleset, word: &str) -> Result<Option<String>, String> {
    let w = word.trim().to_ascii_lowercase();
    if w.is_empty() || w == "all" {
        return Ok(None);
    }
    if r.units.values().any(|u| u.class == w) {
        return Ok(Some(w));
    }
    r.unit_id(&w).map(Some).ok_or_else(|| {
        format!("'{word}' is not all, a unit class (infantry, armour, artillery) or a unit type")
    })
}

fn selected(r: &Ruleset, u: &Unit, sel: Option<&str>) -> bool {
    sel.is_none_or(|s| u.kind == s || r.units.get(&u.kind).is_some_and(|k| k.class == s))
}

/// Affect the units of `side` that `sel` names (and, given hexes, stand
/// there) by `factor`: figures come off now. A unit already affected keeps
/// the larger factor.
pub fn apply(
    r: &Ruleset,
    st: &mut State,
    side: usize,
    sel: Option<&str>,
    hexes: Option<&[super::board::Hex]>,
    factor: u32,
) -> Result<usize, String> {
    if !r.options.demoralisation {
        return Err(
            "this ruleset does not play the optional Demoralisation, & Disorganisation rules"
                .into(),
        );
    }
    if !(1..=2).contains(&factor) {
        return Err(format!(
            "factor {factor}: units are reduced \"by a factor of 1\", or 2 \"in exceptional cases of near-collapse\""
        ));
    }
    let ids: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == side && selected(r, u, sel))
        .filter(|u| hexes.is_none_or(|h| h.contains(&u.at)))
        .map(|u| u.id)
        .collect();
    for id in &ids {
        let before = st.disorder.iter().position(|d| d.unit == *id);
        if let Some(i) = before {
            if st.disorder[i].factor >= factor {
                continue;
            }
            let old = st.disorder.remove(i);
            if let Some(u) = st.unit_mut(*id) {
                u.figures += old.removed;
                u.start += old.removed;
            }
        }
        let Some(u) = st.unit_mut(*id) else { continue };
        // "reduce the number of figures/models per Unit": never below one
        // figure (a unit of none is not on the board).
        let removed = factor.min(u.figures.saturating_sub(1));
        u.figures -= removed;
        u.start -= removed;
        st.disorder.push(Disorder {
            unit: *id,
            factor,
            removed,
        });
    }
    st.disorder.sort_by_key(|d| d.unit);
    Ok(ids.len())
}

/// Clear every unit's demoralisation (the game option `none`): the figures
/// come back.
pub fn clear(st: &mut State) {
    for d in std::mem::take(&mut st.disorder) {
        if let Some(u) = st.unit_mut(d.unit) {
            u.figures += d.removed;
            u.start += d.removed;
        }
    }
}

fn factor_of(st: &State, id: u32) -> u32 {
    st.disorder
        .iter()
        .find(|d| d.unit == id)
        .map_or(0, |d| d.factor)
}

/// "reduce ... number of hexes a Unit can Move ... by a factor": both the
/// most hexes it may move and the most it may move and still battle.
#[must_use]
pub fn mode(st: &State, u: &Unit, m: Mode) -> Mode {
    let f = factor_of(st, u.id);
    let mut m = m;
    m.max_move = m.max_move.saturating_sub(f);
    m.move_battle = m.move_battle.saturating_sub(f);
    m
}

/// "reduce ... Battle Dice by a factor".
#[must_use]
pub fn battle_mods(st: &State, attacker: u32) -> Option<Modifier> {
    let f = factor_of(st, attacker);
    (f > 0).then(|| Modifier {
        dice: -(f as i32),
        reason: if f == 1 {
            "demoralised".into()
        } else {
            "near collapse".into()
        },
    })
}

/// Is the unit demoralised (for the map and the report)?
#[must_use]
pub fn affected(st: &State, id: u32) -> bool {
    factor_of(st, id) > 0
}

/// Place a file's `[[demoralisation]]` entries, with line:column errors.
pub fn place(
    r: &Ruleset,
    st: &mut State,
    l: &Layout<'_>,
    specs: &[DisorderSpec],
) -> Result<(), DataError> {
    for s in specs {
        let side = file_side(l, &s.side)?;
        let sel = match &s.units {
            Some(w) => selector(r, w.get_ref()).map_err(|m| at(l.text, l.file, w.span(), m))?,
            None => None,
        };
        let hexes = match &s.at {
            Some(list) => {
                let mut v = Vec::new();
                for h in list {
                    let hex = file_hex(r, l, h)?;
                    if !st.units.iter().any(|u| u.at == hex && u.side == side) {
                        return Err(at(
                            l.text,
                            l.file,
                            h.span(),
                            format!("no unit of {} at {hex} to demoralise", st.sides[side]),
                        ));
                    }
                    v.push(hex);
                }
                Some(v)
            }
            None => None,
        };
        let factor = s.factor.as_ref().map_or(1, |f| *f.get_ref());
        let where_ = s
            .factor
            .as_ref()
            .map_or_else(|| s.side.span(), Spanned::span);
        let n = apply(r, st, side, sel.as_deref(), hexes.as_deref(), factor)
            .map_err(|m| at(l.text, l.file, where_.clone(), m))?;
        if n == 0 {
            return Err(at(
                l.text,
                l.file,
                s.units
                    .as_ref()
                    .map_or_else(|| s.side.span(), Spanned::span),
                "these demoralised units name no unit on the board",
            ));
        }
    }
    Ok(())
}

/// The game option: `none`, or `<side>[:<units>][:<factor>]`, several
/// separated by commas (`axis:infantry:2,allies`).
pub fn set_option(r: &Ruleset, st: &mut State, value: &str) -> Result<(), String> {
    clear(st);
    let v = value.trim().to_ascii_lowercase();
    if matches!(v.as_str(), "none" | "false" | "no" | "") {
        return Ok(());
    }
    for item in v.split(',') {
        let parts: Vec<&str> = item.split(':').map(str::trim).collect();
        let side = st.side_index(parts[0]).ok_or_else(|| {
            format!(
                "unknown side '{}' (sides: {}, or none)",
                parts[0],
                st.sides.join(", ")
            )
        })?;
        let mut sel = None;
        let mut factor = 1;
        for p in &parts[1..] {
            match p.parse::<u32>() {
                Ok(n) => factor = n,
                Err(_) => sel = selector(r, p)?,
            }
        }
        if parts.len() > 3 {
            return Err(format!(
                "'{item}': write <side>[:<units>][:<factor>], e.g. axis:infantry:1"
            ));
        }
        if apply(r, st, side, sel.as_deref(), None, factor)? == 0 {
            return Err(format!("'{item}' names no unit on the board"));
        }
    }
    Ok(())
}

/// Demoralisation & Disorganisation on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(
        &self,
        _: &crate::battle::Ctx<'_>,
        st: &State,
        u: &Unit,
        m: Mode,
        _: Option<&[crate::board::Hex]>,
    ) -> Mode {
        mode(st, u, m)
    }
}
