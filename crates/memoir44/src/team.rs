//! Team play (house rules, Appendix 3, "Team Play"): what each line of a
//! side's orders concerns, so that the service can tell which member of a
//! team may give it (docs/teams.md). Section cards concern the sections they
//! name; Infantry Assault the section it is played on; every other tactic
//! card, and DISCARD and EXCHANGE, no particular section: they are the
//! Commander-in-Chief's, and so are side-wide lines (STANDING, KEEP,
//! TARGET, ORDER ALL).

use super::battle::Ctx;
use super::board::{Hex, Section};
use super::orders::{self, Cmd};
use super::ruleset::Ruleset;
use super::state::State;
use adjutant_rules::{Rejection, ScopedLine};
use std::collections::BTreeMap;

/// The sections from a seat, left to right.
#[must_use]
pub fn sections() -> Vec<String> {
    Section::ALL.iter().map(|s| s.id().to_string()).collect()
}

/// What each line of `orders` concerns, for `side`. Units are placed by the
/// hex they stand on as the phase begins: a line naming a hex a unit has
/// moved to earlier in the same text belongs to that unit's starting hex.
pub fn scope(
    r: &Ruleset,
    s: &State,
    side: &str,
    orders: &str,
) -> Result<Vec<ScopedLine>, Rejection> {
    let Some(idx) = s.side_index(side) else {
        return Err(Rejection::whole(format!(
            "'{side}' is not a side of this game ({})",
            s.sides.join(", ")
        )));
    };
    let bottom = idx == 0;
    let ctx = Ctx::new(r);
    let lines = orders::parse(&ctx.board, r, orders)?;
    // Where each unit moved to in this text -> the hex it started on.
    let mut start: BTreeMap<Hex, Hex> = BTreeMap::new();
    let secs = |h: Hex| -> Vec<String> {
        ctx.board
            .sections(h, bottom)
            .iter()
            .map(|s| s.id().to_string())
            .collect()
    };
    let mut out = Vec::new();
    let mut stage = 0u8;
    for l in &lines {
        let mut sl = ScopedLine {
            line: l.no,
            text: l.text.clone(),
            ..ScopedLine::default()
        };
        let own_stage;
        match &l.cmd {
            Cmd::Play { card, section } => {
                sl.card = true;
                own_stage = 0;
                if let Some(spec) = r.card(card) {
                    if spec.kind == "section" {
                        sl.sections = Section::ALL
                            .iter()
                            .filter(|x| spec.orders.contains_key(x.id()))
                            .map(|x| x.id().to_string())
                            .collect();
                        // A card for every section is each member's.
                    } else if spec.effect.as_deref() == Some("infantry-assault") {
                        sl.sections = section.iter().map(|x| x.id().to_string()).collect();
                    }
                }
            }
            Cmd::Discard { .. } | Cmd::Exchange { .. } => {
                sl.card = true;
                own_stage = 0;
            }
            Cmd::Order { hexes } => {
                own_stage = 1;
                sl.units = hexes.iter().map(|h| (h.to_string(), secs(*h))).collect();
            }
            Cmd::OrderAll => own_stage = 1,
            Cmd::Move { path } => {
                own_stage = 2;
                if let (Some(first), Some(last)) = (path.first(), path.last()) {
                    let from = start.get(first).copied().unwrap_or(*first);
                    sl.units = vec![(first.to_string(), secs(from))];
                    start.insert(*last, from);
                }
            }
            Cmd::Battle { from, .. } => {
                own_stage = 3;
                let origin = start.get(from).copied().unwrap_or(*from);
                sl.units = vec![(from.to_string(), secs(origin))];
            }
            Cmd::RemoveWire { at } | Cmd::Sabotage { at } | Cmd::Recover { at } => {
                own_stage = 3;
                let origin = start.get(at).copied().unwrap_or(*at);
                sl.units = vec![(at.to_string(), secs(origin))];
            }
            Cmd::Exit { at } | Cmd::Exterminate { at } => {
                own_stage = 2;
                let origin = start.get(at).copied().unwrap_or(*at);
                sl.units = vec![(at.to_string(), secs(origin))];
            }
            Cmd::Unload { train: unit, .. }
            | Cmd::Charge { unit, .. }
            | Cmd::Pontoon { unit, .. } => {
                own_stage = 3;
                let origin = start.get(unit).copied().unwrap_or(*unit);
                sl.units = vec![(unit.to_string(), secs(origin))];
            }
            Cmd::Target { .. } | Cmd::Detonate { .. } | Cmd::Land { .. } => own_stage = 3,
            Cmd::Keep { .. } | Cmd::Standing(_) => own_stage = 4,
            Cmd::Commissar { .. } => {
                sl.card = true;
                own_stage = 4;
            }
        }
        // Within one part the order as written stands (Behind Enemy Lines
        // moves again after its battle).
        if sl.card {
            sl.stage = 0;
        } else {
            stage = stage.max(own_stage);
            sl.stage = stage;
        }
        out.push(sl);
    }
    Ok(out)
}
