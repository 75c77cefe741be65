//! The order template at the end of a report to the side that moves next:
//! its cards, its units by hex and section, and the lines to fill in, all
//! commented out with `#` so that a reply is an edit.

use crate::render::{card_name, unit_name};
use crate::view::View;
use crate::Hex;
use adjutant_rules::report::wrap;
use adjutant_rules::Viewer;
use std::fmt::Write;

/// The sections (from the seat of a side) a hex lies in.
#[must_use]
pub fn sections(v: &View, h: Hex, row_one: bool) -> Vec<&'static str> {
    let [a, b] = v.board.section_lines;
    let mut out = Vec::new();
    let (left, right) = (h.col <= a, h.col >= b);
    let centre = h.col >= a && h.col <= b;
    let (l, r) = if row_one {
        (left, right)
    } else {
        (right, left)
    };
    if l {
        out.push("left");
    }
    if centre {
        out.push("centre");
    }
    if r {
        out.push("right");
    }
    out
}

/// The template, or None when the viewer does not move next.
#[must_use]
pub fn template(v: &View) -> Option<String> {
    template_for(v, None)
}

/// Team play: the template of one member of the side, who commands the
/// units of `sections` and, if `leader`, plays the card (docs/teams.md).
/// A Field Marshal's cards are lines to PROPOSE.
#[must_use]
pub fn member_template(v: &View, sections: &[String], leader: bool) -> Option<String> {
    template_for(v, Some((sections, leader)))
}

fn template_for(v: &View, member: Option<(&[String], bool)>) -> Option<String> {
    let Viewer::Side(me) = &v.viewer else {
        return None;
    };
    if v.over || v.to_move.as_deref() != Some(me.as_str()) {
        return None;
    }
    let side = v.side(me)?;
    let mut out = String::new();
    let _ = writeln!(out, "Your orders for turn {}", v.turn + 1);
    out.push_str(&wrap(
        "# Reply to this mail. Delete the \"# \" in front of each line you mean, fill in the hexes, and leave the rest: the judge ignores everything after a #. Send HELP for the whole language of orders.",
        72,
        "# ",
    ));
    out.push('\n');
    let leader = member.is_none_or(|(_, l)| l);
    if let Some((secs, _)) = member {
        let _ = writeln!(out, "# You command the units of: {}.", secs.join(", "));
        if !leader {
            let _ = writeln!(
                out,
                "# Your Commander-in-Chief plays the card; PROPOSE the one you want."
            );
        }
    }
    if leader {
        let _ = writeln!(out, "# Your cards (PLAY one of them):");
    } else {
        let _ = writeln!(out, "# Your team's cards (PROPOSE one of them):");
    }
    let verb = if leader { "PLAY" } else { "PROPOSE" };
    for c in side.hand.clone().unwrap_or_default() {
        let _ = writeln!(out, "# {verb} {c:<24} # {}", card_name(&c));
    }
    let _ = writeln!(out, "#");
    let _ = writeln!(out, "# Your units (hex, type, figures, section):");
    let mut units: Vec<_> = v
        .units
        .iter()
        .filter(|u| &u.side == me)
        .filter(|u| {
            member.is_none_or(|(secs, _)| {
                sections(v, u.at, side.row_one)
                    .iter()
                    .any(|s| secs.iter().any(|m| m == s))
            })
        })
        .collect();
    units.sort_by_key(|u| (u.at.letter(), u.at.row));
    for u in &units {
        let _ = writeln!(
            out,
            "# ORDER {:<4} # {} {}, {}",
            u.at.to_string(),
            unit_name(&u.kind),
            u.figures,
            sections(v, u.at, side.row_one).join("/")
        );
    }
    let _ = writeln!(out, "#");
    let _ = writeln!(out, "# Then, for each ordered unit (moves before battles):");
    let _ = writeln!(out, "# MOVE <from> <hex> ... <to>");
    let _ = writeln!(out, "# BATTLE <from> <target>");
    let _ = writeln!(out, "#");
    if leader {
        let _ = writeln!(out, "# Or, instead of playing a card:");
        let _ = writeln!(out, "# DISCARD <card>");
    }
    Some(out)
}
