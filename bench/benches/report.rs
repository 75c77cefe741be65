//! Criterion: one full turn report of every registered family, as the
//! service builds it through the erased interface (`full_report/<ruleset>`:
//! views, text map, combat report, order template, SVG, HTML, JSON, and the
//! turn_report template), and the board's PNG of Memoir '44's sample report
//! (issue 37): rasterising the SVG alone, and the whole HTML of a mail with
//! the picture inline.

use adjutant::engine::dice::ChaChaDice;
use adjutant::report::picture::{self, Picture};
use adjutant::report::Templates;
use adjutant::rules::memoir44::report::sample;
use adjutant::rules::Load;
use adjutant::rules::{Event, Orders, Rules, State, Viewer};
use adjutant::service;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;

/// One family's sample: the state after the last phase played, its
/// events, and the side that made it.
struct Sample {
    ruleset: String,
    scenario: String,
    rules: Rules,
    state: State,
    events: Vec<Event>,
    mover: Option<String>,
}

/// A position of every registered family with a turn's events to report:
/// its first shipped scenario, set up from a fixed seed and played a few
/// phases with random orders (a pass where the family draws none), all
/// through the erased interface.
fn family_samples() -> Vec<Sample> {
    let seed = [7u8; 32];
    let mut out = Vec::new();
    for f in adjutant::rules::families() {
        let Some((scenario, ruleset)) = (f.scenarios)().into_iter().next() else {
            continue;
        };
        let (rules, source) = service::scenario_source(&scenario).expect("a shipped scenario");
        let mut state = service::setup_state(&rules, &source, &seed).expect("set up");
        let mut last = (Vec::new(), None);
        let mut rng = ChaChaDice::stream(&seed, "bench-orders");
        for turn in 1..=6 {
            let phase = rules.phase(&state);
            if phase.sides.is_empty() && rules.result(&state).is_some() {
                break;
            }
            let orders: Vec<Orders> = phase
                .sides
                .iter()
                .map(|side| Orders {
                    side: side.clone(),
                    text: rules
                        .random_orders(&state, side, &mut rng)
                        .filter(|o| rules.check(&state, side, o).is_ok())
                        .or_else(|| rules.pass_orders(&state, side))
                        .unwrap_or_default(),
                })
                .collect();
            let Ok(adj) = service::adjudicate_turn(&rules, &state, &seed, turn, &orders) else {
                break;
            };
            state = rules.numbered(adj.state, turn);
            last = (adj.events, phase.sides.first().cloned());
        }
        out.push(Sample {
            ruleset,
            scenario,
            rules,
            state,
            events: last.0,
            mover: last.1,
        });
    }
    out
}

/// One full turn report of every family, as the service builds it: the
/// parts (views, maps, combat report, order template, SVG, HTML, JSON)
/// through the erased interface for the first side, and the turn_report
/// template.
fn full_report(c: &mut Criterion) {
    let t = Templates::shipped();
    for Sample {
        ruleset,
        scenario,
        rules,
        state,
        events,
        mover,
    } in family_samples()
    {
        let Some(side) = rules.sides(&state).into_iter().next() else {
            continue;
        };
        let viewer = Viewer::Side(side);
        c.bench_function(&format!("full_report/{ruleset}"), |b| {
            b.iter(|| {
                let p = rules.report_parts(&state, &events, &viewer, mover.as_deref());
                let text = t.render(
                    "turn_report.txt",
                    json!({
                        "game_id": 1, "scenario": scenario, "turn": 6, "mover": mover,
                        "events": [], "combat": p.combat, "map": p.map,
                        "orders_template": p.orders, "over": false, "result": "", "seed": "",
                        "waiting": "Waiting for: allies", "deadline": null,
                        "turn_seed": "00", "next_commitment": "00", "state_hash": "00",
                    }),
                );
                let html = p.html("Game 1: turn 6", &text);
                black_box((text.len(), html.len(), p.json.len()))
            });
        });
    }
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
