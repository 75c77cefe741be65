//! A game's replay: one self-contained HTML file that steps through every
//! turn as one viewer saw it (docs/replay.md, issue 33).
//!
//! Nothing here draws a board or writes a report: each step is the turn's
//! report as `judge.reports().turn_report` gives it (HISTORY's text and the
//! family's board fragment, the same SVG the mails draw) for the viewer,
//! so fog of war applies exactly as in the mails. The file holds no
//! reference to anything outside it: inline CSS, inline SVG, a small
//! inline script, and a Content-Security-Policy of `default-src 'none'`.

mod page;

use crate::rules::Viewer;
use crate::service::{sight, Judge, ServiceError};
use crate::store::Game;

pub use page::{document, Step};

/// The view a replay of `game` for `viewer` is drawn from: the viewer's
/// own while the game runs (for it), the referee's once it is over, for
/// everyone (the game seed is public then, and with it every view).
#[must_use]
pub fn seen_as(game: &Game, viewer: &Viewer) -> Viewer {
    let (status, _) = sight::visible_status(game, viewer);
    if status == "over" {
        Viewer::Referee
    } else {
        viewer.clone()
    }
}

/// The replay of game `id` for `viewer`: every turn it may see
/// ([`sight::visible_turn`]), as [`seen_as`] says, as one HTML file.
pub fn html(judge: &Judge, id: i64, viewer: &Viewer) -> Result<String, ServiceError> {
    let game = judge.game(id)?;
    let shown = seen_as(&game, viewer);
    let last = sight::visible_turn(&game, viewer);
    let steps = steps(judge, &game, &shown, last)?;
    let title = format!(
        "Game {}, {}: replay ({})",
        game.id,
        game.scenario,
        viewer_words(&shown)
    );
    Ok(document(&title, &steps))
}

/// Turns 0 to `last` of `game` as `viewer` sees them: each one's report
/// text, board and score.
pub fn steps(
    judge: &Judge,
    game: &Game,
    viewer: &Viewer,
    last: u32,
) -> Result<Vec<Step>, ServiceError> {
    (0..=last)
        .map(|turn| {
            let (report, parts) = judge.reports().turn_report(game, turn, viewer)?;
            let pos = judge.position(game, Some(turn))?;
            Ok(Step {
                turn,
                board: parts.board_html,
                report,
                score: pos.rules.score(&pos.state),
                score_word: crate::rules::score_word(&game.ruleset),
            })
        })
        .collect()
}

/// A viewer in the words of the replay's title.
fn viewer_words(v: &Viewer) -> String {
    match v {
        Viewer::Side(s) => format!("as {s} saw it"),
        Viewer::Referee => "the whole game".into(),
        Viewer::Observer => "as the public saw it".into(),
        Viewer::Revealed(_) => "as the referee revealed it".into(),
    }
}

/// The attachment of a replay: (file name, MIME type, bytes).
#[must_use]
pub fn attachment(game: i64, html: String) -> (String, String, Vec<u8>) {
    (
        format!("game-{game}-replay.html"),
        "text/html".into(),
        html.into_bytes(),
    )
}
