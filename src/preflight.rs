//! What `serve` (and `serve --once`) checks before it touches any mail: a
//! fault no retry can mend (a password variable not set, a `ca_file` that
//! is not there, a certificate the judge does not trust, plaintext to a
//! host off loopback, a lost key while the database holds games, a second
//! judge on the same database) refuses the start with one line naming the
//! fix, and nothing in the database is changed (docs/host.md, "Before it
//! starts").
//!
//! A server that cannot be reached now is not such a fault: it is logged
//! and the judge starts, retrying as ever.

use crate::config::Config;
use crate::mail::imap::{self, ImapConfig, ImapTls, MailboxError};
use crate::mail::smtp::{SendError, SmtpConfig, SmtpSecurity, SmtpSender};
use crate::store;
use std::fs::{File, TryLockError};
use std::net::{IpAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};

/// The exit code of a refused start: EX_CONFIG (sysexits.h), which a
/// service manager can be told not to restart on.
pub const EX_CONFIG: i32 = 78;

/// The lock a running judge holds on its database for its lifetime
/// (released when the process ends, however it ends).
#[derive(Debug)]
pub struct DaemonLock {
    _file: File,
}

/// Every check, cheapest first; the first fault found, as one line.
/// `once` is `serve --once`: it shares the database with other
/// `serve --once` runs (their outbox claims keep each mail sent once),
/// never with a running `serve`.
pub fn check(cfg: &Config, once: bool) -> Result<DaemonLock, String> {
    if let Some(first) = offline(cfg).into_iter().next() {
        return Err(first);
    }
    let lock = lock(&cfg.database_path(), once)?;
    let (imap, smtp) = servers(cfg);
    if let Some(i) = imap {
        imap_login(i)?;
    }
    if let Some(s) = smtp {
        smtp_login(s)?;
    }
    Ok(lock)
}

/// The logins to the IMAP and SMTP servers in use (`adjutant doctor`'s):
/// every fault found, one line each; a server that cannot be reached now
/// is one too here.
#[must_use]
pub fn online(cfg: &Config) -> Vec<String> {
    let (imap, smtp) = servers(cfg);
    let mut out = Vec::new();
    if let Some(i) = imap {
        match imap::check_login(i) {
            Ok(()) => {}
            Err(e) if e.is_transient() => out.push(one_line(&format!(
                "IMAP server {}:{} cannot be reached now: {e}",
                i.host,
                i.effective_port()
            ))),
            Err(_) => out.extend(imap_login(i).err()),
        }
    }
    if let Some(s) = smtp {
        let reached = SmtpSender::new(s).and_then(|c| c.test_connection());
        match reached {
            Ok(true) => {}
            Ok(false) => out.push(format!(
                "SMTP server {}:{} did not answer",
                s.host,
                s.effective_port()
            )),
            Err(e) if !e.is_config() && e.is_transient() => out.push(one_line(&format!(
                "SMTP server {}:{} cannot be reached now: {e}",
                s.host,
                s.effective_port()
            ))),
            Err(_) => out.extend(smtp_login(s).err()),
        }
    }
    out
}

/// The checks that need no server and no lock (also `adjutant doctor`'s):
/// every fault found, one line each.
#[must_use]
pub fn offline(cfg: &Config) -> Vec<String> {
    let (imap, smtp) = servers(cfg);
    let mut checks: Vec<Result<(), String>> = Vec::new();
    if let Some(i) = imap {
        checks.push(plaintext(
            "[inbound.imap]",
            &i.host,
            i.tls == ImapTls::None,
            i.allow_plaintext_remote,
        ));
        checks.push(password(
            "[inbound.imap]",
            Some(&i.user),
            i.password.as_deref(),
            i.password_env.as_deref(),
        ));
        checks.push(ca_file("[inbound.imap]", i.ca_file.as_deref()));
    }
    if let Some(s) = smtp {
        checks.push(plaintext(
            "[outbound.smtp]",
            &s.host,
            s.security == SmtpSecurity::None,
            s.allow_plaintext_remote,
        ));
        checks.push(password(
            "[outbound.smtp]",
            s.user.as_deref(),
            s.password.as_deref(),
            s.password_env.as_deref(),
        ));
        checks.push(ca_file("[outbound.smtp]", s.ca_file.as_deref()));
    }
    checks.push(
        store::credentials::refuse_missing_key(&cfg.database_path()).map_err(|e| e.to_string()),
    );
    checks.into_iter().filter_map(Result::err).collect()
}

/// The IMAP and SMTP settings in use (a table of a kind not chosen is not
/// checked).
fn servers(cfg: &Config) -> (Option<&ImapConfig>, Option<&SmtpConfig>) {
    let imap = cfg
        .inbound
        .imap
        .as_ref()
        .filter(|_| cfg.inbound.kind == "imap");
    let smtp = cfg
        .outbound
        .smtp
        .as_ref()
        .filter(|_| cfg.outbound.kind == "smtp");
    (imap, smtp)
}

/// Is `host` on this machine: `localhost`, a loopback address, or a name
/// whose every address is one?
#[must_use]
pub fn on_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return ip.is_loopback();
    }
    match (host, 0).to_socket_addrs() {
        Ok(addrs) => {
            let addrs: Vec<_> = addrs.collect();
            !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
        }
        Err(_) => false,
    }
}

fn plaintext(table: &str, host: &str, plain: bool, allowed: bool) -> Result<(), String> {
    if !plain || allowed || on_loopback(host) {
        return Ok(());
    }
    let (key, tls) = if table.starts_with("[inbound") {
        ("tls", "\"starttls\" or \"implicit\"")
    } else {
        ("security", "\"starttls\" or \"tls\"")
    };
    Err(format!(
        "{table} {key} = \"none\" sends the password to {host} in clear, and {host} is not on loopback: \
         set {key} = {tls} (or, on a network you trust, allow_plaintext_remote = true)"
    ))
}

fn password(
    table: &str,
    user: Option<&str>,
    literal: Option<&str>,
    env: Option<&str>,
) -> Result<(), String> {
    let Some(user) = user else { return Ok(()) };
    let var = env.unwrap_or(if table.starts_with("[inbound") {
        "ADJUTANT_IMAP_PASSWORD"
    } else {
        "ADJUTANT_SMTP_PASSWORD"
    });
    match imap::resolve_password(literal, env) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(format!(
            "{table} has no password for {user}: set password_env = \"{var}\" and put the password in {var} in the judge's environment"
        )),
        Err(_) => Err(format!(
            "{table} password_env names {var}, which is not set (or not UTF-8) in the judge's environment: \
             export {var}=... before `adjutant serve` (systemd: Environment= or EnvironmentFile=)"
        )),
    }
}

fn ca_file(table: &str, path: Option<&Path>) -> Result<(), String> {
    match path {
        Some(p) if !p.is_file() => Err(format!(
            "{table} ca_file {} does not exist: give the PEM file of the CA that signed the server's certificate \
             (a relative path is from the config's folder), or remove ca_file to trust the public CAs only",
            p.display()
        )),
        _ => Ok(()),
    }
}

/// The lock file beside the database: `adjutant.db` -> `adjutant.db.lock`.
#[must_use]
pub fn lock_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

/// Takes the judge's lock on `db`: exclusive for `serve`, shared for
/// `serve --once`.
fn lock(db: &Path, once: bool) -> Result<DaemonLock, String> {
    let path = lock_path(db);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| {
            format!(
                "cannot open the lock file {}: {e}: check the folder's owner and mode",
                path.display()
            )
        })?;
    let taken = if once {
        file.try_lock_shared()
    } else {
        file.try_lock()
    };
    match taken {
        Ok(()) => Ok(DaemonLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(format!(
            "another `adjutant serve` runs on {} (it holds {}): two judges never run on one database; \
             stop the other one first (a running `serve` needs no `serve --once` from cron beside it)",
            db.display(),
            path.display()
        )),
        Err(TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// A certificate error's fix: the CA to trust.
fn tls_fix(table: &str, detail: &str) -> String {
    if detail.contains("UnknownIssuer") || detail.contains("certificate") {
        format!(
            "the server's certificate is not signed by a CA the judge trusts ({detail}): \
             set ca_file in {table} to the PEM file of the CA that signed it"
        )
    } else {
        format!("TLS failed ({detail}): check host, port and the TLS mode in {table}")
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Logs in to the IMAP server and examines the mailbox.
fn imap_login(cfg: &ImapConfig) -> Result<(), String> {
    let table = "[inbound.imap]";
    let server = format!("IMAP server {}:{}", cfg.host, cfg.effective_port());
    match imap::check_login(cfg) {
        Ok(()) => Ok(()),
        Err(e) if e.is_transient() => {
            tracing::warn!("{server} cannot be reached now ({e}); serving anyway, it is retried");
            Ok(())
        }
        Err(MailboxError::Tls { detail, .. }) => {
            Err(one_line(&format!("{server}: {}", tls_fix(table, &detail))))
        }
        Err(MailboxError::Auth { user, detail, .. }) => Err(one_line(&format!(
            "{server} refused the login of {user} ({detail}): check user and the password in {table}"
        ))),
        Err(MailboxError::Mailbox { mailbox, detail }) => Err(one_line(&format!(
            "{server} has no mailbox {mailbox:?} ({detail}): set mailbox in {table}"
        ))),
        Err(e) => Err(one_line(&format!("{server}: {e}: check {table}"))),
    }
}

/// Connects to the SMTP server (with TLS and AUTH as configured).
fn smtp_login(cfg: &SmtpConfig) -> Result<(), String> {
    let table = "[outbound.smtp]";
    let server = format!("SMTP server {}:{}", cfg.host, cfg.effective_port());
    let refuse = |e: &SendError| {
        let detail = e.to_string();
        let lower = detail.to_ascii_lowercase();
        one_line(&if lower.contains("certificate") || lower.contains("tls") {
            format!("{server}: {}", tls_fix(table, &detail))
        } else if lower.contains("535") || lower.contains("auth") || lower.contains("credentials") {
            format!("{server} refused the login ({detail}): check user and the password in {table}")
        } else {
            format!("{server}: {detail}: check {table}")
        })
    };
    let sender = SmtpSender::new(cfg).map_err(|e| refuse(&e))?;
    match sender.test_connection() {
        Ok(_) => Ok(()),
        Err(e) if e.is_config() || !e.is_transient() => Err(refuse(&e)),
        Err(e) => {
            tracing::warn!(
                "{server} cannot be reached now ({e}); serving anyway, delivery is retried"
            );
            Ok(())
        }
    }
}
