//! Appendix 1, "Minefields" and "Minefield Clearance" (the house rules).
//!
//! "Before placing any Minefield, mix all Minefield pieces with their
//! numbered side hidden. Place one Minefield piece, selected at random,
//! numbered side still hidden, on each Minefield hex indicated by the
//! Scenario." The judge mixes the pieces with the game's deck stream (the
//! hidden-shuffle seed, revealed only at the end), so no player, not even
//! the side that laid them, can work a strength out of the turn dice it is
//! shown; the views carry a strength only once it is revealed, the
//! referee's always (view.rs).
//!
//! Entering: "A Unit must stop, and may not Move any further on that turn,
//! when entering a Minefield" (battle::check_path). An enemy unit reveals
//! it, a Decoy is removed, else the minefield rolls its strength in dice
//! (hits on the unit's symbol and grenades only); a friendly unit ignores
//! it; retreats never touch it. An Engineer Unit able to battle clears it
//! with one die instead of battling; artillery may fire at it.

use super::battle::{lose, retreat_path, roll, unit_moved, Ctx, HitRule};
use super::board::Hex;
use super::events::Event;
use super::state::State;
use adjutant_dice::{shuffle, Dice};
use serde::{Deserialize, Serialize};

/// One Minefield piece on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minefield {
    pub at: Hex,
    /// The side that laid it (its "friendly" side).
    pub side: usize,
    /// Its numbered side (0 = Decoy). Hidden from both players until
    /// revealed.
    pub strength: u32,
    /// Turned over: "its numbered side visible to both players".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub revealed: bool,
    /// Still to be drawn from the box at set-up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undrawn: bool,
}

/// The minefield on `h`, if any.
#[must_use]
pub fn at(st: &State, h: Hex) -> Option<&Minefield> {
    st.minefields.iter().find(|m| m.at == h)
}

/// Is there an enemy minefield (of a side other than `side`) on `h`?
#[must_use]
pub fn enemy_at(st: &State, h: Hex, side: usize) -> bool {
    at(st, h).is_some_and(|m| m.side != side)
}

/// Draw a piece from the mixed box for every minefield still undrawn.
/// Errors when the box holds fewer pieces than the scenario's hexes.
pub fn draw(st: &mut State, pieces: &[u32], dice: &mut dyn Dice) -> Result<(), String> {
    let want = st.minefields.iter().filter(|m| m.undrawn).count();
    if want == 0 {
        return Ok(());
    }
    if want > pieces.len() {
        return Err(format!(
            "{want} minefield hexes but only {} minefield pieces",
            pieces.len()
        ));
    }
    let mut bag = pieces.to_vec();
    shuffle(&mut bag, dice);
    let mut it = bag.into_iter();
    for m in st.minefields.iter_mut().filter(|m| m.undrawn) {
        m.strength = it.next().unwrap_or(0);
        m.undrawn = false;
    }
    Ok(())
}

fn remove(st: &mut State, h: Hex) {
    st.minefields.retain(|m| m.at != h);
}

/// Turn the piece on `h` over; a Decoy is removed. Returns its strength.
fn reveal(st: &mut State, ev: &mut Vec<Event>, h: Hex, by: &str) -> u32 {
    let Some(m) = st.minefields.iter_mut().find(|m| m.at == h) else {
        return 0;
    };
    let strength = m.strength;
    // Turned over once; entered again, its strength is already known.
    if !m.revealed {
        m.revealed = true;
        ev.push(Event::MinefieldRevealed {
            side: by.to_string(),
            at: h,
            strength,
        });
    }
    if strength == 0 {
        // "If the Minefield is a Decoy ("0" Strength), remove it."
        remove(st, h);
    }
    strength
}

/// A unit has just moved onto `h` (a move or a Take Ground / Overrun,
/// never a retreat). `clearing`: it is an Engineer Unit that may still
/// battle this turn, so it clears the minefield instead of battling.
pub fn entered(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    unit: u32,
    h: Hex,
    clearing: bool,
) {
    let Some(m) = at(st, h).cloned() else {
        return;
    };
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    // "EX-TER-MIN-ATE!": "Daleks are not effected by Landmines"; "War Of
    // The Worlds": the machines are "not effected by Landmines". They do
    // not stop either (battle.rs), so the piece is never revealed.
    if ctx.spec(&u.kind).variant.ignores_mines {
        return;
    }
    let side = st.sides[u.side].clone();
    if m.side == u.side {
        // "the Unit must still stop, but will ignore the Minefield, never
        // revealing its strength if still hidden, nor rolling dice."
        ev.push(Event::MinefieldIgnored {
            side,
            unit: u.kind.clone(),
            at: h,
        });
        return;
    }
    if clearing {
        // "Roll a single Battle Die whenever an Engineer Unit Moves onto a
        // Minefield hex. The Minefield is removed if the score is a Blue
        // Infantryman or a Red Grenade."
        let f = ctx.r.face(dice.roll(6));
        let cleared = ctx.r.minefields.engineer_clears_on.contains(&f);
        ev.push(Event::MinefieldClearance {
            side: side.clone(),
            unit: u.kind.clone(),
            from: None,
            at: h,
            faces: vec![f],
            cleared,
        });
        if cleared {
            remove(st, h);
            return;
        }
        // "However, the Engineer Unit Retreats 1 hex for any other result
        // and the Minefield is considered to have detonated. Turn the
        // Minefield piece over to reveal its numbered side."
        reveal(st, ev, h, &side);
        let prefs = st
            .standing
            .get(u.side)
            .and_then(|s| s.retreat.iter().find(|(i, _)| *i == unit))
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
        let path = retreat_path(ctx, st, &u, 1, &prefs);
        let done = path.len() as u32 - 1;
        if let (Some(last), Some(x)) = (path.last().copied(), st.unit_mut(unit)) {
            x.at = last;
        }
        if done > 0 {
            unit_moved(st, unit);
        }
        ev.push(Event::Retreat {
            side: side.clone(),
            unit: u.kind.clone(),
            path,
            blocked: 1 - done.min(1),
            no_retreat: false,
        });
        if done == 0 {
            lose(ctx, st, ev, unit, 1, m.side, "retreat blocked", "minefield");
        }
        ev.extend(super::victory::update_objectives(st));
        return;
    }
    // "If the Unit entering the Minefield is an enemy Unit, turn the
    // Minefield piece over to reveal its numbered side."
    let strength = reveal(st, ev, h, &side);
    if strength == 0 {
        return;
    }
    // "Otherwise roll a number of Battle Dice equal to the Minefield's
    // numbered side. Score 1 Hit for each die matching the Unit symbol or a
    // Red Grenade. Ignore all other symbols, Purple Flag included."
    let tspec = ctx.spec(&u.kind);
    let (faces, hits, _flags) = roll(ctx, dice, strength, None, tspec, HitRule::default());
    ev.push(Event::MinefieldExploded {
        side,
        unit: u.kind.clone(),
        at: h,
        strength,
        faces,
        hits,
    });
    if hits > 0 {
        lose(ctx, st, ev, unit, hits, m.side, "minefield", "minefield");
    }
}

/// Artillery firing at the minefield on `target`: "A Red Grenade means that
/// a path has been cleared and that the Minefield piece should be removed."
pub fn artillery_clear(
    ctx: &Ctx<'_>,
    st: &mut State,
    ev: &mut Vec<Event>,
    dice: &mut dyn Dice,
    unit: u32,
    target: Hex,
) {
    let Some(u) = st.unit(unit).cloned() else {
        return;
    };
    if at(st, target).is_none() {
        return;
    }
    let spec = ctx.spec(&u.kind);
    let range = u.at.distance(target);
    let base = spec
        .dice
        .get((range as usize).wrapping_sub(1))
        .copied()
        .unwrap_or(0);
    // Demoralisation: "reduce ... Battle Dice".
    let less = super::disorder::battle_mods(st, u.id);
    let n = super::battle::total(base, less.as_slice());
    let mut faces = Vec::new();
    for _ in 0..n {
        faces.push(ctx.r.face(dice.roll(6)));
    }
    let cleared = faces
        .iter()
        .any(|f| ctx.r.minefields.artillery_clears_on.contains(f));
    ev.push(Event::MinefieldClearance {
        side: st.sides[u.side].clone(),
        unit: u.kind.clone(),
        from: Some(u.at),
        at: target,
        faces,
        cleared,
    });
    if cleared {
        remove(st, target);
    }
}

/// Problems with what the view `v` of side `who` shows of hidden minefield
/// strengths: none of a piece still hidden may be in it, nor in any event
/// it is told (the referee alone sees them). For the cases and the tests.
#[must_use]
pub fn leaks(st: &State, v: &super::view::View, who: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in st.minefields.iter().filter(|m| !m.revealed) {
        if v.minefields
            .iter()
            .any(|x| x.at == m.at && x.strength.is_some())
        {
            out.push(format!(
                "the view of {who} holds the hidden strength of the minefield at {}",
                m.at
            ));
        }
        for e in &v.last_turn {
            let told = match e {
                Event::MinefieldRevealed { at, .. } | Event::MinefieldExploded { at, .. } => {
                    *at == m.at
                }
                _ => false,
            };
            if told {
                out.push(format!(
                    "{who} is told the strength of the hidden minefield at {}",
                    m.at
                ));
            }
        }
    }
    out
}

/// Minefields on the turn's hooks (turn/hooks.rs): a unit that enters one.
pub struct Hooks;

impl crate::turn::Hook for Hooks {
    fn entered(
        &self,
        p: &mut crate::turn::hooks::Play<'_, '_>,
        e: &crate::turn::hooks::Entered<'_>,
    ) {
        entered(p.ctx, p.st, p.ev, p.dice, e.unit, e.dest, e.clearing);
    }
}
