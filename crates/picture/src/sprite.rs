//! The top of a board drawn from kept pieces (issue 57).
//!
//! What a board draws over its static layer (`layer`) is a few dozen
//! elements: units, markers, arrows, coordinates, the legend. From one turn
//! to the next, and between the games of one scenario, most of them are the
//! very same bytes: a unit that did not move, a legend line, a coordinate.
//! So the top is cut into **pieces**, each one element (a child of the root,
//! or a child of a plain `<g>` child of the root, under that `<g>`'s opening
//! tag), and each piece is drawn alone, as an SVG of its own (the root
//! element without its `aria-label`, the `<defs>`, the piece), into a small
//! transparent pixmap the size of what it draws. The pixmaps are kept,
//! keyed by that SVG's full text (compared whole, never hashed), and laid
//! over the layer in the document's order (source-over).
//!
//! A piece drawn apart and laid over is the piece drawn in place up to the
//! rounding of one compositing step (a channel differs by at most a few
//! units in a few edge pixels): the picture is no longer byte for byte the
//! SVG drawn whole, but it stays a pure function of the SVG, whatever is
//! kept (the same pieces, drawn the same way, laid in the same order).
//! Where a piece could draw differently alone (an `id` outside the
//! `<defs>`, a group drawn apart by its opacity, filter, mask, clip, blend
//! or style, a stylesheet that could make one so), the top is drawn whole.

use crate::layer::{element_end, name, tag_end, Tag};
use crate::Changed;
use resvg::tiny_skia::{self, Pixmap};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

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

/// The pieces of a board's top: each an SVG of its own, `head` (the root's
/// opening tag and the `<defs>`), the piece (under its group's opening tag
/// when it is a child of one) and the closing tags; in the document's
/// order. None: the top cannot be cut safely, draw it whole.
pub(crate) fn pieces(head: &str, rest: &str) -> Option<Vec<String>> {
    if rest.contains(" id=") {
        return None;
    }
    if let Some(at) = head.find("<style") {
        let css = &head[at..];
        let risky = ["opacity", "filter", "mask", "clip", "blend", "isolation"];
        if risky.iter().any(|w| css.contains(w)) {
            return None;
        }
    }
    let mut out = Vec::new();
    for el in elements(rest)? {
        let (open_end, _) = tag_end(el, 0)?;
        let open = &el[..open_end];
        let plain_group =
            name(el) == "g" && !el.ends_with("/>") && !APART.iter().any(|a| open.contains(a));
        if plain_group {
            let close = el.rfind("</")?;
            for child in elements(&el[open_end..close])? {
                out.push(format!("{head}{open}{child}</g></svg>"));
            }
        } else {
            // A group drawn apart is one piece: drawn alone either way.
            out.push(format!("{head}{el}</svg>"));
        }
    }
    Some(out)
}

/// A piece drawn over what lay under it: where (in pixels), the pixels
/// under it before (premultiplied RGBA) and after.
pub(crate) struct Sprite {
    x: usize,
    y: usize,
    w: usize,
    h: usize,
    under: Vec<u8>,
    drawn: Vec<u8>,
}

impl Sprite {
    /// Whether `canvas` (`cw` pixels wide) holds this sprite's `under`.
    fn fits(&self, canvas: &[u8], cw: usize) -> bool {
        (0..self.h).all(|row| {
            let at = ((self.y + row) * cw + self.x) * 4;
            canvas[at..at + self.w * 4] == self.under[row * self.w * 4..][..self.w * 4]
        })
    }

    /// Lays the sprite's pixels on `canvas`.
    fn lay(&self, canvas: &mut [u8], cw: usize) {
        for row in 0..self.h {
            let at = ((self.y + row) * cw + self.x) * 4;
            canvas[at..at + self.w * 4]
                .copy_from_slice(&self.drawn[row * self.w * 4..][..self.w * 4]);
        }
    }
}

/// Where the piece `tree` draws on a picture of `w` x `h` pixels: what it
/// draws with its strokes and markers, and two pixels for the anti-aliased
/// edges (x0, y0, x1, y1), or None if it draws nothing.
fn rect(tree: &resvg::usvg::Tree, w: u32, h: u32) -> Option<(i64, i64, i64, i64)> {
    if !tree.root().has_children() {
        return None;
    }
    let b = tree.root().abs_layer_bounding_box();
    let s = crate::scale_for(tree.size().width().ceil());
    let px = |v: f32, round: fn(f32) -> f32, pad: i64, max: u32| {
        (round(v * s) as i64 + pad).clamp(0, i64::from(max))
    };
    let (x0, y0) = (
        px(b.left(), f32::floor, -2, w),
        px(b.top(), f32::floor, -2, h),
    );
    let (x1, y1) = (
        px(b.right(), f32::ceil, 2, w),
        px(b.bottom(), f32::ceil, 2, h),
    );
    (x1 > x0 && y1 > y0).then_some((x0, y0, x1, y1))
}

/// Draws the piece `svg` over `canvas` (`w` x `h` pixels), as it would be
/// drawn in place: the sprite of what it changed (None if it draws
/// nothing), or Err if it does not parse or is not of that size.
fn draw(
    svg: &str,
    canvas: &mut [u8],
    (w, h): (u32, u32),
    fresh: &mut crate::Fresh<'_>,
) -> Result<Option<Sprite>, ()> {
    let tree = crate::parse(svg).ok_or(())?;
    if crate::scaled(&tree) != (w, h) {
        return Err(());
    }
    let Some((x0, y0, x1, y1)) = rect(&tree, w, h) else {
        return Ok(None);
    };
    let conv = |v: i64| usize::try_from(v).map_err(|_| ());
    let (x, y, sw, sh) = (conv(x0)?, conv(y0)?, conv(x1 - x0)?, conv(y1 - y0)?);
    let cw = w as usize;
    fresh.ensure(canvas, (y, y + sh), (x, x + sw));
    let mut under = Vec::with_capacity(sw * sh * 4);
    for row in 0..sh {
        let at = ((y + row) * cw + x) * 4;
        under.extend_from_slice(&canvas[at..at + sw * 4]);
    }
    let size = tiny_skia::IntSize::from_wh(sw as u32, sh as u32).ok_or(())?;
    let mut pm = Pixmap::from_vec(under.clone(), size).ok_or(())?;
    let s = crate::scale_for(tree.size().width().ceil());
    resvg::render(
        &tree,
        tiny_skia::Transform::from_row(s, 0.0, 0.0, s, -(x0 as f32), -(y0 as f32)),
        &mut pm.as_mut(),
    );
    Ok(Some(Sprite {
        x,
        y,
        w: sw,
        h: sh,
        under,
        drawn: pm.take(),
    }))
}

/// The sprites' pixels kept at most, in two generations of half each: a
/// piece used from the older one moves to the newer; when the newer is
/// full, the older is forgotten. A Memoir '44 unit is about 12 KB, a
/// board's pieces seen from one seat under 1 MB: 4 MB keeps a few boards'
/// (16 MB was a quarter of the judge's peak RSS for nothing it needed:
/// docs/performance.md).
const SPRITE_BYTES: usize = 4 << 20;

/// How many drawings of one piece are kept, each over another background
/// (a unit over a marker, or over another unit's edge).
const VARIANTS: usize = 4;

/// A piece's drawings: None if it does not parse alone, else the drawings
/// over each background met (a piece that draws nothing has one, None).
type Piece = Option<Vec<Option<Arc<Sprite>>>>;

type Kept = BTreeMap<Box<str>, Piece>;

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

fn size(s: &Option<Arc<Sprite>>) -> usize {
    s.as_ref().map_or(0, |s| s.under.len() + s.drawn.len()) + 64
}

/// What is kept of the piece `svg`: Some(None) if it does not parse alone,
/// Some(Some(drawings)) if it was drawn before, None if never.
fn kept(svg: &str) -> Option<Piece> {
    let mut c = cache();
    if let Some(p) = c.new.get(svg) {
        return Some(p.clone());
    }
    let (k, p) = c.old.remove_entry(svg)?;
    c.bytes += p.as_ref().map_or(0, |v| v.iter().map(size).sum());
    c.new.insert(k, p.clone());
    Some(p)
}

/// Keeps a drawing of the piece `svg` (None: it does not parse alone).
fn keep(svg: &str, drawn: Option<Option<Arc<Sprite>>>) {
    let mut c = cache();
    let add = drawn.as_ref().map_or(0, size) + svg.len();
    let entry = c.new.entry(svg.into()).or_insert_with(|| Some(Vec::new()));
    match (entry, drawn) {
        (Some(v), Some(s)) => {
            if v.len() >= VARIANTS {
                v.remove(0);
            }
            v.push(s);
        }
        (e, _) => *e = None,
    }
    c.bytes += add;
    if c.bytes > SPRITE_BYTES / 2 {
        c.old = std::mem::take(&mut c.new);
        c.bytes = 0;
    }
}

/// Draws `pieces` over `pixmap` (the layer's copy) one after another, each
/// laid from a drawing kept over the very same pixels, else drawn in
/// place, each marked in `changed` where it lies: false if one of them
/// cannot be drawn alone (`pixmap` is then spoilt where `changed` says:
/// draw the top whole over a fresh copy of the layer).
pub(crate) fn draw_over(
    pieces: &[String],
    pixmap: &mut Pixmap,
    changed: &mut Changed,
    fresh: &mut crate::Fresh<'_>,
) -> bool {
    let (w, h) = (pixmap.width(), pixmap.height());
    let cw = w as usize;
    for piece in pieces {
        let canvas = pixmap.data_mut();
        let found = match kept(piece) {
            Some(None) => return false,
            Some(Some(drawn)) => drawn.into_iter().find(|s| {
                s.as_ref().is_none_or(|s| {
                    fresh.ensure(canvas, (s.y, s.y + s.h), (s.x, s.x + s.w));
                    s.fits(canvas, cw)
                })
            }),
            None => None,
        };
        let sprite = match found {
            Some(s) => s,
            None => match draw(piece, canvas, (w, h), fresh) {
                Ok(s) => {
                    let s = s.map(Arc::new);
                    keep(piece, Some(s.clone()));
                    s
                }
                Err(()) => {
                    keep(piece, None);
                    return false;
                }
            },
        };
        if let Some(s) = sprite {
            s.lay(canvas, cw);
            crate::mark(changed, (s.y, s.y + s.h), (s.x, s.x + s.w));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_top_is_cut_into_its_elements_and_its_groups_children() {
        let head = "<svg w=\"1\"><defs><rect id=\"u\"/></defs>";
        let rest = "\n<line x1=\"1\"/><!-- note --><g class=\"units\" fill=\"#fff\"><g class=\"unit\"><title>A</title><use href=\"#u\"/></g>\n<text x=\"2\">A1</text></g><title>t</title><g opacity=\"0.5\"><rect/><rect/></g>\n";
        let p = pieces(head, rest).expect("cut");
        assert_eq!(
            p,
            [
                format!("{head}<line x1=\"1\"/></svg>"),
                format!("{head}<g class=\"units\" fill=\"#fff\"><g class=\"unit\"><title>A</title><use href=\"#u\"/></g></g></svg>"),
                format!("{head}<g class=\"units\" fill=\"#fff\"><text x=\"2\">A1</text></g></svg>"),
                format!("{head}<g opacity=\"0.5\"><rect/><rect/></g></svg>"),
            ]
        );
    }

    #[test]
    fn a_top_that_could_draw_otherwise_in_pieces_is_not_cut() {
        let head = "<svg><defs/>";
        for rest in [
            "<rect id=\"a\"/><use href=\"#a\"/>",
            "<g><rect/>",
            "</g><rect/>",
        ] {
            assert_eq!(pieces(head, rest), None, "{rest}");
        }
        let styled = "<svg><defs><style>.u{opacity:.5}</style></defs>";
        assert_eq!(pieces(styled, "<rect class=\"u\"/>"), None);
    }
}
