//! End to end over a real mail server (scripts/mailserver.sh), issue 12:
//! the night scenario, Merville Battery (Night & Severe Weather Conditions,
//! with the night visibility track). The players play by replying to the
//! judge's mails; every report says the night's visibility; before each
//! British turn the judge rolls for dawn and tells both players; the exported
//! game verifies, the night track's dice included.

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
fn merville_battery_at_night_by_mail_through_a_real_server() {
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
