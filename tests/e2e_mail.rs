//! End to end over a real mail server: Postfix and Dovecot on loopback
//! (scripts/mailserver.sh), players using Python's smtplib and imaplib,
//! Adjutant reading by IMAP and sending by SMTP. Two players play a game of
//! Pegasus Bridge by replying to the judge's mails.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::mail_client::{client, game_row, inbox, serve, use_real_server, wait_for};
use common::Site;

#[test]
fn a_game_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    for u in ["judge", "alice", "bob"] {
        client(&["clear", &format!("{u}@adjutant.test")], None);
    }
    let site = Site::new();
    use_real_server(&site);

    let id = site.ok(&[
        "new-game",
        "--scenario",
        "pegasus-bridge",
        "--seat",
        "allies=alice@adjutant.test",
        "--seat",
        "axis=bob@adjutant.test",
    ]);
    assert_eq!(id.trim(), "1");
    let mut seen = [
        wait_for("alice@adjutant.test", 1).len(),
        wait_for("bob@adjutant.test", 1).len(),
    ];
    assert!(inbox("alice@adjutant.test")[0]["subject"]
        .as_str()
        .unwrap()
        .contains("welcome"));

    let rules = memoir44::Ruleset::builtin().unwrap();
    let players = ["alice@adjutant.test", "bob@adjutant.test"];
    let mut rng = ChaChaDice::from_seed([42; 32]);
    let mut turns = 0;
    loop {
        let (turn, status) = game_row(&site);
        if status == "over" || turns >= 40 {
            break;
        }
        let state = common::latest_state(&site);
        let side = memoir44::waiting(&state).sides[0].clone();
        let p = usize::from(side != "allies");
        // The player replies to the judge's latest mail: its Reply-To names the seat.
        let mails = inbox(players[p]);
        let last = mails.last().unwrap();
        let reply_to = last["reply_to"].as_str().unwrap();
        let addr = reply_to
            .rsplit('<')
            .next()
            .unwrap()
            .trim_end_matches('>')
            .to_string();
        assert!(addr.starts_with("judge+"), "{reply_to}");
        let orders = memoir44::random_orders(&rules, &state, &side, &mut rng);
        let body = format!("{orders}\n-- \n{side} commander\nSent from my phone\n");
        client(
            &[
                "send",
                players[p],
                &addr,
                &format!("Re: {}", last["subject"].as_str().unwrap()),
            ],
            Some(&body),
        );
        // The judge may need a moment to see the mail in its IMAP box.
        let mut advanced = false;
        for _ in 0..50 {
            serve(&site);
            if game_row(&site).0 > turn {
                advanced = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if !advanced {
            let log = site.ok(&["log"]);
            panic!("turn {turn}: the orders of {side} were not adjudicated:\n{orders}\n{log}");
        }
        turns += 1;
        // Both players get the turn report; the mover also gets the receipt.
        seen[p] += 2;
        seen[1 - p] += 1;
        for (i, who) in players.iter().enumerate() {
            let m = wait_for(who, seen[i]);
            assert!(
                m.iter().any(|x| x["subject"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("turn {}", turn + 1))),
                "{who} has no report of turn {}",
                turn + 1
            );
        }
    }
    assert!(turns >= 5, "only {turns} turns were played");
    if game_row(&site).1 != "over" {
        // End the game by mail: the side to move resigns.
        let last = inbox(players[0]).last().cloned().unwrap();
        let addr = last["reply_to"]
            .as_str()
            .unwrap()
            .rsplit('<')
            .next()
            .unwrap()
            .trim_end_matches('>')
            .to_string();
        client(&["send", players[0], &addr, "resign"], Some("RESIGN\n"));
        for _ in 0..50 {
            serve(&site);
            if game_row(&site).1 == "over" {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert_eq!(game_row(&site).1, "over");
    }
    // The game's export verifies, dice and all.
    let export = site.path().join("export.json");
    site.ok(&["export", "1", "--output", export.to_str().unwrap()]);
    let v = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(v.contains("OK: game 1 verified"), "{v}");
    // Nothing was left undelivered and nothing bounced back to the judge unanswered.
    let pending: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE status != 'sent'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(pending, 0);
}
