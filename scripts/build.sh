#!/usr/bin/env bash
# Configures and builds torch-tidy into build/ (Ninja, two jobs by default).
# Usage: scripts/build.sh [ninja targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
ninja -C build -j "$JOBS" "$@"
