//! The poll loop: read new mail, handle each message in its own transaction,
//! move it out of `new/` only after the commit, deliver the outbox.

use crate::config::Config;
use crate::mail::{imap, maildir, outbound};
use crate::service::clock::stamp;
use crate::service::{End, Inbound, Judge, MailOutcome, Renderer, ServiceError};
use crate::store;
use crate::wake::{Wakes, Why, Woke};
use chrono::{DateTime, Utc};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The longest wait between two attempts at a mail whose delivery failed
/// for a reason that may pass (the back-off doubles from two minutes up to
/// this).
pub const MAX_BACKOFF_SECS: i64 = 3600;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub handled: usize,
    pub duplicates: usize,
    pub failed: usize,
    pub delivered: usize,
    pub delivery_failures: usize,
    /// A delivery met a fault of the server's or the settings' in this
    /// pass: no other delivery is tried before the next pass (one knock a
    /// pass on a failing server, whatever the pass's size; issue 52).
    pub server_down: bool,
    /// A send succeeded in this pass and the mails waiting out a back-off
    /// were made due at once ([`due_again`]); how many.
    pub due_again: Option<usize>,
}

impl Pass {
    /// Counts another deliverer's deliveries (the courier's) in this pass.
    fn add_deliveries(&mut self, other: Pass) {
        self.delivered += other.delivered;
        self.delivery_failures += other.delivery_failures;
        self.server_down |= other.server_down;
        if other.due_again.is_some() {
            self.due_again = other.due_again;
        }
    }
}

/// Handle one raw message; a panic is caught, logged and recorded so that a
/// poison message can neither stop the daemon nor be retried for ever.
pub fn handle_one(judge: &mut Judge, raw: &[u8], source: &str) -> Result<MailOutcome, String> {
    guarded(judge, raw, source, |judge| {
        judge.inbound().handle_mail(raw, source)
    })
}

/// Runs `f` on `raw`'s behalf, a panic recorded as [`handle_one`] says.
/// A failure that is not the database being busy is counted; the mail that
/// fails [`SET_ASIDE_AFTER`] times is set aside like one that panicked.
fn guarded(
    judge: &Judge,
    raw: &[u8],
    source: &str,
    f: impl FnOnce(&Judge) -> Result<MailOutcome, crate::service::ServiceError>,
) -> Result<MailOutcome, String> {
    match catch_unwind(AssertUnwindSafe(|| f(judge))) {
        Ok(Ok(o)) => Ok(o),
        Ok(Err(e)) if e.is_disk() => Err(format!(
            "{e}: the disk is full or failing; the mail stays and is tried again \
             once the host has made room (it is never set aside for this)"
        )),
        Ok(Err(e)) if e.is_transient() => Err(e.to_string()),
        Ok(Err(e)) => Err(failed(judge, raw, source, &e.to_string())),
        Err(_) => Err(panicked(judge, raw, source)),
    }
}

/// A mail whose handling failed this many times, not for a busy database,
/// is set aside: recorded as failed, never tried again, later mail goes on.
pub const SET_ASIDE_AFTER: i64 = 5;

/// Counts a failure to handle `raw`; returns what to log, which starts with
/// "internal error" once the mail is set aside.
fn failed(judge: &Judge, raw: &[u8], source: &str, error: &str) -> String {
    let hash = crate::engine::dice::sha256_hex(raw);
    let now = stamp(judge.clock.now());
    match store::handle_failed(&judge.conn, &hash, error, &now) {
        Ok(n) if n >= SET_ASIDE_AFTER => {
            let detail = format!("set aside after {n} failures; the last: {error}");
            record_failed(judge, raw, source, "failed: set aside", &detail);
            format!("internal error ({detail})")
        }
        Ok(n) => format!("{error} (failure {n} of {SET_ASIDE_AFTER} before it is set aside)"),
        Err(e) => {
            tracing::error!("cannot count the failure: {e}");
            error.to_string()
        }
    }
}

/// Records that handling `raw` panicked; returns what to log.
fn panicked(judge: &Judge, raw: &[u8], source: &str) -> String {
    record_failed(
        judge,
        raw,
        source,
        "failed: internal error",
        "the judge panicked on this message",
    );
    "internal error (recorded; the message will not be retried)".into()
}

/// Records a mail that will not be tried again in the inbox log, so that
/// it is a duplicate if it comes back.
fn record_failed(judge: &Judge, raw: &[u8], source: &str, outcome: &str, detail: &str) {
    let hash = crate::engine::dice::sha256_hex(raw);
    let now = stamp(judge.clock.now());
    let rec = store::record_failed(
        &judge.conn,
        &hash,
        source,
        raw.len() as i64,
        &now,
        outcome,
        detail,
    );
    if let Err(e) = rec {
        tracing::error!("cannot record the failed message: {e}");
    }
}

/// A waiting mail file, as far as it has been read.
struct Waiting {
    file: PathBuf,
    raw: std::io::Result<Vec<u8>>,
    read: Read,
}

/// How far a [`Waiting`] mail has been read.
enum Read {
    /// Not parsed yet: the handling thread does it.
    Later,
    /// Parsed by the reader thread.
    Done(Box<Inbound>),
    /// Parsing it panicked (recorded as a failed mail, never retried).
    Panicked,
}

impl Waiting {
    fn at(file: PathBuf) -> Waiting {
        let raw = read_whole(&file);
        Waiting {
            file,
            raw,
            read: Read::Later,
        }
    }
}

/// A mail file's bytes, refused (`WouldBlock`) while another process still
/// has it open for writing: a writer that puts a file straight into
/// `new/` instead of writing it in `tmp/` and renaming it (the Maildir
/// protocol) may be halfway through, and a pass that read it now would
/// take half a mail for the whole (issue 52). Linux tells by a read lease,
/// which cannot be had on a file open for writing; where leases are not
/// to be had (another owner, a file system without them) the file is
/// read as it is.
fn read_whole(file: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(file)?;
    #[cfg(target_os = "linux")]
    let leased = {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a descriptor this function owns; a lease only
        // changes what other processes' opens of the file wait for.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) };
        if r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "still being written (left for the next pass)",
            ));
        }
        r == 0
    };
    let mut raw = Vec::new();
    let read = f.read_to_end(&mut raw);
    #[cfg(target_os = "linux")]
    if leased {
        use std::os::fd::AsRawFd;
        // SAFETY: as above; gives the lease back.
        unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }
    read.map(|_| raw)
}

/// Handle everything waiting in the Maildir. A backlog of more than
/// [`DELIVER_EVERY`] mails is handled as a pipeline of three threads: a
/// reader reads and parses the mails ahead (no database needed), this
/// thread handles each in its transaction and moves the handled mails to
/// `cur/` a commit group at a time, after the group's sync ([`Group`]), and
/// a [`courier`] delivers what is due while the rest is handled (claiming,
/// sending and marking it sent from its own connection, eight at a time:
/// [`deliver_page`]).
pub fn poll_maildir(judge: &mut Judge, stop: &AtomicBool, pass: &mut Pass) -> std::io::Result<()> {
    let dir = judge.cfg.maildir();
    maildir::create(&dir)?;
    let files = maildir::waiting(&dir)?;
    if files.len() <= DELIVER_EVERY {
        return handle_files(
            judge,
            files.into_iter().map(Waiting::at),
            stop,
            pass,
            None,
            &mut |_, _| {},
        );
    }
    let cfg = judge.cfg.clone();
    // The judge's templates, as read when it opened: every copy of a mail
    // (a resend after a kill too) is rendered from the same ones.
    let templates = judge.templates.clone();
    let durable = Durable::default();
    std::thread::scope(|s| {
        let (job, jobs) = std::sync::mpsc::channel();
        let (report, reports) = std::sync::mpsc::channel();
        let (ahead, waiting) = std::sync::mpsc::sync_channel(READ_AHEAD);
        let courier = s.spawn(|| courier(&cfg, &templates, jobs, report, stop, Some(&durable)));
        let cfg_ = &cfg;
        let reader = s.spawn(move || {
            let cfg = cfg_;
            yield_to_handling();
            for file in files {
                let mut w = Waiting::at(file);
                if let Ok(raw) = &w.raw {
                    w.read = match catch_unwind(AssertUnwindSafe(|| Inbound::read(cfg, raw))) {
                        Ok(read) => Read::Done(Box::new(read)),
                        Err(_) => Read::Panicked,
                    };
                }
                if ahead.send(w).is_err() {
                    return; // the pass stopped
                }
            }
        });
        let mut since = 0;
        // Group commit: a group's mails share one transaction (a savepoint
        // each) and leave new/ after its one commit and sync.
        let judge: &Judge = judge;
        let mut group = Group::start(&judge.conn, &dir, &durable);
        let handled = handle_files(
            judge,
            waiting.iter(),
            stop,
            pass,
            Some(&mut group),
            &mut |judge, pass| {
                since += 1;
                if since == KICK_EVERY {
                    since = 0;
                    let _ = job.send(Job::Deliver(judge.clock.now()));
                }
                for p in reports.try_iter() {
                    pass.add_deliveries(p);
                }
            },
        );
        let moved = group.end(&judge.conn);
        drop(waiting);
        drop(job);
        if reader.join().is_err() {
            tracing::error!("inbox: the reading thread panicked");
        }
        if courier.join().is_err() {
            tracing::error!("outbox: the delivery thread panicked");
        }
        for p in reports.try_iter() {
            pass.add_deliveries(p);
        }
        handled.and(moved)
    })
}

/// Handled mails committed in one transaction in a big inbox pass
/// ([`Group`]).
pub const GROUP_COMMIT: usize = 32;

/// Group commit for a big inbox pass: up to [`GROUP_COMMIT`] mails are
/// handled in one IMMEDIATE transaction, each in a savepoint of it
/// ([`crate::service::Pipeline::handle_inbound_in`]: a mail that fails or
/// panics is undone alone, and the others' work and answers stay), and the
/// group ends with ONE commit (`synchronous = NORMAL`: written to the WAL,
/// not synced) and one sync of the WAL ([`store::sync_wal`]); only then do
/// the group's files leave `new/`. A killed process loses the group's
/// transaction whole (nothing of it was committed): its mails are still in
/// `new/`, none of their answers was queued, and the next pass handles
/// them as if for the first time; a power cut loses at most the unsynced
/// group's commit, as before, and no answer goes out from it: every
/// deliverer syncs the WAL before it sends what it read ([`deliver_page`]).
/// When the courier waits to write, the group's work so far is committed
/// early ([`Group::let_go`]): killed after that, those mails are recorded
/// and their files still in `new/`, and the next pass finds them seen.
struct Group<'a> {
    dir: &'a std::path::Path,
    /// What the group commits have made durable, for the courier.
    durable: &'a Durable,
    /// The open group's transaction; begun at the group's first mail.
    tx: Option<store::Transaction<'a>>,
    files: Vec<PathBuf>,
    /// The first error moving a file (the rest are still moved).
    moved: std::io::Result<()>,
    /// Commits made early for the courier ([`Group::let_go`]) in the pass.
    early: i64,
}

impl<'a> Group<'a> {
    fn start(
        conn: &crate::store::Connection,
        dir: &'a std::path::Path,
        durable: &'a Durable,
    ) -> Group<'a> {
        if let Err(e) = store::group_commit(conn, true) {
            tracing::warn!("inbox: commits stay synced one by one: {e}");
        }
        Group {
            dir,
            durable,
            tx: None,
            files: Vec::with_capacity(GROUP_COMMIT),
            moved: Ok(()),
            early: 0,
        }
    }

    /// The group's transaction, begun if none is open.
    fn tx(
        &mut self,
        conn: &'a crate::store::Connection,
    ) -> Result<&store::Transaction<'a>, String> {
        if self.tx.is_none() {
            self.durable.let_the_courier_write();
            self.tx = Some(store::begin_immediate(conn).map_err(|e| e.to_string())?);
        }
        Ok(self.tx.as_ref().expect("begun"))
    }

    /// After a mail: SQLite may have rolled the whole transaction back (an
    /// I/O error, a full disk): then nothing of the group was kept, and its
    /// files stay in `new/` for the next pass. True if the group was lost.
    fn lost(&mut self, conn: &crate::store::Connection) -> bool {
        if self.tx.is_none() || !conn.is_autocommit() {
            return false;
        }
        tracing::error!(
            "inbox: the database rolled back a commit group: {} handled mails stay in new/",
            self.files.len()
        );
        self.tx = None;
        self.files.clear();
        true
    }

    /// Commits and syncs the group, then moves its files to `cur/` (on
    /// this thread: the courier, busy delivering, would move them late); a
    /// failed commit or sync leaves them in `new/` (handled again, or
    /// duplicates, in the next pass).
    fn commit(&mut self, conn: &crate::store::Connection) {
        if !self.commit_open() {
            return;
        }
        if self.files.is_empty() {
            return;
        }
        // Every commit begun so far has ended (they are this thread's):
        // the sync makes them all durable.
        let begun = self.durable.begun.load(Ordering::SeqCst);
        if let Err(e) = store::sync_wal(conn) {
            tracing::error!(
                "inbox: cannot sync the database ({e}): {} handled mails stay in new/",
                self.files.len()
            );
            self.files.clear();
            return;
        }
        self.durable.synced.fetch_max(begun, Ordering::SeqCst);
        for file in self.files.drain(..) {
            if let Err(e) = maildir::mark_done(self.dir, &file) {
                tracing::error!("{}: {e}", file.display());
                if self.moved.is_ok() {
                    self.moved = Err(e);
                }
            }
        }
    }

    /// A handled mail: its file leaves `new/` with its group.
    fn handled(&mut self, conn: &crate::store::Connection, file: PathBuf, n: usize) {
        self.files.push(file);
        crate::fault::abort("abort-handled", n as i64);
        crate::fault::kill("kill-handled", n as i64);
        if self.files.len() >= GROUP_COMMIT {
            self.commit(conn);
        } else if self.durable.wanted() {
            self.let_go();
        }
    }

    /// The courier waits to write: the group's work so far is committed,
    /// not synced, and its files stay in `new/` until the group's own
    /// commit and sync ([`Group::commit`]). Killed before that, the next
    /// pass finds those mails seen already (their Message-IDs committed) and
    /// answers none twice; the courier syncs before it sends what it read
    /// of a commit not synced ([`Durable::covers_all`]).
    fn let_go(&mut self) {
        if self.tx.is_some() && self.commit_open() {
            self.early += 1;
            crate::fault::kill("kill-let-go", self.early);
        }
    }

    /// Commits the open transaction, if any (counted for the courier:
    /// [`Durable`]); false if the commit failed, the group's files then
    /// left in `new/` (handled again, or found seen, in the next pass).
    fn commit_open(&mut self) -> bool {
        let Some(tx) = self.tx.take() else {
            return true;
        };
        self.durable.begun.fetch_add(1, Ordering::SeqCst);
        if let Err(e) = store::commit(tx) {
            tracing::error!(
                "inbox: cannot commit ({e}): {} handled mails stay in new/",
                self.files.len()
            );
            self.files.clear();
            return false;
        }
        true
    }

    /// The last group, and the connection back to a sync at every commit;
    /// the first error moving a file, if any.
    fn end(mut self, conn: &crate::store::Connection) -> std::io::Result<()> {
        self.commit(conn);
        if let Err(e) = store::group_commit(conn, false) {
            tracing::error!("inbox: cannot set the commits back to FULL: {e}");
        }
        self.moved
    }
}

/// The commit groups of a big pass that have begun committing and those
/// made durable by a sync of the WAL ([`Group::commit`]): the courier
/// needs no sync of its own before sending what it read when every group
/// that may have committed it is already synced ([`deliver_page`]). Every
/// other commit of the handling connection while the courier runs is part
/// of a group (its mails' savepoints) or queues no mail.
///
/// And the courier's writes: its claims and marks need the write lock,
/// which a commit group holds from its first mail to its commit (some 30
/// mails). Waiting that long for every eight mails marked, the courier sent
/// little while the inbox was handled and most of a big pass's mail after
/// it (the thirty-fourth session's trace, docs/performance.md). So the
/// courier says when it waits to write ([`Durable::courier_writes`]), the
/// group commits (without its sync) after the mail in hand
/// ([`Group::let_go`]), and goes on in a transaction begun once the courier
/// has written ([`Group::tx`]).
#[derive(Default)]
struct Durable {
    begun: std::sync::atomic::AtomicU64,
    synced: std::sync::atomic::AtomicU64,
    /// The courier waits to write.
    courier: AtomicBool,
}

/// The longest the handling thread holds back its next group for the
/// courier's write (a claim or a mark takes well under a millisecond).
const COURIER_WRITE: std::time::Duration = std::time::Duration::from_millis(20);

impl Durable {
    /// Runs the courier's write `f`, the handling thread told to let it
    /// have the lock (none: no commit groups, nothing to tell).
    fn courier_writes<T>(durable: Option<&Durable>, f: impl FnOnce() -> T) -> T {
        /// Takes the word back however the write ends (a panic too: the
        /// handling thread would otherwise commit after every mail).
        struct Waiting<'a>(&'a AtomicBool);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::SeqCst);
            }
        }
        let Some(d) = durable else { return f() };
        d.courier.store(true, Ordering::SeqCst);
        let _waiting = Waiting(&d.courier);
        f()
    }

    /// Whether the courier waits to write.
    fn wanted(&self) -> bool {
        self.courier.load(Ordering::SeqCst)
    }

    /// Waits (up to [`COURIER_WRITE`]) while the courier waits to write, so
    /// that it takes the lock before the next group does.
    fn let_the_courier_write(&self) {
        let since = std::time::Instant::now();
        while self.wanted() && since.elapsed() < COURIER_WRITE {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }

    /// Whether every group commit that had begun by now is synced: so is
    /// whatever a read before now found of them.
    fn covers_all(&self) -> bool {
        let begun = self.begun.load(Ordering::SeqCst);
        self.synced.load(Ordering::SeqCst) >= begun
    }
}

/// Lowers the calling thread's priority (Linux: nice is per thread): the
/// reader and the courier are ahead of and behind the thread handling mail,
/// which (with the helper rendering beside it) should have the cores first.
fn yield_to_handling() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread (id 0) only changes its
    // scheduling priority; a failure (refused) leaves it as it was.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// Mails read ahead of the one being handled.
const READ_AHEAD: usize = 32;

/// Handle `mails` in order, each in its own transaction, or in `group`'s
/// ([`Group`]); a handled mail's file moves to `cur/` after its commit (a
/// failed mail that may succeed later stays); `after` is called after each
/// mail handled.
fn handle_files<'j>(
    judge: &'j Judge,
    mails: impl Iterator<Item = Waiting>,
    stop: &AtomicBool,
    pass: &mut Pass,
    mut group: Option<&mut Group<'j>>,
    after: &mut dyn FnMut(&Judge, &mut Pass),
) -> std::io::Result<()> {
    let dir = judge.cfg.maildir();
    for Waiting { file, raw, read } in mails {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let raw = match raw {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                tracing::info!("{}: {e}", file.display());
                continue;
            }
            Err(e) => {
                tracing::warn!("cannot read {}: {e}", file.display());
                continue;
            }
        };
        let _mail = crate::logging::mail_span(&raw).entered();
        let source = format!(
            "maildir:{}",
            file.file_name().and_then(|n| n.to_str()).unwrap_or("?")
        );
        let outcome = match group.as_deref_mut() {
            None => handle_alone(judge, &raw, read, &source),
            Some(g) => match g.tx(&judge.conn) {
                Ok(tx) => handle_in(judge, tx, &raw, read, &source),
                Err(e) => Err(e),
            },
        };
        if let Some(g) = group.as_deref_mut() {
            if g.lost(&judge.conn) {
                pass.failed += 1;
                continue; // this mail's work went with the group's
            }
        }
        match outcome {
            Ok(MailOutcome::Duplicate) => pass.duplicates += 1,
            Ok(MailOutcome::Handled { .. }) => pass.handled += 1,
            Err(e) => {
                tracing::error!("{}: {e}", file.display());
                pass.failed += 1;
                if !e.starts_with("internal error") {
                    continue; // leave it in new/ to try again next pass
                }
                // Never tried again: out of new/, for the host to look at,
                // once its record is durable (in a big pass, with its
                // group's commit).
                let durable = match group.as_deref_mut() {
                    Some(g) => {
                        g.commit(&judge.conn);
                        store::sync_wal(&judge.conn)
                    }
                    None => store::sync_wal(&judge.conn),
                };
                if let Err(e) = durable {
                    tracing::error!("cannot sync the database ({e}): {} stays", file.display());
                    continue;
                }
                match maildir::set_aside(&dir, &file) {
                    Ok(to) => tracing::error!("set aside as {}", to.display()),
                    Err(e) => tracing::error!("cannot set {} aside: {e}", file.display()),
                }
                continue;
            }
        }
        match group.as_deref_mut() {
            Some(g) => g.handled(&judge.conn, file, pass.handled + pass.duplicates),
            None => maildir::mark_done(&dir, &file)?,
        }
        after(judge, pass);
    }
    Ok(())
}

/// One mail in its own transaction.
fn handle_alone(
    judge: &Judge,
    raw: &[u8],
    read: Read,
    source: &str,
) -> Result<MailOutcome, String> {
    match read {
        Read::Later => guarded(judge, raw, source, |judge| {
            judge.inbound().handle_mail(raw, source)
        }),
        Read::Done(read) => guarded(judge, raw, source, |judge| {
            judge.inbound().handle_inbound(raw, *read, source)
        }),
        Read::Panicked => Err(panicked(judge, raw, source)),
    }
}

/// One mail in a savepoint of a commit group's transaction `tx`.
fn handle_in(
    judge: &Judge,
    tx: &store::Transaction<'_>,
    raw: &[u8],
    read: Read,
    source: &str,
) -> Result<MailOutcome, String> {
    match read {
        Read::Later => guarded(judge, raw, source, |judge| {
            judge.inbound().handle_mail_in(tx, raw, source)
        }),
        Read::Done(read) => guarded(judge, raw, source, |judge| {
            judge.inbound().handle_inbound_in(tx, raw, *read, source)
        }),
        Read::Panicked => Err(panicked(judge, raw, source)),
    }
}

/// Every [`DELIVER_EVERY`] handled mails, deliver what they queued.
fn deliver_now_and_then(judge: &mut Judge, pass: &mut Pass) {
    if pass.handled > 0 && pass.handled.is_multiple_of(DELIVER_EVERY) {
        if let Err(e) = deliver(judge, pass) {
            tracing::error!("outbox: {e}");
        }
    }
}

/// The IMAP cursor is kept in the kv table as "UIDVALIDITY:LAST_UID".
pub const IMAP_CURSOR: &str = "imap_cursor";

/// Fetch new mail by IMAP, handle each message, then advance the cursor and
/// mark it seen. A crash between the commit and the cursor update refetches
/// the message, which the inbox log then recognises as a duplicate.
pub fn poll_imap(judge: &mut Judge, stop: &AtomicBool, pass: &mut Pass) -> Result<(), String> {
    let Some(cfg) = judge.cfg.inbound.imap.clone() else {
        return Err("no [inbound.imap] settings".into());
    };
    let cursor = store::kv_get(&judge.conn, IMAP_CURSOR)
        .map_err(|e| e.to_string())?
        .and_then(|v| {
            let (a, b) = v.split_once(':')?;
            Some(imap::ImapCursor {
                uid_validity: a.parse().ok()?,
                last_uid: b.parse().ok()?,
            })
        });
    let (messages, validity) =
        imap::fetch_new_kept(&cfg, cursor, 100).map_err(|e| e.to_string())?;
    let mut done = Vec::new();
    let result = if messages.len() > 1 {
        handle_fetched_delivering(judge, messages, validity, stop, pass, &mut done)
    } else {
        handle_fetched(
            judge,
            messages,
            validity,
            stop,
            pass,
            &mut done,
            &mut |j, p| {
                deliver_now_and_then(j, p);
            },
        )
    };
    // \Seen is for the mailbox's reader: the cursor, committed per mail,
    // is what the judge goes by. The pass's whole batch is marked at once,
    // over the session that fetched it (kept open between passes).
    if let Err(e) = imap::mark_seen_kept(&cfg, validity, &done) {
        tracing::warn!("could not mark {} messages seen: {e}", done.len());
    }
    result
}

/// [`handle_fetched`] with a [`courier`] beside it (issue 31): each mail's
/// answers are handed to it as the mail's transaction commits, so they go
/// out over SMTP while the next mail is handled, as in the Maildir
/// pipeline ([`poll_maildir`]), instead of all after the last one.
fn handle_fetched_delivering(
    judge: &mut Judge,
    messages: Vec<imap::Fetched>,
    validity: u32,
    stop: &AtomicBool,
    pass: &mut Pass,
    done: &mut Vec<u32>,
) -> Result<(), String> {
    let cfg = judge.cfg.clone();
    let templates = judge.templates.clone();
    std::thread::scope(|s| {
        let (job, jobs) = std::sync::mpsc::channel();
        let (report, reports) = std::sync::mpsc::channel();
        let courier = s.spawn(|| courier(&cfg, &templates, jobs, report, stop, None));
        let handled = handle_fetched(judge, messages, validity, stop, pass, done, &mut |j, p| {
            let _ = job.send(Job::Deliver(j.clock.now()));
            for d in reports.try_iter() {
                p.add_deliveries(d);
            }
        });
        drop(job);
        if courier.join().is_err() {
            tracing::error!("outbox: the delivery thread panicked");
        }
        for d in reports.try_iter() {
            pass.add_deliveries(d);
        }
        handled
    })
}

/// Handles fetched messages in UID order, moving the cursor past each
/// after its commit; `done` gets their UIDs; `after_each` is called after
/// each cursor commit (to deliver what the mail queued).
fn handle_fetched(
    judge: &mut Judge,
    messages: Vec<imap::Fetched>,
    validity: u32,
    stop: &AtomicBool,
    pass: &mut Pass,
    done: &mut Vec<u32>,
    after_each: &mut dyn FnMut(&mut Judge, &mut Pass),
) -> Result<(), String> {
    for (uid, raw) in messages {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let _mail = crate::logging::mail_span(&raw).entered();
        match handle_one(judge, &raw, &format!("imap:{validity}:{uid}")) {
            Ok(MailOutcome::Duplicate) => pass.duplicates += 1,
            Ok(MailOutcome::Handled { .. }) => pass.handled += 1,
            Err(e) => {
                pass.failed += 1;
                if !e.starts_with("internal error") {
                    return Err(format!("message uid {uid}: {e}"));
                }
            }
        }
        store::kv_set(&judge.conn, IMAP_CURSOR, &format!("{validity}:{uid}"))
            .map_err(|e| e.to_string())?;
        done.push(uid);
        after_each(judge, pass);
    }
    Ok(())
}

/// Handled inbound mails between two deliveries within one pass: the
/// outbox holds at most this many mails' answers before they go out, so a
/// big inbox neither waits for its answers nor piles their bodies up in the
/// database (a delivered body's pages are reused by the next ones).
pub const DELIVER_EVERY: usize = 64;

/// Deliver every due outbox row, a page of [`store::OUTBOX_PAGE`] rows at a
/// time (memory does not grow with the backlog). A row is marked sent only
/// after delivery; then its bytes are dropped, or kept for
/// `outbound.keep_sent_hours` and dropped by a later pass.
pub fn deliver(judge: &mut Judge, pass: &mut Pass) -> Result<(), store::StoreError> {
    let before = pass.delivered;
    let r = deliver_until(judge, pass, &AtomicBool::new(false));
    log_delivered(pass.delivered - before);
    r
}

/// Says how many mails a pass (or a command) delivered (info).
fn log_delivered(n: usize) {
    if n > 0 {
        tracing::info!("outbox: delivered {n} mails");
    }
}

/// [`deliver`], stopping between two groups of mails once `stop` is set
/// (SIGTERM): the mails not yet tried stay pending for the next start.
pub fn deliver_until(
    judge: &mut Judge,
    pass: &mut Pass,
    stop: &AtomicBool,
) -> Result<(), store::StoreError> {
    let now = judge.clock.now();
    let (conn, cfg) = (&judge.conn, &judge.cfg);
    let keep_hours = cfg.outbound.keep_sent_hours;
    let renderer = Renderer::new(&judge.templates);
    let owner = claimer("deliver");
    if !pass.server_down {
        reclaim_from_the_dead(conn, now);
    }
    let clock = ClaimClock::from(now);
    let mut after = 0;
    let mut again = pass.due_again.is_none();
    loop {
        while let Some((last, _)) = deliver_page(
            conn, cfg, &renderer, &clock, after, &owner, stop, pass, None,
        )? {
            after = last;
        }
        // Mails made due by a send that went through (their back-off
        // ended) may lie behind the cursor: once more from the start.
        if !(again && pass.due_again.is_some_and(|n| n > 0)) || stop.load(Ordering::SeqCst) {
            break;
        }
        again = false;
        after = 0;
    }
    if keep_hours > 0 {
        let before = stamp(now - chrono::Duration::hours(i64::from(keep_hours)));
        let n = store::outbox_compact(conn, &before)?;
        if n > 0 {
            tracing::info!("outbox: dropped the bytes of {n} mails delivered before {before}");
        }
    }
    Ok(())
}

/// How long a deliverer's claim on the rows it is sending lasts, in
/// seconds of the judge's clock: enough to send a page through a slow mail
/// server; a killed deliverer's rows go out again once it lapses.
pub const CLAIM_SECS: i64 = 600;

/// [`CLAIM_SECS`], or `ADJUTANT_CLAIM_SECS` in a development build (the
/// tests that outlast a claim; docs/host.md).
fn claim_secs() -> i64 {
    #[cfg(debug_assertions)]
    if let Some(s) = std::env::var("ADJUTANT_CLAIM_SECS")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
    {
        return s.max(1);
    }
    CLAIM_SECS
}

/// The clock a deliverer claims by: the judge's clock when its call began,
/// moved on by the time since (a call through a long backlog lasts longer
/// than a claim: each claim, and each renewal, is made at its own time;
/// issue 52). Which mails are due and what is recorded go by the call's
/// time, as before.
struct ClaimClock {
    now: DateTime<Utc>,
    since: std::time::Instant,
}

impl ClaimClock {
    fn from(now: DateTime<Utc>) -> ClaimClock {
        ClaimClock {
            now,
            since: std::time::Instant::now(),
        }
    }

    /// The judge's clock at this moment.
    fn at(&self) -> DateTime<Utc> {
        self.now + chrono::Duration::from_std(self.since.elapsed()).unwrap_or_default()
    }

    /// Until when a claim made (or renewed) now lasts.
    fn until(&self) -> String {
        stamp(self.at() + chrono::Duration::seconds(claim_secs()))
    }
}

/// Who claims rows: this process (its id and, where the system tells it,
/// when it started: a process id is reused once the system has counted
/// through them, 32768 by default on Linux) and which of its deliverers.
fn claimer(what: &str) -> String {
    let pid = std::process::id();
    match started(pid) {
        Some(t) => format!("{pid}:{t}:{what}"),
        None => format!("{pid}:{what}"),
    }
}

/// When process `pid` started, in clock ticks since boot (the 22nd field
/// of `/proc/PID/stat`); None where there is no such file.
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces:
    // count the fields after its closing one.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process that made a claim (`pid[:start]:what`) is still
/// running: its id exists and, when the claim says when it started, the
/// process with that id started then (not a later one given the same id).
fn claimant_alive(owner: &str) -> bool {
    let mut parts = owner.split(':');
    let Some(pid) = parts.next().and_then(|p| p.parse::<i32>().ok()) else {
        return true;
    };
    if pid <= 0 || !process_exists(pid) {
        return false;
    }
    match parts.next().and_then(|t| t.parse::<u64>().ok()) {
        Some(start) => started(pid as u32).is_none_or(|now| now == start),
        None => true,
    }
}

/// Gives back the claims of deliverers that are gone: a claim names its
/// process (`pid:what`), and every process using the database runs on this
/// machine (SQLite's locks need one), so a process that no longer exists
/// (killed) will never send what it claimed. Its rows are due again at once
/// rather than when the claim lapses.
fn reclaim_from_the_dead(conn: &store::Connection, now: DateTime<Utc>) {
    let owners = match store::outbox_claimers(conn, &stamp(now)) {
        Ok(o) => o,
        Err(e) => {
            tracing::warn!("outbox: cannot read the claims: {e}");
            return;
        }
    };
    for owner in owners {
        if claimant_alive(&owner) {
            continue;
        }
        let pid = owner.split(':').next().unwrap_or("?");
        match store::relaxed(conn, |c| store::outbox_release_owner(c, &owner)) {
            Ok(n) => tracing::info!(
                "outbox: {n} mails claimed by process {pid}, which is gone, are due again"
            ),
            Err(e) => tracing::warn!("outbox: cannot give back process {pid}'s claims: {e}"),
        }
    }
}

/// Whether a process with this id exists (signal 0 checks without sending;
/// EPERM means it exists but is another user's).
fn process_exists(pid: i32) -> bool {
    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Claims a page of due rows above `after`, renders and sends them, and
/// marks each group of [`MARKS_PER_COMMIT`] in one commit as soon as it is
/// sent; so a kill at any moment leaves at most one group sent and not
/// marked (sent again after the claim lapses), and no other process sends
/// a claimed row. On SIGTERM the rows not yet sent are given back. Returns
/// the last id claimed and how many rows were, or None when nothing was
/// due.
#[allow(clippy::too_many_arguments)]
fn deliver_page(
    conn: &store::Connection,
    cfg: &Config,
    renderer: &Renderer<'_>,
    clock: &ClaimClock,
    after: i64,
    owner: &str,
    stop: &AtomicBool,
    pass: &mut Pass,
    durable: Option<&Durable>,
) -> Result<Option<(i64, usize)>, store::StoreError> {
    if pass.server_down {
        return Ok(None); // one knock a pass on a failing server
    }
    let mut page = Durable::courier_writes(durable, || {
        store::relaxed(conn, |c| {
            let at = stamp(clock.at());
            store::outbox_claim(c, &at, after, store::OUTBOX_PAGE, owner, &clock.until())
        })
    })?;
    let Some(last) = page.last().map(|m| m.id) else {
        return Ok(None);
    };
    let rows = page.len();
    // Rendered a part at a time, each mail's bytes dropped once it is
    // sent: a page's reports (a board picture each, ~80 KB) are never all
    // held at once ([`RENDER_PART`]); the next part is drawn while this
    // one is sent.
    let first = RENDER_PART.min(page.len());
    let mut rendered: Vec<Option<Result<(), ServiceError>>> = renderer
        .render_page(conn, &mut page[..first])
        .into_iter()
        .map(Some)
        .collect();
    // What was read is durable before any of it goes out: a big inbox pass
    // commits without syncing ([`Group`]), and an answer sent from a commit
    // a power cut undoes would be sent again. (The page's later parts were
    // committed before its claim: this sync covers them too.) A courier
    // whose reads all came from commit groups already synced has nothing
    // to sync (one `fsync` a page saved: issue 57).
    let synced = durable.is_some_and(Durable::covers_all);
    if let Err(e) = if synced {
        Ok(())
    } else {
        store::sync_wal(conn)
    } {
        let ids: Vec<i64> = page.iter().map(|m| m.id).collect();
        store::relaxed(conn, |c| store::outbox_release(c, &ids, owner))?;
        return Err(store::StoreError::Corrupt(format!(
            "cannot sync the database: {e}"
        )));
    }
    let mut sending = Sending {
        conn,
        cfg,
        clock,
        owner,
        stop,
        durable,
        last,
        tried: 0,
        claimed: std::time::Instant::now(),
    };
    loop {
        let drawn = rendered.len();
        // The next part is read here (the connection is this thread's) and,
        // when it has pictures, drawn by the helper while this thread sends
        // the part before it, then by both; else by both after the sending.
        let next = (drawn < page.len()).then(|| {
            let end = page.len().min(drawn + RENDER_PART);
            (end, renderer.read_part(conn, &page[drawn..end]))
        });
        let part = next.as_ref().map(|(_, p)| p);
        let flow = match part {
            Some(p) if p.pictured() => crate::service::beside(
                || renderer.draw_part(p, End::Front),
                || {
                    let flow = sending.send_drawn(&mut page, drawn, &mut rendered, pass);
                    if matches!(flow, Ok(Flow::On)) {
                        renderer.draw_part(p, End::Back);
                    } else {
                        p.abandon();
                    }
                    flow
                },
            )?,
            _ => {
                let flow = sending.send_drawn(&mut page, drawn, &mut rendered, pass)?;
                if let (Some(p), Flow::On) = (part, &flow) {
                    crate::service::beside(
                        || renderer.draw_part(p, End::Front),
                        || renderer.draw_part(p, End::Back),
                    );
                }
                flow
            }
        };
        if let Flow::Done(done) = flow {
            return Ok(done);
        }
        let Some((end, part)) = next else {
            // Sent whole; on SIGTERM no further page is claimed.
            return Ok((!stop.load(Ordering::SeqCst)).then_some((last, rows)));
        };
        let part = renderer.finish_part(conn, part, &mut page[drawn..end]);
        rendered.extend(part.into_iter().map(Some));
    }
}

/// What [`Sending::send_drawn`] leaves the courier to do.
enum Flow {
    /// The rows drawn were all sent: on to the next part.
    On,
    /// The page's delivery ends here, with what `deliver_page` returns.
    Done(Option<(i64, usize)>),
}

/// A claimed page being sent ([`deliver_page`]): where it stands.
struct Sending<'a> {
    conn: &'a store::Connection,
    cfg: &'a Config,
    clock: &'a ClaimClock,
    owner: &'a str,
    stop: &'a AtomicBool,
    durable: Option<&'a Durable>,
    /// The last id of the claimed page.
    last: i64,
    /// Rows of the page tried so far.
    tried: usize,
    /// When the claim was made or last renewed.
    claimed: std::time::Instant,
}

impl Sending<'_> {
    /// Sends the rows of `page` rendered so far (its first `drawn`) from
    /// the first not yet tried, each group of [`MARKS_PER_COMMIT`] marked
    /// in one commit as soon as it is sent. Stops the page on SIGTERM or at
    /// a fault of the whole server, every row of the page not yet sent
    /// given back (drawn or not).
    fn send_drawn(
        &mut self,
        page: &mut [store::OutMail],
        drawn: usize,
        rendered: &mut [Option<Result<(), ServiceError>>],
        pass: &mut Pass,
    ) -> Result<Flow, store::StoreError> {
        let (conn, owner, now) = (self.conn, self.owner, self.clock.now);
        while self.tried < drawn {
            if self.stop.load(Ordering::SeqCst) {
                let unsent: Vec<i64> = page[self.tried..].iter().map(|m| m.id).collect();
                store::relaxed(conn, |c| store::outbox_release(c, &unsent, owner))?;
                return Ok(Flow::Done(None));
            }
            let mut group: Vec<Sent> = Vec::with_capacity(MARKS_PER_COMMIT);
            let mut server_down = None;
            for k in self.tried..drawn.min(self.tried + MARKS_PER_COMMIT) {
                let r = rendered[k].take().unwrap_or(Ok(()));
                let m = &mut page[k];
                let result = send(self.cfg, m, r);
                // Sent or not, this copy of its bytes is done with.
                m.raw = Vec::new();
                if let Err(f) = &result {
                    server_down = f.server_wide.then(|| f.error.message.clone());
                }
                group.push(Sent::of(m, result.map_err(|f| f.error)));
                if server_down.is_some() {
                    break;
                }
            }
            self.tried += group.len();
            let back = group.iter().any(|s| s.result.is_ok() && s.attempts > 0);
            let went = group.iter().any(|s| s.result.is_ok());
            Durable::courier_writes(self.durable, || {
                record_all(conn, group, now, Policy::of(self.cfg), pass)?;
                if went && pass.due_again.is_none() {
                    due_again(conn, now, back, pass)?;
                }
                Ok::<_, store::StoreError>(())
            })?;
            if server_down.is_none() && self.tried < page.len() && half_spent(self.claimed) {
                // Still sending: the rest of the page stays ours.
                let (from, last) = (page[self.tried].id, self.last);
                Durable::courier_writes(self.durable, || {
                    store::relaxed(conn, |c| {
                        store::outbox_renew(c, from, last, owner, &self.clock.until())
                    })
                })?;
                self.claimed = std::time::Instant::now();
            }
            if let Some(why) = server_down {
                pass.server_down = true;
                // The server or the settings are at fault: every other mail
                // would meet it too. They wait for the next pass, untried; those
                // past the host's horizon are given up with the same reason.
                let policy = Policy::of(self.cfg);
                let (expired, waiting): (Vec<_>, Vec<_>) = page[self.tried..]
                    .iter()
                    .partition(|m| !policy.within(&m.created_at, now));
                let failed = |m: &store::OutMail| {
                    let error = outbound::DeliveryError {
                        message: why.clone(),
                        transient: true,
                    };
                    Sent::of(m, Err(error))
                };
                record_all(conn, expired.into_iter().map(failed), now, policy, pass)?;
                let unsent: Vec<i64> = waiting.iter().map(|m| m.id).collect();
                store::relaxed(conn, |c| store::outbox_release(c, &unsent, owner))?;
                tracing::info!(
                    "outbox: delivery stops for this pass, the mail server's fault: {why}"
                );
                return Ok(Flow::Done(None));
            }
        }
        Ok(Flow::On)
    }
}

/// A send went through: the server takes mail, so every mail waiting out
/// its back-off is due now (issue 54: after an outage, queued mail does not
/// wait up to an hour while newer mail overtakes it). Said once, when the
/// send was a retry or mails were waiting: the end of an outage.
fn due_again(
    conn: &store::Connection,
    now: DateTime<Utc>,
    was_retried: bool,
    pass: &mut Pass,
) -> Result<(), store::StoreError> {
    let n = store::relaxed(conn, |c| store::outbox_due_now(c, &stamp(now)))?;
    pass.due_again = Some(n);
    if n > 0 || was_retried {
        tracing::info!(
            "outbox: the mail server takes mail again; {n} mails waiting out a back-off are due now"
        );
    }
    Ok(())
}

/// Whether half a claim's time has passed since `claimed`: time to renew
/// it.
fn half_spent(claimed: std::time::Instant) -> bool {
    claimed.elapsed().as_secs_f64() * 2.0 >= claim_secs() as f64
}

/// A delivery that failed: why, and whether the fault is the mail
/// server's or the settings' rather than this mail's (every other mail
/// would meet it now).
struct Failed {
    error: outbound::DeliveryError,
    server_wide: bool,
}

impl From<outbound::DeliveryError> for Failed {
    fn from(error: outbound::DeliveryError) -> Failed {
        Failed {
            error,
            server_wide: false,
        }
    }
}

/// Records deliveries' outcomes in one relaxed commit.
fn record_all(
    conn: &store::Connection,
    sent: impl IntoIterator<Item = Sent>,
    now: DateTime<Utc>,
    policy: Policy,
    pass: &mut Pass,
) -> Result<(), store::StoreError> {
    store::relaxed(conn, |conn| {
        let tx = store::begin(conn)?;
        for s in sent {
            record(conn, s, now, policy, pass)?;
        }
        crate::store::commit(tx)?;
        Ok(())
    })
}

/// What the host's config says about recording deliveries.
#[derive(Debug, Clone, Copy)]
struct Policy {
    /// Keep a delivered mail's bytes (`outbound.keep_sent_hours` > 0).
    keep: bool,
    /// How long a mail whose delivery fails for a reason that may pass is
    /// retried, from when it was queued (`outbound.retry_days`).
    horizon: chrono::Duration,
}

impl Policy {
    fn of(cfg: &Config) -> Policy {
        Policy {
            keep: cfg.outbound.keep_sent_hours > 0,
            horizon: chrono::Duration::days(i64::from(cfg.outbound.retry_days)),
        }
    }

    /// Whether a mail queued at `created_at` is still within the horizon.
    fn within(&self, created_at: &str, now: DateTime<Utc>) -> bool {
        let queued =
            DateTime::parse_from_rfc3339(created_at).map_or(now, |t| t.with_timezone(&Utc));
        now < queued + self.horizon
    }
}

/// One delivery's outcome, to be recorded.
struct Sent {
    id: i64,
    attempts: i64,
    created_at: String,
    recipient: String,
    result: Result<(), outbound::DeliveryError>,
}

impl Sent {
    fn of(m: &store::OutMail, result: Result<(), outbound::DeliveryError>) -> Sent {
        Sent {
            id: m.id,
            attempts: m.attempts,
            created_at: m.created_at.clone(),
            recipient: m.recipient.clone(),
            result,
        }
    }
}

/// Handled mails between two kicks of the [`courier`].
pub const KICK_EVERY: usize = 16;

/// Work for the [`courier`].
enum Job {
    /// Deliver what is due at this time (the pass's clock is read by the
    /// thread handling mail).
    Deliver(DateTime<Utc>),
}

/// The third thread of a big inbox pass. At each `Deliver` it claims what
/// is due from its own connection, a page at a time, sends it and marks it
/// sent ([`deliver_page`]), and reports how many it delivered on `report`.
/// Its cursor only moves on. It stops when the jobs' sender is dropped.
/// (The handled mails are moved to `cur/` by the handling thread, a commit
/// group at a time: [`Group`].)
/// `durable`: a Maildir pass's group commits ([`Durable`]); with it the
/// thread lowers its priority ([`yield_to_handling`]); the IMAP pass's
/// courier (none: its mails' commits are synced one by one) does not, its
/// sending being what a player waits for.
fn courier(
    cfg: &Config,
    templates: &crate::report::Templates,
    jobs: std::sync::mpsc::Receiver<Job>,
    report: std::sync::mpsc::Sender<Pass>,
    stop: &AtomicBool,
    durable: Option<&Durable>,
) {
    if durable.is_some() {
        yield_to_handling();
    }
    let conn = store::open(&cfg.database_path())
        .map_err(|e| {
            // The pass's own delivery at its end does the work instead.
            tracing::error!("outbox: the delivery thread cannot open the database: {e}");
        })
        .ok();
    let renderer = Renderer::new(templates);
    let owner = claimer("courier");
    let mut after = 0;
    let mut down = false;
    while let Ok(job) = jobs.recv() {
        let Job::Deliver(mut now) = job;
        // Jobs queue while a page goes out: claim at the latest clock. At
        // an older one the mail committed since is not yet due, and the
        // claim's query walks past every such row (the helper's callgrind
        // of a big pass: `outbox_claim` from 14 M to 135 M instructions
        // when the courier fell behind).
        for Job::Deliver(later) in jobs.try_iter() {
            now = now.max(later);
        }
        let Some(conn) = &conn else { continue };
        if down {
            continue; // the server failed earlier in this pass
        }
        reclaim_from_the_dead(conn, now);
        let clock = ClaimClock::from(now);
        let mut done = Pass::default();
        loop {
            match deliver_page(
                conn, cfg, &renderer, &clock, after, &owner, stop, &mut done, durable,
            ) {
                // A page short of full: what was due at the kick is
                // sent. The rows committed since wait for the next kick,
                // or the pass's own delivery at its end: claimed page by
                // page as the handling commits them (early, for this
                // thread's own writes: [`Group::let_go`]), each would be
                // a sync of its own.
                Ok(Some((last, claimed))) => {
                    after = last;
                    if claimed < store::OUTBOX_PAGE {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::error!("outbox: {e}");
                    break;
                }
            }
        }
        down = done.server_down;
        let _ = report.send(done);
    }
}

/// Rows of a claimed page rendered at once: a report with its board
/// picture is ~80 KB, and a page rendered whole held 64 of them (issue 57:
/// the peak RSS of a long pass). Two commit groups' worth: the two
/// rendering threads still share a part's turns. A part is drawn while the
/// one before it is sent: at most two are held.
pub const RENDER_PART: usize = 2 * MARKS_PER_COMMIT;

/// Delivered mails marked sent in one commit. Marking is `relaxed` (see
/// [`store::relaxed`]): a power cut, or a crash between a group's delivery
/// and its commit, has the group's mails delivered again, as a crash between
/// one delivery and its mark always could.
pub const MARKS_PER_COMMIT: usize = 8;

/// Hands a row to the transport once [`Renderer::render_page`] has
/// rendered it; a report that could not be rendered (a damaged database, a
/// bug) is a permanent failure: it stays in the outbox as dead, for the
/// host; one that met a busy database is retried.
fn send(
    cfg: &Config,
    m: &store::OutMail,
    rendered: Result<(), ServiceError>,
) -> Result<(), Failed> {
    if let Some(why) = &m.damaged {
        // A body that does not read back fails alone, named; the rest of
        // its page goes out.
        return Err(outbound::DeliveryError {
            message: format!("the stored mail is damaged: {why}"),
            transient: false,
        }
        .into());
    }
    rendered.map_err(|e| outbound::DeliveryError {
        message: format!("the report cannot be rendered: {e}"),
        // The database busy with another process: try again later. A bug
        // or a damaged game fails the same way every time.
        transient: e.is_transient(),
    })?;
    send_one(cfg, m)
}

/// Hands one mail to the configured transport.
fn send_one(config: &Config, m: &store::OutMail) -> Result<(), Failed> {
    let cfg = &config.outbound;
    match cfg.kind.as_str() {
        "sendmail" => {
            outbound::deliver_sendmail(&cfg.command, &config.judge.address, &m.recipient, &m.raw)
                .map_err(Failed::from)
        }
        "smtp" => match &cfg.smtp {
            Some(s) => crate::kept_smtp::send(
                s,
                &config.judge.address,
                std::slice::from_ref(&m.recipient),
                &m.raw,
            )
            .map_err(|e| Failed {
                error: outbound::DeliveryError {
                    message: e.to_string(),
                    // A configuration fault (bad password, TLS) is the
                    // host's to fix: keep the mail queued.
                    transient: e.is_transient() || e.is_config(),
                },
                server_wide: e.is_server_wide(),
            }),
            None => Err(Failed {
                error: outbound::DeliveryError {
                    message: "no [outbound.smtp] settings".into(),
                    transient: true,
                },
                server_wide: true,
            }),
        },
        _ => outbound::deliver_file(
            &config.outbox_dir(),
            &format!("{:06}-{}", m.id, m.kind),
            &m.raw,
        )
        .map_err(Failed::from),
    }
}

/// Records a delivery's outcome: sent (its bytes dropped unless the
/// policy keeps them), or failed and retried later, or given up: only a
/// permanent fault (the recipient's server refused it) or one that lasted
/// past the host's horizon gives a mail up (`adjutant outbox retry` puts it
/// back).
fn record(
    conn: &store::Connection,
    m: Sent,
    now: chrono::DateTime<chrono::Utc>,
    policy: Policy,
    pass: &mut Pass,
) -> Result<(), store::StoreError> {
    match m.result {
        Ok(()) => {
            store::outbox_sent(conn, m.id, &stamp(now), policy.keep)?;
            pass.delivered += 1;
        }
        Err(e) => {
            pass.delivery_failures += 1;
            let attempts = m.attempts + 1;
            let within = policy.within(&m.created_at, now);
            let next = (e.transient && within).then(|| {
                let wait = 60i64 << attempts.clamp(1, 20); // 2 min, doubling
                stamp(now + chrono::Duration::seconds(wait.min(MAX_BACKOFF_SECS)))
            });
            tracing::warn!(
                "delivery of mail {} to {} failed ({}): {e}",
                m.id,
                m.recipient,
                if next.is_some() {
                    "will retry"
                } else {
                    "giving up"
                }
            );
            store::outbox_failed(conn, m.id, &e.message, next.as_deref())?;
        }
    }
    Ok(())
}

/// An inbound mail server that cannot be reached: retried with back-off
/// (the poll interval, doubling to 30 min), reported once when the outage
/// begins and once when it ends, not on every poll.
#[derive(Debug, Default)]
pub struct Outage {
    /// Failed attempts in a row.
    pub failures: u32,
    /// No attempt before this instant.
    pub retry_at: Option<std::time::Instant>,
}

impl Outage {
    /// Whether to poll now.
    #[must_use]
    pub fn due(&self, now: std::time::Instant) -> bool {
        self.retry_at.is_none_or(|t| now >= t)
    }

    /// Records a poll's result; returns what to log, if anything, and
    /// whether it is an error.
    pub fn record(
        &mut self,
        result: Result<(), String>,
        now: std::time::Instant,
        base: Duration,
    ) -> Option<(bool, String)> {
        match result {
            Ok(()) => {
                let was = std::mem::take(self);
                (was.failures > 0).then(|| {
                    (
                        false,
                        format!(
                            "inbound mail is reachable again (after {} failed attempts)",
                            was.failures
                        ),
                    )
                })
            }
            Err(e) => {
                self.failures += 1;
                let wait = base.saturating_mul(1 << (self.failures - 1).min(16));
                self.retry_at = Some(now + wait.min(Duration::from_secs(1800)));
                (self.failures == 1).then(|| {
                    (
                        true,
                        format!("{e} (retrying with back-off; reported again when it is back)"),
                    )
                })
            }
        }
    }
}

/// One pass: inbox, then outbox.
pub fn pass(judge: &mut Judge, stop: &AtomicBool) -> Pass {
    pass_with(judge, stop, &mut Outage::default())
}

/// One pass, polling the inbox only when an outage's back-off allows.
pub fn pass_with(judge: &mut Judge, stop: &AtomicBool, outage: &mut Outage) -> Pass {
    let mut p = Pass::default();
    let now = std::time::Instant::now();
    if outage.due(now) {
        let result = match judge.cfg.inbound.kind.as_str() {
            "maildir" => poll_maildir(judge, stop, &mut p)
                .map_err(|e| format!("maildir {}: {e}", judge.cfg.maildir().display())),
            "imap" => poll_imap(judge, stop, &mut p).map_err(|e| format!("imap: {e}")),
            _ => Ok(()),
        };
        let base = Duration::from_secs(judge.cfg.judge.poll_seconds.max(1));
        match outage.record(result, now, base) {
            Some((true, msg)) => tracing::error!("{msg}"),
            Some((false, msg)) => tracing::info!("{msg}"),
            None => {}
        }
    }
    match judge.deadlines().tick() {
        Ok(t) if t.reminders + t.nmr + t.failed > 0 => tracing::info!(
            "deadlines: {} reminders, {} missed, {} games failed (logged above)",
            t.reminders,
            t.nmr,
            t.failed
        ),
        Ok(_) => {}
        Err(e) => tracing::error!("deadlines: {e}"),
    }
    match judge.referee().review_tick() {
        Ok(n) if n > 0 => tracing::info!("reviews: {n} released when their time ran out"),
        Ok(_) => {}
        Err(e) => tracing::error!("reviews: {e}"),
    }
    if let Err(e) = deliver_until(judge, &mut p, stop) {
        tracing::error!("outbox: {e}");
    }
    log_delivered(p.delivered);
    p
}

/// Run until `stop` is set (SIGINT/SIGTERM) or, with `once`, after one
/// pass, polling every `judge.poll_seconds` (no watcher: [`run_with`]).
pub fn run(judge: &mut Judge, once: bool, stop: Arc<AtomicBool>) -> Pass {
    run_with(judge, once, &stop, &Wakes::none())
}

/// [`run`], woken between passes by `wakes` (new mail announced), by the
/// next due outbox row or deadline, or at the poll interval, whichever
/// comes first (src/wake).
pub fn run_with(judge: &mut Judge, once: bool, stop: &AtomicBool, wakes: &Wakes) -> Pass {
    let mut total = Pass::default();
    let mut outage = Outage::default();
    // The judge starts: mail waiting out a back-off is due at once.
    let now = stamp(judge.clock.now());
    match store::relaxed(&judge.conn, |c| store::outbox_due_now(c, &now)) {
        Ok(n) if n > 0 => tracing::info!("outbox: {n} mails waiting out a back-off are due now"),
        Ok(_) => {}
        Err(e) => tracing::error!("outbox: {e}"),
    }
    loop {
        let p = pass_with(judge, stop, &mut outage);
        total.handled += p.handled;
        total.duplicates += p.duplicates;
        total.failed += p.failed;
        total.delivered += p.delivered;
        total.delivery_failures += p.delivery_failures;
        if once || stop.load(Ordering::SeqCst) {
            return total;
        }
        match wakes.wait(next_wake(judge), stop) {
            Woke::Stop => return total,
            // The server is back: poll now, whatever the back-off said.
            Woke::By(Why::Back) => outage.retry_at = None,
            Woke::By(Why::Mail) | Woke::Time => {}
        }
    }
}

/// When the loop next wakes with no mail: at the poll interval, or sooner
/// when an outbox row or a deadline falls due before it.
fn next_wake(judge: &Judge) -> std::time::Instant {
    let poll = Duration::from_secs(judge.cfg.judge.poll_seconds.max(1));
    let now = judge.clock.now();
    let due = crate::wake::due::next(&judge.conn, now)
        .and_then(|t| (t - now).to_std().ok())
        // Stamps are whole seconds: a little after, so the row is due.
        .map(|d| d + Duration::from_millis(50));
    std::time::Instant::now() + due.map_or(poll, |d| d.min(poll))
}

#[cfg(test)]
mod tests {
    use super::{claimant_alive, claimer, started, Outage};
    use std::time::{Duration, Instant};

    #[test]
    fn a_claim_by_a_process_id_now_reused_is_a_dead_process_claim() {
        let me = claimer("deliver");
        assert!(claimant_alive(&me), "{me}");
        let pid = std::process::id();
        if let Some(start) = started(pid) {
            // The same id, started at another time: another process.
            assert!(!claimant_alive(&format!("{pid}:{}:deliver", start + 1)));
            assert_eq!(me, format!("{pid}:{start}:deliver"));
        }
        // A claim of the old form (no start time) by a running process.
        assert!(claimant_alive(&format!("{pid}:deliver")));
        // No such process.
        assert!(!claimant_alive("0:deliver"));
        assert!(!claimant_alive(&format!("{}:1:courier", i32::MAX)));
    }

    #[test]
    fn an_outage_is_reported_once_retried_with_back_off_and_its_end_reported() {
        const B: Duration = Duration::from_secs(30);
        let t0 = Instant::now();
        let mut o = Outage::default();
        assert!(o.due(t0));
        let first = o.record(Err("imap: connection refused".into()), t0, B);
        assert!(matches!(&first, Some((true, m)) if m.contains("connection refused")));
        assert!(!o.due(t0 + Duration::from_secs(29)));
        assert!(o.due(t0 + Duration::from_secs(30)));
        let mut at = t0;
        let mut waits = Vec::new();
        for _ in 0..9 {
            at = o.retry_at.unwrap();
            assert_eq!(
                o.record(Err("imap: connection refused".into()), at, B),
                None
            );
            waits.push((o.retry_at.unwrap() - at).as_secs());
        }
        assert_eq!(waits, [60, 120, 240, 480, 960, 1800, 1800, 1800, 1800]);
        let back = o.record(Ok(()), at, B);
        assert!(matches!(&back, Some((false, m)) if m.contains("after 10 failed")));
        assert!(o.due(at));
        assert_eq!(o.record(Ok(()), at, B), None);
    }
}
