//! The HTML mail in a real browser: headless Chromium draws the turn report,
//! takes a screenshot, and a script in the page counts the hexes and units
//! the SVG actually lays out (non-empty bounding boxes). Skipped with a
//! message when chromium is absent, unless `CI` is set.
//! Install it with scripts/install-chromium.sh.

use adjutant::rules::memoir44::report::{parts, sample};
use adjutant::rules::memoir44::view::view_with_events;
use adjutant::rules::Viewer;

use crate::common;
use common::chromium::{chromium, Page};

/// After load, the page counts the hexes and the units the board lays out
/// (non-empty bounding boxes), runs `more` (JavaScript) and prints
/// `CHECK hexes=H units=U` and what `tail` adds (a JavaScript expression
/// after a `+`) before ` END`.
fn board_script(more: &str, tail: &str) -> String {
    r#"<script>
window.addEventListener('load', function () {
  function drawn(list) {
    var n = 0;
    list.forEach(function (e) { var b = e.getBBox(); if (b.width > 0 && b.height > 0) n++; });
    return n;
  }
  var hexes = drawn(document.querySelectorAll('svg.board g.hexes use[data-hex]'));
  var units = drawn(document.querySelectorAll('svg.board g.unit'));
MORE
  var p = document.createElement('pre');
  p.id = 'adjutant-check';
  p.textContent = 'CH' + 'ECK hexes=' + hexes + ' units=' + units TAIL + ' END';
  document.body.appendChild(p);
});
</script>"#
        .replace("MORE", more)
        .replace("TAIL", tail)
}

#[test]
fn html_mail_draws_the_board() {
    let Some(chromium) = chromium() else {
        return;
    };
    let s = sample::standard();
    let viewer = Viewer::Side("axis".into());
    let v = view_with_events(&s.r, &s.state, &viewer, &s.events);
    let p = parts(&v, Some(&s.mover));
    let text = format!(
        "{}\n{}\n{}",
        p.combat,
        p.map,
        p.orders.clone().unwrap_or_default()
    );
    let html = p.html("Game 1: turn 12 (axis)", &text);
    let page = Page::new("mail.html", &html, &board_script("", ""));
    chromium.screenshot(&page, "1000,800");
    let line = chromium.measure(&page);
    let want = format!("hexes={} units={}", 5 * 13 + 4 * 12, v.units.len());
    assert_eq!(line, want);
    assert!(v.units.len() > 10);
}

/// Battle Star markers, charges on a rigged bridge and hits on a bridge
/// (issue 12): each one a star the browser lays out on its hex, and the
/// legend's entry for them after the board's tiles and obstacles.
#[test]
fn battle_star_markers_draw_on_the_board() {
    use adjutant::rules::memoir44::bridges::{Charge, Damage};
    use adjutant::rules::memoir44::stars::Star;
    use adjutant::rules::memoir44::Hex;
    let Some(chromium) = chromium() else {
        return;
    };
    let s = sample::standard();
    let mut st = s.state.clone();
    let leader = st.units.iter().find(|u| u.side == 0).expect("a unit");
    let hex = |t: &str| Hex::parse(t).expect("hex");
    st.stars = vec![
        Star {
            kind: "heroic-leader".into(),
            side: Some(0),
            at: leader.at,
            unit: Some(leader.id),
            count: 0,
        },
        Star {
            kind: "drop-zone".into(),
            side: Some(0),
            at: hex("B2"),
            unit: None,
            count: 0,
        },
    ];
    st.charges = vec![Charge {
        at: hex("E5"),
        side: 1,
        battled: false,
    }];
    st.bridge_damage = vec![Damage {
        at: hex("I5"),
        hits: 3,
    }];
    let v = view_with_events(&s.r, &st, &Viewer::Side("allies".into()), &s.events);
    assert_eq!(v.markers.len(), 4);
    let p = parts(&v, Some(&s.mover));
    let html = p.html("Game 1: turn 12 (allies)", &p.map);
    let more = format!(
        "{LEGEND}\n  var markers = [];\n  document.querySelectorAll('svg.board g.markers text.marker').forEach(function (e) {{ var b = e.getBBox(); if (b.width > 0 && b.height > 0) markers.push(e.getAttribute('data-hex') + ':' + e.getAttribute('data-marker')); }});"
    );
    let tail = format!("{LEGEND_TAIL} + ' markers=' + markers.join(',')");
    let page = Page::new("markers.html", &html, &board_script(&more, &tail));
    chromium.screenshot(&page, "1000,800");
    let line = chromium.measure(&page);
    let want = format!(
        "hexes={} units={} legend=side-allies,side-axis,bridge,river,town,woods,sandbag,wire,battle-star,kind-inf,kind-arm,strength,arrow-move,arrow-retreat,arrow-battle markers={}:heroic-leader,B2:drop-zone,E5:charges,I5:bridge-hits",
        5 * 13 + 4 * 12,
        v.units.len(),
        leader.at
    );
    assert_eq!(line, want);
}

const BOARDS_SCRIPT: &str = r#"<script>
window.addEventListener('load', function () {
  var n = 0;
  document.querySelectorAll('svg.board').forEach(function (e) {
    var b = e.getBoundingClientRect(); if (b.width > 100 && b.height > 100) n++;
  });
  var labels = [];
  document.querySelectorAll('h3').forEach(function (h) { labels.push(h.textContent); });
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK boards=' + n + ' labels=' + labels.join('|') + ' END';
  document.body.appendChild(p);
});
</script>"#;

/// The referee's mail (issue 9): its own board and each side's, labelled,
/// laid out by a real browser from the mail the judge really queued.
#[test]
fn the_referees_html_mail_shows_every_board_labelled() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "pegasus-bridge",
        &["allies=a@example.org", "axis=b@example.org"],
        &["--referee", "ref@example.org"],
    );
    common::submit_random_turns(&site, 1, 7);
    let html = site.html_mail("referee's report", |t| {
        t.contains("To: ref@example.org") && t.contains("referee's copy")
    });
    let page = Page::new("referee.html", &html, BOARDS_SCRIPT);
    chromium.screenshot(&page, "1000,2400");
    let line = chromium.measure(&page);
    assert_eq!(
        line,
        "boards=3 labels=THE REFEREE'S BOARD|WHAT ALLIES SEES|WHAT AXIS SEES"
    );
}

/// The Maleme scenario's first report (issue 12): the board after the judge's
/// airdrop, from the HTML mail really queued, laid out by a real browser with
/// every hex and every unit (the landed sticks among them) drawn.
#[test]
fn the_airdrop_report_draws_the_board_with_the_landed_sticks() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "maleme",
        &["axis=a@example.org", "allies=b@example.org"],
        &[],
    );
    let state = common::latest_state(&site);
    // 4 Axis units and 8 Allied ones before the drop.
    assert!(
        state.units.len() > 12,
        "no stick landed: {}",
        state.units.len()
    );
    let html = site.html_mail("first report", |t| {
        t.contains("To: a@example.org") && t.contains("turn 1 (the judge)")
    });
    assert!(html.contains("airdrop"), "the drop is told in the HTML too");
    let page = Page::new("maleme.html", &html, &board_script("", ""));
    let line = chromium.measure(&page);
    let want = format!("hexes={} units={}", 5 * 13 + 4 * 12, state.units.len());
    assert_eq!(line, want);
}

/// Miteiriya Ridge (issue 12, Appendix 1's Minefields): a player's first
/// mail, laid out by a real browser, draws every hex, every unit and every
/// minefield, each minefield marked "M?" (its strength hidden from the
/// player).
#[test]
fn the_minefield_report_draws_every_minefield_face_down() {
    const MINES: &str = r#"
  var mines = document.querySelectorAll('svg.board text.minefield');
  var hidden = 0;
  mines.forEach(function (e) { if (e.firstChild && e.firstChild.nodeValue === 'M?') hidden++; });"#;
    const MINES_TAIL: &str = "+ ' mines=' + drawn(mines) + ' hidden=' + hidden";
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "miteiriya-ridge",
        &["allies=a@example.org", "axis=b@example.org"],
        &[],
    );
    let state = common::latest_state(&site);
    let html = site.html_mail("Allied player's first mail", |t| {
        t.contains("To: a@example.org")
    });
    let page = Page::new("miteiriya.html", &html, &board_script(MINES, MINES_TAIL));
    let line = chromium.measure(&page);
    let want = format!(
        "hexes={} units={} mines=9 hidden=9",
        5 * 13 + 4 * 12,
        state.units.len()
    );
    assert_eq!(line, want);
}

/// The legend entries an SVG board draws (those with a size), for
/// `board_script`.
const LEGEND: &str = r#"
  var ids = [];
  document.querySelectorAll('svg.board g.legend g[data-legend]').forEach(function (e) {
    var b = e.getBBox(); if (b.width > 0 && b.height > 0) ids.push(e.getAttribute('data-legend'));
  });"#;
const LEGEND_TAIL: &str = "+ ' legend=' + ids.join(',')";

/// The Bir Hakeim scenario's report (issue 12, Appendix 2's tiles): the
/// board of the HTML mail really queued, laid out by a real browser with
/// every hex, every unit and a legend entry for each tile and obstacle on
/// the board.
#[test]
fn the_desert_report_draws_the_tiles_with_their_legend() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "bir-hakeim",
        &["axis=a@example.org", "allies=b@example.org"],
        &[],
    );
    common::submit_random_turns(&site, 1, 5);
    let state = common::latest_state(&site);
    let html = site.html_mail("report of turn 1", |t| {
        t.contains("To: b@example.org") && t.contains("turn 1")
    });
    let page = Page::new("bir-hakeim.html", &html, &board_script(LEGEND, LEGEND_TAIL));
    let line = chromium.measure(&page);
    let want = format!(
        "hexes={} units={} legend=side-allies,side-axis,desert-town,oasis,palm-trees,supply-depot,wadi,field-bunker,trenches,kind-inf,kind-art,kind-arm,strength,arrow-move,arrow-retreat,arrow-battle",
        5 * 13 + 4 * 12,
        state.units.len()
    );
    assert_eq!(line, want);
}

/// Issue 12: the shipped "War Of The Worlds" scenario, "The Fall Of London,
/// 1940", draws in a real browser: every hex, every unit (the Martian
/// machines among them) and a legend entry for each tile on the board.
#[test]
fn the_fall_of_london_report_draws_the_martians_and_the_thames() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "fall-of-london",
        &["martians=a@example.org", "british=b@example.org"],
        &[],
    );
    common::submit_random_turns(&site, 1, 3);
    let state = common::latest_state(&site);
    assert!(state.worlds.is_some());
    let html = site.html_mail("report of turn 1", |t| {
        t.contains("To: b@example.org") && t.contains("Subject: Game 1: turn 1")
    });
    let page = Page::new(
        "fall-of-london.html",
        &html,
        &board_script(LEGEND, LEGEND_TAIL),
    );
    let line = chromium.measure(&page);
    // The tiles on the board after the turn (a Martian attack may have left
    // a town City Ruins), in the legend's order: the tiles by name, then the
    // obstacles by name (a unit may have dug in behind sandbags: the game's
    // dice come from a fresh seed).
    let r = adjutant::rules::memoir44::Ruleset::builtin().unwrap();
    let of_kind = |k: &str| -> std::collections::BTreeSet<&str> {
        state
            .terrain
            .values()
            .flatten()
            .map(String::as_str)
            .filter(|t| *t != "open" && r.feature(t).is_some_and(|f| f.kind == k))
            .collect()
    };
    let (tiles, obstacles) = (of_kind("tile"), of_kind("obstacle"));
    assert!(
        tiles.contains("river") && tiles.contains("bridge"),
        "{tiles:?}"
    );
    // Then the unit symbols drawn (issue 53), in the symbols' own order.
    let kinds = [
        "inf", "cav", "art", "arm", "mg", "mor", "car", "tpt", "trn", "cmd", "wag", "brg", "unk",
    ]
    .into_iter()
    .filter(|k| html.contains(&format!("data-kind=\"{k}\"")))
    .map(|k| format!("kind-{k}"));
    let want = format!(
        "hexes={} units={} legend={}",
        5 * 13 + 4 * 12,
        state.units.len(),
        // The sides' colours first (issue 53).
        ["side-british", "side-martians"]
            .into_iter()
            .chain(tiles)
            .chain(obstacles)
            .map(str::to_string)
            .chain(kinds)
            // Then the strength pips and the three arrows (issue 53).
            .chain(
                ["strength", "arrow-move", "arrow-retreat", "arrow-battle"]
                    .into_iter()
                    .map(str::to_string)
            )
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(line, want);
}

const WEATHER_SCRIPT: &str = r#"<script>
window.addEventListener('load', function () {
  var svg = document.querySelector('svg.board');
  var vb = svg.viewBox.baseVal;
  var n = 0;
  svg.querySelectorAll('g.hexes use[data-hex]').forEach(function (e) { var b = e.getBBox(); if (b.width > 0 && b.height > 0) n++; });
  var w = svg.querySelector('text.weather');
  var b = w.getBBox();
  var inside = b.width > 0 && b.x >= 0 && b.y >= 0 && b.x + b.width <= vb.width && b.y + b.height <= vb.height;
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK hexes=' + n + ' weather=' + w.textContent + ' inside=' + inside + ' END';
  document.body.appendChild(p);
});
</script>"#;

/// The night scenario (issue 12, Night & Severe Weather): Merville Battery's
/// opening board, from the HTML mail really queued, laid out by a real
/// browser: every hex drawn, and the night's line inside the board's frame.
#[test]
fn the_night_scenario_draws_the_board_with_its_weather() {
    let Some(chromium) = chromium() else {
        return;
    };
    let site = common::Site::new();
    // These tests lay out the board's SVG itself (issue 37 made PNG the default).
    common::set_picture(&site, "svg");
    site.new_game(
        "merville-battery",
        &["allies=a@example.org", "axis=b@example.org"],
        &[],
    );
    let html = site.html_mail("mail with the board", |t| {
        t.contains("To: a@example.org") && t.contains("svg")
    });
    let page = Page::new("merville.html", &html, WEATHER_SCRIPT);
    let line = chromium.measure(&page);
    assert_eq!(
        line,
        format!(
            "hexes={} weather=Weather: Night; visibility 1 hex(es); night track box 1 of 5 inside=true",
            5 * 13 + 4 * 12
        )
    );
}

/// Issue 37: the mail's HTML with the board as an inline PNG, as a client
/// shows it: each `cid:` part written to a file beside the page and the
/// `cid:` rewritten to it. The browser decodes the picture at the SVG's
/// size and shows no SVG.
#[test]
fn html_mail_shows_the_inline_png() {
    use adjutant::report::picture::Picture;
    let Some(chromium) = chromium() else {
        return;
    };
    let s = sample::standard();
    let v = view_with_events(&s.r, &s.state, &Viewer::Side("allies".into()), &s.events);
    let p = parts(&v, Some(&s.mover));
    let m = adjutant::report::mail_html(&p, "Game 1: turn 12 (allies)", &p.map, Picture::Png);
    assert_eq!(m.inline.len(), 1, "one picture");
    let mut html = m.html.expect("an HTML part");
    for (cid, mime, _) in &m.inline {
        assert_eq!(mime, "image/png");
        html = html.replace(&format!("cid:{cid}"), &format!("{cid}.png"));
    }
    let script = r#"<script>
window.addEventListener('load', function () {
  var i = document.images[0];
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK images=' + document.images.length + ' svgs=' + document.querySelectorAll('svg').length
    + ' decoded=' + (i.complete && i.naturalWidth > 0) + ' width=' + i.naturalWidth + ' alt=' + (i.alt.indexOf('board') >= 0) + ' END';
  document.body.appendChild(p);
});
</script>"#;
    let page = Page::new("png.html", &html, script);
    for (cid, _, bytes) in &m.inline {
        std::fs::write(page.dir.path().join(format!("{cid}.png")), bytes).expect("write");
    }
    chromium.screenshot(&page, "1000,800");
    let line = chromium.measure(&page);
    let svg_width = p
        .svg
        .split(" width=\"")
        .nth(1)
        .and_then(|w| w.split('"').next())
        .expect("the SVG's width");
    // The PNG is drawn at report::picture::SCALE pixels per SVG unit.
    let png_width =
        (svg_width.parse::<f32>().expect("a number") * adjutant::report::picture::SCALE).round();
    assert_eq!(
        line,
        format!("images=1 svgs=0 decoded=true width={png_width} alt=true")
    );
}

/// Issue 53, item 6: a player's report mail, as its HTML part, in a
/// phone's width (360 CSS pixels: the mail in an iframe of that width, as
/// headless Chromium's window is at least 500 wide): the page does not
/// scroll sideways (the 78-column report scrolls in its own box) and the
/// compact 40-column map is there, whole, under the picture. A Memoir '44
/// board, a grid board and a measured table, as mailed.
#[test]
fn a_report_mail_fits_a_phone_without_scrolling_sideways() {
    let Some(chromium) = chromium() else {
        return;
    };
    let script = r#"<script>
window.addEventListener('load', function () {
  var f = document.getElementById('phone');
  var d = f.contentDocument;
  var c = d.querySelector('pre.compact');
  var line = 'page=' + d.scrollingElement.scrollWidth + ' window=' + f.contentWindow.innerWidth +
    ' compact=' + (c ? (c.scrollWidth <= c.clientWidth && c.getBoundingClientRect().width > 0) : 'none');
  var p = document.createElement('pre');
  p.textContent = 'CH' + 'ECK ' + line + ' END';
  document.body.appendChild(p);
});
</script>"#;
    for (scenario, seats) in [
        (
            "pegasus-bridge",
            ["allies=a@example.org", "axis=b@example.org"],
        ),
        (
            "minden-1759",
            ["allied=a@example.org", "french=b@example.org"],
        ),
        (
            "le-cateau-1914",
            ["british=a@example.org", "german=b@example.org"],
        ),
    ] {
        let site = common::Site::new();
        site.new_game(scenario, &seats, &[]);
        site.ok(&["serve", "--once"]);
        let html = site.html_mail("a welcome", |m| m.contains("To: b@example.org"));
        let framed = format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"phone\" width=\"360\" height=\"800\" style=\"border:0\" srcdoc=\"{}\"></iframe></body></html>",
            html.replace('&', "&amp;").replace('"', "&quot;")
        );
        let page = Page::new("phone.html", &framed, script);
        let line = chromium.measure(&page);
        let n = |k: &str| -> u32 {
            line.split(&format!("{k}="))
                .nth(1)
                .and_then(|v| v.split(' ').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{scenario}: {line}"))
        };
        assert_eq!(n("window"), 360, "{scenario}: a phone's width: {line}");
        assert!(
            n("page") <= n("window"),
            "{scenario}: the page scrolls sideways: {line}"
        );
        // The measured tables have no 40-column map: their text map
        // comes with a 78-column list of units.
        let want = if scenario == "minden-1759" {
            "compact=none"
        } else {
            "compact=true"
        };
        assert!(line.ends_with(want), "{scenario}: {line}");
    }
}
