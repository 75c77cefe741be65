//! Events as they cross the rules interface (docs/architecture.md, "The
//! event envelope").
//!
//! A family's events are its own typed values ([`crate::Family::Event`]);
//! the service holds them as an [`Event`]: a typed envelope of
//! family-neutral facts the service may read without knowing the family,
//! and the family's own event behind a trait object ([`FamilyEvent`]),
//! which only the family reads back, by downcasting ([`Event::downcast`]),
//! never by parsing. JSON exists only at the store's boundary
//! ([`Event::to_store`]; [`crate::ErasedFamily::event_from_store`] reads a
//! stored event once, through its family) and in the export. This module is
//! the one codec of the store form:
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
use serde::Serialize;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

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

/// The fields of the store form that an export never hides, even of an
/// event private to one side: what it is, whose, that it is private, and
/// its dice (public: every turn's dice seed is revealed after the turn).
/// The export's redaction keeps these and hides the rest.
pub const PUBLIC_FIELDS: &[&str] = &["kind", "side", "private", "faces", "rolls", "sides"];

/// A family's own event behind the interface: any typed value that writes
/// its store form. Every family's `Family::Event` is one (the blanket impl).
pub trait FamilyEvent: Any + Send + Sync + Debug {
    /// The store form: a JSON object with a string `kind`.
    fn to_json(&self) -> Value;
    /// For [`Event::downcast`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Any + Send + Sync + Debug> FamilyEvent for T {
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The family-neutral facts of an event (the module's table), read once.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Envelope {
    kind: String,
    side: Option<String>,
    private: bool,
    faces: Vec<String>,
    rolls: Vec<u32>,
    sides: u32,
}

impl Envelope {
    /// The envelope of a store form (an object with a string `kind`).
    fn read(map: &Map<String, Value>) -> Envelope {
        let text = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_string);
        let number = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
        Envelope {
            kind: text("kind").unwrap_or_default(),
            side: text("side"),
            private: map.get("private").and_then(Value::as_bool) == Some(true),
            faces: map
                .get("faces")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            rolls: map
                .get("rolls")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(number).collect())
                .unwrap_or_default(),
            sides: map.get("sides").and_then(number).unwrap_or(6),
        }
    }
}

/// What is behind the envelope.
#[derive(Debug, Clone)]
enum Body {
    /// The family's own event, typed.
    Family(Arc<dyn FamilyEvent>),
    /// The judge's own note of a referee's correction: its reason.
    Referee(String),
    /// A store form no family has read: loaded without its family
    /// ([`Event::from_store`], for the envelope alone), or one its family
    /// could not read (`unreadable` says why: a kind from a newer build, a
    /// damaged row).
    Stored {
        json: Map<String, Value>,
        unreadable: Option<String>,
    },
}

/// One event: the envelope the service reads and the family's own event
/// behind it (the module's table).
#[derive(Debug, Clone)]
pub struct Event {
    envelope: Envelope,
    body: Body,
}

/// A store form that is an object with a string `kind`, or `None`.
fn object_with_kind(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) if map.get("kind").is_some_and(Value::is_string) => Some(map),
        _ => None,
    }
}

impl Event {
    /// A family's own event as the interface carries it.
    pub fn of<T: FamilyEvent>(event: T) -> Event {
        match object_with_kind(event.to_json()) {
            Some(map) => Event {
                envelope: Envelope::read(&map),
                body: Body::Family(Arc::new(event)),
            },
            None => Event::unrecorded(),
        }
    }

    /// The event of a family value that has no store form (a bug).
    fn unrecorded() -> Event {
        let mut json = Map::new();
        json.insert("kind".into(), Value::String(UNRECORDED.into()));
        Event {
            envelope: Envelope::read(&json),
            body: Body::Stored {
                json,
                unreadable: Some("the family's event has no store form".into()),
            },
        }
    }

    /// The family's own event, if this is one of type `T` (`None`: the
    /// judge's [`REFEREE_NOTE`], another family's, or an unreadable one).
    #[must_use]
    pub fn downcast<T: Any>(&self) -> Option<&T> {
        match &self.body {
            Body::Family(e) => (**e).as_any().downcast_ref(),
            _ => None,
        }
    }

    /// The referee's note of a correction, as an event.
    #[must_use]
    pub fn referee(reason: &str) -> Event {
        Event {
            envelope: Envelope {
                kind: REFEREE_NOTE.into(),
                side: None,
                private: false,
                faces: Vec::new(),
                rolls: Vec::new(),
                sides: 6,
            },
            body: Body::Referee(reason.to_string()),
        }
    }

    /// The store boundary, read once through the family whose event type is
    /// `T` ([`crate::ErasedFamily::event_from_store`] calls it): the judge's
    /// own note, the family's typed event, or, if the family cannot read
    /// it, an event that says so ([`Event::unreadable`]) and keeps its
    /// store form; never dropped.
    #[must_use]
    pub fn from_store_as<T: FamilyEvent + DeserializeOwned>(value: Value) -> Event {
        let e = Event::from_store(value);
        let Body::Stored {
            json,
            unreadable: None,
        } = &e.body
        else {
            return e;
        };
        match T::deserialize(json) {
            Ok(mine) => Event {
                envelope: e.envelope,
                body: Body::Family(Arc::new(mine)),
            },
            Err(why) => Event {
                body: Body::Stored {
                    json: json.clone(),
                    unreadable: Some(why.to_string()),
                },
                envelope: e.envelope,
            },
        }
    }

    /// The store boundary without the family: the envelope only (a
    /// campaign's standings counting pre-battle dice, the export). A family
    /// is never handed such an event's body: it is told as unreadable. A
    /// value that is not an object with a `kind` reads as an event of kind
    /// [`UNRECORDED`] holding nothing else.
    #[must_use]
    pub fn from_store(value: Value) -> Event {
        let Some(json) = object_with_kind(value) else {
            return Event::unrecorded();
        };
        let envelope = Envelope::read(&json);
        if envelope.kind == REFEREE_NOTE {
            let reason = json.get("reason").and_then(Value::as_str).unwrap_or("");
            return Event::referee(reason);
        }
        Event {
            envelope,
            body: Body::Stored {
                json,
                unreadable: None,
            },
        }
    }

    /// The store boundary: the JSON object the store keeps.
    #[must_use]
    pub fn to_store(&self) -> Value {
        match &self.body {
            Body::Family(e) => match object_with_kind(e.to_json()) {
                Some(map) => Value::Object(map),
                None => Event::unrecorded().to_store(),
            },
            Body::Referee(reason) => {
                let mut map = Map::new();
                map.insert("kind".into(), Value::String(REFEREE_NOTE.into()));
                map.insert("reason".into(), Value::String(reason.clone()));
                Value::Object(map)
            }
            Body::Stored { json, .. } => Value::Object(json.clone()),
        }
    }

    /// What happened, in the family's words (`battle`, `card-drawn`...).
    #[must_use]
    pub fn kind(&self) -> &str {
        &self.envelope.kind
    }

    /// The side the event concerns, if one.
    #[must_use]
    pub fn side(&self) -> Option<&str> {
        self.envelope.side.as_deref()
    }

    /// Told only to [`Event::side`] and the referee (a card drawn).
    #[must_use]
    pub fn private(&self) -> bool {
        self.envelope.private
    }

    /// The die faces the event rolled, by name, in the order drawn.
    #[must_use]
    pub fn faces(&self) -> Vec<&str> {
        self.envelope.faces.iter().map(String::as_str).collect()
    }

    /// The numbered dice the event rolled (an initiative D6), in the order
    /// drawn, and their number of sides.
    #[must_use]
    pub fn rolls(&self) -> (Vec<u32>, u32) {
        (self.envelope.rolls.clone(), self.envelope.sides)
    }

    /// The referee's reason, if this is the judge's [`REFEREE_NOTE`].
    #[must_use]
    pub fn referee_note(&self) -> Option<&str> {
        match &self.body {
            Body::Referee(reason) => Some(reason),
            _ => None,
        }
    }

    /// Why the event's family could not read it (a kind from a newer build,
    /// a damaged row), or `None`: it was read, or never given to a family.
    #[must_use]
    pub fn unreadable(&self) -> Option<&str> {
        match &self.body {
            Body::Stored {
                unreadable: Some(why),
                ..
            } => Some(why),
            _ => None,
        }
    }

    /// A campaign's pre-battle dice: the side that rolled and how many dice.
    #[must_use]
    pub fn pre_battle_dice(&self) -> Option<(&str, usize)> {
        if self.kind() != PRE_BATTLE_ROLL {
            return None;
        }
        Some((self.side()?, self.envelope.faces.len()))
    }

    /// The line of an event the judge itself writes, for every viewer;
    /// `None` for a family's event.
    #[must_use]
    pub fn describe_judges(&self) -> Option<String> {
        self.referee_note()
            .map(|reason| format!("The referee's reason: {reason}"))
    }

    /// What a viewer is told of an event its family cannot read (a kind
    /// from a newer build, a damaged row): that there was one, of what
    /// kind, and nothing at all if it was private to another side.
    #[must_use]
    pub fn describe_unknown(&self, viewer: &crate::Viewer) -> Option<String> {
        if self.private() {
            let mine = match viewer {
                crate::Viewer::Referee => true,
                crate::Viewer::Side(me) => Some(me.as_str()) == self.side(),
                crate::Viewer::Observer | crate::Viewer::Revealed(_) => false,
            };
            if !mine {
                return None;
            }
        }
        Some(format!("(an event the judge cannot read: {})", self.kind()))
    }
}

/// Two events are equal when their envelopes and store forms are.
impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.envelope == other.envelope && self.to_store() == other.to_store()
    }
}

/// An event serializes as its store form.
impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_store().serialize(s)
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
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
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
        let battle = Mine::Battle {
            side: "allies".into(),
            faces: vec!["star".into(), "flag".into()],
        };
        let b = Event::of(battle.clone());
        assert_eq!(b.kind(), "battle");
        assert_eq!(b.side(), Some("allies"));
        assert!(!b.private());
        assert_eq!(b.faces(), ["star", "flag"]);
        assert_eq!(b.downcast::<Mine>(), Some(&battle));
        assert_eq!(b.downcast::<String>(), None);
        let c = Event::of(Mine::CardDrawn {
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
            Some("(an event the judge cannot read: card-drawn)")
        );
        let i = Event::of(Mine::Initiative {
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
        assert_eq!(Event::from_store_as::<Mine>(n.to_store()), n);
        assert_eq!(n.downcast::<Mine>(), None);
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
        let battle = Mine::Battle {
            side: "axis".into(),
            faces: vec!["grenade".into()],
        };
        let b = Event::of(battle.clone());
        let back = Event::from_store_as::<Mine>(b.to_store());
        assert_eq!(back, b);
        assert_eq!(back.downcast::<Mine>(), Some(&battle));
        assert_eq!(back.unreadable(), None);
    }

    /// The fields an export never hides are the envelope's: each of them
    /// changes what the envelope reads.
    #[test]
    fn the_public_fields_are_the_envelopes() {
        let full = serde_json::json!({"kind": "battle", "side": "axis", "private": true,
            "faces": ["star"], "rolls": [2], "sides": 10, "hex": "E5"});
        let read = Event::from_store(full.clone());
        for k in PUBLIC_FIELDS {
            let mut less = full.clone();
            less.as_object_mut().unwrap().remove(*k);
            assert_ne!(Event::from_store(less).envelope, read.envelope, "{k}");
        }
    }

    /// A stored event its family can no longer read is kept, store form
    /// and all, and says why; it is never dropped or misread.
    #[test]
    fn an_event_the_family_cannot_read_says_so() {
        let stored = serde_json::json!({"kind": "battle", "side": "axis", "faces": 3});
        let e = Event::from_store_as::<Mine>(stored.clone());
        assert_eq!(e.kind(), "battle");
        assert_eq!(e.downcast::<Mine>(), None);
        assert!(e.unreadable().is_some_and(|why| !why.is_empty()));
        assert_eq!(e.to_store(), stored);
        assert_eq!(
            e.describe_unknown(&crate::Viewer::Observer).as_deref(),
            Some("(an event the judge cannot read: battle)")
        );
    }
}
