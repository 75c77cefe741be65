//! The optional rules and variants, as the turn sees them.
//!
//! A rule that changes how a turn goes (Night & Severe Weather, Supply
//! Lines, the Battle Star Markers, "Achtung! Zombie!", ...) implements
//! [`Hook`] in its own file: each method is a point of the turn where it may
//! act, and the default does nothing. [`HOOKS`] lists them once, in the order
//! they run at every point. A new rule is its own file and one line of that
//! list (docs/architecture.md, "How an optional rule joins the turn").

use super::Mode;
use crate::battle::Ctx;
use crate::board::Hex;
use crate::events::Event;
use crate::state::{State, Unit};
use adjutant_dice::Dice;

/// The position a hook may change at a point of the turn being applied:
/// the state, the turn's events so far, and the turn's open dice.
pub struct Play<'a, 'b> {
    pub ctx: &'a Ctx<'b>,
    pub st: &'a mut State,
    pub ev: &'a mut Vec<Event>,
    pub dice: &'a mut dyn Dice,
}

/// A unit's move, as the hooks see it once it is made.
pub struct Entered<'a> {
    pub unit: u32,
    /// The hexes entered, in order (the start hex left out).
    pub path: &'a [Hex],
    pub dest: Hex,
    /// An Engineer Unit that may still battle clears a minefield it entered
    /// instead.
    pub clearing: bool,
}

/// A battle fought as a step of the turn (BATTLE), once it is over.
pub struct Fought {
    /// The side whose turn it is.
    pub side: usize,
    pub unit: u32,
    pub target: Hex,
    /// The range it was fought at.
    pub range: u32,
    /// The figures the side had lost before the battle.
    pub removed: u32,
}

/// An optional rule or variant at the points of a turn. Every method has a
/// default that does nothing.
pub trait Hook: Sync {
    /// How the rule changes an ordered unit's mode. `path` is the move being
    /// checked, when there is one (the weather spares some terrain).
    fn mode(&self, _ctx: &Ctx<'_>, _st: &State, _u: &Unit, m: Mode, _path: Option<&[Hex]>) -> Mode {
        m
    }

    /// After each step of the turn, and once more after the last. `since`:
    /// the first event of the step just applied.
    fn after_step(&self, _p: &mut Play<'_, '_>, _since: usize) {}

    /// A unit has moved (MOVE): what the ground it entered does.
    fn entered(&self, _p: &mut Play<'_, '_>, _e: &Entered<'_>) {}

    /// After a unit's BATTLE step.
    fn after_battle(&self, _p: &mut Play<'_, '_>, _b: &Fought) {}

    /// At the end of the turn, before victory is judged.
    fn end_turn(&self, _p: &mut Play<'_, '_>) {}

    /// A variant with a victory of its own judges the turn's end instead of
    /// the scenario's medals: true when it did. The first rule that does is
    /// the only one.
    fn victory(&self, _p: &mut Play<'_, '_>, _before: &State, _side: usize) -> bool {
        false
    }

    /// Units placed at the end of the turn (after victory is judged).
    fn placements(&self, _p: &mut Play<'_, '_>) {}

    /// The next side's turn has begun (its supply judged): `ev` are the
    /// events that judgement gave.
    fn next_turn_begun(&self, _st: &mut State, _ev: &[Event]) {}
}

/// Every rule on the turn's hooks, in the order they run.
pub static HOOKS: &[&dyn Hook] = &[
    &crate::weather::Hooks,
    &crate::blitzkrieg::Hooks,
    &crate::support::Hooks,
    &crate::disorder::Hooks,
    &crate::bridges::Hooks,
    &crate::trains::Hooks,
    &crate::tiles::Hooks,
    &crate::mines::Hooks,
    &crate::variants::zombies::Hooks,
    &crate::variants::cybermen::Hooks,
    &crate::stars::Hooks,
    &crate::variants::exterminate::Hooks,
    &crate::supply::Hooks,
    &crate::variants::worlds::Hooks,
    &crate::variants::nineteen84::Hooks,
];

/// An ordered unit's mode under every rule.
#[must_use]
pub fn mode(ctx: &Ctx<'_>, st: &State, u: &Unit, m: Mode, path: Option<&[Hex]>) -> Mode {
    HOOKS.iter().fold(m, |m, h| h.mode(ctx, st, u, m, path))
}

pub fn after_step(p: &mut Play<'_, '_>, since: usize) {
    for h in HOOKS {
        h.after_step(p, since);
    }
}

pub fn entered(p: &mut Play<'_, '_>, e: &Entered<'_>) {
    for h in HOOKS {
        h.entered(p, e);
    }
}

pub fn after_battle(p: &mut Play<'_, '_>, b: &Fought) {
    for h in HOOKS {
        h.after_battle(p, b);
    }
}

pub fn end_turn(p: &mut Play<'_, '_>) {
    for h in HOOKS {
        h.end_turn(p);
    }
}

/// Did a variant judge the turn's victory itself?
pub fn victory(p: &mut Play<'_, '_>, before: &State, side: usize) -> bool {
    HOOKS.iter().any(|h| h.victory(p, before, side))
}

pub fn placements(p: &mut Play<'_, '_>) {
    for h in HOOKS {
        h.placements(p);
    }
}

pub fn next_turn_begun(st: &mut State, ev: &[Event]) {
    for h in HOOKS {
        h.next_turn_begun(st, ev);
    }
}
