//! "EX-TER-MIN-ATE!" (the house rules, Appendix 3, Suggested Variants): Daleks
//! against British or Germans. The game option `exterminate=<side>` names
//! the Dalek side; the other side is the Human Player. The tables (which
//! unit becomes which Dalek unit, the towns, the obstacles removed, the
//! victory points, the Human Factor's dice) are `[exterminate]` in
//! rulesets/memoir44.toml; the Dalek units are `[units.dalek]`,
//! `[units.special-weapons-dalek]` and `[units.dalek-mercenary]`, with
//! `variant` tables. Readings: docs/rules/memoir44.md.

use super::super::battle::{unit_moved, Ctx};
use super::super::board::Hex;
use super::super::events::{Event, Modifier};
use super::super::ruleset::Ruleset;
use super::super::stars::Star;
use super::super::state::{State, Unit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The game option: `exterminate=<the Dalek side>`.
pub const OPTION: &str = "exterminate";

/// The Battle Star marker kind of the Human Factor's Heroic Leader.
pub const HUMAN_FACTOR: &str = "human-factor";

/// The variant's tables (`[exterminate]` in the ruleset).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExterminateRules {
    /// "They take the place of all Regular Infantry Units": unit type ->
    /// the Dalek side's unit type (looked up before `by_class`).
    pub by_unit: BTreeMap<String, String>,
    /// "... of all Armour Units", "... of all Special Infantry and
    /// Artillery Units": unit class -> the Dalek side's unit type.
    pub by_class: BTreeMap<String, String>,
    /// "All Towns & Villages hexes are Dalek Terrain Objectives".
    pub towns: Vec<String>,
    /// "the hex is replaced with City Ruins".
    pub ruins: String,
    /// "All obstacles on the Dalek side are removed".
    pub obstacles: Vec<String>,
    /// "Daleks always need to get 10 Victory Points to win".
    pub victory: u32,
    /// "... or 20 in an Overlord Scenario".
    pub overlord_victory: u32,
    /// A board at least this wide is an Overlord board.
    pub overlord_columns: i32,
    /// Human Factor: "receives two additional Battle Die".
    pub human_factor_dice: i32,
}

impl Default for ExterminateRules {
    fn default() -> Self {
        let map = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect()
        };
        ExterminateRules {
            by_unit: map(&[("infantry", "dalek")]),
            by_class: map(&[
                ("armour", "special-weapons-dalek"),
                ("infantry", "dalek-mercenary"),
                ("artillery", "dalek-mercenary"),
            ]),
            towns: vec!["town".into()],
            ruins: "city-ruins".into(),
            obstacles: vec!["wire".into(), "hedgehog".into(), "sandbag".into()],
            victory: 10,
            overlord_victory: 20,
            overlord_columns: 26,
            human_factor_dice: 2,
        }
    }
}

/// A game of the variant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exterminate {
    /// The Dalek side.
    pub daleks: usize,
    /// The victory points the Daleks need.
    pub need: u32,
    /// The towns exterminated: City Ruins now, their markers the Daleks'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ruins: Vec<Hex>,
    /// Dalek units exterminating a town this turn, with the town.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<(u32, Hex)>,
    /// The Dalek side began with a Dalek unit (else its mercenaries have
    /// no Daleks to lose, and never surrender).
    #[serde(default)]
    pub had_daleks: bool,
}

/// Is `side` the Dalek side of a game of the variant?
#[must_use]
pub fn is_dalek_side(st: &State, side: usize) -> bool {
    st.exterminate.as_ref().is_some_and(|x| x.daleks == side)
}

/// The victory points `side` needs: the Daleks' own number, or the
/// scenario's.
#[must_use]
pub fn victory_for(st: &State, side: usize) -> u32 {
    match &st.exterminate {
        Some(x) if x.daleks == side => x.need,
        _ => st.victory,
    }
}

/// Convert a set-up position for the variant: the Dalek side's units take
/// the Dalek unit types on the same hexes ("Dalek Units may be placed on
/// any of the locations originally occupied by the Infantry, Armour, and
/// Artillery in the Scenario"), the obstacles on its half of the board go
/// ("All obstacles on the Dalek side are removed"). The Human Factor
/// follows once every variant has converted the position
/// ([`human_factor`]).
pub fn convert(r: &Ruleset, st: &mut State, daleks: usize) -> Result<(), String> {
    let ctx = Ctx::new(r);
    let xr = &r.exterminate;
    super::exclusive(st, super::Which::Daleks)?;
    if st.cybermen == Some(daleks) {
        return Err("\"Cybermen may not be used in the same game as Daleks or, at least, not on the same side\": this side plays the Cybermen".into());
    }
    for t in xr.by_unit.values().chain(xr.by_class.values()) {
        if !r.units.contains_key(t) {
            return Err(format!("the ruleset has no unit type '{t}'"));
        }
    }
    let mut converted = Vec::new();
    for u in st.units.iter_mut().filter(|u| u.side == daleks) {
        let spec = ctx.spec(&u.kind);
        if spec.variant.dalek || spec.variant.mercenary {
            continue;
        }
        let Some(to) = xr
            .by_unit
            .get(&u.kind)
            .or_else(|| xr.by_class.get(&spec.class))
        else {
            continue;
        };
        converted.push(u.id);
        super::replace(u, to, r.units[to].figures);
    }
    super::forget(st, &converted);
    let rows = ctx.board.rows;
    for (h, fs) in &mut st.terrain {
        if dalek_half(rows, daleks, *h) {
            fs.retain(|f| !xr.obstacles.contains(f));
        }
    }
    st.terrain.retain(|_, fs| !fs.is_empty());
    let need = if ctx.board.columns >= xr.overlord_columns {
        xr.overlord_victory
    } else {
        xr.victory
    };
    let had_daleks = st
        .units
        .iter()
        .any(|u| u.side == daleks && is_dalek(&ctx, u));
    st.exterminate = Some(Exterminate {
        daleks,
        need,
        ruins: Vec::new(),
        pending: Vec::new(),
        had_daleks,
    });
    Ok(())
}

/// Human Factor: "The Human Player gets a variant of the \"Heroic Leader\"
/// optional rule in order to even things out a bit": the side facing the
/// Daleks or the Cybermen has its Heroic Leaders become Human Factor leaders
/// (one is placed if the scenario gives none). A game of Daleks against
/// Cybermen has no Human Player. Called once the variants have converted
/// the position.
pub fn human_factor(r: &Ruleset, st: &mut State) {
    let human = match (st.exterminate.as_ref().map(|x| x.daleks), st.cybermen) {
        (Some(alien), None) | (None, Some(alien)) => State::other(alien),
        _ => return,
    };
    let ctx = Ctx::new(r);
    let mut leaders = 0;
    for s in &mut st.stars {
        if s.kind == "heroic-leader" && s.side == Some(human) {
            s.kind = HUMAN_FACTOR.into();
        }
        if s.kind == HUMAN_FACTOR && s.side == Some(human) {
            leaders += 1;
        }
    }
    if leaders == 0 {
        // "A Battle Star Marker may represent a Heroic Leader with the
        // Human Factor": one, with the Human unit nearest the centre of the
        // board (then the lowest unit id).
        let centre = Hex::from_letter(ctx.board.columns / 2, ctx.board.rows / 2);
        if let Some(u) = st
            .units
            .iter()
            .filter(|u| u.side == human && u.train.is_none())
            .min_by_key(|u| (u.at.distance(centre), u.id))
        {
            st.stars.push(Star {
                kind: HUMAN_FACTOR.into(),
                side: Some(human),
                at: u.at,
                unit: Some(u.id),
                count: 0,
            });
        }
    }
}

/// Is `h` on `side`'s half of a board of `rows` rows (the middle row of an
/// odd board is neither side's)?
#[must_use]
pub fn dalek_half(rows: i32, side: usize, h: Hex) -> bool {
    if side == 0 {
        2 * h.row < rows - 1
    } else {
        2 * h.row > rows - 1
    }
}

/// Is `u` a Dalek Unit (Standard or Special Weapons)?
#[must_use]
pub fn is_dalek(ctx: &Ctx<'_>, u: &Unit) -> bool {
    ctx.spec(&u.kind).variant.dalek
}

/// `EXTERMINATE <hex>`: "If a Standard Dalek Unit or Special Weapons Dalek
/// Unit occupies a Towns & Villages hex, it may be ordered to exterminate
/// it." Why the unit `u` may not, if it may not.
pub fn check(ctx: &Ctx<'_>, st: &State, u: &Unit) -> Result<(), String> {
    if st.exterminate.is_none() {
        return Err(format!(
            "EXTERMINATE is the Dalek order of the EX-TER-MIN-ATE! variant (game option {OPTION}), which this game does not play"
        ));
    }
    if !is_dalek(ctx, u) {
        return Err(format!(
            "only a Standard Dalek Unit or a Special Weapons Dalek Unit may exterminate a town; the unit at {} is {}",
            u.at,
            ctx.spec(&u.kind).name
        ));
    }
    if !is_town(ctx, st, u.at) {
        return Err(format!(
            "{} is not a Towns & Villages hex: only those may be exterminated",
            u.at
        ));
    }
    Ok(())
}

fn is_town(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    st.features(h)
        .iter()
        .any(|f| ctx.r.exterminate.towns.contains(f))
}

/// The order is carried out: the unit spends the turn on it.
pub fn begin(st: &mut State, ev: &mut Vec<Event>, unit: u32) {
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    let side = st.sides[u.side].clone();
    if let Some(x) = st.exterminate.as_mut() {
        x.pending.push((unit, u.at));
    }
    ev.push(Event::Daleks {
        what: "exterminating".into(),
        side,
        at: u.at,
    });
}

/// Human Factor: "receives two additional Battle Die when accompanied by
/// this Leader."
#[must_use]
pub fn battle_mods(ctx: &Ctx<'_>, st: &State, attacker: u32) -> Option<Modifier> {
    st.stars
        .iter()
        .any(|s| s.kind == HUMAN_FACTOR && s.unit == Some(attacker))
        .then(|| Modifier {
            dice: ctx.r.exterminate.human_factor_dice,
            reason: "Heroic Leader with the Human Factor".into(),
        })
}

/// After each order: "Dalek Mercenary Units will automatically surrender
/// if all the Dalek Units are destroyed" (and, being cannon-fodder, give no
/// victory point).
pub fn after_step(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>) {
    let Some(daleks) = st
        .exterminate
        .as_ref()
        .filter(|x| x.had_daleks)
        .map(|x| x.daleks)
    else {
        return;
    };
    let side: Vec<&Unit> = st.units.iter().filter(|u| u.side == daleks).collect();
    if side.iter().any(|u| is_dalek(ctx, u)) {
        return;
    }
    let gone: Vec<Unit> = side
        .into_iter()
        .filter(|u| ctx.spec(&u.kind).variant.mercenary)
        .cloned()
        .collect();
    for u in gone {
        st.units.retain(|x| x.id != u.id);
        unit_moved(st, u.id);
        st.stars.retain(|s| s.unit != Some(u.id));
        ev.push(Event::Daleks {
            what: "surrender".into(),
            side: st.sides[daleks].clone(),
            at: u.at,
        });
    }
}

/// The end of any turn of the variant: the towns exterminated this turn
/// ("This takes the Unit a whole turn, at the end of which the hex is
/// replaced with City Ruins. The Victory Marker is permanently moved to the
/// Dalek Medal Stands"), and a Dalek side with no unit left loses.
pub fn end_turn(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>) {
    let Some(x) = st.exterminate.clone() else {
        return;
    };
    for (id, h) in &x.pending {
        if st.unit(*id).is_none_or(|u| u.at != *h) || !is_town(ctx, st, *h) {
            continue;
        }
        let ruins = ctx.r.exterminate.ruins.clone();
        if let Some(fs) = st.terrain.get_mut(h) {
            let mut changed = Vec::new();
            for f in fs.iter_mut() {
                if ctx.r.exterminate.towns.contains(f) {
                    changed.push(f.clone());
                    f.clone_from(&ruins);
                }
            }
            for tile in changed {
                ev.push(Event::TileDestroyed {
                    at: *h,
                    tile,
                    becomes: ruins.clone(),
                });
            }
        }
        st.medal_units[x.daleks] += 1;
        if let Some(e) = st.exterminate.as_mut() {
            e.ruins.push(*h);
        }
        ev.push(Event::MedalGained {
            side: st.sides[x.daleks].clone(),
            medals: st.medals(x.daleks),
            reason: format!("the town at {h} exterminated"),
        });
    }
    if let Some(e) = st.exterminate.as_mut() {
        e.pending.clear();
    }
    if st.over || st.units.iter().any(|u| u.side == x.daleks) {
        return;
    }
    let human = State::other(x.daleks);
    st.over = true;
    st.winner = Some(st.sides[human].clone());
    ev.push(Event::GameOver {
        winner: Some(st.sides[human].clone()),
        score: (0..2)
            .map(|i| (st.sides[i].clone(), st.medals(i)))
            .collect(),
        reason: "no Dalek, and no mercenary of theirs, is left on the board".into(),
    });
}

/// One sentence for a report.
#[must_use]
pub fn describe(what: &str, side: &str, at: Hex) -> String {
    match what {
        "exterminating" => {
            format!("{side}: the Daleks at {at} set about exterminating the town. EX-TER-MIN-ATE!")
        }
        "surrender" => {
            format!("{side}: with every Dalek Unit destroyed, the mercenaries at {at} surrender.")
        }
        other => format!("{side}: {other} at {at}."),
    }
}

/// A case's expectations of the variant (case.rs): the towns exterminated
/// so far (exactly these). Each difference as a sentence.
#[must_use]
pub fn case_check(st: &State, ruins: Option<&[String]>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(want) = ruins {
        let mut want: Vec<String> = want.iter().map(|h| h.to_ascii_uppercase()).collect();
        want.sort();
        let mut got: Vec<String> = st
            .exterminate
            .as_ref()
            .map(|x| x.ruins.iter().map(Hex::to_string).collect())
            .unwrap_or_default();
        got.sort();
        if want != got {
            out.push(format!("exterminated: expected {want:?}, got {got:?}"));
        }
    }
    out
}

/// "EX-TER-MIN-ATE!" on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, _: usize) {
        after_step(p.ctx, p.st, p.ev);
    }

    /// The towns exterminated this turn.
    fn end_turn(&self, p: &mut crate::turn::hooks::Play<'_, '_>) {
        end_turn(p.ctx, p.st, p.ev);
    }
}
