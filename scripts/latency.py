#!/usr/bin/env python3
"""Latency of the judge's answers, as a player sees it (issue 31).

  latency.py imap    BIN RATE SECONDS [--no-idle]
  latency.py maildir BIN RATE SECONDS
  latency.py floor   BIN RATE SECONDS

imap: a judge (`BIN serve`, poll_seconds left at 30) reads judge@adjutant.test
by IMAP on the loopback server of scripts/mailserver.sh and answers by SMTP.
RATE mails a second for SECONDS, each a HELP mail from alice@adjutant.test
submitted by SMTP (port 2525), are timed from the moment before the SMTP
submission to the moment the judge's answer (matched by In-Reply-To) is seen
in alice's INBOX, which is looked at every 20 ms over one IMAP connection.
--no-idle sets `idle = false`: the judge polls, as before issue 31.

maildir: the judge reads a Maildir; each mail is written to tmp/ and renamed
into new/, and timed to its answer's .eml file in the outbox (looked at
every 5 ms).

floor: no judge; the mails are sent to alice herself and timed to their
arrival in her INBOX: one pass through Postfix and Dovecot, the mail
server's own share (the judge's answer makes two).

Prints one line: mode, rate, count, p50, p99, max (seconds), unanswered.
"""
import email
import email.policy
import imaplib
import os
import shutil
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from email.utils import formatdate

HOST = "127.0.0.1"
SMTP_PORT = int(os.environ.get("SMTP_PORT", "2525"))
IMAP_PORT = int(os.environ.get("IMAP_PORT", "1143"))
PASSWORD = "secret"
JUDGE = "judge@adjutant.test"
PLAYER = "alice@adjutant.test"


def message(i, run, to):
    return (
        f"From: {PLAYER}\r\nTo: {to}\r\nSubject: help {i}\r\n"
        f"Message-ID: <lat-{run}-{i}@adjutant.test>\r\nDate: {formatdate()}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHELP\r\n"
    ).encode()


def clear(user):
    m = imaplib.IMAP4(HOST, IMAP_PORT)
    m.login(user, PASSWORD)
    m.select("INBOX")
    typ, data = m.search(None, "ALL")
    for num in data[0].split():
        m.store(num, "+FLAGS", "\\Deleted")
    m.expunge()
    m.logout()


def site(kind, no_idle):
    d = tempfile.mkdtemp(prefix="adj-latency-")
    subprocess.run([BIN, "init", d], check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(d, "adjutant.toml")
    cfg = open(path).read()
    # Answer caps: one player sends them all.
    cfg = cfg.replace("answers_per_address_hour = 60", "answers_per_address_hour = 100000")
    cfg = cfg.replace("answers_per_address_day = 300", "answers_per_address_day = 100000")
    if kind == "imap":
        cfg = cfg.replace('address = "judge@localhost"', f'address = "{JUDGE}"')
        cfg = cfg.replace('kind = "maildir"', 'kind = "imap"')
        cfg = cfg.replace('kind = "file"', 'kind = "smtp"')
        idle = "idle = false\n" if no_idle else ""
        cfg = cfg.replace(
            "# [inbound.imap]",
            f'[inbound.imap]\nhost = "{HOST}"\nport = {IMAP_PORT}\ntls = "none"\n'
            f'user = "{JUDGE}"\npassword_env = "LATENCY_PASSWORD"\n{idle}',
        )
        cfg = cfg.replace(
            "# [outbound.smtp]",
            f'[outbound.smtp]\nhost = "{HOST}"\nport = {SMTP_PORT}\nsecurity = "none"\n'
            f'user = "{JUDGE}"\npassword_env = "LATENCY_PASSWORD"\n',
        )
    open(path, "w").write(cfg)
    return d


def serve(d):
    env = dict(os.environ, LATENCY_PASSWORD=PASSWORD, ADJUTANT_LOG="warn")
    log = open(os.path.join(d, "serve.log"), "w")
    return subprocess.Popen(
        [BIN, "--config", os.path.join(d, "adjutant.toml"), "serve"],
        env=env, stdout=subprocess.DEVNULL, stderr=log,
    )


def pace(rate, seconds, send):
    """Calls send(i) at `rate` a second for `seconds`; returns the submission times."""
    n = int(rate * seconds)
    sent = {}
    start = time.monotonic()
    for i in range(n):
        at = start + i / rate
        now = time.monotonic()
        if at > now:
            time.sleep(at - now)
        sent[i] = time.monotonic()
        send(i)
    return sent


def imap_watch(seen, stop, run, field="IN-REPLY-TO"):
    """Records when each answer (by the id it answers) reaches alice's INBOX
    (with field MESSAGE-ID: each mail itself)."""
    m = imaplib.IMAP4(HOST, IMAP_PORT)
    m.login(PLAYER, PASSWORD)
    m.select("INBOX", readonly=True)
    last = 0
    prefix = f"<lat-{run}-"
    while not stop.is_set():
        m.noop()
        typ, data = m.uid("SEARCH", None, f"UID {last + 1}:*")
        now = time.monotonic()
        uids = sorted(int(u) for u in data[0].split() if int(u) > last)
        if uids:
            typ, parts = m.uid("FETCH", f"{uids[0]}:{uids[-1]}", f"(BODY.PEEK[HEADER.FIELDS ({field})])")
            for p in parts:
                if isinstance(p, tuple):
                    h = p[1].decode(errors="replace")
                    for line in h.splitlines():
                        v = line.split(":", 1)[-1].strip()
                        if line.lower().startswith(field.lower() + ":") and v.startswith(prefix):
                            seen.setdefault(int(v[len(prefix):].split("@")[0]), now)
            last = uids[-1]
        time.sleep(0.02)
    m.logout()


def outbox_watch(outbox, seen, stop, run):
    known = set()
    prefix = f"<lat-{run}-"
    while not stop.is_set():
        names = [n for n in os.listdir(outbox) if n.endswith(".eml") and n not in known]
        now = time.monotonic()
        for n in names:
            known.add(n)
            with open(os.path.join(outbox, n), "rb") as f:
                for line in f.read(8192).decode(errors="replace").splitlines():
                    if line.startswith("In-Reply-To: ") and line[13:].startswith(prefix):
                        seen.setdefault(int(line[13 + len(prefix):].split("@")[0]), now)
        time.sleep(0.005)


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    global BIN
    mode, BIN, rate, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    no_idle = "--no-idle" in sys.argv
    run = str(int(time.time()))
    if mode in ("imap", "floor"):
        clear(JUDGE)
        clear(PLAYER)
    d = site(mode, no_idle)
    judge = serve(d) if mode != "floor" else None
    time.sleep(2)  # its first pass, its watcher
    seen, stop = {}, threading.Event()
    if mode == "floor":
        watcher = threading.Thread(target=imap_watch, args=(seen, stop, run, "MESSAGE-ID"))
        smtp = smtplib.SMTP(HOST, SMTP_PORT, timeout=30)
        smtp.login(PLAYER, PASSWORD)
        send = lambda i: smtp.sendmail(PLAYER, [PLAYER], message(i, run, PLAYER))
    elif mode == "imap":
        watcher = threading.Thread(target=imap_watch, args=(seen, stop, run))
        smtp = smtplib.SMTP(HOST, SMTP_PORT, timeout=30)
        smtp.login(PLAYER, PASSWORD)
        send = lambda i: smtp.sendmail(PLAYER, [JUDGE], message(i, run, JUDGE))
    else:
        outbox = os.path.join(d, "mail/outbox")
        watcher = threading.Thread(target=outbox_watch, args=(outbox, seen, stop, run))
        inbox = os.path.join(d, "mail/inbox")

        def send(i):
            tmp = os.path.join(inbox, "tmp", f"lat-{i}.eml")
            with open(tmp, "wb") as f:
                f.write(message(i, run, "judge@localhost"))
            os.rename(tmp, os.path.join(inbox, "new", f"lat-{i}.eml"))
    watcher.start()
    sent = pace(rate, seconds, send)
    # Wait for the stragglers: at most 40 s (more than a 30 s poll).
    deadline = time.monotonic() + 40
    while len(seen) < len(sent) and time.monotonic() < deadline:
        time.sleep(0.1)
    stop.set()
    watcher.join()
    if mode in ("imap", "floor"):
        smtp.quit()
    if judge:
        judge.terminate()
        judge.wait(timeout=60)
    lat = [seen[i] - sent[i] for i in sent if i in seen]
    missing = len(sent) - len(lat)
    label = mode + (" (polling: idle = false)" if no_idle else "")
    if lat:
        print(f"{label}: {rate:g}/s for {seconds:g} s: {len(sent)} mails, "
              f"p50 {quantile(lat, 0.5):.3f} s, p99 {quantile(lat, 0.99):.3f} s, "
              f"max {max(lat):.3f} s, unanswered {missing}")
    else:
        print(f"{label}: {rate:g}/s: no answer at all (see {d}/serve.log)")
        sys.exit(1)
    shutil.rmtree(d, ignore_errors=True)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
