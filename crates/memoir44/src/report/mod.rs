//! Memoir '44 draws its own reports: every part (80- and 40-column maps,
//! combat report, order template, SVG board, view.json) is rendered from a
//! [`View`] for one recipient, never from the state. The generic
//! `adjutant_rules::report` only supplies the [`Parts`] they fill, the templates and
//! the HTML document around the board.

pub mod combat;
pub mod html;
pub mod orders;
pub mod sample;
pub mod svg;
pub mod textmap;

use super::view::View;
use adjutant_rules::report::Parts;

/// Render every part from a view; `mover` is the side whose turn the
/// events are (none for a position without a turn behind it).
#[must_use]
pub fn parts(v: &View, mover: Option<&str>) -> Parts {
    // The SVG is drawn once: the HTML board holds the same text.
    let svg = svg::board(v);
    Parts {
        map: textmap::position(v),
        compact: textmap::compact_position(v),
        combat: mover.map(|m| combat::report(v, m)).unwrap_or_default(),
        orders: orders::template(v),
        board_html: html::board(v, &svg),
        svg,
        // Compact: the same JSON in half the bytes of a pretty one.
        json: serde_json::to_string(v).unwrap_or_default(),
    }
}

/// [`parts`] without the board picture: no SVG, no HTML board, no compact
/// map (they go only into a mail's HTML part), every other part the same.
#[must_use]
pub fn parts_without_board(v: &View, mover: Option<&str>) -> Parts {
    Parts {
        map: textmap::position(v),
        combat: mover.map(|m| combat::report(v, m)).unwrap_or_default(),
        orders: orders::template(v),
        json: serde_json::to_string(v).unwrap_or_default(),
        ..Parts::default()
    }
}
