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

/// A configuration fault, as one line: the CLI exits 78 with it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

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
        imap_greets(i)?;
        imap_login(i)?;
    }
    if let Some(s) = smtp {
        smtp_greets(s)?;
        smtp_login(s)?;
    }
    Ok(lock)
}

/// The logins to the IMAP and SMTP servers in use (`adjutant doctor`'s):
/// every fault found, one line each; a server that cannot be reached now
/// is one too here. A server whose own settings are faulty (see
/// [`offline`]) is not tried: never a password in clear off loopback.
#[must_use]
pub fn online(cfg: &Config) -> Vec<String> {
    let (imap, smtp) = servers(cfg);
    let imap = imap.filter(|i| imap_offline(i).is_empty());
    let smtp = smtp.filter(|s| smtp_offline(s).is_empty());
    let mut out = Vec::new();
    if let Some(i) = imap {
        if let Err(e) = imap_greets(i) {
            out.push(e);
        } else {
            out.extend(imap_online(i));
        }
    }
    if let Some(s) = smtp {
        if let Err(e) = smtp_greets(s) {
            out.push(e);
        } else {
            out.extend(smtp_online(s));
        }
    }
    out
}

fn imap_online(i: &ImapConfig) -> Option<String> {
    match imap::check_login(i) {
        Ok(()) => None,
        Err(e) if e.is_transient() => Some(one_line(&format!(
            "IMAP server {}:{} cannot be reached now: {e}",
            i.host,
            i.effective_port()
        ))),
        Err(_) => imap_login(i).err(),
    }
}

fn smtp_online(s: &SmtpConfig) -> Option<String> {
    let reached = SmtpSender::new(s).and_then(|c| c.test_connection());
    match reached {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "SMTP server {}:{} did not answer",
            s.host,
            s.effective_port()
        )),
        Err(e) if !e.is_config() && e.is_transient() => Some(one_line(&format!(
            "SMTP server {}:{} cannot be reached now: {e}",
            s.host,
            s.effective_port()
        ))),
        Err(_) => smtp_login(s).err(),
    }
}

/// The checks that need no server and no lock (also `adjutant doctor`'s):
/// every fault found, one line each.
#[must_use]
pub fn offline(cfg: &Config) -> Vec<String> {
    let imap = servers(cfg).0;
    let mut out: Vec<String> = Vec::new();
    if let Some(i) = imap {
        out.extend(imap_offline(i));
    }
    out.extend(outbound(cfg));
    out.extend(database_in_place(cfg).err());
    out.extend(
        store::credentials::refuse_missing_key(&cfg.database_path())
            .err()
            .map(|e| e.to_string()),
    );
    out
}

/// What would keep the judge's mail from going out, known without a
/// server (no password, a `ca_file` not there, plaintext off loopback):
/// a host's command that mails checks it before it changes anything.
#[must_use]
pub fn outbound(cfg: &Config) -> Vec<String> {
    servers(cfg).1.map(smtp_offline).unwrap_or_default()
}

fn imap_offline(i: &ImapConfig) -> Vec<String> {
    let table = "[inbound.imap]";
    [
        plaintext(
            table,
            &i.host,
            i.tls == ImapTls::None,
            i.allow_plaintext_remote,
        ),
        password(
            table,
            Some(&i.user),
            i.password.as_deref(),
            i.password_env.as_deref(),
        ),
        ca_file(table, i.ca_file.as_deref()),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect()
}

fn smtp_offline(s: &SmtpConfig) -> Vec<String> {
    let table = "[outbound.smtp]";
    [
        plaintext(
            table,
            &s.host,
            s.security == SmtpSecurity::None,
            s.allow_plaintext_remote,
        ),
        password(
            table,
            s.user.as_deref(),
            s.password.as_deref(),
            s.password_env.as_deref(),
        ),
        ca_file(table, s.ca_file.as_deref()),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect()
}

/// The database the config names is there, or nothing in the config's
/// folder says a judge lives there: a database missing while the folder
/// holds a judge's key or database (a backup restored with a config that
/// names another path) would otherwise be made anew, empty, and the
/// restored judge would answer the mailbox knowing no game (issue 54).
pub fn database_in_place(cfg: &Config) -> Result<(), String> {
    let db = cfg.database_path();
    if db.exists() || db.as_os_str() == ":memory:" {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(&cfg.base) else {
        return Ok(());
    };
    let mut found: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".db.key") || n.ends_with(".db"))
        .collect();
    found.sort();
    let Some(first) = found.first() else {
        return Ok(());
    };
    let name = first.trim_end_matches(".key");
    Err(format!(
        "judge.database names {}, which does not exist, while {} holds a judge's {}: \
         a restored backup? set database = \"{name}\" in [judge] (relative to the config's folder), \
         or put the database back where judge.database says; no empty database is made",
        db.display(),
        cfg.base.display(),
        found.join(", ")
    ))
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
    let Some(p) = path else { return Ok(()) };
    let unreadable = match File::open(p).and_then(|f| f.metadata()) {
        Ok(m) if m.is_file() => return Ok(()),
        Ok(_) => "is not a file".to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "{table} ca_file {} does not exist: give the PEM file of the CA that signed the server's certificate \
                 (a relative path is from the config's folder), or remove ca_file to trust the public CAs only",
                p.display()
            ))
        }
        Err(e) => format!("cannot be read by the judge's user ({e})"),
    };
    Err(format!(
        "{table} ca_file {}: cannot read it: it {unreadable}: put the CA's PEM file where the judge's user can read it \
         (a CA certificate is no secret: the judge's own folder, ca_file = \"provider-ca.pem\", \
         or a world-readable file such as /etc/ssl/adjutant/provider-ca.pem; not the root-only /etc/adjutant)",
        p.display()
    ))
}

/// How long a server may take to greet before the judge concludes that
/// it waits for a TLS hello instead: the configured timeout, at most 10 s.
fn greeting_wait(timeout_secs: u64) -> std::time::Duration {
    std::time::Duration::from_secs(timeout_secs.clamp(1, 10))
}

/// STARTTLS (or plaintext) asked of a port that speaks implicit TLS: such
/// a server waits in silence for the client's TLS hello, and the judge
/// would wait out its whole timeout and then take the server for
/// unreachable (issue 54). True when the server, reached, sends nothing
/// (or a TLS record) within `wait`; a server not reached is not this fault.
fn silent_at_connect(host: &str, port: u16, wait: std::time::Duration) -> bool {
    use std::io::Read;
    let Ok(addrs) = (host, port).to_socket_addrs() else {
        return false;
    };
    for a in addrs {
        let Ok(mut s) = std::net::TcpStream::connect_timeout(&a, wait) else {
            continue;
        };
        let _ = s.set_read_timeout(Some(wait));
        let mut first = [0u8; 1];
        return match s.read(&mut first) {
            Ok(0) => false,
            // 0x15, 0x16: a TLS alert or handshake record, not a greeting.
            Ok(_) => matches!(first[0], 0x15 | 0x16),
            Err(e) => matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        };
    }
    false
}

/// An IMAP server that never greets a STARTTLS or plaintext client.
fn imap_greets(cfg: &ImapConfig) -> Result<(), String> {
    let wait = greeting_wait(cfg.timeout_secs);
    if cfg.tls == ImapTls::Implicit || !silent_at_connect(&cfg.host, cfg.effective_port(), wait) {
        return Ok(());
    }
    Err(format!(
        "IMAP server {}:{} sent no greeting within {} s of the connection: that port speaks implicit TLS (IMAPS), \
         not {}: set tls = \"implicit\" in [inbound.imap], or the port of its STARTTLS service (usually 143)",
        cfg.host,
        cfg.effective_port(),
        wait.as_secs(),
        if cfg.tls == ImapTls::None { "plaintext" } else { "STARTTLS" }
    ))
}

/// An SMTP server that never greets a STARTTLS or plaintext client.
fn smtp_greets(cfg: &SmtpConfig) -> Result<(), String> {
    let wait = greeting_wait(cfg.timeout_secs);
    if cfg.security == SmtpSecurity::Tls
        || !silent_at_connect(&cfg.host, cfg.effective_port(), wait)
    {
        return Ok(());
    }
    Err(format!(
        "SMTP server {}:{} sent no greeting within {} s of the connection: that port speaks implicit TLS (smtps), \
         not {}: set security = \"tls\" in [outbound.smtp], or the port of its STARTTLS service (usually 587)",
        cfg.host,
        cfg.effective_port(),
        wait.as_secs(),
        if cfg.security == SmtpSecurity::None { "plaintext" } else { "STARTTLS" }
    ))
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

/// A certificate error's fix: the CA to trust; a server answering in
/// plain text where TLS was expected: the mode or the port.
fn tls_fix(table: &str, detail: &str) -> String {
    if detail.contains("InvalidContentType") {
        let (key, value, port) = if table.starts_with("[inbound") {
            ("tls", "starttls", "993")
        } else {
            ("security", "starttls", "465")
        };
        format!(
            "the server answered in plain text, not TLS ({detail}): that port wants STARTTLS: \
             set {key} = \"{value}\" in {table}, or the port of its implicit-TLS service (usually {port})"
        )
    } else if detail.contains("not valid for name") || detail.contains("NotValidForName") {
        // Signed by a CA the judge trusts, but for other names: ca_file is
        // not the fix (issue 54).
        format!(
            "the server's certificate is not for the name the judge connects to ({detail}): \
             set host in {table} to a name the certificate names"
        )
    } else if detail.contains("Expired") || detail.contains("expired") {
        format!(
            "the server's certificate has expired ({detail}): the server's administrator must renew it"
        )
    } else if detail.contains("UnknownIssuer") || detail.contains("certificate") {
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
        one_line(&if lower.contains("certificate")
            || lower.contains("tls")
            || detail.contains("InvalidContentType")
        {
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
