//! A three-battle campaign by mail through the real inbox (issue 11,
//! acceptance 2): Postfix and Dovecot on loopback (scripts/mailserver.sh),
//! the players using Python's smtplib and imaplib (tests/mailclient.py),
//! Adjutant reading by IMAP and sending by SMTP. Battle 2 starts with the
//! pre-battle rolls that battle 1's result gives, every player gets the
//! standings after each battle, the Axis player is replaced in the middle,
//! and the whole campaign is exported and verified.
//!
//! Run it under the lock the mail-server tests share:
//! `flock /tmp/e2e.lock cargo test --release --test e2e_campaign`.

use crate::common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::mail_client::{clear, client, inbox, serve, use_real_server};
use common::Site;
use serde_json::Value;
use std::thread::sleep;
use std::time::Duration;

fn subject(m: &Value) -> &str {
    m["subject"].as_str().unwrap_or("")
}

/// Wait until `user` has a mail whose subject contains `needle`; return it.
fn wait_subject(user: &str, needle: &str) -> Value {
    for _ in 0..100 {
        if let Some(m) = inbox(user)
            .into_iter()
            .find(|m| subject(m).contains(needle))
        {
            return m;
        }
        sleep(Duration::from_millis(100));
    }
    let got: Vec<String> = inbox(user).iter().map(|m| subject(m).to_string()).collect();
    panic!("{user} never got a mail about \"{needle}\"; got {got:#?}");
}

/// The judge+TOKEN address of the newest mail of game `game` to `user`.
fn seat_address(user: &str, game: i64) -> String {
    let mails = inbox(user);
    let m = mails
        .iter()
        .rev()
        .find(|m| {
            subject(m).starts_with(&format!("Game {game}:"))
                && m["reply_to"].as_str().is_some_and(|r| r.contains("judge+"))
        })
        .unwrap_or_else(|| panic!("{user} has no mail of game {game} to reply to"));
    m["reply_to"]
        .as_str()
        .unwrap()
        .rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string()
}

/// Run the judge until `done` holds: the mail may need a moment to reach
/// its IMAP box.
fn serve_until(site: &Site, what: &str, done: impl Fn(&Site) -> bool) {
    for _ in 0..50 {
        serve(site);
        if done(site) {
            return;
        }
        sleep(Duration::from_millis(100));
    }
    panic!("{what} never happened:\n{}", site.ok(&["log"]));
}

fn game_row(site: &Site, game: i64) -> (u32, String) {
    site.db()
        .query_row(
            "SELECT turn, status FROM games WHERE id = ?1",
            [game],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn games(site: &Site) -> i64 {
    site.db()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap()
}

fn state(site: &Site, game: i64) -> Value {
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots WHERE game_id = ?1 ORDER BY turn DESC LIMIT 1",
            [game],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn campaign_dice(site: &Site, game: i64) -> String {
    let text: String = site
        .db()
        .query_row("SELECT options FROM games WHERE id = ?1", [game], |r| {
            r.get(0)
        })
        .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["campaign-dice"].as_str().unwrap_or("").to_string()
}

/// What the recorded outcome of battle `seq` gives the next battle, with
/// `wins` the battles each side has won so far (this one included): the
/// rulebook's "victory points won in the previous battle plus one per
/// campaign victory".
fn dice_from(site: &Site, seq: u32, wins: &[(&str, u32)]) -> String {
    let text: String = site
        .db()
        .query_row(
            "SELECT outcome FROM campaign_battles WHERE seq = ?1",
            [seq],
            |r| r.get(0),
        )
        .unwrap();
    let o: Value = serde_json::from_str(&text).unwrap();
    let mut parts = Vec::new();
    for (side, w) in wins {
        let n = o["points"][side].as_u64().unwrap_or(0) as u32 + w;
        if n > 0 {
            parts.push(format!("{side}:{n}"));
        }
    }
    parts.join(",")
}

/// The faces of each side's pre-battle roll in `game`, as recorded.
fn pre_battle_faces(site: &Site, game: i64) -> Vec<(String, usize)> {
    let db = site.db();
    let mut st = db
        .prepare("SELECT event FROM events WHERE game_id = ?1 ORDER BY turn, seq")
        .unwrap();
    st.query_map([game], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .filter(|e| e["kind"] == "pre-battle-roll")
        .map(|e| {
            (
                e["side"].as_str().unwrap().to_string(),
                e["faces"].as_array().map_or(0, Vec::len),
            )
        })
        .collect()
}

/// `who` sends `body` to his seat of `game`.
fn send(who: &str, game: i64, what: &str, body: &str) {
    let to = seat_address(who, game);
    client(
        &["send", who, &to, &format!("Re: Game {game}: {what}")],
        Some(body),
    );
}

/// If `game` waits for pre-battle choices, each side owing one takes the
/// defaults by mail (`PASS`), and the judge resolves the phase.
fn settle_pre_battle(site: &Site, game: i64, players: [&str; 2]) {
    let st = state(site, game);
    let Some(pb) = st.get("pre_battle").filter(|p| !p.is_null()) else {
        return;
    };
    let mut owing: Vec<usize> = pb["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["by"].as_u64().unwrap() as usize)
        .collect();
    owing.sort_unstable();
    owing.dedup();
    for side in owing {
        send(players[side], game, "pre-battle", "PASS\n");
    }
    serve_until(site, "the pre-battle phase", |s| {
        state(s, game).get("pre_battle").is_none_or(Value::is_null)
    });
}

/// Play `turns` turns of `game` by mail, each side sending random legal
/// orders as a reply to the judge's latest mail of that game.
fn play(site: &Site, game: i64, turns: usize, players: [&str; 2], rng: &mut ChaChaDice) {
    let rules = memoir44::Ruleset::builtin().unwrap();
    for _ in 0..turns {
        let (turn, status) = game_row(site, game);
        if status == "over" {
            return;
        }
        let st: memoir44::State = serde_json::from_value(state(site, game)).unwrap();
        let side = memoir44::waiting(&st).sides[0].clone();
        let who = players[usize::from(side != "allies")];
        let orders = memoir44::random_orders(&rules, &st, &side, rng);
        send(
            who,
            game,
            "orders",
            &format!("{orders}\n-- \nsent from my phone\n"),
        );
        serve_until(site, &format!("turn {turn} of game {game}"), |s| {
            game_row(s, game).0 > turn
        });
    }
}

#[test]
fn a_three_battle_campaign_through_the_real_inbox() {
    if !common::mailserver() {
        return;
    }
    for u in ["judge", "alice", "bob", "carol"] {
        clear(&common::mail_address(u));
    }
    let addresses = ["alice", "bob", "carol"].map(common::mail_address);
    let [alice, bob, carol] = [0, 1, 2].map(|i| addresses[i].as_str());
    let site = Site::new();
    use_real_server(&site);
    let mut rng = ChaChaDice::from_seed([11; 32]);

    let out = site.ok(&[
        "campaign",
        "new",
        "normandy",
        "--scenario",
        "pegasus-bridge",
        "--scenario",
        "sainte-mere-eglise",
        "--scenario",
        "pegasus-bridge",
        "--player",
        &format!("allies={alice}"),
        "--player",
        &format!("axis={bob}"),
    ]);
    assert!(out.contains("battle game(s) 1"), "{out}");
    wait_subject(alice, "Game 1: welcome");
    wait_subject(bob, "Game 1: welcome");

    // Battle 1: a few turns by mail, then the Axis resign.
    play(&site, 1, 4, [alice, bob], &mut rng);
    send(bob, 1, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 1", |s| game_row(s, 1).1 == "over");
    // Both players get the standings, and battle 2 begins as game 2.
    for who in [alice, bob] {
        let m = wait_subject(who, "standings after battle 1");
        let body = m["body"].as_str().unwrap();
        assert!(body.contains("won by allies"), "{body}");
        assert!(body.contains("Battle 2 begins as game 2"), "{body}");
        wait_subject(who, "Game 2: welcome");
    }
    assert_eq!(games(&site), 2, "battle 2 is created when battle 1 ends");
    // Battle 2's pre-battle dice are battle 1's victory points plus one
    // for the victory, and they were rolled from game 2's dice stream.
    let want = dice_from(&site, 1, &[("allies", 1), ("axis", 0)]);
    assert!(want.starts_with("allies:"), "{want}");
    assert_eq!(campaign_dice(&site, 2), want);
    let rolled = pre_battle_faces(&site, 2);
    eprintln!("battle 2: campaign-dice {want}, rolled {rolled:?}");
    for part in want.split(',') {
        let (side, n) = part.split_once(':').unwrap();
        assert!(
            rolled.contains(&(side.to_string(), n.parse().unwrap())),
            "{side} rolls {n} dice: {rolled:?}"
        );
    }
    settle_pre_battle(&site, 2, [alice, bob]);

    // The Axis player is replaced in the middle of the campaign.
    site.ok(&["replace-seat", "2", "axis", carol]);
    wait_subject(carol, "Game 2: welcome, you play axis");
    wait_subject(bob, "you no longer play axis");
    send(alice, 2, "standings", "CAMPAIGN\n");
    serve_until(&site, "the CAMPAIGN answer", |_| {
        inbox(alice)
            .iter()
            .any(|m| m["body"].as_str().is_some_and(|b| b.contains("(replaced)")))
    });
    let standings = inbox(alice)
        .into_iter()
        .find(|m| m["body"].as_str().is_some_and(|b| b.contains("(replaced)")))
        .unwrap();
    let body = standings["body"].as_str().unwrap();
    assert!(body.contains(bob) && body.contains(carol), "{body}");

    // Battle 2: Carol plays on; then the Allies resign.
    play(&site, 2, 2, [alice, carol], &mut rng);
    send(alice, 2, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 2", |s| game_row(s, 2).1 == "over");
    for who in [alice, carol] {
        let m = wait_subject(who, "standings after battle 2");
        assert!(m["body"].as_str().unwrap().contains("won by axis"));
        wait_subject(who, "Game 3: welcome");
    }
    // Bob left before battle 2 ended: he gets no standings of it.
    assert!(!inbox(bob)
        .iter()
        .any(|m| subject(m).contains("standings after battle 2")));
    let want = dice_from(&site, 2, &[("allies", 1), ("axis", 1)]);
    assert_eq!(campaign_dice(&site, 3), want);
    assert!(want.contains("allies:") && want.contains("axis:"), "{want}");
    eprintln!(
        "battle 3: campaign-dice {want}, rolled {:?}",
        pre_battle_faces(&site, 3)
    );
    settle_pre_battle(&site, 3, [alice, carol]);

    // Battle 3: the Axis resign at once.
    send(carol, 3, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 3", |s| game_row(s, 3).1 == "over");
    for who in [alice, carol] {
        let m = wait_subject(who, "standings after battle 3");
        let body = m["body"].as_str().unwrap();
        assert!(body.contains("last battle of the campaign"), "{body}");
    }
    assert_eq!(games(&site), 3);

    // Records: Alice 3 battles, 2 wins; Bob kept battle 1; Carol has 2 and 3.
    let show = site.ok(&["campaign", "show", "normandy"]);
    let record = |who: &str| {
        show.lines()
            .find(|l| l.contains(who))
            .unwrap_or_else(|| panic!("{who} in {show}"))
            .split_whitespace()
            .skip(2)
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(record(alice), "3 2", "{show}");
    assert_eq!(record(bob), "1 0", "{show}");
    assert_eq!(record(carol), "2 1", "{show}");

    // The whole campaign exports and verifies; a tampered link is named.
    let export = site.path().join("campaign.json");
    site.ok(&[
        "campaign",
        "export",
        "normandy",
        "--output",
        export.to_str().unwrap(),
    ]);
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign normandy verified: 3 battles"), "{ok}");
    let text = std::fs::read_to_string(&export).unwrap();
    let bad = text.replacen(
        &format!("\"{}\"", campaign_dice(&site, 3)),
        "\"allies:9\"",
        1,
    );
    assert_ne!(bad, text);
    let badf = site.path().join("bad.json");
    std::fs::write(&badf, bad).unwrap();
    let out = site.run(&["verify", badf.to_str().unwrap()]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("the pre-battle dice are"), "{said}");

    // Every mail went out through the real server.
    assert_eq!(site.unsent(), 0);
}

/// Who sits at each side of `game`, "side email" sorted by side.
fn seats(site: &Site, game: i64) -> Vec<String> {
    let db = site.db();
    let mut st = db
        .prepare("SELECT side, email FROM seats WHERE game_id = ?1 ORDER BY side")
        .unwrap();
    st.query_map([game], |r| {
        Ok(format!(
            "{} {}",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn scenario(site: &Site, game: i64) -> String {
    site.db()
        .query_row("SELECT scenario FROM games WHERE id = ?1", [game], |r| {
            r.get(0)
        })
        .unwrap()
}

/// A campaign file with a branch and side swaps, by mail through the real
/// inbox (issue 33, acceptance 2): the shipped campaigns/market-garden.toml
/// with red and blue bound to two players. Red wins the first battle with
/// the Allies, so the branch goes to Arnhem (not Sainte-Mere-Eglise); blue
/// wins Arnhem; the players swap sides for the return match, whose
/// pre-battle dice follow the players; the export verifies.
#[test]
fn a_campaign_file_with_a_branch_and_side_swaps_through_the_real_inbox() {
    if !common::mailserver() {
        return;
    }
    for u in ["judge", "alice", "bob"] {
        clear(&common::mail_address(u));
    }
    let addresses = ["alice", "bob"].map(common::mail_address);
    let [alice, bob] = [0, 1].map(|i| addresses[i].as_str());
    let site = Site::new();
    use_real_server(&site);
    let mut rng = ChaChaDice::from_seed([33; 32]);
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/market-garden.toml");
    let out = site.ok(&[
        "campaign",
        "new",
        "garden",
        "--file",
        file.to_str().unwrap(),
        "--player",
        &format!("red={alice}"),
        "--player",
        &format!("blue={bob}"),
    ]);
    assert!(out.contains("battle game(s) 1"), "{out}");
    wait_subject(alice, "Game 1: welcome");
    wait_subject(bob, "Game 1: welcome");
    assert_eq!(
        seats(&site, 1),
        [format!("allies {alice}"), format!("axis {bob}")]
    );

    // Battle 1 (Pegasus Bridge): red (alice) plays the Allies; blue resigns.
    play(&site, 1, 2, [alice, bob], &mut rng);
    send(bob, 1, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 1", |s| game_row(s, 1).1 == "over");
    for who in [alice, bob] {
        let m = wait_subject(who, "standings after battle 1");
        assert!(m["body"].as_str().unwrap().contains("won by allies"));
        wait_subject(who, "Game 2: welcome");
    }
    // The Allies won: the branch takes the campaign to Arnhem.
    assert_eq!(scenario(&site, 2), "arnhem-bridge");
    assert_eq!(
        seats(&site, 2),
        [format!("allies {alice}"), format!("axis {bob}")]
    );
    assert_eq!(
        campaign_dice(&site, 2),
        dice_from(&site, 1, &[("allies", 1), ("axis", 0)])
    );
    // arnhem-bridge lists the Axis first.
    settle_pre_battle(&site, 2, [bob, alice]);
    send(alice, 2, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 2", |s| game_row(s, 2).1 == "over");
    for who in [alice, bob] {
        let m = wait_subject(who, "standings after battle 2");
        assert!(m["body"].as_str().unwrap().contains("won by axis"));
        wait_subject(who, "Game 3: welcome");
    }

    // The return match: blue (bob) plays the Allies, red (alice) the Axis.
    assert_eq!(scenario(&site, 3), "pegasus-bridge");
    assert_eq!(
        seats(&site, 3),
        [format!("allies {bob}"), format!("axis {alice}")]
    );
    // Each has one victory; Arnhem's points follow the player who won
    // them: bob's (the Axis there) are the Allies' dice now.
    let o2: Value = serde_json::from_str(
        &site
            .db()
            .query_row(
                "SELECT outcome FROM campaign_battles WHERE seq = 2",
                [],
                |r| r.get::<_, String>(0),
            )
            .unwrap(),
    )
    .unwrap();
    let pts = |side: &str| o2["points"][side].as_u64().unwrap_or(0);
    assert_eq!(
        campaign_dice(&site, 3),
        format!("allies:{},axis:{}", 1 + pts("axis"), 1 + pts("allies"))
    );
    settle_pre_battle(&site, 3, [bob, alice]);
    play(&site, 3, 2, [bob, alice], &mut rng);
    send(alice, 3, "resign", "RESIGN\n");
    serve_until(&site, "the end of battle 3", |s| game_row(s, 3).1 == "over");
    for who in [alice, bob] {
        let m = wait_subject(who, "standings after battle 3");
        let body = m["body"].as_str().unwrap();
        assert!(body.contains("last battle of the campaign"), "{body}");
        assert!(!body.contains("sainte-mere"), "{body}");
    }
    assert_eq!(games(&site), 3);

    let export = site.path().join("garden.json");
    site.ok(&[
        "campaign",
        "export",
        "garden",
        "--output",
        export.to_str().unwrap(),
    ]);
    let ok = site.ok(&["verify", export.to_str().unwrap()]);
    assert!(ok.contains("campaign garden verified: 3 battles"), "{ok}");
    assert_eq!(site.unsent(), 0);
}
