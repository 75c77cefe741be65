//! Kriegspiel: the enemy's cards out of the events a side is told. "A
//! player may not know which Command Cards his opponent has or are being
//! played" (the house rules): a battle the side sees keeps its dice, and the
//! reasons for them only where the side sees them on the table.

use super::super::board::Hex;
use super::super::events::{Event, Modifier};
use std::collections::BTreeSet;

/// A modifier the side sees on the table: the terrain of either hex, a
/// rule of the units themselves, a marker on the board. Any other (a card's
/// extra die, a card's reduction, the enemy's supply or disorder) is the
/// enemy's business.
fn on_the_table(m: &Modifier) -> bool {
    let r = m.reason.as_str();
    r.starts_with("target in ")
        || r.starts_with("firing from ")
        || r.starts_with("the Common Cold")
        || matches!(
            r,
            "Artillery v Tank"
                | "cross-hair"
                | "Heroic Leader"
                | "in assault boats"
                | "removing an obstacle"
        )
}

/// How a battle came about, without the card that made it: a battle at
/// range 1 is a close assault, any other ranged combat.
#[must_use]
pub fn neutral_how(how: &str, range: u32) -> String {
    match how {
        "firefight" | "ambush" | "air-power" | "barrage" => if range == 1 {
            "close-assault"
        } else {
            "combat"
        }
        .to_string(),
        other => other.to_string(),
    }
}

/// An enemy battle fought from a hex the side sees, as it may know it: the
/// dice count stays; if one reason for it is not on the table, the count
/// is told alone (no "+1 <card>", and no sum that would show one).
#[must_use]
pub fn battle_seen(e: &Event) -> Event {
    let mut e = e.clone();
    if let Event::Battle {
        how,
        range,
        base_dice,
        modifiers,
        dice,
        ..
    } = &mut e
    {
        *how = neutral_how(how, *range);
        if !modifiers.iter().all(on_the_table) {
            *base_dice = *dice;
            modifiers.clear();
        }
    }
    e
}

/// An enemy bombardment of a bridge: a card's (Air Power, Barrage) is told
/// as hits on the bridge where the side sees it; guns' as before, where it
/// sees both hexes.
#[must_use]
pub fn bombarded_seen(e: &Event, known: &BTreeSet<Hex>) -> Option<Event> {
    let Event::BridgeBombarded {
        from,
        at,
        faces,
        hits,
        total,
        card,
        ..
    } = e
    else {
        return None;
    };
    if card.is_none() && known.contains(at) && known.contains(from) {
        return Some(e.clone());
    }
    known.contains(at).then(|| Event::Fog {
        note: format!(
            "The bridge at {at} is bombarded: {} -- {hits} tank hit(s), {total} in all.",
            faces.join(", ")
        ),
    })
}
