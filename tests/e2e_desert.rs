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
fn bir_hakeim_by_mail_through_a_real_server() {
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
