#!/usr/bin/env bash
# Configures and builds torch-tidy into build/ (Ninja, two jobs by default).
# Usage: scripts/build.sh [ninja targets...]
# TORCH_TIDY_CMAKE_ARGS adds CMake options (CI: -DTORCH_TIDY_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
# shellcheck disable=SC2086
if [ ! -f build/build.ninja ] || [ -n "${TORCH_TIDY_CMAKE_ARGS:-}" ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${TORCH_TIDY_CMAKE_ARGS:-} >/dev/null
fi
ninja -C build -j "$JOBS" "$@"
