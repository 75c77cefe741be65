//! A recording SMTP server on loopback, written for the delivery tests
//! (issue 52): it speaks enough SMTP for lettre (EHLO, MAIL, RCPT, DATA,
//! RSET, NOOP, QUIT), records the Message-ID and recipient of every mail
//! it accepts, counts connections, and can be told to be slow, to answer
//! `421` at the greeting (too many connections), or to greet and then say
//! nothing (a server that hangs). It can be stopped and started again on
//! the same port, as a real server's outage.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the server answers a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Takes every mail.
    Accept,
    /// `421 too many connections` at the greeting, then closes.
    TooMany,
    /// Greets, then never answers anything (a hung server).
    Hang,
}

#[derive(Default)]
struct Shared {
    /// (Message-ID, recipient) of every accepted mail, in order.
    mails: Mutex<Vec<(String, String)>>,
    connections: AtomicUsize,
    delay_ms: AtomicU64,
    mode: Mutex<Option<Mode>>,
    stop: AtomicBool,
}

/// A running recorder; stopped when dropped.
pub struct Recorder {
    port: u16,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Recorder {
    /// A recorder on a free loopback port.
    pub fn start(mode: Mode) -> Recorder {
        Recorder::on(0, mode, Arc::default())
    }

    fn on(port: u16, mode: Mode, shared: Arc<Shared>) -> Recorder {
        let (port, thread) = listen(port, mode, &shared);
        Recorder {
            port,
            shared,
            thread: Some(thread),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops listening (an outage: connections are refused); what it
    /// recorded is kept for [`Recorder::restart`].
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Listens again on the same port, in `mode`, keeping the record.
    pub fn restart(&mut self, mode: Mode) {
        self.stop();
        let (_, thread) = listen(self.port, mode, &self.shared);
        self.thread = Some(thread);
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = Some(mode);
    }

    /// Each mail's DATA is answered after this many milliseconds.
    pub fn set_delay_ms(&self, ms: u64) {
        self.shared.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// (Message-ID, recipient) of each accepted mail, in order.
    pub fn mails(&self) -> Vec<(String, String)> {
        self.shared.mails.lock().unwrap().clone()
    }

    /// The Message-IDs received, in order (a copy sent twice is here twice).
    pub fn message_ids(&self) -> Vec<String> {
        self.mails().into_iter().map(|(id, _)| id).collect()
    }

    /// How many Message-IDs arrived more than once, counted by copies
    /// beyond the first.
    pub fn duplicates(&self) -> usize {
        let ids = self.message_ids();
        let once: std::collections::BTreeSet<&String> = ids.iter().collect();
        ids.len() - once.len()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// The `[outbound]` kind and `[outbound.smtp]` section to this server
    /// written into `config` (an `adjutant.toml`), replacing what was there.
    pub fn configure(&self, config: &std::path::Path, timeout_secs: u64) {
        let cfg = std::fs::read_to_string(config).unwrap();
        let cfg = match cfg.split_once("\n[outbound.smtp]") {
            Some((head, _)) => head.to_string() + "\n",
            None => cfg,
        };
        let cfg = cfg
            .replacen("kind = \"file\"", "kind = \"smtp\"", 1)
            .replacen("kind = \"sendmail\"", "kind = \"smtp\"", 1)
            + &format!(
                "\n[outbound.smtp]\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"none\"\ntimeout_secs = {timeout_secs}\n",
                self.port
            );
        std::fs::write(config, cfg).unwrap();
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Listens on `port` (0: any) in `mode`; the port and the accepting thread.
fn listen(port: u16, mode: Mode, shared: &Arc<Shared>) -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("a loopback port");
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    *shared.mode.lock().unwrap() = Some(mode);
    shared.stop.store(false, Ordering::SeqCst);
    let s = Arc::clone(shared);
    (port, std::thread::spawn(move || accept(&listener, &s)))
}

fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let s = Arc::clone(shared);
                std::thread::spawn(move || {
                    let _ = session(stream, &s);
                });
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn session(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut out = stream.try_clone()?;
    let mode = shared.mode.lock().unwrap().unwrap_or(Mode::Accept);
    if mode == Mode::TooMany {
        out.write_all(b"421 4.7.0 too many connections, try later\r\n")?;
        return Ok(());
    }
    out.write_all(b"220 recorder ESMTP\r\n")?;
    let mut input = BufReader::new(stream);
    let mut rcpt = String::new();
    while let Some(line) = next_line(&mut input, shared)? {
        if mode == Mode::Hang {
            continue;
        }
        let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => out.write_all(b"250-recorder\r\n250 8BITMIME\r\n")?,
            "HELO" | "MAIL" | "RSET" | "NOOP" => out.write_all(b"250 ok\r\n")?,
            "RCPT" => {
                rcpt = line
                    .split_once('<')
                    .and_then(|(_, r)| r.split_once('>'))
                    .map(|(a, _)| a.to_string())
                    .unwrap_or_default();
                out.write_all(b"250 ok\r\n")?;
            }
            "DATA" => {
                out.write_all(b"354 go on\r\n")?;
                let Some(id) = data(&mut input, shared)? else {
                    return Ok(());
                };
                let ms = shared.delay_ms.load(Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(ms));
                if shared.stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                shared.mails.lock().unwrap().push((id, rcpt.clone()));
                out.write_all(b"250 queued\r\n")?;
            }
            "QUIT" => {
                out.write_all(b"221 bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"502 what\r\n")?,
        }
    }
    Ok(())
}

/// The next whole line (without its end), or None when the client closed
/// the connection or the server stops.
fn next_line(input: &mut BufReader<TcpStream>, shared: &Shared) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(None); // the outage closes the connection too
        }
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(None),
            Ok(_) if buf.ends_with(b"\n") => {
                let l = String::from_utf8_lossy(&buf);
                return Ok(Some(l.trim_end_matches(['\r', '\n']).to_string()));
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads a DATA body to its lone dot; its Message-ID (None: the
/// connection closed first).
fn data(input: &mut BufReader<TcpStream>, shared: &Shared) -> std::io::Result<Option<String>> {
    let mut id = String::new();
    let mut in_header = true;
    while let Some(l) = next_line(input, shared)? {
        if l == "." {
            return Ok(Some(id));
        }
        if l.is_empty() {
            in_header = false;
        }
        if in_header && l.len() > 11 && l[..11].eq_ignore_ascii_case("message-id:") {
            id = l[11..].trim().to_string();
        }
    }
    Ok(None)
}
