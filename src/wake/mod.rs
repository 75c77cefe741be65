//! What wakes `serve` between two passes (issue 31): new mail announced by
//! a watcher (inotify on the Maildir's `new/`, [`maildir`]; IMAP IDLE,
//! [`imap`]), the next due outbox row or deadline ([`due`]), the poll
//! interval as the fallback, or a stop (SIGTERM, SIGINT).
//!
//! A watcher only says "look now": the pass still reads the whole inbox,
//! so a burst of announcements costs one pass, and a watcher that fails or
//! is not there (no inotify, a server without IDLE) leaves the judge
//! polling every `judge.poll_seconds` as before.

pub mod due;
pub mod imap;
pub mod maildir;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Config;

/// Why a watcher woke the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// New mail was announced.
    Mail,
    /// The mail server is reachable again (the IDLE connection is back):
    /// poll now, whatever the outage's back-off said.
    Back,
}

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woke {
    /// A watcher spoke (the strongest reason of those pending).
    By(Why),
    /// The time asked for came.
    Time,
    /// Stop was asked for.
    Stop,
}

/// The longest a wait goes without looking at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(200);

/// The watchers of one `serve` and the channel they speak on. Dropping it
/// ends them.
pub struct Wakes {
    rx: Receiver<Why>,
    /// Set when the loop is done: the watcher threads end.
    closed: Arc<AtomicBool>,
    /// Shuts the IDLE connection when the loop is done.
    idle: Option<imap::Watch>,
    /// What is watched, for the start-up message; None: polling only.
    pub watching: Option<String>,
}

impl Wakes {
    /// Starts the watcher that fits `cfg`'s inbound mail. It is started
    /// before the first pass, so nothing that arrives after the pass's look
    /// at the inbox goes unannounced.
    pub fn start(cfg: &Config) -> Wakes {
        let (tx, rx) = channel();
        let closed = Arc::new(AtomicBool::new(false));
        let mut wakes = Wakes {
            rx,
            closed: Arc::clone(&closed),
            idle: None,
            watching: None,
        };
        match cfg.inbound.kind.as_str() {
            "maildir" => wakes.watching = maildir::watch(&cfg.maildir(), tx, closed),
            "imap" => {
                if let Some(imap) = &cfg.inbound.imap {
                    let base = Duration::from_secs(cfg.judge.poll_seconds.max(1));
                    let watch = imap::watch(imap.clone(), tx, closed, base);
                    wakes.watching = Some(watch.describe());
                    wakes.idle = Some(watch);
                }
            }
            _ => drop(tx),
        }
        wakes
    }

    /// Polling only (`serve --once`, tests): no watcher.
    #[must_use]
    pub fn none() -> Wakes {
        Wakes {
            rx: channel().1,
            closed: Arc::new(AtomicBool::new(true)),
            idle: None,
            watching: None,
        }
    }

    /// Waits until a watcher speaks, `until` comes or `stop` is set. All
    /// the announcements pending are taken at once (one pass reads them
    /// all).
    pub fn wait(&self, until: Instant, stop: &AtomicBool) -> Woke {
        loop {
            if stop.load(Ordering::SeqCst) {
                return Woke::Stop;
            }
            let now = Instant::now();
            if now >= until {
                return Woke::Time;
            }
            match self.rx.recv_timeout((until - now).min(STOP_CHECK)) {
                Ok(why) => return Woke::By(self.drain(why)),
                Err(RecvTimeoutError::Timeout) => {}
                // No watcher (any more): sleep, as the poll loop did.
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep((until - now).min(STOP_CHECK));
                }
            }
        }
    }

    /// The first reason and every other pending one, `Back` winning.
    fn drain(&self, first: Why) -> Why {
        self.rx.try_iter().fold(first, |a, b| {
            if a == Why::Back || b == Why::Back {
                Why::Back
            } else {
                Why::Mail
            }
        })
    }
}

impl Drop for Wakes {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(w) = &self.idle {
            w.close();
        }
    }
}

/// A watcher's way to speak: false once the loop is gone.
fn tell(tx: &Sender<Why>, why: Why) -> bool {
    tx.send(why).is_ok()
}

/// What `serve` tells at start: where to drop mail and how it is watched
/// (a newcomer trying the README's sample sees it answered at once).
#[must_use]
pub fn describe(cfg: &Config, wakes: &Wakes) -> String {
    let poll = cfg.judge.poll_seconds.max(1);
    let how = match &wakes.watching {
        Some(w) => format!("{w}; polling every {poll} s as well"),
        None => format!("polling every {poll} s"),
    };
    match cfg.inbound.kind.as_str() {
        "maildir" => {
            let new = cfg.maildir().join("new");
            format!(
                "Drop mail files into {}/ (for example: cp data/sample-mails/help.eml {}/); {how}. Answers go to {}. Ctrl-C stops.",
                new.display(),
                new.display(),
                cfg.describe_mail().1
            )
        }
        "imap" => format!(
            "Mail sent to {} is read {how}. Ctrl-C stops.",
            cfg.judge.address
        ),
        _ => "No mailbox to watch: mail comes through `adjutant receive`. Ctrl-C stops.".into(),
    }
}
