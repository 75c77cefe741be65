//! Measured tables: miniatures rules measured in inches on an open table.
//! The geometry core ([`geometry`]) is shared by every measured set; the
//! Charge!-style horse-and-musket rules (seeds/002) are the first ruleset
//! (`rulesets/charge.toml`, readings in docs/rules/charge.md).

pub mod case;
pub mod engine;
pub mod events;
pub mod geometry;
pub mod orders;
pub mod pinning;
pub mod random;
pub mod report;
pub mod ride_down;
pub mod ruleset;
pub mod state;
pub mod syw;

use adjutant_dice::Dice;
use adjutant_rules::report::Parts;
use adjutant_rules::{
    Chance, DataError, Family, FamilyEntry, Orders, Phase, Rejection, Rules, Scenario, Viewer,
};
pub use ruleset::Ruleset;
pub use state::State;

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

impl Family for Ruleset {
    type State = State;
    type Event = events::Event;

    fn id(&self) -> &str {
        &self.id
    }

    fn order_words(&self) -> &'static [&'static str] {
        if self.syw.is_some() {
            syw::orders::ORDER_WORDS
        } else {
            orders::ORDER_WORDS
        }
    }

    fn order_help(&self) -> String {
        if self.syw.is_some() {
            return "Seven Years' War orders, one line per unit or brigade, steps in order;
the judge throws the movement dice, so FORWARD n goes up to n inches:
  UNIT <name>: FORWARD 8, WHEEL LEFT 20
  UNIT <name>: FORWARD ALL                 as far as the dice allow
  BRIGADE <brigade>: FORWARD ALL            one throw for the brigade, +1 die
  REGIMENT <regt>: FORWARD ALL              its squadrons: one throw, one body
  REGIMENT <regt>: CHARGE u WITH <squadron> it charges, the others support
  steps: FORWARD n|ALL | BACK n | WHEEL LEFT|RIGHT deg | ABOUT | HOLD
         FORM LINE|MARCH|ATTACK|SQUARE|OPEN | LIMBER | UNLIMBER
         FIRE AT u (units that move cannot fire) | CHARGE u   (last step)
         REFUSE LEFT|RIGHT <files> BACK|FORWARD deg   turn a line's wing
         FIRE AT u WITH LEFT|CENTRE|RIGHT [BONUS]     one section of it fires
  STANDING <name>: EVADE | STAND | COUNTER-CHARGE,
                   RESPONSE FIRE | HOLD FIRE, FIGHT ON | BREAK OFF   (or NONE)
  FOG BRIGADE <brigade> | FOG GUNS <u> [<u> <u>]  if the fog-of-war table calls
  SPLIT <battery>                        one gun and its crew become <battery>-2
  RETREAT <name>                         manufactured retreat (melee lost by 1)
  PASS                                   no orders this player-turn
"
            .to_string();
        }
        "Measured-table orders (Charge!), one line per unit, steps in order:\n\
  UNIT <name>: FORWARD 6, WHEEL LEFT 30, FIRE AT <unit>\n\
  steps: FORWARD n | BACK n (inches, 7.5 or 7 1/2) | WHEEL LEFT|RIGHT deg | ABOUT\n\
         FORM LINE|COLUMN|OPEN | LIMBER | UNLIMBER | HOLD\n\
         FIRE AT u | FIRE CANISTER AT u | PICK OFF u | CHARGE u   (last step)\n\
  STANDING <name>: HOLD GROUND, FIRE AT CHARGERS   (or NONE)\n\
  PASS                                   no orders: every unit holds\n"
            .to_string()
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
        if self.syw.is_some() {
            let sides: Vec<String> = syw::engine::needs(s)
                .iter()
                .map(|i| s.sides[*i].clone())
                .collect();
            let what = if s.over {
                "game over".to_string()
            } else {
                format!(
                    "turn {}: {}'s player-turn (the other side answers by its standing orders)",
                    s.turn,
                    sides.join(", ")
                )
            };
            return Phase {
                name: if s.over { "over" } else { "player-turn" }.into(),
                sides,
                what,
            };
        }
        let sides: Vec<String> = engine::needs(s)
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

    fn check(&self, s: &State, side: &str, orders: &str) -> Result<Vec<String>, Rejection> {
        if self.syw.is_some() {
            let o = [Orders {
                side: side.to_string(),
                text: orders.to_string(),
            }];
            syw::engine::run(self, s, &o, None)?;
            return Ok(syw::orders::parse(orders)?
                .into_iter()
                .map(|(_, text, l)| match l {
                    syw::orders::Line::Pass => "PASS".to_string(),
                    syw::orders::Line::Unit { id, steps } => format!(
                        "UNIT {}: {}",
                        s.unit(&id).map_or(id.clone(), |u| u.id.clone()),
                        steps
                            .iter()
                            .map(syw::orders::Step::canonical)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    syw::orders::Line::Brigade { id, steps } => format!(
                        "BRIGADE {id}: {}",
                        steps
                            .iter()
                            .map(syw::orders::Step::canonical)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => text.to_ascii_uppercase(),
                })
                .collect());
        }
        let o = [Orders {
            side: side.to_string(),
            text: orders.to_string(),
        }];
        engine::run(self, s, &o, None)?;
        Ok(orders::parse(orders)?
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

    fn adjudicate(
        &self,
        s: &State,
        orders: &[Orders],
        chance: &mut Chance<'_>,
    ) -> Result<(State, Vec<events::Event>), Rejection> {
        if self.syw.is_some() {
            let out = syw::engine::run(self, s, orders, Some(chance))?;
            return Ok((out.st, out.ev));
        }
        let out = engine::run(self, s, orders, Some(chance))?;
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
        syw::amend::amend(self, s, text)
    }

    /// Rank and file each side has removed from the enemy.
    fn score(&self, s: &State) -> Vec<(String, u32)> {
        s.sides
            .iter()
            .cloned()
            .zip(s.removed.iter().copied())
            .collect()
    }
}
