//! End to end over a real mail server (scripts/mailserver.sh), issue 12: a
//! game of the shipped Maleme scenario. The judge drops the paratroops and
//! gliders by dice as the game opens and mails both players where each stick
//! landed; the players then play by replying to the judge's mails, and the
//! exported game verifies, the drop included.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::mail_client::{client, game_row, inbox, serve, use_real_server, wait_for};
use common::Site;

#[test]
fn maleme_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    for u in ["judge", "alice", "bob"] {
        client(&["clear", &format!("{u}@adjutant.test")], None);
    }
    let site = Site::new();
    use_real_server(&site);

    site.ok(&[
        "new-game",
        "--scenario",
        "maleme",
        "--seat",
        "axis=alice@adjutant.test",
        "--seat",
        "allies=bob@adjutant.test",
    ]);
    // Each player: the welcome, then the judge's drop (turn 1).
    let players = ["alice@adjutant.test", "bob@adjutant.test"];
    let mut seen = [0usize; 2];
    for (i, who) in players.iter().enumerate() {
        let m = wait_for(who, 2);
        seen[i] = m.len();
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
    assert_eq!(game_row(&site).0, 1);

    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([12; 32]);
    for _ in 0..6 {
        let (turn, status) = game_row(&site);
        if status == "over" {
            break;
        }
        let state = common::latest_state(&site);
        let side = memoir44::waiting(&state).sides[0].clone();
        let p = usize::from(side != "axis");
        let mails = inbox(players[p]);
        let last = mails.last().unwrap();
        let addr = last["reply_to"]
            .as_str()
            .unwrap()
            .rsplit('<')
            .next()
            .unwrap()
            .trim_end_matches('>')
            .to_string();
        let orders = memoir44::random_orders(&rules, &state, &side, &mut rng);
        client(
            &[
                "send",
                players[p],
                &addr,
                &format!("Re: {}", last["subject"].as_str().unwrap()),
            ],
            Some(&format!("{orders}\n")),
        );
        let mut advanced = false;
        for _ in 0..50 {
            serve(&site);
            if game_row(&site).0 > turn {
                advanced = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(
            advanced,
            "turn {turn}: the orders of {side} were not adjudicated:\n{orders}"
        );
        seen[p] += 2;
        seen[1 - p] += 1;
        for (i, who) in players.iter().enumerate() {
            wait_for(who, seen[i]);
        }
    }
    assert!(
        game_row(&site).0 >= 5,
        "the game did not go on after the drop"
    );
    let export = site.path().join("e.json");
    site.ok(&[
        "export",
        "1",
        "--include-seed",
        "--output",
        export.to_str().unwrap(),
    ]);
    let v = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(v.contains("replayed identically"), "{v}");
}
