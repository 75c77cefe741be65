//! End to end over a real mail server (scripts/mailserver.sh), issue 12: a
//! game of the shipped Maleme scenario. The judge drops the paratroops and
//! gliders by dice as the game opens and mails both players where each stick
//! landed; the players then play by replying to the judge's mails, and the
//! exported game verifies, the drop included.

use crate::common;
use common::memoir_mail::MemoirGame;

#[test]
fn maleme_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let mut g = MemoirGame::start("maleme", [("axis", "alice"), ("allies", "bob")], 12);
    // Each player: the welcome, then the judge's drop (turn 1).
    let opening = g.wait_opening(2);
    for (who, m) in g.players.iter().zip(&opening) {
        let drop = m
            .iter()
            .find(|x| {
                x["subject"]
                    .as_str()
                    .unwrap()
                    .contains("turn 1 (the judge)")
            })
            .unwrap_or_else(|| panic!("{who} has no report of the drop: {m:#?}"));
        let body = drop["body"].as_str().unwrap_or_default();
        assert_eq!(
            body.matches("Axis airdrop Elite Infantry").count(),
            5,
            "{who}: {body}"
        );
    }
    assert_eq!(g.row().0, 1);

    for _ in 0..6 {
        if g.play(None).is_none() {
            break;
        }
    }
    assert!(g.row().0 >= 5, "the game did not go on after the drop");
    let v = g.site.export_and_verify(&["--include-seed"]);
    assert!(v.contains("replayed identically"), "{v}");
}
