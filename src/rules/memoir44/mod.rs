//! Memoir '44 (house rules). PLACEHOLDER: the real engine replaces this file.
//! The public functions below are the contract the facade in `rules/mod.rs` uses.

use super::{Chance, DataError, Rejection, Viewer, Waiting};
use crate::engine::dice::Dice;
use serde::{Deserialize, Serialize};

pub struct Ruleset;

impl Ruleset {
    pub fn builtin() -> Result<Ruleset, DataError> {
        Ok(Ruleset)
    }
}

#[must_use]
pub fn scenario_ids() -> Vec<String> {
    vec!["stub".to_string()]
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub sides: Vec<String>,
    pub turn: u32,
    pub to_move: usize,
    pub score: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Event {
    Roll { side: String, faces: Vec<u32> },
}

pub fn setup(_r: &Ruleset, scenario: &str, _deck: &mut dyn Dice) -> Result<State, DataError> {
    if scenario != "stub" {
        return Err(DataError::UnknownScenario(scenario.into(), "stub".into()));
    }
    Ok(State {
        sides: vec!["allies".into(), "axis".into()],
        turn: 0,
        to_move: 0,
        score: vec![0, 0],
    })
}

#[must_use]
pub fn sides(s: &State) -> Vec<String> {
    s.sides.clone()
}

#[must_use]
pub fn waiting(s: &State) -> Waiting {
    if result(s).is_some() {
        return Waiting {
            sides: vec![],
            what: "game over".into(),
        };
    }
    Waiting {
        sides: vec![s.sides[s.to_move].clone()],
        what: format!("{} to roll", s.sides[s.to_move]),
    }
}

pub fn adjudicate(
    _r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
    chance: &mut Chance<'_>,
) -> Result<(State, Vec<Event>), Rejection> {
    if waiting(s).sides.first().map(String::as_str) != Some(side) {
        return Err(Rejection::whole(format!("it is not {side}'s turn")));
    }
    let mut n = 0u32;
    for (i, line) in orders.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut w = t.split_whitespace();
        match (w.next().map(str::to_ascii_uppercase).as_deref(), w.next()) {
            (Some("ROLL"), Some(k)) => {
                n += k
                    .parse::<u32>()
                    .map_err(|_| Rejection::at(i + 1, t, "ROLL needs a number"))?
            }
            _ => return Err(Rejection::at(i + 1, t, "unknown order")),
        }
    }
    let faces: Vec<u32> = (0..n.min(8)).map(|_| chance.dice.roll(6)).collect();
    let mut next = s.clone();
    next.score[s.to_move] += faces.iter().filter(|f| **f == 6).count() as u32;
    next.turn += 1;
    next.to_move = 1 - s.to_move;
    Ok((
        next,
        vec![Event::Roll {
            side: side.into(),
            faces,
        }],
    ))
}

#[must_use]
pub fn result(s: &State) -> Option<String> {
    (s.turn >= 6).then(|| {
        if s.score[0] >= s.score[1] {
            s.sides[0].clone()
        } else {
            s.sides[1].clone()
        }
    })
}

#[must_use]
pub fn render_text(_r: &Ruleset, s: &State, _viewer: &Viewer) -> String {
    format!("turn {} score {:?}\n", s.turn, s.score)
}

#[must_use]
pub fn describe_event(event: &serde_json::Value, _viewer: &Viewer) -> Option<String> {
    Some(event.to_string())
}
