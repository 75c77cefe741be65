#!/usr/bin/env bash
# Install Debian's chromium for tests/it/browser.rs (the HTML mail rendered in a
# headless browser). Idempotent: does nothing when chromium is already there.
set -euo pipefail
for c in /usr/lib/chromium/chromium /usr/bin/chromium; do
  if [ -x "$c" ]; then
    echo "chromium: $c"
    exit 0
  fi
done
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium
ls -l /usr/bin/chromium
