//! Memoir '44 events in words, one small function per group of event
//! kinds; [`super::describe_event`] chooses the group.

use super::{card_name, path, plural, side_name, unit_name};
use crate::board::Hex;
use crate::events::Event;
use crate::view::HIDDEN;

/// Turns, command cards and orders.
pub(super) fn cards(e: &Event) -> Option<String> {
    Some(match e {
        Event::TurnBegun { turn, side } => format!("Turn {turn}: {}.", side_name(side)),
        Event::CardPlayed {
            side,
            card,
            section,
            as_card,
        } => {
            let mut t = format!("{} play {}", side_name(side), card_name(card));
            if let Some(a) = as_card {
                t.push_str(&format!(" as {}", card_name(a)));
            }
            if let Some(sec) = section {
                t.push_str(&format!(" ({sec})"));
            }
            t + "."
        }
        Event::CardDrawn { side, card, .. } => {
            if card == HIDDEN {
                format!("{} draw a card.", side_name(side))
            } else {
                format!("{} draw {}.", side_name(side), card_name(card))
            }
        }
        Event::CardDiscarded { side, card, .. } => {
            if card == HIDDEN {
                format!("{} discard a card face down.", side_name(side))
            } else {
                format!("{} discard {}.", side_name(side), card_name(card))
            }
        }
        Event::CardsExchanged { side, shown, taken } => {
            let shown: Vec<String> = shown.iter().map(|c| card_name(c)).collect();
            let taken: Vec<String> = taken
                .iter()
                .map(|(a, b)| format!("{} for {}", card_name(a), card_name(b)))
                .collect();
            let t = if taken.is_empty() {
                "none taken".to_string()
            } else {
                format!("exchanged {}", taken.join(", "))
            };
            format!(
                "{} show {} to exchange; {t}.",
                side_name(side),
                shown.join(", ")
            )
        }
        Event::DeckReshuffled { cards } => {
            format!("The used cards are shuffled into a new deck of {cards}.")
        }
        Event::UnitOrdered { side, unit, at } => {
            format!("{} order the {} at {at}.", side_name(side), unit_name(unit))
        }
        Event::OrderSkipped { order, reason, .. } => {
            format!("\"{order}\" is not carried out: {reason}.")
        }
        Event::AmbushPlayed { side, at } => {
            format!(
                "{} play Ambush: the unit at {at} battles first.",
                side_name(side)
            )
        }
        Event::OrdersByDice {
            side,
            faces,
            ordered,
        } => {
            let o = if ordered.is_empty() {
                "no unit".to_string()
            } else {
                ordered
                    .iter()
                    .map(Hex::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "{} roll {}: ordered {o}.",
                side_name(side),
                faces.join(", ")
            )
        }
        _ => return None,
    })
}

/// Moves, retreats, ground taken and what stops a move.
pub(super) fn movement(e: &Event) -> Option<String> {
    Some(match e {
        Event::Move {
            side,
            unit,
            path: p,
        } => {
            let hexes = p.len().saturating_sub(1) as u32;
            format!(
                "{} {} moves {} ({}).",
                side_name(side),
                unit_name(unit),
                path(p),
                plural(hexes, "hex", "hexes")
            )
        }
        Event::Contact {
            at,
            enemy,
            how,
            unit,
            ..
        } => {
            if how == "camouflage" {
                format!("Your {unit} stops at {at}: a camouflaged enemy unit at {enemy} is in close assault distance.")
            } else {
                format!("Your {unit} stops at {at}: it ran into an enemy unit at {enemy}.")
            }
        }
        Event::Fog { note } => note.clone(),
        Event::Reinforced { side, unit, at } => format!(
            "{} {} land on the airfield at {at} as reinforcements.",
            side_name(side),
            unit_name(unit)
        ),
        Event::Retreat {
            side,
            unit,
            path: p,
            blocked,
            no_retreat,
        } => {
            let who = format!("{} {}", side_name(side), unit_name(unit));
            if *no_retreat {
                format!("{who} at {} holds its ground (No Retreat).", path(p))
            } else if *blocked > 0 {
                format!(
                    "{who} retreats {}; {} blocked.",
                    path(p),
                    plural(*blocked, "retreat move", "retreat moves")
                )
            } else {
                format!("{who} retreats {}.", path(p))
            }
        }
        Event::TakeGround {
            side,
            unit,
            from,
            to,
        } => format!(
            "{} {} takes ground {from} -> {to}.",
            side_name(side),
            unit_name(unit)
        ),
        Event::Overrun {
            side,
            unit,
            from,
            to,
        } => format!(
            "{} {} overruns {from} -> {to}.",
            side_name(side),
            unit_name(unit)
        ),
        Event::CrossHairPlaced { gun, target } => {
            format!("The big gun at {gun} puts a cross-hair on {target}.")
        }
        _ => return None,
    })
}

/// A battle: its dice, why so many, and what they did.
pub(super) fn battle(e: &Event) -> Option<String> {
    Some(match e {
        Event::Battle {
            side,
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
        } => {
            let from = from.map_or(String::new(), |f| format!(" at {f}"));
            let dice_why = super::dice_why(*base_dice, modifiers, *dice);
            let rolled = if faces.is_empty() {
                "nothing rolled".to_string()
            } else {
                format!("rolled {}", faces.join(", "))
            };
            let mut res = match hits {
                0 => "no hit".to_string(),
                n => plural(*n, "hit", "hits"),
            };
            if *flags > 0 {
                res.push_str(&format!(", {}", plural(*flags, "flag", "flags")));
            }
            if *ignored_flags > 0 {
                res.push_str(&format!(" ({ignored_flags} ignored)"));
            }
            format!(
                "{} {}{from} battles {} at {at}, range {range} ({}): {dice_why}; {rolled}: {res}.",
                side_name(side),
                unit_name(attacker),
                unit_name(target),
                how_words(how)
            )
        }
        _ => return None,
    })
}

/// How a battle came about, in words.
fn how_words(how: &str) -> &str {
    match how {
        "combat" => "ranged combat",
        "close-assault" => "close assault",
        "firefight" => "firefight",
        "ambush" => "Ambush",
        "charge-reply" => "reply to a charge",
        "air-power" => "Air Power",
        "barrage" => "Barrage",
        "overrun" => "overrun",
        "wire" => "wire",
        other => other,
    }
}

/// Obstacles, bridges, tiles and frozen rivers.
pub(super) fn engineering(e: &Event) -> Option<String> {
    Some(match e {
        Event::WireRemoved { at, by } => format!("Barbed wire at {at} removed ({by})."),
        Event::SandbagPlaced { at } => format!("Sandbags placed at {at}."),
        Event::ObstacleRemoved {
            side,
            unit,
            at,
            obstacle,
        } => format!(
            "{} {} remove the {} at {at} (1 battle die fewer this turn).",
            side_name(side),
            unit_name(unit),
            obstacle.to_lowercase()
        ),
        Event::BridgeCharged { side, from, at } => format!(
            "{} engineers at {from} place charges on the bridge at {at}: it is rigged for detonation.",
            side_name(side)
        ),
        Event::BridgeDetonation {
            side,
            at,
            faces,
            destroyed,
        } => format!(
            "{} detonate the bridge at {at}: {} -- {}.",
            side_name(side),
            faces.join(", "),
            if *destroyed {
                "destroyed"
            } else {
                "the charges fail, the bridge stands"
            }
        ),
        Event::BridgeBombarded {
            side,
            from,
            at,
            faces,
            hits,
            total,
            card,
        } => format!(
            "{} {} the bridge at {at}: {} -- {}, {total} in all.",
            side_name(side),
            match card.as_deref() {
                Some("air-power") => "Air Power strikes".to_string(),
                Some(_) => "Barrage falls on".to_string(),
                None => format!("guns at {from} fire at"),
            },
            faces.join(", "),
            plural(*hits, "tank hit", "tank hits")
        ),
        Event::PontoonBuilt { side, from, at } => format!(
            "{} engineers at {from} place a Pontoon Bridge on the river at {at}.",
            side_name(side)
        ),
        Event::BridgeDestroyed { at, how, .. } => {
            format!("The bridge at {at} is destroyed ({how}) and removed from the board.")
        }
        Event::BridgeChargesRemoved { at } => {
            format!("The charges on the bridge at {at} are removed: the enemy holds it.")
        }
        Event::SandbagRemoved { at } => format!("Sandbags at {at} removed."),
        Event::IceRoll {
            side,
            unit,
            at,
            faces,
            lost,
        } => format!(
            "{} {} on the frozen river at {at}: the ice is tested with {} ({}); {}.",
            side_name(side),
            unit_name(unit),
            plural(faces.len() as u32, "die", "dice"),
            faces.join(", "),
            if *lost == 0 {
                "it holds".to_string()
            } else {
                format!(
                    "it breaks: {}",
                    plural(*lost, "figure lost", "figures lost")
                )
            }
        ),
        Event::TileDestroyed { at, tile, becomes } => {
            format!("The {tile} at {at} is destroyed by the fire: the hex is {becomes} now.")
        }
        _ => return None,
    })
}

/// Appendix 1, Minefields.
pub(super) fn minefields(e: &Event) -> Option<String> {
    Some(match e {
        Event::MinefieldIgnored { side, unit, at } => format!(
            "{} {} stops on its own minefield at {at} (ignored, not revealed).",
            side_name(side),
            unit_name(unit)
        ),
        Event::MinefieldRevealed { at, strength, .. } => {
            if *strength == 0 {
                format!("The minefield at {at} is turned over: a Decoy (0), removed.")
            } else {
                format!("The minefield at {at} is turned over: strength {strength}.")
            }
        }
        Event::MinefieldExploded {
            side,
            unit,
            at,
            strength,
            faces,
            hits,
        } => format!(
            "The minefield at {at} explodes under {} {}: {} ({}), {}.",
            side_name(side),
            unit_name(unit),
            plural(*strength, "die", "dice"),
            faces.join(", "),
            plural(*hits, "hit", "hits")
        ),
        Event::MinefieldClearance {
            side,
            unit,
            from,
            at,
            faces,
            cleared,
        } => {
            let who = match from {
                Some(f) => format!("{} {} at {f} fires at", side_name(side), unit_name(unit)),
                None => format!("{} {} try to clear", side_name(side), unit_name(unit)),
            };
            let result = if *cleared {
                "cleared, the minefield is removed"
            } else if from.is_some() {
                "no path cleared"
            } else {
                "it detonates: the engineers retreat 1 hex"
            };
            format!(
                "{who} the minefield at {at}: {} -- {result}.",
                faces.join(", ")
            )
        }
        _ => return None,
    })
}

/// Losses, medals, objectives and the end of the game.
pub(super) fn losses(e: &Event) -> Option<String> {
    Some(match e {
        Event::FiguresLost {
            side,
            unit,
            at,
            lost,
            left,
            reason,
        } => format!(
            "{} {} at {at} loses {} ({reason}); {left} left.",
            side_name(side),
            unit_name(unit),
            plural(*lost, "figure", "figures")
        ),
        Event::FiguresReturned {
            side,
            unit,
            at,
            returned,
            now,
            faces,
        } => format!(
            "{} {} at {at} rolls {}: {} back, now {now}.",
            side_name(side),
            unit_name(unit),
            faces.join(", "),
            plural(*returned, "figure", "figures")
        ),
        Event::UnitEliminated {
            side,
            unit,
            at,
            by,
            medal,
        } => {
            let m = if *medal {
                format!("; a medal for {}", side_name(by))
            } else {
                String::new()
            };
            format!(
                "{} {} at {at} is eliminated{m}.",
                side_name(side),
                unit_name(unit)
            )
        }
        Event::MedalGained {
            side,
            medals,
            reason,
        } => format!(
            "{} now have {} ({reason}).",
            side_name(side),
            plural(*medals, "medal", "medals")
        ),
        Event::ObjectiveTaken { side, at, held } => {
            if *held {
                format!("{} take the objective at {at}.", side_name(side))
            } else {
                format!("{} lose the objective at {at}.", side_name(side))
            }
        }
        Event::VictoryReached {
            side,
            medals,
            last_turn_for,
        } => match last_turn_for {
            Some(o) => format!(
                "{} reach {medals} victory points; {} have one last turn.",
                side_name(side),
                side_name(o)
            ),
            None => format!("{} reach {medals} victory points.", side_name(side)),
        },
        Event::GameOver {
            winner,
            score,
            reason,
        } => {
            let sc: Vec<String> = score
                .iter()
                .map(|(a, b)| format!("{} {b}", side_name(a)))
                .collect();
            match winner {
                Some(w) if !w.is_empty() => format!(
                    "Game over: {} win ({reason}; figures removed: {}).",
                    side_name(w),
                    sc.join(", ")
                ),
                _ => format!(
                    "Game over: a draw ({reason}; figures removed: {}).",
                    sc.join(", ")
                ),
            }
        }
        _ => return None,
    })
}

/// Appendix 2, Trains; airfield reinforcements; "Nineteen Eighty-Four" replacements.
pub(super) fn trains(e: &Event) -> Option<String> {
    Some(match e {
        Event::Train {
            side,
            unit,
            at,
            note,
        } => format!("{} {} at {at}: {note}.", side_name(side), unit_name(unit)),
        Event::TrainMission {
            side,
            unit,
            at,
            medals,
            how,
        } => {
            let won = plural(*medals, "medal", "medals");
            if how == "reached" {
                format!(
                    "{} {} reaches {at}, its mission objective: {won} for {}.",
                    side_name(side),
                    unit_name(unit),
                    side_name(side)
                )
            } else {
                format!(
                    "The {} destroyed at {at} was a mission objective: {won} for {}.",
                    unit_name(unit),
                    side_name(side)
                )
            }
        }
        Event::Replacement {
            side,
            unit,
            at,
            card,
            section,
        } => crate::variants::nineteen84::describe(
            &side_name(side),
            &unit_name(unit),
            *at,
            card.as_deref(),
            section,
        ),
        _ => return None,
    })
}

/// The optional rules' and variants' own events, described by their modules.
pub(super) fn optional(e: &Event) -> Option<String> {
    Some(match e {
        Event::Airdrop { .. } => crate::airdrop::describe(e)?,
        Event::BattleStar { .. } => crate::stars::describe_event(e)?,
        Event::NightTrack { .. } => crate::weather::describe_event(e, &|s: &str| side_name(s))?,
        Event::Supply { .. } | Event::SupplyRoll { .. } | Event::DropZoneLost { .. } => {
            crate::supply::describe_event(e, &|s: &str| side_name(s))?
        }
        Event::Zombies {
            what,
            side,
            at,
            to,
            figures,
        } => crate::variants::zombies::describe(what, &side_name(side), *at, *to, *figures),
        Event::Daleks { what, side, at } => {
            crate::variants::exterminate::describe(what, &side_name(side), *at)
        }
        Event::Cybermen {
            side,
            at,
            figures,
            left,
        } => crate::variants::cybermen::describe(&side_name(side), *at, *figures, *left),
        Event::Worlds {
            what,
            side,
            at,
            level,
            ..
        } => crate::variants::worlds::describe(what, &side_name(side), *at, *level),
        _ => return None,
    })
}
