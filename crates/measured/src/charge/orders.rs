//! The order language of a measured game (docs/orders.md, "Measured
//! tables"): one line per unit, its steps in the order they are carried out.
//!
//! ```text
//! UNIT 5TH: FORWARD 6, WHEEL LEFT 30, FIRE AT 1CH
//! UNIT 77TH: FORM COLUMN, FORWARD 3
//! UNIT BAT: FIRE CANISTER AT 2HUS
//! STANDING 5TH: HOLD GROUND, FIRE AT CHARGERS
//! PASS
//! ```

use crate::order_line::{self, distance as dist, unit_line};
use adjutant_rules::Rejection;

/// One step of a unit's move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Straight ahead, sixteenths.
    Forward(i64),
    /// Straight back, keeping the facing.
    Back(i64),
    /// Pivot on a flank; negative degrees wheel left.
    Wheel(i64),
    /// Turn about (face the rear), in place.
    About,
    Form(String),
    Limber,
    Unlimber,
    Hold,
    FireAt(String),
    Canister(String),
    PickOff(String),
    Charge(String),
    /// A General rides to a retiring unit and attaches himself to it.
    Rally(String),
}

impl Step {
    #[must_use]
    pub fn canonical(&self) -> String {
        match self {
            Step::Forward(d) => format!("FORWARD {}", inches(*d)),
            Step::Back(d) => format!("BACK {}", inches(*d)),
            Step::Wheel(a) if *a < 0 => format!("WHEEL LEFT {}", -a),
            Step::Wheel(a) => format!("WHEEL RIGHT {a}"),
            Step::About => "ABOUT".into(),
            Step::Form(f) => format!("FORM {}", f.to_ascii_uppercase()),
            Step::Limber => "LIMBER".into(),
            Step::Unlimber => "UNLIMBER".into(),
            Step::Hold => "HOLD".into(),
            Step::FireAt(t) => format!("FIRE AT {t}"),
            Step::Canister(t) => format!("FIRE CANISTER AT {t}"),
            Step::PickOff(t) => format!("PICK OFF {t}"),
            Step::Charge(t) => format!("CHARGE {t}"),
            Step::Rally(t) => format!("RALLY {t}"),
        }
    }
    /// A fire or charge step (at most one, and last).
    #[must_use]
    pub fn is_action(&self) -> bool {
        matches!(
            self,
            Step::FireAt(_)
                | Step::Canister(_)
                | Step::PickOff(_)
                | Step::Charge(_)
                | Step::Rally(_)
        )
    }
}

/// Inches as an order writes them: decimals, e.g. `7.5`.
#[must_use]
pub fn inches(d: i64) -> String {
    if d % 16 == 0 {
        format!("{}", d / 16)
    } else {
        let s = format!("{:.4}", d as f64 / 16.0);
        s.trim_end_matches('0').to_string()
    }
}

/// A line of orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Unit { id: String, steps: Vec<Step> },
    Standing { id: String, orders: Vec<String> },
    Pass,
}

/// Parsed orders: (1-based line, the text, the order).
pub type Parsed = Vec<(usize, String, Line)>;

/// The words a measured order line starts with.
pub const ORDER_WORDS: &[&str] = &["UNIT", "STANDING", "PASS"];

/// Parse an orders text. Nothing here knows the position; the engine
/// checks each order against it.
pub fn parse(text: &str) -> Result<Parsed, Rejection> {
    let mut out = Vec::new();
    for (n, line) in order_line::lines(text)? {
        let upper = line.to_ascii_uppercase();
        let (word, rest) = upper
            .split_once(char::is_whitespace)
            .unwrap_or((&upper, ""));
        let parsed = match word {
            "PASS" if rest.trim().is_empty() => Line::Pass,
            "UNIT" | "STANDING" => {
                let (id, parts) = unit_line(word, rest, n, line, "a unit's name", "5TH")?;
                if word == "STANDING" {
                    let orders = order_line::standing(&parts, crate::state::STANDING, n, line)?;
                    Line::Standing {
                        id: id.to_string(),
                        orders,
                    }
                } else {
                    let steps = order_line::steps(&parts, n, line, step)?;
                    Line::Unit {
                        id: id.to_string(),
                        steps,
                    }
                }
            }
            w => {
                return Err(Rejection::at(
                    n,
                    line,
                    format!(
                    "'{w}' is not an order: a line starts UNIT <name>:, STANDING <name>: or PASS"
                ),
                ))
            }
        };
        out.push((n, line.to_string(), parsed));
    }
    Ok(out)
}

fn step(p: &str) -> Result<Step, String> {
    let w: Vec<&str> = p.split_whitespace().collect();
    let target = |k: usize, what: &str| order_line::target(&w, k, what, "2HUS");
    Ok(match w.as_slice() {
        ["FORWARD", ..] => Step::Forward(dist(&w[1..].join(" "), "FORWARD")?),
        ["BACK", ..] => Step::Back(dist(&w[1..].join(" "), "BACK")?),
        ["WHEEL", dirw, deg] => Step::Wheel(order_line::wheel(dirw, deg)?),
        ["WHEEL", ..] => return Err("WHEEL LEFT <degrees> or WHEEL RIGHT <degrees>".into()),
        ["ABOUT"] => Step::About,
        ["FORM", f] => match *f {
            "LINE" | "COLUMN" | "OPEN" => Step::Form(f.to_ascii_lowercase()),
            _ => return Err(format!("FORM LINE, FORM COLUMN or FORM OPEN, not FORM {f}")),
        },
        ["LIMBER"] => Step::Limber,
        ["UNLIMBER" | "DEPLOY"] => Step::Unlimber,
        ["HOLD"] => Step::Hold,
        ["FIRE", "AT", ..] => Step::FireAt(target(2, "FIRE AT")?),
        ["FIRE", "CANISTER", "AT", ..] => Step::Canister(target(3, "FIRE CANISTER AT")?),
        ["PICK", "OFF", ..] => Step::PickOff(target(2, "PICK OFF")?),
        ["CHARGE", ..] => Step::Charge(target(1, "CHARGE")?),
        ["RALLY", ..] => Step::Rally(target(1, "RALLY")?),
        _ => {
            return Err(format!(
                "'{p}' is not a step (FORWARD n, BACK n, WHEEL LEFT|RIGHT deg, ABOUT, FORM LINE|COLUMN|OPEN, LIMBER, UNLIMBER, HOLD, FIRE AT u, FIRE CANISTER AT u, PICK OFF u, CHARGE u, RALLY u)"
            ))
        }
    })
}
