//! The replay's HTML page: the steps, the shared SVG definitions once,
//! the buttons and the script that steps through the turns.

use crate::report::html::esc;
use std::fmt::Write as _;

/// One turn of a replay, as its viewer saw it.
#[derive(Debug, Clone)]
pub struct Step {
    /// The judge's turn (0: the opening position).
    pub turn: u32,
    /// The board fragment of the turn's report (the family's SVG inline).
    pub board: String,
    /// The turn's report text, as HISTORY gives it.
    pub report: String,
    /// Each side's victory points (medals) after the turn.
    pub score: Vec<(String, u32)>,
    /// What the score is counted in ("Medals", "Victory points").
    pub score_word: &'static str,
}

/// Only what the page holds: inline styles, inline scripts, pictures
/// drawn inline. No request can leave the page.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

const STYLE: &str = "body{font-family:sans-serif;background:#fff;color:#111;margin:8px}\
nav{position:sticky;top:0;background:#eee;padding:4px;display:flex;gap:6px;align-items:center}\
nav button{font-size:15px}h2{font-size:17px;margin:6px 0}.score{font-weight:bold;margin:4px 0}\
pre{font-size:12px;line-height:1.25}svg.defs{position:absolute;width:0;height:0}";

/// Steps through the sections: buttons, Left/Right/Home/End, and the
/// address (`#turn-12`) both ways. A step's board is put together from
/// its lines when it is first shown.
const SCRIPT: &str = r"(function(){
var steps=document.querySelectorAll('section.step'),n=steps.length,cur=-1,i;
var L=JSON.parse(document.getElementById('board-lines').textContent);
for(i=0;i<n;i++)steps[i].hidden=true;
function board(s){var b=s.querySelector('div.board[data-lines]');
if(b&&!b.firstChild){b.innerHTML=b.getAttribute('data-lines').split(' ').map(function(x){return L[+x];}).join('\n');}}
function show(k){k=Math.max(0,Math.min(n-1,k));if(k===cur)return;
board(steps[k]);if(cur>=0)steps[cur].hidden=true;steps[k].hidden=false;cur=k;
var t=steps[k].getAttribute('data-turn');
document.getElementById('at').textContent='Turn '+t+' ('+(k+1)+' of '+n+')';
if(location.hash!=='#turn-'+t){try{history.replaceState(null,'','#turn-'+t);}catch(e){}}}
function fromHash(){var m=/^#turn-(\d+)$/.exec(location.hash);
if(m){for(var j=0;j<n;j++){if(steps[j].getAttribute('data-turn')===m[1]){show(j);return;}}}
if(cur<0)show(0);}
window.replayStep=show;
document.getElementById('first').onclick=function(){show(0);};
document.getElementById('back').onclick=function(){show(cur-1);};
document.getElementById('next').onclick=function(){show(cur+1);};
document.getElementById('last').onclick=function(){show(n-1);};
document.addEventListener('keydown',function(e){if(e.altKey||e.ctrlKey||e.metaKey)return;
var k={ArrowLeft:cur-1,ArrowRight:cur+1,Home:0,End:n-1}[e.key];
if(k!==undefined){e.preventDefault();show(k);}});
window.addEventListener('hashchange',fromHash);
fromHash();})();";

/// The whole page: `title`, then each step.
#[must_use]
pub fn document(title: &str, steps: &[Step]) -> String {
    let boards: Vec<&str> = steps.iter().map(|s| s.board.as_str()).collect();
    let (defs, boards) = shared_defs(&boards);
    let mut o = String::with_capacity(boards.iter().map(|b| b.len() + 4096).sum());
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{t}</title><style>{STYLE}</style></head>\n<body>\n<h1 style=\"font-size:19px\">{t}</h1>\n\
<nav><button id=\"first\" type=\"button\">First</button><button id=\"back\" type=\"button\">Back</button>\
<span id=\"at\"></span><button id=\"next\" type=\"button\">Next</button><button id=\"last\" type=\"button\">Last</button>\
<small>Left/Right, Home/End</small></nav>\n",
        t = esc(title)
    );
    if let Some(d) = defs {
        let _ = writeln!(
            o,
            "<svg class=\"defs\" xmlns=\"http://www.w3.org/2000/svg\" aria-hidden=\"true\">{d}</svg>"
        );
    }
    let (lines, boards) = board_lines(&boards);
    let _ = writeln!(
        o,
        "<script type=\"application/json\" id=\"board-lines\">{}</script>",
        script_json(&lines)
    );
    for (s, board) in steps.iter().zip(&boards) {
        step(&mut o, s, board);
    }
    let _ = write!(o, "<script>{SCRIPT}</script>\n</body></html>\n");
    o
}

/// Every distinct line of the boards once, and each board as the numbers
/// of its lines: a turn's board differs from the last one in a few lines
/// (the units that moved), and the terrain is the same every turn.
fn board_lines<'a>(boards: &'a [std::borrow::Cow<'a, str>]) -> (Vec<&'a str>, Vec<String>) {
    let mut index: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut lines: Vec<&str> = Vec::new();
    let numbered = boards
        .iter()
        .map(|b| {
            let numbers: Vec<String> = b
                .split('\n')
                .map(|l| {
                    let n = *index.entry(l).or_insert_with(|| {
                        lines.push(l);
                        lines.len() - 1
                    });
                    n.to_string()
                })
                .collect();
            numbers.join(" ")
        })
        .collect();
    (lines, numbered)
}

/// `lines` as a JSON array that may stand inside a `<script>` element:
/// no `</`, `<!--` or `<script` in its text.
fn script_json(lines: &[&str]) -> String {
    serde_json::to_string(lines)
        .unwrap_or_else(|_| "[]".into())
        .replace("</", "<\\/")
        .replace("<!", "\\u003c!")
        .replace("<script", "\\u003cscript")
}

/// One step's section.
fn step(o: &mut String, s: &Step, board: &str) {
    let score: Vec<String> = s
        .score
        .iter()
        .map(|(side, n)| format!("{side} {n}"))
        .collect();
    let _ = write!(
        o,
        "<section class=\"step\" data-turn=\"{t}\">\n<h2>{h}</h2>\n",
        t = s.turn,
        h = if s.turn == 0 {
            "The opening position".to_string()
        } else {
            format!("Turn {}", s.turn)
        }
    );
    if !score.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"score\">{}: {}</p>",
            s.score_word,
            esc(&score.join(", "))
        );
    }
    let _ = write!(
        o,
        "<div class=\"board\" data-lines=\"{board}\"></div>\n<pre class=\"report\">{}</pre>\n</section>\n",
        esc(&s.report)
    );
}

/// The boards' `<defs>` (symbols, shapes) written once for the page when
/// every board has the same, and the boards without them; else none and
/// the boards as they are. Ids are the page's: a `use` in any board finds
/// the shared definition.
fn shared_defs<'a>(boards: &[&'a str]) -> (Option<&'a str>, Vec<std::borrow::Cow<'a, str>>) {
    let defs_of = |b: &'a str| -> Option<&'a str> {
        let start = b.find("<defs>")?;
        let end = b[start..].find("</defs>")? + start + "</defs>".len();
        Some(&b[start..end])
    };
    let first = boards.first().and_then(|b| defs_of(b));
    let same = first.is_some() && boards.iter().all(|b| defs_of(b) == first);
    match first {
        Some(d) if same => (
            Some(d),
            boards
                .iter()
                .map(|b| std::borrow::Cow::Owned(b.replacen(d, "", 1)))
                .collect(),
        ),
        _ => (
            None,
            boards
                .iter()
                .map(|b| std::borrow::Cow::Borrowed(*b))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(turn: u32, board: &str) -> Step {
        Step {
            turn,
            board: board.into(),
            report: format!("Turn {turn} <report> & more"),
            score: vec![("axis".into(), turn), ("allies".into(), 1)],
            score_word: "Medals",
        }
    }

    /// The lines of the page's dictionary and each step's board put
    /// back together, as the script does.
    fn boards(page: &str) -> Vec<String> {
        let start = page.find("id=\"board-lines\">").unwrap() + "id=\"board-lines\">".len();
        let json = &page[start..start + page[start..].find("</script>").unwrap()];
        let lines: Vec<String> = serde_json::from_str(json).unwrap();
        page.split("data-lines=\"")
            .skip(1)
            .map(|t| {
                t[..t.find('"').unwrap()]
                    .split(' ')
                    .map(|n| lines[n.parse::<usize>().unwrap()].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect()
    }

    #[test]
    fn equal_defs_and_lines_are_written_once_and_text_is_escaped() {
        let b = "<svg><defs><symbol id=\"u\"/></defs>\n<use href=\"#u\"/></svg>";
        let c = "<svg><defs><symbol id=\"u\"/></defs>\n<use href=\"#v\"/></svg>";
        let page = document("Game 1 <x>", &[step(0, b), step(1, b), step(2, c)]);
        assert_eq!(page.matches("<symbol id=\"u\"/>").count(), 1, "{page}");
        assert_eq!(page.matches("<use href=\\\"#u\\\"/>").count(), 1, "{page}");
        assert_eq!(
            boards(&page),
            [
                "<svg>\n<use href=\"#u\"/></svg>",
                "<svg>\n<use href=\"#u\"/></svg>",
                "<svg>\n<use href=\"#v\"/></svg>"
            ]
        );
        assert!(page.contains("Turn 1 &lt;report&gt; &amp; more"));
        assert!(page.contains("Game 1 &lt;x&gt;"));
        assert!(page.contains("Medals: axis 2, allies 1"));
        assert!(page.contains("default-src 'none'"));
    }

    #[test]
    fn different_defs_stay_with_their_boards() {
        let a = "<svg><defs><symbol id=\"u\"/></defs></svg>";
        let b = "<svg><defs><symbol id=\"v\"/></defs></svg>";
        let page = document("g", &[step(0, a), step(1, b)]);
        assert!(!page.contains("class=\"defs\""));
        assert_eq!(boards(&page), [a, b]);
    }

    #[test]
    fn no_line_can_end_the_script_that_holds_it() {
        let a = "<svg><text>x</text><!-- y --></svg>\n</script><script>alert(1)</script>";
        let page = document("g", &[step(0, a)]);
        let data = &page[page.find("id=\"board-lines\">").unwrap()..];
        let data = &data[..data.find("</script>").unwrap()];
        assert!(!data.contains("<!") && !data.contains("<script"), "{data}");
        assert_eq!(boards(&page), [a]);
    }
}
