//! End to end over a real mail server (scripts/mailserver.sh), issue 12:
//! Miteiriya Ridge (El Alamein, 1942), the shipped scenario of Appendix 1's
//! Minefields and Combat Engineers. The judge lays the Axis minefields with
//! strengths drawn from the box by the hidden-shuffle stream; the Allies'
//! first orders walk the sappers onto one minefield and infantry onto
//! another; then both players play random legal orders by replying to the
//! judge's mails. After every turn, neither player's mail (text or HTML
//! board) holds the strength of a minefield still face down, every revealed
//! one is shown with its strength, and the exported game verifies.

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

/// What a player's latest mail shows of the minefields of `st`: no strength
/// of a piece still face down (text legend or SVG label), every revealed
/// piece with its strength.
fn check_mail(who: &str, mail: &Value, st: &memoir44::State) {
    let body = mail["body"].as_str().unwrap_or_default();
    let html = mail["html"].as_str().unwrap_or_default();
    // The referee's legend form ("hidden: 2") never reaches a player.
    assert!(!body.contains("hidden:"), "{who}: {body}");
    for m in &st.minefields {
        let mark = format!("class=\"minefield\" data-hex=\"{}\"", m.at);
        let Some(i) = html.find(&mark) else {
            continue;
        };
        let rest = &html[i..];
        let label = &rest[..rest.find("<title>").unwrap_or(rest.len())];
        if m.revealed {
            assert!(
                label.ends_with(&format!(">M{}", m.strength)),
                "{who}: the revealed minefield at {} shows {label}",
                m.at
            );
        } else {
            assert!(
                label.ends_with(">M?"),
                "{who}: the hidden minefield at {} shows {label}",
                m.at
            );
        }
    }
}

#[test]
fn miteiriya_ridge_by_mail_through_a_real_server() {
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
        "miteiriya-ridge",
        "--seat",
        "allies=bob@adjutant.test",
        "--seat",
        "axis=alice@adjutant.test",
    ]);
    let players = ["bob@adjutant.test", "alice@adjutant.test"];
    let mut seen = [0usize; 2];
    for (i, who) in players.iter().enumerate() {
        let m = wait_for(who, 1);
        seen[i] = m.len();
        let st = common::latest_state(&site);
        assert_eq!(st.minefields.len(), 9);
        check_mail(who, m.last().unwrap(), &st);
    }
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([44; 32]);
    let mut revealed_or_cleared = false;
    for n in 0..8 {
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
        // The breach: the sappers onto the minefield at F4 (one hex, so
        // they clear it instead of battling), the infantry onto G4.
        let orders = if n == 0 {
            "PLAY direct-from-hq\nORDER F3 G3\nMOVE F3 F4\nMOVE G3 G4\n".to_string()
        } else {
            memoir44::random_orders(&rules, &state, &side, &mut rng)
        };
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
        let st = common::latest_state(&site);
        for (i, who) in players.iter().enumerate() {
            // The mover's acceptance and report, the other side's report.
            let m = wait_for(who, seen[i]);
            let new = &m[before[i]..];
            for mail in new {
                check_mail(who, mail, &st);
            }
            if n == 0 {
                let told = new
                    .iter()
                    .map(|x| x["body"].as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n");
                assert!(told.contains("minefield at F4"), "{who}: {told}");
                assert!(told.contains("minefield at G4"), "{who}: {told}");
            }
        }
        if n == 0 {
            // F4: cleared (removed) or failed (revealed); G4: revealed (a
            // Decoy is removed on the spot).
            let f4 = st.minefields.iter().find(|m| m.at.to_string() == "F4");
            assert!(f4.is_none_or(|m| m.revealed), "{f4:?}");
            let g4 = st.minefields.iter().find(|m| m.at.to_string() == "G4");
            assert!(g4.is_none_or(|m| m.revealed), "{g4:?}");
            revealed_or_cleared = true;
        }
    }
    assert!(revealed_or_cleared);
    assert!(game_row(&site).0 >= 5, "the game did not go on");
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
