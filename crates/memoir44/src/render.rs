//! Memoir '44 in words: one sentence per event, written for a player. The
//! maps and pictures are drawn by `super::report` from a [`View`](super::view::View).

use super::board::Hex;
use super::events::Event;
use super::ruleset::Ruleset;
use super::state::State;
use super::view::{self, HIDDEN};
use super::Viewer;

mod sentences;

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

/// A battle's dice and why so many, as the combat report and PREDICT give
/// them: "3 dice, -1 target in Sandbag Emplacement = 2".
pub(crate) fn dice_why(base: u32, mods: &[super::events::Modifier], dice: u32) -> String {
    let mut s = plural(base, "die", "dice");
    for m in mods {
        s.push_str(&format!(", {:+} {}", m.dice, m.reason));
    }
    if !mods.is_empty() {
        s.push_str(&format!(" = {dice}"));
    }
    s
}

/// One event as a sentence for `viewer`, or None if it is not for them.
#[must_use]
pub fn describe_event(e: &Event, viewer: &Viewer) -> Option<String> {
    let binding = view::visible_events(std::slice::from_ref(e), viewer);
    let e = binding.first()?;
    match e {
        Event::Amended { .. }
        | Event::PreBattleRoll { .. }
        | Event::PreBattleHand { .. }
        | Event::PreBattleVoid { .. }
        | Event::PreBattleRetreat { .. }
        | Event::PreBattleLoss { .. }
        | Event::PreBattleMedal { .. } => describe(e, viewer),
        Event::TurnBegun { .. }
        | Event::CardPlayed { .. }
        | Event::CardDrawn { .. }
        | Event::CardDiscarded { .. }
        | Event::CardsExchanged { .. }
        | Event::DeckReshuffled { .. }
        | Event::UnitOrdered { .. }
        | Event::OrderSkipped { .. }
        | Event::AmbushPlayed { .. }
        | Event::OrdersByDice { .. } => sentences::cards(e),
        Event::Move { .. }
        | Event::Contact { .. }
        | Event::Fog { .. }
        | Event::Retreat { .. }
        | Event::TakeGround { .. }
        | Event::Overrun { .. }
        | Event::Reinforced { .. }
        | Event::CrossHairPlaced { .. } => sentences::movement(e),
        Event::Battle { .. } => sentences::battle(e),
        Event::WireRemoved { .. }
        | Event::SandbagPlaced { .. }
        | Event::SandbagRemoved { .. }
        | Event::ObstacleRemoved { .. }
        | Event::BridgeCharged { .. }
        | Event::BridgeDetonation { .. }
        | Event::BridgeBombarded { .. }
        | Event::PontoonBuilt { .. }
        | Event::BridgeDestroyed { .. }
        | Event::BridgeChargesRemoved { .. }
        | Event::TileDestroyed { .. }
        | Event::IceRoll { .. } => sentences::engineering(e),
        Event::MinefieldIgnored { .. }
        | Event::MinefieldRevealed { .. }
        | Event::MinefieldExploded { .. }
        | Event::MinefieldClearance { .. } => sentences::minefields(e),
        Event::FiguresLost { .. }
        | Event::FiguresReturned { .. }
        | Event::UnitEliminated { .. }
        | Event::MedalGained { .. }
        | Event::ObjectiveTaken { .. }
        | Event::VictoryReached { .. }
        | Event::GameOver { .. } => sentences::losses(e),
        Event::Train { .. } | Event::TrainMission { .. } | Event::Replacement { .. } => {
            sentences::trains(e)
        }
        Event::Airdrop { .. }
        | Event::BattleStar { .. }
        | Event::NightTrack { .. }
        | Event::Supply { .. }
        | Event::SupplyRoll { .. }
        | Event::DropZoneLost { .. }
        | Event::Zombies { .. }
        | Event::Daleks { .. }
        | Event::Cybermen { .. }
        | Event::Worlds { .. } => sentences::optional(e),
    }
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
