//! Times the pictures of many distinct boards drawn one after another, the
//! way a delivery pass meets them (issue 57): the first drawn cold, the
//! rest over the layers and pieces kept from the ones before.
//! `cargo run --release -p adjutant-picture --example sequence -- FILE.svg...`
//! (ROUNDS=n draws the whole list n times, forgetting everything between;
//! OUT=DIR writes each PNG of the last round to DIR/NNN.png, in order, to
//! compare two builds' pixels.)
use adjutant_picture as picture;
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let svgs: Vec<String> = std::env::args()
        .skip(1)
        .map(|f| std::fs::read_to_string(&f).expect("read"))
        .collect();
    let out = std::env::var("OUT").ok();
    let mut best = None;
    let mut bytes = 0;
    let mut most = 0;
    // FNV-1a of every PNG's bytes in order: two builds that draw the same
    // pictures print the same.
    let mut fnv = 0xcbf2_9ce4_8422_2325u64;
    let mut hash = |b: &[u8]| {
        for &x in b {
            fnv = (fnv ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for _ in 0..rounds {
        picture::forget_layers();
        let t = Instant::now();
        let first = picture::draw(&svgs[0]).expect("draws");
        let cold = t.elapsed();
        let t = Instant::now();
        bytes = first.0.len();
        most = first.0.len();
        hash(&first.0);
        let write = |i: usize, png: &[u8]| {
            if let Some(dir) = &out {
                std::fs::write(format!("{dir}/{i:03}.png"), png).expect("write");
            }
        };
        write(0, &first.0);
        for (i, svg) in svgs.iter().enumerate().skip(1) {
            let png = picture::draw(svg).expect("draws").0;
            write(i, &png);
            hash(&png);
            bytes += png.len();
            most = most.max(png.len());
        }
        let warm = t.elapsed() / (svgs.len().max(2) - 1) as u32;
        if best.is_none_or(|(_, w)| warm < w) {
            best = Some((cold, warm));
        }
    }
    let (cold, warm) = best.expect("a round");
    println!(
        "{} boards: first (cold) {cold:?}, then {warm:?} a board (best of {rounds}); PNG bytes {} on average, {most} at most; FNV-1a of all {fnv:016x}",
        svgs.len(),
        bytes / svgs.len()
    );
}
