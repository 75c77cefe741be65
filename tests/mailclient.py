#!/usr/bin/env python3
"""A real mail client for the end-to-end tests: Python's smtplib and imaplib
against the loopback server of scripts/mailserver.sh.

  mailclient.py clear USER              delete everything in USER's INBOX
  mailclient.py send FROM TO SUBJECT    send standard input as the body
  mailclient.py fetch USER [AFTER]      print USER's INBOX as JSON (with each mail's
                                        IMAP UID; only UIDs above AFTER when given)
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


def send(sender, to, subject):
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate()
    msg["Message-ID"] = make_msgid(domain="adjutant.test")
    msg.set_content(sys.stdin.read())
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
            "body": body.get_content() if body is not None else "",
            "html": html.get_content() if html is not None else "",
        })
    m.logout()
    print(json.dumps(out))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "clear":
        clear(sys.argv[2])
    elif cmd == "send":
        send(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "fetch":
        fetch(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    else:
        sys.exit("unknown command " + cmd)
