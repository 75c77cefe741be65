//! What happens in a turn, as reports and `verify` read it.

use super::board::Hex;
use super::Viewer;
use serde::{Deserialize, Serialize};

/// A change to the dice of a battle, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub dice: i32,
    pub reason: String,
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Event {
    TurnBegun {
        turn: u32,
        side: String,
    },
    CardPlayed {
        side: String,
        card: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        section: Option<String>,
        /// For Counter-Attack: the card it copies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        as_card: Option<String>,
    },
    /// A card drawn: private to `side`.
    CardDrawn {
        side: String,
        card: String,
        private: bool,
    },
    CardDiscarded {
        side: String,
        card: String,
        /// Face down (Method 2, Recon's second card): private to `side`.
        private: bool,
    },
    CardsExchanged {
        side: String,
        shown: Vec<String>,
        taken: Vec<(String, String)>,
    },
    DeckReshuffled {
        cards: usize,
    },
    UnitOrdered {
        side: String,
        unit: String,
        at: Hex,
    },
    Move {
        side: String,
        unit: String,
        path: Vec<Hex>,
    },
    Battle {
        side: String,
        attacker: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<Hex>,
        target: String,
        at: Hex,
        range: u32,
        /// "combat", "close-assault", "firefight", "ambush", "charge-reply",
        /// "air-power", "barrage", "overrun".
        how: String,
        base_dice: u32,
        modifiers: Vec<Modifier>,
        dice: u32,
        faces: Vec<String>,
        hits: u32,
        flags: u32,
        ignored_flags: u32,
    },
    /// An order that could not be carried out because of earlier dice.
    OrderSkipped {
        side: String,
        order: String,
        reason: String,
    },
    WireRemoved {
        at: Hex,
        by: String,
    },
    SandbagPlaced {
        at: Hex,
    },
    SandbagRemoved {
        at: Hex,
    },
    FiguresLost {
        side: String,
        unit: String,
        at: Hex,
        lost: u32,
        left: u32,
        reason: String,
    },
    FiguresReturned {
        side: String,
        unit: String,
        at: Hex,
        returned: u32,
        now: u32,
        faces: Vec<String>,
    },
    Retreat {
        side: String,
        unit: String,
        path: Vec<Hex>,
        /// Retreat moves that could not be made (each cost a figure).
        blocked: u32,
        no_retreat: bool,
    },
    UnitEliminated {
        side: String,
        unit: String,
        at: Hex,
        by: String,
        medal: bool,
    },
    MedalGained {
        side: String,
        medals: u32,
        reason: String,
    },
    TakeGround {
        side: String,
        unit: String,
        from: Hex,
        to: Hex,
    },
    Overrun {
        side: String,
        unit: String,
        from: Hex,
        to: Hex,
    },
    ObjectiveTaken {
        side: String,
        at: Hex,
        held: bool,
    },
    CrossHairPlaced {
        gun: Hex,
        target: Hex,
    },
    AmbushPlayed {
        side: String,
        at: Hex,
    },
    OrdersByDice {
        side: String,
        faces: Vec<String>,
        ordered: Vec<Hex>,
    },
    VictoryReached {
        side: String,
        medals: u32,
        last_turn_for: Option<String>,
    },
    GameOver {
        winner: Option<String>,
        score: Vec<(String, u32)>,
        reason: String,
    },
}

fn s(v: &serde_json::Value, k: &str) -> String {
    match v.get(k) {
        Some(serde_json::Value::String(x)) => x.clone(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(x) => x.to_string(),
    }
}

/// One line of a report, or None if `viewer` may not see the event.
#[must_use]
pub fn describe(event: &serde_json::Value, viewer: &Viewer) -> Option<String> {
    let kind = s(event, "kind");
    let private = event
        .get("private")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if private {
        match viewer {
            Viewer::Referee => {}
            Viewer::Side(sd) if *sd == s(event, "side") => {}
            _ => {
                return match kind.as_str() {
                    "card-drawn" => Some(format!("{} draws a card.", s(event, "side"))),
                    _ => None,
                };
            }
        }
    }
    let Ok(e) = serde_json::from_value::<Event>(event.clone()) else {
        return Some(format!("({kind})"));
    };
    let join = |p: &[Hex]| p.iter().map(Hex::to_string).collect::<Vec<_>>().join("-");
    Some(match e {
        Event::TurnBegun { turn, side } => format!("Turn {turn}: {side}."),
        Event::CardPlayed {
            side,
            card,
            section,
            as_card,
        } => {
            let mut t = format!("{side} plays {card}");
            if let Some(a) = as_card {
                t.push_str(&format!(" as {a}"));
            }
            if let Some(sec) = section {
                t.push_str(&format!(" ({sec})"));
            }
            t + "."
        }
        Event::CardDrawn { side, card, .. } => format!("{side} draws {card}."),
        Event::CardDiscarded { side, card, .. } => format!("{side} discards {card}."),
        Event::CardsExchanged { side, shown, taken } => {
            format!(
                "{side} exchanges cards: shows {}; taken {:?}.",
                shown.join(", "),
                taken
            )
        }
        Event::DeckReshuffled { cards } => {
            format!("The used cards are shuffled into a new deck of {cards}.")
        }
        Event::UnitOrdered { side, unit, at } => format!("{side} orders {unit} at {at}."),
        Event::Move { side, unit, path } => format!("{side} {unit} moves {}.", join(&path)),
        Event::Battle {
            attacker,
            from,
            target,
            at,
            range,
            how,
            base_dice,
            modifiers,
            dice,
            faces,
            hits,
            flags,
            ignored_flags,
            ..
        } => {
            let mods: Vec<String> = modifiers
                .iter()
                .map(|m| format!("{:+} {}", m.dice, m.reason))
                .collect();
            let m = if mods.is_empty() {
                String::new()
            } else {
                format!(" ({})", mods.join(", "))
            };
            let ig = if ignored_flags > 0 {
                format!(", {ignored_flags} flag ignored")
            } else {
                String::new()
            };
            let from = from.map_or(String::new(), |f| format!(" at {f}"));
            format!(
                "{attacker}{from} battles {target} at {at} ({how}, range {range}): {base_dice} dice{m} = {dice}; rolled [{}]: {hits} hit(s), {flags} flag(s){ig}.",
                faces.join(", ")
            )
        }
        Event::OrderSkipped { order, reason, .. } => {
            format!("\"{order}\" is not carried out: {reason}.")
        }
        Event::WireRemoved { at, by } => format!("Barbed wire at {at} removed ({by})."),
        Event::SandbagPlaced { at } => format!("Sandbags placed at {at}."),
        Event::SandbagRemoved { at } => format!("Sandbags at {at} removed."),
        Event::FiguresLost {
            side,
            unit,
            at,
            lost,
            left,
            reason,
        } => {
            format!("{side} {unit} at {at} loses {lost} figure(s) ({reason}); {left} left.")
        }
        Event::FiguresReturned {
            side,
            unit,
            at,
            returned,
            now,
            faces,
        } => {
            format!(
                "{side} {unit} at {at}: rolled [{}], {returned} figure(s) return; now {now}.",
                faces.join(", ")
            )
        }
        Event::Retreat {
            side,
            unit,
            path,
            blocked,
            no_retreat,
        } => {
            if no_retreat {
                format!(
                    "{side} {unit} at {} holds its ground (No Retreat).",
                    join(&path)
                )
            } else if blocked > 0 {
                format!(
                    "{side} {unit} retreats {}; {blocked} retreat move(s) blocked.",
                    join(&path)
                )
            } else {
                format!("{side} {unit} retreats {}.", join(&path))
            }
        }
        Event::UnitEliminated {
            side,
            unit,
            at,
            by,
            medal,
        } => {
            let m = if medal {
                format!("; a medal for {by}")
            } else {
                String::new()
            };
            format!("{side} {unit} at {at} is eliminated{m}.")
        }
        Event::MedalGained {
            side,
            medals,
            reason,
        } => format!("{side} now has {medals} medal(s) ({reason})."),
        Event::TakeGround {
            side,
            unit,
            from,
            to,
        } => format!("{side} {unit} takes ground {from}-{to}."),
        Event::Overrun {
            side,
            unit,
            from,
            to,
        } => format!("{side} {unit} overruns {from}-{to}."),
        Event::ObjectiveTaken { side, at, held } => {
            if held {
                format!("{side} captures the objective at {at}.")
            } else {
                format!("{side} loses the objective at {at}.")
            }
        }
        Event::CrossHairPlaced { gun, target } => {
            format!("Big-gun at {gun} places a cross-hair on {target}.")
        }
        Event::AmbushPlayed { side, at } => {
            format!("{side} plays Ambush: the unit at {at} battles first.")
        }
        Event::OrdersByDice {
            side,
            faces,
            ordered,
        } => {
            format!(
                "{side} rolls [{}]: orders {}.",
                faces.join(", "),
                join(&ordered)
            )
        }
        Event::VictoryReached {
            side,
            medals,
            last_turn_for,
        } => match last_turn_for {
            Some(o) => format!("{side} reaches {medals} victory points; {o} has one last turn."),
            None => format!("{side} reaches {medals} victory points."),
        },
        Event::GameOver {
            winner,
            score,
            reason,
        } => {
            let sc: Vec<String> = score.iter().map(|(a, b)| format!("{a} {b}")).collect();
            match winner {
                Some(w) if !w.is_empty() => {
                    format!("Game over: {w} wins ({reason}; damage {}).", sc.join(", "))
                }
                _ => format!("Game over: a draw ({reason}; damage {}).", sc.join(", ")),
            }
        }
    })
}
