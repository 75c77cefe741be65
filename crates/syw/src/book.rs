//! The Seven Years' War's parts of the measured core's types
//! ([`crate::Book`]): a unit's experience, brigade, regiment, refused
//! wings, marker; the position's player-turn and fog-of-war effects; the
//! ruleset's own tables; the book's events.

use super::events::{Syw, SywNote};
use super::{Sequence, SevenYearsWar, Tables};
use crate::report::{fire_line, move_line, Pen};
use crate::ruleset::Ruleset;
use crate::state::{Placement, State, Unit};
use serde::{Deserialize, Serialize};

/// One wing of a line pivoted at a break in the line ("A line may
/// pivot/refuse the line up to 45° forward or 90° back").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// "left" or "right": the end of the line.
    pub end: String,
    /// Files in the wing, counted from that end.
    pub files: u32,
    /// Degrees the wing is turned: positive forward, negative back.
    pub angle: i32,
}

/// The Seven Years' War's part of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SywUnit {
    /// Green, trained or veteran.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub experience: String,
    /// The brigade (a command unit: the brigade it commands, or "army"
    /// for the army commander).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub brigade: String,
    /// The cavalry regiment a line cavalry squadron belongs to (L: "Line
    /// cavalry move by squadron").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub regiment: String,
    /// A line's refused wings (at most one at each end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refusal>,
    /// "red" (reforming) or "orange" (disordered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// The game turn of its last morale TEST.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tested: u32,
    /// Routed at least one move already (later moves go to its own edge).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub routed_before: bool,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// The Seven Years' War's own placement keys (beside the shared ones,
/// `crate::placement`): a Charge! key is refused.
#[derive(Debug, Default)]
pub struct SywKeys {
    /// Experience, brigade, marker ("red"/"orange").
    pub experience: Option<String>,
    pub brigade: Option<String>,
    /// A line cavalry squadron's regiment.
    pub regiment: Option<String>,
    /// A line's refused wings, as the order writes them after REFUSE
    /// ("LEFT 3 BACK 90").
    pub refused: Vec<String>,
    pub marker: Option<String>,
    /// Already routing (forced "rout") or retreating.
    pub forced: Option<String>,
    /// Starts off the table ("Off table movement via umpire"); `at` is
    /// where it comes on.
    pub off_table: bool,
    /// Its entry throws already failed (cases).
    pub delayed: u32,
}

adjutant_measured_core::book_keys!(SywKeys {
    experience,
    brigade,
    regiment,
    refused,
    marker,
    forced,
    off_table,
    delayed,
});

/// The Seven Years' War's part of a position.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SywState {
    /// The player-turn and fog-of-war effects (None until the first
    /// player-turn starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syw: Option<Box<Sequence>>,
}

/// The Seven Years' War's part of a ruleset: its own tables.
#[derive(Debug, Clone, Default)]
pub struct SywTables {
    pub syw: Option<Box<Tables>>,
}

/// The Seven Years' War's shipped scenarios: (id, ruleset id, text).
pub const SHIPPED: &[(&str, &str, &str)] = &[(
    "minden-1759",
    "seven-years-war",
    include_str!("../../../scenarios/seven-years-war/minden-1759.toml"),
)];

impl crate::Book for SevenYearsWar {
    type Unit = SywUnit;
    type State = SywState;
    type Tables = SywTables;
    type Event = SywNote;
    type Placement = SywKeys;

    /// A player-turn's adjudication costs some ten times a Memoir '44
    /// turn's (docs/general.md).
    const COSTLY: bool = true;

    fn shipped() -> &'static [(&'static str, &'static str, &'static str)] {
        SHIPPED
    }

    fn procedures() -> &'static dyn crate::Procedures<Self> {
        &SevenYearsWar
    }

    fn unit_from(p: &Placement<SywKeys>) -> SywUnit {
        let upper = |v: &Option<String>| v.clone().unwrap_or_default().trim().to_ascii_uppercase();
        SywUnit {
            brigade: upper(&p.book.brigade),
            regiment: upper(&p.book.regiment),
            ..SywUnit::default()
        }
    }

    fn status(u: &Unit<Self>) -> (Vec<String>, Vec<String>) {
        let mut s = Vec::new();
        if !u.experience.is_empty() {
            s.push(u.experience.clone());
            if !u.brigade.is_empty() {
                s.push(format!("brigade {}", u.brigade));
            }
            if !u.regiment.is_empty() {
                s.push(format!("regiment {}", u.regiment));
            }
            for x in &u.refused {
                s.push(format!(
                    "{} wing refused ({} files {}° {})",
                    x.end,
                    x.files,
                    x.angle.abs(),
                    if x.angle < 0 { "back" } else { "forward" }
                ));
            }
            match u.marker.as_deref() {
                Some("red") => s.push("RED marker (reforming)".into()),
                Some("orange") => s.push("ORANGE marker (disordered)".into()),
                _ => {}
            }
        }
        (s, Vec::new())
    }

    fn case_fact(u: &Unit<Self>, key: &str) -> Option<String> {
        match key {
            "marker" => u.marker.clone(),
            _ => None,
        }
    }

    fn amended(text: String, lines: Vec<String>) -> SywNote {
        SywNote::new(text, Syw::Amended { lines })
    }

    /// The store's `"syw": true` mark on every event.
    const VIEW_MARKS: &'static [&'static str] = &["syw"];

    fn describe(e: &SywNote) -> Option<String> {
        Some(e.text.clone())
    }

    /// A move: its front's centre before and after; fire: from the
    /// firer's front to the target's, where both are still on the table.
    fn draw(o: &mut String, _r: &Ruleset<Self>, st: &State<Self>, e: &SywNote, pen: &Pen<'_>) {
        match &e.what {
            Syw::Moved {
                from: Some(a), at, ..
            } => move_line(o, pen, (a[0], a[1]), (at[0], at[1])),
            Syw::Fire { unit, target, .. } | Syw::ResponseFire { unit, target, .. } => {
                if let (Some(a), Some(b)) = (st.unit(unit), st.unit(target)) {
                    fire_line(o, pen, (a.front.x, a.front.y), (b.front.x, b.front.y));
                }
            }
            _ => {}
        }
    }

    fn kind(e: &SywNote) -> &'static str {
        e.what.kind()
    }
}
