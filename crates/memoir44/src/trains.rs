//! Appendix 2 - Trains, Railway Engines and Wagons (the house rules).
//!
//! A train is one unit of a kind listed in `[trains] kinds`: its Railway
//! Engine stands on the unit's hex (`Unit::at`) and its Wagon on the track
//! hex behind it (`Train::rear`), which no other unit may enter. Its figures
//! count the hits it may still take (four: "On the third Hit ... remove the
//! Wagon. On the fourth Hit, the Railway Engine is removed"). Orders:
//!
//! - `MOVE <engine> <hex> ...` moves it forwards; `MOVE <wagon> <hex> ...`
//!   backwards (the path is always the leading piece's; the other follows
//!   in its tracks), at most 3 hexes along the line;
//! - `BATTLE <engine or wagon> <target>` (the Armoured Train only);
//! - `UNLOAD <train> <hex> [<type>]`: a Supply Train at a Railway Station
//!   lets one carried unit disembark next to its wagon.
//!
//! The readings are in docs/rules/memoir44.md, "Trains, Railway Engines and
//! Wagons".

use super::battle::{lose, may_enter, unit_moved, Ctx, Outcome, PathInfo};
use super::board::{Hex, Section};
use super::events::Event;
use super::ruleset::{at, Ruleset};
use super::scenario::{file_hex, Layout, Placement};
use super::state::{State, Unit};
use super::DataError;
use serde::{Deserialize, Serialize};

/// `[trains]` of the ruleset.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrainsSpec {
    /// Unit types that are trains.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Terrain a train runs on (any of them on a hex).
    #[serde(default)]
    pub track: Vec<String>,
    /// Obstacles that block the tracks.
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Where carried units may disembark (the engine's hex).
    #[serde(default)]
    pub stations: Vec<String>,
    /// Hits after which the wagon is removed.
    #[serde(default = "three")]
    pub wagon_lost_at: u32,
    /// Kinds with an artillery model on the wagon (they battle).
    #[serde(default)]
    pub armed: Vec<String>,
    /// The class whose terrain reductions the armed trains' fire takes.
    #[serde(default)]
    pub fires_as: Option<String>,
}

fn three() -> u32 {
    3
}

impl Default for TrainsSpec {
    fn default() -> Self {
        TrainsSpec {
            kinds: vec![],
            track: vec![],
            blocked_by: vec![],
            stations: vec![],
            wagon_lost_at: 3,
            armed: vec![],
            fires_as: None,
        }
    }
}

/// A ruleset mistake in `[trains]`: (key, message).
#[must_use]
pub fn check_spec(r: &Ruleset) -> Option<(String, String)> {
    let t = &r.trains;
    for k in &t.kinds {
        let Some(u) = r.units.get(k) else {
            return Some((
                "kinds".into(),
                format!("trains.kinds names unknown unit '{k}'"),
            ));
        };
        if t.wagon_lost_at == 0 || t.wagon_lost_at >= u.figures {
            return Some((
                "wagon_lost_at".into(),
                format!(
                    "trains.wagon_lost_at must be 1 to {} (the hits a {} takes)",
                    u.figures.saturating_sub(1),
                    u.name
                ),
            ));
        }
    }
    for (key, list) in [
        ("track", &t.track),
        ("blocked_by", &t.blocked_by),
        ("stations", &t.stations),
    ] {
        if let Some(x) = list.iter().find(|x| !r.terrain.contains_key(*x)) {
            return Some((
                key.into(),
                format!("trains.{key} names unknown terrain '{x}'"),
            ));
        }
    }
    if let Some(x) = t.armed.iter().find(|x| !t.kinds.contains(x)) {
        return Some((
            "armed".into(),
            format!("trains.armed names '{x}', not in trains.kinds"),
        ));
    }
    if let Some(c) = t.fires_as.as_ref().filter(|c| !r.classes.contains_key(*c)) {
        return Some((
            "fires_as".into(),
            format!("trains.fires_as names unknown class '{c}'"),
        ));
    }
    None
}

/// The train part of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Train {
    /// The hex behind the engine: the wagon's while it is on the board,
    /// afterwards the way the train does not face.
    pub rear: Hex,
    /// The wagon is still on the board (removed on the third hit).
    pub wagon: bool,
    /// The Armoured Train's artillery model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gun: bool,
    /// A Supply Train's reinforcements still aboard, by unit type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cargo: Vec<String>,
    /// Units that disembarked: (unit id, the turn they did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub landed: Vec<(u32, u32)>,
    /// The turn the train stopped to let units disembark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<u32>,
    /// "Trains may also be mission objectives."
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mission: Option<Mission>,
}

/// A train as a mission objective (a scenario's `objective` on the train).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mission {
    /// The hex the train's side must bring its engine to. None: the train
    /// itself is the objective, worth `medals` on the Medal Stand of the
    /// side that destroys it (instead of the one medal of any train).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<Hex>,
    pub medals: u32,
    /// The engine has reached `reach` (its medals are won for good).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub done: bool,
}

impl Mission {
    /// The mission in words, for the map's legend.
    #[must_use]
    pub fn describe(&self) -> String {
        let medals = if self.medals == 1 {
            "1 medal".to_string()
        } else {
            format!("{} medals", self.medals)
        };
        match self.reach {
            Some(h) if self.done => format!("mission objective: reached {h} ({medals} won)"),
            Some(h) => format!("mission objective: reach {h} for {medals}"),
            None => format!("mission objective: {medals} to the side that destroys it"),
        }
    }
}

/// The medals a train's destruction is worth (a mission objective's, or
/// the one medal of any unit).
#[must_use]
pub fn medals_for(u: &Unit) -> u32 {
    u.train
        .as_ref()
        .and_then(|t| t.mission.as_ref())
        .filter(|m| m.reach.is_none())
        .map_or(1, |m| m.medals)
}

/// After any step: a train whose mission is to reach a hex and whose engine
/// stands on it wins its side the mission's medals, once.
pub fn missions(st: &mut State, ev: &mut Vec<Event>) {
    let mut won = Vec::new();
    for u in &mut st.units {
        let at = u.at;
        let Some(m) = u.train.as_mut().and_then(|t| t.mission.as_mut()) else {
            continue;
        };
        if m.done || m.reach != Some(at) {
            continue;
        }
        m.done = true;
        won.push((u.side, u.kind.clone(), at, m.medals));
    }
    for (side, kind, at, medals) in won {
        if let Some(n) = st.medal_units.get_mut(side) {
            *n += medals;
        }
        ev.push(Event::TrainMission {
            side: st.sides[side].clone(),
            unit: kind.clone(),
            at,
            medals,
            how: "reached".into(),
        });
        ev.push(Event::MedalGained {
            side: st.sides[side].clone(),
            medals: st.medals(side),
            reason: format!("{kind} reached its objective"),
        });
    }
}

/// A train as the reports show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainView {
    /// The wagon's hex, while it is on the board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wagon: Option<Hex>,
    /// The hex behind the engine (the train faces away from it).
    pub rear: Hex,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gun: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carries: Vec<String>,
    /// "Trains may also be mission objectives."
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mission: Option<Mission>,
}

#[must_use]
pub fn view(u: &Unit) -> Option<TrainView> {
    u.train.as_ref().map(|t| TrainView {
        wagon: t.wagon.then_some(t.rear),
        rear: t.rear,
        gun: t.gun,
        carries: t.cargo.clone(),
        mission: t.mission.clone(),
    })
}

/// The wagon's hex, if the unit is a train with its wagon.
#[must_use]
pub fn wagon(u: &Unit) -> Option<Hex> {
    u.train.as_ref().filter(|t| t.wagon).map(|t| t.rear)
}

/// The hexes the unit stands on: the engine's (its own) and the wagon's.
#[must_use]
pub fn cars(u: &Unit) -> Vec<Hex> {
    let mut v = vec![u.at];
    v.extend(wagon(u));
    v
}

/// Does `h` hold railway track a train may run on? Track laid over an
/// impassable tile (a lake, headwaters) without a bridge carries no train.
#[must_use]
pub fn on_track(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    if !ctx.board.contains(h)
        || !st
            .features(h)
            .iter()
            .any(|f| ctx.r.trains.track.contains(f))
    {
        return false;
    }
    let info = ctx.info(st, h);
    !info.any(|t| t.impassable) || info.any(|t| t.bridge)
}

fn blocked(ctx: &Ctx<'_>, st: &State, h: Hex) -> bool {
    st.features(h)
        .iter()
        .any(|f| ctx.r.trains.blocked_by.contains(f))
}

/// The track hex that continues the line from `a` through `b` (the first in
/// board order where the line forks).
fn beyond(ctx: &Ctx<'_>, st: &State, a: Hex, b: Hex) -> Option<Hex> {
    let mut c: Vec<Hex> = b
        .neighbours()
        .into_iter()
        .filter(|n| a.distance(*n) == 2 && on_track(ctx, st, *n))
        .collect();
    c.sort();
    c.first().copied()
}

/// The hex straight on from `a` through `b` (on the board or not): where a
/// train without its wagon faces away from when no track continues.
fn straight_on(a: Hex, b: Hex) -> Hex {
    Hex::new(2 * b.col - a.col, 2 * b.row - a.row)
}

/// Check a train's move. `path[0]` is the engine's hex (forwards) or the
/// wagon's (backwards); the path is the leading piece's.
pub fn check_move(
    ctx: &Ctx<'_>,
    st: &State,
    u: &Unit,
    path: &[Hex],
    max: u32,
) -> Result<PathInfo, String> {
    let Some(t) = &u.train else {
        return Err("not a train".into());
    };
    let Some((&start, rest)) = path.split_first() else {
        return Err("empty path".into());
    };
    let w = wagon(u);
    if start != u.at && Some(start) != w {
        return Err(match w {
            Some(w) => format!(
                "the train's engine is at {} and its wagon at {w}, not {start}",
                u.at
            ),
            None => format!("the train's engine is at {}, not {start}", u.at),
        });
    }
    let Some(&first) = rest.first() else {
        return Ok(PathInfo {
            dist: 0,
            barred_from_battle: false,
        });
    };
    if t.stopped == Some(st.turn + 1) {
        return Err(
            "the train stopped at the station to let units disembark: it moves no further this turn"
                .into(),
        );
    }
    // The hex behind the leading piece, which the line runs away from.
    let behind = if start == u.at {
        if Some(first) == w {
            return Err(format!(
                "{first} is the train's own wagon: to move backwards, start the path at the wagon's hex"
            ));
        }
        (w.is_some() || first != t.rear).then_some(t.rear)
    } else {
        if first == u.at {
            return Err(format!(
                "{first} is the train's own engine: to move forwards, start the path at the engine's hex"
            ));
        }
        Some(u.at)
    };
    let n = rest.len() as u32;
    if n > max {
        return Err(format!(
            "a train moves at most {max} hex(es) along the tracks; the path has {n}"
        ));
    }
    let mut prev = behind;
    let mut cur = start;
    for &h in rest {
        if !h.adjacent(cur) {
            return Err(format!("{cur} to {h} is not a step to an adjacent hex"));
        }
        if !on_track(ctx, st, h) {
            return Err(format!(
                "{h} has no railway track: a train moves only along Railway Tracks"
            ));
        }
        if prev.is_some_and(|p| p.distance(h) != 2) {
            return Err(format!(
                "{cur} to {h} leaves the line: a train runs along the tracks, without turning back"
            ));
        }
        if blocked(ctx, st, h) {
            return Err(format!("the tracks at {h} are blocked"));
        }
        if st.unit_at(h).is_some_and(|o| o.side != u.side) {
            return Err(format!(
                "an enemy unit on {h}: a train may not move through tracks occupied by an enemy unit"
            ));
        }
        prev = Some(cur);
        cur = h;
    }
    let (engine, rear) = placed(ctx, st, u, path);
    let mut ends = vec![engine];
    if w.is_some() {
        ends.push(rear);
    }
    for h in ends {
        if st.unit_at(h).is_some_and(|o| o.id != u.id) {
            return Err(format!(
                "a train may pass through friendly units but not stop on one: {h} is occupied"
            ));
        }
    }
    Ok(PathInfo {
        dist: n,
        barred_from_battle: false,
    })
}

/// Where the engine and the hex behind it are after the move `path`.
fn placed(ctx: &Ctx<'_>, st: &State, u: &Unit, path: &[Hex]) -> (Hex, Hex) {
    let Some(t) = &u.train else {
        return (u.at, u.at);
    };
    let n = path.len().saturating_sub(1);
    if n == 0 {
        return (u.at, t.rear);
    }
    let last = path[n];
    let before = path[n - 1];
    if path[0] != u.at {
        // Backwards, the wagon leading: the engine follows it.
        (before, last)
    } else if t.wagon || path[1] != t.rear {
        // Forwards: the wagon follows the engine.
        (last, before)
    } else {
        // A train without its wagon, backwards: it still faces the same way.
        (
            last,
            beyond(ctx, st, before, last).unwrap_or_else(|| straight_on(before, last)),
        )
    }
}

/// Put the train where `path` (checked) takes it; `before` is the unit as
/// it stood.
pub fn moved(ctx: &Ctx<'_>, st: &mut State, before: &Unit, path: &[Hex]) {
    if before.train.is_none() || path.len() < 2 {
        return;
    }
    let (engine, rear) = placed(ctx, st, before, path);
    if let Some(x) = st.unit_mut(before.id) {
        x.at = engine;
        if let Some(t) = &mut x.train {
            t.rear = rear;
        }
    }
}

/// "When it Retreats, it Moves backwards (opposite way the Train is facing)
/// one hex along the Tracks for each Purple Flag rolled against it. If it
/// cannot Retreat, place one Battle Star on the Railway Engine for each hex
/// it cannot Retreat." None if the unit is not a train.
pub fn retreat(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    id: u32,
    flags: u32,
    by: usize,
) -> Option<Outcome> {
    let u = st.unit(id)?.clone();
    let t = u.train.clone()?;
    let free = |h: Hex| {
        on_track(ctx, st, h) && !blocked(ctx, st, h) && st.unit_at(h).is_none_or(|o| o.id == id)
    };
    // The line behind the engine: s[0] the engine, s[1] the hex behind it.
    let mut s = vec![u.at, t.rear];
    while s.len() < flags as usize + 3 {
        let k = s.len();
        match beyond(ctx, st, s[k - 2], s[k - 1]) {
            Some(h) => s.push(h),
            None => break,
        }
    }
    let lead = usize::from(t.wagon);
    let mut done = 0u32;
    while done < flags {
        let next = done as usize + 1 + lead;
        match s.get(next) {
            Some(h) if free(*h) => done += 1,
            _ => break,
        }
    }
    let k = done as usize;
    let mut out = Outcome::default();
    if done > 0 {
        let rear = s
            .get(k + 1)
            .copied()
            .filter(|h| on_track(ctx, st, *h))
            .unwrap_or_else(|| straight_on(s[k - 1], s[k]));
        if let Some(m) = st.unit_mut(id) {
            m.at = s[k];
            if let Some(tr) = &mut m.train {
                tr.rear = rear;
            }
        }
        unit_moved(st, id);
        out.retreated = true;
    }
    let blocked_hexes = flags - done;
    ev.push(Event::Retreat {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        path: s[..=k].to_vec(),
        blocked: blocked_hexes,
        no_retreat: false,
    });
    if blocked_hexes > 0 {
        out.eliminated = lose(
            ctx,
            st,
            ev,
            id,
            blocked_hexes,
            by,
            "retreat blocked",
            "flag",
        );
    }
    ev.extend(super::victory::update_objectives(st));
    Some(out)
}

/// "The Artillery model may be the first casualty in an attack on the
/// Train, instead of damage to the Train": the hits that remain for the
/// train.
pub fn gun_takes_hit(st: &mut State, ev: &mut Vec<Event>, id: u32, hits: u32, reason: &str) -> u32 {
    if hits == 0 || reason != "hits" {
        return hits;
    }
    let Some(u) = st.unit_mut(id) else {
        return hits;
    };
    let Some(t) = u.train.as_mut().filter(|t| t.gun) else {
        return hits;
    };
    t.gun = false;
    let (side, kind, at) = (u.side, u.kind.clone(), u.at);
    ev.push(Event::Train {
        side: st.sides[side].clone(),
        unit: kind,
        at,
        note: "its Artillery model is the first casualty, instead of damage to the Train".into(),
    });
    hits - 1
}

/// After hits on a train: "On the third Hit, place a third Battle Star, and
/// remove the Wagon" (and what it carries).
pub fn after_hits(ctx: &Ctx<'_>, st: &mut State, ev: &mut Vec<Event>, id: u32) {
    let lost_at = ctx.r.trains.wagon_lost_at;
    let Some(u) = st.unit_mut(id) else {
        return;
    };
    let hits = u.start.saturating_sub(u.figures);
    let Some(t) = u.train.as_mut().filter(|t| t.wagon && hits >= lost_at) else {
        return;
    };
    t.wagon = false;
    t.gun = false;
    let cargo = std::mem::take(&mut t.cargo);
    let (side, kind, wagon) = (u.side, u.kind.clone(), t.rear);
    let note = if cargo.is_empty() {
        format!("hit {hits} times: its wagon at {wagon} is removed")
    } else {
        format!(
            "hit {hits} times: its wagon at {wagon} is removed with the units it carried ({})",
            cargo.join(", ")
        )
    };
    ev.push(Event::Train {
        side: st.sides[side].clone(),
        unit: kind,
        at: wagon,
        note,
    });
}

/// The sections a unit may be ordered in: "If the Train is across two
/// Sections of the Board, it may be ordered in either Section."
#[must_use]
pub fn sections(ctx: &Ctx<'_>, u: &Unit, bottom: bool) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for h in cars(u) {
        for s in ctx.board.sections(h, bottom) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out.sort();
    out
}

/// The range from `att` to the unit on `target`: from the nearer piece of a
/// train to the nearer piece of a train.
#[must_use]
pub fn range(st: &State, att: &Unit, target: Hex) -> u32 {
    let to = st.unit_at(target).map_or(vec![target], cars);
    cars(att)
        .iter()
        .flat_map(|a| to.iter().map(move |t| a.distance(*t)))
        .min()
        .unwrap_or_else(|| att.at.distance(target))
}

/// Why `att` may not battle at `range` this turn, if a train rule forbids
/// it: a train without an artillery model, or a unit that disembarked this
/// turn.
#[must_use]
pub fn battle_refusal(ctx: &Ctx<'_>, st: &State, att: &Unit, range: u32) -> Option<String> {
    if let Some(t) = &att.train {
        if !t.gun {
            return Some(if ctx.r.trains.armed.contains(&att.kind) {
                "the Armoured Train's Artillery model is lost: the train no longer battles".into()
            } else {
                format!(
                    "a {} does not battle (its Wagon carries reinforcements, and carried units may not battle)",
                    ctx.spec(&att.kind).name
                )
            });
        }
    }
    let landed = st.units.iter().filter_map(|u| u.train.as_ref()).any(|t| {
        t.landed
            .iter()
            .any(|(id, turn)| *id == att.id && *turn == st.turn + 1)
    });
    if landed {
        if ctx.spec(&att.kind).class != "infantry" {
            return Some(
                "Artillery and Armour Units may not Move or Battle the turn they disembark".into(),
            );
        }
        if range > 1 {
            return Some(
                "Infantry Units may not Move the turn they disembark, but may Close Assault: only an adjacent enemy"
                    .into(),
            );
        }
    }
    None
}

/// The class whose terrain reductions a unit's fire takes (an armed train
/// fires as `[trains] fires_as`).
#[must_use]
pub fn fire_class<'a>(ctx: &'a Ctx<'_>, u: &Unit) -> &'a str {
    let spec = ctx.spec(&u.kind);
    match &ctx.r.trains.fires_as {
        Some(c) if u.train.is_some() => c,
        _ => &spec.class,
    }
}

/// "A Train may stop to allow a Unit to disembark when the Railway Engine
/// arrives at a Railway Station. Any disembarking Units are placed on the
/// hexes adjacent to the Wagon." Puts the unit on `to` and returns its id
/// and the event.
#[allow(clippy::too_many_arguments)]
pub fn unload(
    ctx: &Ctx<'_>,
    st: &mut State,
    side: usize,
    train: Hex,
    to: Hex,
    kind: Option<&str>,
    ordered: bool,
) -> Result<(u32, Event), String> {
    let Some(u) = st.unit_at(train).cloned() else {
        return Err(format!("there is no train at {train}"));
    };
    if u.side != side {
        return Err(format!("the unit at {train} is not yours"));
    }
    let Some(t) = u.train.clone() else {
        return Err(format!("the unit at {train} is not a train"));
    };
    if !ordered {
        return Err(format!("the train at {train} was not ordered"));
    }
    let Some(w) = wagon(&u) else {
        return Err("the train's wagon is lost: nothing is left to disembark".into());
    };
    if t.cargo.is_empty() {
        return Err(format!("the train at {train} carries no units"));
    }
    if !st
        .features(u.at)
        .iter()
        .any(|f| ctx.r.trains.stations.contains(f))
    {
        return Err(format!(
            "units disembark when the Railway Engine arrives at a Railway Station; the engine is at {}",
            u.at
        ));
    }
    let want = match kind {
        Some(k) => ctx.r.unit_id(k).unwrap_or_else(|| k.to_ascii_lowercase()),
        None => t.cargo[0].clone(),
    };
    let Some(pos) = t.cargo.iter().position(|c| *c == want) else {
        return Err(format!(
            "the train carries no {want} (it carries {})",
            t.cargo.join(", ")
        ));
    };
    if !to.adjacent(w) {
        return Err(format!(
            "disembarking units are placed on the hexes adjacent to the Wagon ({w}); {to} is not"
        ));
    }
    if st.unit_at(to).is_some() {
        return Err(format!("{to} is occupied"));
    }
    let spec = ctx.spec(&want).clone();
    if !may_enter(ctx, st, &spec, to) {
        return Err(format!("a {} may not be placed on {to}", spec.name));
    }
    let turn = st.turn + 1;
    let id = st.next_unit;
    st.next_unit += 1;
    st.units
        .push(Unit::arriving(id, side, &want, to, spec.figures));
    super::variants::zombies::arrived(st, side, spec.figures);
    if let Some(tr) = st.unit_mut(u.id).and_then(|x| x.train.as_mut()) {
        tr.cargo.remove(pos);
        tr.landed.push((id, turn));
        tr.stopped = Some(turn);
    }
    let e = Event::Train {
        side: st.sides[side].clone(),
        unit: u.kind.clone(),
        at: u.at,
        note: format!("stops at the station; {} disembarks onto {to}", spec.name),
    };
    Ok((id, e))
}

fn file_err(l: &Layout<'_>, span: std::ops::Range<usize>, msg: String) -> DataError {
    at(l.text, l.file, span, msg)
}

/// A placement's train part (`wagon`, `carries`), checked; None for a unit
/// that is not a train. A train placed with `wagon_lost_at` hits or more
/// (its `figures`) has lost its wagon: `wagon` then names the hex behind
/// the engine.
pub fn placement(
    r: &Ruleset,
    st: &State,
    l: &Layout<'_>,
    p: &Placement,
    kind: &str,
    engine: Hex,
    figures: u32,
) -> Result<Option<Train>, DataError> {
    let is_train = r.trains.kinds.iter().any(|k| k == kind);
    let name = r.unit(kind).map_or(kind.to_string(), |u| u.name.clone());
    let Some(w) = &p.wagon else {
        if is_train {
            return Err(file_err(
                l,
                p.r#type.span(),
                format!(
                    "a {name} needs its wagon: wagon = \"<hex>\", the track hex behind the engine"
                ),
            ));
        }
        if let Some(c) = p.carries.as_ref().and_then(|c| c.first()) {
            return Err(file_err(
                l,
                c.span(),
                format!("only a Supply Train carries units; a {name} does not"),
            ));
        }
        if let Some(o) = &p.objective {
            return Err(file_err(
                l,
                o.span(),
                format!("only a train is a mission objective here; a {name} is not a train (a hex objective goes in [[objectives]])"),
            ));
        }
        return Ok(None);
    };
    if !is_train {
        return Err(file_err(
            l,
            w.span(),
            format!("only a train has a wagon; a {name} is not a train (trains.kinds)"),
        ));
    }
    let wh = file_hex(r, l, w)?;
    let ctx = Ctx::new(r);
    if !on_track(&ctx, st, engine) {
        return Err(file_err(
            l,
            p.at.span(),
            format!("a train stands on railway tracks; {engine} has none"),
        ));
    }
    if !wh.adjacent(engine) || !on_track(&ctx, st, wh) {
        return Err(file_err(
            l,
            w.span(),
            format!(
                "the wagon stands on the track hex next to the engine ({engine}); {wh} is not one"
            ),
        ));
    }
    let start = r.unit(kind).map_or(figures, |u| u.figures);
    let has_wagon = start.saturating_sub(figures) < r.trains.wagon_lost_at;
    if has_wagon && st.unit_at(wh).is_some() {
        return Err(file_err(l, w.span(), format!("two units on {wh}")));
    }
    let gun = has_wagon && r.trains.armed.iter().any(|k| k == kind);
    let mut cargo = Vec::new();
    for c in p.carries.iter().flatten() {
        if gun {
            return Err(file_err(
                l,
                c.span(),
                format!("a {name} carries its Artillery model, no units"),
            ));
        }
        match r.unit_id(c.get_ref()) {
            Some(k) if !r.trains.kinds.contains(&k) => cargo.push(k),
            Some(_) => {
                return Err(file_err(
                    l,
                    c.span(),
                    "a train does not carry a train".into(),
                ))
            }
            None => {
                return Err(file_err(
                    l,
                    c.span(),
                    format!("unknown unit type '{}'", c.get_ref()),
                ))
            }
        }
    }
    if !has_wagon && !cargo.is_empty() {
        return Err(file_err(
            l,
            p.r#type.span(),
            format!(
                "a {name} hit {} times has lost its wagon and carries nothing",
                start - figures
            ),
        ));
    }
    let mission = placement_mission(r, &ctx, st, l, p, engine)?;
    Ok(Some(Train {
        rear: wh,
        wagon: has_wagon,
        gun,
        cargo,
        landed: vec![],
        stopped: None,
        mission,
    }))
}

/// A placed train's mission objective (`objective`), checked: at least 1
/// medal, its hex (if any) on the train's tracks and not the engine's own.
fn placement_mission(
    r: &Ruleset,
    ctx: &Ctx<'_>,
    st: &State,
    l: &Layout<'_>,
    p: &Placement,
    engine: Hex,
) -> Result<Option<Mission>, DataError> {
    Ok(match &p.objective {
        None => None,
        Some(o) => {
            let medals = o.get_ref().medals.as_ref();
            if medals.is_some_and(|m| *m.get_ref() == 0) {
                return Err(file_err(
                    l,
                    medals.map_or(o.span(), toml::Spanned::span),
                    "a mission objective is worth at least 1 medal".into(),
                ));
            }
            let reach = match &o.get_ref().reach {
                None => None,
                Some(h) => {
                    let hex = file_hex(r, l, h)?;
                    if !on_track(ctx, st, hex) {
                        return Err(file_err(
                            l,
                            h.span(),
                            format!("a train's objective is a hex of its tracks; {hex} has none"),
                        ));
                    }
                    if hex == engine {
                        return Err(file_err(
                            l,
                            h.span(),
                            format!("the train's engine already stands on {hex}"),
                        ));
                    }
                    Some(hex)
                }
            };
            Some(Mission {
                reach,
                medals: medals.map_or(1, |m| *m.get_ref()),
                done: false,
            })
        }
    })
}

/// A case's expected train (`[[expect.trains]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectTrain {
    /// The engine's hex.
    pub at: String,
    /// The wagon's hex; "" for no wagon.
    #[serde(default)]
    pub wagon: Option<String>,
    #[serde(default)]
    pub gun: Option<bool>,
    #[serde(default)]
    pub carries: Option<Vec<String>>,
}

/// What differs from a case's expected trains.
#[must_use]
pub fn check_expect(r: &Ruleset, st: &State, want: &[ExpectTrain]) -> Vec<String> {
    let mut problems = Vec::new();
    for e in want {
        let Some(h) = Hex::parse(&e.at) else {
            problems.push(format!("expect.trains: '{}' is not a hex", e.at));
            continue;
        };
        let Some(u) = st.units.iter().find(|u| u.at == h && u.train.is_some()) else {
            problems.push(format!("expected a train's engine at {h}, found none"));
            continue;
        };
        if let Some(w) = &e.wagon {
            let got = wagon(u).map(|x| x.to_string()).unwrap_or_default();
            if got != w.to_ascii_uppercase() {
                problems.push(format!(
                    "train at {h}: expected its wagon at {w:?}, got {got:?}"
                ));
            }
        }
        let t = u.train.as_ref();
        if let Some(g) = e.gun {
            if t.is_some_and(|t| t.gun) != g {
                problems.push(format!("train at {h}: expected gun {g}"));
            }
        }
        if let Some(c) = &e.carries {
            let want: Vec<String> = c
                .iter()
                .map(|k| r.unit_id(k).unwrap_or_else(|| k.clone()))
                .collect();
            let got = t.map(|t| t.cargo.clone()).unwrap_or_default();
            if got != want {
                problems.push(format!(
                    "train at {h}: expected it to carry {want:?}, got {got:?}"
                ));
            }
        }
    }
    problems
}

/// Trains on the turn's hooks (turn/hooks.rs): their missions after each
/// step.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn after_step(&self, p: &mut crate::turn::hooks::Play<'_, '_>, _: usize) {
        missions(p.st, p.ev);
    }
}
