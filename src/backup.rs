//! `adjutant backup DIR`: the database (an online, consistent copy made by
//! SQLite's `VACUUM INTO` while the judge may run), its credentials key and
//! the config, in a new folder readable by its owner only. docs/host.md,
//! "Backups", says how to restore it.

use crate::config::Config;
use crate::store;
use std::path::{Path, PathBuf};

/// What a backup wrote.
#[derive(Debug)]
pub struct Written {
    pub database: PathBuf,
    pub key: PathBuf,
    pub config: PathBuf,
    /// The `ca_file`s given relative to the judge's folder, copied at the
    /// same relative paths (a restored config names them so).
    pub extra: Vec<PathBuf>,
    /// What the host should know of the copy (an absolute path in the
    /// config made relative, or one that could not be).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Refused(String),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("copying the database: {0}")]
    Copy(String),
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

/// Writes `dir`/{database, key, config} (named as the judge names them).
/// `dir` must not exist yet, or be empty.
pub fn backup(cfg: &Config, config_path: &Path, dir: &Path) -> Result<Written, BackupError> {
    let db = cfg.database_path();
    if !db.exists() {
        return Err(BackupError::Refused(format!(
            "no database at {}: nothing to back up",
            db.display()
        )));
    }
    // A database without its key is no backup (and no key is made here).
    store::credentials::refuse_missing_key(&db)?;
    let key = store::credentials::key_path(&db);
    let full = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => dir.exists(),
    };
    if full {
        return Err(BackupError::Refused(format!(
            "{} exists and is not empty: back up into a new folder",
            dir.display()
        )));
    }
    create_private_dir(dir)?;
    let name = |p: &Path, default: &str| dir.join(p.file_name().unwrap_or(default.as_ref()));
    let mut written = Written {
        database: name(&db, "adjutant.db"),
        key: name(&key, "adjutant.db.key"),
        config: name(config_path, "adjutant.toml"),
        extra: Vec::new(),
        notes: Vec::new(),
    };
    let conn = store::open_read_only(&db).map_err(|e| BackupError::Copy(e.detail()))?;
    let target = written
        .database
        .to_str()
        .ok_or_else(|| BackupError::Refused(format!("{} is not UTF-8", dir.display())))?;
    store::copy_into(&conn, target).map_err(|e| BackupError::Copy(e.detail()))?;
    if key.exists() {
        copy_private(&key, &written.key)?;
    }
    let text =
        std::fs::read_to_string(config_path).map_err(|e| BackupError::Io(config_path.into(), e))?;
    let text = relative_database(cfg, &text, &written.database, &mut written.notes);
    write_private(&written.config, text.as_bytes())?;
    for ca in [
        cfg.inbound.imap.as_ref().and_then(|i| i.ca_file.clone()),
        cfg.outbound.smtp.as_ref().and_then(|s| s.ca_file.clone()),
    ]
    .into_iter()
    .flatten()
    {
        let Some(rel) = within(&cfg.base, &ca) else {
            continue;
        };
        let to = dir.join(&rel);
        if written.extra.contains(&to) || !ca.is_file() {
            continue;
        }
        if let Some(parent) = to.parent() {
            create_private_dir(parent)?;
        }
        copy_private(&ca, &to)?;
        written.extra.push(to);
    }
    private(&written.database)?;
    Ok(written)
}

/// `path` relative to the judge's folder `base`, when it is inside it
/// (no `..`): what a restore must bring along.
fn within(base: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(base).ok()?;
    rel.components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
        .then(|| rel.to_path_buf())
}

/// The config's text for the backup: an absolute `judge.database` is
/// rewritten to the copy's file name (relative to the config's folder),
/// so the restored judge opens the restored database rather than the old
/// path, where on another machine a new empty one would be made (issue
/// 54). Where the line cannot be rewritten safely the text is kept and
/// a note says what to set by hand.
fn relative_database(cfg: &Config, text: &str, copy: &Path, notes: &mut Vec<String>) -> String {
    if !Path::new(&cfg.judge.database).is_absolute() {
        return text.to_string();
    }
    let name = copy
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("adjutant.db");
    let mut table = String::new();
    let mut done = false;
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
        let is_key = t
            .strip_prefix("database")
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if table == "judge" && is_key && !done {
            out.push(format!(
                "database = \"{name}\"   # was {:?}: made relative by `adjutant backup`",
                cfg.judge.database
            ));
            done = true;
        } else {
            out.push(line.to_string());
        }
    }
    let mut new = out.join("\n");
    if text.ends_with('\n') {
        new.push('\n');
    }
    let rewritten = Config::parse(&new, "backup").ok();
    if done && rewritten.is_some_and(|c| c.judge.database == name) {
        notes.push(format!(
            "judge.database was the absolute path {}; the backup's adjutant.toml names {name}, beside it",
            cfg.judge.database
        ));
        new
    } else {
        notes.push(format!(
            "judge.database is the absolute path {}: after a restore, set database = \"{name}\" in [judge] of the restored adjutant.toml",
            cfg.judge.database
        ));
        text.to_string()
    }
}

fn create_private_dir(dir: &Path) -> Result<(), BackupError> {
    std::fs::create_dir_all(dir).map_err(|e| BackupError::Io(dir.into(), e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| BackupError::Io(dir.into(), e))?;
    }
    Ok(())
}

/// Copies `from` to a new file `to`, readable by its owner only.
fn copy_private(from: &Path, to: &Path) -> Result<(), BackupError> {
    let bytes = std::fs::read(from).map_err(|e| BackupError::Io(from.into(), e))?;
    write_private(to, &bytes)
}

/// Writes `bytes` to a new file `to`, readable by its owner only.
fn write_private(to: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(to).map_err(|e| BackupError::Io(to.into(), e))?;
    std::io::Write::write_all(&mut f, bytes).map_err(|e| BackupError::Io(to.into(), e))?;
    f.sync_all().map_err(|e| BackupError::Io(to.into(), e))
}

fn private(path: &Path) -> Result<(), BackupError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| BackupError::Io(path.into(), e))?;
    }
    Ok(())
}
