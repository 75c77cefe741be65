//! End to end over a real mail server (scripts/mailserver.sh), issue 12:
//! the night scenario, Merville Battery (Night & Severe Weather Conditions,
//! with the night visibility track). The players play by replying to the
//! judge's mails; every report says the night's visibility; before each
//! British turn the judge rolls for dawn and tells both players; the exported
//! game verifies, the night track's dice included.

use crate::common;
use common::memoir_mail::MemoirGame;

#[test]
fn merville_battery_at_night_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let mut g = MemoirGame::start(
        "merville-battery",
        [("allies", "alice"), ("axis", "bob")],
        44,
    );
    let opening = g.wait_opening(1);
    for (who, m) in g.players.iter().zip(&opening) {
        let body = m[0]["body"].as_str().unwrap_or_default();
        assert!(
            body.contains("Weather: Night; visibility 1 hex(es); night track box 1 of 5"),
            "{who}: the opening mail does not tell the night: {body}"
        );
    }
    let mut dawn_rolls = 0;
    for _ in 0..10 {
        let Some(t) = g.play(None) else {
            break;
        };
        let over = g.row().1 == "over";
        for (i, who) in g.players.iter().enumerate() {
            let new: Vec<&str> = t
                .new_mails(i)
                .iter()
                .map(|x| x["body"].as_str().unwrap_or_default())
                .collect();
            // After each German turn the British roll for dawn (unless the
            // night is already over): both players are told.
            let night = common::latest_state(&g.site).weather.is_some();
            if t.side == "axis" && !over && (night || new.iter().any(|b| b.contains("Dawn:"))) {
                assert!(
                    new.iter()
                        .any(|b| b.contains("Night track:") || b.contains("Dawn:")),
                    "{who}: turn {}: no roll for dawn told: {new:#?}",
                    t.turn + 1
                );
                dawn_rolls += 1;
            }
        }
    }
    assert!(g.row().0 >= 6, "the game did not go on");
    assert!(dawn_rolls >= 2, "only {dawn_rolls} dawn rolls told");
    let v = g.site.export_and_verify(&["--include-seed"]);
    assert!(v.contains("replayed identically"), "{v}");
}
