//! The IMAP IDLE watcher: a thread with its own connection that waits in
//! IDLE and wakes the loop when the server announces new mail
//! (crate::mail::idle). When the server goes away it reconnects with
//! back-off (one second doubling up to the poll interval) and says `Back`
//! once it is there again, so the loop polls at once instead of waiting out
//! its own back-off; its failures are logged at debug level only, the
//! loop's polls being the ones that report an outage (once). A server
//! without IDLE, or `idle = false`, ends the watcher: the loop polls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::mail::idle::{self, Idler, Interrupt, Waited};
use crate::mail::imap::ImapConfig;

use super::{tell, Why};

/// The running watcher: ends it on [`Watch::close`].
pub struct Watch {
    server: String,
    /// The connection being waited on, to shut when closing.
    current: Arc<Mutex<Option<Interrupt>>>,
}

impl Watch {
    /// What the start-up message says.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "waiting on IMAP IDLE at {} (polling if the server lacks IDLE)",
            self.server
        )
    }

    /// Ends the watcher's wait (the thread sees `closed` and stops).
    pub fn close(&self) {
        if let Some(i) = self.current.lock().ok().and_then(|c| c.clone()) {
            i.interrupt();
        }
    }
}

/// Starts the watcher thread.
pub fn watch(cfg: ImapConfig, tx: Sender<Why>, closed: Arc<AtomicBool>, base: Duration) -> Watch {
    let current = Arc::new(Mutex::new(None));
    let w = Watch {
        server: format!("{}:{}", cfg.host, cfg.effective_port()),
        current: Arc::clone(&current),
    };
    let spawned = std::thread::Builder::new()
        .name("imap-idle".into())
        .spawn(move || run(&cfg, &tx, &closed, &current, base));
    if let Err(e) = spawned {
        tracing::warn!("cannot start the IMAP IDLE watcher ({e}): polling instead");
    }
    w
}

/// Connects and waits, again and again, until the loop is done.
fn run(
    cfg: &ImapConfig,
    tx: &Sender<Why>,
    closed: &AtomicBool,
    current: &Mutex<Option<Interrupt>>,
    base: Duration,
) {
    let mut failures = 0u32;
    while !closed.load(Ordering::SeqCst) {
        let mut idler = match Idler::open(cfg) {
            Ok(Some(i)) => i,
            Ok(None) => {
                tracing::info!(
                    "inbound: {} offers no IDLE (or idle = false): polling every {} s",
                    cfg.host,
                    base.as_secs()
                );
                return;
            }
            Err(e) => {
                failures += 1;
                tracing::debug!("inbound: IDLE connection: {e} (attempt {failures})");
                pause(retry_after(failures, base), closed);
                continue;
            }
        };
        if let Ok(mut c) = current.lock() {
            *c = Some(idler.interrupter());
        }
        // Connected: look once (mail may have come while it connected, or
        // while the server was away).
        let why = if failures > 0 { Why::Back } else { Why::Mail };
        failures = 0;
        if !tell(tx, why) || !idle(&mut idler, tx, closed) {
            return;
        }
    }
}

/// Waits in IDLE, telling the loop of each announcement, until the
/// connection fails (true: reconnect) or the loop is gone (false).
fn idle(idler: &mut Idler, tx: &Sender<Why>, closed: &AtomicBool) -> bool {
    loop {
        if closed.load(Ordering::SeqCst) {
            return false;
        }
        let waited =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| idler.wait(idle::RENEW)));
        match waited {
            // A quiet renewal looks once too: an announcement between the
            // DONE and the next IDLE is not seen by the wait.
            Ok(Ok(Waited::NewMail | Waited::Quiet)) => {
                if !tell(tx, Why::Mail) {
                    return false;
                }
            }
            Ok(Err(e)) => {
                if !closed.load(Ordering::SeqCst) && !idle::is_interrupted(&e) {
                    tracing::debug!("inbound: IDLE: {e}; reconnecting");
                }
                return true;
            }
            Err(_) => {
                tracing::warn!("inbound: the IDLE wait panicked; reconnecting");
                return true;
            }
        }
    }
}

/// The wait before the `failures`-th reconnection: one second doubling, at
/// most `base` (the poll interval).
fn retry_after(failures: u32, base: Duration) -> Duration {
    Duration::from_secs(1 << failures.saturating_sub(1).min(12))
        .min(base.max(Duration::from_secs(1)))
}

/// Sleeps `d`, ending early when the loop is done.
fn pause(d: Duration, closed: &AtomicBool) {
    let step = Duration::from_millis(100);
    let mut slept = Duration::ZERO;
    while slept < d && !closed.load(Ordering::SeqCst) {
        std::thread::sleep(step);
        slept += step;
    }
}

#[cfg(test)]
mod tests {
    use super::retry_after;
    use std::time::Duration;

    #[test]
    fn reconnection_backs_off_from_a_second_to_the_poll_interval() {
        let base = Duration::from_secs(30);
        let waits: Vec<u64> = (1..=7).map(|n| retry_after(n, base).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
    }
}
