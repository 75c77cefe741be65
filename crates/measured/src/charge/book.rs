//! Charge!'s parts of the measured core's types ([`crate::Book`]).

use super::procedures::Charge;
use crate::events;
use crate::report::Pen;
use crate::ruleset::Ruleset;
use crate::state::{Placement, State, Unit};
use serde::{Deserialize, Serialize};

/// Charge!'s part of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChargeUnit {
    /// Rallied by its General; moves still to stand before it is fit for
    /// action (the General's rally, [`super::general`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rallying: Option<u32>,
}

/// Charge!'s own placement keys (beside the shared ones,
/// `crate::placement`): a Seven Years' War key is refused.
#[derive(Debug, Default)]
pub struct ChargeKeys {
    /// Already rallied by its General, moves still to stand (cases).
    pub rallying: Option<u32>,
}

adjutant_measured_core::book_keys!(ChargeKeys { rallying });

/// Charge!'s part of a position: nothing of its own yet.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChargeState {}

/// Charge!'s shipped scenarios: (id, ruleset id, text).
pub const SHIPPED: &[(&str, &str, &str)] = &[
    (
        "el-bodon-1811",
        "charge",
        include_str!("../../../../scenarios/charge/el-bodon-1811.toml"),
    ),
    (
        "fuentes-de-onoro-1811",
        "charge",
        include_str!("../../../../scenarios/charge/fuentes-de-onoro-1811.toml"),
    ),
];

impl crate::Book for Charge {
    type Unit = ChargeUnit;
    type State = ChargeState;
    type Tables = super::tables::ChargeTables;
    type Event = events::Charge;
    type Placement = ChargeKeys;

    fn procedures() -> &'static dyn crate::Procedures<Self> {
        &Charge
    }

    fn shipped() -> &'static [(&'static str, &'static str, &'static str)] {
        SHIPPED
    }

    fn unit_from(p: &Placement<ChargeKeys>) -> ChargeUnit {
        ChargeUnit {
            rallying: p.book.rallying.filter(|n| *n > 0),
        }
    }

    fn status(u: &Unit<Self>) -> (Vec<String>, Vec<String>) {
        let mut last = Vec::new();
        if let Some(n) = u.rallying {
            last.push(format!(
                "rallied by its General: fit for action in {n} move{}",
                if n == 1 { "" } else { "s" }
            ));
        }
        (Vec::new(), last)
    }

    fn case_fact(u: &Unit<Self>, key: &str) -> Option<String> {
        match key {
            "rallying" => u.rallying.map(|n| n.to_string()),
            _ => None,
        }
    }

    fn amended(text: String, lines: Vec<String>) -> events::Charge {
        events::Charge::Amended { text, lines }
    }

    fn describe(e: &events::Charge) -> Option<String> {
        Some(super::report::describe_charge(e))
    }

    fn draw(
        o: &mut String,
        r: &Ruleset<Self>,
        st: &State<Self>,
        e: &events::Charge,
        pen: &Pen<'_>,
    ) {
        // Musketry: from the firer's front to the target's, as the other
        // fire (issue 53), where both are still on the table.
        if let events::Charge::Volley { unit, target, .. } = e {
            if let (Some(a), Some(b)) = (st.unit(unit), st.unit(target)) {
                crate::report::fire_line(o, pen, (a.front.x, a.front.y), (b.front.x, b.front.y));
            }
            return;
        }
        super::report::draw_charge(o, r, e, pen);
    }

    fn kind(e: &events::Charge) -> &'static str {
        e.kind()
    }
}
