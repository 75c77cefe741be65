#!/bin/bash
# Memory with a delivery backlog (docs/performance.md, issue 10).
#
# Usage, from the project's root:   scripts/backlog.sh [N]   (default 10000)
#
# Makes N Pegasus Bridge games and one order mail per game (as
# scripts/loadtest.sh does), handles them all while the mail server is down
# (outbound SMTP to 127.0.0.1:9, where nothing listens: every answer stays
# queued), then moves the queued mails' retry times into the past (as the
# back-off would after the outage) and delivers the whole backlog to files
# in one pass. Prints each pass's peak RSS (/usr/bin/time) and duration.
set -u
N=${1:-10000}
. "$(dirname "$0")/orders-setup.sh"
orders_setup "$N" backlog
cp "$C" "$C.file"
sed -i 's/^kind = "file"/kind = "smtp"/' "$C"
printf '\n[outbound.smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\n' >> "$C"
pass() {
  local s0 s1
  s0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$T/rss" "$B" --config "$C" serve --once >/dev/null 2>"$T/err"
  s1=$(date +%s.%N)
  echo "$1: $(tail -n1 "$T/err" | sed 's/.*handled/handled/'); peak RSS $(( $(tail -n1 "$T/rss") / 1024 )) MB; $(python3 -c "print(round($s1 - $s0))") s"
}
pass "server down"
python3 - "$T/j/adjutant.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, size = c.execute("SELECT count(*), coalesce(sum(length(raw)), 0) FROM outbox WHERE status = 'pending'").fetchone()
print(f"queued: {n} mails, {size / 1e6:.0f} MB of stored bodies")
c.execute("UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z' WHERE status = 'pending'")
c.commit()
PY
cp "$C.file" "$C"
pass "server back"
