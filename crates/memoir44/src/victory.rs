//! Objectives, victory points, the last Counter-Attack turn and damage scoring.

use super::events::Event;
use super::ruleset::Ruleset;
use super::state::State;

/// Capture and retake objectives from the units standing on them.
pub fn update_objectives(st: &mut State) -> Vec<Event> {
    let mut ev = Vec::new();
    for i in 0..st.objectives.len() {
        let o = st.objectives[i].clone();
        let Some(u) = st.unit_at(o.at) else { continue };
        let side = u.side;
        if side == o.side && !o.held {
            st.objectives[i].held = true;
            ev.push(Event::ObjectiveTaken {
                side: st.sides[side].clone(),
                at: o.at,
                held: true,
            });
        } else if side != o.side && o.held {
            st.objectives[i].held = false;
            ev.push(Event::ObjectiveTaken {
                side: st.sides[o.side].clone(),
                at: o.at,
                held: false,
            });
        }
    }
    ev
}

/// A side with terrain objectives of its own cannot win without holding one.
#[must_use]
pub fn may_win(st: &State, side: usize) -> bool {
    let own: Vec<_> = st.objectives.iter().filter(|o| o.side == side).collect();
    own.is_empty() || own.iter().any(|o| o.held)
}

/// Whether `side` has the victory points it needs (and may win).
#[must_use]
pub fn reached(st: &State, side: usize) -> bool {
    // "EX-TER-MIN-ATE!": "Daleks always need to get 10 Victory Points to
    // win ... no matter what is required by the scenarios Conditions Of
    // Victory."
    let daleks = super::variants::exterminate::is_dalek_side(st, side);
    st.medals(side) >= super::variants::exterminate::victory_for(st, side)
        && (daleks || may_win(st, side))
}

/// End-of-game damage: enemy figures removed plus objectives held.
#[must_use]
pub fn damage(st: &State, side: usize) -> u32 {
    st.figures_removed.get(side).copied().unwrap_or(0)
        + st.objectives
            .iter()
            .filter(|o| o.side == side && o.held)
            .count() as u32
}

fn finish(st: &mut State, reason: &str) -> Event {
    let score: Vec<(String, u32)> = (0..2)
        .map(|i| (st.sides[i].clone(), damage(st, i)))
        .collect();
    let winner = match score[0].1.cmp(&score[1].1) {
        std::cmp::Ordering::Greater if may_win(st, 0) => st.sides[0].clone(),
        std::cmp::Ordering::Less if may_win(st, 1) => st.sides[1].clone(),
        _ => String::new(),
    };
    st.over = true;
    st.winner = Some(winner.clone());
    Event::GameOver {
        winner: Some(winner).filter(|w| !w.is_empty()),
        score,
        reason: reason.to_string(),
    }
}

/// After `mover`'s turn: has someone reached the victory points, and is the
/// game over?
pub fn end_of_turn(r: &Ruleset, st: &mut State, mover: usize) -> Vec<Event> {
    let mut ev = Vec::new();
    if st.over {
        return ev;
    }
    if st.final_turn == Some(mover) {
        ev.push(finish(st, "the last Counter-Attack turn is over"));
        return ev;
    }
    if st.final_turn.is_some() {
        return ev;
    }
    let reached: Vec<usize> = (0..2).filter(|&i| reached(st, i)).collect();
    if reached.is_empty() {
        return ev;
    }
    let last =
        if r.options.counter_attack_turn && reached.len() == 1 && State::other(reached[0]) != mover
        {
            Some(State::other(reached[0]))
        } else {
            None
        };
    for &i in &reached {
        ev.push(Event::VictoryReached {
            side: st.sides[i].clone(),
            medals: st.medals(i),
            last_turn_for: last.map(|l| st.sides[l].clone()),
        });
    }
    match last {
        Some(l) => st.final_turn = Some(l),
        None => ev.push(finish(st, "victory points reached")),
    }
    ev
}
