//! Golden mails: every `tests/mail/NAME.eml` is parsed and compared with
//! `tests/mail/NAME.expect` (TOML). All failures are listed, each with a
//! readable line diff, before the test fails.
//!
//! `.expect` fields: `text` (required: the exact extracted text; a final newline
//! before the closing `"""` is ignored), and optionally `auto` (the `AutoKind`
//! variant name, or `"none"`), `problems_contain`, `no_problems = true`, `from`,
//! `from_name`, `message_id`, `in_reply_to`, `subject`, `to_contain`, `no_from = true`
//! (no sender address could be read).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use adjutant::mail::parse::{parse, Envelope};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    text: String,
    auto: Option<String>,
    problems_contain: Option<String>,
    no_problems: Option<bool>,
    from: Option<String>,
    from_name: Option<String>,
    message_id: Option<String>,
    in_reply_to: Option<String>,
    subject: Option<String>,
    to_contain: Option<String>,
    no_from: Option<bool>,
}

const MIN_CORPUS: usize = 45;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail")
}

/// A line diff (longest common subsequence), `-` expected, `+` actual.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.split('\n').collect();
    let b: Vec<&str> = actual.split('\n').collect();
    if a.len() * b.len() > 4_000_000 {
        return format!(
            "--- expected ({} lines)\n+++ actual ({} lines)\n",
            a.len(),
            b.len()
        );
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let show = |l: &str| {
        if l.len() > 200 {
            format!(
                "{}... ({} chars)",
                &l[..l.char_indices().nth(200).map_or(l.len(), |(i, _)| i)],
                l.len()
            )
        } else {
            format!("{l:?}")
        }
    };
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            let _ = writeln!(out, "    {}", show(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "  - {}", show(a[i]));
            i += 1;
        } else {
            let _ = writeln!(out, "  + {}", show(b[j]));
            j += 1;
        }
    }
    out
}

fn check(name: &str, env: &Envelope, exp: &Expect) -> Vec<String> {
    let mut fails = Vec::new();
    let want = exp.text.strip_suffix('\n').unwrap_or(&exp.text);
    if env.text != want {
        fails.push(format!(
            "text differs (- expected, + actual):\n{}",
            diff(want, &env.text)
        ));
    }
    let auto = env.auto.as_ref().map_or("none", |a| a.name());
    let want_auto = exp.auto.as_deref().unwrap_or("none");
    if auto != want_auto {
        fails.push(format!(
            "auto: expected {want_auto}, got {auto} ({:?})",
            env.auto
        ));
    }
    if let Some(p) = &exp.problems_contain {
        if !env.problems.iter().any(|q| q.contains(p.as_str())) {
            fails.push(format!(
                "problems: expected one containing {p:?}, got {:?}",
                env.problems
            ));
        }
    }
    if exp.no_problems == Some(true) && !env.problems.is_empty() {
        fails.push(format!("problems: expected none, got {:?}", env.problems));
    }
    if exp.no_from == Some(true) && env.from.is_some() {
        fails.push(format!("from: expected none, got {:?}", env.from));
    }
    let mut field = |label: &str, want: &Option<String>, got: Option<&str>| {
        if let Some(w) = want {
            if got != Some(w.as_str()) {
                fails.push(format!("{label}: expected {w:?}, got {got:?}"));
            }
        }
    };
    field("from", &exp.from, env.from.as_deref());
    field("from_name", &exp.from_name, env.from_name.as_deref());
    field("message_id", &exp.message_id, env.message_id.as_deref());
    field("in_reply_to", &exp.in_reply_to, env.in_reply_to.as_deref());
    field("subject", &exp.subject, Some(env.subject.as_str()));
    if let Some(t) = &exp.to_contain {
        if !env.to.contains(t) {
            fails.push(format!("to: expected to contain {t:?}, got {:?}", env.to));
        }
    }
    fails.into_iter().map(|f| format!("{name}: {f}")).collect()
}

#[test]
fn mail_corpus() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/mail exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    names.sort();
    let mut failures = Vec::new();
    let mut passed = 0;
    for path in &names {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read(path).expect("readable .eml");
        let expect_path = path.with_extension("expect");
        let exp: Expect = match std::fs::read_to_string(&expect_path) {
            Ok(s) => match toml::from_str(&s) {
                Ok(e) => e,
                Err(e) => {
                    failures.push(format!("{name}: bad .expect: {e}"));
                    continue;
                }
            },
            Err(e) => {
                failures.push(format!("{name}: no .expect beside it: {e}"));
                continue;
            }
        };
        let env = parse(&raw);
        let fails = check(&name, &env, &exp);
        if fails.is_empty() {
            passed += 1;
        } else {
            failures.extend(fails);
        }
    }
    eprintln!("mail corpus: {passed} of {} passed", names.len());
    assert!(
        failures.is_empty(),
        "{} of {} mails failed:\n\n{}",
        names.len() - passed,
        names.len(),
        failures.join("\n\n")
    );
    assert!(
        names.len() >= MIN_CORPUS,
        "only {} mails in tests/mail",
        names.len()
    );
}

/// Every `.expect` has its `.eml`.
#[test]
fn no_orphan_expectations() {
    for entry in std::fs::read_dir(corpus_dir()).expect("tests/mail exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "expect") {
            assert!(
                path.with_extension("eml").exists(),
                "{} has no .eml",
                path.display()
            );
        }
    }
}
