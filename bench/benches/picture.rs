//! Criterion: the board picture of a distinct board (issue 57), the way the
//! mail path meets it: every game's board is its own, so the cache of whole
//! pictures never answers, but the boards of one scenario seen from one
//! seat share their terrain, grid, labels and legend.
//!
//! - `picture_distinct_cold`: one board drawn with nothing kept (the first
//!   picture of a scenario and seat after a start);
//! - `picture_distinct_warm`: boards of the same scenario and seat, each
//!   one never drawn before (a unit fewer in each), one after another;
//! - `picture_distinct_warm_moved`: the same, each board with one of its
//!   units moved a little, somewhere never drawn before: one piece of the
//!   top is new in each (a turn moves a few units);
//! - `picture_distinct_warm_top_whole`: the same, the top (what is drawn
//!   over the layer) drawn whole, not from its kept pieces: the code path
//!   before the pieces, so the figure to compare the warm one with;
//! - `picture_distinct_warm_old_encode`: the warm boards' pixels (the layer
//!   and pieces kept) indexed and deflated whole, every pixel and row
//!   (`quantise`, `deflate`): the encoding before the banded one, so the
//!   figure to compare the warm one with;
//! - `picture_distinct_whole`: the same boards each drawn whole, never cut
//!   at its static layer (`picture::draw_whole`): the code path of every
//!   picture before issue 57, so the figure to compare the two above with;
//! - `picture_distinct_warm_games`: the boards of 200 games of one scenario
//!   (Pegasus Bridge, 12 turns of random legal orders from 200 seeds, the
//!   Allies' view), one after another: every board its own, its units at
//!   hexes of their own and its last turn's arrows its own, as the mail
//!   path meets them (the boards above are one game's, less a unit).
//!
//! `cargo bench -p adjutant-bench --bench picture -- --quick`

use adjutant::report::picture;
use adjutant::rules::memoir44::report::sample;
use adjutant::rules::Load;
use adjutant::rules::{Rules, State, Viewer};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

/// The sample board (Pegasus Bridge, the allies' view) and `n` distinct
/// boards made from it, each without one of its units.
fn boards(n: usize) -> (String, Vec<String>) {
    let s = sample::standard();
    let rules = Rules::load("memoir44").expect("rules");
    let state = State::of(s.state.clone());
    let p = rules.report_parts(&state, &[], &Viewer::Side("allies".into()), Some(&s.mover));
    let svg = p.svg.clone();
    let starts: Vec<usize> = svg
        .match_indices("<g class=\"unit\"")
        .map(|(i, _)| i)
        .collect();
    assert!(starts.len() >= n, "{} units", starts.len());
    let distinct = starts[..n]
        .iter()
        .map(|&at| {
            let end = element_end(&svg, at);
            format!("{}{}", &svg[..at], &svg[end..])
        })
        .collect();
    (svg, distinct)
}

/// One past the `</g>` that closes the `<g>` opening at `at` (a unit holds
/// groups of its own: its strength pips). Cutting at the first `</g>` left
/// the unit's own `</g>` behind, an SVG that does not parse: the bench
/// panicked ("draws") once the units had pips.
fn element_end(svg: &str, at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        let next = i + svg[i..].find('<').expect("a tag");
        let close = next + svg[next..].find('>').expect("a tag's end") + 1;
        let tag = &svg[next..close];
        if tag.starts_with("</g") {
            depth -= 1;
            if depth == 0 {
                return close;
            }
        } else if (tag.starts_with("<g ") || tag.starts_with("<g>")) && !tag.ends_with("/>") {
            depth += 1;
        }
        i = close;
    }
}

/// The Allies' boards of `n` games of Pegasus Bridge, each played 12 turns
/// with random legal orders from its own seed.
fn games(n: u8) -> Vec<String> {
    let rules = Rules::load("memoir44").expect("rules");
    (0..n)
        .filter_map(|k| sample::play("pegasus-bridge", [k; 32], 12))
        .map(|s| {
            let state = State::of(s.state);
            rules
                .report_parts(&state, &[], &Viewer::Side("allies".into()), Some(&s.mover))
                .svg
        })
        .collect()
}

fn forget_all() {
    picture::forget_drawn();
    picture::forget_layers();
}

fn picture_distinct(c: &mut Criterion) {
    let (svg, distinct) = boards(8);
    {
        // The PNG's size, banded over the layer and as before (once).
        forget_all();
        let _ = picture::draw(&svg);
        let new = picture::draw(&distinct[0]).map_or(0, |d| d.0.len());
        let (p, ..) = picture::pixels_how(&distinct[0]).expect("draws");
        let old = picture::deflate(&picture::quantise(p.width(), p.height(), p.data()))
            .map_or(0, |b| b.len());
        eprintln!("picture_distinct PNG bytes: banded {new}, whole encoding {old}");
    }
    c.bench_function("picture_distinct_cold", |b| {
        b.iter(|| {
            forget_all();
            black_box(picture::png(black_box(&svg)).map(|(b, ..)| b.len()))
        });
    });
    forget_all();
    let mut i = 0;
    c.bench_function("picture_distinct_warm", |b| {
        b.iter(|| {
            // Not this very drawing: the whole pictures are forgotten.
            picture::forget_drawn();
            i = (i + 1) % distinct.len();
            black_box(picture::png(black_box(&distinct[i])).map(|(b, ..)| b.len()))
        });
    });
    let at = svg.find("<use href=\"#u\" x=\"").expect("a unit") + "<use href=\"#u\" x=\"".len();
    let x_end = at + svg[at..].find('"').expect("x");
    let x: f32 = svg[at..x_end].parse().expect("a number");
    let moved: Vec<String> = (1..=2000)
        .map(|k| format!("{}{}{}", &svg[..at], x + k as f32 * 0.001, &svg[x_end..]))
        .collect();
    let mut k = 0;
    c.bench_function("picture_distinct_warm_moved", |b| {
        b.iter(|| {
            picture::forget_drawn();
            k = (k + 1) % moved.len();
            black_box(picture::png(black_box(&moved[k])).map(|(b, ..)| b.len()))
        });
    });
    c.bench_function("picture_distinct_warm_old_encode", |b| {
        b.iter(|| {
            i = (i + 1) % distinct.len();
            let (p, ..) = picture::pixels_how(black_box(&distinct[i])).expect("draws");
            black_box(picture::deflate(&picture::quantise(
                p.width(),
                p.height(),
                p.data(),
            )))
            .map(|b| b.len())
        });
    });
    c.bench_function("picture_distinct_warm_top_whole", |b| {
        b.iter(|| {
            i = (i + 1) % distinct.len();
            black_box(
                picture::draw_how_with(black_box(&distinct[i]), false).map(|(b, _)| b.0.len()),
            )
        });
    });
    let played = games(200);
    forget_all();
    let mut g = 0;
    c.bench_function("picture_distinct_warm_games", |b| {
        b.iter(|| {
            picture::forget_drawn();
            g = (g + 1) % played.len();
            black_box(picture::png(black_box(&played[g])).map(|(b, ..)| b.len()))
        });
    });
    c.bench_function("picture_distinct_whole", |b| {
        b.iter(|| {
            i = (i + 1) % distinct.len();
            black_box(picture::draw_whole(black_box(&distinct[i])).map(|(b, ..)| b.len()))
        });
    });
}

criterion_group!(benches, picture_distinct);
criterion_main!(benches);
