//! The PNG written from palette indices in bands of rows (issue 57).
//!
//! A board's static layer (`layer`) is indexed once, with a palette of its
//! own ([`LAYER_COLOURS`] at most), and its rows deflated once in bands of
//! [`BAND`] rows, each band compressed alone (the compressor reset before
//! it, a sync flush after it: a band's bytes do not depend on the bands
//! before it). A picture drawn over the layer then:
//!
//! - finds, row by row, the span of pixels that differ from the layer's
//!   (a pure function of the two pixmaps, whatever was kept);
//! - adds to the layer's palette the most frequent colours of those spans
//!   that it lacks, up to [`MAX_COLOURS`](crate::MAX_COLOURS) in all;
//! - indexes only the pixels of those spans that differ from the layer's
//!   (nearest colour of the whole palette); every other pixel keeps the
//!   layer's index;
//! - deflates only the bands that hold such a span: a band no span touches
//!   is the layer's band, whose compressed bytes (and Adler-32) are kept.
//!
//! The layer's bands are parsed hard and deflated by our own encoder
//! (`lz`), their parses kept; a band drawn over starts from its layer
//! band's parse, keeps every match still true of its bytes and parses only
//! the rest anew, so that it costs a fraction of a deflate from scratch
//! for about the same size. A board too wide for `lz`'s 16-bit positions
//! (none today) and a picture with no layer are deflated by zlib-rs (pure
//! Rust, zlib-ng's algorithms: its output depends on the level and the
//! input only, not on the CPU's features).
//!
//! The zlib stream is the bands' raw deflate blocks one after another, an
//! empty final block, and the Adler-32 of the whole, combined from the
//! bands' own. Drawn fresh or from what was kept, a band is the same bytes,
//! so the PNG stays a pure function of the SVG.

use crate::lz;
use resvg::tiny_skia::Pixmap;
use zlib_rs::{Deflate, DeflateConfig, DeflateFlush};

/// Rows in a band. Each band is compressed alone, so its first row finds
/// nothing above it to copy: at 16 rows a busy board's PNG was 3-4% larger
/// than at 32, and a Kriegspiel referee's copy reached the 80 KB bound.
pub(crate) const BAND: usize = 32;

/// The most colours the layer's own palette keeps; the rest of
/// [`crate::MAX_COLOURS`] is for the colours drawn over it.
pub(crate) const LAYER_COLOURS: usize = 48;

/// One band deflated: its raw deflate bytes (ending in a sync flush), the
/// Adler-32 of its uncompressed bytes and their length.
struct Deflated {
    z: Vec<u8>,
    adler: u32,
    len: usize,
}

/// A static layer's indexed form, kept with its pixels.
pub(crate) struct Base {
    palette: Vec<[u8; 3]>,
    /// One index a pixel, row after row.
    index: Vec<u8>,
    bits: u8,
    bands: Vec<Deflated>,
    /// Each band's parse (`lz`), the start of a band drawn over's; empty
    /// when the bands are too long for it (zlib-rs then, as before).
    parses: Vec<Vec<lz::Match>>,
}

impl Base {
    /// Its bytes in memory (for the layer cache's bound).
    pub(crate) fn bytes(&self) -> usize {
        self.index.len()
            + self.bands.iter().map(|b| b.z.len()).sum::<usize>()
            + self
                .parses
                .iter()
                .map(|p| p.len() * std::mem::size_of::<lz::Match>())
                .sum::<usize>()
    }
}

/// 15-bit key of an RGB colour (5 bits a channel).
fn key(p: &[u8]) -> usize {
    (usize::from(p[0] >> 3) << 10) | (usize::from(p[1] >> 3) << 5) | usize::from(p[2] >> 3)
}

/// Colour counts by 15-bit key, with the first exact colour seen in each,
/// and the keys counted (in the order first seen).
struct Counts {
    count: Vec<u32>,
    first: Vec<[u8; 3]>,
    used: Vec<u16>,
}

impl Counts {
    fn new() -> Counts {
        Counts {
            count: vec![0; 1 << 15],
            first: vec![[0; 3]; 1 << 15],
            used: Vec::new(),
        }
    }

    /// Forgets every count (only the keys counted are cleared).
    fn clear(&mut self) {
        for &k in &self.used {
            self.count[usize::from(k)] = 0;
        }
        self.used.clear();
    }

    fn add(&mut self, p: [u8; 4], n: u32) {
        let k = key(&p);
        if self.count[k] == 0 {
            self.first[k] = [p[0], p[1], p[2]];
            self.used.push(k as u16);
        }
        self.count[k] += n;
    }

    /// Counts the pixels of `rgba` (runs of one colour counted at once).
    fn pixels(&mut self, rgba: &[u8]) {
        let mut px = rgba.as_chunks::<4>().0.iter();
        if let Some(&first) = px.next() {
            let (mut run, mut n) = (first, 1u32);
            for &p in px {
                // Compared as one word.
                if u32::from_ne_bytes(p) == u32::from_ne_bytes(run) {
                    n += 1;
                } else {
                    self.add(run, n);
                    (run, n) = (p, 1);
                }
            }
            self.add(run, n);
        }
    }

    /// The `max` most frequent buckets not in `skip`, each as the first
    /// exact colour seen in it, ties broken by key (deterministic: the
    /// order is total, whatever order the keys were met in).
    fn top(&self, max: usize, skip: &[[u8; 3]]) -> Vec<[u8; 3]> {
        let skip: Vec<usize> = skip.iter().map(|c| key(c)).collect();
        let mut used: Vec<usize> = self
            .used
            .iter()
            .map(|&k| usize::from(k))
            .filter(|k| !skip.contains(k))
            .collect();
        used.sort_by(|a, b| self.count[*b].cmp(&self.count[*a]).then(a.cmp(b)));
        used.truncate(max);
        used.into_iter().map(|k| self.first[k]).collect()
    }
}

thread_local! {
    /// The thread's colour counts for the pictures drawn over a layer
    /// (cleared after each: 224 KB zeroed for every picture before).
    static COUNTS: std::cell::RefCell<Option<Counts>> = const { std::cell::RefCell::new(None) };
}

fn nearest(pal: &[[u8; 3]], p: &[u8]) -> u8 {
    let d = |c: &[u8; 3]| -> i32 {
        (0..3)
            .map(|i| {
                let e = i32::from(c[i]) - i32::from(p[i]);
                e * e
            })
            .sum()
    };
    let mut best = 0usize;
    let mut best_d = i32::MAX;
    for (i, c) in pal.iter().enumerate() {
        let dc = d(c);
        if dc < best_d {
            (best, best_d) = (i, dc);
        }
    }
    u8::try_from(best).unwrap_or(0)
}

/// Pixels to palette indices: each pixel the colour nearest the first pixel
/// of its 15-bit bucket (a bucket's colours differ by less than 8 a channel).
struct Indexer<'a> {
    palette: &'a [[u8; 3]],
    lut: Vec<u8>,
}

impl<'a> Indexer<'a> {
    fn new(palette: &'a [[u8; 3]]) -> Self {
        Indexer {
            palette,
            lut: vec![u8::MAX; 1 << 15],
        }
    }

    fn index(&mut self, rgba: &[u8], out: &mut [u8]) {
        let px = rgba.as_chunks::<4>().0;
        let Some(&first) = px.first() else { return };
        // The last pixel looked up, as one word (none yet: a word no pixel
        // of the run equals at its start), and its index.
        let (mut q, mut qi) = (!u32::from_ne_bytes(first), 0u8);
        for (ix, &p) in out.iter_mut().zip(px) {
            let v = u32::from_ne_bytes(p);
            if v != q {
                let k = key(&p);
                if self.lut[k] == u8::MAX {
                    self.lut[k] = nearest(self.palette, &p);
                }
                (q, qi) = (v, self.lut[k]);
            }
            *ix = qi;
        }
    }
}

fn bits_for(palette: &[[u8; 3]]) -> u8 {
    if palette.len() <= 16 {
        4
    } else {
        8
    }
}

/// The deflate level of a static layer's bands: deflated once per
/// scenario and seat, and most of every picture over it, so deflated hard.
const LAYER_LEVEL: i32 = 9;

/// The deflate level of the bands drawn over a layer `w` pixels wide (units
/// lie across most rows of a board, so most bands of every picture):
/// zlib-rs's level 2 (greedy matching, short chains) for the boards under
/// [`crate::WIDE_PIXELS`], and 6 (lazy matching) for the wider ones
/// (Memoir '44's 1,098 pixels, Charge!'s 1,080, Minden's 1,000), whose busy
/// turns' report mails are nearest the 80 KB bound: at level 2 Pegasus
/// Bridge's went to 88,585 bytes. Before, these bands were deflated at the
/// layer's level (miniz level 9 for the wide boards, 3 for the others), most
/// of a picture's time: docs/performance.md has the figures.
fn top_level(w: usize) -> i32 {
    if w as f32 >= crate::WIDE_PIXELS {
        6
    } else {
        2
    }
}

/// The deflate level of a picture drawn whole (no static layer under it).
const WHOLE_LEVEL: i32 = 6;

/// A PNG row: the filter byte (none) and the indices packed at `bits`.
fn pack(row: &[u8], bits: u8, out: &mut Vec<u8>) {
    out.push(0);
    if bits == 4 {
        out.extend(
            row.chunks(2)
                .map(|p| (p[0] << 4) | p.get(1).copied().unwrap_or(0)),
        );
    } else {
        out.extend_from_slice(row);
    }
}

/// Adler-32 of `data`, from `a` (1 for a fresh one): zlib-rs's, which
/// uses the CPU's vector instructions (the same sums on every CPU).
fn adler32(a: u32, data: &[u8]) -> u32 {
    zlib_rs::adler32::adler32(a, data)
}

/// The Adler-32 of `x` then `y` from theirs and `y`'s length (zlib's
/// `adler32_combine`).
fn adler32_combine(a1: u32, a2: u32, len2: usize) -> u32 {
    const MOD: u32 = 65521;
    let rem = (len2 % MOD as usize) as u32;
    let mut sum1 = a1 & 0xffff;
    let mut sum2 = (rem * sum1) % MOD;
    sum1 += (a2 & 0xffff) + MOD - 1;
    sum2 += (a1 >> 16) + (a2 >> 16) + MOD - rem;
    if sum1 >= MOD {
        sum1 -= MOD;
    }
    if sum1 >= MOD {
        sum1 -= MOD;
    }
    if sum2 >= MOD << 1 {
        sum2 -= MOD << 1;
    }
    if sum2 >= MOD {
        sum2 -= MOD;
    }
    (sum2 << 16) | sum1
}

/// A raw deflate compressor (no zlib header) at `level`.
fn compressor(level: i32) -> Deflate {
    Deflate::new_with_config(DeflateConfig {
        level,
        window_bits: -15,
        ..DeflateConfig::default()
    })
}

thread_local! {
    /// The thread's compressors, one a level, reset before each band: a
    /// compressor is a few hundred KB of tables, made and freed for every
    /// picture before (its bytes do not depend on what it deflated before
    /// a reset: zlib-rs 0.6.8 has the fix of its issue 459).
    static COMPRESSORS: std::cell::RefCell<Vec<(i32, Deflate)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `f` with this thread's compressor at `level`.
fn with_compressor<R>(level: i32, f: impl FnOnce(&mut Deflate) -> R) -> R {
    let mut c = COMPRESSORS
        .with(|k| {
            let mut k = k.borrow_mut();
            let at = k.iter().position(|(l, _)| *l == level)?;
            Some(k.swap_remove(at).1)
        })
        .unwrap_or_else(|| compressor(level));
    let r = f(&mut c);
    COMPRESSORS.with(|k| k.borrow_mut().push((level, c)));
    r
}

/// Deflates one band's raw rows alone (`c` reset first), ending in a sync
/// flush (an empty stored block: byte-aligned, not final); `z` is room to
/// deflate into, grown as needed.
fn deflate_band(c: &mut Deflate, raw: &[u8], z: &mut Vec<u8>) -> Option<Deflated> {
    c.reset();
    // Room for the worst case (stored blocks) and the flush's marker: the
    // flush is complete when it stops short of the room.
    let room = zlib_rs::compress_bound(raw.len()) + 64;
    if z.len() < room {
        z.resize(room, 0);
    }
    let z = &mut z[..room];
    c.compress(raw, z, DeflateFlush::SyncFlush).ok()?;
    let (read, wrote) = (c.total_in(), c.total_out());
    if usize::try_from(read).ok()? != raw.len() || usize::try_from(wrote).ok()? >= z.len() {
        return None;
    }
    Some(Deflated {
        z: z[..usize::try_from(wrote).ok()?].to_vec(),
        adler: adler32(1, raw),
        len: raw.len(),
    })
}

/// Appends to `out` each run `a..b` of pixels (indices into the pixmaps)
/// among `lo..hi` whose pixels in `now` differ from those in `was`, left
/// to right. Equal pixels are skipped eight at a time (one 32-byte
/// comparison); a pixel is compared as its four bytes at once.
fn diff_runs(now: &[u8], was: &[u8], (lo, hi): (usize, usize), out: &mut Vec<(usize, usize)>) {
    let now = now[lo * 4..hi * 4].as_chunks::<4>().0;
    let was = was[lo * 4..hi * 4].as_chunks::<4>().0;
    let n = now.len();
    // Eight pixels equal, as four words (a slice comparison called memcmp).
    let eight = |i: usize| {
        let (a, b) = (now[i..i + 8].as_flattened(), was[i..i + 8].as_flattened());
        let w = |s: &[u8], k: usize| u64::from_ne_bytes(s[k..k + 8].try_into().unwrap_or([0; 8]));
        (w(a, 0) ^ w(b, 0)) | (w(a, 8) ^ w(b, 8)) | (w(a, 16) ^ w(b, 16)) | (w(a, 24) ^ w(b, 24))
            == 0
    };
    let px = |s: &[[u8; 4]], i: usize| u32::from_ne_bytes(s[i]);
    let mut i = 0;
    loop {
        while i + 8 <= n && eight(i) {
            i += 8;
        }
        if i >= n {
            break;
        }
        if px(now, i) == px(was, i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && px(now, i) != px(was, i) {
            i += 1;
        }
        out.push((lo + start, lo + i));
    }
}

/// The bands of a picture `h` rows high, deflated at `level` (`rows` writes row `y`'s PNG bytes),
/// band `b` left empty, to be taken from `kept`, when `reuse(b)`.
fn bands(
    (h, level): (usize, i32),
    mut rows: impl FnMut(usize, &mut Vec<u8>),
    reuse: impl Fn(usize) -> bool,
    kept: Option<&[Deflated]>,
) -> Option<Vec<Deflated>> {
    with_compressor(level, |c| {
        let mut out = Vec::with_capacity(h.div_ceil(BAND));
        let (mut raw, mut z) = (Vec::new(), Vec::new());
        for b in 0..h.div_ceil(BAND) {
            if let (true, Some(k)) = (reuse(b), kept) {
                out.push(Deflated {
                    z: Vec::new(),
                    adler: k[b].adler,
                    len: k[b].len,
                });
                continue;
            }
            raw.clear();
            for y in b * BAND..((b + 1) * BAND).min(h) {
                rows(y, &mut raw);
            }
            out.push(deflate_band(c, &raw, &mut z)?);
        }
        Some(out)
    })
}

/// The PNG file: `palette`, `bits`, and the zlib stream of `bands` (an empty
/// band's bytes taken from `kept`).
fn png_file(
    w: usize,
    h: usize,
    palette: &[[u8; 3]],
    bits: u8,
    bands: &[Deflated],
    kept: Option<&[Deflated]>,
) -> Vec<u8> {
    let z_of = |i: usize| -> &[u8] {
        match (&bands[i].z[..], kept) {
            ([], Some(k)) => &k[i].z,
            (z, _) => z,
        }
    };
    let zlen: usize = (0..bands.len()).map(|i| z_of(i).len()).sum();
    let mut out = Vec::with_capacity(zlen + 3 * palette.len() + 80);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let chunk = |out: &mut Vec<u8>, kind: &[u8; 4], parts: &[&[u8]]| {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        out.extend_from_slice(&(len as u32).to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(kind);
        out.extend_from_slice(kind);
        for p in parts {
            crc.update(p);
            out.extend_from_slice(p);
        }
        out.extend_from_slice(&crc.finalize().to_be_bytes());
    };
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[bits, 3, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &[&ihdr]);
    let plte: Vec<u8> = palette.iter().flatten().copied().collect();
    chunk(&mut out, b"PLTE", &[&plte]);
    let adler = bands
        .iter()
        .fold(1, |a, b| adler32_combine(a, b.adler, b.len));
    // zlib header (deflate, 32K window, no dictionary), the bands, an
    // empty final block (fixed Huffman: end of block), the Adler-32.
    let mut parts: Vec<&[u8]> = vec![&[0x78, 0x01]];
    parts.extend((0..bands.len()).map(z_of));
    let tail = adler.to_be_bytes();
    parts.push(&[0x03, 0x00]);
    parts.push(&tail);
    chunk(&mut out, b"IDAT", &parts);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The layer's indexed form.
pub(crate) fn base(layer: &Pixmap) -> Option<Base> {
    let (w, h) = (layer.width() as usize, layer.height() as usize);
    let mut counts = Counts::new();
    counts.pixels(layer.data());
    let palette = counts.top(LAYER_COLOURS, &[]);
    let mut index = vec![0u8; w * h];
    let mut ix = Indexer::new(&palette);
    for (row, px) in index
        .chunks_exact_mut(w)
        .zip(layer.data().chunks_exact(w * 4))
    {
        ix.index(px, row);
    }
    let bits = bits_for(&palette);
    let rows = |y: usize, raw: &mut Vec<u8>| pack(&index[y * w..][..w], bits, raw);
    let (bands, parses) = if row_bytes(w, bits) * BAND <= lz::MAX_BAND {
        layer_bands(h, rows)
    } else {
        let bands = bands((h, LAYER_LEVEL), rows, |_| false, None)?;
        (bands, Vec::new())
    };
    Some(Base {
        palette,
        index,
        bits,
        bands,
        parses,
    })
}

/// A PNG row's bytes (its filter byte included) at `bits` a pixel.
fn row_bytes(w: usize, bits: u8) -> usize {
    1 + if bits == 4 { w.div_ceil(2) } else { w }
}

/// A static layer's bands `h` rows high (`rows` writes row `y`'s PNG
/// bytes), each parsed hard and deflated with that parse (`lz`), and the
/// parses.
fn layer_bands(
    h: usize,
    mut rows: impl FnMut(usize, &mut Vec<u8>),
) -> (Vec<Deflated>, Vec<Vec<lz::Match>>) {
    let (mut bands, mut parses) = (Vec::new(), Vec::new());
    let mut raw = Vec::new();
    for b in 0..h.div_ceil(BAND) {
        raw.clear();
        for y in b * BAND..((b + 1) * BAND).min(h) {
            rows(y, &mut raw);
        }
        let parse = lz::parse_layer(&raw);
        let mut z = Vec::new();
        lz::deflate_parsed(&raw, &parse, &mut z);
        bands.push(Deflated {
            z,
            adler: adler32(1, &raw),
            len: raw.len(),
        });
        parses.push(parse);
    }
    (bands, parses)
}

thread_local! {
    /// The thread's room for parsing the bands drawn over (`lz`).
    static SCRATCH: std::cell::RefCell<Option<lz::Scratch>> =
        const { std::cell::RefCell::new(None) };
}

/// The bands of a picture `h` rows high drawn over `base` (`rows` writes
/// row `y`'s PNG bytes, `stride` long): band `b` left empty, to be taken
/// from the layer's, when `reuse(b)`; the others parsed from the layer's
/// parse (when the picture's rows are packed as the layer's) and deflated
/// (`lz`).
fn bands_over(
    (h, stride): (usize, usize),
    base: &Base,
    mut rows: impl FnMut(usize, &mut Vec<u8>),
    reuse: impl Fn(usize) -> bool,
    same_bits: bool,
) -> Vec<Deflated> {
    let mut s = SCRATCH
        .with(|k| k.borrow_mut().take())
        .unwrap_or_else(lz::Scratch::new);
    let mut out = Vec::with_capacity(h.div_ceil(BAND));
    let mut raw = Vec::new();
    for b in 0..h.div_ceil(BAND) {
        if reuse(b) {
            let k = &base.bands[b];
            out.push(Deflated {
                z: Vec::new(),
                adler: k.adler,
                len: k.len,
            });
            continue;
        }
        raw.clear();
        for y in b * BAND..((b + 1) * BAND).min(h) {
            rows(y, &mut raw);
        }
        let start: &[lz::Match] = if same_bits { &base.parses[b] } else { &[] };
        let mut z = Vec::new();
        lz::deflate_over(&raw, start, stride, &mut s, &mut z);
        out.push(Deflated {
            z,
            adler: adler32(1, &raw),
            len: raw.len(),
        });
    }
    SCRATCH.with(|k| *k.borrow_mut() = Some(s));
    out
}

/// The PNG of `pixmap`, drawn over `layer` whose indexed form is `base`,
/// where `drawn_over` says (each row's other pixels are the layer's); its
/// rows deflated as [`one_stream`] when `smallest`.
pub(crate) fn over(
    pixmap: &Pixmap,
    layer: &Pixmap,
    base: &Base,
    drawn_over: &crate::Changed,
    smallest: bool,
) -> Option<Vec<u8>> {
    let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
    if (layer.width() as usize, layer.height() as usize) != (w, h) || drawn_over.len() != h {
        return whole(pixmap, smallest);
    }
    let (now, was) = (pixmap.data(), layer.data());
    // The runs of pixels that differ from the layer's, found once: row
    // `y`'s are `runs[at[y]..at[y + 1]]`.
    let mut runs = Vec::new();
    let mut at = Vec::with_capacity(h + 1);
    for y in 0..h {
        at.push(runs.len());
        for (x0, x1) in drawn_over.runs(y) {
            diff_runs(now, was, (y * w + x0, y * w + x1), &mut runs);
        }
    }
    at.push(runs.len());
    let row_runs = |y: usize| &runs[at[y]..at[y + 1]];
    let mut counts = COUNTS
        .with(|k| k.borrow_mut().take())
        .unwrap_or_else(Counts::new);
    for &(a, b) in &runs {
        counts.pixels(&now[a * 4..b * 4]);
    }
    let room = crate::MAX_COLOURS.saturating_sub(base.palette.len());
    let mut palette = base.palette.clone();
    palette.extend(counts.top(room, &base.palette));
    counts.clear();
    COUNTS.with(|k| *k.borrow_mut() = Some(counts));
    let bits = bits_for(&palette);
    let mut ix = Indexer::new(&palette);
    let mut r = vec![0u8; w];
    let mut rows = |y: usize, raw: &mut Vec<u8>| {
        let at = y * w;
        if bits == 8 {
            // The row's indices written in place: the filter byte, the
            // layer's indices, the changed runs indexed over them.
            raw.push(0);
            let start = raw.len();
            raw.extend_from_slice(&base.index[at..][..w]);
            for &(a, b) in row_runs(y) {
                ix.index(&now[a * 4..b * 4], &mut raw[start + a - at..start + b - at]);
            }
        } else {
            r.copy_from_slice(&base.index[at..][..w]);
            for &(a, b) in row_runs(y) {
                ix.index(&now[a * 4..b * 4], &mut r[a - at..b - at]);
            }
            pack(&r, bits, raw);
        }
    };
    if smallest {
        let one = one_stream(h, row_bytes(w, bits), &mut rows)?;
        return Some(png_file(w, h, &palette, bits, &[one], None));
    }
    // A band none of whose rows changed is the layer's.
    let clean = |b: usize| bits == base.bits && at[b * BAND] == at[((b + 1) * BAND).min(h)];
    let bands =
        if base.parses.len() == h.div_ceil(BAND) && row_bytes(w, bits) * BAND <= lz::MAX_BAND {
            let same_bits = bits == base.bits;
            bands_over((h, row_bytes(w, bits)), base, rows, clean, same_bits)
        } else {
            bands((h, top_level(w)), rows, clean, Some(&base.bands))?
        };
    Some(png_file(w, h, &palette, bits, &bands, Some(&base.bands)))
}

/// The PNG of `pixmap` alone (no layer under it); its rows deflated as
/// [`one_stream`] when `smallest`.
pub(crate) fn whole(pixmap: &Pixmap, smallest: bool) -> Option<Vec<u8>> {
    let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
    let mut counts = Counts::new();
    counts.pixels(pixmap.data());
    let palette = counts.top(crate::MAX_COLOURS, &[]);
    let mut ix = Indexer::new(&palette);
    let bits = bits_for(&palette);
    let mut row = vec![0u8; w];
    let mut rows = |y: usize, raw: &mut Vec<u8>| {
        ix.index(&pixmap.data()[y * w * 4..][..w * 4], &mut row);
        pack(&row, bits, raw);
    };
    if smallest {
        let one = one_stream(h, row_bytes(w, bits), &mut rows)?;
        return Some(png_file(w, h, &palette, bits, &[one], None));
    }
    let bands = bands((h, WHOLE_LEVEL), rows, |_| false, None)?;
    Some(png_file(w, h, &palette, bits, &bands, None))
}

/// The `h` rows of a picture (`rows` writes row `y`'s PNG bytes, `stride`
/// long) deflated as one stream at [`SMALLEST_LEVEL`], not in bands: the
/// same pixels, palette and indices, 10-20% fewer bytes for a mail that
/// would otherwise be over its bound, at three to five times a picture's
/// encoding time.
fn one_stream(
    h: usize,
    stride: usize,
    rows: &mut impl FnMut(usize, &mut Vec<u8>),
) -> Option<Deflated> {
    let mut raw = Vec::with_capacity(h * stride);
    for y in 0..h {
        rows(y, &mut raw);
    }
    let mut z = Vec::new();
    with_compressor(SMALLEST_LEVEL, |c| deflate_band(c, &raw, &mut z))
}

/// [`one_stream`]'s deflate level.
const SMALLEST_LEVEL: i32 = 9;

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of changed pixels, found eight at a time, are those a
    /// pixel-by-pixel comparison finds, wherever they start and end.
    #[test]
    fn the_changed_runs_are_the_pixels_that_differ() {
        let mut x = 7u32;
        let mut rand = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            x >> 16
        };
        for round in 0..300 {
            let n = 1 + (rand() as usize % 90);
            let was: Vec<u8> = (0..n * 4).map(|_| (rand() % 3) as u8).collect();
            let mut now = was.clone();
            for _ in 0..rand() % 6 {
                let (a, len) = (rand() as usize % n, 1 + rand() as usize % 20);
                for i in a..(a + len).min(n) {
                    // Sometimes one channel only, sometimes the alpha.
                    now[i * 4 + (rand() as usize % 4)] ^= 1 + (round % 7) as u8;
                }
            }
            let (lo, hi) = (rand() as usize % n, n);
            let mut got = Vec::new();
            diff_runs(&now, &was, (lo, hi), &mut got);
            let mut want = Vec::new();
            let mut run: Option<usize> = None;
            for i in lo..hi {
                match (now[i * 4..i * 4 + 4] != was[i * 4..i * 4 + 4], run) {
                    (true, None) => run = Some(i),
                    (false, Some(s)) => {
                        want.push((s, i));
                        run = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = run {
                want.push((s, hi));
            }
            assert_eq!(got, want, "round {round}");
        }
    }

    #[test]
    fn adler32_combines_as_one_pass() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 5552, 40_000, 99_999] {
            let (x, y) = data.split_at(cut);
            assert_eq!(
                adler32_combine(adler32(1, x), adler32(1, y), y.len()),
                adler32(1, &data),
                "{cut}"
            );
        }
    }
}
