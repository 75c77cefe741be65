//! sd_notify for `serve` under systemd's `Type=notify`
//! (contrib/adjutant.service): READY=1 once the judge is open and
//! watching, STOPPING=1 when it stops. Without `NOTIFY_SOCKET` (not under
//! systemd) nothing is sent.

use std::os::unix::net::UnixDatagram;

/// Sends `state` (such as `READY=1`) to systemd, if it is listening.
pub fn notify(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    let sent = UnixDatagram::unbound().and_then(|sock| {
        let bytes = path.as_encoded_bytes();
        if let Some(name) = bytes.strip_prefix(b"@") {
            // An abstract socket (Linux).
            use std::os::linux::net::SocketAddrExt;
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
            sock.send_to_addr(state.as_bytes(), &addr)
        } else {
            sock.send_to(state.as_bytes(), &path)
        }
    });
    if let Err(e) = sent {
        tracing::warn!("cannot tell systemd {state}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::notify;
    use std::os::unix::net::UnixDatagram;

    #[test]
    fn ready_reaches_the_notify_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let listener = UnixDatagram::bind(&path).unwrap();
        // The one test in this binary that sets NOTIFY_SOCKET.
        std::env::set_var("NOTIFY_SOCKET", &path);
        notify("READY=1");
        std::env::remove_var("NOTIFY_SOCKET");
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1");
    }
}
