//! Charge!: the measured-table rulebook of that name (ruleset ids
//! `charge*`), a family of its own on the measured core
//! (`adjutant-measured-core`): its procedures ([`charge`]), its events
//! ([`events`]), its PREDICT ([`predict`]), its tables and ruleset file
//! ([`charge::tables`]); readings in docs/rules/charge.md.
//!
//! The core's modules are re-exported here by the paths Charge!'s files
//! (and the judge's tests) have always used: `geometry`, `state`,
//! `ruleset`, `report`, ...

pub mod books;
pub mod charge;
pub mod events;
pub mod predict;

pub use adjutant_measured_core::{
    amend, book, case, geometry, labels, order_line, random, report, ruleset, shipped_scenarios,
    state, Book, Outcome, Procedures, Ruleset, State, Unit,
};
pub use books::ENTRY;
pub use charge::procedures::Charge;
pub use charge::tables::ChargeRuleset;
