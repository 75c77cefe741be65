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
//! `ADJUTANT_FAULT=report-load-abort:GAME` aborts the process where
//! `report-load:GAME` panics: what a page's delivery had sent before it
//! rendered that game's report is on disk (src/daemon.rs, `RENDER_PART`).
//!
//! `ADJUTANT_FAULT=kill-handled:N` kills the process with SIGKILL at the
//! same place, as a host's `kill -9` would. `ADJUTANT_FAULT=kill-let-go:N`
//! kills it right after the pass's Nth commit made early for the courier,
//! the group's files still in `new/` (src/daemon.rs, `Group::let_go`).
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

/// Panics at this point's Nth call in the process (counted from 1) when
/// `ADJUTANT_FAULT=NAME:N` (development builds only): `inbound-recorded:N`
/// panics while the pass's Nth mail is handled, after its inbox row was
/// written (src/service/inbound.rs), to show that its work is undone alone
/// inside a commit group.
#[cfg(debug_assertions)]
pub fn nth(name: &str) {
    use std::sync::atomic::{AtomicI64, Ordering};
    static CALLS: AtomicI64 = AtomicI64::new(0);
    let Ok(fault) = std::env::var("ADJUTANT_FAULT") else {
        return;
    };
    let n = fault
        .strip_prefix(name)
        .and_then(|r| r.strip_prefix(':'))
        .and_then(|n| n.parse::<i64>().ok());
    if let Some(n) = n {
        if CALLS.fetch_add(1, Ordering::SeqCst) + 1 == n {
            panic!("fault point {fault} (ADJUTANT_FAULT)");
        }
    }
}

/// Does nothing: a release build has no fault points.
#[cfg(not(debug_assertions))]
pub fn nth(_name: &str) {}

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

/// Kills the process with SIGKILL when `ADJUTANT_FAULT` names this point
/// and key (development builds only; elsewhere than Linux, aborts).
#[cfg(debug_assertions)]
pub fn kill(name: &str, key: i64) {
    if let Ok(fault) = std::env::var("ADJUTANT_FAULT") {
        if fault == format!("{name}:{key}") {
            eprintln!("fault point {fault} (ADJUTANT_FAULT): SIGKILL");
            #[cfg(target_os = "linux")]
            // SAFETY: sends this process SIGKILL; nothing after it runs.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
            std::process::abort();
        }
    }
}

/// Does nothing: a release build has no fault points.
#[cfg(not(debug_assertions))]
pub fn kill(_name: &str, _key: i64) {}

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
