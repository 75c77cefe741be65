//! Measured tables: miniatures rules measured in inches on an open table.
//!
//! The measured core (this crate's root, [`geometry`], [`state`],
//! [`ruleset`], [`report`], [`events`], the amend procedure in [`amend`],
//! the case runner) is shared by two books, each with its own procedures
//! behind [`Procedures`]: Charge! (its rulebook, [`charge`], its
//! `orders`; readings in docs/rules/charge.md) and the Seven Years' War
//! (its rulebook, [`syw`]; docs/rules/seven-years-war.md). Which book a
//! ruleset follows is decided once, when its file is read
//! (`procedures = "seven-years-war"`, [`Ruleset::from_toml`]); nothing
//! after that asks.

pub mod amend;
pub mod case;
pub mod charge;
pub mod events;
pub mod geometry;
pub mod labels;
pub mod order_line;
pub mod predict;
pub mod random;
pub mod report;
pub mod ruleset;
pub mod state;
pub mod syw;

use adjutant_dice::Dice;
use adjutant_rules::report::Parts;
use adjutant_rules::{
    Chance, DataError, Family, FamilyEntry, Orders, Phase, Rejection, Rules, Scenario, Viewer,
};
pub use ruleset::Ruleset;
pub use state::{State, Unit};

/// How the measured family joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "measured",
    rulesets: &["charge", "seven-years-war"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: shipped_scenarios,
    run_case: case::run_case_text,
    options: &[],
};

fn owns_ruleset(id: &str) -> bool {
    ["charge", "seven-years-war"].iter().any(|base| {
        id == *base
            || id
                .strip_prefix(base)
                .is_some_and(|rest| rest.starts_with('-'))
    })
}

fn load_ruleset(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(Rules::new(match text {
        Some((text, file)) => Ruleset::from_toml(text, file)?,
        None => Ruleset::builtin(id)?,
    }))
}

fn shipped_scenarios() -> Vec<(String, String)> {
    state::SHIPPED
        .iter()
        .map(|(id, rs, _)| ((*id).to_string(), (*rs).to_string()))
        .collect()
}

/// What one adjudication (a move of Charge!, a player-turn of the Seven
/// Years' War, a referee's correction) did.
pub struct Outcome {
    pub st: State,
    pub ev: Vec<events::Event>,
}

/// What each measured book does its own way: its order language, who
/// must send orders, the check and the adjudication, the order template
/// and random orders. The ruleset carries its book's procedures
/// ([`Ruleset::book`]), chosen when the ruleset file is read; the core
/// calls them and never asks which book it is.
pub trait Procedures: Send + Sync {
    /// The book's name, for messages.
    fn name(&self) -> &'static str;
    /// The words an order line may start with.
    fn order_words(&self) -> &'static [&'static str];
    /// The orders in brief, for HELP.
    fn order_help(&self) -> String;
    /// The sides that must send orders now.
    fn needs(&self, st: &State) -> Vec<usize>;
    /// Whether a unit can be given orders now, or why not.
    fn orderable(&self, u: &Unit) -> Result<(), String>;
    /// The phase the position is in (who must send orders, in words).
    fn phase(&self, st: &State) -> Phase;
    /// Check one side's orders: their canonical lines, or the refusal.
    fn check(
        &self,
        r: &Ruleset,
        st: &State,
        side: &str,
        orders: &str,
    ) -> Result<Vec<String>, Rejection>;
    /// Check a side's orders by its index (random orders try lines with it).
    fn check_side(&self, r: &Ruleset, st: &State, side: usize, text: &str)
        -> Result<(), Rejection>;
    /// Carry out the orders (`chance` None: check only).
    fn run(
        &self,
        r: &Ruleset,
        st: &State,
        orders: &[Orders],
        chance: Option<&mut Chance<'_>>,
    ) -> Result<Outcome, Rejection>;
    /// The order template for a side, if it must send orders.
    fn template(&self, r: &Ruleset, st: &State, side: usize, name: &str) -> Option<String>;
    /// A fresh position's part of the book's own (set-up and cases).
    fn start(&self, _st: &mut State) {}
    /// A placed unit's attributes of the book's own, checked; `Ok(None)`
    /// when the book holds it off the table.
    fn place_unit(
        &self,
        r: &Ruleset,
        t: &ruleset::Troop,
        p: &state::Placement,
        u: Unit,
        st: &mut State,
    ) -> Result<Option<Unit>, String>;
    /// What the book decides of a unit as soon as it stands on the table.
    fn placed(&self, _r: &Ruleset, _st: &State, _t: &ruleset::Troop, _u: &mut Unit) {}
    /// A case's part of the position of the book's own (the active side,
    /// the effects in force). Err: the case key to point at, and why.
    fn case_position(
        &self,
        r: &Ruleset,
        st: &mut State,
        case: &case::CaseSequence<'_>,
    ) -> Result<(), (&'static str, String)>;
    /// The ids of the effects in force, for a case's expectations.
    fn effects_in_force(&self, _st: &State) -> Vec<String> {
        Vec::new()
    }
    /// The units the book holds off the table, in order, each as it will
    /// stand when it comes on (the Seven Years' War's off-table movement;
    /// none in Charge!): unit ids and a referee's `ENTER` look at them.
    fn off_table<'s>(&self, _st: &'s State) -> Vec<&'s Unit> {
        Vec::new()
    }
    /// Take the `k`th unit held off the table out of the book's keeping (a
    /// referee's `ENTER`: the core places it).
    fn bring_on(&self, _st: &mut State, _k: usize) {}
    /// A referee's correction of a unit on the table (`rest` the words
    /// after `UNIT <id>`) of the book's own, or None: not one of its lines.
    fn amend_unit(&self, _st: &mut State, _k: usize, _rest: &[&str]) -> Option<Result<(), String>> {
        None
    }
    /// Random orders' lines of the book's own (standing orders, fog
    /// choices) before the units' lines.
    fn random_lines(
        &self,
        _r: &Ruleset,
        _st: &State,
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
        _r: &Ruleset,
        _st: &State,
        _side: &str,
        _orders: &str,
    ) -> Result<String, Rejection> {
        Ok(format!("{}\n", adjutant_rules::PREDICT_UNAVAILABLE))
    }
}

/// The measured core's one `Family`: what both books share (set-up,
/// sides, result, pass orders, report, events, score, the referee's
/// correction) here, the rest through the ruleset's [`Procedures`].
impl Family for Ruleset {
    type State = State;
    type Event = events::Event;

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

    fn setup(&self, scenario: &Scenario, _deck: &mut dyn Dice) -> Result<State, DataError> {
        if let Some(k) = scenario.options.keys().next() {
            return Err(DataError::Invalid {
                file: scenario.file.clone(),
                message: format!(
                    "unknown game option '{k}' for {} (known: none yet)",
                    self.name
                ),
            });
        }
        let (text, file) = match &scenario.text {
            Some(t) => (t.as_str(), scenario.file.as_str()),
            None => {
                let (_, _, t) = state::SHIPPED
                    .iter()
                    .find(|(id, _, _)| *id == scenario.id)
                    .ok_or_else(|| {
                        DataError::UnknownScenario(
                            scenario.id.clone(),
                            shipped_scenarios()
                                .into_iter()
                                .map(|s| s.0)
                                .collect::<Vec<_>>()
                                .join(", "),
                        )
                    })?;
                (*t, scenario.file.as_str())
            }
        };
        let mut st = state::load(self, text, file)?;
        if scenario.text.is_some() {
            st.scenario = scenario.id.clone();
        }
        Ok(st)
    }

    fn sides(&self, s: &State) -> Vec<String> {
        s.sides.clone()
    }

    fn phase(&self, s: &State) -> Phase {
        self.book().phase(s)
    }

    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        self.book().check(self, s, side, orders)
    }

    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(State, Vec<events::Event>), Rejection> {
        let out = self.book().run(self, s, orders, Some(chance))?;
        Ok((out.st, out.ev))
    }

    fn result(&self, s: &State) -> Option<String> {
        s.over.then(|| s.winner.clone().unwrap_or_default())
    }

    /// A side that sends nothing holds every unit where it stands (standing
    /// orders still apply).
    fn random_orders(&self, s: &State, side: &str, dice: &mut dyn Dice) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        Some(random::random_orders(self, s, i, dice))
    }

    /// Every unit that may fire from where it stands fires at one of the
    /// enemies it may (at random); on odd variants, some of the others
    /// advance (docs/general.md).
    fn general_orders(
        &self,
        s: &State,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String> {
        let i = s.sides.iter().position(|x| x == side)?;
        random::general_orders(self, s, i, dice, variant)
    }

    fn pass_orders(&self, _s: &State, _side: &str) -> Option<String> {
        Some("PASS\n".into())
    }

    fn report(
        &self,
        s: &State,
        events: &[events::Event],
        viewer: &Viewer,
        _mover: Option<&str>,
    ) -> Parts {
        report::parts(self, s, events, viewer)
    }

    fn describe_events(
        &self,
        _s: &State,
        events: &[events::Event],
        _viewer: &Viewer,
    ) -> Vec<String> {
        events.iter().filter_map(report::describe).collect()
    }

    /// A referee's correction (docs/referee.md, "Measured tables").
    fn amend(&self, s: &State, text: &str) -> Result<(State, Vec<events::Event>), Rejection> {
        amend::amend(self, s, text)
    }

    /// PREDICT: the book's own ([`Procedures::predict`]).
    fn predict(&self, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
        self.book().predict(self, s, side, orders)
    }

    /// Rank and file each side has removed from the enemy.
    fn score(&self, s: &State) -> Vec<(String, u32)> {
        s.sides
            .iter()
            .cloned()
            .zip(s.removed.iter().copied())
            .collect()
    }

    /// Rank and file on the table per side.
    fn strength(&self, s: &State) -> Vec<(String, u32)> {
        adjutant_rules::side_sums(&s.sides, s.units.iter().map(|u| (u.side, u.rf)))
    }
}
