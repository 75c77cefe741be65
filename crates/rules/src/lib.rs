//! Rules families behind one interface.
//!
//! A family implements [`Family`] with its own typed state and events; the
//! service, the protocol and the generic report code see it only through
//! [`Rules`] (which dereferences to [`ErasedFamily`], the one object-safe
//! wrapper, written once for every family), an opaque [`State`] and the
//! [`Event`] envelope. JSON appears only at the store boundary. Every family is pure:
//! it gets dice through [`Chance`] and never touches I/O or the clock. A
//! family joins the judge with one [`FamilyEntry`] in the judge's list
//! (`adjutant::rules::families`). This crate is pure: no store, no mail, no
//! clock, no file I/O.

pub mod event;
pub mod odds;
pub mod report;

pub use event::{Event, FamilyEvent, PRE_BATTLE_ROLL, REFEREE_NOTE};

use crate::report::Parts;
use adjutant_dice::Dice;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a game's randomness comes from for one adjudication.
pub struct Chance<'a> {
    /// The open dice of this turn (revealed after the turn).
    pub dice: &'a mut dyn Dice,
    /// Hidden shuffles (the deck); revealed only when the game ends.
    pub deck: &'a mut dyn Dice,
}

/// Who a view or a report is for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "side")]
pub enum Viewer {
    /// One side (seat) of the game, by its side id.
    Side(String),
    /// The referee or host: sees everything.
    Referee,
    /// Someone watching: sees only what is public.
    Observer,
    /// Everyone, when the referee reveals the board (`REVEAL`): the board as
    /// the referee sees it (`None`) or as one side saw it (`Some(side)`),
    /// but nothing private to a side (no hand, no private event):
    /// docs/referee.md.
    Revealed(Option<String>),
}

/// An order set that cannot be used, with the line it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}", self.render())]
pub struct Rejection {
    /// 1-based line in the orders text, when one line is at fault.
    pub line: Option<usize>,
    /// The offending line's text, as the player wrote it.
    pub text: Option<String>,
    /// Why, in words a player understands.
    pub message: String,
}

impl Rejection {
    #[must_use]
    pub fn whole(message: impl Into<String>) -> Self {
        Rejection {
            line: None,
            text: None,
            message: message.into(),
        }
    }
    #[must_use]
    pub fn at(line: usize, text: &str, message: impl Into<String>) -> Self {
        Rejection {
            line: Some(line),
            text: Some(text.trim().to_string()),
            message: message.into(),
        }
    }
    fn render(&self) -> String {
        match (&self.line, &self.text) {
            (Some(l), Some(t)) => format!("line {l}: \"{t}\": {}", self.message),
            (Some(l), None) => format!("line {l}: {}", self.message),
            _ => self.message.clone(),
        }
    }
}

/// Errors in a ruleset or scenario data file.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("unknown ruleset '{0}'")]
    UnknownRuleset(String),
    #[error("unknown scenario '{0}' (known: {1})")]
    UnknownScenario(String, String),
    /// A syntax or content error at a position of a data file.
    #[error("{file}:{line}:{column}: {message}")]
    At {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

/// One side's orders for a phase, as the player wrote them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orders {
    pub side: String,
    pub text: String,
}

/// What a game waits for: the phase it is in.
///
/// A phase needs orders from `sides`. With one side, its orders are
/// adjudicated as they arrive. With several, each side's accepted orders are
/// held (and may be replaced) until the last needed side has sent, then all
/// are adjudicated together. A phase of a running game that needs nobody is
/// the judge's own (an initiative roll, say): the service adjudicates it at
/// once with no orders. A game that is over needs nobody either;
/// [`Rules::result`] tells the two apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    /// The phase's name in the family's own words ("turn", "artillery", "move").
    pub name: String,
    /// Sides that must submit before the phase can be adjudicated.
    pub sides: Vec<String>,
    /// A short description ("Allies to play a card and order units").
    pub what: String,
}

/// Team play: what one order line of a side's orders concerns, so that the
/// service can tell which team member may give it without knowing the
/// family's types (docs/teams.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopedLine {
    /// The line's number in the text given (1-based).
    pub line: usize,
    /// The line as written (trimmed, comment cut).
    pub text: String,
    /// The line chooses the side's action for the phase (Memoir '44: PLAY,
    /// DISCARD, EXCHANGE): the Commander-in-Chief's.
    pub card: bool,
    /// For a card line: the sections it concerns (empty: no particular
    /// section, or all: the Commander-in-Chief's alone).
    pub sections: Vec<String>,
    /// The units the line orders: (what the player wrote for it, the
    /// sections it stands in at the start of the phase). Empty on a line
    /// that orders no one unit (a side-wide line: the Commander-in-Chief's).
    pub units: Vec<(String, Vec<String>)>,
    /// Where the line goes when several members' parts are merged into the
    /// side's orders: lines are put in stage order, each part's lines
    /// keeping their own order within a stage.
    pub stage: u8,
}

/// A rules family, fully typed. Service, protocol, store, mail and the
/// generic report code never see these types: they hold a family through
/// [`Rules`], its state through [`State`] and its events through [`Event`];
/// JSON exists only at the store boundary ([`Rules::restore`],
/// [`Rules::to_json`], [`ErasedFamily::event_from_store`], [`Event::to_store`]).
pub trait Family: Send + Sync + 'static {
    /// The family's state of one game.
    type State: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    /// The family's events: what happened in a phase, one value each. Its
    /// JSON form is an object with a string `kind`, and the fields of the
    /// envelope ([`event`]'s table) where they apply. The interface carries
    /// them typed, behind [`Event`] (a [`FamilyEvent`]), and hands them
    /// back to the family by downcasting, never by parsing.
    type Event: Serialize + DeserializeOwned + Clone + std::fmt::Debug + Send + Sync + 'static;

    /// The ruleset id (`memoir44`, or a club's variant id).
    fn id(&self) -> &str;
    /// The words an order line may start with.
    fn order_words(&self) -> &'static [&'static str];
    /// Lines for the HELP answer: the family's orders in brief.
    fn order_help(&self) -> String;
    /// The names of a die's faces, in the order `roll(n)` numbers them.
    fn die_faces(&self) -> Vec<String>;

    /// Set up a new game of a scenario. `deck` shuffles hidden things.
    fn setup(&self, scenario: &Scenario, deck: &mut dyn Dice) -> Result<Self::State, DataError>;
    /// The sides of a game, in the scenario's order.
    fn sides(&self, s: &Self::State) -> Vec<String>;
    /// The phase the game is in.
    fn phase(&self, s: &Self::State) -> Phase;
    /// Check one side's orders for the current phase without rolling a die
    /// or changing anything: the orders in canonical spelling, one a line,
    /// or why they cannot be used. Orders that pass are held in a phase that
    /// waits for several sides; the state cannot change before they are
    /// adjudicated, so they stay good.
    fn check(&self, s: &Self::State, side: &str, orders: &str) -> Result<Vec<String>, Rejection>;
    /// Adjudicate the current phase with every needed side's orders (none
    /// for a phase of the judge's own). A rejection leaves the state as it
    /// was.
    fn adjudicate(
        &self,
        s: &Self::State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(Self::State, Vec<Self::Event>), Rejection>;
    /// The winner's side id once the game is over, or `Some("")` for a draw.
    fn result(&self, s: &Self::State) -> Option<String>;
    /// Tell a state how many phases the judge has played to reach it (the
    /// turn number of every mail), for display only: a family whose board
    /// counts turns its own way (phases of the judge's own before the first
    /// turn) shows the judge's number, so that a mail and its board agree.
    /// Never part of the state's JSON. The default ignores it.
    fn numbered(&self, s: Self::State, phases: u32) -> Self::State {
        let _ = phases;
        s
    }
    /// The orders a side that missed its deadline is taken to have given.
    fn pass_orders(&self, s: &Self::State, side: &str) -> Option<String>;
    /// Random legal-looking orders of `side` for the current phase, drawn
    /// from `dice`: the generator of the random-game property tests and the
    /// conformance test (tests/it/conformance.rs). `None`: the family has none.
    fn random_orders(&self, _s: &Self::State, _side: &str, _dice: &mut dyn Dice) -> Option<String> {
        None
    }
    /// Orders of `side` worth the judge's general's look (docs/general.md),
    /// drawn from `dice`, beside [`Family::random_orders`]' (which orders
    /// every unit at random and seldom finds a target in reach): the
    /// family's own idea of a sensible move, `variant` a hint to vary it.
    /// `None` (the default): the general draws random orders only.
    fn general_orders(
        &self,
        _s: &Self::State,
        _side: &str,
        _dice: &mut dyn Dice,
        _variant: u32,
    ) -> Option<String> {
        None
    }
    /// Every part of a report for `viewer`, drawn from the view the family
    /// computes for them (never from the state): `events` are the last
    /// phase's, `mover` whose phase it was.
    fn report(
        &self,
        s: &Self::State,
        events: &[Self::Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts;
    /// [`Family::report`] without the board picture: `svg`, `board_html`
    /// and `compact` may be left empty (a mail with no HTML part shows none
    /// of them), every other part the same. A family that draws its board
    /// cheaply need not override it.
    fn report_without_board(
        &self,
        s: &Self::State,
        events: &[Self::Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts {
        self.report(s, events, viewer, mover)
    }
    /// The events `viewer` may read, one line of text each; `s` is the
    /// state they led to (a family with fog of war tells them only as far
    /// as the viewer could know them there).
    fn describe_events(
        &self,
        s: &Self::State,
        events: &[Self::Event],
        viewer: &Viewer,
    ) -> Vec<String>;
    /// The position as text for `viewer` (a map and its legend).
    fn render_text(&self, s: &Self::State, viewer: &Viewer) -> String {
        self.report(s, &[], viewer, None).map
    }
    /// Victory points per side so far (a campaign's next battle rolls dice
    /// for them); none for a family without points.
    fn score(&self, _s: &Self::State) -> Vec<(String, u32)> {
        Vec::new()
    }
    /// Whether the game hides units from the sides (fog of war): such a game
    /// needs a referee, who alone sees everything.
    fn fog_of_war(&self, _s: &Self::State) -> bool {
        false
    }
    /// A referee's correction (`AMEND`), in the family's own words: the
    /// corrected state and an audit event. It is a turn of its own, replayed
    /// by `verify` like any other. A family without corrections refuses.
    fn amend(
        &self,
        _s: &Self::State,
        _text: &str,
    ) -> Result<(Self::State, Vec<Self::Event>), Rejection> {
        Err(Rejection::whole("this ruleset has no referee corrections"))
    }
    /// Team play (docs/teams.md), an optional part: `None` (the default),
    /// the family has no command sections and a side is one player.
    fn teams(&self) -> Option<&dyn TeamPlay<Self::State>> {
        None
    }
    /// PREDICT (docs/orders.md), an optional part: the odds of `side`'s
    /// orders for the current phase, as the answer's text, in the family's
    /// own words, computed from what `side` may know only. The orders are
    /// checked as [`Family::check`] checks them (the same rejection); no
    /// die of the game is drawn and nothing changes. The default answers
    /// [`PREDICT_UNAVAILABLE`], so the service needs no per-family code.
    fn predict(&self, _s: &Self::State, _side: &str, _orders: &str) -> Result<String, Rejection> {
        Ok(format!("{PREDICT_UNAVAILABLE}\n"))
    }
    /// The position as `side` may know it: what the judge's own general
    /// (docs/general.md) decides from, so that it never uses what its side
    /// cannot see. A family with hidden things (an enemy hand, fog of war)
    /// blanks them; the default, for a family with nothing hidden, is the
    /// state itself.
    fn knowledge(&self, s: &Self::State, _side: &str) -> Self::State {
        s.clone()
    }
    /// The judge's general's guess at what `side` cannot see, for its own
    /// look-ahead only (docs/general.md, "The enemy's reply"): on `known`,
    /// the position [`Family::knowledge`] gave `side`, the enemy's blanked
    /// hand dealt from the cards `side` has not seen, drawn with `dice` (the
    /// general's own stream, never the game's), so that the enemy has
    /// orders to reply with. Never from the true state: a function of
    /// `known` and `dice` only. `None` (the default): nothing to deal, the
    /// look-ahead plays on `known` as it is and the enemy's phases pass.
    fn deal_unseen(
        &self,
        _known: &Self::State,
        _side: &str,
        _dice: &mut dyn Dice,
    ) -> Option<Self::State> {
        None
    }
    /// The fighting strength each side has left on the board (figures,
    /// strength points, rank and file), for the judge's general to weigh
    /// losses on either side; none (the default) if the family counts none.
    fn strength(&self, _s: &Self::State) -> Vec<(String, u32)> {
        Vec::new()
    }
    /// Whether one adjudication costs some ten times a Memoir '44 turn's
    /// or more, so that the judge's general searches it with fewer
    /// candidates (docs/general.md); false (the default) if not.
    fn costly(&self) -> bool {
        false
    }
    /// The judge's general's worth of a position not yet decided, for
    /// `side` (docs/general.md, "How it decides"): where the family knows
    /// how its games are won (a scenario's objectives, a last turn that
    /// ends it on a count) better than victory points and strength tell.
    /// In the general's units: 10 a victory point, 1 a figure; a game as
    /// good as won 1,000,000. `None` (the default): the general's own
    /// count of points and strength.
    fn general_value(&self, _s: &Self::State, _side: &str) -> Option<f64> {
        None
    }
}

/// Per side, the sum of `(side index, amount)` pairs: a family's
/// [`Family::strength`] from its units.
pub fn side_sums(
    sides: &[String],
    items: impl Iterator<Item = (usize, u32)>,
) -> Vec<(String, u32)> {
    let mut sums = vec![0u32; sides.len()];
    for (side, n) in items {
        if let Some(sum) = sums.get_mut(side) {
            *sum = sum.saturating_add(n);
        }
    }
    sides.iter().cloned().zip(sums).collect()
}

/// The PREDICT answer of a family that does not compute odds.
pub const PREDICT_UNAVAILABLE: &str = "PREDICT is not available for this ruleset yet.";

/// Team play, the optional part of a family with command sections
/// ([`Family::teams`]): what the service needs to seat a team on one side
/// and merge its members' orders, in generic terms.
pub trait TeamPlay<S>: Send + Sync {
    /// The board's command sections from a side's own seat, left to right
    /// (Memoir '44: left, centre, right).
    fn sections(&self, s: &S) -> Vec<String>;
    /// What each line of a side's orders concerns (its card's sections, its
    /// units' sections), without checking the orders. A text the family
    /// cannot read is refused with the line and why.
    fn order_scope(&self, s: &S, side: &str, orders: &str) -> Result<Vec<ScopedLine>, Rejection>;
    /// The order template of one team member, who commands `sections` (and
    /// plays the card if `leader`); None: the side's.
    fn member_template(
        &self,
        s: &S,
        side: &str,
        sections: &[String],
        leader: bool,
    ) -> Option<String>;
}

/// A game's state, typed by its family and opaque to everyone else.
pub struct State(Box<dyn Any + Send + Sync>);

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("State(..)")
    }
}

impl State {
    /// Wrap a family's own state (for the family and its tools; a state of
    /// the wrong type is refused by every call, never misread).
    #[must_use]
    pub fn of<T: Any + Send + Sync>(t: T) -> State {
        State(Box::new(t))
    }
    /// The family's own type (for a family's tests and tools).
    #[must_use]
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

/// The result of one adjudication.
#[derive(Debug)]
pub struct Adjudication {
    pub state: State,
    /// What happened, in order.
    pub events: Vec<Event>,
}

/// The one wrapping layer: a [`Family`]'s calls over an opaque [`State`]
/// and [`Event`]s, written once for every family by the blanket impl below.
/// The service calls these through [`Rules`] (which dereferences to it).
pub trait ErasedFamily: Send + Sync {
    /// The ruleset id (`memoir44`, or a club's variant id).
    fn id(&self) -> &str;
    /// The words this ruleset's order lines start with.
    fn order_words(&self) -> &'static [&'static str];
    /// This ruleset's orders in brief, for HELP.
    fn order_help(&self) -> String;
    /// The names of a die's faces, in the order `roll(n)` numbers them.
    fn die_faces(&self) -> Vec<String>;
    /// Set up a new game of a scenario. `deck` shuffles hidden things.
    fn setup(&self, scenario: &Scenario, deck: &mut dyn Dice) -> Result<State, DataError>;
    /// A stored state (the store's JSON) as this family's state.
    fn restore(&self, json: &str) -> Result<State, serde_json::Error>;
    /// A state as the JSON the store keeps.
    fn to_json(&self, s: &State) -> String;
    /// A stored event (the store's JSON) read once, through this family:
    /// the judge's own note, the family's typed event, or, if the family
    /// cannot read it (a kind from a newer build, a damaged row), an event
    /// that says so ([`Event::unreadable`]), kept and told as such, never
    /// dropped.
    fn event_from_store(&self, json: serde_json::Value) -> Event;
    /// The sides of a game, in the scenario's order.
    fn sides(&self, s: &State) -> Vec<String>;
    /// The phase the game is in: who must submit next.
    fn phase(&self, s: &State) -> Phase;
    /// Check `side`'s orders for the current phase without dice: the orders
    /// in canonical spelling, or why they cannot be used.
    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection>;
    /// Adjudicate the current phase with the needed sides' orders.
    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<Adjudication, Rejection>;
    /// The winner's side id once the game is over, or `Some("")` for a draw.
    fn result(&self, s: &State) -> Option<String>;
    /// [`Family::numbered`]: the state, told that the judge has played
    /// `phases` phases to reach it.
    fn numbered(&self, s: State, phases: u32) -> State;
    /// The orders a side that missed its deadline is taken to have given.
    fn pass_orders(&self, s: &State, side: &str) -> Option<String>;
    /// [`Family::random_orders`]: random orders of `side` for the current
    /// phase (tests only; the judge never makes up a player's orders).
    fn random_orders(&self, s: &State, side: &str, dice: &mut dyn Dice) -> Option<String>;
    /// [`Family::general_orders`]: the family's sensible orders for the
    /// judge's general.
    fn general_orders(
        &self,
        s: &State,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String>;
    /// Every part of a report (maps, combat report, order template, SVG,
    /// JSON) for `viewer`; `events` are the last phase's, `mover` who made
    /// it.
    fn report_parts(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts;
    /// [`ErasedFamily::report_parts`] without the board picture
    /// ([`Family::report_without_board`]).
    fn report_parts_without_board(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts;
    /// The events `viewer` may read, one line of text each: the judge's own
    /// (a referee's note) described here for every family, the family's by
    /// the family, one it cannot read by its kind alone.
    fn describe_events(&self, s: &State, events: &[Event], viewer: &Viewer) -> Vec<String>;
    /// The position as text, as `viewer` may see it.
    fn render_text(&self, s: &State, viewer: &Viewer) -> String;
    /// A referee's correction: the corrected state and its audit event.
    fn amend(&self, s: &State, text: &str) -> Result<Adjudication, Rejection>;
    /// Team play: the command sections from a side's seat, left to right
    /// (none: no team play in this family).
    fn sections(&self, s: &State) -> Vec<String>;
    /// Team play: what each line of a side's orders concerns.
    fn order_scope(
        &self,
        s: &State,
        side: &str,
        orders: &str,
    ) -> Result<Vec<ScopedLine>, Rejection>;
    /// Team play: one member's order template (None: the side's).
    fn member_template(
        &self,
        s: &State,
        side: &str,
        sections: &[String],
        leader: bool,
    ) -> Option<String>;
    /// Victory points per side so far.
    fn score(&self, s: &State) -> Vec<(String, u32)>;
    /// Whether the game hides units from the sides (it needs a referee).
    fn fog_of_war(&self, s: &State) -> bool;
    /// [`Family::predict`]: the odds of `side`'s orders as text, or the
    /// rejection a submission of them would get.
    fn predict(&self, s: &State, side: &str, orders: &str) -> Result<String, Rejection>;
    /// [`Family::knowledge`]: the position as `side` may know it.
    fn knowledge(&self, s: &State, side: &str) -> State;
    /// [`Family::deal_unseen`]: the general's guess at the hidden (the
    /// enemy's hand) on `side`'s knowledge, drawn with `dice`.
    fn deal_unseen(&self, known: &State, side: &str, dice: &mut dyn Dice) -> Option<State>;
    /// [`Family::strength`]: the strength each side has left.
    fn strength(&self, s: &State) -> Vec<(String, u32)>;
    /// [`Family::costly`]: whether the general's search is cut.
    fn costly(&self) -> bool;
    /// [`Family::general_value`]: the family's worth of a position for
    /// the judge's general.
    fn general_value(&self, s: &State, side: &str) -> Option<f64>;
}

const FOREIGN: &str = "this state belongs to another rules family";

/// The family's own events among `events`, downcast (the judge's and
/// unreadable ones left out: `describe_events` tells them).
fn own<F: Family>(events: &[Event]) -> Vec<F::Event> {
    events
        .iter()
        .filter_map(Event::downcast::<F::Event>)
        .cloned()
        .collect()
}

/// A family's combat report is made from the events it reads; one it
/// cannot read (a kind from a newer build, a damaged row) is told at its
/// end, as `describe_events` tells it, so that it is never left out
/// without a word (a report with a combat part shows no event lines).
fn unreadable_in_combat<F: Family>(parts: &mut Parts, events: &[Event], viewer: &Viewer) {
    if parts.combat.is_empty() {
        return;
    }
    for e in events {
        if e.downcast::<F::Event>().is_some() || e.referee_note().is_some() {
            continue;
        }
        if let Some(line) = e.describe_unknown(viewer) {
            if !parts.combat.ends_with('\n') {
                parts.combat.push('\n');
            }
            parts.combat.push_str(&line);
            parts.combat.push('\n');
        }
    }
}

impl<F: Family> ErasedFamily for F {
    fn id(&self) -> &str {
        Family::id(self)
    }
    fn order_words(&self) -> &'static [&'static str] {
        Family::order_words(self)
    }
    fn order_help(&self) -> String {
        Family::order_help(self)
    }
    fn die_faces(&self) -> Vec<String> {
        Family::die_faces(self)
    }
    fn setup(&self, scenario: &Scenario, deck: &mut dyn Dice) -> Result<State, DataError> {
        Family::setup(self, scenario, deck).map(State::of)
    }
    fn restore(&self, json: &str) -> Result<State, serde_json::Error> {
        serde_json::from_str::<F::State>(json).map(State::of)
    }
    fn event_from_store(&self, json: serde_json::Value) -> Event {
        Event::from_store_as::<F::Event>(json)
    }
    /// Canonical JSON: through `serde_json::Value`, whose maps are sorted,
    /// so a state's hash does not depend on the order of a struct's fields
    /// (and stays what it was for games stored before this interface).
    fn to_json(&self, s: &State) -> String {
        s.get::<F::State>()
            .and_then(|t| serde_json::to_value(t).ok())
            // Written as `Value`'s `Display` writes it (the same compact
            // bytes), straight into one buffer instead of through a
            // `fmt::Formatter` a token.
            .and_then(|v| serde_json::to_string(&v).ok())
            .unwrap_or_default()
    }
    fn sides(&self, s: &State) -> Vec<String> {
        s.get::<F::State>()
            .map(|t| Family::sides(self, t))
            .unwrap_or_default()
    }
    fn phase(&self, s: &State) -> Phase {
        match s.get::<F::State>() {
            Some(t) => Family::phase(self, t),
            None => Phase {
                name: String::new(),
                sides: Vec::new(),
                what: FOREIGN.into(),
            },
        }
    }
    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        let t = s
            .get::<F::State>()
            .ok_or_else(|| Rejection::whole(FOREIGN))?;
        Family::check(self, t, side, orders)
    }
    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<Adjudication, Rejection> {
        let t = s
            .get::<F::State>()
            .ok_or_else(|| Rejection::whole(FOREIGN))?;
        let (next, events) = Family::adjudicate(self, t, orders, chance)?;
        Ok(Adjudication {
            state: State::of(next),
            events: events.into_iter().map(Event::of).collect(),
        })
    }
    fn result(&self, s: &State) -> Option<String> {
        s.get::<F::State>().and_then(|t| Family::result(self, t))
    }
    fn numbered(&self, s: State, phases: u32) -> State {
        match s.0.downcast::<F::State>() {
            Ok(t) => State::of(Family::numbered(self, *t, phases)),
            Err(other) => State(other),
        }
    }
    fn pass_orders(&self, s: &State, side: &str) -> Option<String> {
        s.get::<F::State>()
            .and_then(|t| Family::pass_orders(self, t, side))
    }
    fn random_orders(&self, s: &State, side: &str, dice: &mut dyn Dice) -> Option<String> {
        s.get::<F::State>()
            .and_then(|t| Family::random_orders(self, t, side, dice))
    }
    fn general_orders(
        &self,
        s: &State,
        side: &str,
        dice: &mut dyn Dice,
        variant: u32,
    ) -> Option<String> {
        s.get::<F::State>()
            .and_then(|t| Family::general_orders(self, t, side, dice, variant))
    }
    fn report_parts(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts {
        match s.get::<F::State>() {
            Some(t) => {
                let mut parts = Family::report(self, t, &own::<F>(events), viewer, mover);
                unreadable_in_combat::<F>(&mut parts, events, viewer);
                parts
            }
            None => Parts {
                map: format!("({FOREIGN})\n"),
                ..Parts::default()
            },
        }
    }
    fn report_parts_without_board(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts {
        match s.get::<F::State>() {
            Some(t) => {
                let mut parts =
                    Family::report_without_board(self, t, &own::<F>(events), viewer, mover);
                unreadable_in_combat::<F>(&mut parts, events, viewer);
                parts
            }
            None => self.report_parts(s, events, viewer, mover),
        }
    }
    fn describe_events(&self, s: &State, events: &[Event], viewer: &Viewer) -> Vec<String> {
        let Some(t) = s.get::<F::State>() else {
            return Vec::new();
        };
        // The family describes each run of its own events; the judge's own
        // (a referee's note) and one the family cannot read are told here,
        // in their places.
        let mut out = Vec::new();
        let mut run: Vec<F::Event> = Vec::new();
        for e in events {
            let line = match e.describe_judges() {
                Some(line) => Some(line),
                None => match e.downcast::<F::Event>() {
                    Some(mine) => {
                        run.push(mine.clone());
                        continue;
                    }
                    None => e.describe_unknown(viewer),
                },
            };
            out.extend(Family::describe_events(self, t, &run, viewer));
            run.clear();
            out.extend(line);
        }
        out.extend(Family::describe_events(self, t, &run, viewer));
        out
    }
    fn render_text(&self, s: &State, viewer: &Viewer) -> String {
        s.get::<F::State>()
            .map(|t| Family::render_text(self, t, viewer))
            .unwrap_or_else(|| format!("({FOREIGN})\n"))
    }
    fn score(&self, s: &State) -> Vec<(String, u32)> {
        s.get::<F::State>()
            .map(|t| Family::score(self, t))
            .unwrap_or_default()
    }
    fn fog_of_war(&self, s: &State) -> bool {
        s.get::<F::State>()
            .is_some_and(|t| Family::fog_of_war(self, t))
    }
    fn predict(&self, s: &State, side: &str, orders: &str) -> Result<String, Rejection> {
        let t = s
            .get::<F::State>()
            .ok_or_else(|| Rejection::whole(FOREIGN))?;
        Family::predict(self, t, side, orders)
    }
    fn knowledge(&self, s: &State, side: &str) -> State {
        match s.get::<F::State>() {
            Some(t) => State::of(Family::knowledge(self, t, side)),
            None => State::of(()),
        }
    }
    fn deal_unseen(&self, known: &State, side: &str, dice: &mut dyn Dice) -> Option<State> {
        known
            .get::<F::State>()
            .and_then(|t| Family::deal_unseen(self, t, side, dice))
            .map(State::of)
    }
    fn strength(&self, s: &State) -> Vec<(String, u32)> {
        s.get::<F::State>()
            .map(|t| Family::strength(self, t))
            .unwrap_or_default()
    }
    fn costly(&self) -> bool {
        Family::costly(self)
    }
    fn general_value(&self, s: &State, side: &str) -> Option<f64> {
        s.get::<F::State>()
            .and_then(|t| Family::general_value(self, t, side))
    }
    fn amend(&self, s: &State, text: &str) -> Result<Adjudication, Rejection> {
        let t = s
            .get::<F::State>()
            .ok_or_else(|| Rejection::whole(FOREIGN))?;
        let (next, events) = Family::amend(self, t, text)?;
        Ok(Adjudication {
            state: State::of(next),
            events: events.into_iter().map(Event::of).collect(),
        })
    }
    fn sections(&self, s: &State) -> Vec<String> {
        match (self.teams(), s.get::<F::State>()) {
            (Some(teams), Some(t)) => teams.sections(t),
            _ => Vec::new(),
        }
    }
    fn order_scope(
        &self,
        s: &State,
        side: &str,
        orders: &str,
    ) -> Result<Vec<ScopedLine>, Rejection> {
        let t = s
            .get::<F::State>()
            .ok_or_else(|| Rejection::whole(FOREIGN))?;
        match self.teams() {
            Some(teams) => teams.order_scope(t, side, orders),
            None => Err(Rejection::whole("this ruleset has no team play")),
        }
    }
    fn member_template(
        &self,
        s: &State,
        side: &str,
        sections: &[String],
        leader: bool,
    ) -> Option<String> {
        let t = s.get::<F::State>()?;
        self.teams()?.member_template(t, side, sections, leader)
    }
}

/// A loaded ruleset of some family: the one door the service, the reports
/// and the CLI use, calling [`ErasedFamily`]'s methods through it. Cheap to
/// clone; each ruleset is parsed once per process.
#[derive(Clone)]
pub struct Rules {
    family: Arc<dyn ErasedFamily>,
    /// False for a mail with no HTML part: [`Rules::report_parts`] then
    /// leaves the board picture out ([`Rules::without_board`]).
    board: bool,
}

impl Rules {
    /// Wrap a family's ruleset (for families' `load` functions).
    pub fn new<F: Family>(family: F) -> Rules {
        Rules {
            family: Arc::new(family),
            board: true,
        }
    }

    /// The same rules, whose [`Rules::report_parts`] leave out the board
    /// picture (`svg`, `board_html`, `compact` may be empty): for the
    /// reports of a judge whose mails carry no picture (`picture = "none"`),
    /// which drew the SVG board of every report for nothing.
    #[must_use]
    pub fn without_board(&self) -> Rules {
        Rules {
            family: Arc::clone(&self.family),
            board: false,
        }
    }

    /// Every part of a report for `viewer` ([`ErasedFamily::report_parts`]),
    /// without the board picture if these rules are [`Rules::without_board`].
    #[must_use]
    pub fn report_parts(
        &self,
        s: &State,
        events: &[Event],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> Parts {
        if self.board {
            self.family.report_parts(s, events, viewer, mover)
        } else {
            self.family
                .report_parts_without_board(s, events, viewer, mover)
        }
    }
}

impl std::ops::Deref for Rules {
    type Target = dyn ErasedFamily;
    fn deref(&self) -> &Self::Target {
        &*self.family
    }
}

/// A family's loader: a shipped ruleset by id, or a variant from its
/// (text, file name).
pub type LoadRuleset = fn(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError>;

/// How a rules family plugs into the judge: which ruleset ids and scenarios
/// it owns, how to load a ruleset, how to run its test vectors.
pub struct FamilyEntry {
    /// The family's name (a folder of `src/rules/`).
    pub name: &'static str,
    /// The shipped ruleset ids of the family.
    pub rulesets: &'static [&'static str],
    /// True if a ruleset id (shipped or a club's variant) belongs here.
    pub owns: fn(&str) -> bool,
    /// Load a ruleset: a shipped one by id, or a variant from its text.
    pub load: LoadRuleset,
    /// Shipped scenarios: (scenario id, ruleset id).
    pub scenarios: fn() -> Vec<(String, String)>,
    /// Run one rules test vector from its text.
    pub run_case: fn(text: &str, file: &str) -> CaseResult,
    /// Sets of game options (`new-game --option KEY=VALUE`) worth playing
    /// with every shipped scenario in the conformance test, beside none.
    pub options: &'static [&'static [(&'static str, &'static str)]],
}

/// The side name under which a referee's corrections are stored as a turn's
/// orders (no scenario may name a side so).
pub const REFEREE_SIDE: &str = "referee";

/// The outcome of one rules test vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// A scenario: a shipped one by id, or a club's own file (its text is kept
/// with the game so the game replays without the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub id: String,
    /// The file's text, for a scenario that is not shipped.
    pub text: Option<String>,
    /// Where it came from, for error messages.
    pub file: String,
    /// The game's rule options (`new-game --option KEY=VALUE`, e.g.
    /// `kriegspiel=true`), kept with the game and given again on replay. A
    /// family refuses an option it does not know.
    pub options: BTreeMap<String, String>,
}

impl Scenario {
    /// The scenario's text and file name for a family with no game
    /// options (`family` its name, for the refusal): its own text, or the
    /// shipped one of its id; an option or an unknown id refused.
    pub fn text_in(&self, family: &str, shipped: Shipped) -> Result<(&str, &str), DataError> {
        if let Some(k) = self.options.keys().next() {
            return Err(DataError::Invalid {
                file: self.file.clone(),
                message: format!("unknown game option '{k}' for {family} (known: none yet)"),
            });
        }
        let text = match &self.text {
            Some(t) => t.as_str(),
            None => {
                let (_, _, t) = shipped
                    .iter()
                    .find(|(id, _, _)| *id == self.id)
                    .ok_or_else(|| {
                        DataError::UnknownScenario(
                            self.id.clone(),
                            shipped.iter().map(|s| s.0).collect::<Vec<_>>().join(", "),
                        )
                    })?;
                t
            }
        };
        Ok((text, self.file.as_str()))
    }

    /// A shipped scenario by id.
    #[must_use]
    pub fn shipped(id: &str) -> Scenario {
        Scenario {
            id: id.to_string(),
            text: None,
            file: format!("{id}.toml"),
            options: BTreeMap::new(),
        }
    }

    /// A scenario given as text (read from `file`): its `id` and `ruleset`
    /// keys are read here, the rest by the family when it sets up.
    pub fn from_text(text: &str, file: &str) -> Result<(Scenario, String), DataError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e.span().map_or((1, 1), |sp| line_col(text, sp.start));
            DataError::At {
                file: file.to_string(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        let ruleset = table
            .get("ruleset")
            .and_then(|v| v.as_str())
            .ok_or_else(|| DataError::Invalid {
                file: file.to_string(),
                message: "the scenario needs a `ruleset = \"...\"` line".into(),
            })?
            .to_string();
        let id = table
            .get("id")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                std::path::Path::new(file)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("scenario")
                    .to_string()
            });
        Ok((
            Scenario {
                id,
                text: Some(text.to_string()),
                file: file.to_string(),
                options: BTreeMap::new(),
            },
            ruleset,
        ))
    }
}

/// The longest order line the judge reads, in characters; a longer one is
/// refused whole (mail/protocol and every family agree on it).
pub const ORDER_LINE_CHARS: usize = 400;

/// A family's shipped scenarios: (id, ruleset id, the file's text).
pub type Shipped = &'static [(&'static str, &'static str, &'static str)];

/// Shipped scenarios as a family lists them: (id, ruleset id).
#[must_use]
pub fn shipped_list(shipped: Shipped) -> Vec<(String, String)> {
    shipped
        .iter()
        .map(|(id, rs, _)| ((*id).to_string(), (*rs).to_string()))
        .collect()
}

/// A positioned error at a byte offset of a file (a ruleset, scenario or
/// case file's reader).
#[must_use]
pub fn error_at(text: &str, file: &str, offset: usize, message: impl Into<String>) -> DataError {
    let (line, column) = line_col(text, offset);
    DataError::At {
        file: file.to_string(),
        line,
        column,
        message: message.into(),
    }
}

/// A positioned error from a TOML parse error.
#[must_use]
pub fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> DataError {
    error_at(
        text,
        file,
        e.span().map_or(0, |s| s.start),
        e.message().trim(),
    )
}

/// 1-based (line, column) of a byte offset in `text`, for error messages
/// that point into a file or a mail.
#[must_use]
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let upto = &text[..offset.min(text.len())];
    let line = upto.matches('\n').count() + 1;
    let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
