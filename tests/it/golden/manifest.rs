//! The golden corpus's manifest (docs/testing.md, "The golden corpus"):
//! tests/golden/manifest holds one line per item, `NAME SHA256`, the item
//! being the bytes of a seeded game or of a normalised mail. A test makes
//! its items and [`settle`]s them against the manifest:
//!
//! - by default it checks: every item it made must have the manifest's
//!   digest; on a mismatch it names every differing item (not only the
//!   first) and says how to dump and diff;
//! - `ADJUTANT_GOLDEN=write` rewrites the manifest's lines of the test
//!   (the deep set: a write always makes every item);
//! - `ADJUTANT_GOLDEN_DUMP=DIR` also writes every item's bytes into DIR,
//!   one file per item, so that the dumps of two commits can be diffed.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The manifest's file.
pub fn manifest_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/manifest")
}

/// True under `ADJUTANT_GOLDEN=write`.
pub fn writing() -> bool {
    std::env::var("ADJUTANT_GOLDEN").is_ok_and(|v| v == "write")
}

/// True when every item is made: the deep depth, or a write.
pub fn full() -> bool {
    writing() || crate::common::depth::deep()
}

/// The items one test made: (name, digest), in the order made.
#[derive(Default)]
pub struct Items(pub Vec<(String, String)>);

impl Items {
    /// Record one item: its digest, and its bytes in the dump directory
    /// when one is asked for.
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        assert!(
            !name.contains('\n') && name.split(' ').count() >= 2,
            "an item's name is words on one line: {name:?}"
        );
        assert!(
            !self.0.iter().any(|(n, _)| n == name),
            "two golden items named {name}"
        );
        if let Ok(dir) = std::env::var("ADJUTANT_GOLDEN_DUMP") {
            let dir = Path::new(&dir);
            std::fs::create_dir_all(dir).expect("the dump directory");
            std::fs::write(dir.join(file_name(name)), bytes).expect("a dump file");
        }
        self.0
            .push((name.to_string(), hex::encode(Sha256::digest(bytes))));
    }
}

/// The dump file of an item: its name with every character other than a
/// letter, a digit, `.`, `-` or `=` made `_`.
pub fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '=') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The manifest's lines as (name, digest), comments left out.
fn read_manifest(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, digest) = l.rsplit_once(' ').expect("a manifest line is NAME SHA256");
            (name.to_string(), digest.to_string())
        })
        .collect()
}

const HEADER: &str = "\
# The golden corpus (docs/testing.md): one item a line, NAME SHA256.
# Written by `ADJUTANT_GOLDEN=write cargo test --test it golden::`; checked
# by `cargo test` (a quick subset) and `ADJUTANT_DEEP=1` (every line).
";

/// One test's manifest writes and reads take turns with the others'.
static MANIFEST: Mutex<()> = Mutex::new(());

/// Check (or, under `ADJUTANT_GOLDEN=write`, write) the items of one test,
/// whose names all start with one of `prefixes`. `complete`: the items are
/// every item of the prefixes (the deep depth), so a manifest line of
/// theirs that was not made is reported too.
pub fn settle(prefixes: &[String], items: &Items, complete: bool) {
    let ours = |n: &str| prefixes.iter().any(|p| n.starts_with(p.as_str()));
    let prefix = prefixes.join("|");
    assert!(
        items.0.iter().all(|(n, _)| ours(n)),
        "every item of the test starts with one of '{prefix}'"
    );
    let _turn = MANIFEST.lock().unwrap_or_else(|e| e.into_inner());
    let path = manifest_path();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines = read_manifest(&text);
    if writing() {
        let mut kept: Vec<(String, String)> = lines.into_iter().filter(|(n, _)| !ours(n)).collect();
        kept.extend(items.0.iter().cloned());
        kept.sort();
        let mut out = HEADER.to_string();
        for (n, d) in &kept {
            let _ = writeln!(out, "{n} {d}");
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, out).expect("write the manifest");
        println!(
            "golden: wrote {} items of '{prefix}' to {}",
            items.0.len(),
            path.display()
        );
        return;
    }
    let problems = differences(&ours, &lines, items, complete);
    assert!(
        problems.is_empty(),
        "the golden corpus differs in {} item(s):\n{}\n{}",
        problems.len(),
        problems.join("\n"),
        HOW_TO_DIFF
    );
    println!("golden: {} items of '{prefix}' match", items.0.len());
}

/// Every item that does not match the manifest, one line each.
fn differences(
    ours: &dyn Fn(&str) -> bool,
    lines: &[(String, String)],
    items: &Items,
    complete: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, digest) in &items.0 {
        match lines.iter().find(|(n, _)| n == name) {
            Some((_, d)) if d == digest => {}
            Some((_, d)) => {
                problems.push(format!("  differs: {name} (manifest {d}, now {digest})"))
            }
            None => problems.push(format!("  not in the manifest: {name} (now {digest})")),
        }
    }
    if complete {
        for (name, _) in lines.iter().filter(|(n, _)| ours(n)) {
            if !items.0.iter().any(|(n, _)| n == name) {
                problems.push(format!("  in the manifest, not made: {name}"));
            }
        }
    }
    problems
}

const HOW_TO_DIFF: &str = "\
To see what changed, dump every item at the old commit and at this one and
diff the two folders (a `git worktree add /tmp/old OLD-COMMIT` gives the old
tree):
  (cd /tmp/old && ADJUTANT_DEEP=1 ADJUTANT_GOLDEN_DUMP=/tmp/golden-old cargo test --test it golden::)
  ADJUTANT_DEEP=1 ADJUTANT_GOLDEN_DUMP=/tmp/golden-new cargo test --test it golden::
  diff -r /tmp/golden-old /tmp/golden-new
If the change is meant to change these bytes, rewrite the manifest and
commit it with the change (say why in the commit message):
  ADJUTANT_GOLDEN=write cargo test --test it golden::
(docs/testing.md, \"The golden corpus\").";

/// The check names every differing, new and stale item, not only the first.
#[test]
fn a_mismatch_names_every_item() {
    let lines: Vec<(String, String)> = read_manifest(
        "# a comment\ngame a x seed=000 aa\ngame a x seed=001 bb\ngame a y seed=000 cc\nmail m 00 dd\n",
    );
    assert_eq!(lines.len(), 4);
    let mut items = Items::default();
    items.0.push(("game a x seed=000".into(), "aa".into()));
    items.0.push(("game a x seed=001".into(), "b2".into()));
    items.0.push(("game a z seed=000".into(), "ee".into()));
    let ours = |n: &str| n.starts_with("game a ");
    let quick = differences(&ours, &lines, &items, false);
    assert_eq!(quick.len(), 2, "{quick:?}");
    assert!(quick[0].contains("differs: game a x seed=001"));
    assert!(quick[1].contains("not in the manifest: game a z seed=000"));
    let deep = differences(&ours, &lines, &items, true);
    assert_eq!(deep.len(), 3, "{deep:?}");
    assert!(deep[2].contains("in the manifest, not made: game a y seed=000"));
    assert_eq!(file_name("mail 15-mangled 03"), "mail_15-mangled_03");
}
