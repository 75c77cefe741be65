//! Events as they cross the rules interface (docs/architecture.md, "The
//! event envelope").
//!
//! A family's events are its own typed values ([`crate::Family::Event`]);
//! the service holds them as an [`Event`]: the family's event in its store
//! form (the JSON object the store keeps and `export` writes), which only the
//! family reads back, and a small envelope of family-neutral facts the
//! service may read without knowing the family:
//!
//! | what the service reads | field of the store form | who writes it |
//! |---|---|---|
//! | [`Event::kind`] | `kind` (a string; every event has one) | every family |
//! | [`Event::side`]: the side it concerns | `side` | the family, where one side |
//! | [`Event::private`]: told only to that side (and the referee) | `private: true` | the family |
//! | [`Event::faces`]: die faces rolled, in order | `faces` (face names) | the family |
//! | [`Event::rolls`]: numbered dice rolled, in order | `rolls`, `sides` (6 if absent) | the family |
//! | [`Event::referee_note`]: a referee's reason | `kind = "referee-note"`, `reason` | the judge ([`Event::referee`]) |
//! | [`Event::pre_battle_dice`]: a campaign's pre-battle dice | `kind = "pre-battle-roll"`, `side`, `faces` | a family with campaigns |
//!
//! Dice are public (every turn's dice seed is revealed after the turn), so
//! `faces`, `rolls` and `sides` are never private: `verify` checks them
//! against the turn's dice stream, even in an export that hides a private
//! event's other fields.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The kind of the event the judge puts first in a referee's correction.
/// Every family's reports give it (the interface describes it; a family
/// never sees it).
pub const REFEREE_NOTE: &str = "referee-note";

/// The kind of a campaign's pre-battle dice: `side` rolled `faces` before
/// the battle (docs/campaigns.md); the campaign's standings count them.
pub const PRE_BATTLE_ROLL: &str = "pre-battle-roll";

/// The kind an event is given if the family's value cannot be written as a
/// JSON object (a bug: the conformance test fails on it).
pub const UNRECORDED: &str = "unrecorded-event";

/// One event: a family's typed event in its store form, with the envelope
/// the service reads (the module's table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Event(Map<String, Value>);

impl Event {
    /// A family's own event as the interface carries it.
    pub fn of<T: Serialize>(event: &T) -> Event {
        match serde_json::to_value(event) {
            Ok(Value::Object(map)) if map.get("kind").is_some_and(Value::is_string) => Event(map),
            _ => {
                let mut map = Map::new();
                map.insert("kind".into(), Value::String(UNRECORDED.into()));
                Event(map)
            }
        }
    }

    /// The family's own event back (`None`: it is not one of the family's,
    /// such as the judge's [`REFEREE_NOTE`], or it is from a newer build).
    #[must_use]
    pub fn read<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(&self.0).ok()
    }

    /// The referee's note of a correction, as an event.
    #[must_use]
    pub fn referee(reason: &str) -> Event {
        let mut map = Map::new();
        map.insert("kind".into(), Value::String(REFEREE_NOTE.into()));
        map.insert("reason".into(), Value::String(reason.into()));
        Event(map)
    }

    /// The store boundary: an event as the store and an export keep it. A
    /// value that is not an object with a `kind` reads as an event of kind
    /// [`UNRECORDED`] holding nothing else.
    #[must_use]
    pub fn from_store(value: Value) -> Event {
        match value {
            Value::Object(map) if map.get("kind").is_some_and(Value::is_string) => Event(map),
            other => Event::of(&other),
        }
    }

    /// The store boundary: the JSON object the store keeps.
    #[must_use]
    pub fn to_store(&self) -> Value {
        Value::Object(self.0.clone())
    }

    /// What happened, in the family's words (`battle`, `card-drawn`...).
    #[must_use]
    pub fn kind(&self) -> &str {
        self.0.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// The side the event concerns, if one.
    #[must_use]
    pub fn side(&self) -> Option<&str> {
        self.0.get("side").and_then(Value::as_str)
    }

    /// Told only to [`Event::side`] and the referee (a card drawn).
    #[must_use]
    pub fn private(&self) -> bool {
        self.0.get("private").and_then(Value::as_bool) == Some(true)
    }

    /// The die faces the event rolled, by name, in the order drawn.
    #[must_use]
    pub fn faces(&self) -> Vec<&str> {
        self.0
            .get("faces")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// The numbered dice the event rolled (an initiative D6), in the order
    /// drawn, and their number of sides.
    #[must_use]
    pub fn rolls(&self) -> (Vec<u32>, u32) {
        let sides = self
            .0
            .get("sides")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(6);
        let rolls = self
            .0
            .get("rolls")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|n| u32::try_from(n).ok())
                    .collect()
            })
            .unwrap_or_default();
        (rolls, sides)
    }

    /// The referee's reason, if this is the judge's [`REFEREE_NOTE`].
    #[must_use]
    pub fn referee_note(&self) -> Option<&str> {
        if self.kind() != REFEREE_NOTE {
            return None;
        }
        Some(self.0.get("reason").and_then(Value::as_str).unwrap_or(""))
    }

    /// A campaign's pre-battle dice: the side that rolled and how many dice.
    #[must_use]
    pub fn pre_battle_dice(&self) -> Option<(&str, usize)> {
        if self.kind() != PRE_BATTLE_ROLL {
            return None;
        }
        Some((self.side()?, self.faces().len()))
    }

    /// The line of an event the judge itself writes, for every viewer;
    /// `None` for a family's event.
    #[must_use]
    pub fn describe_judges(&self) -> Option<String> {
        self.referee_note()
            .map(|reason| format!("The referee's reason: {reason}"))
    }

    /// What a viewer is told of an event its family cannot read (a kind
    /// from a newer build): its kind, and nothing at all if it was private
    /// to another side.
    #[must_use]
    pub fn describe_unknown(&self, viewer: &crate::Viewer) -> Option<String> {
        if self.private() {
            let mine = match viewer {
                crate::Viewer::Referee => true,
                crate::Viewer::Side(me) => Some(me.as_str()) == self.side(),
                crate::Viewer::Observer => false,
            };
            if !mine {
                return None;
            }
        }
        Some(format!("({})", self.kind()))
    }
}

/// A family's events as JSON objects with sorted keys, the form the store
/// keeps (a `serde_json::Value` object sorts its keys): for a view's JSON
/// that lists events (`#[serde(serialize_with = ...)]`).
///
/// # Errors
/// Never in practice: a family's event always serializes.
pub fn serialize_sorted<T: Serialize, S: serde::Serializer>(
    ev: &[T],
    s: S,
) -> Result<S::Ok, S::Error> {
    let v: Vec<Value> = ev
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()
        .map_err(serde::ser::Error::custom)?;
    v.serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(tag = "kind", rename_all = "kebab-case")]
    enum Mine {
        Battle {
            side: String,
            faces: Vec<String>,
        },
        CardDrawn {
            side: String,
            card: String,
            private: bool,
        },
        Initiative {
            rolls: Vec<u32>,
            sides: u32,
        },
    }

    #[test]
    fn the_envelope_reads_what_the_family_wrote() {
        let b = Event::of(&Mine::Battle {
            side: "allies".into(),
            faces: vec!["star".into(), "flag".into()],
        });
        assert_eq!(b.kind(), "battle");
        assert_eq!(b.side(), Some("allies"));
        assert!(!b.private());
        assert_eq!(b.faces(), ["star", "flag"]);
        assert_eq!(
            b.read::<Mine>(),
            Some(Mine::Battle {
                side: "allies".into(),
                faces: vec!["star".into(), "flag".into()],
            })
        );
        let c = Event::of(&Mine::CardDrawn {
            side: "axis".into(),
            card: "recon-left".into(),
            private: true,
        });
        assert!(c.private());
        assert_eq!(
            c.describe_unknown(&crate::Viewer::Side("allies".into())),
            None
        );
        assert_eq!(
            c.describe_unknown(&crate::Viewer::Side("axis".into()))
                .as_deref(),
            Some("(card-drawn)")
        );
        let i = Event::of(&Mine::Initiative {
            rolls: vec![3, 5],
            sides: 10,
        });
        assert_eq!(i.rolls(), (vec![3, 5], 10));
        assert_eq!(b.rolls(), (vec![], 6));
    }

    #[test]
    fn the_store_form_round_trips_and_the_judges_note_is_not_a_familys() {
        let n = Event::referee("a misread order");
        assert_eq!(n.referee_note(), Some("a misread order"));
        assert_eq!(Event::from_store(n.to_store()), n);
        assert_eq!(n.read::<Mine>(), None);
        assert_eq!(
            n.describe_judges().as_deref(),
            Some("The referee's reason: a misread order")
        );
        let odd = Event::from_store(serde_json::json!([1, 2]));
        assert_eq!(odd.kind(), UNRECORDED);
        let pre = Event::from_store(serde_json::json!(
            {"kind": PRE_BATTLE_ROLL, "side": "axis", "faces": ["star", "flag", "star"]}
        ));
        assert_eq!(pre.pre_battle_dice(), Some(("axis", 3)));
    }
}
