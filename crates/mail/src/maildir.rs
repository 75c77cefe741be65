//! A Maildir inbox: new mail in `new/`, moved to `cur/` once handled.

use std::path::{Path, PathBuf};

/// Create `new`, `cur` and `tmp` under `dir`.
pub fn create(dir: &Path) -> std::io::Result<()> {
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    Ok(())
}

/// The files waiting in `new/`, in name order (delivery order for the usual
/// time-based Maildir names). Hidden files are skipped.
pub fn waiting(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir.join("new"))? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || !entry.file_type()?.is_file() {
            continue;
        }
        out.push(entry.path());
    }
    out.sort();
    Ok(out)
}

/// Moves a mail the judge will not try again (it panicked on it, or it
/// failed the same way too often) out of `new/` into `quarantine/` beside
/// it, under its own name, for the host to look at.
pub fn set_aside(dir: &Path, file: &Path) -> std::io::Result<PathBuf> {
    let name = file
        .file_name()
        .unwrap_or_else(|| std::ffi::OsStr::new("message"));
    let q = dir.join("quarantine");
    std::fs::create_dir_all(&q)?;
    let to = q.join(name);
    std::fs::rename(file, &to)?;
    Ok(to)
}

/// Move a handled message from `new/` to `cur/`, marking it seen.
pub fn mark_done(dir: &Path, file: &Path) -> std::io::Result<()> {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("message");
    let base = name.split(":2,").next().unwrap_or(name);
    std::fs::rename(file, dir.join("cur").join(format!("{base}:2,S")))
}
