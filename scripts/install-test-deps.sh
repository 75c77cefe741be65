#!/usr/bin/env bash
# Install what the test suite needs beyond the Rust toolchain: the loopback
# mail server (Postfix + Dovecot) and a headless browser (Chromium). Idempotent;
# quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/mailserver.sh install
if [ -f scripts/install-chromium.sh ]; then
  bash scripts/install-chromium.sh
fi
