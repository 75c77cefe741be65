//! The Seven Years' War order language (docs/orders.md, "Seven Years'
//! War"): one line per unit or brigade, its steps in order; how far a unit
//! goes is thrown by the judge, so a FORWARD is "up to" that many inches.
//!
//! ```text
//! UNIT 1GDS: FORWARD 12, WHEEL LEFT 20
//! UNIT 1GDS: FORWARD ALL
//! BRIGADE WALDGRAVE: FORWARD 6          # the whole brigade, one throw, +1d
//! UNIT BAT1: FIRE AT FR3
//! UNIT HUS: CHARGE FR2
//! STANDING FR2: EVADE                   # or STAND, COUNTER-CHARGE, RESPONSE FIRE, HOLD FIRE, NONE
//! FOG BRIGADE WALDGRAVE                 # the brigade an event of the table would move
//! FOG GUNS BAT1 BAT2                    # the guns an event would let fire
//! SPLIT BAT1                            # one gun and its crew become battery BAT1-2
//! RETREAT FR2                           # a manufactured retreat (a melee lost by one)
//! REGIMENT BLUES: FORWARD 4, CHARGE FR2 WITH 1SQN  # one throw; 1SQN charges, the rest support
//! UNIT 12TH: REFUSE LEFT 3 BACK 90      # the left wing's 3 files turned back
//! UNIT 12TH: FIRE AT FR1 WITH CENTRE BONUS, FIRE AT FR2 WITH LEFT  # fire by section
//! PASS
//! ```

use super::Refusal;
use super::{line, STANDING};
use crate::geometry::fmt_len;
use crate::order_line::{self, distance as dist};
use adjutant_rules::Rejection;

/// One step of a unit's move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Straight ahead up to this far (None: as far as the dice allow).
    Forward(Option<i64>),
    Back(i64),
    /// Pivot on a flank; negative degrees wheel left.
    Wheel(i64),
    About,
    Form(String),
    Limber,
    Unlimber,
    Hold,
    FireAt(String),
    Charge(String),
    /// In a regimental move: (target, squadron): that squadron charges,
    /// the others move to support (L).
    ChargeWith(String, String),
    /// Refuse a wing of a line (a formation change).
    Refuse(Refusal),
    /// A section of a refused line fires: (target, "left" / "centre" /
    /// "right", whether it takes the unit's fire bonus).
    SectionFire(String, String, bool),
}

impl Step {
    #[must_use]
    pub fn canonical(&self) -> String {
        match self {
            Step::Forward(None) => "FORWARD ALL".into(),
            Step::Forward(Some(d)) => format!("FORWARD {}", fmt_len(*d)),
            Step::Back(d) => format!("BACK {}", fmt_len(*d)),
            Step::Wheel(a) if *a < 0 => format!("WHEEL LEFT {}", -a),
            Step::Wheel(a) => format!("WHEEL RIGHT {a}"),
            Step::About => "ABOUT".into(),
            Step::Form(f) => format!("FORM {}", f.to_ascii_uppercase()),
            Step::Limber => "LIMBER".into(),
            Step::Unlimber => "UNLIMBER".into(),
            Step::Hold => "HOLD".into(),
            Step::FireAt(t) => format!("FIRE AT {t}"),
            Step::Charge(t) => format!("CHARGE {t}"),
            Step::ChargeWith(t, s) => format!("CHARGE {t} WITH {s}"),
            Step::Refuse(x) => format!("REFUSE {}", line::canonical(x)),
            Step::SectionFire(t, s, b) => format!(
                "FIRE AT {t} WITH {}{}",
                s.to_ascii_uppercase(),
                if *b { " BONUS" } else { "" }
            ),
        }
    }
    #[must_use]
    pub fn is_action(&self) -> bool {
        matches!(
            self,
            Step::FireAt(_) | Step::Charge(_) | Step::ChargeWith(..) | Step::SectionFire(..)
        )
    }
    #[must_use]
    pub fn moves(&self) -> bool {
        matches!(
            self,
            Step::Forward(_)
                | Step::Back(_)
                | Step::Wheel(_)
                | Step::About
                | Step::Charge(_)
                | Step::ChargeWith(..)
        )
    }
}

/// A line of orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Unit {
        id: String,
        steps: Vec<Step>,
    },
    Brigade {
        id: String,
        steps: Vec<Step>,
    },
    /// A regimental move (L): the squadrons of a line cavalry regiment
    /// dice and move as one body.
    Regiment {
        id: String,
        steps: Vec<Step>,
    },
    Standing {
        id: String,
        orders: Vec<String>,
    },
    FogBrigade(String),
    FogGuns(Vec<String>),
    /// Split a battery: one gun and its share of the crew become a
    /// battery of their own (L).
    Split(String),
    /// A manufactured retreat (B): the results of a melee lost by one.
    Retreat(String),
    Pass,
}

pub type Parsed = Vec<(usize, String, Line)>;

/// The words a Seven Years' War order line starts with.
pub const ORDER_WORDS: &[&str] = &[
    "UNIT", "BRIGADE", "REGIMENT", "STANDING", "FOG", "SPLIT", "RETREAT", "PASS",
];

/// Parse an orders text (nothing here knows the position).
pub fn parse(text: &str) -> Result<Parsed, Rejection> {
    let mut out = Vec::new();
    for (n, line) in order_line::lines(text)? {
        let upper = line.to_ascii_uppercase();
        let (word, rest) = upper
            .split_once(char::is_whitespace)
            .unwrap_or((&upper, ""));
        let rest = rest.trim();
        let parsed = match word {
            "PASS" if rest.is_empty() => Line::Pass,
            "SPLIT" => match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
                [b] => Line::Split((*b).to_string()),
                _ => return Err(Rejection::at(n, line, "SPLIT <battery>: one battery's name")),
            },
            "RETREAT" => match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
                [u] => Line::Retreat((*u).to_string()),
                _ => return Err(Rejection::at(n, line, "RETREAT <unit>: one unit's name")),
            },
            "FOG" => {
                let w: Vec<&str> = rest
                    .split(|c: char| c.is_whitespace() || c == ',' || c == ':')
                    .filter(|s| !s.is_empty())
                    .collect();
                match w.as_slice() {
                    ["BRIGADE", b] => Line::FogBrigade((*b).to_string()),
                    ["GUNS", g @ ..] if !g.is_empty() && g.len() <= 3 => {
                        Line::FogGuns(g.iter().map(|s| (*s).to_string()).collect())
                    }
                    _ => {
                        return Err(Rejection::at(
                            n,
                            line,
                            "FOG BRIGADE <brigade> or FOG GUNS <unit> [<unit> <unit>]",
                        ))
                    }
                }
            }
            "UNIT" | "BRIGADE" | "REGIMENT" | "STANDING" => {
                let (id, parts) =
                    order_line::unit_line(word, rest, n, line, "a name", "1GDS")?;
                if word == "STANDING" {
                    let orders = order_line::standing(&parts, STANDING, n, line)?;
                    Line::Standing {
                        id: id.to_string(),
                        orders,
                    }
                } else {
                    let steps = order_line::steps(&parts, n, line, step)?;
                    if let Some(k) = steps.iter().position(Step::is_action) {
                        // Several sections of a refused line may each
                        // fire: those steps close the line together.
                        let sections = steps[k..]
                            .iter()
                            .all(|s| matches!(s, Step::SectionFire(..)));
                        if k + 1 != steps.len() && !sections {
                            return Err(Rejection::at(
                                n,
                                line,
                                "FIRE AT and CHARGE are a unit's last step",
                            ));
                        }
                    }
                    if word != "REGIMENT" && steps.iter().any(|s| matches!(s, Step::ChargeWith(..)))
                    {
                        return Err(Rejection::at(
                            n,
                            line,
                            "CHARGE <unit> WITH <squadron> is for a REGIMENT line",
                        ));
                    }
                    if word == "REGIMENT" && steps.iter().any(|s| matches!(s, Step::Charge(_))) {
                        return Err(Rejection::at(
                            n,
                            line,
                            "in a regimental move one squadron charges: CHARGE <unit> WITH <squadron>",
                        ));
                    }
                    match word {
                        "UNIT" => Line::Unit {
                            id: id.to_string(),
                            steps,
                        },
                        "REGIMENT" => Line::Regiment {
                            id: id.to_string(),
                            steps,
                        },
                        _ => Line::Brigade {
                            id: id.to_string(),
                            steps,
                        },
                    }
                }
            }
            w => {
                return Err(Rejection::at(
                    n,
                    line,
                    format!(
                        "'{w}' is not an order: a line starts UNIT <name>:, BRIGADE <name>:, REGIMENT <name>:, STANDING <name>:, FOG, SPLIT, RETREAT or PASS"
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
    let target = |k: usize, what: &str| order_line::target(&w, k, what, "FR2");
    Ok(match w.as_slice() {
        ["FORWARD", "ALL"] | ["ADVANCE"] => Step::Forward(None),
        ["FORWARD", ..] => Step::Forward(Some(dist(&w[1..].join(" "), "FORWARD")?)),
        ["BACK", ..] => Step::Back(dist(&w[1..].join(" "), "BACK")?),
        ["WHEEL", dirw, deg] => Step::Wheel(order_line::wheel(dirw, deg)?),
        ["WHEEL", ..] => return Err("WHEEL LEFT <degrees> or WHEEL RIGHT <degrees>".into()),
        ["ABOUT"] => Step::About,
        ["FORM", f] => match *f {
            "LINE" | "MARCH" | "ATTACK" | "SQUARE" | "OPEN" => Step::Form(f.to_ascii_lowercase()),
            "COLUMN" => Step::Form("march".into()),
            _ => {
                return Err(format!(
                    "FORM LINE, FORM MARCH, FORM ATTACK, FORM SQUARE or FORM OPEN, not FORM {f}"
                ))
            }
        },
        ["LIMBER"] => Step::Limber,
        ["UNLIMBER" | "DEPLOY"] => Step::Unlimber,
        ["HOLD"] => Step::Hold,
        ["CHARGE", t, "WITH", sq] => Step::ChargeWith((*t).to_string(), (*sq).to_string()),
        ["REFUSE", rest @ ..] => Step::Refuse(line::parse(rest)?),
        ["FIRE", "AT", t, "WITH", sec, bonus @ ..] if bonus.is_empty() || bonus == ["BONUS"] => {
            let sec = line::section_word(sec).ok_or_else(|| {
                format!("'{sec}' is not a section of a line: LEFT, CENTRE or RIGHT")
            })?;
            Step::SectionFire((*t).to_string(), sec.to_string(), !bonus.is_empty())
        }
        ["FIRE", "AT", ..] => Step::FireAt(target(2, "FIRE AT")?),
        ["CHARGE", ..] => Step::Charge(target(1, "CHARGE")?),
        _ => {
            return Err(format!(
                "'{p}' is not a step (FORWARD n, FORWARD ALL, BACK n, WHEEL LEFT|RIGHT deg, ABOUT, FORM LINE|MARCH|ATTACK|SQUARE|OPEN, LIMBER, UNLIMBER, HOLD, FIRE AT u, FIRE AT u WITH LEFT|CENTRE|RIGHT [BONUS], CHARGE u, CHARGE u WITH squadron, REFUSE LEFT|RIGHT files BACK|FORWARD deg)"
            ))
        }
    })
}
