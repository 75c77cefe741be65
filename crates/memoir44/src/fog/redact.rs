//! Kriegspiel: a turn's events as one side may know them, one small
//! function per group of event kinds. [`super::redact`] runs it; each rule
//! is written down, with the sentence behind it, in docs/rules/kriegspiel.md.

use super::super::board::Hex;
use super::super::events::Event;
use super::super::ruleset::Ruleset;
use super::super::state::State;
use super::{cards, seen_units};
use std::collections::BTreeSet;

/// An event the side is told instead of one it may not know whole.
fn fog(text: String) -> Event {
    Event::Fog { note: text }
}

/// What a side (or an observer: no side) knows while its turn's events
/// are redacted one after the other.
pub(super) struct Redactor<'a> {
    s: &'a State,
    side: Option<usize>,
    me: String,
    /// Where it saw enemy units: at the start of the turn, now, and every
    /// hex its own units battled or were battled from a hex it saw.
    known: BTreeSet<Hex>,
    /// The hexes of the enemy units it sees now.
    now: BTreeSet<Hex>,
    /// An enemy's draw has been told (one is, whatever it drew).
    drew_told: bool,
    /// The medal for a unit eliminated out of sight names no kind.
    unseen_kill: bool,
}

impl<'a> Redactor<'a> {
    pub(super) fn new(r: &Ruleset, s: &'a State, side: Option<usize>, events: &[Event]) -> Self {
        let me = side
            .and_then(|i| s.sides.get(i).cloned())
            .unwrap_or_default();
        let mut red = Redactor {
            s,
            side,
            me,
            known: BTreeSet::new(),
            now: BTreeSet::new(),
            drew_told: false,
            unseen_kill: false,
        };
        // Where it saw enemy units: at the start of the turn, now, and every
        // hex its own units battled (it knows what it shot at) or were
        // battled from a hex it saw.
        if let Some(i) = side {
            if let Some(fog) = &s.fog {
                if let Some(v) = fog.seen_before.get(i) {
                    red.known.extend(v.iter().copied());
                }
            }
            red.known.extend(seen_units(r, s, i).iter().map(|u| u.at));
            red.known
                .extend(s.units.iter().filter(|u| u.side == i).map(|u| u.at));
            red.now = seen_units(r, s, i).iter().map(|u| u.at).collect();
        }
        for e in events {
            red.learn(e);
        }
        red
    }

    /// The hexes an event of its own side tells it of.
    fn learn(&mut self, e: &Event) {
        if let Event::Battle { side: by, at, .. } = e {
            if self.mine(by) {
                self.known.insert(*at);
            }
        }
        if let Event::Move { side: by, path, .. } | Event::Retreat { side: by, path, .. } = e {
            if self.mine(by) {
                self.known.extend(path.iter().copied());
            }
        }
        // Where its own units stood when battled, even if they are gone
        // or have retreated: a side is always told of a battle against
        // one of its units.
        if let Event::UnitEliminated { side: by, at, .. }
        | Event::FiguresLost { side: by, at, .. } = e
        {
            if self.mine(by) {
                self.known.insert(*at);
            }
        }
        if let Event::PreBattleLoss { side: by, at, .. } = e {
            if let Some(h) = Hex::parse(at).filter(|_| self.mine(by)) {
                self.known.insert(h);
            }
        }
    }

    fn mine(&self, who: &str) -> bool {
        self.side.is_some() && who == self.me
    }

    /// Told whole if it is the side's own or where the side sees the hex.
    fn own_or_seen(&self, by: &str, at: &Hex, e: &Event) -> Option<Event> {
        (self.mine(by) || self.known.contains(at)).then(|| e.clone())
    }

    /// The event `e` as the side may know it, or None if it is not told.
    pub(super) fn keep(&mut self, e: &Event) -> Option<Event> {
        match e {
            Event::PreBattleRetreat { .. }
            | Event::PreBattleLoss { .. }
            | Event::PreBattleMedal { .. } => self.pre_battle(e),
            Event::TurnBegun { .. }
            | Event::Amended { .. }
            | Event::PreBattleRoll { .. }
            | Event::PreBattleHand { .. }
            | Event::PreBattleVoid { .. }
            | Event::VictoryReached { .. }
            | Event::GameOver { .. }
            // "War Of The Worlds": the Common Cold's Battle Stars and the
            // markers on the Martian medal stand are in plain view.
            | Event::Worlds { .. }
            // The night track's roll for dawn is seen by both sides.
            | Event::NightTrack { .. }
            | Event::Fog { .. } => Some(e.clone()),
            Event::CardPlayed { .. }
            | Event::CardsExchanged { .. }
            | Event::CardDiscarded { .. }
            | Event::CardDrawn { .. }
            | Event::DeckReshuffled { .. }
            | Event::UnitOrdered { .. }
            | Event::OrderSkipped { .. }
            | Event::OrdersByDice { .. } => self.cards(e),
            Event::Move { .. }
            | Event::Retreat { .. }
            | Event::TakeGround { .. }
            | Event::Overrun { .. }
            | Event::Contact { .. } => self.movement(e),
            Event::Battle { .. } | Event::CrossHairPlaced { .. } => self.battle(e),
            Event::MedalGained { .. }
            | Event::FiguresReturned { .. }
            | Event::FiguresLost { .. }
            | Event::UnitEliminated { .. }
            | Event::ObjectiveTaken { .. } => self.losses(e),
            Event::AmbushPlayed { .. }
            | Event::BridgeBombarded { .. }
            | Event::ObstacleRemoved { .. }
            | Event::MinefieldIgnored { .. }
            | Event::MinefieldRevealed { .. }
            | Event::MinefieldExploded { .. }
            | Event::BridgeDetonation { .. }
            | Event::BridgeDestroyed { .. }
            | Event::MinefieldClearance { .. }
            | Event::BridgeCharged { .. }
            | Event::PontoonBuilt { .. }
            | Event::WireRemoved { .. }
            | Event::BridgeChargesRemoved { .. }
            | Event::SandbagPlaced { .. }
            | Event::SandbagRemoved { .. }
            | Event::TileDestroyed { .. } => self.on_the_table(e),
            Event::Zombies { .. }
            | Event::Daleks { .. }
            | Event::Cybermen { .. }
            | Event::BattleStar { .. }
            | Event::Supply { .. }
            | Event::SupplyRoll { .. }
            | Event::DropZoneLost { .. }
            | Event::Replacement { .. }
            | Event::Train { .. }
            | Event::TrainMission { .. }
            | Event::Reinforced { .. }
            | Event::IceRoll { .. } => self.optional_rules(e),
            Event::Airdrop { .. } => self.airdrop(e),
        }
    }

    /// Command cards and orders.
    fn cards(&mut self, e: &Event) -> Option<Event> {
        match e {
            // "A player may not know which Command Cards his opponent has
            // or are being played": the enemy's cards are told only as
            // having been played.
            Event::CardPlayed { side: by, .. } if !self.mine(by) => {
                Some(fog("The enemy plays a command card.".into()))
            }
            Event::CardsExchanged { side: by, .. } if !self.mine(by) => {
                Some(fog("The enemy exchanges command cards.".into()))
            }
            Event::CardDiscarded { side: by, .. } if !self.mine(by) => None,
            // What the enemy's cards do to the deck would name them (two
            // draws are Recon, a reshuffle with cards left Their Finest
            // Hour): one draw is told whatever it drew, no reshuffle.
            Event::CardDrawn { side: by, .. } if !self.mine(by) => {
                let first = !self.drew_told;
                self.drew_told = true;
                first.then(|| e.clone())
            }
            Event::DeckReshuffled { .. } => None,
            Event::UnitOrdered { side: by, at, .. } => self.own_or_seen(by, at, e),
            Event::OrderSkipped { side: by, .. } => self.mine(by).then(|| e.clone()),
            // Orders by dice are Their Finest Hour's alone: the enemy's are
            // not told (its units' moves and battles are, as far as seen).
            Event::OrdersByDice { side: by, .. } => self.mine(by).then(|| e.clone()),
            _ => Some(e.clone()),
        }
    }

    /// Moves, retreats, ground taken and what stopped a move.
    fn movement(&self, e: &Event) -> Option<Event> {
        let (known, now) = (&self.known, &self.now);
        match e {
            Event::Move {
                side: by,
                unit,
                path,
            }
            | Event::Retreat {
                side: by,
                unit,
                path,
                ..
            } => {
                let retreat = matches!(e, Event::Retreat { .. });
                let (Some(a), Some(b)) = (path.first(), path.last()) else {
                    return None;
                };
                if self.mine(by) || (path.iter().all(|h| known.contains(h)) && now.contains(b)) {
                    Some(e.clone())
                } else {
                    match (known.contains(a), now.contains(b)) {
                        (true, true) => Some(fog(format!(
                            "The enemy {unit} at {a} {} out of sight and is seen again at {b}.",
                            if retreat { "retreats" } else { "moves" }
                        ))),
                        (true, false) => Some(fog(format!(
                            "The enemy {unit} at {a} {} out of sight.",
                            if retreat { "retreats" } else { "moves" }
                        ))),
                        (false, true) => {
                            Some(fog(format!("An enemy {unit} comes into sight at {b}.")))
                        }
                        (false, false) => None,
                    }
                }
            }
            Event::TakeGround {
                side: by,
                from,
                to,
                unit,
            }
            | Event::Overrun {
                side: by,
                from,
                to,
                unit,
            } => {
                if self.mine(by) || (known.contains(from) && known.contains(to)) {
                    Some(e.clone())
                } else if now.contains(to) {
                    Some(fog(format!("An enemy {unit} comes into sight at {to}.")))
                } else {
                    None
                }
            }
            Event::Contact { side: by, .. } => self.mine(by).then(|| e.clone()),
            _ => None,
        }
    }

    /// A battle, as far as the side sees its firer and its target.
    fn battle(&self, e: &Event) -> Option<Event> {
        let known = &self.known;
        match e {
            Event::Battle {
                side: by,
                from,
                at,
                dice,
                faces,
                hits,
                flags,
                how,
                target,
                ..
            } => {
                if self.mine(by) {
                    Some(e.clone())
                } else if from.is_some_and(|f| known.contains(&f)) {
                    // Seen whole, but not the enemy's card: no modifier
                    // the side cannot see on the table, no card's name.
                    Some(cards::battle_seen(e))
                } else if known.contains(at) {
                    // Battled from a hex it does not see: the dice and what
                    // they did to its own unit, nothing of the firer.
                    Some(Event::Battle {
                        side: by.clone(),
                        attacker: "unseen enemy unit".into(),
                        from: None,
                        target: target.clone(),
                        at: *at,
                        range: 0,
                        how: cards::neutral_how(how, 0),
                        base_dice: *dice,
                        modifiers: Vec::new(),
                        dice: *dice,
                        faces: faces.clone(),
                        hits: *hits,
                        flags: *flags,
                        ignored_flags: 0,
                    })
                } else {
                    None
                }
            }
            Event::CrossHairPlaced { gun, .. } => known.contains(gun).then(|| e.clone()),
            _ => None,
        }
    }

    /// Losses, medals and objectives.
    fn losses(&mut self, e: &Event) -> Option<Event> {
        let known = &self.known;
        match e {
            Event::MedalGained {
                side: by,
                medals,
                reason,
            } if self.unseen_kill && reason.ends_with(" eliminated") => {
                self.unseen_kill = false;
                Some(Event::MedalGained {
                    side: by.clone(),
                    medals: *medals,
                    reason: "a unit eliminated out of sight".into(),
                })
            }
            Event::MedalGained { .. } => Some(e.clone()),
            // Medics & Mechanics: the figures are seen back on the table,
            // not the card's roll.
            Event::FiguresReturned {
                side: by,
                unit,
                at,
                now,
                ..
            } => {
                if self.mine(by) {
                    Some(e.clone())
                } else {
                    known
                        .contains(at)
                        .then(|| fog(format!("The enemy {unit} at {at} now has {now} figures.")))
                }
            }
            Event::FiguresLost { side: by, at, .. } => self.own_or_seen(by, at, e),
            Event::UnitEliminated {
                side: owner,
                at,
                by: who,
                ..
            } => {
                if self.mine(owner) || known.contains(at) {
                    Some(e.clone())
                } else {
                    self.unseen_kill = true;
                    Some(fog(format!(
                        "An enemy unit out of sight is eliminated ({} gains the medal).",
                        who
                    )))
                }
            }
            Event::ObjectiveTaken { side: by, at, held } => {
                if known.contains(at) || (self.mine(by) && *held) {
                    Some(e.clone())
                } else if self.mine(by) {
                    // Its own objective lost where it sees no unit: the
                    // medal is public, the hex would say where an unseen
                    // enemy unit stands.
                    Some(fog(format!(
                        "{} lose an objective (a medal).",
                        crate::render::side_name(by)
                    )))
                } else if *held {
                    Some(fog("The enemy takes an objective (a medal).".into()))
                } else {
                    Some(fog("The enemy loses an objective.".into()))
                }
            }
            _ => None,
        }
    }

    /// A campaign's pre-battle results (the rolls are public, what each
    /// side chose is its own): whole for the side's own units and where it
    /// sees the hex, else without the hex.
    fn pre_battle(&self, e: &Event) -> Option<Event> {
        let seen = |at: &str| self.known.iter().any(|h| h.to_string() == at);
        let name = crate::render::side_name;
        match e {
            Event::PreBattleRetreat { side, from, to } => {
                if self.mine(side) || (seen(from) && seen(to)) {
                    Some(e.clone())
                } else {
                    Some(fog(format!(
                        "Before the battle a unit of {} falls back out of sight.",
                        name(side)
                    )))
                }
            }
            Event::PreBattleLoss { side, at, .. } => {
                if self.mine(side) || seen(at) {
                    Some(e.clone())
                } else {
                    Some(fog(format!(
                        "Before the battle a unit of {} out of sight loses a figure.",
                        name(side)
                    )))
                }
            }
            Event::PreBattleMedal { side, at } => {
                if seen(at) {
                    Some(e.clone())
                } else {
                    Some(fog(format!(
                        "{} eliminate a unit out of sight before the battle: a medal.",
                        name(side)
                    )))
                }
            }
            _ => None,
        }
    }

    /// Ambush, Combat Engineers, obstacles, minefields, bridges and tiles:
    /// told where the side sees the hex.
    fn on_the_table(&self, e: &Event) -> Option<Event> {
        let known = &self.known;
        match e {
            // Ambush is a card: its battle is told as a close assault.
            Event::AmbushPlayed { side: by, .. } if !self.mine(by) => None,
            Event::BridgeBombarded { side: by, .. } if !self.mine(by) => {
                cards::bombarded_seen(e, known)
            }
            // Minefields and Combat Engineers: told to the side whose unit
            // it was, and to the other where it sees the hex.
            Event::ObstacleRemoved { side: by, at, .. }
            | Event::MinefieldIgnored { side: by, at, .. }
            | Event::MinefieldRevealed { side: by, at, .. }
            | Event::MinefieldExploded { side: by, at, .. }
            | Event::BridgeDetonation { side: by, at, .. }
            | Event::BridgeDestroyed { side: by, at, .. } => self.own_or_seen(by, at, e),
            // Fired or placed from a hex: told whole only where the side
            // sees both ends.
            Event::MinefieldClearance {
                side: by,
                at,
                from: Some(from),
                ..
            }
            | Event::BridgeCharged {
                side: by, at, from, ..
            }
            | Event::PontoonBuilt {
                side: by, at, from, ..
            }
            | Event::BridgeBombarded {
                side: by, at, from, ..
            } => (self.mine(by) || (known.contains(at) && known.contains(from))).then(|| e.clone()),
            Event::MinefieldClearance { side: by, at, .. } => self.own_or_seen(by, at, e),
            Event::WireRemoved { at, .. }
            | Event::BridgeChargesRemoved { at }
            | Event::SandbagPlaced { at }
            | Event::SandbagRemoved { at }
            | Event::TileDestroyed { at, .. }
            | Event::AmbushPlayed { at, .. } => known.contains(at).then(|| e.clone()),
            _ => None,
        }
    }

    /// The optional rules' and variants' events.
    fn optional_rules(&self, e: &Event) -> Option<Event> {
        let known = &self.known;
        match e {
            // "Achtung! Zombie!": told where the side sees.
            Event::Zombies { side: by, at, .. } => self.own_or_seen(by, at, e),
            // "EX-TER-MIN-ATE!": told where the side sees.
            Event::Daleks { side: by, at, .. } | Event::Cybermen { side: by, at, .. } => {
                self.own_or_seen(by, at, e)
            }
            // A Battle Star marker's fate: told where the side sees.
            Event::BattleStar { at, .. } if !known.contains(at) => None,
            Event::BattleStar { .. } => Some(e.clone()),
            // Supply Lines & Sieges: a side's supply is its own business;
            // a roll and the Drop-Zone's loss where the enemy sees the hex.
            Event::Supply { side: by, .. } => self.mine(by).then(|| e.clone()),
            Event::SupplyRoll { side: by, at, .. } | Event::DropZoneLost { side: by, at } => {
                self.own_or_seen(by, at, e)
            }
            // "Nineteen Eighty-Four": a replacement is told to its side,
            // and to the enemy where it sees the hex.
            Event::Replacement { side: by, at, .. } => {
                (self.mine(by) || at.is_some_and(|h| known.contains(&h))).then(|| e.clone())
            }
            Event::Train { side: by, at, .. }
            | Event::TrainMission { side: by, at, .. }
            | Event::Reinforced { side: by, at, .. }
            | Event::IceRoll { side: by, at, .. } => self.own_or_seen(by, at, e),
            _ => None,
        }
    }

    /// An enemy airdrop: the planes are seen, where a stick came down only
    /// if a unit of the side sees it now.
    fn airdrop(&self, e: &Event) -> Option<Event> {
        let Event::Airdrop {
            side: by,
            unit,
            at,
            on,
            ..
        } = e
        else {
            return None;
        };
        let (known, now, s, side) = (&self.known, &self.now, self.s, self.side);
        if self.mine(by)
            && on.is_some_and(|h| {
                !known.contains(&h) && s.unit_at(h).is_none_or(|u| Some(u.side) != side)
            })
        {
            // Lost on an enemy unit the side does not see: the
            // dice and the hex would say where that unit is.
            Some(fog(format!(
                "Your {unit} dropped by air is lost: it came down where no unit of yours can see (no medal to the enemy)."
            )))
        } else if self.mine(by) {
            Some(e.clone())
        } else if let Some(h) = at.filter(|h| now.contains(h)) {
            Some(fog(format!("An enemy {unit} lands by air at {h}.")))
        } else {
            Some(fog("Enemy aircraft drop troops out of sight.".into()))
        }
    }
}
