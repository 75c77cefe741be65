//! One SMTP connection kept between mails (issue 31): lettre's pool keeps
//! it open and re-dials when the server has closed it, so a burst of
//! answers does not pay a connection, a TLS handshake and a login each.
//! Each thread that delivers (the pass, the courier) keeps its own sender,
//! made again when the settings change.
//!
//! The kept connection is also switched to `TCP_NODELAY` ([`no_delay`]):
//! lettre writes a message's body and its final `CRLF.CRLF` in two writes
//! and leaves Nagle's algorithm on, so the five bytes of the end wait for
//! the server's acknowledgement of the body, which a server delays (40 ms
//! on Linux) while it waits for the end: every mail paid about 40 ms, and
//! at 20 order mails a second (three answers each) the answers fell behind
//! (docs/performance.md, "Latency").

use std::cell::RefCell;
use std::net::{SocketAddr, ToSocketAddrs};

use crate::mail::smtp::{SendError, SmtpConfig, SmtpSender};

/// A thread's kept sender, with the server's addresses (for [`no_delay`]).
struct Kept {
    cfg: SmtpConfig,
    sender: SmtpSender,
    peers: Vec<SocketAddr>,
}

thread_local! {
    static SENDER: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// Sends `raw` to `to` over this thread's kept connection for `cfg`.
pub fn send(cfg: &SmtpConfig, from: &str, to: &[String], raw: &[u8]) -> Result<(), SendError> {
    SENDER.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.as_ref().is_none_or(|k| &k.cfg != cfg) {
            let peers = (cfg.host.as_str(), cfg.effective_port())
                .to_socket_addrs()
                .map(Iterator::collect)
                .unwrap_or_default();
            *kept = Some(Kept {
                cfg: cfg.clone(),
                sender: SmtpSender::new(cfg)?,
                peers,
            });
        }
        let k = kept.as_ref().expect("just made");
        let sent = k.sender.send(from, to, raw);
        // The pool may have dialled a new connection for this mail.
        no_delay(&k.peers);
        sent
    })
}

/// Sets `TCP_NODELAY` on this process's TCP connections to `peers` (the
/// SMTP server): lettre makes its sockets itself and offers no way to set
/// it, so the process's open descriptors are looked through (Linux:
/// /proc/self/fd). Elsewhere, or when that fails, nothing changes: mail
/// goes out as before, only slower.
fn no_delay(peers: &[SocketAddr]) {
    each_connection_to(peers, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
}

/// How long a send in progress at SIGTERM is given to finish before its
/// connection is cut ([`cut_on_stop`]).
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Once `stop` is set (SIGTERM, SIGINT), gives a send in progress
/// [`STOP_GRACE`], then shuts down this process's connections to the SMTP
/// server of `cfg`, and goes on doing so until the process exits: a send
/// waiting on a server that does not answer fails at once instead of
/// after its timeout (twice over: lettre tries a kept connection, then a
/// new one), so the stop stays within systemd's `TimeoutStopSec` (issue
/// 52). A mail whose DATA was cut may have reached the server: it stays
/// queued and may arrive twice, with the same Message-ID.
pub fn cut_on_stop(stop: std::sync::Arc<std::sync::atomic::AtomicBool>, cfg: SmtpConfig) {
    use std::sync::atomic::Ordering;
    let tick = std::time::Duration::from_millis(100);
    std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(tick);
        }
        std::thread::sleep(STOP_GRACE);
        let peers: Vec<SocketAddr> = (cfg.host.as_str(), cfg.effective_port())
            .to_socket_addrs()
            .map(Iterator::collect)
            .unwrap_or_default();
        loop {
            each_connection_to(&peers, |tcp| {
                let _ = tcp.shutdown(std::net::Shutdown::Both);
            });
            std::thread::sleep(tick);
        }
    });
}

/// Calls `f` on each of this process's TCP connections to `peers` (Linux:
/// found through /proc/self/fd; elsewhere none).
fn each_connection_to(peers: &[SocketAddr], f: impl Fn(&std::net::TcpStream)) {
    #[cfg(target_os = "linux")]
    {
        use std::mem::ManuallyDrop;
        use std::net::TcpStream;
        use std::os::fd::FromRawFd;

        if peers.is_empty() {
            return;
        }
        let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
            return;
        };
        for entry in dir.flatten() {
            let is_socket = std::fs::read_link(entry.path())
                .is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
            let fd = entry.file_name().to_str().and_then(|n| n.parse().ok());
            let (true, Some(fd)) = (is_socket, fd) else {
                continue;
            };
            // SAFETY: the descriptor is only borrowed (ManuallyDrop: never
            // closed here). If it was closed and reused since it was listed,
            // getpeername fails on what is not a TCP socket, and a TCP
            // socket to the same server is one `f` is meant for too.
            let tcp = ManuallyDrop::new(unsafe { TcpStream::from_raw_fd(fd) });
            if tcp.peer_addr().is_ok_and(|p| peers.contains(&p)) {
                f(&tcp);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (peers, f);
}

#[cfg(test)]
mod tests {
    use super::no_delay;
    use std::net::{TcpListener, TcpStream};

    /// The kept connection lettre made is found among the process's
    /// descriptors by its peer and switched to TCP_NODELAY; a connection
    /// to another peer is left as it was.
    #[cfg(target_os = "linux")]
    #[test]
    fn connections_to_the_smtp_server_lose_nagles_delay() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let to_server = TcpStream::connect(server.local_addr().unwrap()).unwrap();
        let to_other = TcpStream::connect(other.local_addr().unwrap()).unwrap();
        assert!(!to_server.nodelay().unwrap(), "Nagle is on by default");
        no_delay(&[server.local_addr().unwrap()]);
        assert!(to_server.nodelay().unwrap());
        assert!(!to_other.nodelay().unwrap());
    }
}
