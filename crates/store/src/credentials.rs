//! Seat and referee credentials at rest: a key outside the database, a
//! nonce per credential in it, and only keyed hashes of the credentials.
//!
//! A secret or token is `word(HMAC-SHA256(key, kind, game, side, nonce))`,
//! so the judge can put a seat's token in every Reply-To without keeping it;
//! the `secret` and `token` columns hold `HMAC-SHA256(key, kind, value)`
//! (the token's is how a mail's token is looked up). Someone who reads the
//! database (a backup, a copy left readable) without the key file learns
//! no credential. Two SQL functions carry this into queries: `adj_word(kind,
//! game, side, nonce)` and `adj_hash(kind, value)`.

use super::StoreError;
use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The key file of a database: `adjutant.db` -> `adjutant.db.key`.
#[must_use]
pub fn key_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".key");
    PathBuf::from(p)
}

/// OS randomness.
pub fn random<const N: usize>() -> Result<[u8; N], StoreError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| StoreError::Corrupt(format!("no OS randomness: {e}")))?;
    Ok(b)
}

/// A fresh nonce (hex).
pub fn nonce() -> Result<String, StoreError> {
    Ok(hex::encode(random::<16>()?))
}

/// Games in the database at `db` (0 when it does not exist or has no
/// games table yet), read without creating or changing anything.
pub fn games_in(db: &Path) -> Result<i64, StoreError> {
    if db.as_os_str() == ":memory:" || !db.exists() {
        return Ok(0);
    }
    let mut conn = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    crate::wait_for_locks(&mut conn)?;
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games')",
        [],
        |r| r.get(0),
    )?;
    if !has_table {
        return Ok(0);
    }
    Ok(conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?)
}

/// Refuses a database that holds games while its key file is missing (a
/// restore without the key, say): a new key would silently change every
/// seat's credentials, so no key is made for it (`create_key` does that
/// when the host asks).
pub fn refuse_missing_key(db: &Path) -> Result<(), StoreError> {
    let key = key_path(db);
    if db.as_os_str() == ":memory:" || key.exists() {
        return Ok(());
    }
    match games_in(db)? {
        0 => Ok(()),
        games => Err(StoreError::KeyMissing {
            key,
            database: db.to_path_buf(),
            games,
        }),
    }
}

/// Creates a new key file (0600) for the database at `db`; an existing
/// key is never replaced. Every seat's credentials change with it.
pub fn create_key(db: &Path) -> Result<PathBuf, StoreError> {
    let path = key_path(db);
    if path.exists() {
        return Err(StoreError::Key(
            path,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "already exists: it is not replaced",
            ),
        ));
    }
    load_or_create_key(&path)?;
    Ok(path)
}

/// Reads the key (64 hex digits), or creates it (0600) if missing.
pub fn load_or_create_key(path: &Path) -> Result<[u8; 32], StoreError> {
    let err = |e| StoreError::Key(path.to_path_buf(), e);
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let mut key = [0u8; 32];
            hex::decode_to_slice(text.trim(), &mut key).map_err(|_| {
                err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "not 64 hex digits",
                ))
            })?;
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = random::<32>()?;
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
            let mut f = opts.open(path).map_err(err)?;
            std::io::Write::write_all(&mut f, format!("{}\n", hex::encode(key)).as_bytes())
                .map_err(err)?;
            f.sync_all().map_err(err)?;
            Ok(key)
        }
        Err(e) => Err(err(e)),
    }
}

/// HMAC-SHA256 (RFC 2104) of the parts, each followed by a NUL.
#[must_use]
pub fn hmac(key: &[u8; 32], parts: &[&str]) -> [u8; 32] {
    Keyed::new(key).mac(parts)
}

/// HMAC-SHA256 under one key, its two padded key blocks hashed once: each
/// MAC then costs the hashes of the message and of the inner digest only.
#[derive(Clone)]
struct Keyed {
    inner: Sha256,
    outer: Sha256,
}

impl Keyed {
    fn new(key: &[u8; 32]) -> Keyed {
        let mut k = [0u8; 64];
        k[..32].copy_from_slice(key);
        let mut inner = Sha256::new();
        inner.update(k.map(|b| b ^ 0x36));
        let mut outer = Sha256::new();
        outer.update(k.map(|b| b ^ 0x5c));
        Keyed { inner, outer }
    }

    fn mac(&self, parts: &[&str]) -> [u8; 32] {
        let mut inner = self.inner.clone();
        for p in parts {
            inner.update(p.as_bytes());
            inner.update([0u8]);
        }
        let mut outer = self.outer.clone();
        outer.update(inner.finalize());
        outer.finalize().into()
    }

    fn word(&self, kind: &str, game: i64, side: &str, nonce: &str) -> String {
        const ALPHA: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
        let len = if kind.ends_with("token") { 12 } else { 8 };
        self.mac(&["word", kind, &game.to_string(), side, nonce])
            .iter()
            .take(len)
            .map(|b| ALPHA[(*b as usize) % ALPHA.len()] as char)
            .collect()
    }
}

/// A credential word: lower-case letters and digits without look-alikes,
/// 8 letters for a secret, 12 for a token.
#[must_use]
pub fn word(key: &[u8; 32], kind: &str, game: i64, side: &str, nonce: &str) -> String {
    Keyed::new(key).word(kind, game, side, nonce)
}

/// Words a connection keeps derived (issue 57): every seat query derives
/// its seats' secret and token (`adj_word` in `SEAT_COLS`), a dozen times a
/// mail for the same two seats. A word is a pure function of its kind,
/// game, side and nonce (all in the map's key), so a kept word is never
/// stale: ROTATE gives the seat a new nonce, hence a new key here. The map
/// is emptied when full, so it never holds more than this many words.
const KEPT_WORDS: usize = 4096;

/// What `adj_word` keeps per connection: the keyed hash and the words.
struct Words {
    keyed: Keyed,
    kept: BTreeMap<String, String>,
    /// The map key being looked up, reused.
    probe: String,
}

impl Words {
    fn get(&mut self, kind: &str, game: i64, side: &str, nonce: &str) -> String {
        use std::fmt::Write as _;
        self.probe.clear();
        let _ = write!(self.probe, "{kind}\0{game}\0{side}\0{nonce}");
        if let Some(w) = self.kept.get(self.probe.as_str()) {
            return w.clone();
        }
        let w = self.keyed.word(kind, game, side, nonce);
        #[cfg(test)]
        DERIVED.with(|d| d.set(d.get() + 1));
        if self.kept.len() >= KEPT_WORDS {
            self.kept.clear();
        }
        self.kept.insert(self.probe.clone(), w.clone());
        w
    }
}

#[cfg(test)]
thread_local! {
    /// Words derived (not found kept) on this thread: the tests' count.
    pub(crate) static DERIVED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// An SQL function's text argument, read in place.
fn text<T>(v: rusqlite::types::FromSqlResult<T>) -> rusqlite::Result<T> {
    v.map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))
}

/// Registers `adj_word` and `adj_hash` on a connection.
pub fn register(conn: &Connection, key: [u8; 32]) -> Result<(), StoreError> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let keyed = Keyed::new(&key);
    let words = RefCell::new(Words {
        keyed: keyed.clone(),
        kept: BTreeMap::new(),
        probe: String::new(),
    });
    conn.create_scalar_function("adj_word", 4, flags, move |ctx| {
        let kind = text(ctx.get_raw(0).as_str())?;
        let game: i64 = ctx.get(1)?;
        let side = text(ctx.get_raw(2).as_str())?;
        let nonce = text(ctx.get_raw(3).as_str_or_null())?;
        // A row without a nonce has no credential (never the empty word).
        Ok(nonce.map_or_else(String::new, |n| words.borrow_mut().get(kind, game, side, n)))
    })?;
    conn.create_scalar_function("adj_hash", 2, flags, move |ctx| {
        let kind = text(ctx.get_raw(0).as_str())?;
        let value = text(ctx.get_raw(1).as_str())?;
        Ok(hex::encode(keyed.mac(&["hash", kind, value])))
    })?;
    Ok(())
}

/// Rows from before the credentials migration: each gets a nonce (from
/// a keyed hash of its old credentials, so it is unique and unknowable
/// without the key) and new credentials; the old ones stop working.
pub fn rekey_legacy(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(
        "UPDATE seats SET
             nonce = adj_hash('nonce', 'token:' || token || ':' || secret),
             secret_nonce = adj_hash('nonce', 'secret:' || secret || ':' || token),
             token = adj_hash('token', adj_word('token', game_id, side,
                 adj_hash('nonce', 'token:' || token || ':' || secret))),
             secret = adj_hash('secret', adj_word('secret', game_id, side,
                 adj_hash('nonce', 'secret:' || secret || ':' || token)))
         WHERE nonce IS NULL;
         UPDATE referees SET
             nonce = adj_hash('nonce', 'token:' || token || ':' || secret),
             secret_nonce = adj_hash('nonce', 'secret:' || secret || ':' || token),
             token = adj_hash('token', adj_word('referee-token', game_id, '',
                 adj_hash('nonce', 'token:' || token || ':' || secret))),
             secret = adj_hash('secret', adj_word('referee-secret', game_id, '',
                 adj_hash('nonce', 'secret:' || secret || ':' || token)))
         WHERE nonce IS NULL;
         UPDATE team_members SET
             nonce = adj_hash('nonce', 'token:' || token || ':' || secret),
             secret_nonce = adj_hash('nonce', 'secret:' || secret || ':' || token),
             token = adj_hash('token', adj_word('member-token', game_id, side || '#' || seat_no,
                 adj_hash('nonce', 'token:' || token || ':' || secret))),
             secret = adj_hash('secret', adj_word('member-secret', game_id, side || '#' || seat_no,
                 adj_hash('nonce', 'secret:' || secret || ':' || token)))
         WHERE nonce IS NULL;",
    )?;
    Ok(())
}
