//! Night & Severe Weather Conditions (Optional) in the house rules.
//!
//! The conditions are data (`[weather.*]` in rulesets/memoir44.toml): how
//! far units see, how close a friendly unit must be for indirect fire, what
//! they take off movement, what they forbid. Night may also lift by dice on
//! the visibility track (`[night_track]`): docs/rules/memoir44.md, "Night &
//! Severe Weather Conditions".

use super::battle::Ctx;
use super::board::Hex;
use super::events::Event;
use super::ruleset::{CardSpec, Ruleset};
use super::state::{State, Unit};
use super::turn::Mode;
use super::Chance;
use serde::{Deserialize, Serialize};

/// The game option naming the conditions (`weather=night,mud`; `clear`
/// plays without the scenario's).
pub const OPTION: &str = "weather";
/// The game option naming the side that rolls for dawn on the night track.
pub const DAWN_OPTION: &str = "dawn";

/// One condition of the rulebook's section, as data.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionSpec {
    pub name: String,
    /// "Visibility is reduced to N hexes": no unit battles, and no side
    /// sees (Kriegspiel), further than this.
    #[serde(default)]
    pub visibility: Option<u32>,
    /// Indirect fire "provided that ... a friendly Unit is within N hexes of
    /// the target" (Night: "in Close Assault with the target", 1).
    #[serde(default)]
    pub spotter: Option<u32>,
    /// "All Units Movement is reduced by one hex per turn."
    #[serde(default)]
    pub move_less: u32,
    /// "All Armour is reduced to Moving 2 hexes per turn."
    #[serde(default)]
    pub armour_move: Option<u32>,
    /// "reduces all Units ... to Moving only 1 hex per turn."
    #[serde(default)]
    pub all_move: Option<u32>,
    /// "Special Infantry Units are reduced to Regular Infantry Units": the
    /// unit type whose movement they take.
    #[serde(default)]
    pub special_infantry_as: Option<String>,
    /// Terrain on which the condition does not slow a move ("Movement is
    /// normal on Railways, Roads, and through Towns & Villages").
    #[serde(default)]
    pub exempt: Vec<String>,
    /// "No paradrops or tactical airpower are allowed": card effects refused.
    #[serde(default)]
    pub no_cards: Vec<String>,
    #[serde(default)]
    pub no_paradrops: bool,
}

/// The night visibility track: the side that rolls throws `dice` battle
/// dice before each of its turns; each `advance_on` face moves the token
/// one box on; past the last box is full daylight.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NightTrackSpec {
    pub dice: u32,
    pub advance_on: String,
    /// Visibility (hexes) of each box, the first box first.
    pub visibility: Vec<u32>,
}

impl Default for NightTrackSpec {
    fn default() -> Self {
        NightTrackSpec {
            dice: 4,
            advance_on: "star".into(),
            visibility: vec![1, 2, 3, 4, 5],
        }
    }
}

/// A game's conditions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weather {
    /// Condition ids (`[weather.<id>]`), in the order given.
    pub conditions: Vec<String>,
    /// Night on the visibility track: the side that rolls for dawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dawn: Option<usize>,
    /// The track's box (1 = the first); past the last, daylight.
    #[serde(default)]
    pub track_box: u32,
}

impl Weather {
    #[must_use]
    pub fn has(&self, id: &str) -> bool {
        self.conditions.iter().any(|c| c == id)
    }
}

/// Parse a list of condition ids ("night, mud" or a TOML list's items).
pub fn parse_conditions(r: &Ruleset, items: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for w in items {
        let id = w.trim().to_ascii_lowercase().replace([' ', '_'], "-");
        if id.is_empty() {
            continue;
        }
        if !r.weather.contains_key(&id) {
            let known: Vec<&str> = r.weather.keys().map(String::as_str).collect();
            return Err(format!(
                "unknown weather condition '{w}' (known: {})",
                known.join(", ")
            ));
        }
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// Set a game's weather, checking what the conditions forbid in it.
pub fn set(
    r: &Ruleset,
    st: &mut State,
    conditions: Vec<String>,
    dawn: Option<usize>,
    track_box: u32,
) -> Result<(), String> {
    if !r.options.night_and_weather {
        return Err(
            "this ruleset does not play the optional Night & Severe Weather Conditions".into(),
        );
    }
    if dawn.is_some() && !conditions.iter().any(|c| c == "night") {
        return Err("dawn (the night visibility track) needs the night condition".into());
    }
    for c in &conditions {
        let spec = r.weather.get(c).cloned().unwrap_or_default();
        if spec.no_paradrops && !st.airdrops.is_empty() {
            return Err(format!("{}: no paradrops are allowed", spec.name));
        }
    }
    let last = r.night_track.visibility.len() as u32;
    if dawn.is_some() && !(1..=last).contains(&track_box.max(1)) {
        return Err(format!("the night track has boxes 1 to {last}"));
    }
    st.weather = (!conditions.is_empty()).then(|| Weather {
        conditions,
        dawn,
        track_box: if dawn.is_some() { track_box.max(1) } else { 0 },
    });
    Ok(())
}

/// How far units see now (None: no limit). Night on the track sees as far
/// as its box says.
#[must_use]
pub fn visibility(r: &Ruleset, st: &State) -> Option<u32> {
    let w = st.weather.as_ref()?;
    w.conditions
        .iter()
        .filter_map(|c| {
            if c == "night" && w.dawn.is_some() {
                r.night_track
                    .visibility
                    .get(w.track_box.saturating_sub(1) as usize)
                    .copied()
            } else {
                r.weather.get(c).and_then(|s| s.visibility)
            }
        })
        .min()
}

/// How close a friendly unit must be to a target for indirect fire.
#[must_use]
fn spotter_range(r: &Ruleset, st: &State) -> Option<u32> {
    let w = st.weather.as_ref()?;
    w.conditions
        .iter()
        .filter_map(|c| {
            if c == "night" && w.dawn.is_some() {
                r.night_track
                    .visibility
                    .get(w.track_box.saturating_sub(1) as usize)
                    .copied()
            } else {
                r.weather.get(c).and_then(|s| s.spotter.or(s.visibility))
            }
        })
        .min()
}

/// The range within which a Kriegspiel side sees (its battle range, no
/// further than the visibility).
#[must_use]
pub fn seen_range(r: &Ruleset, st: &State, battle_range: u32) -> u32 {
    visibility(r, st).map_or(battle_range, |v| battle_range.min(v))
}

/// The conditions' say on a battle: `None` when they change nothing (the
/// usual range and line-of-sight checks follow); `Some(Ok)` for indirect
/// fire the weather's spotting rule allows; `Some(Err)` when it is out of
/// sight.
#[must_use]
pub fn target_check(
    ctx: &Ctx<'_>,
    st: &State,
    att: &Unit,
    target: Hex,
    indirect: bool,
) -> Option<Result<(), String>> {
    let v = visibility(ctx.r, st)?;
    let range = att.at.distance(target);
    let what = describe(ctx.r, st);
    if indirect {
        let s = spotter_range(ctx.r, st).unwrap_or(v);
        let spotted = st
            .units
            .iter()
            .any(|u| u.side == att.side && u.at.distance(target) <= s);
        if spotted {
            return Some(Ok(()));
        }
        return Some(Err(format!(
            "{what}: indirect fire at {target} needs a friendly unit within {s} hex(es) of the target"
        )));
    }
    if range > v {
        return Some(Err(format!(
            "{what}: visibility is {v} hex(es) and {target} is {range} hexes away (out of sight)"
        )));
    }
    None
}

/// Refuse a card the conditions forbid ("No ... tactical airpower").
pub fn card_check(r: &Ruleset, st: &State, card: &CardSpec) -> Result<(), String> {
    let Some(w) = &st.weather else {
        return Ok(());
    };
    for c in &w.conditions {
        if let Some(spec) = r.weather.get(c) {
            if card
                .effect
                .as_ref()
                .is_some_and(|e| spec.no_cards.iter().any(|x| x == e))
            {
                return Err(format!(
                    "{}: no tactical airpower is allowed ({} may not be played)",
                    spec.name, card.name
                ));
            }
        }
    }
    Ok(())
}

/// Is every hex of `path` on terrain the condition does not slow?
fn exempt(st: &State, spec: &super::weather::ConditionSpec, path: &[Hex]) -> bool {
    !spec.exempt.is_empty()
        && !path.is_empty()
        && path
            .iter()
            .all(|h| st.features(*h).iter().any(|f| spec.exempt.contains(f)))
}

/// An ordered unit's movement under the conditions. `path`: the move it
/// makes (a mud condition does not slow a move wholly on its exempt
/// terrain); None, before any move is known.
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &Unit, base: &Mode, path: Option<&[Hex]>) -> Mode {
    let mut m = base.clone();
    let Some(w) = &st.weather else {
        return m;
    };
    let spec = ctx.spec(&u.kind);
    for c in &w.conditions {
        let Some(cs) = ctx.r.weather.get(c) else {
            continue;
        };
        if path.is_some_and(|p| exempt(st, cs, p)) {
            continue;
        }
        if let Some(a) = cs.armour_move.filter(|_| spec.class == "armour") {
            m.max_move = m.max_move.min(a);
            m.move_battle = m.move_battle.min(a);
        }
        if let Some(reg) = cs
            .special_infantry_as
            .as_ref()
            .and_then(|k| ctx.r.units.get(k))
        {
            if spec.class == "infantry" && spec.move_and_battle > reg.move_and_battle {
                m.max_move = m.max_move.min(reg.r#move);
                m.move_battle = m.move_battle.min(reg.move_and_battle);
            }
        }
        if let Some(a) = cs.all_move {
            m.max_move = m.max_move.min(a);
            m.move_battle = m.move_battle.min(a);
        }
        m.max_move = m.max_move.saturating_sub(cs.move_less);
        m.move_battle = m.move_battle.saturating_sub(cs.move_less);
    }
    m
}

/// A sentence for the report: the conditions and the track.
#[must_use]
pub fn describe(r: &Ruleset, st: &State) -> String {
    let Some(w) = &st.weather else {
        return String::new();
    };
    let names: Vec<String> = w
        .conditions
        .iter()
        .map(|c| r.weather.get(c).map_or(c.clone(), |s| s.name.clone()))
        .collect();
    names.join(", ")
}

/// The line the reports print under the title.
#[must_use]
pub fn status(r: &Ruleset, st: &State) -> Option<String> {
    let w = st.weather.as_ref()?;
    let mut s = format!("Weather: {}", describe(r, st));
    match visibility(r, st) {
        Some(v) => s.push_str(&format!("; visibility {v} hex(es)")),
        None => s.push_str("; visibility normal"),
    }
    if let Some(d) = w.dawn {
        let side = st.side_names.get(d).cloned().unwrap_or_default();
        s.push_str(&format!(
            "; night track box {} of {} ({side} roll {} dice for dawn before each of their turns)",
            w.track_box,
            r.night_track.visibility.len(),
            r.night_track.dice
        ));
    }
    s.push('.');
    Some(s)
}

/// After a turn: if the side that rolls for dawn moves next, it throws the
/// track's dice now (from this turn's dice stream, after its battles);
/// each `advance_on` face moves the token one box on. Past the last box the
/// night is over and full daylight returns.
pub fn after_turn(r: &Ruleset, st: &mut State, events: &mut Vec<Event>, chance: &mut Chance<'_>) {
    if st.over {
        return;
    }
    let Some(w) = st.weather.as_mut() else {
        return;
    };
    let Some(dawn) = w.dawn else {
        return;
    };
    if st.to_move != dawn || !w.has("night") {
        return;
    }
    let mut faces = Vec::new();
    for _ in 0..r.night_track.dice {
        faces.push(r.face(chance.dice.roll(6)));
    }
    let advanced = faces
        .iter()
        .filter(|f| **f == r.night_track.advance_on)
        .count() as u32;
    w.track_box += advanced;
    let last = r.night_track.visibility.len() as u32;
    let daylight = w.track_box > last;
    if daylight {
        w.conditions.retain(|c| c != "night");
        w.dawn = None;
        w.track_box = 0;
    }
    let (track_box, none_left) = (w.track_box, w.conditions.is_empty());
    if none_left {
        st.weather = None;
    }
    events.push(Event::NightTrack {
        side: st.sides[dawn].clone(),
        faces,
        advanced,
        track_box,
        visibility: visibility(r, st),
        daylight,
    });
}

/// The report's sentence for a night track roll.
#[must_use]
pub fn describe_event(e: &Event, side_name: &dyn Fn(&str) -> String) -> Option<String> {
    let Event::NightTrack {
        side,
        faces,
        advanced,
        track_box,
        visibility,
        daylight,
    } = e
    else {
        return None;
    };
    let dice = faces.join(" ");
    Some(if *daylight {
        format!(
            "Dawn: {} roll for the night track [{dice}]: {advanced} box(es) on; full daylight, the night is over.",
            side_name(side)
        )
    } else {
        format!(
            "Night track: {} roll [{dice}]: {advanced} box(es) on, now box {track_box}; visibility {} hex(es).",
            side_name(side),
            visibility.map_or("normal".to_string(), |v| v.to_string())
        )
    })
}

/// Night & Severe Weather on the turn's hooks (turn/hooks.rs).
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn mode(&self, ctx: &Ctx<'_>, st: &State, u: &Unit, m: Mode, path: Option<&[Hex]>) -> Mode {
        mode(ctx, st, u, &m, path)
    }
}
