//! Runs every rules test vector under tests/cases/ (each file through its
//! ruleset's family) and lists the failures.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_case_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut failed = Vec::new();
    let mut passed = 0;
    for f in &files {
        let r = adjutant::rules::run_case_path(f);
        if r.passed {
            passed += 1;
        } else {
            failed.push(format!("FAIL {} ({}): {}", r.name, f.display(), r.detail));
        }
    }
    assert!(
        failed.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failed.len(),
        failed.join("\n")
    );
}
