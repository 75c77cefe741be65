//! A whole Seven Years' War game by mail through a real mail server
//! (Postfix and Dovecot on loopback, scripts/mailserver.sh), as
//! tests/e2e_measured.rs plays Charge!: player-turns, one side's mail at a
//! time, the other side answering by its standing orders.
//!
//! The game is a small action near Minden (a scenario file written here,
//! to scale like minden-1759) under a house-rule variant of the set whose
//! fog-of-war roll always calls the table, so a fog-of-war event is certain.
//! The Allies' first mail sets it up so that the interrupts are certain
//! whatever the dice: a hussar regiment charges French light infantry,
//! which evades by its default standing order; a second one moves inside a
//! French battalion's arc and musket range and draws response fire. A mail
//! from the side that is not to move is refused. Then random legal orders
//! to the end; the export verifies, and the last report's SVG is laid out
//! by headless Chromium and checked to scale. Skipped (with a message)
//! outside CI when the mail server or Chromium is missing.

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

const SCENARIO: &str = r#"
# A small action near Minden, 1 August 1759: the Allied advance meets the
# French outposts. To scale as minden-1759 (1 inch = 25 yards).
id = "minden-outposts"
ruleset = "seven-years-war"
title = "Minden: the outposts"
history = "A small action for the game by mail"
moves = 4
table = [48, 36]
sides = ["allied", "french"]

[[units]]
id = "HUSSAR"
name = "Luckner's Hussars"
side = "allied"
type = "light-cavalry"
at = [36, 8]
experience = "trained"
brigade = "LUCKNER"

[[units]]
id = "HUSSAR2"
name = "Hanoverian Hussars"
side = "allied"
type = "light-cavalry"
at = [12, 14]
experience = "trained"
brigade = "LUCKNER"

[[units]]
id = "12TH"
name = "12th Foot"
side = "allied"
type = "line-infantry"
at = [24, 4]
experience = "veteran"
brigade = "WALDEGRAVE"

[[units]]
id = "FERDINAND"
name = "Ferdinand of Brunswick"
side = "allied"
type = "command"
at = [40, 2]
brigade = "ARMY"

[[units]]
id = "VOLONT"
name = "Volontaires de Flandre"
side = "french"
type = "light-infantry"
at = [36, 20]
experience = "green"
brigade = "CHABO"

[[units]]
id = "PICARDIE"
name = "Regiment de Picardie"
side = "french"
type = "french-infantry"
at = [12, 19]
experience = "trained"
brigade = "CHABO"

[[units]]
id = "CONTADES"
name = "Marshal Contades"
side = "french"
type = "command"
at = [24, 34]
brigade = "ARMY"
"#;

#[test]
fn a_seven_years_war_game_by_mail_with_interrupts_and_its_svg_in_chromium() {
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
    // The house-rule variant: every face of the fog-of-war die calls the
    // table.
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/seven-years-war.toml"),
    )
    .unwrap();
    let variant = base
        .replace("id = \"seven-years-war\"", "id = \"seven-years-war-fog\"")
        .replace("trigger = [1]", "trigger = [1, 2, 3, 4, 5, 6]");
    assert_ne!(variant, base);
    let ruleset_file = site.path().join("seven-years-war-fog.toml");
    std::fs::write(&ruleset_file, &variant).unwrap();
    let scenario_file = site.path().join("minden-outposts.toml");
    std::fs::write(&scenario_file, SCENARIO).unwrap();
    let players = [
        format!("{}@adjutant.test", users[0]),
        format!("{}@adjutant.test", users[1]),
    ];
    let ruleset = measured::Ruleset::from_toml(&variant, "seven-years-war-fog.toml").unwrap();
    let j = Judge {
        site: &site,
        rules: Rules::load("seven-years-war").unwrap(),
        ruleset,
        first: "allied",
        players: players.clone(),
        hours: std::cell::Cell::new(0),
    };
    let id = j.at(&[
        "new-game",
        "--scenario",
        scenario_file.to_str().unwrap(),
        "--ruleset",
        ruleset_file.to_str().unwrap(),
        "--seat",
        &format!("allied={}", players[0]),
        "--seat",
        &format!("french={}", players[1]),
        "--deadline",
        "72h",
        "--nmr",
        "pass",
    ]);
    assert_eq!(id.trim(), "1");
    let welcome = j.wait_mail(&players[0], 0, "Welcome");
    let body = text(&welcome, "body");
    assert!(body.contains("HUSSAR"), "{body}");
    j.wait_mail(&players[1], 0, "Welcome");
    assert_eq!(
        j.needed(),
        vec!["allied".to_string()],
        "the Allies move first"
    );

    // The French may not send in the Allies' player-turn.
    let skip = j.send("french", "UNIT PICARDIE: FORWARD ALL\n");
    let refusal = j.wait_mail(&players[1], skip, "not french's turn");
    assert!(
        text(&refusal, "body").contains("player-turn"),
        "{}",
        text(&refusal, "body")
    );
    // The Allies' first player-turn: the interrupts are certain.
    let allied = "UNIT HUSSAR: CHARGE VOLONT\nUNIT HUSSAR2: FORWARD 1\n";
    j.send_and_wait("allied", allied, false);
    assert_eq!(j.game().0, 1, "one player-turn adjudicated");
    let report = j.wait_mail(&players[1], 0, "turn 1 (");
    let body = text(&report, "body");
    assert!(
        body.contains("VOLONT evades"),
        "the evade is explained: {body}"
    );
    assert!(
        body.contains("PICARDIE response fires at HUSSAR2"),
        "the response fire is explained: {body}"
    );
    assert!(
        body.contains("Fog of war: "),
        "the fog-of-war roll is reported: {body}"
    );
    let mut rng = ChaChaDice::from_seed([15; 32]);
    for _ in 0..20 {
        let (turn, status) = j.game();
        if status == "over" {
            break;
        }
        j.hours.set(j.hours.get() + 1);
        let need = j.needed();
        assert_eq!(need.len(), 1, "one side at a time");
        let orders = j.random_orders(&need[0], &mut rng);
        j.send_and_wait(&need[0], &orders, false);
        if j.game().0 <= turn {
            panic!(
                "player-turn {} did not resolve; waiting for {need:?}\n{}",
                turn + 1,
                j.at(&["log"])
            );
        }
    }
    let (turns, status) = j.game();
    assert_eq!(status, "over", "the game ended");
    // Four turns of two player-turns, unless a side has no fighting unit
    // left (all routed or removed), which ends the game at once.
    let st = j.state();
    let routed = |s: usize| {
        st.units
            .iter()
            .filter(|u| u.side == s && u.forced != Some(state::Forced::Rout))
            .all(|u| {
                j.ruleset
                    .troop(&u.troop)
                    .is_some_and(|t| t.class == "command")
            })
    };
    assert!(
        turns == 8 || (turns < 8 && (routed(0) || routed(1))),
        "the game ended after {turns} player-turns with both sides still fighting"
    );
    // Every player-turn rolled on a fog-of-war table.
    let all: String = inbox(&players[0])
        .iter()
        .map(|m| text(m, "body"))
        .collect::<Vec<_>>()
        .join("\n");
    let events = all.matches("Fog of war: ").count();
    assert!(events >= 8, "{events} fog-of-war rolls reported");
    for p in &players {
        j.wait_mail(p, 0, "is over.");
    }
    let export = site.path().join("export.json");
    j.at(&["export", "1", "--output", export.to_str().unwrap()]);
    let v = j.at(&["verify", export.to_str().unwrap()]);
    assert!(v.contains("OK: game 1 verified"), "{v}");
    let last = inbox(&players[0])
        .into_iter()
        .rev()
        .find(|m| text(m, "html").contains("<svg"))
        .expect("a report with an HTML part with the SVG");
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
