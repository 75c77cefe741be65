//! The replay file (issue 33, docs/replay.md) in a real browser: a
//! finished game of each rules family, played through the service with
//! seeded random orders (ended by a RESIGN mail when the dice have not
//! ended it), written by `adjutant replay`, opened in headless Chromium and
//! stepped through with the keyboard. At every step the page must show
//! that turn: its board's units where the game's export, replayed turn by
//! turn from its orders and dice, says they were, and that turn's report.
//! Chromium's own network log must hold no request but the file itself.
//! Skipped with a message when Chromium is absent, unless `CI` is set.

use crate::common::{self, chromium::chromium, Site};
use crate::golden::exports::{reseed, NOW};
use crate::golden::games::{random_orders, specs, Spec};
use adjutant::engine::dice::{derive, ChaChaDice, Seed};
use adjutant::rules::Load;
use adjutant::rules::{Orders, Rules, Scenario, Viewer};
use adjutant::service::clock::FixedClock;
use adjutant::service::{adjudicate_turn, setup_state, GameOptions, Judge, ServiceError};
use mail_parser::MimeHeaders as _;

/// A judge on `site`, its clock fixed.
fn judge(site: &Site) -> Judge {
    let cfg = adjutant::config::Config::load(&site.config()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(NOW).unwrap().to_utc();
    Judge::open(cfg, Box::new(FixedClock(now))).unwrap()
}

/// A game of `spec` played through the service with seeded random legal
/// orders for at most `phases` phases (or to its end). A Kriegspiel game
/// has a referee. The judge and the game's id.
pub fn play_game(site: &Site, spec: &Spec, phases: u32) -> (Judge, i64) {
    let judge = judge(site);
    let master: Seed = derive("adjutant/replay-test", &[spec.name(0).as_bytes()]);
    let rules = spec.rules();
    let sides = rules.sides(&setup_state(&rules, &spec.source(), &master).unwrap());
    let seats: Vec<(String, String)> = sides
        .iter()
        .map(|s| (s.clone(), format!("{s}@example.org")))
        .collect();
    let mut opts = GameOptions::default();
    for (k, v) in spec.options {
        opts.rule_options.insert((*k).into(), (*v).into());
        if *k == "kriegspiel" {
            opts.referee = Some("referee@example.org".into());
        }
    }
    let id = judge
        .turns()
        .new_game(&spec.source_for_service(site), &seats, &opts)
        .unwrap();
    if judge.game(id).unwrap().turn == 0 {
        reseed(&site.db(), id, &master);
    }
    let mut rng = ChaChaDice::from_seed(derive("adjutant/replay-orders", &[&master]));
    for _ in 0..phases {
        let game = judge.game(id).unwrap();
        let pos = judge.position(&game, None).unwrap();
        let phase = pos.rules.phase(&pos.state);
        if game.status == "over" || phase.sides.is_empty() {
            break;
        }
        for o in random_orders(&pos.rules, &pos.state, &phase.sides, &mut rng) {
            if let Err(ServiceError::Rejected(_)) = judge.turns().submit(id, &o.side, &o.text) {
                let pass = pos.rules.pass_orders(&pos.state, &o.side);
                judge
                    .turns()
                    .submit(id, &o.side, pass.as_deref().unwrap_or("PASS"))
                    .unwrap();
            }
        }
    }
    (judge, id)
}

/// A mail from `side`'s player to game `id`, its seat named by its secret.
pub fn seat_mail(site: &Site, judge: &mut Judge, id: i64, side: &str, lines: &str) {
    let body = format!("GAME {id}\nPASSWORD {}\n{lines}", secret(site, judge, side));
    let from = format!("{side}@example.org");
    let raw = common::mail(
        &from,
        "judge@example.org",
        "replay test",
        &format!(
            "{side}-{}@x",
            lines.split_whitespace().collect::<Vec<_>>().join("-")
        ),
        &body,
    );
    judge.inbound().handle_mail(&raw, "test").unwrap();
}

/// A game of `spec` played to its end through the service: [`play_game`],
/// then, if the rules have not ended it, the first side resigns by mail.
pub fn finished_game(site: &Site, spec: &Spec, phases: u32) -> (Judge, i64) {
    let (mut judge, id) = play_game(site, spec, phases);
    if judge.game(id).unwrap().status != "over" {
        let pos = judge.position(&judge.game(id).unwrap(), Some(0)).unwrap();
        let first = pos.rules.sides(&pos.state)[0].clone();
        seat_mail(site, &mut judge, id, &first, "RESIGN\n");
    }
    assert_eq!(judge.game(id).unwrap().status, "over", "{}", spec.name(0));
    (judge, id)
}

/// The secret of `side`'s seat, from its welcome mail.
pub fn secret(site: &Site, judge: &Judge, side: &str) -> String {
    let row: i64 = site
        .db()
        .query_row(
            "SELECT id FROM outbox WHERE kind = 'welcome' AND recipient = ?1",
            [format!("{side}@example.org")],
            |r| r.get(0),
        )
        .unwrap();
    let raw = judge.outbox_mail(row).unwrap().expect("the welcome mail");
    let text = common::unqp(&String::from_utf8_lossy(&raw));
    let line = text
        .lines()
        .find(|l| l.starts_with("Your secret: "))
        .expect("a secret");
    line["Your secret: ".len()..].trim().to_string()
}

/// The steps of a replay page as the reader gets them: (turn, the board
/// put together from the page's lines as its script does, the report's
/// text).
pub fn page_steps(html: &str) -> Vec<(u32, String, String)> {
    let tag = "<script type=\"application/json\" id=\"board-lines\">";
    let start = html.find(tag).expect("the board lines") + tag.len();
    let json = &html[start..start + html[start..].find("</script>").unwrap()];
    let lines: Vec<String> = serde_json::from_str(json).expect("the lines as JSON");
    html.split("<section class=\"step\" data-turn=\"")
        .skip(1)
        .map(|step| {
            let turn = step[..step.find('"').unwrap()].parse().unwrap();
            let numbers = step.split("data-lines=\"").nth(1).expect("a board");
            let board = numbers[..numbers.find('"').unwrap()]
                .split(' ')
                .map(|n| lines[n.parse::<usize>().unwrap()].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let report = step
                .split("<pre class=\"report\">")
                .nth(1)
                .expect("a report");
            let report = report[..report.find("</pre>").unwrap()]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
            (turn, board, report)
        })
        .collect()
}

/// The units a board draws, family-neutral: each `<g class="unit">` as
/// its `data-hex` or `data-id`, the translate it is placed by, if any, and
/// the place of its first shape (`use`, `rect` or `polygon`):
/// `KEY@TRANSFORM@X,Y|POINTS`, sorted. The page's script
/// reads the same from the DOM.
fn unit_marks(svg: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| -> String {
        let pat = format!(" {name}=\"");
        tag.find(&pat)
            .map(|i| {
                let rest = &tag[i + pat.len()..];
                rest[..rest.find('"').unwrap_or(0)].to_string()
            })
            .unwrap_or_default()
    };
    let mut out: Vec<String> = svg
        .split("<g class=\"unit\"")
        .skip(1)
        .map(|chunk| {
            let open = &chunk[..chunk.find('>').unwrap_or(0)];
            let mut key = attr(open, "data-hex");
            if key.is_empty() {
                key = attr(open, "data-id");
            }
            let shape = ["<use ", "<rect ", "<polygon "]
                .iter()
                .filter_map(|t| chunk.find(t))
                .min()
                .map(|i| &chunk[i..i + chunk[i..].find('>').unwrap_or(0)])
                .unwrap_or("");
            format!(
                "{key}@{}@{},{}|{}",
                attr(open, "transform"),
                attr(shape, "x"),
                attr(shape, "y"),
                attr(shape, "points")
            )
        })
        .collect();
    out.sort();
    out
}

/// Every turn's board units, from the export alone: its set-up replayed
/// with its orders and revealed dice, as the referee's board draws them.
fn units_from_export(export_json: &str) -> Vec<Vec<String>> {
    let ex = adjutant::service::export::parse(export_json).expect("the export");
    let master = adjutant::engine::dice::parse_seed(ex.seed.as_deref().expect("a seed")).unwrap();
    let rules = Rules::of_game(&ex.ruleset, ex.ruleset_text.as_deref()).unwrap();
    let mut sc = match &ex.scenario_text {
        Some(t) => Scenario::from_text(t, "replay.toml").unwrap().0,
        None => Scenario::shipped(&ex.scenario),
    };
    if let Some(o) = ex.options.as_object() {
        for (k, v) in o {
            sc.options
                .insert(k.clone(), v.as_str().unwrap_or_default().to_string());
        }
    }
    let mut state = setup_state(&rules, &sc, &master).unwrap();
    let board = |s: &adjutant::rules::State| {
        unit_marks(&rules.report_parts(s, &[], &Viewer::Referee, None).svg)
    };
    let mut out = vec![board(&state)];
    for t in &ex.turns {
        let orders: Vec<Orders> = t
            .orders
            .iter()
            .map(|o| Orders {
                side: o.side.clone(),
                text: o.orders.clone(),
            })
            .collect();
        let adj = adjudicate_turn(&rules, &state, &master, t.turn, &orders).unwrap();
        state = rules.numbered(adj.state, t.turn);
        out.push(board(&state));
    }
    out
}

/// Steps through the page with the keyboard (Home, then Right to the end,
/// then End and Left) and prints, URI-encoded JSON between `CHECK ` and
/// ` END`: the address and the shown step (turn, units laid out, their
/// marks, its report) after each key, and how many elements have a `src`
/// or an `href` that is not `#...` (after every board was built).
const STEP_SCRIPT: &str = r"<script>
window.addEventListener('load', function () {
  function key(k) { document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); }
  function shown() {
    var s = document.querySelectorAll('section.step:not([hidden])');
    if (s.length !== 1) return {count: s.length};
    var units = s[0].querySelectorAll('g.unit'), marks = [], drawn = 0;
    units.forEach(function (u) {
      var b = u.getBBox(); if (b.width > 0 && b.height > 0) drawn++;
      var c = u.querySelector('use,rect,polygon');
      var a = function (n) { return (c && c.getAttribute(n)) || ''; };
      marks.push((u.getAttribute('data-hex') || u.getAttribute('data-id') || '') +
        '@' + (u.getAttribute('transform') || '') + '@' + a('x') + ',' + a('y') + '|' + a('points'));
    });
    marks.sort();
    return {count: 1, hash: location.hash, turn: s[0].getAttribute('data-turn'),
      drawn: drawn, marks: marks, report: s[0].querySelector('pre.report').textContent};
  }
  var first = shown(), seen = [];
  key('Home'); seen.push(shown());
  var n = document.querySelectorAll('section.step').length;
  for (var i = 1; i < n; i++) { key('ArrowRight'); seen.push(shown()); }
  key('ArrowRight'); var past = shown();
  key('End'); key('ArrowLeft'); var back = shown();
  var outside = 0;
  document.querySelectorAll('[href]').forEach(function (e) {
    if (e.getAttribute('href').charAt(0) !== '#') outside++;
  });
  var out = {first: first, seen: seen, past: past.turn, back: back.turn,
    srcs: document.querySelectorAll('[src]').length, hrefs: outside};
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK ' + encodeURIComponent(JSON.stringify(out)) + ' END';
  document.body.appendChild(p);
});
</script>";

/// `%XX` escapes undone (what `encodeURIComponent` wrote).
fn uri_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() + 1 {
            let h = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(h, 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// A URL without its query (the browser's own update and account checks
/// carry a fresh key in theirs each run).
fn bare(u: &str) -> &str {
    u.split(['?', '#']).next().unwrap_or(u)
}

/// A request to Google's update, time and account services, which the
/// browser makes of its own (and the page could not: it has no `src`, and
/// its policy is `default-src 'none'`).
fn browsers_own(u: &str) -> bool {
    let host = u
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', ':']).next())
        .unwrap_or("");
    [".google.com", ".googleapis.com", ".gvt1.com"]
        .iter()
        .any(|d| host.ends_with(d))
}

/// Requests other than the page's own file and those the browser makes
/// of its own with a blank page (its update and account checks, which
/// `--disable-background-networking` does not stop).
fn foreign(chromium: &common::chromium::Chromium, urls: &[String], page: &str) -> Vec<String> {
    let blank = common::chromium::Page::new(
        "blank.html",
        "<!DOCTYPE html><html><body></body></html>",
        "<script>document.body.textContent = 'CH' + 'ECK blank END';</script>",
    );
    let (_, own) = chromium.measure_logged(&blank.url());
    let own: std::collections::BTreeSet<&str> = own.iter().map(|u| bare(u)).collect();
    urls.iter()
        .filter(|u| bare(u) != bare(page) && !own.contains(bare(u)) && !browsers_own(u))
        .cloned()
        .collect()
}

/// Play `spec`'s game, write its replay as `side` sees it (the whole game,
/// since it is over) and step through it in Chromium.
fn check_family(spec: &Spec, phases: u32, score: &str) {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = crate::common::svg_site();
    let (judge, id) = finished_game(&site, spec, phases);
    let game = judge.game(id).unwrap();
    let side = judge.position(&game, Some(0)).unwrap();
    let side = side.rules.sides(&side.state)[0].clone();
    let out = site.path().join("replay.html");
    site.ok(&[
        "replay",
        &id.to_string(),
        "--as",
        &side,
        "--output",
        &out.display().to_string(),
    ]);
    let html = std::fs::read_to_string(&out).unwrap();
    // The score in the family's own words (issue 53, item 8).
    let word = format!("<p class=\"score\">{score}: ");
    assert!(html.contains(&word), "{}: no {word}", spec.name(0));
    let other = if score == "Medals" {
        "Victory points"
    } else {
        "Medals"
    };
    assert!(!html.contains(other), "{}: {other}", spec.name(0));
    let export = site.ok(&["export", &id.to_string()]);
    let want = units_from_export(&export);
    assert_eq!(want.len() as u32, game.turn + 1);
    let page = common::chromium::Page::new("replay.html", &html, STEP_SCRIPT);
    let (line, urls) = chromium.measure_logged(&page.url());
    let v: serde_json::Value = serde_json::from_str(&uri_decode(&line)).unwrap();
    let seen = v["seen"].as_array().unwrap();
    assert_eq!(seen.len(), want.len(), "{}: one step a turn", spec.name(0));
    assert_eq!(v["first"]["turn"], "0", "the page opens at the start");
    for (t, (s, marks)) in seen.iter().zip(&want).enumerate() {
        let what = format!("{} turn {t}", spec.name(0));
        assert_eq!(s["count"], 1, "{what}: one step shown");
        assert_eq!(s["turn"], t.to_string(), "{what}");
        assert_eq!(s["hash"], format!("#turn-{t}"), "{what}: the address");
        let shown: Vec<String> = serde_json::from_value(s["marks"].clone()).unwrap();
        assert_eq!(&shown, marks, "{what}: the units where the export says");
        assert_eq!(s["drawn"], marks.len(), "{what}: every unit laid out");
        let report = judge
            .reports()
            .turn_report_text(&game, t as u32, &Viewer::Referee)
            .unwrap();
        assert_eq!(
            s["report"].as_str().unwrap().trim(),
            report.trim(),
            "{what}: the turn's report"
        );
    }
    assert!(want.iter().any(|m| !m.is_empty()), "units on the boards");
    assert_ne!(want.first(), want.last(), "the units moved or fell");
    let last = (want.len() - 1).to_string();
    assert_eq!(v["past"], last.as_str(), "Right at the end stays there");
    assert_eq!(v["back"], (want.len() - 2).to_string().as_str());
    assert_eq!(v["srcs"], 0, "no src attribute");
    assert_eq!(v["hrefs"], 0, "every href names a part of the page");
    assert!(!urls.is_empty(), "the network log records the page itself");
    assert_eq!(foreign(&chromium, &urls, &page.url()), Vec::<String>::new());
    eprintln!(
        "{}: {} turns, replay {} bytes",
        spec.name(0),
        want.len(),
        html.len()
    );
}

fn spec_of(family: &str, scenario: &str) -> Spec {
    specs(family)
        .into_iter()
        .find(|s| s.scenario == scenario && !s.other_grid && !s.variant && s.options.is_empty())
        .expect("a spec")
}

#[test]
fn a_memoir44_replay_steps_through_every_turn_in_chromium() {
    check_family(&spec_of("memoir44", "pegasus-bridge"), 200, "Medals");
}

#[test]
fn a_memoir_grid_replay_steps_through_every_turn_in_chromium() {
    check_family(
        &spec_of("memoir_grid", "le-cateau-1914"),
        60,
        "Victory points",
    );
}

#[test]
fn a_charge_replay_steps_through_every_turn_in_chromium() {
    check_family(&spec_of("measured", "el-bodon-1811"), 20, "Victory points");
}

#[test]
fn a_seven_years_war_replay_steps_through_every_turn_in_chromium() {
    check_family(&spec_of("syw", "minden-1759"), 20, "Victory points");
}

/// The page opens at the turn its address names, and follows the address
/// when it changes; the network check sees a request when there is one.
#[test]
fn the_address_names_the_turn_and_the_network_check_can_fail() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = crate::common::svg_site();
    let (_judge, id) = finished_game(&site, &spec_of("memoir44", "pegasus-bridge"), 12);
    let html = site.ok(&["replay", &id.to_string()]);
    let script = r"<script>
window.addEventListener('load', function () {
  var at = function () { return document.querySelector('section.step:not([hidden])').getAttribute('data-turn'); };
  var opened = at();
  location.hash = '#turn-2';
  window.addEventListener('hashchange', function () {
    var p = document.createElement('pre');
    p.textContent = 'CH' + 'ECK opened=' + opened + ' then=' + at() + ' END';
    document.body.appendChild(p);
  });
});
</script>";
    let page = common::chromium::Page::new("replay.html", &html, script);
    let (line, urls) = chromium.measure_logged(&format!("{}#turn-5", page.url()));
    assert_eq!(line, "opened=5 then=2");
    assert!(
        foreign(&chromium, &urls, &page.url()).is_empty(),
        "{urls:?}"
    );
    // A page that asks for a picture on the network: the log sees it.
    let leaky = html.replace("</body>", "<img src=\"http://127.0.0.1:9/x.png\"></body>");
    let leaky = leaky.replace("default-src 'none'", "default-src *");
    let page = common::chromium::Page::new("leaky.html", &leaky, script);
    let (_, urls) = chromium.measure_logged(&format!("{}#turn-5", page.url()));
    assert!(
        foreign(&chromium, &urls, &page.url())
            .iter()
            .any(|u| u.starts_with("http://127.0.0.1:9/")),
        "{urls:?}"
    );
}

/// The attachments of the newest mail of `kind` to `to`: (name, MIME
/// type, bytes).
#[allow(clippy::type_complexity)]
fn attachments_of(
    site: &Site,
    judge: &Judge,
    to: &str,
    kind: &str,
) -> Vec<(String, String, Vec<u8>)> {
    let row: i64 = site
        .db()
        .query_row(
            "SELECT max(id) FROM outbox WHERE kind = ?1 AND recipient = ?2",
            [kind, to],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("no {kind} mail to {to}: {e}"));
    let raw = judge.outbox_mail(row).unwrap().expect("the mail's bytes");
    let msg = mail_parser::MessageParser::default()
        .parse(&raw)
        .expect("a mail");
    msg.attachments()
        .map(|a| {
            (
                a.attachment_name().unwrap_or_default().to_string(),
                a.content_type()
                    .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
                    .unwrap_or_default(),
                a.contents().to_vec(),
            )
        })
        .collect()
}

/// The text of the newest reply to `to`.
fn reply_text(site: &Site, judge: &Judge, to: &str) -> String {
    let row: i64 = site
        .db()
        .query_row(
            "SELECT max(id) FROM outbox WHERE kind = 'reply' AND recipient = ?1",
            [to],
            |r| r.get(0),
        )
        .unwrap();
    let raw = judge.outbox_mail(row).unwrap().expect("the mail's bytes");
    let msg = mail_parser::MessageParser::default()
        .parse(&raw)
        .expect("a mail");
    msg.body_text(0).expect("a text part").into_owned()
}

/// The spec of a Kriegspiel game of Pegasus Bridge.
fn kriegspiel() -> Spec {
    Spec {
        options: &[("kriegspiel", "true")],
        ..spec_of("memoir44", "pegasus-bridge")
    }
}

/// REPLAY by mail: a seated player of a running Kriegspiel game gets the
/// page of its own views attached as text/html, which is not the
/// referee's; `adjutant replay --as SIDE` writes the same bytes.
#[test]
fn replay_by_mail_attaches_the_seats_own_view() {
    let site = crate::common::svg_site();
    let (mut judge, id) = play_game(&site, &kriegspiel(), 8);
    let game = judge.game(id).unwrap();
    assert_eq!(game.status, "active");
    seat_mail(&site, &mut judge, id, "axis", "REPLAY\n");
    let files = attachments_of(&site, &judge, "axis@example.org", "reply");
    let (_, _, page) = files
        .iter()
        .find(|(name, mime, _)| name == &format!("game-{id}-replay.html") && mime == "text/html")
        .unwrap_or_else(|| {
            panic!(
                "no replay attached: {:?}",
                files.iter().map(|f| (&f.0, &f.1)).collect::<Vec<_>>()
            )
        });
    // A text part travels with CRLF line ends.
    let page = String::from_utf8(page.clone())
        .unwrap()
        .replace("\r\n", "\n");
    let mine = adjutant::replay::html(&judge, id, &Viewer::Side("axis".into())).unwrap();
    let all = adjutant::replay::html(&judge, id, &Viewer::Referee).unwrap();
    assert!(page == mine, "the attached page is the side's replay");
    assert!(page != all, "a side's replay is not the referee's");
    assert_eq!(
        page.matches("<section class=\"step\"").count() as u32,
        game.turn + 1
    );
    let text = reply_text(&site, &judge, "axis@example.org");
    assert!(
        text.contains(&format!(
            "The replay of game {id}, turns 0 to {}",
            game.turn
        )),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let cli = site.ok(&["replay", &id.to_string(), "--as", "axis"]);
    assert!(cli == mine, "the CLI writes the same page");
    // After the end, everyone's replay is the whole game.
    seat_mail(&site, &mut judge, id, "axis", "RESIGN\n");
    let over = |v: Viewer| adjutant::replay::html(&judge, id, &v).unwrap();
    let referee = over(Viewer::Referee);
    assert!(over(Viewer::Side("axis".into())) == referee);
    assert!(over(Viewer::Side("allies".into())) == referee);
    // The game-over mail carries it to every player and the referee.
    for to in ["axis", "allies", "referee"] {
        let files = attachments_of(&site, &judge, &format!("{to}@example.org"), "game-over");
        let name = format!("game-{id}-replay.html");
        let page = files
            .iter()
            .find(|(n, mime, _)| n == &name && mime == "text/html")
            .unwrap_or_else(|| panic!("no replay in {to}'s game-over mail"));
        let page = String::from_utf8(page.2.clone())
            .unwrap()
            .replace("\r\n", "\n");
        assert!(page == referee, "{to}'s game-over mail: the whole game");
    }
    // And REPLAY still answers after the end: the whole game.
    seat_mail(&site, &mut judge, id, "allies", "REPLAY\n");
    let files = attachments_of(&site, &judge, "allies@example.org", "reply");
    let page = String::from_utf8(files[files.len() - 1].2.clone()).unwrap();
    assert!(
        page.replace("\r\n", "\n") == referee,
        "REPLAY after the end"
    );
}

/// The size of a 40-turn replay (docs/replay.md, "Size"): Pegasus Bridge
/// played 40 turns with seeded random orders, the whole game.
#[test]
fn a_forty_turn_replay_stays_small() {
    let site = crate::common::svg_site();
    let spec = Spec {
        max_phases: 40,
        ..spec_of("memoir44", "sainte-mere-eglise")
    };
    let (judge, id) = play_game(&site, &spec, 40);
    let game = judge.game(id).unwrap();
    let html = adjutant::replay::html(&judge, id, &Viewer::Referee).unwrap();
    let steps = adjutant::replay::steps(&judge, &game, &Viewer::Referee, game.turn).unwrap();
    let boards: usize = steps.iter().map(|s| s.board.len()).sum();
    let reports: usize = steps.iter().map(|s| s.report.len()).sum();
    eprintln!(
        "{} turns: replay {} bytes; the boards as drawn {boards}, the reports {reports}",
        game.turn,
        html.len()
    );
    if let Some(path) = std::env::var_os("ADJUTANT_REPLAY_DUMP") {
        std::fs::write(path, &html).unwrap();
    }
    assert_eq!(game.turn, 40, "40 turns played");
    // Measured: 307,076 bytes (the boards as drawn are 577,503): each
    // distinct line of the boards is written once.
    assert!(html.len() < 400_000, "{} bytes", html.len());
    assert!(
        html.len() < boards + reports,
        "smaller than the parts as drawn"
    );
}

/// A game that ends by its own rules (medals won, not a resignation): the
/// result is mailed to everyone of the game as the game-over mail, with
/// the seed and the whole game's replay attached, as a resignation's is.
#[test]
fn a_game_ended_by_its_rules_mails_everyone_the_replay() {
    let site = crate::common::svg_site();
    let spec = spec_of("memoir44", "pegasus-bridge");
    let (judge, id) = play_game(&site, &spec, 300);
    let game = judge.game(id).unwrap();
    assert_eq!(game.status, "over", "the rules ended the game");
    let ending: Option<String> = site
        .db()
        .query_row("SELECT ending FROM games WHERE id = ?1", [id], |r| r.get(0))
        .unwrap();
    assert!(ending.is_none(), "not ended outside the rules: {ending:?}");
    let want = adjutant::replay::html(&judge, id, &Viewer::Referee).unwrap();
    for side in ["allies", "axis"] {
        let to = format!("{side}@example.org");
        let files = attachments_of(&site, &judge, &to, "game-over");
        let page = files
            .iter()
            .find(|(name, _, _)| *name == format!("game-{id}-replay.html"))
            .unwrap_or_else(|| panic!("{to}: no replay attached: {files:?}"));
        assert_eq!(page.1, "text/html");
        // A text part's lines end in CRLF in the mail.
        let html = String::from_utf8(page.2.clone())
            .unwrap()
            .replace("\r\n", "\n");
        assert!(
            html == want,
            "{to}: the attached page is not the whole game as the referee saw it"
        );
        let turns: Vec<u32> = page_steps(&html).iter().map(|s| s.0).collect();
        assert_eq!(turns, (0..=game.turn).collect::<Vec<_>>());
    }
    let n: i64 = site
        .db()
        .query_row(
            "SELECT count(*) FROM outbox WHERE kind = 'game-over'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 2, "one game-over mail a seat");
}
