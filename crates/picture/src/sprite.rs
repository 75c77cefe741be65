//! The top of a board drawn from kept pieces (issue 57).
//!
//! What a board draws over its static layer (`layer`) is a few dozen
//! elements: units, markers, arrows, coordinates, the legend. From one turn
//! to the next, and between the games of one scenario, most of them are the
//! very same drawing: a unit that did not move, a legend line, a coordinate,
//! and a unit of one kind and strength wherever it stands. So the top is cut
//! into **pieces**, each one element (a child of the root, or a child of a
//! plain `<g>` child of the root, under that `<g>`'s opening tag), and each
//! piece is drawn alone, as an SVG of its own (the root element without its
//! `aria-label`, the `<defs>`, the piece), into a small **transparent**
//! pixmap the size of what it draws. The pixmaps are kept, keyed by that
//! SVG's text (compared whole, never hashed), and laid over the layer in the
//! document's order (source-over, premultiplied, rounded to the nearest).
//!
//! **Laid by translation.** A piece whose element is placed by a
//! `transform="translate(X Y)"` of its own (a unit, an arrow: the families
//! write them so) is kept without it: drawn at the origin, with the
//! fraction of a pixel `X` and `Y` fall at (in sixteenths, part of the
//! key), and laid at the whole pixels. Its `<title>`s and `data-`
//! attributes, which draw nothing, are left out of the key, so that a unit
//! of one side, kind and strength is drawn once wherever it stands. This
//! holds only where the root maps its user units to pixels by the picture's
//! scale alone (`viewBox="0 0 W H"` at width W and height H) and no
//! stylesheet could select on what is left out; else a piece keeps its text
//! whole and is laid where it is.
//!
//! A piece drawn apart and laid over is the piece drawn in place up to the
//! rounding of the compositing step (a channel differs by a unit or two in
//! edge pixels): the picture is not byte for byte the SVG drawn whole, but
//! it stays a pure function of the SVG, whatever is kept (the same pieces,
//! drawn the same way, laid in the same order). Where a piece could draw
//! differently alone (an `id` outside the `<defs>`, a blend mode, a
//! stylesheet that could make a group draw apart), the top is drawn whole.

use crate::layer::{element_end, name, tag_end, Tag};
use crate::Changed;
use memchr::memmem::Finder;
use resvg::tiny_skia::{self, Pixmap};
use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// What draws a group apart (isolated) or lets a piece reach outside
/// itself: a group with one is not cut into its children.
const APART: [&str; 8] = [
    " opacity=",
    " filter=",
    " mask=",
    " clip-path=",
    " style=",
    " mix-blend-mode=",
    " isolation=",
    " id=",
];

/// Elements that draw nothing.
const SILENT: [&str; 3] = ["title", "desc", "metadata"];

/// Sixteenths of a pixel: the finest a piece's place is kept apart by.
const PHASES: f32 = 16.0;

/// The elements at the top level of `s` (comments, declarations and
/// silent elements left out), or None when `s` is not a run of whole
/// elements.
fn elements(s: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(next) = s[i..].find('<') {
        let start = i + next;
        let (end, tag) = tag_end(s, start)?;
        let end = match tag {
            Tag::Close => return None,
            Tag::Open => element_end(s, start)?,
            Tag::Other => end,
        };
        let el = &s[start..end];
        let markup = el.starts_with("<!") || el.starts_with("<?");
        if !markup && !SILENT.contains(&name(el)) {
            out.push(el);
        }
        i = end;
    }
    Some(out)
}

/// One piece of a board's top: what it draws under the board's head
/// (`text[..svg]`: the element, under its group's opening tag if it has
/// one), the key it is kept under with that head (`text`: that and the
/// fraction of a pixel it falls at), and the whole pixels it is laid at.
#[derive(Debug, PartialEq)]
pub(crate) struct Piece {
    text: String,
    svg: usize,
    at: (i64, i64),
    phase: (f32, f32),
}

impl Piece {
    fn svg(&self) -> &str {
        &self.text[..self.svg]
    }

    fn whole(text: String) -> Piece {
        Piece {
            svg: text.len(),
            text,
            at: (0, 0),
            phase: (0.0, 0.0),
        }
    }
}

/// The pixels a user unit spans, where the root `<svg>` of `head` maps its
/// user units to pixels by the picture's scale alone (`viewBox="0 0 W H"`,
/// `width="W"`, `height="H"`, no transform), and no stylesheet could
/// select on the titles and `data-` attributes a piece's key leaves out.
fn anchor_scale(head: &str) -> Option<f32> {
    if head.contains("<style") {
        return None;
    }
    let root = &head[..head.find('>')?];
    let attr = |n: &str| {
        let k = format!(" {n}=\"");
        let at = root.find(&k)? + k.len();
        root[at..].split('"').next()
    };
    if attr("transform").is_some() || attr("preserveAspectRatio").is_some() {
        return None;
    }
    let (w, h) = (attr("width")?, attr("height")?);
    if attr("viewBox")? != format!("0 0 {w} {h}") {
        return None;
    }
    let w: f32 = w.parse().ok()?;
    Some(crate::scale_for(w.ceil()))
}

/// Where `needle` (led by a byte seldom met, as `<` or `)`) first occurs
/// in `s`: found by its first byte (memchr), so that no searcher is set up
/// for a short needle in a short string.
fn find(s: &str, needle: &str) -> Option<usize> {
    let first = needle.as_bytes()[0] as char;
    let mut from = 0;
    while let Some(at) = s[from..].find(first) {
        let at = from + at;
        if s[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Where the needle of `finder` (led by a space: met often) first occurs
/// in `s`, by a searcher set up once.
fn find_by(finder: &LazyLock<Finder<'static>>, s: &str) -> Option<usize> {
    finder.find(s.as_bytes())
}

static TRANSLATE: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(" transform=\"translate("));
static DATA: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" data-"));

/// The `translate(X Y)` an element's opening tag places it by: its two
/// numbers and the attribute's span in `el`.
fn translate(el: &str) -> Option<((f32, f32), (usize, usize))> {
    const K: &str = " transform=\"translate(";
    let (open_end, _) = tag_end(el, 0)?;
    let at = find_by(&TRANSLATE, &el[..open_end])?;
    let rest = &el[at + K.len()..open_end];
    let close = find(rest, ")\"")?;
    let mut nums = rest[..close]
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(str::parse::<f32>);
    let (x, y) = (nums.next()?.ok()?, nums.next()?.ok()?);
    if nums.next().is_some() || !x.is_finite() || !y.is_finite() {
        return None;
    }
    Some(((x, y), (at, at + K.len() + close + 2)))
}

/// `s` without its `<title>` elements and `data-` attributes (which draw
/// nothing), or None if it holds a title it cannot cut cleanly.
fn silent_out(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = find(rest, "<title") {
        out.push_str(&rest[..at]);
        let end = find(&rest[at..], "</title>")? + at + "</title>".len();
        rest = &rest[end..];
    }
    out.push_str(rest);
    let mut from = 0;
    while let Some(at) = find_by(&DATA, &out[from..]) {
        let at = from + at;
        let q = out[at..].find('=')? + at + 1;
        if !out[q..].starts_with('"') {
            return None;
        }
        let end = out[q + 1..].find('"')? + q + 2;
        out.replace_range(at..end, "");
        from = at;
    }
    Some(out)
}

/// The piece of `el` (under `open`, its plain group's opening tag, if it
/// is a child of one): kept by translation where it is placed by one and
/// `scale` says the root allows it, else whole.
fn piece(open: Option<&str>, el: &str, scale: Option<f32>) -> Piece {
    let (open, close) = open.map_or(("", ""), |o| (o, "</g>"));
    let moved = scale
        .filter(|_| !open.contains(" transform="))
        .and_then(|s| translate(el).map(|t| (s, t)));
    let Some((s, ((x, y), (a, b)))) = moved else {
        return Piece::whole(format!("{open}{el}{close}"));
    };
    let body = format!("{open}{}{}{close}", &el[..a], &el[b..]);
    let Some(body) = silent_out(&body) else {
        return Piece::whole(format!("{open}{el}{close}"));
    };
    let place = |v: f32| {
        let px = v * s;
        let whole = px.floor();
        let mut q = ((px - whole) * PHASES).round();
        let mut whole = whole as i64;
        if q >= PHASES {
            q = 0.0;
            whole += 1;
        }
        (whole, q)
    };
    let ((ax, qx), (ay, qy)) = (place(x), place(y));
    let mut text = body;
    let svg = text.len();
    text.push_str(&format!("\n{qx} {qy}"));
    Piece {
        text,
        svg,
        at: (ax, ay),
        phase: (qx / PHASES, qy / PHASES),
    }
}

/// The pieces of a board's top, each drawn as an SVG of its own: `head`
/// (the root's opening tag and the `<defs>`), the piece (under its group's
/// opening tag when it is a child of one) and the closing tags; in the
/// document's order. None: the top cannot be cut safely, draw it whole.
pub(crate) fn pieces(head: &str, rest: &str) -> Option<Vec<Piece>> {
    if rest.contains(" id=") || rest.contains("blend-mode") || rest.contains("BackgroundImage") {
        return None;
    }
    if let Some(at) = head.find("<style") {
        let css = &head[at..];
        let risky = ["opacity", "filter", "mask", "clip", "blend", "isolation"];
        if risky.iter().any(|w| css.contains(w)) {
            return None;
        }
    }
    let scale = anchor_scale(head);
    let mut out = Vec::new();
    for el in elements(rest)? {
        let (open_end, _) = tag_end(el, 0)?;
        let open = &el[..open_end];
        let plain_group =
            name(el) == "g" && !el.ends_with("/>") && !APART.iter().any(|a| open.contains(a));
        if plain_group && !open.contains(" transform=") {
            let close = el.rfind("</")?;
            for child in elements(&el[open_end..close])? {
                out.push(piece(Some(open), child, scale));
            }
        } else {
            // A group drawn apart is one piece: drawn alone either way.
            out.push(piece(None, el, scale));
        }
    }
    Some(out)
}

/// A piece drawn over a transparent background: where its pixels lie
/// from the pixel it is laid at, its pixels (premultiplied RGBA), and of
/// each row the columns from its first pixel not transparent to one past
/// its last (what is laid over; a unit's box leaves most of the margins
/// its strokes and labels need clear).
pub(crate) struct Sprite {
    dx: i64,
    dy: i64,
    w: usize,
    h: usize,
    drawn: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

/// Of each row of `px` (`w` pixels wide), the columns from its first pixel
/// not transparent to one past its last ((0, 0) for a clear row).
fn spans(px: &[u8], w: usize) -> Vec<(usize, usize)> {
    px.chunks_exact(w * 4)
        .map(|row| {
            let seen = |p: &[u8]| p[3] != 0;
            let first = row.chunks_exact(4).position(seen);
            let last = row.chunks_exact(4).rposition(seen);
            first.zip(last).map_or((0, 0), |(a, b)| (a, b + 1))
        })
        .collect()
}

/// Where the piece `tree` draws, in pixels from its origin at `scale`, its
/// drawing moved by `phase` pixels: what it draws with its strokes and
/// markers, and two pixels for the anti-aliased edges (x0, y0, x1, y1), or
/// None if it draws nothing.
fn rect(tree: &resvg::usvg::Tree, scale: f32, phase: (f32, f32)) -> Option<(i64, i64, i64, i64)> {
    if !tree.root().has_children() {
        return None;
    }
    let b = tree.root().abs_layer_bounding_box();
    let px = |v: f32, round: fn(f32) -> f32, pad: i64| round(v) as i64 + pad;
    let (x0, y0) = (
        px(b.left() * scale + phase.0, f32::floor, -2),
        px(b.top() * scale + phase.1, f32::floor, -2),
    );
    let (x1, y1) = (
        px(b.right() * scale + phase.0, f32::ceil, 2),
        px(b.bottom() * scale + phase.1, f32::ceil, 2),
    );
    (x1 > x0 && y1 > y0).then_some((x0, y0, x1, y1))
}

/// The most pixels a sprite may have (a piece larger than a board of
/// 4,000 by 4,000 pixels is not drawn apart).
const MOST_PIXELS: i64 = 16_000_000;

/// Draws the piece over a transparent pixmap the size of what it draws:
/// its sprite (None if it draws nothing), or Err if it does not parse, is
/// not of the picture's size `(w, h)` or is too large.
fn draw(head: &str, p: &Piece, (w, h): (u32, u32)) -> Result<Option<Sprite>, ()> {
    let tree = crate::parse(&format!("{head}{}</svg>", p.svg())).ok_or(())?;
    if crate::scaled(&tree) != (w, h) {
        return Err(());
    }
    let s = crate::scale_for(tree.size().width().ceil());
    let Some((x0, y0, x1, y1)) = rect(&tree, s, p.phase) else {
        return Ok(None);
    };
    if (x1 - x0) * (y1 - y0) > MOST_PIXELS {
        return Err(());
    }
    let (sw, sh) = (
        u32::try_from(x1 - x0).map_err(|_| ())?,
        u32::try_from(y1 - y0).map_err(|_| ())?,
    );
    let mut pm = Pixmap::new(sw, sh).ok_or(())?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_row(
            s,
            0.0,
            0.0,
            s,
            p.phase.0 - x0 as f32,
            p.phase.1 - y0 as f32,
        ),
        &mut pm.as_mut(),
    );
    let drawn = pm.take();
    Ok(Some(Sprite {
        dx: x0,
        dy: y0,
        w: sw as usize,
        h: sh as usize,
        spans: spans(&drawn, sw as usize),
        drawn,
    }))
}

/// The premultiplied pixel `s` over `d` (RGBA, little-endian words):
/// `s + d * (255 - alpha of s) / 255`, each channel rounded to the
/// nearest. Two channels a lane of 16 bits (255 x 255 fits): each
/// `(x + 128 + ((x + 128) >> 8)) >> 8`, the exact rounded quotient by 255
/// for x up to 255 x 255.
fn over(s: u32, d: u32) -> u32 {
    let keep = 255 - (s >> 24);
    let div = |x: u32| {
        let x = x * keep + 0x0080_0080;
        ((x + ((x >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
    };
    s + (div(d & 0x00ff_00ff) | (div((d >> 8) & 0x00ff_00ff) << 8))
}

impl Sprite {
    /// Lays the sprite at pixel `at` over `canvas` (`cw` x `ch` pixels,
    /// premultiplied RGBA), source-over, what falls outside it cut off:
    /// the rows and columns of the pixels it laid that are not transparent,
    /// if any.
    fn lay(
        &self,
        at: (i64, i64),
        canvas: &mut [u8],
        (cw, ch): (usize, usize),
        fresh: &mut crate::Fresh<'_>,
    ) -> Option<((usize, usize), (usize, usize))> {
        let (left, top) = (at.0 + self.dx, at.1 + self.dy);
        let clip = |v: i64, max: usize| v.clamp(0, max as i64) as usize;
        let (x0, x1) = (clip(left, cw), clip(left + self.w as i64, cw));
        let (y0, y1) = (clip(top, ch), clip(top + self.h as i64, ch));
        if x0 >= x1 || y0 >= y1 {
            return None;
        }
        fresh.ensure(canvas, (y0, y1), (x0, x1));
        let (sx, sy) = ((x0 as i64 - left) as usize, (y0 as i64 - top) as usize);
        // What was laid over: rows, then columns (from, to) of the canvas.
        let (mut rows, mut cols) = ((usize::MAX, 0), (usize::MAX, 0));
        for row in 0..y1 - y0 {
            // The row's pixels not transparent, within the canvas.
            let (a, b) = self.spans[sy + row];
            let (a, b) = (a.max(sx), b.min(sx + (x1 - x0)));
            if a >= b {
                continue;
            }
            let src = &self.drawn[((sy + row) * self.w + a) * 4..(((sy + row) * self.w) + b) * 4];
            rows = (rows.0.min(y0 + row), y0 + row + 1);
            cols = (cols.0.min(x0 + a - sx), cols.1.max(x0 + b - sx));
            let at = (y0 + row) * cw + x0 + (a - sx);
            let dst = &mut canvas[at * 4..(at + b - a) * 4];
            for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
                match s[3] {
                    0 => {}
                    255 => d.copy_from_slice(s),
                    _ => {
                        let word = |p: &[u8]| u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                        d.copy_from_slice(&over(word(s), word(d)).to_le_bytes());
                    }
                }
            }
        }
        (rows.0 < rows.1).then_some((rows, cols))
    }
}

/// The sprites' pixels kept at most, in two generations of half each: a
/// piece used from the older one moves to the newer; when the newer is
/// full, the older is forgotten. A Memoir '44 unit is about 12 KB, a
/// board's pieces under 1 MB: 4 MB keeps a few boards' (16 MB was a
/// quarter of the judge's peak RSS for nothing it needed:
/// docs/performance.md).
const SPRITE_BYTES: usize = 4 << 20;

/// A piece's drawing: None if it does not draw alone, Some(None) if it
/// draws nothing, else its sprite.
type Drawing = Option<Option<Arc<Sprite>>>;

/// The drawings kept, by the head they are drawn under (a board's root
/// and `<defs>`, a few kilobytes: kept once, not in every piece's key),
/// then by the piece's key.
type Kept = BTreeMap<Box<str>, BTreeMap<Box<str>, Drawing>>;

#[derive(Default)]
struct Cache {
    new: Kept,
    old: Kept,
    bytes: usize,
}

fn cache() -> std::sync::MutexGuard<'static, Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE
        .get_or_init(|| Mutex::new(Cache::default()))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Forgets every sprite (for the benchmarks).
pub(crate) fn forget() {
    let mut c = cache();
    c.new.clear();
    c.old.clear();
    c.bytes = 0;
}

fn size(s: &Drawing, key: &str) -> usize {
    s.as_ref()
        .and_then(Option::as_ref)
        .map_or(0, |s| s.drawn.len())
        + key.len()
        + 64
}

/// Files `drawing` under `head` and `key` in the newer generation.
fn file(c: &mut Cache, head: &str, key: Box<str>, drawing: Drawing) {
    c.bytes += size(&drawing, &key);
    if !c.new.contains_key(head) {
        c.bytes += head.len();
        c.new.insert(head.into(), BTreeMap::new());
    }
    if let Some(m) = c.new.get_mut(head) {
        m.insert(key, drawing);
    }
    if c.bytes > SPRITE_BYTES / 2 {
        c.old = std::mem::take(&mut c.new);
        c.bytes = 0;
    }
}

/// What is kept of the piece keyed `key` under `head`, if it was drawn
/// before.
fn kept(head: &str, key: &str) -> Option<Drawing> {
    let mut c = cache();
    if let Some(p) = c.new.get(head).and_then(|m| m.get(key)) {
        return Some(p.clone());
    }
    let (k, p) = c.old.get_mut(head)?.remove_entry(key)?;
    file(&mut c, head, k, p.clone());
    Some(p)
}

/// Keeps the drawing of the piece keyed `key` under `head`.
fn keep(head: &str, key: &str, drawing: Drawing) {
    file(&mut cache(), head, key.into(), drawing);
}

/// Lays `pieces` over `pixmap` (the layer's copy) one after another, each
/// from its kept drawing, else drawn apart and kept, each marked in
/// `changed` where it lies: false if one of them cannot be drawn alone
/// (`pixmap` is then spoilt where `changed` says: draw the top whole over
/// a fresh copy of the layer).
pub(crate) fn draw_over(
    head: &str,
    pieces: &[Piece],
    pixmap: &mut Pixmap,
    changed: &mut Changed,
    fresh: &mut crate::Fresh<'_>,
) -> bool {
    let (w, h) = (pixmap.width(), pixmap.height());
    for piece in pieces {
        let drawing = kept(head, &piece.text).unwrap_or_else(|| {
            let d = draw(head, piece, (w, h)).ok().map(|s| s.map(Arc::new));
            keep(head, &piece.text, d.clone());
            d
        });
        let Some(sprite) = drawing else {
            return false;
        };
        if let Some(s) = sprite {
            let canvas = pixmap.data_mut();
            if let Some((rows, cols)) = s.lay(piece.at, canvas, (w as usize, h as usize), fresh) {
                crate::mark(changed, rows, cols);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(p: &[Piece]) -> Vec<&str> {
        p.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn a_top_is_cut_into_its_elements_and_its_groups_children() {
        let head = "<svg w=\"1\"><defs><rect id=\"u\"/></defs>";
        let rest = "\n<line x1=\"1\"/><!-- note --><g class=\"units\" fill=\"#fff\"><g class=\"unit\"><title>A</title><use href=\"#u\"/></g>\n<text x=\"2\">A1</text></g><title>t</title><g opacity=\"0.5\"><rect/><rect/></g>\n";
        let p = pieces(head, rest).expect("cut");
        assert_eq!(
            texts(&p),
            [
                "<line x1=\"1\"/>",
                "<g class=\"units\" fill=\"#fff\"><g class=\"unit\"><title>A</title><use href=\"#u\"/></g></g>",
                "<g class=\"units\" fill=\"#fff\"><text x=\"2\">A1</text></g>",
                "<g opacity=\"0.5\"><rect/><rect/></g>",
            ]
        );
        assert!(p.iter().all(|p| p.at == (0, 0) && p.svg == p.text.len()));
    }

    #[test]
    fn a_top_that_could_draw_otherwise_in_pieces_is_not_cut() {
        let head = "<svg><defs/>";
        for rest in [
            "<rect id=\"a\"/><use href=\"#a\"/>",
            "<g><rect/>",
            "</g><rect/>",
            "<g mix-blend-mode=\"multiply\"><rect/></g>",
        ] {
            assert_eq!(pieces(head, rest), None, "{rest}");
        }
        let styled = "<svg><defs><style>.u{opacity:.5}</style></defs>";
        assert_eq!(pieces(styled, "<rect class=\"u\"/>"), None);
    }

    /// A unit placed by a translate is kept without it, its title and data
    /// attributes: two units of one kind at two hexes are one key, laid at
    /// their own pixels, the fraction of a pixel kept apart.
    #[test]
    fn a_piece_placed_by_a_translate_is_kept_by_its_drawing_alone() {
        let head = "<svg viewBox=\"0 0 200 100\" width=\"200\" height=\"100\"><defs/>";
        let unit = |at: &str, x: &str, y: &str| {
            format!("<g class=\"unit\" data-hex=\"{at}\" transform=\"translate({x} {y})\"><title>A at {at}</title><rect width=\"4\" height=\"4\"/></g>")
        };
        let rest = format!(
            "<g class=\"units\" fill=\"#111\">{}{}{}</g>",
            unit("A1", "10", "20"),
            unit("B2", "50", "40"),
            unit("C3", "51", "40")
        );
        let p = pieces(head, &rest).expect("cut");
        let key = "<g class=\"units\" fill=\"#111\"><g class=\"unit\"><rect width=\"4\" height=\"4\"/></g></g>";
        assert_eq!(p[0].svg(), key);
        assert_eq!(p[0].text, p[1].text, "one key at two hexes");
        assert_eq!((p[0].at, p[1].at), ((15, 30), (75, 60)));
        // 51 units is 76.5 pixels: another phase, another key.
        assert_eq!(p[2].svg(), key);
        assert_ne!(p[2].text, p[1].text);
        assert_eq!((p[2].at, p[2].phase), ((76, 60), (0.5, 0.0)));
        // A root that does not map units to pixels by the scale alone, or
        // a stylesheet: kept whole, where it stands.
        for head in [
            "<svg viewBox=\"0 0 100 50\" width=\"200\" height=\"100\"><defs/>",
            "<svg viewBox=\"0 0 200 100\" width=\"200\" height=\"100\"><defs><style>[data-hex]{fill:red}</style></defs>",
        ] {
            let p = pieces(head, &rest).expect("cut");
            assert!(p[0].text.contains("data-hex=\"A1\""), "{head}");
            assert_eq!(p[0].at, (0, 0));
        }
    }

    #[test]
    fn two_channels_a_lane_are_each_the_rounded_quotient() {
        // Every alpha, and channels of the destination at the ends and
        // between; the source's channels no more than its alpha.
        for a in 0..=255u32 {
            for d in [0u32, 1, 2, 127, 128, 129, 200, 254, 255] {
                let dst = d | ((255 - d) << 8) | ((d / 2) << 16) | (255 << 24);
                let src = (a / 3) | ((a / 2) << 8) | (a << 16) | (a << 24);
                let got = over(src, dst).to_le_bytes();
                for (i, got) in got.iter().enumerate() {
                    let (s, d) = ((src >> (8 * i)) & 255, (dst >> (8 * i)) & 255);
                    let want = s + (d * (255 - a) + 127) / 255;
                    assert_eq!(
                        u32::from(*got),
                        want,
                        "alpha {a}, channel {i}: {s} over {d}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_pixel_laid_over_is_the_premultiplied_source_over_rounded() {
        for (s, d) in [
            ([0u8, 0, 0, 0], [10u8, 20, 30, 255]),
            ([255, 255, 255, 255], [1, 2, 3, 255]),
            ([64, 32, 0, 128], [200, 100, 50, 255]),
            ([1, 1, 1, 1], [255, 255, 255, 255]),
        ] {
            let sprite = Sprite {
                dx: 0,
                dy: 0,
                w: 1,
                h: 1,
                spans: spans(&s, 1),
                drawn: s.to_vec(),
            };
            let mut canvas = d.to_vec();
            let mut blocks = crate::Blocks::new(1, 1);
            crate::mark(&mut blocks, (0, 1), (0, 1));
            let layer = d.to_vec();
            let mut fresh = crate::Fresh {
                layer: &layer,
                blocks: &mut blocks,
            };
            sprite.lay((0, 0), &mut canvas, (1, 1), &mut fresh);
            let a = f64::from(s[3]) / 255.0;
            for i in 0..4 {
                let want = (f64::from(s[i]) + f64::from(d[i]) * (1.0 - a)).round();
                assert_eq!(f64::from(canvas[i]), want, "{s:?} over {d:?}, channel {i}");
            }
        }
    }
}
