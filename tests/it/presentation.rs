//! Issue 53, acceptance 1 (the part this branch covers): the grid and
//! measured families' pictures, for every shipped scenario, drawn from
//! each seat: the viewer's own units nearest the bottom, the caption
//! naming the viewer's side, a legend of the sides' colours, and every
//! unit label inside the picture. Read from the SVG the CLI prints
//! (`adjutant show --format svg|html`), as a host or a player's tool
//! would.

use crate::common::Site;

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
        let y = if let Some(p) = attr(g, "points") {
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
            d.labels.push((num(t, "x"), num(t, "y"), text.to_string()));
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
