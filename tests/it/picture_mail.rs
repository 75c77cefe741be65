//! Issue 37: the board as an inline PNG every mail client shows. Each
//! report mail of each rules family is read as a strict mail client reads
//! it: the HTML's every `cid:` must name a part of the same
//! `multipart/related`, of type image/png, shown inline; the PNG is decoded
//! and checked against the position (view.json): at each unit's place the
//! pixels are its side's colour, and at an enemy's hex that a Kriegspiel
//! side does not see they are not the enemy's. Then the sizes of the
//! largest scenarios' report mails (under 80 KB), and PICTURE by mail.

use crate::common;

use common::{mail, reply_address, Site};
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::Value;

const T0: &str = "2026-11-20T10:00:00Z";
/// After the first deadline (1 h) with `--nmr pass`: every game makes a turn.
const T1: &str = "2026-11-20T11:30:00Z";

/// A decoded PNG: width, height, RGB bytes.
struct Image {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn decode(bytes: &[u8]) -> Image {
        let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
        d.set_transformations(png::Transformations::EXPAND);
        let mut r = d.read_info().expect("a PNG");
        assert_eq!(
            r.info().color_type,
            png::ColorType::Indexed,
            "a palette PNG"
        );
        let mut buf = vec![0; r.output_buffer_size().expect("size")];
        let info = r.next_frame(&mut buf).expect("a frame");
        assert_eq!(info.color_type, png::ColorType::Rgb, "opaque");
        buf.truncate(info.buffer_size());
        Image {
            w: info.width as usize,
            h: info.height as usize,
            rgb: buf,
        }
    }

    fn px(&self, x: f64, y: f64) -> [u8; 3] {
        let (x, y) = (x.round() as usize, y.round() as usize);
        assert!(x < self.w && y < self.h, "({x}, {y}) off the picture");
        let i = (y * self.w + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// The 5x5 pixels around (x, y).
    fn around(&self, x: f64, y: f64) -> Vec<[u8; 3]> {
        let mut v = Vec::new();
        for dy in -2..=2 {
            for dx in -2..=2 {
                v.push(self.px(x + f64::from(dx), y + f64::from(dy)));
            }
        }
        v
    }
}

/// A report mail as a strict client sees it.
struct Seen {
    to: String,
    html: String,
    /// The inline pictures the HTML shows, in its order.
    pngs: Vec<Image>,
    /// board.svg, when the mail carries it (PICTURE BOTH).
    svg: Option<String>,
    json: Value,
}

/// Does a pixel have a side's colour?
type ColourTest = Box<dyn Fn([u8; 3]) -> bool>;

fn header_ct(p: &mail_parser::MessagePart<'_>) -> String {
    p.content_type().map_or_else(String::new, |c| {
        format!("{}/{}", c.ctype(), c.subtype().unwrap_or("")).to_ascii_lowercase()
    })
}

/// Every `cid:` the HTML names in an `<img src>`, with its alt text.
fn cids(html: &str) -> Vec<(String, String)> {
    html.split("<img ")
        .skip(1)
        .filter_map(|tag| {
            let tag = tag.split('>').next()?;
            let src = tag.split("src=\"").nth(1)?.split('"').next()?;
            let alt = tag
                .split("alt=\"")
                .nth(1)
                .and_then(|a| a.split('"').next())
                .unwrap_or("");
            Some((src.strip_prefix("cid:")?.to_string(), alt.to_string()))
        })
        .collect()
}

/// Read `raw` as a strict client: the HTML part sits in a
/// multipart/related with every part its `cid:`s name, each an inline
/// image/png that decodes.
fn strict(raw: &[u8]) -> Seen {
    let msg = MessageParser::default().parse(raw).expect("a mail");
    let html_id = *msg.html_body.first().expect("an HTML part");
    let html_part = &msg.parts[html_id as usize];
    assert_eq!(header_ct(html_part), "text/html");
    let html = msg.body_html(0).expect("HTML").into_owned();
    let related = msg
        .parts
        .iter()
        .find(|p| p.sub_parts().is_some_and(|s| s.contains(&html_id)))
        .expect("the HTML has a parent");
    assert_eq!(
        header_ct(related),
        "multipart/related",
        "the HTML and its pictures are one multipart/related"
    );
    // RFC 2387: the related names its root's type (issue 53, item 8).
    assert_eq!(
        related
            .content_type()
            .and_then(|c| c.attribute("type"))
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("text/html"),
        "multipart/related without type=\"text/html\""
    );
    let siblings = related.sub_parts().expect("parts");
    assert_eq!(siblings[0], html_id, "the HTML is the related's root");
    let named = cids(&html);
    assert!(!named.is_empty(), "the HTML shows a picture by cid:");
    let mut pngs = Vec::new();
    for (cid, alt) in &named {
        assert!(alt.contains("board"), "alt text says what it shows: {alt}");
        let part = siblings
            .iter()
            .map(|i| &msg.parts[*i as usize])
            .find(|p| p.content_id() == Some(cid.as_str()))
            .unwrap_or_else(|| panic!("cid:{cid} names no part of the related"));
        assert_eq!(header_ct(part), "image/png", "cid:{cid}");
        let disp = part.content_disposition().expect("a Content-Disposition");
        assert!(disp.is_inline(), "cid:{cid} is inline");
        pngs.push(Image::decode(part.contents()));
    }
    assert!(!html.contains("<svg"), "no inline SVG beside the PNG");
    let to = crate::common::first_to(&msg).to_string();
    let file = |name: &str| {
        msg.attachments()
            .find(|a| a.attachment_name() == Some(name))
            .map(|a| a.contents().to_vec())
    };
    let json = serde_json::from_slice(&file("view.json").expect("view.json")).expect("json");
    let svg = file("board.svg").map(|b| String::from_utf8(b).expect("utf-8"));
    Seen {
        to,
        html,
        pngs,
        svg,
        json,
    }
}

/// The value of attribute `name` in `tag`.
fn attr(tag: &str, name: &str) -> Option<f64> {
    tag.split(&format!(" {name}=\""))
        .nth(1)?
        .split('"')
        .next()?
        .parse()
        .ok()
}

fn attr_s<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    tag.split(&format!(" {name}=\"")).nth(1)?.split('"').next()
}

/// Places of an SVG: each `<use ... data-hex="X">` (Memoir '44) or each
/// area's `<use href="#area" x y>` and its name (memoir_grid), by name.
fn places(svg: &str) -> Vec<(String, f64, f64)> {
    let mut out = Vec::new();
    for tag in svg.split("<use ").skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        if let (Some(h), Some(x), Some(y)) =
            (attr_s(tag, "data-hex"), attr(tag, "x"), attr(tag, "y"))
        {
            if tag.contains("href=\"#h\"") {
                out.push((h.to_string(), x, y));
            }
        }
    }
    for chunk in svg.split("<use href=\"#area\"").skip(1) {
        let tag = chunk.split('>').next().unwrap_or("");
        let name = attr_s(tag, "data-area").unwrap_or("");
        if let (Some(x), Some(y)) = (attr(tag, "x"), attr(tag, "y")) {
            out.push((name.to_string(), x, y));
        }
    }
    out
}

fn place(svg: &str, name: &str) -> (f64, f64) {
    places(svg)
        .into_iter()
        .find(|(n, ..)| n == name)
        .map(|(_, x, y)| (x, y))
        .unwrap_or_else(|| panic!("no place {name} on the board"))
}

fn is(c: [u8; 3], want: [u8; 3]) -> bool {
    (0..3).all(|i| c[i].abs_diff(want[i]) <= 12)
}

/// A unit's probe: where on the SVG its box surely shows (away from its
/// label), and a test of a pixel for its side's colour and for the other's.
struct Probe {
    what: String,
    x: f64,
    y: f64,
    mine: Box<dyn Fn([u8; 3]) -> bool>,
    other: Box<dyn Fn([u8; 3]) -> bool>,
}

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("hex colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Memoir '44: each unit's frame (28x18, 3 above its hex centre, blue the
/// first side, red the other) near its left edge, clear of every kind's
/// mark (issue 53's symbols).
fn memoir44_probes(svg: &str, json: &Value) -> Vec<Probe> {
    let first = json["sides"][0]["id"].as_str().expect("sides").to_string();
    json["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| {
            let at = u["at"].as_str().expect("at");
            let side = u["side"].as_str().expect("side");
            let (x, y) = place(svg, at);
            let (a, b) = if side == first {
                (rgb("#2b5fa8"), rgb("#a83232"))
            } else {
                (rgb("#a83232"), rgb("#2b5fa8"))
            };
            Probe {
                what: format!("{side} unit at {at}"),
                x: x - 12.0,
                y: y - 3.0,
                mine: Box::new(move |c: [u8; 3]| is(c, a)),
                other: Box::new(move |c: [u8; 3]| is(c, b)),
            }
        })
        .collect()
}

/// memoir_grid: the unit's 28x18 frame (blue the bottom side, red the
/// other) centred 10 left of its area's centre, its letter and strength
/// right of it, probed near its left edge, clear of every kind's mark;
/// a general's frame sits 14 lower.
fn grid_probes(svg: &str, json: &Value) -> Vec<Probe> {
    let bottom = json["bottom"].as_str().expect("bottom").to_string();
    json["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| {
            let at = u["at"].as_str().expect("at");
            let side = u["side"].as_str().expect("side");
            let (x, y) = place(svg, at);
            let dy = if u["kind"] == "general" { 14.0 } else { 0.0 };
            let (a, b) = if side == bottom {
                (rgb("#2457a6"), rgb("#b0322a"))
            } else {
                (rgb("#b0322a"), rgb("#2457a6"))
            };
            Probe {
                what: format!("{side} unit at {at}"),
                x: x - 22.0,
                y: y + dy,
                mine: Box::new(move |c: [u8; 3]| is(c, a)),
                other: Box::new(move |c: [u8; 3]| is(c, b)),
            }
        })
        .collect()
}

/// Measured games: each unit's footprint (a polygon, nearly opaque blue
/// for side 0, red for side 1: docs/reports.md) near its rear corner,
/// clear of the label at its centre; the pixel is red or blue by far.
fn measured_probes(svg: &str, json: &Value) -> Vec<Probe> {
    let red = |c: [u8; 3]| i32::from(c[0]) > i32::from(c[2]) + 60;
    let blue = |c: [u8; 3]| i32::from(c[2]) > i32::from(c[0]) + 60;
    let mut out = Vec::new();
    for u in json["units"].as_array().expect("units") {
        let id = u["id"].as_str().expect("id");
        let side = u["side"].as_u64().expect("side");
        let g = svg
            .split(&format!("<g class=\"unit\" data-id=\"{id}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("unit {id} drawn"));
        let pts = attr_s(g, "points").expect("points");
        let xy: Vec<(f64, f64)> = pts
            .split(' ')
            .filter_map(|p| {
                let (x, y) = p.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            })
            .collect();
        let n = xy.len() as f64;
        let (cx, cy) = xy
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
        // The corner farthest from the label (drawn at the centre).
        let t = g.split("<text").nth(1).unwrap_or("");
        let (lx, ly) = (attr(t, "x").unwrap_or(cx), attr(t, "y").unwrap_or(cy) - 3.0);
        let far = |p: &(f64, f64)| (p.0 - lx).abs().min(30.0) * 4.0 + (p.1 - ly).abs();
        let (rx, ry) = *xy
            .iter()
            .max_by(|a, b| far(a).total_cmp(&far(b)))
            .expect("corners");
        let step = |from: f64, to: f64| from + 2.5 * (to - from).signum();
        let (x, y) = (step(rx, cx), step(ry, cy));
        let (mine, other): (ColourTest, ColourTest) = if side == 0 {
            (Box::new(blue), Box::new(red))
        } else {
            (Box::new(red), Box::new(blue))
        };
        out.push(Probe {
            what: format!("unit {id} of side {side}"),
            x,
            y,
            mine,
            other,
        });
    }
    out
}

fn probes(family: &str, svg: &str, json: &Value) -> Vec<Probe> {
    match family {
        "memoir44" => memoir44_probes(svg, json),
        "grid" => grid_probes(svg, json),
        _ => measured_probes(svg, json),
    }
}

/// Pixels per SVG unit of `img` drawn from `svg`.
fn scale(img: &Image, svg: &str) -> f64 {
    let open = svg.split('>').next().expect("svg");
    img.w as f64 / attr(open, "width").expect("width")
}

/// The picture holds each unit of the position in its side's colour.
fn check_units(family: &str, seen: &Seen) {
    let svg = seen.svg.as_deref().expect("board.svg with PICTURE BOTH");
    let img = &seen.pngs[0];
    let k = scale(img, svg);
    let probes = probes(family, svg, &seen.json);
    assert!(!probes.is_empty(), "{}: units on the board", seen.to);
    for p in &probes {
        let px = img.around(p.x * k, p.y * k);
        let mine = px.iter().filter(|c| (p.mine)(**c)).count();
        assert!(
            (p.mine)(px[12]) && mine >= 13,
            "{}: {} is its side's colour ({mine} of 25 pixels: {:?})",
            seen.to,
            p.what,
            px[12]
        );
        assert!(!px.iter().any(|c| (p.other)(*c)), "{}: {}", seen.to, p.what);
    }
}

/// A site whose host default is `picture`.
fn site_with(picture: &str) -> Site {
    let site = Site::new();
    common::set_picture(&site, picture);
    site
}

/// Mails whose file name ends with `kind`, as bytes.
fn raw_mails(site: &Site, kind: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(site.path().join("mail/outbox"))
        .expect("outbox")
        .filter_map(|e| {
            let e = e.ok()?;
            let n = e.file_name().to_string_lossy().into_owned();
            n.ends_with(kind)
                .then(|| (n, std::fs::read(e.path()).expect("read")))
        })
        .collect();
    v.sort();
    v
}

/// A game of `scenario` whose first deadline passes (`--nmr pass`): its
/// welcomes and first turn reports are in the outbox.
fn first_turn(site: &Site, scenario: &str, sides: [&str; 2], extra: &[&str]) {
    let a = format!("{}=a@example.org", sides[0]);
    let b = format!("{}=b@example.org", sides[1]);
    let mut args = vec![
        "new-game",
        "--scenario",
        scenario,
        "--seat",
        &a,
        "--seat",
        &b,
        "--deadline",
        "1h",
        "--nmr",
        "pass",
    ];
    args.extend(extra);
    site.at(T0, &args);
    site.at(T0, &["serve", "--once"]);
    site.at(T1, &["serve", "--once"]);
}

/// The shipped scenario of each family whose report mail is the largest
/// (the most units on the largest board), its sides and its family.
const LARGEST: &[(&str, [&str; 2], &str)] = &[
    ("fall-of-london", ["british", "martians"], "memoir44"),
    ("le-cateau-1914", ["british", "german"], "grid"),
    ("villers-bocage-1944", ["british", "german"], "grid"),
    ("fuentes-de-onoro-1811", ["british", "french"], "measured"),
    ("minden-1759", ["allied", "french"], "measured"),
];

/// Acceptance 1: every report mail (and welcome) of every family holds an
/// inline PNG that a strict client resolves, and it shows the position.
#[test]
fn every_family_shows_the_board_as_an_inline_png() {
    for (scenario, sides, family) in LARGEST {
        let site = site_with("both");
        first_turn(&site, scenario, *sides, &[]);
        let reports = raw_mails(&site, "-report.eml");
        assert_eq!(reports.len(), 2, "{scenario}: a report for each side");
        let welcomes = raw_mails(&site, "-welcome.eml");
        assert_eq!(welcomes.len(), 2, "{scenario}: a welcome for each side");
        for (name, raw) in reports.iter().chain(&welcomes) {
            let seen = strict(raw);
            assert_eq!(seen.pngs.len(), 1, "{scenario} {name}");
            check_units(family, &seen);
        }
    }
}

/// Acceptance 1, fog of war: a Kriegspiel side's picture shows its own
/// units and the enemies it sees, and not the enemies it does not see
/// (their hexes, from the referee's view, are not the enemy's colour).
#[test]
fn a_kriegspiel_sides_picture_hides_the_unseen_enemy() {
    let site = site_with("both");
    first_turn(
        &site,
        "pegasus-bridge",
        ["allies", "axis"],
        &["--kriegspiel", "--referee", "ref@example.org"],
    );
    let all: Vec<Seen> = raw_mails(&site, "-report.eml")
        .iter()
        .chain(&raw_mails(&site, "-referee.eml"))
        .map(|(_, raw)| strict(raw))
        .collect();
    let referee = all
        .iter()
        .find(|s| s.to == "ref@example.org")
        .expect("the referee's report");
    // The referee's desk: its own board and each side's, each a PNG.
    assert_eq!(referee.pngs.len(), 3, "{}", referee.html);
    let mut hidden = 0;
    for seen in all.iter().filter(|s| s.to != "ref@example.org") {
        check_units("memoir44", seen);
        let svg = seen.svg.as_deref().expect("board.svg");
        let img = &seen.pngs[0];
        let k = scale(img, svg);
        let me = seen.json["viewer"]["side"]
            .as_str()
            .or_else(|| seen.json["viewer"].as_str())
            .map(str::to_string)
            .unwrap_or_default();
        let shown: Vec<&str> = seen.json["units"]
            .as_array()
            .expect("units")
            .iter()
            .filter_map(|u| u["at"].as_str())
            .collect();
        let first = seen.json["sides"][0]["id"].as_str().expect("sides");
        for u in referee.json["units"].as_array().expect("units") {
            let (at, side) = (
                u["at"].as_str().expect("at"),
                u["side"].as_str().expect("side"),
            );
            if side == me || shown.contains(&at) {
                continue;
            }
            hidden += 1;
            let enemy = if side == first {
                rgb("#2b5fa8")
            } else {
                rgb("#a83232")
            };
            let (x, y) = place(svg, at);
            let px = img.around((x - 11.0) * k, (y - 6.0) * k);
            assert!(
                !px.iter().any(|c| is(*c, enemy)),
                "{}: the unseen {side} unit at {at} shows",
                seen.to
            );
        }
    }
    assert!(hidden > 0, "some enemy was out of sight");
}

/// Acceptance 2: the first-turn report mail of each family's largest
/// scenario, with its PNG (the default), is under 80 KB.
#[test]
fn the_largest_report_mails_are_under_80_kb() {
    for (scenario, sides, _) in LARGEST {
        let site = Site::new();
        first_turn(&site, scenario, *sides, &[]);
        for (name, raw) in raw_mails(&site, "-report.eml") {
            let seen = strict(&raw);
            assert!(seen.svg.is_none(), "PNG alone by default");
            let msg = MessageParser::default().parse(&raw[..]).expect("mail");
            let png = msg
                .parts
                .iter()
                .find(|p| header_ct(p) == "image/png")
                .map_or(0, |p| p.contents().len());
            eprintln!(
                "SIZE {scenario} {name}: mail {} bytes, PNG {png} bytes ({}x{})",
                raw.len(),
                seen.pngs[0].w,
                seen.pngs[0].h
            );
            assert!(
                raw.len() < 80 * 1024,
                "{scenario} {name}: {} bytes",
                raw.len()
            );
        }
    }
}

/// What a mail shows of the board: (inline SVG, inline PNGs, board.svg).
fn shows(raw: &[u8]) -> (bool, usize, bool) {
    let msg = MessageParser::default().parse(raw).expect("mail");
    let html = msg.body_html(0).map(|h| h.into_owned()).unwrap_or_default();
    let pngs = msg
        .parts
        .iter()
        .filter(|p| header_ct(p) == "image/png")
        .count();
    let svg = msg
        .attachments()
        .any(|a| a.attachment_name() == Some("board.svg"));
    (html.contains("<svg"), pngs, svg)
}

/// A mail but for its MIME boundaries and Message-ID-free dates.
fn plain(raw: &[u8]) -> String {
    crate::common::without_boundaries(&String::from_utf8_lossy(raw))
}

/// Acceptance 3: PICTURE by mail changes what that seat receives (its
/// answer, MAP and reports), remembered, and nothing else: the other seat's
/// mails are the bytes they are without it.
#[test]
fn picture_by_mail_changes_that_seat_only() {
    let with = Site::new();
    let without = Site::new();
    with.at(
        T0,
        &[
            "new-game",
            "--scenario",
            "pegasus-bridge",
            "--seat",
            "allies=a@example.org",
            "--seat",
            "axis=b@example.org",
        ],
    );
    with.at(T0, &["serve", "--once"]);
    // The same judge twice: database, key and delivered welcomes.
    for f in ["adjutant.db", "adjutant.db.key"] {
        std::fs::copy(with.path().join(f), without.path().join(f)).expect("copy");
    }
    let to = reply_address(&with, "a@example.org");
    for (word, n) in [("SVG", 1), ("NONE", 2), ("BOTH", 3)] {
        with.drop_mail(
            &format!("p{n}.eml"),
            &mail(
                "a@example.org",
                &to,
                "picture",
                &format!("p{n}@example.org"),
                &format!("PICTURE {word}\nMAP\n"),
            ),
        );
        with.at(T0, &["serve", "--once"]);
        let answers = raw_mails(&with, "-reply.eml");
        let (_, last) = answers.last().expect("an answer");
        let got = shows(last);
        let want = match word {
            "SVG" => (true, 0, false),
            "NONE" => (false, 0, false),
            _ => (false, 1, true),
        };
        assert_eq!(got, want, "MAP after PICTURE {word}");
        // Issue 53: the confirmation reads as English ("show the board as
        // no picture" it said).
        let said = common::unqp(&String::from_utf8_lossy(last));
        assert!(!said.contains("board as no picture"), "{said}");
        if word == "NONE" {
            assert!(said.contains("show no picture of the board"), "{said}");
        }
    }
    with.drop_mail(
        "p4.eml",
        &mail(
            "a@example.org",
            &to,
            "picture",
            "p4@example.org",
            "PICTURE SVG\n",
        ),
    );
    with.drop_mail(
        "bad.eml",
        &mail(
            "a@example.org",
            &to,
            "picture",
            "bad@example.org",
            "PICTURE GIF\n",
        ),
    );
    with.at(T0, &["serve", "--once"]);
    let errors = raw_mails(&with, "-error.eml");
    let (_, bad) = errors.last().expect("an error answer to PICTURE GIF");
    assert!(
        String::from_utf8_lossy(bad).contains("PICTURE takes one of PNG, SVG, BOTH or NONE"),
        "{}",
        String::from_utf8_lossy(bad)
    );
    let stored: Vec<(String, Option<String>)> = {
        let db = with.db();
        let mut q = db
            .prepare("SELECT side, picture FROM seats WHERE game_id = 1 ORDER BY side")
            .expect("query");
        q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        stored,
        vec![("allies".into(), Some("SVG".into())), ("axis".into(), None)]
    );
    // The deadline-free game makes a turn by the Allies' orders, in both.
    for site in [&with, &without] {
        site.drop_mail(
            "orders.eml",
            &mail(
                "a@example.org",
                &to,
                "orders",
                "orders@example.org",
                "PLAY recon-centre\nORDER F4\nBATTLE F4 F5\n",
            ),
        );
        site.at(T1, &["serve", "--once"]);
    }
    let report_to = |site: &Site, who: &str| -> Vec<u8> {
        raw_mails(site, "-report.eml")
            .into_iter()
            .map(|(_, r)| r)
            .find(|r| String::from_utf8_lossy(r).contains(&format!("To: {who}")))
            .unwrap_or_else(|| panic!("a report to {who}"))
    };
    let (a_with, a_without) = (
        report_to(&with, "a@example.org"),
        report_to(&without, "a@example.org"),
    );
    assert_eq!(shows(&a_with), (true, 0, false), "the Allies chose SVG");
    assert_eq!(shows(&a_without), (false, 1, false), "the default is PNG");
    let (b_with, b_without) = (
        report_to(&with, "b@example.org"),
        report_to(&without, "b@example.org"),
    );
    assert_eq!(shows(&b_with), (false, 1, false));
    assert_eq!(
        plain(&b_with),
        plain(&b_without),
        "the Axis' report is unchanged"
    );
}

/// One rasterisation per distinct drawing (docs/performance.md, "The board
/// as an inline PNG"): the picture of an SVG drawn a moment ago is the same
/// bytes as drawing it afresh, on any thread; an SVG that differs from it
/// (here one colour, the same length, so that only a cache keyed by the
/// drawing's full text tells them apart) gets its own picture. The key is
/// what keeps fog of war exact: two viewers share a picture only when their
/// SVGs are the same bytes.
#[test]
fn a_picture_is_reused_only_for_the_very_same_drawing() {
    use adjutant::report::picture;
    use adjutant::rules::memoir44::report::sample;
    use adjutant::rules::{Load, Rules, State, Viewer};
    let s = sample::standard();
    let rules = Rules::load("memoir44").expect("rules");
    let state = State::of(s.state.clone());
    let p = rules.report_parts(&state, &[], &Viewer::Side("allies".into()), Some(&s.mover));
    let svg = p.svg.clone();
    let fresh = picture::draw(&svg).expect("draws");
    assert_eq!(picture::png(&svg).expect("draws"), fresh);
    assert_eq!(picture::png(&svg).expect("drawn before"), fresh);
    let elsewhere = {
        let svg = svg.clone();
        std::thread::spawn(move || picture::draw(&svg))
            .join()
            .expect("thread")
    };
    assert_eq!(
        elsewhere.expect("draws"),
        fresh,
        "the same bytes on any thread"
    );
    // The board's cloth, repainted blue: the same length, another drawing.
    let cloth = "fill=\"#f6f3ea\"";
    assert!(svg.contains(cloth), "the board's background colour");
    let other = svg.replacen(cloth, "fill=\"#0000ff\"", 1);
    assert_eq!(other.len(), svg.len());
    let theirs = picture::png(&other).expect("draws");
    assert_ne!(theirs.0, fresh.0);
    let corner = |bytes: &[u8]| {
        let img = Image::decode(bytes);
        img.rgb[(2 * img.w + 2) * 3..][..3].to_vec()
    };
    assert_eq!(corner(&theirs.0), [0, 0, 255]);
    assert_eq!(corner(&fresh.0), [0xf6, 0xf3, 0xea]);
    assert_eq!(picture::png(&svg).expect("drawn before"), fresh);
}

/// Issue 57: each family's board marks its static layer (terrain, grid,
/// names: `<g class="static">`), which the picture draws once per scenario
/// and seat and keeps; what is drawn over it (units, markers, arrows, the
/// legend) is cut into pieces, each drawn alone once and kept. The PNG every
/// mail carries is the picture of its SVG drawn afresh with nothing kept
/// (a pure function of the SVG), whose pixels are the SVG drawn whole, never
/// cut, but for the edges of a few shapes (at most 1 channel in 2,000
/// differs, by at most 16: a piece is drawn in a small pixmap of its own);
/// a seat's second board (its first turn report after its welcome) is drawn
/// over the layer its first board left, and is the same bytes as when
/// nothing was kept.
#[test]
fn each_familys_board_is_drawn_over_its_kept_static_layer_unchanged() {
    use adjutant::report::picture::{self, Drew};
    for (scenario, sides, _) in LARGEST {
        let site = site_with("both");
        first_turn(&site, scenario, *sides, &[]);
        let mut by_seat: Vec<(String, Vec<String>)> = Vec::new();
        for kind in ["-welcome.eml", "-report.eml"] {
            for (name, raw) in raw_mails(&site, kind) {
                let seen = strict(&raw);
                let svg = seen.svg.expect("board.svg");
                assert_eq!(
                    svg.matches("<g class=\"static\"").count(),
                    1,
                    "{scenario} {name}: one static group"
                );
                assert!(
                    picture::in_pieces(&svg),
                    "{scenario} {name}: cut into pieces"
                );
                let msg = MessageParser::default().parse(&raw[..]).expect("mail");
                let png = msg
                    .parts
                    .iter()
                    .find(|p| header_ct(p) == "image/png")
                    .expect("a PNG")
                    .contents();
                picture::forget_layers();
                let afresh = picture::draw(&svg).expect("draws");
                // A mail whose size bound was over 80 KB carries the same
                // picture at its smallest (one deflate stream: the same
                // pixels in fewer bytes; the welcome with PICTURE BOTH,
                // its SVG attached too, is one).
                let smallest = || picture::png_smallest(&svg).expect("draws").0;
                assert!(
                    png == &afresh.0[..] || png == &smallest()[..],
                    "{scenario} {name}: the PNG is the SVG's picture drawn afresh"
                );
                assert_eq!(
                    Image::decode(png).rgb,
                    Image::decode(&afresh.0).rgb,
                    "{scenario} {name}: the mail's PNG shows the pixels drawn afresh"
                );
                picture::forget_layers();
                let (pieces, ..) = picture::pixels_how(&svg).expect("draws");
                // The mail's PNG shows the pixels drawn: only anti-aliased
                // edges snapped to a palette colour are far from them (a
                // band of rows kept from the static layer where a unit now
                // stands would be thousands).
                let img = Image::decode(png);
                let far = img
                    .rgb
                    .chunks_exact(3)
                    .zip(pieces.data().chunks_exact(4))
                    .filter(|(a, b)| (0..3).any(|i| a[i].abs_diff(b[i]) > 48))
                    .count();
                eprintln!("{scenario} {name}: {far} pixels far of {}", img.w * img.h);
                // Screenshots for a look (docs/performance.md): the mail's
                // PNG, and the same pixels indexed and deflated whole (the
                // encoding before the bands).
                if let Ok(dir) = std::env::var("ADJUTANT_PICTURE_DUMP") {
                    let stem = format!("{dir}/{scenario}-{name}");
                    std::fs::write(format!("{stem}-banded.png"), png).expect("write");
                    let old = picture::quantise(pieces.width(), pieces.height(), pieces.data());
                    let old = picture::deflate(&old).expect("deflates");
                    std::fs::write(format!("{stem}-whole.png"), old).expect("write");
                }
                assert!(
                    far * 1000 <= img.w * img.h,
                    "{scenario} {name}: {far} pixels far from the pixels drawn"
                );
                let (whole, _) = picture::pixels_whole(&svg).expect("draws");
                let (most, n) = picture::difference(&pieces, &whole).expect("same size");
                let all = pieces.data().len();
                // Each piece is drawn over a transparent background and
                // laid over (crates/picture, `sprite`): a channel of an
                // anti-aliased edge is a unit or two off the SVG drawn whole,
                // seldom more; a piece laid wrong would be far in hundreds.
                let beyond = |by: u8| {
                    pieces
                        .data()
                        .iter()
                        .zip(whole.data())
                        .filter(|(a, b)| a.abs_diff(**b) > by)
                        .count()
                };
                let (off2, off4) = (beyond(2), beyond(4));
                eprintln!("{scenario} {name}: {n} channels differ, {off2} by more than 2, {off4} by more than 4, by up to {most}");
                assert!(
                    most <= 16 && n * 100 <= all && off2 * 2000 <= all,
                    "{scenario} {name}: {n} of {all} channels differ from the SVG drawn whole ({off2} by more than 2), by up to {most}"
                );
                match by_seat.iter_mut().find(|(to, _)| *to == seen.to) {
                    Some((_, svgs)) => svgs.push(svg),
                    None => by_seat.push((seen.to, vec![svg])),
                }
            }
        }
        assert_eq!(by_seat.len(), 2, "{scenario}: two seats");
        for (to, svgs) in &by_seat {
            assert_eq!(svgs.len(), 2, "{scenario} {to}: a welcome and a report");
            picture::forget_layers();
            let fresh: Vec<_> = svgs
                .iter()
                .map(|s| {
                    picture::forget_layers();
                    picture::draw(s).expect("draws")
                })
                .collect();
            picture::forget_layers();
            let (first, _) = picture::draw_how(&svgs[0]).expect("draws");
            let (second, how) = picture::draw_how(&svgs[1]).expect("draws");
            assert_eq!(how, Drew::OnLayer, "{scenario} {to}: the layer kept");
            assert_eq!(first, fresh[0]);
            assert_eq!(
                second, fresh[1],
                "{scenario} {to}: kept or not, the same bytes"
            );
        }
    }
}

/// A mail's plain text and its view.json, as a client reads them.
fn text_and_view(raw: &[u8]) -> (String, String, bool) {
    let msg = MessageParser::default().parse(raw).expect("mail");
    let text = msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default();
    let view = msg
        .attachments()
        .find(|a| a.attachment_name() == Some("view.json"))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
        .unwrap_or_default();
    let html = msg.parts.iter().any(|p| header_ct(p) == "text/html");
    (text, view, html)
}

/// issue 57 (docs/performance.md, "The mail path without pictures"): a
/// judge whose mails carry no picture (`picture = "none"`) does not draw the
/// board of its reports, and its report mails say every word, and carry
/// every byte of view.json, that the same judge's pictured reports do: the
/// map, the combat report, the order template, for each side and the
/// turn's mover alike.
#[test]
fn a_report_without_a_picture_says_all_that_a_pictured_one_says() {
    let none = site_with("none");
    let svg = site_with("svg");
    none.at(
        T0,
        &[
            "new-game",
            "--scenario",
            "pegasus-bridge",
            "--seat",
            "allies=a@example.org",
            "--seat",
            "axis=b@example.org",
        ],
    );
    none.at(T0, &["serve", "--once"]);
    // The same judge twice: database, key and delivered welcomes.
    for f in ["adjutant.db", "adjutant.db.key"] {
        std::fs::copy(none.path().join(f), svg.path().join(f)).expect("copy");
    }
    let to = reply_address(&none, "a@example.org");
    for site in [&none, &svg] {
        site.drop_mail(
            "orders.eml",
            &mail(
                "a@example.org",
                &to,
                "orders",
                "orders@example.org",
                "PLAY recon-centre\nORDER F4\nBATTLE F4 F5\n",
            ),
        );
        site.at(T1, &["serve", "--once"]);
    }
    let reports = |site: &Site| -> Vec<(String, String, bool)> {
        raw_mails(site, "-report.eml")
            .iter()
            .map(|(_, r)| text_and_view(r))
            .collect()
    };
    let (plain_reports, pictured) = (reports(&none), reports(&svg));
    assert_eq!(plain_reports.len(), 2, "a report to each side");
    assert_eq!(pictured.len(), 2, "a report to each side");
    for ((text, view, html), (text_p, view_p, html_p)) in plain_reports.iter().zip(&pictured) {
        assert!(!html && *html_p, "no HTML part without a picture only");
        assert!(text.contains("F4"), "a map and the battle: {text}");
        assert_eq!(text, text_p, "the same report text");
        assert_eq!(view, view_p, "the same view.json");
        assert!(!view.is_empty(), "view.json is there");
    }
}

/// issue 57.3: the grid and measured families, like Memoir '44, do not
/// draw the board of a report whose mail carries no picture
/// (`Family::report_without_board`): their rules give a report without the
/// SVG, the board's HTML and the compact map, every other part the same;
/// and a judge whose mails carry no picture sends each side the same
/// report text and view.json as one whose mails carry the board.
#[test]
fn each_familys_report_without_a_picture_says_all_that_a_pictured_one_says() {
    use adjutant::rules::{Load, Rules, Viewer};
    for (scenario, sides, family) in LARGEST.iter().filter(|(_, _, f)| *f != "memoir44") {
        let none = site_with("none");
        let svg = site_with("svg");
        let a = format!("{}=a@example.org", sides[0]);
        let b = format!("{}=b@example.org", sides[1]);
        none.at(
            T0,
            &[
                "new-game",
                "--scenario",
                scenario,
                "--seat",
                &a,
                "--seat",
                &b,
                "--deadline",
                "1h",
                "--nmr",
                "pass",
            ],
        );
        none.at(T0, &["serve", "--once"]);
        // The same judge twice: database and key; the turn is the deadline's.
        for f in ["adjutant.db", "adjutant.db.key"] {
            std::fs::copy(none.path().join(f), svg.path().join(f)).expect("copy");
        }
        for site in [&none, &svg] {
            site.at(T1, &["serve", "--once"]);
        }
        let reports = |site: &Site| -> Vec<(String, String, bool)> {
            raw_mails(site, "-report.eml")
                .iter()
                .map(|(_, r)| text_and_view(r))
                .collect()
        };
        let (plain_reports, pictured) = (reports(&none), reports(&svg));
        assert_eq!(plain_reports.len(), 2, "{scenario}: a report to each side");
        assert_eq!(pictured.len(), 2, "{scenario}: a report to each side");
        for ((text, view, html), (text_p, view_p, html_p)) in plain_reports.iter().zip(&pictured) {
            assert!(
                !html && *html_p,
                "{scenario}: no HTML part without a picture only"
            );
            assert_eq!(text, text_p, "{scenario}: the same report text");
            assert_eq!(view, view_p, "{scenario}: the same view.json");
            assert!(!view.is_empty(), "{scenario}: view.json is there");
        }
        // The family's own report without the board: not drawn at all.
        let (ruleset, state): (String, String) = none
            .db()
            .query_row(
                "SELECT g.ruleset, s.state FROM snapshots s JOIN games g ON g.id = s.game_id
                 ORDER BY s.turn DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("a snapshot");
        let rules = Rules::load(&ruleset).expect("rules");
        let st = rules.restore(&state).expect("state");
        let viewers = [
            Viewer::Side(sides[0].to_string()),
            Viewer::Side(sides[1].to_string()),
            Viewer::Referee,
        ];
        for v in viewers {
            let whole = rules.report_parts(&st, &[], &v, Some(sides[0]));
            let plain = rules
                .without_board()
                .report_parts(&st, &[], &v, Some(sides[0]));
            assert!(!whole.svg.is_empty(), "{family} {v:?}: a board drawn");
            assert!(
                plain.svg.is_empty() && plain.board_html.is_empty() && plain.compact.is_empty(),
                "{family} {scenario} {v:?}: the board drawn for a report without a picture"
            );
            assert_eq!(plain.map, whole.map, "{family} {v:?}: the same map");
            assert_eq!(
                plain.combat, whole.combat,
                "{family} {v:?}: the same combat"
            );
            assert_eq!(
                plain.orders, whole.orders,
                "{family} {v:?}: the same orders"
            );
            assert_eq!(plain.json, whole.json, "{family} {v:?}: the same view.json");
        }
    }
}

/// Issue 57: the judge process asks for no transparent huge pages. Its
/// allocator (mimalloc) marked its arenas for them, so that a 4 KB page
/// touched held 2 MB: with the PNG boards' buffers freed and made again
/// for each picture, a pass over distinct boards peaked at 106-122 MB of
/// RSS for a heap under 30 MB (docs/performance.md). Read from the running
/// process (`adjutant receive` waiting for its mail), as a host's `ps` or
/// `/proc` would show it.
#[cfg(target_os = "linux")]
#[test]
fn the_judge_process_holds_no_transparent_huge_pages() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let site = Site::new();
    let mut child = site
        .command(&["receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("adjutant receive");
    let status = format!("/proc/{}/status", child.id());
    let thp = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("THP_enabled:"))
            .map(|v| v.trim().to_string())
    };
    let until = Instant::now() + Duration::from_secs(10);
    let mut seen = None;
    while Instant::now() < until {
        seen = std::fs::read_to_string(&status).ok().and_then(|s| thp(&s));
        if seen.as_deref() == Some("0") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(child.stdin.take());
    let _ = child.wait();
    // A kernel before 5.0 has no such line: nothing to read there.
    if std::fs::read_to_string("/proc/self/status").is_ok_and(|s| thp(&s).is_some()) {
        assert_eq!(seen.as_deref(), Some("0"), "THP_enabled of the judge");
    }
}
