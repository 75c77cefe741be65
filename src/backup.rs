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
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Refused(String),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("copying the database: {0}")]
    Sql(#[from] rusqlite::Error),
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
    let written = Written {
        database: name(&db, "adjutant.db"),
        key: name(&key, "adjutant.db.key"),
        config: name(config_path, "adjutant.toml"),
    };
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(adjutant_store::busy_timeout())?;
    let target = written
        .database
        .to_str()
        .ok_or_else(|| BackupError::Refused(format!("{} is not UTF-8", dir.display())))?;
    conn.execute("VACUUM INTO ?1", [target])?;
    if key.exists() {
        copy_private(&key, &written.key)?;
    }
    copy_private(config_path, &written.config)?;
    private(&written.database)?;
    Ok(written)
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
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(to).map_err(|e| BackupError::Io(to.into(), e))?;
    std::io::Write::write_all(&mut f, &bytes).map_err(|e| BackupError::Io(to.into(), e))?;
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
