//! Times a board's picture, cold and warm, and its stages (issue 57):
//! `cargo run --release -p adjutant-picture --example stages -- FILE.svg...`
use adjutant_picture as picture;
use std::time::Instant;

fn main() {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for f in std::env::args().skip(1) {
        let svg = std::fs::read_to_string(&f).expect("read");
        picture::forget_layers();
        let t = Instant::now();
        let cold = picture::draw(&svg).expect("draws");
        let cold_t = t.elapsed();
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(picture::pixels_how(&svg));
        }
        let pix = t.elapsed() / n as u32;
        let t = Instant::now();
        let mut len = 0;
        for _ in 0..n {
            len = picture::draw(&svg).map_or(0, |d| d.0.len());
        }
        let warm = t.elapsed() / n as u32;
        println!(
            "{f}: cold {cold_t:?} ({} bytes), warm {warm:?} ({len} bytes): pixels {pix:?}, encode {:?}",
            cold.0.len(),
            warm.saturating_sub(pix)
        );
        if let Ok(dir) = std::env::var("OUT") {
            let name = std::path::Path::new(&f)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            std::fs::write(format!("{dir}/{name}.png"), &cold.0).expect("write");
        }
    }
}
