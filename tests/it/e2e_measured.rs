//! A whole measured-table game (Charge!, El Bodon 1811) by mail through a
//! real mail server: Postfix and Dovecot on loopback (scripts/mailserver.sh),
//! the players using Python's smtplib and imaplib, the judge reading by IMAP
//! and sending by SMTP; then the last report's HTML part, as the player's
//! IMAP inbox holds it, laid out by headless Chromium.
//!
//! Move 1: the British send first and are held; an order that breaks a rule
//! (too far for the formation) is refused with the line and the measured
//! reason, and the held orders stay; the French send and the move resolves.
//! Every later move by random legal orders to the end of the scenario; the
//! export verifies. Skipped (with a message) outside CI when the mail
//! server or Chromium is not installed, like tests/it/e2e_grid.rs and
//! tests/it/browser.rs.

use crate::common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::measured;
use adjutant::rules::measured::ChargeRuleset as _;
use adjutant::rules::Load;
use adjutant::rules::Rules;
use common::mail_client::real_server_site;

use crate::common::measured_mail::{browser_check, inbox, text, Judge, MailJudge};

#[test]
fn a_measured_game_by_mail_with_its_svg_in_chromium() {
    if !common::mailserver() {
        return;
    }
    let users = ["alice", "bob"];
    let site = real_server_site(&users);
    // The browser check lays out the inline SVG (issue 37's PNG is
    // tested in tests/it/picture_mail.rs).
    common::set_picture(&site, "svg");
    let players = users.map(common::mail_address);
    let j = Judge {
        mail: MailJudge::new(
            &site,
            Rules::load("charge").unwrap(),
            "british",
            players.clone(),
        ),
        ruleset: measured::Ruleset::builtin("charge").unwrap(),
    };
    j.new_game("el-bodon-1811", ["british", "french"], &[]);
    // The welcome carries the measured family's table and order template.
    let welcome = j.wait_mail(&players[0], 0, "Welcome");
    let body = text(&welcome, "body");
    assert!(body.contains("El Bodon"), "{body}");
    assert!(
        body.contains("UNIT 5TH:"),
        "the order template lists the units: {body}"
    );
    j.wait_mail(&players[1], 0, "Welcome");
    let mut rng = ChaChaDice::from_seed([14; 32]);

    // Move 1: the British first; they are held.
    assert_eq!(j.needed().len(), 2, "both sides write orders for a move");
    let british = "UNIT 5TH: FORWARD 4\nUNIT 77TH: WHEEL LEFT 10\nUNIT ART: FIRE AT 1DRG\nUNIT 11LD: FORWARD 6\n";
    let receipt = j.send_and_wait("british", british, true);
    let body = text(&receipt, "body");
    assert!(body.contains("until french has sent"), "{body}");
    assert!(body.contains("# UNIT 5TH: FORWARD 4"), "{body}");
    assert_eq!(j.game().0, 0, "held orders adjudicate nothing");
    // An order that breaks a rule is refused with the measured reason, and
    // the orders held before stay.
    let skip = j.send("british", "UNIT 5TH: FORWARD 7\n");
    let refusal = j.wait_mail(&players[0], skip, "too far");
    let body = text(&refusal, "body");
    assert!(
        body.contains("UNIT 5TH: FORWARD 7"),
        "the line is quoted: {body}"
    );
    assert!(body.contains("6\""), "the allowance is measured: {body}");
    // The French have been told nothing of the British orders.
    assert!(inbox(&players[1])
        .iter()
        .all(|m| !text(m, "body").contains("They are held")));
    let french = j.random_orders("french", &mut rng);
    j.send_and_wait("french", &french, false);
    assert_eq!(j.game().0, 1, "the move resolved when the last side sent");
    let report = j.wait_mail(&players[0], 0, "turn 1 (");
    let body = text(&report, "body");
    assert!(body.contains("5TH"), "{body}");
    assert!(
        body.contains("forward 4\""),
        "every measured distance is reported: {body}"
    );
    let moved = j.state();
    let five = moved.unit("5TH").unwrap();
    assert_eq!(
        (five.front.x, five.front.y),
        (24 * 16, 20 * 16),
        "the 5th advanced 4\" from (24\", 16\")"
    );

    // The rest of the game by random legal orders, to its end.
    for _ in 0..40 {
        let (turn, status) = j.game();
        if status == "over" {
            break;
        }
        j.hours.set(j.hours.get() + 1);
        let need = j.needed();
        for (k, side) in need.iter().enumerate() {
            let orders = j.random_orders(side, &mut rng);
            j.send_and_wait(side, &orders, k + 1 < need.len());
        }
        if j.game().0 <= turn {
            let last: Vec<String> = players
                .iter()
                .flat_map(|p| inbox(p).into_iter().rev().take(2))
                .map(|m| format!("{}\n{}", text(&m, "subject"), text(&m, "body")))
                .collect();
            panic!(
                "move {} did not resolve; waiting for {need:?}\n{}\n{}",
                turn + 1,
                last.join("\n-----\n"),
                j.at(&["log"])
            );
        }
    }
    let (turns, status) = j.game();
    assert_eq!(status, "over", "the game ended");
    assert!(turns >= 12, "only {turns} moves were played");
    j.assert_over_and_verified();
    assert_eq!(site.unsent(), 0, "everything was delivered");

    // The last turn report's HTML part, from the player's inbox, in a real
    // browser. Postfix hands it over in its own time.
    j.wait_mail(&players[0], 0, &format!("turn {turns} ("));
    let last = inbox(&players[0])
        .into_iter()
        .rev()
        .find(|m| {
            text(m, "html").contains("<svg")
                && text(m, "subject").contains(&format!("turn {turns}"))
        })
        .expect("the last report has an HTML part with the SVG");
    browser_check(&text(&last, "html"), &j.state(), &j.ruleset);
}
