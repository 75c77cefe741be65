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
//! server or Chromium is not installed, like tests/e2e_grid.rs and
//! tests/browser.rs.

mod common;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::measured::{self, state};
use adjutant::rules::Rules;
use common::Site;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/measured_mail.rs"]
mod measured_mail;
use measured_mail::{client, inbox, text, Judge};

#[test]
fn a_measured_game_by_mail_with_its_svg_in_chromium() {
    if !common::mailserver() {
        return;
    }
    let users = ["alice", "bob"];
    for u in ["judge", users[0], users[1]] {
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
    let players = [
        format!("{}@adjutant.test", users[0]),
        format!("{}@adjutant.test", users[1]),
    ];
    let j = Judge {
        site: &site,
        rules: Rules::load("charge").unwrap(),
        ruleset: measured::Ruleset::builtin("charge").unwrap(),
        first: "british",
        players: players.clone(),
        hours: std::cell::Cell::new(0),
    };
    let id = j.at(&[
        "new-game",
        "--scenario",
        "el-bodon-1811",
        "--seat",
        &format!("british={}", players[0]),
        "--seat",
        &format!("french={}", players[1]),
        "--deadline",
        "72h",
        "--nmr",
        "pass",
    ]);
    assert_eq!(id.trim(), "1");
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
    for p in &players {
        j.wait_mail(p, 0, "is over.");
    }
    let export = site.path().join("export.json");
    j.at(&["export", "1", "--output", export.to_str().unwrap()]);
    let v = j.at(&["verify", export.to_str().unwrap()]);
    assert!(v.contains("OK: game 1 verified"), "{v}");
    let pending: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE status != 'sent'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(pending, 0, "everything was delivered");

    // The last turn report's HTML part, from the player's inbox, in a real
    // browser.
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

fn chromium() -> Option<PathBuf> {
    ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

fn run(bin: &Path, profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--log-level=3",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

/// After load, the page reports the table's laid-out size and, for every
/// unit group, its id and the bounding box of its ground (in pixels).
const MEASURE_SCRIPT: &str = r#"<script>
window.addEventListener('load', function () {
  var svg = document.querySelector('svg');
  var t = svg.querySelector('rect.table').getBBox();
  var units = [];
  svg.querySelectorAll('g.unit').forEach(function (g) {
    var b = g.querySelector('polygon').getBBox();
    if (b.width > 0 && b.height > 0)
      units.push(g.getAttribute('data-id') + ':' + Math.round(b.width) + 'x' + Math.round(b.height));
  });
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK table=' + Math.round(t.width) + 'x' + Math.round(t.height) +
    ' units=' + units.join(',') + ' END';
  document.body.appendChild(p);
});
</script>"#;

fn browser_check(html: &str, st: &measured::State, r: &measured::Ruleset) {
    let Some(bin) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed (scripts/install-chromium.sh)");
        }
        eprintln!("skipped: chromium is not installed (scripts/install-chromium.sh)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("report.html");
    std::fs::write(
        &page,
        html.replace("</body>", &format!("{MEASURE_SCRIPT}</body>")),
    )
    .expect("write");
    let url = format!("file://{}", page.display());
    let shot = std::env::var_os("ADJUTANT_SCREENSHOT")
        .map_or_else(|| dir.path().join("report.png"), PathBuf::from);
    let profile = tempfile::tempdir().expect("profile");
    let out = run(
        &bin,
        profile.path(),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,1400",
            &url,
        ],
    );
    assert!(
        std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 10_000,
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = tempfile::tempdir().expect("profile");
    let out = run(
        &bin,
        profile.path(),
        &["--dump-dom", "--virtual-time-budget=2000", &url],
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let line = dom
        .split("CHECK ")
        .nth(1)
        .and_then(|t| t.split(" END").next())
        .unwrap_or_else(|| {
            panic!(
                "no measures in the page: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    // To scale: 10 pixels to the inch (a length in sixteenths / 1.6).
    let px = |v: i64| (v * 10 + 8) / 16;
    let (table, units) = line.split_once(" units=").expect("two parts");
    assert_eq!(
        table,
        format!("table={}x{}", px(st.width), px(st.depth)),
        "the table is drawn 10 px to the inch"
    );
    let drawn: Vec<&str> = units.split(',').filter(|s| !s.is_empty()).collect();
    assert_eq!(
        drawn.len(),
        st.units.len(),
        "every unit on the table is drawn: {line}"
    );
    for u in &st.units {
        // The bounding box of the unit's ground, however it faces.
        let c = state::footprint(r, u).corners();
        let xs = c.iter().map(|p| p.x);
        let ys = c.iter().map(|p| p.y);
        let w = xs.clone().max().unwrap() - xs.min().unwrap();
        let h = ys.clone().max().unwrap() - ys.min().unwrap();
        let want = format!("{}:{}x{}", u.id, px(w), px(h));
        let got = drawn
            .iter()
            .find(|d| d.starts_with(&format!("{}:", u.id)))
            .unwrap_or_else(|| panic!("{} is not drawn: {line}", u.id));
        let dims = |s: &str| -> (i64, i64) {
            let (a, b) = s.split_once(':').unwrap().1.split_once('x').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        };
        let (gw, gh) = dims(got);
        let (ww, wh) = dims(&want);
        // The browser rounds the box to whole pixels.
        assert!(
            (gw - ww).abs() <= 1 && (gh - wh).abs() <= 1,
            "{} is drawn {got}, its ground is {want}",
            u.id
        );
    }
    eprintln!(
        "chromium laid out {} units, each to scale: {line}",
        drawn.len()
    );
}
