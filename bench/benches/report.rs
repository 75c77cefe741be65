//! Criterion: one full turn report for a 13x9 board, as the service builds it
//! (view from the stored JSON state, text map, compact map, combat report,
//! order template, SVG, HTML, JSON, and the turn_report template), and the
//! board's PNG of that report (issue 37): rasterising the SVG alone, and the
//! whole HTML of a mail with the picture inline.

use adjutant::report::picture::{self, Picture};
use adjutant::report::Templates;
use adjutant::rules::memoir44::report::sample;
use adjutant::rules::Load;
use adjutant::rules::{Rules, State, Viewer};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;

fn full_report(c: &mut Criterion) {
    let s = sample::standard();
    let rules = Rules::load("memoir44").expect("rules");
    let state = State::of(s.state.clone());
    let events: Vec<adjutant::rules::Event> = s
        .events
        .iter()
        .cloned()
        .map(adjutant::rules::Event::of)
        .collect();
    let viewer = Viewer::Side("allies".into());
    let t = Templates::shipped();
    c.bench_function("full_report", |b| {
        b.iter(|| {
            let p = rules.report_parts(&state, &events, &viewer, Some(&s.mover));
            let text = t.render(
                "turn_report.txt",
                json!({
                    "game_id": 1, "scenario": "pegasus-bridge", "turn": 12, "mover": s.mover,
                    "events": [], "combat": p.combat, "map": p.map,
                    "orders_template": p.orders, "over": false, "result": "", "seed": "",
                    "waiting": "Waiting for: allies", "deadline": null,
                    "turn_seed": "00", "next_commitment": "00", "state_hash": "00",
                }),
            );
            let html = p.html("Game 1: turn 12", &text);
            black_box((text.len(), html.len(), p.json.len()))
        });
    });
}

fn board_png(c: &mut Criterion) {
    let s = sample::standard();
    let rules = Rules::load("memoir44").expect("rules");
    let state = State::of(s.state.clone());
    let viewer = Viewer::Side("allies".into());
    let p = rules.report_parts(&state, &[], &viewer, Some(&s.mover));
    // The whole picture, drawn afresh (not from the cache of pictures).
    c.bench_function("board_png", |b| {
        b.iter(|| black_box(picture::draw(black_box(&p.svg)).map(|(b, ..)| b.len())));
    });
    // The HTML part of a mail, its picture drawn afresh: the first
    // recipient of a drawing.
    c.bench_function("mail_html_png", |b| {
        b.iter(|| {
            picture::forget_drawn();
            let m = adjutant::report::mail_html(&p, "Game 1: turn 12", &p.map, Picture::Png);
            black_box((m.html.map(|h| h.len()), m.inline.len()))
        });
    });
    // The same for a recipient whose drawing was just drawn for another.
    c.bench_function("mail_html_png_again", |b| {
        b.iter(|| {
            let m = adjutant::report::mail_html(&p, "Game 1: turn 12", &p.map, Picture::Png);
            black_box((m.html.map(|h| h.len()), m.inline.len()))
        });
    });
}

/// Where one picture's time goes: the four stages of `picture::draw`, and
/// the deflate settings compared (each one's PNG size is printed once).
fn board_png_stages(c: &mut Criterion) {
    use png::{DeflateCompression as D, Filter as F};
    let s = sample::standard();
    let rules = Rules::load("memoir44").expect("rules");
    let state = State::of(s.state.clone());
    let p = rules.report_parts(&state, &[], &Viewer::Side("allies".into()), Some(&s.mover));
    let tree = picture::parse(&p.svg).expect("parses");
    let (w, h, pixmap) = picture::render(&tree).expect("renders");
    let ix = picture::quantise(w, h, pixmap.data());
    c.bench_function("board_png_stage_parse", |b| {
        b.iter(|| black_box(picture::parse(black_box(&p.svg)).is_some()));
    });
    c.bench_function("board_png_stage_render", |b| {
        b.iter(|| black_box(picture::render(black_box(&tree)).map(|r| r.0)));
    });
    c.bench_function("board_png_stage_quantise", |b| {
        b.iter(|| black_box(picture::quantise(w, h, black_box(pixmap.data()))));
    });
    let settings = [
        ("level9_none", D::Level(9), F::NoFilter),
        ("level6_none", D::Level(6), F::NoFilter),
        ("level3_none", D::Level(3), F::NoFilter),
        ("level1_none", D::Level(1), F::NoFilter),
        ("fdeflate_none", D::FdeflateUltraFast, F::NoFilter),
        ("level6_adaptive", D::Level(6), F::Adaptive),
        ("level1_up", D::Level(1), F::Up),
    ];
    for (name, level, filter) in settings {
        let n = picture::deflate_with(&ix, level, filter).map_or(0, |b| b.len());
        eprintln!("SIZE board_png_deflate_{name}: {n} bytes");
        c.bench_function(&format!("board_png_deflate_{name}"), |b| {
            b.iter(|| black_box(picture::deflate_with(black_box(&ix), level, filter)));
        });
    }
}

criterion_group!(benches, full_report, board_png, board_png_stages);
criterion_main!(benches);
