//! The HTML mail in a real browser: headless Chromium draws the turn report,
//! takes a screenshot, and a script in the page counts the hexes and units
//! the SVG actually lays out (non-empty bounding boxes). Skipped with a
//! message when chromium is absent, unless `CI` is set.
//! Install it with scripts/install-chromium.sh.

use adjutant::rules::memoir44::report::{parts, sample};
use adjutant::rules::memoir44::view::view_with_events;
use adjutant::rules::Viewer;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

const COUNT_SCRIPT: &str = r#"<script>
window.addEventListener('load', function () {
  function drawn(list) {
    var n = 0;
    list.forEach(function (e) { var b = e.getBBox(); if (b.width > 0 && b.height > 0) n++; });
    return n;
  }
  var hexes = drawn(document.querySelectorAll('svg.board polygon.hex'));
  var units = drawn(document.querySelectorAll('svg.board g.unit'));
  var p = document.createElement('pre');
  p.id = 'adjutant-check';
  p.textContent = 'CH' + 'ECK hexes=' + hexes + ' units=' + units + ' END';
  document.body.appendChild(p);
});
</script>"#;

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

#[test]
fn html_mail_draws_the_board() {
    let Some(bin) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed (scripts/install-chromium.sh)");
        }
        eprintln!("skipped: chromium is not installed (scripts/install-chromium.sh)");
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
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("mail.html");
    std::fs::write(
        &page,
        html.replace("</body>", &format!("{COUNT_SCRIPT}</body>")),
    )
    .expect("write");
    let url = format!("file://{}", page.display());
    let shot = std::env::var_os("ADJUTANT_SCREENSHOT")
        .map_or_else(|| dir.path().join("mail.png"), PathBuf::from);

    let profile = tempfile::tempdir().expect("profile");
    let out = run(
        &bin,
        profile.path(),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,800",
            &url,
        ],
    );
    assert!(
        shot.exists() && std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 10_000,
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
                "no count in the page: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let want = format!("hexes={} units={}", 5 * 13 + 4 * 12, v.units.len());
    assert_eq!(line, want);
    assert!(v.units.len() > 10);
}
