#!/usr/bin/env python3
"""Latency of the judge's answers, as a player sees it (issue 31).

  latency.py games   BIN N TEMPLATE_DIR
  latency.py imap    BIN RATE SECONDS [--no-idle] [--games TEMPLATE_DIR]
  latency.py maildir BIN RATE SECONDS [--games TEMPLATE_DIR]
  latency.py floor   BIN RATE SECONDS

games: makes a judge directory with N running Pegasus Bridge games, alice@
adjutant.test seated as the Allies (to move) and bob@adjutant.test as the
Axis, their welcome mails delivered to files, and the order mail the Allies
player of each game sends: a reply to the welcome with a legal first turn
(as ../shared/perf/gen_orders.py writes them). A run with --games copies
the directory and sends game i's order mail as mail i: each order mail is
accepted, answered with a receipt (the reply to it, by In-Reply-To) and
completes the Allies' turn, so the turn's two reports (to alice and bob)
are queued with it. Without --games the mails are HELP mails (the first
figures of docs/performance.md).

imap: a judge (`BIN serve`, poll_seconds left at 30) reads judge@adjutant.test
by IMAP on the loopback server of scripts/mailserver.sh and answers by SMTP.
RATE mails a second for SECONDS from alice@adjutant.test, submitted by SMTP
(port 2525), are timed from the moment before the SMTP submission to the
moment the judge's answer to each (the receipt, matched by In-Reply-To) is
seen in alice's INBOX, which is looked at every 20 ms over one IMAP
connection. --no-idle sets `idle = false`: the judge polls, as before
issue 31.

maildir: the judge reads a Maildir; each mail is written to tmp/ and renamed
into new/, and timed to its answer's .eml file in the outbox (looked at
every 5 ms).

floor: no judge; the mails are sent to alice herself and timed to their
arrival in her INBOX: one pass through Postfix and Dovecot, the mail
server's own share (the judge's answer makes two).

Prints one line: mode, rate, count, p50, p99, max (seconds), unanswered.
"""
import email
import email.message
import email.policy
import email.utils
import glob
import html
import imaplib
import json
import random
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
OPPONENT = "bob@adjutant.test"
ORDERS = None  # game i's order mail (json), with --games


def message(i, run, to):
    if ORDERS is not None:
        return order_message(ORDERS[i], i, run)
    return (
        f"From: {PLAYER}\r\nTo: {to}\r\nSubject: help {i}\r\n"
        f"Message-ID: <lat-{run}-{i}@adjutant.test>\r\nDate: {formatdate()}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHELP\r\n"
    ).encode()


def order_message(o, i, run):
    """Game i's order mail, as the Allies player's mail client writes it."""
    out = email.message.EmailMessage()
    out["From"] = PLAYER
    out["To"] = o["to"]
    out["Subject"] = o["subject"]
    out["Message-ID"] = f"<lat-{run}-{i}@adjutant.test>"
    out["In-Reply-To"] = o["in_reply_to"]
    out["Date"] = formatdate()
    out.set_content(o["body"])
    return out.as_bytes()


def games(n, d):
    """A judge directory with n running games and each one's order mail
    (orders.json); see the module's doc."""
    subprocess.run([BIN, "init", d], check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(d, "adjutant.toml")
    cfg = open(path).read()
    # Reply-To addresses are judge+TOKEN@adjutant.test, as the server delivers them.
    cfg = cfg.replace('address = "judge@localhost"', f'address = "{JUDGE}"')
    open(path, "w").write(cfg)
    for g in range(n):
        subprocess.run(
            [BIN, "--config", path, "new-game", "--scenario", "pegasus-bridge",
             "--seat", f"allies={PLAYER}", "--seat", f"axis={OPPONENT}"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rnd = random.Random(42)
    orders = []
    outbox = os.path.join(d, "mail/outbox")
    for f in sorted(glob.glob(f"{outbox}/*-welcome.eml")):
        m = email.message_from_binary_file(open(f, "rb"), policy=email.policy.default)
        if email.utils.parseaddr(m["To"])[1] == PLAYER:
            text = m.get_body(("plain",)).get_content()
            # Pegasus Bridge deals the Allies Recon Centre; the elite
            # infantry at F4 faces F5 (../shared/perf/gen_orders.py).
            assert "recon-centre" in text, f"{f}: no recon-centre in the welcome"
            quoted = "\n".join("> " + l for l in text.splitlines()[: rnd.randint(20, 120)])
            body = (f"Hi,\n\nPLAY recon-centre\nORDER F4\nBATTLE F4 F5\n\nCheers,\nalice\n\n"
                    f"On {m['Date']}, Adjutant wrote:\n{quoted}\n")
            orders.append({"to": email.utils.parseaddr(m["Reply-To"])[1],
                           "subject": "Re: " + m["Subject"],
                           "in_reply_to": m["Message-ID"], "body": body})
        os.remove(f)
    assert len(orders) == n, f"{len(orders)} order mails for {n} games"
    json.dump(orders, open(os.path.join(d, "orders.json"), "w"))
    print(f"games: {n} Pegasus Bridge games and their order mails in {d}")


def clear(user):
    m = imaplib.IMAP4(HOST, IMAP_PORT)
    m.login(user, PASSWORD)
    m.select("INBOX")
    typ, data = m.search(None, "ALL")
    for num in data[0].split():
        m.store(num, "+FLAGS", "\\Deleted")
    m.expunge()
    m.logout()


def site(kind, no_idle, template):
    d = tempfile.mkdtemp(prefix="adj-latency-")
    if template:
        shutil.rmtree(d)
        shutil.copytree(template, d)
    else:
        subprocess.run([BIN, "init", d], check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(d, "adjutant.toml")
    cfg = open(path).read()
    # Answer caps: one player sends them all.
    cfg = cfg.replace("answers_per_address_hour = 60", "answers_per_address_hour = 100000")
    cfg = cfg.replace("answers_per_address_day = 300", "answers_per_address_day = 100000")
    if kind == "imap":
        cfg = cfg.replace('address = "judge@localhost"', f'address = "{JUDGE}"')
        cfg = cfg.replace('kind = "maildir"', 'kind = "imap"', 1)
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
    global BIN, ORDERS
    if sys.argv[1] == "games":
        BIN = sys.argv[2]
        games(int(sys.argv[3]), sys.argv[4])
        return
    mode, BIN, rate, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    no_idle = "--no-idle" in sys.argv
    template = sys.argv[sys.argv.index("--games") + 1] if "--games" in sys.argv else None
    if template:
        ORDERS = json.load(open(os.path.join(template, "orders.json")))
        if len(ORDERS) < int(rate * seconds):
            sys.exit(f"latency: {len(ORDERS)} games in {template}, {int(rate * seconds)} wanted")
    run = str(int(time.time()))
    if mode in ("imap", "floor"):
        clear(JUDGE)
        clear(PLAYER)
        clear(OPPONENT)
    d = site(mode, no_idle, template)
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
                f.write(message(i, run, JUDGE if template else "judge@localhost"))
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
    # Where the slowest answers were: seconds into the run of the worst 1%.
    worst = sorted((i for i in sent if i in seen), key=lambda i: seen[i] - sent[i])
    worst = worst[-max(1, len(worst) // 100):]
    when = ", ".join(f"{sent[i] - sent[0]:.0f}" for i in sorted(worst))
    label = mode + (" (polling: idle = false)" if no_idle else "") + (" orders" if template else " HELP")
    if lat:
        print(f"{label}: {rate:g}/s for {seconds:g} s: {len(sent)} mails, "
              f"p50 {quantile(lat, 0.5):.3f} s, p99 {quantile(lat, 0.99):.3f} s, "
              f"max {max(lat):.3f} s, unanswered {missing}; the slowest 1% sent at {when} s")
    else:
        print(f"{label}: {rate:g}/s: no answer at all (see {d}/serve.log)")
        sys.exit(1)
    if os.environ.get("LATENCY_KEEP"):
        print(f"  (the judge's directory, its serve.log: {d})")
    else:
        shutil.rmtree(d, ignore_errors=True)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
