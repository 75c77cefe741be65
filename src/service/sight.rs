//! What a person may see of a game now (docs/referee.md, "What a player
//! may see"). One rule for every answer a player can ask for (MAP,
//! HISTORY, STATUS, the JSON view and board of those answers, `export`,
//! `show --as SIDE`): in review mode the players and observers see the
//! game as it stood after the last turn the referee released; the held
//! turns (their dice, losses, cards drawn, whose move it is) exist only for
//! the referee until APPROVE.

use crate::rules::Viewer;
use crate::store::Game;

/// The last turn of `game` that `viewer` may see now.
///
/// The referee sees every turn; a side or an observer, while results are
/// held for review (`held_from`), only the turns before the first held one.
#[must_use]
pub fn visible_turn(game: &Game, viewer: &Viewer) -> u32 {
    last_visible(game.turn, game.held_from, viewer)
}

/// [`visible_turn`] of a game at `turn` whose results from `held_from` on
/// are held for review.
#[must_use]
pub fn last_visible(turn: u32, held_from: Option<u32>, viewer: &Viewer) -> u32 {
    match (viewer, held_from) {
        (Viewer::Referee, _) | (_, None) => turn,
        (_, Some(first_held)) => first_held.saturating_sub(1).min(turn),
    }
}

/// Are some of `game`'s turns hidden from `viewer` now?
#[must_use]
pub fn holds_back(game: &Game, viewer: &Viewer) -> bool {
    visible_turn(game, viewer) < game.turn
}

/// The game's status and result as `viewer` may know them: a game that
/// ended in a held turn is still running for the players until APPROVE.
#[must_use]
pub fn visible_status(game: &Game, viewer: &Viewer) -> (String, Option<String>) {
    if holds_back(game, viewer) {
        ("active".into(), None)
    } else {
        (game.status.clone(), game.result.clone())
    }
}

/// The line a held answer says instead of the held results.
#[must_use]
pub fn held_line(game: &Game) -> String {
    format!(
        "The results after turn {} of game {} are\nwith the referee for review; you get them when the referee releases them.",
        visible_turn(game, &Viewer::Observer),
        game.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_stop_before_the_first_held_turn_and_the_referee_does_not() {
        let side = Viewer::Side("allies".into());
        assert_eq!(last_visible(5, Some(4), &Viewer::Referee), 5);
        assert_eq!(last_visible(5, Some(4), &side), 3);
        assert_eq!(last_visible(5, Some(4), &Viewer::Observer), 3);
        assert_eq!(last_visible(5, None, &side), 5);
        assert_eq!(last_visible(1, Some(1), &side), 0);
    }
}
