//! Issue 53, acceptance 1 (the part this branch covers): the grid and
//! measured families' pictures, for every shipped scenario, drawn from
//! each seat: the viewer's own units nearest the bottom, the caption
//! naming the viewer's side, a legend of the sides' colours, and every
//! unit label inside the picture. Read from the SVG the CLI prints
//! (`adjutant show --format svg|html`), as a host or a player's tool
//! would.

mod busy;
mod own_labels;

use crate::common::Site;
use busy::{busy_games, shared_busy_all};
use mail_parser::MimeHeaders;

/// Every `<g class="unit" ...>` element's side and its points' or
/// rectangle's y centre, and every unit label's (x, y).
struct Drawn {
    width: f64,
    height: f64,
    units: Vec<(String, f64)>,
    labels: Vec<(f64, f64, String)>,
    legend: usize,
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let k = format!(" {name}=\"");
    let i = tag.find(&k)? + k.len();
    Some(tag[i..].split('"').next()?.to_string())
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The `translate(X Y)` the first tag of `tag` places its element by (a
/// unit, an arrow), (0, 0) if none: the coordinates inside are from it.
fn shift(tag: &str) -> (f64, f64) {
    let open = tag.split('>').next().unwrap_or_default();
    let Some(t) = attr(open, "transform") else {
        return (0.0, 0.0);
    };
    let Some(inner) = t
        .strip_prefix("translate(")
        .and_then(|t| t.strip_suffix(')'))
    else {
        panic!("a transform other than a translate: {t}");
    };
    let v: Vec<f64> = inner
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a number"))
        .collect();
    (v[0], v.get(1).copied().unwrap_or(0.0))
}

fn drawn(svg: &str) -> Drawn {
    let head = svg.split('>').next().unwrap();
    let mut d = Drawn {
        width: num(head, "width"),
        height: num(head, "height"),
        units: Vec::new(),
        labels: Vec::new(),
        legend: svg.matches("class=\"legend\"").count(),
    };
    for g in svg.split("<g class=\"unit\"").skip(1) {
        let g = g.split("</g>").next().unwrap();
        let side = attr(g, "data-side").expect("a unit names its side");
        let (sx, sy) = shift(g);
        let y = sy
            + if let Some(p) = attr(g, "points") {
                let ys: Vec<f64> = p
                    .split_whitespace()
                    .filter_map(|xy| xy.split(',').nth(1)?.parse().ok())
                    .collect();
                ys.iter().sum::<f64>() / ys.len() as f64
            } else {
                num(g, "y")
            };
        d.units.push((side, y));
        if let Some(t) = g.split("<text").nth(1) {
            let text = t.split('>').nth(1).unwrap_or("").split('<').next().unwrap();
            d.labels
                .push((sx + num(t, "x"), sy + num(t, "y"), text.to_string()));
        }
    }
    d
}

fn sides(site: &Site, scenario: &str) -> Vec<String> {
    let out = site.run(&[
        "new-game",
        "--scenario",
        scenario,
        "--seat",
        "nobody=x@example.org",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    err.split("(sides: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("{scenario}: {err}"))
        .split(", ")
        .map(str::to_string)
        .collect()
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[test]
fn grid_and_measured_pictures_are_drawn_from_the_viewers_seat() {
    let site = Site::new();
    // The pictures read are `show`'s, which the host's default picture
    // does not change: no welcome mail needs a PNG drawn.
    crate::common::set_picture(&site, "none");
    let shipped = site.ok(&["scenarios"]);
    let mut game = 0;
    let mut checked = 0;
    for scenario in shipped.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let sides = sides(&site, scenario);
        let mut args = vec!["new-game".to_string(), "--scenario".into(), scenario.into()];
        for s in &sides {
            args.extend(["--seat".into(), format!("{s}={s}@example.org")]);
        }
        site.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        game += 1;
        let ruleset = site.ok(&["games"]);
        let family_grid_or_measured = ruleset.lines().any(|l| {
            l.split_whitespace().next() == Some(&game.to_string())
                && [
                    "memoir-of-battle",
                    "memoir-of-modern-battle",
                    "charge",
                    "seven-years-war",
                ]
                .iter()
                .any(|r| l.split_whitespace().nth(1) == Some(r))
        });
        if !family_grid_or_measured {
            continue;
        }
        let id = game.to_string();
        for viewer in sides.iter().map(String::as_str).chain(["referee"]) {
            let what = format!("{scenario} as {viewer}");
            let svg = site.ok(&["show", &id, "--as", viewer, "--format", "svg"]);
            let html = site.ok(&["show", &id, "--as", viewer, "--format", "html"]);
            let d = drawn(&svg);
            let seat = if viewer == "referee" {
                &sides[0]
            } else {
                viewer
            };
            // The mail's alt text is the SVG's label: the scenario, the
            // turn and the seat (docs/reports.md).
            let label = attr(svg.split('>').next().unwrap(), "aria-label")
                .unwrap_or_else(|| panic!("{what}: no aria-label"));
            assert!(
                label.contains(", turn 1,") || label.contains(", move 1,"),
                "{what}: {label}"
            );
            assert!(
                label
                    .to_lowercase()
                    .contains(&format!("the {} edge", seat.to_lowercase())),
                "{what}: {label}"
            );
            assert!(
                html.contains(&format!("Seen from the {} edge", cap(seat)))
                    || html.contains(&format!("Seen from the {seat} edge")),
                "{what}: the caption does not name the {seat} edge"
            );
            let mean = |mine: bool| {
                let ys: Vec<f64> = d
                    .units
                    .iter()
                    .filter(|(s, _)| (s == seat) == mine)
                    .map(|(_, y)| *y)
                    .collect();
                ys.iter().sum::<f64>() / ys.len().max(1) as f64
            };
            assert!(
                mean(true) > mean(false),
                "{what}: own units not nearer the bottom ({} vs {})",
                mean(true),
                mean(false)
            );
            assert!(
                d.legend >= sides.len(),
                "{what}: no legend of the sides' colours"
            );
            for (x, y, t) in &d.labels {
                assert!(
                    *x >= 0.0 && *x <= d.width && *y >= 0.0 && *y <= d.height,
                    "{what}: the label {t} at ({x}, {y}) is outside {}x{}",
                    d.width,
                    d.height
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 5 * 3, "only {checked} views checked");
}

// ---- The conformance test over a played turn (issue 53, acceptance 1).

/// What a viewer saw of the busy turn: one turn report mail.
struct Seen {
    /// `scenario [kriegspiel] as viewer`.
    what: String,
    /// A side's id, `observer` or `referee`.
    viewer: String,
    html: String,
    svgs: Vec<String>,
    /// The mail's view.json attachment (`Null` when it has none).
    json: serde_json::Value,
}

/// One game played through `adjutant submit` until a busy turn.
struct Busy {
    scenario: String,
    kriegspiel: bool,
    sides: Vec<String>,
    /// The last turn's moves, fire and retreats, counted from its events.
    kinds: std::collections::BTreeMap<&'static str, usize>,
    /// Every turn report of the last turn, by recipient.
    seen: Vec<Seen>,
    /// Every mail of the game: (file name, text/plain part).
    plain: Vec<(String, String)>,
    /// The size of the largest mail of the last turn to a player or an
    /// observer, and its name.
    largest: (usize, String),
    /// The same of the referee's copies (a Kriegspiel game's).
    largest_referee: (usize, String),
    /// The last turn's text reports (the text/plain part and every text
    /// attachment), by recipient (the address's local part).
    last_texts: Vec<(String, String)>,
}

/// What an event of the store is, for the picture: a move, fire or a
/// retreat (none: something else, or a move that went nowhere).
fn event_kind(e: &serde_json::Value) -> Option<&'static str> {
    let kind = e["kind"].as_str()?;
    // A move or retreat that went nowhere (blocked, a change of
    // formation) has nothing to draw.
    let went = e["path"].as_array().is_none_or(|p| p.len() > 1)
        && (e.get("from").is_none() || e["from"] != e["to"])
        && e["moved"].as_i64().is_none_or(|m| m > 0);
    match kind {
        "move" | "moved" => went.then_some("move"),
        "fire" | "battle" | "roundshot" | "shell" | "volley" => Some("fire"),
        "retreat" => went.then_some("retreat"),
        _ => None,
    }
}

fn last_turn(site: &Site) -> (i64, Vec<serde_json::Value>) {
    let db = site.db();
    let turn: i64 = db
        .query_row("SELECT turn FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let mut q = db
        .prepare("SELECT event FROM events WHERE game_id = 1 AND turn = ?1 ORDER BY seq")
        .unwrap();
    let events = q
        .query_map([turn], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|e| serde_json::from_str(&e.unwrap()).unwrap())
        .collect();
    (turn, events)
}

/// Play game 1 of `site` with random legal orders (seeded) until a turn
/// in which units move, fire and retreat (or, after 24 phases, move and
/// fire; or the game ends): that turn's events, and its orders as (side,
/// text) in the order submitted. `before` is called before each turn's
/// orders are submitted.
fn play_until_busy(
    site: &Site,
    seed: u64,
    mut before: impl FnMut(&Site),
) -> (Vec<serde_json::Value>, Vec<(String, String)>) {
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::{Load, Rules};
    let mut rng = ChaChaDice::from_seed(crate::common::seed_from(&[seed, 53]));
    let file = site.path().join("orders.txt");
    let mut events = Vec::new();
    let mut last = Vec::new();
    for round in 0..60 {
        let (ruleset, state): (String, String) = site
            .db()
            .query_row(
                "SELECT g.ruleset, s.state FROM games g JOIN snapshots s ON s.game_id = g.id \
                 WHERE g.id = 1 ORDER BY s.turn DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let rules = Rules::load(&ruleset).unwrap();
        let state = rules.restore(&state).unwrap();
        let phase = rules.phase(&state);
        if phase.sides.is_empty() {
            break;
        }
        before(site);
        last.clear();
        for o in crate::golden::games::random_orders(&rules, &state, &phase.sides, &mut rng) {
            std::fs::write(&file, &o.text).unwrap();
            site.ok(&["submit", "1", &o.side, file.to_str().unwrap()]);
            last.push((o.side, o.text));
        }
        events = last_turn(site).1;
        let kinds: Vec<_> = events.iter().filter_map(event_kind).collect();
        let has = |k| kinds.contains(&k);
        if has("move") && has("fire") && (has("retreat") || round >= 24) {
            break;
        }
    }
    (events, last)
}

/// The files of `site`'s database (its WAL, when one is left).
fn db_files(site: &Site) -> Vec<std::path::PathBuf> {
    ["adjutant.db", "adjutant.db-wal", "adjutant.db-shm"]
        .iter()
        .map(|f| site.path().join(f))
        .collect()
}

/// Keep `site`'s position in `saved`: its database's files and the names
/// of the mails sent so far (no judge runs between two turns).
fn save_position(site: &Site, saved: &std::path::Path) {
    std::fs::create_dir_all(saved).unwrap();
    for f in db_files(site) {
        let to = saved.join(f.file_name().unwrap());
        match std::fs::copy(&f, &to) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let _ = std::fs::remove_file(&to);
            }
            Err(e) => panic!("{}: {e}", f.display()),
        }
    }
    let names: Vec<String> = site.outbox().into_iter().map(|(n, _)| n).collect();
    std::fs::write(saved.join("sent"), names.join("\n")).unwrap();
}

/// Put back the position [`save_position`] kept: the database as it was
/// and none of the mails sent since.
fn restore_position(site: &Site, saved: &std::path::Path) {
    for f in db_files(site) {
        let _ = std::fs::remove_file(&f);
        let from = saved.join(f.file_name().unwrap());
        if from.exists() {
            std::fs::copy(&from, &f).unwrap();
        }
    }
    let sent = std::fs::read_to_string(saved.join("sent")).unwrap();
    let kept: Vec<&str> = sent.lines().collect();
    for (name, _) in site.outbox() {
        if !kept.contains(&name.as_str()) {
            std::fs::remove_file(site.path().join("mail/outbox").join(&name)).unwrap();
        }
    }
}

/// Play until busy as [`play_until_busy`], drawing no picture, then play
/// the busy turn again from the position before it with the host's
/// default picture (the shipped PNG): its mails are the mails of a game
/// played with PNGs throughout, for no turn's report depends on an earlier
/// turn's picture, at the cost of one turn's PNGs rather than every
/// turn's (most of the 80 KB test's time). The turn played again must give
/// the same events.
fn play_until_busy_then_png(site: &Site, seed: u64) -> Vec<serde_json::Value> {
    let shipped = std::fs::read_to_string(site.config()).unwrap();
    crate::common::set_picture(site, "none");
    let saved = site.path().join("saved-position");
    let (events, last) = play_until_busy(site, seed, |s| save_position(s, &saved));
    std::fs::write(site.config(), shipped).unwrap();
    if last.is_empty() {
        return events;
    }
    restore_position(site, &saved);
    let file = site.path().join("orders.txt");
    for (side, text) in &last {
        std::fs::write(&file, text).unwrap();
        site.ok(&["submit", "1", side, file.to_str().unwrap()]);
    }
    let again = last_turn(site).1;
    assert_eq!(again, events, "the busy turn played again gives its events");
    events
}

fn svgs(html: &str) -> Vec<String> {
    html.split("<svg")
        .skip(1)
        .map(|s| format!("<svg{}</svg>", s.split("</svg>").next().unwrap()))
        .collect()
}

/// The largest mail of `site`'s last turn (`turn`) to a player or an
/// observer, and to the referee: (size, name) each.
/// `PRESENTATION_DUMP=DIR` keeps the largest to look at.
fn largest_mails(
    site: &Site,
    what: &str,
    file: &str,
    turn: i64,
) -> ((usize, String), (usize, String)) {
    let mut largest = (0, String::new());
    let mut largest_referee = (0, String::new());
    for (name, raw) in site.outbox() {
        let msg = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .expect("a mail");
        let subject = msg.subject().unwrap_or("");
        let to = crate::common::first_to(&msg);
        // The reports of the last turn (a turn report's subject names it:
        // "Game 1: turn N ..." or "move N").
        let of_last =
            subject.contains(&format!(" {turn} ")) || subject.ends_with(&format!(" {turn}"));
        let top = if to.starts_with("referee@") {
            &mut largest_referee
        } else {
            &mut largest
        };
        if of_last && raw.len() > top.0 {
            *top = (raw.len(), format!("{what}: {name} ({subject})"));
            if let Ok(dir) = std::env::var("PRESENTATION_DUMP") {
                let who = if to.starts_with("referee@") {
                    "-referee"
                } else {
                    ""
                };
                let _ = std::fs::write(format!("{dir}/{file}{who}.eml"), &raw);
            }
        }
    }
    (largest, largest_referee)
}

/// Play `scenario` (openly, or as a Kriegspiel game) with seed `seed` to a
/// busy turn, drawing `picture`: "png" (the host's default), "svg", or
/// "svg+png": the game with SVGs (for `seen`), and its busy turn played
/// again from the position before it with the shipped PNG, for the mail
/// sizes (`largest`), as [`play_until_busy_then_png`] does.
fn busy_game(scenario: &str, kriegspiel: bool, seed: u64, picture: &str) -> Option<Busy> {
    let site = Site::new();
    let shipped = std::fs::read_to_string(site.config()).unwrap();
    let sized = picture == "svg+png";
    if picture != "png" {
        crate::common::set_picture(&site, "svg");
    }
    let sides = sides(&site, scenario);
    let mut args = vec!["new-game".to_string(), "--scenario".into(), scenario.into()];
    for s in &sides {
        args.extend(["--seat".into(), format!("{s}={s}@example.org")]);
    }
    args.extend(["--observer".into(), "observer@example.org".into()]);
    if kriegspiel {
        args.extend([
            "--kriegspiel".into(),
            "--referee".into(),
            "referee@example.org".into(),
        ]);
    }
    // A game that opens with a phase of the judge's own (Maleme's drop)
    // plays it at `new-game`: its seed from this test's seed too
    // (`ADJUTANT_SEED`, read by development builds only), so that every run
    // plays the same game (a mail 17 bytes over its bound was found in one
    // run of such a game and not in the next).
    let out = site
        .command(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .env("ADJUTANT_SEED", format!("presentation-{seed}"))
        .output()
        .unwrap();
    if !out.status.success() {
        assert!(
            kriegspiel,
            "{scenario}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    // The game's own dice from this test's seed (as the golden corpus does),
    // so that a run plays the same games every time: a fault found is found
    // again. A game that opens with a phase of the judge's own keeps the
    // seed `ADJUTANT_SEED` gave it above.
    let turn: u32 = site
        .db()
        .query_row("SELECT turn FROM games WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    if turn == 0 {
        let master = crate::common::seed_from(&[seed, 56]);
        crate::golden::exports::reseed(&site.db(), 1, &master);
    }
    let saved = site.path().join("saved-position");
    let (events, last) = match picture {
        "png" => (play_until_busy_then_png(&site, seed), Vec::new()),
        _ if sized => play_until_busy(&site, seed, |s| save_position(s, &saved)),
        _ => play_until_busy(&site, seed, |_| {}),
    };
    let mut kinds = std::collections::BTreeMap::new();
    for k in events.iter().filter_map(event_kind) {
        *kinds.entry(k).or_insert(0) += 1;
    }
    let turn = last_turn(&site).0;
    let what = format!(
        "{scenario}{}",
        if kriegspiel { " (kriegspiel)" } else { "" }
    );
    let mut seen = Vec::new();
    let mut plain = Vec::new();
    let mut last_texts = Vec::new();
    for (name, raw) in site.outbox() {
        let msg = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .expect("a mail");
        plain.push((
            format!("{what}: {name} ({})", msg.subject().unwrap_or("")),
            msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
        ));
        let subject = msg.subject().unwrap_or("");
        let to = crate::common::first_to(&msg).to_string();
        // The reports of the last turn (a turn report's subject names it:
        // "Game 1: turn N ..." or "move N").
        let html = msg.body_html(0).map(|h| h.into_owned()).unwrap_or_default();
        let of_last =
            subject.contains(&format!(" {turn} ")) || subject.ends_with(&format!(" {turn}"));
        // To screenshot every report of the turn (issue 53 item 4):
        // PRESENTATION_SHOTS=DIR keeps each as DIR/scenario-viewer.eml.
        if let (true, Ok(dir)) = (of_last, std::env::var("PRESENTATION_SHOTS")) {
            let viewer = to.split('@').next().unwrap();
            let stem = name.trim_end_matches(".eml");
            let _ = std::fs::write(format!("{dir}/{scenario}-{viewer}-{stem}.eml"), &raw);
        }
        if of_last {
            last_texts.push(last_text(&msg, &to));
        }
        if of_last && html.contains("<svg") {
            let viewer = to.split('@').next().unwrap().to_string();
            let json = msg
                .attachments()
                .find(|a| a.attachment_name() == Some("view.json"))
                .and_then(|a| serde_json::from_slice(a.contents()).ok())
                .unwrap_or_default();
            seen.push(Seen {
                what: format!("{what} as {viewer} ({subject})"),
                viewer,
                svgs: svgs(&html),
                html,
                json,
            });
        }
    }
    if sized && !last.is_empty() {
        // The busy turn again, with the shipped PNG: its mails' sizes, and
        // what they carry (the referee's desk goes as desk.txt with a PNG).
        restore_position(&site, &saved);
        std::fs::write(site.config(), &shipped).unwrap();
        let file = site.path().join("orders.txt");
        for (side, text) in &last {
            std::fs::write(&file, text).unwrap();
            site.ok(&["submit", "1", side, file.to_str().unwrap()]);
        }
        let again = last_turn(&site).1;
        assert_eq!(again, events, "{what}: the busy turn played again");
        last_texts = site
            .outbox()
            .into_iter()
            .filter(|(_, raw)| raw.contains("image/png"))
            .filter_map(|(_, raw)| {
                let msg = mail_parser::MessageParser::default().parse(raw.as_bytes())?;
                let subject = msg.subject().unwrap_or("");
                let of_last = subject.contains(&format!(" {turn} "))
                    || subject.ends_with(&format!(" {turn}"));
                let to = crate::common::first_to(&msg).to_string();
                of_last.then(|| last_text(&msg, &to))
            })
            .collect();
    }
    let file = format!("{scenario}-{kriegspiel}-{seed}");
    let (largest, largest_referee) = largest_mails(&site, &what, &file, turn);
    Some(Busy {
        scenario: scenario.to_string(),
        kriegspiel,
        sides,
        kinds,
        seen,
        plain,
        largest,
        largest_referee,
        last_texts,
    })
}

/// A mail's reader and everything it can read as text: the text part and
/// each text attachment (the referee's desk.txt).
fn last_text(msg: &mail_parser::Message<'_>, to: &str) -> (String, String) {
    let mut all = msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default();
    for a in msg.attachments() {
        if a.is_text() {
            all.push_str(&String::from_utf8_lossy(a.contents()));
        }
    }
    (to.split('@').next().unwrap().to_string(), all)
}

/// A box: (left, top, right, bottom).
type Box4 = (f64, f64, f64, f64);

fn overlap(a: Box4, b: Box4) -> f64 {
    let w = a.2.min(b.2) - a.0.max(b.0);
    let h = a.3.min(b.3) - a.1.max(b.1);
    if w > 0.0 && h > 0.0 {
        w.min(h)
    } else {
        0.0
    }
}

/// A unit's outline: its polygon's points, or its rectangle's corners, or
/// the `#u` symbol (28x18, centred) it uses.
fn outline(g: &str) -> Vec<(f64, f64)> {
    let (sx, sy) = shift(g);
    if let Some(p) = attr(g, "points") {
        return p
            .split_whitespace()
            .filter_map(|xy| {
                let (x, y) = xy.split_once(',')?;
                Some((sx + x.parse::<f64>().ok()?, sy + y.parse::<f64>().ok()?))
            })
            .collect();
    }
    let (x, y, w, h) = if let Some(r) = g.split("<rect").nth(1) {
        (num(r, "x"), num(r, "y"), num(r, "width"), num(r, "height"))
    } else if let Some(u) = g.split("<use").nth(1) {
        (num(u, "x") - 14.0, num(u, "y") - 9.0, 28.0, 18.0)
    } else {
        return Vec::new();
    };
    let (x, y) = (sx + x, sy + y);
    vec![(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
}

/// Whether a box and a convex outline overlap by more than a pixel
/// (separating axes: the box's two and the outline's edges' normals).
fn hits(b: Box4, poly: &[(f64, f64)]) -> bool {
    if poly.len() < 3 {
        return false;
    }
    let corners = [(b.0, b.1), (b.2, b.1), (b.2, b.3), (b.0, b.3)];
    let mut axes = vec![(1.0, 0.0), (0.0, 1.0)];
    for i in 0..poly.len() {
        let (a, c) = (poly[i], poly[(i + 1) % poly.len()]);
        axes.push((a.1 - c.1, c.0 - a.0));
    }
    axes.iter().all(|&(ax, ay)| {
        let l = (ax * ax + ay * ay).sqrt();
        if l == 0.0 {
            return true;
        }
        let proj = |p: &(f64, f64)| (p.0 * ax + p.1 * ay) / l;
        let (a0, a1) = corners
            .iter()
            .map(proj)
            .fold((f64::MAX, f64::MIN), |m, v| (m.0.min(v), m.1.max(v)));
        let (b0, b1) = poly
            .iter()
            .map(proj)
            .fold((f64::MAX, f64::MIN), |m, v| (m.0.min(v), m.1.max(v)));
        a1.min(b1) - a0.max(b0) > 1.0
    })
}

/// A label's box, its text and the index of its unit.
type Label = (Box4, String, usize);

/// Every unit's label box and every unit's parts, measured on the picture
/// as the judge draws it: the SVG laid out by the rasteriser's own parser
/// with the embedded fonts (`adjutant_picture::parse`), each label's box
/// the ink of its glyphs (an estimate from the number of characters, 0.6 em
/// each, was a third too small for the grid games' bold `M2` and let labels
/// run into their neighbours unseen). A unit's parts: its outline (the
/// polygon, rectangle or frame), and the boxes of its symbol and its
/// strength's pips or bar, which may reach beyond the outline (a small
/// measured unit's symbol sits at its centre, wider than the unit).
/// A unit's parts: each a convex outline.
type Parts = Vec<Vec<(f64, f64)>>;

fn label_boxes(svg: &str) -> (Vec<Label>, Vec<Parts>) {
    let mut marked = String::with_capacity(svg.len() + 4096);
    let mut chunks = svg.split("<g class=\"unit\"");
    marked.push_str(chunks.next().unwrap_or(""));
    let mut outlines = Vec::new();
    let mut texts = Vec::new();
    for (i, chunk) in chunks.enumerate() {
        let el = element(chunk);
        outlines.push(outline(el.split("</g>").next().unwrap()));
        texts.push(el.split("<text").nth(1).map(|t| {
            t.split('>')
                .nth(1)
                .unwrap_or("")
                .split('<')
                .next()
                .unwrap()
                .to_string()
        }));
        let el = el
            .replacen("<text", &format!("<text id=\"adj-t-{i}\""), 1)
            .replacen(
                "<g class=\"strength\"",
                &format!("<g id=\"adj-s-{i}\" class=\"strength\""),
                1,
            )
            .replacen(
                "<g class=\"symbol\"",
                &format!("<g id=\"adj-y-{i}\" class=\"symbol\""),
                1,
            );
        marked.push_str("<g class=\"unit\"");
        marked.push_str(&el);
        marked.push_str(&chunk[element(chunk).len()..]);
    }
    let tree = adjutant_picture::parse(&marked).expect("the picture parses");
    let rect = |id: &str| {
        tree.node_by_id(id).map(|n| {
            let r = match n {
                resvg::usvg::Node::Text(t) => t.flattened().abs_bounding_box(),
                n => n.abs_bounding_box(),
            };
            (
                f64::from(r.left()),
                f64::from(r.top()),
                f64::from(r.right()),
                f64::from(r.bottom()),
            )
        })
    };
    let corners = |b: Box4| vec![(b.0, b.1), (b.2, b.1), (b.2, b.3), (b.0, b.3)];
    let mut labels = Vec::new();
    let mut units = Vec::new();
    for (i, (o, text)) in outlines.into_iter().zip(texts).enumerate() {
        let mut parts = vec![o];
        for part in [format!("adj-s-{i}"), format!("adj-y-{i}")] {
            parts.extend(rect(&part).map(corners));
        }
        units.push(parts);
        if let (Some(text), Some(b)) = (text, rect(&format!("adj-t-{i}"))) {
            labels.push((b, text, i));
        }
    }
    (labels, units)
}

#[test]
fn after_a_busy_turn_every_label_is_inside_the_picture_and_clear_of_the_others() {
    let mut bad = Vec::new();
    let mut labels_checked = 0;
    for game in busy_games() {
        for s in &game.seen {
            for svg in &s.svgs {
                let head = svg.split('>').next().unwrap();
                let (w, h) = (num(head, "width"), num(head, "height"));
                let (labels, units) = label_boxes(svg);
                for (i, (b, t, own)) in labels.iter().enumerate() {
                    labels_checked += 1;
                    if b.0 < -0.5 || b.1 < -0.5 || b.2 > w + 0.5 || b.3 > h + 0.5 {
                        bad.push(format!(
                            "{}: the label {t} {b:?} is outside {w}x{h}",
                            s.what
                        ));
                    }
                    for (c, u, _) in &labels[i + 1..] {
                        if overlap(*b, *c) > 1.0 {
                            bad.push(format!("{}: the labels {t} and {u} overlap", s.what));
                        }
                    }
                    for (j, parts) in units.iter().enumerate() {
                        if j != *own && parts.iter().any(|p| hits(*b, p)) {
                            bad.push(format!("{}: the label {t} covers unit #{j}", s.what));
                        }
                    }
                }
            }
        }
    }
    assert!(labels_checked > 500, "only {labels_checked} labels checked");
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn after_a_busy_turn_every_seat_sees_its_own_edge_a_legend_and_the_turn_drawn() {
    let mut bad = Vec::new();
    let mut arrows_seen = std::collections::BTreeMap::new();
    let mut viewers = std::collections::BTreeSet::new();
    for game in busy_games() {
        let mut who: Vec<&str> = game.sides.iter().map(String::as_str).collect();
        who.push("observer");
        if game.kriegspiel {
            who.push("referee");
        }
        for w in &who {
            if !game.seen.iter().any(|s| s.viewer == *w) {
                bad.push(format!(
                    "{} (kriegspiel {}): no turn report with a picture to {w}",
                    game.scenario, game.kriegspiel
                ));
            }
        }
        for s in &game.seen {
            viewers.insert(if game.sides.contains(&s.viewer) {
                "side".to_string()
            } else {
                s.viewer.clone()
            });
            if let Some(side) = game.sides.iter().find(|x| **x == s.viewer) {
                if !(s
                    .html
                    .contains(&format!("Seen from the {} edge", cap(side)))
                    || s.html.contains(&format!("Seen from the {side} edge")))
                {
                    bad.push(format!(
                        "{}: the caption does not name the {side} edge",
                        s.what
                    ));
                }
                let d = drawn(&s.svgs[0]);
                let mean = |mine: bool| {
                    let ys: Vec<f64> = d
                        .units
                        .iter()
                        .filter(|(x, _)| (x == side) == mine)
                        .map(|(_, y)| *y)
                        .collect();
                    ys.iter().sum::<f64>() / ys.len().max(1) as f64
                };
                if !game.kriegspiel && mean(true) <= mean(false) {
                    bad.push(format!("{}: own units not nearer the bottom", s.what));
                }
            } else if !s.html.contains(" edge") {
                bad.push(format!("{}: the caption names no edge", s.what));
            }
            for svg in &s.svgs {
                if svg.matches("class=\"legend\"").count() == 0 {
                    bad.push(format!("{}: no legend", s.what));
                }
                // The legend shows the arrows of last turn (issue 53 item
                // 3: Memoir '44's had none, only the caption's words).
                let legend = &svg[svg.find("class=\"legend\"").unwrap_or(0)..];
                if !legend.contains(">move</text>") {
                    bad.push(format!("{}: the legend shows no move arrow", s.what));
                }
                // The alt text names the scenario's turn and the seat
                // (docs/reports.md).
                let label = attr(svg.split('>').next().unwrap(), "aria-label").unwrap_or_default();
                if !(label.contains(", turn ") || label.contains(", move "))
                    || !label.contains(" edge")
                {
                    bad.push(format!(
                        "{}: the alt text {label:?} names no turn or edge",
                        s.what
                    ));
                }
            }
            // Every move, fire and retreat of the turn, drawn with an
            // arrowhead: for every viewer of an open game, for the referee
            // of a Kriegspiel game (a side sees only some, an observer
            // what the public sees: none).
            if game.kriegspiel && s.viewer != "referee" {
                continue;
            }
            let svg = s.svgs.join("\n");
            for (kind, n) in &game.kinds {
                let words: &[&str] = match *kind {
                    "fire" => &["fire", "battle"],
                    k => &[if k == "move" { "move" } else { "retreat" }],
                };
                let arrows = svg
                    .split('<')
                    .filter(|t| {
                        attr(t, "class").is_some_and(|c| c.split(' ').any(|w| words.contains(&w)))
                            && t.contains("marker-end=")
                    })
                    .count();
                if arrows == 0 {
                    bad.push(format!(
                        "{}: {n} {kind} event(s), no {kind} arrow with a head",
                        s.what
                    ));
                } else {
                    *arrows_seen.entry(*kind).or_insert(0) += 1;
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
    for kind in ["move", "fire", "retreat"] {
        assert!(
            arrows_seen.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} drawn: {arrows_seen:?}"
        );
    }
    assert!(viewers.len() >= 3, "viewers: {viewers:?}");
}

/// The unit symbols (issue 53): every unit (and Memoir '44's wagons) on
/// every family's board, from every seat, drawn as the conventional
/// symbol of its kind, a frame (`#u` / `#f`) holding the kind's mark
/// (`#k-inf`, defined once in the `<defs>`), and the legend naming each
/// kind drawn with its symbol.
#[test]
fn after_a_busy_turn_every_unit_is_drawn_as_the_symbol_of_its_kind_named_in_the_legend() {
    let mut bad = Vec::new();
    let mut units = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for game in busy_games() {
        for s in &game.seen {
            for svg in &s.svgs {
                let defs = svg.split("</defs>").next().unwrap_or("");
                let mut shown = std::collections::BTreeSet::new();
                let groups = svg
                    .split("<g class=\"unit\"")
                    .skip(1)
                    .chain(svg.split("<g class=\"wagon\"").skip(1));
                for g in groups {
                    units += 1;
                    let g = g.split("</g>").next().unwrap();
                    let what = format!("{}: unit {}", s.what, &g[..g.len().min(120)]);
                    let Some(kind) = attr(g, "data-kind") else {
                        bad.push(format!("{what}: no kind"));
                        continue;
                    };
                    if kind == "unk" || kind.is_empty() {
                        bad.push(format!("{what}: a kind no symbol knows"));
                    }
                    if !(g.contains("<use href=\"#u\"") || g.contains("<use href=\"#f\"")) {
                        bad.push(format!("{what}: no frame"));
                    }
                    if !g.contains(&format!("<use href=\"#k-{kind}\"")) {
                        bad.push(format!("{what}: no {kind} mark"));
                    }
                    if defs.matches(&format!("id=\"k-{kind}\"")).count() != 1 {
                        bad.push(format!("{what}: the {kind} mark is not defined once"));
                    }
                    // Memoir '44 names the unit type: its symbol is its class's.
                    if let Some(t) = g.split("<title>").nth(1) {
                        let t = t.split('<').next().unwrap_or("");
                        for (word, want) in [
                            (" infantry (", "inf"),
                            (" medium-armour (", "arm"),
                            (" heavy-armour (", "arm"),
                            ("-artillery (", "art"),
                            (" cavalry (", "cav"),
                        ] {
                            if t.contains(word) && kind != want {
                                bad.push(format!("{what}: {t:?} drawn as {kind}"));
                            }
                        }
                    }
                    shown.insert(kind);
                }
                for kind in &shown {
                    let Some(l) = svg.split(&format!("data-legend=\"kind-{kind}\"")).nth(1) else {
                        bad.push(format!("{}: the legend does not name {kind}", s.what));
                        continue;
                    };
                    let l = l.split("</text>").next().unwrap_or("");
                    let name = l.rsplit('>').next().unwrap_or("").trim();
                    if !l.contains(&format!("href=\"#k-{kind}\"")) || name.is_empty() {
                        bad.push(format!(
                            "{}: the legend's {kind} has no symbol or name",
                            s.what
                        ));
                    }
                }
                kinds.extend(shown);
            }
        }
    }
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
    assert!(units > 1000, "only {units} units checked");
    for k in ["inf", "cav", "art", "arm", "cmd"] {
        assert!(kinds.contains(k), "no {k} drawn: {kinds:?}");
    }
}

#[test]
fn after_a_busy_turn_every_plain_line_fits_78_columns_and_every_reply_line_72() {
    let mut bad = Vec::new();
    let mut mails = 0;
    for game in busy_games() {
        for (what, text) in &game.plain {
            mails += 1;
            for line in text.lines() {
                let n = line.chars().count();
                if n > 78 {
                    bad.push(format!("{what}: {n} columns: {line}"));
                }
                // Players have the mails, not the distribution's docs/
                // (issue 53, item 8): HELP is where a mail points.
                if line.contains("docs/") {
                    bad.push(format!("{what}: points at the docs: {line}"));
                }
            }
            let lines: Vec<&str> = text.lines().collect();
            if let Some(start) = lines.iter().position(|l| l.starts_with("TURN ")) {
                for line in lines[start..]
                    .iter()
                    .take_while(|l| !l.starts_with("State ") && !l.starts_with("Dice of turn"))
                {
                    if line.chars().count() > 72 {
                        bad.push(format!(
                            "{what}: a reply line of {}: {line}",
                            line.chars().count()
                        ));
                    }
                }
            }
        }
    }
    assert!(mails > 100, "only {mails} mails");
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

/// Acceptance 3: every shipped scenario's largest report mail after a
/// busy turn (moves, fire, retreats or a melee), with the host's default
/// picture (PNG), is under 80 KB.
///
/// It failed on Minden alone (116 KB after a turn of nine moves: the
/// 1440-pixel PNG 46 KB, 64 KB as base64, view.json 26 KB indented);
/// `PRESENTATION_DUMP=DIR` keeps each scenario's largest mail to look at.
/// It plays the shared busy games (seed i) rather than games of its own
/// (seed i + 100, which all passed): then it failed on Minden's seed 12
/// (turn 20, ten moves), an 84,999-byte mail to the allied player.
#[test]
fn after_a_busy_turn_every_report_mail_is_under_80_kb() {
    /// The referee's copy's bound, the players' (it was 90 KB: see below).
    const REFEREE_COPY_BOUND: usize = 80 * 1024;
    let (mut bad, mut lost) = (Vec::new(), Vec::new());
    let (mut checked, mut referees) = (0, 0);
    // The shared busy games (each scenario openly and, where the family
    // has one, as a Kriegspiel game), their busy turn played again with
    // the shipped PNG for the sizes. The referee's copy of a Kriegspiel
    // game (the referee's board and each side's) is a report too: it once
    // carried three PNGs, 178 KB.
    for game in busy_games() {
        let scenario = &game.scenario;
        referees += usize::from(game.kriegspiel);
        {
            let (size, name) = &game.largest;
            eprintln!("SIZE {name}: {size} bytes ({:?})", game.kinds);
            assert!(
                *size > 10_000,
                "{scenario}: no report mail of the last turn"
            );
            checked += 1;
            if *size >= 80 * 1024 {
                bad.push(format!("{name}: {size} bytes"));
            }
            // The referee's copy carries the referee's board and each
            // side's map (one picture a mail: it carried three PNGs,
            // 178 KB); with each side's map in the text and again in the
            // HTML part's copy of it four were 83-87 KB. The desk now goes
            // once, as desk.txt: every referee's copy is held to 80 KB too,
            // and every side's map must still reach the referee.
            let (size, name) = &game.largest_referee;
            if game.kriegspiel {
                lost.extend(desk_lost(game));
                eprintln!("SIZE {name}: {size} bytes (referee's copy)");
                assert!(*size > 10_000, "{scenario}: no referee's copy");
                if *size >= REFEREE_COPY_BOUND {
                    bad.push(format!("{name}: {size} bytes (referee's copy)"));
                }
            }
        }
    }
    assert!(checked >= 13 + 4, "only {checked} games");
    assert!(referees >= 4, "only {referees} Kriegspiel games");
    assert!(lost.is_empty(), "{}", lost.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// What a Kriegspiel referee's mails of the last turn lost of what each
/// side was shown: each side's map (from its title line to the line that
/// says which edge it is seen from) as the side's own report drew it must
/// be in the referee's mail (text or a text attachment) under
/// `WHAT <SIDE> SEES` (issue 53, acceptance 3: the desk leaves the HTML
/// part to keep the mail under 80 KB, and must not be lost on the way).
fn desk_lost(game: &Busy) -> Vec<String> {
    let mut lost = Vec::new();
    let referee: Vec<&String> = game
        .last_texts
        .iter()
        .filter(|(to, _)| to == "referee")
        .map(|(_, t)| t)
        .collect();
    if referee.is_empty() {
        return vec![format!(
            "{}: no referee's copy of the last turn",
            game.scenario
        )];
    }
    for side in &game.sides {
        let Some((_, own)) = game.last_texts.iter().find(|(to, _)| to == side) else {
            lost.push(format!("{}: no report to {side}", game.scenario));
            continue;
        };
        let lines: Vec<&str> = own.lines().collect();
        let Some(seen) = lines.iter().position(|l| l.starts_with("Seen from")) else {
            lost.push(format!("{}: {side}'s report has no map", game.scenario));
            continue;
        };
        let Some(title) = lines[..seen]
            .iter()
            .rposition(|l| l.contains(", after turn "))
        else {
            lost.push(format!("{}: {side}'s map has no title", game.scenario));
            continue;
        };
        let map = lines[title..=seen].join("\n");
        let label = format!("WHAT {} SEES", side.to_uppercase());
        let shown = referee.iter().any(|t| {
            t.split_once(&label)
                .is_some_and(|(_, after)| after.replace("\r\n", "\n").contains(&map))
        });
        if !shown {
            lost.push(format!(
                "{}: the referee's mail does not show {label} as {side} was shown it:\n{map}",
                game.scenario
            ));
        }
    }
    lost
}

/// Issue 53, item 4: a Charge! musket volley is drawn as the other fire
/// is: a red arrow with a head, from the firer's front to the target's.
#[test]
fn a_charge_volley_is_drawn_as_a_fire_arrow() {
    use adjutant::rules::measured::events::Charge;
    use adjutant::rules::{Event, Load, Rules, Viewer};
    let site = Site::new();
    site.new_game(
        "el-bodon-1811",
        &["british=a@example.org", "french=b@example.org"],
        &[],
    );
    let text: String = site
        .db()
        .query_row("SELECT state FROM snapshots", [], |r| r.get(0))
        .unwrap();
    let rules = Rules::load("charge").unwrap();
    let state = rules.restore(&text).unwrap();
    let quiet = rules.report_parts(&state, &[], &Viewer::Referee, None);
    let view: serde_json::Value = serde_json::from_str(&quiet.json).unwrap();
    let units = view["units"].as_array().expect("units");
    let of = |side: i64| -> String {
        units.iter().find(|u| u["side"] == side).expect("a unit")["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let volley = Event::of(Charge::Volley {
        unit: of(0),
        target: of(1),
        firers: 4,
        per: 1,
        range: Some(60),
        text: None,
        band_to: 0,
        first: true,
        cover: false,
        deduct: 0,
        dice: Vec::new(),
        killed: 1,
    });
    let fire = |svg: &str| {
        svg.split('<')
            .filter(|t| {
                attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == "fire"))
                    && t.contains("marker-end=")
            })
            .count()
    };
    assert_eq!(fire(&quiet.svg), 0);
    let svg = rules
        .report_parts(&state, &[volley], &Viewer::Referee, None)
        .svg;
    assert_eq!(fire(&svg), 1, "the volley's arrow:\n{svg}");
}

/// Issue 53 item 4, the screenshots: one game of each family played to a
/// busy turn with the shipped picture (PNG; Memoir '44 as a Kriegspiel
/// game, for the referee's report too), each report mail of that turn kept
/// in `PRESENTATION_SHOTS` (a directory) for scripts/report-shots.py to
/// open in Chromium. Ignored: run it by name with the variable set.
#[test]
#[ignore = "writes report mails for screenshots: set PRESENTATION_SHOTS=DIR"]
fn report_mails_of_every_family_for_screenshots() {
    let dir = std::env::var("PRESENTATION_SHOTS").expect("PRESENTATION_SHOTS=DIR");
    std::fs::create_dir_all(&dir).unwrap();
    // The seeds: a turn with moves and fire (and retreats where the
    // family has them) in each.
    for (scenario, kriegspiel, seed) in [
        ("pegasus-bridge", true, 7),
        ("le-cateau-1914", false, 8),
        ("villers-bocage-1944", false, 7),
        ("el-bodon-1811", false, 3),
        ("fuentes-de-onoro-1811", false, 3),
        ("minden-1759", false, 7),
    ] {
        let game = busy_game(scenario, kriegspiel, seed, "png").expect("a game");
        eprintln!("{scenario}: the busy turn {:?}", game.kinds);
    }
}

/// Issue 53 item 4 (seen in the screenshots of Pegasus Bridge): each
/// arrow of the last turn ends where its head shows, not under the unit
/// frame it points at (a move's head drawn at the hex's centre was covered
/// by the unit that moved there). Checked on the SVG's geometry: the tip of
/// every arrow (a line's or polyline's last point with `marker-end`) is
/// outside every unit's frame.
#[test]
fn after_a_busy_turn_no_arrowhead_hides_under_a_unit() {
    let mut arrows = 0;
    let mut bad = Vec::new();
    // The open games of Pegasus Bridge and Le Cateau among the busy games
    // (seeds 0 and 8, their places in the list of scenarios).
    let games = busy_games()
        .iter()
        .filter(|g| !g.kriegspiel && ["pegasus-bridge", "le-cateau-1914"].contains(&&*g.scenario));
    for game in games {
        for seen in &game.seen {
            for svg in &seen.svgs {
                let frames: Vec<Vec<(f64, f64)>> = svg
                    .split("<g class=\"unit\"")
                    .skip(1)
                    .map(|g| outline(g.split("</g>").next().unwrap()))
                    .collect();
                for t in svg.split('<').filter(|t| t.contains("marker-end=")) {
                    let (sx, sy) = shift(t);
                    let tip = if let Some(p) = attr(t, "points") {
                        let last = p.split_whitespace().last().unwrap().to_string();
                        let (x, y) = last.split_once(',').unwrap();
                        (
                            sx + x.parse::<f64>().unwrap(),
                            sy + y.parse::<f64>().unwrap(),
                        )
                    } else {
                        (sx + num(t, "x2"), sy + num(t, "y2"))
                    };
                    arrows += 1;
                    let b = (tip.0 - 2.0, tip.1 - 2.0, tip.0 + 2.0, tip.1 + 2.0);
                    if frames.iter().any(|f| hits(b, f)) {
                        bad.push(format!("{}: the arrow {t:?} ends under a unit", seen.what));
                    }
                }
            }
        }
    }
    assert!(arrows > 0, "no arrows drawn");
    assert!(
        bad.is_empty(),
        "{} of {arrows}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The element that starts at `g` (just after its `<g`), through the `</g>`
/// that closes it (nested groups counted).
fn element(g: &str) -> &str {
    let mut depth = 1;
    let mut i = 0;
    while i < g.len() {
        let rest = &g[i..];
        if rest.starts_with("</g>") {
            depth -= 1;
            if depth == 0 {
                return &g[..i + 4];
            }
            i += 4;
        } else if rest.starts_with("<g ") || rest.starts_with("<g>") {
            depth += 1;
            i += 2;
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    g
}

/// Every unit of a view.json, whatever its family: (where it is or its id,
/// its side, its strength, its strength at the start): Memoir '44's
/// figures, the grid games' strength, the measured games' rank and file.
fn view_strengths(v: &serde_json::Value) -> Vec<(String, String, u64, u64)> {
    let s = |x: &serde_json::Value| x.as_str().unwrap_or("").to_string();
    let n = |x: &serde_json::Value| x.as_u64().unwrap_or(u64::MAX);
    let mut out = Vec::new();
    for u in v["units"].as_array().into_iter().flatten() {
        out.push(if u.get("figures").is_some() {
            (s(&u["at"]), s(&u["side"]), n(&u["figures"]), n(&u["start"]))
        } else if u.get("strength").is_some() {
            (s(&u["at"]), s(&u["side"]), n(&u["strength"]), n(&u["max"]))
        } else {
            let side = u["side"].as_u64().unwrap_or(9) as usize;
            (
                s(&u["id"]),
                s(&v["sides"][side]),
                n(&u["rf"]),
                n(&u["start_rf"]),
            )
        });
    }
    out.sort();
    out
}

/// One unit's strength as its picture draws it (issue 53, the strength at
/// a glance): (where or id, side, strength, start), read from the
/// `<g class="strength" data-strength data-max>` in its group and checked
/// against what is drawn there: Memoir '44's and the grid games' pips (one
/// filled square a figure or step left, one hollow a lost one), the
/// measured games' bar (its filled part the share of rank and file left),
/// and the number in the unit's label. `Err` says what is wrong.
fn drawn_strength(g: &str) -> Result<(String, String, u64, u64), String> {
    let key = attr(g, "data-hex")
        .or_else(|| attr(g, "data-area"))
        .or_else(|| attr(g, "data-id"))
        .ok_or("no data-hex, data-area or data-id")?;
    let side = attr(g, "data-side").ok_or("no side")?;
    let tag = g
        .split("<g class=\"strength\"")
        .nth(1)
        .ok_or("no strength drawn (no <g class=\"strength\">)")?;
    let head = tag.split('>').next().unwrap_or("");
    let (n, max) = (num(head, "data-strength"), num(head, "data-max"));
    if !(n >= 0.0 && max >= n) {
        return Err(format!("strength {n} of {max}"));
    }
    let body = element(tag);
    let pips = |class: &str| {
        body.split('<')
            .filter(|t| attr(t, "class").as_deref() == Some(class))
            .map(|t| attr(t, "d").unwrap_or_default().matches('M').count())
            .sum::<usize>() as f64
    };
    let bars: Vec<&str> = body
        .split('<')
        .filter(|t| attr(t, "class").is_some_and(|c| c.starts_with("bar")))
        .collect();
    if !bars.is_empty() {
        let width = |class: &str| {
            bars.iter()
                .find(|t| attr(t, "class").as_deref() == Some(class))
                .map_or(0.0, |t| num(t, "width"))
        };
        let (whole, left) = (width("bar"), width("bar left"));
        if whole <= 0.0 || (left / whole - n / max.max(1.0)).abs() > 0.02 {
            return Err(format!("the bar shows {left} of {whole} for {n} of {max}"));
        }
    } else if pips("pip") != n || pips("pip lost") != max - n {
        return Err(format!(
            "{} filled and {} hollow pips for {n} of {max}",
            pips("pip"),
            pips("pip lost")
        ));
    }
    // The number in the label (`I4`, `KGL 23`): the text map's.
    if let Some(t) = g.split("<text").nth(1) {
        let text = t.split('>').nth(1).unwrap_or("").split('<').next().unwrap();
        let digits: String = text
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if digits.parse::<f64>().ok() != Some(n) {
            return Err(format!("the label {text:?} for strength {n}"));
        }
    }
    Ok((key, side, n as u64, max as u64))
}

/// Issue 53, the strength at a glance: on every family's board, every
/// shipped scenario, from both seats, the observer and the referee, after a
/// busy turn, every unit's strength is drawn (pips or a bar, read from the
/// SVG's markup) and equals its strength in the mail's view.json (and the
/// number its label and the text map print); the legend explains it.
#[test]
fn after_a_busy_turn_every_units_strength_drawn_equals_its_strength_in_view_json() {
    let mut bad = Vec::new();
    let (mut units, mut families) = (0, std::collections::BTreeSet::new());
    for game in busy_games() {
        for s in &game.seen {
            if s.json.is_null() {
                bad.push(format!("{}: no view.json", s.what));
                continue;
            }
            // A Kriegspiel observer sees no unit: nor does its picture.
            let want = view_strengths(&s.json);
            for (i, svg) in s.svgs.iter().enumerate() {
                let mut got = Vec::new();
                for g in svg.split("<g class=\"unit\"").skip(1) {
                    units += 1;
                    match drawn_strength(element(g)) {
                        Ok(u) => got.push(u),
                        Err(e) => bad.push(format!(
                            "{} (board {}): {e}: {}",
                            s.what,
                            i + 1,
                            &g[..g.len().min(160)]
                        )),
                    }
                }
                got.sort();
                // The referee's desk draws each side's board after its own:
                // those show some of the referee's units.
                let fits = if i == 0 {
                    got == want
                } else {
                    got.iter().all(|u| want.contains(u))
                };
                if !fits {
                    bad.push(format!(
                        "{} (board {}): drawn {got:?}\n  view.json {want:?}",
                        s.what,
                        i + 1
                    ));
                }
                if !svg.contains("data-legend=\"strength\"") {
                    bad.push(format!(
                        "{} (board {}): no legend of the strength",
                        s.what,
                        i + 1
                    ));
                }
                families.insert(s.json["family"].as_str().unwrap_or("memoir44").to_string());
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} faults:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(units > 1000, "only {units} units checked");
    assert!(families.len() >= 3, "families: {families:?}");
}

/// Issue 53 (the measured games' text map): the sketch of the table is
/// drawn from the reader's edge, as the picture above it is: the second
/// side's is the first side's turned round (rows and columns), and its
/// caption names the second side's edge at the bottom.
#[test]
fn the_measured_text_map_is_turned_to_the_readers_edge() {
    let site = Site::new();
    let mut game = 0;
    for scenario in ["el-bodon-1811", "minden-1759"] {
        let sides = sides(&site, scenario);
        let seats: Vec<String> = sides
            .iter()
            .map(|s| format!("{s}={s}@example.org"))
            .collect();
        site.new_game(
            scenario,
            &seats.iter().map(String::as_str).collect::<Vec<_>>(),
            &[],
        );
        game += 1;
        let id = game.to_string();
        let sketch = |side: &str| -> (Vec<String>, String) {
            let text = site.ok(&["show", &id, "--as", side, "--format", "text"]);
            let rows = text
                .lines()
                .filter(|l| l.len() > 2 && l.starts_with('|') && l.ends_with('|'))
                .map(str::to_string)
                .collect();
            let caption = text
                .lines()
                .find(|l| l.contains("edge at the bottom"))
                .unwrap_or_else(|| panic!("{scenario} as {side}: no caption:\n{text}"))
                .to_string();
            (rows, caption)
        };
        let (first, c0) = sketch(&sides[0]);
        let (second, c1) = sketch(&sides[1]);
        assert!(first.len() > 5, "{scenario}: no sketch");
        let turned: Vec<String> = first
            .iter()
            .rev()
            .map(|l| l.chars().rev().collect())
            .collect();
        assert_eq!(
            second, turned,
            "{scenario}: the {} sketch is not turned",
            sides[1]
        );
        assert!(
            c0.contains(&format!("{} edge at the bottom", sides[0])),
            "{c0}"
        );
        assert!(
            c1.contains(&format!("{} edge at the bottom", sides[1])),
            "{c1}"
        );
    }
}

/// Issue 53 item 2, what the label test above does not see: the overlaps
/// seen in the screenshots (Villers-Bocage's `M2` under the head of a move
/// that left its area, Minden's `HANBAT 6` over the name of Bergen) are a
/// unit's label under an arrowhead of last turn or over a terrain name, not
/// over another label or unit. Measured as that test does (the glyphs' ink
/// through the rasteriser's parser), every arrowhead (4 units round its
/// tip) and every measured terrain name against every unit label. Found 98
/// faults before Memoir '44's arrows stopped short of a unit's whole box
/// and the measured labels kept clear of arrowheads and names.
#[test]
fn after_a_busy_turn_no_label_lies_under_an_arrowhead_or_a_terrain_name() {
    let mut bad = Vec::new();
    let mut checked = 0;
    let (mut planted_head, mut planted_name) = (false, false);
    for game in busy_games() {
        for s in &game.seen {
            for svg in &s.svgs {
                let (labels, found) = labels_under_heads_or_names(svg);
                checked += labels.len();
                bad.extend(found.into_iter().map(|f| format!("{}: {f}", s.what)));
                // The check's own check: an arrowhead planted on the first
                // label of each family's picture, and a terrain name on a
                // measured one's, must be found.
                let Some((b, t, _)) = labels.first() else {
                    continue;
                };
                let (x, y) = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
                // Above the legend, where the arrows of the turn are.
                let end = svg
                    .find("class=\"legend\"")
                    .and_then(|l| svg[..l].rfind('<'))
                    .or_else(|| svg.rfind("</svg>"))
                    .expect("an svg");
                let plant = |what: &str| format!("{}{what}{}", &svg[..end], &svg[end..]);
                let head = plant(&format!(
                    r#"<line x1="{}" y1="{}" x2="{x}" y2="{y}" marker-end="url(#x)"/>"#,
                    x + 40.0,
                    y + 40.0
                ));
                let found = labels_under_heads_or_names(&head).1;
                assert!(
                    found
                        .iter()
                        .any(|f| f.contains(&format!("label {t} under the arrowhead"))),
                    "{}: an arrowhead planted on {t} at ({x}, {y}) is not found: {found:?}",
                    s.what
                );
                planted_head = true;
                if svg.contains("<text class=\"name\"") {
                    let name = plant(&format!(
                        r#"<text class="name" x="{}" y="{}" font-style="italic">planted</text>"#,
                        b.0,
                        b.3 - 1.0
                    ));
                    let found = labels_under_heads_or_names(&name).1;
                    assert!(
                        found
                            .iter()
                            .any(|f| f
                                .contains(&format!("label {t} under the terrain name planted"))),
                        "{}: a terrain name planted on {t} is not found: {found:?}",
                        s.what
                    );
                    planted_name = true;
                }
            }
        }
    }
    assert!(planted_head && planted_name, "nothing planted");
    assert!(checked > 500, "only {checked} labels");
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

/// A picture's unit labels, and each of them under an arrowhead (4 units
/// round the tip of a line or polyline with `marker-end`, above the
/// legend) or a terrain name (`<text class="name">`, its glyphs' ink).
fn labels_under_heads_or_names(svg: &str) -> (Vec<Label>, Vec<String>) {
    let (labels, _) = label_boxes(svg);
    let legend_top = svg.find("class=\"legend\"").unwrap_or(svg.len());
    let mut others: Vec<(Box4, String)> = Vec::new();
    for t in svg[..legend_top]
        .split('<')
        .filter(|t| t.contains("marker-end="))
    {
        let (sx, sy) = shift(t);
        let tip = if let Some(p) = attr(t, "points") {
            let last = p.split_whitespace().last().unwrap_or("0,0").to_string();
            let (x, y) = last.split_once(',').unwrap_or(("0", "0"));
            (
                sx + x.parse::<f64>().unwrap_or(0.0),
                sy + y.parse::<f64>().unwrap_or(0.0),
            )
        } else {
            (sx + num(t, "x2"), sy + num(t, "y2"))
        };
        others.push((
            (tip.0 - 4.0, tip.1 - 4.0, tip.0 + 4.0, tip.1 + 4.0),
            format!("the arrowhead at {tip:?}"),
        ));
    }
    others.extend(
        name_boxes(svg)
            .into_iter()
            .map(|(b, name)| (b, format!("the terrain name {name}"))),
    );
    let mut bad = Vec::new();
    for (b, t, _) in &labels {
        for (o, what) in &others {
            if overlap(*b, *o) > 1.0 {
                bad.push(format!("the label {t} under {what}"));
            }
        }
    }
    (labels, bad)
}

/// The measured tables' terrain names (`<text class="name">`), each its
/// glyphs' ink as the rasteriser's parser lays it out, and its text.
fn name_boxes(svg: &str) -> Vec<(Box4, String)> {
    text_boxes(svg, "name")
}

/// Every `<text class="CLASS">` of a picture, each its glyphs' ink as the
/// rasteriser's parser lays it out, and its text.
fn text_boxes(svg: &str, class: &str) -> Vec<(Box4, String)> {
    let mut marked = String::new();
    let mut names = Vec::new();
    for (k, part) in svg.split(&format!("<text class=\"{class}\"")).enumerate() {
        if k > 0 {
            marked.push_str(&format!("<text id=\"adj-n-{k}\" class=\"{class}\""));
            names.push((
                k,
                part.split('>')
                    .nth(1)
                    .unwrap_or("")
                    .split('<')
                    .next()
                    .unwrap_or("")
                    .to_string(),
            ));
        }
        marked.push_str(part);
    }
    if names.is_empty() {
        return Vec::new();
    }
    let tree = adjutant_picture::parse(&marked).expect("parses");
    let mut out = Vec::new();
    for (k, name) in names {
        if let Some(resvg::usvg::Node::Text(t)) = tree.node_by_id(&format!("adj-n-{k}")) {
            let r = t.flattened().abs_bounding_box();
            out.push((
                (
                    f64::from(r.left()),
                    f64::from(r.top()),
                    f64::from(r.right()),
                    f64::from(r.bottom()),
                ),
                name,
            ));
        }
    }
    out
}

/// Issue 53, names readable: on the measured tables no terrain name lies
/// over another (Fuentes de Oñoro's "lower lane, west house" and "lower
/// lane, east house" began at the corners of two houses 60 units apart
/// and ran 110 units long, one over the other; "the ridge" over "road to
/// Villa Formosa" at the table's top edge). Every measured scenario, from
/// both edges (the names are the board's static layer: the same for every
/// turn from one edge), measured by the glyphs' ink.
#[test]
fn no_terrain_name_lies_over_another() {
    let mut bad = Vec::new();
    let mut names = 0;
    let mut pictures = 0;
    for game in busy_games() {
        for s in &game.seen {
            for svg in &s.svgs {
                let boxes = name_boxes(svg);
                if boxes.is_empty() {
                    continue;
                }
                pictures += 1;
                names += boxes.len();
                for (i, (a, m)) in boxes.iter().enumerate() {
                    for (b, n) in &boxes[i + 1..] {
                        if overlap(*a, *b) > 1.0 {
                            bad.push(format!("{}: the names {m:?} and {n:?} overlap", s.what));
                        }
                    }
                }
            }
        }
    }
    assert!(
        pictures >= 9 && names > 50,
        "{pictures} pictures, {names} names"
    );
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

/// The arrowheads of a picture (above its legend): each line or polyline
/// with `marker-end` gives the triangle its marker draws (the markers'
/// path `M0,0 L10,5 L0,10` in a 10-unit box, `markerWidth` 7, scaled by
/// the stroke's width, `refX` 9: the tip 0.1 of the head beyond the
/// line's end, the base 0.9 before it).
fn arrowheads(svg: &str) -> Vec<(Vec<(f64, f64)>, String)> {
    let legend_top = svg.find("class=\"legend\"").unwrap_or(svg.len());
    let mut out = Vec::new();
    for t in svg[..legend_top]
        .split('<')
        .filter(|t| t.contains("marker-end="))
    {
        let (sx, sy) = shift(t);
        let (a, b) = if let Some(p) = attr(t, "points") {
            let pts: Vec<(f64, f64)> = p
                .split_whitespace()
                .filter_map(|xy| {
                    let (x, y) = xy.split_once(',')?;
                    Some((sx + x.parse::<f64>().ok()?, sy + y.parse::<f64>().ok()?))
                })
                .collect();
            if pts.len() < 2 {
                continue;
            }
            (pts[pts.len() - 2], pts[pts.len() - 1])
        } else {
            (
                (sx + num(t, "x1"), sy + num(t, "y1")),
                (sx + num(t, "x2"), sy + num(t, "y2")),
            )
        };
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let l = (dx * dx + dy * dy).sqrt();
        if l.is_nan() || l <= 0.0 {
            continue;
        }
        let sw = attr(t, "stroke-width")
            .and_then(|w| w.parse().ok())
            .unwrap_or(1.0);
        let s = 0.7 * sw;
        let (ux, uy) = (dx / l, dy / l);
        let tip = (b.0 + ux * s, b.1 + uy * s);
        let base = (b.0 - ux * 9.0 * s, b.1 - uy * 9.0 * s);
        let (nx, ny) = (-uy * 5.0 * s, ux * 5.0 * s);
        out.push((
            vec![tip, (base.0 + nx, base.1 + ny), (base.0 - nx, base.1 - ny)],
            format!("the arrowhead {}", t.split('/').next().unwrap_or(t).trim()),
        ));
    }
    out
}

/// Whether two convex outlines overlap by more than a pixel.
fn outlines_meet(p: &[(f64, f64)], q: &[(f64, f64)]) -> bool {
    let b = q
        .iter()
        .fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |m, v| {
            (m.0.min(v.0), m.1.min(v.1), m.2.max(v.0), m.3.max(v.1))
        });
    // A box's outline is its corners; a triangle's, its own edges too.
    hits(b, p) && {
        let mut axes = Vec::new();
        for s in [p, q] {
            for i in 0..s.len() {
                let (a, c) = (s[i], s[(i + 1) % s.len()]);
                axes.push((a.1 - c.1, c.0 - a.0));
            }
        }
        axes.iter().all(|&(ax, ay)| {
            let l = (ax * ax + ay * ay).sqrt();
            if l == 0.0 {
                return true;
            }
            let span = |s: &[(f64, f64)]| {
                s.iter()
                    .map(|v| (v.0 * ax + v.1 * ay) / l)
                    .fold((f64::MAX, f64::MIN), |m, v| (m.0.min(v), m.1.max(v)))
            };
            let ((a0, a1), (b0, b1)) = (span(p), span(q));
            a1.min(b1) - a0.max(b0) > 1.0
        })
    }
}

/// Every arrowhead of a picture over a unit's label or a part of a unit
/// (its frame, symbol, strength), as the whole triangle the marker draws;
/// over an area's name or terrain code (`<text class="t label">`) or
/// another arrowhead; and every fire arrow's hits (`<text class="hits">`)
/// over a unit's label or a part of a unit.
fn heads_over_units(svg: &str) -> (Vec<Label>, Vec<String>) {
    let (labels, units) = label_boxes(svg);
    let mut bad = Vec::new();
    let heads = arrowheads(svg);
    for (i, (head, what)) in heads.iter().enumerate() {
        for (b, t) in text_boxes(svg, "t label") {
            if hits(b, head) {
                bad.push(format!("{what} over the area name {t}"));
            }
        }
        for (other, w) in &heads[i + 1..] {
            if outlines_meet(head, other) {
                bad.push(format!("{what} over {w}"));
            }
        }
    }
    for (b, t) in text_boxes(svg, "hits") {
        for (l, u, _) in &labels {
            if overlap(b, *l) > 1.0 {
                bad.push(format!("the hits {t:?} over the label {u}"));
            }
        }
        for (j, parts) in units.iter().enumerate() {
            if parts.iter().any(|p| hits(b, p)) {
                bad.push(format!("the hits {t:?} over unit #{j}"));
            }
        }
    }
    for (head, what) in heads {
        for (b, t, _) in &labels {
            if hits(*b, &head) {
                bad.push(format!("{what} over the label {t}"));
            }
        }
        for (j, parts) in units.iter().enumerate() {
            for p in parts {
                let b = p
                    .iter()
                    .fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |m, q| {
                        (m.0.min(q.0), m.1.min(q.1), m.2.max(q.0), m.3.max(q.1))
                    });
                if hits(b, &head) {
                    bad.push(format!("{what} over unit #{j}"));
                    break;
                }
            }
        }
    }
    (labels, bad)
}

/// Issue 53, the grid games' neighbouring moves: in a grid game the boxes
/// of neighbouring units touch, so an arrow between the centres of two
/// neighbouring areas ended on the label of the unit standing in the area
/// it left or next to it (Villers-Bocage 1944, seed 7: a move D3 -> E3
/// ended on the `M2` label of the unit in D3; 5 faults before the arrows
/// were routed). Both grid scenarios, played through the CLI to a busy
/// turn with several seeds, from every seat: no arrowhead of the last
/// turn (the whole triangle its marker draws) lies over a unit's label,
/// frame, symbol or strength, an area's name or another arrowhead, and
/// no fire's hits over a unit or its label.
#[test]
fn grid_arrowheads_lie_over_no_unit_or_label() {
    let mut bad = Vec::new();
    let mut heads = 0;
    let mut planted = 0;
    let wanted: Vec<(String, bool, u64)> = ["villers-bocage-1944", "le-cateau-1914"]
        .iter()
        .flat_map(|sc| [7, 8, 0, 1, 2, 3].map(|seed| (sc.to_string(), false, seed)))
        .collect();
    let games = shared_busy_all(&wanted);
    assert_eq!(games.len(), wanted.len());
    for ((scenario, _, seed), game) in wanted.iter().zip(games) {
        {
            for s in &game.seen {
                for svg in &s.svgs {
                    heads += arrowheads(svg).len();
                    let (labels, found) = heads_over_units(svg);
                    bad.extend(
                        found
                            .into_iter()
                            .map(|f| format!("{scenario} seed {seed}: {}: {f}", s.what)),
                    );
                    // The check's own check: a move's head planted on the
                    // first label is found.
                    let Some((b, t, _)) = labels.first() else {
                        continue;
                    };
                    let (x, y) = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
                    let end = svg.find("<g class=\"legend\"").unwrap_or(svg.len() - 6);
                    let head = format!(
                        r#"{}<line x1="{}" y1="{y}" x2="{x}" y2="{y}" stroke-width="2" marker-end="url(#mv)"/>{}"#,
                        &svg[..end],
                        x - 30.0,
                        &svg[end..]
                    );
                    let found = heads_over_units(&head).1;
                    assert!(
                        found
                            .iter()
                            .any(|f| f.ends_with(&format!("over the label {t}"))),
                        "{}: a head planted on {t} is not found: {found:?}",
                        s.what
                    );
                    planted += 1;
                }
            }
        }
    }
    assert!(
        heads > 50 && planted > 20,
        "{heads} heads, {planted} planted"
    );
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}

/// Issue 53, the looks seen in Pegasus Bridge's reports (Memoir '44) and
/// not fixed: a battle's hit count hidden (the arrow between neighbouring
/// hexes a stub under the firer), a retreat's head black under orange
/// dashes, and a legend without the sides' colours. Pegasus Bridge played
/// to a busy turn from the seed of the 80 KB test's game (100) and three
/// more, from every seat, checked on the SVG's geometry: every battle's
/// hits written, inside the picture, over no unit, no unit's label and no
/// other battle's hits; every arrow's head (on the board and in the
/// legend) the colour of its shaft; each side's colour in the legend, the
/// colour its units are drawn in.
#[test]
fn memoir44_hits_show_heads_match_their_arrows_and_the_legend_names_the_sides() {
    let mut bad = Vec::new();
    let (mut battles, mut retreats, mut pictures) = (0, 0, 0);
    let wanted = [100, 0, 1, 2].map(|seed| ("pegasus-bridge".to_string(), false, seed));
    let games = shared_busy_all(&wanted);
    assert_eq!(games.len(), wanted.len());
    for ((_, _, seed), game) in wanted.iter().zip(games) {
        for s in &game.seen {
            for svg in &s.svgs {
                pictures += 1;
                let what = format!("seed {seed}: {}", s.what);
                let head = svg.split('>').next().unwrap();
                let (w, h) = (num(head, "width"), num(head, "height"));
                let (labels, units) = label_boxes(svg);
                let hits_drawn = text_boxes(svg, "hits");
                let lines = svg.matches("<line class=\"battle\"").count();
                battles += lines;
                if hits_drawn.len() != lines {
                    bad.push(format!(
                        "{what}: {lines} battles, {} hits",
                        hits_drawn.len()
                    ));
                }
                for (i, (b, t)) in hits_drawn.iter().enumerate() {
                    if b.0 < 0.0 || b.1 < 0.0 || b.2 > w || b.3 > h {
                        bad.push(format!("{what}: the hits {t} {b:?} outside {w}x{h}"));
                    }
                    for (l, u, _) in &labels {
                        if overlap(*b, *l) > 1.0 {
                            bad.push(format!("{what}: the hits {t} {b:?} over the label {u}"));
                        }
                    }
                    for (j, parts) in units.iter().enumerate() {
                        if parts.iter().any(|p| hits(*b, p)) {
                            bad.push(format!("{what}: the hits {t} {b:?} over unit #{j}"));
                        }
                    }
                    for (c, u) in &hits_drawn[i + 1..] {
                        if overlap(*b, *c) > 1.0 {
                            bad.push(format!("{what}: the hits {t} and {u} overlap"));
                        }
                    }
                }
                for t in svg.split('<').filter(|t| t.contains("marker-end=\"url(#")) {
                    let id = t
                        .split("marker-end=\"url(#")
                        .nth(1)
                        .and_then(|r| r.split(')').next())
                        .unwrap();
                    let marker = svg
                        .split(&format!("<marker id=\"{id}\""))
                        .nth(1)
                        .and_then(|m| m.split("</marker>").next())
                        .unwrap_or_else(|| panic!("{what}: no marker {id}"));
                    let fill = marker.split("<path").nth(1).and_then(|p| attr(p, "fill"));
                    retreats += usize::from(t.starts_with("polyline class=\"retreat\""));
                    if fill != attr(t, "stroke") {
                        bad.push(format!("{what}: the head {fill:?} of {t:?}"));
                    }
                }
                for side in &game.sides {
                    let drawn = svg
                        .split("<g class=\"unit\" data-hex=\"")
                        .skip(1)
                        .find(|g| g.contains(&format!("data-side=\"{side}\"")))
                        .and_then(|g| g.split("<use href=\"#u\"").nth(1))
                        .and_then(|u| attr(u, "fill"));
                    let shown = svg
                        .split(&format!("data-legend=\"side-{side}\""))
                        .nth(1)
                        .and_then(|l| l.split("</g>").next())
                        .map(|l| (attr(l, "fill"), l.contains(&cap(side))));
                    match (drawn, shown) {
                        (Some(c), Some((Some(f), true))) if c == f => {}
                        (d, s) => bad.push(format!(
                            "{what}: {side}'s units drawn {d:?}, its legend {s:?}"
                        )),
                    }
                }
            }
        }
    }
    assert!(
        pictures >= 12 && battles >= 4 && retreats >= 1,
        "{pictures} pictures, {battles} battles, {retreats} retreats"
    );
    assert!(bad.is_empty(), "{} faults:\n{}", bad.len(), bad.join("\n"));
}
