#!/bin/bash
# Load test of the judge's mail path (docs/performance.md).
#
# Usage, from the project's root:   scripts/loadtest.sh [N] [RUNS]
#   N     games, one order mail each (default 2000)
#   RUNS  how many times to measure (default 1); each run is a fresh judge
#
# When the reference measurement ../shared/perf/throughput.sh is present (the
# project's shared tooling), it is used as it is: it builds the release binary
# and the floor bench, creates N Pegasus Bridge games, writes one legal order
# mail per game as a mail client would, and times `adjutant serve --once`
# against the floor on the same mails. Otherwise this script runs the judge's
# half on its own (no floor figure): N games, N order mails, one timed pass.
# Each run prints one line, followed by the machine's load average (other
# work on the machine moves the figures; note it with them).
set -u
N=${1:-2000}
RUNS=${2:-1}
REF=${ADJUTANT_THROUGHPUT:-../shared/perf/throughput.sh}
. "$(dirname "$0")/orders-setup.sh"
for run in $(seq 1 "$RUNS"); do
  if [ -x "$REF" ]; then
    "$REF" "$N"
  else
    orders_setup "$N" load
    db0=$(stat -c %s "$T/j/adjutant.db")
    s0=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$T/rss" "$B" --config "$C" serve --once >/dev/null 2>"$T/err" || { echo "serve --once fails"; exit 1; }
    s1=$(date +%s.%N)
    db1=$(stat -c %s "$T/j/adjutant.db"); [ -f "$T/j/adjutant.db-wal" ] && db1=$((db1 + $(stat -c %s "$T/j/adjutant.db-wal")))
    python3 -c "import sys; n,s0,s1,rss,d0,d1=sys.argv[1:]; n=int(n); print(f'adjutant {n/(float(s1)-float(s0)):.0f} mails/s (no floor figure without ../shared/perf); peak RSS {int(rss)/1024:.0f} MB; database +{(int(d1)-int(d0))/n/1024:.1f} KB per turn')" \
      "$n" "$s0" "$s1" "$(tail -n1 "$T/rss")" "$db0" "$db1"
    rm -rf "$T"; trap - EXIT
  fi
  echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
done
