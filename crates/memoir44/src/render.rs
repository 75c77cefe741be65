//! Memoir '44 in words: one sentence per event, written for a player. The
//! maps and pictures are drawn by `super::report` from a [`View`](super::view::View).

use super::board::Hex;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::State;
use super::view::{self, HIDDEN};
use super::Viewer;

/// "allies" -> "Allies".
#[must_use]
pub fn side_name(id: &str) -> String {
    let mut c = id.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// "attack-left-flank" -> "Attack Left Flank".
#[must_use]
pub fn card_name(id: &str) -> String {
    if id == HIDDEN {
        return "a card".into();
    }
    id.split('-').map(side_name).collect::<Vec<_>>().join(" ")
}

/// "medium-armour" -> "medium armour".
#[must_use]
pub fn unit_name(kind: &str) -> String {
    kind.replace('-', " ")
}

fn path(p: &[Hex]) -> String {
    p.iter()
        .map(Hex::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

/// One event as a sentence for `viewer`, or None if it is not for them.
#[must_use]
pub fn describe_event(e: &Event, viewer: &Viewer) -> Option<String> {
    let binding = view::visible_events(std::slice::from_ref(e), viewer);
    let e = binding.first()?;
    Some(match e {
        Event::Amended { .. }
        | Event::PreBattleRoll { .. }
        | Event::PreBattleHand { .. }
        | Event::PreBattleVoid { .. }
        | Event::PreBattleRetreat { .. }
        | Event::PreBattleLoss { .. }
        | Event::PreBattleMedal { .. } => return describe(e, viewer),
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
            let mut dice_why = plural(*base_dice, "die", "dice");
            for m in modifiers {
                dice_why.push_str(&format!(", {:+} {}", m.dice, m.reason));
            }
            if !modifiers.is_empty() {
                dice_why.push_str(&format!(" = {dice}"));
            }
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
        Event::OrderSkipped { order, reason, .. } => {
            format!("\"{order}\" is not carried out: {reason}.")
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
        } => super::variants::nineteen84::describe(
            &side_name(side),
            &unit_name(unit),
            *at,
            card.as_deref(),
            section,
        ),
        Event::Reinforced { side, unit, at } => format!(
            "{} {} land on the airfield at {at} as reinforcements.",
            side_name(side),
            unit_name(unit)
        ),
        Event::TileDestroyed { at, tile, becomes } => {
            format!("The {tile} at {at} is destroyed by the fire: the hex is {becomes} now.")
        }
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
        Event::ObjectiveTaken { side, at, held } => {
            if *held {
                format!("{} take the objective at {at}.", side_name(side))
            } else {
                format!("{} lose the objective at {at}.", side_name(side))
            }
        }
        Event::CrossHairPlaced { gun, target } => {
            format!("The big gun at {gun} puts a cross-hair on {target}.")
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
        Event::Airdrop { .. } => super::airdrop::describe(e)?,
        Event::BattleStar { .. } => super::stars::describe_event(e)?,
        Event::NightTrack { .. } => super::weather::describe_event(e, &|s: &str| side_name(s))?,
        Event::Supply { .. } | Event::SupplyRoll { .. } | Event::DropZoneLost { .. } => {
            super::supply::describe_event(e, &|s: &str| side_name(s))?
        }
        Event::Zombies {
            what,
            side,
            at,
            to,
            figures,
        } => super::variants::zombies::describe(what, &side_name(side), *at, *to, *figures),
        Event::Daleks { what, side, at } => {
            super::variants::exterminate::describe(what, &side_name(side), *at)
        }
        Event::Cybermen {
            side,
            at,
            figures,
            left,
        } => super::variants::cybermen::describe(&side_name(side), *at, *figures, *left),
        Event::Worlds {
            what,
            side,
            at,
            level,
            ..
        } => super::variants::worlds::describe(what, &side_name(side), *at, *level),
    })
}

/// One event as a sentence for `viewer`.
#[must_use]
pub fn describe(event: &Event, viewer: &Viewer) -> Option<String> {
    match event {
        // The referee's correction: the lines may name units a side cannot
        // see, so sides are told only that the position was corrected.
        Event::Amended { lines } if *viewer == Viewer::Referee => {
            Some(format!("The referee corrected: {}.", lines.join("; ")))
        }
        Event::Amended { .. } => {
            Some("The referee corrected the position (the map shows it as it now is).".into())
        }
        e if e.is_pre_battle() => super::campaign::describe(e),
        e => describe_event(e, viewer),
    }
}

/// The text map and the position for `viewer` (80 columns).
#[must_use]
pub fn text(r: &Ruleset, s: &State, viewer: &Viewer) -> String {
    super::report::textmap::position(&view::view(r, s, viewer))
}
