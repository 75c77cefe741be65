//! The judge of a measured-table game by mail through the real mail server,
//! shared by tests/it/e2e_measured.rs (Charge!) and tests/it/e2e_syw.rs (the Seven
//! Years' War): the mail client, the inbox, the judge's clock and CLI, and
//! the check of a report's table laid out in Chromium.
#![allow(dead_code)]

use super::chromium::{chromium, Page};
pub use super::mail_client::{inbox, text, MailJudge};
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::measured::{self, random, state};

/// The judge of a measured-table game: the judge by mail with the set's
/// tables.
pub struct Judge<'a, B: measured::Book> {
    pub mail: MailJudge<'a>,
    pub ruleset: measured::Ruleset<B>,
}

impl<'a, B: measured::Book> std::ops::Deref for Judge<'a, B> {
    type Target = MailJudge<'a>;
    fn deref(&self) -> &MailJudge<'a> {
        &self.mail
    }
}

impl<B: measured::Book> Judge<'_, B> {
    pub fn state(&self) -> measured::State<B> {
        self.game_state()
            .get::<measured::State<B>>()
            .expect("a measured state")
            .clone()
    }

    pub fn random_orders(&self, side: &str, rng: &mut ChaChaDice) -> String {
        let st = self.state();
        let i = st.side_index(side).expect("side");
        random::random_orders(&self.ruleset, &st, i, rng)
    }
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

/// Lay out a report's `html` in headless Chromium (skipped, with a message,
/// when it is not installed, outside CI) and check the table and every unit
/// of `st` are drawn to scale.
pub fn browser_check<B: measured::Book>(
    html: &str,
    st: &measured::State<B>,
    r: &measured::Ruleset<B>,
) {
    let Some(chromium) = chromium() else {
        return;
    };
    let page = Page::new("report.html", html, MEASURE_SCRIPT);
    chromium.screenshot(&page, "1000,1400");
    let line = chromium.measure(&page);
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
