//! A deflate of our own for the bands of a picture drawn over a static
//! layer (issue 57).
//!
//! A static layer's band is parsed once, hard ([`parse_layer`]: hash chains,
//! lazy matching), and its matches kept. A band drawn over is most of it the
//! layer's bytes, so its parse starts from the layer's ([`parse_over`]):
//! every match of the layer whose bytes and whose source bytes are still
//! equal in the band (one slice comparison each) is kept as it is, and only
//! the stretches between the kept matches are parsed anew, quickly (greedy,
//! a few candidates: the byte before, the row above, a short hash chain).
//! The band's matches and literals are then written as one deflate block
//! with Huffman codes of their own ([`write_block`]), ended by a sync flush,
//! so that the band stands alone in the zlib stream as before.
//!
//! Every step is a pure function of the band's bytes and the layer's (no
//! clock, no state carried from a band to the next), so a picture stays a
//! pure function of its SVG.

/// Shortest and longest match, and the farthest source, deflate allows.
const MIN: usize = 3;
const MAX: usize = 258;
const WINDOW: usize = 32_768;

/// A match of a band's parse, positions relative to the band: bytes
/// `pos..pos + len` are a copy of those `dist` before them. The bytes
/// between two matches are literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Match {
    pos: u16,
    len: u16,
    dist: u16,
}

impl Match {
    fn new(pos: usize, len: usize, dist: usize) -> Match {
        // A band is at most 32 rows of a board under 2,000 pixels (the
        // widest is 1,200): its positions fit in 16 bits (band.rs checks
        // before it parses, and deflates a wider board by zlib-rs).
        Match {
            pos: pos as u16,
            len: len as u16,
            dist: dist as u16,
        }
    }

    fn at(self) -> (usize, usize, usize) {
        (
            usize::from(self.pos),
            usize::from(self.len),
            usize::from(self.dist),
        )
    }
}

/// The largest band [`Match`] can address.
pub(crate) const MAX_BAND: usize = u16::MAX as usize;

/// How many bytes `d[a..]` and `d[b..]` have in common, up to `max`.
fn common(d: &[u8], a: usize, b: usize, max: usize) -> usize {
    let (x, y) = (&d[a..a + max], &d[b..b + max]);
    let mut n = 0;
    while n + 8 <= max {
        let p = u64::from_le_bytes(x[n..n + 8].try_into().unwrap_or([0; 8]));
        let q = u64::from_le_bytes(y[n..n + 8].try_into().unwrap_or([0; 8]));
        if p != q {
            return n + ((p ^ q).trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < max && x[n] == y[n] {
        n += 1;
    }
    n
}

const HASH_BITS: u32 = 15;

fn hash(d: &[u8], i: usize) -> usize {
    let v = u32::from(d[i]) | (u32::from(d[i + 1]) << 8) | (u32::from(d[i + 2]) << 16);
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// Hash chains over a band: `head` by hash, `prev` by position (`u32::MAX`
/// for none).
struct Chains {
    head: Vec<u32>,
    prev: Vec<u32>,
}

impl Chains {
    fn new(n: usize) -> Chains {
        Chains {
            head: vec![u32::MAX; 1 << HASH_BITS],
            prev: vec![u32::MAX; n],
        }
    }

    fn insert(&mut self, d: &[u8], i: usize) {
        if i + MIN <= d.len() {
            let h = hash(d, i);
            self.prev[i] = self.head[h];
            self.head[h] = i as u32;
        }
    }

    /// The longest match at `i` (length, distance) over at most `depth`
    /// earlier positions of its chain, no longer than `max`.
    fn longest(&self, d: &[u8], i: usize, max: usize, depth: usize) -> (usize, usize) {
        let mut best = (0, 0);
        if max < MIN {
            return best;
        }
        let mut j = self.head[hash(d, i)];
        for _ in 0..depth {
            let Ok(jj) = usize::try_from(j) else { break };
            if j == u32::MAX || jj >= i || i - jj > WINDOW {
                break;
            }
            // Only a longer match can win: check its last byte first.
            if d[jj + best.0.min(max - 1)] == d[i + best.0.min(max - 1)] {
                let l = common(d, i, jj, max);
                if l > best.0 {
                    best = (l, i - jj);
                    if l >= max {
                        break;
                    }
                }
            }
            j = self.prev[jj];
        }
        // A 3-byte match far back costs more than its three literals.
        if best.0 < MIN || (best.0 == MIN && best.1 > 4096) {
            (0, 0)
        } else {
            best
        }
    }
}

/// The chain depth of a layer's parse (done once per scenario and seat).
const LAYER_DEPTH: usize = 512;

/// A static layer's band parsed hard: hash chains and one-step lazy
/// matching (zlib's level 9 algorithm, in short).
pub(crate) fn parse_layer(d: &[u8]) -> Vec<Match> {
    let n = d.len();
    let mut ch = Chains::new(n);
    let mut out = Vec::new();
    let mut i = 0;
    let mut pending: Option<(usize, usize)> = None;
    while i < n {
        let (l, dist) = match pending.take() {
            Some(m) => m,
            None => ch.longest(d, i, MAX.min(n - i), LAYER_DEPTH),
        };
        ch.insert(d, i);
        if l == 0 {
            i += 1;
            continue;
        }
        if l < MAX && i + 1 < n {
            let next = ch.longest(d, i + 1, MAX.min(n - i - 1), LAYER_DEPTH);
            if next.0 > l {
                // A literal here and the longer match from the next byte.
                pending = Some(next);
                i += 1;
                continue;
            }
        }
        out.push(Match::new(i, l, dist));
        for k in i + 1..i + l {
            ch.insert(d, k);
        }
        i += l;
    }
    out
}

/// Room a band's parse over its layer keeps between bands (a thread's).
pub(crate) struct Scratch {
    /// By hash, the last position (one up) inserted, tagged with the band
    /// it was inserted in (`gen`, the high 32 bits): a position of another
    /// band is none, so the table needs no clearing between bands (16 KB
    /// zeroed a band before).
    head: Vec<u64>,
    gen: u32,
    prev: Vec<u32>,
    parse: Vec<Match>,
    bits: Bits,
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        Scratch {
            head: vec![0; 1 << GAP_HASH_BITS],
            gen: 0,
            prev: Vec::new(),
            parse: Vec::new(),
            bits: Bits::default(),
        }
    }
}

impl Scratch {
    /// A new band: every position inserted before is forgotten.
    fn next_band(&mut self) {
        if self.gen == u32::MAX {
            self.head.fill(0);
            self.gen = 0;
        }
        self.gen += 1;
    }

    /// The last position (one up) of this band inserted with hash `h`, or 0.
    fn first(&self, h: usize) -> u32 {
        let e = self.head[h];
        if (e >> 32) as u32 == self.gen {
            e as u32
        } else {
            0
        }
    }
}

const GAP_HASH_BITS: u32 = 12;
const GAP_DEPTH: usize = 8;

fn gap_hash(d: &[u8], i: usize) -> usize {
    let v = u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]]);
    (v.wrapping_mul(0x9E37_79B1) >> (32 - GAP_HASH_BITS)) as usize
}

/// Parses `d[a..b]` greedily into `out`: at each byte the longest of the
/// matches one byte back, one and two rows (`stride`) back, and along a
/// short chain of the earlier bytes parsed so in this band.
fn parse_gap(d: &[u8], (a, b): (usize, usize), stride: usize, s: &mut Scratch) {
    let mut i = a;
    while i < b {
        let max = MAX.min(b - i);
        let mut best = (0, 0);
        // The position's hash, computed once for its search and its insert.
        let h = (i + 4 <= d.len()).then(|| gap_hash(d, i));
        if max >= MIN {
            let try_dist = |dist: usize, best: &mut (usize, usize)| {
                // Only a longer match can win: its byte at the best length
                // so far is checked first (`best.0 < max` here).
                if dist >= 1 && dist <= i && dist <= WINDOW && d[i - dist + best.0] == d[i + best.0]
                {
                    let l = common(d, i, i - dist, max);
                    if l > best.0 {
                        *best = (l, dist);
                    }
                }
            };
            try_dist(1, &mut best);
            if best.0 < max {
                try_dist(stride, &mut best);
            }
            if best.0 < max {
                try_dist(2 * stride, &mut best);
            }
            if let (true, Some(h)) = (best.0 < max, h) {
                let mut j = s.first(h);
                for _ in 0..GAP_DEPTH {
                    // Positions are kept one up (0: none).
                    let Some(jj) = (j as usize).checked_sub(1) else {
                        break;
                    };
                    if jj >= i || i - jj > WINDOW {
                        break;
                    }
                    try_dist(i - jj, &mut best);
                    if best.0 >= max {
                        break;
                    }
                    j = s.prev[jj];
                }
            }
        }
        if let Some(h) = h {
            s.prev[i] = s.first(h);
            s.head[h] = (u64::from(s.gen) << 32) | (i as u64 + 1);
        }
        if best.0 > MIN || (best.0 == MIN && best.1 <= 2 * stride) {
            s.parse.push(Match::new(i, best.0, best.1));
            i += best.0;
        } else {
            i += 1;
        }
    }
}

/// A band `d` drawn over a layer's band parsed: the layer's matches
/// `layer` that still hold in `d` kept, the bytes between them parsed
/// anew; then written as one block (ending in a sync flush) into
/// `out`. `stride` is the length of a row (its filter byte included).
/// Returns how many bytes were parsed anew.
pub(crate) fn deflate_over(
    d: &[u8],
    layer: &[Match],
    stride: usize,
    s: &mut Scratch,
    out: &mut Vec<u8>,
) -> usize {
    s.next_band();
    if s.prev.len() < d.len() {
        s.prev.resize(d.len(), 0);
    }
    s.parse.clear();
    let (mut at, mut anew) = (0, 0);
    for m in layer {
        let (p, l, dist) = m.at();
        if p < at || p + l > d.len() || dist > p {
            continue;
        }
        if d[p..p + l] == d[p - dist..p - dist + l] {
            parse_gap(d, (at, p), stride, s);
            anew += p - at;
            s.parse.push(*m);
            at = p + l;
        }
    }
    parse_gap(d, (at, d.len()), stride, s);
    anew += d.len() - at;
    let parse = std::mem::take(&mut s.parse);
    write_block(d, &parse, &mut s.bits, out);
    s.parse = parse;
    anew
}

/// Writes a layer's band `d` parsed as `parse` (one block and a sync
/// flush) into `out`.
pub(crate) fn deflate_parsed(d: &[u8], parse: &[Match], out: &mut Vec<u8>) {
    write_block(d, parse, &mut Bits::default(), out);
}

/// Bits written least significant first, as deflate reads them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
    tree: Tree,
}

impl Bits {
    fn put(&mut self, v: u32, len: u32) {
        // At most 31 bits wait, and a code is at most 15 bits and its extra
        // 13 (put at once): they fit in the 64.
        self.acc |= u64::from(v) << self.n;
        self.n += len;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// The bits so far to whole bytes (zeros after).
    fn align(&mut self) {
        while self.n > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n = self.n.saturating_sub(8);
        }
        (self.acc, self.n) = (0, 0);
    }
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// The code (0-based among the length codes) of each match length (a
/// table: the search was a good part of a block's writing).
const LEN_CODE: [u8; MAX + 1] = {
    let mut t = [0u8; MAX + 1];
    let mut l = MIN;
    while l <= MAX {
        let mut c = 0;
        while c + 1 < LEN_BASE.len() && LEN_BASE[c + 1] as usize <= l {
            c += 1;
        }
        t[l] = c as u8;
        l += 1;
    }
    t
};

/// The code of each distance, by zlib's index ([`dist_index`]).
const DIST_CODE: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut i = 0;
    while i < 512 {
        // The smallest distance of index `i` (the distances of an index
        // past 255 share their code: the bases past 256 are multiples of 128).
        let d = if i < 256 { i + 1 } else { ((i - 256) << 7) + 1 };
        let mut c = 0;
        while c + 1 < DIST_BASE.len() && DIST_BASE[c + 1] as usize <= d {
            c += 1;
        }
        t[i] = c as u8;
        i += 1;
    }
    t
};

fn dist_index(d: usize) -> usize {
    if d <= 256 {
        d - 1
    } else {
        256 + ((d - 1) >> 7)
    }
}

/// The code (0-based among the length codes) of a match length.
fn len_code(l: usize) -> usize {
    usize::from(LEN_CODE[l])
}

fn dist_code(d: usize) -> usize {
    usize::from(DIST_CODE[dist_index(d)])
}

/// Room for [`code_lengths`] kept between blocks: its arrays were on the
/// stack, some 9 KB zeroed three times a band (3% of a warm picture's
/// instructions).
#[derive(Default)]
struct Tree {
    f: Vec<u32>,
    leaves: Vec<(u32, u16)>,
    weight: Vec<u64>,
    parent: Vec<u16>,
    depth: Vec<u8>,
}

/// Huffman code lengths for `freq`, none longer than `max` (the counts
/// halved until they fit; deterministic: ties by symbol). At least two
/// symbols get a code (a complete code every decoder takes).
fn code_lengths(freq: &[u32], max: u8, t: &mut Tree) -> Vec<u8> {
    // At most 286 symbols (the literal/length alphabet).
    const MOST: usize = 286;
    if t.weight.len() < 2 * MOST {
        t.leaves.resize(MOST, (0, 0));
        t.weight.resize(2 * MOST, 0);
        t.parent.resize(2 * MOST, 0);
        t.depth.resize(2 * MOST, 0);
    }
    let Tree {
        f,
        leaves,
        weight,
        parent,
        depth,
    } = t;
    f.clear();
    f.extend_from_slice(freq);
    let mut used = f.iter().filter(|&&x| x > 0).count();
    for x in f.iter_mut() {
        if used >= 2 {
            break;
        }
        if *x == 0 {
            *x = 1;
            used += 1;
        }
    }
    loop {
        let mut n = 0;
        for (i, &x) in f.iter().enumerate() {
            if x > 0 {
                leaves[n] = (x, i as u16);
                n += 1;
            }
        }
        let leaves = &mut leaves[..n];
        leaves.sort_unstable();
        for (w, l) in weight.iter_mut().zip(leaves.iter()) {
            *w = u64::from(l.0);
        }
        let (mut i, mut j) = (0, n);
        for k in n..2 * n - 1 {
            let mut two = [0usize; 2];
            for t in &mut two {
                *t = if i < n && (j >= k || weight[i] <= weight[j]) {
                    i += 1;
                    i - 1
                } else {
                    j += 1;
                    j - 1
                };
            }
            weight[k] = weight[two[0]] + weight[two[1]];
            parent[two[0]] = k as u16;
            parent[two[1]] = k as u16;
        }
        depth[2 * n - 2] = 0;
        for k in (0..2 * n - 2).rev() {
            depth[k] = depth[usize::from(parent[k])] + 1;
        }
        if depth[..n].iter().all(|&x| x <= max) {
            let mut len = vec![0u8; f.len()];
            for (k, l) in leaves.iter().enumerate() {
                len[usize::from(l.1)] = depth[k];
            }
            return len;
        }
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = x.div_ceil(2);
        }
    }
}

/// Canonical codes of `lens`, bit-reversed for writing least significant
/// first.
fn codes(lens: &[u8]) -> Vec<u16> {
    let mut count = [0u16; 16];
    for &l in lens {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for b in 1..16 {
        code = (code + count[b - 1]) << 1;
        next[b] = code;
    }
    lens.iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[usize::from(l)];
            next[usize::from(l)] += 1;
            c.reverse_bits() >> (16 - l)
        })
        .collect()
}

/// The code-length alphabet's order in the block header.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// `lens` run-length coded with the code-length alphabet: (symbol, extra).
fn rle(lens: &[u8]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lens.len() {
        let v = lens[i];
        let run = lens[i..].iter().take_while(|&&x| x == v).count();
        if v == 0 && run >= 3 {
            let r = run.min(138);
            out.push(if r <= 10 {
                (17, r as u8 - 3)
            } else {
                (18, r as u8 - 11)
            });
            i += r;
        } else if v != 0 && run >= 4 {
            out.push((v, 0));
            let r = (run - 1).min(6);
            out.push((16, r as u8 - 3));
            i += 1 + r;
        } else {
            out.push((v, 0));
            i += 1;
        }
    }
    out
}

/// One dynamic-Huffman deflate block (not final) of `d` parsed as `parse`,
/// then a sync flush (an empty stored block), appended to `out`.
fn write_block(d: &[u8], parse: &[Match], bits: &mut Bits, out: &mut Vec<u8>) {
    let mut lf = [0u32; 286];
    let mut df = [0u32; 30];
    let mut at = 0;
    for m in parse {
        let (p, l, dist) = m.at();
        for &b in &d[at..p] {
            lf[usize::from(b)] += 1;
        }
        lf[257 + len_code(l)] += 1;
        df[dist_code(dist)] += 1;
        at = p + l;
    }
    for &b in &d[at..] {
        lf[usize::from(b)] += 1;
    }
    lf[256] += 1;
    let ll = code_lengths(&lf, 15, &mut bits.tree);
    let dl = code_lengths(&df, 15, &mut bits.tree);
    let (lc, dc) = (codes(&ll), codes(&dl));
    let hlit = 257.max(ll.iter().rposition(|&x| x > 0).map_or(0, |p| p + 1));
    let hdist = 1.max(dl.iter().rposition(|&x| x > 0).map_or(0, |p| p + 1));
    let mut all = ll[..hlit].to_vec();
    all.extend_from_slice(&dl[..hdist]);
    let runs = rle(&all);
    let mut cf = [0u32; 19];
    for &(s, _) in &runs {
        cf[usize::from(s)] += 1;
    }
    let cl = code_lengths(&cf, 7, &mut bits.tree);
    let cc = codes(&cl);
    let hclen = 4.max(
        CL_ORDER
            .iter()
            .rposition(|&s| cl[s] > 0)
            .map_or(0, |p| p + 1),
    );

    bits.out.clear();
    bits.put(0, 1); // not the final block
    bits.put(2, 2); // dynamic Huffman
    bits.put((hlit - 257) as u32, 5);
    bits.put((hdist - 1) as u32, 5);
    bits.put((hclen - 4) as u32, 4);
    for &s in &CL_ORDER[..hclen] {
        bits.put(u32::from(cl[s]), 3);
    }
    for &(s, e) in &runs {
        let s = usize::from(s);
        bits.put(u32::from(cc[s]), u32::from(cl[s]));
        match s {
            16 => bits.put(u32::from(e), 2),
            17 => bits.put(u32::from(e), 3),
            18 => bits.put(u32::from(e), 7),
            _ => {}
        }
    }
    // Each literal's code and its length in one word (one load a byte),
    // and a match's code and extra bits put at once (at most 15 + 13 bits).
    let mut lit = [0u32; 256];
    for (b, e) in lit.iter_mut().enumerate() {
        *e = u32::from(lc[b]) | (u32::from(ll[b]) << 16);
    }
    let put_lit = |bits: &mut Bits, b: u8| {
        let e = lit[usize::from(b)];
        bits.put(e & 0xffff, e >> 16);
    };
    let mut at = 0;
    for m in parse {
        let (p, l, dist) = m.at();
        for &b in &d[at..p] {
            put_lit(bits, b);
        }
        let c = len_code(l);
        let n = u32::from(ll[257 + c]);
        bits.put(
            u32::from(lc[257 + c]) | (((l - usize::from(LEN_BASE[c])) as u32) << n),
            n + u32::from(LEN_EXTRA[c]),
        );
        let c = dist_code(dist);
        let n = u32::from(dl[c]);
        bits.put(
            u32::from(dc[c]) | (((dist - usize::from(DIST_BASE[c])) as u32) << n),
            n + u32::from(DIST_EXTRA[c]),
        );
        at = p + l;
    }
    for &b in &d[at..] {
        put_lit(bits, b);
    }
    bits.put(u32::from(lc[256]), u32::from(ll[256]));
    // Sync flush: an empty stored block, byte-aligned.
    bits.put(0, 3);
    bits.align();
    bits.out.extend_from_slice(&[0, 0, 0xff, 0xff]);
    out.extend_from_slice(&bits.out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inflate(z: &[u8], n: usize) -> Vec<u8> {
        // The band's block, then an empty final fixed block.
        let mut s = z.to_vec();
        s.extend_from_slice(&[0x03, 0x00]);
        let mut out = vec![0u8; n + 16];
        let cfg = zlib_rs::InflateConfig { window_bits: -15 };
        let (got, rc) = zlib_rs::decompress_slice(&mut out, &s, cfg);
        assert_eq!(rc, zlib_rs::ReturnCode::Ok, "inflates");
        got.to_vec()
    }

    /// Bytes like a band's: rows of runs, a pattern repeated, some noise.
    fn band(seed: u32, stride: usize, rows: usize) -> Vec<u8> {
        let mut x = seed;
        let mut d = Vec::new();
        for r in 0..rows {
            d.push(0);
            for c in 0..stride - 1 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let v = if (c / 37 + r / 5) % 3 == 0 {
                    (c % 7) as u8
                } else if x >> 28 == 0 {
                    (x >> 20) as u8
                } else {
                    (c / 50) as u8
                };
                d.push(v);
            }
        }
        d
    }

    #[test]
    fn a_layers_band_and_a_band_drawn_over_it_inflate_to_their_bytes() {
        let stride = 1099;
        let layer = band(7, stride, 16);
        let parse = parse_layer(&layer);
        let mut z = Vec::new();
        deflate_parsed(&layer, &parse, &mut z);
        assert_eq!(inflate(&z, layer.len()), layer);
        let mut s = Scratch::new();
        for (seed, x0) in [(1u32, 10usize), (2, 500), (3, 1000)] {
            let mut over = layer.clone();
            // A "unit" drawn over some rows: a pattern of its own.
            for r in 3..14 {
                for c in x0..(x0 + 60).min(stride - 1) {
                    over[r * stride + 1 + c] = ((c * seed as usize + r) % 5 + 40) as u8;
                }
            }
            let mut z = Vec::new();
            deflate_over(&over, &parse, stride, &mut s, &mut z);
            assert_eq!(inflate(&z, over.len()), over, "drawn over at {x0}");
            // The band with no parse to start from.
            let mut z = Vec::new();
            deflate_over(&over, &[], stride, &mut s, &mut z);
            assert_eq!(inflate(&z, over.len()), over, "parsed alone at {x0}");
        }
    }

    /// A band drawn over in a few places is parsed anew only around them,
    /// and comes out about as small as a deflate of it from scratch.
    #[test]
    fn a_band_drawn_over_is_parsed_anew_only_where_it_changed() {
        let stride = 1099;
        let layer = band(11, stride, 16);
        let parse = parse_layer(&layer);
        let mut over = layer.clone();
        let mut changed = 0;
        for r in 4..12 {
            for c in 300..340 {
                over[r * stride + 1 + c] = ((c + r) % 3 + 50) as u8;
                changed += 1;
            }
        }
        let mut s = Scratch::new();
        let mut z = Vec::new();
        let anew = deflate_over(&over, &parse, stride, &mut s, &mut z);
        assert_eq!(inflate(&z, over.len()), over);
        assert!(
            anew < over.len() / 8,
            "{anew} of {} bytes parsed anew for {changed} changed",
            over.len()
        );
        let mut zero = Vec::new();
        let all = deflate_over(&over, &[], stride, &mut s, &mut zero);
        assert_eq!(all, over.len(), "no parse to start from: all of it");
        let mut c = zlib_rs::Deflate::new_with_config(zlib_rs::DeflateConfig {
            level: 6,
            window_bits: -15,
            ..zlib_rs::DeflateConfig::default()
        });
        let mut buf = vec![0u8; over.len() * 2];
        c.compress(&over, &mut buf, zlib_rs::DeflateFlush::SyncFlush)
            .expect("deflates");
        let six = c.total_out() as usize;
        assert!(
            z.len() * 10 <= six * 11,
            "{} bytes against zlib-rs level 6's {six}",
            z.len()
        );
    }

    /// A band's bytes do not depend on the bands the thread's scratch
    /// parsed before (its hash table is not cleared between bands, its
    /// entries tagged with their band), nor on where the tags' counter is,
    /// its wrap included.
    #[test]
    fn a_band_drawn_over_is_the_same_whatever_was_parsed_before() {
        let stride = 1099;
        let layer = band(3, stride, 16);
        let parse = parse_layer(&layer);
        let mut over = layer.clone();
        for r in 1..13 {
            for c in 200..290 {
                over[r * stride + 1 + c] = ((c / 4 + r) % 6 + 48) as u8;
            }
        }
        let mut alone = Vec::new();
        deflate_over(&over, &parse, stride, &mut Scratch::new(), &mut alone);
        let mut s = Scratch::new();
        for (k, gen) in [(1u32, None), (2, Some(u32::MAX - 1)), (3, Some(u32::MAX))] {
            if let Some(g) = gen {
                s.gen = g;
            }
            // Another band first (its bytes hashed into the table), then this one.
            let other = band(100 + k, stride, 16);
            let mut z = Vec::new();
            deflate_over(&other, &[], stride, &mut s, &mut z);
            let mut after = Vec::new();
            deflate_over(&over, &parse, stride, &mut s, &mut after);
            assert_eq!(after, alone, "after another band ({k})");
            assert_eq!(inflate(&after, over.len()), over);
        }
    }

    #[test]
    fn code_lengths_are_complete_and_bounded() {
        let freq: Vec<u32> = (0..286u32).map(|i| 1 << (i % 24)).collect();
        let l = code_lengths(&freq, 15, &mut Tree::default());
        assert!(l.iter().all(|&x| (1..=15).contains(&x)));
        let kraft: f64 = l.iter().map(|&x| 0.5f64.powi(i32::from(x))).sum();
        assert!((kraft - 1.0).abs() < 1e-9, "{kraft}");
        let one = code_lengths(&[0, 0, 5, 0], 7, &mut Tree::default());
        assert_eq!(one.iter().filter(|&&x| x == 1).count(), 2);
    }
}
