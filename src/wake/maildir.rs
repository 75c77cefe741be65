//! Watching a Maildir's `new/` with inotify: a mail delivered there (a
//! rename from `tmp/`, as a Maildir's writers do, or a `cp` straight into
//! `new/`, which ends with a close after writing) wakes the loop.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use inotify::{Inotify, WatchMask};

use super::{tell, Why};

/// How often the watcher looks whether the loop is done (ms).
const CLOSED_CHECK_MS: i32 = 250;

/// Starts watching `maildir`'s `new/`; returns what it watches, or None
/// (logged) when inotify cannot be had: the loop polls then.
pub fn watch(maildir: &Path, tx: Sender<Why>, closed: Arc<AtomicBool>) -> Option<String> {
    let new = maildir.join("new");
    if let Err(e) = crate::mail::maildir::create(maildir) {
        tracing::warn!("cannot create {}: {e}", maildir.display());
    }
    let started = Inotify::init().and_then(|ino| {
        ino.watches()
            .add(&new, WatchMask::MOVED_TO | WatchMask::CLOSE_WRITE)?;
        Ok(ino)
    });
    let ino = match started {
        Ok(ino) => ino,
        Err(e) => {
            tracing::warn!("cannot watch {} ({e}): polling it instead", new.display());
            return None;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("maildir-watch".into())
        .spawn(move || run(ino, &tx, &closed));
    match spawned {
        Ok(_) => Some(format!("watching {} (inotify)", new.display())),
        Err(e) => {
            tracing::warn!("cannot start the Maildir watcher ({e}): polling instead");
            None
        }
    }
}

/// The watcher thread: each batch of events is one wake.
fn run(mut ino: Inotify, tx: &Sender<Why>, closed: &AtomicBool) {
    let mut buf = [0u8; 4096];
    while !closed.load(Ordering::SeqCst) {
        if !readable(&ino) {
            continue;
        }
        match ino.read_events(&mut buf) {
            Ok(mut events) => {
                if events.next().is_some() && !tell(tx, Why::Mail) {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => {
                tracing::warn!("the Maildir watch failed ({e}): polling instead");
                return;
            }
        }
    }
}

/// Waits up to [`CLOSED_CHECK_MS`] for events.
fn readable(ino: &Inotify) -> bool {
    let mut fd = libc::pollfd {
        fd: ino.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd on a descriptor `ino` owns for the call.
    let n = unsafe { libc::poll(&mut fd, 1, CLOSED_CHECK_MS) };
    n > 0 && fd.revents & libc::POLLIN != 0
}
