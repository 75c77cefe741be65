//! Fault points: places where a test can make the judge fail on purpose,
//! to prove that the failure stays where it happens (issue 35: "a job
//! whose loading panics fails alone").
//!
//! `ADJUTANT_FAULT=NAME:KEY` makes [`point`]`(NAME, KEY)` panic. Only
//! development builds (debug assertions on, as `cargo test` builds the
//! judge) read the variable; in a release build [`point`] does nothing.
//! The points:
//! - `report-load:GAME`: loading game GAME's history to render a turn
//!   report at delivery (src/service/deferred.rs).
//!
//! [`abort`] ends the process at once, as a crash or SIGKILL would (no
//! unwinding, nothing flushed): `ADJUTANT_FAULT=abort-handled:N` aborts a
//! big inbox pass right after its Nth handled mail, in the middle of a
//! commit group (src/daemon.rs, `Group`).
//!
//! [`full`] does not panic: `ADJUTANT_FAULT=disk-full` makes every inbound
//! mail's transaction fail as SQLite does when the disk is full
//! (SQLITE_FULL), to show that such a mail is kept, never set aside
//! (issue 52).

/// Panics when `ADJUTANT_FAULT` names this point and key (development
/// builds only).
#[cfg(debug_assertions)]
pub fn point(name: &str, key: i64) {
    if let Ok(fault) = std::env::var("ADJUTANT_FAULT") {
        if fault == format!("{name}:{key}") {
            panic!("fault point {fault} (ADJUTANT_FAULT)");
        }
    }
}

/// Does nothing: a release build has no fault points.
#[cfg(not(debug_assertions))]
pub fn point(_name: &str, _key: i64) {}

/// Aborts the process when `ADJUTANT_FAULT` names this point and key
/// (development builds only).
#[cfg(debug_assertions)]
pub fn abort(name: &str, key: i64) {
    if let Ok(fault) = std::env::var("ADJUTANT_FAULT") {
        if fault == format!("{name}:{key}") {
            eprintln!("fault point {fault} (ADJUTANT_FAULT): aborting");
            std::process::abort();
        }
    }
}

/// Does nothing: a release build has no fault points.
#[cfg(not(debug_assertions))]
pub fn abort(_name: &str, _key: i64) {}

/// `SQLITE_FULL`, as a full disk makes a commit fail, when
/// `ADJUTANT_FAULT=disk-full` (development builds only).
#[cfg(debug_assertions)]
pub fn full() -> Result<(), crate::store::StoreError> {
    if std::env::var("ADJUTANT_FAULT").is_ok_and(|f| f == "disk-full") {
        return Err(crate::store::StoreError::disk_full(
            "database or disk is full (ADJUTANT_FAULT)",
        ));
    }
    Ok(())
}

/// Nothing: a release build has no fault points.
#[cfg(not(debug_assertions))]
pub fn full() -> Result<(), crate::store::StoreError> {
    Ok(())
}
