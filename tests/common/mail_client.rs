//! The real mail server's side of the end-to-end tests: the test mail
//! client (tests/mailclient.py, SMTP in and IMAP out on loopback), a
//! player's inbox, the judge pointed at the server, and its CLI. Shared by
//! tests/e2e_*.rs instead of a copy each.

use super::{bin, Site};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

pub fn client(args: &[&str], stdin: Option<&str>) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mailclient.py");
    let mut child = Command::new("python3")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = child.stdin.take().unwrap();
        i.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "mailclient {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn inbox(user: &str) -> Vec<Value> {
    serde_json::from_str(&client(&["fetch", user], None)).unwrap()
}

pub fn serve(site: &Site) {
    let out = Command::new(bin())
        .arg("--config")
        .arg(site.config())
        .args(["serve", "--once"])
        .env("ADJUTANT_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Mail takes a moment through Postfix and LMTP: wait until `user` has `n` mails.
pub fn wait_for(user: &str, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let m = inbox(user);
        if m.len() >= n {
            return m;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{user} never got {n} mails: {:#?}", inbox(user));
}

pub fn game_row(site: &Site) -> (u32, String) {
    site.db()
        .query_row("SELECT turn, status FROM games WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
}

/// Point the judge of `site` at the loopback mail server (scripts/mailserver.sh):
/// IMAP in, SMTP out, as judge@adjutant.test.
pub fn use_real_server(site: &Site) {
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("address = \"judge@localhost\"", "address = \"judge@adjutant.test\"")
        .replace("kind = \"maildir\"", "kind = \"imap\"")
        .replace("kind = \"file\"", "kind = \"smtp\"")
        .replace("# [inbound.imap]", "[inbound.imap]\nhost = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n")
        .replace("# [outbound.smtp]", "[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"E2E_JUDGE_PASSWORD\"\n");
    std::fs::write(site.config(), cfg).unwrap();
    std::env::set_var("E2E_JUDGE_PASSWORD", "secret");
}

/// Subject or body text of a fetched mail.
pub fn text(m: &Value, k: &str) -> String {
    m[k].as_str().unwrap_or("").to_string()
}
