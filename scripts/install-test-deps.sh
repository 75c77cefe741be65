#!/usr/bin/env bash
# Install what the test suite needs beyond the Rust toolchain: the loopback
# mail server (Postfix + Dovecot), a headless browser (Chromium) and systemd's
# tools (systemd-analyze). Idempotent;
# quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/mailserver.sh install
# systemd-analyze, for the test that verifies contrib/adjutant.service.
if ! command -v systemd-analyze >/dev/null; then
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then apt-get update -q; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends systemd
fi
if [ -f scripts/install-chromium.sh ]; then
  bash scripts/install-chromium.sh
fi
