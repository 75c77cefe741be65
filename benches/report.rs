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
    let events: Vec<serde_json::Value> = s
        .events
        .iter()
        .map(|e| serde_json::to_value(e).expect("json"))
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
    c.bench_function("board_png", |b| {
        b.iter(|| black_box(picture::png(black_box(&p.svg)).map(|(b, ..)| b.len())));
    });
    c.bench_function("mail_html_png", |b| {
        b.iter(|| {
            let m = adjutant::report::mail_html(&p, "Game 1: turn 12", &p.map, Picture::Png);
            black_box((m.html.map(|h| h.len()), m.inline.len()))
        });
    });
}

criterion_group!(benches, full_report, board_png);
criterion_main!(benches);
