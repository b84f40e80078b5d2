#!/usr/bin/env bash
# Builds torch-tidy with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-san/ and runs, stopping at the first sanitizer error, the tool tests,
# each check's main test and the demo test (plugin runs are skipped: the
# instrumented checks can not be loaded into the uninstrumented clang-tidy-22).
# Usage: scripts/test-sanitizers.sh [lit test paths under build-san/test]
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
# The CUDA headers setup.sh fetched into build/ serve this build too, so the
# CUDA tests (host-side commands of nvcc units, CUDA-unit variants) run here.
mkdir -p build-san
for d in cuda-12.4 libtorch-cuda-2.6; do
  if [ -e "build/$d" ] && [ ! -e "build-san/$d" ]; then ln -s "../build/$d" "build-san/$d"; fi
done
# -O1: what the sanitizers' own docs advise; it builds faster than -O3.
cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE='-O1 -DNDEBUG' \
  -DTORCH_TIDY_SANITIZE='address;undefined' -DTORCH_TIDY_WERROR=ON \
  -DTORCH_TIDY_BUILD_CLANGD=OFF -DTORCH_TIDY_BUILD_HARNESS=OFF >/dev/null
# The CUDA units' precompiled headers, and the CUDA LibTorch header set's
# (its suite runs the extension checks' main tests), where setup fetched them.
CUDA_PCH=$(ninja -C build-san -t targets all |
  grep -oE '^(torch-cuda-pch-main|torch-pch-libtorch-cuda-2\.6|torch-cuda-pch-libtorch-cuda-2\.6)' || true)
# shellcheck disable=SC2086
ninja -C build-san -j "$JOBS" torch-tidy TorchTidyPlugin TorchTidyChecks torch-pch $CUDA_PCH
LIT=$(command -v lit || echo /usr/lib/llvm-22/bin/lit)
FILTER_OUT=()
if [ $# -eq 0 ]; then
  # The tool tests, each check's main test (checks/checks.json) and the demo.
  # Left out, as 40% of the job's test time for code that other tests here
  # run too: shared-preamble.test and shared-preamble-dirs.test (the
  # LeadingIncludes and shared precompiled header code that
  # shared-preamble-directives.test and shared-preamble-cuda.test run), and
  # cuda-databases.test (the nvcc command translation that
  # nvcc-translation.test, cuda-registry.test and cuda-launcher-split.test
  # run). The README's test command runs all three.
  FILTER_OUT=(--filter-out '(shared-preamble|shared-preamble-dirs|cuda-databases)\.test')
  set -- build-san/test/tool build-san/test/examples.test \
    build-san/test/checks/torch-sync-in-loop-hot-places.cpp \
    build-san/test/checks/torch-sync-in-loop-caller-devices.cpp \
    build-san/test/checks/cuda-device-code.cu
  # An extension check's test is a .cu that needs the CUDA LibTorch headers:
  # it runs in that header set's suite (test/libtorch-cuda-2.6/).
  for name in $(python3 -c 'import json; print(" ".join(c["name"] for c in json.load(open("checks/checks.json"))["checks"]))'); do
    if [ -e "test/checks/$name.cpp" ]; then
      set -- "$@" "build-san/test/checks/$name.cpp"
    elif [ -d build-san/test/libtorch-cuda-2.6 ]; then
      set -- "$@" "build-san/test/libtorch-cuda-2.6/$name.cu"
    fi
  done
fi
"$LIT" -sv "${FILTER_OUT[@]}" "$@"
