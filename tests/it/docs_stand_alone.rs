//! Issue 55: the docs stand alone. A user or referee reading docs/, the
//! README or a case's `cites` line can open every file it names: nothing
//! cites the project's working notes ("RULES-NOTES"), the machine's shared
//! folder, or the source rulebooks' file names, none of which ship. Every
//! reading the engine follows is written in docs/rules/<ruleset>.md with the
//! sentence it interprets (docs/rules/memoir44.md, "Official rules taken
//! where the house rules are silent").

use std::path::{Path, PathBuf};

/// Why `line` cites something outside the repository, if it does.
fn outside_citation(line: &str) -> Option<&'static str> {
    if line.contains("RULES-NOTES") {
        return Some("the working notes (RULES-NOTES), which do not ship");
    }
    if line.contains("/work/shared") {
        return Some("the machine's shared folder");
    }
    let b = line.as_bytes();
    for (i, _) in line.match_indices("seeds/") {
        if b.get(i + 6).is_some_and(u8::is_ascii_digit) {
            return Some("a source rulebook by its file name (seeds/N)");
        }
    }
    // A rulebook file name: 00N_ and 16 hex digits.
    for i in 0..b.len() {
        let name = b.get(i..i + 20);
        if let Some(n) = name {
            let head = n[0] == b'0' && n[1] == b'0' && n[2].is_ascii_digit() && n[3] == b'_';
            if head && n[4..].iter().all(u8::is_ascii_hexdigit) {
                return Some("a source rulebook by its file name (00N_<hash>)");
            }
        }
    }
    None
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "md" || e == "toml" || e == "txt")
        {
            out.push(p);
        }
    }
}

#[test]
fn the_checker_catches_each_kind_of_outside_citation() {
    for bad in [
        "Gaps are filled from `RULES-NOTES.md`.",
        "cites = \"RULES-NOTES Tactic cards - Ambush\"",
        "counted with `python3 /work/shared/tools/fnlen.py 150 src`",
        "Authority: the house rules (`seeds/004`, Main Rules).",
        "cites = \"seeds/001 TURN SEQUENCE 3. Movement\"",
        "the rulebook is `003_ea73418b9b8609a9.txt`",
    ] {
        assert!(outside_citation(bad).is_some(), "not caught: {bad}");
    }
    for good in [
        "cites = \"Memoir of Battle SPECIAL RULES: ...\"",
        "see docs/rules/memoir44.md, Official rules taken where the house rules are silent",
        "seeds of the random games (M44_FROM) and 0012 dice",
    ] {
        assert_eq!(outside_citation(good), None, "wrongly caught: {good}");
    }
}

#[test]
fn no_doc_or_case_cites_a_file_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("docs"), &mut all);
    files(&root.join("tests/cases"), &mut all);
    for f in ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"] {
        let p = root.join(f);
        if p.exists() {
            all.push(p);
        }
    }
    assert!(
        all.len() > 1000,
        "the docs and cases were not found ({} files)",
        all.len()
    );
    let mut bad = Vec::new();
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if let Some(why) = outside_citation(line) {
                let rel = f.strip_prefix(root).unwrap_or(f);
                bad.push(format!("{}:{}: {why}: {line}", rel.display(), n + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} line(s) cite a file that is not in the repository; write the reading into \
         docs/rules/<ruleset>.md with the sentence it interprets, and cite that:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The product's own files a reader opens beside the docs: the source (its
/// comments), the rulesets' and scenarios' data files.
fn product_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            product_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(p);
        }
    }
}

/// Issue 55, item 4: source comments and the rulesets' headers cite a
/// rulebook by its title and section, never by the file name it had on the
/// machine that wrote them: every crate's source, crates/measured among them
/// (and the crates issue 56 moves the Seven Years' War into).
#[test]
fn no_source_comment_or_ruleset_names_a_rulebook_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for d in ["src", "rulesets", "scenarios", "campaigns", "templates"] {
        product_files(&root.join(d), &mut all);
    }
    let Ok(rd) = std::fs::read_dir(root.join("crates")) else {
        panic!("no crates/ folder");
    };
    let mut crates: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    crates.sort();
    let measured = crates
        .iter()
        .any(|c| c.file_name().is_some_and(|n| n == "measured"));
    assert!(measured, "crates/measured is read too");
    for c in crates {
        product_files(&c.join("src"), &mut all);
    }
    assert!(
        all.len() > 100,
        "the source was not found ({} files)",
        all.len()
    );
    let mut bad = Vec::new();
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if let Some(why) = outside_citation(line) {
                let rel = f.strip_prefix(root).unwrap_or(f);
                bad.push(format!("{}:{}: {why}: {line}", rel.display(), n + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} line(s) of the source or data name a file that is not in the repository; \
         cite the rulebook by its title and section:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
