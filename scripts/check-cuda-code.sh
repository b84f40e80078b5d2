#!/usr/bin/env bash
# Compiles the CUDA code of the runtime harness and the probe, syntax only,
# against a LibTorch built with CUDA (scripts/fetch-cuda-headers.sh): the
# build machines have no CUDA LibTorch, so without this step that code is
# compiled nowhere but on a GPU machine. Every .cpp of harness/ and probe/
# is compiled with the CUDA macros their CMake files set on a CUDA build
# (HARNESS_HAS_CUDA, HARNESS_HAS_CUDA_KERNELS when nvcc compiles the
# harness's .cu, TORCH_TIDY_PROBE_CUDA); every .cu, for the host and for
# the device (sm_80), two at a time. The .cpp files read <torch/torch.h>
# from a precompiled header built first (a full parse of the CUDA LibTorch
# takes 30 s; each file then takes a few). Prints one line per file; fails
# if any does not compile.
# Usage: scripts/check-cuda-code.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
TORCH="$BUILD/libtorch-cuda-2.6/usr/include"
CUDA="$BUILD/cuda-12.4"
if [ ! -f "$TORCH/ATen/cuda/CUDAContext.h" ] || [ ! -f "$CUDA/include/cuda_runtime.h" ]; then
  echo "check-cuda-code.sh: no CUDA headers in $BUILD (run scripts/setup.sh); skipped"
  exit 0
fi
PY_INCLUDE=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
COMMON=(-std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -isystem "$TORCH"
        -isystem "$TORCH/torch/csrc/api/include" -isystem "$PY_INCLUDE"
        -I harness -I probe)
CXX_FLAGS=(-isystem "$CUDA/include" -DHARNESS_HAS_CUDA=1
           -DHARNESS_HAS_CUDA_KERNELS=1 -DHARNESS_HAS_YAML=1
           -DTORCH_TIDY_PROBE_CUDA=1 "${COMMON[@]}")
CU=(clang++-22 -fsyntax-only -x cuda --cuda-path="$CUDA" --cuda-gpu-arch=sm_80
    "${COMMON[@]}")
# Two files at a time (JOBS): each parse reads the whole CUDA LibTorch. A
# check that fails leaves a mark in $FAILED.
JOBS="${JOBS:-2}"
FAILED=$(mktemp -d)
PCH=$(mktemp -d)
trap 'rm -rf "$FAILED" "$PCH"' EXIT
echo '#include <torch/torch.h>' >"$PCH/torch_pch.h"
clang++-22 -x c++-header "${CXX_FLAGS[@]}" "$PCH/torch_pch.h" -o "$PCH/torch.pch"
CXX=(clang++-22 -fsyntax-only -x c++ "${CXX_FLAGS[@]}" -include-pch "$PCH/torch.pch")
check() { # LABEL COMMAND...
  local label=$1
  shift
  if "$@"; then echo "check-cuda-code.sh: $label: ok"; else
    echo "check-cuda-code.sh: $label: does not compile" >&2
    mktemp "$FAILED/XXXXXX" >/dev/null
  fi
}
throttle() { # wait until fewer than $1 checks run
  while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do wait -n || true; done
}
shopt -s nullglob
for f in harness/*.cpp harness/scenarios/*.cpp probe/*.cpp; do
  throttle "$JOBS"
  check "$f (with CUDA enabled)" "${CXX[@]}" "$f" &
done
for f in harness/*.cu harness/scenarios/*.cu probe/*.cu; do
  for side in --cuda-host-only --cuda-device-only; do
    throttle "$JOBS"
    check "$f ($side)" "${CU[@]}" "$side" "$f" &
  done
done
wait
[ -z "$(ls -A "$FAILED")" ]
