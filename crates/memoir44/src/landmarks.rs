//! Appendix 2, the rest of the tiles' comments that a scenario switches on:
//! the Flooded Field scenarios ("any hex that is Open Countryside is
//! considered a Flooded Field hex") and the Hedgerow that carries no road.
//! Readings: docs/rules/memoir44.md, "Appendix 2: tiles from expansion sets".

use super::board::Hex;
use super::ruleset::Ruleset;
use super::state::State;
use serde::{Deserialize, Serialize};

/// `[flooding]` of the ruleset: what a Flooded Field scenario makes of open
/// countryside.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FloodingSpec {
    /// The tile every open hex becomes.
    #[serde(default)]
    pub tile: Option<String>,
    /// Obstacles that keep an open hex dry ("Railways ... are treated as
    /// normal").
    #[serde(default)]
    pub spares: Vec<String>,
}

/// A ruleset mistake in `[flooding]` or the hedgerow list: (key, message).
#[must_use]
pub fn check_spec(r: &Ruleset) -> Option<(String, String)> {
    let f = &r.flooding;
    for t in f.tile.iter().chain(&f.spares) {
        if !r.terrain.contains_key(t) {
            return Some((
                "flooding".into(),
                format!("[flooding] names unknown terrain '{t}'"),
            ));
        }
    }
    None
}

/// "In Flooded Field scenarios, any hex that is Open Countryside is
/// considered a Flooded Field hex. High Ground, Hills, Roads, Railways, or
/// Towns & Villages are treated as normal": every hex without a tile, and
/// without an obstacle of `spares`, gets the flooded tile (its obstacles
/// stay on it).
pub fn flood(r: &Ruleset, st: &mut State) {
    let Some(tile) = r.flooding.tile.clone() else {
        return;
    };
    let board = State::board(r);
    for h in board.hexes() {
        let fs = st.features(h).to_vec();
        let has_tile = fs
            .iter()
            .any(|f| r.feature(f).is_some_and(|t| t.kind == "tile"));
        if has_tile || fs.iter().any(|f| r.flooding.spares.contains(f)) {
            continue;
        }
        let mut list = vec![tile.clone()];
        list.extend(fs);
        st.terrain.insert(h, list);
    }
}

/// "Hedgerow Tiles may not have roads" (Roads; Road Crossing A Railway and
/// Road Over A Hill say the same): the reason a hex's list is refused.
#[must_use]
pub fn hedgerow_road(r: &Ruleset, list: &[String], h: Option<Hex>) -> Option<String> {
    let hedge = list.iter().any(|f| f == "hedgerow");
    let road = list.iter().find(|f| r.feature(f).is_some_and(|t| t.road))?;
    hedge.then(|| {
        let at = h.map(|h| format!(" ({h})")).unwrap_or_default();
        format!("Hedgerow Tiles may not have roads: a hedgerow{at} cannot carry {road}")
    })
}

/// Airfield reinforcements a scenario allows one side (`[[airfield_reinforcements]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReinforcementSpec {
    pub side: toml::Spanned<String>,
    /// The infantry type landed (default regular infantry).
    #[serde(default)]
    pub r#type: Option<toml::Spanned<String>>,
    /// How many units the side may land in the game.
    pub units: toml::Spanned<u32>,
}

/// What a side may still land on an airfield.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reinforcement {
    pub side: usize,
    pub kind: String,
    pub left: u32,
}

/// Check a file's airfield reinforcements into the state (line:column
/// errors).
pub fn place_reinforcements(
    r: &Ruleset,
    st: &mut State,
    l: &super::scenario::Layout<'_>,
    specs: &[ReinforcementSpec],
) -> Result<(), super::DataError> {
    use super::ruleset::at;
    for sp in specs {
        let id = sp.side.get_ref().trim().to_ascii_lowercase();
        let Some(side) = l.sides.iter().position(|x| *x == id) else {
            return Err(at(
                l.text,
                l.file,
                sp.side.span(),
                format!(
                    "unknown side '{}' (sides: {})",
                    sp.side.get_ref(),
                    l.sides.join(", ")
                ),
            ));
        };
        let kind = match &sp.r#type {
            None => "infantry".to_string(),
            Some(t) => match r.unit_id(t.get_ref()) {
                Some(k) if r.unit(&k).is_some_and(|u| u.class == "infantry") => k,
                _ => {
                    return Err(at(
                        l.text,
                        l.file,
                        t.span(),
                        format!(
                            "'{}' is not an infantry unit type: \"one Infantry Unit is placed on an Airfield hex\"",
                            t.get_ref()
                        ),
                    ))
                }
            },
        };
        st.reinforcements.push(Reinforcement {
            side,
            kind,
            left: *sp.units.get_ref(),
        });
    }
    Ok(())
}

/// "After playing a Direct From HQ Command Card, one Infantry Unit is placed
/// on an Airfield hex as Reinforcements. ... Reinforcements may not be landed
/// if the Airfield is occupied by, or within Battle Range of, enemy Units":
/// land one on `h` for `side`. Returns the unit's id and the event.
pub fn land(
    ctx: &super::battle::Ctx<'_>,
    st: &mut State,
    side: usize,
    h: Hex,
    effect: &str,
) -> Result<(u32, super::events::Event), String> {
    if effect != "direct-from-hq" {
        return Err(
            "reinforcements land on an airfield after a Direct From HQ Command Card".into(),
        );
    }
    let Some(pos) = st
        .reinforcements
        .iter()
        .position(|x| x.side == side && x.left > 0)
    else {
        return Err("the scenario allows your side no (more) airfield reinforcements".into());
    };
    if !st.has_feature(h, "airfield") {
        return Err(format!("{h} is not an Airfield hex"));
    }
    if st.unit_at(h).is_some() {
        return Err(format!(
            "the airfield at {h} is occupied: reinforcements may not be landed"
        ));
    }
    // An enemy unit's Battle Range: the longest of its dice tables (a train
    // without a gun has none).
    let in_range = |u: &super::state::Unit| {
        let spec = ctx.spec(&u.kind);
        let reach = spec
            .dice
            .len()
            .max(spec.dice_vs_armour.as_ref().map_or(0, Vec::len));
        let armed = u.train.as_ref().is_none_or(|t| t.gun);
        armed
            && super::trains::cars(u)
                .iter()
                .any(|c| c.distance(h) as usize <= reach)
    };
    if let Some(e) = st.units.iter().find(|u| u.side != side && in_range(u)) {
        // Kriegspiel: a unit the side does not see is not named.
        let whose = if super::fog::sees(ctx.r, st, side, e) {
            format!("the enemy unit at {}", e.at)
        } else {
            "an enemy unit".to_string()
        };
        return Err(format!(
            "the airfield at {h} is within Battle Range of {whose}: reinforcements may not be landed"
        ));
    }
    let kind = st.reinforcements[pos].kind.clone();
    st.reinforcements[pos].left -= 1;
    let spec = ctx.spec(&kind).clone();
    let id = st.next_unit;
    st.next_unit += 1;
    st.units.push(super::state::Unit::arriving(
        id,
        side,
        &kind,
        h,
        spec.figures,
    ));
    super::variants::zombies::arrived(st, side, spec.figures);
    let e = super::events::Event::Reinforced {
        side: st.sides[side].clone(),
        unit: kind,
        at: h,
    };
    Ok((id, e))
}

/// The game option (a `[variants]` entry of the ruleset) of the Oasis's
/// recovery of figures, which a scenario turns on with `oasis_recovery`.
pub const OASIS_RECOVERY: &str = "oasis-recovery";

/// Oasis: "An ordered Infantry Unit in an Oasis may recover lost figures, by
/// applying the same procedure as a Medics & Mechanics Command Card, as
/// indicated in the Scenario." Why `RECOVER` of unit `u` is refused.
#[must_use]
pub fn recover_refusal(
    ctx: &super::battle::Ctx<'_>,
    st: &State,
    u: &super::state::Unit,
) -> Option<String> {
    if !st.variants.iter().any(|v| v == OASIS_RECOVERY) {
        return Some("this scenario does not let units recover figures in an oasis".into());
    }
    if !ctx.info(st, u.at).any(|t| t.recovers_figures) {
        return Some(format!("the unit at {} is not in an oasis", u.at));
    }
    if ctx.spec(&u.kind).class != "infantry" {
        return Some("only an infantry unit recovers figures in an oasis".into());
    }
    if u.figures >= u.start {
        return Some(format!("the unit at {} has lost no figures", u.at));
    }
    None
}

/// The Medics & Mechanics procedure for a unit in an oasis: "roll 1 die per
/// card in your hand including this one; each matching symbol or star
/// returns one figure, up to the starting strength". `dice` is the hand the
/// turn began with. True if a figure returned (the unit may then move and
/// battle; otherwise it may not, as with the card).
pub fn recover(
    ctx: &super::battle::Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<super::events::Event>,
    dice: &mut dyn adjutant_dice::Dice,
    id: u32,
    n: u32,
) -> bool {
    let Some(u) = st.unit(id).cloned() else {
        return false;
    };
    let sym = ctx.r.symbol(&ctx.spec(&u.kind).class).to_string();
    let mut faces = Vec::new();
    let mut got = 0;
    for _ in 0..n {
        let f = ctx.r.face(dice.roll(6));
        if f == "star" || (!sym.is_empty() && f == sym) {
            got += 1;
        }
        faces.push(f);
    }
    let back = got.min(u.start.saturating_sub(u.figures));
    if let Some(m) = st.unit_mut(id) {
        m.figures += back;
    }
    ev.push(super::events::Event::FiguresReturned {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        at: u.at,
        returned: back,
        now: u.figures + back,
        faces,
    });
    back > 0
}
