//! The outbox use case (docs/architecture.md, "The service and the binary
//! by use-case"): the mails a use case queued, composed (or kept as report
//! jobs, rendered at delivery: [`super::deferred`]) and stored in the
//! outbox inside the use case's transaction, each under a Message-ID no
//! other judge or restored backup gives another mail (issue 52).

use super::clock::{stamp, Clock};
use super::{deferred, Judge, Queue, Queued, ServiceError};
use crate::config::Config;
use crate::engine::dice;
use crate::mail::outbound;
use crate::protocol;
use crate::store::{self, Connection, Transaction};

/// The kv key of the judge's random part of its Message-IDs.
const MESSAGE_ID_SALT: &str = "message_id_salt";

/// This judge's random part of its Message-IDs: made (from the system's
/// randomness) the first time a mail is queued, kept in the database (so a
/// backup keeps it with the rows it made).
fn message_id_salt(conn: &Connection) -> Result<String, ServiceError> {
    if let Some(salt) = store::kv_get(conn, MESSAGE_ID_SALT)? {
        return Ok(salt);
    }
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| ServiceError::Invalid(format!("no OS randomness: {e}")))?;
    let salt: String = b.iter().map(|x| format!("{x:02x}")).collect();
    store::kv_set(conn, MESSAGE_ID_SALT, &salt)?;
    Ok(salt)
}

/// Queues mails into the outbox: the host's config (the judge's name,
/// address and domain) and the clock, nothing more. [`Judge::outbox`]
/// hands it out.
pub struct Outbox<'a> {
    cfg: &'a Config,
    clock: &'a dyn Clock,
}

impl Judge {
    /// The outbox use case, on this judge's config and clock.
    #[must_use]
    pub fn outbox(&self) -> Outbox<'_> {
        Outbox {
            cfg: &self.cfg,
            clock: self.clock.as_ref(),
        }
    }
}

impl Outbox<'_> {
    /// Compose and store queued mails inside `tx`. Returns how many were
    /// queued and, for each that could not be composed, its address and why.
    pub(super) fn flush(
        &self,
        tx: &Transaction<'_>,
        cause: &str,
        queue: Queue,
    ) -> Result<(usize, Vec<String>), ServiceError> {
        let now = stamp(self.clock.now());
        let date = std::time::SystemTime::from(self.clock.now());
        let mut n = 0;
        let mut failed = Vec::new();
        // The judge's own random part and the moment, with the cause: two
        // judges, or one restored from a backup that makes game N again,
        // never send different mails under one Message-ID (issue 52).
        let salted = format!("{}/{now}/{cause}", message_id_salt(tx)?);
        let cause_hash = dice::sha256_hex(salted.as_bytes());
        queue.check_kinds();
        let mails: Vec<_> = queue
            .mails
            .into_iter()
            .enumerate()
            .map(|(i, (m, kind))| {
                // The answers of one cause share the Message-ID's first half,
                // so their UNIQUE index entries sit side by side: one page
                // written for the three of an order mail, not three
                // (docs/performance.md).
                let mid = format!(
                    "{}.{}@{}",
                    &cause_hash[..12],
                    &dice::sha256_hex(format!("{salted}/{i}/{kind}/{}", m.to()).as_bytes())[..12],
                    self.cfg.domain()
                );
                (m, kind, mid)
            })
            .collect();
        let (name, address) = (&self.cfg.judge.name, &self.cfg.judge.address);
        // Mails composed and packed; reports kept as jobs (see
        // [`deferred`]), their addresses checked now as composing them
        // would. On this thread: the helper thread draws the reports
        // being delivered, and the transaction must not wait for it.
        let composed = mails.iter().map(|(m, _, mid)| match m {
            Queued::Mail(m) => {
                outbound::compose(name, address, mid, date, m).map(|raw| store::pack(&raw))
            }
            Queued::Report(job) => {
                outbound::check_address(&job.to)?;
                if let Some(r) = &job.reply_to {
                    outbound::check_address(r)?;
                }
                let since = date
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                Ok(deferred::Stored {
                    from_name: name.clone(),
                    from_addr: address.clone(),
                    date: (since.as_secs(), since.subsec_nanos()),
                    report: (**job).clone(),
                }
                .to_bytes())
            }
        });
        let composed: Vec<Result<Vec<u8>, outbound::ComposeError>> = composed.collect();
        for ((m, kind, mid), packed) in mails.into_iter().zip(composed) {
            let (to, game_id) = match &m {
                Queued::Mail(m) => (&m.to, m.game_id),
                Queued::Report(j) => (&j.to, Some(j.game)),
            };
            match packed {
                Ok(packed) => {
                    store::insert_packed_outbox(tx, game_id, to, &mid, kind, &packed, &now)?;
                    n += 1;
                }
                Err(e) => {
                    tracing::warn!("cannot compose a {kind} mail to {to}: {e}");
                    failed.push(format!("{} to {}: {e}", kind, protocol::quotable(to, 80)));
                }
            }
        }
        Ok((n, failed))
    }
}
