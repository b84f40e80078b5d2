#!/usr/bin/env bash
# Sets everything up, builds everything and runs every test (lit + harness).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure
