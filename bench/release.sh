#!/usr/bin/env bash
# bench/release.sh [RUNS]: the release bundle (scripts/release.sh; LLVM and
# Clang linked in) against the build tree's torch-tidy (shared LLVM and
# Clang), side by side in one run with hyperfine: `--version` (startup),
# and one analysis of examples/model.cpp with LibTorch 2.6's headers.
# Prints each mean and the ratio. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUNDLE="$(ls -d build/release/torch-tidy-*-linux-*/ 2>/dev/null | head -n 1)"
[ -x "${BUNDLE}bin/torch-tidy" ] || { echo "no bundle: run scripts/release.sh first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 2; }
LT="$PWD/build/libtorch-2.6/usr/include"
FLAGS="-std=c++17 -isystem $LT/torch/csrc/api/include -isystem $LT -Iexamples"
hyperfine -N -w 5 -r 50 "${BUNDLE}bin/torch-tidy --version" "build/bin/torch-tidy --version" \
  "${BUNDLE}bin/torch-clangd --version" "build/bin/torch-clangd --version" 2>&1 |
  grep -E 'Benchmark|Time \(mean|times faster'
hyperfine -N -w 1 -r "$RUNS" --ignore-failure \
  "${BUNDLE}bin/torch-tidy --quiet examples/model.cpp -- $FLAGS" \
  "build/bin/torch-tidy --quiet examples/model.cpp -- $FLAGS" 2>&1 |
  grep -E 'Benchmark|Time \(mean|times faster'
