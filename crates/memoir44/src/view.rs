//! The position as one recipient may see it (DESIGN.md, principle 7).
//!
//! Every report (text map, combat report, SVG, HTML, the JSON attachment) is
//! rendered from a [`View`], never from a [`State`]: the opponent's hand, the
//! deck order and the seed are simply not in it. A fog-of-war variant would
//! leave unseen units out of `units` and their events out of `last_turn`.
//! The JSON form is documented in docs/report-json.md.

use super::board::Hex;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::{Played, State};
use super::Viewer;
use serde::{Deserialize, Serialize};

/// The JSON schema version of [`View`].
pub const SCHEMA: u32 = 1;

/// The board's shape and the hexes that are not open countryside.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardView {
    /// Hexes in the long rows (rows 1, 3, ...); the short rows hold one less.
    pub columns: i32,
    pub rows: i32,
    /// The two section lines as doubled columns (a hex at letter `l` of row
    /// `r` has doubled column `2l + r % 2`, rows 0-based). A hex whose doubled
    /// column equals a line is cut by it and lies in both sections.
    pub section_lines: [i32; 2],
    /// Every hex with a tile other than open or an obstacle, in board order.
    pub hexes: Vec<HexView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HexView {
    pub at: Hex,
    /// The tile id (`woods`, `town`, `hill`, `river`, ...), or `open`.
    pub tile: String,
    /// Obstacle ids (`wire`, `bunker`, `hedgehog`, `sandbag`).
    pub obstacles: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitView {
    pub id: u32,
    pub side: String,
    /// The unit type id (`infantry`, `medium-armour`, ...).
    pub kind: String,
    /// The unit class (`infantry`, `armour`, `artillery`).
    pub class: String,
    /// The letter the maps print for it (from the ruleset).
    #[serde(default)]
    pub letter: String,
    pub at: Hex,
    pub figures: u32,
    pub start: u32,
    /// Appendix 2, Trains: a train's wagon, artillery model and load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<super::trains::TrainView>,
}

/// A minefield piece (Appendix 1). Both players see where it lies; its
/// strength only once it is turned over (the referee always).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinefieldView {
    pub at: Hex,
    /// The side that laid it.
    pub side: String,
    /// Its numbered side, when this viewer may see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<u32>,
    /// Turned over (its strength is public).
    #[serde(default)]
    pub revealed: bool,
}

/// A Battle Star marker on the board (Optional Rules, Battle Star Markers),
/// or one of Bridge Demolition's: `charges` on a bridge rigged for
/// detonation, `bridge-hits` for the tank symbols scored on a bridge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkerView {
    pub at: Hex,
    /// The marker's kind: a Battle Star kind of the rules (`heroic-leader`,
    /// `drop-zone`, `dam` ...), `charges` or `bridge-hits`.
    pub kind: String,
    /// The side it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// Stars on a dam; hits on a bridge.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub count: u32,
    /// It goes with the unit on its hex.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub with_unit: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveView {
    pub at: Hex,
    /// Whose victory marker it is.
    pub side: String,
    /// True while that side holds it (it counts as a medal).
    pub held: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideView {
    pub id: String,
    pub name: String,
    /// True for the side whose edge is row 1.
    pub row_one: bool,
    pub medals: u32,
    pub hand_size: usize,
    /// The cards in hand: only for this side's own view and the referee's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<String>>,
    /// The card this side played on its last turn (public).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_played: Option<Played>,
    /// Political Commissar: the card face down under the marker (its name
    /// for this side's own view and the referee's, "hidden" for others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commissar: Option<String>,
}

/// What one recipient may see of a game at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct View {
    pub schema: u32,
    pub ruleset: String,
    pub scenario: String,
    pub title: String,
    pub viewer: Viewer,
    /// Turns played so far.
    pub turn: u32,
    /// The side to move next, None once the game is over.
    pub to_move: Option<String>,
    pub over: bool,
    /// Once over: the winner's side id, or "" for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// Victory points needed to win.
    pub victory: u32,
    pub board: BoardView,
    pub sides: Vec<SideView>,
    pub units: Vec<UnitView>,
    pub objectives: Vec<ObjectiveView>,
    /// Appendix 1, Minefields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minefields: Vec<MinefieldView>,
    /// Battle Star markers, charges and bridge hits this viewer may see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<MarkerView>,
    /// Cards left in the deck (never their order). None for a side under
    /// fog of war: what the enemy's cards do to the deck would name them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck_size: Option<usize>,
    /// Cards in the used pile (None, as the deck's, under fog of war).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_size: Option<usize>,
    /// The last turn's events as this viewer may see them (other sides'
    /// drawn and face-down cards read "hidden").
    pub last_turn: Vec<Event>,
    /// Night & Severe Weather: the conditions in force, as a sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<String>,
    /// Supply Lines & Sieges: the viewer's units out of supply, as a
    /// sentence (the referee's: every side's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply: Option<String>,
}

/// May `viewer` see what is private to `side`?
#[must_use]
pub fn sees_private(viewer: &Viewer, side: &str) -> bool {
    match viewer {
        Viewer::Referee => true,
        Viewer::Side(v) => v == side,
        Viewer::Observer | Viewer::Revealed(_) => false,
    }
}

/// The card text shown in place of a card the viewer may not see.
pub const HIDDEN: &str = "hidden";

/// The events `viewer` may see, in order; hidden cards read [`HIDDEN`].
#[must_use]
pub fn visible_events(events: &[Event], viewer: &Viewer) -> Vec<Event> {
    events
        .iter()
        .map(|e| match e {
            Event::CardDrawn { side, .. } if !sees_private(viewer, side) => Event::CardDrawn {
                side: side.clone(),
                card: HIDDEN.into(),
                private: true,
            },
            Event::CardDiscarded {
                side,
                private: true,
                ..
            } if !sees_private(viewer, side) => Event::CardDiscarded {
                side: side.clone(),
                card: HIDDEN.into(),
                private: true,
            },
            // A referee's correction: its lines may name units a side
            // cannot see and cards it may not know, so only the referee
            // reads them; the others are told that the position was
            // corrected (render.rs) and read the map as it now is.
            Event::Amended { .. } if *viewer != Viewer::Referee => {
                Event::Amended { lines: Vec::new() }
            }
            other => other.clone(),
        })
        .collect()
}

/// The units `viewer` sees. Kriegspiel: a side's view holds only the enemy
/// units it sees, in the order of their hexes (its own units first, by id):
/// the state's order of units would tell which unit is which
/// (docs/rules/kriegspiel.md).
fn shown_units<'a>(r: &Ruleset, s: &'a State, viewer: &Viewer) -> Vec<&'a super::state::Unit> {
    let mut shown: Vec<&super::state::Unit> = s
        .units
        .iter()
        .filter(|u| super::fog::visible(r, s, viewer, u))
        .collect();
    if let Some(me) = super::fog::fogged_side(s, viewer) {
        shown.sort_by_key(|u| {
            if me == Some(u.side) {
                (0, super::board::Hex::new(0, 0), u.id)
            } else {
                (1, u.at, 0)
            }
        });
    }
    shown
}

/// The view of `s` for `viewer`, without last turn's events.
#[must_use]
pub fn view(r: &Ruleset, s: &State, viewer: &Viewer) -> View {
    let b = State::board(r);
    let side_id = |i: usize| s.sides.get(i).cloned().unwrap_or_default();
    // Under fog of war a side is not told the deck's counts (docs/rules/kriegspiel.md).
    let counts_public = super::fog::fogged_side(s, viewer).is_none();
    let mut hexes = Vec::new();
    // Kriegspiel: a side's (an observer's) board keeps what it last saw of a
    // hex whose tiles or obstacles changed out of its sight (fog.rs).
    for h in b.hexes() {
        let f = super::fog::features_seen(s, viewer, h);
        if f.is_empty() {
            continue;
        }
        let is = |x: &String, kind: &str| r.feature(x).is_some_and(|t| t.kind == kind);
        // A hex may hold tiles laid on one another (a bridge on a river):
        // the map shows the top one, the last listed.
        let tile = f
            .iter()
            .rfind(|x| is(x, "tile"))
            .cloned()
            .unwrap_or_else(|| "open".into());
        let obstacles: Vec<String> = f.iter().filter(|x| is(x, "obstacle")).cloned().collect();
        if tile == "open" && obstacles.is_empty() {
            continue;
        }
        hexes.push(HexView {
            at: h,
            tile,
            obstacles,
        });
    }
    let sides = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, id)| SideView {
            id: id.clone(),
            name: s.side_names.get(i).cloned().unwrap_or_else(|| id.clone()),
            row_one: i == 0,
            medals: s.medals(i),
            hand_size: s.hands.get(i).map_or(0, Vec::len),
            hand: if sees_private(viewer, id) {
                s.hands.get(i).cloned()
            } else {
                None
            },
            // Kriegspiel: the enemy's cards are not told, and a revealed
            // board (mailed to both sides) tells no side's cards.
            last_played: match super::fog::fogged_side(s, viewer) {
                Some(me) if me != Some(i) => None,
                _ if s.fog.is_some() && matches!(viewer, Viewer::Revealed(_)) => None,
                _ => s.last_played.get(i).cloned().flatten(),
            },
            commissar: super::commissar::shown(s, i, sees_private(viewer, id)),
        })
        .collect();
    let fogged = super::fog::fogged_side(s, viewer);
    let enemy_under_fog = |owner: usize| fogged.is_some_and(|me| me != Some(owner));
    let units = shown_units(r, s, viewer)
        .into_iter()
        .map(|u| UnitView {
            // Kriegspiel: a side is told what an enemy unit is, not which
            // one (docs/rules/kriegspiel.md): no id to follow it by.
            id: if enemy_under_fog(u.side) { 0 } else { u.id },
            side: side_id(u.side),
            kind: u.kind.clone(),
            class: r
                .units
                .get(&u.kind)
                .map(|x| x.class.clone())
                .unwrap_or_default(),
            letter: r
                .units
                .get(&u.kind)
                .and_then(|x| x.letter.clone())
                .unwrap_or_else(|| "U".into()),
            at: u.at,
            figures: u.figures,
            start: u.start,
            train: super::trains::view(u),
        })
        .collect();
    View {
        schema: SCHEMA,
        ruleset: s.ruleset.clone(),
        scenario: s.scenario.clone(),
        title: s.title.clone(),
        viewer: viewer.clone(),
        turn: s.shown_turn(),
        to_move: if s.over {
            None
        } else {
            Some(side_id(s.to_move))
        },
        over: s.over,
        winner: if s.over { s.winner.clone() } else { None },
        victory: s.victory,
        board: BoardView {
            columns: b.columns,
            rows: b.rows,
            section_lines: b.lines,
            hexes,
        },
        sides,
        units,
        objectives: s
            .objectives
            .iter()
            .map(|o| ObjectiveView {
                at: o.at,
                side: side_id(o.side),
                // Kriegspiel: an objective taken by the enemy shows as taken
                // only while the viewer sees the hex's unit (the medals, which
                // are public, count it all the same).
                held: o.held
                    && (super::fog::fogged_side(s, viewer).is_none()
                        || s.unit_at(o.at)
                            .is_some_and(|u| super::fog::visible(r, s, viewer, u))),
            })
            .collect(),
        minefields: s
            .minefields
            .iter()
            .map(|m| {
                // Kriegspiel: turned over on a side's board only where it
                // knows of the turn-over (fog.rs); observers see none.
                let revealed = match super::fog::fogged_side(s, viewer) {
                    None => m.revealed,
                    Some(None) => false,
                    Some(Some(i)) => super::fog::sees_turned_over(r, s, i, m),
                };
                MinefieldView {
                    at: m.at,
                    side: side_id(m.side),
                    strength: (revealed
                        || matches!(viewer, Viewer::Referee | Viewer::Revealed(None)))
                    .then_some(m.strength),
                    revealed,
                }
            })
            .collect(),
        markers: markers(r, s, viewer),
        deck_size: counts_public.then_some(s.deck.len()),
        discard_size: counts_public.then_some(s.discard.len()),
        last_turn: Vec::new(),
        weather: super::weather::status(r, s),
        supply: super::supply::status(r, s, viewer),
    }
}

/// The view with last turn's events (filtered for the viewer).
#[must_use]
pub fn view_with_events(r: &Ruleset, s: &State, viewer: &Viewer, events: &[Event]) -> View {
    let mut v = view(r, s, viewer);
    v.last_turn = super::fog::redact(r, s, viewer, visible_events(events, viewer));
    v
}

impl View {
    /// The side at the bottom of this viewer's map: its own, else row 1's.
    #[must_use]
    pub fn bottom_side(&self) -> &str {
        match &self.viewer {
            Viewer::Side(s) | Viewer::Revealed(Some(s))
                if self.sides.iter().any(|x| &x.id == s) =>
            {
                s
            }
            _ => self.sides.first().map_or("", |s| s.id.as_str()),
        }
    }

    /// Is the map drawn turned round (row 1 at the top)?
    #[must_use]
    pub fn flipped(&self) -> bool {
        let b = self.bottom_side();
        self.sides.iter().any(|s| s.id == b && !s.row_one)
    }

    /// Every hex of the board, row by row from row 1.
    #[must_use]
    pub fn all_hexes(&self) -> Vec<Hex> {
        let mut v = Vec::new();
        for r in 0..self.board.rows {
            let n = if r % 2 == 0 {
                self.board.columns
            } else {
                self.board.columns - 1
            };
            for l in 0..n {
                v.push(Hex::from_letter(l, r));
            }
        }
        v
    }

    #[must_use]
    pub fn hex(&self, h: Hex) -> Option<&HexView> {
        self.board.hexes.iter().find(|x| x.at == h)
    }

    #[must_use]
    pub fn unit_at(&self, h: Hex) -> Option<&UnitView> {
        self.units.iter().find(|u| u.at == h)
    }

    #[must_use]
    pub fn marker_at(&self, h: Hex) -> bool {
        self.markers.iter().any(|m| m.at == h)
    }

    #[must_use]
    pub fn objective_at(&self, h: Hex) -> Option<&ObjectiveView> {
        self.objectives.iter().find(|o| o.at == h)
    }

    #[must_use]
    pub fn side(&self, id: &str) -> Option<&SideView> {
        self.sides.iter().find(|s| s.id == id)
    }

    /// The side this view belongs to, if it is a side's.
    #[must_use]
    pub fn own_side(&self) -> Option<&SideView> {
        match &self.viewer {
            Viewer::Side(s) => self.side(s),
            _ => None,
        }
    }
}

/// The markers on the board `viewer` may see. In a fog game a side sees its
/// own markers, a marker with a unit it sees, and any other marker on a hex
/// within sight of its units (as it would see a unit there); an observer
/// sees a marker of no side and on no unit where both sides see it; the
/// referee sees all.
fn markers(r: &Ruleset, s: &State, viewer: &Viewer) -> Vec<MarkerView> {
    let side_id = |i: usize| s.sides.get(i).cloned().unwrap_or_default();
    let mut out: Vec<(Option<usize>, Option<u32>, MarkerView)> = Vec::new();
    for st in &s.stars {
        let unit = st.unit.and_then(|id| s.unit(id));
        out.push((
            st.side,
            unit.map(|u| u.id),
            MarkerView {
                at: unit.map_or(st.at, |u| u.at),
                kind: st.kind.clone(),
                side: st.side.map(side_id),
                count: st.count,
                with_unit: unit.is_some(),
            },
        ));
    }
    for c in &s.charges {
        out.push((
            Some(c.side),
            None,
            MarkerView {
                at: c.at,
                kind: "charges".into(),
                side: Some(side_id(c.side)),
                count: 0,
                with_unit: false,
            },
        ));
    }
    for d in &s.bridge_damage {
        out.push((
            None,
            None,
            MarkerView {
                at: d.at,
                kind: "bridge-hits".into(),
                side: None,
                count: d.hits,
                with_unit: false,
            },
        ));
    }
    let fogged = super::fog::fogged_side(s, viewer);
    out.into_iter()
        .filter(|(owner, unit, m)| match fogged {
            None => true,
            // An observer has no board of its own: no marker. Shown where
            // both sides see its hex, a marker's coming and going told where
            // their units stood (issue 50; docs/rules/kriegspiel.md).
            Some(None) => false,
            Some(Some(me)) => {
                *owner == Some(me)
                    || match unit.and_then(|id| s.unit(id)) {
                        Some(u) => super::fog::visible(r, s, viewer, u),
                        None => super::fog::sees_hex(r, s, me, m.at),
                    }
            }
        })
        .map(|(_, _, m)| m)
        .collect()
}

impl MarkerView {
    /// The marker in words: "charges of Axis", "dam of Allies, 2 stars",
    /// "Heroic Leader of Allies, with the unit".
    #[must_use]
    pub fn describe(&self) -> String {
        let mut t = match self.kind.as_str() {
            "charges" => "charges (rigged for detonation)".to_string(),
            "bridge-hits" => format!(
                "bridge hit {} time{}",
                self.count,
                if self.count == 1 { "" } else { "s" }
            ),
            k => super::render::card_name(k),
        };
        if let Some(side) = &self.side {
            t.push_str(&format!(" of {}", super::render::side_name(side)));
        }
        if self.kind == super::stars::DAM {
            t.push_str(&format!(
                ", {} star{}",
                self.count,
                if self.count == 1 { "" } else { "s" }
            ));
        }
        if self.with_unit {
            t.push_str(", with the unit");
        }
        t
    }
}
