//! What a measured book adds to the shared types: the core's [`State`],
//! [`Unit`] and [`Ruleset`] are generic over the book, each carrying the
//! book's own part (`book`, flattened into the JSON form so a stored
//! position keeps its bytes), and a game's events are the book's own.
//! Neither book's types carry the other's fields.
//!
//! [`State`]: crate::state::State
//! [`Unit`]: crate::state::Unit
//! [`Ruleset`]: crate::ruleset::Ruleset

use crate::placement::{BookKeys, Placement};
use crate::report::Pen;
use crate::ruleset::Ruleset;
use crate::state::{State, Unit};
use crate::Procedures;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// Serialized, cloned, compared and shared: what the book's parts need.
pub trait Part:
    Serialize + DeserializeOwned + Clone + Debug + PartialEq + Default + Send + Sync + 'static
{
}

impl<T> Part for T where
    T: Serialize + DeserializeOwned + Clone + Debug + PartialEq + Default + Send + Sync + 'static
{
}

/// One measured book: its parts of the shared types and its procedures.
pub trait Book:
    Sized + Clone + Copy + Debug + PartialEq + Eq + Default + Send + Sync + 'static
{
    /// A unit's fields of the book's own (flattened into the unit's JSON:
    /// each field skipped when empty, so the other book's units never
    /// show them).
    type Unit: Part + Eq;
    /// The position's fields of the book's own (flattened likewise).
    type State: Part;
    /// The ruleset's tables of the book's own.
    type Tables: Clone + Debug + Default + Send + Sync + 'static;
    /// What happens in a game of the book, as the store holds it.
    type Event: Serialize + DeserializeOwned + Clone + Debug + PartialEq + Send + Sync + 'static;
    /// A placement's keys of the book's own, as a scenario or case writes
    /// them beside the shared ones (crate::placement): any other key is
    /// refused at the key.
    type Placement: BookKeys;

    /// Whether one adjudication of the book costs some ten times a Memoir
    /// '44 turn's or more (`Family::costly`: the general searches it with
    /// fewer candidates).
    const COSTLY: bool = false;

    /// The book's procedures.
    fn procedures() -> &'static dyn Procedures<Self>;
    /// The book's shipped scenarios: (id, ruleset id, text).
    fn shipped() -> &'static [(&'static str, &'static str, &'static str)];
    /// A placed unit's fields of the book's own, as a scenario or case
    /// writes them (before [`Procedures::place_unit`] checks them).
    fn unit_from(_p: &Placement<Self::Placement>) -> Self::Unit {
        Self::Unit::default()
    }
    /// The unit's status words of the book's own that the report prints
    /// first, and those it prints last.
    fn status(_u: &Unit<Self>) -> (Vec<String>, Vec<String>) {
        (Vec::new(), Vec::new())
    }
    /// A unit's fact of the book's own that a case may expect (`marker`,
    /// `rallying`), as text; None when the book has no such fact or the
    /// unit none.
    fn case_fact(_u: &Unit<Self>, _key: &str) -> Option<String> {
        None
    }
    /// The referee's correction as the book's event (`text` the sentence,
    /// `lines` the lines as applied).
    fn amended(text: String, lines: Vec<String>) -> Self::Event;
    /// One event as a line of the report.
    fn describe(e: &Self::Event) -> Option<String>;
    /// The keys of an event's stored JSON that only tell the store which
    /// book wrote it (the ruleset's name says so in view.json): left out
    /// of view.json. None by default.
    const VIEW_MARKS: &'static [&'static str] = &[];
    /// The event on the report's picture (a path, a line of fire), if
    /// it draws.
    fn draw(o: &mut String, r: &Ruleset<Self>, st: &State<Self>, e: &Self::Event, pen: &Pen<'_>);
    /// The `kind` of the event's JSON form (what cases name in `events`).
    fn kind(e: &Self::Event) -> &'static str;
}
