//! One player-turn of the Seven Years' War (its rulebook, "Sequence of
//! play"): fog of war, compulsory moves, clearing disorder, normal moves
//! and charges (with the other side's response fire, evade, stand and
//! counter-charge decided by its standing orders, so the move resolves in
//! one pass), fire, melee and morale TESTs. docs/rules/seven-years-war.md
//! gives the reading of every garbled passage.

use super::orders::{parse, Line, Step};
use super::{line, player_turn, standing, Effect, FogEntry, Sequence, Tables};
use crate::events::{Event, Syw, SywNote};
use crate::geometry::{self as g, fmt_len, Dist2, Footprint, Pt, PER_INCH};
use crate::state::{figures, footprint, Forced};
use crate::Ruleset;
use crate::{State, Unit};
use adjutant_rules::{Chance, Orders, Rejection};
use std::collections::{BTreeMap, BTreeSet};

/// What one player-turn did.
pub type Outcome = crate::Outcome<crate::SevenYearsWar>;

/// A unit's checked orders.
#[derive(Debug, Clone)]
pub struct Plan {
    pub line: usize,
    pub text: String,
    pub unit: String,
    pub steps: Vec<Step>,
    /// Ordered as part of a brigade (one throw for all, +1d).
    pub brigade: Option<String>,
    /// Ordered as a squadron of a regimental move (L: one throw for the
    /// regiment, no brigade die).
    pub regiment: Option<String>,
}

/// The side whose player-turn it is.
#[must_use]
pub fn active(st: &State) -> usize {
    st.syw.as_ref().map_or(0, |s| s.active)
}

/// Who must send orders: the active side.
#[must_use]
pub fn needs(st: &State) -> Vec<usize> {
    if st.over {
        Vec::new()
    } else {
        vec![active(st)]
    }
}

/// Why an order names no unit: none of that name, or one off the table.
fn no_unit(st: &State, id: &str) -> String {
    if super::entry::reserves(st)
        .iter()
        .any(|x| x.unit.id.eq_ignore_ascii_case(id))
    {
        format!("{id} is off the table: it comes on by its entry throw (or by the referee)")
    } else {
        format!("there is no unit {id}")
    }
}

/// Can the unit be ordered this player-turn, or why not.
pub fn orderable(u: &Unit) -> Result<(), String> {
    if let Some(m) = &u.melee {
        return Err(format!("{} is in melee with {}", u.id, m.with));
    }
    match u.forced {
        Some(Forced::Rout) => Err(format!("{} is routing", u.id)),
        Some(Forced::Retire) => Err(format!("{} must retreat this turn", u.id)),
        _ => Ok(()),
    }
}

fn tables(r: &Ruleset) -> Result<&Tables, Rejection> {
    r.syw
        .as_deref()
        .ok_or_else(|| Rejection::whole("not a Seven Years' War ruleset"))
}

mod charge;
mod check;
mod compulsory;
mod fire;
mod fog;
mod hills;
mod morale;
mod moves;
pub mod odds;
mod retreat;
mod sight;
mod tests;

use crate::geometry::{fp_dist2, isqrt_up, toward};
use charge::*;
pub use check::check;
use compulsory::*;
use fire::*;
use fog::*;
use morale::*;
use moves::*;
use sight::*;
use tests::*;

// ------------------------------------------------------------------ the turn

struct Turn<'a, 'c, 'd> {
    r: &'a Ruleset,
    t: &'a Tables,
    st: State,
    ev: Vec<Event>,
    chance: Option<&'c mut Chance<'d>>,
    side: usize,
    pt: u32,
    /// Figures lost this player-turn.
    lost: BTreeMap<String, u32>,
    lost_art: BTreeSet<String>,
    lost_flank: BTreeSet<String>,
    /// Friendly units that retreated, evaded, routed or were destroyed
    /// this player-turn: (unit, side, brigade, where, what).
    happened: Vec<(String, usize, String, Pt, &'static str)>,
    /// Pairs that met this player-turn: (attacker, defender, face, charge bonus).
    contacts: Vec<(String, String, usize, bool)>,
    /// Counter-chargers that reached the charge's start: +1 in melee.
    counter: BTreeSet<String>,
    responded: BTreeSet<(String, String)>,
    moved: BTreeSet<String>,
    /// Units whose move was stopped (terrain edge, 3" from the enemy, a
    /// unit or the table edge in the way): no minimum move after that.
    halted: BTreeSet<String>,
    fog_brigade: Option<String>,
    fog_guns: Vec<String>,
    /// The friends the last retreat, evade or rout passed through.
    through: Vec<String>,
    /// Chargers that have turned on a secondary target this player-turn.
    secondary: BTreeSet<String>,
    /// Squadrons supporting their regiment's charge this player-turn (L:
    /// "Supporting units count charge bonus").
    supporting: BTreeSet<String>,
}

impl Turn<'_, '_, '_> {
    fn roll(&mut self) -> u32 {
        match self.chance.as_mut() {
            Some(c) => c.dice.roll(6),
            None => 1,
        }
    }
    fn rolls(&mut self, n: u32) -> Vec<u32> {
        (0..n).map(|_| self.roll()).collect()
    }
    fn note(&mut self, text: String, what: Syw) {
        self.ev.push(SywNote::new(text, what));
    }
    fn effect(&self, id: &str) -> Option<&Effect> {
        self.st
            .syw
            .as_ref()
            .and_then(|s| s.effects.iter().find(|e| e.id == id))
    }
    fn effect_for(&self, id: &str, side: usize) -> bool {
        self.effect(id).is_some_and(|e| e.side == side)
    }
    fn troop_class(&self, u: &Unit) -> String {
        self.r
            .troop(&u.troop)
            .map_or(String::new(), |t| t.class.clone())
    }
    fn is_light(&self, u: &Unit) -> bool {
        self.r.troop(&u.troop).is_some_and(|t| t.light)
    }
    fn disordered(u: &Unit) -> bool {
        u.marker.as_deref() == Some("orange")
    }
    fn disorder(&mut self, id: &str) {
        if let Some(u) = self.st.unit_mut(id) {
            u.marker = Some("orange".into());
        }
    }
    /// Remove `n` figures; a unit with none left, or at 75% lost, is
    /// destroyed.
    fn kill(&mut self, id: &str, n: u32, by: usize) -> u32 {
        let Some(u) = self.st.unit_mut(id) else {
            return 0;
        };
        let k = n.min(u.rf);
        u.rf -= k;
        *self.lost.entry(id.to_string()).or_default() += k;
        if let Some(s) = self.st.removed.get_mut(by) {
            *s += k;
        }
        k
    }
    fn destroy(&mut self, id: &str, why: &str) {
        let Some(k) = self.st.units.iter().position(|u| u.id == id) else {
            return;
        };
        let u = self.st.units.remove(k);
        let c = footprint(self.r, &u).centre();
        let brigade = u.brigade.clone();
        self.happened
            .push((u.id.clone(), u.side, brigade, c, "destroyed"));
        self.note(
            format!("{} is removed from play ({why})", u.id),
            Syw::Destroyed {
                unit: u.id.to_string(),
            },
        );
        for o in self.st.units.iter_mut() {
            if o.melee.as_ref().is_some_and(|m| m.with == u.id) {
                o.melee = None;
            }
        }
    }
    /// Destroy units at 75% lost or with no figures.
    fn sweep_destroyed(&mut self) {
        let gone: Vec<String> = self
            .st
            .units
            .iter()
            .filter(|u| {
                u.rf == 0
                    || (u.start_rf - u.rf) * 100 >= u.start_rf * self.t.test.destroyed_at
                        && self.r.troop(&u.troop).is_some_and(|t| t.class != "command")
            })
            .map(|u| u.id.clone())
            .collect();
        for id in gone {
            self.destroy(&id, "75% casualties: unit destroyed");
        }
    }
    fn commanders(&self, side: usize) -> Vec<String> {
        self.st
            .units
            .iter()
            .filter(|u| u.side == side && self.troop_class(u) == "command")
            .map(|u| u.id.clone())
            .collect()
    }
    fn army_commander(&self, side: usize) -> Option<String> {
        self.st
            .units
            .iter()
            .find(|u| u.side == side && self.troop_class(u) == "command" && u.brigade == "ARMY")
            .map(|u| u.id.clone())
    }
    /// A friendly command unit within the command radius of `u` (for the
    /// movement die and the TEST).
    fn command_near(&self, u: &Unit) -> Option<String> {
        if self.troop_class(u) == "command" {
            return None;
        }
        if self.effect_for("cavalry-no-command", u.side)
            && self.troop_class(u) == "cavalry"
            && !self.is_light(u)
        {
            return None;
        }
        let fp = footprint(self.r, u);
        self.st
            .units
            .iter()
            .filter(|c| c.side == u.side && self.troop_class(c) == "command")
            .find(|c| fp_dist2(&footprint(self.r, c), &fp).within(self.t.command_radius))
            .map(|c| c.id.clone())
    }
    /// Inspired command: the commander it came from, if `u` is in its radius.
    fn inspired(&self, u: &Unit) -> bool {
        let Some(e) = self.effect("inspired-command") else {
            return false;
        };
        if e.side != u.side {
            return false;
        }
        let fp = footprint(self.r, u);
        e.units.iter().any(|c| {
            self.st
                .unit(c)
                .is_some_and(|c| fp_dist2(&footprint(self.r, c), &fp).within(self.t.command_radius))
        })
    }
    /// Dice taken off every throw of movement or fire this player-turn:
    /// rain two, dead calm one (fire only).
    fn weather(&self, fire: bool) -> (u32, Vec<String>) {
        let mut n = 0;
        let mut why = Vec::new();
        if self.effect("rain").is_some() {
            n += 2;
            why.push("heavy rain -2 dice".to_string());
        }
        if fire && self.effect_for("dead-calm", self.side) {
            n += 1;
            why.push("dead calm -1 die".to_string());
        }
        (n, why)
    }
}

/// Check and carry out one player-turn. `chance` None: check only.
pub fn run(
    r: &Ruleset,
    st: &State,
    orders: &[Orders],
    chance: Option<&mut Chance<'_>>,
) -> Result<Outcome, Rejection> {
    let t = tables(r)?;
    if st.over {
        return Err(Rejection::whole("the game is over"));
    }
    let side = active(st);
    let mut text = String::new();
    for o in orders {
        let Some(s) = st.side_index(&o.side) else {
            return Err(Rejection::whole(format!(
                "'{}' is not a side of this game",
                o.side
            )));
        };
        if s != side {
            return Err(Rejection::whole(format!(
                "it is {}'s player-turn: {} waits (its standing orders answer for it)",
                st.sides[side], o.side
            )));
        }
        if !text.is_empty() {
            return Err(Rejection::whole(format!(
                "two sets of orders for {}",
                o.side
            )));
        }
        text = o.text.clone();
    }
    let plans = check(r, st, side, &text)?;
    let parsed = parse(&text)?;
    let Some(chance) = chance else {
        return Ok(Outcome {
            st: st.clone(),
            ev: Vec::new(),
        });
    };
    let mut tn = quiet(r, t, st, Some(chance));
    if tn.st.syw.is_none() {
        tn.st.syw = Some(Box::new(Sequence::default()));
    }
    tn.note(
        format!("Turn {}, {}'s player-turn:", st.turn, st.sides[side]),
        Syw::PlayerTurn {
            turn: st.turn,
            side: st.sides[side].to_string(),
        },
    );
    let mut splits: Vec<String> = Vec::new();
    let mut retreats: Vec<String> = Vec::new();
    for (_, _, l) in parsed {
        match l {
            Line::Standing { id, orders } => {
                if let Some(u) = tn.st.unit_mut(&id) {
                    if orders.iter().any(|x| x == "NONE") {
                        u.standing.clear();
                    }
                    for x in orders.into_iter().filter(|x| x != "NONE") {
                        // EVADE, STAND and COUNTER-CHARGE exclude each other,
                        // as do RESPONSE FIRE and HOLD FIRE.
                        let group: &[&str] = if x.ends_with("FIRE") {
                            &["RESPONSE FIRE", "HOLD FIRE"]
                        } else if x == "FIGHT ON" || x == "BREAK OFF" {
                            &["FIGHT ON", "BREAK OFF"]
                        } else {
                            &["EVADE", "STAND", "COUNTER-CHARGE"]
                        };
                        u.standing.retain(|s| !group.contains(&s.as_str()));
                        u.standing.push(x);
                    }
                }
            }
            Line::FogBrigade(b) => tn.fog_brigade = Some(b),
            Line::Split(b) => splits.push(b),
            Line::Retreat(u) => retreats.push(u),
            Line::FogGuns(gs) => tn.fog_guns = gs,
            _ => {}
        }
    }
    fog(&mut tn);
    compulsory(&mut tn);
    clear_disorder(&mut tn);
    off_table_entry(&mut tn);
    fog_advance(&mut tn);
    for b in &splits {
        for (text, what) in super::split::split(tn.r, &mut tn.st, b) {
            tn.note(text, what);
        }
    }
    for u in &retreats {
        retreat::manufacture(&mut tn, u);
    }
    movement(&mut tn, &plans);
    fire(&mut tn, &plans);
    melee(&mut tn);
    tn.sweep_destroyed();
    morale(&mut tn);
    tn.sweep_destroyed();
    end_of_player_turn(&mut tn);
    Ok(Outcome {
        st: tn.st,
        ev: tn.ev,
    })
}

/// Off-table units of the active side throw to come on (syw/entry.rs).
fn off_table_entry(tn: &mut Turn<'_, '_, '_>) {
    let (r, t, side) = (tn.r, tn.t, tn.side);
    let mut state = tn.st.clone();
    let evs = {
        let mut roll = || tn.roll();
        super::entry::throw_for_entry(r, t, &mut state, side, &mut roll)
    };
    tn.st = state;
    for (text, what) in evs {
        if let Syw::Enters { unit, .. } = &what {
            tn.moved.insert(unit.clone());
        }
        tn.note(text, what);
    }
}

// ------------------------------------------------------------------ F. melee

mod melee;
use melee::melee;

/// A player-turn of the side to move on a copy of `st`, no die thrown yet
/// (the turn's run, and PREDICT's reckoning in odds.rs).
fn quiet<'a, 'c, 'd>(
    r: &'a Ruleset,
    t: &'a Tables,
    st: &State,
    chance: Option<&'c mut Chance<'d>>,
) -> Turn<'a, 'c, 'd> {
    let side = active(st);
    Turn {
        r,
        t,
        st: st.clone(),
        ev: Vec::new(),
        chance,
        side,
        pt: player_turn(st.turn, side),
        lost: BTreeMap::new(),
        lost_art: BTreeSet::new(),
        lost_flank: BTreeSet::new(),
        happened: Vec::new(),
        contacts: Vec::new(),
        counter: BTreeSet::new(),
        responded: BTreeSet::new(),
        moved: BTreeSet::new(),
        halted: BTreeSet::new(),
        fog_brigade: None,
        fog_guns: Vec::new(),
        through: Vec::new(),
        secondary: BTreeSet::new(),
        supporting: BTreeSet::new(),
    }
}
