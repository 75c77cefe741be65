#!/usr/bin/env bash
# Install what the test suite needs beyond the Rust toolchain. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x scripts/mailserver.sh ]; then
  bash scripts/mailserver.sh install
fi
