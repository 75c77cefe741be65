//! What happens in a phase of the grid rulebooks, as reports, the case
//! runner and the store read it. Each variant's JSON form (`kind` plus its
//! fields) is the one the store has always held: areas are written as their
//! names ("C4"), unit types as their ruleset ids.

use serde::{Deserialize, Serialize};

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Event {
    /// A unit fired (`phase` is "artillery" or "move"); `faces` are the dice.
    Fire {
        phase: String,
        side: String,
        from: String,
        at: String,
        unit: String,
        target: String,
        dice: u32,
        faces: Vec<String>,
    },
    /// The initiative roll: both sides' dice, in pairs until they differ.
    Initiative {
        rolls: Vec<u32>,
        winner: String,
        first: String,
        /// "first" or "second".
        chose: String,
    },
    Loss {
        side: String,
        at: String,
        unit: String,
        lost: u32,
        strength: u32,
        fieldworks: bool,
    },
    Destroyed {
        side: String,
        at: String,
        unit: String,
        /// The unit it carried; written as null when none.
        carried: Option<String>,
    },
    Retreat {
        side: String,
        unit: String,
        from: String,
        to: String,
    },
    RetreatBlocked {
        side: String,
        unit: String,
        at: String,
    },
    /// An order the dice made impossible: named by its text (`order`) or
    /// by its unit's area (`at`).
    Lapsed {
        side: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        order: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
        why: String,
    },
    Move {
        side: String,
        unit: String,
        path: Vec<String>,
    },
    Stop {
        side: String,
        at: String,
        why: String,
    },
    Minefield {
        side: String,
        at: String,
        unit: String,
        faces: Vec<String>,
    },
    WireRemoved {
        side: String,
        at: String,
    },
    Load {
        side: String,
        at: String,
        unit: String,
    },
    Limber {
        side: String,
        at: String,
        unit: String,
    },
    Unload {
        side: String,
        at: String,
        unit: String,
    },
    Unlimber {
        side: String,
        at: String,
        unit: String,
    },
    /// `winner` is written as null for no winner; "" is a draw.
    GameOver {
        winner: Option<String>,
        reason: String,
        destroyed: Vec<u32>,
    },
}

impl Event {
    /// The `kind` of the JSON form (what cases name in `events`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Fire { .. } => "fire",
            Event::Initiative { .. } => "initiative",
            Event::Loss { .. } => "loss",
            Event::Destroyed { .. } => "destroyed",
            Event::Retreat { .. } => "retreat",
            Event::RetreatBlocked { .. } => "retreat-blocked",
            Event::Lapsed { .. } => "lapsed",
            Event::Move { .. } => "move",
            Event::Stop { .. } => "stop",
            Event::Minefield { .. } => "minefield",
            Event::WireRemoved { .. } => "wire-removed",
            Event::Load { .. } => "load",
            Event::Limber { .. } => "limber",
            Event::Unload { .. } => "unload",
            Event::Unlimber { .. } => "unlimber",
            Event::GameOver { .. } => "game-over",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Event;
    use serde_json::json;

    fn s(x: &str) -> String {
        x.to_string()
    }

    /// One of each variant the engine makes, with the JSON the store holds.
    fn samples() -> Vec<(Event, serde_json::Value)> {
        let mut all = battle_samples();
        all.extend(movement_samples());
        all
    }

    /// The battle's events: fire, initiative, losses, retreats.
    fn battle_samples() -> Vec<(Event, serde_json::Value)> {
        vec![
            (
                Event::Fire {
                    phase: s("artillery"),
                    side: s("red"),
                    from: s("A1"),
                    at: s("B2"),
                    unit: s("artillery"),
                    target: s("infantry"),
                    dice: 2,
                    faces: vec![s("hit"), s("miss")],
                },
                json!({"kind": "fire", "phase": "artillery", "side": "red", "from": "A1",
                    "at": "B2", "unit": "artillery", "target": "infantry", "dice": 2,
                    "faces": ["hit", "miss"]}),
            ),
            (
                Event::Initiative {
                    rolls: vec![3, 5],
                    winner: s("blue"),
                    first: s("red"),
                    chose: s("second"),
                },
                json!({"kind": "initiative", "rolls": [3, 5], "winner": "blue",
                    "first": "red", "chose": "second"}),
            ),
            (
                Event::Loss {
                    side: s("red"),
                    at: s("B2"),
                    unit: s("infantry"),
                    lost: 1,
                    strength: 2,
                    fieldworks: false,
                },
                json!({"kind": "loss", "side": "red", "at": "B2", "unit": "infantry",
                    "lost": 1, "strength": 2, "fieldworks": false}),
            ),
            (
                Event::Destroyed {
                    side: s("red"),
                    at: s("B2"),
                    unit: s("truck"),
                    carried: None,
                },
                json!({"kind": "destroyed", "side": "red", "at": "B2", "unit": "truck",
                    "carried": null}),
            ),
            (
                Event::Destroyed {
                    side: s("red"),
                    at: s("B2"),
                    unit: s("truck"),
                    carried: Some(s("infantry")),
                },
                json!({"kind": "destroyed", "side": "red", "at": "B2", "unit": "truck",
                    "carried": "infantry"}),
            ),
            (
                Event::Retreat {
                    side: s("red"),
                    unit: s("infantry"),
                    from: s("B2"),
                    to: s("B3"),
                },
                json!({"kind": "retreat", "side": "red", "unit": "infantry", "from": "B2",
                    "to": "B3"}),
            ),
            (
                Event::RetreatBlocked {
                    side: s("red"),
                    unit: s("infantry"),
                    at: s("B2"),
                },
                json!({"kind": "retreat-blocked", "side": "red", "unit": "infantry",
                    "at": "B2"}),
            ),
        ]
    }

    /// Orders that lapsed, movement, transport and the game's end.
    fn movement_samples() -> Vec<(Event, serde_json::Value)> {
        vec![
            (
                Event::Lapsed {
                    side: s("red"),
                    order: Some(s("MOVE A1 A2")),
                    at: None,
                    why: s("gone"),
                },
                json!({"kind": "lapsed", "side": "red", "order": "MOVE A1 A2", "why": "gone"}),
            ),
            (
                Event::Lapsed {
                    side: s("red"),
                    order: None,
                    at: Some(s("A1")),
                    why: s("gone"),
                },
                json!({"kind": "lapsed", "side": "red", "at": "A1", "why": "gone"}),
            ),
            (
                Event::Move {
                    side: s("red"),
                    unit: s("infantry"),
                    path: vec![s("A1"), s("A2")],
                },
                json!({"kind": "move", "side": "red", "unit": "infantry",
                    "path": ["A1", "A2"]}),
            ),
            (
                Event::Stop {
                    side: s("red"),
                    at: s("A2"),
                    why: s("woods"),
                },
                json!({"kind": "stop", "side": "red", "at": "A2", "why": "woods"}),
            ),
            (
                Event::Minefield {
                    side: s("red"),
                    at: s("A2"),
                    unit: s("infantry"),
                    faces: vec![s("hit")],
                },
                json!({"kind": "minefield", "side": "red", "at": "A2", "unit": "infantry",
                    "faces": ["hit"]}),
            ),
            (
                Event::WireRemoved {
                    side: s("red"),
                    at: s("A2"),
                },
                json!({"kind": "wire-removed", "side": "red", "at": "A2"}),
            ),
            (
                Event::Load {
                    side: s("red"),
                    at: s("A2"),
                    unit: s("infantry"),
                },
                json!({"kind": "load", "side": "red", "at": "A2", "unit": "infantry"}),
            ),
            (
                Event::Limber {
                    side: s("red"),
                    at: s("A2"),
                    unit: s("gun"),
                },
                json!({"kind": "limber", "side": "red", "at": "A2", "unit": "gun"}),
            ),
            (
                Event::Unload {
                    side: s("red"),
                    at: s("A3"),
                    unit: s("infantry"),
                },
                json!({"kind": "unload", "side": "red", "at": "A3", "unit": "infantry"}),
            ),
            (
                Event::Unlimber {
                    side: s("red"),
                    at: s("A3"),
                    unit: s("gun"),
                },
                json!({"kind": "unlimber", "side": "red", "at": "A3", "unit": "gun"}),
            ),
            (
                Event::GameOver {
                    winner: Some(s("red")),
                    reason: s("enemy units destroyed"),
                    destroyed: vec![4, 1],
                },
                json!({"kind": "game-over", "winner": "red", "reason": "enemy units destroyed",
                    "destroyed": [4, 1]}),
            ),
            (
                Event::GameOver {
                    winner: None,
                    reason: s("the last turn is over"),
                    destroyed: vec![0, 0],
                },
                json!({"kind": "game-over", "winner": null, "reason": "the last turn is over",
                    "destroyed": [0, 0]}),
            ),
        ]
    }

    #[test]
    fn every_event_round_trips_through_its_stored_json() {
        for (e, stored) in samples() {
            let v = serde_json::to_value(&e).expect("serializes");
            assert_eq!(v, stored, "{e:?}");
            assert_eq!(v["kind"], e.kind(), "{e:?}");
            let back: Event = serde_json::from_value(stored).expect("parses");
            assert_eq!(back, e);
        }
    }
}
