//! End to end over a real mail server (scripts/mailserver.sh), issue 12: a
//! game of the shipped Bir Hakeim scenario (Gazala, 27 May 1942), the desert
//! scenario of Appendix 2's tiles (desert town, oasis, palm trees, a wadi,
//! field bunkers, trenches, a supply depot) under the North African Desert
//! Rules. The players play by replying to the judge's mails; each report's
//! map names the new tiles in its legend, the HTML part draws them with the
//! SVG legend, and the exported game verifies.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::mail_client::{client, game_row, inbox, serve, use_real_server, wait_for};
use common::Site;

#[test]
fn bir_hakeim_by_mail_through_a_real_server() {
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
        "bir-hakeim",
        "--seat",
        "axis=alice@adjutant.test",
        "--seat",
        "allies=bob@adjutant.test",
    ]);
    let players = ["alice@adjutant.test", "bob@adjutant.test"];
    let mut seen = [wait_for(players[0], 1).len(), wait_for(players[1], 1).len()];
    assert!(common::latest_state(&site).plays("north-african-desert"));

    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([27; 32]);
    let mut turns = 0;
    for _ in 0..8 {
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
        turns += 1;
        seen[p] += 2;
        seen[1 - p] += 1;
        for (i, who) in players.iter().enumerate() {
            let m = wait_for(who, seen[i]);
            let report = m
                .iter()
                .rev()
                .find(|x| {
                    x["subject"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("turn {}", turn + 1))
                })
                .unwrap_or_else(|| panic!("{who} has no report of turn {}", turn + 1));
            // The text map's legend names the desert tiles on the board.
            // (The legend wraps at 80 columns: compare word by word.)
            let body = report["body"].as_str().unwrap_or_default();
            let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
            for code in ["Dt desert-town", "Oa oasis", "Wa wadi", "Pa palm-trees"] {
                assert!(flat.contains(code), "{who}: no '{code}' in\n{body}");
            }
        }
    }
    assert!(turns >= 5, "only {turns} turns were played");
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
