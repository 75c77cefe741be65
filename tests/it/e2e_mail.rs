//! End to end over a real mail server: Postfix and Dovecot on loopback
//! (scripts/mailserver.sh), players using Python's smtplib and imaplib,
//! Adjutant reading by IMAP and sending by SMTP. Two players play a game of
//! Pegasus Bridge by replying to the judge's mails.

use crate::common;
use common::mail_client::inbox;
use common::memoir_mail::MemoirGame;

#[test]
fn a_game_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let mut g = MemoirGame::start("pegasus-bridge", [("allies", "alice"), ("axis", "bob")], 42);
    g.wait_opening(1);
    assert!(inbox(&g.players[0])[0]["subject"]
        .as_str()
        .unwrap()
        .contains("welcome"));

    // The players sign their mails; the judge reads the orders above the
    // signature.
    g.signed = true;
    let mut turns = 0;
    while turns < 40 {
        let Some(t) = g.play(None) else {
            break;
        };
        turns += 1;
        // Both players get the turn report; the mover also gets the receipt.
        for (who, m) in g.players.iter().zip(&t.mails) {
            assert!(
                m.iter().any(|x| x["subject"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("turn {}", t.turn + 1))),
                "{who} has no report of turn {}",
                t.turn + 1
            );
        }
    }
    assert!(turns >= 5, "only {turns} turns were played");
    if g.row().1 != "over" {
        // End the game by mail: the side to move resigns.
        g.reply(0, Some("resign"), "RESIGN\n");
        g.serve_until(|row| row.1 == "over");
        assert_eq!(g.row().1, "over");
    }
    // The game's export verifies, dice and all.
    let v = g.site.export_and_verify(&[]);
    assert!(v.contains("OK: game 1 verified"), "{v}");
    // Nothing was left undelivered and nothing bounced back to the judge unanswered.
    assert_eq!(g.site.unsent(), 0);
}
