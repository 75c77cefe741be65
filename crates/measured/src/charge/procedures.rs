//! Charge!'s procedures (the Charge! rulebook, docs/rules/charge.md) on the measured
//! core: simultaneous moves, both sides' written orders held until both
//! have sent, carried out by [`crate::charge`] in the order of its
//! sequence; the order language is [`crate::charge::orders`].

use super::orders;
use crate::case::CaseSequence;
use crate::charge::Ruleset;
use crate::charge::{State, Unit};
use crate::ruleset::Troop;
use crate::state::{self, Forced, Placement};
use crate::{Outcome, Procedures};
use adjutant_rules::{Chance, Orders, Phase, Rejection};

/// Charge!'s procedures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Charge;

impl Procedures<Charge> for Charge {
    fn name(&self) -> &'static str {
        "Charge!"
    }

    fn order_words(&self) -> &'static [&'static str] {
        orders::ORDER_WORDS
    }

    fn order_help(&self) -> String {
        "Measured-table orders (Charge!), one line per unit, steps in order:\n\
  UNIT <name>: FORWARD 6, WHEEL LEFT 30, FIRE AT <unit>\n\
  steps: FORWARD n | BACK n (inches, 7.5 or 7 1/2) | WHEEL LEFT|RIGHT deg | ABOUT\n\
         FORM LINE|COLUMN|OPEN | LIMBER | UNLIMBER | HOLD\n\
         FIRE AT u | FIRE CANISTER AT u | PICK OFF u | CHARGE u   (last step)\n\
  STANDING <name>: HOLD GROUND, FIRE AT CHARGERS   (or NONE)\n\
  PASS                                   no orders: every unit holds\n"
            .to_string()
    }

    fn needs(&self, st: &State) -> Vec<usize> {
        super::needs(st)
    }

    fn orderable(&self, u: &Unit) -> Result<(), String> {
        super::orderable(u)
    }

    fn phase(&self, s: &State) -> Phase {
        let sides: Vec<String> = super::needs(s)
            .iter()
            .map(|i| s.sides[*i].clone())
            .collect();
        if s.over {
            return Phase {
                name: "over".into(),
                sides,
                what: "game over".into(),
            };
        }
        let what = if sides.is_empty() {
            format!(
                "move {}: no unit can take orders; the judge carries out the move",
                s.turn
            )
        } else {
            format!(
                "move {}: both sides write orders; they are held and carried out together",
                s.turn
            )
        };
        Phase {
            name: "move".into(),
            sides,
            what,
        }
    }

    fn check(
        &self,
        r: &Ruleset,
        s: &State,
        side: &str,
        text: &str,
    ) -> Result<Vec<String>, Rejection> {
        let o = [Orders {
            side: side.to_string(),
            text: text.to_string(),
        }];
        super::run(r, s, &o, None)?;
        Ok(orders::parse(text)?
            .into_iter()
            .map(|(_, _, l)| match l {
                orders::Line::Pass => "PASS".to_string(),
                orders::Line::Standing { id, orders } => {
                    format!("STANDING {id}: {}", orders.join(", "))
                }
                orders::Line::Unit { id, steps } => format!(
                    "UNIT {}: {}",
                    s.unit(&id).map_or(id.clone(), |u| u.id.clone()),
                    steps
                        .iter()
                        .map(orders::Step::canonical)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect())
    }

    fn check_side(
        &self,
        r: &Ruleset,
        st: &State,
        side: usize,
        text: &str,
    ) -> Result<(), Rejection> {
        super::check(r, st, side, text).map(|_| ())
    }

    fn run(
        &self,
        r: &Ruleset,
        st: &State,
        orders: &[Orders],
        chance: Option<&mut Chance<'_>>,
    ) -> Result<Outcome<Self>, Rejection> {
        super::run(r, st, orders, chance)
    }

    /// Its standing orders, from the placement.
    fn place_unit(
        &self,
        _r: &Ruleset,
        _t: &Troop,
        p: &Placement<super::book::ChargeKeys>,
        mut u: Unit,
        _st: &mut State,
    ) -> Result<Option<Unit>, String> {
        for s in &p.standing {
            let s = s.trim().to_ascii_uppercase();
            if !state::STANDING.contains(&s.as_str()) {
                return Err(format!(
                    "'{s}' is not a standing order ({})",
                    state::STANDING.join(", ")
                ));
            }
            u.standing.push(s);
        }
        Ok(Some(u))
    }

    /// Placed at half strength or less: already broken (the 50% rule),
    /// read as in play: "If occupying houses, the unit may remain in the
    /// houses" (it does not go to the rear). A General has no rank and
    /// file.
    fn placed(&self, r: &Ruleset, st: &State, t: &Troop, u: &mut Unit) {
        if !t.is("general") && u.rf * r.morale.half[1] <= u.start_rf * r.morale.half[0] {
            u.broken = true;
            u.forced = (!state::in_house(r, st, u)).then_some(Forced::Rout);
        }
    }

    /// Charge! has no active side nor effects in force.
    fn case_position(
        &self,
        _r: &Ruleset,
        _st: &mut State,
        case: &CaseSequence<'_>,
    ) -> Result<(), (&'static str, String)> {
        if case.active.is_some() || !case.effects.is_empty() {
            return Err(("", "active and effects are Seven Years' War keys".into()));
        }
        Ok(())
    }

    fn template(&self, r: &Ruleset, st: &State, side: usize, name: &str) -> Option<String> {
        super::report::charge_template(r, st, side, name)
    }

    fn predict(
        &self,
        r: &Ruleset,
        st: &State,
        side: &str,
        orders: &str,
    ) -> Result<String, Rejection> {
        crate::predict::predict(r, st, side, orders)
    }
}
