#!/usr/bin/env python3
"""Screenshot report mails as a mail client shows them (issue 53 item 4).

usage: scripts/report-shots.py MAILDIR OUTDIR

Every MAILDIR/*.eml with an HTML part: the HTML is written to OUTDIR with
each cid: reference pointing at its part saved beside it, then screenshot in
headless Chromium at a desktop width (1280 px) and a phone's (360 px), the
whole page. The report mails come from
`PRESENTATION_SHOTS=MAILDIR cargo test --test it
presentation::report_mails_of_every_family_for_screenshots -- --ignored`.
"""
import email
import email.policy
import os
import subprocess
import sys
import tempfile

CHROMIUM = next(
    (p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if os.path.exists(p)),
    "chromium",
)


def page_height(html_path, width):
    """The laid-out page's height at `width`, read from Chromium's DOM."""
    probe = html_path + ".probe.html"
    with open(html_path, encoding="utf-8") as f:
        html = f.read()
    script = (
        "<script>window.addEventListener('load',()=>{document.body.insertAdjacentHTML("
        "'beforeend','<p>HEIGHT '+document.documentElement.scrollHeight+' '+"
        "document.documentElement.scrollWidth+' END</p>')})</script>"
    )
    with open(probe, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", script + "</body>"))
    out = chromium(["--dump-dom", "--virtual-time-budget=2000", f"--window-size={width},800",
                    "file://" + probe]).stdout
    os.remove(probe)
    try:
        h, w = out.split("HEIGHT ")[1].split(" END")[0].split()
        return int(h), int(w)
    except (IndexError, ValueError):
        return 3000, width


def chromium(args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--log-level=3", f"--user-data-dir={profile}"] + args,
            capture_output=True, text=True, check=False)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".eml"):
            continue
        with open(os.path.join(src, name), "rb") as f:
            msg = email.message_from_binary_file(f, policy=email.policy.default)
        html = None
        stem = name[:-4]
        cids = {}
        for part in msg.walk():
            if part.is_multipart():
                continue
            ctype = part.get_content_type()
            if ctype == "text/html" and html is None:
                html = part.get_content()
            cid = part.get("Content-ID")
            if cid:
                fname = f"{stem}-{part.get_filename() or cid.strip('<>').split('@')[0]}"
                with open(os.path.join(out, fname), "wb") as f:
                    f.write(part.get_payload(decode=True))
                cids[cid.strip("<>")] = fname
        if html is None:
            continue
        for cid, fname in cids.items():
            html = html.replace(f"cid:{cid}", fname)
        page = os.path.join(out, stem + ".html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html)
        for label, width in (("desktop", 1280), ("phone", 360)):
            h, w = page_height(page, width)
            shot = os.path.join(out, f"{stem}-{label}.png")
            chromium([f"--screenshot={shot}", f"--window-size={width},{min(h, 6000)}",
                      "file://" + page])
            print(f"{shot}: page {w}x{h} at {width} px, subject {msg['Subject']}")


if __name__ == "__main__":
    main()
