#!/usr/bin/env python3
"""A real mail client for the end-to-end tests: Python's smtplib and imaplib
against the loopback server of scripts/mailserver.sh.

  mailclient.py clear USER              delete everything in USER's INBOX
  mailclient.py send FROM TO SUBJECT    send standard input as the body
  mailclient.py fetch USER [AFTER]      print USER's INBOX as JSON (with each mail's
                                        IMAP UID; only UIDs above AFTER when given)
  mailclient.py loop                    the same commands, one JSON request a line
                                        on standard input ({"args": [...], "stdin":
                                        "..."}), one JSON answer a line ({"out": ...}
                                        or {"error": ...}), until end of input: the
                                        tests keep one running per test thread instead
                                        of starting Python for every poll of an inbox
"""
import email
import email.policy
import imaplib
import json
import os
import smtplib
import sys
from email.message import EmailMessage
from email.utils import make_msgid, formatdate

HOST = "127.0.0.1"
SMTP_PORT = int(os.environ.get("SMTP_PORT", "2525"))
IMAP_PORT = int(os.environ.get("IMAP_PORT", "1143"))
PASSWORD = "secret"


def imap(user):
    m = imaplib.IMAP4(HOST, IMAP_PORT)
    m.login(user, PASSWORD)
    m.select("INBOX")
    return m


def clear(user):
    m = imap(user)
    typ, data = m.search(None, "ALL")
    for num in data[0].split():
        m.store(num, "+FLAGS", "\\Deleted")
    m.expunge()
    m.logout()


def send(sender, to, subject, body):
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate()
    msg["Message-ID"] = make_msgid(domain="adjutant.test")
    msg.set_content(body)
    with smtplib.SMTP(HOST, SMTP_PORT, timeout=30) as s:
        s.login(sender, PASSWORD)
        s.send_message(msg)


def fetch(user, after=0):
    m = imap(user)
    typ, data = m.uid("SEARCH", None, "UID %d:*" % (after + 1))
    out = []
    # "UID n:*" always matches the newest mail, even when its UID is not above n.
    for uid in sorted(int(u) for u in data[0].split() if int(u) > after):
        typ, parts = m.uid("FETCH", str(uid), "(BODY.PEEK[])")
        msg = email.message_from_bytes(parts[0][1], policy=email.policy.default)
        body = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        out.append({
            "uid": uid,
            "subject": str(msg["Subject"] or ""),
            "from": str(msg["From"] or ""),
            "reply_to": str(msg["Reply-To"] or ""),
            "in_reply_to": str(msg["In-Reply-To"] or ""),
            "message_id": str(msg["Message-ID"] or ""),
            "body": body.get_content() if body is not None else "",
            "html": html.get_content() if html is not None else "",
        })
    m.logout()
    return json.dumps(out)


def run(args, body):
    """One command: what it prints."""
    cmd = args[0]
    if cmd == "clear":
        clear(args[1])
    elif cmd == "send":
        send(args[1], args[2], args[3], body)
    elif cmd == "fetch":
        return fetch(args[1], int(args[2]) if len(args) > 2 else 0)
    else:
        raise ValueError("unknown command " + cmd)
    return ""


def loop():
    for line in sys.stdin:
        req = json.loads(line)
        try:
            # As standard input reads it in text mode (universal newlines).
            body = req.get("stdin", "").replace("\r\n", "\n").replace("\r", "\n")
            answer = {"out": run(req["args"], body)}
        except Exception as e:  # the test shows it and fails
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1] == "loop":
        loop()
    else:
        try:
            out = run(sys.argv[1:], sys.stdin.read() if sys.argv[1] == "send" else "")
        except ValueError as e:
            sys.exit(str(e))
        if out:
            print(out)
