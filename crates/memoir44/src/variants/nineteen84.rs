//! "Nineteen Eighty-Four" (the house rules, Appendix 3, Suggested Variants):
//! Russians against Russians. The game option `nineteen-eighty-four`
//! converts a scenario at set-up: both sides get the larger force, made of
//! Assault Guns, Militia and Regular Infantry, Medium and Rocket Artillery
//! only; the first to 12 victory points wins; flags are casualties; the
//! Political Commissar rules are in force for both sides; no Blitzkrieg,
//! no Armour Overrun; and an eliminated unit is replaced by one of the same
//! type on its side's edge. The tables are `[nineteen-eighty-four]` in
//! rulesets/memoir44.toml. Readings: docs/rules/memoir44.md.

use super::super::battle::{lose, Ctx, Outcome};
use super::super::board::{Hex, Section};
use super::super::events::Event;
use super::super::ruleset::Ruleset;
use super::super::state::{HexInfo, State, Unit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The game option.
pub const OPTION: &str = "nineteen-eighty-four";

/// The variant's tables (`[nineteen-eighty-four]` in the ruleset).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rules1984 {
    /// "Victory goes to the first player to gain 12 Victory Points,
    /// regardless of the Scenario".
    pub victory: u32,
    /// "All Armour Units become Assault Guns. All Infantry Units become
    /// Militia Infantry Units": the type each class becomes.
    pub by_class: BTreeMap<String, String>,
    /// "All Anti-Tank Support Weapons become Regular Infantry Units": unit
    /// types converted whatever their class.
    pub by_unit: BTreeMap<String, String>,
    /// "Every third Artillery Unit is a Rocket Artillery battery, the rest
    /// are Medium Artillery Units": the class counted ...
    pub counted_class: String,
    /// ... every how many ...
    pub every: u32,
    /// ... and the type that one becomes (the rest take `by_class`).
    pub every_becomes: String,
}

impl Default for Rules1984 {
    fn default() -> Self {
        let map = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        Rules1984 {
            victory: 12,
            by_class: map(&[
                ("armour", "assault-guns"),
                ("infantry", "militia-infantry"),
                ("artillery", "medium-artillery"),
            ]),
            by_unit: map(&[("anti-tank-infantry", "infantry")]),
            counted_class: "artillery".into(),
            every: 3,
            every_becomes: "rocket-artillery".into(),
        }
    }
}

impl Rules1984 {
    /// The unit types the variant permits ("No other Unit types are
    /// permitted").
    #[must_use]
    pub fn permitted(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .by_class
            .values()
            .chain(self.by_unit.values())
            .chain(std::iter::once(&self.every_becomes))
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// A replacement still to come on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub side: usize,
    /// Unit type id.
    pub kind: String,
    /// Where the unit it replaces was eliminated.
    pub fell: Hex,
}

/// A game of the variant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nineteen84 {
    /// The side whose force both sides were given.
    pub force_of: usize,
    /// Replacements that found no free hex on their section's edge yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Pending>,
}

/// Does this game play the variant?
#[must_use]
pub fn on(st: &State) -> bool {
    st.nineteen84.is_some()
}

/// The type a unit becomes; None: "No other Unit types are permitted" (it
/// leaves the game). `nth` counts the units of the counted class so far.
fn becomes(r: &Ruleset, kind: &str, nth: &mut u32) -> Option<String> {
    let t = &r.nineteen84;
    if let Some(k) = t.by_unit.get(kind) {
        return Some(k.clone());
    }
    let class = r.units.get(kind)?.class.clone();
    let to = t.by_class.get(&class)?;
    if class == t.counted_class {
        *nth += 1;
        if t.every > 0 && (*nth).is_multiple_of(t.every) {
            return Some(t.every_becomes.clone());
        }
    }
    Some(to.clone())
}

/// Convert a set-up position for the variant.
///
/// "Both sides each get whichever force in the Scenario has the greatest
/// number of Units" (on a tie, the first side's). That side's units are
/// converted where they stand (in unit order, which counts "every third
/// Artillery Unit"); the other side's units leave and it is given the same
/// converted units: first one of the same type on each of its own original
/// hexes (in its unit order), then any left over unit on a hex still free
/// of its originals, then the rest "as close to their own original
/// locations as possible" (see [`near_hex`]).
pub fn convert(r: &Ruleset, st: &mut State) -> Result<(), String> {
    super::exclusive(st, super::Which::Nineteen84)?;
    let ctx = Ctx::new(r);
    for k in r.nineteen84.permitted() {
        if !r.units.contains_key(&k) {
            return Err(format!("the ruleset has no unit type '{k}'"));
        }
    }
    if !st.airdrops.is_empty() {
        return Err(
            "the scenario's paratroops land by dice before the first turn: the variant converts only units on the board"
                .into(),
        );
    }
    let count = |s: usize| st.units.iter().filter(|u| u.side == s).count();
    let strong = usize::from(count(1) > count(0));
    let weak = State::other(strong);
    if count(weak) == 0 {
        return Err(format!(
            "side {} has no unit to set up from",
            st.sides.get(weak).map_or("", String::as_str)
        ));
    }
    let old: Vec<u32> = st.units.iter().map(|u| u.id).collect();
    // The stronger force, converted where it stands.
    let mut nth = 0;
    let mut gone = Vec::new();
    for u in st.units.iter_mut().filter(|u| u.side == strong) {
        match becomes(r, &u.kind, &mut nth) {
            Some(k) => {
                super::replace(u, &k, ctx.spec(&k).figures);
                u.train = None;
            }
            None => gone.push(u.id),
        }
    }
    st.units.retain(|u| !gone.contains(&u.id));
    let force: Vec<String> = st
        .units
        .iter()
        .filter(|u| u.side == strong)
        .map(|u| u.kind.clone())
        .collect();
    let figures: Vec<u32> = st
        .units
        .iter()
        .filter(|u| u.side == strong)
        .map(|u| u.figures)
        .collect();
    // The weaker side's own hexes, with the type its unit there becomes.
    let mut nth = 0;
    let originals: Vec<(Hex, Option<String>)> = st
        .units
        .iter()
        .filter(|u| u.side == weak)
        .map(|u| (u.at, becomes(r, &u.kind, &mut nth)))
        .collect();
    st.units.retain(|u| u.side != weak);
    let mut placed: Vec<Option<Hex>> = vec![None; force.len()];
    let mut used = vec![false; originals.len()];
    for (oi, (h, k)) in originals.iter().enumerate() {
        if let Some(fi) =
            (0..force.len()).find(|&fi| placed[fi].is_none() && Some(&force[fi]) == k.as_ref())
        {
            placed[fi] = Some(*h);
            used[oi] = true;
        }
    }
    for (oi, (h, _)) in originals.iter().enumerate() {
        if used[oi] {
            continue;
        }
        if let Some(fi) = (0..force.len()).find(|&fi| placed[fi].is_none()) {
            placed[fi] = Some(*h);
            used[oi] = true;
        }
    }
    // The copies on original hexes first, then the rest beside them (ids
    // in the stronger side's unit order).
    let first_id = st.next_unit;
    st.next_unit += force.len() as u32;
    let mut extra = 0;
    for pass in [true, false] {
        for (fi, kind) in force.iter().enumerate() {
            if placed[fi].is_some() != pass {
                continue;
            }
            let at = placed[fi].or_else(|| {
                let anchor = originals[extra % originals.len()].0;
                extra += 1;
                near_hex(&ctx, st, anchor, weak, kind)
            });
            if let Some(at) = at {
                st.units.push(Unit {
                    start: ctx.spec(kind).figures,
                    ..Unit::arriving(first_id + fi as u32, weak, kind, at, figures[fi])
                });
            }
        }
    }
    st.units.sort_by_key(|u| u.id);
    // What the scenario said of single units (demoralisation, motorised
    // weapons, a leader or equipment with a unit) goes with the conversion.
    let live: Vec<u32> = st.units.iter().map(|u| u.id).collect();
    st.disorder.clear();
    st.motorised.clear();
    st.stars.retain(|s| {
        s.unit
            .is_none_or(|id| live.contains(&id) && old.contains(&id))
    });
    // "Reinforcements" are the variant's own: the scenario's airfield
    // reinforcements are not played.
    st.reinforcements.clear();
    // "No Special Infantry Units, Blitzkrieg Rules, or Armour Overruns are
    // allowed"; "Obstacles may be used freely by either side"; "Victory
    // goes to the first player to gain 12 Victory Points, regardless of
    // the Scenario"; "Political Commissar rules are always in effect".
    st.blitzkrieg = None;
    st.bunker_side = None;
    st.victory = r.nineteen84.victory;
    if !r.options.political_commissar {
        return Err(
            "this ruleset does not play the optional Political Commissar rule, which the variant keeps always in effect"
                .into(),
        );
    }
    super::super::commissar::set_all(st);
    st.nineteen84 = Some(Nineteen84 {
        force_of: strong,
        pending: Vec::new(),
    });
    Ok(())
}

/// How far `h` lies behind `from` for `side` (negative: ahead of it).
fn behind(side: usize, from: Hex, h: Hex) -> i32 {
    if side == 0 {
        from.row - h.row
    } else {
        h.row - from.row
    }
}

/// Where a unit of the weaker side goes when its own hexes are taken: the
/// nearest free hex to `anchor` that the unit may stand on, no nearer the
/// enemy than `anchor` if there is one, level with it before behind it
/// before ahead of it, then board order.
fn near_hex(ctx: &Ctx<'_>, st: &State, anchor: Hex, side: usize, kind: &str) -> Option<Hex> {
    let spec = ctx.spec(kind);
    let enemy = |h: Hex| {
        st.units
            .iter()
            .filter(|u| u.side != side)
            .map(|u| u.at.distance(h))
            .min()
            .unwrap_or(u32::MAX)
    };
    let limit = enemy(anchor);
    ctx.board
        .hexes()
        .into_iter()
        .filter(|h| st.unit_at(*h).is_none() && HexInfo::of(ctx.r, st, *h).passable(spec))
        .min_by_key(|h| {
            let b = behind(side, anchor, *h);
            (
                enemy(*h) < limit,
                h.distance(anchor),
                b < 0,
                b.abs(),
                h.row,
                h.col,
            )
        })
}

/// "Purple Flags are casualties, not Retreats": each flag still to be
/// applied (after those the terrain or the unit may ignore) removes a
/// figure. None: not a game of the variant.
pub fn flags(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    id: u32,
    flags: u32,
    by: usize,
) -> Option<Outcome> {
    if !on(st) {
        return None;
    }
    let mut out = Outcome::default();
    if flags > 0 {
        out.eliminated = lose(ctx, st, ev, id, flags, by, "flags are casualties", "flag");
    }
    Some(out)
}

/// "Draw a Command Card from the unused Command Cards to see which Board
/// Section it enters the game on": the first card from the top of the deck
/// that orders units in one section only; it goes to the bottom of the
/// deck. With none, the centre.
fn draw_section(ctx: &Ctx<'_>, st: &mut State) -> (Option<String>, Section) {
    let pos = st.deck.iter().position(|c| {
        ctx.r
            .card(c)
            .is_some_and(|s| s.kind == "section" && s.orders.len() == 1)
    });
    let Some(p) = pos else {
        return (None, Section::Centre);
    };
    let card = st.deck.remove(p);
    let section = ctx
        .r
        .card(&card)
        .and_then(|s| s.orders.keys().next().cloned())
        .and_then(|k| Section::ALL.into_iter().find(|s| s.id() == k))
        .unwrap_or(Section::Centre);
    st.deck.push(card.clone());
    (Some(card), section)
}

/// "It is placed on any hex along the edge of the owning players-side of
/// the Board": the free hex of the section on the side's edge row nearest
/// the hex where the unit fell (by column, then the left one), that the
/// unit may stand on.
fn edge_hex(ctx: &Ctx<'_>, st: &State, p: &Pending, section: Section) -> Option<Hex> {
    let row = if p.side == 0 { 0 } else { ctx.board.rows - 1 };
    let spec = ctx.spec(&p.kind);
    ctx.board
        .hexes()
        .into_iter()
        .filter(|h| {
            h.row == row
                && ctx.board.in_section(*h, section, p.side == 0)
                && st.unit_at(*h).is_none()
                && HexInfo::of(ctx.r, st, *h).passable(spec)
        })
        .min_by_key(|h| ((h.col - p.fell.col).abs(), h.col))
}

/// "A replacement Unit of exactly the same type is brought on in the next
/// turn whenever a Unit is eliminated": the units eliminated in `ev` wait
/// for [`place`].
pub fn collect(st: &mut State, ev: &[Event]) {
    let mut found = Vec::new();
    for e in ev {
        if let Event::UnitEliminated { side, unit, at, .. } = e {
            if let Some(s) = st.side_index(side) {
                found.push(Pending {
                    side: s,
                    kind: unit.clone(),
                    fell: *at,
                });
            }
        }
    }
    if let Some(v) = st.nineteen84.as_mut() {
        v.pending.extend(found);
    }
}

/// The end of a turn of the variant: every replacement waiting is placed on
/// its side's edge now, before the next turn begins, in the section a card
/// drawn from the deck shows. A replacement whose section's edge is full
/// waits for the end of the next turn (and another card). Medals stay as
/// they were ("This does not effect the accumulation of Victory Markers").
pub fn place(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>) {
    let Some(mut v) = st.nineteen84.clone() else {
        return;
    };
    if st.over {
        return;
    }
    let mut left = Vec::new();
    for p in std::mem::take(&mut v.pending) {
        let (card, section) = draw_section(ctx, st);
        let Some(h) = edge_hex(ctx, st, &p, section) else {
            ev.push(Event::Replacement {
                side: st.sides[p.side].clone(),
                unit: p.kind.clone(),
                at: None,
                card,
                section: section.id().to_string(),
            });
            left.push(p);
            continue;
        };
        let id = st.next_unit;
        st.next_unit += 1;
        let figures = ctx.spec(&p.kind).figures;
        st.units
            .push(Unit::arriving(id, p.side, &p.kind, h, figures));
        ev.push(Event::Replacement {
            side: st.sides[p.side].clone(),
            unit: p.kind.clone(),
            at: Some(h),
            card,
            section: section.id().to_string(),
        });
    }
    v.pending = left;
    st.nineteen84 = Some(v);
}

/// One sentence for a report.
#[must_use]
pub fn describe(
    side: &str,
    unit: &str,
    at: Option<Hex>,
    card: Option<&str>,
    section: &str,
) -> String {
    let drawn = card.map_or_else(
        || format!("no section card left to draw: the {section}"),
        |c| format!("{c} drawn: the {section} section"),
    );
    match at {
        Some(h) => format!("{side}: a replacement {unit} comes on at {h} ({drawn})."),
        None => format!(
            "{side}: a replacement {unit} finds no free hex on its edge ({drawn}); it waits for the next turn."
        ),
    }
}

/// "Nineteen Eighty-Four" on the turn's hooks (turn/hooks.rs): the units
/// lost are replaced at the end of the turn.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn placements(&self, p: &mut crate::turn::hooks::Play<'_, '_>) {
        collect(p.st, p.ev);
        place(p.ctx, p.st, p.ev);
    }

    fn next_turn_begun(&self, st: &mut State, ev: &[Event]) {
        collect(st, ev);
    }
}
