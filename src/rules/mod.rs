//! Rules families behind one facade.
//!
//! The service and the reports see a game through [`Rules`]: they hold the
//! state as JSON (it lives in SQLite as a snapshot) and ask the family to set
//! up, adjudicate, describe and render it. Every family is pure: it gets dice
//! through [`Chance`] and never touches I/O or the clock.

pub mod memoir44;

use crate::engine::dice::Dice;
use serde::{Deserialize, Serialize};

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

/// The result of one adjudication.
#[derive(Debug, Clone)]
pub struct Adjudication {
    /// The new state, as JSON.
    pub state: serde_json::Value,
    /// What happened, in order; each a JSON object with at least a "kind".
    pub events: Vec<serde_json::Value>,
}

/// What a game waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    /// Sides that must submit before the phase can be adjudicated.
    pub sides: Vec<String>,
    /// A short description ("Allies to play a card and order units").
    pub what: String,
}

/// A loaded ruleset of some family.
pub enum Rules {
    Memoir44(Box<memoir44::Ruleset>),
}

/// The words an order line may start with, in any family (the mail protocol
/// uses them to tell orders from the chatter around them).
pub const ORDER_WORDS: &[&str] = &[
    "PLAY",
    "ORDER",
    "MOVE",
    "BATTLE",
    "ATTACK",
    "FIRE",
    "TARGET",
    "REMOVE-WIRE",
    "KEEP",
    "DISCARD",
    "EXCHANGE",
    "STANDING",
];

/// The ruleset ids we know.
pub const RULESETS: &[&str] = &["memoir44"];

impl Rules {
    /// Load a shipped ruleset by id.
    pub fn load(id: &str) -> Result<Rules, DataError> {
        match id {
            "memoir44" => Ok(Rules::Memoir44(Box::new(memoir44::Ruleset::builtin()?))),
            other => Err(DataError::UnknownRuleset(other.to_string())),
        }
    }

    /// A ruleset from a file's text (a club's house-rule variant). Its `id`
    /// names the family it varies: `memoir44` or `memoir44-<anything>`.
    pub fn from_text(text: &str, file: &str) -> Result<Rules, DataError> {
        let id = text
            .parse::<toml::Table>()
            .ok()
            .and_then(|t| t.get("id").and_then(|v| v.as_str()).map(str::to_string))
            .unwrap_or_default();
        if id == "memoir44" || id.starts_with("memoir44-") {
            Ok(Rules::Memoir44(Box::new(memoir44::Ruleset::from_toml(
                text, file,
            )?)))
        } else {
            // Let the family's own parser report syntax errors with a position.
            memoir44::Ruleset::from_toml(text, file)?;
            Err(DataError::Invalid {
                file: file.to_string(),
                message: format!(
                    "the ruleset id '{id}' names no known family (it must be memoir44 or start with memoir44-)"
                ),
            })
        }
    }

    /// The ruleset of a stored game: its variant text if it has one.
    pub fn of_game(id: &str, text: Option<&str>) -> Result<Rules, DataError> {
        match text {
            Some(t) => Rules::from_text(t, &format!("{id}.toml")),
            None => Rules::load(id),
        }
    }

    /// Which ruleset a scenario id belongs to.
    pub fn for_scenario(scenario: &str) -> Result<Rules, DataError> {
        if memoir44::scenario_ids().iter().any(|s| s == scenario) {
            return Rules::load("memoir44");
        }
        Err(DataError::UnknownScenario(
            scenario.to_string(),
            all_scenarios().join(", "),
        ))
    }

    #[must_use]
    pub fn id(&self) -> &'static str {
        match self {
            Rules::Memoir44(_) => "memoir44",
        }
    }

    /// Set up a new game of a scenario. `deck` shuffles hidden things.
    pub fn setup(
        &self,
        scenario: &Scenario,
        deck: &mut dyn Dice,
    ) -> Result<serde_json::Value, DataError> {
        match self {
            Rules::Memoir44(r) => {
                let st = match &scenario.text {
                    Some(text) => memoir44::setup_text(r, text, &scenario.file, deck)?,
                    None => memoir44::setup(r, &scenario.id, deck)?,
                };
                Ok(to_json(&st))
            }
        }
    }

    /// The sides of a game, in the scenario's order.
    pub fn sides(&self, state: &serde_json::Value) -> Vec<String> {
        match self {
            Rules::Memoir44(_) => from_json::<memoir44::State>(state)
                .map(|s| memoir44::sides(&s))
                .unwrap_or_default(),
        }
    }

    /// Who must submit next; empty when the game is over.
    pub fn waiting(&self, state: &serde_json::Value) -> Waiting {
        match self {
            Rules::Memoir44(_) => match from_json::<memoir44::State>(state) {
                Ok(s) => memoir44::waiting(&s),
                Err(e) => Waiting {
                    sides: vec![],
                    what: format!("state unreadable: {e}"),
                },
            },
        }
    }

    /// Adjudicate `side`'s orders. A rejection leaves the state untouched.
    pub fn adjudicate(
        &self,
        state: &serde_json::Value,
        side: &str,
        orders: &str,
        chance: &mut Chance<'_>,
    ) -> Result<Adjudication, Rejection> {
        match self {
            Rules::Memoir44(r) => {
                let st: memoir44::State = from_json(state)
                    .map_err(|e| Rejection::whole(format!("stored state unreadable: {e}")))?;
                let (next, events) = memoir44::adjudicate(r, &st, side, orders, chance)?;
                Ok(Adjudication {
                    state: to_json(&next),
                    events: events.iter().map(to_json).collect(),
                })
            }
        }
    }

    /// The orders in their canonical spelling, one per line, for the receipt
    /// (None if the text does not parse; it was accepted, so it should).
    pub fn canonical_orders(&self, orders: &str) -> Option<Vec<String>> {
        match self {
            Rules::Memoir44(r) => {
                let ctx = memoir44::battle::Ctx::new(r);
                memoir44::orders::parse(&ctx.board, r, orders)
                    .ok()
                    .map(|lines| lines.iter().map(|l| l.cmd.canonical()).collect())
            }
        }
    }

    /// The names of a die's faces, in the order `roll(n)` numbers them.
    #[must_use]
    pub fn die_faces(&self) -> Vec<String> {
        match self {
            Rules::Memoir44(r) => r.dice.faces.clone(),
        }
    }

    /// The winner's side id once the game is over, or `Some("")` for a draw.
    pub fn result(&self, state: &serde_json::Value) -> Option<String> {
        match self {
            Rules::Memoir44(_) => from_json::<memoir44::State>(state)
                .ok()
                .and_then(|s| memoir44::result(&s)),
        }
    }

    /// The position as text, as `viewer` may see it.
    pub fn render_text(&self, state: &serde_json::Value, viewer: &Viewer) -> String {
        match self {
            Rules::Memoir44(r) => match from_json::<memoir44::State>(state) {
                Ok(s) => memoir44::render_text(r, &s, viewer),
                Err(e) => format!("(state unreadable: {e})\n"),
            },
        }
    }

    /// Every part of a report (maps, combat report, order template, SVG,
    /// JSON) for `viewer`, rendered from the view the ruleset builds for
    /// them; `events` are the last turn's (stored JSON), `mover` who made it.
    pub fn report_parts(
        &self,
        state: &serde_json::Value,
        events: &[serde_json::Value],
        viewer: &Viewer,
        mover: Option<&str>,
    ) -> crate::report::Parts {
        match self {
            Rules::Memoir44(r) => match from_json::<memoir44::State>(state) {
                Ok(s) => {
                    let ev = memoir44::view::visible_json_events(events, viewer);
                    let v = memoir44::view::view_with_events(r, &s, viewer, &ev);
                    crate::report::parts(&v, mover)
                }
                Err(e) => crate::report::Parts {
                    map: format!("(state unreadable: {e})\n"),
                    ..crate::report::Parts::default()
                },
            },
        }
    }

    /// The recipient's view as JSON (docs/report-json.md).
    pub fn view_json(
        &self,
        state: &serde_json::Value,
        events: &[serde_json::Value],
        viewer: &Viewer,
    ) -> serde_json::Value {
        match self {
            Rules::Memoir44(r) => from_json::<memoir44::State>(state)
                .map(|s| {
                    let ev = memoir44::view::visible_json_events(events, viewer);
                    to_json(&memoir44::view::view_with_events(r, &s, viewer, &ev))
                })
                .unwrap_or(serde_json::Value::Null),
        }
    }

    /// The board as SVG for `viewer`, with last turn's `events` drawn.
    pub fn render_svg(
        &self,
        state: &serde_json::Value,
        events: &[serde_json::Value],
        viewer: &Viewer,
    ) -> String {
        self.report_parts(state, events, viewer, None).svg
    }

    /// The compact (40-column) map for `viewer`.
    pub fn render_compact(&self, state: &serde_json::Value, viewer: &Viewer) -> String {
        self.report_parts(state, &[], viewer, None).compact
    }

    /// The orders a side that missed its deadline is taken to have given: a
    /// pass. In Memoir '44 that is the first card of the hand that can be
    /// played ordering no unit (docs/rules/memoir44.md, "No move received").
    pub fn pass_orders(&self, state: &serde_json::Value, side: &str) -> Option<String> {
        match self {
            Rules::Memoir44(r) => {
                let st: memoir44::State = from_json(state).ok()?;
                let idx = st.sides.iter().position(|s| s == side)?;
                st.hands.get(idx)?.iter().find_map(|card| {
                    let orders = format!("PLAY {card}\n");
                    let mut dice = crate::engine::dice::ForcedDice::new(Vec::new());
                    let mut deck = crate::engine::dice::ChaChaDice::from_seed([0; 32]);
                    let mut chance = Chance {
                        dice: &mut dice,
                        deck: &mut deck,
                    };
                    memoir44::adjudicate(r, &st, side, &orders, &mut chance)
                        .ok()
                        .map(|_| orders)
                })
            }
        }
    }

    /// One event as a line of text for a report to `viewer`; None if the
    /// viewer must not see it.
    pub fn describe_event(&self, event: &serde_json::Value, viewer: &Viewer) -> Option<String> {
        match self {
            Rules::Memoir44(_) => memoir44::describe_event(event, viewer),
        }
    }
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
}

impl Scenario {
    /// A shipped scenario by id.
    #[must_use]
    pub fn shipped(id: &str) -> Scenario {
        Scenario {
            id: id.to_string(),
            text: None,
            file: format!("{id}.toml"),
        }
    }

    /// A scenario given as text (read from `file`): its `id` and `ruleset`
    /// keys are read here, the rest by the family when it sets up.
    pub fn from_text(text: &str, file: &str) -> Result<(Scenario, String), DataError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map_or((1, 1), |sp| crate::config::line_col(text, sp.start));
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
            },
            ruleset,
        ))
    }
}

/// Every shipped scenario id.
#[must_use]
pub fn all_scenarios() -> Vec<String> {
    memoir44::scenario_ids()
}

fn to_json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

fn from_json<T: serde::de::DeserializeOwned>(
    v: &serde_json::Value,
) -> Result<T, serde_json::Error> {
    T::deserialize(v)
}
