//! End to end over a real mail server: Postfix and Dovecot on loopback
//! (scripts/mailserver.sh), players using Python's smtplib and imaplib,
//! Adjutant reading by IMAP and sending by SMTP. Two players play a game of
//! Pegasus Bridge by replying to the judge's mails.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::memoir44;
use common::{bin, Site};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

fn client(args: &[&str], stdin: Option<&str>) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mailclient.py");
    let mut child = Command::new("python3")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = child.stdin.take().unwrap();
        i.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "mailclient {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn inbox(user: &str) -> Vec<Value> {
    serde_json::from_str(&client(&["fetch", user], None)).unwrap()
}

fn serve(site: &Site) {
    let out = Command::new(bin())
        .arg("--config")
        .arg(site.config())
        .args(["serve", "--once"])
        .env("ADJUTANT_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Mail takes a moment through Postfix and LMTP: wait until `user` has `n` mails.
fn wait_for(user: &str, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let m = inbox(user);
        if m.len() >= n {
            return m;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{user} never got {n} mails: {:#?}", inbox(user));
}

fn game_row(site: &Site) -> (u32, String) {
    site.db()
        .query_row("SELECT turn, status FROM games WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
}

#[test]
fn a_game_by_mail_through_a_real_server() {
    if !common::mailserver() {
        return;
    }
    for u in ["judge", "alice", "bob"] {
        client(&["clear", &format!("{u}@adjutant.test")], None);
    }
    let site = Site::new();
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("address = \"judge@localhost\"", "address = \"judge@adjutant.test\"")
        .replace("kind = \"maildir\"", "kind = \"imap\"")
        .replace("kind = \"file\"", "kind = \"smtp\"")
        .replace("# [inbound.imap]", "[inbound.imap]\nhost = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n")
        .replace("# [outbound.smtp]", "[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n");
    std::fs::write(site.config(), cfg).unwrap();
    std::env::set_var("E2E_JUDGE_PASSWORD", "secret");

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
