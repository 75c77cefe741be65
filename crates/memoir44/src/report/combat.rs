//! The combat report: every event of the last turn as adjudicated, in order,
//! in sentences for a player. A side that did not move reads first what
//! happened to its own units.

use crate::render::{describe_event, side_name};
use crate::view::View;
use crate::Event;
use adjutant_rules::report::wrap;
use adjutant_rules::Viewer;

/// Does this event tell the viewer's `own` side about a loss or a gain of
/// its units or objectives?
fn concerns(e: &Event, own: &str) -> bool {
    match e {
        Event::FiguresLost { side, .. }
        | Event::FiguresReturned { side, .. }
        | Event::Retreat { side, .. }
        | Event::UnitEliminated { side, .. } => side == own,
        Event::ObjectiveTaken { side, held, .. } => side == own || *held,
        Event::Battle { .. } => false,
        _ => false,
    }
}

/// The report's lines (each one event), unwrapped.
#[must_use]
pub fn lines(v: &View) -> Vec<String> {
    v.last_turn
        .iter()
        .filter(|e| !matches!(e, Event::TurnBegun { .. }))
        .filter_map(|e| describe_event(e, &v.viewer))
        .collect()
}

/// The combat report of the last turn, wrapped to 78 columns.
#[must_use]
pub fn report(v: &View, mover: &str) -> String {
    let mut out = String::new();
    if v.last_turn.is_empty() {
        return out;
    }
    let own = match &v.viewer {
        Viewer::Side(s) => Some(s.as_str()),
        _ => None,
    };
    if let Some(own) = own.filter(|o| *o != mover) {
        let yours: Vec<String> = v
            .last_turn
            .iter()
            .filter(|e| concerns(e, own))
            .filter_map(|e| describe_event(e, &v.viewer))
            .collect();
        out.push_str(&format!(
            "What happened to you in the {} turn:\n",
            side_name(mover)
        ));
        if yours.is_empty() {
            out.push_str("  Nothing: no losses, no retreats.\n");
        }
        for l in yours {
            out.push_str(&wrap(&format!("  * {l}"), 78, "    "));
        }
        out.push('\n');
    }
    let whose = if own == Some(mover) {
        "Your turn".to_string()
    } else {
        format!("The {} turn", side_name(mover))
    };
    out.push_str(&format!("{whose}, order by order:\n"));
    for (i, l) in lines(v).iter().enumerate() {
        let head = format!("{:>3}. ", i + 1);
        out.push_str(&wrap(&format!("{head}{l}"), 78, "     "));
    }
    out
}
