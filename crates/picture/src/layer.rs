//! The static layer of a board (issue 57).
//!
//! A family's SVG may hold one `<g class="static">` group, a child of the
//! root `<svg>`: the terrain, grid, names and other drawing that is the same
//! on every turn of a scenario seen from one seat (docs/performance.md,
//! "The static layer"). The picture is then drawn in two parts:
//!
//! - the **layer**: the root element (without its `aria-label`), the
//!   `<defs>`, whatever comes before the group (a background), and the
//!   group; rasterised once and kept, keyed by that text (compared whole);
//! - the **top**: the root element, the `<defs>` and everything after the
//!   group (units, markers, arrows), drawn over a copy of the layer.
//!
//! resvg draws a root's children one after another straight onto the
//! canvas (a group with no opacity, filter, mask or clip is not drawn
//! apart), so the two parts give the very pixels the whole SVG gives: the
//! picture stays a pure function of the SVG, whatever is kept. Where that
//! could not hold (an `id` inside the group or outside the `<defs>` before
//! it, a `<style>` outside the `<defs>`, a root with opacity, filter, mask,
//! clip or style, a group that is not the root's child), the SVG is drawn
//! whole.

use resvg::tiny_skia::Pixmap;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

/// The opening of the static group.
const OPEN: &str = "<g class=\"static\"";

/// An SVG cut at its static group: the layer's SVG and the top's SVG.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Split {
    pub layer: String,
    pub top: String,
    /// The root element without its `aria-label`, and the `<defs>`: what
    /// every piece of the top is drawn under (`sprite`).
    pub head: String,
    /// The top's content: what follows the group, without `</svg>`.
    pub rest: String,
}

/// Where the element (or comment, or declaration) opening at `at` ends, one
/// past its last byte, with whether it opens an element that has children.
pub(crate) fn tag_end(s: &str, at: usize) -> Option<(usize, Tag)> {
    let rest = &s[at..];
    let (close, tag) = if rest.starts_with("<!--") {
        ("-->", Tag::Other)
    } else if rest.starts_with("<![CDATA[") {
        ("]]>", Tag::Other)
    } else if rest.starts_with("<!") || rest.starts_with("<?") {
        (">", Tag::Other)
    } else if rest.starts_with("</") {
        (">", Tag::Close)
    } else {
        (">", Tag::Open)
    };
    // A one-byte close found as a `char` (memchr): a `&str` pattern set up
    // a two-way searcher for every tag, 3% of a warm picture's instructions.
    let end =
        at + match close {
            ">" => rest.find('>')?,
            _ => rest.find(close)?,
        } + close.len();
    let tag = match tag {
        Tag::Open if s[..end].ends_with("/>") => Tag::Other,
        t => t,
    };
    Some((end, tag))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Open,
    Close,
    Other,
}

/// The name of the element whose tag (`<name ...>` or `</name>`) opens `s`.
pub(crate) fn name(s: &str) -> &str {
    let s = s.trim_start_matches('<').trim_start_matches('/');
    let end = s
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(s.len());
    &s[..end]
}

/// Walks the tags of `s` from `at`, each element's closing tag checked
/// against its opening one: one past the end of the first element closed
/// at depth 0 when `first` (the element that opens at `at`), else whether
/// every element opened is closed by the end of `s`.
fn walk(s: &str, at: usize, first: bool) -> Option<usize> {
    let mut open: Vec<&str> = Vec::new();
    let mut i = at;
    while let Some(next) = s[i..].find('<') {
        let start = i + next;
        let (end, tag) = tag_end(s, start)?;
        match tag {
            Tag::Open => open.push(name(&s[start..])),
            Tag::Close => {
                if open.pop()? != name(&s[start..]) {
                    return None;
                }
            }
            Tag::Other => {}
        }
        if first && open.is_empty() {
            return Some(end);
        }
        i = end;
    }
    (!first && open.is_empty()).then_some(s.len())
}

/// One past the end of the element that opens at `at` (its closing tag
/// included).
pub(crate) fn element_end(s: &str, at: usize) -> Option<usize> {
    walk(s, at, true)
}

/// True when every element opened in `s` is closed in it (so what follows
/// `s` is a child of what holds it).
fn balanced(s: &str) -> bool {
    walk(s, 0, false).is_some()
}

/// `s` without its elements named `name` (each whole), and those elements.
fn take(s: &str, name: &str) -> Option<(String, String)> {
    let open = format!("<{name}");
    let (mut rest, mut taken) = (String::new(), String::new());
    let mut i = 0;
    while let Some(at) = s[i..].find(&open) {
        let at = i + at;
        let next = s[at + open.len()..].chars().next();
        if !matches!(next, Some(' ' | '>' | '/')) {
            rest.push_str(&s[i..at + open.len()]);
            i = at + open.len();
            continue;
        }
        let end = element_end(s, at)?;
        rest.push_str(&s[i..at]);
        taken.push_str(&s[at..end]);
        i = end;
    }
    rest.push_str(&s[i..]);
    Some((rest, taken))
}

/// `svg` cut at its static group, or None to draw it whole.
pub(crate) fn split(svg: &str) -> Option<Split> {
    if !svg.starts_with("<svg") {
        return None;
    }
    let root_end = svg.find('>')? + 1;
    let root = &svg[..root_end];
    let drawn_apart = [
        "/>",
        " opacity=",
        " filter=",
        " mask=",
        " clip-path=",
        " style=",
    ];
    if drawn_apart.iter().any(|a| root.contains(a)) {
        return None;
    }
    let start = root_end + svg[root_end..].find(OPEN)?;
    if !matches!(svg[start + OPEN.len()..].chars().next(), Some(' ' | '>')) {
        return None;
    }
    let end = element_end(svg, start)?;
    let (before, group, after) = (&svg[root_end..start], &svg[start..end], &svg[end..]);
    let inner = after.trim_end().strip_suffix("</svg>")?;
    if !balanced(before) || !balanced(inner) || group.contains(" id=") {
        return None;
    }
    let (before, defs) = take(before, "defs")?;
    if before.contains(" id=") || before.contains("<style") {
        return None;
    }
    // Titles draw nothing; they name the turn, which the layer must not.
    let (before, _) = take(&before, "title")?;
    let (before, _) = take(&before, "desc")?;
    let plain_root = match root.find(" aria-label=\"") {
        Some(a) => {
            let v = a + " aria-label=\"".len();
            let close = v + root[v..].find('"')? + 1;
            format!("{}{}", &root[..a], &root[close..])
        }
        None => root.to_string(),
    };
    Some(Split {
        layer: format!("{plain_root}{defs}{before}{group}</svg>"),
        top: format!("{root}{defs}{after}"),
        head: format!("{plain_root}{defs}"),
        rest: inner.to_string(),
    })
}

/// How many layers are kept at most, and their bytes at most (the newest
/// one is kept whatever its size). A layer is 4 to 9 MB (a board of 1,000
/// to 1,500 pixels a side, four bytes a pixel and one byte of index).
const LAYERS: usize = 8;
const LAYER_BYTES: usize = 24 << 20;

/// A static layer drawn: its pixels, and its palette, indices and deflated
/// bands (`band`).
pub(crate) struct Layer {
    pub pixmap: Pixmap,
    pub base: crate::band::Base,
}

/// A layer with its SVG: empty while one thread draws it (another thread
/// asking for it waits for that drawing).
type Kept = (Box<str>, OnceLock<Option<Arc<Layer>>>);

fn kept() -> &'static Mutex<VecDeque<Arc<Kept>>> {
    static KEPT: OnceLock<Mutex<VecDeque<Arc<Kept>>>> = OnceLock::new();
    KEPT.get_or_init(|| Mutex::new(VecDeque::with_capacity(LAYERS)))
}

fn lock() -> std::sync::MutexGuard<'static, VecDeque<Arc<Kept>>> {
    kept()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Forgets every layer (for the benchmarks).
pub(crate) fn forget() {
    lock().clear();
}

/// The layer drawn from `svg` (by `draw`, outside the lock), and whether it
/// was kept from before.
pub(crate) fn layer(svg: &str, draw: impl FnOnce() -> Option<Layer>) -> (Option<Arc<Layer>>, bool) {
    let (entry, found) = {
        let mut k = lock();
        if let Some(i) = k.iter().position(|d| *d.0 == *svg) {
            // The newest last, so the layers in use stay.
            let d = k.remove(i).unwrap_or_else(|| unreachable!());
            k.push_back(Arc::clone(&d));
            (d, true)
        } else {
            let bytes = |d: &Arc<Kept>| {
                d.1.get()
                    .and_then(Option::as_ref)
                    .map_or(0, |l| l.pixmap.data().len() + l.base.bytes())
            };
            while k.len() >= LAYERS
                || (!k.is_empty() && k.iter().map(bytes).sum::<usize>() > LAYER_BYTES)
            {
                k.pop_front();
            }
            let d = Arc::new((svg.into(), OnceLock::new()));
            k.push_back(Arc::clone(&d));
            (d, false)
        }
    };
    let mut drew = false;
    let p = entry
        .1
        .get_or_init(|| {
            drew = true;
            draw().map(Arc::new)
        })
        .clone();
    (p, found && !drew)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_cut_after_its_static_group() {
        let svg = "<svg xmlns=\"x\" width=\"4\" aria-label=\"Game, turn 3\"><defs><rect id=\"u\"/></defs><title>turn 3</title><rect fill=\"#eee\"/><g class=\"static\"><g><use href=\"#u\"/></g><text>A1</text></g><g class=\"units\"><use href=\"#u\"/></g></svg>\n";
        let s = split(svg).expect("cut");
        assert_eq!(
            s.layer,
            "<svg xmlns=\"x\" width=\"4\"><defs><rect id=\"u\"/></defs><rect fill=\"#eee\"/><g class=\"static\"><g><use href=\"#u\"/></g><text>A1</text></g></svg>"
        );
        assert_eq!(
            s.top,
            "<svg xmlns=\"x\" width=\"4\" aria-label=\"Game, turn 3\"><defs><rect id=\"u\"/></defs><g class=\"units\"><use href=\"#u\"/></g></svg>\n"
        );
    }

    #[test]
    fn what_cannot_be_cut_safely_is_drawn_whole() {
        let cases = [
            // No static group.
            "<svg><rect/></svg>",
            // An id in the group, which the top might use.
            "<svg><g class=\"static\"><rect id=\"a\"/></g><use href=\"#a\"/></svg>",
            // An id before the group, outside the defs.
            "<svg><rect id=\"a\"/><g class=\"static\"/><use href=\"#a\"/></svg>",
            // The group inside another element (drawn with its opacity).
            "<svg><g opacity=\"0.5\"><g class=\"static\"><rect/></g><rect/></g></svg>",
            // A root drawn apart.
            "<svg opacity=\"0.5\"><g class=\"static\"><rect/></g></svg>",
            // A style outside the defs.
            "<svg><style>rect{fill:red}</style><g class=\"static\"><rect/></g></svg>",
            // A group never closed.
            "<svg><g class=\"static\"><rect/></svg>",
            // Another class.
            "<svg><g class=\"static-ish\"><rect/></g></svg>",
        ];
        for svg in cases {
            assert_eq!(split(svg), None, "{svg}");
        }
    }
}
