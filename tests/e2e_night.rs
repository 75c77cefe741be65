//! End to end over a real mail server (scripts/mailserver.sh), issue 12:
//! the night scenario, Merville Battery (Night & Severe Weather Conditions,
//! with the night visibility track). The players play by replying to the
//! judge's mails; every report says the night's visibility; before each
//! British turn the judge rolls for dawn and tells both players; the exported
//! game verifies, the night track's dice included.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::mail_client::{client, game_row, inbox, serve, use_real_server, wait_for};
use common::Site;

#[test]
fn merville_battery_at_night_by_mail_through_a_real_server() {
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
        "merville-battery",
        "--seat",
        "allies=alice@adjutant.test",
        "--seat",
        "axis=bob@adjutant.test",
    ]);
    let players = ["alice@adjutant.test", "bob@adjutant.test"];
    let mut seen = [0usize; 2];
    for (i, who) in players.iter().enumerate() {
        let m = wait_for(who, 1);
        seen[i] = m.len();
        let body = m[0]["body"].as_str().unwrap_or_default();
        assert!(
            body.contains("Weather: Night; visibility 1 hex(es); night track box 1 of 5"),
            "{who}: the opening mail does not tell the night: {body}"
        );
    }
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([44; 32]);
    let mut dawn_rolls = 0;
    for _ in 0..10 {
        let (turn, status) = game_row(&site);
        if status == "over" {
            break;
        }
        let state = common::latest_state(&site);
        let side = memoir44::waiting(&state).sides[0].clone();
        let p = usize::from(side != "allies");
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
        let before = seen;
        seen[p] += 2;
        seen[1 - p] += 1;
        let over = game_row(&site).1 == "over";
        for (i, who) in players.iter().enumerate() {
            let m = wait_for(who, seen[i]);
            let new: Vec<&str> = m[before[i]..]
                .iter()
                .map(|x| x["body"].as_str().unwrap_or_default())
                .collect();
            // After each German turn the British roll for dawn (unless the
            // night is already over): both players are told.
            let night = common::latest_state(&site).weather.is_some();
            if side == "axis" && !over && (night || new.iter().any(|b| b.contains("Dawn:"))) {
                assert!(
                    new.iter()
                        .any(|b| b.contains("Night track:") || b.contains("Dawn:")),
                    "{who}: turn {}: no roll for dawn told: {new:#?}",
                    turn + 1
                );
                dawn_rolls += 1;
            }
        }
    }
    assert!(game_row(&site).0 >= 6, "the game did not go on");
    assert!(dawn_rolls >= 2, "only {dawn_rolls} dawn rolls told");
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
