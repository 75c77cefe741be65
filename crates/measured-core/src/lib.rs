//! The measured core: what the measured-table rulebooks share, a library
//! that is no family of its own. Geometry ([`geometry`]), the table's
//! terrain and the placement of units ([`state`]), the ruleset's shared
//! tables ([`ruleset`]), the generic [`State`], [`Unit`] and [`Ruleset`]
//! over a [`Book`], the referee's correction ([`amend`]), the order-line
//! and template helpers ([`order_line`], [`labels`]), random orders
//! ([`random`]), the report's text and drawing ([`report`]), PREDICT's
//! shared odds and sampling ([`predict`]) and the case runner ([`case`]).
//!
//! Each book is a crate of its own on this one, a family with its own
//! `ENTRY`: Charge! (`adjutant-measured`, docs/rules/charge.md) and the
//! Seven Years' War (`adjutant-syw`, docs/rules/seven-years-war.md). Its
//! procedures are behind [`Procedures`], its parts of the shared types
//! behind [`Book`]; the core calls them and never asks which book it is.

pub mod amend;
pub mod book;
pub mod case;
pub mod geometry;
pub mod labels;
pub mod order_line;
pub mod placement;
pub mod predict;
pub mod random;
pub mod report;
pub mod ruleset;
pub mod state;

use adjutant_dice::Dice;
use adjutant_rules::report::Parts;
use adjutant_rules::{Chance, DataError, Family, Orders, Phase, Rejection, Scenario, Viewer};
pub use book::Book;
pub use ruleset::Ruleset;
pub use state::{State, Unit};

/// A book's shipped scenarios as its family lists them: (id, ruleset id).
#[must_use]
pub fn shipped_scenarios<B: Book>() -> Vec<(String, String)> {
    adjutant_rules::shipped_list(B::shipped())
}

/// What one adjudication (a move of Charge!, a player-turn of the Seven
/// Years' War, a referee's correction) did.
pub struct Outcome<B: Book> {
    pub st: State<B>,
    pub ev: Vec<B::Event>,
}

/// What each measured book does its own way: its order language, who
/// must send orders, the check and the adjudication, the order template
/// and random orders. The ruleset carries its book's procedures
/// ([`Ruleset::book`]), chosen when the ruleset file is read; the core
/// calls them and never asks which book it is.
pub trait Procedures<B: Book>: Send + Sync {
    /// The book's name, for messages.
    fn name(&self) -> &'static str;
    /// The words an order line may start with.
    fn order_words(&self) -> &'static [&'static str];
    /// The orders in brief, for HELP.
    fn order_help(&self) -> String;
    /// The sides that must send orders now.
    fn needs(&self, st: &State<B>) -> Vec<usize>;
    /// Whether a unit can be given orders now, or why not.
    fn orderable(&self, u: &Unit<B>) -> Result<(), String>;
    /// The phase the position is in (who must send orders, in words).
    fn phase(&self, st: &State<B>) -> Phase;
    /// Check one side's orders: their canonical lines, or the refusal.
    fn check(
        &self,
        r: &Ruleset<B>,
        st: &State<B>,
        side: &str,
        orders: &str,
    ) -> Result<Vec<String>, Rejection>;
    /// Check a side's orders by its index (random orders try lines with it).
    fn check_side(
        &self,
        r: &Ruleset<B>,
        st: &State<B>,
        side: usize,
        text: &str,
    ) -> Result<(), Rejection>;
    /// Carry out the orders (`chance` None: check only).
    fn run(
        &self,
        r: &Ruleset<B>,
        st: &State<B>,
        orders: &[Orders],
        chance: Option<&mut Chance<'_>>,
    ) -> Result<Outcome<B>, Rejection>;
    /// The order template for a side, if it must send orders.
    fn template(&self, r: &Ruleset<B>, st: &State<B>, side: usize, name: &str) -> Option<String>;
    /// A fresh position's part of the book's own (set-up and cases).
    fn start(&self, _st: &mut State<B>) {}
    /// A placed unit's attributes of the book's own, checked; `Ok(None)`
    /// when the book holds it off the table.
    fn place_unit(
        &self,
        r: &Ruleset<B>,
        t: &ruleset::Troop,
        p: &state::Placement<B::Placement>,
        u: Unit<B>,
        st: &mut State<B>,
    ) -> Result<Option<Unit<B>>, String>;
    /// What the book decides of a unit as soon as it stands on the table.
    fn placed(&self, _r: &Ruleset<B>, _st: &State<B>, _t: &ruleset::Troop, _u: &mut Unit<B>) {}
    /// A case's part of the position of the book's own (the active side,
    /// the effects in force). Err: the case key to point at, and why.
    fn case_position(
        &self,
        r: &Ruleset<B>,
        st: &mut State<B>,
        case: &case::CaseSequence<'_>,
    ) -> Result<(), (&'static str, String)>;
    /// The ids of the effects in force, for a case's expectations.
    fn effects_in_force(&self, _st: &State<B>) -> Vec<String> {
        Vec::new()
    }
    /// The units the book holds off the table, in order, each as it will
    /// stand when it comes on (the Seven Years' War's off-table movement;
    /// none in Charge!): unit ids and a referee's `ENTER` look at them.
    fn off_table<'s>(&self, _st: &'s State<B>) -> Vec<&'s Unit<B>> {
        Vec::new()
    }
    /// Take the `k`th unit held off the table out of the book's keeping (a
    /// referee's `ENTER`: the core places it).
    fn bring_on(&self, _st: &mut State<B>, _k: usize) {}
    /// A referee's correction of a unit on the table (`rest` the words
    /// after `UNIT <id>`) of the book's own, or None: not one of its lines.
    fn amend_unit(
        &self,
        _st: &mut State<B>,
        _k: usize,
        _rest: &[&str],
    ) -> Option<Result<(), String>> {
        None
    }
    /// Random orders' lines of the book's own (standing orders, fog
    /// choices) before the units' lines.
    fn random_lines(
        &self,
        _r: &Ruleset<B>,
        _st: &State<B>,
        _side: usize,
        _rng: &mut dyn Dice,
    ) -> Vec<String> {
        Vec::new()
    }
    /// A random step of the book's own for the kind of step `k` drawn
    /// (1..=9), or None for the common one.
    fn random_step(&self, _k: u32, _rng: &mut dyn Dice) -> Option<String> {
        None
    }
    /// PREDICT (docs/orders.md): the odds of `side`'s orders as the
    /// answer's text, or the rejection a submission would get. The
    /// default: the rules crate's "not available".
    fn predict(
        &self,
        _r: &Ruleset<B>,
        _st: &State<B>,
        _side: &str,
        _orders: &str,
    ) -> Result<String, Rejection> {
        Ok(format!("{}\n", adjutant_rules::PREDICT_UNAVAILABLE))
    }
}

/// The measured core's one `Family`: what both books share (set-up,
/// sides, result, pass orders, report, events, score, the referee's
/// correction) here, the rest through the ruleset's [`Procedures`].
impl<B: Book> Family for Ruleset<B> {
    type State = State<B>;
    type Event = B::Event;

    fn id(&self) -> &str {
        &self.id
    }

    fn order_words(&self) -> &'static [&'static str] {
        self.book().order_words()
    }

    fn order_help(&self) -> String {
        self.book().order_help()
    }

    fn die_faces(&self) -> Vec<String> {
        (1..=6).map(|n| n.to_string()).collect()
    }

    fn setup(&self, scenario: &Scenario, _deck: &mut dyn Dice) -> Result<State<B>, DataError> {
        let (text, file) = scenario.text_in(&self.name, B::shipped())?;
        let mut st = state::load(self, text, file)?;
        if scenario.text.is_some() {
            st.scenario = scenario.id.clone();
        }
        Ok(st)
    }

    fn sides(&self, s: &State<B>) -> Vec<String> {
        s.sides.clone()
    }

    fn phase(&self, s: &State<B>) -> Phase {
        self.book().phase(s)
    }

    fn check(&self, s: &State<B>, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        self.book().check(self, s, side, orders)
    }

    fn adjudicate(
        &self,
        s: &State<B>,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(State<B>, Vec<B::Event>), Rejection> {
        let out = self.book().run(self, s, orders, Some(chance))?;
        Ok((out.st, out.ev))
    }

    fn result(&self, s: &State<B>) -> Option<String> {
        s.over.then(|| s.winner.clone().unwrap_or_default())
    }

    /// A side that sends nothing holds every unit where it stands (standing
    /// orders still apply).
    fn random_orders(&self, s: &State<B>, side: &str, dice: &mut dyn Dice) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        Some(random::random_orders(self, s, i, dice))
    }

    /// Every unit that may fire from where it stands fires at one of the
    /// enemies it may (at random); on odd variants, some of the others
    /// advance (docs/general.md).
    fn general_orders(
        &self,
        s: &State<B>,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        random::general_orders(self, s, i, dice, variant)
    }

    fn pass_orders(&self, _s: &State<B>, _side: &str) -> Option<String> {
        Some("PASS\n".into())
    }

    fn report(
        &self,
        s: &State<B>,
        events: &[B::Event],
        viewer: &Viewer,
        _mover: Option<&str>,
    ) -> Parts {
        report::parts(self, s, events, viewer)
    }

    fn report_without_board(
        &self,
        s: &State<B>,
        events: &[B::Event],
        viewer: &Viewer,
        _mover: Option<&str>,
    ) -> Parts {
        report::parts_without_board(self, s, events, viewer)
    }

    fn describe_events(&self, _s: &State<B>, events: &[B::Event], _viewer: &Viewer) -> Vec<String> {
        events.iter().filter_map(B::describe).collect()
    }

    /// A referee's correction (docs/referee.md, "Measured tables").
    fn amend(&self, s: &State<B>, text: &str) -> Result<(State<B>, Vec<B::Event>), Rejection> {
        amend::amend(self, s, text)
    }

    /// PREDICT: the book's own ([`Procedures::predict`]).
    fn predict(&self, s: &State<B>, side: &str, orders: &str) -> Result<String, Rejection> {
        self.book().predict(self, s, side, orders)
    }

    /// Rank and file each side has removed from the enemy.
    fn score(&self, s: &State<B>) -> Vec<(String, u32)> {
        s.sides
            .iter()
            .cloned()
            .zip(s.removed.iter().copied())
            .collect()
    }

    fn costly(&self) -> bool {
        B::COSTLY
    }

    /// Rank and file on the table per side.
    fn strength(&self, s: &State<B>) -> Vec<(String, u32)> {
        adjutant_rules::side_sums(&s.sides, s.units.iter().map(|u| (u.side, u.rf)))
    }
}
